/* Snow sources (sim/emit.h): the mass present equals the mass emitted at every frame
 * while nothing leaves the domain, and both equal the rate times the time emitting to
 * within one particle; a lone flake falls as linear drag predicts (the terminal speed in
 * still air, the wind's speed across); and a run killed and resumed while the source
 * emits, on another thread count, leaves the bytes of one that was not, with landed
 * snow resting beside the snow still falling; a moving source emits each particle inside
 * the shape as it stands at the particle's birth. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"

static void source_default(pw_source_desc *d)
{
    memset(d, 0, sizeof *d);
    pw_shape_init(&d->shape, PW_SHAPE_BOX);
    d->shape.center = v3(0, 0.45, 0);
    d->shape.half_extents = v3(0.2, 0.05, 0.2);
    pw_material_default(&d->material);
    d->material.rho0 = 100; /* fresh snow */
    d->material.E0 = 2e4;
    d->t_start = 0.05;
    d->t_end = 0.65;
    d->rate = 0.4;          /* [kg/s]: 4,000 particles a second at h 2 cm, 8 a cell */
    d->jitter = 0.1;
    d->particles_per_cell = 8;
    d->terminal_speed = 1.0;
    d->velocity = v3(0, -1.0, 0); /* born at the terminal speed */
    d->seed = 11;
}

static pw_sim *snowfall(int threads)
{
    pw_sim_params p;
    fixture_params(&p, 0.02, v3(-0.3, -0.1, -0.3), v3(0.3, 0.6, 0.3));
    p.gravity = v3(0, -9.81, 0);
    p.threads = threads;
    /* landed snow sleeps: emission beside resting snow (appended past the stepped
     * particles, with no kept SVD of their own until the rest decision wakes them) */
    p.rest_speed = 0.02;
    p.sleep_steps = 20;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d;
    source_default(&d);
    if (!s || fixture_ground(s, 0.5, &err) != PW_OK || pw_sim_add_source(s, &d, &err) != PW_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        exit(1);
    }
    return s;
}

static void advance(pw_sim *s, double t)
{
    pw_error err = {0};
    if (pw_sim_advance_to(s, t, NULL, NULL, &err) != PW_OK) {
        fprintf(stderr, "advance to %g: %s\n", t, err.msg);
        exit(1);
    }
}

static void save(pw_sim *s, const char *path)
{
    pw_error err = {0};
    if (pw_sim_save(s, path, 0, 0, &err) != PW_OK) {
        fprintf(stderr, "save: %s\n", err.msg);
        exit(1);
    }
}

static double mass_present(const pw_sim *s)
{
    double m = 0;
    for (size_t p = 0; p < pw_sim_particle_count(s); p++) m += pw_sim_masses(s)[p];
    return m;
}

/* A lone flake born at rest high in an empty domain: v_y = -v_t (1 - e^{-g t / v_t}),
 * v_x = w (1 - e^{-g t / v_t}) in a wind w. */
static void lone_flake_follows_drag(void)
{
    pw_sim_params p;
    fixture_params(&p, 0.02, v3(-2, 0, -0.3), v3(2, 4, 0.3));
    p.gravity = v3(0, -9.81, 0);
    p.air_velocity = v3(2.0, 0, 0);
    p.threads = 1;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d;
    source_default(&d);
    d.shape.center = v3(-1.5, 3.5, 0);
    d.shape.half_extents = v3(0.01, 0.01, 0.01);
    d.jitter = 0;
    d.velocity = v3_zero();
    d.t_start = 0;
    d.t_end = 1;
    d.rate = 100 * 0.02 * 0.02 * 0.02 / 8 * 1.5; /* 1.5 particles a second: one, at 2/3 s */
    CHECK(s && pw_sim_add_source(s, &d, &err) == PW_OK, "see the line above");
    advance(s, 1.0);
    CHECK(pw_sim_particle_count(s) == 1, "see the line above");
    double born = 2.0 / 3.0, k = 9.81 / d.terminal_speed;
    for (int f = 1; f <= 4; f++) {
        double t = 1.0 + 0.1 * f;
        advance(s, t);
        double e = 1 - exp(-k * (t - born));
        vec3 v = pw_sim_velocities(s)[0];
        printf("t %.2f s: v (%.4f, %.4f) m/s, drag predicts (%.4f, %.4f)\n", t, v.x, v.y,
               2.0 * e, -d.terminal_speed * e);
        CHECK(fabs(v.y + d.terminal_speed * e) < 0.02 * d.terminal_speed, "see the line above");
        CHECK(fabs(v.x - 2.0 * e) < 0.02 * 2.0, "see the line above");
    }
    pw_sim_destroy(s);
}

