/* density.c — stage 2: B-spline rasterization of particles into sparse density bricks,
 * the per-brick majorant, trilinear lookup and the brick DDA.
 *
 * Determinism: particles are bucketed by the brick that holds their first kernel node
 * (a stable counting sort), then each brick gathers from the 27 buckets around it in a
 * fixed order. No thread ever writes another brick's nodes, and the sum for a node is
 * formed in the same order whichever brick (owner or apron) computes it, so both copies
 * of a shared face agree bit for bit and nothing depends on the thread count. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "pw_kernel.h"
#include "pw_render.h"

/* Largest brick table we allocate: 2^27 cells (~1.5 GB of table and counts) means a
 * bounding box of 4096^3 voxels, far beyond a sane frame; a larger one is a bad input. */
#define MAX_TABLE_CELLS ((size_t)1 << 27)

/* ---- helpers --------------------------------------------------------------- */

typedef struct {
    int base[3];      /* first kernel node per axis */
} particle_nodes;

/* Kernel weights of a particle at scaled position u (= x / h) for the 4 nodes per axis. */
static void particle_weights(const double *xp, double inv_h, double w[3][4], int base[3])
{
    for (int k = 0; k < 3; k++) base[k] = pw_bspline_weights(xp[k] * inv_h, inv_h, w[k], NULL);
}

static pw_status check_particles(const double *x, const double *m, size_t n, double inv_h,
                                 pw_error *err)
{
    for (size_t p = 0; p < n; p++) {
        for (int k = 0; k < 3; k++) {
            double u = x[3 * p + k] * inv_h;
            if (!isfinite(x[3 * p + k]))
                return pw_fail(err, PW_ENUMERIC, "pw_density_rasterize: particle %zu: "
                               "position is not finite (%g)", p, x[3 * p + k]);
            if (fabs(u) > PW_MAX_NODE_COORD)
                return pw_fail(err, PW_EINVAL, "pw_density_rasterize: particle %zu: position "
                               "%g m is too far from the origin for spacing %g m", p,
                               x[3 * p + k], 1.0 / inv_h);
        }
        if (!isfinite(m[p]) || m[p] < 0)
            return pw_fail(err, PW_EINVAL, "pw_density_rasterize: particle %zu: mass must be "
                           "finite and >= 0 (%g)", p, m[p]);
    }
    return PW_OK;
}

/* Gathers every particle of the 27 buckets around brick (bx, by, bz) (table coords)
 * into its 9^3 node values. */
static void gather_brick(const pw_density *d, int bx, int by, int bz, const double *x,
                         const double *m, const size_t *bucket_start, const size_t *order,
                         double *out)
{
    double scale = d->inv_h * d->inv_h * d->inv_h;
    int n0[3] = {(d->blo[0] + bx) * PW_BRICK, (d->blo[1] + by) * PW_BRICK,
                 (d->blo[2] + bz) * PW_BRICK};
    memset(out, 0, sizeof(double) * PW_BRICK_SIZE);
    for (int cz = bz - 1; cz <= bz + 1; cz++) {
        if (cz < 0 || cz >= d->bdim[2]) continue;
        for (int cy = by - 1; cy <= by + 1; cy++) {
            if (cy < 0 || cy >= d->bdim[1]) continue;
            for (int cx = bx - 1; cx <= bx + 1; cx++) {
                if (cx < 0 || cx >= d->bdim[0]) continue;
                size_t c = pw_density_cell(d, cx, cy, cz);
                for (size_t q = bucket_start[c]; q < bucket_start[c + 1]; q++) {
                    size_t p = order[q];
                    double w[3][4];
                    int base[3], lo[3], hi[3], ok = 1;
                    particle_weights(&x[3 * p], d->inv_h, w, base);
                    /* the particle's nodes base..base+3 clipped to this brick's 0..8 */
                    for (int k = 0; k < 3; k++) {
                        lo[k] = base[k] - n0[k] < 0 ? 0 : base[k] - n0[k];
                        hi[k] = base[k] + 3 - n0[k] > PW_BRICK ? PW_BRICK : base[k] + 3 - n0[k];
                        if (lo[k] > hi[k]) ok = 0;
                    }
                    if (!ok) continue;
                    double mp = m[p] * scale;
                    for (int k = lo[2]; k <= hi[2]; k++) {
                        double wz = mp * w[2][k + n0[2] - base[2]];
                        for (int j = lo[1]; j <= hi[1]; j++) {
                            double wyz = wz * w[1][j + n0[1] - base[1]];
                            double *row = out + (k * PW_BRICK_NODES + j) * PW_BRICK_NODES;
                            for (int i = lo[0]; i <= hi[0]; i++)
                                row[i] += wyz * w[0][i + n0[0] - base[0]];
                        }
                    }
                }
            }
        }
    }
}

