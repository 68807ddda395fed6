/* density.h — stage 2 internals: the sparse brick grid of snow density rasterized from
 * particles, its per-brick majorant, the 3D DDA that walks the majorant grid, and the
 * free-flight (delta tracking) and transmittance (ratio tracking) estimators built on
 * them (medium.c). Internal header of render/; the public entry points are in
 * pw_render.h.
 *
 * Layout. Nodes sit at world positions i*h (i integer). A brick covers 8^3 cells, that
 * is nodes 8b .. 8b+8 per axis: it stores 9^3 node values, its own 8^3 plus the first
 * layer of its +x/+y/+z neighbours, so a trilinear lookup never leaves its brick. The
 * brick table is dense over the bounding box of occupied bricks (1/512 of the voxel
 * count) and holds a slot index or -1; node data exists only for occupied bricks. */
#ifndef PW_DENSITY_H
#define PW_DENSITY_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"
#include "pw_math.h"
#include "sampling.h"

#define PW_BRICK 8                        /* cells per brick side */
#define PW_BRICK_NODES (PW_BRICK + 1)     /* nodes per brick side, shared far face */
#define PW_BRICK_SIZE (PW_BRICK_NODES * PW_BRICK_NODES * PW_BRICK_NODES)

struct pw_density {
    double h, inv_h;      /* node spacing [m] and its inverse [1/m]                  */
    int blo[3];           /* brick coordinates of table cell (0,0,0)                 */
    int bdim[3];          /* table size in bricks                                    */
    int32_t *slot;        /* bdim[0]*bdim[1]*bdim[2]: slot of the brick or -1        */
    double *rho_max;      /* per table cell: max node density of the brick [kg/m^3]  */
    size_t nbricks;
    double *rho;          /* nbricks * PW_BRICK_SIZE node densities [kg/m^3]         */
    double total_mass;    /* sum of rho_i h^3 over distinct nodes [kg]               */
    double mass_scale;    /* bounded raster: its final mass correction (1 = none)    */
    vec3 lo, hi;          /* [m] bounds of the nodes any particle touched            */
    float *column_floor;  /* nbricks * 8^3, per cell: a lower bound [kg/m^2] on the mass
                             per unit area any ray from the cell crosses (column_floor.c);
                             NULL when not built                                     */
};

/* Node coordinates (x / h) beyond this are refused as bad input: they stay well inside
 * int range. */
#define PW_MAX_NODE_COORD 1.0e8

/* Floor of a / b for b > 0. */
static inline int pw_floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Table cell index of brick coordinate (bx, by, bz) relative to blo, x fastest. */
static inline size_t pw_density_cell(const struct pw_density *d, int bx, int by, int bz)
{
    return ((size_t)bz * (size_t)d->bdim[1] + (size_t)by) * (size_t)d->bdim[0] + (size_t)bx;
}

/* Node (i, j, k) of a per-node field laid out like d->rho (d's bricks and slots); 0
 * outside d's bricks. */
double pw_density_field_node(const struct pw_density *d, const double *field, int i, int j,
                             int k);

/* Density [kg/m^3] at world point x by trilinear interpolation of the node values; 0
 * outside occupied bricks. */
double pw_density_lookup(const struct pw_density *d, vec3 x);

/* ---- column floor (column_floor.c) -------------------------------------- */

#define PW_FLOOR_REACH 4 /* the bound looks this many cells around a cell */

/* Builds d->column_floor. @return PW_OK or PW_ENOMEM. */
pw_status pw_density_build_column_floor(struct pw_density *d, pw_error *err);

/* Locates world point x: the slot of the brick holding it, the cell's local coordinates
 * l (0..7) in that brick and the fractions f within the cell. Returns 0 when x lies
 * outside the brick table or in an empty brick. */
static inline int pw_density_locate(const struct pw_density *d, vec3 x, int32_t *slot,
                                    int l[3], double f[3])
{
    const double u[3] = {x.x * d->inv_h, x.y * d->inv_h, x.z * d->inv_h};
    int b[3];
    for (int k = 0; k < 3; k++) {
        if (!(fabs(u[k]) < PW_MAX_NODE_COORD)) return 0;
        double fl = floor(u[k]);
        int i = (int)fl;
        f[k] = u[k] - fl;
        b[k] = pw_floor_div(i, PW_BRICK);
        l[k] = i - b[k] * PW_BRICK;
        b[k] -= d->blo[k];
        if (b[k] < 0 || b[k] >= d->bdim[k]) return 0;
    }
    *slot = d->slot[pw_density_cell(d, b[0], b[1], b[2])];
    return *slot >= 0;
}

