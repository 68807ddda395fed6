/* seed.c — filling snow bodies with particles (seed.h).
 *
 * Every grid cell (spacing h) overlapping the body's bounding box gets round(ppc)
 * jittered points whose offsets come from a counter-based hash of (seed, cell, k), so
 * a particle's position never depends on loop order or thread count. Points inside the
 * union of `add` and outside the union of `subtract` are kept. Stomakhin et al. 2013,
 * section 10, vary the parameters per particle: a harder, denser outer shell and
 * multiplicative noise on E; both are applied here, and so are layers by depth below
 * the body's top (section 10's walking character: a stiffer, crunchier top layer). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constitutive.h"
#include "mesh_sdf.h"
#include "particles.h"
#include "seed.h"

/* A body is refused when its bounding box holds more candidate points than this. */
#define SEED_MAX_CANDIDATES 2000000000.0
#define SEED_PI 3.14159265358979323846

typedef struct {
    const pw_shape *shape;
    pw_mesh_sdf *sdf; /* owned, meshes and text only */
    pw_text_outline text; /* text only: the exact distance near its surface */
    double band;          /* [m] where the exact distance replaces the grid's */
} seed_shape;

/* ---- counter-based random numbers --------------------------------------------- */

static uint64_t mix64(uint64_t x) /* splitmix64 finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A hash of (seed, i, j, k, q), each step mixed so that nearby counters decorrelate. */
static uint64_t hash5(uint64_t seed, int64_t i, int64_t j, int64_t k, uint64_t q)
{
    uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull);
    h = mix64(h ^ (uint64_t)i);
    h = mix64(h ^ ((uint64_t)j + 0x632be59bd9b4e019ull));
    h = mix64(h ^ ((uint64_t)k + 0x85157af5ull));
    return mix64(h ^ q);
}

static double unit_double(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

/* Value noise in [-1, 1] with feature size `scale` [m]: hashed lattice values blended
 * with smoothstep weights (continuous, so neighbouring particles get similar E). */
static double value_noise(uint64_t seed, double scale, vec3 x)
{
    double g[3] = {x.x / scale, x.y / scale, x.z / scale}, w[3];
    int64_t c[3];
    for (int a = 0; a < 3; a++) {
        double f = floor(g[a]);
        c[a] = (int64_t)f;
        double t = g[a] - f;
        w[a] = t * t * (3 - 2 * t);
    }
    double sum = 0;
    for (int corner = 0; corner < 8; corner++) {
        int di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
        double v = 2 * unit_double(hash5(seed ^ 0x6e6f697365ull, c[0] + di, c[1] + dj, c[2] + dk, 0)) - 1;
        sum += v * (di ? w[0] : 1 - w[0]) * (dj ? w[1] : 1 - w[1]) * (dk ? w[2] : 1 - w[2]);
    }
    return sum;
}

/* ---- shapes -------------------------------------------------------------------- */

static double shape_phi(const seed_shape *s, vec3 x)
{
    if (!s->sdf) return pw_shape_sdf(s->shape, 0.0, x, NULL);
    vec3 p = pw_mesh_sdf_body_point(s->shape, 0.0, x, NULL);
    double phi = pw_mesh_sdf_phi(s->sdf, p, NULL);
    /* a text's letters exactly, corners and holes included: the grid's trilinear values
     * round concave corners by up to ~0.1 h, which seeded snow into the counters of R */
    if (s->text.n_contours && fabs(phi) < s->band)
        phi = pw_text_sdf(&s->text, s->shape->text_depth, p);
    return phi;
}

/* signed distance [m] to the body (union of add minus union of subtract) */
static double body_phi(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub, vec3 x)
{
    double phi = INFINITY;
    for (int a = 0; a < n_add; a++) phi = fmin(phi, shape_phi(&add[a], x));
    for (int s = 0; s < n_sub; s++) phi = fmax(phi, -shape_phi(&sub[s], x));
    return phi;
}

/* world bounding box of a bounded shape at t = 0 (from its body-frame box corners) */
static void shape_bounds(const seed_shape *s, vec3 *lo, vec3 *hi)
{
    const pw_shape *sh = s->shape;
    vec3 blo, bhi;
    switch (sh->kind) {
    case PW_SHAPE_SPHERE: bhi = v3(sh->radius, sh->radius, sh->radius); break;
    case PW_SHAPE_BOX: bhi = sh->half_extents; break;
    case PW_SHAPE_CYLINDER: bhi = v3(sh->radius, sh->half_height, sh->radius); break;
    default: bhi = v3_zero(); break;
    }
    blo = v3_scale(bhi, -1);
    if (s->sdf) pw_mesh_sdf_bounds(s->sdf, &blo, &bhi);
    /* world = W body + o, with o the world position of the body origin */
    mat3 W;
    vec3 o_body = pw_mesh_sdf_body_point(sh, 0.0, v3_zero(), &W);
    vec3 o = v3_scale(m3_mulv(W, o_body), -1);
    *lo = v3(INFINITY, INFINITY, INFINITY);
    *hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int c = 0; c < 8; c++) {
        vec3 p = v3(c & 1 ? bhi.x : blo.x, c & 2 ? bhi.y : blo.y, c & 4 ? bhi.z : blo.z);
        vec3 w = v3_add(m3_mulv(W, p), o);
        *lo = v3_min(*lo, w);
        *hi = v3_max(*hi, w);
    }
}

