/* shot_render.c — render a shot's caches into frames (stages 2-3) and turntables of a
 * frame; see shot.h. */
#include "shot.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exr.h"
#include "interrupt.h"
#include "png.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "pw_render.h"
#include "shot_internal.h"
#include "surfaces.h"

#define SOURCE_CAP 40 /* "sim " and 16 hex digits, with room */

/* ---- rendering ------------------------------------------------------------------ */

/* The surfaces of a frame: the scene's own, plus the colliders drawn where the solver
 * had them at time t. */
static pw_surfaces *frame_surfaces(const pw_scene *sc, double t, pw_error *err)
{
    pw_surface_desc desc[64];
    int n = 0;
    for (int k = 0; k < sc->n_surfaces && n < 64; k++) desc[n++] = sc->surfaces[k];
    if (sc->draw_colliders)
        for (int k = 0; k < sc->n_colliders && n < 64; k++) {
            /* A half-space collider is the ground (or a wall) that the scene draws as a
             * surface of its own colour; an infinite collider-coloured plane would hide
             * it. */
            if (sc->colliders[k].shape.kind == PW_SHAPE_HALFSPACE) continue;
            memset(&desc[n], 0, sizeof desc[n]);
            desc[n].shape = sc->colliders[k].shape;
            desc[n].size = 0;
            desc[n].color = sc->collider_color;
            n++;
        }
    return pw_surfaces_create(desc, n, t, err);
}

/* A cache's particles as float64: positions, masses, and (when asked) velocities and
 * ids, checked for type and shape and for the scene's simulation setup. */
static pw_status read_particles(const pw_scene *sc, const char *path, int want_id,
                                int want_v, pw_cache_frame *cf, pw_error *err)
{
    const char *names[4] = {"x", "m", NULL, NULL};
    int n = 2;
    if (want_id) names[n++] = "id";
    if (want_v) names[n++] = "v";
    pw_status rc = pw_cache_read_f64(path, names, n, cf, err);
    if (rc != PW_OK) return rc;
    if (cf->sim_hash != sc->sim_hash) {
        unsigned long long cache_hash = (unsigned long long)cf->sim_hash; /* freeing clears cf */
        pw_cache_frame_free(cf);
        return pw_fail(err, PW_EINVAL,
                       "%s: written by a different simulation setup than %s (sim hash %016llx, "
                       "scene %016llx); re-simulate with `powder sim --replace`",
                       path, sc->path, cache_hash, (unsigned long long)sc->sim_hash);
    }
    const pw_cache_attr *x = pw_cache_find(cf, "x"), *m = pw_cache_find(cf, "m");
    const pw_cache_attr *id = pw_cache_find(cf, "id"), *v = pw_cache_find(cf, "v");
    if (x->type != PW_F64 || x->components != 3 || m->type != PW_F64 || m->components != 1 ||
        (want_id && (id->type != PW_U32 || id->components != 1)) ||
        (want_v && (v->type != PW_F64 || v->components != 3))) {
        pw_cache_frame_free(cf);
        return pw_fail(err, PW_EFORMAT, "%s: attributes x/m/id/v are not float64 vec3, float64, "
                       "uint32, float64 vec3", path);
    }
    return PW_OK;
}

/* A neighbouring frame for motion blur: its positions and velocities by particle id. */
typedef struct {
    pw_cache_frame cf;
    const double *x, *v;
    uint32_t *index_of_id; /* UINT32_MAX where the id is absent */
    uint32_t id_count;
} neighbour_frame;

static void neighbour_free(neighbour_frame *nb)
{
    pw_cache_frame_free(&nb->cf);
    free(nb->index_of_id);
    memset(nb, 0, sizeof *nb);
}

/* Loads frame f as a neighbour when its cache is there and of this setup; a missing or
 * stale one leaves nb empty (motion then follows the velocities alone). */
