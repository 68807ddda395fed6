/* shot.c — simulate a shot into caches (stage 1), and the paths and cache checks both
 * halves of a shot share; see shot.h. Stage 1 and stages 2-3 meet only through the
 * cache files written here; shot_render.c reads them. */
#include "shot.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "pw_sim.h"
#include "seed.h"
#include "shot_internal.h"

/* ---- paths ---------------------------------------------------------------------- */

pw_status pw_shot_cache_path(const pw_scene *sc, int frame, char *out, size_t n, pw_error *err)
{
    return pw_frame_path(sc->cache_pattern, frame, out, n, err);
}

pw_status pw_shot_frame_path(const pw_scene *sc, int frame, char *out, size_t n, pw_error *err)
{
    return pw_frame_path(sc->frame_pattern, frame, out, n, err);
}

int pw_shot_cache_kind(const pw_scene *sc, const char *path)
{
    if (!pw_shot_file_exists(path)) return 0;
    pw_cache_info info;
    pw_error ignored;
    if (pw_cache_stat(path, &info, &ignored) != PW_OK || info.sim_hash != sc->sim_hash) return 0;
    return pw_cache_info_global(&info, PW_CACHE_SLIM, 0) != 0 ? 1 : 2;
}

int pw_shot_cache_is_valid(const pw_scene *sc, const char *path)
{
    return pw_shot_cache_kind(sc, path) != 0;
}

/* Appends " (name count, name count)" for the nonzero counts, or nothing when all are 0. */
static size_t append_counts(char *out, size_t size, size_t len, const uint64_t *counts, int n,
                            const char *(*name)(int))
{
    const char *sep = " (";
    for (int k = 0; k < n && len < size; k++) {
        if (!counts[k]) continue;
        len += (size_t)snprintf(out + len, size - len, "%s%s %llu", sep, name(k),
                                (unsigned long long)counts[k]);
        sep = ", ";
    }
    if (*sep == ',' && len < size) len += (size_t)snprintf(out + len, size - len, ")");
    return len;
}

static const char *bound_name(int b) { return pw_dt_bound_name((pw_dt_bound)b); }
static const char *reason_name(int r) { return pw_retake_reason_name((pw_retake_reason)r); }

/* "84 steps, dt 0.00025-0.0005 s (dt_max 80, elastic 4), elastic C up to 20, 2 retaken
 * (capped solve 2)": the frame's steps, what set their length and what was retaken
 * (pw_sim_step_log). */
static void describe_steps(const pw_sim *sim, char *out, size_t size)
{
    pw_sim_step_log l;
    pw_sim_get_step_log(sim, &l);
    size_t len = (size_t)snprintf(out, size, "%llu steps, dt %.3g", (unsigned long long)l.steps,
                                  l.steps ? l.dt_min : 0.0);
    if (l.steps && l.dt_max > l.dt_min && len < size)
        len += (size_t)snprintf(out + len, size - len, "-%.3g", l.dt_max);
    if (len < size) len += (size_t)snprintf(out + len, size - len, " s");
    len = append_counts(out, size, len, l.set_by, PW_DT_BY_COUNT, bound_name);
    if (l.courant_max > 0 && len < size)
        len += (size_t)snprintf(out + len, size - len, ", elastic C up to %.2g", l.courant_max);
    uint64_t retaken = 0;
    for (int r = 0; r < PW_RETAKE_COUNT; r++) retaken += l.retakes[r];
    if (!retaken || len >= size) return;
    len += (size_t)snprintf(out + len, size - len, ", %llu retaken", (unsigned long long)retaken);
    append_counts(out, size, len, l.retakes, PW_RETAKE_COUNT, reason_name);
}

pw_status pw_shot_last_cached_frame(const pw_scene *sc, int *frame, pw_error *err)
{
    for (int f = sc->frame_end; f >= sc->frame_start; f--) {
        char path[4096];
        pw_status rc = pw_shot_cache_path(sc, f, path, sizeof path, err);
        if (rc != PW_OK) return rc;
        if (pw_shot_cache_is_valid(sc, path)) {
            *frame = f;
            return PW_OK;
        }
    }
    return pw_fail(err, PW_ENOENT,
                   "%s: no frame of %d-%d has a cache of this simulation setup in %s: `powder "
                   "sim %s` writes them (with --output DIR under DIR/cache/), or --caches DIR "
                   "reads caches from another folder",
                   sc->path, sc->frame_start, sc->frame_end, sc->cache_pattern, sc->path);
}

