/* sim_ball_fixture.h — the snowball of sim_deterministic_threads, run to a cache file:
 * shared with sim_same_bits_without_clones, which runs it on a build without the
 * instruction-set clones and compares with the files the default build wrote. */
#ifndef PW_TEST_SIM_BALL_FIXTURE_H
#define PW_TEST_SIM_BALL_FIXTURE_H

#include "check.h"
#include "mpm_fixture.h"
#include "loops.h"
#include "mpm_internal.h"
#include "pw_file.h"

/* The default build's frames: <tmp>/sim_det_<transfer>_t1.pwc */
static inline void ball_cache_path(char *out, size_t n, int transfer, const char *tag)
{
    snprintf(out, n, "%s/sim_det_%d_%s%s.pwc", POWDER_TEST_TMP, transfer, tag,
             fixture_kernel_tag());
}

/* The loops' policy of the runs (pw_sim_params.kernel_width, steal_first): results must
 * not depend on it. */
static int ball_kernel_width = 0, ball_steal_first = 0;

static inline int ball_run(int threads, pw_transfer transfer, const char *path)
{
    pw_error err = {0};
    double h = 0.04;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.6, -0.2, -0.6), v3(0.6, 0.8, 0.6));
    p.gravity = v3(0, -9.81, 0);
    p.threads = threads;
    p.transfer = transfer;
    p.kernel_width = ball_kernel_width;
    p.steal_first = ball_steal_first;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    s->particles_per_thread = 64; /* use every thread even on this small body */
    pw_collider_desc floor = {0};
    pw_shape_init(&floor.shape, PW_SHAPE_HALFSPACE);
    floor.shape.center = v3(0, 0, 0);
    floor.shape.normal = v3(0, 1, 0);
    floor.friction = 0.3;
    CHECK(pw_sim_add_collider(s, &floor, &err) == PW_OK, "collider: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.1 : 0.12;
    fixture_default(&b, v3(0.4 - 2 * r, 0.05, -r), v3(0.4, 0.05 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(2, -3, 0.5);
    b.omega = v3(0, 0, 5);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    CHECK(pw_sim_advance_to(s, 0.005, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
    CHECK(pw_sim_save(s, path, 1, 42, &err) == PW_OK, "save: %s", err.msg);
    pw_sim_stats st;
    pw_sim_get_stats(s, &st);
    printf("threads %d (used %d), transfer %d: %zu particles, %llu steps, %zu blocks, mean CR %.1f\n",
           threads, s->threads, (int)transfer, st.particles, (unsigned long long)st.steps,
           st.active_blocks, st.cr_iterations_mean);
    pw_sim_destroy(s);
    return 0;
}

#endif
