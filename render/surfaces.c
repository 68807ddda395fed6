/* surfaces.c — opaque surfaces through Embree 3; see surfaces.h.
 *
 * Lifecycle, in the order of Embree's minimal tutorial: device -> error callback (into
 * pw_surfaces.device_err through the user pointer) -> scene -> one geometry per
 * surface, attached under the surface's index as geomID -> commit -> intersect/occlude
 * with an RTCIntersectContext.
 *
 * Placement of a shape point q given in the shape's own frame (centred, unrotated):
 *     local = center + R_s q            (R_s = rotation_axis/rotation_angle)
 *     world = R(t) local + T(t)         (pw_shape_motion)
 * so world = (R R_s) q + (R center + T): one rigid transform per surface.
 *
 * Spheres and cylinders are Embree user geometries intersected analytically, and the
 * hit Embree reports is re-solved in double precision from the caller's double ray,
 * so their distances are exact up to rounding. Boxes, finite ground quads and meshes
 * are triangles (exact for the planar ones). Infinite planes cannot live in a BVH;
 * they are intersected here, outside Embree, and the nearer of both hits wins. */
#include "surfaces.h"

#include <embree3/rtcore.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "pw_obj.h"

/* ---- types ---------------------------------------------------------------- */

/* A sphere or cylinder in its own frame, and the rigid map into the world. */
typedef struct {
    pw_shape_kind kind;
    mat3 world_from_shape; /* rotation R R_s */
    vec3 origin;           /* [m] world position of the shape's centre */
    double radius;         /* [m] */
    double half_height;    /* [m] cylinder, along the shape's +Y */
} analytic_prim;

typedef struct {
    vec3 p0;    /* [m] a point on the plane */
    vec3 n;     /* unit normal */
    vec3 color;
    pw_surface_role role;
} infinite_plane;

struct pw_surfaces {
    RTCDevice device;
    RTCScene scene;
    pw_error device_err;     /* written by the Embree error callback */
    int n;                   /* surfaces described */
    vec3 *color;             /* [n] albedo by surface index (= geomID) */
    pw_surface_role *role;   /* [n] by surface index */
    analytic_prim *prims;    /* [n] valid where kind is sphere or cylinder */
    infinite_plane *planes;  /* [n_planes] */
    int n_planes;
    int n_finite;            /* surfaces that live in the Embree scene */
    vec3 lo, hi;             /* [m] bounds of the finite surfaces */
    double box_lo[3], box_hi[3]; /* the same padded beyond Embree's float rounding */
};

/* ---- analytic intersection (double) ------------------------------------- */

/* Smallest root t of a t^2 + 2 b t + c = 0 in (tmin, tmax), or 0 when none.
 * Written with the half-b form and q = -(b + sign(b) sqrt(disc)) to avoid the
 * cancellation of the textbook formula. */
static int smallest_root(double a, double b, double c, double tmin, double tmax, double *t)
{
    double disc = b * b - a * c;
    if (!(disc >= 0) || a <= 0) return 0;
    double q = -(b + copysign(sqrt(disc), b));
    double t0 = q / a, t1 = q != 0 ? c / q : t0;
    if (t0 > t1) { double s = t0; t0 = t1; t1 = s; }
    if (t0 > tmin && t0 < tmax) { *t = t0; return 1; }
    if (t1 > tmin && t1 < tmax) { *t = t1; return 1; }
    return 0;
}

/* Ray against a prim in the prim's frame; on a hit returns 1 with t and the outward
 * normal in world space. */
