/* submit.c — Slurm batch scripts for a shot and their submission; see submit.h. */
#include "submit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "exr.h"
#include "frames.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "scene.h"
#include "shot.h"

/* sbatch --parsable prints one short line; anything near this size is not sbatch. */
enum { SBATCH_OUTPUT_MAX = 64 * 1024 };

/* ---- text buffer ---------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
    int oom; /* an append failed: the text is incomplete and must not be used */
} text;

static void text_printf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_printf(text *t, const char *fmt, ...)
{
    if (t->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = 1;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->oom = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* Appends s as one shell word in single quotes (a ' inside becomes '\''), so paths
 * with spaces or $ reach the program unchanged. */
static void text_quoted(text *t, const char *s)
{
    text_printf(t, "'");
    for (const char *c = s; *c; c++) {
        if (*c == '\'') text_printf(t, "'\\''");
        else text_printf(t, "%c", *c);
    }
    text_printf(t, "'");
}

/* ---- plan ----------------------------------------------------------------------- */

struct pw_submit_plan {
    pw_scene *sc;
    pw_frame_list fl;
    int chunk;
    unsigned char *done; /* per entry of fl: its EXR is valid already */
    pw_submit_summary sum;
    char scene_abs[4096], farm_dir[4096], log_dir[4096], record_path[4096];
    char script_path[2][4096];
    char *script[2];
};

static int is_absolute(const char *p) { return p && p[0] == '/'; }

/* path made absolute against dir (unchanged when it already is). */
static pw_status absolute(const char *dir, const char *path, char *out, size_t n, pw_error *err)
{
    if (is_absolute(path)) return pw_path_format(out, n, err, "%s", path);
    return pw_path_format(out, n, err, "%s/%s", dir, path);
}

/* A path that goes into a #SBATCH line: Slurm splits those lines at white space and
 * gives quotes and backslashes meanings of its own, so such paths are refused rather
 * than mangled. '%' is fine: it is doubled where Slurm expands patterns. */
static pw_status check_sbatch_path(const char *what, const char *path, pw_error *err)
{
    for (const char *c = path; *c; c++)
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == '"' || *c == '\'' ||
            *c == '\\')
            return pw_fail(err, PW_EINVAL,
                           "%s: %s holds a character Slurm cannot take in a #SBATCH line "
                           "(byte %d, '%c'); use a path without spaces, quotes or backslashes",
                           path, what, (int)(c - path), *c);
    return PW_OK;
}

/* Appends path with every '%' doubled, as Slurm's --output patterns need. */
static void text_slurm_pattern(text *t, const char *path)
{
    for (const char *c = path; *c; c++) {
        if (*c == '%') text_printf(t, "%%%%");
        else text_printf(t, "%c", *c);
    }
}

/* 1 when the frame's cache is complete and was written by this simulation setup. */
static int cache_is_valid(const pw_scene *sc, int frame)
{
    char path[4096];
    pw_error ignored;
    if (pw_shot_cache_path(sc, frame, path, sizeof path, &ignored) != PW_OK) return 0;
    return pw_shot_cache_is_valid(sc, path);
}

/* 1 when the frame's cache is a full checkpoint of this simulation setup (a run can
 * resume from it), 0 for a slim render cache or none. */
static int cache_is_checkpoint(const pw_scene *sc, int frame)
{
    char path[4096];
    pw_cache_info info;
    pw_error ignored;
    if (pw_shot_cache_path(sc, frame, path, sizeof path, &ignored) != PW_OK) return 0;
    if (access(path, F_OK) != 0 || pw_cache_stat(path, &info, &ignored) != PW_OK) return 0;
    return info.sim_hash == sc->sim_hash && pw_cache_info_global(&info, PW_CACHE_SLIM, 0) == 0;
}

/* 1 when slice c (entries c*chunk .. of the frame list) has a frame without a valid EXR. */
static int slice_pending(const pw_submit_plan *p, int c)
{
    int pending = 0;
    for (int k = c * p->chunk; k < p->fl.count && k < (c + 1) * p->chunk; k++)
        pending |= !p->done[k];
    return pending;
}

/* Marks the frames whose EXR is valid, counts the slices left and decides whether the
 * simulation must run. With render_only a pending frame without its cache is an error
 * here, on the submitting machine, rather than a failed task on the farm. */
static pw_status survey(pw_submit_plan *p, const pw_submit_request *rq, pw_error *err)
{
    pw_submit_summary *s = &p->sum;
    s->frames = p->fl.count;
    s->slices = (p->fl.count + p->chunk - 1) / p->chunk;
    int caches_ok = 1, last_pending = p->sc->frame_start;
    for (int k = 0; k < p->fl.count; k++) {
        int f = p->fl.frames[k];
        char exr[4096];
        pw_status rc = pw_shot_frame_path(p->sc, f, exr, sizeof exr, err);
        if (rc != PW_OK) return rc;
        p->done[k] = (unsigned char)pw_shot_exr_is_current(p->sc, exr);
        s->frames_done += p->done[k];
        if (p->done[k]) continue;
        last_pending = f;
        if (cache_is_valid(p->sc, f)) continue;
        if (rq->render_only) {
            char cache[4096];
            pw_shot_cache_path(p->sc, f, cache, sizeof cache, NULL);
            return pw_fail(err, PW_EINVAL,
                           "%s: frame %d: no valid cache of this simulation setup (%s); "
                           "submit without --render-only, or run `powder sim` first",
                           p->sc->path, f, cache);
        }
        caches_ok = 0;
    }
    for (int c = 0; c < s->slices; c++) s->slices_pending += slice_pending(p, c);
    s->sim_needed = !rq->render_only && !caches_ok;
    s->sim_first = p->sc->frame_start;
    s->sim_last = last_pending;
    s->sim_resume_after = s->sim_first - 1;
    for (int f = s->sim_last; s->sim_needed && f >= s->sim_first; f--)
        if (cache_is_checkpoint(p->sc, f)) {
            s->sim_resume_after = f;
            break;
        }
    return PW_OK;
}

/* The --frames spec of frames[0..n): "a", "a-b", "a-bxs" for an even stride, else a
 * comma list of runs; always one the frames parser reads back to the same list. */
static void text_frame_spec(text *t, const int *frames, int n)
{
    int stride = n > 1 ? frames[1] - frames[0] : 1;
    int even = 1;
    for (int k = 2; k < n; k++) even &= frames[k] - frames[k - 1] == stride;
    if (n == 1) text_printf(t, "%d", frames[0]);
    else if (even && stride == 1) text_printf(t, "%d-%d", frames[0], frames[n - 1]);
    else if (even && n > 2) text_printf(t, "%d-%dx%d", frames[0], frames[n - 1], stride);
    else
        for (int k = 0; k < n;) {
            int e = k;
            while (e + 1 < n && frames[e + 1] == frames[e] + 1) e++;
            text_printf(t, k ? ",%d" : "%d", frames[k]);
            if (e > k) text_printf(t, "-%d", frames[e]);
            k = e + 1;
        }
}

/* #SBATCH lines every job shares, and the shell prologue. */
static void text_common_header(text *t, const pw_submit_request *rq)
{
    text_printf(t, "#SBATCH --chdir=");
    text_slurm_pattern(t, rq->work_dir);
    text_printf(t, "\n");
    if (rq->partition) text_printf(t, "#SBATCH --partition=%s\n", rq->partition);
    if (rq->threads) text_printf(t, "#SBATCH --cpus-per-task=%d\n", rq->threads);
    for (int k = 0; k < rq->n_sbatch; k++) text_printf(t, "#SBATCH %s\n", rq->sbatch[k]);
}

/* The arguments every task passes on, after the command and scene. */
static void text_task_options(text *t, const pw_submit_request *rq, int render)
{
    text_printf(t, " --threads \"$threads\"");
    if (rq->output) {
        text_printf(t, " --output ");
        text_quoted(t, rq->output);
    }
    if (render && rq->look) {
        text_printf(t, " --look ");
        text_quoted(t, rq->look);
    }
    if (render && rq->png) text_printf(t, " --png");
}

static const char *const threads_line =
    "# As many threads as CPUs Slurm gave the task (the image does not depend on it).\n"
    "threads=${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\n";

/* The simulation job. Slurm's warning a while before the time limit (--signal, USR1 to
 * this shell) is passed on to powder as SIGTERM: it finishes its frame, writes a full
 * checkpoint and exits 3, and the job submits its successor, a new job of this script
 * (run 2, 3, ...; a new id and log) that resumes from that checkpoint, as many times as
 * the shot needs (a requeued job would wait about two minutes). Meanwhile the shell
 * follows the log's "sim: frame N" lines and releases each held render task once the
 * last frame of its slice is written, so rendering overlaps the simulation. A plain
 * SIGTERM (scancel, preemption) stops powder the same way but is not continued: the held
 * render tasks of frames not simulated are then cancelled, as after a failure. */
static char *sim_script(const pw_submit_plan *p, const pw_submit_request *rq)
{
    const pw_scene *sc = p->sc;
    const pw_submit_summary *s = &p->sum;
    text t = {0};
    text_printf(&t,
                "#!/bin/bash\n"
                "# Powder simulation of shot '%s', frames %d-%d, written by `powder submit`.\n"
                "# usage: sbatch %s.sim.sbatch <render array job id>\n"
                "# Resumes from the newest checkpoint; %d s before its time limit it checkpoints\n"
                "# and submits a new job that continues from that checkpoint (run 2, 3, ...); it\n"
                "# releases each held render task once its frames are simulated.\n",
                sc->name, s->sim_first, s->sim_last, sc->name, rq->sim_warning);
    text_printf(&t, "#SBATCH --job-name=powder-sim-%s\n#SBATCH --output=", sc->name);
    text_slurm_pattern(&t, p->log_dir);
    text_printf(&t, "/%s.sim.%04d-%04d.%%j.log\n", sc->name, s->sim_first, s->sim_last);
    text_printf(&t, "#SBATCH --signal=B:USR1@%d\n", rq->sim_warning);
    text_common_header(&t, rq);
    text_printf(&t, "set -u\n%s", threads_line);
    text_printf(&t, "render_job=${1:?the render array job id}\nrun=${2:-1}\nlog=");
    text_quoted(&t, p->log_dir);
    text_printf(&t, "/%s.sim.%04d-%04d.\"$SLURM_JOB_ID\".log\n", sc->name, s->sim_first,
                s->sim_last);
    text_printf(&t, "# held render tasks (array index = slice) and the last frame of each\n"
                    "declare -A slice_last=(");
    for (int c = 0; c < s->slices; c++) {
        if (!slice_pending(p, c)) continue;
        int k_last = (c + 1) * p->chunk < p->fl.count ? (c + 1) * p->chunk - 1 : p->fl.count - 1;
        text_printf(&t, " [%d]=%d", c, p->fl.frames[k_last]);
    }
    text_printf(&t, " )\n");
    text_printf(&t,
        "# The newest frame written, from powder's log lines (frames are written in order).\n"
        "simulated_through() {\n"
        "    sed -n -e 's/^sim: frames [0-9]*-\\([0-9]*\\) already cached.*/\\1/p' \\\n"
        "        -e 's/^sim: resuming after frame \\([0-9]*\\) .*/\\1/p' \\\n"
        "        -e 's/^sim: frame \\([0-9]*\\): .*/\\1/p' \"$log\" | tail -n 1\n"
        "}\n"
        "release_ready() { # release_ready [all]\n"
        "    local through s\n"
        "    through=$(simulated_through)\n"
        "    for s in \"${!slice_last[@]}\"; do\n"
        "        [ \"${1:-}\" = all ] || [ \"${slice_last[$s]}\" -le \"${through:-0}\" ] || continue\n"
        "        scontrol release \"${render_job}_$s\" 2>/dev/null &&\n"
        "            echo \"powder: released render task ${render_job}_$s (frames through \\\n"
        "${slice_last[$s]} simulated) at $(date +%%s.%%N)\"\n"
        "        unset \"slice_last[$s]\"\n"
        "    done\n"
        "}\n");
    text_printf(&t, "echo \"powder: simulation job $SLURM_JOB_ID (run $run), frames %d-%d, on "
                    "$(hostname) at $(date +%%s.%%N)\"\n",
                s->sim_first, s->sim_last);
    text_quoted(&t, rq->powder_path);
    text_printf(&t, " sim ");
    text_quoted(&t, p->scene_abs);
    text_printf(&t, " --frames %d-%d", s->sim_first, s->sim_last);
    text_task_options(&t, rq, 0);
    text_printf(&t, " &\n");
    text_printf(&t,
        "pid=$!\n"
        "warned=0\n"
        "trap 'warned=1; kill -TERM \"$pid\" 2>/dev/null' USR1\n"
        "trap 'kill -TERM \"$pid\" 2>/dev/null' TERM INT\n"
        "# The sleep runs in the background: a signal ends the wait (and runs its trap) at once.\n"
        "while kill -0 \"$pid\" 2>/dev/null; do\n"
        "    release_ready\n"
        "    sleep \"${POWDER_FARM_POLL:-5}\" &\n"
        "    wait $!\n"
        "done\n"
        "wait \"$pid\"\n"
        "status=$?\n"
        "if [ \"$status\" = 0 ]; then\n"
        "    release_ready all\n"
        "    exit 0\n"
        "fi\n"
        "release_ready\n"
        "# Continued by a new job rather than requeued: Slurm holds a requeued job about two\n"
        "# minutes before it may start again (its credential is revoked meanwhile).\n"
        "if [ \"$status\" = 3 ] && [ \"$warned\" = 1 ] &&\n"
        "    next=$(sbatch --parsable --dependency=afterany:\"$SLURM_JOB_ID\" ");
    text_quoted(&t, p->script_path[PW_SUBMIT_SIM]);
    text_printf(&t, " \\\n"
        "        \"$render_job\" $((run + 1))); then\n"
        "    echo \"powder: time limit near: continuing as job ${next%%%%;*} (run $((run + 1))) \\\n"
        "from the checkpoint at $(date +%%s.%%N)\"\n"
        "    exit 0\n"
        "fi\n"
        "for s in \"${!slice_last[@]}\"; do scancel \"${render_job}_$s\"; done\n"
        "echo \"powder: simulation ended with status $status; held render tasks cancelled: \\\n"
        "${!slice_last[*]}\"\n"
        "exit \"$status\"\n");
    if (t.oom) free(t.s);
    return t.oom ? NULL : t.s;
}

static char *render_script(const pw_submit_plan *p, const pw_submit_request *rq)
{
    const pw_scene *sc = p->sc;
    const pw_submit_summary *s = &p->sum;
    text t = {0};
    text_printf(&t,
                "#!/bin/bash\n"
                "# Powder render tasks of shot '%s': %d frames in %d slices of up to %d; this\n"
                "# array runs the %d slices whose EXRs are not all valid yet. Written by\n"
                "# `powder submit`; tasks render with --resume, so a rerun only renders what\n"
                "# is missing.\n",
                sc->name, s->frames, s->slices, p->chunk, s->slices_pending);
    text_printf(&t, "#SBATCH --job-name=powder-render-%s\n#SBATCH --array=", sc->name);
    /* Array indices are slice numbers of the whole request, stable across resubmissions;
     * runs of pending slices are written as ranges. */
    int first = 1;
    for (int c = 0; c < s->slices; c++) {
        if (!slice_pending(p, c)) continue;
        int e = c;
        while (e + 1 < s->slices && slice_pending(p, e + 1)) e++;
        text_printf(&t, first ? "%d" : ",%d", c);
        if (e > c) text_printf(&t, "-%d", e);
        first = 0;
        c = e;
    }
    text_printf(&t, "\n#SBATCH --output=");
    text_slurm_pattern(&t, p->log_dir);
    text_printf(&t, "/%s.render.%%A_%%a.slurm.log\n", sc->name);
    /* Held until the simulation job releases each task as its frames are written. */
    if (s->sim_needed) text_printf(&t, "#SBATCH --hold\n");
    text_common_header(&t, rq);
    text_printf(&t, "set -u\ncase \"${SLURM_ARRAY_TASK_ID:-}\" in\n");
    for (int c = 0; c < s->slices; c++) {
        int k0 = c * p->chunk, n = p->fl.count - k0 < p->chunk ? p->fl.count - k0 : p->chunk;
        text_printf(&t, "%d) frames=", c);
        text_frame_spec(&t, p->fl.frames + k0, n);
        text_printf(&t, " range=%04d-%04d ;;\n", p->fl.frames[k0], p->fl.frames[k0 + n - 1]);
    }
    text_printf(&t, "*) echo \"powder: array task '${SLURM_ARRAY_TASK_ID:-}' has no frame "
                    "slice\" >&2; exit 2 ;;\nesac\n");
    text_printf(&t, "# The task's own log is named after its frames; the .slurm.log above keeps\n"
                    "# what Slurm itself reports (time limit, cancellation).\nexec >");
    text_quoted(&t, p->log_dir);
    text_printf(&t, "/%s.render.\"$range\".\"$SLURM_ARRAY_JOB_ID\"_\"$SLURM_ARRAY_TASK_ID\".log "
                    "2>&1\n%s", sc->name, threads_line);
    text_printf(&t, "echo \"powder: render task ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}, "
                    "frames $frames, on $(hostname) at $(date +%%s.%%N)\"\nexec ");
    text_quoted(&t, rq->powder_path);
    text_printf(&t, " render ");
    text_quoted(&t, p->scene_abs);
    text_printf(&t, " --frames \"$frames\" --resume");
    text_task_options(&t, rq, 1);
    text_printf(&t, "\n");
    if (t.oom) free(t.s);
    return t.oom ? NULL : t.s;
}

/* An extra sbatch option goes on a "#SBATCH" line of every job: a long option
 * ("--time=2:00:00") in one word that Slurm's line splitting leaves alone (as for
 * paths, check_sbatch_path), and none that powder sets itself, which would silently
 * change where the jobs run, log or wait. */
static pw_status check_sbatch_option(const char *opt, pw_error *err)
{
    static const char *const managed[] = {"--chdir", "--output", "--error", "--array",
                                          "--dependency", "--job-name", "--partition",
                                          "--cpus-per-task", "--hold", "--signal",
                                          "--requeue", "--no-requeue", "--open-mode",
                                          "--parsable", "--wrap", NULL};
    if (strncmp(opt, "--", 2) != 0 || !opt[2])
        return pw_fail(err, PW_EINVAL,
                       "submit: --sbatch '%s': expected a long sbatch option such as "
                       "--time=2:00:00",
                       opt);
    for (const char *c = opt; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '"' || *c == '\'' || *c == '\\')
            return pw_fail(err, PW_EINVAL,
                           "submit: --sbatch '%s': one word without spaces, quotes, "
                           "backslashes or control characters (byte %d)",
                           opt, (int)(c - opt));
    size_t name_len = strcspn(opt, "=");
    for (int k = 0; managed[k]; k++)
        if (strlen(managed[k]) == name_len && !strncmp(opt, managed[k], name_len))
            return pw_fail(err, PW_EINVAL,
                           "submit: --sbatch '%s': powder sets %s itself (see powder submit "
                           "--help)",
                           opt, managed[k]);
    return PW_OK;
}

/* Seconds of a Slurm time limit ("minutes", "minutes:seconds", "hours:minutes:seconds",
 * "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"); -1 for no limit
 * ("-1", "INFINITE", "UNLIMITED") or a form this does not read, which sbatch then
 * judges itself. */
static long slurm_time_seconds(const char *v)
{
    if (!strcmp(v, "-1") || !strcasecmp(v, "INFINITE") || !strcasecmp(v, "UNLIMITED"))
        return -1;
    long part[4] = {0}, days = 0;
    int n = 0, has_days = 0;
    const char *c = v;
    if (strchr(v, '-')) {
        char *end;
        days = strtol(v, &end, 10);
        if (end == v || *end != '-' || days < 0 || days > 365) return -1;
        has_days = 1;
        c = end + 1;
    }
    for (;;) {
        char *end;
        if (*c < '0' || *c > '9' || n == 3) return -1;
        part[n++] = strtol(c, &end, 10);
        if (part[n - 1] > 1000000) return -1;
        if (*end == 0) break;
        if (*end != ':') return -1;
        c = end + 1;
    }
    if (has_days) /* days-hours[:minutes[:seconds]] */
        return days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
    if (n == 1) return part[0] * 60;
    if (n == 2) return part[0] * 60 + part[1];
    return part[0] * 3600 + part[1] * 60 + part[2];
}

/* Slurm sends the simulation's warning sim_warning seconds before the time limit: a
 * limit no longer than that warns the job as it starts, so every run would be told to
 * stop before it had simulated a frame. Only a submission with a simulation job is
 * checked: render tasks get no warning. */
static pw_status check_time_limit(const pw_submit_request *rq, pw_error *err)
{
    for (int k = 0; k < rq->n_sbatch; k++) {
        if (strncmp(rq->sbatch[k], "--time=", 7) != 0) continue;
        long limit = slurm_time_seconds(rq->sbatch[k] + 7);
        if (limit >= 0 && limit <= rq->sim_warning)
            return pw_fail(err, PW_EINVAL,
                           "submit: --sbatch '%s': the time limit (%ld s) must be longer than "
                           "the simulation's warning before it (--sim-warning %d s)",
                           rq->sbatch[k], limit, rq->sim_warning);
    }
    return PW_OK;
}

static pw_status check_request(const pw_submit_request *rq, pw_error *err)
{
    if (!rq->scene_path || !rq->scene_path[0])
        return pw_fail(err, PW_EINVAL, "submit: no scene file");
    if (rq->chunk < 1)
        return pw_fail(err, PW_EINVAL, "submit: --chunk must be >= 1 (%d)", rq->chunk);
    if (rq->sim_warning < 60 || rq->sim_warning > 65535)
        return pw_fail(err, PW_EINVAL, "submit: --sim-warning must be in [60, 65535] s (%d)",
                       rq->sim_warning);
    if (rq->threads < 0)
        return pw_fail(err, PW_EINVAL, "submit: --threads must be >= 0 (%d)", rq->threads);
    if (!is_absolute(rq->powder_path))
        return pw_fail(err, PW_EINVAL, "submit: the powder program path must be absolute (%s)",
                       rq->powder_path ? rq->powder_path : "(none)");
    if (!is_absolute(rq->work_dir))
        return pw_fail(err, PW_EINVAL, "submit: the working directory must be absolute (%s)",
                       rq->work_dir ? rq->work_dir : "(none)");
    if (rq->partition)
        for (const char *c = rq->partition; *c; c++)
            if (!(*c == '_' || *c == '-' || *c == '.' || *c == ',' || (*c >= '0' && *c <= '9') ||
                  (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
                return pw_fail(err, PW_EINVAL,
                               "submit: --partition '%s': partition names are letters, digits "
                               "and _ - . , (byte %d)",
                               rq->partition, (int)(c - rq->partition));
    for (int k = 0; k < rq->n_sbatch; k++) {
        pw_status rc = check_sbatch_option(rq->sbatch[k], err);
        if (rc != PW_OK) return rc;
    }
    return check_sbatch_path("the working directory", rq->work_dir, err);
}

/* Farm directory: "farm" beside the frames (absolute), logs inside it. */
static pw_status farm_paths(pw_submit_plan *p, const pw_submit_request *rq, pw_error *err)
{
    char frames_abs[4096];
    pw_status rc = absolute(rq->work_dir, p->sc->frame_pattern, frames_abs, sizeof frames_abs, err);
    if (rc != PW_OK) return rc;
    char *slash = strrchr(frames_abs, '/');
    *slash = '\0'; /* absolute, so there is one */
    if ((rc = pw_path_format(p->farm_dir, sizeof p->farm_dir, err, "%s/farm", frames_abs)) ||
        (rc = pw_path_format(p->log_dir, sizeof p->log_dir, err, "%s/logs", p->farm_dir)) ||
        (rc = pw_path_format(p->record_path, sizeof p->record_path, err, "%s/%s.jobs",
                             p->farm_dir, p->sc->name)) ||
        (rc = pw_path_format(p->script_path[PW_SUBMIT_SIM], sizeof p->script_path[0], err,
                             "%s/%s.sim.sbatch", p->farm_dir, p->sc->name)) ||
        (rc = pw_path_format(p->script_path[PW_SUBMIT_RENDER], sizeof p->script_path[0], err,
                             "%s/%s.render.sbatch", p->farm_dir, p->sc->name)))
        return rc;
    return check_sbatch_path("the log directory", p->log_dir, err);
}

pw_submit_plan *pw_submit_plan_create(const pw_submit_request *rq, pw_error *err)
{
    if (check_request(rq, err) != PW_OK) return NULL;
    pw_submit_plan *p = calloc(1, sizeof *p);
    pw_scene *sc = p ? calloc(1, sizeof *sc) : NULL;
    if (!sc) {
        free(p);
        pw_fail(err, PW_ENOMEM, "submit: out of memory");
        return NULL;
    }
    p->sc = sc;
    p->chunk = rq->chunk;
    pw_submit_request abs_rq = *rq;
    char look_abs[4096], output_abs[4096];
    pw_status rc = absolute(rq->work_dir, rq->scene_path, p->scene_abs, sizeof p->scene_abs, err);
    if (rc == PW_OK && rq->look) {
        rc = absolute(rq->work_dir, rq->look, look_abs, sizeof look_abs, err);
        abs_rq.look = look_abs;
    }
    if (rc == PW_OK && rq->output) {
        rc = absolute(rq->work_dir, rq->output, output_abs, sizeof output_abs, err);
        abs_rq.output = output_abs;
    }
    if (rc == PW_OK) rc = pw_scene_load(p->scene_abs, sc, err);
    if (rc == PW_OK) rc = pw_shot_apply_output_and_look(sc, abs_rq.output, abs_rq.look, err);
    /* The checks below then look at the files the tasks write from work_dir, whatever the
     * current directory. */
    char pattern[sizeof sc->frame_pattern];
    if (rc == PW_OK && (rc = absolute(rq->work_dir, sc->frame_pattern, pattern, sizeof pattern,
                                      err)) == PW_OK)
        memcpy(sc->frame_pattern, pattern, sizeof pattern);
    if (rc == PW_OK && (rc = absolute(rq->work_dir, sc->cache_pattern, pattern, sizeof pattern,
                                      err)) == PW_OK)
        memcpy(sc->cache_pattern, pattern, sizeof pattern);
    if (rc == PW_OK)
        rc = rq->frames ? pw_frames_parse(rq->frames, sc->frame_start, sc->frame_end, &p->fl, err)
                        : pw_frames_range(sc->frame_start, sc->frame_end, &p->fl, err);
    if (rc == PW_OK && !(p->done = calloc((size_t)p->fl.count, 1)))
        rc = pw_fail(err, PW_ENOMEM, "submit: out of memory");
    if (rc == PW_OK) rc = farm_paths(p, &abs_rq, err);
    if (rc == PW_OK) rc = survey(p, rq, err);
    if (rc == PW_OK && p->sum.sim_needed) rc = check_time_limit(rq, err);
    if (rc == PW_OK && p->sum.sim_needed && !(p->script[PW_SUBMIT_SIM] = sim_script(p, &abs_rq)))
        rc = pw_fail(err, PW_ENOMEM, "submit: out of memory");
    if (rc == PW_OK && p->sum.slices_pending &&
        !(p->script[PW_SUBMIT_RENDER] = render_script(p, &abs_rq)))
        rc = pw_fail(err, PW_ENOMEM, "submit: out of memory");
    if (rc != PW_OK) {
        pw_submit_plan_destroy(p);
        return NULL;
    }
    return p;
}

void pw_submit_plan_destroy(pw_submit_plan *p)
{
    if (!p) return;
    free(p->script[0]);
    free(p->script[1]);
    free(p->done);
    pw_frame_list_free(&p->fl);
    free(p->sc);
    free(p);
}

void pw_submit_plan_summary(const pw_submit_plan *p, pw_submit_summary *out) { *out = p->sum; }

const char *pw_submit_plan_script(const pw_submit_plan *p, pw_submit_job job)
{
    return p->script[job];
}

const char *pw_submit_plan_script_path(const pw_submit_plan *p, pw_submit_job job)
{
    return p->script_path[job];
}

const char *pw_submit_plan_log_dir(const pw_submit_plan *p) { return p->log_dir; }
const char *pw_submit_plan_record_path(const pw_submit_plan *p) { return p->record_path; }
const pw_scene *pw_submit_plan_scene(const pw_submit_plan *p) { return p->sc; }
const pw_frame_list *pw_submit_plan_frames(const pw_submit_plan *p) { return &p->fl; }

pw_status pw_submit_plan_write(const pw_submit_plan *p, pw_error *err)
{
    pw_status rc = pw_mkdir_p(p->log_dir, err);
    for (int j = 0; j < 2 && rc == PW_OK; j++) {
        if (!p->script[j]) continue;
        pw_atomic_file f;
        if ((rc = pw_atomic_begin(&f, p->script_path[j], err)) != PW_OK) break;
        /* Executable so a user can also run a script by hand to debug a task. */
        if (fchmod(fileno(f.fp), 0755) != 0) {
            pw_atomic_abort(&f);
            return pw_fail(err, PW_EIO, "%s: chmod: %s", f.tmp_path, strerror(errno));
        }
        rc = pw_atomic_write(&f, p->script[j], strlen(p->script[j]), err);
        if (rc == PW_OK) rc = pw_atomic_commit(&f, err);
        else pw_atomic_abort(&f);
    }
    return rc;
}

/* ---- sbatch --------------------------------------------------------------------- */

pw_status pw_submit_parse_job_id(const char *output, char *job_id, size_t n, pw_error *err)
{
    const char *s = output;
    while (*s == '\n' || *s == '\r' || *s == ' ') s++;
    size_t digits = strspn(s, "0123456789");
    char after = s[digits];
    if (digits == 0 || digits >= n || !(after == '\0' || after == '\n' || after == '\r' ||
                                        after == ';'))
        return pw_fail(err, PW_EFORMAT, "sbatch: no job id in its output ('%.200s')", output);
    memcpy(job_id, s, digits);
    job_id[digits] = '\0';
    return PW_OK;
}

pw_status pw_submit_sbatch(const char *script_path, const char *script_arg, char *job_id,
                           size_t n, pw_error *err)
{
    char *argv[5] = {"sbatch", "--parsable", (char *)script_path,
                     script_arg && script_arg[0] ? (char *)script_arg : NULL, NULL};
    pw_command_result r;
    pw_status rc = pw_command_run(argv, SBATCH_OUTPUT_MAX, &r, err);
    if (rc != PW_OK) return pw_error_prefix(err, "%s", script_path), rc;
    char why[256];
    pw_command_last_line(r.errs, why, sizeof why);
    if (r.exit_status == 127 && !r.errs[0])
        rc = pw_fail(err, PW_EIO, "%s: sbatch: not found on PATH (is slurm-client installed? "
                     "--dry-run shows the scripts without it)", script_path);
    else if (r.exit_status != 0)
        rc = pw_fail(err, PW_EIO, "%s: sbatch failed (exit status %d): %s", script_path,
                     r.exit_status, why[0] ? why : "no message");
    else if (r.too_long)
        rc = pw_fail(err, PW_EFORMAT, "%s: sbatch printed more than %d bytes", script_path,
                     SBATCH_OUTPUT_MAX);
    else if (pw_submit_parse_job_id(r.out, job_id, n, err) != PW_OK)
        pw_error_prefix(err, "%s", script_path), rc = PW_EFORMAT;
    pw_command_result_free(&r);
    return rc;
}

/* Appends what was submitted to the plan's record, one line a job or array task:
 * "<sim|render> <job id> <frames spec> <unix time>", for `powder submit --status`. One
 * write of whole lines, so concurrent submissions do not interleave within a line. */
static pw_status record_jobs(const pw_submit_plan *p, const pw_submit_jobs *jobs, pw_error *err)
{
    text t = {0};
    long now = (long)time(NULL);
    for (int c = 0; jobs->render_job[0] && c < p->sum.slices; c++) {
        if (!slice_pending(p, c)) continue;
        int k0 = c * p->chunk, n = p->fl.count - k0 < p->chunk ? p->fl.count - k0 : p->chunk;
        text_printf(&t, "render %s_%d ", jobs->render_job, c);
        text_frame_spec(&t, p->fl.frames + k0, n);
        text_printf(&t, " %ld\n", now);
    }
    if (jobs->sim_job[0])
        text_printf(&t, "sim %s %d-%d %ld\n", jobs->sim_job, p->sum.sim_first, p->sum.sim_last,
                    now);
    if (t.oom) {
        free(t.s);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", p->record_path);
    }
    pw_status rc = PW_OK;
    int fd = open(p->record_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || (t.len && write(fd, t.s, t.len) != (ssize_t)t.len))
        rc = pw_fail(err, PW_EIO, "%s: %s", p->record_path, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && rc == PW_OK)
        rc = pw_fail(err, PW_EIO, "%s: %s", p->record_path, strerror(errno));
    free(t.s);
    return rc;
}

pw_status pw_submit_plan_submit(const pw_submit_plan *p, pw_submit_jobs *jobs, pw_error *err)
{
    memset(jobs, 0, sizeof *jobs);
    pw_status rc = pw_submit_plan_write(p, err);
    /* The render array first (held when there is a simulation), so that the simulation
     * job knows which tasks to release. */
    if (rc == PW_OK && p->script[PW_SUBMIT_RENDER])
        rc = pw_submit_sbatch(p->script_path[PW_SUBMIT_RENDER], NULL, jobs->render_job,
                              sizeof jobs->render_job, err);
    if (rc == PW_OK && p->script[PW_SUBMIT_SIM])
        rc = pw_submit_sbatch(p->script_path[PW_SUBMIT_SIM], jobs->render_job, jobs->sim_job,
                              sizeof jobs->sim_job, err);
    /* What was queued is recorded even when the second submission failed. */
    if (jobs->render_job[0] || jobs->sim_job[0]) {
        pw_error rec_err;
        pw_status rec = record_jobs(p, jobs, &rec_err);
        if (rc == PW_OK && rec != PW_OK) *err = rec_err, rc = rec;
    }
    return rc;
}
