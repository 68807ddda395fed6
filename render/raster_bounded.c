/* raster_bounded.c — stage 2, the default for shots: a density that is smooth inside
 * packed snow and sharp at its surface, on a render grid finer than the simulation grid.
 * The investigation behind it is render/docs/bounded-raster.md.
 *
 *   rho_i = alpha_i * lerp(M)(x_i) / lerp(A)(x_i), then one global scale to the mass
 *
 * - alpha_i in [0, 1]: inside-ness of fine node i (spacing h_r = h_sim / subdiv) under
 *   the particle level set of Zhu and Bridson 2005, phi(x) = |x - xbar(x)| - r, xbar the
 *   kernel-weighted mean of the particles within R, antialiased over one fine spacing
 *   measured with phi's own gradient.
 * - M_X: the particles' density at the coarse spacing H = 2 h_sim (a hat splat smoothed
 *   by K = (1, 4, 1) / 6). It spans 8x the particles of the sim-spacing B-spline, so its
 *   interior noise is a fifth, and it carries the density's meaning: loose snow has a
 *   low M.
 * - A_X: the same footprint (hat restriction of alpha, then K) applied to the level set:
 *   how much of node X's footprint is inside. M / A undoes the fall-off of M near the
 *   surface, so the surface layer is as dense as the interior.
 * - M and A share one footprint, so M / A is the density wherever the level set holds
 *   the mass and the integral is right up to the level set's placement; the final
 *   scale (1.004 on the packed sphere, `mass_scale`) makes it exact to rounding.
 *
 * Determinism: every node value is a pure function of the particles, computed by one
 * thread from sums in a fixed order (particles sorted by cell, cells visited z, y, x),
 * so brick faces stored twice agree bit for bit and no thread count changes a bit. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "pw_render.h"

/* Zhu-Bridson search radius [h_sim]: four particle spacings at 8 particles per cell
 * (~270 neighbours). At 1 h (~30) xbar wanders so far that packed snow has holes
 * (4 % interior std) and the surface is rough; 1.5 h still leaves a 0.33 h edge. */
#define ZB_RADIUS 2.0
/* Particle radius r [h_sim]: puts the surface of packed snow at its mass boundary (the
 * final mass correction is 1.004 on the packed sphere; 0.5 gives 1.002 but a 0.30 h
 * edge, the surface being rougher further out). A lone particle is a clump of radius
 * r at ~160 kg/m^3. */
#define ZB_PARTICLE_RADIUS 0.48
/* Coarse spacing H of the mass field [h_sim]. */
#define COARSE_SPACING 2.0
/* Radius of the particle-bound detail [h_sim]: 1.5 particle spacings at 8 per cell, so
 * the detail varies from particle to particle (~6 in reach) yet is resolved by the phi
 * samples h_sim / 2 apart. */
#define DETAIL_RADIUS 0.75
/* Largest brick table (as density.c). */
#define MAX_TABLE_CELLS ((size_t)1 << 27)

/* ---- particles sorted by cell, with a hash from cell to its run ------------ */

typedef struct {
    int64_t key;          /* packed cell coordinates */
    size_t p;             /* particle index */
} cell_entry;

typedef struct {
    double cell;          /* cell size [m] (= search radius) */
    double *xs;           /* sorted positions, 3 per particle [m] */
    double *noise;        /* sorted detail values in [-1, 1] from the ids, or NULL */
    size_t cap;           /* hash capacity (power of two) */
    int64_t *hkey;        /* cell key or INT64_MIN for empty */
    size_t *hstart, *hcount;
} cell_index;

/* 21 bits per axis, offset so negative cells pack too (cell_index_build refuses cells
 * at or beyond 2^20 from the origin). */
