/* Property: resting snow and the translating grid (sim/rest.h) change what a step costs,
 * not what the snow does.
 *   1. A bed of snow settles under gravity, then sleeps: over the next 2 s of sleeping
 *      no particle moves more than 0.01 h, and the slept bed lies where the awake bed
 *      lies after the same 2 s (each particle within 0.01 h; the awake bed's own drift
 *      over those 2 s is printed beside it). The slept bed holds less than 60 % of the
 *      awake bed's memory: its step scratch, grid and solve are given back.
 *   2. A box pressed into the slept bed (down 0.75 h at 0.15 m/s, then held) leaves the
 *      same print as in the awake bed: the depth of the print below the undisturbed
 *      surface within 0.1 h, and the displaced particles' mean displacement within 10 %.
 *      Most particle-steps are saved (the share taken is printed and must be < 0.6).
 *   3. With an active region over half the bed, the particles that stay outside it, more
 *      than two blocks from its edge, keep their positions bit for bit, and a ball thrown
 *      across the region's edge flies on as it does without the region, within 0.01 h
 *      (not the same bits: the solve's tolerance is over all the snow it steps): the
 *      edge is no wall.
 *   3b. With a region that freezes (the paper's grid, strictly), snow outside it is not
 *      woken by a push inside: it keeps its bits, and snow pushed out stops where it
 *      left; without freezing, the same push moves snow outside.
 *   4. A sleeping run saved and resumed gives the same bytes as one not interrupted, and
 *      the same bytes with 1 and 2 threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"
#include "pw_sim.h"

enum { N_MAX = 200000 };
static const double H = 0.02;

enum { REGION = 1, FREEZES = 2, PUSHER = 4 }; /* bed()'s options */

static pw_sim *bed(int rest, int threads, double press_depth, int region)
{
    pw_sim_params p;
    fixture_params(&p, H, v3(-0.3, -0.06, -0.14), v3(0.3, 0.5, 0.14));
    p.gravity = v3(0, -9.81, 0);
    p.dt_max = 1e-3;
    p.threads = threads;
    if (rest) {
        p.rest_speed = 0.01;
        p.sleep_steps = 30;
    }
    if (region) {
        pw_shape_init(&p.region, PW_SHAPE_BOX);
        p.region.center = v3(-0.15, 0.1, 0);
        p.region.half_extents = v3(0.15, 0.5, 0.2);
        p.has_region = 1;
        p.region_freezes = (region & FREEZES) != 0;
    }
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    if (!s) return NULL;
    CHECK(fixture_ground(s, 0.5, &err) == PW_OK, "ground: %s", err.msg);
    if (press_depth > 0) {
        /* a box above the bed's middle, lowered press_depth into it from t = 0.6 s */
        pw_collider_desc box = {0};
        pw_shape_init(&box.shape, PW_SHAPE_BOX);
        box.shape.half_extents = v3(0.04, 0.04, 0.04);
        box.shape.n_keys = 3;
        double top = 0.06, t0 = 0.6, t1 = t0 + (press_depth + 0.002) / 0.15;
        box.shape.keys[0] = (pw_keyframe){0, v3(0.1, top + 0.042, 0), v3(0, 1, 0), 0};
        box.shape.keys[1] = (pw_keyframe){t0, v3(0.1, top + 0.042, 0), v3(0, 1, 0), 0};
        box.shape.keys[2] = (pw_keyframe){t1, v3(0.1, top + 0.04 - press_depth, 0), v3(0, 1, 0), 0};
        box.sticky = 1;
        CHECK(pw_sim_add_collider(s, &box, &err) == PW_OK, "box: %s", err.msg);
    }
    if (region & PUSHER) {
        /* a sticky block, a cell deep in the bed's top, pushed along +x at 0.8 m/s
         * from t = 0.35 s across the region's edge at x = 0, its front past it from
         * t = 0.56 s */
        pw_collider_desc pusher = {0};
        pw_shape_init(&pusher.shape, PW_SHAPE_BOX);
        pusher.shape.half_extents = v3(0.03, 0.03, 0.06);
        pusher.shape.n_keys = 3;
        pusher.shape.keys[0] = (pw_keyframe){0, v3(-0.2, 0.07, 0), v3(0, 1, 0), 0};
        pusher.shape.keys[1] = (pw_keyframe){0.35, v3(-0.2, 0.07, 0), v3(0, 1, 0), 0};
        pusher.shape.keys[2] = (pw_keyframe){0.7, v3(0.08, 0.07, 0), v3(0, 1, 0), 0};
        pusher.sticky = 1;
        CHECK(pw_sim_add_collider(s, &pusher, &err) == PW_OK, "pusher: %s", err.msg);
    }
    fixture_body b;
    fixture_default(&b, v3(-0.24, 0.0, -0.08), v3(0.24, 0.06, 0.08), H);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "bed: %s", err.msg);
    return s;
}

