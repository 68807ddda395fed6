/* main_submit.c — the `powder submit` command: options, messages and exit status of
 * farm submission (the work itself is in submit.c). Like main.c, the only place of its
 * command that prints.
 *
 * Exit status: 0 submitted (or nothing left to do), 1 the submission failed, 2 bad usage
 * or bad input. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pw_error.h"
#include "cli.h"
#include "submit.h"

enum { EXIT_WORK = PW_EXIT_WORK, EXIT_USAGE = PW_EXIT_USAGE };

static const char *const submit_help =
    "usage: powder submit scene.json [--frames SPEC] [--chunk N] [--partition P]\n"
    "                    [--threads N] [--sbatch OPTION]... [--render-only]\n"
    "                    [--look other.json] [--output DIR] [--png] [--sim-warning S]\n"
    "                    [--dry-run] [--quiet]\n"
    "       powder submit scene.json --status [--frames SPEC] [--look other.json]\n"
    "                    [--output DIR]\n"
    "\n"
    "Hands the shot to a Slurm cluster with sbatch: a render job array, N frames per array\n"
    "task (--chunk, default 1), each task running `powder render --resume` on its slice,\n"
    "submitted held, and one simulation job that releases each task as soon as the last\n"
    "frame of its slice is simulated, so rendering overlaps the simulation. The simulation\n"
    "resumes from its newest checkpoint; S seconds before its time limit (--sim-warning,\n"
    "default 600: more than its longest frame) Slurm signals it, it checkpoints at the end\n"
    "of the frame in flight and submits a new simulation job that continues from there\n"
    "(its own log, run 2, 3, ...), as often as the shot needs. Frames whose EXR reads back\n"
    "and was rendered from the same simulation are skipped, and so are array slices with\n"
    "nothing left; the simulation job is left out when every frame still to render has a\n"
    "valid cache. Resubmitting the same command completes an interrupted shot: only the\n"
    "missing frames are simulated and rendered.\n"
    "\n"
    "  --render-only   re-render existing caches (e.g. with --look): no simulation job;\n"
    "                  every frame to render must have a valid cache\n"
    "  --look FILE     render tasks use this look (frames go to a directory named after it)\n"
    "  --partition P   Slurm partition (default: the cluster's default)\n"
    "  --threads N     CPUs per task (--cpus-per-task) and threads; default: what Slurm gives\n"
    "  --sbatch OPT    one more sbatch option for every job, e.g. --sbatch --time=2:00:00\n"
    "                  --sbatch --account=fx (repeatable; not the ones powder sets)\n"
    "  --output DIR    caches and frames under DIR, as for `powder run`\n"
    "  --png           tasks also write PNG previews\n"
    "  --sim-warning S the simulation's warning before its time limit [s], 60..65535\n"
    "  --dry-run       print the batch scripts and sbatch commands; submit nothing\n"
    "  --status        submit nothing: per frame, whether it is simulated, rendered,\n"
    "                  rendering, waiting or failed (and why), from the files, the jobs'\n"
    "                  logs and squeue; give the --output and --look of the submission\n"
    "\n"
    "Scripts and logs go to <frames dir>/farm/: one log per task named after its frame\n"
    "range (logs/<name>.render.<first>-<last>.<job>_<task>.log), with `PROGRESS nn%` lines.\n"
    "The scene, the frames and the powder program must be on storage the nodes share.\n";

enum { MAX_SBATCH_OPTIONS = 32 };

typedef struct {
    const char *scene, *frames, *partition, *look, *output;
    const char *sbatch[MAX_SBATCH_OPTIONS];
    int n_sbatch;
    int chunk, threads, render_only, dry_run, png, quiet, help, sim_warning, status;
} submit_options;

/* Returns 1 on success; prints the problem and returns 0 otherwise. */
static int parse_submit_options(int argc, char **argv, submit_options *o)
{
    static const char *const options = " --frames= --partition= --chunk= --look= --output="
                                       " --threads= --sbatch=+ --quiet --dry-run --render-only"
                                       " --png --sim-warning= --status ";
    for (int a = 2; a < argc; a++) {
        const char *arg = argv[a];
        pw_cli_token tok;
        if (!pw_cli_next("submit", options, argc, argv, &a, &tok)) return 0;
        if (!tok.name) {
            if (o->scene) {
                pw_cli_extra_argument("submit", arg, "one scene file");
                return 0;
            }
            o->scene = arg;
            continue;
        }
        const char *name = tok.name, *value = tok.value;
        if (!strcmp(name, "--help")) o->help = 1;
        else if (!strcmp(name, "--quiet")) o->quiet = 1;
        else if (!strcmp(name, "--dry-run")) o->dry_run = 1;
        else if (!strcmp(name, "--status")) o->status = 1;
        else if (!strcmp(name, "--render-only")) o->render_only = 1;
        else if (!strcmp(name, "--png")) o->png = 1;
        else if (!strcmp(name, "--frames")) o->frames = value;
        else if (!strcmp(name, "--partition")) o->partition = value;
        else if (!strcmp(name, "--sbatch")) {
            if (o->n_sbatch == MAX_SBATCH_OPTIONS) {
                pw_cli_usage_error("submit", "more than %d --sbatch options", MAX_SBATCH_OPTIONS);
                return 0;
            }
            o->sbatch[o->n_sbatch++] = value;
        }
        else if (!strcmp(name, "--look")) o->look = value;
        else if (!strcmp(name, "--output")) o->output = value;
        else if (!strcmp(name, "--chunk")) {
            if (!pw_cli_int("submit", name, value, 1, 1000000, &o->chunk)) return 0;
        } else if (!strcmp(name, "--sim-warning")) {
            if (!pw_cli_int("submit", name, value, 60, 65535, &o->sim_warning)) return 0;
        } else if (!strcmp(name, "--threads")) {
            if (!pw_cli_int("submit", name, value, 1, 1024, &o->threads)) return 0;
        } else {
            pw_cli_unknown_option("submit", name);
            return 0;
        }
    }
    return 1;
}