/* A source that moves (a snow cannon swept along x, keyed from x -0.8 m at 0 s to 0.8 m
 * at 1 s): particle k is born at t_k = start + (k + 1) / r inside the sphere as it stands
 * at t_k. Without gravity and wind a particle stays where it was born (born at rest, no
 * drag), so each one must lie within the radius of the sphere's centre at its own t_k,
 * and together they trace the path. */
static void moving_source_emits_along_its_path(void)
{
    pw_sim_params p;
    fixture_params(&p, 0.02, v3(-1.2, -0.3, -0.3), v3(1.2, 0.3, 0.3));
    p.threads = 2;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d;
    source_default(&d);
    pw_shape_init(&d.shape, PW_SHAPE_SPHERE);
    d.shape.radius = 0.1;
    d.shape.n_keys = 2;
    d.shape.keys[0] = (pw_keyframe){0.0, v3(-0.8, 0, 0), v3(0, 1, 0), 0};
    d.shape.keys[1] = (pw_keyframe){1.0, v3(0.8, 0, 0), v3(0, 1, 0), 0};
    d.jitter = 0;
    d.velocity = v3_zero();
    d.t_start = 0;
    d.t_end = 1;
    d.rate = 0.05; /* 500 particles a second */
    CHECK(s && pw_sim_add_source(s, &d, &err) == PW_OK, "see the line above");
    advance(s, 1.0);
    double r = d.rate / (d.material.rho0 * 0.02 * 0.02 * 0.02 / d.particles_per_cell);
    size_t n = pw_sim_particle_count(s), outside = 0;
    double worst = 0, x_lo = INFINITY, x_hi = -INFINITY;
    for (size_t q = 0; q < n; q++) {
        uint32_t k = pw_sim_particle_ids(s)[q]; /* (ids count the births) */
        double t_k = d.t_start + (k + 1.0) / r;
        vec3 x = pw_sim_positions(s)[q], c = v3(-0.8 + 1.6 * t_k, 0, 0);
        double off = v3_length(v3_sub(x, c)) - d.shape.radius;
        worst = fmax(worst, off);
        outside += off > 1e-9;
        x_lo = fmin(x_lo, x.x), x_hi = fmax(x_hi, x.x);
    }
    printf("moving source: %zu particles, %zu outside the sphere at their birth (worst %.3g m "
           "past its radius), spread over x %.3f to %.3f m\n", n, outside, worst, x_lo, x_hi);
    CHECK(n == 500 && outside == 0, "see the line above");
    CHECK(x_lo < -0.8 && x_hi > 0.8, "see the line above");
    pw_sim_destroy(s);
}

/* Snow that falls on snow at rest lands on it. A flake finds snow by the grid, which
 * resting snow does not make: the first flakes of a new fall reach the ground through a
 * sleeping layer, land there and, moving, wake the snow around them (rest.h), on which
 * the rest then land. A first fall, 0.05 to 0.35 s, settles and sleeps; a second from
 * the same source, 1.0 to 1.3 s, must lie on top of it at 1.8 s, less than 5 % of it
 * under the first fall's mean height. */