static double shape_volume(const pw_shape *s)
{
    switch (s->kind) {
    case PW_SHAPE_SPHERE: return 4.0 / 3.0 * SEED_PI * s->radius * s->radius * s->radius;
    case PW_SHAPE_BOX: return 8.0 * s->half_extents.x * s->half_extents.y * s->half_extents.z;
    case PW_SHAPE_CYLINDER: return 2.0 * SEED_PI * s->radius * s->radius * s->half_height;
    default: return INFINITY;
    }
}

/* ---- validation ------------------------------------------------------------------ */

static pw_status check_shape(const pw_shape *s, const char *list, int i, pw_error *err)
{
    int bad = 0;
    switch (s->kind) {
    case PW_SHAPE_HALFSPACE:
        if (!strcmp(list, "add"))
            return pw_fail(err, PW_EINVAL, "snow body: add shape %d is an unbounded half-space "
                           "(only a subtract shape may be one)", i);
        bad = !(v3_length(s->normal) > 0);
        break;
    case PW_SHAPE_SPHERE: bad = !(s->radius > 0) || !isfinite(s->radius); break;
    case PW_SHAPE_BOX:
        bad = !(s->half_extents.x > 0 && s->half_extents.y > 0 && s->half_extents.z > 0) ||
              !v3_isfinite(s->half_extents);
        break;
    case PW_SHAPE_CYLINDER:
        bad = !(s->radius > 0 && s->half_height > 0) || !isfinite(s->radius * s->half_height);
        break;
    case PW_SHAPE_MESH: bad = !(s->scale > 0) || !isfinite(s->scale); break;
    case PW_SHAPE_TEXT:
        bad = !(s->text_height > 0 && s->text_depth > 0) ||
              !isfinite(s->text_height * s->text_depth);
        break;
    default: return pw_fail(err, PW_EINVAL, "snow body: %s shape %d has unknown kind (%d)", list, i, s->kind);
    }
    if (bad)
        return pw_fail(err, PW_EINVAL, "snow body: %s shape %d has a zero, negative or non-finite "
                       "size", list, i);
    return PW_OK;
}

static pw_status check_body(const pw_body_desc *b, double h, pw_error *err)
{
    if (!(h > 0) || !isfinite(h))
        return pw_fail(err, PW_EINVAL, "snow body: grid spacing must be positive (%g m)", h);
    if (b->n_add < 1 || b->n_add > PW_BODY_MAX_SHAPES)
        return pw_fail(err, PW_EINVAL, "snow body: needs 1 to %d add shapes (%d)",
                       PW_BODY_MAX_SHAPES, b->n_add);
    if (b->n_subtract < 0 || b->n_subtract > PW_BODY_MAX_SHAPES)
        return pw_fail(err, PW_EINVAL, "snow body: at most %d subtract shapes (%d)",
                       PW_BODY_MAX_SHAPES, b->n_subtract);
    if (!(b->particles_per_cell >= 1 && b->particles_per_cell <= 64))
        return pw_fail(err, PW_EINVAL, "snow body: particles per cell must be in [1, 64] (%g)",
                       b->particles_per_cell);
    if (!v3_isfinite(b->velocity) || !v3_isfinite(b->angular_velocity))
        return pw_fail(err, PW_EINVAL, "snow body: non-finite initial velocity");
    pw_status rc = PW_OK;
    for (int i = 0; i < b->n_add && rc == PW_OK; i++) rc = check_shape(&b->add[i], "add", i, err);
    for (int i = 0; i < b->n_subtract && rc == PW_OK; i++)
        rc = check_shape(&b->subtract[i], "subtract", i, err);
    return rc;
}

