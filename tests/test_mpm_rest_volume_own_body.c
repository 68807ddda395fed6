/* Property: a particle's rest volume V0 = m_p / rho_p^0, estimated at its first step from
 * the grid's density (step 2), counts only its own body's mass: a body resting on
 * another at t = 0 does not make the other look denser. A light slab of snow (100 kg/m^3)
 * with a dense box (20,000 kg/m^3) on it, touching at t = 0, one step:
 *   1. the slab's top layer under the box has the V0 of the top layer far from it, within
 *      3 % (both sit at the slab's top face, where the kernel smears the density alike;
 *      the jitter spreads V0 by about 1 %; counting the box's mass made them 5 to 80
 *      times smaller);
 *   2. each body's V0 is exactly (tolerance 0) what the body gets when simulated alone:
 *      its own mass reaches each node in the order P2G adds it, so the bits agree;
 *   3. the same bits with 1 and 2 threads;
 *   4. resuming from a checkpoint saved before the first step (the pipeline's first
 *      frame) gives the same bits: the checkpoint keeps which body each particle is of;
 *   5. bodies that do not touch: the bits of the same particles added as one body, as
 *      every V0 was before bodies were told apart (so such scenes keep their caches),
 *      and their checkpoint before the first step has no "body" attribute (its bytes
 *      are as before too);
 *   6. a checkpoint whose "body" attribute does not split the ids into ranges is
 *      refused (PW_EFORMAT naming the attribute). 
 * Sizes: h = 0.02 m, 8 particles a cell, about 6,000 particles, a fraction of a second. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_cache.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"

#define H 0.02
#define DT 1e-5 /* [s] one step */

static const vec3 slab_lo = {-0.2, 0.02, -0.1}, slab_hi = {0.2, 0.08, 0.1};
static const vec3 box_lo = {-0.05, 0.08, -0.05}, box_hi = {0.05, 0.14, 0.05};

static fixture_body body_of(int which, double dy)
{
    fixture_body b;
    if (which == 0) {
        fixture_default(&b, slab_lo, slab_hi, H);
        b.rho = 100;
        b.seed = 11;
    } else {
        fixture_default(&b, v3_add(box_lo, v3(0, dy, 0)), v3_add(box_hi, v3(0, dy, 0)), H);
        b.rho = 20000;
        b.E = 1e7;
        b.seed = 13;
    }
    return b;
}

/* A sim of the bodies listed (0 slab, 1 box; as one body when `merged`), the box raised
 * by dy [m]. */
static pw_sim *make(const int *which, int n, int merged, double dy, int threads)
{
    pw_sim_params p;
    fixture_params(&p, H, v3(-0.3, 0, -0.2), v3(0.3, 0.4, 0.2));
    p.threads = threads;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    if (!s) {
        fprintf(stderr, "create: %s\n", err.msg);
        exit(3);
    }
    pw_seeded all = {0};
    for (int k = 0; k < n; k++) {
        fixture_body b = body_of(which[k], dy);
        if (merged) {
            fixture_fill(&all, &b);
        } else if (fixture_add(s, &b, &err) != PW_OK) {
            fprintf(stderr, "add: %s\n", err.msg);
            exit(3);
        }
    }
    if (merged && pw_sim_add_particles(s, &all, &err) != PW_OK) exit(3);
    fixture_free(&all);
    return s;
}

static void step(pw_sim *s)
{
    pw_error err = {0};
    CHECK(pw_sim_advance_to(s, DT, NULL, NULL, &err) == PW_OK, "step: %s", err.msg);
}

/* V0 by id (n entries), and positions by id when x is non-NULL. */
static double *volumes_by_id(const pw_sim *s, vec3 *x)
{
    size_t n = s->pt.n;
    double *V0 = calloc(n, sizeof *V0);
    for (size_t p = 0; p < n; p++) {
        V0[s->pt.id[p]] = s->pt.V0[p];
        if (x) x[s->pt.id[p]] = s->pt.x[p];
    }
    return V0;
}

/* Entries [0, n) of a and b equal, bit for bit; returns how many differ. */
static size_t differ(const double *a, const double *b, size_t n)
{
    size_t d = 0;
    for (size_t k = 0; k < n; k++) d += memcmp(&a[k], &b[k], sizeof a[k]) != 0;
    return d;
}