static void snow_falls_on_resting_snow(void)
{
    pw_sim_params p;
    fixture_params(&p, 0.02, v3(-0.3, -0.1, -0.3), v3(0.3, 0.6, 0.3));
    p.gravity = v3(0, -9.81, 0);
    p.threads = 2;
    p.rest_speed = 0.02;
    p.sleep_steps = 20;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc first, second;
    source_default(&first);
    first.t_start = 0.05, first.t_end = 0.35;
    first.rate = 2.0; /* 0.6 kg: a layer some 5 cm deep */
    second = first;
    second.t_start = 1.0, second.t_end = 1.3;
    second.seed = 12;
    second.rate = 0.4;
    CHECK(s && fixture_ground(s, 0.5, &err) == PW_OK && pw_sim_add_source(s, &first, &err) == PW_OK &&
              pw_sim_add_source(s, &second, &err) == PW_OK,
          "see the line above");
    advance(s, 1.0);
    size_t n_first = pw_sim_particle_count(s), resting = n_first - s->n_step;
    advance(s, 1.8);
    double y_first = 0, y_second = 0, top_first = 0;
    size_t n = pw_sim_particle_count(s), under = 0;
    for (size_t q = 0; q < n; q++) {
        double y = pw_sim_positions(s)[q].y;
        if (pw_sim_particle_ids(s)[q] < n_first) y_first += y, top_first = fmax(top_first, y);
        else y_second += y;
    }
    y_first /= (double)n_first;
    y_second /= (double)(n - n_first);
    for (size_t q = 0; q < n; q++)
        under += pw_sim_particle_ids(s)[q] >= n_first && pw_sim_positions(s)[q].y < y_first;
    printf("snow on resting snow: %zu of the first %zu particles resting at 1.0 s; at 1.8 s the "
           "first fall's mean height %.4f m, the second's %.4f m, %zu of the second's %zu below "
           "the first's mean\n", resting, n_first, y_first, y_second, under, n - n_first);
    CHECK(resting > n_first / 2, "the first fall sleeps before the second comes");
    CHECK(y_second > y_first && under < (n - n_first) / 20, "see the line above");
    pw_sim_destroy(s);
}

int main(void)
{
    lone_flake_follows_drag();
    snow_falls_on_resting_snow();
    moving_source_emits_along_its_path();

    /* mass at every frame, against the emitted mass and rate x time */
    pw_sim *a = snowfall(1);
    pw_source_desc d;
    source_default(&d);
    double m_particle = d.material.rho0 * 0.02 * 0.02 * 0.02 / d.particles_per_cell;
    for (int f = 1; f <= 8; f++) {
        double t = 0.1 * f;
        advance(a, t);
        double present = mass_present(a), emitted = pw_sim_mass_emitted(a);
        double expect = d.rate * (fmin(t, d.t_end) - d.t_start);
        printf("t %.1f s: %zu particles, present %.9g kg, emitted %.9g kg, rate x time %.9g kg\n",
               t, pw_sim_particle_count(a), present, emitted, expect);
        CHECK(fabs(present - emitted) <= 1e-12 * emitted + 1e-15, "see the line above");
        CHECK(emitted <= expect * (1 + 1e-12) && emitted > expect - m_particle * 1.000001,
              "see the line above");
        for (size_t p = 0; p < pw_sim_particle_count(a); p++) {
            vec3 x = pw_sim_positions(a)[p];
            CHECK(x.y >= 0 && x.y <= 0.6, "see the line above");
        }
    }
    /* a flake whose stencil reaches the ground has landed, and landed snow stays so */
    size_t flying = 0, low_flying = 0;
    for (size_t p = 0; p < a->pt.n; p++) {
        flying += a->pt.drag[p] > 0;
        low_flying += a->pt.drag[p] > 0 && a->pt.x[p].y < 2 * 0.02;
    }
    printf("t 0.8 s: %zu of %zu particles still in the air, %zu of them within 2 h of the "
           "ground\n", flying, a->pt.n, low_flying);
    CHECK(low_flying == 0 && flying < a->pt.n, "see the line above");
    pw_sim_destroy(a);

    /* kill and resume mid-emission, 2 threads against 1 uninterrupted */
    pw_sim *one = snowfall(1);
    advance(one, 0.3);
    advance(one, 0.5);
    save(one, "emit_uninterrupted.pwc");
    pw_sim *first = snowfall(2);
    advance(first, 0.3);
    save(first, "emit_at_0.3.pwc");
    pw_sim_destroy(first);
    pw_sim *resumed = snowfall(2);
    pw_error err = {0};
    CHECK(pw_sim_load(resumed, "emit_at_0.3.pwc", &err) == PW_OK, "see the line above");
    advance(resumed, 0.5);
    save(resumed, "emit_resumed.pwc");
    printf("resumed at 0.3 s on 2 threads: %zu particles at 0.5 s, same bytes: %d\n",
           pw_sim_particle_count(resumed),
           fixture_same_file("emit_uninterrupted.pwc", "emit_resumed.pwc"));
    CHECK(fixture_same_file("emit_uninterrupted.pwc", "emit_resumed.pwc"), "see the line above");
    pw_sim_destroy(one);
    pw_sim_destroy(resumed);
    return check_done("emit_snowfall_conserves_mass");
}
