/* Property: pw_svd_warm_batch factors each matrix of a batch to the bits it gets alone
 * (a batch of one), whatever shares the batch with it: the ok flag, U, V and sigma are
 * compared byte for byte. The lanes run until every lane converged: lanes that need
 * different numbers of sweeps, a lane that falls back (rank 2), one that never converges
 * (NaN input) and one from a guess unrelated to it (more sweeps) must not disturb their
 * neighbours. (Reading a neighbour's lane when unpacking made 7479 of 9000 lanes differ
 * when batches were four wide.) Every batch size 1-PW_SVD_BATCH (eight: two halves of
 * four lanes) and every rotation of the lanes is tried, over 300 batches of the solver's case
 * (Fe_hat = (I + dt grad v) U0 S0 V0^T from V0) mixed with those special lanes. The same
 * for packing the factorisations as quaternions (pw_svd3_pack_batch), over every branch
 * of the conversion. */
#include <string.h>

#include "check.h"
#include "constitutive.h"

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

static mat3 random_rotation(unsigned long long *st)
{
    vec3 axis = v3(urand(st) - 0.5, urand(st) - 0.5, urand(st) - 0.5);
    return m3_rotation(axis, 6.283185307179586 * urand(st));
}

/* One input of kind k: 0-5 the solver's case, 6 rank 2, 7 NaN, 8 an unrelated guess. */
static void make_input(int kind, unsigned long long *st, mat3 *A, mat3 *V0)
{
    mat3 U0 = random_rotation(st), V = random_rotation(st);
    mat3 S = m3_diag(0.97 + 0.04 * urand(st), 0.97 + 0.04 * urand(st), 0.97 + 0.04 * urand(st));
    mat3 L = m3_identity();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) L.m[i][j] += 1e-3 * (2 * urand(st) - 1);
    *A = m3_mul(L, m3_mul(m3_mul(U0, S), m3_transpose(V)));
    *V0 = V;
    if (kind == 6) { /* rank 2: the third column a combination of the first two */
        for (int i = 0; i < 3; i++) A->m[i][2] = 0.5 * A->m[i][0] - 0.25 * A->m[i][1];
    } else if (kind == 7) {
        A->m[1][1] = NAN;
    } else if (kind == 8) {
        *V0 = random_rotation(st);
    }
}

static int same_result(const pw_svd3 *a, int ok_a, const pw_svd3 *b, int ok_b)
{
    if (ok_a != ok_b) return 0;
    if (!ok_a) return 1; /* (the outputs of a fallback lane are not defined) */
    return memcmp(&a->U, &b->U, sizeof a->U) == 0 && memcmp(&a->V, &b->V, sizeof a->V) == 0 &&
           memcmp(&a->sigma, &b->sigma, sizeof a->sigma) == 0;
}

int main(void)
{
    unsigned long long st = 2024;
    int batches = 0, lanes = 0, fallbacks = 0, mismatches = 0;
    for (int trial = 0; trial < 300; trial++) {
        mat3 A[PW_SVD_BATCH], V0[PW_SVD_BATCH];
        pw_svd3 alone[PW_SVD_BATCH];
        int ok_alone[PW_SVD_BATCH];
        for (int l = 0; l < PW_SVD_BATCH; l++) {
            make_input((int)(urand(&st) * 9), &st, &A[l], &V0[l]);
            pw_svd_warm_batch(1, &A[l], &V0[l], &alone[l], &ok_alone[l]);
        }
        for (int n = 1; n <= PW_SVD_BATCH; n++)
            for (int rot = 0; rot < n; rot++) {
                mat3 Ab[PW_SVD_BATCH], Vb[PW_SVD_BATCH];
                int from[PW_SVD_BATCH];
                for (int l = 0; l < n; l++) {
                    from[l] = (l + rot) % n;
                    Ab[l] = A[from[l]];
                    Vb[l] = V0[from[l]];
                }
                pw_svd3 out[PW_SVD_BATCH];
                int ok[PW_SVD_BATCH];
                pw_svd_warm_batch(n, Ab, Vb, out, ok);
                for (int l = 0; l < n; l++) {
                    mismatches += !same_result(&out[l], ok[l], &alone[from[l]], ok_alone[from[l]]);
                    fallbacks += !ok[l];
                    lanes++;
                }
                batches++;
            }
    }
    printf("%d batches, %d lanes (%d fell back to m3_svd), %d differ from the lane alone\n",
           batches, lanes, fallbacks, mismatches);
    CHECK(fallbacks > 100 && fallbacks < lanes / 2, "too few or too many fallbacks (%d)", fallbacks);
    CHECK(mismatches == 0, "%d lanes differ from the same matrix factored alone", mismatches);

    /* pw_svd3_pack_batch: every lane packs to the bits of its factorisation packed alone,
     * and every Shepperd branch is taken (trace > 0, and each diagonal entry largest:
     * turns by nearly pi about x, y and z), in every position of the batch */
    int pack_mismatches = 0, packs = 0;
    for (int trial = 0; trial < 200; trial++) {
        pw_svd3 f[PW_SVD_BATCH];
        pw_svd3_packed alone[PW_SVD_BATCH], batch[PW_SVD_BATCH];
        for (int l = 0; l < PW_SVD_BATCH; l++) {
            int kind = (trial + l) % 4; /* 0: random; 1-3: near pi about x, y, z */
            vec3 axis = kind == 0 ? v3(urand(&st) - 0.5, urand(&st) - 0.5, urand(&st) - 0.5)
                                  : v3(kind == 1, kind == 2, kind == 3);
            double angle = kind == 0 ? 6.283185307179586 * urand(&st) : 3.1 + 0.04 * urand(&st);
            f[l].U = m3_rotation(axis, angle);
            f[l].V = random_rotation(&st);
            f[l].sigma = v3(urand(&st), urand(&st), -urand(&st));
            pw_svd3_pack(&f[l], &alone[l]);
        }
        for (int n = 1; n <= PW_SVD_BATCH; n++) {
            pw_svd3_pack_batch(n, f, batch);
            for (int l = 0; l < n; l++, packs++)
                pack_mismatches += memcmp(&batch[l], &alone[l], sizeof batch[l]) != 0;
        }
    }
    printf("%d packed lanes, %d differ from the lane alone\n", packs, pack_mismatches);
    CHECK(pack_mismatches == 0, "%d packed lanes differ from packing alone", pack_mismatches);
    return check_done("constitutive_svd_batch_lanes");
}