static pw_status neighbour_load(const pw_scene *sc, int f, neighbour_frame *nb, pw_error *err)
{
    memset(nb, 0, sizeof *nb);
    char path[4096];
    if (f < sc->frame_start) return PW_OK;
    pw_status rc = pw_shot_cache_path(sc, f, path, sizeof path, err);
    if (rc != PW_OK || pw_shot_cache_kind(sc, path) == 0) return rc;
    if ((rc = read_particles(sc, path, 1, 1, &nb->cf, err)) != PW_OK) return rc;
    const uint32_t *id = pw_cache_find(&nb->cf, "id")->data;
    size_t n = (size_t)nb->cf.count;
    uint32_t max_id = 0;
    for (size_t p = 0; p < n; p++) max_id = id[p] > max_id ? id[p] : max_id;
    /* ids number the particles in the order they were added: dense */
    if (n == 0 || max_id > 4 * n + 1024) {
        neighbour_free(nb);
        return PW_OK;
    }
    nb->id_count = max_id + 1;
    nb->index_of_id = malloc((size_t)nb->id_count * sizeof *nb->index_of_id);
    if (!nb->index_of_id) {
        neighbour_free(nb);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory for %u particle ids", path, max_id + 1);
    }
    for (uint32_t k = 0; k < nb->id_count; k++) nb->index_of_id[k] = UINT32_MAX;
    for (size_t p = 0; p < n; p++) nb->index_of_id[id[p]] = (uint32_t)p;
    nb->x = pw_cache_find(&nb->cf, "x")->data;
    nb->v = pw_cache_find(&nb->cf, "v")->data;
    return PW_OK;
}

/* Where a particle is tau seconds from its frame (position x, velocity v): on the cubic
 * through both frames' positions and velocities when the neighbouring frame on tau's
 * side holds it (exact for the ballistic arcs of free flight), else along v. */
static void particle_at(const double *x, const double *v, uint32_t id, double tau,
                        double frame_dt, const neighbour_frame *nb, double out[3])
{
    uint32_t q = nb && nb->index_of_id && id < nb->id_count ? nb->index_of_id[id] : UINT32_MAX;
    if (q == UINT32_MAX) {
        for (int c = 0; c < 3; c++) out[c] = x[c] + v[c] * tau;
        return;
    }
    const double *xn = nb->x + 3 * (size_t)q, *vn = nb->v + 3 * (size_t)q;
    /* the interval from a to b one frame apart; s = where tau falls in it */
    int after = tau > 0;
    const double *xa = after ? x : xn, *va = after ? v : vn, *xb = after ? xn : x,
                 *vb = after ? vn : v;
    double s = after ? tau / frame_dt : 1 + tau / frame_dt, s2 = s * s, s3 = s2 * s;
    double h01 = 3 * s2 - 2 * s3, h10 = s3 - 2 * s2 + s, h11 = s3 - s2;
    for (int c = 0; c < 3; c++)
        out[c] = xa[c] + h01 * (xb[c] - xa[c]) + frame_dt * (h10 * va[c] + h11 * vb[c]);
}

/* Reads a frame's particles and rasterizes them (stage 2) at each of n instants
 * (times [s]): moved from the frame's positions along their motion (particle_at). One
 * instant at the frame's own time is the frame's positions as they are. */
