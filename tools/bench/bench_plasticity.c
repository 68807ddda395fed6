/* bench_plasticity — the per-particle plasticity step (the warm-started SVD of
 * pw_svd_warm_batch in batches of PW_SVD_BATCH, as the solver calls it, then
 * pw_plasticity_update_from_svd) on inputs shaped like the solver's: Fe^n = U0 S0 V0ᵀ with
 * random rotations and singular values in [0.97, 1.01] (around the snow clamp band
 * [0.975, 1.0075]), Fe_hat = (I + dt grad v) Fe^n with dt grad v entries of ~1e-3, and
 * V0 (Fe^n's right singular vectors) as the guess, as the solver passes the previous
 * step's.
 *
 *   bench_plasticity [--particles N] [--reps R]
 *
 * Prints ns per call (elapsed and process CPU time). --reps 0 builds the inputs only,
 * so that instructions per call are
 *   (perf stat instructions at --reps R - at --reps 0) / (R N),
 * free of the contention that makes the clock noisy on a shared machine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "constitutive.h"
#include "bench_cpu.h"

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double rand01(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static mat3 random_rotation(uint64_t *s)
{
    vec3 axis = v3(rand01(s) - 0.5, rand01(s) - 0.5, rand01(s) - 0.5);
    return m3_rotation(axis, 6.283185307179586 * rand01(s));
}

typedef struct {
    mat3 Fe_hat, Fp, V_guess;
} input;

int main(int argc, char **argv)
{
    long n = 300000, reps = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--particles")) n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atol(argv[i + 1]);
        else {
            fprintf(stderr, "usage: bench_plasticity [--particles N] [--reps R]\n");
            return 2;
        }
    }
    if (n < 1 || reps < 0) return 2;
    input *in = malloc((size_t)n * sizeof *in);
    if (!in) return 1;
    uint64_t seed = 2013;
    for (long p = 0; p < n; p++) {
        mat3 U0 = random_rotation(&seed), V0 = random_rotation(&seed);
        mat3 S0 = m3_diag(0.97 + 0.04 * rand01(&seed), 0.97 + 0.04 * rand01(&seed),
                          0.97 + 0.04 * rand01(&seed));
        mat3 step = m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) step.m[i][j] += 2e-3 * (rand01(&seed) - 0.5);
        in[p].Fe_hat = m3_mul(step, m3_mul(m3_mul(U0, S0), m3_transpose(V0)));
        in[p].Fp = m3_mul(m3_mul(V0, m3_diag(1.0 / S0.m[0][0], 1.0, 1.0)), m3_transpose(V0));
        in[p].V_guess = V0;
    }

    /* Results go to one particle's slot only; the sum of a few entries keeps the
     * calls from being optimised away. */
    const double theta_c = 2.5e-2, theta_s = 7.5e-3;
    double checksum = 0;
    int failures = 0;
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (long r = 0; r < reps; r++) {
        for (long p0 = 0; p0 < n; p0 += PW_SVD_BATCH) {
            int m = n - p0 < PW_SVD_BATCH ? (int)(n - p0) : PW_SVD_BATCH;
            mat3 A[PW_SVD_BATCH], V0[PW_SVD_BATCH];
            pw_svd3 warm[PW_SVD_BATCH];
            int ok[PW_SVD_BATCH];
            for (int k = 0; k < m; k++) {
                A[k] = in[p0 + k].Fe_hat;
                V0[k] = in[p0 + k].V_guess;
            }
            pw_svd_warm_batch(m, A, V0, warm, ok);
            for (int k = 0; k < m; k++) {
                long p = p0 + k;
                mat3 Fe, Fp;
                pw_svd3 f;
                failures += pw_plasticity_update_from_svd(&in[p].Fe_hat, &in[p].Fp, theta_c,
                                                          theta_s, 0.0, ok[k] ? &warm[k] : NULL,
                                                          &Fe, &Fp, &f) != 0;
                checksum += Fe.m[0][0] + Fp.m[1][1] + f.sigma.z;
            }
        }
    }
    double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    double calls = (double)n * (double)reps;
    bench_print_cpu();
    if (calls > 0)
        printf("%ld particles x %ld reps: %.1f ns/call elapsed, %.1f ns/call cpu "
               "(checksum %.17g, %d failures)\n",
               n, reps, 1e9 * (t1 - t0) / calls, 1e9 * (c1 - c0) / calls, checksum, failures);
    free(in);
    return failures != 0;
}
