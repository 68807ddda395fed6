/* text_mesh.c — the closed mesh of extruded text outlines (pw_text.h, step 5): caps by
 * ear clipping, the holes joined to their outer contour by bridges, and the walls.
 *
 * Ear clipping (Meisters 1975) of a simple polygon wound counter-clockwise: a vertex
 * whose corner is convex and whose triangle with its two neighbours holds no other
 * vertex is an ear; cutting it off leaves a simple polygon one vertex smaller. Holes
 * (wound clockwise) are first joined to the polygon in the order of their rightmost
 * vertex M, rightmost first, by a bridge to a vertex P the ray from M in +x can see
 * (Eberly, "Triangulation by ear clipping", 2002): P is the end of the first edge the
 * ray hits, or, when polygon vertices lie in the triangle of M, the hit and P, the one
 * of them seen at the smallest angle from the ray. The bridge is walked twice (M and P
 * appear twice in the ring), so the caps' triangles use only outline points and share
 * every outline edge with a wall. */
#include "pw_text.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A triangle thinner than this fraction of the squared size of its polygon counts as
 * degenerate: no ear while a proper one exists. */
#define EAR_AREA_FRACTION 1e-14

typedef struct {
    uint32_t v;      /* outline point */
    int prev, next;  /* ring neighbours (node indices) */
} node;

typedef struct {
    const double *xy;
    node *nodes;
    int n_nodes;
    uint32_t *tri; /* 3 per cap triangle, counter-clockwise seen from +z */
    size_t n_tri, cap_tri;
    double eps_area;
} clipper;

/* ---- geometry ---------------------------------------------------------------- */

static const double *pos(const clipper *c, int n) { return &c->xy[2 * c->nodes[n].v]; }

