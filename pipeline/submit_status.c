/* submit_status.c — `powder submit --status`: per frame of a shot handed to Slurm, what
 * is simulated, rendered, running, waiting or failed, and why. Read from the files the
 * shot and its jobs leave (caches, EXRs, the record of submitted jobs, the jobs' logs)
 * and from one call of squeue; nothing is written. See submit.h. */
#include "submit.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "frames.h"
#include "pw_cache.h"
#include "scene.h"
#include "shot.h"

enum { JOB_ID_MAX = 64, SQUEUE_OUTPUT_MAX = 1 << 20, CHAIN_MAX = 256 };

/* What squeue says of one job or array task. */
typedef struct {
    char id[JOB_ID_MAX], state[32], reason[96];
} job_state;

typedef struct {
    job_state *items;
    int count;
    int asked;        /* squeue ran and answered */
    char why_not[256]; /* else: why not */
} job_states;

/* Per frame of the request: the newest record entry that covers it. */
typedef struct {
    char render_task[JOB_ID_MAX]; /* "" when never submitted for rendering */
} frame_jobs;

typedef struct {
    char first_job[JOB_ID_MAX]; /* the newest simulation submission */
    char chain[CHAIN_MAX][JOB_ID_MAX]; /* it and its continuations, in order */
    int chain_len;
    int first, last; /* its frames */
    long when;
} sim_record;

static const job_state *find_state(const job_states *js, const char *id)
{
    for (int k = 0; k < js->count; k++)
        if (!strcmp(js->items[k].id, id)) return &js->items[k];
    return NULL;
}

/* Reads the record: per frame the newest render task, and the newest simulation. A line
 * that does not read is reported on `out` and skipped: the record is only a help. */
static int read_record(const char *path, const pw_scene *sc, const pw_frame_list *fl,
                       frame_jobs *fj, sim_record *sim, long *last_when, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int n = 0, line_no = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        char kind[16], job[JOB_ID_MAX], spec[256];
        long when;
        if (sscanf(line, "%15s %63s %255s %ld", kind, job, spec, &when) != 4 ||
            (strcmp(kind, "render") && strcmp(kind, "sim"))) {
            fprintf(out, "powder: %s:%d: not a record line; ignored\n", path, line_no);
            continue;
        }
        pw_frame_list lf;
        pw_error e;
        if (pw_frames_parse(spec, sc->frame_start, sc->frame_end, &lf, &e) != PW_OK) {
            fprintf(out, "powder: %s:%d: %s; ignored\n", path, line_no, e.msg);
            continue;
        }
        n++;
        if (when > *last_when) *last_when = when;
        if (!strcmp(kind, "sim")) {
            snprintf(sim->first_job, sizeof sim->first_job, "%s", job);
            sim->first = lf.frames[0], sim->last = lf.frames[lf.count - 1], sim->when = when;
        } else {
            for (int k = 0, j = 0; k < fl->count && j < lf.count; k++) {
                while (j < lf.count && lf.frames[j] < fl->frames[k]) j++;
                if (j < lf.count && lf.frames[j] == fl->frames[k])
                    snprintf(fj[k].render_task, sizeof fj[k].render_task, "%s", job);
            }
        }
        pw_frame_list_free(&lf);
    }
    fclose(f);
    return n;
}

/* The log of a simulation job, named by its frames and id. */
static void sim_log_path(const char *log_dir, const pw_scene *sc, const sim_record *sim,
                         const char *job, char *out, size_t n)
{
    snprintf(out, n, "%s/%s.sim.%04d-%04d.%s.log", log_dir, sc->name, sim->first, sim->last,
             job);
}

/* Follows "continuing as job N" through the simulation's logs. */
static void follow_chain(const char *log_dir, const pw_scene *sc, sim_record *sim)
{
    snprintf(sim->chain[0], JOB_ID_MAX, "%s", sim->first_job);
    sim->chain_len = 1;
    while (sim->chain_len < CHAIN_MAX) {
        char path[4096], line[1024], next[JOB_ID_MAX] = "";
        sim_log_path(log_dir, sc, sim, sim->chain[sim->chain_len - 1], path, sizeof path);
        FILE *f = fopen(path, "r");
        if (!f) return;
        while (fgets(line, sizeof line, f))
            sscanf(line, "powder: time limit near: continuing as job %63[0-9]", next);
        fclose(f);
        if (!next[0]) return;
        snprintf(sim->chain[sim->chain_len++], JOB_ID_MAX, "%s", next);
    }
}

