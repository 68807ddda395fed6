/* column_floor.c — per cell of the density grid, a lower bound on the snow any ray that
 * starts in the cell must cross, whatever its direction: the "column floor" q [kg/m^2].
 * A shadow ray from an event in that cell has transmittance at most exp(-sigma_per_rho q),
 * so the tracer can play Russian roulette on next-event estimation deep inside packed
 * snow, where a shadow ray costs as much as a scattering step and returns almost nothing
 * (render/docs/noise.md).
 *
 * Why it is a bound. Take cell c (nodes c .. c+1 per axis) and R >= 1. A ray from any
 * point of c travels its first R h inside the box of cells c-R .. c+R, and there the
 * trilinear density is at least the smallest node value of that box, m_R. So the first
 * R h of the ray cross at least m_R R h of mass per unit area, and
 *     q(c) = max over R = 1 .. PW_FLOOR_REACH of m_R R h
 * is a lower bound for the whole ray. Nodes outside occupied bricks are 0, as every
 * lookup takes them, so a cell near the snow's surface has q = 0 and loses nothing.
 *
 * The box minima are built per brick over its 3^3 neighbourhood: cell minima of the
 * brick and a PW_FLOOR_REACH-cell apron, then R passes of a 3-wide separable minimum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"

#define APRON PW_FLOOR_REACH
#define SIDE_NODES (PW_BRICK + 1 + 2 * APRON) /* nodes of the gathered block per axis */
#define SIDE_CELLS (SIDE_NODES - 1)

/* Node values of brick (bx, by, bz)'s block, from node 8 b - APRON to 8 b + 8 + APRON per
 * axis, copied from the 27 bricks around it; 0 where no brick is stored. A node on a face
 * two bricks share takes the smaller of their two copies. */
static void gather_block(const struct pw_density *d, int bx, int by, int bz, double *block)
{
    const size_t nodes = (size_t)SIDE_NODES * SIDE_NODES * SIDE_NODES;
    for (size_t v = 0; v < nodes; v++) block[v] = INFINITY;
    const int b0[3] = {bx, by, bz};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int nb[3] = {b0[0] + dx, b0[1] + dy, b0[2] + dz}, dd[3] = {dx, dy, dz};
                int out = 0;
                for (int a = 0; a < 3; a++) out |= nb[a] < 0 || nb[a] >= d->bdim[a];
                if (out) continue;
                int32_t s = d->slot[pw_density_cell(d, nb[0], nb[1], nb[2])];
                if (s < 0) continue;
                const double *src = d->rho + (size_t)s * PW_BRICK_SIZE;
                /* local node l of the neighbour is block node l + off */
                int off[3], lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    off[a] = PW_BRICK * dd[a] + APRON;
                    lo[a] = off[a] < 0 ? -off[a] : 0;
                    hi[a] = PW_BRICK_NODES - 1;
                    if (hi[a] + off[a] > SIDE_NODES - 1) hi[a] = SIDE_NODES - 1 - off[a];
                }
                for (int k = lo[2]; k <= hi[2]; k++)
                    for (int j = lo[1]; j <= hi[1]; j++)
                        for (int i = lo[0]; i <= hi[0]; i++) {
                            double *v = block + ((k + off[2]) * SIDE_NODES + j + off[1]) *
                                                    SIDE_NODES + i + off[0];
                            double r = src[(k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i];
                            if (r < *v) *v = r;
                        }
            }
    for (size_t v = 0; v < nodes; v++)
        if (block[v] == INFINITY) block[v] = 0.0;
}

static inline double min2(double a, double b) { return b < a ? b : a; }

/* One pass of out = min(in[-1], in[0], in[+1]) along `axis` of a SIDE_CELLS^3 array, over
 * the index box lo .. hi (per axis). */
static void min3_pass(const double *in, double *out, int axis, const int lo[3], const int hi[3])
{
    const int stride[3] = {1, SIDE_CELLS, SIDE_CELLS * SIDE_CELLS};
    const int s = stride[axis];
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                int c = (k * SIDE_CELLS + j) * SIDE_CELLS + i;
                out[c] = min2(min2(in[c - s], in[c]), in[c + s]);
            }
}

