/* collide.c — level-set collision objects of Stomakhin et al. 2013, section 8. */
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "mesh_deform.h"
#include "mesh_sdf.h"

typedef struct {
    pw_collider_desc d;
    pw_mesh_sdf *sdf;   /* owned; a rigid closed mesh's distance grid */
    pw_mesh_deform *deform; /* owned; an OBJ sequence or a shell (mesh_deform.h) */
    pw_shape_pose pose; /* at pose_t (pw_colliders_pose_at) */
} collider;

struct pw_colliders {
    double h; /* [m] simulation grid spacing */
    int n, cap;
    collider *c;
    int posed;     /* the colliders' poses hold for time pose_t */
    double pose_t; /* [s] */
};

/* A mesh collider's grid extends this many simulation cells past the mesh, so particles
 * approaching it see an accurate distance before they touch it. */
#define MESH_MARGIN_CELLS 3

/* ---- helpers ----------------------------------------------------------------- */

/* Past this many cells from a deforming mesh's bounds a query may answer with a lower
 * bound of the distance (mesh_deform.h): farther than any caller compares. */
#define DEFORM_EXACT_CELLS 32

/* signed distance [m] and world unit normal of one collider at x, time t; the pose comes
 * from pw_colliders_pose_at when it was formed for t (same bits as forming it here). For
 * a deforming mesh, *v_surface (may be NULL) is the world velocity of its surface at
 * the nearest point, relative to its rigid motion; `beyond` as in pw_mesh_deform_phi. */
static double collider_phi_v(const pw_colliders *cs, const collider *c, double t, const vec3 *x,
                             vec3 *n, vec3 *v_surface, double beyond)
{
    pw_shape_pose here;
    const pw_shape_pose *pose = &c->pose;
    if (!(cs->posed && cs->pose_t == t)) {
        pw_shape_pose_at(&c->d.shape, t, &here);
        pose = &here;
    }
    if (v_surface) *v_surface = v3_zero();
    if (!c->sdf && !c->deform) return pw_shape_sdf_posed(&c->d.shape, pose, x, n);
    vec3 p = pw_shape_pose_to_body(pose, *x);
    vec3 g, u;
    double phi = c->sdf ? pw_mesh_sdf_phi(c->sdf, p, n ? &g : NULL)
                        : pw_mesh_deform_phi(c->deform, p, beyond, &g, v_surface ? &u : NULL);
    if (n) *n = m3_mulv(pose->world_from_body, g);
    if (v_surface && c->deform) *v_surface = m3_mulv(pose->world_from_body, u);
    return phi;
}

static double collider_phi(const pw_colliders *cs, const collider *c, double t, const vec3 *x,
                           vec3 *n)
{
    return collider_phi_v(cs, c, t, x, n, NULL, DEFORM_EXACT_CELLS * cs->h);
}

/* ---- public ------------------------------------------------------------------ */

pw_colliders *pw_colliders_create(double h, pw_error *err)
{
    if (!(h > 0) || !isfinite(h)) {
        pw_fail(err, PW_EINVAL, "colliders: grid spacing must be positive (%g m)", h);
        return NULL;
    }
    pw_colliders *c = calloc(1, sizeof *c);
    if (!c) {
        pw_fail(err, PW_ENOMEM, "colliders: out of memory");
        return NULL;
    }
    c->h = h;
    return c;
}

void pw_colliders_destroy(pw_colliders *c)
{
    if (!c) return;
    for (int i = 0; i < c->n; i++) {
        pw_mesh_sdf_destroy(c->c[i].sdf);
        pw_mesh_deform_destroy(c->c[i].deform);
    }
    free(c->c);
    free(c);
}

pw_status pw_colliders_add(pw_colliders *c, const pw_collider_desc *desc, pw_error *err)
{
    int idx = c->n;
    c->posed = 0; /* the new collider has no pose yet */
    if (!(desc->friction >= 0) || !isfinite(desc->friction))
        return pw_fail(err, PW_EINVAL, "collider %d: friction must be >= 0 (%g)", idx,
                       desc->friction);
    const pw_shape *s = &desc->shape;
    switch (s->kind) {
    case PW_SHAPE_HALFSPACE:
        if (!(v3_length(s->normal) > 0) || !v3_isfinite(s->normal))
            return pw_fail(err, PW_EINVAL, "collider %d: half-space normal is zero", idx);
        break;
    case PW_SHAPE_SPHERE:
    case PW_SHAPE_CYLINDER:
        if (!(s->radius > 0) || (s->kind == PW_SHAPE_CYLINDER && !(s->half_height > 0)))
            return pw_fail(err, PW_EINVAL, "collider %d: radius/half height must be positive "
                           "(%g, %g m)", idx, s->radius, s->half_height);
        break;
    case PW_SHAPE_BOX:
        if (!(s->half_extents.x > 0 && s->half_extents.y > 0 && s->half_extents.z > 0))
            return pw_fail(err, PW_EINVAL, "collider %d: box half extents must be positive "
                           "(%g, %g, %g m)", idx, s->half_extents.x, s->half_extents.y,
                           s->half_extents.z);
        break;
    case PW_SHAPE_MESH:
        if (!(s->thickness >= 0) || !isfinite(s->thickness))
            return pw_fail(err, PW_EINVAL, "collider %d: mesh thickness must be >= 0 (%g m)", idx,
                           s->thickness);
        break;
    case PW_SHAPE_TEXT:
        if (!(s->text_height > 0 && s->text_depth > 0) ||
            !isfinite(s->text_height * s->text_depth))
            return pw_fail(err, PW_EINVAL, "collider %d: text height and depth must be positive "
                           "(%g, %g m)", idx, s->text_height, s->text_depth);
        break;
    default: return pw_fail(err, PW_EINVAL, "collider %d: unknown shape kind (%d)", idx, s->kind);
    }
    if (s->n_keys < 0 || s->n_keys > PW_SHAPE_MAX_KEYS)
        return pw_fail(err, PW_EINVAL, "collider %d: keyframe count out of range (%d)", idx,
                       s->n_keys);
    for (int k = 1; k < s->n_keys; k++)
        if (!(s->keys[k].t >= s->keys[k - 1].t))
            return pw_fail(err, PW_EINVAL, "collider %d: keyframe %d time %g s before the "
                           "previous one", idx, k, s->keys[k].t);

    collider nc = {.d = *desc, .sdf = NULL, .deform = NULL};
    if (pw_shape_is_sequence(s) || (s->kind == PW_SHAPE_MESH && s->thickness > 0)) {
        pw_status rc = pw_mesh_deform_create(s, &nc.deform, err);
        if (rc != PW_OK) {
            pw_error_prefix(err, "collider %d", idx);
            return rc;
        }
    } else if (pw_shape_is_mesh(s)) {
        pw_status rc = pw_mesh_sdf_of_shape(s, 0.5 * c->h, MESH_MARGIN_CELLS * c->h, &nc.sdf, err);
        if (rc != PW_OK) return rc;
    }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 4;
        collider *grown = realloc(c->c, (size_t)cap * sizeof *grown);
        if (!grown) {
            pw_mesh_sdf_destroy(nc.sdf);
            pw_mesh_deform_destroy(nc.deform);
            return pw_fail(err, PW_ENOMEM, "collider %d: out of memory", idx);
        }
        c->c = grown;
        c->cap = cap;
    }
    c->c[c->n++] = nc;
    return PW_OK;
}