static int64_t cell_key(int64_t i, int64_t j, int64_t k)
{
    const int64_t off = (int64_t)1 << 20;
    return ((k + off) << 42) | ((j + off) << 21) | (i + off);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int cmp_entry(const void *a, const void *b)
{
    const cell_entry *u = a, *v = b;
    if (u->key != v->key) return u->key < v->key ? -1 : 1;
    return u->p < v->p ? -1 : (u->p > v->p);
}

static void cell_index_free(cell_index *ci)
{
    free(ci->xs), free(ci->noise), free(ci->hkey), free(ci->hstart), free(ci->hcount);
    memset(ci, 0, sizeof *ci);
}

static pw_status cell_index_build(cell_index *ci, const double *x, const uint32_t *id,
                                  size_t n, double cell, pw_error *err)
{
    memset(ci, 0, sizeof *ci);
    ci->cell = cell;
    cell_entry *e = malloc(n * sizeof *e);
    ci->xs = malloc(3 * n * sizeof *ci->xs);
    if (id) ci->noise = malloc(n * sizeof *ci->noise);
    for (ci->cap = 16; ci->cap < 2 * n; ci->cap *= 2) {}
    ci->hkey = malloc(ci->cap * sizeof *ci->hkey);
    ci->hstart = malloc(ci->cap * sizeof *ci->hstart);
    ci->hcount = calloc(ci->cap, sizeof *ci->hcount);
    if (!e || !ci->xs || (id && !ci->noise) || !ci->hkey || !ci->hstart || !ci->hcount) {
        free(e);
        cell_index_free(ci);
        return pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory "
                       "(cell index of %zu particles)", n);
    }
    for (size_t p = 0; p < n; p++) {
        int64_t c[3];
        for (int k = 0; k < 3; k++) {
            double u = floor(x[3 * p + k] / cell);
            if (!(fabs(u) < (double)((int64_t)1 << 20) - 2)) {
                free(e);
                cell_index_free(ci);
                return pw_fail(err, PW_EINVAL, "pw_density_rasterize_bounded: particle %zu: "
                               "position %g m is too far from the origin for spacing %g m",
                               p, x[3 * p + k], cell);
            }
            c[k] = (int64_t)u;
        }
        e[p].key = cell_key(c[0], c[1], c[2]);
        e[p].p = p;
    }
    qsort(e, n, sizeof *e, cmp_entry);
    for (size_t s = 0; s < ci->cap; s++) ci->hkey[s] = INT64_MIN;
    for (size_t q = 0; q < n; q++) {
        memcpy(&ci->xs[3 * q], &x[3 * e[q].p], 3 * sizeof(double));
        /* a value of the particle's id, not of its index: caches may reorder particles */
        if (id)
            ci->noise[q] = (double)(mix64(0x5eed5eed5eedull ^ id[e[q].p]) >> 11) * 0x1p-52 - 1;
        if (q > 0 && e[q].key == e[q - 1].key) continue;
        size_t s = mix64((uint64_t)e[q].key) & (ci->cap - 1);
        while (ci->hkey[s] != INT64_MIN) s = (s + 1) & (ci->cap - 1);
        ci->hkey[s] = e[q].key;
        ci->hstart[s] = q;
        size_t r = q;
        while (r < n && e[r].key == e[q].key) r++;
        ci->hcount[s] = r - q;
    }
    free(e);
    return PW_OK;
}

/* First sorted particle and count of cell (i, j, k); count 0 (and start 0, so callers
 * may form a pointer from it) when empty. */
static size_t cell_run(const cell_index *ci, int64_t i, int64_t j, int64_t k, size_t *start)
{
    *start = 0;
    int64_t key = cell_key(i, j, k);
    size_t s = mix64((uint64_t)key) & (ci->cap - 1);
    while (ci->hkey[s] != INT64_MIN) {
        if (ci->hkey[s] == key) {
            *start = ci->hstart[s];
            return ci->hcount[s];
        }
        s = (s + 1) & (ci->cap - 1);
    }
    return 0;
}

/* ---- level set: inside-ness of a fine node ---------------------------------- */

/* Cell runs of the cells around one brick, fetched once so node queries index them. */
typedef struct {
    int64_t c0[3];        /* first cell per axis */
    int dim;              /* cells per axis */
    size_t *start, *count;
} brick_cells;

/* phi, |grad phi| and the particle-bound detail D (the id values averaged over
 * DETAIL_RADIUS, 0 without ids) at xn (out[0] = INFINITY with no particle within R).
 * Used as
 * alpha = clamp(1/2 - phi / (|grad phi| h_r), 0, 1), phi of Zhu and Bridson 2005 (eq. 3
 * with a constant radius): 0 outside, 1 more than half a fine spacing inside. phi is
 * no distance: xbar follows x, so |grad phi| is ~0.6 at a surface, and a ramp in phi
 * alone would smear the edge over 1.7 fine spacings. The gradient is analytic:
 * with e = xbar - x = D / W, D = sum w_p d_p, W = sum w_p, d_p = x_p - x,
 * grad w_p = 6 (1 - s^2)^2 d_p / R^2 and grad phi = (e/|e|)^T (S / W - I - e G^T / W),
 * S = sum d_p grad w_p^T, G = sum grad w_p. */
