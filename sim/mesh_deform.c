/* mesh_deform.c — deforming and shell mesh colliders by closest-point queries
 * (mesh_deform.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_deform.h"
#include "pw_mesh_seq.h"
#include "tri_mesh.h"

/* A bounding volume hierarchy over one part's triangles, built once on the first
 * file's positions (median splits) and refitted as the vertices move: the triangles
 * keep their neighbours through a character's motion. Children follow their parent in
 * the array, so a refit is one backward pass. */
typedef struct {
    vec3 lo, hi;
    uint32_t first, count; /* a leaf: tri[first .. first + count) (count > 0) */
    uint32_t right;        /* an inner node (count = 0): left child is this + 1 */
} bvh_node;

#define LEAF_TRIANGLES 4

typedef struct {
    bvh_node *node;
    uint32_t n_nodes;
    uint32_t *tri;  /* the mesh's triangle index of each of the component's primitives,
                       in the hierarchy's leaf order */
    size_t nt;
    uint32_t *vert; /* the mesh's vertex indices the component uses */
    size_t nv;
    vec3 lo, hi;    /* [m] bounds at the current time */
} component;

struct pw_mesh_deform {
    pw_shape shape;
    pw_mesh_seq seq;     /* every file of a sequence; none for a still shell */
    pw_tri_mesh m;       /* positions at time t, triangles facing out, pseudo-normals */
    uint32_t *twin;      /* closed meshes: each edge slot's twin slot */
    vec3 *vel;           /* [m/s] vertex velocities at time t */
    int closed;          /* 0: a shell of half thickness ht */
    double ht;           /* [m] */
    int nc;
    component *c;
    double t;            /* [s] NAN until placed */
};

/* ---- setup --------------------------------------------------------------------- */

/* components by union-find over the triangles' vertices, numbered in the order of their
 * first triangle (so the same mesh always splits the same way) */
static pw_status split_components(pw_mesh_deform *d, uint32_t **comp_of_tri, pw_error *err)
{
    size_t nv = d->m.nv, nt = d->m.nt;
    uint32_t *parent = malloc(nv * sizeof *parent);
    uint32_t *label = malloc(nv * sizeof *label);
    uint32_t *ct = malloc(nt * sizeof *ct);
    if (!parent || !label || !ct) {
        free(parent), free(label), free(ct);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu triangles", d->shape.path, nt);
    }
    for (size_t i = 0; i < nv; i++) parent[i] = (uint32_t)i, label[i] = UINT32_MAX;
    for (size_t t = 0; t < nt; t++)
        for (int k = 1; k < 3; k++) {
            uint32_t a = d->m.t[3 * t], b = d->m.t[3 * t + k];
            while (parent[a] != a) a = parent[a] = parent[parent[a]];
            while (parent[b] != b) b = parent[b] = parent[parent[b]];
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    int nc = 0;
    for (size_t t = 0; t < nt; t++) {
        uint32_t r = d->m.t[3 * t];
        while (parent[r] != r) r = parent[r];
        if (label[r] == UINT32_MAX) label[r] = (uint32_t)nc++;
        ct[t] = label[r];
    }
    free(parent);
    free(label);
    *comp_of_tri = ct;
    d->nc = nc;
    return PW_OK;
}

/* flips every component that faces inward, from its signed volume (divergence theorem) */
static pw_status orient_components(pw_mesh_deform *d, const uint32_t *ct, pw_error *err)
{
    double *vol = calloc((size_t)d->nc, sizeof *vol);
    if (!vol) return pw_fail(err, PW_ENOMEM, "%s: out of memory", d->shape.path);
    const vec3 *v = d->m.v;
    for (size_t t = 0; t < d->m.nt; t++) {
        const uint32_t *f = &d->m.t[3 * t];
        vol[ct[t]] += v3_dot(v[f[0]], v3_cross(v[f[1]], v[f[2]])) / 6.0;
    }
    pw_status rc = PW_OK;
    for (int k = 0; k < d->nc && rc == PW_OK; k++)
        if (!(fabs(vol[k]) > 0))
            rc = pw_fail(err, PW_EFORMAT, "%s: part %d of the mesh encloses no volume",
                         d->shape.path, k + 1);
    for (size_t t = 0; t < d->m.nt && rc == PW_OK; t++)
        if (vol[ct[t]] < 0) {
            uint32_t *f = &d->m.t[3 * t], tmp = f[1];
            f[1] = f[2];
            f[2] = tmp;
        }
    free(vol);
    return rc;
}

/* order of the split: triangles by centre along one axis, ties by index (a total
 * order, so the tree is the same on every machine) */
static int split_axis;
static const vec3 *split_centre;
static int centre_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const double *ca = &split_centre[a].x, *cb = &split_centre[b].x;
    if (ca[split_axis] != cb[split_axis]) return ca[split_axis] < cb[split_axis] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* the node of primitives [first, first + count), their centres by primitive slot */
static uint32_t build_node(component *c, const vec3 *centre, uint32_t first, uint32_t count)
{
    uint32_t id = c->n_nodes++;
    bvh_node *nd = &c->node[id];
    nd->first = first, nd->count = count, nd->right = 0;
    if (count <= LEAF_TRIANGLES) return id;
    vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = first; i < first + count; i++) {
        lo = v3_min(lo, centre[i]);
        hi = v3_max(hi, centre[i]);
    }
    vec3 e = v3_sub(hi, lo);
    /* sort slots (and the triangles with them) by centre on the longest axis */
    uint32_t *slot = malloc(count * sizeof *slot);
    uint32_t *tri = malloc(count * sizeof *tri);
    vec3 *cen = malloc(count * sizeof *cen);
    if (!slot || !tri || !cen) { /* cannot split: one leaf (slower, still right) */
        free(slot), free(tri), free(cen);
        return id;
    }
    for (uint32_t i = 0; i < count; i++) slot[i] = first + i;
    split_axis = e.x >= e.y && e.x >= e.z ? 0 : e.y >= e.z ? 1 : 2;
    split_centre = centre;
    qsort(slot, count, sizeof *slot, centre_cmp);
    for (uint32_t i = 0; i < count; i++) tri[i] = c->tri[slot[i]], cen[i] = centre[slot[i]];
    memcpy(&c->tri[first], tri, count * sizeof *tri);
    memcpy((vec3 *)&centre[first], cen, count * sizeof *cen);
    free(slot), free(tri), free(cen);
    uint32_t half = count / 2;
    nd->count = 0;
    build_node(c, centre, first, half);
    uint32_t right = build_node(c, centre, first + half, count - half);
    c->node[id].right = right;
    return id;
}