/* One squeue call for every job named (array ids expand to their tasks with -r; -t all
 * keeps jobs that ended within the cluster's MinJobAge). */
static void ask_squeue(char (*ids)[JOB_ID_MAX], int n_ids, job_states *js)
{
    size_t len = 1;
    for (int k = 0; k < n_ids; k++) len += strlen(ids[k]) + 1;
    char *list = calloc(len, 1);
    if (!list) {
        snprintf(js->why_not, sizeof js->why_not, "out of memory");
        return;
    }
    for (int k = 0; k < n_ids; k++) {
        if (k) strcat(list, ",");
        strcat(list, ids[k]);
    }
    char *argv[] = {"squeue", "-h", "-r", "-t", "all", "-o", "%i|%T|%r", "-j", list, NULL};
    pw_command_result r;
    pw_error e;
    if (pw_command_run(argv, SQUEUE_OUTPUT_MAX, &r, &e) != PW_OK) {
        snprintf(js->why_not, sizeof js->why_not, "%.200s", e.msg);
        free(list);
        return;
    }
    free(list);
    char why[200];
    pw_command_last_line(r.errs, why, sizeof why);
    /* squeue fails when none of the ids is known any more: that is "all ended". */
    if (r.exit_status == 127 && !r.errs[0])
        snprintf(js->why_not, sizeof js->why_not, "squeue not found on PATH");
    else if (r.exit_status != 0 && !strstr(r.errs, "Invalid job id"))
        snprintf(js->why_not, sizeof js->why_not, "squeue failed: %s", why[0] ? why : "no message");
    else {
        js->asked = 1;
        int cap = 0;
        for (char *s = r.out, *eol; *s; s = eol + (*eol != '\0')) {
            eol = strchr(s, '\n');
            if (!eol) eol = s + strlen(s);
            job_state st = {0};
            if (sscanf(s, "%63[^|]|%31[^|]|%95[^\n]", st.id, st.state, st.reason) < 2) continue;
            if (js->count == cap) {
                cap = cap ? 2 * cap : 16;
                job_state *g = realloc(js->items, (size_t)cap * sizeof *g);
                if (!g) break;
                js->items = g;
            }
            js->items[js->count++] = st;
        }
    }
    pw_command_result_free(&r);
}

/* The last line of a log that says something (not a PROGRESS line, not one of the job
 * script's own bookkeeping lines), or "", in one read; *ended_badly (may be NULL) says
 * whether the job script logged a simulation ending with an error status. Returns 0 when
 * there is no log. */
static int log_last_word(const char *path, char *out, size_t n, int *ended_badly)
{
    out[0] = '\0';
    if (ended_badly) *ended_badly = 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!strncmp(line, "powder: simulation ended with status", 36)) {
            if (ended_badly) *ended_badly = 1;
            continue;
        }
        if (!line[0] || !strncmp(line, "PROGRESS", 8) || !strncmp(line, "powder: released", 16) ||
            !strncmp(line, "powder: render task ", 20) ||
            !strncmp(line, "powder: simulation job ", 23))
            continue;
        snprintf(out, n, "%.*s", (int)(n - 1), line);
    }
    fclose(f);
    return 1;
}

