/* heap_fixture.h — granular heaps and cut faces for the tests of the Drucker-Prager law
 * (sim/docs/friction-and-cohesion.md): a full cylinder or cone standing on a sticky floor,
 * or a plane-strain block between the domain's z walls, seeded on a jittered lattice of
 * 8 particles a cell; the slope of a heap's free surface, fitted; how far a block's face
 * has run out.
 *
 * The runs step explicitly (beta 0, courant 0.4) with E0 1e4 Pa: the backward Euler
 * step solves with the elastic tangent, so within a step a yielding element resists as
 * an elastic one and the plastic flow meets a viscosity of about mu dt (19 Pa s at the
 * default E0 1e5 Pa and dt 5e-4 s), under which a failing slope creeps at centimetres a
 * second instead of falling (the page's table 1). */
#ifndef PW_TEST_HEAP_FIXTURE_H
#define PW_TEST_HEAP_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_sim.h"
#include "seed.h"

#define HEAP_RHO 400.0
#define HEAP_G 9.81
#define HEAP_PI 3.14159265358979323846
#define HEAP_DEG (HEAP_PI / 180)

/* The material of these tests: no hardening (xi 0), E0 1e4 Pa, nu 0.3. */
static inline pw_material heap_material(int plasticity, double phi_deg, double cohesion,
                                        double durability_rate)
{
    pw_material m;
    pw_material_default(&m);
    m.E0 = 1e4;
    m.nu = 0.3;
    m.xi = 0;
    m.rho0 = HEAP_RHO;
    m.plasticity = plasticity;
    m.friction_angle = phi_deg;
    m.cohesion = cohesion;
    m.durability_rate = durability_rate;
    return m;
}

/* An explicit simulation of spacing h in [0, size] with a sticky floor at y = 2 h. */
static inline pw_sim *heap_sim(double h, vec3 size)
{
    pw_sim_params p;
    pw_sim_params_default(&p);
    p.h = h;
    p.domain_min = v3(0, 0, 0);
    p.domain_max = size;
    p.beta = 0;
    p.courant = 0.4;
    /* one thread: ctest runs two tests at once on the two cores, and a run of two
     * threads sharing a core with another test waits a time slice at each of its
     * barriers (the solver backs off to one thread only from 50,000 particles) */
    p.threads = 1;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_collider_desc floor = {0};
    pw_shape_init(&floor.shape, PW_SHAPE_HALFSPACE);
    floor.shape.center = v3(0, 2 * h, 0);
    floor.shape.normal = v3(0, 1, 0);
    floor.sticky = 1;
    if (!s || pw_sim_add_collider(s, &floor, &err) != PW_OK) {
        fprintf(stderr, "heap_sim: %s\n", err.msg);
        exit(3);
    }
    return s;
}

static inline double heap_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0);
}

/* Seeds the particles of [lo, hi] (a jittered lattice of spacing h / 2) for which
 * inside(x, user) holds, of material m; returns how many. */
static inline size_t heap_seed(pw_sim *s, double h, vec3 lo, vec3 hi, const pw_material *m,
                               int (*inside)(vec3, const void *), const void *user)
{
    double d = h / 2;
    unsigned r = 7;
    pw_seeded sd = {0};
    pw_error err = {0};
    for (double y = lo.y; y + d <= hi.y + 1e-12; y += d)
        for (double z = lo.z; z + d <= hi.z + 1e-12; z += d)
            for (double x = lo.x; x + d <= hi.x + 1e-12; x += d) {
                vec3 q = v3(x + d * (0.2 + 0.6 * heap_rand(&r)), y + d * (0.2 + 0.6 * heap_rand(&r)),
                            z + d * (0.2 + 0.6 * heap_rand(&r)));
                if (!inside(q, user)) continue;
                if (pw_seeded_append(&sd, q, v3_zero(), HEAP_RHO * d * d * d, m->E0, HEAP_RHO, m,
                                     &err) != PW_OK) {
                    fprintf(stderr, "heap_seed: %s\n", err.msg);
                    exit(3);
                }
            }
    size_t n = sd.n;
    if (pw_sim_add_particles(s, &sd, &err) != PW_OK) {
        fprintf(stderr, "heap_seed: %s\n", err.msg);
        exit(3);
    }
    pw_seeded_free(&sd);
    return n;
}

/* A heap about the vertical axis through (cx, cz): radius R, and either a column of
 * height H (slope 0) or a cone of the given slope [deg] (H ignored), on the floor y0. */
typedef struct {
    double cx, cz, y0, R, H, slope;
} heap_shape;

