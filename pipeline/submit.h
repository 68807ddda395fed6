/* submit.h — hand a shot to a Slurm cluster: one simulation job (the simulation is one
 * chain per shot) and a render job array, a few frames per array task, submitted held:
 * the simulation job releases each task once the last frame of its slice is written, so
 * rendering overlaps the simulation. The simulation job asks for a warning signal
 * before its time limit, checkpoints and requeues itself until the shot is simulated.
 * Powder schedules nothing itself; Slurm does.
 *
 * A plan is built once from the scene and the request: it knows which frames already
 * have a valid EXR (those slices are left out of the array), whether a simulation is
 * still needed (not when every frame left to render has a valid cache of this
 * simulation setup), and the text of both batch scripts. Every task runs
 * `powder render --resume` (or `powder sim`, which resumes from its newest cache), and
 * every file Powder writes is atomic, so a task killed by the scheduler leaves nothing
 * half-written under a final name and resubmitting the same command completes the shot.
 *
 * Files a submission writes, in <frames dir>/farm/ (the directory of the scene's frame
 * pattern, after --output and --look):
 *   <name>.sim.sbatch, <name>.render.sbatch     the batch scripts as submitted
 *   <name>.jobs                                  what was submitted, one line a job or
 *                                                 render task (powder submit --status)
 *   logs/<name>.sim.<first>-<last>.<job>.log      the simulation job's output
 *   logs/<name>.render.<first>-<last>.<job>_<task>.log   one per render task, named
 *                                                 after its frame range
 *   logs/<name>.render.<job>_<task>.slurm.log     what Slurm itself reports for a task
 *                                                 (time limit, cancellation) */
#ifndef PW_SUBMIT_H
#define PW_SUBMIT_H

#include <stddef.h>
#include <stdio.h>

#include "frames.h"
#include "scene.h"

#include "pw_error.h"

typedef struct {
    const char *scene_path;  /* the scene file; made absolute against work_dir          */
    const char *frames;      /* --frames spec, or NULL for the scene's whole range       */
    const char *look;        /* look file for the render tasks, or NULL                  */
    const char *output;      /* --output DIR passed to every task, or NULL               */
    const char *partition;   /* Slurm partition, or NULL for the cluster's default       */
    const char *const *sbatch; /* further sbatch options for every job ("--time=2:00:00",
                                "--account=fx"), n_sbatch of them                     */
    int n_sbatch;
    const char *powder_path; /* absolute path of the program the tasks run               */
    const char *work_dir;    /* absolute; the jobs' working directory (where relative
                                output paths of the scene resolve), usually the cwd      */
    int chunk;               /* frames per array task, >= 1                              */
    int threads;             /* threads and CPUs per task; 0 = what Slurm allocates      */
    int render_only;         /* 1: no simulation job; every cache must already be valid  */
    int png;                 /* tasks also write PNG previews                            */
    int sim_warning;         /* [s] before its time limit the simulation job checkpoints
                                and requeues (sbatch --signal=B:USR1@N), 60..65535        */
} pw_submit_request;

typedef struct pw_submit_plan pw_submit_plan;

typedef struct {
    int frames;          /* frames requested                                          */
    int frames_done;     /* of those, frames whose EXR reads back, of this simulation  */
    int slices;          /* array slices of the request (chunk frames each, the last
                            may be shorter)                                           */
    int slices_pending;  /* slices with at least one frame left: the array's tasks    */
    int sim_needed;      /* 1 when a simulation job runs before the render array      */
    int sim_first, sim_last; /* frames the simulation job covers (when sim_needed)    */
    int sim_resume_after;    /* its newest full checkpoint of this setup, where it
                                resumes; sim_first - 1 when it starts from the seed   */
} pw_submit_summary;

typedef enum { PW_SUBMIT_SIM, PW_SUBMIT_RENDER } pw_submit_job;

/* Loads and checks the scene, lists the frames, looks at which EXRs and caches are
 * already valid and writes the batch scripts' text (nothing is written to disk).
 * Returns NULL with *err filled in: PW_EINVAL for a bad request (bad --frames, chunk < 1,
 * relative powder_path or work_dir, a path Slurm cannot take in a #SBATCH line, or with
 * render_only a frame to render whose cache is missing or from another setup), the
 * scene loader's code for a bad scene, PW_ENOMEM. Reads files only; reentrant. */