static pw_status check_material(const pw_material *m, pw_error *err)
{
    const char *key;
    double value;
    char why[160];
    if (pw_material_check(m, &key, &value, why, sizeof why) == PW_OK) return PW_OK;
    return pw_fail(err, PW_EINVAL, "material '%s': %s = %g: %s", m->name, key, value, why);
}

/* ---- output arrays ------------------------------------------------------------- */

static pw_status seeded_reserve(pw_seeded *s, size_t need, pw_error *err)
{
    if (need <= s->capacity) return PW_OK;
    size_t cap = s->capacity ? s->capacity : 1024;
    while (cap < need) cap *= 2;
    for (int f = 0; f < pw_particle_field_count; f++) {
        void **a = pw_seeded_array(s, &pw_particle_fields[f]);
        if (!a) continue;
        void *p = realloc(*a, cap * pw_particle_field_bytes(&pw_particle_fields[f]));
        if (!p) return pw_fail(err, PW_ENOMEM, "seeding: out of memory for %zu particles", cap);
        *a = p;
    }
    s->capacity = cap;
    return PW_OK;
}

/* ---- public ------------------------------------------------------------------ */

pw_status pw_seed_estimate(const pw_body_desc *b, double h, size_t *count, pw_error *err)
{
    *count = 0;
    pw_status rc = check_body(b, h, err);
    if (rc != PW_OK) return rc;
    /* sum of the add volumes: an upper bound that ignores overlaps and holes */
    double volume = 0;
    for (int i = 0; i < b->n_add; i++) {
        const pw_shape *s = &b->add[i];
        if (!pw_shape_is_mesh(s)) {
            volume += shape_volume(s);
            continue;
        }
        pw_mesh mesh = {0};
        if ((rc = pw_shape_mesh(s, &mesh, err)) != PW_OK) return rc;
        double v = 0;
        for (size_t t = 0; t < mesh.n_triangles; t++) {
            const float *p[3];
            for (int c = 0; c < 3; c++) p[c] = &mesh.vertices[3 * mesh.triangles[3 * t + c]];
            vec3 a = v3(p[0][0], p[0][1], p[0][2]), bb = v3(p[1][0], p[1][1], p[1][2]),
                 c = v3(p[2][0], p[2][1], p[2][2]);
            v += v3_dot(a, v3_cross(bb, c)) / 6.0;
        }
        pw_mesh_free(&mesh);
        volume += fabs(v) * s->scale * s->scale * s->scale;
    }
    double n = round(b->particles_per_cell) * volume / (h * h * h);
    if (!(n < SEED_MAX_CANDIDATES)) /* bad input, not a failure of the work */
        return pw_fail(err, PW_EINVAL, "about %.3g particles at sim.h = %g m, beyond what one "
                       "body can hold (%.3g, whatever sim.max_particles says): coarsen sim.h, "
                       "lower particles_per_cell or shrink the body", n, h, SEED_MAX_CANDIDATES);
    *count = (size_t)llround(n);
    return PW_OK;
}

static void free_shapes(seed_shape *s, int n)
{
    for (int i = 0; i < n; i++) {
        pw_mesh_sdf_destroy(s[i].sdf);
        pw_text_outline_free(&s[i].text);
    }
}

static pw_status prepare_shapes(const pw_shape *in, int n, double h, seed_shape *out, pw_error *err)
{
    for (int i = 0; i < n; i++) {
        out[i].shape = &in[i];
        out[i].sdf = NULL;
        memset(&out[i].text, 0, sizeof out[i].text);
        out[i].band = h;
        if (!pw_shape_is_mesh(&in[i])) continue;
        pw_status rc = pw_mesh_sdf_of_shape(&in[i], 0.5 * h, h, &out[i].sdf, err);
        if (rc == PW_OK && in[i].kind == PW_SHAPE_TEXT)
            rc = pw_text_outline_create(in[i].path, in[i].text, in[i].text_height,
                                        PW_TEXT_TOLERANCE * in[i].text_height, &out[i].text, err);
        if (rc != PW_OK) {
            free_shapes(out, i + 1);
            return rc;
        }
    }
    return PW_OK;
}