static int prim_hit(const analytic_prim *pr, vec3 org, vec3 dir, double tmin, double tmax,
                    double *t_hit, vec3 *n_world)
{
    mat3 shape_from_world = m3_transpose(pr->world_from_shape);
    vec3 o = m3_mulv(shape_from_world, v3_sub(org, pr->origin));
    vec3 d = m3_mulv(shape_from_world, dir);
    double r = pr->radius, best = tmax;
    vec3 n = v3_zero();
    int hit = 0;
    if (pr->kind == PW_SHAPE_SPHERE) {
        /* Re-centre the quadratic on the point of closest approach: c from
         * |o - (o.d/d.d) d|^2 keeps precision for far, small spheres. */
        double a = v3_dot(d, d), b = v3_dot(o, d);
        vec3 perp = v3_madd(o, d, -b / a);
        double c = v3_dot(o, o) - r * r;
        double disc = r * r - v3_dot(perp, perp);
        if (disc < 0) return 0;
        double q = -(b + copysign(sqrt(a * disc), b));
        double t0 = q / a, t1 = q != 0 ? c / q : t0;
        if (t0 > t1) { double s = t0; t0 = t1; t1 = s; }
        if (t0 > tmin && t0 < best) { best = t0; hit = 1; }
        else if (t1 > tmin && t1 < best) { best = t1; hit = 1; }
        if (hit) n = v3_scale(v3_madd(o, d, best), 1.0 / r);
    } else {
        double h = pr->half_height, t;
        /* lateral surface x^2 + z^2 = r^2, |y| <= h: try both roots */
        double a = d.x * d.x + d.z * d.z, b = o.x * d.x + o.z * d.z;
        double c = o.x * o.x + o.z * o.z - r * r;
        double lo = tmin;
        for (int k = 0; k < 2 && smallest_root(a, b, c, lo, best, &t); k++) {
            double y = o.y + t * d.y;
            if (fabs(y) <= h) {
                best = t;
                hit = 1;
                n = v3((o.x + t * d.x) / r, 0, (o.z + t * d.z) / r);
                break;
            }
            lo = t;
        }
        /* caps y = +-h, x^2 + z^2 <= r^2 */
        for (int s = -1; s <= 1 && d.y != 0; s += 2) {
            t = (s * h - o.y) / d.y;
            if (!(t > tmin && t < best)) continue;
            double x = o.x + t * d.x, z = o.z + t * d.z;
            if (x * x + z * z <= r * r) {
                best = t;
                hit = 1;
                n = v3(0, s, 0);
            }
        }
    }
    if (!hit) return 0;
    *t_hit = best;
    *n_world = m3_mulv(pr->world_from_shape, n);
    return 1;
}

/* ---- Embree callbacks ---------------------------------------------------- */

static void device_error(void *user, enum RTCError code, const char *str)
{
    pw_error *e = user;
    /* Keep the first error: later ones are usually consequences of it. */
    if (e->code == PW_OK)
        pw_fail(e, code == RTC_ERROR_OUT_OF_MEMORY ? PW_ENOMEM : PW_EUNSUPPORTED,
                "embree: %s (error %d)", str ? str : "unknown error", (int)code);
}

/* Half sizes [m] of the world-axis box around a prim's centre; exact for a rotated
 * cylinder: per axis k, h |a_k| + r sqrt(1 - a_k^2) with a the unit axis. */
static vec3 prim_extent(const analytic_prim *pr)
{
    if (pr->kind == PW_SHAPE_SPHERE) return v3(pr->radius, pr->radius, pr->radius);
    vec3 a = v3(pr->world_from_shape.m[0][1], pr->world_from_shape.m[1][1],
                pr->world_from_shape.m[2][1]);
    double h = pr->half_height, r = pr->radius;
    return v3(h * fabs(a.x) + r * sqrt(fmax(0, 1 - a.x * a.x)),
              h * fabs(a.y) + r * sqrt(fmax(0, 1 - a.y * a.y)),
              h * fabs(a.z) + r * sqrt(fmax(0, 1 - a.z * a.z)));
}

static void prim_bounds(const struct RTCBoundsFunctionArguments *args)
{
    const analytic_prim *pr = args->geometryUserPtr;
    vec3 ext = prim_extent(pr);
    /* Pad by a float ulp or so: the box must contain the float-rounded surface. */
    ext = v3_scale(ext, 1 + 1e-6);
    struct RTCBounds *b = args->bounds_o;
    b->lower_x = (float)(pr->origin.x - ext.x) - 1e-6f;
    b->lower_y = (float)(pr->origin.y - ext.y) - 1e-6f;
    b->lower_z = (float)(pr->origin.z - ext.z) - 1e-6f;
    b->upper_x = (float)(pr->origin.x + ext.x) + 1e-6f;
    b->upper_y = (float)(pr->origin.y + ext.y) + 1e-6f;
    b->upper_z = (float)(pr->origin.z + ext.z) + 1e-6f;
}

