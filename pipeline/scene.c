/* scene.c — reading a shot's JSON scene file: the top level (name, frames, output), the
 * particle budget, the sim_hash, look files, the built-in default shot and frame paths.
 * The sections live in scene_sim.c and scene_render.c, the accessors in scene_json.c. */
#include "scene_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pw_file.h"

/* A scene is a few kilobytes; anything near this is not a scene. */
#define MAX_SCENE_BYTES (16u << 20)

static const char *const keys_top[] = {"name", "comment", "frames", "sim", "render", "output",
                                       NULL};
static const char *const keys_look[] = {"name", "comment", "render", NULL};
static const char *const keys_frames[] = {"start", "end", "fps", NULL};
static const char *const keys_output[] = {"caches", "frames", "checkpoint_every", NULL};

/* The built-in shot (see pw_scene_default): ~2.1e4 particles (4/3 pi 0.1^3 / 0.01^3
 * cells x 5 per cell), 24 frames. */
static const char default_json[] =
    "{\n"
    "  \"name\": \"snowball\",\n"
    "  \"comment\": \"Built-in default: a snowball of radius 0.1 m dropped 0.5 m onto the "
    "ground. About 21000 particles; a few minutes on 2 cores.\",\n"
    "  \"frames\": {\"start\": 0, \"end\": 24, \"fps\": 24},\n"
    "  \"sim\": {\n"
    "    \"h\": 0.01,\n"
    "    \"domain\": {\"min\": [-0.5, -0.1, -0.5], \"max\": [0.5, 1.0, 0.5]},\n"
    "    \"materials\": {\"snow\": {}},\n"
    "    \"bodies\": [{\"material\": \"snow\", \"particles_per_cell\": 5,\n"
    "                  \"shapes\": [{\"type\": \"sphere\", \"center\": [0, 0.6, 0], "
    "\"radius\": 0.1}]}],\n"
    "    \"colliders\": [{\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0], "
    "\"normal\": [0, 1, 0]},\n"
    "                    \"friction\": 0.5}]\n"
    "  },\n"
    "  \"render\": {\n"
    "    \"camera\": {\"eye\": [0, 0.45, 1.6], \"target\": [0, 0.25, 0], \"fov_deg\": 35},\n"
    "    \"resolution\": [320, 180],\n"
    "    \"spp\": 16,\n"
    "    \"png_exposure\": -5.4,\n"
    "    \"lights\": {\"daylight\": {\"sun_elevation_deg\": 53, \"sun_azimuth_deg\": 131.6, "
    "\"turbidity\": 3}},\n"
    "    \"surfaces\": [{\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0], "
    "\"normal\": [0, 1, 0]},\n"
    "                   \"size\": 2, \"color\": [0.35, 0.33, 0.3]}],\n"
    "    \"draw_colliders\": false\n"
    "  }\n"
    "}\n";

/* ---- small helpers ------------------------------------------------------------------- */

