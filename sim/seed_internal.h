/* seed_internal.h — what the three files of seeding share: placement (seed.c) asks the
 * fields over a body (seed_fields.c) and what a material gives a particle
 * (seed_material.c). Internal to sim/. */
#ifndef PW_SEED_INTERNAL_H
#define PW_SEED_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "mesh_sdf.h"
#include "seed.h"

typedef struct {
    const pw_shape *shape;
    pw_mesh_sdf *sdf; /* owned, meshes and text only */
    pw_text_outline text; /* text only: the exact distance near its surface */
    double band;          /* [m] where the exact distance replaces the grid's */
} seed_shape;

/* ---- counter-based random numbers --------------------------------------------- */

static inline uint64_t mix64(uint64_t x) /* splitmix64 finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A hash of (seed, i, j, k, q), each step mixed so that nearby counters decorrelate. */
static inline uint64_t hash5(uint64_t seed, int64_t i, int64_t j, int64_t k, uint64_t q)
{
    uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull);
    h = mix64(h ^ (uint64_t)i);
    h = mix64(h ^ ((uint64_t)j + 0x632be59bd9b4e019ull));
    h = mix64(h ^ ((uint64_t)k + 0x85157af5ull));
    return mix64(h ^ q);
}

static inline double unit_double(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- what a material gives a particle (seed_material.c) ------------------------- */

/* What one material gives a particle: the per-particle fields of pw_seeded. */
typedef struct {
    double mu0, lambda0;     /* [Pa] */
    double xi, theta_c, theta_s, Jp_min, Jp_max, Jp_floor;
    double rho;              /* [kg/m^3] */
    /* the optional laws: PW_LAW_* bits (the material's that weighs most in a blend) */
    uint32_t law;
    double friction_angle, cohesion, durability_rate; /* [rad], [Pa], [-] */
} particle_values;

/* The values material m (a layer's, or the body's own) gives a particle at x with the
 * body material's shell and noise. */
typedef struct {
    const pw_material *body; /* shell and noise */
    uint64_t seed;
    vec3 x;
    double surface_depth; /* [m] to the nearest surface, for the shell */
} particle_site;

particle_values pw_seed_values_at(const particle_site *at, const pw_material *m);
particle_values pw_seed_values_of(const pw_material *mat, double E, double rho);

/* ---- the fields over a body (seed_fields.c) ------------------------------------- */

/* signed distance [m] to the body (union of add minus union of subtract) */
double pw_seed_body_phi(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub, vec3 x);

/* Depth [m] of x below the body's top: the distance straight up (+y) to the first point
 * outside the body, y_top the top of its bounding box. Steps of |phi| never leave the
 * body (|phi| of a union or difference of distances is at most the distance to its
 * boundary); a step of at least h/8 keeps the walk short beside a wall, then bisection
 * finds the exit to 1e-4 h. */
double pw_seed_depth_below_top(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub,
                               vec3 x, double phi, double y_top, double h);

/* The values at depth d [m] below the top of body b at site at; *label = 1 + the index
 * of the layer whose values weigh most, 0 for the body's own material. */
particle_values pw_seed_layered_values(const pw_body_desc *b, const particle_site *at, double d,
                                       uint32_t *label);

/* Fe of snow lying still under its own weight (body.settled), for a particle at x, depth
 * d below the body's top (y_box: the top of its bounding box), with values pv. The
 * infinite-slope state: where the top surface has the upward normal n, the plane through
 * x parallel to it
 * carries the column above, t = rho_col d (n . y) g per unit of its area (rho_col d: the
 * column's mass per horizontal area, integrated over its layers; n . y: a tilted plane's
 * area per horizontal area). So sigma n = t, and the stress in the planes parallel to
 * the top is left zero: sigma = (t . n) n n^T + s n^T + n s^T, s = t - (t . n) n. That
 * state satisfies div sigma + rho g = 0 and leaves a field's vertical sides free of
 * traction, so a box of snow on flat ground is in equilibrium to its edges (the laterally
 * confined state, sigma_xx = nu / (1 - nu) sigma_yy, would push its sides out).
 * Fe = I + eps, the linear strain of sigma: eps = ((1 + nu) sigma - nu tr(sigma) I) / E.
 * The strains are small (1e-3 for the paper's fields), where the fixed-corotated stress
 * is the linear one to their square. */
pw_status pw_seed_settled_Fe(const pw_body_desc *b, const pw_material *mat, const seed_shape *add,
                             const seed_shape *sub, vec3 x, double d, double y_box, double h,
                             const particle_values *pv, mat3 *Fe, pw_error *err);

/* The checks of a settled body (gravity straight down, no initial motion) and of the
 * layers (pw_layers_check), as errors of the snow body. */
pw_status pw_seed_check_settled(const pw_body_desc *b, pw_error *err);
pw_status pw_seed_check_layers(const pw_body_desc *b, const pw_material *mat, pw_error *err);

#endif