/* Ray N-packets are structure-of-arrays: field k of ray i is float k*N + i
 * (rtcore_ray.h); the hit follows the 12 ray fields. */
static void prim_intersect(const struct RTCIntersectFunctionNArguments *args)
{
    const analytic_prim *pr = args->geometryUserPtr;
    unsigned N = args->N;
    float *ray = (float *)args->rayhit;
    float *hitf = ray + 12 * N;
    unsigned *hitu = (unsigned *)hitf;
    for (unsigned i = 0; i < N; i++) {
        if (args->valid[i] != -1) continue;
        vec3 org = v3(ray[0 * N + i], ray[1 * N + i], ray[2 * N + i]);
        vec3 dir = v3(ray[4 * N + i], ray[5 * N + i], ray[6 * N + i]);
        double t, tnear = ray[3 * N + i], tfar = ray[8 * N + i];
        vec3 n;
        if (!prim_hit(pr, org, dir, tnear, tfar, &t, &n)) continue;
        ray[8 * N + i] = (float)t;
        hitf[0 * N + i] = (float)n.x;
        hitf[1 * N + i] = (float)n.y;
        hitf[2 * N + i] = (float)n.z;
        hitf[3 * N + i] = 0;
        hitf[4 * N + i] = 0;
        hitu[5 * N + i] = args->primID;
        hitu[6 * N + i] = args->geomID;
        hitu[7 * N + i] = args->context->instID[0];
    }
}

static void prim_occluded(const struct RTCOccludedFunctionNArguments *args)
{
    const analytic_prim *pr = args->geometryUserPtr;
    unsigned N = args->N;
    float *ray = (float *)args->ray;
    for (unsigned i = 0; i < N; i++) {
        if (args->valid[i] != -1) continue;
        vec3 org = v3(ray[0 * N + i], ray[1 * N + i], ray[2 * N + i]);
        vec3 dir = v3(ray[4 * N + i], ray[5 * N + i], ray[6 * N + i]);
        double t;
        vec3 n;
        if (prim_hit(pr, org, dir, ray[3 * N + i], ray[8 * N + i], &t, &n))
            ray[8 * N + i] = -INFINITY; /* Embree's convention for "occluded" */
    }
}

/* ---- building ------------------------------------------------------------ */

static void grow_bounds(pw_surfaces *s, vec3 p)
{
    s->lo = v3_min(s->lo, p);
    s->hi = v3_max(s->hi, p);
}

/* Attaches a triangle geometry of nv world-space vertices and nt triangles. */
static pw_status add_triangles(pw_surfaces *s, int id, const vec3 *v, size_t nv,
                               const uint32_t *tri, size_t nt, pw_error *err)
{
    if (nv > 0x7fffffff || nt > 0x7fffffff)
        return pw_fail(err, PW_ENOMEM, "surface %d: mesh too large (%zu triangles)", id, nt);
    RTCGeometry g = rtcNewGeometry(s->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (!g) return pw_fail(err, PW_ENOMEM, "surface %d: %s", id, s->device_err.msg);
    float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                        3 * sizeof(float), nv);
    unsigned *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                           3 * sizeof(unsigned), nt);
    if (!vb || !ib) {
        rtcReleaseGeometry(g);
        return pw_fail(err, PW_ENOMEM, "surface %d: cannot allocate buffers (%zu vertices)",
                       id, nv);
    }
    for (size_t k = 0; k < nv; k++) {
        vb[3 * k + 0] = (float)v[k].x;
        vb[3 * k + 1] = (float)v[k].y;
        vb[3 * k + 2] = (float)v[k].z;
        grow_bounds(s, v[k]);
    }
    for (size_t k = 0; k < 3 * nt; k++) ib[k] = tri[k];
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(s->scene, g, (unsigned)id);
    rtcReleaseGeometry(g); /* the scene holds the reference now */
    s->n_finite++;
    return PW_OK;
}