/* FNV-1a 64: tiny, stable across platforms, and enough to tell setups apart. */
static uint64_t fnv1a64(const char *s, size_t n)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; k++) {
        hash ^= (unsigned char)s[k];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

static pw_status check_name(const sc_ctx *c, const char *name)
{
    /* The name becomes a directory and file name in the default output paths. */
    if (!name[0] || name[0] == '.')
        return sc_fail(c, "name", "\"%s\": must be non-empty and not start with '.'", name);
    for (const char *q = name; *q; q++) {
        int ok = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                 (*q >= '0' && *q <= '9') || *q == '_' || *q == '-' || *q == '.';
        if (!ok)
            return sc_fail(c, "name", "\"%.60s\": only letters, digits, '_', '-' and '.' are "
                                      "allowed (it names output files)", name);
    }
    return PW_OK;
}

/* ---- sections -------------------------------------------------------------------------- */

static pw_status parse_frames(const sc_ctx *c, json_t *root, pw_scene *s)
{
    json_t *fr;
    pw_status rc = sc_get_object(c, root, "", "frames", 1, &fr);
    if (rc != PW_OK) return rc;
    long long start, end;
    const sc_range fps = {0, 1e6, 1, 0, "the frame rate [1/s]"};
    if ((rc = sc_check_keys(c, fr, "frames", keys_frames)) != PW_OK ||
        (rc = sc_int(c, fr, "frames", "start", 0, 0, 0, 10000000, "the first frame", &start)) ||
        (rc = sc_int(c, fr, "frames", "end", 1, 0, 0, 10000000, "the last frame", &end)) ||
        (rc = sc_number(c, fr, "frames", "fps", 0, 24, fps, &s->fps)) != PW_OK)
        return rc;
    if (end < start)
        return pw_fail(c->err, PW_EINVAL, "%s: frames.end = %lld: must be >= frames.start "
                       "(%lld)", c->file, end, start);
    s->frame_start = (int)start;
    s->frame_end = (int)end;
    return PW_OK;
}

static pw_status parse_pattern(const sc_ctx *c, json_t *out, const char *key, const char *def,
                               char *dst, size_t cap)
{
    char at[SC_PATH];
    sc_join(at, "output", key);
    pw_status rc = sc_string(c, out, "output", key, def, dst, cap);
    if (rc != PW_OK) return rc;
    size_t start, len;
    int runs = pw_frame_pattern_runs(dst, &start, &len);
    if (runs != 1)
        return sc_fail(c, at, "\"%.80s\": needs exactly one run of '#' for the frame number, "
                              "found %d", dst, runs);
    return PW_OK;
}

static pw_status parse_output(const sc_ctx *c, json_t *root, pw_scene *s)
{
    json_t *out;
    pw_status rc = sc_get_section(c, root, "", "output", &out);
    if (rc != PW_OK) return rc;
    if ((rc = sc_check_keys(c, out, "output", keys_output)) != PW_OK) return rc;
    char caches[400], frames[400];
    snprintf(caches, sizeof caches, "out/%s/cache/%s.####.pwc", s->name, s->name);
    snprintf(frames, sizeof frames, "out/%s/%s.####.exr", s->name, s->name);
    if ((rc = parse_pattern(c, out, "caches", caches, s->cache_pattern,
                            sizeof s->cache_pattern)) != PW_OK ||
        (rc = parse_pattern(c, out, "frames", frames, s->frame_pattern,
                            sizeof s->frame_pattern)) != PW_OK)
        return rc;
    long long every;
    if ((rc = sc_int(c, out, "output", "checkpoint_every", 0, 1, 1, 1000000,
                     "frames between full checkpoints", &every)) != PW_OK)
        return rc;
    s->checkpoint_every = (int)every;
    return PW_OK;
}

/* Sum of the seeder's estimates, refused over the budget before anything is allocated. */
static pw_status check_budget(const sc_ctx *c, pw_scene *s)
{
    size_t total = 0;
    for (int b = 0; b < s->n_bodies; b++) {
        size_t n = 0;
        pw_status rc = pw_seed_estimate(&s->bodies[b], s->sim.h, &n, c->err);
        if (rc != PW_OK) {
            pw_error_prefix(c->err, "%s: sim.bodies[%d]", c->file, b);
            return rc;
        }
        total = n > SIZE_MAX - total ? SIZE_MAX : total + n;
    }
    for (int k = 0; k < s->n_sources; k++) {
        uint64_t n = pw_source_total(&s->sources[k], s->sim.h);
        total = n > SIZE_MAX - total ? SIZE_MAX : total + (size_t)n;
    }
    s->particle_estimate = total;
    if ((uint64_t)total > s->max_particles)
        return pw_fail(c->err, PW_EINVAL, "%s: sim.bodies: about %zu particles (with what sources emit), over the budget "
                       "sim.max_particles = %llu (raise it, coarsen sim.h or lower "
                       "particles_per_cell)", c->file, total,
                       (unsigned long long)s->max_particles);
    return PW_OK;
}

/* The canonical "sim" text plus the frames that fix simulation time. sim has had every
 * default written in and every number normalised by the accessors. */
static uint64_t compute_sim_hash(json_t *sim, const pw_scene *s)
{
    json_t *doc = json_object();
    json_t *copy = json_deep_copy(sim);
    /* The budget only decides whether to run, not what is computed. */
    json_object_del(copy, "max_particles");
    json_object_set_new(doc, "sim", copy);
    json_object_set_new(doc, "frames", json_pack("{sIsf}", "start", (json_int_t)s->frame_start,
                                                 "fps", s->fps));
    char *text = json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    /* Out of memory leaves no text; 0 then marks the hash as unknown. */
    uint64_t hash = text ? fnv1a64(text, strlen(text)) : 0;
    free(text);
    return hash;
}

static void store_render_json(json_t *render, pw_scene *s);

static pw_status parse_doc(const sc_ctx *c, json_t *root, pw_scene *s)
{
    pw_status rc = sc_check_keys(c, root, "", keys_top);
    if (rc != PW_OK) return rc;
    if ((rc = sc_string(c, root, "", "name", NULL, s->name, sizeof s->name)) != PW_OK ||
        (rc = check_name(c, s->name)) != PW_OK ||
        (rc = sc_string(c, root, "", "comment", "", s->comment, sizeof s->comment)) ||
        (rc = parse_frames(c, root, s)) != PW_OK)
        return rc;
    json_t *sim, *render;
    sc_ctx at_fps = *c; /* what follows may default to the shot's frame rate */
    at_fps.fps = s->fps;
    c = &at_fps;
    if ((rc = sc_get_object(c, root, "", "sim", 1, &sim)) != PW_OK ||
        (rc = sc_sim(c, sim, s)) != PW_OK ||
        (rc = sc_get_object(c, root, "", "render", 1, &render)) != PW_OK ||
        (rc = sc_render(c, render, s)) != PW_OK ||
        (rc = parse_output(c, root, s)) != PW_OK || (rc = check_budget(c, s)) != PW_OK)
        return rc;
    s->sim_hash = compute_sim_hash(sim, s);
    store_render_json(render, s);
    return PW_OK;
}

/* Sets obj[key] to the absolute form of the already resolved, existing path. */
static void set_absolute_path(json_t *obj, const char *key, const char *resolved)
{
    char cwd[4096], abs[8200];
    if (!obj) return;
    if (resolved[0] == '/')
        snprintf(abs, sizeof abs, "%s", resolved);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(abs, sizeof abs, "%s/%s", cwd, resolved);
    else
        return;
    json_object_set_new(obj, key, json_string(abs));
}

/* Keeps the render section (as parsed, defaults written in) for looks to merge into;
 * its relative asset paths are made absolute, since a look's resolve elsewhere. */
static void store_render_json(json_t *render, pw_scene *s)
{
    s->render_json[0] = '\0';
    json_t *copy = json_deep_copy(render);
    if (!copy) return;
    json_t *env = json_object_get(json_object_get(copy, "lights"), "envmap");
    if (env && s->lights.envmap_path[0]) set_absolute_path(env, "path", s->lights.envmap_path);
    json_t *list = json_object_get(copy, "surfaces");
    for (int k = 0; k < s->n_surfaces && k < (int)json_array_size(list); k++)
        if (s->surfaces[k].shape.kind == PW_SHAPE_MESH ||
            s->surfaces[k].shape.kind == PW_SHAPE_TEXT)
            set_absolute_path(json_object_get(json_array_get(list, (size_t)k), "shape"),
                              s->surfaces[k].shape.kind == PW_SHAPE_MESH ? "path" : "font",
                              s->surfaces[k].shape.path);
    char *text = json_dumps(copy, JSON_COMPACT);
    if (text && strlen(text) < sizeof s->render_json) strcpy(s->render_json, text);
    free(text);
    /* The render hash's share: the settings the command line cannot override, in one
     * spelling. The overridable ones enter pw_scene_render_hash as their final values,
     * and the preview exposure changes only the PNG. */
    static const char *const outside[] = {"spp",          "seed",   "resolution", "beauty",
                                          "png_exposure", "denoise"};
    for (size_t k = 0; k < sizeof outside / sizeof *outside; k++)
        json_object_del(copy, outside[k]);
    text = json_dumps(copy, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    s->render_text_hash = text ? fnv1a64(text, strlen(text)) : 0;
    free(text);
    json_decref(copy);
}

uint64_t pw_scene_render_hash(const pw_scene *sc)
{
    char text[160];
    /* " denoised" only when on, so frames rendered before the setting existed stay
     * current */
    int n = snprintf(text, sizeof text, "%016llx %d %dx%d %llu %d%s",
                     (unsigned long long)sc->render_text_hash, sc->render.spp,
                     sc->camera.width_px, sc->camera.height_px,
                     (unsigned long long)sc->render.seed, sc->exr_float,
                     sc->render.denoise ? " denoised" : "");
    return fnv1a64(text, (size_t)n);
}

/* jansson's text into our error model; an empty document gets a plainer message. */
static json_t *load_json(const char *name, const char *text, size_t len, pw_error *err)
{
    size_t k = 0;
    while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r'))
        k++;
    if (k == len) {
        pw_fail(err, PW_EFORMAT, "%s: empty file (expected a JSON object)", name);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        pw_fail(err, PW_EFORMAT, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        pw_fail(err, PW_EFORMAT, "%s: expected a JSON object at the top level, got %s", name,
                sc_type_name(root));
        json_decref(root);
        return NULL;
    }
    return root;
}

static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, cap, ".");
        return;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0) n = 1; /* "/scene.json" lives in "/" */
    if (n >= cap) n = cap - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
}