/* The column floor [kg/m^2] of the cell holding x: every ray from x crosses at least this
 * much snow per unit area, so its transmittance is at most exp(-sigma_per_rho q). 0 where
 * there is no floor (outside occupied bricks, or none built). */
static inline double pw_density_column_floor_at(const struct pw_density *d, vec3 x)
{
    int32_t s;
    int l[3];
    double f[3];
    if (!d->column_floor || !pw_density_locate(d, x, &s, l, f)) return 0.0;
    return d->column_floor[(size_t)s * (PW_BRICK * PW_BRICK * PW_BRICK) +
                           (size_t)((l[2] * PW_BRICK + l[1]) * PW_BRICK + l[0])];
}

/* ---- 3D DDA over the brick (majorant) grid ------------------------------- */

typedef struct {
    vec3 o, dir;
    double t, tmax;       /* current entry parameter and end of the walk [m]         */
    int cell[3];          /* current table cell                                      */
    int brick[3];         /* table cell of the brick last returned                   */
    const double *rho;    /* its node values, NULL when empty                        */
    int step[3];
    double t_next[3], t_delta[3];
    int done;
    const struct pw_density *d;
} pw_brick_walk;

/* Starts a walk along o + t dir (dir unit) for t in [tmin, tmax]. */
void pw_brick_walk_init(pw_brick_walk *w, const struct pw_density *d, vec3 o, vec3 dir,
                        double tmin, double tmax);

/* Next brick crossed: its parameter interval [*t0, *t1] and max density [kg/m^3] (0 for
 * empty bricks). Returns 0 when the walk has left the grid or passed tmax. */
int pw_brick_walk_next(pw_brick_walk *w, double *t0, double *t1, double *rho_max);

/* Density [kg/m^3] at x inside the brick last returned by pw_brick_walk_next (w->rho
 * non-NULL). Coordinates are clamped into that brick, so a point that rounding puts
 * just outside still reads this brick's values and never exceeds its majorant. */
static inline double pw_brick_walk_lookup(const pw_brick_walk *w, vec3 x)
{
    const struct pw_density *d = w->d;
    double u[3] = {x.x * d->inv_h, x.y * d->inv_h, x.z * d->inv_h}, f[3];
    int l[3];
    for (int k = 0; k < 3; k++) {
        double v = u[k] - (double)((d->blo[k] + w->brick[k]) * PW_BRICK);
        v = v < 0 ? 0 : (v > PW_BRICK ? PW_BRICK : v);
        int i = (int)v;
        if (i > PW_BRICK - 1) i = PW_BRICK - 1;
        l[k] = i;
        f[k] = v - i;
    }
    const double *r = w->rho + (l[2] * PW_BRICK_NODES + l[1]) * PW_BRICK_NODES + l[0];
    const int sy = PW_BRICK_NODES, sz = PW_BRICK_NODES * PW_BRICK_NODES;
    double c00 = r[0] + f[0] * (r[1] - r[0]);
    double c10 = r[sy] + f[0] * (r[sy + 1] - r[sy]);
    double c01 = r[sz] + f[0] * (r[sz + 1] - r[sz]);
    double c11 = r[sz + sy] + f[0] * (r[sz + sy + 1] - r[sz + sy]);
    double c0 = c00 + f[1] * (c10 - c00), c1 = c01 + f[1] * (c11 - c01);
    return c0 + f[2] * (c1 - c0);
}

/* ---- tracking (medium.c) ------------------------------------------------- */

/* Delta tracking: samples the distance to the first real collision along o + t dir,
 * t in (tmin, tmax), in the medium sigma_t = sigma_per_rho * rho(x) [1/m]. Returns 1 and
 * sets *t_hit, or 0 when the photon passes (probability = transmittance). d may be NULL
 * (no medium). */
int pw_medium_sample_collision(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, pw_rng *rng,
                               double *t_hit);

/* Ratio tracking (Novak et al. 2014): an unbiased estimate of the transmittance
 * exp(-int sigma_t) over (tmin, tmax), with Russian roulette once it falls below
 * rr_threshold so opaque paths end early. */
double pw_medium_transmittance(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, double rr_threshold,
                               pw_rng *rng);

/* The optical depth over (tmin, tmax) by the midpoint rule in steps of at most step [m],
 * deterministic; stops where it reaches tau_stop (setting *t_stop there, else INFINITY). */
double pw_medium_optical_depth(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, double step,
                               double tau_stop, double *t_stop);

#endif