static pw_status load_density(const pw_scene *sc, int frame, int n, const double *times,
                              pw_density **out, size_t *count, pw_error *err)
{
    for (int j = 0; j < n; j++) out[j] = NULL;
    char path[4096];
    pw_status rc = pw_shot_cache_path(sc, frame, path, sizeof path, err);
    if (rc != PW_OK) return rc;
    if (!pw_shot_file_exists(path)) return pw_shot_no_cache(sc, frame, path, err);
    double t_frame = pw_scene_frame_time(sc, frame), frame_dt = 1.0 / sc->fps;
    int moving = n > 1 || times[0] != t_frame;
    /* ids for the particle-bound detail (so older caches without them still render) and
     * for matching particles across frames */
    int detail = sc->render.raster == PW_RASTER_BOUNDED && sc->render.detail > 0;
    pw_cache_frame cf;
    if ((rc = read_particles(sc, path, detail || moving, moving, &cf, err)) != PW_OK) return rc;
    const pw_cache_attr *x = pw_cache_find(&cf, "x"), *m = pw_cache_find(&cf, "m");
    const pw_cache_attr *id = detail || moving ? pw_cache_find(&cf, "id") : NULL;
    const double *v = moving ? pw_cache_find(&cf, "v")->data : NULL;
    size_t np = (size_t)cf.count;
    *count = np;
    neighbour_frame before, after;
    memset(&before, 0, sizeof before), memset(&after, 0, sizeof after);
    double *moved = NULL;
    if (moving) {
        int any_before = 0, any_after = 0;
        for (int j = 0; j < n; j++) any_before |= times[j] < t_frame, any_after |= times[j] > t_frame;
        if ((any_before && (rc = neighbour_load(sc, frame - 1, &before, err)) != PW_OK) ||
            (any_after && (rc = neighbour_load(sc, frame + 1, &after, err)) != PW_OK))
            goto done;
        if (!(moved = malloc(3 * (np ? np : 1) * sizeof *moved))) {
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory moving %zu particles", path, np);
            goto done;
        }
    }
    for (int j = 0; j < n && rc == PW_OK; j++) {
        const double *xs = x->data;
        if (moving) {
            double tau = times[j] - t_frame;
            const uint32_t *ids = id->data;
            const neighbour_frame *nb = tau > 0 ? &after : tau < 0 ? &before : NULL;
            for (size_t p = 0; p < np; p++)
                particle_at((const double *)x->data + 3 * p, v + 3 * p, ids[p], tau, frame_dt,
                            nb, moved + 3 * p);
            xs = moved;
        }
        out[j] = pw_density_build((pw_raster_kind)sc->render.raster, xs, m->data,
                                  detail ? id->data : NULL, np, cf.h,
                                  sc->render.subdiv > 0 ? sc->render.subdiv : 1,
                                  sc->render.detail, err);
        if (!out[j]) rc = err ? err->code : PW_ENOMEM;
    }
done:
    free(moved);
    neighbour_free(&before), neighbour_free(&after);
    pw_cache_frame_free(&cf);
    if (rc != PW_OK)
        for (int j = 0; j < n; j++) pw_density_destroy(out[j]), out[j] = NULL;
    return rc;
}

typedef struct {
    const pw_shot_options *o;
    double base;
    char label[64];
} render_progress_ctx;

static void render_progress(void *user, double fraction)
{
    render_progress_ctx *c = user;
    if (c->o->progress) pw_progress_update(c->o->progress, c->base + fraction, c->label);
}

/* The "powder:source" of frames rendered from this scene's caches: a frame rendered
 * from another simulation setup is not this shot's frame, however well it reads. */
static void frame_source(const pw_scene *sc, char out[SOURCE_CAP])
{
    snprintf(out, SOURCE_CAP, "sim %016llx", (unsigned long long)sc->sim_hash);
}

static void exr_options_for(const pw_scene *sc, const pw_camera_desc *cam, int frame,
                            const pw_render_settings *rs, const char *settings, double seconds,
                            char source[SOURCE_CAP], pw_exr_options *eo)
{
    int spp = rs->spp;
    pw_exr_options_default(eo);
    eo->settings = settings;
    eo->seed = rs->seed;
    eo->compression = (pw_exr_compression)sc->exr_compression;
    eo->float_beauty = sc->exr_float;
    eo->spp = spp;
    eo->render_seconds = seconds;
    eo->frame = frame;
    eo->scene_name = sc->name;
    frame_source(sc, source);
    eo->source = source;
    eo->has_camera = pw_camera_matrices(cam, eo->world_to_camera, eo->world_to_ndc, NULL) == PW_OK;
    eo->fov_deg = cam->fov_deg;
}

