/* mesh_sdf.c — signed distance grids of closed triangle meshes (mesh_sdf.h).
 *
 * Construction, in order:
 * 1. check the mesh is closed and consistently oriented (every undirected edge used
 *    by exactly two triangles, once in each direction); flip it if it faces inward;
 * 2. narrow band: every node within NARROW_BAND_CELLS of a triangle's bounding box
 *    gets its exact distance to the nearest triangle, signed by the angle-weighted
 *    pseudo-normal of the nearest feature (Baerentzen & Aanaes 2005), which is exact
 *    for a closed, consistently oriented mesh;
 * 3. the other nodes form 6-connected components that cannot touch the surface (any
 *    grid edge crossing it has an end within dx/2 of it, hence in the band); each
 *    component takes the sign of the band nodes around it, so cavities and nested
 *    shells come out right;
 * 4. their distances come from propagating closest surface points outward from the
 *    band in raster sweeps (a vector distance transform), so they are distances to
 *    real surface points, accurate to a fraction of a cell. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_sdf.h"
#include "tri_mesh.h"

/* Half-width of the exact band in cells; at least 1 keeps step 3's argument valid. */
#define NARROW_BAND_CELLS 2
/* Largest grid we build: 21 bytes per node while building (distance, sign, BFS queue,
 * closest point), 4 kept; 2^24 nodes is 256^3, ~350 MB at the peak. */
#define MAX_GRID_NODES ((size_t)1 << 24)

struct pw_mesh_sdf {
    vec3 origin;     /* [m] body-frame position of node (0, 0, 0) */
    double dx;       /* [m] node spacing */
    int n[3];        /* nodes per axis, >= 2 */
    float *phi;      /* [m] n[0] n[1] n[2] values, x fastest */
    vec3 lo, hi;     /* [m] scaled mesh bounds */
    double volume;   /* [m^3] */
    size_t n_triangles;
    size_t band_tests; /* point-triangle distances the narrow band evaluated */
};

/* ---- grid construction ------------------------------------------------------------ */

static size_t node_index(const pw_mesh_sdf *s, int i, int j, int k)
{
    return (size_t)i + (size_t)s->n[0] * ((size_t)j + (size_t)s->n[1] * (size_t)k);
}

/* Step 2: exact distances and pseudo-normal signs near each triangle. */
static void narrow_band(pw_mesh_sdf *s, const pw_tri_mesh *m, float *dist, int8_t *sgn, float *cp)
{
    double band = NARROW_BAND_CELLS * s->dx;
    for (size_t t = 0; t < m->nt; t++) {
        vec3 a = m->v[m->t[3 * t]], b = m->v[m->t[3 * t + 1]], c = m->v[m->t[3 * t + 2]];
        vec3 lo = v3_min(a, v3_min(b, c)), hi = v3_max(a, v3_max(b, c));
        int i0[3], i1[3];
        for (int ax = 0; ax < 3; ax++) {
            double o = v3_get(s->origin, ax);
            i0[ax] = (int)ceil((v3_get(lo, ax) - band - o) / s->dx);
            i1[ax] = (int)floor((v3_get(hi, ax) + band - o) / s->dx);
            i0[ax] = i0[ax] < 0 ? 0 : i0[ax];
            i1[ax] = i1[ax] > s->n[ax] - 1 ? s->n[ax] - 1 : i1[ax];
        }
        if (i1[0] >= i0[0] && i1[1] >= i0[1] && i1[2] >= i0[2])
            s->band_tests += (size_t)(i1[0] - i0[0] + 1) * (size_t)(i1[1] - i0[1] + 1) *
                             (size_t)(i1[2] - i0[2] + 1);
        for (int k = i0[2]; k <= i1[2]; k++)
            for (int j = i0[1]; j <= i1[1]; j++)
                for (int i = i0[0]; i <= i1[0]; i++) {
                    vec3 p = v3_add(s->origin, v3(i * s->dx, j * s->dx, k * s->dx));
                    int feature;
                    vec3 q = pw_tri_closest(p, a, b, c, &feature);
                    vec3 pq = v3_sub(p, q);
                    double d = v3_length(pq);
                    size_t id = node_index(s, i, j, k);
                    if (d < dist[id]) {
                        dist[id] = (float)d;
                        /* the sign is only final within the band (see build_grid) */
                        sgn[id] = v3_dot(pq, pw_tri_feature_normal(m, t, feature)) < 0 ? -1 : 1;
                        cp[3 * id] = (float)q.x;
                        cp[3 * id + 1] = (float)q.y;
                        cp[3 * id + 2] = (float)q.z;
                    }
                }
    }
}

/* Step 3: sign of every component of nodes outside the band, by breadth-first search;
 * `queue` has room for every node. */