/* ---- public ------------------------------------------------------------------------------ */

pw_status pw_scene_parse(const char *name, const char *json_text, size_t len,
                         const char *base_dir, pw_scene *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!name) name = "scene";
    if (!base_dir) base_dir = "";
    if (strlen(name) >= sizeof out->path || strlen(base_dir) >= sizeof out->dir)
        return pw_fail(err, PW_EINVAL, "%.200s: scene path too long", name);
    snprintf(out->path, sizeof out->path, "%s", name);
    snprintf(out->dir, sizeof out->dir, "%s", base_dir);
    json_t *root = load_json(name, json_text, len, err);
    if (!root) return err ? err->code : PW_EFORMAT;
    sc_ctx c = {name, base_dir, err, 0};
    pw_status rc = parse_doc(&c, root, out);
    json_decref(root);
    return rc;
}

pw_status pw_scene_load(const char *path, pw_scene *out, pw_error *err)
{
    char *text = NULL;
    size_t len = 0;
    pw_status rc = pw_read_file(path, MAX_SCENE_BYTES, &text, &len, err);
    if (rc != PW_OK) return rc;
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    rc = pw_scene_parse(path, text, len, dir, out, err);
    free(text);
    return rc;
}

/* The look's render section over the scene's (FORMAT.md, "Look files"): a JSON Merge
 * Patch (RFC 7386), so a look names only what it changes: objects merge key by key,
 * other values replace, null removes. Two exceptions keep the result meaningful: a
 * camera is one viewpoint, replaced whole (the scene's motion keys under a look's eye
 * would be neither camera), and "sky" and "envmap" are two forms of one light, so
 * naming one drops the other; "daylight" is sun and sky at once, so naming it drops
 * "sun", "sky" and "envmap", and naming any of those drops it; a medium given as
 * grains replaces one given as sigma_t and albedo, and the other way round. Returns 0,
 * or -1 when out of memory. */