int main(void)
{
    const int both[2] = {0, 1}, slab[1] = {0}, box[1] = {1};

    /* 1. under the box against far from it */
    pw_sim *s = make(both, 2, 0, 0, 2);
    step(s);
    size_t n = s->pt.n;
    vec3 *x = malloc(n * sizeof *x);
    double *V0 = volumes_by_id(s, x);
    pw_sim *alone = make(slab, 1, 0, 0, 2);
    step(alone);
    size_t ns = alone->pt.n;
    double sum_under = 0, sum_far = 0, min_under = INFINITY;
    int n_under = 0, n_far = 0;
    for (size_t k = 0; k < ns; k++) {
        if (x[k].y < slab_hi.y - 0.5 * H) continue; /* the top layer of particles */
        if (fabs(x[k].x) < 0.04 && fabs(x[k].z) < 0.04) {
            sum_under += V0[k], n_under++;
            min_under = fmin(min_under, V0[k]);
        } else if (fabs(x[k].x) > 0.10 && fabs(x[k].x) < 0.14 && fabs(x[k].z) < 0.04) {
            sum_far += V0[k], n_far++;
        }
    }
    double under = sum_under / n_under, far = sum_far / n_far, cell = H * H * H;
    printf("1: top layer V0: under the box %.4f h^3 (least %.4f h^3, %d particles), far %.4f "
           "h^3 (%d)\n", under / cell, min_under / cell, n_under, far / cell, n_far);
    CHECK(n_under > 20 && n_far > 20, "1: %d particles under the box, %d far", n_under, n_far);
    CHECK(fabs(under / far - 1) < 0.03, "1: V0 under the box %.4g m^3, far %.4g m^3 (ratio %.3f)",
          under, far, under / far);

    /* 2. each body as if alone */
    double *V0_slab = volumes_by_id(alone, NULL);
    pw_sim *box_alone = make(box, 1, 0, 0, 2);
    step(box_alone);
    double *V0_box = volumes_by_id(box_alone, NULL);
    size_t nb = box_alone->pt.n;
    CHECK(ns + nb == n, "2: %zu + %zu particles, together %zu", ns, nb, n);
    CHECK(differ(V0, V0_slab, ns) == 0, "2.1: %zu of the slab's %zu V0 differ from the slab "
          "alone", differ(V0, V0_slab, ns), ns);
    CHECK(differ(V0 + ns, V0_box, nb) == 0, "2.2: %zu of the box's %zu V0 differ from the box "
          "alone", differ(V0 + ns, V0_box, nb), nb);

    /* 3. one thread */
    pw_sim *s1 = make(both, 2, 0, 0, 1);
    step(s1);
    double *V0_1 = volumes_by_id(s1, NULL);
    CHECK(differ(V0, V0_1, n) == 0, "3: %zu of %zu V0 differ between 1 and 2 threads",
          differ(V0, V0_1, n), n);

    /* 4. resumed from a checkpoint before the first step */
    char path[4096];
    snprintf(path, sizeof path, "%s/rest_volume_own_body.pwc", POWDER_TEST_TMP);
    pw_sim *fresh = make(both, 2, 0, 0, 2);
    pw_error err = {0};
    CHECK(pw_sim_save(fresh, path, 0, 1, &err) == PW_OK, "4: save: %s", err.msg);
    pw_sim *resumed = make(both, 0, 0, 0, 2);
    CHECK(pw_sim_load(resumed, path, &err) == PW_OK, "4: load: %s", err.msg);
    step(resumed);
    double *V0_r = volumes_by_id(resumed, NULL);
    CHECK(resumed->pt.n == n && differ(V0, V0_r, n) == 0,
          "4: %zu of %zu V0 differ after resuming", differ(V0, V0_r, n), n);

    /* 5. apart (the box 2 h + 5 h above the slab): the bits of one body */
    pw_sim *apart = make(both, 2, 0, 7 * H, 2), *merged = make(both, 2, 1, 7 * H, 2);
    step(apart);
    step(merged);
    double *V0_a = volumes_by_id(apart, NULL), *V0_m = volumes_by_id(merged, NULL);
    CHECK(apart->pt.n_bodies == 2 && merged->pt.n_bodies == 1, "5: bodies %zu and %zu",
          apart->pt.n_bodies, merged->pt.n_bodies);
    CHECK(differ(V0_a, V0_m, n) == 0, "5: %zu of %zu V0 differ from one body's",
          differ(V0_a, V0_m, n), n);

    char apart_path[4096];
    snprintf(apart_path, sizeof apart_path, "%s/rest_volume_apart.pwc", POWDER_TEST_TMP);
    pw_sim *apart0 = make(both, 2, 0, 7 * H, 2);
    CHECK(pw_sim_save(apart0, apart_path, 0, 1, &err) == PW_OK, "5: save: %s", err.msg);
    pw_cache_frame f;
    CHECK(pw_cache_read(apart_path, NULL, 0, &f, &err) == PW_OK, "5: read: %s", err.msg);
    CHECK(pw_cache_find(&f, "body") == NULL, "5: bodies apart, yet the checkpoint keeps 'body'");
    pw_cache_frame_free(&f);

    /* 6. a damaged "body": one particle of the slab said to be of the box */
    CHECK(pw_cache_read(path, NULL, 0, &f, &err) == PW_OK, "6: read: %s", err.msg);
    const pw_cache_attr *body = pw_cache_find(&f, "body");
    const pw_cache_attr *ids = pw_cache_find(&f, "id");
    CHECK(body && ids, "6: the touching bodies' checkpoint has no 'body'");
    if (body && ids) {
        uint32_t *b = body->data;
        const uint32_t *id = ids->data;
        for (size_t p = 0; p < (size_t)f.count; p++)
            if (id[p] == 5) b[p] = 1;
        char bad[4096];
        snprintf(bad, sizeof bad, "%s/rest_volume_bad_body.pwc", POWDER_TEST_TMP);
        CHECK(pw_cache_write(bad, &f, &err) == PW_OK, "6: write: %s", err.msg);
        pw_sim *refused = make(both, 0, 0, 0, 2);
        pw_status rc = pw_sim_load(refused, bad, &err);
        CHECK(rc == PW_EFORMAT && strstr(err.msg, "'body'"), "6: load gave %d: %s", (int)rc,
              err.msg);
        pw_sim_destroy(refused);
    }
    pw_cache_frame_free(&f);

    pw_sim *sims[] = {apart0, s, alone, box_alone, s1, fresh, resumed, apart, merged};
    for (size_t k = 0; k < sizeof sims / sizeof sims[0]; k++) pw_sim_destroy(sims[k]);
    double *arrays[] = {V0, V0_slab, V0_box, V0_1, V0_r, V0_a, V0_m};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) free(arrays[k]);
    free(x);
    return check_done("mpm_rest_volume_own_body");
}