static double cross3(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int same_point(const double *a, const double *b) { return a[0] == b[0] && a[1] == b[1]; }

/* p in the closed triangle abc (counter-clockwise) */
static int in_triangle(const double *a, const double *b, const double *c, const double *p)
{
    return cross3(a, b, p) >= 0 && cross3(b, c, p) >= 0 && cross3(c, a, p) >= 0;
}

/* Whether the segment from node a towards point q starts inside the polygon: q lies in
 * the interior angle at a, the counter-clockwise sweep from a->next to a->prev. */
static int locally_inside(const clipper *c, int a, const double *q)
{
    const double *p = pos(c, a), *nx = pos(c, c->nodes[a].next), *pv = pos(c, c->nodes[a].prev);
    double u[2] = {nx[0] - p[0], nx[1] - p[1]}, w[2] = {pv[0] - p[0], pv[1] - p[1]};
    double d[2] = {q[0] - p[0], q[1] - p[1]};
    double uw = u[0] * w[1] - u[1] * w[0], ud = u[0] * d[1] - u[1] * d[0];
    double dw = d[0] * w[1] - d[1] * w[0];
    return uw > 0 ? (ud > 0 && dw > 0) : (ud > 0 || dw > 0);
}

/* ---- rings ------------------------------------------------------------------- */

/* A ring of the points of contour ci, counter-clockwise when ccw, else clockwise;
 * returns its first node. */
static int make_ring(clipper *c, const pw_text_outline *o, size_t ci, int ccw)
{
    size_t f = o->first[ci], m = o->first[ci + 1] - f;
    double area = 0;
    for (size_t k = 0; k < m; k++) {
        const double *p = &o->xy[2 * (f + k)], *q = &o->xy[2 * (f + (k + 1) % m)];
        area += p[0] * q[1] - q[0] * p[1];
    }
    int forward = (area > 0) == (ccw != 0);
    int start = c->n_nodes;
    for (size_t k = 0; k < m; k++) {
        node *n = &c->nodes[start + (int)k];
        n->v = (uint32_t)(f + (forward ? k : m - 1 - k));
        n->prev = start + (int)((k + m - 1) % m);
        n->next = start + (int)((k + 1) % m);
    }
    c->n_nodes += (int)m;
    return start;
}

/* Joins node b of a hole after node a of the outer ring: a b ... b' a' (earcut's split). */
static void splice(clipper *c, int a, int b)
{
    int a2 = c->n_nodes++, b2 = c->n_nodes++;
    node *N = c->nodes;
    int an = N[a].next, bp = N[b].prev;
    N[a2].v = N[a].v;
    N[b2].v = N[b].v;
    N[a].next = b;
    N[b].prev = a;
    N[a2].next = an;
    N[an].prev = a2;
    N[b2].next = a2;
    N[a2].prev = b2;
    N[bp].next = b2;
    N[b2].prev = bp;
}

/* The node of the outer ring (from `start`) that hole node m can be bridged to; -1 if
 * none (the hole is not inside). */
static int find_bridge(const clipper *c, int start, int m)
{
    const double *M = pos(c, m);
    double qx = INFINITY;
    int hit = -1, p = start;
    /* the first edge the ray from M along +x meets */
    do {
        int q = c->nodes[p].next;
        const double *a = pos(c, p), *b = pos(c, q);
        if (a[1] != b[1] && ((a[1] <= M[1] && M[1] <= b[1]) || (b[1] <= M[1] && M[1] <= a[1]))) {
            double x = a[0] + (M[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            if (x >= M[0] && x < qx) {
                qx = x;
                hit = a[1] == M[1] ? p : b[1] == M[1] ? q : (a[0] > b[0] ? p : q);
            }
        }
        p = q;
    } while (p != start);
    if (hit < 0) return -1;
    /* vertices inside the triangle (M, I, P) hide P: take the one nearest the ray */
    const double *P = pos(c, hit), I[2] = {qx, M[1]};
    int best = hit;
    double best_tan = INFINITY;
    p = start;
    do {
        const double *R = pos(c, p);
        int inside = same_point(R, P) ||
                     (R[0] > M[0] && (in_triangle(M, I, P, R) || in_triangle(M, P, I, R)));
        if (inside && locally_inside(c, p, M)) {
            double t = fabs(R[1] - M[1]) / (R[0] - M[0]);
            if (t < best_tan || (t == best_tan && R[0] > pos(c, best)[0])) {
                best_tan = t;
                best = p;
            }
        }
        p = c->nodes[p].next;
    } while (p != start);
    return best;
}

/* ---- clipping ---------------------------------------------------------------- */

static int emit(clipper *c, uint32_t a, uint32_t b, uint32_t d)
{
    if (c->n_tri == c->cap_tri) {
        size_t cap = c->cap_tri ? 2 * c->cap_tri : 256;
        uint32_t *t = realloc(c->tri, 3 * cap * sizeof *t);
        if (!t) return 0;
        c->tri = t;
        c->cap_tri = cap;
    }
    uint32_t *t = &c->tri[3 * c->n_tri++];
    t[0] = a;
    t[1] = b;
    t[2] = d;
    return 1;
}

/* Node e is an ear: convex (strictly, or only not reflex when `degenerate`), and no
 * other vertex of the ring in its triangle (vertices at its corners excepted: the
 * bridges' copies). */
static int is_ear(const clipper *c, int e, int degenerate)
{
    int ip = c->nodes[e].prev, in = c->nodes[e].next;
    const double *a = pos(c, ip), *b = pos(c, e), *d = pos(c, in);
    double area = cross3(a, b, d);
    if (degenerate) return area >= -c->eps_area;
    if (!(area > c->eps_area)) return 0;
    for (int p = c->nodes[in].next; p != ip; p = c->nodes[p].next) {
        const double *r = pos(c, p);
        if (same_point(r, a) || same_point(r, b) || same_point(r, d)) continue;
        if (in_triangle(a, b, d, r)) return 0;
    }
    return 1;
}

/* Cuts the ring of `count` nodes from `start` into triangles; 0 when no ear is left. */
static int clip_ring(clipper *c, int start, int count)
{
    int e = start, stop = start, degenerate = 0;
    while (count > 3) {
        int ip = c->nodes[e].prev, in = c->nodes[e].next;
        if (is_ear(c, e, degenerate)) {
            if (!emit(c, c->nodes[ip].v, c->nodes[e].v, c->nodes[in].v)) return -1;
            c->nodes[ip].next = in;
            c->nodes[in].prev = ip;
            count--;
            e = stop = in;
            degenerate = 0;
            continue;
        }
        e = in;
        if (e == stop) {
            if (degenerate) return 0; /* a full turn with nothing to cut */
            degenerate = 1;
        }
    }
    int ip = c->nodes[e].prev, in = c->nodes[e].next;
    return emit(c, c->nodes[ip].v, c->nodes[e].v, c->nodes[in].v) ? 1 : -1;
}

/* ---- caps --------------------------------------------------------------------- */

static double max_x_node(const clipper *c, int start, int *at)
{
    double x = -INFINITY;
    int p = start;
    do {
        if (pos(c, p)[0] > x) {
            x = pos(c, p)[0];
            *at = p;
        }
        p = c->nodes[p].next;
    } while (p != start);
    return x;
}

typedef struct {
    int node;
    double x;
} hole_start;

static int hole_cmp(const void *pa, const void *pb)
{
    const hole_start *a = pa, *b = pb;
    return a->x > b->x ? -1 : (a->x < b->x);
}

/* Triangulates outer contour oc with its holes into c->tri. */
static pw_status cap_region(clipper *c, const pw_text_outline *o, size_t oc, hole_start *holes,
                            pw_error *err)
{
    c->n_nodes = 0;
    int start = make_ring(c, o, oc, 1);
    int count = (int)(o->first[oc + 1] - o->first[oc]), nh = 0;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t k = o->first[oc]; k < o->first[oc + 1]; k++)
        for (int a = 0; a < 2; a++) {
            lo[a] = fmin(lo[a], o->xy[2 * k + a]);
            hi[a] = fmax(hi[a], o->xy[2 * k + a]);
        }
    double size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    c->eps_area = EAR_AREA_FRACTION * size * size;
    for (size_t h = 0; h < o->n_contours; h++) {
        if (o->parent[h] != (int)oc || !o->hole[h]) continue;
        int ring = make_ring(c, o, h, 0);
        holes[nh].x = max_x_node(c, ring, &holes[nh].node);
        nh++;
        count += (int)(o->first[h + 1] - o->first[h]) + 2;
    }
    qsort(holes, (size_t)nh, sizeof *holes, hole_cmp);
    for (int h = 0; h < nh; h++) {
        int p = find_bridge(c, start, holes[h].node);
        if (p < 0)
            return pw_fail(err, PW_ENUMERIC, "text outline: a hole of contour %zu has no "
                           "bridge to its outer contour", oc);
        splice(c, p, holes[h].node);
    }
    int ok = clip_ring(c, start, count);
    if (ok < 0) return pw_fail(err, PW_ENOMEM, "text outline: out of memory for triangles");
    if (ok == 0)
        return pw_fail(err, PW_ENUMERIC, "text outline: ear clipping found no ear in contour "
                       "%zu (character %d)", oc, o->character[oc] + 1);
    return PW_OK;
}

/* ---- public ------------------------------------------------------------------- */

double pw_text_sdf(const pw_text_outline *o, double depth, vec3 p)
{
    /* in the plane: the nearest edge (contours whose box is farther are skipped) and the
     * parity of the contours holding the point (only those whose box holds it can) */
    double best2 = INFINITY;
    int inside = 0;
    for (size_t c = 0; c < o->n_contours; c++) {
        const double *box = &o->box[4 * c];
        double bx = fmax(fmax(box[0] - p.x, p.x - box[2]), 0.0);
        double by = fmax(fmax(box[1] - p.y, p.y - box[3]), 0.0);
        int in_box = bx == 0 && by == 0;
        if (!in_box && bx * bx + by * by >= best2) continue;
        size_t f = o->first[c], m = o->first[c + 1] - f;
        int odd = 0;
        for (size_t k = 0; k < m; k++) {
            const double *u = &o->xy[2 * (f + k)], *v = &o->xy[2 * (f + (k + 1) % m)];
            double ex = v[0] - u[0], ey = v[1] - u[1], l2 = ex * ex + ey * ey;
            double t = l2 > 0 ? ((p.x - u[0]) * ex + (p.y - u[1]) * ey) / l2 : 0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            double dx = u[0] + t * ex - p.x, dy = u[1] + t * ey - p.y;
            best2 = fmin(best2, dx * dx + dy * dy);
            if ((u[1] > p.y) != (v[1] > p.y) && p.x < u[0] + (p.y - u[1]) * ex / ey) odd = !odd;
        }
        inside ^= odd;
    }
    double d2 = inside ? -sqrt(best2) : sqrt(best2), dz = fabs(p.z) - 0.5 * depth;
    /* the prism as a box of the plane's and the slab's distances */
    if (d2 <= 0 && dz <= 0) return fmax(d2, dz);
    return hypot(fmax(d2, 0.0), fmax(dz, 0.0));
}

pw_status pw_text_extrude(const pw_text_outline *o, double depth, pw_mesh *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(depth > 0) || !isfinite(depth))
        return pw_fail(err, PW_EINVAL, "text: depth must be > 0 (%g m)", depth);
    if (o->n_contours == 0 || o->n_points > UINT32_MAX / 2)
        return pw_fail(err, PW_EINVAL, "text: %zu contours of %zu points cannot be a mesh",
                       o->n_contours, o->n_points);
    size_t N = o->n_points;
    /* nodes: every point once, plus two copies per hole for its bridge */
    clipper c = {.xy = o->xy};
    c.nodes = malloc((N + 2 * o->n_contours) * sizeof *c.nodes);
    hole_start *holes = malloc(o->n_contours * sizeof *holes);
    pw_status rc = c.nodes && holes ? PW_OK
                                    : pw_fail(err, PW_ENOMEM, "text: out of memory for %zu "
                                              "points", N);
    for (size_t oc = 0; oc < o->n_contours && rc == PW_OK; oc++)
        if (!o->hole[oc]) rc = cap_region(&c, o, oc, holes, err);
    free(c.nodes);
    free(holes);
    /* vertices: point k at z = +depth/2 is vertex k, at z = -depth/2 vertex N + k */
    size_t n_tri = 2 * c.n_tri + 2 * N;
    if (rc == PW_OK) {
        out->vertices = malloc(2 * N * 3 * sizeof *out->vertices);
        out->triangles = malloc(3 * n_tri * sizeof *out->triangles);
        if (!out->vertices || !out->triangles)
            rc = pw_fail(err, PW_ENOMEM, "text: out of memory for %zu triangles", n_tri);
    }
    if (rc != PW_OK) {
        free(c.tri);
        pw_mesh_free(out);
        return rc;
    }
    out->n_vertices = 2 * N;
    out->n_triangles = n_tri;
    for (size_t k = 0; k < N; k++)
        for (int side = 0; side < 2; side++) {
            float *v = &out->vertices[3 * (k + side * N)];
            v[0] = (float)o->xy[2 * k];
            v[1] = (float)o->xy[2 * k + 1];
            v[2] = (float)(side ? -0.5 * depth : 0.5 * depth);
        }
    uint32_t *t = out->triangles, n32 = (uint32_t)N;
    /* caps: the front as clipped, the back mirrored */
    for (size_t k = 0; k < c.n_tri; k++, t += 6) {
        const uint32_t *q = &c.tri[3 * k];
        t[0] = q[0], t[1] = q[1], t[2] = q[2];
        t[3] = n32 + q[0], t[4] = n32 + q[2], t[5] = n32 + q[1];
    }
    free(c.tri);
    /* walls: each edge a -> b walked with the solid on its left faces right, outward */
    for (size_t ci = 0; ci < o->n_contours; ci++) {
        size_t f = o->first[ci], m = o->first[ci + 1] - f;
        double area = 0;
        for (size_t k = 0; k < m; k++) {
            const double *p = &o->xy[2 * (f + k)], *q = &o->xy[2 * (f + (k + 1) % m)];
            area += p[0] * q[1] - q[0] * p[1];
        }
        int forward = (area > 0) == !o->hole[ci];
        for (size_t k = 0; k < m; k++, t += 6) {
            uint32_t a = (uint32_t)(f + k), b = (uint32_t)(f + (k + 1) % m);
            if (!forward) {
                uint32_t s = a;
                a = b;
                b = s;
            }
            t[0] = a, t[1] = n32 + a, t[2] = n32 + b;
            t[3] = a, t[4] = n32 + b, t[5] = b;
        }
    }
    return PW_OK;
}