/* Component-wise min and max by comparisons (libm's fmin and fmax are calls); bounds
 * only prune, so how a zero's sign falls does not matter. */
static inline vec3 bounds_min(vec3 a, vec3 b)
{
    return v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}
static inline vec3 bounds_max(vec3 a, vec3 b)
{
    return v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

/* bounds of every node from the triangles where they are now */
static void refit(component *c, const pw_tri_mesh *m)
{
    for (uint32_t k = c->n_nodes; k-- > 0;) {
        bvh_node *nd = &c->node[k];
        if (nd->count) {
            nd->lo = v3(INFINITY, INFINITY, INFINITY);
            nd->hi = v3(-INFINITY, -INFINITY, -INFINITY);
            for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
                for (int j = 0; j < 3; j++) {
                    vec3 v = m->v[m->t[3 * c->tri[i] + j]];
                    nd->lo = bounds_min(nd->lo, v);
                    nd->hi = bounds_max(nd->hi, v);
                }
        } else {
            const bvh_node *l = &c->node[k + 1], *r = &c->node[nd->right];
            nd->lo = bounds_min(l->lo, r->lo);
            nd->hi = bounds_max(l->hi, r->hi);
        }
    }
}

static pw_status build_components(pw_mesh_deform *d, const uint32_t *ct, pw_error *err)
{
    d->c = calloc((size_t)d->nc, sizeof *d->c);
    uint8_t *seen = calloc(d->m.nv, 1);
    if (!d->c || !seen) {
        free(seen);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", d->shape.path);
    }
    for (size_t t = 0; t < d->m.nt; t++) d->c[ct[t]].nt++;
    pw_status rc = PW_OK;
    for (int k = 0; k < d->nc && rc == PW_OK; k++) {
        component *c = &d->c[k];
        c->tri = malloc(c->nt * sizeof *c->tri);
        c->vert = malloc(3 * c->nt * sizeof *c->vert);
        if (!c->tri || !c->vert) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", d->shape.path);
        c->nt = 0;
    }
    for (size_t t = 0; t < d->m.nt && rc == PW_OK; t++) {
        component *c = &d->c[ct[t]];
        c->tri[c->nt++] = (uint32_t)t;
        for (int j = 0; j < 3; j++) {
            uint32_t v = d->m.t[3 * t + j];
            if (!seen[v]) seen[v] = 1, c->vert[c->nv++] = v;
        }
    }
    free(seen);
    for (int k = 0; k < d->nc && rc == PW_OK; k++) {
        component *c = &d->c[k];
        c->node = malloc((2 * c->nt) * sizeof *c->node); /* a binary tree's bound */
        vec3 *centre = malloc(c->nt * sizeof *centre);
        if (!c->node || !centre) {
            free(centre);
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", d->shape.path);
            break;
        }
        for (size_t i = 0; i < c->nt; i++) {
            const uint32_t *f = &d->m.t[3 * c->tri[i]];
            centre[i] =
                v3_scale(v3_add(v3_add(d->m.v[f[0]], d->m.v[f[1]]), d->m.v[f[2]]), 1.0 / 3.0);
        }
        c->n_nodes = 0;
        build_node(c, centre, 0, (uint32_t)c->nt);
        free(centre);
    }
    return rc;
}

/* the pose at t: positions, velocities, normals, bounds and the refitted hierarchies */
static pw_status place(pw_mesh_deform *d, double t)
{
    pw_tri_mesh *m = &d->m;
    if (pw_shape_is_sequence(&d->shape)) pw_mesh_seq_eval(&d->seq, &d->shape, t, m->v, d->vel);
    pw_tri_normals(m);
    if (d->closed) {
        for (size_t s = 0; s < 3 * m->nt; s++)
            m->n_edge[s] = v3_add(m->n_face[s / 3], m->n_face[d->twin[s] / 3]);
    }
    for (int k = 0; k < d->nc; k++) {
        component *c = &d->c[k];
        refit(c, m);
        c->lo = c->node[0].lo;
        c->hi = c->node[0].hi;
    }
    d->t = t;
    return PW_OK;
}

pw_status pw_mesh_deform_create(const pw_shape *s, pw_mesh_deform **out, pw_error *err)
{
    *out = NULL;
    pw_mesh_deform *d = calloc(1, sizeof *d);
    if (!d) return pw_fail(err, PW_ENOMEM, "%s: out of memory", s->path);
    d->shape = *s;
    d->t = NAN;
    d->closed = !(s->thickness > 0);
    d->ht = d->closed ? 0 : 0.5 * s->thickness;
    pw_mesh first = {0};
    pw_status rc;
    if (pw_shape_is_sequence(s)) {
        rc = pw_mesh_seq_read(s, -INFINITY, INFINITY, &d->seq, err);
        if (rc == PW_OK) {
            first.n_vertices = d->seq.n_vertices;
            first.n_triangles = d->seq.n_triangles;
            first.triangles = d->seq.triangles; /* borrowed */
        }
    } else {
        rc = pw_shape_mesh(s, &first, err);
    }
    uint32_t *ct = NULL;
    if (rc == PW_OK && (first.n_triangles == 0 || first.n_triangles > 0x7fffffff))
        rc = pw_fail(err, PW_EFORMAT, "%s: %zu triangles (need 1 to 2^31)", s->path,
                     first.n_triangles);
    if (rc == PW_OK) {
        pw_tri_mesh *m = &d->m;
        m->nv = first.n_vertices;
        m->nt = first.n_triangles;
        m->v = malloc(m->nv * sizeof *m->v);
        m->t = malloc(3 * m->nt * sizeof *m->t);
        m->n_face = malloc(m->nt * sizeof *m->n_face);
        m->n_vertex = malloc(m->nv * sizeof *m->n_vertex);
        m->n_edge = malloc(3 * m->nt * sizeof *m->n_edge);
        d->twin = malloc(3 * m->nt * sizeof *d->twin);
        d->vel = calloc(m->nv, sizeof *d->vel);
        if (!m->v || !m->t || !m->n_face || !m->n_vertex || !m->n_edge || !d->twin ||
            !d->vel)
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu triangles", s->path, m->nt);
    }
    if (rc == PW_OK) {
        pw_tri_mesh *m = &d->m;
        memcpy(m->t, first.triangles, 3 * m->nt * sizeof *m->t);
        if (pw_shape_is_sequence(s))
            pw_mesh_seq_eval(&d->seq, s, s->seq_start, m->v, NULL);
        else
            for (size_t i = 0; i < m->nv; i++)
                m->v[i] = v3_scale(v3(first.vertices[3 * i], first.vertices[3 * i + 1],
                                      first.vertices[3 * i + 2]), s->scale);
        rc = split_components(d, &ct, err);
    }
    if (rc == PW_OK && d->closed) {
        rc = orient_components(d, ct, err);
        if (rc == PW_OK) {
            pw_tri_normals(&d->m);
            char name[sizeof s->path + 32];
            if (pw_shape_is_sequence(s))
                pw_mesh_seq_path(s, 0, name, sizeof name, NULL);
            else
                snprintf(name, sizeof name, "%s", s->path);
            pw_error e = {0};
            rc = pw_tri_pair_edges(&d->m, name, d->twin, &e);
            if (rc != PW_OK)
                pw_fail(err, rc, "%s (or give the mesh a 'thickness' to collide with it as a "
                        "shell)", e.msg);
        }
    }
    if (!pw_shape_is_sequence(s)) pw_mesh_free(&first);
    if (rc == PW_OK) rc = build_components(d, ct, err);
    free(ct);
    if (rc == PW_OK) rc = place(d, pw_shape_is_sequence(s) ? s->seq_start : 0);
    if (rc != PW_OK) {
        pw_mesh_deform_destroy(d);
        return rc;
    }
    *out = d;
    return PW_OK;
}

void pw_mesh_deform_destroy(pw_mesh_deform *d)
{
    if (!d) return;
    for (int k = 0; d->c && k < d->nc; k++) {
        free(d->c[k].node);
        free(d->c[k].tri);
        free(d->c[k].vert);
    }
    free(d->c);
    pw_mesh_seq_free(&d->seq);
    pw_tri_mesh_free(&d->m);
    free(d->twin);
    free(d->vel);
    free(d);
}

pw_status pw_mesh_deform_at(pw_mesh_deform *d, double t, pw_error *err)
{
    if (t == d->t || !pw_shape_is_sequence(&d->shape)) return PW_OK; /* (a shell stays) */
    (void)err; /* nothing allocates once built */
    return place(d, t);
}

double pw_mesh_deform_time(const pw_mesh_deform *d) { return d->t; }
size_t pw_mesh_deform_triangles(const pw_mesh_deform *d) { return d->m.nt; }
int pw_mesh_deform_components(const pw_mesh_deform *d) { return d->nc; }

/* ---- queries ------------------------------------------------------------------- */

typedef struct {
    const pw_mesh_deform *d;
    const component *c;
    vec3 p;
    double d2;    /* [m^2] nearest so far */
    uint32_t tri; /* its triangle, UINT32_MAX for none */
    int feature;
    vec3 q;       /* its point */
} nearest;

/* How far p lies outside [lo, hi] along one axis. By comparisons: libm's fmax is a call,
 * and this runs for every node a query visits (positions are finite: no NaN rules). */
static inline double gap(double p, double lo, double hi)
{
    return p < lo ? lo - p : p > hi ? p - hi : 0.0;
}

static double box_distance2(vec3 p, vec3 lo, vec3 hi)
{
    double dx = gap(p.x, lo.x, hi.x), dy = gap(p.y, lo.y, hi.y), dz = gap(p.z, lo.z, hi.z);
    return dx * dx + dy * dy + dz * dz;
}

/* The nearest triangle of part c to n->p: nearer children first, and a node skipped only
 * when its box is strictly farther than the best so far, so a triangle tied with the
 * best is still seen; ties go to the lower triangle index. The answer is then the same
 * whatever order the tree was built or walked in. */
static void nearest_triangle(const component *c, nearest *n)
{
    uint32_t stack[64];
    int top = 0;
    stack[top++] = 0;
    const vec3 *v = n->d->m.v;
    while (top > 0) {
        const bvh_node *nd = &c->node[stack[--top]];
        if (box_distance2(n->p, nd->lo, nd->hi) > n->d2) continue;
        if (nd->count) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
                uint32_t t = c->tri[i];
                const uint32_t *f = &n->d->m.t[3 * t];
                int feature;
                vec3 q = pw_tri_closest(n->p, v[f[0]], v[f[1]], v[f[2]], &feature);
                double d2 = v3_length2(v3_sub(n->p, q));
                if (d2 < n->d2 || (d2 == n->d2 && t < n->tri)) {
                    n->d2 = d2;
                    n->tri = t;
                    n->feature = feature;
                    n->q = q;
                }
            }
            continue;
        }
        uint32_t l = (uint32_t)(nd - c->node) + 1, r = nd->right;
        double dl = box_distance2(n->p, c->node[l].lo, c->node[l].hi);
        double dr = box_distance2(n->p, c->node[r].lo, c->node[r].hi);
        /* (depth <= log2 of the triangles + 1 for median splits: 64 is plenty) */
        if (dl <= dr) stack[top++] = r, stack[top++] = l;
        else stack[top++] = l, stack[top++] = r;
    }
}

