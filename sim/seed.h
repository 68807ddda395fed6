/* seed.h — filling snow bodies with particles: jittered random sampling, 4-10
 * particles per cell, into unions and differences of shapes and closed OBJ meshes,
 * with the per-particle parameter variation of section 10 (harder, denser shell and
 * multiplicative noise on E) and layers by depth below the body's top (a crust, as the
 * walking character of Fig. 9). Deterministic for a given seed. */
#ifndef PW_SEED_H
#define PW_SEED_H

#include <stddef.h>
#include <stdint.h>

#include "material.h"
#include "pw_error.h"
#include "pw_shape.h"

#define PW_BODY_MAX_SHAPES 16
#define PW_BODY_MAX_LAYERS 8


/* Appends one particle of material mat at x moving at v, of mass m [kg], with Young's
 * modulus E [Pa] and density rho [kg/m^3] (the material's, or varied by noise and
 * shell): every other per-particle parameter comes from mat. The one way particles are
 * made, by seeding, the solver's test bodies and the benchmarks. */
struct pw_seeded;
pw_status pw_seeded_append(struct pw_seeded *out, vec3 x, vec3 v, double m, double E, double rho,
                           const pw_material *mat, pw_error *err);

/* One layer of a layered body, counted from the top. Depth d [m] is measured per
 * particle straight up (+y) from it to where the body ends above it (the first point
 * outside the body: its top surface in that column, under an overhang the overhang's
 * underside; gaps thinner than h/8 are not seen). Layer k's own values hold from its
 * top z_k down to z_k + thickness; below that they blend linearly, over `blend`, into
 * the next layer's, which starts at z_{k+1} = z_k + thickness + blend (z_0 = 0); below
 * the last layer and its blend the body's own material holds. What blends are the
 * per-particle values each material gives: mu0 and lambda0 (from E0 and nu), xi,
 * theta_c, theta_s, the density rho0 (hence the mass), Jp_min, Jp_max and the
 * compaction floor (from Jp_floor and rho_max). The body material's shell and E noise
 * apply on top, to every layer alike. */
typedef struct {
    double thickness;     /* [m] > 0: where the layer's own values hold              */
    double blend;         /* [m] >= 0: the linear ramp below it into the next material */
    pw_material material; /* the layer's values (the parser starts from the body's
                             material and overrides what the layer gives)            */
} pw_layer;

typedef struct {
    pw_shape add[PW_BODY_MAX_SHAPES];      /* union of these ... */
    int n_add;
    pw_shape subtract[PW_BODY_MAX_SHAPES]; /* ... minus the union of these */
    int n_subtract;
    vec3 velocity;          /* initial velocity [m/s] */
    vec3 angular_velocity;  /* initial spin about the body's centroid [rad/s] */
    double particles_per_cell; /* 4..10, default 8 */
    uint64_t seed;
    pw_layer layers[PW_BODY_MAX_LAYERS]; /* from the top down; none = one material */
    int n_layers;
    /* settled: the snow is seeded as it lies still under its own weight (gravity, straight
     * down -y): each particle's Fe carries the weight of the column above it, and it starts
     * asleep where resting snow is on (sim/docs/settled-seed.md) */
    int settled;
    vec3 gravity;           /* [m/s^2] the scene's, for settled */
} pw_body_desc;

/* Checks the layers of b over the body material mat: each layer's material
 * (pw_material_check), a finite thickness > 0, a finite blend >= 0, and a finite
 * hardening factor across each blend (xi and Jp_min blend, so their product can peak
 * inside it). On failure returns PW_EINVAL with the
 * layer's index in *layer (-1: none), the offending key in *key ("thickness",
 * "blend", or a material key), its value in *value and the rule in why. */
pw_status pw_layers_check(const pw_body_desc *b, const pw_material *mat, int *layer,
                          const char **key, double *value, char *why, size_t why_size);

/* The rest counter (rest.c) of a settled body's particle: at rest long enough to sleep,
 * and settled under its own weight. */
#define PW_REST_SEEDED 0xC0000000u

/* Per-particle initial state produced by seeding (arrays of n); the solver's field
 * table (particles.c) says which of its fields each array supplies. */
typedef struct pw_seeded {
    size_t n, capacity;
    vec3 *x;         /* [m] */
    vec3 *v;         /* [m/s] */
    double *m;       /* [kg] = rho * h^3 / ppc */
    double *mu0, *lambda0; /* [Pa] per-particle Lamé parameters */
    double *xi, *theta_c, *theta_s, *Jp_min, *Jp_max;
    double *Jp_floor; /* least J_P plastic compaction reaches (0 = none); NULL: all 0 */
    uint32_t *layer;  /* 1 + the index of the layer whose values weigh most (1 = the top
                         layer), 0 = the body's own material; NULL: all 0 */
    mat3 *Fe;         /* elastic deformation: identity, or a settled body's */
    double *V0;       /* [m^3] rest volume, or 0: from the grid's density at the first step
                         (the paper's step 2) */
    uint32_t *rest;   /* 0, or PW_REST_SEEDED for a settled body's particles */
    /* the optional laws (set when laws = 1, else NULL): PW_LAW_* bits, the friction
     * angle [rad], cohesion [Pa], durability rate, durability (1) and the measured rest
     * density (0: measured at the first step) */
    uint32_t *law;
    double *friction_angle, *cohesion, *durability_rate, *durability, *rho_rest;
    int laws;
    int layered;      /* 1 when a body with layers was seeded: the solver then holds and
                         saves `layer` (else the caches keep their bytes)            */
} pw_seeded;

/* Number of particles seeding would create, computed before any allocation, so the
 * caller can report the budget and refuse absurd scenes. */
pw_status pw_seed_estimate(const pw_body_desc *b, double h, size_t *count, pw_error *err);

/* Appends the particles of body b with material mat at grid spacing h [m]. */
pw_status pw_seed_body(const pw_body_desc *b, const pw_material *mat, double h,
                       pw_seeded *out, pw_error *err);
void pw_seeded_free(pw_seeded *s);

#endif
