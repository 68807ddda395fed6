/* shapes.c — closed part meshes, rigid poses and the OBJ writer; see character.h.
 *
 * Every part is built so that its faces wind counter-clockwise seen from outside
 * (outward normals, positive signed volume); poses are proper rotations, so the
 * winding survives. Faces are quads where the surface is a grid (our OBJ reader fans
 * them into two triangles) and triangles at the poles. */
#include "character.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- storage ------------------------------------------------------------- */

static int grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    void *p = realloc(*a, n * elem);
    if (!p) return -1;
    *a = p;
    *cap = n;
    return 0;
}

static long add_vertex(char_mesh *m, double x, double y, double z)
{
    if (grow((void **)&m->local, &m->cap_v, m->nv + 1, 3 * sizeof(double))) return -1;
    double *v = m->local + 3 * m->nv;
    v[0] = x, v[1] = y, v[2] = z;
    return (long)m->nv++;
}

static int add_face(char_mesh *m, int n, const uint32_t *c)
{
    if (grow((void **)&m->faces, &m->cap_f, m->nf + 1, sizeof(char_face))) return -1;
    char_face *f = &m->faces[m->nf++];
    memset(f, 0, sizeof *f);
    memcpy(f->c, c, (size_t)n * sizeof(uint32_t));
    f->n = n;
    return 0;
}

static int begin_part(char_mesh *m, const char *name)
{
    if (m->n_parts >= CHAR_MAX_PARTS) return -1;
    part *p = &m->parts[m->n_parts];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->v0 = m->nv;
    p->f0 = m->nf;
    return m->n_parts;
}

static int end_part(char_mesh *m, int k)
{
    part *p = &m->parts[k];
    p->nv = m->nv - p->v0;
    p->nf = m->nf - p->f0;
    m->n_parts++;
    return k;
}

void char_mesh_free(char_mesh *m)
{
    if (!m) return;
    free(m->local);
    free(m->faces);
    memset(m, 0, sizeof *m);
}

/* ---- surfaces of revolution about +y --------------------------------------- */

int char_add_lathe(char_mesh *m, const char *name, const double *py, const double *pr,
                     int n, int seg, double sx, double sz)
{
    int k = begin_part(m, name);
    if (k < 0) return -1;
    long pole0 = add_vertex(m, 0, py[0], 0);
    if (pole0 < 0) return -1;
    for (int i = 1; i < n - 1; i++)
        for (int j = 0; j < seg; j++) {
            double phi = 2 * CHAR_PI * j / seg;
            if (add_vertex(m, sx * pr[i] * cos(phi), py[i], sz * pr[i] * sin(phi)) < 0)
                return -1;
        }
    long pole1 = add_vertex(m, 0, py[n - 1], 0);
    if (pole1 < 0) return -1;
    /* ring i (1..n-2), segment j -> vertex index */
#define RING(i, j) ((uint32_t)(pole0 + 1 + (long)((i) - 1) * seg + (long)((j) % seg)))
    for (int j = 0; j < seg; j++) {
        /* along +y then around +phi is outward: (0,1,0) x (-sin, 0, cos) = (cos, 0, sin) */
        uint32_t bottom[3] = {(uint32_t)pole0, RING(1, j), RING(1, j + 1)};
        if (add_face(m, 3, bottom)) return -1;
        for (int i = 1; i < n - 2; i++) {
            uint32_t q[4] = {RING(i, j), RING(i + 1, j), RING(i + 1, j + 1), RING(i, j + 1)};
            if (add_face(m, 4, q)) return -1;
        }
        uint32_t top[3] = {(uint32_t)pole1, RING(n - 2, j + 1), RING(n - 2, j)};
        if (add_face(m, 3, top)) return -1;
    }
#undef RING
    return end_part(m, k);
}

int char_add_capsule(char_mesh *m, const char *name, double length, double r0, double r1,
                     int detail)
{
    /* The hull of spheres r0 at y = 0 and r1 at y = length: the cone between them
     * touches both where the normal is tilted by gamma toward the thinner end. */
    double gamma = asin((r0 - r1) / length);
    int n0 = detail + 1, n1 = detail + 1; /* latitude steps per cap */
    int n = n0 + n1 + 2;
    double py[64], pr[64];
    if (n > 64) return -1;
    int c = 0;
    for (int i = 0; i <= n0; i++) {
        double th = -CHAR_PI / 2 + (gamma + CHAR_PI / 2) * i / n0;
        py[c] = r0 * sin(th), pr[c++] = r0 * cos(th);
    }
    for (int i = 0; i <= n1; i++) {
        double th = gamma + (CHAR_PI / 2 - gamma) * i / n1;
        py[c] = length + r1 * sin(th), pr[c++] = r1 * cos(th);
    }
    pr[0] = pr[c - 1] = 0;
    return char_add_lathe(m, name, py, pr, c, 6 * detail + 2, 1, 1);
}

