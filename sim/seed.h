/* seed.h — filling snow bodies with particles: jittered random sampling, 4-10
 * particles per cell, into unions and differences of shapes and closed OBJ meshes,
 * with the per-particle parameter variation of section 10 (harder, denser shell and
 * multiplicative noise on E) and layers by depth below the body's top (a crust, as the
 * walking character of Fig. 9). Deterministic for a given seed. */
#ifndef PW_SEED_H
#define PW_SEED_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"
#include "pw_shape.h"

#define PW_BODY_MAX_SHAPES 16
#define PW_BODY_MAX_LAYERS 8

typedef struct {
    char name[64];
    double E0;             /* Young's modulus [Pa]          (Table 2: 1.4e5) */
    double nu;             /* Poisson's ratio [-]           (0.2)            */
    double xi;             /* hardening coefficient [-]     (10)             */
    double theta_c;        /* critical compression [-]      (2.5e-2)         */
    double theta_s;        /* critical stretch [-]          (7.5e-3)         */
    double rho0;           /* initial density [kg/m^3]      (400)            */
    double Jp_min, Jp_max; /* clamp of J_P so hardening stays finite ([0.6, 20]) */
    double rho_max;        /* [kg/m^3] the densest plastic compaction makes the snow: J_P
                              stops at rho / rho_max, rho the particle's seeded density
                              (0 = no limit, the 2013 model) */
    double Jp_floor;       /* [-] the least J_P plastic compaction reaches, one value for
                              every particle of the material (0 = none); with rho_max the
                              higher floor holds */
    double E_noise;        /* relative amplitude of multiplicative noise on E (0 = none) */
    double noise_scale;    /* [m] feature size of that noise                 */
    double shell_depth;    /* [m] thickness of the harder, denser outer shell (0 = none) */
    double shell_E_factor; /* E multiplier at the surface, blending to 1 at shell_depth */
    double shell_rho_factor; /* density multiplier at the surface, likewise   */
    /* The optional laws (sim/docs/durable-snow.md); at their defaults the material is the
     * 2013 paper's and its particles hold none of the fields below. */
    int plasticity;        /* PW_PLASTICITY_*: which yield law bounds Fe             */
    int hardening;         /* PW_HARDENING_*: what the hardening exponent measures   */
    double friction_angle; /* [deg] Drucker-Prager friction angle, in (0, 90) with it */
    double cohesion;       /* [Pa] Drucker-Prager cohesion of intact snow            */
    double durability_rate; /* [-] durability lost per unit plastic stretch (0 = none):
                               durability falls from 1 to 0 over 1/rate of it, and takes
                               the cohesion down with it */
} pw_material;

enum {
    PW_PLASTICITY_CLAMP = 0,          /* "clamp": eq. 11's [1 - theta_c, 1 + theta_s]  */
    PW_PLASTICITY_DRUCKER_PRAGER = 1, /* "drucker_prager": friction and cohesion only */
    PW_PLASTICITY_CLAMP_DRUCKER_PRAGER = 2 /* "clamp+drucker_prager": both, in that order */
};
enum {
    PW_HARDENING_PLASTIC = 0, /* "plastic": e^{xi (1 - J_P)}, J_P = det Fp (eq. 2)      */
    PW_HARDENING_DENSITY = 1  /* "density": J_P read from the grid's density instead,
                                 rho0 / (rho |det Fe|) (Gissler et al. 2020, eq. 21-23) */
};
/* The names of the values above, in their order, NULL-terminated. */
extern const char *const pw_plasticity_names[];
extern const char *const pw_hardening_names[];

/* A particle's law, bits of its `law` field. A particle of a 2013 material holds no
 * such field (its law is PW_LAW_CLAMP). */
#define PW_LAW_CLAMP 1u
#define PW_LAW_DRUCKER_PRAGER 2u
#define PW_LAW_DENSITY_HARDENING 4u

/* J_P as eq. 2's hardening reads it for a particle of law bits `law`, clamped to
 * [Jp_min, Jp_max]: det Fp, or under density hardening m / (V0 rho_rest), the seeded
 * density over the rest density measured on the grid, once measured (rho_rest, V0 > 0).
 * The solver's (pw_particle_Jp) and `powder stats`' elastic energy alike. */
static inline double pw_law_Jp(uint32_t law, double det_Fp, double m, double V0,
                               double rho_rest, double Jp_min, double Jp_max)
{
    double Jp = det_Fp;
    if ((law & PW_LAW_DENSITY_HARDENING) && rho_rest > 0 && V0 > 0) Jp = m / (V0 * rho_rest);
    return Jp < Jp_min ? Jp_min : Jp > Jp_max ? Jp_max : Jp;
}

/* The largest durability_rate: durability gone after a plastic stretch of 1e-4. */
#define PW_DURABILITY_RATE_MAX 1e4

/* 1 when m uses anything but the 2013 law: its particles then carry the law's fields. */
int pw_material_has_laws(const pw_material *m);

void pw_material_default(pw_material *m); /* Stomakhin et al. 2013, Table 2 */

/* The allowed interval of one number of a material: the one statement of what the
 * solver accepts, which the scene parser (messages naming file and key), seeding (for
 * materials made in code) and the solver's per-particle check all read. */
typedef struct {
    const char *key;     /* the field's scene key ("theta_c"); NULL ends the table */
    size_t offset;       /* offsetof(pw_material, field) */
    double lo, hi;       /* may be -INFINITY / INFINITY */
    int lo_open, hi_open; /* 1 excludes the end point */
    const char *what;    /* "the critical compression" */
} pw_material_range;

extern const pw_material_range pw_material_ranges[];

/* The range of key, or NULL when the material has no such number. */
const pw_material_range *pw_material_range_of(const char *key);

/* 1 when value lies in r. */
int pw_material_range_holds(const pw_material_range *r, double value);

/* e^709 is the largest finite double: the hardening factor e^{xi (1 - Jp_min)} must stay
 * well below it or the stress overflows at the strongest compression. */
#define PW_MAX_HARDENING_EXPONENT 700.0

/* [Pa] Young's modulus of polycrystalline ice near 0 C (about 9 GPa): the stiffest snow
 * can become, compacted to ice. A material whose hardened modulus E0 e^(xi (1 - Jp_min))
 * exceeds it is refused (sim/docs/step-control.md). */
#define PW_ICE_YOUNGS 9e9

/* Checks every range and the rules between fields (rho_max 0 or above rho0, a
 * noise_scale for E_noise, a finite hardening factor). On failure returns PW_EINVAL
 * with the offending key in *key, its value in *value and the rule in why ("must be
 * in (0, 1)"; "must be 0 (no limit) or above rho0 = 400 kg/m^3"). */
pw_status pw_material_check(const pw_material *m, const char **key, double *value, char *why,
                            size_t why_size);

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
