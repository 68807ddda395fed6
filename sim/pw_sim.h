/* pw_sim.h — stage 1: the MPM snow solver of Stomakhin et al. 2013.
 *
 * One pw_sim handle owns the particles, the sparse grid, the colliders and the clock.
 * Every step follows section 4.1 of the paper (see sim/mpm.c). One thread per handle:
 * the handle parallelises internally with OpenMP, and results are bit-identical for
 * any thread count. */
#ifndef PW_SIM_H
#define PW_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "emit.h"
#include "pw_error.h"
#include "pw_math.h"
#include "seed.h"

typedef enum {
    PW_TRANSFER_PIC_FLIP = 0, /* PIC/FLIP blend of section 4.1 step 8, weight flip_alpha */
    PW_TRANSFER_APIC = 1      /* affine particle-in-cell (Jiang et al. 2015)             */
} pw_transfer;

/* The interpolation kernel of every particle-grid transfer and force (sim/core/pw_kernel.h;
 * sim/docs/quadratic-kernel.md). */
typedef enum {
    PW_KERNEL_CUBIC = 0,    /* the paper's cubic B-spline, 4 nodes per axis            */
    PW_KERNEL_QUADRATIC = 1 /* the quadratic B-spline, 3 nodes per axis                */
} pw_kernel_kind;

/* Ranges of the step controller's keys: past C 100 the elastic bound bounds nothing a
 * solve can reach; 20 retakes in a row shorten a step 2^20, a million, times. */
#define PW_COURANT_MAX 100.0
#define PW_RETAKE_LIMIT_MAX 20

typedef struct {
    double h;                 /* grid spacing [m]                                  */
    vec3 domain_min;          /* [m] simulation domain; its faces are walls         */
    vec3 domain_max;          /* [m]                                               */
    vec3 gravity;             /* [m/s^2]                    (0, -9.81, 0)           */
    vec3 air_velocity;        /* [m/s] the air flakes in flight drift with (0: still;
                                 emit.h)                                            */
    double dt_max;            /* largest substep [s]        (5e-4, semi-implicit)   */
    double cfl;               /* dt <= cfl h / max|v| [-]   (0.5)                   */
    /* The elastic bound (sim/docs/step-control.md): dt <= courant h / c_max, c_max the
     * fastest elastic wave in the stepped snow, sqrt((lambda + 2 mu) / rho) with the
     * hardened moduli; 0 = no such bound (the 2013 rule alone). */
    double courant;           /* [-]                        (20)                    */
    /* A step whose solve stops at cr_max_iterations, is not finite, or diverges (a grid
     * speed over the domain's limit, or kinetic energy the step's sources cannot
     * explain) is retaken from its start at half the dt, up to this many times in a
     * row; 0 = never (the step fails as the 2013 rule's did). */
    int retake_limit;         /* [-]                        (8)                     */
    double beta;              /* 0 explicit, 0.5 trapezoidal, 1 backward Euler (1)  */
    pw_transfer transfer;     /*                            (PIC/FLIP)              */
    double flip_alpha;        /* FLIP fraction [-]          (0.95)                  */
    pw_kernel_kind kernel;    /*                            (cubic)                 */
    double cr_tolerance;      /* relative residual of the solve [-] (1e-4)          */
    int cr_max_iterations;    /* cap of conjugate residual iterations (200)         */
    int threads;              /* 0 = OpenMP default                                 */
    /* How the loops run, never what they compute (the same bits either way):
     * kernel_width 0 picks the stencil kernels' faster form for this CPU, 1 the narrow
     * (4-wide) forms, 2 the wide (8-wide) ones where AVX-512 runs (sim/box.h);
     * steal_first 1 makes every thread take homes from the others' runs before its own
     * (sim/loops.c), so that the taking path runs whatever the timing. */
    int kernel_width;         /* (0)                                                */
    int steal_first;          /* (0)                                                */

    /* Resting snow (sim/docs/resting-snow.md). A particle slower than rest_speed for
     * sleep_steps steps in a row sleeps: it is not stepped, keeps its whole state and
     * holds the grid nodes beside the moving snow still, until snow faster than
     * wake_speed comes within a block of it or a moving collider within its wake band. 0 = never (the 2013
     * solver: every particle every step). */
    double rest_speed;        /* [m/s]                      (0: off)                */
    int sleep_steps;          /* steps at rest before sleeping (50)                 */
    double wake_speed;        /* [m/s] snow this fast wakes resting snow a block away
                                 (10 rest_speed: waking stirs the woken snow a little,
                                 and a wake speed at rest_speed spread that stir across
                                 a whole field)                                     */
    /* The translating grid (Fig. 10 of the paper): outside this box, moved by its
     * keyframes, settled snow slower than rest_speed is not stepped at once, whatever it
     * did before; inside, the rule above. Snow that moves is stepped wherever it is, so
     * spray leaving the box flies on and lands. has_region 0: no box.
     * region_freezes 1: the paper's grid, strictly: settled snow outside the box is not
     * stepped however fast it moves, and nothing wakes it until the box comes back. */
    int has_region;
    int region_freezes;
    pw_shape region;          /* PW_SHAPE_BOX, with its motion keys                 */
} pw_sim_params;