int char_add_ellipsoid(char_mesh *m, const char *name, dvec3 center, dvec3 radii, int detail)
{
    int n = 2 * detail + 4;
    double py[64], pr[64];
    if (n > 64) return -1;
    for (int i = 0; i < n; i++) {
        double th = -CHAR_PI / 2 + CHAR_PI * i / (n - 1);
        py[i] = radii.y * sin(th), pr[i] = cos(th);
    }
    pr[0] = pr[n - 1] = 0;
    size_t first = m->nv;
    int k = char_add_lathe(m, name, py, pr, n, 6 * detail + 2, radii.x, radii.z);
    if (k < 0) return -1;
    for (size_t v = first; v < m->nv; v++) {
        m->local[3 * v] += center.x;
        m->local[3 * v + 1] += center.y;
        m->local[3 * v + 2] += center.z;
    }
    return k;
}

/* ---- rounded box ------------------------------------------------------------- */

/* Grid coordinate i (0..N) along one axis of the cube around the box: the box is the
 * core [c0, c1] grown by r; each band of width r takes nb steps, the core ncore. */
static double grid_coord(int i, int nb, int ncore, double c0, double c1, double r)
{
    if (i <= nb) return c0 - r + r * i / nb;
    if (i <= nb + ncore) return c0 + (c1 - c0) * (i - nb) / ncore;
    return c1 + r * (i - nb - ncore) / nb;
}

int char_add_rounded_box(char_mesh *m, const char *name, dvec3 lo, dvec3 hi, double r,
                         double taper0, double taper1, int detail)
{
    double c0[3] = {lo.x + r, lo.y + r, lo.z + r}, c1[3] = {hi.x - r, hi.y - r, hi.z - r};
    int nb = detail + 1, ncore[3];
    for (int a = 0; a < 3; a++) {
        if (!(c1[a] > c0[a])) return -1;
        /* the core's faces are flat (the taper keeps them planar): few steps, only so
         * that a long face is not one sliver; the rounding bands carry the detail */
        ncore[a] = (int)ceil((c1[a] - c0[a]) / (3 * r));
        if (ncore[a] < 1) ncore[a] = 1;
    }
    int N[3] = {2 * nb + ncore[0], 2 * nb + ncore[1], 2 * nb + ncore[2]};
    size_t cells = (size_t)(N[0] + 1) * (N[1] + 1) * (N[2] + 1);
    long *index = malloc(cells * sizeof *index);
    if (!index) return -1;
    for (size_t c = 0; c < cells; c++) index[c] = -1;
    int k = begin_part(m, name);
    if (k < 0) return free(index), -1;
#define AT(i, j, l) index[((size_t)(i) * (N[1] + 1) + (size_t)(j)) * (N[2] + 1) + (size_t)(l)]
    /* vertices: every grid point on the cube's surface, pushed onto the rounded box by
     * clamping to the core and stepping r along the direction away from it */
    for (int i = 0; i <= N[0]; i++)
        for (int j = 0; j <= N[1]; j++)
            for (int l = 0; l <= N[2]; l++) {
                int g[3] = {i, j, l};
                int surface = 0;
                for (int a = 0; a < 3; a++) surface |= g[a] == 0 || g[a] == N[a];
                if (!surface) continue;
                double p[3], q[3], d[3], len = 0;
                for (int a = 0; a < 3; a++) {
                    p[a] = grid_coord(g[a], nb, ncore[a], c0[a], c1[a], r);
                    q[a] = p[a] < c0[a] ? c0[a] : p[a] > c1[a] ? c1[a] : p[a];
                    d[a] = p[a] - q[a];
                    len += d[a] * d[a];
                }
                len = sqrt(len);
                for (int a = 0; a < 3; a++) p[a] = q[a] + r * d[a] / len;
                double s = (p[0] - lo.x) / (hi.x - lo.x);
                p[2] *= taper0 + (taper1 - taper0) * s;
                long v = add_vertex(m, p[0], p[1], p[2]);
                if (v < 0) return free(index), -1;
                AT(i, j, l) = v;
            }
    /* faces: the cube's six grids; on the side facing +axis the (u, v) = (axis+1,
     * axis+2) order winds outward (e_u x e_v = e_axis), on the other side reversed */
    for (int ax = 0; ax < 3; ax++)
        for (int side = 0; side < 2; side++) {
            int u = (ax + 1) % 3, w = (ax + 2) % 3;
            for (int a = 0; a < N[u]; a++)
                for (int b = 0; b < N[w]; b++) {
                    int g[4][3];
                    int du[4] = {0, 1, 1, 0}, dw[4] = {0, 0, 1, 1};
                    for (int c = 0; c < 4; c++) {
                        g[c][ax] = side ? N[ax] : 0;
                        g[c][u] = a + du[c];
                        g[c][w] = b + dw[c];
                    }
                    uint32_t q[4];
                    for (int c = 0; c < 4; c++) {
                        int cc = side ? c : 3 - c;
                        q[c] = (uint32_t)AT(g[cc][0], g[cc][1], g[cc][2]);
                    }
                    if (add_face(m, 4, q)) return free(index), -1;
                }
        }
#undef AT
    free(index);
    return end_part(m, k);
}