/* barycentric weights of q in triangle abc (q on it), for the surface velocity */
static void barycentric(vec3 q, vec3 a, vec3 b, vec3 c, double w[3])
{
    vec3 e0 = v3_sub(b, a), e1 = v3_sub(c, a), e2 = v3_sub(q, a);
    double d00 = v3_dot(e0, e0), d01 = v3_dot(e0, e1), d11 = v3_dot(e1, e1);
    double d20 = v3_dot(e2, e0), d21 = v3_dot(e2, e1), den = d00 * d11 - d01 * d01;
    if (!(den > 1e-30 * (d00 * d11))) { /* degenerate: the mean of the three */
        w[0] = w[1] = w[2] = 1.0 / 3.0;
        return;
    }
    double wb = (d11 * d20 - d01 * d21) / den, wc = (d00 * d21 - d01 * d20) / den;
    wb = fmin(fmax(wb, 0.0), 1.0);
    wc = fmin(fmax(wc, 0.0), 1.0 - wb);
    w[0] = 1 - wb - wc, w[1] = wb, w[2] = wc;
}

static double box_distance(vec3 p, vec3 lo, vec3 hi) { return sqrt(box_distance2(p, lo, hi)); }

double pw_mesh_deform_phi(const pw_mesh_deform *d, vec3 p, double beyond, vec3 *normal,
                          vec3 *velocity)
{
    double best = INFINITY, bound = INFINITY;
    vec3 n_best = v3(0, 1, 0), v_best = v3_zero();
    for (int k = 0; k < d->nc; k++) {
        const component *c = &d->c[k];
        /* no point of the component's solid is nearer than its bounds */
        double outside = box_distance(p, c->lo, c->hi), lower = outside - d->ht;
        if (lower > beyond) {
            bound = fmin(bound, lower);
            continue;
        }
        if (outside > 0 && lower >= best) continue;
        nearest n = {d, c, p, INFINITY, UINT32_MAX, 6, p};
        /* Only a triangle nearer than best + ht can beat the best answer so far where
         * the sign cannot be negative (outside the part's bounds, or a shell), so the
         * search may prune beyond it; widened by 1e-12 so rounding never prunes a
         * triangle the full search would have taken: the same answer, sooner. */
        if (best < INFINITY && best + d->ht > 0 && (outside > 0 || !d->closed))
            n.d2 = (best + d->ht) * (best + d->ht) * (1 + 1e-12);
        nearest_triangle(c, &n);
        if (n.tri == UINT32_MAX) continue;
        double dist = sqrt(n.d2);
        vec3 away = v3_sub(p, n.q);
        double phi;
        vec3 nrm;
        if (d->closed) {
            vec3 pn = pw_tri_feature_normal(&d->m, n.tri, n.feature);
            int inside = v3_dot(away, pn) < 0;
            phi = inside ? -dist : dist;
            if (dist > 1e-12)
                nrm = v3_scale(away, (inside ? -1 : 1) / dist);
            else
                nrm = v3_length2(pn) > 0 ? v3_normalize(pn) : v3(0, 1, 0);
        } else {
            phi = dist - d->ht;
            vec3 fn = d->m.n_face[n.tri];
            nrm = dist > 1e-12 ? v3_scale(away, 1 / dist)
                               : v3_length2(fn) > 0 ? fn : v3(0, 1, 0);
        }
        if (!(phi < best)) continue;
        best = phi;
        n_best = nrm;
        const uint32_t *f = &d->m.t[3 * n.tri];
        double w[3];
        barycentric(n.q, d->m.v[f[0]], d->m.v[f[1]], d->m.v[f[2]], w);
        v_best = v3_add(v3_add(v3_scale(d->vel[f[0]], w[0]), v3_scale(d->vel[f[1]], w[1])),
                        v3_scale(d->vel[f[2]], w[2]));
    }
    if (best == INFINITY) best = bound;
    if (normal) *normal = n_best;
    if (velocity) *velocity = v_best;
    return best;
}