static void node_phi(const cell_index *ci, const brick_cells *bc, vec3 xn, double R,
                     double r, double out[3])
{
    const double xv[3] = {xn.x, xn.y, xn.z}, inv_R2 = 1.0 / (R * R);
    const double Rd = DETAIL_RADIUS / ZB_RADIUS, inv_Rd2 = 1.0 / (Rd * Rd);
    double Wd = 0, Nd = 0;
    int64_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = (int64_t)floor((xv[a] - R) / ci->cell) - bc->c0[a];
        hi[a] = (int64_t)floor((xv[a] + R) / ci->cell) - bc->c0[a];
    }
    double W = 0, D[3] = {0, 0, 0}, G[3] = {0, 0, 0}, S[6] = {0, 0, 0, 0, 0, 0};
    for (int64_t k = lo[2]; k <= hi[2]; k++)
        for (int64_t j = lo[1]; j <= hi[1]; j++)
            for (int64_t i = lo[0]; i <= hi[0]; i++) {
                size_t c = ((size_t)k * bc->dim + (size_t)j) * bc->dim + (size_t)i;
                const double *q = ci->xs + 3 * bc->start[c];
                for (size_t t = 0; t < bc->count[c]; t++, q += 3) {
                    double dx = q[0] - xv[0], dy = q[1] - xv[1], dz = q[2] - xv[2];
                    double s2 = (dx * dx + dy * dy + dz * dz) * inv_R2;
                    if (s2 >= 1) continue;
                    double u = 1 - s2, w = u * u * u, g = 6 * u * u * inv_R2;
                    if (ci->noise && s2 < Rd * Rd) {
                        double ud = 1 - s2 * inv_Rd2, wd = ud * ud * ud;
                        Wd += wd;
                        Nd += wd * ci->noise[bc->start[c] + t];
                    }
                    W += w;
                    D[0] += w * dx, D[1] += w * dy, D[2] += w * dz;
                    G[0] += g * dx, G[1] += g * dy, G[2] += g * dz;
                    S[0] += g * dx * dx, S[1] += g * dy * dy, S[2] += g * dz * dz;
                    S[3] += g * dx * dy, S[4] += g * dx * dz, S[5] += g * dy * dz;
                }
            }
    out[0] = INFINITY, out[1] = 1, out[2] = Wd > 0 ? Nd / Wd : 0;
    if (W <= 0) return;
    double e[3] = {D[0] / W, D[1] / W, D[2] / W};
    double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    double phi = len - r, grad = 1;
    if (len > 0) {
        double nv[3] = {e[0] / len, e[1] / len, e[2] / len};
        double Sm[3][3] = {{S[0], S[3], S[4]}, {S[3], S[1], S[5]}, {S[4], S[5], S[2]}};
        double ne = nv[0] * e[0] + nv[1] * e[1] + nv[2] * e[2], gv[3];
        for (int a = 0; a < 3; a++)
            gv[a] = (nv[0] * Sm[0][a] + nv[1] * Sm[1][a] + nv[2] * Sm[2][a]) / W - nv[a] -
                    ne * G[a] / W;
        grad = sqrt(gv[0] * gv[0] + gv[1] * gv[1] + gv[2] * gv[2]);
        /* a flat or folded phi (between two blobs) must not turn a ramp into a step */
        grad = grad < 0.25 ? 0.25 : (grad > 1.5 ? 1.5 : grad);
    }
    out[0] = phi, out[1] = grad;
}

/* ---- the bounded rasterizer --------------------------------------------------- */

typedef struct {
    pw_density *d;        /* the fine grid being built (alpha, then rho) */
    pw_density *q;        /* coarse M, then Q = M / A */
    cell_index ci;
    double R, r;
    size_t *slot_cell;
    double detail;        /* amplitude of the detail [-], 0 = none */
    double *dfield;       /* detail D at the fine nodes, laid out like d->rho, or NULL */
} bounded_ctx;