static int merge_patch(json_t *target, json_t *patch, int depth)
{
    const char *key;
    json_t *value;
    json_object_foreach(patch, key, value) {
        json_t *have = json_object_get(target, key);
        int whole = depth == 0 && !strcmp(key, "camera");
        if (json_is_null(value)) {
            json_object_del(target, key);
        } else if (json_is_object(value) && json_is_object(have) && !whole) {
            if (merge_patch(have, value, depth + 1) != 0) return -1;
        } else if (json_object_set(target, key, value) != 0) {
            return -1;
        }
    }
    return 0;
}

static int merge_look(json_t *render, json_t *look_render)
{
    json_t *lights = json_object_get(render, "lights");
    json_t *look_lights = json_object_get(look_render, "lights");
    if (json_is_object(lights) && json_is_object(look_lights)) {
        if (json_is_object(json_object_get(look_lights, "sky"))) json_object_del(lights, "envmap");
        if (json_is_object(json_object_get(look_lights, "envmap"))) json_object_del(lights, "sky");
        /* daylight is sun and sky at once: it and the others replace each other */
        if (json_is_object(json_object_get(look_lights, "daylight"))) {
            json_object_del(lights, "sun");
            json_object_del(lights, "sky");
            json_object_del(lights, "envmap");
        }
        if (json_is_object(json_object_get(look_lights, "sun")) ||
            json_is_object(json_object_get(look_lights, "sky")) ||
            json_is_object(json_object_get(look_lights, "envmap")))
            json_object_del(lights, "daylight");
    }
    /* the medium's two forms, grains or sigma_t and albedo, replace each other; g goes
     * too, as it is the rendered phase function of one form and the grains' similarity
     * scaling of the other */
    json_t *medium = json_object_get(render, "medium");
    json_t *look_medium = json_object_get(look_render, "medium");
    if (json_is_object(medium) && json_is_object(look_medium)) {
        int grains = json_object_get(look_medium, "grain_radius_um") != NULL;
        int optical = json_object_get(look_medium, "sigma_t") ||
                      json_object_get(look_medium, "albedo");
        int was_grains = json_object_get(medium, "grain_radius_um") != NULL;
        if (grains != was_grains && (grains || optical)) {
            json_object_del(medium, grains ? "sigma_t" : "grain_radius_um");
            json_object_del(medium, "albedo");
            json_object_del(medium, "g");
        }
    }
    return merge_patch(render, look_render, 0);
}

