/* mpm_internal.h — the solver's state and the steps of section 4.1, shared by
 * mpm.c (orchestration), transfer.c (particle <-> grid), hessian.c (eqs. 7-8, on the
 * local box of box.h), solver.c (eq. 9), sim_state.c (save/load) and the physics
 * tests. Not a public API. */
#ifndef PW_MPM_INTERNAL_H
#define PW_MPM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "constitutive.h"
#include "grid.h"
#include "particles.h"
#include "pw_sim.h"

/* Particle state, structure of arrays (all n entries); the fields are listed once, in
 * particles.c, for everything that handles them as a set. */
typedef struct pw_particles {
    size_t n, cap;
    vec3 *x;          /* [m]                                        */
    vec3 *v;          /* [m/s]                                      */
    double *m;        /* [kg]                                       */
    double *V0;       /* [m^3] initial volume (0 until initialised) */
    mat3 *Fe, *Fp;    /* elastic and plastic deformation gradients  */
    mat3 *C;          /* [1/s] APIC affine velocity                 */
    double *mu0, *lambda0;  /* [Pa]                                 */
    double *xi, *theta_c, *theta_s, *Jp_min, *Jp_max; /* [-]        */
    uint32_t *id;     /* index in the order of addition             */
} pw_particles;

/* Per-particle data of one step, computed once from x^n after the sort. */
typedef struct {
    double w[3][4];   /* N along each axis for the 4 stencil nodes    */
    double dw[3][4];  /* N'/h [1/m]                                   */
    double fu[3];     /* (x_p - x_base)/h in [1, 2): for x_i - x_p     */
    uint32_t home;    /* home block                                   */
    uint8_t off[3];   /* base node within the home block, 0..3        */
} pw_pstep;

/* Grid index of node (a, b, c) (each 0..3) of particle q's stencil, for the loops that
 * visit single nodes; the stencil loops proper run on the local box of box.h. */
static inline size_t pw_stencil_node(const pw_grid *g, const pw_pstep *q, int a, int b, int c)
{
    int ox = q->off[0] + a, oy = q->off[1] + b, oz = q->off[2] + c;
    return (size_t)g->nbr[q->home][(ox >> 2) | ((oy >> 2) << 1) | ((oz >> 2) << 2)] *
               PW_BLOCK_NODES +
           (size_t)((ox & 3) | ((oy & 3) << 2) | ((oz & 3) << 4));
}

/* A node vector padded to four doubles: the stencil loops (box.h) move whole nodes as
 * one 4-wide vector. The pad is 0, except in P2G, where it carries the node's mass. */
typedef struct {
    double x, y, z, pad;
} pw_vec4;

/* G -> V0 dP(Fe; G Fe) Fe^T is the Hessian of G -> V0 Psi((I + G) Fe) at G = 0, a
 * symmetric 9x9 matrix acting on G flattened row-major; it is fixed while the solver
 * iterates, so it is built once per step and stored whole, row by row (entry (r, c) at
 * 9 r + c): the Hessian action adds its rows as 8-wide vectors, which costs a quarter
 * of the scalar products on a packed triangle (measured: 85 -> 63 ns per particle and
 * action at 3e5 particles, more than paying for the 288 extra bytes it reads). */
#define PW_K_ENTRIES 81

/* Phases of a step, timed by substep() for the benchmark (not part of any result). */
enum {
    PW_PHASE_REBUILD,  /* sort by block, grid rebuild, weights of x^n                  */
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

struct pw_sim {
    pw_sim_params p;
    int threads_max;            /* from params (0 resolved to the OpenMP default) */
    int threads;                /* used this step: fewer for small problems, where
                                   fork/join costs more than the work */
    size_t particles_per_thread;   /* that threshold (tests lower it) */
    /* Contention: when other processes hold the cores, a thread that reaches one of the
     * step's few hundred barriers waits a scheduler time slice for its partner, and two
     * threads run many times slower than one (measured: 171 s vs 11 s per frame at 3e4
     * particles on the shared 2-core machine). A step whose CPU time falls far short of
     * threads x elapsed marks the machine contended: the next steps use one thread,
     * and more are tried again after a back-off. */
    int contended_steps;        /* steps left on one thread                              */
    int contended_backoff;      /* length of the next such stretch [steps]              */
    uint64_t contended_total;   /* steps run on one thread for contention (benchmark)    */
    pw_colliders *colliders;
    pw_particles pt;
    pw_grid grid;

    int failed;                 /* a step stopped with an error: state is not saved */

    /* clock and counters */
    double t;                   /* [s] */
    uint64_t steps;
    double dt_last;
    double max_speed;
    int cr_iterations_last;
    uint64_t cr_iterations_total, cr_solves, cr_not_converged;
    pw_mpm_profile prof;        /* accumulated since creation */