/* E [Pa] and rho [kg/m^3] of a particle at x, depth [m] below the body surface, from
 * E0 and rho0 of its material (or layer) by the body material's shell blend, then its
 * noise. */
static void particle_material(const pw_material *mat, double E0, double rho0, uint64_t seed,
                              vec3 x, double depth, double *E, double *rho)
{
    double shell = 1.0; /* 0 at the surface, 1 at shell_depth and below */
    if (mat->shell_depth > 0) shell = fmin(fmax(depth / mat->shell_depth, 0.0), 1.0);
    *E = E0 * (mat->shell_E_factor + (1 - mat->shell_E_factor) * shell);
    *rho = rho0 * (mat->shell_rho_factor + (1 - mat->shell_rho_factor) * shell);
    if (mat->E_noise > 0) *E *= 1 + mat->E_noise * value_noise(seed, mat->noise_scale, x);
}

/* ---- layers -------------------------------------------------------------------- */

/* What one material gives a particle: the per-particle fields of pw_seeded. */
typedef struct {
    double mu0, lambda0;     /* [Pa] */
    double xi, theta_c, theta_s, Jp_min, Jp_max, Jp_floor;
    double rho;              /* [kg/m^3] */
    /* the optional laws: PW_LAW_* bits (the material's that weighs most in a blend) */
    uint32_t law;
    double friction_angle, cohesion, durability_rate; /* [rad], [Pa], [-] */
} particle_values;

static particle_values values_of(const pw_material *mat, double E, double rho)
{
    particle_values v;
    pw_lame(E, mat->nu, &v.mu0, &v.lambda0);
    v.xi = mat->xi;
    v.theta_c = mat->theta_c;
    v.theta_s = mat->theta_s;
    v.Jp_min = mat->Jp_min;
    v.Jp_max = mat->Jp_max;
    /* (the denser shell, seeded above rho_max, is not compacted at all) */
    double floor_rho = mat->rho_max > 0 ? fmin(1.0, rho / mat->rho_max) : 0.0;
    v.Jp_floor = fmax(mat->Jp_floor, floor_rho);
    v.rho = rho;
    v.law = pw_plasticity_law(mat->plasticity) |
            (mat->hardening == PW_HARDENING_DENSITY ? PW_LAW_DENSITY_HARDENING : 0u);
    v.friction_angle = mat->friction_angle * (3.14159265358979323846 / 180.0);
    v.cohesion = mat->cohesion;
    v.durability_rate = mat->durability_rate;
    return v;
}

static double lerp(double a, double b, double s) { return a + s * (b - a); }

static particle_values values_lerp(particle_values a, particle_values b, double s)
{
    particle_values v = {lerp(a.mu0, b.mu0, s),         lerp(a.lambda0, b.lambda0, s),
                         lerp(a.xi, b.xi, s),           lerp(a.theta_c, b.theta_c, s),
                         lerp(a.theta_s, b.theta_s, s), lerp(a.Jp_min, b.Jp_min, s),
                         lerp(a.Jp_max, b.Jp_max, s),   lerp(a.Jp_floor, b.Jp_floor, s),
                         lerp(a.rho, b.rho, s),
                         s < 0.5 ? a.law : b.law,
                         lerp(a.friction_angle, b.friction_angle, s),
                         lerp(a.cohesion, b.cohesion, s),
                         lerp(a.durability_rate, b.durability_rate, s)};
    return v;
}

/* The values material m (a layer's, or the body's own) gives a particle at x with the
 * body material's shell and noise. */
typedef struct {
    const pw_material *body; /* shell and noise */
    uint64_t seed;
    vec3 x;
    double surface_depth; /* [m] to the nearest surface, for the shell */
} particle_site;

static particle_values values_at(const particle_site *at, const pw_material *m)
{
    double E, rho;
    particle_material(at->body, m->E0, m->rho0, at->seed, at->x, at->surface_depth, &E, &rho);
    return values_of(m, E, rho);
}