/* Frames that keep the full state: every checkpoint_every-th from the start, and the
 * last one a run simulates (where the next run continues). */
static int is_checkpoint(const pw_scene *sc, int frame, int last_frame)
{
    int every = sc->checkpoint_every > 1 ? sc->checkpoint_every : 1;
    return frame == last_frame || (frame - sc->frame_start) % every == 0;
}

void pw_shot_log(const pw_shot_options *o, const char *fmt, ...)
{
    if (!o->log) return;
    if (o->progress && o->progress->mode == PW_PROGRESS_BAR) fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->log, fmt, ap);
    va_end(ap);
    fputc('\n', o->log);
    fflush(o->log);
}

pw_status pw_shot_apply_output_and_look(pw_scene *sc, const char *output, const char *look,
                                        pw_error *err)
{
    pw_status rc;
    if (output &&
        ((rc = pw_path_format(sc->cache_pattern, sizeof sc->cache_pattern, err,
                              "%s/cache/%s.####.pwc", output, sc->name)) != PW_OK ||
         (rc = pw_path_format(sc->frame_pattern, sizeof sc->frame_pattern, err,
                              "%s/%s.####.exr", output, sc->name)) != PW_OK))
        return rc;
    if (!look) return PW_OK;
    if ((rc = pw_scene_apply_look(sc, look, err)) != PW_OK) return rc;
    /* a look's frames go beside the shot's, in a folder named after the look file,
     * whatever --output says: re-lighting must never overwrite the frames it started
     * from */
    const char *slash = strrchr(sc->frame_pattern, '/');
    const char *ls = strrchr(look, '/');
    const char *name = ls ? ls + 1 : look, *dot = strrchr(name, '.');
    int name_len = dot ? (int)(dot - name) : (int)strlen(name);
    char pattern[sizeof sc->frame_pattern];
    rc = slash ? pw_path_format(pattern, sizeof pattern, err, "%.*s/%.*s/%s",
                                (int)(slash - sc->frame_pattern), sc->frame_pattern, name_len,
                                name, slash + 1)
               : pw_path_format(pattern, sizeof pattern, err, "%.*s/%s", name_len, name,
                                sc->frame_pattern);
    if (rc == PW_OK) memcpy(sc->frame_pattern, pattern, sizeof pattern);
    return rc;
}