/* How a frame is seen: the camera at each instant of the shutter (one for a frozen
 * frame) and at the frame's own time, which the EXR metadata describes. */
typedef struct {
    int n;
    double times[PW_MAX_INSTANTS];
    pw_camera_desc cams[PW_MAX_INSTANTS];
    pw_camera_desc at_frame;
    char settings[SOURCE_CAP]; /* the shot's render hash, "" for a turntable's views */
    char view_name[64];        /* a turntable's "view 4/36 (azimuth 30 deg)", "" in a shot */
} frame_view;

/* The "powder:renderSettings" of frames rendered with the scene's render settings. */
static void frame_settings(const pw_scene *sc, char out[SOURCE_CAP])
{
    snprintf(out, SOURCE_CAP, "render %016llx", (unsigned long long)pw_scene_render_hash(sc));
}

/* The scene's camera rig over frame f. */
static void shot_view(const pw_scene *sc, int frame, frame_view *v)
{
    double t = pw_scene_frame_time(sc, frame);
    v->n = pw_camera_rig_instants(&sc->camera_rig, t, sc->fps, v->times);
    for (int j = 0; j < v->n; j++) pw_camera_rig_at(&sc->camera_rig, &sc->camera, v->times[j], &v->cams[j]);
    pw_camera_rig_at(&sc->camera_rig, &sc->camera, t, &v->at_frame);
    frame_settings(sc, v->settings);
    v->view_name[0] = '\0';
}

/* Renders one frame of the scene as view sees it into exr_path (+ PNG). `given` is an
 * already rasterized density of that frame (view->n must then be 1), or NULL to load
 * it here. */
/* The image of one frame as view sees it: the density (`given`, already rasterized, with
 * view->n 1; or loaded here), the surfaces at each instant, the renderer. *count is the
 * particles drawn, *t_raster the seconds of loading and rasterizing. */
static pw_status render_image(const pw_scene *sc, int frame, const frame_view *view,
                              pw_density *given, size_t given_count,
                              const pw_render_settings *rs, const pw_shot_options *o,
                              double progress_base, pw_image *img, pw_render_stats *stats,
                              size_t *count, double *t_raster, pw_error *err)
{
    double t_begin = pw_now();
    int n = given ? 1 : view->n;
    pw_density *density[PW_MAX_INSTANTS] = {given};
    pw_surfaces *surf[PW_MAX_INSTANTS] = {NULL};
    *count = given_count;
    pw_status rc = PW_OK;
    memset(img, 0, sizeof *img);
    memset(stats, 0, sizeof *stats);
    if (!given && (rc = load_density(sc, frame, n, view->times, density, count, err)) != PW_OK)
        return rc;
    *t_raster = pw_now() - t_begin;
    pw_renderer *r = NULL;
    for (int j = 0; j < n; j++)
        if (!(surf[j] = frame_surfaces(sc, view->times[j], err))) break;
    if (surf[n - 1])
        r = pw_renderer_create_instants(rs, n, view->cams, (const pw_surfaces *const *)surf,
                                        &sc->medium, &sc->lights, err);
    if (!r) {
        rc = err ? err->code : PW_ENOMEM;
    } else {
        render_progress_ctx ctx = {o, progress_base, ""};
        snprintf(ctx.label, sizeof ctx.label, "render frame %d", frame);
        rc = pw_render_frame_instants(r, (const pw_density *const *)density, img,
                                      render_progress, &ctx, stats, err);
    }
    pw_renderer_destroy(r);
    for (int j = 0; j < n; j++) {
        pw_surfaces_destroy(surf[j]);
        if (density[j] != given) pw_density_destroy(density[j]);
    }
    if (rc != PW_OK) pw_image_free(img);
    return rc;
}