/* Table coordinates of brick slot b of d. */
static void brick_coords(const pw_density *d, size_t c, int b[3])
{
    b[0] = (int)(c % (size_t)d->bdim[0]);
    b[1] = (int)((c / (size_t)d->bdim[0]) % (size_t)d->bdim[1]);
    b[2] = (int)(c / ((size_t)d->bdim[0] * (size_t)d->bdim[1]));
}

/* Cells per axis a brick's queries can reach: 8 fine spacings (<= 8 h_sim) plus R on
 * either side, over cells of size R = 2 h_sim, plus one for the partial cells. */
#define BRICK_CELLS_MAX 12

/* alpha at the 9^3 nodes of one fine brick. */
static void brick_alpha(const bounded_ctx *cx, size_t b)
{
    const pw_density *d = cx->d;
    int bc3[3], n0[3];
    brick_coords(d, cx->slot_cell[b], bc3);
    size_t start[BRICK_CELLS_MAX * BRICK_CELLS_MAX * BRICK_CELLS_MAX];
    size_t count[BRICK_CELLS_MAX * BRICK_CELLS_MAX * BRICK_CELLS_MAX];
    brick_cells bc = {.dim = 0, .start = start, .count = count};
    for (int a = 0; a < 3; a++) {
        n0[a] = (d->blo[a] + bc3[a]) * PW_BRICK;
        bc.c0[a] = (int64_t)floor((n0[a] * d->h - cx->R) / cx->ci.cell);
        int64_t e = (int64_t)floor(((n0[a] + PW_BRICK) * d->h + cx->R) / cx->ci.cell);
        if ((int)(e - bc.c0[a] + 1) > bc.dim) bc.dim = (int)(e - bc.c0[a] + 1);
    }
    assert(bc.dim <= BRICK_CELLS_MAX);
    for (int k = 0; k < bc.dim; k++)
        for (int j = 0; j < bc.dim; j++)
            for (int i = 0; i < bc.dim; i++) {
                size_t c = ((size_t)k * bc.dim + (size_t)j) * bc.dim + (size_t)i;
                bc.count[c] = cell_run(&cx->ci, bc.c0[0] + i, bc.c0[1] + j, bc.c0[2] + k,
                                       &bc.start[c]);
            }
    /* phi is smooth over R: evaluate it on every other node (global parity, so the
     * copies of a brick face agree) and interpolate, 1/6 of the neighbour sums */
    enum { E = PW_BRICK / 2 + 1 };
    double ph[E][E][E][3];
    for (int k = 0; k < E; k++)
        for (int j = 0; j < E; j++)
            for (int i = 0; i < E; i++) {
                vec3 xn = v3((n0[0] + 2 * i) * d->h, (n0[1] + 2 * j) * d->h,
                             (n0[2] + 2 * k) * d->h);
                node_phi(&cx->ci, &bc, xn, cx->R, cx->r, ph[k][j][i]);
            }
    double *out = d->rho + b * PW_BRICK_SIZE;
    for (int k = 0; k < PW_BRICK_NODES; k++)
        for (int j = 0; j < PW_BRICK_NODES; j++)
            for (int i = 0; i < PW_BRICK_NODES; i++) {
                int l[3] = {i / 2, j / 2, k / 2}, o[3] = {i & 1, j & 1, k & 1};
                double phi = 0, grad = 0, det = 0, wsum = 0;
                int outside = 0;
                for (int c = 0; c < 8; c++) {
                    int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
                    if ((di && !o[0]) || (dj && !o[1]) || (dk && !o[2])) continue;
                    const double *v = ph[l[2] + dk][l[1] + dj][l[0] + di];
                    if (isinf(v[0])) outside = 1;
                    phi += v[0], grad += v[1], det += v[2], wsum += 1;
                }
                double a = 0;
                det /= wsum;
                if (!outside) {
                    /* detail also moves the surface: the particles' radius r (1 + a D) */
                    phi = phi / wsum - cx->detail * cx->r * det;
                    a = 0.5 - phi / ((grad / wsum) * d->h);
                    a = a < 0 ? 0 : (a > 1 ? 1 : a);
                }
                size_t v = (k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i;
                out[v] = a;
                if (cx->dfield) cx->dfield[b * PW_BRICK_SIZE + v] = det;
            }
}

/* A_X of coarse node (I, J, K): the alpha grid restricted by the trilinear hat. */
static double coarse_coverage(const pw_density *d, int ratio, const int X[3])
{
    double sum = 0;
    for (int k = -ratio + 1; k < ratio; k++) {
        double wz = 1.0 - fabs((double)k) / ratio;
        for (int j = -ratio + 1; j < ratio; j++) {
            double wyz = wz * (1.0 - fabs((double)j) / ratio);
            for (int i = -ratio + 1; i < ratio; i++) {
                double a = pw_density_node(d, X[0] * ratio + i, X[1] * ratio + j,
                                           X[2] * ratio + k);
                if (a != 0) sum += wyz * (1.0 - fabs((double)i) / ratio) * a;
            }
        }
    }
    return sum / ((double)ratio * ratio * ratio);
}

/* Allocates d's brick table and slots for every brick within R + h_r of a particle. */
static pw_status fine_bricks(pw_density *d, const double *x, size_t n, double reach,
                             size_t **slot_cell, pw_error *err)
{
    int bmin[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, bmax[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (size_t p = 0; p < n; p++)
        for (int k = 0; k < 3; k++) {
            int b0 = pw_floor_div((int)floor((x[3 * p + k] - reach) * d->inv_h), PW_BRICK);
            int b1 = pw_floor_div((int)floor((x[3 * p + k] + reach) * d->inv_h), PW_BRICK);
            if (b0 < bmin[k]) bmin[k] = b0;
            if (b1 > bmax[k]) bmax[k] = b1;
        }
    size_t ncell = 1;
    for (int k = 0; k < 3; k++) {
        d->blo[k] = bmin[k];
        d->bdim[k] = bmax[k] - bmin[k] + 1;
        if ((size_t)d->bdim[k] > MAX_TABLE_CELLS) ncell = MAX_TABLE_CELLS + 1;
        else ncell *= (size_t)d->bdim[k];
        if (ncell > MAX_TABLE_CELLS) break;
    }
    if (ncell > MAX_TABLE_CELLS)
        return pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: particles span more "
                       "than %zu bricks of %g m", MAX_TABLE_CELLS, PW_BRICK * d->h);
    d->slot = malloc(ncell * sizeof *d->slot);
    d->rho_max = calloc(ncell, sizeof *d->rho_max);
    if (!d->slot || !d->rho_max)
        return pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (brick "
                       "table of %zu)", ncell);
    for (size_t c = 0; c < ncell; c++) d->slot[c] = -1;
    for (size_t p = 0; p < n; p++) {
        int b0[3], b1[3];
        for (int k = 0; k < 3; k++) {
            b0[k] = pw_floor_div((int)floor((x[3 * p + k] - reach) * d->inv_h), PW_BRICK) - d->blo[k];
            b1[k] = pw_floor_div((int)floor((x[3 * p + k] + reach) * d->inv_h), PW_BRICK) - d->blo[k];
        }
        for (int bz = b0[2]; bz <= b1[2]; bz++)
            for (int by = b0[1]; by <= b1[1]; by++)
                for (int bx = b0[0]; bx <= b1[0]; bx++) d->slot[pw_density_cell(d, bx, by, bz)] = 0;
    }
    size_t nb = 0;
    for (size_t c = 0; c < ncell; c++)
        if (d->slot[c] == 0) d->slot[c] = (int32_t)nb++;
    d->nbricks = nb;
    *slot_cell = malloc((nb ? nb : 1) * sizeof **slot_cell);
    d->rho = malloc((nb ? nb : 1) * PW_BRICK_SIZE * sizeof *d->rho);
    if (!*slot_cell || !d->rho)
        return pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (%zu "
                       "bricks)", nb);
    for (size_t c = 0; c < ncell; c++)
        if (d->slot[c] >= 0) (*slot_cell)[d->slot[c]] = c;
    return PW_OK;
}


/* Calls op(q, ctx, X, value pointer) for every stored node of the coarse grid (brick
 * faces too, each copy computed from the same inputs), in parallel. */
typedef void (*coarse_op)(const pw_density *q, const void *ctx, const int X[3], size_t v);

static void coarse_for_each(const pw_density *q, const void *ctx, coarse_op op)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t c = 0; c < (size_t)q->bdim[0] * q->bdim[1] * q->bdim[2]; c++) {
        if (q->slot[c] < 0) continue;
        int b[3];
        brick_coords(q, c, b);
        for (int k = 0; k < PW_BRICK_NODES; k++)
            for (int j = 0; j < PW_BRICK_NODES; j++)
                for (int i = 0; i < PW_BRICK_NODES; i++) {
                    int X[3] = {(q->blo[0] + b[0]) * PW_BRICK + i,
                                (q->blo[1] + b[1]) * PW_BRICK + j,
                                (q->blo[2] + b[2]) * PW_BRICK + k};
                    op(q, ctx, X, (size_t)q->slot[c] * PW_BRICK_SIZE +
                                      (k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i);
                }
    }
}

typedef struct {
    const pw_density *d;  /* alpha */
    int ratio;            /* H / h_r */
    const double *in;
    double *out;
} coarse_ctx;

static void op_restrict(const pw_density *q, const void *ctx, const int X[3], size_t v)
{
    (void)q;
    const coarse_ctx *c = ctx;
    c->out[v] = coarse_coverage(c->d, c->ratio, X);
}

/* K = (1, 4, 1) / 6 per axis: the cubic B-spline at the coarse nodes, so that the hat
 * followed by K is (nearly) the kernel M was made with, and M / A sees the same
 * footprint on both sides of the fraction. */
static void op_smooth(const pw_density *q, const void *ctx, const int X[3], size_t v)
{
    const coarse_ctx *c = ctx;
    static const double K[3] = {1.0 / 6, 4.0 / 6, 1.0 / 6};
    double s = 0;
    for (int k = -1; k <= 1; k++)
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++)
                s += K[k + 1] * K[j + 1] * K[i + 1] *
                     pw_density_field_node(q, c->in, X[0] + i, X[1] + j, X[2] + k);
    c->out[v] = s;
}