pw_status pw_shot_apply_read_paths(pw_scene *sc, const char *output, const char *caches,
                                   pw_error *err)
{
    pw_status rc = PW_OK;
    char dir[4096];
    struct stat st;
    if (caches) snprintf(dir, sizeof dir, "%s", caches);
    else if (output) snprintf(dir, sizeof dir, "%s/cache", output);
    /* --output names where this command's results go; the caches stay where the scene
     * says unless `powder sim --output` put them under the same folder */
    if (caches || (output && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
        rc = pw_path_format(sc->cache_pattern, sizeof sc->cache_pattern, err, "%s/%s.####.pwc",
                            dir, sc->name);
    if (rc == PW_OK && output)
        rc = pw_path_format(sc->frame_pattern, sizeof sc->frame_pattern, err, "%s/%s.####.exr",
                            output, sc->name);
    return rc;
}

pw_status pw_shot_no_cache(const pw_scene *sc, int frame, const char *path, pw_error *err)
{
    return pw_fail(err, PW_ENOENT,
                   "%s: no cache for frame %d: `powder sim %s` writes it there (with --output "
                   "DIR under DIR/cache/), or --caches DIR reads caches from another folder",
                   path, frame, sc->path);
}

pw_status pw_shot_cache_info(const pw_scene *sc, int frame, pw_cache_info *info,
                             pw_error *err)
{
    char path[4096];
    pw_status rc = pw_shot_cache_path(sc, frame, path, sizeof path, err);
    if (rc != PW_OK) return rc;
    if (!pw_shot_file_exists(path)) return pw_shot_no_cache(sc, frame, path, err);
    if ((rc = pw_cache_stat(path, info, err)) != PW_OK) return rc;
    if (info->sim_hash != sc->sim_hash)
        return pw_fail(err, PW_EINVAL,
                       "%s: written by a different simulation setup than %s (sim hash %016llx, "
                       "scene %016llx); re-simulate with `powder sim --replace`",
                       path, sc->path, (unsigned long long)info->sim_hash,
                       (unsigned long long)sc->sim_hash);
    return PW_OK;
}

pw_status pw_shot_check_caches(const pw_scene *sc, const pw_frame_list *frames,
                               const unsigned char *skip, pw_cache_problems *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < frames->count; k++) {
        if (skip && skip[k]) continue;
        pw_error e = {0};
        pw_cache_info info;
        if (pw_shot_cache_info(sc, frames->frames[k], &info, &e) == PW_OK) continue;
        if (out->count == out->capacity) {
            int cap = out->capacity ? 2 * out->capacity : 8;
            pw_cache_problem *grown = realloc(out->items, (size_t)cap * sizeof *grown);
            if (!grown) {
                pw_cache_problems_free(out);
                return pw_fail(err, PW_ENOMEM, "out of memory listing damaged caches");
            }
            out->items = grown;
            out->capacity = cap;
        }
        out->items[out->count].frame = frames->frames[k];
        out->items[out->count++].error = e;
    }
    if (out->count == 0) return PW_OK;
    /* the worst code decides the exit status: a missing or foreign cache is bad input */
    pw_status code = out->items[0].error.code;
    if (out->count == 1) {
        *err = out->items[0].error;
        return code;
    }
    return pw_fail(err, code, "%d of the %d frames' caches cannot be read (each is named above); "
                   "nothing was written", out->count, frames->count);
}

void pw_cache_problems_free(pw_cache_problems *p)
{
    free(p->items);
    memset(p, 0, sizeof *p);
}

/* ---- the cache folder ------------------------------------------------------------ */

/* What the files named by the scene's cache pattern hold, read from their headers alone
 * (pw_cache_table: the first few hundred bytes of each), so that a shot of thousands of
 * frames is checked in a moment. */
typedef struct {
    int *foreign;           /* frames of another simulation setup, ascending */
    int n_foreign, cap_foreign;
    uint64_t foreign_hash;  /* the first one's sim hash */
    unsigned char *own;     /* per frame of frame_start..last_frame: 1 = a cache of this setup */
    int first_gap;          /* the first of those frames that is not (missing, a header that
                               does not read, another setup's); last_frame + 1: none */
} cache_folder;

static void cache_folder_free(cache_folder *cf)
{
    free(cf->foreign);
    free(cf->own);
    memset(cf, 0, sizeof *cf);
}

/* Files the header of frame f's cache, if there is one, into *cf. */
static pw_status folder_add(const pw_scene *sc, int last_frame, int f, pw_cache_info *info,
                            cache_folder *cf, pw_error *err)
{
    char path[4096];
    pw_error ignored;
    if (pw_shot_cache_path(sc, f, path, sizeof path, &ignored) != PW_OK ||
        !pw_shot_file_exists(path))
        return PW_OK;
    /* a header that does not read is nobody's frame: simulated anew when in the range */
    if (pw_cache_table(path, info, &ignored) != PW_OK) return PW_OK;
    if (info->sim_hash == sc->sim_hash) {
        if (f >= sc->frame_start && f <= last_frame) cf->own[f - sc->frame_start] = 1;
        return PW_OK;
    }
    if (cf->n_foreign == cf->cap_foreign) {
        int cap = cf->cap_foreign ? 2 * cf->cap_foreign : 64;
        int *grown = realloc(cf->foreign, (size_t)cap * sizeof *grown);
        if (!grown) return pw_fail(err, PW_ENOMEM, "%s: out of memory listing caches", path);
        cf->foreign = grown;
        cf->cap_foreign = cap;
    }
    cf->foreign[cf->n_foreign++] = f;
    return PW_OK;
}

/* The folder of path: "." when it has none. */
static void folder_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, n, ".");
    else if (slash == path) snprintf(out, n, "/");
    else snprintf(out, n, "%.*s", (int)(slash - path), path);
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The frame number of file name when the pattern's last path component (base), whose run
 * of '#' starts at start and is len long, names it exactly as pw_frame_path would; -1
 * otherwise. */