pw_submit_plan *pw_submit_plan_create(const pw_submit_request *rq, pw_error *err);

/* NULL is a no-op. */
void pw_submit_plan_destroy(pw_submit_plan *plan);

void pw_submit_plan_summary(const pw_submit_plan *plan, pw_submit_summary *out);

/* The batch script of a job, or NULL when that job is not needed (no simulation job
 * with render_only or when every cache is valid; no render array when every frame is
 * done). Owned by the plan. */
const char *pw_submit_plan_script(const pw_submit_plan *plan, pw_submit_job job);

/* Where pw_submit_plan_write puts that script (whether or not it is needed), and the
 * log directory. Owned by the plan. */
const char *pw_submit_plan_script_path(const pw_submit_plan *plan, pw_submit_job job);
const char *pw_submit_plan_log_dir(const pw_submit_plan *plan);

/* Creates the farm and log directories and writes the needed scripts (atomically,
 * mode 0755). */
pw_status pw_submit_plan_write(const pw_submit_plan *plan, pw_error *err);

typedef struct {
    char sim_job[64];    /* job id of the simulation job, "" when none was submitted  */
    char render_job[64]; /* job id of the render array, "" when none was submitted    */
} pw_submit_jobs;

/* Writes the scripts and submits them with sbatch (found on PATH): the render array
 * first (held when a simulation job follows), then the simulation job with the array's
 * id as its argument. Both ids are in *jobs as far as submission got, so on a failure
 * after the first sbatch the caller can name the job that is already queued. A plan
 * with nothing to do submits nothing.
 * Errors: PW_EIO when sbatch cannot be run or fails (its message is quoted),
 * PW_EFORMAT when its output holds no job id. */
pw_status pw_submit_plan_submit(const pw_submit_plan *plan, pw_submit_jobs *jobs,
                                pw_error *err);

/* Runs `sbatch --parsable script [script_arg]` and returns the new job's id. script_arg
 * may be NULL or "". Output beyond 64 KiB is an error. */
pw_status pw_submit_sbatch(const char *script_path, const char *script_arg, char *job_id,
                           size_t job_id_size, pw_error *err);

/* The job id in sbatch --parsable output: "<id>" or "<id>;<cluster>" on the first
 * non-empty line, the id being digits (an array job's id is a plain job id too).
 * Anything else is PW_EFORMAT quoting the output. */
pw_status pw_submit_parse_job_id(const char *output, char *job_id, size_t job_id_size,
                                 pw_error *err);

/* The record of what was submitted for the plan's shot: <farm dir>/<name>.jobs, one line
 * per job or array task, "<sim|render> <job id> <frames> <unix time>", appended by
 * pw_submit_plan_submit. */
const char *pw_submit_plan_record_path(const pw_submit_plan *plan);
const pw_scene *pw_submit_plan_scene(const pw_submit_plan *plan);
const pw_frame_list *pw_submit_plan_frames(const pw_submit_plan *plan);

/* `powder submit --status`: prints on out, per frame of the plan's request, whether its
 * cache and EXR are there and valid, which render task the newest submission gave it,
 * and its state: done, rendering, waiting (held until simulated, queued), simulating,
 * failed (with why: Slurm's word on the task, such as a cancellation or time limit, or
 * the last line powder wrote in its log, or what is wrong with the cache), or not
 * submitted. Job states come from one squeue call (-t all) over the recorded jobs and the
 * simulation's continuations (found in its logs); without squeue, from the logs only.
 * Writes nothing. PW_ENOMEM, or a frame path error. */
pw_status pw_submit_status(const pw_submit_plan *plan, FILE *out, pw_error *err);

/* The `powder submit` command: argv[1] is "submit". Prints its messages and returns the
 * exit status (0 submitted or nothing to do, 1 the submission failed, 2 bad usage or
 * input). Defined in main_submit.c. */
int pw_main_submit(int argc, char **argv);

#endif