/* Fills p with the defaults above: h = 0.01 m, domain [-3,3] x [0,3] x [-3,3] m
 * (the paper's snowball-drop box), Table 2 time stepping. */
void pw_sim_params_default(pw_sim_params *p);

/* Checks every field; on failure names the first bad field, its value and the
 * allowed range. @return PW_OK or PW_EINVAL. */
pw_status pw_sim_params_check(const pw_sim_params *p, pw_error *err);

typedef struct pw_sim pw_sim;

/* A new, empty solver (no particles, no colliders, t = 0) with a copy of *p.
 * @return the handle, owned by the caller, or NULL with *err filled in. */
pw_sim *pw_sim_create(const pw_sim_params *p, pw_error *err);
void pw_sim_destroy(pw_sim *s); /* NULL is a no-op */

/* Adds a level-set collider (a copy of *c; a mesh is read here). Errors from the
 * collider module are passed through. */
pw_status pw_sim_add_collider(pw_sim *s, const pw_collider_desc *c, pw_error *err);

/* Appends the seeded particles (copied; the caller keeps *seeded). Refuses
 * particles outside the domain, non-finite state, non-positive mass and material
 * values outside their ranges, naming the particle. Particles added after the first
 * step get their volume V0 from the grid at their own first step. */
pw_status pw_sim_add_particles(pw_sim *s, const pw_seeded *seeded, pw_error *err);

/* Adds a snow source (a copy of *d, checked by pw_source_check against the domain): from
 * then on each step emits the particles it has born by the step's start (emit.h). The
 * counts emitted are saved with the state, so a resumed run emits what an uninterrupted
 * one does. */
pw_status pw_sim_add_source(pw_sim *s, const pw_source_desc *d, pw_error *err);

/* Mass [kg] the sources have emitted since t = 0. */
double pw_sim_mass_emitted(const pw_sim *s);

/* Called after each substep with the current and the target time [s]. */
typedef void (*pw_sim_progress_fn)(void *user, double t_now, double t_end);

/* Advances to exactly t_end [s] in substeps dt = min(dt_max, cfl h / max|v_p|,
 * courant h / c_max), the last one shortened so that the time lands on t_end; a step
 * that fails (see retake_limit) is retaken at half its dt, and the steps after grow back
 * by doubling. progress may be NULL.
 * @return PW_OK; PW_ENUMERIC when a step still fails after retake_limit retakes (the
 * message names step, time, the reason and, where there is one, the particle; the
 * state is then unusable); PW_EINVAL for t_end before the current time. With
 * retake_limit 0 a solve that hits the iteration cap is not an error: it is counted
 * in pw_sim_stats.cr_not_converged. */
pw_status pw_sim_advance_to(pw_sim *s, double t_end, pw_sim_progress_fn progress, void *user,
                            pw_error *err);

/* Writes the full solver state as one frame cache at path (atomically):
 * attributes x, v (F64x3 [m], [m/s]), m, V0 (F64 [kg], [m^3]), Fe, Fp (F64x9,
 * row-major), C (F64x9 [1/s], under APIC only), Jp (F64), id (U32, the order of
 * addition), the material mu0, lambda0 [Pa], xi, theta_c, theta_s, Jp_min, Jp_max,
 * Jp_floor (F64; checkpoints without Jp_floor load with 0, no compaction limit), layer
 * (U32, 1 + the seeded layer's index from the top, 0 = the body's own material; only
 * once a layered body has been added), drag (F64 [1/s], once a source has been added:
 * > 0 for a flake in flight), and globals (time, step count, solver counters, volumes
 * initialised, with sources each one's count emitted_<i> and mass_emitted) so that
 * pw_sim_load followed by pw_sim_advance_to gives the same bytes as an uninterrupted
 * run. frame and sim_hash are stored in the cache header for the pipeline. */
pw_status pw_sim_save(const pw_sim *s, const char *path, int64_t frame, uint64_t sim_hash,
                      pw_error *err);

