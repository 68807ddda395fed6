/* tri_mesh.c — triangle-mesh geometry shared by the signed-distance grids (mesh_sdf.c)
 * and the deforming mesh colliders (mesh_deform.c). */
#include <stdlib.h>

#include "tri_mesh.h"

typedef struct {
    uint32_t a, b;  /* vertex indices, a < b */
    uint32_t slot;  /* 3 * triangle + local edge */
    int dir;        /* +1 when the triangle runs a -> b */
} edge_rec;

/* ---- closedness and orientation ------------------------------------------------- */

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_rec *x = pa, *y = pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return x->slot < y->slot ? -1 : (x->slot > y->slot);
}

pw_status pw_tri_pair_edges(pw_tri_mesh *m, const char *name, uint32_t *twin, pw_error *err)
{
    size_t ne = 3 * m->nt;
    edge_rec *e = malloc(ne * sizeof *e);
    if (!e) return pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu edges", name, ne);
    for (size_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->t[3 * t + k], b = m->t[3 * t + (k + 1) % 3];
            edge_rec r = {a < b ? a : b, a < b ? b : a, (uint32_t)(3 * t + k), a < b ? 1 : -1};
            e[3 * t + k] = r;
        }
    qsort(e, ne, sizeof *e, edge_cmp);
    pw_status rc = PW_OK;
    for (size_t i = 0; i < ne && rc == PW_OK;) {
        size_t j = i;
        while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
        if (j - i != 2) {
            rc = pw_fail(err, PW_EFORMAT,
                         "%s: mesh is not closed: edge between vertices %u and %u belongs to %zu "
                         "triangle(s) (must be 2)",
                         name, e[i].a + 1, e[i].b + 1, j - i);
        } else if (e[i].dir == e[i + 1].dir) {
            rc = pw_fail(err, PW_EFORMAT,
                         "%s: inconsistent orientation: triangles %u and %u run the edge between "
                         "vertices %u and %u the same way",
                         name, e[i].slot / 3 + 1, e[i + 1].slot / 3 + 1, e[i].a + 1, e[i].b + 1);
        } else {
            vec3 s = v3_add(m->n_face[e[i].slot / 3], m->n_face[e[i + 1].slot / 3]);
            m->n_edge[e[i].slot] = s;
            m->n_edge[e[i + 1].slot] = s;
            if (twin) {
                twin[e[i].slot] = e[i + 1].slot;
                twin[e[i + 1].slot] = e[i].slot;
            }
        }
        i = j;
    }
    free(e);
    return rc;
}

void pw_tri_normals(pw_tri_mesh *m)
{
    for (size_t i = 0; i < m->nv; i++) m->n_vertex[i] = v3_zero();
    for (size_t t = 0; t < m->nt; t++) {
        const uint32_t *f = &m->t[3 * t];
        vec3 c = v3_cross(v3_sub(m->v[f[1]], m->v[f[0]]), v3_sub(m->v[f[2]], m->v[f[0]]));
        double l = v3_length(c);
        m->n_face[t] = l > 0 ? v3_scale(c, 1.0 / l) : v3_zero();
        for (int k = 0; k < 3; k++) {
            vec3 p = m->v[f[k]];
            vec3 e1 = v3_sub(m->v[f[(k + 1) % 3]], p), e2 = v3_sub(m->v[f[(k + 2) % 3]], p);
            double angle = atan2(v3_length(v3_cross(e1, e2)), v3_dot(e1, e2));
            m->n_vertex[f[k]] = v3_madd(m->n_vertex[f[k]], m->n_face[t], angle);
        }
    }
}

/* ---- exact point-triangle distance ------------------------------------------------ */

static vec3 closest_on_segment(vec3 p, vec3 a, vec3 b, double *d2)
{
    vec3 ab = v3_sub(b, a);
    double l2 = v3_length2(ab), s = l2 > 0 ? v3_dot(v3_sub(p, a), ab) / l2 : 0;
    s = fmin(fmax(s, 0.0), 1.0);
    vec3 q = v3_madd(a, ab, s);
    *d2 = v3_length2(v3_sub(p, q));
    return q;
}

vec3 pw_tri_closest(vec3 p, vec3 a, vec3 b, vec3 c, int *feature)
{
    vec3 ab = v3_sub(b, a), ac = v3_sub(c, a), ap = v3_sub(p, a);
    double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return *feature = 0, a;
    vec3 bp = v3_sub(p, b);
    double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return *feature = 1, b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0)
        return *feature = 3, v3_madd(a, ab, d1 / (d1 - d3));
    vec3 cp = v3_sub(p, c);
    double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return *feature = 2, c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0)
        return *feature = 5, v3_madd(a, ac, d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0)
        return *feature = 4, v3_madd(b, v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double denom = va + vb + vc;
    if (denom > 0) {
        *feature = 6;
        return v3_add(a, v3_add(v3_scale(ab, vb / denom), v3_scale(ac, vc / denom)));
    }
    /* degenerate (zero-area) triangle: nearest of its three edges */
    double da, db, dc;
    vec3 qa = closest_on_segment(p, a, b, &da), qb = closest_on_segment(p, b, c, &db),
         qc = closest_on_segment(p, c, a, &dc);
    if (da <= db && da <= dc) return *feature = 3, qa;
    if (db <= dc) return *feature = 4, qb;
    return *feature = 5, qc;
}

vec3 pw_tri_feature_normal(const pw_tri_mesh *m, size_t t, int feature)
{
    switch (feature) {
    case 0:
    case 1:
    case 2: return m->n_vertex[m->t[3 * t + feature]];
    case 3: return m->n_edge[3 * t + 0];
    case 4: return m->n_edge[3 * t + 1];
    case 5: return m->n_edge[3 * t + 2];
    default: return m->n_face[t];
    }
}

void pw_tri_mesh_free(pw_tri_mesh *m)
{
    free(m->v);
    free(m->t);
    free(m->n_face);
    free(m->n_vertex);
    free(m->n_edge);
}
