/* shot.h — the uses of Powder, each a function the `powder` program calls: simulate a
 * shot into caches, render caches into EXR frames (optionally with another look),
 * orbit a turntable around one frame, convert EXR to PNG previews. */
#ifndef PW_SHOT_H
#define PW_SHOT_H

#include <stdio.h>

#include "frames.h"
#include "progress.h"
#include "pw_cache.h"
#include "pw_error.h"
#include "scene.h"
#include "view.h"

typedef struct {
    int threads;        /* 0 = all cores */
    int force;          /* recompute frames whose valid output already exists */
    int replace;        /* sim: delete the caches of another simulation setup in the
                           folder (else they are refused) */
    int resume;         /* skip frames whose valid output exists (render) */
    int png;            /* write a PNG preview beside every EXR */
    const pw_view *view; /* the view transform of PNG previews and contact sheets (not
                            owned); NULL: the default view */
    const char *view_name, *view_look; /* what view was made from (--view, --view-look;
                            NULL: the defaults), recorded in each EXR for `powder png` */
    FILE *log;          /* one line per finished frame; NULL = silent */
    pw_progress *progress; /* shared display over the whole job; may be NULL */
    double progress_base;  /* units already done before this call */
} pw_shot_options;

/* Simulates frames start..last_frame into the scene's cache files. Valid caches of the
 * same simulation setup (sim_hash) are kept, and the run continues from the newest full
 * one before the first frame that is missing or not of this setup (unless force; read
 * from the headers). When the folder holds caches of another setup (a scene of the same
 * name), nothing is written and PW_EINVAL names the folder, the first such frame and
 * their count, unless o->replace: then all of them are deleted first, beyond
 * last_frame too. Returns the number of frames simulated in *n_done. */
pw_status pw_shot_simulate(const pw_scene *sc, int last_frame, const pw_shot_options *o,
                           int *n_done, pw_error *err);

/* Renders the listed frames' caches to EXR with the scene's render section. Refuses
 * caches that are missing or belong to another simulation setup. */
pw_status pw_shot_render(const pw_scene *sc, const pw_frame_list *frames,
                         const pw_shot_options *o, pw_error *err);

/* The image `powder render` would write for frame with settings rs (the scene's camera
 * rig, surfaces, medium and lights), into *img, nothing written: for benchmarks and tests
 * that compare renders. The caller frees it with pw_image_free. */
pw_status pw_shot_render_image(const pw_scene *sc, int frame, const pw_render_settings *rs,
                               pw_image *img, pw_render_stats *stats, pw_error *err);

typedef struct {
    int frame;          /* which cache */
    int steps;          /* orbit positions; the last stops one step short of 360 deg */
    double radius;      /* [m] 0 = fit the snow's bounding box */
    double elevation_deg; /* camera elevation above the horizontal */
    int width_px, height_px, spp; /* preview defaults 320x180, 16 */
    char out_dir[4096]; /* "" = next to the frames: <frames dir>/turntable */
} pw_turntable_options;

pw_status pw_shot_turntable(const pw_scene *sc, const pw_turntable_options *t,
                            const pw_shot_options *o, pw_error *err);

/* The cache path and EXR path of a frame. */
pw_status pw_shot_cache_path(const pw_scene *sc, int frame, char *out, size_t n, pw_error *err);
pw_status pw_shot_frame_path(const pw_scene *sc, int frame, char *out, size_t n, pw_error *err);

/* Applies the command line's --output DIR (caches under DIR/cache, frames under DIR)
 * and --look FILE (render section from FILE; unless --output is given its frames go to
 * a directory named after the look beside the shot's frames, so final frames are never
 * overwritten by an experiment). Either may be NULL. */
pw_status pw_shot_apply_output_and_look(pw_scene *sc, const char *output, const char *look,
                                        pw_error *err);

