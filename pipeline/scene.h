/* scene.h — one JSON file describes a shot: frames, the snow simulation (materials,
 * bodies, colliders) and how it is rendered (camera, lights, medium, surfaces, output).
 * The whole file is validated before any work starts; every error names the file, the
 * JSON path of the offending value and what is allowed there. The format reference is
 * scenes/FORMAT.md. */
#ifndef PW_SCENE_H
#define PW_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "camera_rig.h"
#include "collide.h"
#include "pw_error.h"
#include "pw_file.h" /* pw_frame_path */
#include "pw_math.h"
#include "pw_render.h"
#include "pw_sim.h"
#include "seed.h"
#include "surfaces.h"

#define PW_SCENE_MAX_MATERIALS 16
#define PW_SCENE_MAX_BODIES 16
#define PW_SCENE_MAX_COLLIDERS 16
/* Room for the explicit surfaces plus the colliders drawn as surfaces
 * (draw_colliders): the parser checks that both fit together. */
#define PW_SCENE_MAX_SURFACES 32

typedef struct {
    char path[4096];  /* the scene file as given                                    */
    char dir[4096];   /* its directory; asset paths (OBJ, envmap) resolve against it */
    char name[128];   /* [A-Za-z0-9_.-], names the default output paths            */
    char comment[1024]; /* free text: particle count and expected run time          */

    /* frame_start is the initial state at t = 0; frame f is at t = (f - start) / fps */
    int frame_start, frame_end;
    double fps;       /* [1/s] */

    pw_sim_params sim;
    pw_material materials[PW_SCENE_MAX_MATERIALS];
    int n_materials;
    pw_body_desc bodies[PW_SCENE_MAX_BODIES];
    int body_material[PW_SCENE_MAX_BODIES]; /* index into materials */
    int n_bodies;
    pw_collider_desc colliders[PW_SCENE_MAX_COLLIDERS];
    int n_colliders;
    pw_source_desc sources[PW_SIM_MAX_SOURCES]; /* snow that comes in over time (emit.h) */
    int n_sources;
    size_t particle_estimate; /* sum of pw_seed_estimate over the bodies, and of what
                                 the sources emit by their end                    */
    uint64_t max_particles;   /* budget ("sim.max_particles", 5e6); over it = error */

    pw_camera_desc camera;    /* the static camera and the image size              */
    pw_camera_rig camera_rig; /* its keys, lens and shutter (pw_camera_rig_at)       */
    pw_medium_desc medium;
    pw_lights_desc lights;
    pw_render_settings render;
    pw_surface_desc surfaces[PW_SCENE_MAX_SURFACES];
    int n_surfaces;           /* explicit render.surfaces only                       */
    int draw_colliders;       /* colliders are also drawn, with collider_color       */
    vec3 collider_color;      /* diffuse albedo [0, 1]                               */
    int exr_compression;      /* pw_exr_compression                                   */
    int exr_float;            /* 1: beauty stored as float, 0: half                  */
    double png_exposure;      /* preview exposure [stops]                            */

    /* One run of '#' is replaced by the zero-padded frame number (pw_frame_path).
     * Relative paths resolve against the current directory. */
    char cache_pattern[4096];
    char frame_pattern[4096];
    /* every Nth frame from the start (and the last of a run) is a full checkpoint; the
     * others are slim render caches (pw_sim_save_slim). 1 = every frame full. Not part
     * of the sim hash: it changes what is stored, not what is simulated. */
    int checkpoint_every;

    /* FNV-1a 64 of the canonical "sim" section (defaults applied, numbers normalised,
     * keys sorted) plus frames.start and fps: caches written under another simulation
     * setup are refused on re-render. Render values, frames.end and the particle
     * budget do not enter it. */
    uint64_t sim_hash;

    /* The scene's render section as JSON with its asset paths made absolute, so that a
     * look can replace only the keys it names (pw_scene_apply_look); "" when it did
     * not fit. */
    char render_json[65536];
    uint64_t render_text_hash; /* see pw_scene_render_hash */
} pw_scene;

/* FNV-1a 64 of everything that decides a rendered frame's pixels besides the caches:
 * the render section (defaults written in, keys sorted, asset paths absolute, after any
 * look) and the final spp, resolution, seed and beauty type (after the command line's
 * overrides). The preview exposure, which only the PNG shows, does not enter it. Frames
 * record it ("powder:renderSettings"), so a resumed render redoes the frames made with
 * other settings. The contents of asset files (OBJ, envmap) do not enter it. */
uint64_t pw_scene_render_hash(const pw_scene *sc);

/* Reads and validates the scene file at path into *out. *out is large (a few MB):
 * allocate it on the heap. On failure *out is unspecified and *err holds
 * "<file>:<line>:<col>: ..." for syntax errors or "<file>: <json.path>: ..." for
 * everything else. Reentrant: no state outside *out. */
pw_status pw_scene_load(const char *path, pw_scene *out, pw_error *err);

/* The same from memory: name is used in messages and as out->path, base_dir is where
 * relative asset paths resolve (NULL or "" = the current directory). len bytes of
 * json_text are read; it need not be NUL-terminated. */
pw_status pw_scene_parse(const char *name, const char *json_text, size_t len,
                         const char *base_dir, pw_scene *out, pw_error *err);

/* Writes the built-in default shot as a scene file at path (atomically), with an
 * "output" section holding sc's cache and frame patterns made absolute, so `powder
 * render PATH`, `turntable` and `export` find what `powder run` made of it. A file
 * already at path is left as it is; *kept is 1 when it differs from what would have
 * been written (the user edited it), 0 otherwise. */
pw_status pw_scene_write_default(const pw_scene *sc, const char *path, int *kept,
                                 pw_error *err);

/* Applies a "look" file, which holds a "render" section and optionally "name" and
 * "comment" (which describe the look and are not applied); any other top-level key is
 * an error. Each key the look's render section names (camera, spp, lights, surfaces...)
 * replaces the scene's whole value for that key; the keys it does not name keep the
 * scene's, so {"render": {"spp": 4}} is a look. The simulation (and sim_hash) is
 * untouched. On failure *scene is unchanged. Asset paths in the look resolve against
 * the look file's directory, the scene's against the scene's. */
pw_status pw_scene_apply_look(pw_scene *scene, const char *look_path, pw_error *err);

/* The built-in default shot: a ~2e4-particle snowball of radius 0.1 m (h = 0.01 m)
 * dropped 0.5 m onto a ground half-space, 24 frames at 24 fps, 320x180 at 16 spp,
 * sun + sky, a finite ground plane. Parsed from a JSON text by the same parser. */
void pw_scene_default(pw_scene *out);

/* The built-in default shot's JSON text (for "powder run" to show or save). */
const char *pw_scene_default_json(void);

/* Time [s] of frame f of the scene: (f - frame_start) / fps. */
double pw_scene_frame_time(const pw_scene *scene, int frame);

#endif