static void sign_components(const pw_mesh_sdf *s, int8_t *sgn, uint32_t *queue)
{
    size_t total = (size_t)s->n[0] * s->n[1] * s->n[2];
    const int off[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (size_t seed = 0; seed < total; seed++) {
        if (sgn[seed] != 0) continue;
        size_t head = 0, tail = 0;
        long votes = 0;
        /* 2 marks "queued, sign pending"; band signs are only -1 and +1 */
        sgn[seed] = 2;
        queue[tail++] = (uint32_t)seed;
        while (head < tail) {
            size_t id = queue[head++];
            int i = (int)(id % s->n[0]), j = (int)(id / s->n[0] % s->n[1]),
                k = (int)(id / ((size_t)s->n[0] * s->n[1]));
            for (int q = 0; q < 6; q++) {
                int a = i + off[q][0], b = j + off[q][1], c = k + off[q][2];
                if (a < 0 || b < 0 || c < 0 || a >= s->n[0] || b >= s->n[1] || c >= s->n[2])
                    continue;
                size_t nb = node_index(s, a, b, c);
                if (sgn[nb] == 0) {
                    sgn[nb] = 2;
                    queue[tail++] = (uint32_t)nb;
                } else if (sgn[nb] == 1 || sgn[nb] == -1) {
                    votes += sgn[nb];
                }
            }
        }
        int8_t sign = votes < 0 ? -1 : 1;
        for (size_t q = 0; q < tail; q++) sgn[queue[q]] = (int8_t)(3 * sign); /* +-3: far */
    }
}

/* Step 4: far nodes (|sgn| == 3) by closest-point propagation (Danielsson's vector
 * distance transform): a node tries the closest surface points of its upwind
 * neighbours, so every value is a true distance to a surface point, at most a
 * fraction of dx above the exact one. One pass of the eight raster orders. */
static void propagate_closest(const pw_mesh_sdf *s, float *dist, const int8_t *sgn, float *cp)
{
    const int *n = s->n;
    const ptrdiff_t stride[3] = {1, n[0], (ptrdiff_t)n[0] * n[1]};
    for (int dir = 0; dir < 8; dir++) {
        int step[3] = {dir & 1 ? -1 : 1, dir & 2 ? -1 : 1, dir & 4 ? -1 : 1};
        for (int kk = 0; kk < n[2]; kk++) {
            int k = step[2] > 0 ? kk : n[2] - 1 - kk;
            double pz = s->origin.z + k * s->dx;
            for (int jj = 0; jj < n[1]; jj++) {
                int j = step[1] > 0 ? jj : n[1] - 1 - jj;
                double py = s->origin.y + j * s->dx;
                for (int ii = 0; ii < n[0]; ii++) {
                    int i = step[0] > 0 ? ii : n[0] - 1 - ii;
                    size_t id = node_index(s, i, j, k);
                    if (sgn[id] != 3 && sgn[id] != -3) continue;
                    double px = s->origin.x + i * s->dx;
                    int idx[3] = {i, j, k};
                    double best = (double)dist[id] * dist[id];
                    ptrdiff_t from_best = -1;
                    for (int ax = 0; ax < 3; ax++) {
                        int from = idx[ax] - step[ax]; /* the upwind neighbour */
                        if (from < 0 || from >= n[ax]) continue;
                        ptrdiff_t nb = (ptrdiff_t)id - step[ax] * stride[ax];
                        const float *q = &cp[3 * nb];
                        double dx = px - q[0], dy = py - q[1], dz = pz - q[2];
                        double d2 = dx * dx + dy * dy + dz * dz; /* inf when unset */
                        if (d2 < best) best = d2, from_best = nb;
                    }
                    if (from_best >= 0) {
                        dist[id] = (float)sqrt(best);
                        memcpy(&cp[3 * id], &cp[3 * from_best], 3 * sizeof *cp);
                    }
                }
            }
        }
    }
}

static pw_status build_grid(pw_mesh_sdf *s, const pw_tri_mesh *m, const char *name, pw_error *err)
{
    size_t total = (size_t)s->n[0] * s->n[1] * s->n[2];
    float *dist = malloc(total * sizeof *dist);
    int8_t *sgn = calloc(total, 1);
    uint32_t *queue = malloc(total * sizeof *queue);
    float *cp = malloc(3 * total * sizeof *cp);
    s->phi = dist;
    if (!dist || !sgn || !queue || !cp) {
        free(sgn);
        free(queue);
        free(cp);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory for a %dx%dx%d distance grid", name,
                       s->n[0], s->n[1], s->n[2]);
    }
    /* unset closest points are infinitely far, so every distance to them is too */
    for (size_t id = 0; id < total; id++) {
        dist[id] = INFINITY;
        cp[3 * id] = cp[3 * id + 1] = cp[3 * id + 2] = INFINITY;
    }
    narrow_band(s, m, dist, sgn, cp);
    /* a node farther than the band from its nearest triangle may have seen only some
     * triangles (it sat in their boxes): its distance is an upper bound that the
     * propagation may improve, and its sign must come from its component */
    double band = NARROW_BAND_CELLS * s->dx;
    for (size_t id = 0; id < total; id++)
        if (dist[id] > band) sgn[id] = 0;
    sign_components(s, sgn, queue);
    free(queue);
    propagate_closest(s, dist, sgn, cp);
    free(cp);
    for (size_t id = 0; id < total; id++)
        if (sgn[id] < 0) dist[id] = -dist[id];
    free(sgn);
    return PW_OK;
}

