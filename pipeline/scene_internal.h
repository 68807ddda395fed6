/* scene_internal.h — the typed, range-checked JSON accessors shared by the scene
 * parser's files (scene.c, scene_json.c, scene_shape.c, scene_sim.c, scene_render.c).
 *
 * Every accessor takes the object, the JSON path of that object ("" for the root) and
 * a key, and reports failures as "<file>: <path>.<key>: <what>". When a key is absent
 * its default is written back into the object, and present numbers are rewritten in
 * canonical form, so that dumping the "sim" object afterwards gives the same text for
 * every spelling of the same setup (the sim_hash). */
#ifndef PW_SCENE_INTERNAL_H
#define PW_SCENE_INTERNAL_H

#include <jansson.h>
#include <math.h>

#include "scene.h"

#define SC_PATH 256 /* JSON paths are short; longer ones are cut, never overflow */

typedef struct {
    const char *file; /* name used in messages */
    const char *dir;  /* base directory of relative asset paths ("" = cwd) */
    pw_error *err;
    double fps;       /* [1/s] the shot's frames.fps, once read (OBJ sequences' default) */
} sc_ctx;

/* An allowed interval of a number: lo/hi may be -INFINITY/INFINITY; *_open excludes
 * the end point. `what` starts the message ("Poisson's ratio must be in ..."). */
typedef struct {
    double lo, hi;
    int lo_open, hi_open;
    const char *what;
} sc_range;

/* "<path>.<key>" or "<key>" at the root; "<path>[i]" for indices. */
void sc_join(char *out, const char *path, const char *key);
void sc_index(char *out, const char *path, int i);

/* "a number", "a string", ... for messages. */
const char *sc_type_name(const json_t *v);

/* Fails with "<file>: <path>: <fmt...>". */
pw_status sc_fail(const sc_ctx *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fails with "<file>: <path> = <value>: <fmt...>", the form of every range error. */
pw_status sc_fail_value(const sc_ctx *c, const char *path, double value, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Checks that v is an object whose keys are all in the NULL-terminated list allowed;
 * an unknown key is reported with the nearest allowed key by edit distance. */
pw_status sc_check_keys(const sc_ctx *c, const json_t *v, const char *path,
                        const char *const *allowed);

/* Levenshtein distance, for suggestions (exposed for the fuzz target's sanity). */
int sc_edit_distance(const char *a, const char *b);

/* An optional section: *out is obj[key], or a new empty object added under key when it
 * is absent, so the defaults filled in later show in the canonical dump (sim_hash). */
pw_status sc_get_section(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                         json_t **out);
/* Member `key` of obj as an object. Absent: *out = NULL, or an error if required. */
pw_status sc_get_object(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                        int required, json_t **out);
/* Member `key` of obj as an array (same rules). */
pw_status sc_get_array(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                       int required, json_t **out);
/* The same, refusing more than max elements ("<n> <what>, at most <max>"). */
pw_status sc_get_list(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                      int required, size_t max, const char *what, json_t **out);

/* A number in range r. Absent: def (or an error when required). */
pw_status sc_number(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                    int required, double def, sc_range r, double *out);
/* An integral number in [lo, hi]. */
pw_status sc_int(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                 int required, long long def, long long lo, long long hi,
                 const char *what, long long *out);
pw_status sc_bool(const sc_ctx *c, json_t *obj, const char *path, const char *key, int def,
                  int *out);
/* A string of at most cap - 1 bytes; def NULL means required. */
pw_status sc_string(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                    const char *def, char *out, size_t cap);
/* One of the NULL-terminated names; *out is its index. def < 0 means required. */
pw_status sc_enum(const sc_ctx *c, json_t *obj, const char *path, const char *key, int def,
                  const char *const *names, int *out);
/* [x, y, z], each component in r. has_def 0 means required. */
pw_status sc_vec3(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                  int required, vec3 def, sc_range r, vec3 *out);
/* A non-zero direction, normalised on return. */
pw_status sc_direction(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                       int required, vec3 def, vec3 *out);

/* rel resolved against the scene file's directory (unchanged when absolute) into out;
 * "empty path" and "path too long" are errors at path. */
pw_status sc_scene_relative(const sc_ctx *c, const char *path, const char *rel, char *out,
                            size_t cap);

/* Joins dir and a relative path (absolute paths are kept) into out; fails if the
 * result does not fit or the file cannot be opened for reading. */
pw_status sc_asset_path(const sc_ctx *c, const char *path, const char *rel, char *out,
                        size_t cap);

/* Any finite value / non-negative / positive. */
extern const sc_range sc_any, sc_nonneg, sc_positive, sc_unit;

/* scene_shape.c: a shape object. ctx_flags restrict what the caller can use. */
enum {
    SC_SHAPE_NO_HALFSPACE = 1, /* seeded bodies must be bounded */
    SC_SHAPE_NO_MOTION = 2     /* bodies are seeded at t = 0 and never moved */
};
pw_status sc_shape(const sc_ctx *c, json_t *obj, const char *path, int flags, pw_shape *out);

/* scene_sim.c: the "sim" section (materials, bodies, colliders, solver settings). */
pw_status sc_sim(const sc_ctx *c, json_t *sim, pw_scene *s);
/* obj's "material", the name of one of s's materials: *index its place there. */
pw_status sc_material_ref(const sc_ctx *c, json_t *obj, const char *path, const pw_scene *s,
                          int *index);
/* scene_sources.c: "sim.sources" and "sim.air_velocity" (after the materials). */
pw_status sc_sources(const sc_ctx *c, json_t *sim, pw_scene *s);

/* scene_render.c: the "render" section into the render fields of *s; n_colliders
 * bounds the surface count when colliders are drawn. */
pw_status sc_render(const sc_ctx *c, json_t *render, pw_scene *s);

#endif