/* Adds v to node (i, j, k) of field f in every brick that stores it (its owner and,
 * where it sits on a low face, the far faces of the bricks below). */
static void coarse_add(const pw_density *q, double *f, const int n[3], double v)
{
    int b[3], l[3];
    for (int a = 0; a < 3; a++) {
        b[a] = pw_floor_div(n[a], PW_BRICK);
        l[a] = n[a] - b[a] * PW_BRICK;
    }
    for (int m = 0; m < 8; m++) {
        int bb[3], ll[3], ok = 1;
        for (int a = 0; a < 3; a++) {
            int lower = (m >> a) & 1;
            if (lower && l[a] != 0) ok = 0;
            bb[a] = b[a] - lower - q->blo[a];
            ll[a] = lower ? PW_BRICK : l[a];
            if (bb[a] < 0 || bb[a] >= q->bdim[a]) ok = 0;
        }
        if (!ok) continue;
        int32_t s = q->slot[pw_density_cell(q, bb[0], bb[1], bb[2])];
        if (s >= 0)
            f[(size_t)s * PW_BRICK_SIZE + (ll[2] * PW_BRICK_NODES + ll[1]) * PW_BRICK_NODES +
              ll[0]] += v;
    }
}

/* Replaces q->rho by M = K * (particles splatted with the hat) [kg/m^3]: the same
 * footprint A is measured with, so M / A is the density wherever the level set holds
 * the mass. Sequential, in particle order: one pass over n particles is cheap. */