static int frame_of_name(const char *base, size_t start, size_t len, const char *name)
{
    size_t digits = strspn(name + start, "0123456789");
    if (strncmp(name, base, start) != 0 || digits < len || digits > 9 ||
        strcmp(name + start + digits, base + start + len) != 0)
        return -1;
    int f = atoi(name + start);
    /* more digits than the run only when the frame needs them: no "00012" for "####" */
    return digits > len && name[start] == '0' ? -1 : f;
}

/* Lists every cache of the scene's pattern: the files of its folder whose names fit the
 * pattern, or, when the frame number is in a folder's name, frames 0 to the later of
 * last_frame and the scene's last frame. */
static pw_status scan_cache_folder(const pw_scene *sc, int last_frame, cache_folder *cf,
                                   pw_error *err)
{
    memset(cf, 0, sizeof *cf);
    int n_range = last_frame - sc->frame_start + 1;
    cf->own = calloc((size_t)(n_range > 0 ? n_range : 1), 1);
    pw_cache_info *info = malloc(sizeof *info);
    if (!cf->own || !info) {
        free(info);
        cache_folder_free(cf);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory listing caches", sc->cache_pattern);
    }
    pw_status rc = PW_OK;
    size_t start = 0, len = 0;
    pw_frame_pattern_runs(sc->cache_pattern, &start, &len);
    const char *slash = strrchr(sc->cache_pattern, '/');
    size_t base_at = slash ? (size_t)(slash - sc->cache_pattern) + 1 : 0;
    if (start >= base_at) {
        char folder[4096];
        folder_of(sc->cache_pattern, folder, sizeof folder);
        DIR *d = opendir(folder);
        for (struct dirent *e; d && rc == PW_OK && (e = readdir(d));) {
            int f = frame_of_name(sc->cache_pattern + base_at, start - base_at, len, e->d_name);
            if (f >= 0) rc = folder_add(sc, last_frame, f, info, cf, err);
        }
        if (d) closedir(d); /* no folder yet: no caches */
    } else {
        int hi = last_frame > sc->frame_end ? last_frame : sc->frame_end;
        for (int f = 0; f <= hi && rc == PW_OK; f++)
            rc = folder_add(sc, last_frame, f, info, cf, err);
    }
    free(info);
    if (rc != PW_OK) {
        cache_folder_free(cf);
        return rc;
    }
    if (cf->n_foreign) {
        qsort(cf->foreign, (size_t)cf->n_foreign, sizeof *cf->foreign, compare_int);
        char path[4096];
        pw_cache_info *first = malloc(sizeof *first);
        pw_error ignored;
        if (first && pw_shot_cache_path(sc, cf->foreign[0], path, sizeof path, &ignored) == PW_OK &&
            pw_cache_table(path, first, &ignored) == PW_OK)
            cf->foreign_hash = first->sim_hash;
        free(first);
    }
    cf->first_gap = sc->frame_start;
    while (cf->first_gap <= last_frame && cf->own[cf->first_gap - sc->frame_start]) cf->first_gap++;
    return PW_OK;
}

/* The refusal to simulate into a folder that holds another setup's frames. */
static pw_status refuse_foreign(const pw_scene *sc, const cache_folder *cf, pw_error *err)
{
    char path[4096];
    pw_status rc = pw_shot_cache_path(sc, cf->foreign[0], path, sizeof path, err);
    if (rc != PW_OK) return rc;
    char folder[4096];
    folder_of(path, folder, sizeof folder);
    const char *slash = strrchr(path, '/'), *file = slash ? slash + 1 : path;
    return pw_fail(err, PW_EINVAL,
                   "%s: holds %d frame%s of another simulation setup, the first frame %d (%s: "
                   "sim hash %016llx, %s has %016llx); nothing was written: rerun with "
                   "--replace to delete that setup's frames and simulate this one, or give the "
                   "scene another \"name\" (or --output DIR) to keep both",
                   folder, cf->n_foreign, cf->n_foreign == 1 ? "" : "s",
                   cf->foreign[0], file, (unsigned long long)cf->foreign_hash, sc->path,
                   (unsigned long long)sc->sim_hash);
}

/* --replace: deletes every frame of the other setup, those beyond this run's range too
 * (they would follow frames of another simulation). */
