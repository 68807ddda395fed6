/* seed_fields.c — the fields over a snow body that seeding reads (seed.h): its signed
 * distance (shapes, OBJ meshes and text), the depth below its top, the layered material
 * by that depth (layered-snow.md) and the stress of snow settled under its own weight
 * (settled-seed.md), with the checks of the layers and of a settled body. */
#include <stdio.h>

#include "seed_internal.h"

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

double pw_seed_body_phi(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub, vec3 x)
{
    double phi = INFINITY;
    for (int a = 0; a < n_add; a++) phi = fmin(phi, shape_phi(&add[a], x));
    for (int s = 0; s < n_sub; s++) phi = fmax(phi, -shape_phi(&sub[s], x));
    return phi;
}

double pw_seed_depth_below_top(const seed_shape *add, int n_add, const seed_shape *sub, int n_sub,
                               vec3 x, double phi, double y_top, double h)
{
    double inside = x.y, step_min = h / 8;
    vec3 p = x;
    while (phi < 0) {
        inside = p.y;
        p.y += fmax(-phi, step_min);
        if (p.y > y_top) {
            p.y = y_top;
            phi = pw_seed_body_phi(add, n_add, sub, n_sub, p);
            if (phi < 0) return y_top - x.y; /* (the box's top is outside every shape) */
            break;
        }
        phi = pw_seed_body_phi(add, n_add, sub, n_sub, p);
    }
    double outside = p.y;
    while (outside - inside > 1e-4 * h) {
        p.y = 0.5 * (inside + outside);
        if (pw_seed_body_phi(add, n_add, sub, n_sub, p) < 0) inside = p.y;
        else outside = p.y;
    }
    return 0.5 * (inside + outside) - x.y;
}

/* ---- layers -------------------------------------------------------------------- */

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

particle_values pw_seed_layered_values(const pw_body_desc *b, const particle_site *at, double d,
                                       uint32_t *label)
{
    double z = 0; /* top of layer k */
    for (int k = 0; k < b->n_layers; k++) {
        const pw_layer *L = &b->layers[k];
        if (d < z + L->thickness + L->blend) {
            particle_values v = pw_seed_values_at(at, &L->material);
            double s = L->blend > 0 ? (d - z - L->thickness) / L->blend : 0;
            *label = (uint32_t)k + 1;
            if (s <= 0) return v;
            const pw_material *next = k + 1 < b->n_layers ? &b->layers[k + 1].material : at->body;
            if (s >= 0.5) *label = k + 1 < b->n_layers ? (uint32_t)k + 2 : 0;
            return values_lerp(v, pw_seed_values_at(at, next), s);
        }
        z += L->thickness + L->blend;
    }
    *label = 0;
    return pw_seed_values_at(at, at->body);
}

/* ---- settled snow ------------------------------------------------------------- */

/* The values body b gives a particle at x, depth d below its top (layers, shell, noise). */
static particle_values values_at_depth(const pw_body_desc *b, const pw_material *mat,
                                       const seed_shape *add, const seed_shape *sub, vec3 x,
                                       double d)
{
    const particle_site at = {mat, b->seed, x,
                              -pw_seed_body_phi(add, b->n_add, sub, b->n_subtract, x)};
    uint32_t label;
    return b->n_layers > 0 ? pw_seed_layered_values(b, &at, d, &label)
                           : pw_seed_values_at(&at, mat);
}

/* The top of the body's column through (x.x, x.z) above height x.y, in *y_top; 0 when
 * that point is outside the body. */
static int column_top(const pw_body_desc *b, const seed_shape *add, const seed_shape *sub,
                      vec3 x, double y_box, double h, double *y_top)
{
    double phi = pw_seed_body_phi(add, b->n_add, sub, b->n_subtract, x);
    if (!(phi < 0)) return 0;
    *y_top = x.y + pw_seed_depth_below_top(add, b->n_add, sub, b->n_subtract, x, phi, y_box, h);
    return 1;
}

pw_status pw_seed_settled_Fe(const pw_body_desc *b, const pw_material *mat, const seed_shape *add,
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

pw_status pw_seed_check_settled(const pw_body_desc *b, pw_error *err)
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

pw_status pw_seed_check_layers(const pw_body_desc *b, const pw_material *mat, pw_error *err)
{
    int layer;
    const char *key;
    double value;
    char why[256];
    if (pw_layers_check(b, mat, &layer, &key, &value, why, sizeof why) == PW_OK) return PW_OK;
    if (layer < 0) return pw_fail(err, PW_EINVAL, "snow body: %s = %g: %s", key, value, why);
    return pw_fail(err, PW_EINVAL, "snow body: layers[%d].%s = %g: %s", layer, key, value, why);
}