/* Depth [m] of x below the body's top: the distance straight up (+y) to the first point
 * outside the body, y_top the top of its bounding box. Steps of |phi| never leave the
 * body (|phi| of a union or difference of distances is at most the distance to its
 * boundary); a step of at least h/8 keeps the walk short beside a wall, then bisection
 * finds the exit to 1e-4 h. */
static double depth_below_top(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub,
                              vec3 x, double phi, double y_top, double h)
{
    double inside = x.y, step_min = h / 8;
    vec3 p = x;
    while (phi < 0) {
        inside = p.y;
        p.y += fmax(-phi, step_min);
        if (p.y > y_top) {
            p.y = y_top;
            phi = body_phi(add, n_add, sub, n_sub, p);
            if (phi < 0) return y_top - x.y; /* (the box's top is outside every shape) */
            break;
        }
        phi = body_phi(add, n_add, sub, n_sub, p);
    }
    double outside = p.y;
    while (outside - inside > 1e-4 * h) {
        p.y = 0.5 * (inside + outside);
        if (body_phi(add, n_add, sub, n_sub, p) < 0) inside = p.y;
        else outside = p.y;
    }
    return 0.5 * (inside + outside) - x.y;
}

/* The values at depth d [m] below the top of body b at site at; *label = 1 + the index
 * of the layer whose values weigh most, 0 for the body's own material. */
static particle_values layered_values(const pw_body_desc *b, const particle_site *at, double d,
                                      uint32_t *label)
{
    double z = 0; /* top of layer k */
    for (int k = 0; k < b->n_layers; k++) {
        const pw_layer *L = &b->layers[k];
        if (d < z + L->thickness + L->blend) {
            particle_values v = values_at(at, &L->material);
            double s = L->blend > 0 ? (d - z - L->thickness) / L->blend : 0;
            *label = (uint32_t)k + 1;
            if (s <= 0) return v;
            const pw_material *next = k + 1 < b->n_layers ? &b->layers[k + 1].material : at->body;
            if (s >= 0.5) *label = k + 1 < b->n_layers ? (uint32_t)k + 2 : 0;
            return values_lerp(v, values_at(at, next), s);
        }
        z += L->thickness + L->blend;
    }
    *label = 0;
    return values_at(at, at->body);
}

/* ---- settled snow ------------------------------------------------------------- */

/* The values body b gives a particle at x, depth d below its top (layers, shell, noise). */
static particle_values values_at_depth(const pw_body_desc *b, const pw_material *mat,
                                       const seed_shape *add, const seed_shape *sub, vec3 x,
                                       double d)
{
    const particle_site at = {mat, b->seed, x, -body_phi(add, b->n_add, sub, b->n_subtract, x)};
    uint32_t label;
    return b->n_layers > 0 ? layered_values(b, &at, d, &label) : values_at(&at, mat);
}

/* The top of the body's column through (x.x, x.z) above height x.y, in *y_top; 0 when
 * that point is outside the body. */