/* Positions by particle id (the solver reorders particles every step). */
static size_t positions_by_id(const pw_sim *s, vec3 *out)
{
    size_t n = pw_sim_particle_count(s);
    const vec3 *x = pw_sim_positions(s);
    const uint32_t *id = pw_sim_particle_ids(s);
    for (size_t k = 0; k < n && k < N_MAX; k++) out[id[k]] = x[k];
    return n;
}

static double max_move(const vec3 *a, const vec3 *b, size_t n)
{
    double worst = 0;
    for (size_t k = 0; k < n; k++) worst = fmax(worst, v3_length(v3_sub(a[k], b[k])));
    return worst;
}

static int advance(pw_sim *s, double t)
{
    pw_error err = {0};
    int ok = s && pw_sim_advance_to(s, t, NULL, NULL, &err) == PW_OK;
    CHECK(ok, "advance to %g s: %s", t, err.msg);
    return ok;
}

/* The print: the lowest top of the snow under the box (particles within its footprint). */
static double print_bottom(const vec3 *x, size_t n)
{
    double low = INFINITY;
    for (size_t k = 0; k < n; k++)
        if (fabs(x[k].x - 0.1) < 0.03 && fabs(x[k].z) < 0.03) low = fmin(low, -x[k].y);
    return -low; /* the highest particle under the box is the print's floor */
}

static double top_under_box(const vec3 *x, size_t n)
{
    double top = -INFINITY;
    for (size_t k = 0; k < n; k++)
        if (fabs(x[k].x - 0.1) < 0.03 && fabs(x[k].z) < 0.03) top = fmax(top, x[k].y);
    return top;
}

static void settle_and_sleep(void)
{
    static vec3 a0[N_MAX], a1[N_MAX], s0[N_MAX], s1[N_MAX];
    pw_sim *awake = bed(0, 2, 0, 0), *slept = bed(1, 2, 0, 0);
    /* 2 s asleep; 0.5 s in the sanitizer build, ten times slower */
    double sleep_for = getenv("POWDER_SANITIZED") ? 0.5 : 2.0;
    if (!advance(awake, 0.3) || !advance(slept, 0.3)) goto done;
    size_t n = positions_by_id(awake, a0);
    positions_by_id(slept, s0);
    if (!advance(awake, 0.3 + sleep_for) || !advance(slept, 0.3 + sleep_for)) goto done;
    positions_by_id(awake, a1);
    positions_by_id(slept, s1);
    pw_sim_stats st;
    pw_sim_get_stats(slept, &st);
    double move = max_move(s0, s1, n), apart = max_move(a1, s1, n), drift = max_move(a0, a1, n);
    printf("1. bed of %zu: asleep %zu of %zu; over %g s the slept bed moved %.3g h, the awake "
           "bed %.3g h; slept vs awake then: %.3g h; particle-steps taken %.1f %%\n", n,
           st.particles - st.particles_stepped, st.particles, sleep_for, move / H, drift / H,
           apart / H, 100 * st.stepped_share);
    CHECK(move < 0.01 * H, "the sleeping bed moved %.3g h in %g s", move / H, sleep_for);
    CHECK(apart < 0.01 * H, "the slept bed lies %.3g h from the awake one", apart / H);
    CHECK(st.particles_stepped == 0, "%zu particles still stepped in a bed at rest",
          st.particles_stepped);
    pw_mpm_memory mem_awake, mem_slept;
    pw_mpm_memory_report(awake, &mem_awake);
    pw_mpm_memory_report(slept, &mem_slept);
    printf("   memory held: awake %.0f B a particle, slept %.0f B\n",
           (double)mem_awake.total / (double)n, (double)mem_slept.total / (double)n);
    CHECK(mem_slept.total < 0.6 * mem_awake.total, "the slept bed holds %zu B, the awake one %zu B",
          mem_slept.total, mem_awake.total);
done:
    pw_sim_destroy(awake);
    pw_sim_destroy(slept);
}