/* ---- poses ----------------------------------------------------------------- */

rigid rigid_identity(void)
{
    rigid r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
    return r;
}

rigid rigid_rot_z(double angle, dvec3 t)
{
    double c = cos(angle), s = sin(angle);
    rigid r = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}, t};
    return r;
}

rigid rigid_mul(rigid a, rigid b)
{
    rigid r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.R[i][j] = a.R[i][0] * b.R[0][j] + a.R[i][1] * b.R[1][j] + a.R[i][2] * b.R[2][j];
    r.t = rigid_apply(a, b.t);
    return r;
}

dvec3 rigid_apply(rigid a, dvec3 p)
{
    dvec3 r = {a.R[0][0] * p.x + a.R[0][1] * p.y + a.R[0][2] * p.z + a.t.x,
               a.R[1][0] * p.x + a.R[1][1] * p.y + a.R[1][2] * p.z + a.t.y,
               a.R[2][0] * p.x + a.R[2][1] * p.y + a.R[2][2] * p.z + a.t.z};
    return r;
}

rigid rigid_bone(dvec3 from, dvec3 to)
{
    /* R_z(a) (0, 1) = (-sin a, cos a) must point along to - from */
    double a = atan2(-(to.x - from.x), to.y - from.y);
    return rigid_rot_z(a, from);
}

/* ---- output ------------------------------------------------------------------ */

int char_write_obj(FILE *f, const char_mesh *m, const rigid *pose, rigid world_from_char,
                   const char *comment)
{
    fprintf(f, "# %s\n", comment);
    for (int k = 0; k < m->n_parts; k++) {
        const part *p = &m->parts[k];
        rigid world_from_part = rigid_mul(world_from_char, pose[k]);
        fprintf(f, "o %s\n", p->name);
        for (size_t v = p->v0; v < p->v0 + p->nv; v++) {
            dvec3 l = {m->local[3 * v], m->local[3 * v + 1], m->local[3 * v + 2]};
            dvec3 w = rigid_apply(world_from_part, l);
            /* "-0.00000" and "0.00000" are the same point; print one spelling so that
             * equal poses give equal bytes */
            double c[3] = {w.x, w.y, w.z};
            for (int a = 0; a < 3; a++)
                if (fabs(c[a]) < 5e-6) c[a] = 0;
            fprintf(f, "v %.5f %.5f %.5f\n", c[0], c[1], c[2]);
        }
        for (size_t i = p->f0; i < p->f0 + p->nf; i++) {
            const uint32_t *c = m->faces[i].c;
            if (m->faces[i].n == 3)
                fprintf(f, "f %u %u %u\n", c[0] + 1, c[1] + 1, c[2] + 1);
            else
                fprintf(f, "f %u %u %u %u\n", c[0] + 1, c[1] + 1, c[2] + 1, c[3] + 1);
        }
    }
    return ferror(f) ? -1 : 0;
}

double char_part_volume(const char_mesh *m, int k)
{
    const part *p = &m->parts[k];
    double vol = 0;
    for (size_t i = p->f0; i < p->f0 + p->nf; i++) {
        const uint32_t *c = m->faces[i].c;
        const double *a = m->local + 3 * c[0];
        for (int t = 1; t + 1 < m->faces[i].n; t++) {
            const double *b = m->local + 3 * c[t], *d = m->local + 3 * c[t + 1];
            vol += (a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                    a[2] * (b[0] * d[1] - b[1] * d[0])) / 6;
        }
    }
    return vol;
}

double char_part_min_y(const char_mesh *m, int k, rigid pose)
{
    const part *p = &m->parts[k];
    double lo = INFINITY;
    for (size_t v = p->v0; v < p->v0 + p->nv; v++) {
        dvec3 l = {m->local[3 * v], m->local[3 * v + 1], m->local[3 * v + 2]};
        double y = rigid_apply(pose, l).y;
        if (y < lo) lo = y;
    }
    return lo;
}