static int column_top(const pw_body_desc *b, const seed_shape *add, const seed_shape *sub,
                      vec3 x, double y_box, double h, double *y_top)
{
    double phi = body_phi(add, b->n_add, sub, b->n_subtract, x);
    if (!(phi < 0)) return 0;
    *y_top = x.y + depth_below_top(add, b->n_add, sub, b->n_subtract, x, phi, y_box, h);
    return 1;
}

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
static pw_status settled_Fe(const pw_body_desc *b, const pw_material *mat, const seed_shape *add,
                            const seed_shape *sub, vec3 x, double d, double y_box, double h,
                            const particle_values *pv, mat3 *Fe, pw_error *err)
{
    vec3 top = v3(x.x, x.y + d, x.z);
    /* the top's slope from the tops of the columns h/4 to either side (one side where the
     * other leaves the body: the gradient of phi would tilt beside a side face) */
    double e = h / 4, slope[2] = {0, 0};
    for (int a = 0; a < 2; a++) {
        vec3 lo = x, hi = x;
        if (a == 0) lo.x -= e, hi.x += e;
        else lo.z -= e, hi.z += e;
        double y_lo, y_hi;
        int in_lo = column_top(b, add, sub, lo, y_box, h, &y_lo);
        int in_hi = column_top(b, add, sub, hi, y_box, h, &y_hi);
        if (in_lo && in_hi) slope[a] = (y_hi - y_lo) / (2 * e);
        else if (in_hi) slope[a] = (y_hi - top.y) / e;
        else if (in_lo) slope[a] = (top.y - y_lo) / e;
    }
    vec3 n = v3_normalize(v3(-slope[0], 1, -slope[1]));
    enum { SAMPLES = 8 };              /* midpoints: exact for the linear blends of layers */
    double column = 0;                 /* [kg/m^2] */
    for (int k = 0; k < SAMPLES; k++) {
        double dk = (k + 0.5) / SAMPLES * d;
        column += values_at_depth(b, mat, add, sub, v3(x.x, top.y - dk, x.z), dk).rho * d / SAMPLES;
    }
    vec3 t = v3_scale(b->gravity, column * n.y);
    double tn = v3_dot(t, n), mu = pv->mu0, lambda = pv->lambda0;
    vec3 shear = v3_madd(t, n, -tn);
    mat3 sigma = m3_add(m3_scale(m3_outer(n, n), tn),
                        m3_add(m3_outer(shear, n), m3_outer(n, shear)));
    double E = mu * (3 * lambda + 2 * mu) / (lambda + mu), nu = lambda / (2 * (lambda + mu));
    mat3 volumetric = m3_scale(m3_identity(), nu * m3_trace(sigma));
    mat3 eps = m3_scale(m3_sub(m3_scale(sigma, 1 + nu), volumetric), 1.0 / E);
    *Fe = m3_add(m3_identity(), eps);
    mat3 U, V;
    vec3 s;
    m3_svd(*Fe, &U, &s, &V);
    double lo = fmin(s.x, fmin(s.y, s.z)), hi = fmax(s.x, fmax(s.y, s.z));
    if (lo < 1 - pv->theta_c || hi > 1 + pv->theta_s)
        return pw_fail(err, PW_EINVAL,
                       "snow body: settled: %.3g m below its top the snow's own weight "
                       "strains it by %.3g, beyond theta_c = %g or theta_s = %g: it would "
                       "compact plastically, which a settled seed does not model (make it "
                       "shallower or stiffer)",
                       d, fmax(1 - lo, hi - 1), pv->theta_c, pv->theta_s);
    return PW_OK;
}

static pw_status check_settled(const pw_body_desc *b, pw_error *err)
{
    if (!b->settled) return PW_OK;
    if (!(b->gravity.y < 0 && b->gravity.x == 0 && b->gravity.z == 0))
        return pw_fail(err, PW_EINVAL, "snow body: settled needs gravity straight down (0, -g, 0): "
                       "depth is measured straight up (gravity is (%g, %g, %g))",
                       b->gravity.x, b->gravity.y, b->gravity.z);
    double w2 = v3_length2(b->velocity) + v3_length2(b->angular_velocity);
    if (w2 > 0)
        return pw_fail(err, PW_EINVAL, "snow body: settled snow lies still: it cannot have a "
                       "velocity or angular_velocity");
    return PW_OK;
}

pw_status pw_layers_check(const pw_body_desc *b, const pw_material *mat, int *layer,
                          const char **key, double *value, char *why, size_t why_size)
{
    *layer = -1;
    if (b->n_layers < 0 || b->n_layers > PW_BODY_MAX_LAYERS) {
        *key = "layers";
        *value = b->n_layers;
        snprintf(why, why_size, "at most %d layers", PW_BODY_MAX_LAYERS);
        return PW_EINVAL;
    }
    for (int k = 0; k < b->n_layers; k++) {
        const pw_layer *L = &b->layers[k];
        *layer = k;
        if (pw_material_check(&L->material, key, value, why, why_size) != PW_OK) return PW_EINVAL;
        if (!(L->thickness > 0) || !isfinite(L->thickness)) {
            *key = "thickness";
            *value = L->thickness;
            snprintf(why, why_size, "must be a finite length > 0 [m]");
            return PW_EINVAL;
        }
        if (!(L->blend >= 0) || !isfinite(L->blend)) {
            *key = "blend";
            *value = L->blend;
            snprintf(why, why_size, "must be a finite length >= 0 [m]");
            return PW_EINVAL;
        }
        /* xi (1 - Jp_min) along the blend is a product of two linear ramps: a parabola,
         * whose peak may lie inside */
        const pw_material *next = k + 1 < b->n_layers ? &b->layers[k + 1].material : mat;
        double xi0 = L->material.xi, dxi = next->xi - xi0;
        double u0 = 1 - L->material.Jp_min, du = (1 - next->Jp_min) - u0;
        if (L->blend > 0 && dxi * du < 0) {
            double s = fmin(fmax(-(xi0 * du + u0 * dxi) / (2 * dxi * du), 0.0), 1.0);
            double peak = (xi0 + s * dxi) * (u0 + s * du);
            if (peak > PW_MAX_HARDENING_EXPONENT) {
                *key = "blend";
                *value = L->blend;
                snprintf(why, why_size, "xi and Jp_min blend into the next material's so "
                         "that the hardening factor e^(xi (1 - Jp_min)) reaches e^%g inside "
                         "the blend (keep it <= %g, or set blend to 0)", peak,
                         PW_MAX_HARDENING_EXPONENT);
                return PW_EINVAL;
            }
        }
    }
    *layer = -1;
    return PW_OK;
}