int pw_colliders_count(const pw_colliders *c) { return c->n; }

void pw_colliders_pose_at(pw_colliders *c, double t)
{
    if (c->posed && c->pose_t == t) return; /* (grid and particle collisions share t) */
    for (int i = 0; i < c->n; i++) {
        pw_shape_pose_at(&c->c[i].d.shape, t, &c->c[i].pose);
        /* a refit allocates nothing, so after pw_mesh_deform_create this cannot fail */
        if (c->c[i].deform) pw_mesh_deform_at(c->c[i].deform, t, NULL);
    }
    c->posed = 1;
    c->pose_t = t;
}

double pw_colliders_phi(const pw_colliders *c, double t, vec3 x)
{
    double phi = INFINITY;
    for (int i = 0; i < c->n; i++) phi = fmin(phi, collider_phi(c, &c->c[i], t, &x, NULL));
    return phi;
}

double pw_colliders_moving_phi(const pw_colliders *c, double t, vec3 x, double *speed)
{
    double phi = INFINITY;
    *speed = 0;
    for (int i = 0; i < c->n; i++) {
        const collider *co = &c->c[i];
        if (co->d.shape.n_keys == 0 && !co->deform) continue;
        vec3 v_surface;
        double d = collider_phi_v(c, co, t, &x, NULL, &v_surface, DEFORM_EXACT_CELLS * c->h);
        double u = v3_length(v3_add(pw_shape_velocity(&co->d.shape, t, x), v_surface));
        if (!(u > 0)) continue;
        if (d < phi) {
            phi = d;
            *speed = u;
        }
    }
    return phi;
}

/* Nodes inside a collider whose material already separates keep their degrees of
 * freedom in the solve, as in section 8 ("no collision is applied"). */
pw_contact pw_colliders_apply(const pw_colliders *c, double t, vec3 x, vec3 *v, vec3 *normal)
{
    pw_contact kind = PW_CONTACT_NONE;
    vec3 kept = v3_zero();
    for (int i = 0; i < c->n; i++) {
        const collider *co = &c->c[i];
        vec3 n, v_surface;
        if (!(collider_phi_v(c, co, t, &x, &n, &v_surface, 0) <= 0)) continue;
        pw_contact k;
        vec3 v_co = v3_add(pw_shape_velocity(&co->d.shape, t, x), v_surface);
        *v = pw_collide_velocity(*v, v_co, n, co->d.friction, co->d.sticky, &k);
        if (k == PW_CONTACT_NORMAL && kind == PW_CONTACT_NORMAL && v3_dot(n, kept) < 1 - 1e-12)
            k = PW_CONTACT_ALL; /* two planes constrain more than one normal can say */
        if (k > kind) kind = k;
        if (k == PW_CONTACT_NORMAL) kept = n;
    }
    if (normal) *normal = kept;
    return kind;
}

vec3 pw_collide_velocity(vec3 v, vec3 v_co, vec3 n, double mu, int sticky, pw_contact *kind)
{
    pw_contact k = PW_CONTACT_ALL;
    vec3 r = v_co; /* v_rel := 0 */
    vec3 v_rel = v3_sub(v, v_co);
    double v_n = v3_dot(v_rel, n);
    if (!sticky) {
        vec3 v_t = v3_madd(v_rel, n, -v_n);
        double vt_len = v3_length(v_t);
        if (v_n >= 0) { /* separating: no collision */
            k = PW_CONTACT_NONE;
            r = v;
        } else if (vt_len <= -mu * v_n) {
            /* sticking: v_rel' = 0; with mu = 0 only v_t = 0 gets here, and nothing
             * holds that node tangentially */
            if (mu == 0) k = PW_CONTACT_NORMAL;
        } else { /* dynamic friction: v_rel' = v_t + mu v_n v_t / |v_t| (v_n < 0 shortens v_t) */
            k = PW_CONTACT_NORMAL;
            r = v3_add(v3_madd(v_t, v_t, mu * v_n / vt_len), v_co);
        }
    }
    if (kind) *kind = k;
    return r;
}