/* The floor of every cell of one brick into out[512]. a, b: SIDE_CELLS^3 work arrays. */
static void brick_floor(const struct pw_density *d, int bx, int by, int bz, double *block,
                        double *a, double *b, float *out)
{
    gather_block(d, bx, by, bz, block);
    /* level 0: each cell's minimum over its 8 corner nodes */
    const int sy = SIDE_NODES, sz = SIDE_NODES * SIDE_NODES;
    for (int k = 0; k < SIDE_CELLS; k++)
        for (int j = 0; j < SIDE_CELLS; j++)
            for (int i = 0; i < SIDE_CELLS; i++) {
                const double *n = block + (k * SIDE_NODES + j) * SIDE_NODES + i;
                double m = min2(min2(min2(n[0], n[1]), min2(n[sy], n[sy + 1])),
                                min2(min2(n[sz], n[sz + 1]), min2(n[sz + sy], n[sz + sy + 1])));
                a[(k * SIDE_CELLS + j) * SIDE_CELLS + i] = m;
            }
    double best[PW_BRICK * PW_BRICK * PW_BRICK] = {0};
    for (int R = 1; R <= APRON; R++) {
        /* level R = the minimum over cells i-R .. i+R per axis, valid on R .. S-1-R; each
         * pass reads the previous pass where it is valid (P) and writes the new range (N) */
        const int P0 = R - 1, P1 = SIDE_CELLS - R, N0 = R, N1 = SIDE_CELLS - 1 - R;
        const int lx[3] = {N0, P0, P0}, hx[3] = {N1, P1, P1};
        const int ly[3] = {N0, N0, P0}, hy[3] = {N1, N1, P1};
        const int lz[3] = {N0, N0, N0}, hz[3] = {N1, N1, N1};
        min3_pass(a, b, 0, lx, hx);
        min3_pass(b, a, 1, ly, hy);
        min3_pass(a, b, 2, lz, hz);
        double *t = a;
        a = b, b = t;
        for (int k = 0; k < PW_BRICK; k++)
            for (int j = 0; j < PW_BRICK; j++)
                for (int i = 0; i < PW_BRICK; i++) {
                    double m = a[((k + APRON) * SIDE_CELLS + j + APRON) * SIDE_CELLS + i + APRON];
                    double q = m * R * d->h;
                    int c = (k * PW_BRICK + j) * PW_BRICK + i;
                    if (q > best[c]) best[c] = q;
                }
    }
    /* float rounding must not lift the bound */
    for (int c = 0; c < PW_BRICK * PW_BRICK * PW_BRICK; c++)
        out[c] = (float)(best[c] * (1.0 - 1e-6));
}

pw_status pw_density_build_column_floor(struct pw_density *d, pw_error *err)
{
    if (!d || d->nbricks == 0) return PW_OK;
    const size_t cells = (size_t)PW_BRICK * PW_BRICK * PW_BRICK;
    float *floor = malloc(d->nbricks * cells * sizeof *floor);
    if (!floor)
        return pw_fail(err, PW_ENOMEM, "density: out of memory (column floor of %zu bricks)",
                       d->nbricks);
    const size_t ncell = (size_t)d->bdim[0] * d->bdim[1] * d->bdim[2];
    int failed = 0;
#pragma omp parallel
    {
        const size_t nodes = (size_t)SIDE_NODES * SIDE_NODES * SIDE_NODES,
                     cube = (size_t)SIDE_CELLS * SIDE_CELLS * SIDE_CELLS;
        double *block = malloc(nodes * sizeof *block), *a = malloc(cube * sizeof *a),
               *b = malloc(cube * sizeof *b);
        if (!block || !a || !b) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (size_t c = 0; c < ncell; c++) {
            int32_t s = d->slot[c];
            if (s < 0 || !block || !a || !b) continue;
            int bx = (int)(c % (size_t)d->bdim[0]);
            int by = (int)((c / (size_t)d->bdim[0]) % (size_t)d->bdim[1]);
            int bz = (int)(c / ((size_t)d->bdim[0] * (size_t)d->bdim[1]));
            brick_floor(d, bx, by, bz, block, a, b, floor + (size_t)s * cells);
        }
        free(block), free(a), free(b);
    }
    if (failed) {
        free(floor);
        return pw_fail(err, PW_ENOMEM, "density: out of memory (column floor work space)");
    }
    free(d->column_floor);
    d->column_floor = floor;
    return PW_OK;
}