static void footprint(void)
{
    static vec3 a[N_MAX], s[N_MAX], before[N_MAX];
    const double depth = 0.75 * H;
    pw_sim *awake = bed(0, 2, depth, 0), *slept = bed(1, 2, depth, 0);
    if (!advance(awake, 0.55) || !advance(slept, 0.55)) goto done;
    size_t n = positions_by_id(awake, before);
    double surface = top_under_box(before, n);
    if (!advance(awake, 1.0) || !advance(slept, 1.0)) goto done;
    positions_by_id(awake, a);
    positions_by_id(slept, s);
    pw_sim_stats st;
    pw_sim_get_stats(slept, &st);
    double da = surface - print_bottom(a, n), ds = surface - print_bottom(s, n);
    double ma = 0, ms = 0;
    int moved = 0;
    for (size_t k = 0; k < n; k++) {
        double d = v3_length(v3_sub(a[k], before[k]));
        if (d > 0.05 * H) {
            ma += d;
            ms += v3_length(v3_sub(s[k], before[k]));
            moved++;
        }
    }
    printf("2. print %.3g h deep awake, %.3g h slept (box pressed %.2g h); %d particles displaced, "
           "mean %.3g h awake, %.3g h slept; particle-steps taken %.1f %%\n",
           da / H, ds / H, depth / H, moved, ma / (moved ? moved : 1) / H,
           ms / (moved ? moved : 1) / H, 100 * st.stepped_share);
    CHECK(da > 0.3 * depth, "the awake print is only %.3g h deep", da / H);
    CHECK(fabs(da - ds) < 0.1 * H, "print depth %.3g h slept vs %.3g h awake", ds / H, da / H);
    CHECK(moved > 0 && fabs(ms - ma) < 0.1 * ma, "mean displacement %.4g vs %.4g", ms, ma);
    CHECK(st.stepped_share < 0.6, "%.1f %% of the particle-steps taken", 100 * st.stepped_share);
done:
    pw_sim_destroy(awake);
    pw_sim_destroy(slept);
}

static void region_edge(void)
{
    static vec3 x0[N_MAX], x1[N_MAX], y1[N_MAX];
    pw_sim *with = bed(1, 2, 0, REGION), *without = bed(0, 2, 0, 0);
    if (!with || !without) goto done;
    /* the bed settles (and sleeps): snow frozen outside the region before it ever held
     * itself up falls when woken, and wakes its neighbours in turn (sim/docs/resting-snow.md) */
    if (!advance(with, 0.3) || !advance(without, 0.3)) goto done;
    /* a ball thrown from inside the region out over its edge (x = 0), above the bed */
    fixture_body ball;
    /* two blocks above the bed: moving snow wakes what lies within a block of its own
     * block, up to 11 h away */
    fixture_default(&ball, v3(-0.2, 0.3, -0.03), v3(-0.14, 0.36, 0.03), H);
    ball.sphere = 1;
    ball.v = v3(2.0, 0.5, 0);
    pw_error err = {0};
    CHECK(fixture_add(with, &ball, &err) == PW_OK && fixture_add(without, &ball, &err) == PW_OK,
          "ball: %s", err.msg);
    size_t n = positions_by_id(with, x0);
    /* 0.12 s later the ball has crossed x = 0 and flies over the bed */
    if (!advance(with, 0.42) || !advance(without, 0.42)) goto done;
    positions_by_id(with, x1);
    positions_by_id(without, y1);
    size_t first_ball = n;
    {
        /* the ball's particles were added last: ids from the bed's count on */
        pw_sim *bed_only = bed(0, 1, 0, 0);
        first_ball = bed_only ? pw_sim_particle_count(bed_only) : n;
        pw_sim_destroy(bed_only);
    }
    int crossed = 0, outside_same = 1, outside = 0;
    double ball_apart = 0;
    for (size_t k = 0; k < n; k++) {
        if (k >= first_ball) {
            ball_apart = fmax(ball_apart, v3_length(v3_sub(x1[k], y1[k])));
            crossed |= x1[k].x > 0.02;
        } else if (x0[k].x > 0.12) { /* bed snow outside the region, 1.5 blocks from it */
            outside++;
            outside_same &= !memcmp(&x1[k], &x0[k], sizeof x1[k]);
        }
    }
    printf("3. the ball crossed the region's edge: %s; its flight with and without the region "
           "%.3g h apart; %d bed particles outside kept their bits: %s\n",
           crossed ? "yes" : "no", ball_apart / H, outside, outside_same ? "yes" : "no");
    CHECK(crossed, "the ball did not cross the region's edge");
    CHECK(ball_apart < 0.01 * H, "the region moved the ball's flight by %.3g h", ball_apart / H);
    CHECK(outside > 100 && outside_same, "snow outside the region moved");
done:
    pw_sim_destroy(with);
    pw_sim_destroy(without);
}

/* The region that freezes (the paper's grid, strictly): snow pushed out of it stops
 * there, and the snow outside is not woken by what moves inside; the same push with a
 * region that lets moving snow go on moves snow outside, so the test can tell them. */