pw_status pw_shot_render_image(const pw_scene *sc, int frame, const pw_render_settings *rs,
                               pw_image *img, pw_render_stats *stats, pw_error *err)
{
    frame_view view;
    shot_view(sc, frame, &view);
    pw_shot_options o;
    memset(&o, 0, sizeof o);
    size_t count;
    double t_raster;
    return render_image(sc, frame, &view, NULL, 0, rs, &o, 0.0, img, stats, &count, &t_raster,
                        err);
}

static pw_status render_one(const pw_scene *sc, int frame, const frame_view *view,
                            pw_density *given, size_t given_count,
                            const pw_render_settings *rs, const char *exr_path,
                            const pw_shot_options *o, double progress_base, float **keep_rgba,
                            pw_error *err)
{
    double t_begin = pw_now();
    int n = given ? 1 : view->n;
    size_t count;
    double t_raster;
    pw_image img;
    pw_render_stats stats;
    pw_status rc = render_image(sc, frame, view, given, given_count, rs, o, progress_base, &img,
                                &stats, &count, &t_raster, err);
    if (rc != PW_OK) return rc;
    pw_exr_options eo;
    char source[SOURCE_CAP];
    exr_options_for(sc, &view->at_frame, frame, rs, view->settings[0] ? view->settings : NULL,
                    pw_now() - t_begin, source, &eo);
    eo.has_preview = 1; /* what the PNG preview is made with, for `powder png` */
    eo.preview_exposure = sc->png_exposure;
    eo.preview_view = o->view_name;
    eo.preview_look = o->view_look;
    if ((rc = pw_mkdir_parent(exr_path, err)) != PW_OK) goto done;
    if ((rc = pw_exr_write(exr_path, &img, &eo, err)) != PW_OK) goto done;
    char png_note[4200] = "";
    char png[4096];
    snprintf(png, sizeof png, "%s", exr_path);
    char *dot = strrchr(png, '.');
    if (dot && strlen(dot) == 4) strcpy(dot, ".png");
    else strncat(png, ".png", sizeof png - strlen(png) - 1);
    if (!o->png && !view->view_name[0]) {
        /* a preview left from an earlier render would now show another image than its
         * EXR: it goes with the EXR it was made from */
        if (remove(png) == 0)
            snprintf(png_note, sizeof png_note, " (%s removed: its EXR was rewritten without "
                     "--png)", png);
        else if (errno != ENOENT) {
            rc = pw_fail(err, PW_EIO, "%s: cannot remove the preview of the EXR rewritten (%s)",
                         png, strerror(errno));
            goto done;
        }
    }
    if (o->png) {
        /* A preview is viewed, not composited: show the sky seen through the snow as it
         * is in the beauty, rather than as transparent; a transparent background asked for
         * compositing, so there the preview keeps its alpha too. */
        if (!rs->transparent_background)
            for (size_t k = 0; k < (size_t)img.width * img.height; k++) img.rgba[4 * k + 3] = 1.0f;
        if ((rc = pw_png_write_view(png, img.rgba, img.width, img.height, o->view,
                                    sc->png_exposure, err)) != PW_OK)
            goto done;
        snprintf(png_note, sizeof png_note, " + %s", png);
    }
    char instants[48] = "";
    if (n > 1) snprintf(instants, sizeof instants, " at %d shutter instants", n);
    char what[128], samples[96];
    if (view->view_name[0]) snprintf(what, sizeof what, "turntable: %s", view->view_name);
    else snprintf(what, sizeof what, "render");
    if (rs->noise_target > 0) /* adaptive: what the pixels took, against the cap */
        snprintf(samples, sizeof samples, "%.1f spp (adaptive to %g, at most %d)",
                 (double)stats.paths / ((double)img.width * img.height), rs->noise_target,
                 rs->spp);
    else
        snprintf(samples, sizeof samples, "%d spp", rs->spp);
    char denoised[48] = "";
    if (rs->denoise) snprintf(denoised, sizeof denoised, " (denoised in %.1f s)", stats.denoise_seconds);
    pw_shot_log(o,
             "%s: frame %d: %zu particles%s, raster %.2f s, %dx%d x %s, %.1f s%s, "
             "%.3g samples/s, %.1f scatterings/path -> %s%s",
             what, frame, count, instants, t_raster, img.width, img.height, samples,
             stats.seconds, denoised, stats.samples_per_second, stats.mean_scattering_events, exr_path,
             png_note);
    if (stats.paths_cut_by_cap)
        pw_shot_log(o, "%s: frame %d: %llu of %llu paths reached max_depth %d and were cut", what,
                 frame, (unsigned long long)stats.paths_cut_by_cap,
                 (unsigned long long)stats.paths, rs->max_depth);
done:
    if (rc == PW_OK && keep_rgba) { /* hand the beauty pixels to the caller */
        *keep_rgba = img.rgba;
        img.rgba = NULL;
    }
    pw_image_free(&img);
    return rc;
}