    /* per-step scratch, sized with the particles / nodes */
    size_t cap_step;
    pw_pstep *ps;
    pw_fcr_cache *fcr;          /* R, S, cof(Fe^n), hardened mu, lambda */
    double (*K)[PW_K_ENTRIES];   /* the linearised stress of each particle (pw_mpm_prepare_stress) */
    size_t *home_scratch;       /* one entry per home block */
    pw_svd3 *fe_svd;            /* SVD of each Fe from the last plasticity step, which the
                                   next step's stress reuses instead of factoring Fe again */
    int fe_svd_valid;           /* set by a step, cleared where Fe comes from elsewhere (new
                                   particles, a loaded cache) and at the start of each
                                   pw_sim_advance_to call, so a run resumed from a cache
                                   repeats the bits of one that was not interrupted */
    uint32_t *perm;
    void *reorder_tmp;
    size_t cap_solve;
    double *inv_sqrt_m;         /* per node, 0 where m = 0 */
    vec3 *cr[5];                /* CR vectors x r p Ar Ap */
    pw_vec4 *u4, *Hu4;          /* the Hessian action's input M^-1/2 r and output */
    vec3 *dinv;                 /* per DOF, the inverse of the diagonal of eq. 9's
                                   operator (Jacobi); the upper half of cr[4]'s block,
                                   so it is freed with it */
    double *partial;            /* per-chunk partial sums of dots (two sets) */

    /* warm start of the solve: the implicit correction v^{n+1} - v* of the previous step
     * per node, with the block keys it belongs to (solver.c) */
    int warm_valid;             /* cleared with fe_svd_valid, for the same reason, and
                                   when particles are added */
    size_t warm_blocks, cap_warm;
    uint64_t *warm_keys;
    vec3 *warm_dv;
    uint32_t *warm_map;         /* per current block: its index among warm_keys, or
                                   UINT32_MAX */
};

/* ---- mpm.c --------------------------------------------------------------- */
/* Sizes the step scratch, sorts particles, rebuilds the grid and the weights of x^n:
 * what every step does before step 1 (tests call it to run single steps). */
pw_status pw_mpm_begin_step(pw_sim *s, pw_error *err);

/* ---- transfer.c ---------------------------------------------------------- */
/* Set by a test to run the narrow forms of the stencil kernels where the wide ones
 * would run (box.h), to compare them; 0 otherwise. */
extern int pw_box_force_narrow;

/* Calls fn(s, home, ctx) for every home block, in parallel within each of the 8
 * colours (grid.h): a scatter that writes only its home block's 2x2x2 neighbourhood
 * gets the same sums for any thread count. */
typedef void (*pw_home_fn)(const pw_sim *s, uint32_t home, void *ctx);
void pw_mpm_for_homes_by_colour(pw_sim *s, pw_home_fn fn, void *ctx);
/* Calls fn(s, home, ctx) for every home block in parallel, in any order: for gathers,
 * which write only their own particles. */
void pw_mpm_for_homes(pw_sim *s, pw_home_fn fn, void *ctx);
/* Sorts particles by block, rebuilds the grid, fills s->ps. */
pw_status pw_mpm_rebuild_grid(pw_sim *s, pw_error *err);
/* 1. P2G: m_i and v_i (normalised momentum, with APIC's affine term); v_old = v. */
void pw_mpm_p2g(pw_sim *s);
/* 2. rho_p^0 = sum_i m_i w_ip / h^3, V0 = m_p / rho_p^0 for particles with V0 = 0. */
void pw_mpm_init_volumes(pw_sim *s);
/* Hardened mu, lambda, R, S of Fe^n per particle (pw_fcr_cache). */
void pw_mpm_prepare_stress(pw_sim *s);
/* 3. f_i = -sum_p V0 P(Fe_hat) Fe^T grad w_ip, eq. 5, where Fe_hat = (I + sum_i
 * dx_i grad w_ip^T) Fe for a node displacement field dx [m] (NULL: dx = 0, eq. 6).
 * Needs pw_mpm_prepare_stress. Writes grid.f. */
void pw_mpm_grid_forces(pw_sim *s, const vec3 *dx);
/* Phi(dx) = sum_p V0 Psi(Fe_hat(dx)) [J] (for the force test). */
double pw_mpm_energy(pw_sim *s, const vec3 *dx);
/* ---- hessian.c ----------------------------------------------------------- */
/* (H u)_i = sum_p V0 dP(Fe; (sum_j u_j grad w_jp^T) Fe) Fe^T grad w_ip, eqs. 7-8.
 * Needs pw_mpm_prepare_stress; uses s->u4, s->Hu4 as scratch (the tests' form). */
void pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu);
/* The same on padded node vectors (the solver's form; u and Hu must not overlap). */
void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4 *u, pw_vec4 *Hu);
/* d_i = the diagonal of H at node i, one entry per DOF [N/m] (the solver's Jacobi
 * preconditioner), padded. Needs pw_mpm_prepare_stress. */
void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4 *d);

/* ---- transfer.c (continued) ---------------------------------------------- */
/* 7. Fe_hat = (I + dt grad v_p) Fe, then the clamp of eqs. 11-12. Returns the
 * index of the first particle whose update failed (non-finite), or n. */
size_t pw_mpm_update_deformation(pw_sim *s, double dt);
/* 8. PIC/FLIP blend or APIC velocity (and C) from the grid. */
void pw_mpm_g2p(pw_sim *s);

/* ---- solver.c ------------------------------------------------------------ */
/* 6. Solves eq. 9 for grid.v (input v*, fixed DOFs keep their value) by conjugate
 * residual; iteration count in *iterations, *converged. PW_ENUMERIC on NaN/Inf. */
pw_status pw_mpm_solve(pw_sim *s, double dt, int *iterations, int *converged, pw_error *err);

/* Deterministic sum of a[k] over k < n (fixed chunks, combined in order). */
double pw_mpm_sum(const pw_sim *s, const double *a, size_t n);

#endif
