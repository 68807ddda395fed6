/* Property: the measures of what a viewer sees of a breakup (sim/pw_stats.h, "Crumbs")
 * are exact on an arrangement whose fragments are known. Lattice blocks of spacing 0.5
 * (linked at 0.7), 20 apart, hold 4800, 3000, 1000, 500, 300 and 100 particles; beside
 * them twenty clumps of 8, ten of 12, one of 10 and ten singletons: 10,000 particles.
 *
 * 1. Crumbs at the default 0.1 % (10 particles): the clumps of 8 and the singletons,
 *    170 particles, 1.7 % exactly; the clump of 10 sits on the limit and is not a crumb
 *    ("smaller than"). At 0.15 % (15) the clumps of 12 and 10 join: 3 %; at 1.1 % (110)
 *    the block of 100 too: 4 %.
 * 2. Median: fragments up to 1000 particles hold 2200, up to 3000 hold 5200 >= 5000, so
 *    the particle-weighted median is 3000 particles, 0.3. With sizes 1, 1, 2 the two
 *    singletons already hold half: 0.25 (half is enough).
 * 3. Separated chunks: 6 fragments hold >= 1 % (100 particles, the block of 100 included).
 *    Weakening or breaking snow in place (J_P 1.4 and 1.5 in layers of the largest block)
 *    changes the weak and broken shares and none of the three measures: a crack that has
 *    not opened is not a separation. Moving half of the largest block one unit away
 *    (a gap of 1.5 > 0.7) makes 7 chunks and the median 2400 (0.24).
 * 4. Edge values: no particles gives 0 for all three; a crumb size of -0.1, 1 or NaN is
 *    refused (PW_EINVAL).
 * All shares are ratios of integers, so they are compared exactly. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "pw_stats.h"

enum { N_TOTAL = 10000 };

typedef struct {
    vec3 *x;
    size_t n;
    double next_x; /* where the next group starts along x */
} arrangement;

/* A lattice block of nx * ny * nz particles at spacing 0.5, 20 beyond the last. */
static size_t block(arrangement *a, int nx, int ny, int nz)
{
    size_t first = a->n;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++)
                a->x[a->n++] = v3(a->next_x + 0.5 * i, 0.5 * j, 0.5 * k);
    a->next_x += 0.5 * nx + 20;
    return first;
}

static pw_frame_stats measure(const arrangement *a, const double *jp, const double *xi,
                              double crumb)
{
    pw_stats_particles p = {.n = a->n, .x = a->x, .Jp = jp, .xi = xi, .crumb = crumb};
    pw_frame_stats st;
    pw_error err = {0};
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, &err) == PW_OK, "compute: %s",
          err.msg);
    return st;
}

int main(void)
{
    arrangement a = {malloc(N_TOTAL * sizeof(vec3)), 0, 0};
    double *jp = malloc(N_TOTAL * sizeof *jp), *xi = malloc(N_TOTAL * sizeof *xi);
    size_t largest = block(&a, 20, 20, 12); /* 4800 */
    block(&a, 20, 10, 15);                  /* 3000 */
    block(&a, 10, 10, 10);                  /* 1000 */
    block(&a, 10, 10, 5);                   /*  500 */
    block(&a, 10, 10, 3);                   /*  300 */
    block(&a, 5, 5, 4);                     /*  100 = 1 % */
    for (int k = 0; k < 20; k++) block(&a, 2, 2, 2);
    for (int k = 0; k < 10; k++) block(&a, 2, 2, 3);
    block(&a, 2, 5, 1);
    for (int k = 0; k < 10; k++) block(&a, 1, 1, 1);
    CHECK(a.n == N_TOTAL, "arrangement holds %zu particles", a.n);
    for (size_t i = 0; i < a.n; i++) jp[i] = 1, xi[i] = 10;

    /* 1. crumbs */
    pw_frame_stats st = measure(&a, jp, xi, 0);
    CHECK(st.fragments == 6 + 20 + 10 + 1 + 10, "1: %zu fragments", st.fragments);
    CHECK(st.crumb_limit == PW_STATS_CRUMB, "1: default crumb size %g", st.crumb_limit);
    CHECK(st.crumb_share == 170.0 / N_TOTAL, "1: crumbs %.17g, expected 0.017", st.crumb_share);
    st = measure(&a, jp, xi, 0.0015);
    CHECK(st.crumb_share == 300.0 / N_TOTAL, "1: crumbs at 0.15 %%: %.17g", st.crumb_share);
    st = measure(&a, jp, xi, 0.011);
    CHECK(st.crumb_share == 400.0 / N_TOTAL, "1: crumbs at 1.1 %%: %.17g", st.crumb_share);

    /* 2. median */
    st = measure(&a, jp, xi, 0);
    CHECK(st.median_fragment == 3000.0 / N_TOTAL, "2: median %.17g", st.median_fragment);
    arrangement small = {malloc(4 * sizeof(vec3)), 0, 0};
    block(&small, 1, 1, 1);
    block(&small, 1, 1, 1);
    block(&small, 2, 1, 1);
    pw_frame_stats st_small = measure(&small, NULL, NULL, 0);
    CHECK(st_small.median_fragment == 0.25, "2: median of 1, 1, 2: %.17g",
          st_small.median_fragment);

    /* 3. separated chunks, not weakened snow */
    CHECK(st.fragments_large == 6, "3: %zu fragments >= 1 %%", st.fragments_large);
    for (size_t i = largest; i < largest + 4800; i++) {
        int layer = (int)((i - largest) % 12); /* k, the block's fastest index */
        jp[i] = layer == 3 ? 1.5 : layer == 4 || layer == 5 ? 1.4 : 1;
    }
    pw_frame_stats weak = measure(&a, jp, xi, 0);
    CHECK(weak.weak_share == 1200.0 / N_TOTAL && weak.broken_share == 400.0 / N_TOTAL,
          "3: weak %.17g, broken %.17g", weak.weak_share, weak.broken_share);
    CHECK(weak.fragments_large == 6 && weak.crumb_share == st.crumb_share &&
              weak.median_fragment == st.median_fragment,
          "3: weakening in place moved the measures: %zu chunks, crumbs %g, median %g",
          weak.fragments_large, weak.crumb_share, weak.median_fragment);
    for (size_t i = largest; i < largest + 4800; i++)
        if ((i - largest) % 12 >= 6) a.x[i].z += 1.0;
    pw_frame_stats split = measure(&a, jp, xi, 0);
    CHECK(split.fragments_large == 7 && split.median_fragment == 2400.0 / N_TOTAL &&
              split.crumb_share == st.crumb_share,
          "3: split: %zu chunks, median %.17g, crumbs %g", split.fragments_large,
          split.median_fragment, split.crumb_share);

    /* 4. edge values */
    arrangement none = {a.x, 0, 0};
    pw_frame_stats empty = measure(&none, NULL, NULL, 0);
    CHECK(empty.crumb_share == 0 && empty.median_fragment == 0 && empty.fragments_large == 0,
          "4: no particles: crumbs %g, median %g, chunks %zu", empty.crumb_share,
          empty.median_fragment, empty.fragments_large);
    const double bad[3] = {-0.1, 1.0, NAN};
    for (int k = 0; k < 3; k++) {
        pw_stats_particles p = {.n = a.n, .x = a.x, .crumb = bad[k]};
        pw_error err = {0};
        CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, &err) == PW_EINVAL,
              "4.%d: crumb size %g accepted", k + 1, bad[k]);
    }
    free(a.x), free(small.x), free(jp), free(xi);
    return check_done("stats_crumbs_median_separated");
}