/* What an existing frame is to this scene. */
typedef enum {
    EXR_ABSENT,         /* missing, damaged or rendered from another simulation */
    EXR_OTHER_SETTINGS, /* this simulation, other render settings (or made before frames
                           recorded them) */
    EXR_CURRENT
} exr_state;

static exr_state exr_state_of(const pw_scene *sc, const char *path)
{
    if (!pw_shot_file_exists(path)) return EXR_ABSENT;
    char want[SOURCE_CAP], have[SOURCE_CAP];
    pw_error ignored;
    frame_source(sc, want);
    if (pw_exr_read_string(path, "powder:source", have, sizeof have, &ignored) != PW_OK ||
        strcmp(have, want) != 0)
        return EXR_ABSENT;
    int w, h;
    float *rgba = NULL;
    pw_status rc = pw_exr_read_rgba(path, &w, &h, &rgba, &ignored);
    free(rgba);
    if (rc != PW_OK) return EXR_ABSENT;
    frame_settings(sc, want);
    if (pw_exr_read_string(path, "powder:renderSettings", have, sizeof have, &ignored) != PW_OK ||
        strcmp(have, want) != 0)
        return EXR_OTHER_SETTINGS;
    return EXR_CURRENT;
}

int pw_shot_exr_is_current(const pw_scene *sc, const char *path)
{
    return exr_state_of(sc, path) == EXR_CURRENT;
}

pw_status pw_shot_render(const pw_scene *sc, const pw_frame_list *frames,
                         const pw_shot_options *o, pw_error *err)
{
    pw_render_settings rs = sc->render;
    if (o->threads) rs.threads = o->threads;
    for (int k = 0; k < frames->count; k++) {
        int f = frames->frames[k];
        /* Between frames: every EXR written so far is whole, the next is not begun. */
        if (pw_interrupt_signal())
            return pw_fail(err, PW_EINTERRUPTED,
                           "%s: interrupted by %s before frame %d (%d of %d frames left); the "
                           "frames written are whole: `powder render --resume` (or `powder "
                           "run`) renders the rest",
                           sc->path, pw_interrupt_signal_name(pw_interrupt_signal()), f,
                           frames->count - k, frames->count);
        char exr[4096];
        pw_status rc = pw_shot_frame_path(sc, f, exr, sizeof exr, err);
        if (rc != PW_OK) return rc;
        double base = o->progress_base + k;
        exr_state state = o->resume && !o->force ? exr_state_of(sc, exr) : EXR_ABSENT;
        if (state == EXR_CURRENT) {
            pw_shot_log(o, "render: frame %d already done (%s)", f, exr);
            if (o->progress) pw_progress_skip(o->progress, base + 1, "render");
            continue;
        }
        if (state == EXR_OTHER_SETTINGS)
            pw_shot_log(o, "render: frame %d: %s was made with other render settings (spp, size, "
                        "seed, camera, lights, medium...): rendering it again", f, exr);
        frame_view view;
        shot_view(sc, f, &view);
        rc = render_one(sc, f, &view, NULL, 0, &rs, exr, o, base, NULL, err);
        if (rc != PW_OK) {
            pw_error_prefix(err, "frame %d", f);
            return rc;
        }
    }
    return PW_OK;
}

