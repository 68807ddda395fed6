/* mpm_internal.h — the solver's state, shared by mpm.c (orchestration), transfer.c
 * (particle <-> grid), hessian.c (K and eqs. 7-8, on the local box of box.h), solver.c
 * (eq. 9), loops.c, sim_state.c (save/load) and the physics tests. Calls run one way:
 * mpm.c -> transfer, hessian, solver; solver -> hessian; all -> loops. Not a public
 * API. */
#ifndef PW_MPM_INTERNAL_H
#define PW_MPM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "constitutive.h"
#include "grid.h"
#include "particles.h"
#include "seed.h"
#include "pw_kernel.h"
#include "pw_sim.h"
#include "pw_simd.h"

/* Particle state, structure of arrays (all n entries); the fields are listed once, in
 * particles.c, for everything that handles them as a set. */
typedef struct pw_particles {
    size_t n, cap;
    int apic;         /* the fields marked apic_only are held (else NULL, not saved) */
    vec3 *x;          /* [m]                                        */
    vec3 *v;          /* [m/s]                                      */
    double *m;        /* [kg]                                       */
    double *V0;       /* [m^3] initial volume (0 until initialised) */
    mat3 *Fe, *Fp;    /* elastic and plastic deformation gradients  */
    mat3 *C;          /* [1/s] APIC affine velocity                 */
    double *mu0, *lambda0;  /* [Pa]                                 */
    double *xi, *theta_c, *theta_s, *Jp_min, *Jp_max; /* [-]        */
    double *Jp_floor; /* [-] least J_P plastic compaction reaches (0 = none) */
    uint32_t *id;     /* index in the order of addition             */
    int rests;        /* snow may rest: `rest` is held                */
    uint32_t *rest;   /* steps at rest in a row (rest.c)             */
    int layered;      /* a layered body was added: `layer` is held    */
    uint32_t *layer;  /* seeded layer, 1 = top, 0 = body material (seed.h); only
                         measured (pw_stats.h), the step never reads it */
    int laws;         /* a body of one of the optional laws was added: the fields
                         below are held (sim/docs/durable-snow.md)                 */
    uint32_t *law;    /* PW_LAW_* bits (seed.h)                                     */
    double *friction_angle; /* [rad] Drucker-Prager                                 */
    double *cohesion; /* [Pa] of intact snow; durability scales it                  */
    double *durability_rate; /* [-] per unit plastic stretch                        */
    double *durability; /* [-] 1 intact, falls to 0, never rises                    */
    double *rho_rest; /* [kg/m^3] rho |det Fe| measured on the grid (0: not yet)     */
    /* Bodies: the particles of one pw_sim_add_particles call, ids [body_start[b],
     * body_start[b + 1]) (the last to n). A particle's first rest volume counts only
     * its own body's mass (transfer.c, step 2). */
    uint32_t *body_start;
    size_t n_bodies, cap_bodies;
} pw_particles;

/* J_P as eq. 2's hardening reads it, clamped to the particle's [Jp_min, Jp_max]: det Fp,
 * or under density hardening rho0 / rho_rest, the seeded density over the rest density
 * measured on the grid (Gissler et al. 2020, eq. 21-23; sim/docs/durable-snow.md) once
 * it has been measured. */
static inline double pw_particle_Jp(const pw_particles *pt, size_t p)
{
    return pw_law_Jp(pt->laws ? pt->law[p] : PW_LAW_CLAMP, m3_det(pt->Fp[p]), pt->m[p],
                     pt->V0[p], pt->laws ? pt->rho_rest[p] : 0, pt->Jp_min[p], pt->Jp_max[p]);
}

/* Where a particle sits on the grid in one step, computed once from x^n after the sort
 * (32 bytes; s->ps). */