static pw_status check_layers(const pw_body_desc *b, const pw_material *mat, pw_error *err)
{
    int layer;
    const char *key;
    double value;
    char why[256];
    if (pw_layers_check(b, mat, &layer, &key, &value, why, sizeof why) == PW_OK) return PW_OK;
    if (layer < 0) return pw_fail(err, PW_EINVAL, "snow body: %s = %g: %s", key, value, why);
    return pw_fail(err, PW_EINVAL, "snow body: layers[%d].%s = %g: %s", layer, key, value, why);
}

/* Appends one particle with the given values, label, Fe and rest counter. */
static pw_status append_values(pw_seeded *out, vec3 x, vec3 v, double m,
                               const particle_values *pv, uint32_t label, mat3 Fe, uint32_t rest,
                               pw_error *err)
{
    pw_status rc = seeded_reserve(out, out->n + 1, err);
    if (rc != PW_OK) return rc;
    size_t p = out->n++;
    out->x[p] = x;
    out->v[p] = v;
    out->m[p] = m;
    out->mu0[p] = pv->mu0;
    out->lambda0[p] = pv->lambda0;
    out->xi[p] = pv->xi;
    out->theta_c[p] = pv->theta_c;
    out->theta_s[p] = pv->theta_s;
    out->Jp_min[p] = pv->Jp_min;
    out->Jp_max[p] = pv->Jp_max;
    out->Jp_floor[p] = pv->Jp_floor;
    out->layer[p] = label;
    out->law[p] = pv->law; /* (held by the solver only when out->laws) */
    out->friction_angle[p] = pv->friction_angle;
    out->cohesion[p] = pv->cohesion;
    out->durability_rate[p] = pv->durability_rate;
    out->durability[p] = 1;
    out->rho_rest[p] = 0;
    if (pv->law != PW_LAW_CLAMP) out->laws = 1;
    out->Fe[p] = Fe;
    out->rest[p] = rest;
    out->V0[p] = 0;
    return PW_OK;
}