/* ---- turntable ------------------------------------------------------------------ */

pw_status pw_shot_turntable(const pw_scene *sc, const pw_turntable_options *t,
                            const pw_shot_options *o, pw_error *err)
{
    pw_density *density = NULL;
    size_t count = 0;
    /* a turntable previews one frame as it stands: frozen, through a pinhole */
    frame_view view;
    view.n = 1;
    view.settings[0] = '\0'; /* its views are previews, never resumed */
    view.view_name[0] = '\0';
    view.times[0] = pw_scene_frame_time(sc, t->frame);
    pw_status rc = load_density(sc, t->frame, 1, view.times, &density, &count, err);
    if (rc != PW_OK) return rc;
    vec3 lo, hi;
    if ((rc = pw_density_bounds(density, &lo, &hi)) != PW_OK) {
        pw_density_destroy(density);
        return rc;
    }
    vec3 center = v3_scale(v3_add(lo, hi), 0.5);
    double half_diag = 0.5 * v3_length(v3_sub(hi, lo));
    pw_camera_desc cam = sc->camera;
    cam.width_px = t->width_px;
    cam.height_px = t->height_px;
    /* Fit the bounding sphere in the narrower field of view, with a 15% margin. */
    double fov_v = cam.fov_deg * M_PI / 180.0;
    double fov_h = 2 * atan(tan(fov_v / 2) * cam.width_px / cam.height_px);
    double radius = t->radius > 0 ? t->radius : 1.15 * half_diag / sin(0.5 * fmin(fov_v, fov_h));
    pw_render_settings rs = sc->render;
    rs.spp = t->spp;
    if (o->threads) rs.threads = o->threads;

    char dir[4096];
    if (t->out_dir[0]) snprintf(dir, sizeof dir, "%s", t->out_dir);
    else {
        const char *slash = strrchr(sc->frame_pattern, '/');
        snprintf(dir, sizeof dir, "%.*s/turntable", slash ? (int)(slash - sc->frame_pattern) : 1,
                 slash ? sc->frame_pattern : ".");
    }
    if ((rc = pw_mkdir_p(dir, err)) != PW_OK) {
        pw_density_destroy(density);
        return rc;
    }
    int cols = (int)ceil(sqrt((double)t->steps)), rows = (t->steps + cols - 1) / cols;
    size_t sheet_w = (size_t)cols * cam.width_px, sheet_h = (size_t)rows * cam.height_px;
    float *sheet = calloc(sheet_w * sheet_h * 4, sizeof *sheet);
    if (!sheet) {
        pw_density_destroy(density);
        return pw_fail(err, PW_ENOMEM, "turntable: contact sheet of %zux%zu px", sheet_w, sheet_h);
    }
    double elev = t->elevation_deg * M_PI / 180.0;
    for (int k = 0; k < t->steps && rc == PW_OK; k++) {
        /* k / steps of a full turn: the last view is one step short of 360 degrees, so
         * playing the views in a loop never shows the same angle twice. */
        double phi = 2 * M_PI * k / t->steps;
        cam.target = center;
        cam.eye = v3_add(center, v3(radius * cos(elev) * sin(phi), radius * sin(elev),
                                    radius * cos(elev) * cos(phi)));
        cam.up = v3(0, 1, 0);
        char exr[4096];
        rc = pw_path_format(exr, sizeof exr, err, "%s/%s.f%04d.t%03d.exr", dir, sc->name,
                            t->frame, k);
        if (rc != PW_OK) break;
        float *rgba = NULL;
        view.cams[0] = view.at_frame = cam;
        snprintf(view.view_name, sizeof view.view_name, "view %d/%d (azimuth %.4g deg)", k + 1,
                 t->steps, 360.0 * k / t->steps);
        rc = render_one(sc, t->frame, &view, density, count, &rs, exr, o, o->progress_base + k,
                        &rgba, err);
        if (rc != PW_OK) break;
        size_t x0 = (size_t)(k % cols) * cam.width_px, y0 = (size_t)(k / cols) * cam.height_px;
        for (size_t q = 0; q < (size_t)cam.width_px * cam.height_px; q++) rgba[4 * q + 3] = 1.0f;
        for (int y = 0; y < cam.height_px; y++)
            memcpy(sheet + ((y0 + y) * sheet_w + x0) * 4, rgba + (size_t)y * cam.width_px * 4,
                   (size_t)cam.width_px * 4 * sizeof *rgba);
        free(rgba);
    }
    if (rc == PW_OK) {
        char png[4096];
        rc = pw_path_format(png, sizeof png, err, "%s/%s.f%04d.contact.png", dir, sc->name,
                            t->frame);
        if (rc == PW_OK)
            rc = pw_png_write_view(png, sheet, (int)sheet_w, (int)sheet_h, o->view,
                                   sc->png_exposure, err);
        if (rc == PW_OK)
            pw_shot_log(o, "turntable: %d views of frame %d in %s, contact sheet %s", t->steps,
                     t->frame, dir, png);
    }
    free(sheet);
    pw_density_destroy(density);
    return rc;
}

