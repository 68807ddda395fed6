/* Property: durability only falls (Takahashi et al.: damaged snow structure never
 * recovers), and it falls where snow yields. A ball of snow under the 2013 clamp with a
 * Drucker-Prager cone (friction 35 deg, cohesion 500 Pa) and durability_rate 20 is thrown
 * at 1 m/s onto the ground and stepped through the impact; after every frame of 1/96 s:
 *   1. no particle's durability (tracked by id: the sort reorders particles) rose, on 1
 *      and on 2 threads;
 *   2. every durability lies in [0, 1], and by the end some snow is damaged (durability
 *      below 0.5 in at least 1 % of the particles) while some is intact (1 in at least
 *      10 %): the impact breaks the ball's bottom, not all of it;
 *   3. the durability of every particle is the same bits on 1 and 2 threads, and after
 *      a save at frame 3 and a load into a fresh solver (the resume) the same bits as
 *      the uninterrupted run at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"

#define H 0.01
#define FRAMES 8
#define FRAME_DT (1.0 / 96)

static pw_sim *make(int threads)
{
    pw_sim_params p;
    fixture_params(&p, H, v3(-0.15, -0.02, -0.15), v3(0.15, 0.25, 0.15));
    p.gravity = v3(0, -9.81, 0);
    p.threads = threads;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    if (!s || fixture_ground(s, 0.5, &err) != PW_OK) {
        fprintf(stderr, "create: %s\n", err.msg);
        exit(1);
    }
    pw_material mat;
    pw_material_default(&mat);
    mat.plasticity = PW_PLASTICITY_CLAMP_DRUCKER_PRAGER;
    mat.friction_angle = 35;
    mat.cohesion = 500;
    mat.durability_rate = 20;
    pw_seeded seeded = {0};
    unsigned rs = 5;
    const double d = H / 2, r = 0.06;
    for (double z = -r; z < r; z += d)
        for (double y = -r; y < r; y += d)
            for (double x = -r; x < r; x += d) {
                vec3 q = v3(x + d * (0.2 + 0.6 * fixture_rand(&rs)), y + d * (0.2 + 0.6 * fixture_rand(&rs)),
                            z + d * (0.2 + 0.6 * fixture_rand(&rs)));
                if (v3_length(q) > r) continue;
                if (pw_seeded_append(&seeded, v3_add(q, v3(0, 0.07, 0)), v3(0, -1, 0),
                                     mat.rho0 * d * d * d, mat.E0, mat.rho0, &mat, &err) != PW_OK)
                    exit(1);
            }
    fixture_add_or_exit(s, &seeded);
    return s;
}

/* durability by id */
static void durability_by_id(const pw_sim *s, double *out)
{
    for (size_t p = 0; p < s->pt.n; p++) out[s->pt.id[p]] = s->pt.durability[p];
}

static void advance(pw_sim *s, int frame)
{
    pw_error err = {0};
    if (pw_sim_advance_to(s, frame * FRAME_DT, NULL, NULL, &err) != PW_OK) {
        fprintf(stderr, "frame %d: %s\n", frame, err.msg);
        exit(1);
    }
}

int main(void)
{
    const char *ckpt = POWDER_TEST_TMP "/durability_never_rises.pwc";
    pw_sim *a = make(1), *b = make(2);
    size_t n = a->pt.n;
    CHECK(a->pt.laws && b->pt.laws, "the law's fields are held");
    double *prev = malloc(n * sizeof *prev), *now = malloc(n * sizeof *now),
           *other = malloc(n * sizeof *other);
    for (size_t i = 0; i < n; i++) prev[i] = 1;
    size_t rises = 0;
    for (int f = 1; f <= FRAMES; f++) {
        advance(a, f);
        advance(b, f);
        durability_by_id(a, now);
        durability_by_id(b, other);
        for (size_t i = 0; i < n; i++) {
            if (now[i] > prev[i]) rises++;
            CHECK(now[i] >= 0 && now[i] <= 1, "frame %d id %zu: durability %g", f, i, now[i]);
        }
        CHECK(!memcmp(now, other, n * sizeof *now), "frame %d: durability differs on 1 and 2 threads", f);
        memcpy(prev, now, n * sizeof *now);
        if (f == 3) {
            pw_error err = {0};
            CHECK(pw_sim_save(a, ckpt, f, 0, &err) == PW_OK, "save: %s", err.msg);
        }
    }
    CHECK(rises == 0, "%zu rises of durability", rises);
    size_t damaged = 0, intact = 0;
    for (size_t i = 0; i < n; i++) {
        damaged += prev[i] < 0.5;
        intact += prev[i] == 1;
    }
    printf("%zu particles: %zu damaged below 0.5, %zu intact\n", n, damaged, intact);
    CHECK(damaged >= n / 100, "damaged %zu of %zu", damaged, n);
    CHECK(intact >= n / 10, "intact %zu of %zu", intact, n);

    /* the resume */
    pw_sim *c = make(2);
    pw_error err = {0};
    CHECK(pw_sim_load(c, ckpt, &err) == PW_OK, "load: %s", err.msg);
    for (int f = 4; f <= FRAMES; f++) advance(c, f); /* frame by frame, as the others ran */
    durability_by_id(c, other);
    CHECK(!memcmp(prev, other, n * sizeof *prev), "the resumed run's durability differs");
    remove(ckpt);
    free(prev), free(now), free(other);
    pw_sim_destroy(a), pw_sim_destroy(b), pw_sim_destroy(c);
    return check_done("mpm_durability_never_rises");
}
