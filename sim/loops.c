/* loops.c — parallel loops over home blocks and deterministic sums; see loops.h. */
#include "loops.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int pw_box_force_narrow = 0;
int pw_box_split_512 = 0;

/* AMD family 19h (Zen 3 and 4; only Zen 4 has AVX-512) runs each 512-bit operation as
 * two 256-bit halves, so the wide forms' fewer instructions buy nothing there, and
 * their wider shuffles and folds cost: on an AMD EPYC of that family, 10^5 particles,
 * 1 thread, the narrow forms took the forces scatter from 61-63 to 47 ns a particle,
 * P2G from 3.8 to 3.2 and G2P from 9.8 to 8.6 ms a step (sim/docs/step-speed.md).
 * Family 1Ah (Zen 5) and Intel's AVX-512 cores keep the wide forms. */
__attribute__((constructor)) static void detect_split_512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    int amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u; /* "AuthenticAMD" */
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return;
    unsigned family = ((a >> 8) & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
    pw_box_split_512 = family == 0x19;
#endif
}

void pw_mpm_for_homes(pw_sim *s, pw_home_fn fn, void *ctx)
{
    long nh = (long)s->grid.n_home;
#pragma omp parallel for schedule(dynamic, 2) num_threads(s->threads)
    for (long home = 0; home < nh; home++) fn(s, (uint32_t)home, ctx);
}

void pw_mpm_for_homes_by_colour(pw_sim *s, pw_home_fn fn, void *ctx)
{
    const pw_grid *g = &s->grid;
#pragma omp parallel num_threads(s->threads)
    for (int colour = 0; colour < 8; colour++) {
        long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
        for (long j = lo; j < hi; j++) fn(s, g->colour_order[j], ctx);
    }
}

double pw_mpm_sum(const pw_sim *s, const double *a, size_t n)
{
    long nc = (long)pw_sum_chunks(n);
    double *part = s->partial;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        size_t lo = (size_t)c * PW_SUM_CHUNK, hi = lo + PW_SUM_CHUNK < n ? lo + PW_SUM_CHUNK : n;
        double acc = 0;
        for (size_t k = lo; k < hi; k++) acc += a[k];
        part[c] = acc;
    }
    return pw_sum_in_order(part, (size_t)nc);
}
