/* Property: snow does not pass into colliders. After every substep no particle lies more
 * than 0.5 h inside any collider: phi(x_p, t) >= -0.5 h, with phi the union's signed
 * distance (pw_colliders_phi on a set built from the same descriptions as the solver's).
 *
 * Why 0.5 h: section 8 removes the approaching relative velocity both on grid nodes
 * inside a collider (step 5) and on particles inside it (step 9), so a particle can end
 * up inside only by the last advection of a step that began outside: at most
 * dt |v - v_co| <= cfl h = 0.5 h for the particle's own motion (dt is CFL-bounded) and,
 * for moving colliders, v_co dt, here <= 2 m/s x 0.5 ms = 0.1 h. Particles then stop
 * sinking, so the bound holds at every step, not only on average; a solver that skipped
 * either collision pass lets the ball's core sink by many h on impact.
 *
 * Each case also checks that the snow did reach the collider (min phi < h), or the bound
 * would hold trivially. Grid-based contact stops snow about half a cell short of the
 * surface (particles within the kernel's reach of collided nodes are slowed with them),
 * so "reached" means within one cell, not phi ~ 0; without the collider the ball of
 * case 1 would end 0.7 m below the floor.
 *  1. a snowball thrown down at 4 m/s onto a static floor (half-space, mu = 0.3); it
 *     must have come to rest there (|mean vy| < 0.2 m/s after 0.15 s);
 *  2. a keyframed box moving at 2 m/s sweeps a falling snowball sideways along a floor:
 *     the ball must end up moving with the box (mean x velocity > 0.5 m/s);
 *  3. a box rising at 1 m/s (a lift) meets a ball falling onto it, sticky contact; at
 *     the end (t = 0.3 s, still rising) the ball rides it: |mean vy - 1| < 0.1 m/s. */
#include "check.h"
#include "collide.h"
#include "mpm_fixture.h"
#include "pw_sim.h"

typedef struct {
    const pw_sim *s;
    const pw_colliders *c;
    double h;        /* [m] */
    double phi_min;  /* [m] smallest phi_p seen over all substeps */
    double t_worst;  /* [s] time of phi_min */
    long steps;
} watch;

/* progress callback: runs after every substep, so every step's positions are checked */
static void check_step(void *user, double t_now, double t_end)
{
    (void)t_end;
    watch *w = user;
    size_t np = pw_sim_particle_count(w->s);
    const vec3 *x = pw_sim_positions(w->s);
    for (size_t q = 0; q < np; q++) {
        double phi = pw_colliders_phi(w->c, t_now, x[q]);
        if (phi < w->phi_min) {
            w->phi_min = phi;
            w->t_worst = t_now;
        }
    }
    w->steps++;
}

static vec3 mean_v(const pw_sim *s)
{
    size_t np = pw_sim_particle_count(s);
    const vec3 *v = pw_sim_velocities(s);
    const double *m = pw_sim_masses(s);
    vec3 p = v3_zero();
    double M = 0;
    for (size_t q = 0; q < np; q++) {
        p = v3_madd(p, v[q], m[q]);
        M += m[q];
    }
    return v3_scale(p, 1.0 / M);
}

/* Runs one scene: colliders descs[0..n), a ball of radius r at centre c with velocity v,
 * until t_end; returns the mass-weighted mean velocity at the end through *v_end. */