static inline int heap_inside(vec3 q, const void *user)
{
    const heap_shape *c = user;
    double r = hypot(q.x - c->cx, q.z - c->cz);
    if (r > c->R) return 0;
    double top = c->slope > 0 ? (c->R - r) * tan(c->slope * HEAP_DEG) : c->H;
    return q.y - c->y0 <= top;
}

/* A heap of material m: its simulation (its particles seeded), on a domain wide enough
 * that the heap does not reach its walls (a column's runout is under 1.2 H from its
 * edge; a wall 0.12 m from the axis of the 0.12 m column raised its heap from 30 to 41
 * degrees). */
static inline pw_sim *heap_make(double h, heap_shape *c, const pw_material *m)
{
    double L = c->slope > 0 ? 4 * c->R : 2 * (c->R + 1.2 * c->H), top = c->slope > 0 ? c->R * tan(c->slope * HEAP_DEG) : c->H;
    c->cx = c->cz = L / 2;
    c->y0 = 2 * h;
    pw_sim *s = heap_sim(h, v3(L, c->y0 + top + 4 * h, L));
    heap_seed(s, h, v3(c->cx - c->R, c->y0, c->cz - c->R), v3(c->cx + c->R, c->y0 + top, c->cz + c->R),
              m, heap_inside, c);
    return s;
}

/* The heap's profile: per ring of width h about the axis, the depth of snow at its seeded
 * density, count * (h/2)^3 / ring area (unlike the highest particles, which loose grains
 * on the surface and the B-spline's smearing set, it reads a seeded cone's slope within
 * 0.75 degrees). Fits a line to the rings whose depth is between 0.2 and 0.8 of the
 * deepest, outside the last one deeper than 0.8 (the heap's flank), and returns its slope
 * [deg]; *top gets the deepest ring's depth. NaN without two such rings. */
static inline double heap_slope(const pw_sim *s, const heap_shape *c, double h, double *top)
{
    enum { RINGS = 512 };
    size_t n = pw_sim_particle_count(s), count[RINGS] = {0};
    const vec3 *x = pw_sim_positions(s);
    for (size_t i = 0; i < n; i++) {
        int b = (int)(hypot(x[i].x - c->cx, x[i].z - c->cz) / h);
        if (b >= 0 && b < RINGS) count[b]++;
    }
    double depth[RINGS], deepest = 0, vp = h * h * h / 8;
    for (int b = 0; b < RINGS; b++) {
        depth[b] = count[b] * vp / (HEAP_PI * h * h * (2 * b + 1));
        if (depth[b] > deepest) deepest = depth[b];
    }
    int from = 0;
    for (int b = 0; b < RINGS; b++)
        if (depth[b] >= 0.8 * deepest) from = b + 1;
    double sr = 0, sd = 0, srr = 0, srd = 0;
    int k = 0;
    for (int b = from; b < RINGS; b++)
        if (depth[b] > 0.2 * deepest && depth[b] < 0.8 * deepest) {
            double r = (b + 0.5) * h;
            sr += r, sd += depth[b], srr += r * r, srd += r * depth[b], k++;
        }
    if (top) *top = deepest;
    if (k < 2) return NAN;
    return -atan((k * srd - sr * sd) / (k * srr - sr * sr)) / HEAP_DEG;
}

/* The fastest particle [m/s]. */
static inline double heap_vmax(const pw_sim *s)
{
    size_t n = pw_sim_particle_count(s);
    const vec3 *v = pw_sim_velocities(s);
    double vmax = 0;
    for (size_t i = 0; i < n; i++) vmax = fmax(vmax, v3_length(v[i]));
    return vmax;
}

/* Under the sanitizers these runs take minutes: the tests skip. */
static inline int fixture_sanitized_heap(void) { return getenv("POWDER_SANITIZED") != NULL; }

/* Advances to t_end; exits 3 on a failed step. */
static inline void heap_advance(pw_sim *s, double t_end)
{
    pw_error err = {0};
    if (pw_sim_advance_to(s, t_end, NULL, NULL, &err) != PW_OK) {
        fprintf(stderr, "heap_advance: %s\n", err.msg);
        exit(3);
    }
}

/* A column of cohesionless snow under `plasticity`, friction angle phi [deg], radius R
 * and height H at h 0.01 m, released at rest: the mean of its flank's fitted slope at
 * t0, t0 + dt, ... (n times), each printed. */
static inline double heap_collapse(int plasticity, double phi, double R, double H, double t0,
                                   double dt, int n)
{
    const double h = 0.01;
    pw_material m = heap_material(plasticity, phi, 0, 0);
    heap_shape c = {.R = R, .H = H};
    pw_sim *s = heap_make(h, &c, &m);
    double sum = 0, top = 0;
    for (int k = 0; k < n; k++) {
        double t = t0 + dt * k;
        heap_advance(s, t);
        double sl = heap_slope(s, &c, h, &top);
        printf("%s, phi %.0f, t %.2f s: flank %.2f deg, top %.4f m, fastest %.4f m/s\n",
               pw_plasticity_names[plasticity], phi, t, sl, top, heap_vmax(s));
        sum += sl;
    }
    pw_sim_destroy(s);
    return sum / n;
}

