/* shot.h — the uses of Powder, each a function the `powder` program calls: simulate a
 * shot into caches, render caches into EXR frames (optionally with another look),
 * orbit a turntable around one frame, convert EXR to PNG previews. */
#ifndef PW_SHOT_H
#define PW_SHOT_H

#include <stdio.h>

#include "frames.h"
#include "progress.h"
#include "pw_error.h"
#include "scene.h"

typedef struct {
    int threads;        /* 0 = all cores */
    int force;          /* recompute frames whose valid output already exists */
    int resume;         /* skip frames whose valid output exists (render) */
    int png;            /* write a PNG preview beside every EXR */
    FILE *log;          /* one line per finished frame; NULL = silent */
    pw_progress *progress; /* shared display over the whole job; may be NULL */
    double progress_base;  /* units already done before this call */
} pw_shot_options;

/* Simulates frames start..last_frame into the scene's cache files. Valid caches of the
 * same simulation setup (sim_hash) are kept, and the run continues from the last one
 * (unless force). Returns the number of frames simulated in *n_done. */
pw_status pw_shot_simulate(const pw_scene *sc, int last_frame, const pw_shot_options *o,
                           int *n_done, pw_error *err);

/* Renders the listed frames' caches to EXR with the scene's render section. Refuses
 * caches that are missing or belong to another simulation setup. */
pw_status pw_shot_render(const pw_scene *sc, const pw_frame_list *frames,
                         const pw_shot_options *o, pw_error *err);

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

/* 1 when path is a frame of this scene's simulation setup (its "powder:source" names
 * the sim_hash) that reads back completely; 0 when missing, damaged or rendered from
 * another simulation. */
int pw_shot_exr_is_current(const pw_scene *sc, const char *path);

/* 1 when path holds a complete, undamaged cache of this scene's simulation setup. */
int pw_shot_cache_is_valid(const pw_scene *sc, const char *path);

/* EXR -> PNG next to it (same name, .png), tone mapped with 2^exposure. */
pw_status pw_shot_png_from_exr(const char *exr_path, double exposure, char *png_path,
                               size_t n, pw_error *err);

#endif