static pw_status add_analytic(pw_surfaces *s, int id, pw_error *err)
{
    RTCGeometry g = rtcNewGeometry(s->device, RTC_GEOMETRY_TYPE_USER);
    if (!g) return pw_fail(err, PW_ENOMEM, "surface %d: %s", id, s->device_err.msg);
    rtcSetGeometryUserPrimitiveCount(g, 1);
    rtcSetGeometryUserData(g, &s->prims[id]); /* s->prims outlives the scene */
    rtcSetGeometryBoundsFunction(g, prim_bounds, NULL);
    rtcSetGeometryIntersectFunction(g, prim_intersect);
    rtcSetGeometryOccludedFunction(g, prim_occluded);
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(s->scene, g, (unsigned)id);
    rtcReleaseGeometry(g);
    s->n_finite++;
    const analytic_prim *pr = &s->prims[id];
    grow_bounds(s, v3_sub(pr->origin, prim_extent(pr)));
    grow_bounds(s, v3_add(pr->origin, prim_extent(pr)));
    return PW_OK;
}

static pw_status check_desc(const pw_surface_desc *d, int id, pw_error *err)
{
    const pw_shape *sh = &d->shape;
    vec3 c = d->color;
    if (!(c.x >= 0 && c.x <= 1 && c.y >= 0 && c.y <= 1 && c.z >= 0 && c.z <= 1))
        return pw_fail(err, PW_EINVAL, "surface %d: color outside [0, 1] (%g %g %g)", id, c.x,
                       c.y, c.z);
    if (!(d->role >= PW_SURFACE_OPAQUE && d->role <= PW_SURFACE_SHADOW_CATCHER))
        return pw_fail(err, PW_EINVAL, "surface %d: unknown role %d", id, (int)d->role);
    if (!v3_isfinite(sh->center))
        return pw_fail(err, PW_EINVAL, "surface %d: center not finite", id);
    switch (sh->kind) {
    case PW_SHAPE_HALFSPACE:
        if (!(v3_length(sh->normal) > 0) || !v3_isfinite(sh->normal))
            return pw_fail(err, PW_EINVAL, "surface %d: half-space normal is zero or not finite",
                           id);
        if (!(d->size >= 0) || !isfinite(d->size))
            return pw_fail(err, PW_EINVAL, "surface %d: size must be >= 0 (%g)", id, d->size);
        return PW_OK;
    case PW_SHAPE_SPHERE:
        if (!(sh->radius > 0) || !isfinite(sh->radius))
            return pw_fail(err, PW_EINVAL, "surface %d: sphere radius must be > 0 (%g)", id,
                           sh->radius);
        return PW_OK;
    case PW_SHAPE_CYLINDER:
        if (!(sh->radius > 0 && sh->half_height > 0) || !isfinite(sh->radius) ||
            !isfinite(sh->half_height))
            return pw_fail(err, PW_EINVAL,
                           "surface %d: cylinder radius and half height must be > 0 (%g, %g)",
                           id, sh->radius, sh->half_height);
        return PW_OK;
    case PW_SHAPE_BOX: {
        vec3 h = sh->half_extents;
        if (!(h.x > 0 && h.y > 0 && h.z > 0) || !v3_isfinite(h))
            return pw_fail(err, PW_EINVAL, "surface %d: box half extents must be > 0 (%g %g %g)",
                           id, h.x, h.y, h.z);
        return PW_OK;
    }
    case PW_SHAPE_MESH:
        if (!(sh->scale > 0) || !isfinite(sh->scale))
            return pw_fail(err, PW_EINVAL, "surface %d: mesh scale must be > 0 (%g)", id,
                           sh->scale);
        return PW_OK;
    case PW_SHAPE_TEXT:
        if (!(sh->text_height > 0 && sh->text_depth > 0) ||
            !isfinite(sh->text_height * sh->text_depth))
            return pw_fail(err, PW_EINVAL, "surface %d: text height and depth must be > 0 (%g, "
                           "%g)", id, sh->text_height, sh->text_depth);
        return PW_OK;
    }
    return pw_fail(err, PW_EINVAL, "surface %d: unknown shape kind (%d)", id, (int)sh->kind);
}