static pw_status coarse_mass(pw_density *q, const double *x, const double *m, size_t n,
                             pw_error *err)
{
    size_t nv = q->nbricks * PW_BRICK_SIZE;
    double *t = calloc(nv ? nv : 1, sizeof *t);
    if (!t)
        return pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (coarse "
                       "grid of %zu nodes)", nv);
    double inv_H3 = q->inv_h * q->inv_h * q->inv_h;
    for (size_t p = 0; p < n; p++) {
        int base[3];
        double f[3];
        for (int a = 0; a < 3; a++) {
            double u = x[3 * p + a] * q->inv_h, fl = floor(u);
            base[a] = (int)fl;
            f[a] = u - fl;
        }
        for (int c = 0; c < 8; c++) {
            int nd[3];
            double w = m[p] * inv_H3;
            for (int a = 0; a < 3; a++) {
                int up = (c >> a) & 1;
                nd[a] = base[a] + up;
                w *= up ? f[a] : 1 - f[a];
            }
            coarse_add(q, t, nd, w);
        }
    }
    coarse_ctx c = {.in = t, .out = q->rho};
    coarse_for_each(q, &c, op_smooth);
    free(t);
    return PW_OK;
}

/* A = K * (alpha restricted by the hat), laid out like q->rho; the caller frees it. */
static double *coarse_coverage_field(const pw_density *q, const pw_density *d, int ratio,
                                     pw_error *err)
{
    size_t nv = q->nbricks * PW_BRICK_SIZE;
    double *t0 = malloc((nv ? nv : 1) * sizeof *t0), *t1 = malloc((nv ? nv : 1) * sizeof *t1);
    if (!t0 || !t1) {
        free(t0), free(t1);
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (coarse grid "
                "of %zu nodes)", nv);
        return NULL;
    }
    coarse_ctx c = {.d = d, .ratio = ratio, .out = t0};
    coarse_for_each(q, &c, op_restrict);
    c.in = t0, c.out = t1;
    coarse_for_each(q, &c, op_smooth);
    free(t0);
    return t1;
}