pw_status pw_shot_preview_of_exr(const char *exr_path, const double *exposure,
                                 const pw_view *view, const pw_view *fallback,
                                 pw_shot_preview *pv, pw_error *err)
{
    memset(pv, 0, sizeof *pv);
    pv->exposure = exposure ? *exposure : 0;
    pv->view = view ? view : fallback;
    if (exposure && view) return PW_OK; /* the caller's settings win: the header is not read */
    pw_exr_preview rec;
    pw_error e = {0};
    pw_status rc = pw_exr_read_preview(exr_path, &rec, &e);
    if (rc == PW_EFORMAT)
        return pw_fail(err, rc, "%s (--exposure and --view override the recorded preview)",
                       e.msg);
    if (rc != PW_OK) return pw_fail(err, rc, "%s", e.msg);
    if (!exposure && rec.has_exposure) {
        pv->exposure = rec.exposure;
        pv->exposure_recorded = 1;
    }
    if (!view && (rec.view[0] || rec.look[0] || !fallback)) {
        pw_view_params p;
        pw_view_params_default(&p);
        p.view = rec.view[0] ? rec.view : NULL;
        p.look = rec.look[0] ? rec.look : NULL;
        if (!(pv->own = pw_view_create(&p, &e))) {
            if (!rec.view[0] && !rec.look[0]) return pw_fail(err, e.code, "%s", e.msg);
            return pw_fail(err, e.code, "%s: the preview's view recorded in the EXR (view '%s', "
                           "look '%s'): %s; --view and --view-look choose another",
                           exr_path, rec.view, rec.look, e.msg);
        }
        pv->view = pv->own;
        pv->view_recorded = rec.view[0] || rec.look[0];
    }
    return PW_OK;
}

pw_status pw_shot_png_from_exr(const char *exr_path, const pw_view *view, double exposure,
                               char *png_path, size_t n, pw_error *err)
{
    int w, h;
    float *rgba = NULL;
    pw_status rc = pw_exr_read_rgba(exr_path, &w, &h, &rgba, err);
    if (rc != PW_OK) return rc;
    snprintf(png_path, n, "%s", exr_path);
    char *dot = strrchr(png_path, '.');
    if (dot && !strchr(dot, '/')) *dot = '\0';
    strncat(png_path, ".png", n - strlen(png_path) - 1);
    for (size_t k = 0; k < (size_t)w * h; k++) rgba[4 * k + 3] = 1.0f; /* opaque preview */
    rc = pw_png_write_view(png_path, rgba, w, h, view, exposure, err);
    free(rgba);
    return rc;
}