/* ---- public ------------------------------------------------------------------ */

static pw_status setup_grid(pw_mesh_sdf *s, double dx, double margin, const char *name,
                            pw_error *err)
{
    s->dx = dx;
    s->origin = v3_sub(s->lo, v3(margin, margin, margin));
    size_t total = 1;
    for (int ax = 0; ax < 3; ax++) {
        double extent = v3_get(s->hi, ax) - v3_get(s->lo, ax) + 2 * margin;
        double cells = ceil(extent / dx);
        if (!(cells < 1e7))
            return pw_fail(err, PW_ENOMEM, "%s: distance grid too large (%.0f cells on an axis)",
                           name, cells);
        s->n[ax] = (int)cells + 1;
        total *= (size_t)s->n[ax];
    }
    if (total > MAX_GRID_NODES)
        return pw_fail(err, PW_ENOMEM, "%s: distance grid of %dx%dx%d nodes exceeds %zu (mesh "
                       "too large for the grid spacing %g m)",
                       name, s->n[0], s->n[1], s->n[2], MAX_GRID_NODES, dx);
    return PW_OK;
}

pw_status pw_mesh_sdf_build(const pw_mesh *mesh, const char *name, double scale, double dx,
                            double margin, pw_mesh_sdf **out, pw_error *err)
{
    *out = NULL;
    if (!(scale > 0) || !isfinite(scale))
        return pw_fail(err, PW_EINVAL, "%s: mesh scale must be positive (%g)", name, scale);
    if (!(dx > 0) || !isfinite(dx) || !(margin >= 0) || !isfinite(margin))
        return pw_fail(err, PW_EINVAL, "%s: bad grid spacing %g m or margin %g m", name, dx,
                       margin);
    if (mesh->n_triangles == 0 || mesh->n_vertices == 0)
        return pw_fail(err, PW_EFORMAT, "%s: mesh has no triangles", name);
    margin = fmax(margin, 2 * dx);

    pw_tri_mesh m = {mesh->n_vertices, mesh->n_triangles, NULL, NULL, NULL, NULL, NULL};
    m.v = malloc(m.nv * sizeof *m.v);
    m.t = malloc(3 * m.nt * sizeof *m.t);
    m.n_face = malloc(m.nt * sizeof *m.n_face);
    m.n_vertex = malloc(m.nv * sizeof *m.n_vertex);
    m.n_edge = malloc(3 * m.nt * sizeof *m.n_edge);
    pw_mesh_sdf *s = calloc(1, sizeof *s);
    pw_status rc = PW_OK;
    if (!m.v || !m.t || !m.n_face || !m.n_vertex || !m.n_edge || !s) {
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu triangles", name, m.nt);
        goto done;
    }
    s->n_triangles = m.nt;
    s->lo = v3(INFINITY, INFINITY, INFINITY);
    s->hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t i = 0; i < m.nv; i++) {
        const float *f = &mesh->vertices[3 * i];
        m.v[i] = v3(scale * f[0], scale * f[1], scale * f[2]);
        s->lo = v3_min(s->lo, m.v[i]);
        s->hi = v3_max(s->hi, m.v[i]);
    }
    memcpy(m.t, mesh->triangles, 3 * m.nt * sizeof *m.t);

    /* enclosed volume by the divergence theorem; a negative one means inward faces */
    double vol = 0;
    for (size_t t = 0; t < m.nt; t++) {
        vec3 a = m.v[m.t[3 * t]], b = m.v[m.t[3 * t + 1]], c = m.v[m.t[3 * t + 2]];
        vol += v3_dot(a, v3_cross(b, c)) / 6.0;
    }
    if (vol < 0)
        for (size_t t = 0; t < m.nt; t++) {
            uint32_t tmp = m.t[3 * t + 1];
            m.t[3 * t + 1] = m.t[3 * t + 2];
            m.t[3 * t + 2] = tmp;
        }
    s->volume = fabs(vol);
    pw_tri_normals(&m);
    if ((rc = pw_tri_pair_edges(&m, name, NULL, err)) != PW_OK) goto done;
    if (!(s->volume > 0)) {
        rc = pw_fail(err, PW_EFORMAT, "%s: closed mesh encloses no volume (%g m^3)", name, vol);
        goto done;
    }
    if ((rc = setup_grid(s, dx, margin, name, err)) != PW_OK) goto done;
    rc = build_grid(s, &m, name, err);