/* A slim render cache of the current state (pw_cache.h, PW_CACHE_SLIM): float32 x, v, m,
 * Jp, xi and density (m / (V0 det F_E J_P), 0 before the first step), the ids, the
 * layers when a layered body was added, the durability (float32) when a body of an
 * optional law was, and the drag (float32) and mass_emitted where sources emit; about a
 * sixth of a full cache on disk. Renders, `powder stats` and
 * exports read it; a simulation cannot resume from it. */
pw_status pw_sim_save_slim(const pw_sim *s, const char *path, int64_t frame, uint64_t sim_hash,
                           pw_error *err);

/* Replaces the particles, clock and counters of s by those stored at path (a cache
 * written by pw_sim_save; a slim cache is refused). Colliders and params stay those of s; the cache's h must
 * equal params.h. */
pw_status pw_sim_load(pw_sim *s, const char *path, pw_error *err);

typedef struct {
    uint64_t steps;            /* substeps taken since t = 0                        */
    double time;               /* [s]                                               */
    double dt_last;            /* last substep [s]                                  */
    double max_speed;          /* max |v_p| after the last substep [m/s]            */
    int cr_iterations_last;    /* iterations of the last solve                      */
    double cr_iterations_mean; /* mean over all solves since t = 0                  */
    uint64_t cr_iterations_total, cr_solves; /* their sum and count: a frame's mean is
                                  the difference of two readings                    */
    uint64_t cr_not_converged; /* solves that hit cr_max_iterations                 */
    size_t particles, active_blocks; /* current counts (blocks of 4x4x4 nodes)      */
    size_t particles_stepped;  /* of them, stepped by the last substep (the rest rest) */
    double stepped_share;      /* particle-steps taken / particle-steps of stepping
                                  every particle, since creation                   */
} pw_sim_stats;
void pw_sim_get_stats(const pw_sim *s, pw_sim_stats *st);

/* What set the length of a step: the smallest of its bounds. */
typedef enum {
    PW_DT_BY_SPEED,   /* cfl h / max|v_p|                                        */
    PW_DT_BY_ELASTIC, /* courant h / c_max                                       */
    PW_DT_BY_MAX,     /* dt_max                                                  */
    PW_DT_BY_RETAKE,  /* growing back after a retake (or the retake itself)      */
    PW_DT_BY_FRAME,   /* the rest of the frame                                   */
    PW_DT_BY_COUNT
} pw_dt_bound;

/* Why an attempt at a step was refused and retaken. */
typedef enum {
    PW_RETAKE_CAPPED,    /* the solve stopped at cr_max_iterations above cr_tolerance */
    PW_RETAKE_NONFINITE, /* the solve or the grid velocity is not finite              */
    PW_RETAKE_SPEED,     /* a grid node faster than the domain's speed limit          */
    PW_RETAKE_ENERGY,    /* kinetic energy the step's sources cannot explain          */
    PW_RETAKE_TEST,      /* refused by a test (mpm_internal.h)                        */
    PW_RETAKE_COUNT
} pw_retake_reason;

/* The steps of the last pw_sim_advance_to call (a frame, in the pipeline). */
typedef struct {
    uint64_t steps;                       /* steps taken                           */
    uint64_t retakes[PW_RETAKE_COUNT];    /* attempts refused, by reason           */
    uint64_t set_by[PW_DT_BY_COUNT];      /* steps whose dt each bound set         */
    double dt_min, dt_max;                /* [s] shortest and longest step taken   */
    double courant_max;                   /* [-] largest c_max dt / h of a step    */
    uint64_t cr_iterations;               /* of the accepted steps' solves         */
} pw_sim_step_log;
void pw_sim_get_step_log(const pw_sim *s, pw_sim_step_log *log);

/* Names for the log and the caches: "speed", "elastic", "dt_max", "retake", "frame";
 * "capped solve", "non-finite", "speed limit", "energy", "test". */
const char *pw_dt_bound_name(pw_dt_bound b);
const char *pw_retake_reason_name(pw_retake_reason r);

/* Read-only views of the particle arrays (valid until the next call that changes s;
 * the solver reorders particles by grid block each step: pw_sim_particle_ids gives
 * each one's index in the order of addition). */
size_t pw_sim_particle_count(const pw_sim *s);
const vec3 *pw_sim_positions(const pw_sim *s);      /* [m]   */
const vec3 *pw_sim_velocities(const pw_sim *s);     /* [m/s] */
const double *pw_sim_masses(const pw_sim *s);       /* [kg]  */
const uint32_t *pw_sim_particle_ids(const pw_sim *s);
double pw_sim_time(const pw_sim *s);                /* [s]   */

#endif