pw_status pw_scene_apply_look(pw_scene *scene, const char *look_path, pw_error *err)
{
    char *text = NULL;
    size_t len = 0;
    pw_status rc = pw_read_file(look_path, MAX_SCENE_BYTES, &text, &len, err);
    if (rc != PW_OK) return rc;
    json_t *root = load_json(look_path, text, len, err);
    free(text);
    if (!root) return err ? err->code : PW_EFORMAT;
    /* Parsed into a scratch scene so a bad look leaves *scene as it was. The colliders
     * are copied in because the surface budget counts the drawn ones. */
    pw_scene *tmp = malloc(sizeof *tmp);
    if (!tmp) {
        json_decref(root);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", look_path);
    }
    memset(tmp, 0, sizeof *tmp);
    tmp->n_colliders = scene->n_colliders;
    char dir[4096], ignored[1024];
    dir_of(look_path, dir, sizeof dir);
    sc_ctx c = {look_path, dir, err, scene->fps};
    json_t *render, *merged = NULL;
    if ((rc = sc_check_keys(&c, root, "", keys_look)) == PW_OK &&
        (rc = sc_string(&c, root, "", "name", "", ignored, sizeof ignored)) == PW_OK &&
        (rc = sc_string(&c, root, "", "comment", "", ignored, sizeof ignored)) == PW_OK &&
        (rc = sc_get_object(&c, root, "", "render", 1, &render)) == PW_OK) {
        /* the look's keys over the scene's render section */
        merged = scene->render_json[0] ? json_loads(scene->render_json, 0, NULL) : json_object();
        if (!merged || merge_look(merged, render) != 0)
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", look_path);
        else
            rc = sc_render(&c, merged, tmp);
    }
    if (rc == PW_OK) {
        store_render_json(merged, tmp); /* a further look goes over this one */
        memcpy(scene->render_json, tmp->render_json, sizeof scene->render_json);
        scene->render_text_hash = tmp->render_text_hash;
        scene->camera = tmp->camera;
        scene->camera_rig = tmp->camera_rig;
        scene->medium = tmp->medium;
        scene->lights = tmp->lights;
        scene->render = tmp->render;
        memcpy(scene->surfaces, tmp->surfaces, sizeof scene->surfaces);
        scene->n_surfaces = tmp->n_surfaces;
        scene->draw_colliders = tmp->draw_colliders;
        scene->collider_color = tmp->collider_color;
        scene->exr_compression = tmp->exr_compression;
        scene->exr_float = tmp->exr_float;
        scene->png_exposure = tmp->png_exposure;
    }
    free(tmp);
    json_decref(merged);
    json_decref(root);
    return rc;
}