pw_status pw_seed_body(const pw_body_desc *b, const pw_material *mat, double h, pw_seeded *out,
                       pw_error *err)
{
    pw_status rc = check_body(b, h, err);
    if (rc == PW_OK) rc = check_material(mat, err);
    if (rc == PW_OK) rc = check_layers(b, mat, err);
    if (rc == PW_OK) rc = check_settled(b, err);
    if (rc != PW_OK) return rc;
    seed_shape add[PW_BODY_MAX_SHAPES], sub[PW_BODY_MAX_SHAPES];
    if ((rc = prepare_shapes(b->add, b->n_add, h, add, err)) != PW_OK) return rc;
    if ((rc = prepare_shapes(b->subtract, b->n_subtract, h, sub, err)) != PW_OK) {
        free_shapes(add, b->n_add);
        return rc;
    }

    /* 1. the cells overlapping the union of the add shapes */
    vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < b->n_add; i++) {
        vec3 l, u;
        shape_bounds(&add[i], &l, &u);
        lo = v3_min(lo, l);
        hi = v3_max(hi, u);
    }
    int64_t c0[3], c1[3];
    double candidates = round(b->particles_per_cell);
    for (int a = 0; a < 3; a++) {
        c0[a] = (int64_t)floor(v3_get(lo, a) / h);
        c1[a] = (int64_t)ceil(v3_get(hi, a) / h); /* exclusive */
        candidates *= (double)(c1[a] - c0[a]);
    }
    if (!(candidates < SEED_MAX_CANDIDATES)) {
        rc = pw_fail(err, PW_ENOMEM, "snow body: %.3g candidate points at h = %g m is beyond the "
                     "limit of %.3g", candidates, h, SEED_MAX_CANDIDATES);
        goto done;
    }

    /* 2. jittered points, kept inside the body, in cell order */
    int nppc = (int)round(b->particles_per_cell);
    size_t first = out->n;
    for (int64_t k = c0[2]; k < c1[2]; k++)
        for (int64_t j = c0[1]; j < c1[1]; j++)
            for (int64_t i = c0[0]; i < c1[0]; i++)
                for (int q = 0; q < nppc; q++) {
                    uint64_t r = hash5(b->seed, i, j, k, (uint64_t)q);
                    vec3 x = v3((i + unit_double(mix64(r ^ 1))) * h, (j + unit_double(mix64(r ^ 2))) * h,
                                (k + unit_double(mix64(r ^ 3))) * h);
                    double phi = body_phi(add, b->n_add, sub, b->n_subtract, x);
                    if (!(phi < 0)) continue;
                    /* 3. per-particle material (section 10), by layer; the velocity
                     * below */
                    const particle_site at = {mat, b->seed, x, -phi};
                    uint32_t label = 0;
                    double depth = b->n_layers > 0 || b->settled
                                       ? depth_below_top(add, b->n_add, sub, b->n_subtract, x,
                                                         phi, hi.y, h)
                                       : 0;
                    particle_values pv = b->n_layers > 0 ? layered_values(b, &at, depth, &label)
                                                         : values_at(&at, mat);
                    mat3 Fe = m3_identity();
                    if (b->settled &&
                        (rc = settled_Fe(b, mat, add, sub, x, depth, hi.y, h, &pv, &Fe, err)) !=
                            PW_OK) {
                        out->n = first;
                        goto done;
                    }
                    if ((rc = append_values(out, x, v3_zero(), pv.rho * h * h * h / nppc, &pv,
                                            label, Fe, b->settled ? PW_REST_SEEDED : 0, err)) !=
                        PW_OK) {
                        out->n = first;
                        goto done;
                    }
                    /* a settled particle's rest volume is known: its share of the cell, as
                     * compressed by Fe. The paper's estimate from the grid's density (step 2)
                     * is too large where the kernel smears the density across a face, and
                     * there the seeded stress would not balance its weight: the snow woken
                     * there moves and stays awake (sim/docs/settled-seed.md) */
                    if (b->settled) out->V0[out->n - 1] = h * h * h / nppc / m3_det(Fe);
                }

    if (b->n_layers > 0) out->layered = 1;

    /* 4. rigid initial velocity about the body's centre of mass */
    double M = 0;
    vec3 mx = v3_zero();
    for (size_t p = first; p < out->n; p++) {
        M += out->m[p];
        mx = v3_madd(mx, out->x[p], out->m[p]);
    }
    vec3 centroid = M > 0 ? v3_scale(mx, 1.0 / M) : v3_zero();
    for (size_t p = first; p < out->n; p++)
        out->v[p] = v3_add(b->velocity, v3_cross(b->angular_velocity, v3_sub(out->x[p], centroid)));
done:
    free_shapes(add, b->n_add);
    free_shapes(sub, b->n_subtract);
    return rc;
}

pw_status pw_seeded_append(pw_seeded *out, vec3 x, vec3 v, double m, double E, double rho,
                           const pw_material *mat, pw_error *err)
{
    particle_values pv = values_of(mat, E, rho);
    return append_values(out, x, v, m, &pv, 0, m3_identity(), 0, err);
}

void pw_seeded_free(pw_seeded *s)
{
    if (!s) return;
    for (int f = 0; f < pw_particle_field_count; f++) {
        void **a = pw_seeded_array(s, &pw_particle_fields[f]);
        if (a) free(*a);
    }
    memset(s, 0, sizeof *s);
}
