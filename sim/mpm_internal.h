/* mpm_internal.h — the simulation's state (struct pw_sim: the particles of particles.h,
 * the step's scratch of step_scratch.h, the solve's warm start of solver_state.h), shared by mpm.c (orchestration), transfer.c
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
#include "emit.h"
#include "grid.h"
#include "particles.h"
#include "seed.h"
#include "pw_sim.h"
#include "solver_state.h"
#include "step_scratch.h"

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
    pw_source_desc sources[PW_SIM_MAX_SOURCES]; /* snow sources (emit.c)              */
    uint64_t emitted[PW_SIM_MAX_SOURCES];       /* particles each has emitted so far  */
    int n_sources;
    /* the flight's cells near a collider (emit.c): a flake elsewhere is farther from
     * every collider than its landing gap, and its distance is not asked */
    uint8_t *flight_near;
    size_t cap_flight_near;
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
/* The per-particle scratch every particle has (the sort's permutation, the kept SVD of
 * Fe), grown to the particle capacity, contents kept. */
pw_status pw_mpm_reserve_step(pw_sim *s, pw_error *err);

/* Appends a source's particles (V0 set, no body of their own, the kept state kept), each
 * in flight with this drag [1/s] (sim.c). */
pw_status pw_sim_append_emitted(pw_sim *s, const pw_seeded *in, double drag, pw_error *err);

/* Snow sources (emit.c): adds one; emits the particles born by the current time;
 * the time the next is born (INFINITY: none); the mass emitted so far [kg]; and, in a
 * step of dt to t_next after step 7, lands the flakes that met snow or a surface (G2P
 * then moves them with the grid) and gives the others their own free fall with drag
 * (G2P leaves them alone). */
pw_status pw_emit_add_source(pw_sim *s, const pw_source_desc *d, pw_error *err);
pw_status pw_emit_due(pw_sim *s, pw_error *err);
double pw_emit_next_time(const pw_sim *s);
double pw_emit_mass(const pw_sim *s);
void pw_emit_flight(pw_sim *s, double t_next, double dt);

#define WALL_BAND 2.0 /* [h] width of the slip-wall band at the domain faces */

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