static inline int heap_everywhere(vec3 q, const void *user)
{
    (void)q, (void)user;
    return 1;
}

/* A vertical cut: a plane-strain block of height f H_c (a slab 4 cells thick between
 * the domain's frictionless z walls, B = H wide, its back against the x = 0 wall, on the
 * sticky floor) of a cohesive law of friction angle phi [deg], its cohesion the one that
 * makes H_c = (4 c / (rho g)) tan(45 deg + phi / 2) Mohr-Coulomb's critical height. Returns
 * how far its face has run out after t_end, over H. */
static inline double heap_cut(int plasticity, double phi, double f, double Hc, double h,
                              double t_end)
{
    const double cells = 4;
    double c = Hc * HEAP_RHO * HEAP_G / (4 * tan((45 + phi / 2) * HEAP_DEG));
    pw_material m = heap_material(plasticity, phi, c, 0);
    double H = f * Hc, B = H, y0 = 2 * h, W = (cells + 4) * h;
    pw_sim *s = heap_sim(h, v3(2 * h + B + 2.5 * H + 4 * h, y0 + H + 4 * h, W));
    heap_seed(s, h, v3(2 * h, y0, 2 * h), v3(2 * h + B, y0 + H, W - 2 * h), &m, heap_everywhere,
              NULL);
    double face0 = 0, face = 0;
    const vec3 *x = pw_sim_positions(s);
    for (size_t i = 0; i < pw_sim_particle_count(s); i++) face0 = fmax(face0, x[i].x);
    heap_advance(s, t_end);
    x = pw_sim_positions(s);
    for (size_t i = 0; i < pw_sim_particle_count(s); i++) face = fmax(face, x[i].x);
    printf("%s, H %.2f H_c = %.4f m (c %.2f Pa): runout %.4f m = %.3f H at %.2f s, fastest "
           "%.4f m/s\n", pw_plasticity_names[plasticity], f, H, c, face - face0, (face - face0) / H,
           t_end, heap_vmax(s));
    pw_sim_destroy(s);
    return (face - face0) / H;
}

/* A cone of cohesionless snow under `plasticity`, friction angle phi [deg], radius 0.1 m,
 * h 0.01 m, seeded at `slope` [deg] and run to t_end: its flank's fitted slope and its top
 * at the start and at the end (printed). */
typedef struct {
    double slope0, slope, top0, top;
} heap_cone_result;

static inline heap_cone_result heap_cone(int plasticity, double phi, double slope, double t_end)
{
    const double h = 0.01;
    pw_material m = heap_material(plasticity, phi, 0, 0);
    heap_shape c = {.R = 0.1, .slope = slope};
    pw_sim *s = heap_make(h, &c, &m);
    heap_cone_result r;
    r.slope0 = heap_slope(s, &c, h, &r.top0);
    heap_advance(s, t_end);
    r.slope = heap_slope(s, &c, h, &r.top);
    printf("%s, phi %.0f, cone %.0f deg: flank %.2f deg at the start, %.2f at %.2f s; top "
           "%.4f -> %.4f m; fastest %.4f m/s\n", pw_plasticity_names[plasticity], phi, slope,
           r.slope0, r.slope, t_end, r.top0, r.top, heap_vmax(s));
    pw_sim_destroy(s);
    return r;
}

/* Checks a cone of heap_cone: standing, the flank within 1.5 degrees of the seeded slope
 * (the fit reads a seeded cone within 0.75) and the top within 3 % of its height at the
 * start; else sinking, the top below `fallen` of it. */
static inline void heap_cone_check(int plasticity, double phi, double slope, double t_end,
                                   int stands, double fallen)
{
    heap_cone_result r = heap_cone(plasticity, phi, slope, t_end);
    if (stands) {
        CHECK(fabs(r.slope - slope) <= 1.5, "phi %.0f: the %.0f-degree cone's flank went to %.2f",
              phi, slope, r.slope);
        CHECK(r.top >= 0.97 * r.top0, "phi %.0f: the %.0f-degree cone's top fell from %.4f to %.4f",
              phi, slope, r.top0, r.top);
    } else {
        CHECK(r.top < fallen * r.top0, "phi %.0f: the %.0f-degree cone stood (top %.4f -> %.4f)",
              phi, slope, r.top0, r.top);
    }
}

#endif