const char *pw_scene_default_json(void) { return default_json; }

/* pattern made absolute against the current directory into out */
static int absolute_pattern(const char *pattern, char *out, size_t cap)
{
    char cwd[4096];
    if (pattern[0] == '/') return snprintf(out, cap, "%s", pattern) < (int)cap;
    if (!getcwd(cwd, sizeof cwd)) return 0;
    int n = snprintf(out, cap, "%s/%s", cwd, pattern);
    return n > 0 && (size_t)n < cap;
}

pw_status pw_scene_write_default(const pw_scene *sc, const char *path, int *kept,
                                 pw_error *err)
{
    *kept = 0;
    char caches[8192], frames[8192];
    if (!absolute_pattern(sc->cache_pattern, caches, sizeof caches) ||
        !absolute_pattern(sc->frame_pattern, frames, sizeof frames))
        return pw_fail(err, PW_EINVAL, "%s: output paths too long", path);
    json_t *root = json_loads(default_json, 0, NULL);
    json_t *out = json_pack("{ssss}", "caches", caches, "frames", frames);
    if (!root || !out || json_object_set_new(root, "output", out) != 0) {
        json_decref(root);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", path);
    }
    /* a file already there is the user's: one that holds these values needs no write,
     * another (their edits) is never overwritten */
    char *have = NULL;
    size_t have_len = 0;
    pw_error ignored;
    if (pw_read_file(path, MAX_SCENE_BYTES, &have, &have_len, &ignored) == PW_OK) {
        json_t *theirs = json_loadb(have, have_len, 0, NULL);
        *kept = !theirs || !json_equal(theirs, root);
        json_decref(theirs);
        json_decref(root);
        free(have);
        return PW_OK;
    }
    /* 15 significant digits give back the decimals of the text (0.1, not
     * 0.10000000000000001), and still every value it holds exactly */
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (!text) return pw_fail(err, PW_ENOMEM, "%s: out of memory", path);
    pw_atomic_file f;
    pw_status rc = pw_mkdir_parent(path, err);
    if (rc == PW_OK && (rc = pw_atomic_begin(&f, path, err)) == PW_OK) {
        if ((rc = pw_atomic_write(&f, text, strlen(text), err)) == PW_OK &&
            (rc = pw_atomic_write(&f, "\n", 1, err)) == PW_OK)
            rc = pw_atomic_commit(&f, err);
        else
            pw_atomic_abort(&f);
    }
    free(text);
    return rc;
}

void pw_scene_default(pw_scene *out)
{
    pw_error err = {0};
    pw_status rc = pw_scene_parse("<built-in default scene>", default_json,
                                  sizeof default_json - 1, "", out, &err);
    /* The text is part of the program; test scene_parses_and_defaults parses it. */
    assert(rc == PW_OK);
    (void)rc;
}

double pw_scene_frame_time(const pw_scene *scene, int frame)
{
    return (frame - scene->frame_start) / scene->fps;
}