static void region_freezes(void)
{
    static vec3 x0[N_MAX], x1[N_MAX], x2[N_MAX], y2[N_MAX];
    pw_sim *frozen = bed(1, 2, 0, REGION | FREEZES | PUSHER);
    pw_sim *open = bed(1, 2, 0, REGION | PUSHER);
    if (!frozen || !open) goto done;
    if (!advance(frozen, 0.35) || !advance(open, 0.35)) goto done;
    size_t n = positions_by_id(frozen, x0);
    if (!advance(frozen, 0.6)) goto done;
    positions_by_id(frozen, x1);
    if (!advance(frozen, 0.7) || !advance(open, 0.7)) goto done;
    positions_by_id(frozen, x2);
    positions_by_id(open, y2);
    int outside = 0, outside_kept = 1, crossed = 0, crossed_kept = 1, open_moved = 0;
    for (size_t k = 0; k < n; k++) {
        if (x0[k].x > 0) { /* outside from the push's start */
            outside++;
            outside_kept &= !memcmp(&x2[k], &x0[k], sizeof x0[k]);
            open_moved += v3_length(v3_sub(y2[k], x0[k])) > 0.01 * H;
        } else if (x1[k].x > 0) { /* pushed out by 0.6 s: frozen there since */
            crossed++;
            crossed_kept &= !memcmp(&x2[k], &x1[k], sizeof x1[k]);
        }
    }
    printf("3b. freezing region: %d particles outside kept their bits: %s; %d pushed out "
           "by 0.6 s, kept since: %s; without freezing, %d outside moved > 0.01 h\n",
           outside, outside_kept ? "yes" : "no", crossed, crossed_kept ? "yes" : "no",
           open_moved);
    CHECK(outside > 100 && outside_kept, "snow outside the freezing region moved");
    CHECK(crossed > 0 && crossed_kept, "snow pushed out of the freezing region moved on");
    CHECK(open_moved > 0, "without freezing, the push moved no snow outside the region");
done:
    pw_sim_destroy(frozen);
    pw_sim_destroy(open);
}

static int same_file(const char *a, const char *b) { return fixture_same_file(a, b); }

static void resume_and_threads(void)
{
    char a[4096], b[4096], c[4096], mid[4096];
    snprintf(a, sizeof a, "%s/rest_a%s.pwc", POWDER_TEST_TMP, fixture_kernel_tag());
    snprintf(b, sizeof b, "%s/rest_b%s.pwc", POWDER_TEST_TMP, fixture_kernel_tag());
    snprintf(c, sizeof c, "%s/rest_c%s.pwc", POWDER_TEST_TMP, fixture_kernel_tag());
    snprintf(mid, sizeof mid, "%s/rest_mid%s.pwc", POWDER_TEST_TMP, fixture_kernel_tag());
    pw_error err = {0};
    pw_sim *one = bed(1, 1, 0.5 * H, 0), *two = bed(1, 2, 0.5 * H, 0);
    pw_sim *resumed = bed(1, 2, 0.5 * H, 0);
    if (!one || !two || !resumed) goto done;
    /* uninterrupted to 0.75 s (the box presses from 0.6 s) on 1 and on 2 threads, in the
     * calls a frame-by-frame run makes */
    if (!advance(one, 0.65) || !advance(two, 0.65) || !advance(one, 0.75) || !advance(two, 0.75))
        goto done;
    CHECK(pw_sim_save(one, a, 0, 0, &err) == PW_OK && pw_sim_save(two, b, 0, 0, &err) == PW_OK,
          "save: %s", err.msg);
    /* interrupted at 0.65 s, resumed from the cache */
    pw_sim *first = bed(1, 2, 0.5 * H, 0);
    if (first && advance(first, 0.65)) {
        CHECK(pw_sim_save(first, mid, 0, 0, &err) == PW_OK, "save: %s", err.msg);
        CHECK(pw_sim_load(resumed, mid, &err) == PW_OK, "load: %s", err.msg);
        if (advance(resumed, 0.75))
            CHECK(pw_sim_save(resumed, c, 0, 0, &err) == PW_OK, "save: %s", err.msg);
    }
    pw_sim_destroy(first);
    CHECK(same_file(a, b), "1 and 2 threads differ");
    CHECK(same_file(b, c), "the resumed run differs from the uninterrupted one");
    printf("4. same bytes on 1 and 2 threads: %s; resumed: %s\n", same_file(a, b) ? "yes" : "no",
           same_file(b, c) ? "yes" : "no");
done:
    pw_sim_destroy(one);
    pw_sim_destroy(two);
    pw_sim_destroy(resumed);
}

int main(void)
{
    settle_and_sleep();
    footprint();
    region_edge();
    region_freezes();
    resume_and_threads();
    return check_done("sim_resting_snow");
}