/* Paths for a command that reads caches (render, turntable, export, stats). Its results
 * go under output (--output DIR; NULL: where the scene says). Caches are read from
 * caches (--caches DIR) when given, else from output/cache/ when that folder exists
 * (where `powder sim --output DIR` wrote them), else from where the scene says. */
pw_status pw_shot_apply_read_paths(pw_scene *sc, const char *output, const char *caches,
                                   pw_error *err);

/* "<path>: no cache for frame N" with what to do about it (PW_ENOENT). */
pw_status pw_shot_no_cache(const pw_scene *sc, int frame, const char *path, pw_error *err);

/* The header of frame's cache (every checksum verified), refused when the cache is
 * missing (with what to do), damaged, or of another simulation setup. */
pw_status pw_shot_cache_info(const pw_scene *sc, int frame, pw_cache_info *info,
                             pw_error *err);

typedef struct {
    int frame;
    pw_error error; /* names the file and what is wrong */
} pw_cache_problem;

typedef struct {
    pw_cache_problem *items;
    int count, capacity;
} pw_cache_problems;

/* Checks, before anything is written, that the cache of every listed frame (but those
 * with skip[k] set; skip may be NULL) exists, is whole (every checksum) and belongs to
 * this scene's simulation setup: a damaged frame in the middle of a range must not leave
 * the frames before it made. Every bad frame goes in *out (the caller shows them and
 * frees *out); *err sums them up, or is the one problem when there is one. */
pw_status pw_shot_check_caches(const pw_scene *sc, const pw_frame_list *frames,
                               const unsigned char *skip, pw_cache_problems *out, pw_error *err);
void pw_cache_problems_free(pw_cache_problems *p);

/* 1 when path is a frame of this scene's simulation setup (its "powder:source" names
 * the sim_hash) that reads back completely; 0 when missing, damaged or rendered from
 * another simulation. */
int pw_shot_exr_is_current(const pw_scene *sc, const char *path);

/* 1 when path holds a complete, undamaged cache of this scene's simulation setup. */
int pw_shot_cache_is_valid(const pw_scene *sc, const char *path);

/* The last frame of the scene's range whose cache is one of this simulation setup
 * (pw_shot_cache_is_valid) into *frame: what a command of one frame takes by default.
 * PW_ENOENT when no frame has one, naming the cache folder and `powder sim`. */
pw_status pw_shot_last_cached_frame(const pw_scene *sc, int *frame, pw_error *err);

/* How a preview of an EXR is made: the caller's exposure and view where given, else
 * what the render recorded in the EXR's header (pw_exr_read_preview: the scene's
 * render.png_exposure, and --view / --view-look when the render had them), else exposure
 * 0 and the default view. */
typedef struct {
    double exposure;      /* [stops] */
    const pw_view *view;  /* the view to apply: the caller's, or own */
    pw_view *own;         /* made here for the EXR's recorded view, else NULL: the
                             caller frees it with pw_view_destroy */
    int exposure_recorded, view_recorded; /* taken from the EXR's header */
} pw_shot_preview;

/* Fills *pv for exr_path. exposure: the caller's (--exposure) or NULL; view: the
 * caller's (--view or --view-look given) or NULL; fallback: the default view, used when
 * neither the caller nor the EXR names one (not owned; NULL: made here). Errors name
 * the EXR: a damaged preview attribute (PW_EFORMAT), a recorded view or look this
 * build's config lacks (PW_EINVAL); each says which option overrides it. */
pw_status pw_shot_preview_of_exr(const char *exr_path, const double *exposure,
                                 const pw_view *view, const pw_view *fallback,
                                 pw_shot_preview *pv, pw_error *err);

/* EXR -> PNG next to it (same name, .png): colour times 2^exposure, through view
 * (NULL: the default view). */
pw_status pw_shot_png_from_exr(const char *exr_path, const pw_view *view, double exposure,
                               char *png_path, size_t n, pw_error *err);

#endif