/* rho = alpha * lerp(M) / lerp(A) at the nodes of fine brick b (q: M, qa: A); returns
 * the brick's own mass (far faces excluded) [kg] and sets its majorant. */
static double brick_density(pw_density *d, const pw_density *q, const pw_density *qa,
                            const bounded_ctx *cx, size_t b, size_t c)
{
    int bc3[3];
    brick_coords(d, c, bc3);
    int n0[3] = {(d->blo[0] + bc3[0]) * PW_BRICK, (d->blo[1] + bc3[1]) * PW_BRICK,
                 (d->blo[2] + bc3[2]) * PW_BRICK};
    double *out = d->rho + b * PW_BRICK_SIZE, mx = 0, mass = 0;
    for (int k = 0; k < PW_BRICK_NODES; k++)
        for (int j = 0; j < PW_BRICK_NODES; j++)
            for (int i = 0; i < PW_BRICK_NODES; i++) {
                double *v = &out[(k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i];
                if (*v == 0) continue;
                vec3 xn = v3((n0[0] + i) * d->h, (n0[1] + j) * d->h, (n0[2] + k) * d->h);
                double A = pw_density_lookup(qa, xn);
                *v = A > 0 ? *v * pw_density_lookup(q, xn) / A : 0;
                if (cx->dfield)
                    *v *= 1 + cx->detail * cx->dfield[b * PW_BRICK_SIZE + (size_t)(v - out)];
                if (*v > mx) mx = *v;
                if (i < PW_BRICK && j < PW_BRICK && k < PW_BRICK) mass += *v;
            }
    d->rho_max[c] = mx;
    return mass * d->h * d->h * d->h;
}

pw_density *pw_density_rasterize_bounded(const double *x, const double *m, const uint32_t *id,
                                         size_t n, double h_sim, int subdiv, double detail,
                                         pw_error *err)
{
    if (!(h_sim > 0) || !isfinite(h_sim)) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize_bounded: grid spacing must be > 0 (%g)",
                h_sim);
        return NULL;
    }
    if (!(detail >= 0 && detail <= 1)) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize_bounded: detail must be in [0, 1] (%g)",
                detail);
        return NULL;
    }
    if (subdiv < 1 || subdiv > 16) {
        pw_fail(err, PW_EINVAL, "pw_density_rasterize_bounded: subdiv must be in [1, 16] (%d)",
                subdiv);
        return NULL;
    }
    /* the coarse mass field; it also checks the particles (finite, mass >= 0, extent) */
    bounded_ctx cx = {0};
    cx.q = pw_density_rasterize(x, m, n, h_sim * COARSE_SPACING, 1, err);
    if (!cx.q) return NULL;
    pw_density *d = cx.d = calloc(1, sizeof *d);
    if (!d) {
        pw_density_destroy(cx.q);
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (density handle)");
        return NULL;
    }
    d->h = h_sim / subdiv;
    d->inv_h = 1.0 / d->h;
    if (n == 0) {
        pw_density_destroy(cx.q);
        return d;
    }
    cx.R = ZB_RADIUS * h_sim;
    cx.r = ZB_PARTICLE_RADIUS * h_sim;
    double *brick_mass = NULL;
    cx.detail = id ? detail : 0;
    if (cell_index_build(&cx.ci, x, cx.detail > 0 ? id : NULL, n, cx.R, err) != PW_OK) goto fail;
    /* alpha > 0 needs a particle within R; +h_r keeps the antialiasing ramp */
    if (fine_bricks(d, x, n, cx.R + d->h, &cx.slot_cell, err) != PW_OK) goto fail;
    brick_mass = malloc((d->nbricks ? d->nbricks : 1) * sizeof *brick_mass);
    if (cx.detail > 0) cx.dfield = malloc((d->nbricks ? d->nbricks : 1) * PW_BRICK_SIZE *
                                          sizeof *cx.dfield);
    if (!brick_mass || (cx.detail > 0 && !cx.dfield)) {
        pw_fail(err, PW_ENOMEM, "pw_density_rasterize_bounded: out of memory (%zu bricks)",
                d->nbricks);
        goto fail;
    }

    /* 1. alpha on the fine grid (the level set) */
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t b = 0; b < d->nbricks; b++) brick_alpha(&cx, b);

    /* 2. M and A on the coarse grid */
    if (coarse_mass(cx.q, x, m, n, err) != PW_OK) goto fail;
    double *A = coarse_coverage_field(cx.q, d, (int)lround(COARSE_SPACING * subdiv), err);
    if (!A) goto fail;
    pw_density qa = *cx.q;
    qa.rho = A;

    /* 3. rho = alpha M / A; majorant and mass per brick */
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t b = 0; b < d->nbricks; b++)
        brick_mass[b] = brick_density(d, cx.q, &qa, &cx, b, cx.slot_cell[b]);
    free(A);

    /* 4. hand back the mass of coarse nodes with no inside node (see the top) */
    double total = 0, target = 0;
    for (size_t b = 0; b < d->nbricks; b++) total += brick_mass[b];
    for (size_t p = 0; p < n; p++) target += m[p];
    double scale = total > 0 ? target / total : 0;
    size_t ncell = (size_t)d->bdim[0] * d->bdim[1] * d->bdim[2];
    for (size_t v = 0; v < d->nbricks * PW_BRICK_SIZE; v++) d->rho[v] *= scale;
    for (size_t c = 0; c < ncell; c++) d->rho_max[c] *= scale;
    d->total_mass = total * scale;
    d->mass_scale = scale;

    /* bounds: every nonzero node lies within R + h_r of a particle */
    vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t p = 0; p < n; p++) {
        vec3 xp = v3(x[3 * p], x[3 * p + 1], x[3 * p + 2]);
        lo = v3(fmin(lo.x, xp.x), fmin(lo.y, xp.y), fmin(lo.z, xp.z));
        hi = v3(fmax(hi.x, xp.x), fmax(hi.y, xp.y), fmax(hi.z, xp.z));
    }
    double reach = cx.R + d->h;
    d->lo = v3(lo.x - reach, lo.y - reach, lo.z - reach);
    d->hi = v3(hi.x + reach, hi.y + reach, hi.z + reach);

    free(brick_mass), free(cx.slot_cell), free(cx.dfield);
    cell_index_free(&cx.ci);
    pw_density_destroy(cx.q);
    return d;

fail:
    free(brick_mass), free(cx.slot_cell), free(cx.dfield);
    cell_index_free(&cx.ci);
    pw_density_destroy(cx.q);
    pw_density_destroy(d);
    return NULL;
}

pw_density *pw_density_build(pw_raster_kind kind, const double *x, const double *m,
                             const uint32_t *id, size_t n, double h_sim, int subdiv,
                             double detail, pw_error *err)
{
    pw_density *d = kind == PW_RASTER_BSPLINE
                        ? pw_density_rasterize(x, m, n, h_sim, subdiv, err)
                        : pw_density_rasterize_bounded(x, m, id, n, h_sim, subdiv, detail, err);
    if (d && pw_density_build_column_floor(d, err) != PW_OK) {
        pw_density_destroy(d);
        return NULL;
    }
    return d;
}
