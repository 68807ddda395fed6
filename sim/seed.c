/* seed.c — filling snow bodies with particles (seed.h): where the particles go.
 *
 * Every grid cell (spacing h) overlapping the body's bounding box gets round(ppc)
 * jittered points whose offsets come from a counter-based hash of (seed, cell, k), so
 * a particle's position never depends on loop order or thread count. Points inside the
 * union of `add` and outside the union of `subtract` are kept. Each kept point takes its
 * parameters from the fields over the body (seed_fields.c: the depth below its top, the
 * layers by that depth, as section 10's walking character's stiffer, crunchier top
 * layer, and the stress of settled snow) and from what its material gives it
 * (seed_material.c: Stomakhin et al. 2013, section 10, a harder, denser outer shell and
 * multiplicative noise on E). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"
#include "seed_internal.h"

/* A body is refused when its bounding box holds more candidate points than this. */
#define SEED_MAX_CANDIDATES 2000000000.0
#define SEED_PI 3.14159265358979323846

/* ---- shapes -------------------------------------------------------------------- */

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
    if (rc == PW_OK) rc = pw_seed_check_layers(b, mat, err);
    if (rc == PW_OK) rc = pw_seed_check_settled(b, err);
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
                    double phi = pw_seed_body_phi(add, b->n_add, sub, b->n_subtract, x);
                    if (!(phi < 0)) continue;
                    /* 3. per-particle material (section 10), by layer; the velocity
                     * below */
                    const particle_site at = {mat, b->seed, x, -phi};
                    uint32_t label = 0;
                    double depth = b->n_layers > 0 || b->settled
                                       ? pw_seed_depth_below_top(add, b->n_add, sub, b->n_subtract,
                                                                 x, phi, hi.y, h)
                                       : 0;
                    particle_values pv = b->n_layers > 0
                                             ? pw_seed_layered_values(b, &at, depth, &label)
                                             : pw_seed_values_at(&at, mat);
                    mat3 Fe = m3_identity();
                    if (b->settled && (rc = pw_seed_settled_Fe(b, mat, add, sub, x, depth, hi.y, h,
                                                               &pv, &Fe, err)) != PW_OK) {
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
    particle_values pv = pw_seed_values_of(mat, E, rho);
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