static void run(const char *name, const pw_collider_desc *descs, int n, vec3 c, double r, vec3 v,
                double t_end, vec3 *v_end)
{
    pw_error err = {0};
    double h = fixture_sanitized() ? 0.04 : 0.025;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.5, -0.2, -0.35), v3(0.7, 0.8, 0.35));
    p.gravity = v3(0, -9.81, 0);
    pw_sim *s = pw_sim_create(&p, &err);
    pw_colliders *set = pw_colliders_create(h, &err);
    CHECK(s && set, "%s: create: %s", name, err.msg);
    if (!s || !set) goto done;
    for (int k = 0; k < n; k++) {
        CHECK(pw_sim_add_collider(s, &descs[k], &err) == PW_OK, "%s: collider: %s", name, err.msg);
        CHECK(pw_colliders_add(set, &descs[k], &err) == PW_OK, "%s: set: %s", name, err.msg);
    }
    fixture_body b;
    fixture_default(&b, v3_sub(c, v3(r, r, r)), v3_add(c, v3(r, r, r)), h);
    b.sphere = 1;
    b.v = v;
    CHECK(fixture_add(s, &b, &err) == PW_OK, "%s: add: %s", name, err.msg);

    watch w = {s, set, h, INFINITY, 0, 0};
    check_step(&w, 0, t_end);
    double phi_start = w.phi_min;
    CHECK(phi_start > 0, "%s: the ball starts inside a collider (%g m)", name, phi_start);
    CHECK(pw_sim_advance_to(s, t_end, check_step, &w, &err) == PW_OK, "%s: advance: %s", name,
          err.msg);
    *v_end = mean_v(s);
    printf("%s: %zu particles, %ld substeps, min phi = %.4g m = %.3f h at t = %.4f s "
           "(bound -0.5 h), mean v at the end (%.3f, %.3f, %.3f) m/s\n",
           name, pw_sim_particle_count(s), w.steps - 1, w.phi_min, w.phi_min / h, w.t_worst,
           v_end->x, v_end->y, v_end->z);
    CHECK(w.phi_min >= -0.5 * h, "%s: particle %.3f h inside a collider at t = %.4f s", name,
          -w.phi_min / h, w.t_worst);
    CHECK(w.phi_min < h, "%s: the snow never reached a collider (min phi %.3f h)", name,
          w.phi_min / h);
done:
    pw_colliders_destroy(set);
    pw_sim_destroy(s);
}

static pw_collider_desc floor_desc(double mu)
{
    pw_collider_desc d;
    memset(&d, 0, sizeof d);
    pw_shape_init(&d.shape, PW_SHAPE_HALFSPACE);
    d.shape.center = v3(0, 0, 0);
    d.shape.normal = v3(0, 1, 0);
    d.friction = mu;
    return d;
}

/* a box of half sizes e moving linearly from a to b over [0, t1] */
static pw_collider_desc moving_box(vec3 e, vec3 a, vec3 b, double t1, double mu, int sticky)
{
    pw_collider_desc d;
    memset(&d, 0, sizeof d);
    pw_shape_init(&d.shape, PW_SHAPE_BOX);
    d.shape.half_extents = e;
    d.shape.n_keys = 2;
    d.shape.keys[0] = (pw_keyframe){0, a, v3(0, 1, 0), 0};
    d.shape.keys[1] = (pw_keyframe){t1, b, v3(0, 1, 0), 0};
    d.friction = mu;
    d.sticky = sticky;
    return d;
}

int main(void)
{
    double r = 0.08;
    vec3 v = v3_zero();

    /* 1. static floor, impact at about 4.2 m/s */
    pw_collider_desc one[1] = {floor_desc(0.3)};
    run("1. static half-space", one, 1, v3(0, 0.12, 0), r, v3(0, -4, 0), 0.15, &v);
    CHECK(fabs(v.y) < 0.2, "1. the ball has not come to rest on the floor (vy %.3f m/s)", v.y);

    /* 2. box sweeping along +x at 2 m/s, a ball dropping in front of it */
    pw_collider_desc two[2] = {
        floor_desc(0.3),
        moving_box(v3(0.05, 0.12, 0.2), v3(-0.35, 0.14, 0), v3(0.25, 0.14, 0), 0.3, 0.2, 0)};
    run("2. sweeping box", two, 2, v3(-0.1, 0.1, 0), r, v3_zero(), 0.3, &v);
    CHECK(v.x > 0.5, "2. the box did not push the ball (mean vx %.3f m/s)", v.x);

    /* 3. lift: a box rising at 1 m/s under a falling ball, sticky */
    pw_collider_desc three[1] = {
        moving_box(v3(0.2, 0.05, 0.2), v3(0, 0.0, 0), v3(0, 0.4, 0), 0.4, 0, 1)};
    run("3. rising sticky box", three, 1, v3(0, 0.35, 0), r, v3(0, -1, 0), 0.3, &v);
    CHECK(fabs(v.y - 1) < 0.1, "3. the ball does not ride the lift (mean vy %.3f m/s)", v.y);
    return check_done("mpm_no_penetration");
}
