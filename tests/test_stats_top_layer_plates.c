/* Property: `powder stats` counts the plates of a layered body's top layer
 * (pw_stats.h, "Plates"): the connected sets of its intact particles holding at least
 * 1 % of it, linked as fragments are, other layers left out.
 *
 * A lattice 20 x 4 x 20 at spacing 0.5 (link 0.7: neighbours linked, diagonals not),
 * the two upper rows labelled layer 1 (the top layer, 800 particles), the two lower 0.
 * 1. Intact: one plate holding all of the top layer, one fragment, nothing broken.
 * 2. The top layer broken (J_P 1.5 at xi 10: 0.7 % of its stiffness left) along the
 *    planes i = 10 and k = 10: four plates (10 x 10, 9 x 10, 10 x 9 and 9 x 9 columns,
 *    two rows deep), the largest 200/800; broken share 78/800; still one fragment (a
 *    crack that has not opened); the same four as chunks of sound particles, weak share
 *    78/800.
 * 3. The layer below broken too, everywhere: the top layer's figures do not change.
 * 4. Specks below 1 %: a corner of 2 x 2 x 1 top particles (4 < 8 = 1 % of 800) cut off
 *    by breaking its neighbours is not a plate.
 * 5. Without labels nothing is measured (has_layers 0); through a cache file with a
 *    `layer` attribute the same figures come out. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_stats.h"

#define NI 20
#define NJ 4
#define NK 20
#define N (NI * NJ * NK)

static size_t at(int i, int j, int k) { return ((size_t)k * NJ + (size_t)j) * NI + (size_t)i; }

int main(void)
{
    vec3 *x = malloc(N * sizeof *x);
    double *jp = malloc(N * sizeof *jp), *xi = malloc(N * sizeof *xi);
    uint32_t *layer = malloc(N * sizeof *layer);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++) {
                size_t p = at(i, j, k);
                x[p] = v3(0.5 * i, 0.5 * j, 0.5 * k);
                jp[p] = 1;
                xi[p] = 10;
                layer[p] = j >= 2 ? 1 : 0;
            }
    pw_stats_particles p = {N, x, NULL, NULL, jp, xi, NULL, NULL, NULL, NULL, NULL, NULL,
                            {0, 0, 0}, NULL, layer, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    pw_error err = {0};

    /* 1. intact */
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0, &st, &err) == PW_OK, "1: %s", err.msg);
    CHECK(st.has_layers && st.top_particles == 800 && st.top_fragments == 1 &&
              st.top_plates == 1 && st.top_largest_plate == 1 && st.top_broken_share == 0,
          "1: %zu particles, %zu fragments, %zu plates, largest %g, broken %g", st.top_particles,
          st.top_fragments, st.top_plates, st.top_largest_plate, st.top_broken_share);

    /* 2. broken along two planes */
    for (int k = 0; k < NK; k++)
        for (int j = 2; j < NJ; j++)
            for (int i = 0; i < NI; i++)
                if (i == 10 || k == 10) jp[at(i, j, k)] = 1.5;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0, &st, &err) == PW_OK, "2: %s", err.msg);
    CHECK(st.top_plates == 4 && st.top_largest_plate == 200.0 / 800 &&
              st.top_broken_share == 78.0 / 800 && st.top_fragments == 1,
          "2: %zu plates, largest %g, broken %g, %zu fragments", st.top_plates,
          st.top_largest_plate, st.top_broken_share, st.top_fragments);
    CHECK(st.top_chunks == 4 && st.top_weak_share == 78.0 / 800, "2: %zu chunks, weak %g",
          st.top_chunks, st.top_weak_share);
    printf("top layer broken along two planes: %zu plates, largest %.3f, broken %.4f\n",
           st.top_plates, st.top_largest_plate, st.top_broken_share);

    /* 3. the layer below broken everywhere */
    for (int k = 0; k < NK; k++)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < 2; j++) jp[at(i, j, k)] = 1.5;
    pw_frame_stats below;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0, &below, &err) == PW_OK, "3: %s", err.msg);
    CHECK(below.top_plates == st.top_plates && below.top_largest_plate == st.top_largest_plate &&
              below.top_broken_share == st.top_broken_share,
          "3: the layer below changed the top's plates (%zu)", below.top_plates);
    CHECK(below.broken_share > st.broken_share, "3: the lower layer did not break");

    /* 4. a speck of 4 top particles is not a plate */
    for (int j = 2; j < NJ; j++) {
        jp[at(2, j, 0)] = jp[at(0, j, 1)] = jp[at(1, j, 1)] = jp[at(2, j, 1)] = 1.5;
    }
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0, &st, &err) == PW_OK, "4: %s", err.msg);
    CHECK(st.top_plates == 4, "4: a 4-particle speck counted: %zu plates", st.top_plates);

    /* 5. no labels; a cache */
    p.layer = NULL;
    pw_frame_stats none;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0, &none, &err) == PW_OK, "5: %s", err.msg);
    CHECK(!none.has_layers && none.top_plates == 0, "5: measured without labels");
    char path[4096];
    snprintf(path, sizeof path, "%s/stats_top_layer.pwc", POWDER_TEST_TMP);
    double *v = calloc(3 * N, sizeof *v), *m = malloc(N * sizeof *m);
    for (size_t q = 0; q < N; q++) m[q] = 1;
    pw_cache_attr attrs[6] = {{"x", PW_F64, 3, x},   {"v", PW_F64, 3, v},
                              {"m", PW_F64, 1, m},   {"Jp", PW_F64, 1, jp},
                              {"xi", PW_F64, 1, xi}, {"layer", PW_U32, 1, layer}};
    pw_cache_frame cf;
    memset(&cf, 0, sizeof cf);
    cf.count = N;
    cf.h = 0.5;
    cf.attrs = attrs;
    cf.n_attrs = 6;
    CHECK(pw_cache_write(path, &cf, &err) == PW_OK, "5: write: %s", err.msg);
    pw_frame_stats sc;
    CHECK(pw_stats_cache(path, 1.4, 0, v3_zero(), NULL, 0, &sc, &err) == PW_OK, "5: %s", err.msg);
    CHECK(sc.has_layers && sc.top_plates == st.top_plates && sc.top_particles == 800 &&
              sc.top_largest_plate == st.top_largest_plate &&
              sc.top_broken_share == st.top_broken_share,
          "5: from the cache %zu plates (%zu)", sc.top_plates, st.top_plates);
    free(x), free(jp), free(xi), free(layer), free(v), free(m);
    return check_done("stats_top_layer_plates");
}