/* ---- public: rasterization ------------------------------------------------ */

pw_density *pw_density_rasterize(const double *x, const double *m, size_t n, double h_sim,
                                 int subdiv, pw_error *err)
{
    if (!(h_sim > 0) || !isfinite(h_sim)) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize: grid spacing must be > 0 (%g)", h_sim);
        return NULL;
    }
    if (subdiv < 1 || subdiv > 64) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize: subdiv must be in [1, 64] (%d)", subdiv);
        return NULL;
    }
    if (n > 0 && (!x || !m)) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize: NULL particle arrays (n = %zu)", n);
        return NULL;
    }
    pw_density *d = calloc(1, sizeof *d);
    if (!d) {
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize: out of memory (density handle)");
        return NULL;
    }
    d->h = h_sim / subdiv;
    d->inv_h = 1.0 / d->h;
    d->mass_scale = 1.0;
    if (n == 0) return d;
    if (check_particles(x, m, n, d->inv_h, err) != PW_OK) goto fail;

    /* 1. extent of the bricks the kernels touch (a node at a brick's low face is also
     * the far face of the brick below, which must exist for exact lookups) */
    int bmin[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, bmax[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    int nmin[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, nmax[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (size_t p = 0; p < n; p++) {
        for (int k = 0; k < 3; k++) {
            int base = (int)floor(x[3 * p + k] * d->inv_h) - 1;
            int b0 = pw_floor_div(base - 1, PW_BRICK), b1 = pw_floor_div(base + 3, PW_BRICK);
            if (b0 < bmin[k]) bmin[k] = b0;
            if (b1 > bmax[k]) bmax[k] = b1;
            if (base < nmin[k]) nmin[k] = base;
            if (base + 3 > nmax[k]) nmax[k] = base + 3;
        }
    }
    size_t ncell = 1;
    for (int k = 0; k < 3; k++) {
        d->blo[k] = bmin[k];
        d->bdim[k] = bmax[k] - bmin[k] + 1;
        ncell *= (size_t)d->bdim[k];
    }
    d->lo = v3(nmin[0] * d->h, nmin[1] * d->h, nmin[2] * d->h);
    d->hi = v3(nmax[0] * d->h, nmax[1] * d->h, nmax[2] * d->h);
    if (ncell > MAX_TABLE_CELLS) {
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize: particles span %d x %d x %d bricks of "
                "%g m, more than the limit of %zu", d->bdim[0], d->bdim[1], d->bdim[2],
                PW_BRICK * d->h, MAX_TABLE_CELLS);
        goto fail;
    }

    /* 2. occupied bricks, bucket of each particle (stable counting sort by owner brick) */
    size_t *bucket_start = calloc(ncell + 1, sizeof *bucket_start);
    size_t *order = malloc(n * sizeof *order);
    size_t *owner = malloc(n * sizeof *owner);
    d->slot = malloc(ncell * sizeof *d->slot);
    d->rho_max = calloc(ncell, sizeof *d->rho_max);
    if (!bucket_start || !order || !owner || !d->slot || !d->rho_max) {
        free(bucket_start), free(order), free(owner);
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize: out of memory (brick table of %zu)",
                ncell);
        goto fail;
    }
    for (size_t c = 0; c < ncell; c++) d->slot[c] = -1;
    for (size_t p = 0; p < n; p++) {
        int b0[3], b1[3], bo[3];
        for (int k = 0; k < 3; k++) {
            int base = (int)floor(x[3 * p + k] * d->inv_h) - 1;
            b0[k] = pw_floor_div(base - 1, PW_BRICK) - d->blo[k];
            b1[k] = pw_floor_div(base + 3, PW_BRICK) - d->blo[k];
            bo[k] = pw_floor_div(base, PW_BRICK) - d->blo[k];
        }
        for (int bz = b0[2]; bz <= b1[2]; bz++)
            for (int by = b0[1]; by <= b1[1]; by++)
                for (int bx = b0[0]; bx <= b1[0]; bx++) d->slot[pw_density_cell(d, bx, by, bz)] = 0;
        owner[p] = pw_density_cell(d, bo[0], bo[1], bo[2]);
        bucket_start[owner[p] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++) bucket_start[c + 1] += bucket_start[c];
    {
        size_t *fill = malloc(ncell * sizeof *fill);
        if (!fill) {
            free(bucket_start), free(order), free(owner);
            pw_fail(err, PW_ENOMEM, "pw_density_rasterize: out of memory (buckets)");
            goto fail;
        }
        memcpy(fill, bucket_start, ncell * sizeof *fill);
        for (size_t p = 0; p < n; p++) order[fill[owner[p]]++] = p;
        free(fill);
    }
    free(owner);

    /* 3. slots for occupied bricks, in table order */
    size_t nb = 0;
    for (size_t c = 0; c < ncell; c++)
        if (d->slot[c] == 0) d->slot[c] = (int32_t)nb++;
    d->nbricks = nb;
    size_t *slot_cell = malloc(nb * sizeof *slot_cell);
    d->rho = malloc(nb * PW_BRICK_SIZE * sizeof *d->rho);
    double *brick_mass = malloc(nb * sizeof *brick_mass);
    if (!slot_cell || !d->rho || !brick_mass) {
        free(slot_cell), free(brick_mass), free(bucket_start), free(order);
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize: out of memory (%zu bricks)", nb);
        goto fail;
    }
    for (size_t c = 0; c < ncell; c++)
        if (d->slot[c] >= 0) slot_cell[d->slot[c]] = c;

    /* 4. gather per brick, in parallel; majorant and mass per brick */
    double h3 = d->h * d->h * d->h;
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t b = 0; b < nb; b++) {
        size_t c = slot_cell[b];
        int bx = (int)(c % (size_t)d->bdim[0]);
        int by = (int)((c / (size_t)d->bdim[0]) % (size_t)d->bdim[1]);
        int bz = (int)(c / ((size_t)d->bdim[0] * (size_t)d->bdim[1]));
        double *out = d->rho + b * PW_BRICK_SIZE;
        gather_brick(d, bx, by, bz, x, m, bucket_start, order, out);
        double mx = 0, mass = 0;
        for (int k = 0; k < PW_BRICK_NODES; k++)
            for (int j = 0; j < PW_BRICK_NODES; j++)
                for (int i = 0; i < PW_BRICK_NODES; i++) {
                    double v = out[(k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i];
                    if (v > mx) mx = v;
                    /* the far faces belong to the next brick: count them there */
                    if (i < PW_BRICK && j < PW_BRICK && k < PW_BRICK) mass += v;
                }
        d->rho_max[c] = mx;
        brick_mass[b] = mass * h3;
    }
    double total = 0;
    for (size_t b = 0; b < nb; b++) total += brick_mass[b];
    d->total_mass = total;
    free(slot_cell), free(brick_mass), free(bucket_start), free(order);
    return d;

fail:
    pw_density_destroy(d);
    return NULL;
}

void pw_density_destroy(pw_density *d)
{
    if (!d) return;
    free(d->slot);
    free(d->rho_max);
    free(d->rho);
    free(d->column_floor);
    free(d);
}

pw_status pw_density_bounds(const pw_density *d, vec3 *lo, vec3 *hi)
{
    if (!d || d->nbricks == 0) return PW_EINVAL;
    *lo = d->lo;
    *hi = d->hi;
    return PW_OK;
}

double pw_density_total_mass(const pw_density *d) { return d ? d->total_mass : 0.0; }

double pw_density_spacing(const pw_density *d) { return d ? d->h : 0.0; }

double pw_density_mass_scale(const pw_density *d) { return d ? d->mass_scale : 1.0; }

double pw_density_field_node(const pw_density *d, const double *field, int i, int j, int k)
{
    if (!d || d->nbricks == 0) return 0.0;
    int n[3] = {i, j, k}, b[3], l[3];
    for (int a = 0; a < 3; a++) {
        if (fabs((double)n[a]) > PW_MAX_NODE_COORD) return 0.0;
        b[a] = pw_floor_div(n[a], PW_BRICK);
        l[a] = n[a] - b[a] * PW_BRICK;
        b[a] -= d->blo[a];
        if (b[a] < 0 || b[a] >= d->bdim[a]) return 0.0;
    }
    int32_t s = d->slot[pw_density_cell(d, b[0], b[1], b[2])];
    if (s < 0) return 0.0;
    return field[(size_t)s * PW_BRICK_SIZE + (l[2] * PW_BRICK_NODES + l[1]) * PW_BRICK_NODES +
                 l[0]];
}

double pw_density_node(const pw_density *d, int i, int j, int k)
{
    return d ? pw_density_field_node(d, d->rho, i, j, k) : 0.0;
}

void pw_density_visit(const pw_density *d, pw_density_node_fn fn, void *user)
{
    if (!d || d->nbricks == 0) return;
    for (int bz = 0; bz < d->bdim[2]; bz++)
        for (int by = 0; by < d->bdim[1]; by++)
            for (int bx = 0; bx < d->bdim[0]; bx++) {
                int32_t s = d->slot[pw_density_cell(d, bx, by, bz)];
                if (s < 0) continue;
                const double *r = d->rho + (size_t)s * PW_BRICK_SIZE;
                int n0[3] = {(d->blo[0] + bx) * PW_BRICK, (d->blo[1] + by) * PW_BRICK,
                             (d->blo[2] + bz) * PW_BRICK};
                /* the far faces (index 8) are the next brick's own nodes, and the brick
                 * owning any node a kernel touches is occupied: each node once */
                for (int k = 0; k < PW_BRICK; k++)
                    for (int j = 0; j < PW_BRICK; j++)
                        for (int i = 0; i < PW_BRICK; i++) {
                            int ijk[3] = {n0[0] + i, n0[1] + j, n0[2] + k};
                            vec3 x = v3(ijk[0] * d->h, ijk[1] * d->h, ijk[2] * d->h);
                            fn(user, ijk, x, r[(k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i]);
                        }
            }
}

/* ---- lookup ------------------------------------------------------------------ */

double pw_density_lookup(const pw_density *d, vec3 x)
{
    if (!d || d->nbricks == 0) return 0.0;
    int32_t s;
    int l[3];
    double f[3];
    if (!pw_density_locate(d, x, &s, l, f)) return 0.0;
    const double *r = d->rho + (size_t)s * PW_BRICK_SIZE +
                      (l[2] * PW_BRICK_NODES + l[1]) * PW_BRICK_NODES + l[0];
    const int sy = PW_BRICK_NODES, sz = PW_BRICK_NODES * PW_BRICK_NODES;
    double c00 = r[0] + f[0] * (r[1] - r[0]);
    double c10 = r[sy] + f[0] * (r[sy + 1] - r[sy]);
    double c01 = r[sz] + f[0] * (r[sz + 1] - r[sz]);
    double c11 = r[sz + sy] + f[0] * (r[sz + sy + 1] - r[sz + sy]);
    double c0 = c00 + f[1] * (c10 - c00), c1 = c01 + f[1] * (c11 - c01);
    return c0 + f[2] * (c1 - c0);
}

/* ---- brick DDA (Amanatides and Woo 1987) -------------------------------------- */

void pw_brick_walk_init(pw_brick_walk *w, const pw_density *d, vec3 o, vec3 dir, double tmin,
                        double tmax)
{
    w->d = d;
    w->o = o;
    w->dir = dir;
    w->rho = NULL;
    w->done = 1;
    if (!d || d->nbricks == 0 || !(tmax > tmin)) return;
    const double bs = PW_BRICK * d->h, inv_bs = 1.0 / bs;
    const double o3[3] = {o.x, o.y, o.z}, d3[3] = {dir.x, dir.y, dir.z};
    double t0 = tmin, t1 = tmax, inv[3];
    /* clip to the table's box */
    for (int k = 0; k < 3; k++) {
        double lo = d->blo[k] * bs, hi = (d->blo[k] + d->bdim[k]) * bs;
        if (d3[k] == 0) {
            if (o3[k] < lo || o3[k] > hi) return;
            inv[k] = 0;
            continue;
        }
        inv[k] = 1.0 / d3[k];
        double ta = (lo - o3[k]) * inv[k], tb = (hi - o3[k]) * inv[k];
        if (ta > tb) { double s = ta; ta = tb; tb = s; }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
    }
    if (!(t0 < t1)) return;
    w->t = t0;
    w->tmax = t1;
    for (int k = 0; k < 3; k++) {
        int c = (int)floor((o3[k] + t0 * d3[k]) * inv_bs) - d->blo[k];
        /* the entry point sits on the box face up to rounding */
        c = c < 0 ? 0 : (c >= d->bdim[k] ? d->bdim[k] - 1 : c);
        w->cell[k] = c;
        if (d3[k] > 0) {
            w->step[k] = 1;
            w->t_next[k] = ((d->blo[k] + c + 1) * bs - o3[k]) * inv[k];
            w->t_delta[k] = bs * inv[k];
        } else if (d3[k] < 0) {
            w->step[k] = -1;
            w->t_next[k] = ((d->blo[k] + c) * bs - o3[k]) * inv[k];
            w->t_delta[k] = -bs * inv[k];
        } else {
            w->step[k] = 0;
            w->t_next[k] = INFINITY;
            w->t_delta[k] = INFINITY;
        }
    }
    w->done = 0;
}

int pw_brick_walk_next(pw_brick_walk *w, double *t0, double *t1, double *rho_max)
{
    if (w->done) return 0;
    const pw_density *d = w->d;
    int k = 0;
    if (w->t_next[1] < w->t_next[k]) k = 1;
    if (w->t_next[2] < w->t_next[k]) k = 2;
    double t_exit = w->t_next[k] < w->tmax ? w->t_next[k] : w->tmax;
    size_t c = pw_density_cell(d, w->cell[0], w->cell[1], w->cell[2]);
    *t0 = w->t;
    *t1 = t_exit;
    *rho_max = d->rho_max[c];
    w->brick[0] = w->cell[0], w->brick[1] = w->cell[1], w->brick[2] = w->cell[2];
    w->rho = d->slot[c] >= 0 ? d->rho + (size_t)d->slot[c] * PW_BRICK_SIZE : NULL;
    /* advance */
    w->t = t_exit;
    if (t_exit >= w->tmax) {
        w->done = 1;
    } else {
        w->cell[k] += w->step[k];
        w->t_next[k] += w->t_delta[k];
        if (w->cell[k] < 0 || w->cell[k] >= d->bdim[k]) w->done = 1;
    }
    return 1;
}
