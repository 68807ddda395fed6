/* step_scratch.h — what one step holds per particle and per node besides the particles'
 * own state (internal to sim/): a particle's place on the grid and its stencil weights,
 * the stress terms the forces need, the padded node vectors of the stencil loops, the
 * Hessian's size, the phase timers and the reorder's tasks. struct pw_sim
 * (mpm_internal.h) holds them. */
#ifndef PW_STEP_SCRATCH_H
#define PW_STEP_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "pw_kernel.h"
#include "pw_simd.h"

/* Where a particle sits on the grid in one step, computed once from x^n after the sort
 * (32 bytes; s->ps). */
typedef struct {
    double fu[3];     /* (x_p - x_base)/h in [1, 2) (cubic) or [1/2, 3/2)
                         (quadratic): for x_i - x_p                   */
    uint32_t home;    /* home block                                   */
    uint8_t off[3];   /* base node within the home block, 0..3        */
} pw_ploc;

/* A particle's stencil weights, expanded from its pw_ploc by pw_pstep_expand where a
 * loop needs them: a few vector operations per particle, against the 192 bytes a
 * particle that storing them cost in memory and in every pass over the particles. */
typedef struct {
    double w[3][4];   /* N along each axis for the 4 stencil nodes    */
    double dw[3][4];  /* N'/h [1/m]                                   */
    double fu[3];
    uint32_t home;
    uint8_t off[3];
} pw_pstep;

/* The kernel of width W (pw_kernel.h) at the 4 stencil nodes in double (the quadratic's
 * fourth weight 0): the stencil form of pw_kernel.h (polynomials in t = fu - 1 or
 * fu - 1/2, one rounding by 1/6, 1/2 or 1/(2h) at the end). Inlined into each
 * instruction-set clone and built with -ffp-contract=off, so every clone gives the same
 * bits. W is a constant where it is inlined (loops.h, PW_STENCIL_CALL). */
PW_BSPLINE_STENCIL_DEFINE(pw_bspline_stencil4d, v4d, double, PW_BSPLINE_LANES4)

static inline __attribute__((always_inline)) void pw_pstep_expand(const pw_ploc *l, double inv_h,
                                                                  pw_pstep *q, const int W)
{
    double half_inv_h = 0.5 * inv_h;
    for (int ax = 0; ax < 3; ax++) {
        double t = l->fu[ax] - pw_stencil_t_origin(W); /* exact: fu in [t0, t0 + 1) */
        v4d tv = {t, t, t, t}, w, dw;
        pw_bspline_stencil4d(&tv, W, W == PW_STENCIL_CUBIC ? 1.0 / 6.0 : 0.5, half_inv_h, &w,
                             &dw);
        __builtin_memcpy(q->w[ax], &w, sizeof w);
        __builtin_memcpy(q->dw[ax], &dw, sizeof dw);
        q->fu[ax] = l->fu[ax];
        q->off[ax] = l->off[ax];
    }
    q->home = l->home;
}

/* Grid index of node (a, b, c) (each 0..3) of particle q's stencil, for the loops that
 * visit single nodes; the stencil loops proper run on the local box of box.h. */
static inline size_t pw_stencil_node(const pw_grid *g, const pw_ploc *q, int a, int b, int c)
{
    int ox = q->off[0] + a, oy = q->off[1] + b, oz = q->off[2] + c;
    return (size_t)g->nbr[q->home][(ox >> 2) | ((oy >> 2) << 1) | ((oz >> 2) << 2)] *
               PW_BLOCK_NODES +
           (size_t)((ox & 3) | ((oy & 3) << 2) | ((oz & 3) << 4));
}

/* What the stress forces of a step need of a particle, from pw_mpm_prepare_stress:
 * the matrix eq. 5 applies to grad w_ip, and the hardened Lame parameters (for the
 * tests' displaced forces and energies, and failure reports). */
typedef struct {
    double B[9];        /* -V0 P(Fe) Fe^T, row-major      */
    double mu, lambda;  /* [Pa] hardened, eq. 2           */
} pw_pstress;

/* A node vector padded to four doubles: the stencil loops (box.h) move whole nodes as
 * one 4-wide vector. The pad is 0, except in P2G, where it carries the node's mass. */
typedef struct {
    double x, y, z, pad;
} pw_vec4;

/* The same in float, for the Hessian action's input, which the action rounds to float
 * anyway (box_f32.h): stored rounded, it is half the bytes to write and to read. The
 * action's output and the diagonal are summed over the home blocks in float too: each
 * node takes at most eight adds more, and a node of half the bytes made the action
 * faster on the CPU measured (sim/docs/step-speed.md, fourth round). */
typedef struct {
    _Alignas(16) float x; /* (whole nodes for the solver's streamed stores) */
    float y, z, pad;
} pw_vec4f;

/* G -> V0 dP(Fe; G Fe) Fe^T is the Hessian of G -> V0 Psi((I + G) Fe) at G = 0, a
 * symmetric 9x9 matrix acting on G flattened row-major; it is fixed while the solver
 * iterates, so it is built once per step and stored whole, row by row (entry (r, c) at
 * 9 r + c): the Hessian action adds its rows as 8-wide vectors, which costs a quarter
 * of the scalar products on a packed triangle, and was faster on the CPU measured
 * (sim/docs/step-speed.md, "Figures behind the code's comments"). It is stored in
 * float, which halves the largest per-particle array (324 bytes; the action, which is
 * compute-bound, did not slow: sim/docs/memory.md). K is formed in double and rounded
 * once, entry by entry, so it stays exactly symmetric.
 * The action sums in float too (box_f32.h); the roundings (2^-24 each) perturb the
 * operator far below the solve's tolerance. */
#define PW_K_ENTRIES 81

/* Phases of a step, timed by substep() for the benchmark (not part of any result). */
enum {
    PW_PHASE_REBUILD,  /* sort by block, grid rebuild, stencil places of x^n         */
    PW_PHASE_P2G,      /* step 1 (and 2 on the first step)                              */
    PW_PHASE_FORCES,   /* steps 3-5: stress caches, f_i, v*, colliders                  */
    PW_PHASE_SOLVE,    /* step 6                                                        */
    PW_PHASE_UPDATE_F, /* step 7 (SVD and clamp)                                        */
    PW_PHASE_G2P,      /* steps 8-10                                                    */
    PW_PHASE_COUNT
};
typedef struct {
    double wall[PW_PHASE_COUNT]; /* [s] elapsed                                     */
    double cpu[PW_PHASE_COUNT];  /* [s] process CPU time (all threads): what load
                                    from other processes does not inflate           */
} pw_mpm_profile;

/* One task of the particle reorder (transfer.c): the places [lo, hi) the sort's
 * permutation moves, staged from element `at` of the staging area on. */
typedef struct {
    size_t lo, hi, at;
} pw_reorder_task;

#endif