static pw_status remove_foreign(const pw_scene *sc, const cache_folder *cf,
                                const pw_shot_options *o, pw_error *err)
{
    char path[4096];
    for (int k = 0; k < cf->n_foreign; k++) {
        pw_status rc = pw_shot_cache_path(sc, cf->foreign[k], path, sizeof path, err);
        if (rc != PW_OK) return rc;
        if (remove(path) != 0 && errno != ENOENT)
            return pw_fail(err, PW_EIO, "%s: cannot delete a frame of another simulation setup "
                           "(%s)", path, strerror(errno));
    }
    char folder[4096];
    folder_of(path, folder, sizeof folder);
    pw_shot_log(o, "sim: --replace: deleted %d frame%s of another simulation setup (frames "
                "%d-%d) from %s", cf->n_foreign, cf->n_foreign == 1 ? "" : "s",
                cf->foreign[0], cf->foreign[cf->n_foreign - 1], folder);
    return PW_OK;
}

/* ---- simulation ----------------------------------------------------------------- */

typedef struct {
    const pw_shot_options *o;
    double base;  /* progress units before this frame */
    double t0;    /* frame start time */
    double dt;    /* frame length */
    int frame;
} sim_progress_ctx;

static void sim_progress(void *user, double t_now, double t_end)
{
    (void)t_end;
    sim_progress_ctx *c = user;
    if (!c->o->progress) return;
    char label[64];
    snprintf(label, sizeof label, "sim frame %d", c->frame);
    double frac = c->dt > 0 ? (t_now - c->t0) / c->dt : 1;
    pw_progress_update(c->o->progress, c->base + frac, label);
}

/* The simulation stopped on request after frame, whose cache at path is a full
 * checkpoint. */
static pw_status sim_interrupted(const pw_scene *sc, int frame, int last_frame,
                                 const char *path, pw_error *err)
{
    return pw_fail(err, PW_EINTERRUPTED,
                   "%s: interrupted by %s after frame %d, a full checkpoint (%s); frames "
                   "%d-%d are left: run the same command again to resume from it",
                   sc->path, pw_interrupt_signal_name(pw_interrupt_signal()), frame, path,
                   frame + 1, last_frame);
}

/* The scene's colliders into sim. The files of a mesh (an OBJ sequence's every file) are
 * read here, not when the scene is parsed: one that does not read is named as every scene
 * error is, by the scene file and the JSON path, then the file and its line. */
static pw_status add_colliders(pw_sim *sim, const pw_scene *sc, pw_error *err)
{
    for (int c = 0; c < sc->n_colliders; c++) {
        pw_error e = {0};
        pw_status rc = pw_sim_add_collider(sim, &sc->colliders[c], &e);
        if (rc == PW_OK) continue;
        /* the solver calls it "collider c"; the scene names it by its key */
        char own[32];
        snprintf(own, sizeof own, "collider %d: ", c);
        size_t n = strlen(own);
        const char *what = strncmp(e.msg, own, n) ? e.msg : e.msg + n;
        return pw_fail(err, rc, "%s: sim.colliders[%d].shape%s: %s", sc->path, c,
                       pw_shape_is_mesh(&sc->colliders[c].shape) ? ".path" : "", what);
    }
    return PW_OK;
}

/* The scene's colliders and snow sources into sim (the sources' counts come from a
 * checkpoint, when one is loaded after). */
static pw_status add_colliders_and_sources(pw_sim *sim, const pw_scene *sc, pw_error *err)
{
    pw_status rc = add_colliders(sim, sc, err);
    for (int k = 0; k < sc->n_sources && rc == PW_OK; k++)
        if ((rc = pw_sim_add_source(sim, &sc->sources[k], err)) != PW_OK)
            pw_error_prefix(err, "%s: sim.sources[%d]", sc->path, k);
    return rc;
}