static int fail(const pw_error *err) { return pw_cli_fail(err); }

static void print_dry_run(const pw_submit_plan *plan)
{
    const char *sim = pw_submit_plan_script(plan, PW_SUBMIT_SIM);
    const char *render = pw_submit_plan_script(plan, PW_SUBMIT_RENDER);
    const char *sim_path = pw_submit_plan_script_path(plan, PW_SUBMIT_SIM);
    const char *render_path = pw_submit_plan_script_path(plan, PW_SUBMIT_RENDER);
    if (sim) printf("# ---- simulation job: %s\n%s", sim_path, sim);
    if (render) printf("# ---- render job array: %s\n%s", render_path, render);
    printf("# ---- submission (logs in %s)\n", pw_submit_plan_log_dir(plan));
    if (render && sim) {
        printf("render=$(sbatch --parsable %s)\n", render_path);
        printf("sbatch --parsable %s ${render%%;*}\n", sim_path);
    } else if (render) {
        printf("sbatch --parsable %s\n", render_path);
    }
}

int pw_main_submit(int argc, char **argv)
{
    submit_options o = {0};
    o.chunk = 1;
    o.sim_warning = 600;
    if (!parse_submit_options(argc, argv, &o)) return EXIT_USAGE;
    if (o.help) {
        fputs(submit_help, stdout);
        return 0;
    }
    if (!o.scene) {
        pw_cli_missing_argument("submit", "a scene file");
        return EXIT_USAGE;
    }
    /* Tasks run this very program by absolute path, from the submitting directory. */
    char exe[PATH_MAX], cwd[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        perror("powder submit: /proc/self/exe");
        return EXIT_WORK;
    }
    exe[n] = '\0';
    if (!getcwd(cwd, sizeof cwd)) {
        perror("powder submit: current directory");
        return EXIT_WORK;
    }
    pw_submit_request rq = {.scene_path = o.scene,
                            .frames = o.frames,
                            .look = o.look,
                            .output = o.output,
                            .partition = o.partition,
                            .sbatch = o.sbatch,
                            .n_sbatch = o.n_sbatch,
                            .powder_path = exe,
                            .work_dir = cwd,
                            .chunk = o.chunk,
                            .threads = o.threads,
                            .render_only = o.render_only && !o.status,
                            .png = o.png,
                            .sim_warning = o.sim_warning};
    pw_error err = {0};
    pw_submit_plan *plan = pw_submit_plan_create(&rq, &err);
    if (!plan) return fail(&err);
    if (o.status) {
        int rc = pw_submit_status(plan, stdout, &err) == PW_OK ? 0 : fail(&err);
        pw_submit_plan_destroy(plan);
        return rc;
    }
    pw_submit_summary s;
    pw_submit_plan_summary(plan, &s);
    int rc = 0;
    if (!o.quiet || o.dry_run) {
        printf("%s%d frames, %d with a valid EXR already; %d of %d slices of up to %d frames "
               "to render%s\n",
               o.dry_run ? "# powder submit: " : "powder: ", s.frames, s.frames_done,
               s.slices_pending, s.slices, o.chunk,
               s.sim_needed ? ", as a simulation job simulates their frames"
                            : (s.slices_pending ? ", every cache valid already" : ""));
        if (s.sim_needed && s.slices_pending && s.sim_resume_after >= s.sim_first)
            printf("%sthe simulation (frames %d-%d) resumes after frame %d, its newest "
                   "checkpoint\n", o.dry_run ? "# powder submit: " : "powder: ", s.sim_first,
                   s.sim_last, s.sim_resume_after);
    }
    if (!s.slices_pending) {
        if (!o.quiet) printf("%snothing to submit\n", o.dry_run ? "# " : "powder: ");
    } else if (o.dry_run) {
        print_dry_run(plan);
    } else {
        pw_submit_jobs jobs;
        if (pw_submit_plan_submit(plan, &jobs, &err) != PW_OK) {
            /* The request was good; the scheduler or the disk was not. */
            fprintf(stderr, "powder: %s\n", err.msg);
            rc = EXIT_WORK;
            if (jobs.render_job[0])
                fprintf(stderr, "powder: render job array %s is queued already%s (scancel %s "
                        "withdraws it)\n", jobs.render_job, s.sim_needed ? ", held" : "",
                        jobs.render_job);
        } else if (!o.quiet) {
            printf("powder: submitted render job array %s (%d tasks%s)\n", jobs.render_job,
                   s.slices_pending, jobs.sim_job[0] ? ", held" : "");
            if (jobs.sim_job[0])
                printf("powder: submitted simulation job %s (frames %d-%d), which releases "
                       "the render tasks as their frames are simulated\n", jobs.sim_job,
                       s.sim_first, s.sim_last);
            printf("powder: scripts and logs: %s\n", pw_submit_plan_log_dir(plan));
        } else {
            /* Quiet: just the ids, for scripts that wait on them. */
            if (jobs.sim_job[0]) printf("%s\n", jobs.sim_job);
            printf("%s\n", jobs.render_job);
        }
    }
    pw_submit_plan_destroy(plan);
    return rc;
}