/* The log of render task "<job>_<task>" (named after its frames, unknown here). */
static int task_log_path(const char *log_dir, const pw_scene *sc, const char *task, char *out,
                         size_t n)
{
    DIR *d = opendir(log_dir);
    if (!d) return 0;
    char prefix[160], suffix[JOB_ID_MAX + 8];
    snprintf(prefix, sizeof prefix, "%s.render.", sc->name);
    snprintf(suffix, sizeof suffix, ".%s.log", task);
    size_t lp = strlen(prefix), ls = strlen(suffix);
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > lp + ls && !strncmp(e->d_name, prefix, lp) &&
            !strcmp(e->d_name + l - ls, suffix) && !strstr(e->d_name, ".slurm.log")) {
            snprintf(out, n, "%s/%s", log_dir, e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

/* Why a task that ended left frames without their EXR: what Slurm said of it (time
 * limit, cancellation), else the last thing powder said. */
static void task_failure(const char *log_dir, const pw_scene *sc, const char *task,
                         const job_state *st, char *out, size_t n)
{
    char path[4096], said[512] = "";
    snprintf(path, sizeof path, "%s/%s.render.%s.slurm.log", log_dir, sc->name, task);
    FILE *f = fopen(path, "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (strstr(line, "CANCELLED") || strstr(line, "TIME LIMIT") || strstr(line, "error"))
                snprintf(said, sizeof said, "%.500s", line);
        }
        fclose(f);
    }
    int started = task_log_path(log_dir, sc, task, path, sizeof path);
    if (!said[0] && started) log_last_word(path, said, sizeof said, NULL);
    if (said[0]) snprintf(out, n, "%s", said);
    else if (st) snprintf(out, n, "Slurm says %s%s", st->state, started ? "" : ", before it started");
    else snprintf(out, n, "the task ended without it and left no reason");
}

static const char *pending_reason(const char *reason)
{
    if (!strcmp(reason, "JobHeldUser") || !strcmp(reason, "JobHeldAdmin"))
        return "held until its frames are simulated";
    if (!strcmp(reason, "Dependency")) return "waiting for the simulation job";
    if (!strcmp(reason, "Resources") || !strcmp(reason, "Priority"))
        return "queued for a free node";
    return "queued";
}

static int state_is(const job_state *st, const char *s) { return st && !strcmp(st->state, s); }

pw_status pw_submit_status(const pw_submit_plan *plan, FILE *out, pw_error *err)
{
    const pw_scene *sc = pw_submit_plan_scene(plan);
    const pw_frame_list *fl = pw_submit_plan_frames(plan);
    const char *log_dir = pw_submit_plan_log_dir(plan);
    const char *record = pw_submit_plan_record_path(plan);
    frame_jobs *fj = calloc((size_t)fl->count, sizeof *fj);
    sim_record *sim = calloc(1, sizeof *sim);
    char(*ids)[JOB_ID_MAX] = calloc((size_t)fl->count + CHAIN_MAX, sizeof *ids);
    if (!fj || !sim || !ids) {
        free(fj), free(sim), free(ids);
        return pw_fail(err, PW_ENOMEM, "submit --status: out of memory");
    }
    long last_when = 0;
    int n_records = read_record(record, sc, fl, fj, sim, &last_when, out);
    if (sim->first_job[0]) follow_chain(log_dir, sc, sim);

    /* The jobs to ask about: the array ids of the tasks and the simulation's chain. */
    int n_ids = 0;
    for (int k = 0; k < fl->count; k++) {
        if (!fj[k].render_task[0]) continue;
        size_t id_len = strcspn(fj[k].render_task, "_");
        int seen = 0;
        for (int j = 0; j < n_ids && !seen; j++)
            seen = strlen(ids[j]) == id_len && !strncmp(ids[j], fj[k].render_task, id_len);
        if (!seen) snprintf(ids[n_ids++], JOB_ID_MAX, "%.*s", (int)id_len, fj[k].render_task);
    }
    for (int c = 0; c < sim->chain_len; c++) snprintf(ids[n_ids++], JOB_ID_MAX, "%s", sim->chain[c]);
    job_states js = {0};
    if (n_ids) ask_squeue(ids, n_ids, &js);

    fprintf(out, "shot %s: %d frames (%d-%d)\n", sc->name, fl->count, fl->frames[0],
            fl->frames[fl->count - 1]);
    if (!n_records) {
        fprintf(out, "no submission recorded in %s: the state of the files only\n", record);
    } else {
        char when[64] = "";
        time_t t = (time_t)last_when;
        struct tm tm;
        if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        fprintf(out, "record %s, last submission %s\n", record, when);
    }
    if (n_ids && !js.asked)
        fprintf(out, "job states from the logs only: %s\n", js.why_not);

    /* The simulation: its newest job and what it says. */
    int sim_running = 0, sim_queued = 0, sim_failed = 0;
    char sim_why[512] = "";
    if (sim->chain_len) {
        const char *last = sim->chain[sim->chain_len - 1];
        const job_state *st = find_state(&js, last);
        char path[4096];
        sim_log_path(log_dir, sc, sim, last, path, sizeof path);
        sim_running = state_is(st, "RUNNING") || state_is(st, "CONFIGURING") ||
                      state_is(st, "COMPLETING");
        sim_queued = state_is(st, "PENDING");
        int ended_badly = 0, has_log = log_last_word(path, sim_why, sizeof sim_why, &ended_badly);
        sim_failed = !sim_running && !sim_queued && (ended_badly || state_is(st, "FAILED") ||
                                      state_is(st, "CANCELLED") || state_is(st, "TIMEOUT") ||
                                      state_is(st, "NODE_FAIL") || state_is(st, "OUT_OF_MEMORY"));
        if (!sim_failed) sim_why[0] = '\0';
        fprintf(out, "simulation: frames %d-%d, job%s", sim->first, sim->last,
                sim->chain_len > 1 ? "s" : "");
        for (int c = 0; c < sim->chain_len; c++)
            fprintf(out, "%s%s", c ? " -> " : " ", sim->chain[c]);
        fprintf(out, " (run %d): %s%s%s\n  log %s\n", sim->chain_len,
                st ? st->state : (has_log ? "ended" : "no log yet"),
                state_is(st, "PENDING") ? ", " : "",
                state_is(st, "PENDING") ? pending_reason(st->reason) : "", path);
    }

    fprintf(out, "%6s  %-9s  %-8s  %-10s  %s\n", "frame", "cache", "EXR", "render", "state");
    int n_sim = 0, n_done = 0, n_running = 0, n_waiting = 0, n_failed = 0, n_idle = 0;
    /* a task renders consecutive frames: its logs are read once for all of them */
    char why_task[JOB_ID_MAX] = "", why[512] = "";
    for (int k = 0; k < fl->count; k++) {
        int f = fl->frames[k];
        pw_cache_info info;
        pw_error ce = {0};
        int cache_ok = pw_shot_cache_info(sc, f, &info, &ce) == PW_OK;
        char cpath[4096], exr[4096];
        pw_shot_cache_path(sc, f, cpath, sizeof cpath, NULL);
        int cache_absent = !cache_ok && access(cpath, F_OK) != 0;
        pw_status rc = pw_shot_frame_path(sc, f, exr, sizeof exr, err);
        if (rc != PW_OK) {
            free(fj), free(sim), free(ids), free(js.items);
            return rc;
        }
        int exr_ok = pw_shot_exr_is_current(sc, exr);
        int exr_absent = !exr_ok && access(exr, F_OK) != 0;
        n_sim += cache_ok;
        const char *task = fj[k].render_task;
        const job_state *st = task[0] ? find_state(&js, task) : NULL;
        char state[1024];
        if (exr_ok) {
            snprintf(state, sizeof state, "done");
            n_done++;
        } else if (state_is(st, "RUNNING") || state_is(st, "COMPLETING")) {
            snprintf(state, sizeof state, "rendering");
            n_running++;
        } else if (state_is(st, "PENDING")) {
            snprintf(state, sizeof state, "waiting: %s", pending_reason(st->reason));
            n_waiting++;
        } else if (!cache_ok && !cache_absent) {
            snprintf(state, sizeof state, "failed: %s", ce.msg);
            n_failed++;
        } else if (!cache_ok && (sim_running || sim_queued)) {
            snprintf(state, sizeof state, sim_running ? "simulating" : "waiting: the simulation "
                                                                       "job is queued");
            n_waiting++;
        } else if (!cache_ok && sim_failed && f >= sim->first && f <= sim->last) {
            snprintf(state, sizeof state, "failed: the simulation ended before it: %s",
                     sim_why[0] ? sim_why : "no reason in its log");
            n_failed++;
        } else if (task[0]) {
            if (strcmp(why_task, task)) {
                task_failure(log_dir, sc, task, st, why, sizeof why);
                snprintf(why_task, sizeof why_task, "%s", task);
            }
            snprintf(state, sizeof state, "failed: %s", why);
            n_failed++;
        } else {
            snprintf(state, sizeof state, "not submitted");
            n_idle++;
        }
        fprintf(out, "%6d  %-9s  %-8s  %-10s  %s\n", f,
                cache_ok ? "simulated" : cache_absent ? "-" : "bad",
                exr_ok ? "rendered" : exr_absent ? "-" : "outdated", task[0] ? task : "-", state);
    }
    fprintf(out, "%d frames: %d simulated, %d rendered, %d rendering, %d waiting, %d failed, "
                 "%d not submitted\n",
            fl->count, n_sim, n_done, n_running, n_waiting, n_failed, n_idle);
    free(fj), free(sim), free(ids), free(js.items);
    return PW_OK;
}