typedef struct {
    double fu[3];     /* (x_p - x_base)/h in [1, 2): for x_i - x_p     */
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

/* The cubic B-spline at the 4 stencil nodes in double: the stencil form of pw_kernel.h
 * (polynomials in t = fu - 1, one rounding by 1/6 or 1/(2h) at the end). Inlined into
 * each instruction-set clone and built with -ffp-contract=off, so every clone gives the
 * same bits. */
PW_BSPLINE_STENCIL_DEFINE(pw_bspline_stencil4d, v4d, double, PW_BSPLINE_LANES4)

static inline __attribute__((always_inline)) void pw_pstep_expand(const pw_ploc *l, double inv_h,
                                                                  pw_pstep *q)
{
    double half_inv_h = 0.5 * inv_h;
    for (int ax = 0; ax < 3; ax++) {
        double t = l->fu[ax] - 1.0; /* exact: fu in [1, 2) */
        v4d tv = {t, t, t, t}, w, dw;
        pw_bspline_stencil4d(&tv, 1.0 / 6.0, half_inv_h, &w, &dw);
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

/* One step's implicit correction per node of its grid (solver.c's warm start). */
typedef struct {
    size_t blocks, cap;
    uint64_t *keys;             /* its grid's block keys (sorted) */
    vec3 *dv;                   /* [m/s] v^{n+1} - v*, 64 per block */
    uint32_t *map;              /* per block of the current grid: the index of the same
                                   block among keys, or UINT32_MAX */
} pw_warm_step;

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

struct pw_sim {
    pw_sim_params p;
    int threads_max;            /* from params (0 resolved to the OpenMP default) */
    int wide;                   /* the stencil kernels' wide forms run (box.h): decided
                                   once, from params.kernel_width and the CPU */
    int threads;                /* used this step: fewer for small problems, where
                                   fork/join costs more than the work */
    size_t particles_per_thread;   /* that threshold (tests lower it) */
    struct pw_home_run *home_runs; /* the home loops' work sharing (loops.c) */
    /* Contention: when other processes hold the cores, a thread that reaches one of the
     * step's few hundred barriers waits a scheduler time slice for its partner, and two
     * threads run many times slower than one (sim/docs/step-speed.md, "Figures behind
     * the code's comments"). A step whose CPU time falls far short of threads x
     * elapsed while other tasks preempted its threads (pw_mpm_step_contended) marks the
     * machine contended: the next steps use one thread, and more are tried again after a
     * back-off. */
    int contended_steps;        /* steps left on one thread                              */
    int contended_backoff;      /* length of the next such stretch [steps]              */
    uint64_t contended_total;   /* steps run on one thread for contention (benchmark)    */
    pw_colliders *colliders;
    pw_particles pt;
    pw_grid grid;

    /* Which particles a step moves (rest.c, decided once per step in pw_mpm_begin_step):
     * the sort puts the resting ones last, and every particle loop of the step runs
     * over the first n_step. */
    size_t n_step;
    size_t rest_tail;           /* [rest_tail, n) rested at the last sort, keys kept in
                                   grid.pkey; n (or more) when there is no such tail   */
    double t_step_end;          /* [s] the end of the step being taken                 */
    uint8_t *resting;           /* per particle: not stepped this step                  */
    size_t cap_resting;
    uint8_t *held;              /* per node: held still by resting snow beside it       */
    size_t cap_held;
    pw_reorder_task *reorder_tasks; /* the spans the particle reorder copies (transfer.c) */
    size_t cap_reorder_tasks;
    size_t n_reorder_tasks;         /* of this step's sort (pw_mpm_sort) */
    uint64_t *wake_keys;        /* blocks near moving snow (rest.c scratch)             */
    size_t cap_wake;
    uint64_t particle_steps, particle_steps_all; /* taken, and of stepping every one   */

    int failed;                 /* a step stopped with an error: state is not saved */

    /* clock and counters */
    double t;                   /* [s] */
    uint64_t steps;
    double dt_last;
    double max_speed;
    /* The step controller (mpm.c): the cap a retake leaves, doubled by each step after
     * it until no longer the smallest bound (reset, like the kept state, by each
     * pw_sim_advance_to call), and the log of that call's steps. */
    double dt_retake_cap;       /* [s] INFINITY: none                                  */
    pw_sim_step_log step_log;
    /* Tests only: step number whose first attempt is refused (test_retake_refuse 1, as
     * a failed solve would be), or taken at half its dt as if a retake had already
     * happened (0); UINT64_MAX for none. */
    uint64_t test_retake_step;
    int test_retake_refuse;
    int cr_iterations_last;
    uint64_t cr_iterations_total, cr_solves, cr_not_converged;
    pw_mpm_profile prof;        /* accumulated since creation */

    /* Per-step scratch of the stepped particles (and of their home blocks), sized by the
     * stepped count, not the particle count: resting snow needs none of it, and in a
     * field that mostly sleeps it is most of what the solver would hold per particle
     * (sim/docs/memory.md). It holds nothing between steps, so it is given back when the
     * stepped count falls (pw_mpm_reserve_stepped). */
    size_t cap_stepped;
    pw_ploc *ps;
    pw_pstress *stress;
    double *batch_psi;          /* [J] elastic energy of each batch of PW_STRESS_LANES
                                   stepped particles (pw_mpm_prepare_stress) */
    double wave_speed2_max;     /* [m^2/s^2] c^2 of the fastest elastic wave in the
                                   stepped snow, from the moduli pw_mpm_prepare_stress
                                   formed */
    float (*K)[PW_K_ENTRIES];    /* the linearised stress of each particle (pw_mpm_prepare_stress) */
    size_t *home_scratch;       /* one entry per home block (homes <= stepped particles) */
    /* per-step scratch of every particle, and what a step keeps for the next */
    size_t cap_step;
    pw_svd3_packed *fe_svd;     /* SVD of each Fe from the last plasticity step, which the
                                   next step's stress reuses instead of factoring Fe again;
                                   a resting particle keeps its own, still valid on waking
                                   (its Fe has not changed) */
    int fe_svd_valid;           /* set by a step, cleared where Fe comes from elsewhere (new
                                   particles, a loaded cache) and at the start of each
                                   pw_sim_advance_to call, so a run resumed from a cache
                                   repeats the bits of one that was not interrupted */
    uint32_t *perm;             /* the sort's permutation; the reorder it drives goes through
                                   K's storage (pw_step_reorder_scratch), which holds
                                   nothing between steps */
    int K_formed;               /* K holds this step's linearisation: set by
                                   pw_mpm_prepare_stress, cleared when a step begins, so
                                   the reorder can check it borrows nothing in use */
    size_t cap_solve, cap_partial;
    double *inv_sqrt_m;         /* per node, 0 where m = 0 */
    vec3 *cr[5];                /* CR vectors x r p Ar Ap */
    pw_vec4f *u4;               /* the Hessian action's input M^-1/2 r, in float */
    pw_vec4f *Hu4;              /* its output */
    vec3 *dinv;                 /* per DOF, the inverse of the diagonal of eq. 9's
                                   operator (Jacobi) */
    pw_vec4f *hdiag;            /* the diagonal of H (pw_mpm_hessian_diagonal) */
    double *partial;            /* per-chunk partial sums of dots (two sets; loops.h) */

    /* warm start of the solve: the implicit corrections v^{n+1} - v* of the last two steps
     * per node, each with the block keys it belongs to (solver.c) */
    int warm_valid;             /* how many of the two are held (0-2); cleared with
                                   fe_svd_valid, for the same reason, and when particles
                                   are added */
    pw_warm_step warm, warm_old; /* the last step's correction, and the one before */
    int warm_new_made;          /* the last solve left a correction in warm_new */
    pw_warm_step warm_new;      /* this attempt's, made the last by pw_mpm_solve_accept:
                                   a refused attempt leaves the two above untouched */
};

/* The reorder's staging area at the start of a step: K's storage, whose contents die
 * with the step that formed them (K is formed after the reorder, by
 * pw_mpm_prepare_stress). The reorder stages only the places the permutation moves,
 * packed (pw_reorder_task.at); the step sizes K for them before the reorder (pw_mpm_sort
 * says how many, pw_mpm_begin_step reserves), so the reorder never calls back into the
 * step, and a mostly resting field needs no staging for its resting snow. */
#define PW_REORDER_ELEMENT_MAX sizeof(pw_svd3_packed) /* the largest element reordered */
static inline void *pw_step_reorder_scratch(pw_sim *s)
{
    _Static_assert(sizeof(pw_svd3_packed) >= sizeof(mat3),
                   "PW_REORDER_ELEMENT_MAX must be the largest element reordered");
    return s->K;
}

/* ---- memory.c ------------------------------------------------------------ */
#define PW_MPM_MEMORY_ITEMS 48
/* What an array group's size follows: what a particle must keep (its state), scratch
 * for every particle, scratch for the stepped particles only, or the grid's nodes. */
typedef enum { PW_MEM_STATE, PW_MEM_EVERY, PW_MEM_STEPPED, PW_MEM_NODES } pw_mem_kind;
typedef struct {
    int count;
    size_t total;          /* [bytes] */
    struct {
        const char *name;
        size_t bytes;
        pw_mem_kind kind;
    } item[PW_MPM_MEMORY_ITEMS];
} pw_mpm_memory;
/* The bytes the solver has reserved, by array group. */
void pw_mpm_memory_report(const pw_sim *s, pw_mpm_memory *m);

/* ---- mpm.c --------------------------------------------------------------- */
/* The one place that invalidates what a step keeps for the next (the SVD of each Fe, the
 * solve's warm start): where particles, Fe or the clock come from elsewhere (particles
 * added, a cache loaded) and at the start of each pw_sim_advance_to call, so that a run
 * resumed from a cache repeats the bits of one that was not interrupted. */
void pw_mpm_forget_kept_state(pw_sim *s);

/* Holds the stepped particles' scratch (stencil places, stress, K, home scratch) for at
 * least `count` elements, which the reorder's staging may raise; content is not kept.
 * Gives memory back when count falls below half the capacity. */
pw_status pw_mpm_reserve_stepped(pw_sim *s, size_t count, pw_error *err);

/* Sizes the step scratch, sorts particles, rebuilds the grid and the stencil places of x^n:
 * what every step does before step 1 (tests call it to run single steps). */
pw_status pw_mpm_begin_step(pw_sim *s, pw_error *err);

/* 1 when a step that took `wall` seconds and `cpu` seconds of the process's CPU on
 * `threads` threads, which other tasks preempted `preemptions` times, was short of CPU
 * because of them (the contention fields of struct pw_sim): its CPU below 0.8 of
 * threads x wall, and at least 40 preemptions a second. */
int pw_mpm_step_contended(double wall, double cpu, int threads, long preemptions);

/* The steps themselves: transfer.h, hessian.h, solver.h; the loops: loops.h. */

#endif