static pw_status add_surface(pw_surfaces *s, const pw_surface_desc *d, int id, double t,
                             pw_error *err)
{
    const pw_shape *sh = &d->shape;
    mat3 R;
    vec3 T;
    pw_shape_motion(sh, t, &R, &T);
    mat3 world_from_shape = m3_mul(R, m3_rotation(sh->rotation_axis, sh->rotation_angle));
    if (v3_length(sh->rotation_axis) == 0) world_from_shape = R;
    vec3 origin = v3_add(m3_mulv(R, sh->center), T);
    s->color[id] = d->color;
    s->role[id] = d->role;

    switch (sh->kind) {
    case PW_SHAPE_HALFSPACE: {
        vec3 n = v3_normalize(m3_mulv(world_from_shape, v3_normalize(sh->normal)));
        if (d->size == 0) {
            infinite_plane *pl = &s->planes[s->n_planes++];
            pl->p0 = origin;
            pl->n = n;
            pl->color = d->color;
            pl->role = d->role;
            return PW_OK;
        }
        vec3 tu, tv, v[4];
        v3_basis(n, &tu, &tv);
        for (int k = 0; k < 4; k++)
            v[k] = v3_add(origin, v3_add(v3_scale(tu, (k & 1 ? 1 : -1) * d->size),
                                         v3_scale(tv, (k & 2 ? 1 : -1) * d->size)));
        static const uint32_t quad[6] = {0, 1, 3, 0, 3, 2};
        return add_triangles(s, id, v, 4, quad, 2, err);
    }
    case PW_SHAPE_SPHERE:
    case PW_SHAPE_CYLINDER: {
        analytic_prim *pr = &s->prims[id];
        pr->kind = sh->kind;
        pr->world_from_shape = world_from_shape;
        pr->origin = origin;
        pr->radius = sh->radius;
        pr->half_height = sh->half_height;
        return add_analytic(s, id, err);
    }
    case PW_SHAPE_BOX: {
        vec3 h = sh->half_extents, v[8];
        for (int k = 0; k < 8; k++) {
            vec3 q = v3(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
            v[k] = v3_add(origin, m3_mulv(world_from_shape, q));
        }
        /* two triangles per face; corner k has bit 0 = +x, bit 1 = +y, bit 2 = +z */
        static const uint32_t box[36] = {0, 4, 6, 0, 6, 2,  1, 3, 7, 1, 7, 5,
                                         0, 1, 5, 0, 5, 4,  2, 6, 7, 2, 7, 3,
                                         0, 2, 3, 0, 3, 1,  4, 5, 7, 4, 7, 6};
        return add_triangles(s, id, v, 8, box, 12, err);
    }
    case PW_SHAPE_MESH:
    case PW_SHAPE_TEXT: {
        pw_mesh m = {0};
        pw_status rc = pw_shape_mesh_at(sh, t, &m, err); /* a sequence at the frame's time */
        if (rc != PW_OK) {
            pw_error_prefix(err, "surface %d", id);
            return rc;
        }
        vec3 *v = malloc((m.n_vertices ? m.n_vertices : 1) * sizeof *v);
        if (!v) {
            pw_mesh_free(&m);
            return pw_fail(err, PW_ENOMEM, "surface %d: %s: out of memory (%zu vertices)", id,
                           sh->path, m.n_vertices);
        }
        for (size_t k = 0; k < m.n_vertices; k++) {
            vec3 q = v3_scale(v3(m.vertices[3 * k], m.vertices[3 * k + 1],
                                 m.vertices[3 * k + 2]), sh->scale);
            v[k] = v3_add(origin, m3_mulv(world_from_shape, q));
        }
        rc = add_triangles(s, id, v, m.n_vertices, m.triangles, m.n_triangles, err);
        free(v);
        pw_mesh_free(&m);
        return rc;
    }
    }
    return pw_fail(err, PW_EINVAL, "surface %d: unknown shape kind (%d)", id, (int)sh->kind);
}

/* ---- public -------------------------------------------------------------- */

pw_surfaces *pw_surfaces_create(const pw_surface_desc *desc, int n, double t, pw_error *err)
{
    if (n < 0 || (n > 0 && !desc)) {
        pw_fail(err, PW_EINVAL, "surfaces: bad surface count (%d)", n);
        return NULL;
    }
    for (int k = 0; k < n; k++)
        if (check_desc(&desc[k], k, err) != PW_OK) return NULL;
    if (!isfinite(t)) {
        pw_fail(err, PW_EINVAL, "surfaces: time not finite (%g)", t);
        return NULL;
    }
    pw_surfaces *s = calloc(1, sizeof *s);
    int cap = n > 0 ? n : 1;
    if (s) {
        s->color = calloc(cap, sizeof *s->color);
        s->role = calloc(cap, sizeof *s->role);
        s->prims = calloc(cap, sizeof *s->prims);
        s->planes = calloc(cap, sizeof *s->planes);
    }
    if (!s || !s->color || !s->role || !s->prims || !s->planes) {
        pw_surfaces_destroy(s);
        pw_fail(err, PW_ENOMEM, "surfaces: out of memory (%d surfaces)", n);
        return NULL;
    }
    s->n = n;
    s->lo = v3(INFINITY, INFINITY, INFINITY);
    s->hi = v3(-INFINITY, -INFINITY, -INFINITY);

    s->device = rtcNewDevice(NULL);
    if (!s->device) {
        pw_fail(err, PW_EUNSUPPORTED, "surfaces: cannot create Embree device (error %d)",
                (int)rtcGetDeviceError(NULL));
        pw_surfaces_destroy(s);
        return NULL;
    }
    rtcSetDeviceErrorFunction(s->device, device_error, &s->device_err);
    s->scene = rtcNewScene(s->device);
    pw_status rc = s->scene ? PW_OK : PW_ENOMEM;
    for (int k = 0; k < n && rc == PW_OK && s->device_err.code == PW_OK; k++)
        rc = add_surface(s, &desc[k], k, t, err);
    if (rc == PW_OK && s->device_err.code == PW_OK) rtcCommitScene(s->scene);
    if (rc == PW_OK && s->device_err.code != PW_OK) {
        rc = s->device_err.code;
        pw_fail(err, rc, "surfaces: %s", s->device_err.msg);
    } else if (rc != PW_OK && !s->scene) {
        pw_fail(err, rc, "surfaces: %s", s->device_err.msg);
    }
    if (rc != PW_OK) {
        pw_surfaces_destroy(s);
        return NULL;
    }
    const double lo[3] = {s->lo.x, s->lo.y, s->lo.z}, hi[3] = {s->hi.x, s->hi.y, s->hi.z};
    for (int k = 0; k < 3 && s->n_finite > 0; k++) {
        double pad = 1e-5 * (1.0 + fabs(lo[k]) + fabs(hi[k]));
        s->box_lo[k] = lo[k] - pad;
        s->box_hi[k] = hi[k] + pad;
    }
    return s;
}

void pw_surfaces_destroy(pw_surfaces *s)
{
    if (!s) return;
    if (s->scene) rtcReleaseScene(s->scene);
    if (s->device) rtcReleaseDevice(s->device);
    free(s->color);
    free(s->role);
    free(s->prims);
    free(s->planes);
    free(s);
}

/* Nearest infinite plane in (tmin, tmax); returns its index or -1. */
static int nearest_plane(const pw_surfaces *s, vec3 org, vec3 dir, double tmin, double *tmax)
{
    int best = -1;
    for (int k = 0; k < s->n_planes; k++) {
        double dn = v3_dot(dir, s->planes[k].n);
        if (dn == 0) continue;
        double t = v3_dot(v3_sub(s->planes[k].p0, org), s->planes[k].n) / dn;
        if (t > tmin && t < *tmax) {
            *tmax = t;
            best = k;
        }
    }
    return best;
}

/* Parameter at which org + t dir enters the finite surfaces' bounds (0 when org is
 * inside), or INFINITY when the ray misses them. The box is padded well beyond Embree's
 * float rounding, so no hit it reports lies before the entry. */
static double finite_entry(const pw_surfaces *s, vec3 org, vec3 dir)
{
    if (s->n_finite == 0) return INFINITY;
    const double o[3] = {org.x, org.y, org.z}, d[3] = {dir.x, dir.y, dir.z};
    double t0 = 0, t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        const double a = s->box_lo[k], b = s->box_hi[k];
        if (d[k] == 0) {
            if (o[k] < a || o[k] > b) return INFINITY;
            continue;
        }
        double inv = 1.0 / d[k], ta = (a - o[k]) * inv, tb = (b - o[k]) * inv;
        if (ta > tb) {
            double t = ta;
            ta = tb, tb = t;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return INFINITY;
    }
    return t0;
}

double pw_surfaces_clear_until(const pw_surfaces *s, vec3 org, vec3 dir)
{
    if (!s) return INFINITY;
    double t = INFINITY;
    nearest_plane(s, org, dir, 0.0, &t);
    double te = finite_entry(s, org, dir);
    return te < t ? te : t;
}

static void init_ray(struct RTCRay *r, vec3 org, vec3 dir, double tmin, double tmax)
{
    r->org_x = (float)org.x;
    r->org_y = (float)org.y;
    r->org_z = (float)org.z;
    r->dir_x = (float)dir.x;
    r->dir_y = (float)dir.y;
    r->dir_z = (float)dir.z;
    r->tnear = (float)fmax(tmin, 0);
    r->tfar = tmax >= FLT_MAX ? INFINITY : (float)tmax;
    r->time = 0;
    r->mask = 0xffffffffu;
    r->id = 0;
    r->flags = 0;
}

int pw_surfaces_intersect(const pw_surfaces *s, vec3 org, vec3 dir, double tmin, double tmax,
                          pw_surface_hit *hit)
{
    if (!s || !(tmax > tmin)) return 0;
    double t_best = tmax;
    int plane = nearest_plane(s, org, dir, tmin, &t_best);
    vec3 n = plane >= 0 ? s->planes[plane].n : v3_zero();
    vec3 color = plane >= 0 ? s->planes[plane].color : v3_zero();
    pw_surface_role role = plane >= 0 ? s->planes[plane].role : PW_SURFACE_OPAQUE;
    int found = plane >= 0;

    if (s->n_finite > 0 && finite_entry(s, org, dir) < t_best) {
        struct RTCIntersectContext ctx;
        rtcInitIntersectContext(&ctx);
        struct RTCRayHit rh;
        init_ray(&rh.ray, org, dir, tmin, t_best);
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(s->scene, &ctx, &rh);
        unsigned id = rh.hit.geomID;
        if (id != RTC_INVALID_GEOMETRY_ID && id < (unsigned)s->n) {
            double t = rh.ray.tfar;
            vec3 ng = v3(rh.hit.Ng_x, rh.hit.Ng_y, rh.hit.Ng_z);
            const analytic_prim *pr = &s->prims[id];
            double t2;
            vec3 n2;
            /* Re-solve analytic shapes with the double ray; keep Embree's answer only
             * when rounding put the float hit just outside the double window. */
            if ((pr->kind == PW_SHAPE_SPHERE || pr->kind == PW_SHAPE_CYLINDER) &&
                prim_hit(pr, org, dir, tmin, fmin(tmax, t * (1 + 1e-5) + 1e-6), &t2, &n2)) {
                t = t2;
                ng = n2;
            }
            if (t > tmin && t <= t_best) {
                t_best = t;
                n = ng;
                color = s->color[id];
                role = s->role[id];
                found = 1;
            }
        }
    }
    if (!found) return 0;
    n = v3_normalize(n);
    if (v3_dot(n, dir) > 0) n = v3_scale(n, -1);
    hit->t = t_best;
    hit->p = v3_madd(org, dir, t_best);
    hit->n = n;
    hit->color = color;
    hit->role = role;
    return 1;
}

int pw_surfaces_occluded(const pw_surfaces *s, vec3 org, vec3 dir, double tmin, double tmax)
{
    if (!s || !(tmax > tmin)) return 0;
    double t = tmax;
    if (nearest_plane(s, org, dir, tmin, &t) >= 0) return 1;
    if (!(finite_entry(s, org, dir) < tmax)) return 0;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    struct RTCRay r;
    init_ray(&r, org, dir, tmin, tmax);
    rtcOccluded1(s->scene, &ctx, &r);
    return r.tfar == -INFINITY;
}

int pw_surfaces_bounds(const pw_surfaces *s, vec3 *lo, vec3 *hi)
{
    if (!s || s->n_finite == 0) return 0;
    *lo = s->lo;
    *hi = s->hi;
    return 1;
}