done:
    pw_tri_mesh_free(&m);
    if (rc != PW_OK) {
        pw_mesh_sdf_destroy(s);
        return rc;
    }
    *out = s;
    return PW_OK;
}

pw_status pw_mesh_sdf_create(const char *path, double scale, double dx, double margin,
                             pw_mesh_sdf **out, pw_error *err)
{
    *out = NULL;
    pw_mesh mesh = {0};
    pw_status rc = pw_obj_read(path, &mesh, err);
    if (rc != PW_OK) return rc;
    rc = pw_mesh_sdf_build(&mesh, path, scale, dx, margin, out, err);
    pw_mesh_free(&mesh);
    return rc;
}

pw_status pw_mesh_sdf_of_shape(const pw_shape *shape, double dx, double margin,
                               pw_mesh_sdf **out, pw_error *err)
{
    *out = NULL;
    pw_mesh mesh = {0};
    pw_status rc = pw_shape_mesh(shape, &mesh, err);
    if (rc != PW_OK) return rc;
    char name[PW_TEXT_MAX_BYTES + 16];
    pw_shape_mesh_name(shape, name, sizeof name);
    rc = pw_mesh_sdf_build(&mesh, name, shape->scale, dx, margin, out, err);
    pw_mesh_free(&mesh);
    return rc;
}

void pw_mesh_sdf_destroy(pw_mesh_sdf *s)
{
    if (!s) return;
    free(s->phi);
    free(s);
}

double pw_mesh_sdf_phi(const pw_mesh_sdf *s, vec3 p, vec3 *grad)
{
    double g[3], f[3], outside[3];
    int c[3];
    for (int ax = 0; ax < 3; ax++) {
        double x = (v3_get(p, ax) - v3_get(s->origin, ax)) / s->dx;
        double xc = fmin(fmax(x, 0.0), (double)(s->n[ax] - 1));
        outside[ax] = (x - xc) * s->dx;
        c[ax] = (int)floor(xc);
        if (c[ax] > s->n[ax] - 2) c[ax] = s->n[ax] - 2;
        f[ax] = xc - c[ax];
        g[ax] = 0;
    }
    /* trilinear value and its exact gradient */
    double value = 0;
    for (int corner = 0; corner < 8; corner++) {
        int di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
        double v = s->phi[node_index(s, c[0] + di, c[1] + dj, c[2] + dk)];
        double wx = di ? f[0] : 1 - f[0], wy = dj ? f[1] : 1 - f[1], wz = dk ? f[2] : 1 - f[2];
        value += v * wx * wy * wz;
        g[0] += v * (di ? 1 : -1) * wy * wz;
        g[1] += v * wx * (dj ? 1 : -1) * wz;
        g[2] += v * wx * wy * (dk ? 1 : -1);
    }
    double out_len = sqrt(outside[0] * outside[0] + outside[1] * outside[1] + outside[2] * outside[2]);
    if (grad) {
        vec3 gv = out_len > 0 ? v3(outside[0], outside[1], outside[2]) : v3(g[0], g[1], g[2]);
        double l = v3_length(gv);
        *grad = l > 0 ? v3_scale(gv, 1.0 / l) : v3(0, 1, 0);
    }
    return value + out_len;
}

int pw_mesh_sdf_inside(const pw_mesh_sdf *s, vec3 p) { return pw_mesh_sdf_phi(s, p, NULL) < 0; }

void pw_mesh_sdf_bounds(const pw_mesh_sdf *s, vec3 *lo, vec3 *hi)
{
    *lo = s->lo;
    *hi = s->hi;
}

double pw_mesh_sdf_volume(const pw_mesh_sdf *s) { return s->volume; }

size_t pw_mesh_sdf_triangles(const pw_mesh_sdf *s) { return s->n_triangles; }

size_t pw_mesh_sdf_band_tests(const pw_mesh_sdf *s) { return s->band_tests; }

size_t pw_mesh_sdf_nodes(const pw_mesh_sdf *s)
{
    return (size_t)s->n[0] * (size_t)s->n[1] * (size_t)s->n[2];
}

vec3 pw_mesh_sdf_body_point(const pw_shape *sh, double t, vec3 x, mat3 *world_from_body)
{
    pw_shape_pose pose;
    pw_shape_pose_at(sh, t, &pose);
    if (world_from_body) *world_from_body = pose.world_from_body;
    return pw_shape_pose_to_body(&pose, x);
}
