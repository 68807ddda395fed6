/* loops.c — parallel loops over home blocks and deterministic sums; see loops.h. */
#include "loops.h"

int pw_box_force_narrow = 0;

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