static pw_status seed_scene(pw_sim *sim, const pw_scene *sc, pw_error *err)
{
    pw_status rc = add_colliders_and_sources(sim, sc, err);
    if (rc != PW_OK) return rc;
    for (int b = 0; b < sc->n_bodies; b++) {
        pw_seeded seeded;
        memset(&seeded, 0, sizeof seeded);
        rc = pw_seed_body(&sc->bodies[b], &sc->materials[sc->body_material[b]], sc->sim.h,
                          &seeded, err);
        if (rc == PW_OK) rc = pw_sim_add_particles(sim, &seeded, err);
        pw_seeded_free(&seeded);
        if (rc != PW_OK) {
            pw_error_prefix(err, "%s: sim.bodies[%d]", sc->path, b);
            return rc;
        }
    }
    return PW_OK;
}

pw_status pw_shot_simulate(const pw_scene *sc, int last_frame, const pw_shot_options *o,
                           int *n_done, pw_error *err)
{
    *n_done = 0;
    char path[4096];
    /* The folder may hold frames of another simulation setup (a scene of the same name):
     * overwriting some of them would leave a mix no render accepts, so they are refused
     * before anything is written, or all deleted with --replace. */
    cache_folder cf;
    pw_status scan_rc = scan_cache_folder(sc, last_frame, &cf, err);
    if (scan_rc != PW_OK) return scan_rc;
    if (cf.n_foreign)
        scan_rc = o->replace ? remove_foreign(sc, &cf, o, err) : refuse_foreign(sc, &cf, err);
    int first_gap = cf.first_gap;
    cache_folder_free(&cf);
    if (scan_rc != PW_OK) return scan_rc;
    /* Continue from the newest full checkpoint of this setup before the first frame that
     * is not this setup's (every earlier one is: the render needs them all); slim caches
     * after it that are all present and valid need no simulation. */
    int resume_from = sc->frame_start - 1, tail_cached = 1;
    if (!o->force) {
        int top = first_gap <= last_frame ? first_gap - 1 : last_frame;
        tail_cached = top == last_frame;
        for (int f = top; f >= sc->frame_start; f--) {
            pw_status rc = pw_shot_cache_path(sc, f, path, sizeof path, err);
            if (rc != PW_OK) return rc;
            int kind = pw_shot_cache_kind(sc, path);
            if (kind == 2) {
                resume_from = f;
                break;
            }
            if (kind == 0) tail_cached = 0;
        }
    }
    if (resume_from >= sc->frame_start && resume_from < last_frame && tail_cached)
        resume_from = last_frame; /* the rest is there as slim render caches */
    double units = o->progress_base + (resume_from - sc->frame_start + 1);
    /* cached frames cost nothing now: skipped, so they do not make the sim look fast */
    if (o->progress) pw_progress_skip(o->progress, units, "sim");
    if (resume_from == last_frame) {
        pw_shot_log(o, "sim: frames %d-%d already cached", sc->frame_start, last_frame);
        return PW_OK;
    }

    pw_sim_params params = sc->sim;
    if (o->threads) params.threads = o->threads;
    pw_sim *sim = pw_sim_create(&params, err);
    if (!sim) return err ? err->code : PW_ENOMEM;
    pw_status rc = PW_OK;
    /* An interrupted run (or one given fewer frames) left its last frame as a full
     * checkpoint where the schedule has a slim cache. Resuming from it, its slim form is
     * made now and put in its place once a later checkpoint exists, so the caches end as
     * an uninterrupted run's, byte for byte; until then the full one stays resumable. */
    char demote_path[4096] = "", demote_tmp[4200] = "";
    if (resume_from >= sc->frame_start) {
        if ((rc = pw_shot_cache_path(sc, resume_from, path, sizeof path, err)) != PW_OK) goto done;
        rc = add_colliders_and_sources(sim, sc, err);
        if (rc == PW_OK) rc = pw_sim_load(sim, path, err);
        if (rc != PW_OK) goto done;
        pw_shot_log(o, "sim: resuming after frame %d (%s)", resume_from, path);
        if (!is_checkpoint(sc, resume_from, last_frame)) {
            snprintf(demote_path, sizeof demote_path, "%s", path);
            pw_atomic_tmp_name(path, demote_tmp, sizeof demote_tmp);
            if ((rc = pw_sim_save_slim(sim, demote_tmp, resume_from, sc->sim_hash, err)) !=
                PW_OK)
                goto done;
        }
    } else {
        if ((rc = seed_scene(sim, sc, err)) != PW_OK) goto done;
        resume_from = sc->frame_start;
        if ((rc = pw_shot_cache_path(sc, resume_from, path, sizeof path, err)) != PW_OK) goto done;
        if ((rc = pw_mkdir_parent(path, err)) != PW_OK) goto done;
        if ((rc = pw_sim_save(sim, path, resume_from, sc->sim_hash, err)) != PW_OK) goto done;
        pw_sim_stats st;
        pw_sim_get_stats(sim, &st);
        pw_shot_log(o, "sim: frame %d: %zu particles seeded -> %s", resume_from, st.particles,
                    path);
        (*n_done)++;
        units += 1;
    }
    /* A signal during seeding or loading: the state on disk is already resumable. */
    if (pw_interrupt_signal()) {
        rc = sim_interrupted(sc, resume_from, last_frame, path, err);
        goto done;
    }
    for (int f = resume_from + 1; f <= last_frame; f++) {
        double t_begin = pw_now();
        pw_sim_stats before, after;
        pw_sim_get_stats(sim, &before);
        sim_progress_ctx ctx = {o, units, pw_scene_frame_time(sc, f - 1), 1.0 / sc->fps, f};
        rc = pw_sim_advance_to(sim, pw_scene_frame_time(sc, f), sim_progress, &ctx, err);
        if (rc != PW_OK) {
            pw_error_prefix(err, "%s: frame %d", sc->path, f);
            goto done;
        }
        if ((rc = pw_shot_cache_path(sc, f, path, sizeof path, err)) != PW_OK) goto done;
        /* Asked to stop while this frame was stepped: it is finished, and written in full
         * so that the next run resumes from it (as from the last frame of any run). */
        int stop = pw_interrupt_signal() != 0 && f < last_frame;
        int full = is_checkpoint(sc, f, last_frame) || stop;
        rc = full ? pw_sim_save(sim, path, f, sc->sim_hash, err)
                  : pw_sim_save_slim(sim, path, f, sc->sim_hash, err);
        if (rc == PW_OK && full && demote_tmp[0]) {
            rc = pw_atomic_rename(demote_tmp, demote_path, err);
            demote_tmp[0] = '\0';
        }
        if (rc != PW_OK) goto done;
        pw_sim_get_stats(sim, &after);
        /* the share counts from this run's start: a resumed run's solver is new */
        char resting[256] = "";
        if (sc->sim.rest_speed > 0)
            snprintf(resting, sizeof resting,
                     ", %zu of %zu particles stepped at the frame's end (the others rest, not "
                     "stepped); %.0f %% of particle steps taken since frame %d, where this run "
                     "began",
                     after.particles_stepped, after.particles, 100 * after.stepped_share,
                     resume_from + 1);
        /* this frame's solves, not the mean since t = 0, which hides a break's rise
         * (sim/docs/cr-after-break.md) */
        uint64_t solves = after.cr_solves - before.cr_solves;
        double cr_frame = solves ? (double)(after.cr_iterations_total -
                                            before.cr_iterations_total) / (double)solves : 0;
        char steps[256];
        describe_steps(sim, steps, sizeof steps);
        pw_shot_log(o, "sim: frame %d: %s, CR %.1f it/step, max |v| %.2f m/s%s, %.1f s -> %s", f,
                    steps, cr_frame, after.max_speed, resting, pw_now() - t_begin, path);
        /* a solve that stops at the cap leaves the step less accurate than cr_tolerance
         * promises: the user must hear of it, not find it in the cache's counters */
        uint64_t capped = after.cr_not_converged - before.cr_not_converged;
        if (capped)
            pw_shot_log(o,
                        "sim: frame %d: warning: %llu of %llu solves stopped at "
                        "cr_max_iterations (%d) above cr_tolerance (%g); raise "
                        "sim.cr_max_iterations or lower sim.dt_max",
                        f, (unsigned long long)capped, (unsigned long long)solves,
                        sc->sim.cr_max_iterations, sc->sim.cr_tolerance);
        (*n_done)++;
        units += 1;
        if (o->progress) pw_progress_update(o->progress, units, "sim");
        if (stop) {
            rc = sim_interrupted(sc, f, last_frame, path, err);
            goto done;
        }
    }
done:
    if (demote_tmp[0]) remove(demote_tmp); /* stopped before a later checkpoint: keep it full */
    pw_sim_destroy(sim);
    return rc;
}
