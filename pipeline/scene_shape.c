/* scene_shape.c — a scene's shape object (half-space, sphere, box, cylinder, OBJ mesh,
 * text, with a static rotation and keyframed rigid motion) into a pw_shape. */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const double deg = 3.14159265358979323846 / 180.0; /* [rad/deg] */

static const char *const kinds[] = {"halfspace", "sphere", "box", "cylinder", "mesh", "text",
                                    NULL};
static const pw_shape_kind kind_of[] = {PW_SHAPE_HALFSPACE, PW_SHAPE_SPHERE, PW_SHAPE_BOX,
                                        PW_SHAPE_CYLINDER, PW_SHAPE_MESH, PW_SHAPE_TEXT};

/* Keys each kind uses; a key of another kind (a "radius" on a box) is an error rather
 * than silently ignored. */
static const char *const keys_halfspace[] = {"type", "center", "normal", "rotation", "motion",
                                             NULL};
static const char *const keys_sphere[] = {"type", "center", "radius", "rotation", "motion",
                                          NULL};
static const char *const keys_box[] = {"type",     "center", "half_extents", "size",
                                       "rotation", "motion", NULL};
static const char *const keys_cylinder[] = {"type",     "center", "radius", "height",
                                            "rotation", "motion", NULL};
static const char *const keys_mesh[] = {"type",     "center", "path",     "scale",    "sequence",
                                        "thickness", "rotation", "motion", NULL};
static const char *const keys_text[] = {"type",  "center",   "text",   "font", "height",
                                        "depth", "rotation", "motion", NULL};
static const char *const *const keys_of[] = {keys_halfspace, keys_sphere, keys_box,
                                             keys_cylinder, keys_mesh, keys_text};

static const char *const keys_rotation[] = {"axis", "angle_deg", NULL};
static const char *const keys_sequence[] = {"first", "last", "step", "fps", "start", "made_by",
                                            NULL};
static const char *const keys_key[] = {"t", "translation", "axis", "angle_deg", NULL};

/* "rotation": {"axis": [..], "angle_deg": a} — the shape's fixed orientation. */
static pw_status parse_rotation(const sc_ctx *c, json_t *obj, const char *path, pw_shape *s)
{
    json_t *rot;
    pw_status rc = sc_get_section(c, obj, path, "rotation", &rot);
    if (rc != PW_OK) return rc;
    char at[SC_PATH];
    sc_join(at, path, "rotation");
    double angle_deg;
    if ((rc = sc_check_keys(c, rot, at, keys_rotation)) != PW_OK ||
        (rc = sc_direction(c, rot, at, "axis", 0, v3(0, 1, 0), &s->rotation_axis)) != PW_OK ||
        (rc = sc_number(c, rot, at, "angle_deg", 0, 0, sc_any, &angle_deg)) != PW_OK)
        return rc;
    s->rotation_angle = angle_deg * deg;
    return PW_OK;
}

/* "motion": [{"t", "translation", "axis", "angle_deg"}, ...] sorted by t. */
static pw_status parse_motion(const sc_ctx *c, json_t *obj, const char *path, int flags,
                              pw_shape *s)
{
    json_t *keys;
    pw_status rc = sc_get_array(c, obj, path, "motion", 0, &keys);
    if (rc != PW_OK) return rc;
    char at[SC_PATH];
    sc_join(at, path, "motion");
    s->n_keys = 0;
    if (!keys) {
        json_object_set_new(obj, "motion", json_array());
        return PW_OK;
    }
    if ((flags & SC_SHAPE_NO_MOTION) && json_array_size(keys) > 0)
        return sc_fail(c, at, "snow bodies are seeded at t = 0 and cannot be keyframed "
                              "(motion is for colliders and surfaces)");
    if (json_array_size(keys) > PW_SHAPE_MAX_KEYS)
        return sc_fail(c, at, "%zu keyframes, at most %d", json_array_size(keys),
                       PW_SHAPE_MAX_KEYS);
    for (size_t k = 0; k < json_array_size(keys); k++) {
        json_t *key = json_array_get(keys, k);
        char ak[SC_PATH];
        sc_index(ak, at, (int)k);
        pw_keyframe *f = &s->keys[k];
        double angle_deg;
        if ((rc = sc_check_keys(c, key, ak, keys_key)) != PW_OK ||
            (rc = sc_number(c, key, ak, "t", 1, 0, sc_any, &f->t)) != PW_OK ||
            (rc = sc_vec3(c, key, ak, "translation", 0, v3_zero(), sc_any,
                          &f->translation)) != PW_OK ||
            (rc = sc_direction(c, key, ak, "axis", 0, v3(0, 1, 0), &f->axis)) != PW_OK ||
            (rc = sc_number(c, key, ak, "angle_deg", 0, 0, sc_any, &angle_deg)) != PW_OK)
            return rc;
        f->angle = angle_deg * deg;
        /* Interpolation looks up the bracketing pair by t; equal times would divide by 0. */
        if (k > 0 && !(f->t > s->keys[k - 1].t))
            return sc_fail(c, ak, "t = %g: keyframe times must increase strictly (previous "
                                  "%g)", f->t, s->keys[k - 1].t);
        s->n_keys = (int)k + 1;
    }
    return PW_OK;
}

/* A text's string, font and sizes, checked by building its mesh now, so that a missing
 * glyph or an unreadable font stops the shot here, with the key that is wrong: the
 * text's own problems name "text", the font's "font" (pw_text_outline_create's codes). */
static pw_status parse_text(const sc_ctx *c, json_t *obj, const char *path, pw_shape *s)
{
    char at_text[SC_PATH], at_font[SC_PATH], font[1024];
    sc_join(at_text, path, "text");
    sc_join(at_font, path, "font");
    sc_range len = {0, INFINITY, 1, 1, "the height of the capitals [m]"};
    pw_status rc;
    if ((rc = sc_string(c, obj, path, "text", NULL, s->text, sizeof s->text)) != PW_OK ||
        (rc = sc_string(c, obj, path, "font", PW_TEXT_DEFAULT_FONT, font, sizeof font)) != PW_OK)
        return rc;
    if (!s->text[0]) return sc_fail(c, at_text, "empty: a text shape needs a visible character");
    if (!strcmp(font, PW_TEXT_DEFAULT_FONT) && access(font, R_OK) != 0)
        return sc_fail(c, at_font, "the default font '%s' is missing (apt-get install "
                                   "fonts-dejavu-core, or name a font file)", font);
    if ((rc = sc_asset_path(c, at_font, font, s->path, sizeof s->path)) != PW_OK ||
        (rc = sc_number(c, obj, path, "height", 1, 0, len, &s->text_height)) != PW_OK)
        return rc;
    len.what = "the depth [m]";
    if ((rc = sc_number(c, obj, path, "depth", 1, 0, len, &s->text_depth)) != PW_OK) return rc;
    pw_mesh mesh;
    pw_error e = {0};
    rc = pw_shape_mesh(s, &mesh, &e);
    if (rc == PW_OK) {
        pw_mesh_free(&mesh);
        return PW_OK;
    }
    int font_fault = rc == PW_ENOENT || rc == PW_EIO || rc == PW_EFORMAT || rc == PW_EUNSUPPORTED;
    return sc_fail(c, font_fault ? at_font : rc == PW_EINVAL ? at_text : path, "%s", e.msg);
}

/* "sequence": {"first", "last", "step", "fps", "start", "made_by"}: the mesh is the OBJ
 * files whose numbers fill the one run of '#' in "path" (pw_mesh_seq.h). Every file must
 * exist now, and a missing one names the command that makes the files ("made_by"); their
 * contents are checked when the collider or surface is built, before any work. */
static pw_status parse_sequence(const sc_ctx *c, json_t *obj, const char *path, const char *rel,
                                pw_shape *s)
{
    json_t *seq;
    char at[SC_PATH], at_path[SC_PATH];
    sc_join(at, path, "sequence");
    sc_join(at_path, path, "path");
    long long first, last, step;
    char made_by[256];
    const sc_range rate = {0, 1e6, 1, 0, "the animation's frame rate [1/s]"};
    pw_status rc = sc_get_object(c, obj, path, "sequence", 1, &seq);
    if (rc != PW_OK || (rc = sc_check_keys(c, seq, at, keys_sequence)) != PW_OK ||
        (rc = sc_int(c, seq, at, "first", 1, 0, 0, 100000000, "the first file's number",
                     &first)) != PW_OK ||
        (rc = sc_int(c, seq, at, "last", 1, 0, first, 100000000, "the last file's number "
                     "(>= first)", &last)) != PW_OK ||
        (rc = sc_int(c, seq, at, "step", 0, 1, 1, 100000, "the numbers between files",
                     &step)) != PW_OK ||
        (rc = sc_number(c, seq, at, "fps", 0, c->fps > 0 ? c->fps : 24, rate, &s->seq_fps)) ||
        (rc = sc_number(c, seq, at, "start", 0, 0, sc_any, &s->seq_start)) != PW_OK ||
        (rc = sc_string(c, seq, at, "made_by", "", made_by, sizeof made_by)) != PW_OK)
        return rc;
    /* how the files are made is not what they hold: out of the canonical text (sim_hash) */
    json_object_del(seq, "made_by");
    size_t run_at, run_len;
    if (pw_frame_pattern_runs(rel, &run_at, &run_len) != 1)
        return sc_fail(c, at_path, "\"%.200s\": a mesh sequence's path needs exactly one run "
                                   "of '#' for the file number", rel);
    s->seq_first = (int)first;
    s->seq_last = (int)last;
    s->seq_step = (int)step;
    if ((rc = sc_scene_relative(c, at_path, rel, s->path, sizeof s->path)) != PW_OK) return rc;
    /* every file there and readable, so a gap stops the shot now */
    for (long long k = first; k <= last; k += step) {
        char file[sizeof s->path];
        pw_error e = {0};
        if (pw_frame_path(s->path, (int)k, file, sizeof file, &e) != PW_OK)
            return sc_fail(c, at_path, "%s", e.msg);
        struct stat st;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) || access(file, R_OK) != 0) {
            if (made_by[0])
                return sc_fail(c, at_path, "file %lld of the sequence %lld..%lld: cannot open "
                                           "'%s': the files are made by `%s`",
                               k, first, last, file, made_by);
            return sc_fail(c, at_path, "file %lld of the sequence %lld..%lld: cannot open '%s'",
                           k, first, last, file);
        }
    }
    return PW_OK;
}

/* The kind-specific sizes. */
static pw_status parse_size(const sc_ctx *c, json_t *obj, const char *path, pw_shape *s)
{
    pw_status rc = PW_OK;
    sc_range len = {0, INFINITY, 1, 1, "a length [m]"};
    switch (s->kind) {
    case PW_SHAPE_HALFSPACE:
        return sc_direction(c, obj, path, "normal", 0, v3(0, 1, 0), &s->normal);
    case PW_SHAPE_SPHERE:
        len.what = "the radius [m]";
        return sc_number(c, obj, path, "radius", 1, 0, len, &s->radius);
    case PW_SHAPE_CYLINDER: {
        double height;
        len.what = "the radius [m]";
        if ((rc = sc_number(c, obj, path, "radius", 1, 0, len, &s->radius)) != PW_OK) return rc;
        len.what = "the height [m]";
        if ((rc = sc_number(c, obj, path, "height", 1, 0, len, &height)) != PW_OK) return rc;
        s->half_height = 0.5 * height;
        return PW_OK;
    }
    case PW_SHAPE_BOX: {
        json_t *size = json_object_get(obj, "size");
        json_t *half = json_object_get(obj, "half_extents");
        if (size && half)
            return sc_fail(c, path, "give either 'half_extents' or 'size' (full extents), "
                                    "not both");
        if (!size && !half)
            return sc_fail(c, path, "a box needs 'half_extents' or 'size' (full extents) [m]");
        vec3 e;
        len.what = size ? "a full extent [m]" : "a half extent [m]";
        rc = sc_vec3(c, obj, path, size ? "size" : "half_extents", 1, v3_zero(), len, &e);
        if (rc != PW_OK) return rc;
        s->half_extents = size ? v3_scale(e, 0.5) : e;
        /* One spelling in the canonical dump, so both give the same sim_hash. */
        if (size) {
            json_object_del(obj, "size");
            json_object_set_new(obj, "half_extents",
                                json_pack("[fff]", s->half_extents.x, s->half_extents.y,
                                          s->half_extents.z));
        }
        return PW_OK;
    }
    case PW_SHAPE_MESH: {
        char rel[1024];
        char at[SC_PATH];
        sc_join(at, path, "path");
        len.what = "the mesh scale [-]";
        sc_range thick = {0, INFINITY, 0, 1, "the shell's thickness [m]"};
        if ((rc = sc_string(c, obj, path, "path", NULL, rel, sizeof rel)) != PW_OK ||
            (rc = sc_number(c, obj, path, "scale", 0, 1, len, &s->scale)) != PW_OK ||
            (rc = sc_number(c, obj, path, "thickness", 0, 0, thick, &s->thickness)) != PW_OK)
            return rc;
        if (json_object_get(obj, "sequence")) return parse_sequence(c, obj, path, rel, s);
        return sc_asset_path(c, at, rel, s->path, sizeof s->path);
    }
    case PW_SHAPE_TEXT: return parse_text(c, obj, path, s);
    }
    return sc_fail(c, path, "unhandled shape kind %d", (int)s->kind);
}

pw_status sc_shape(const sc_ctx *c, json_t *obj, const char *path, int flags, pw_shape *out)
{
    if (!json_is_object(obj))
        return sc_fail(c, path, "expected a shape object, got %s", sc_type_name(obj));
    int kind;
    pw_status rc = sc_enum(c, obj, path, "type", -1, kinds, &kind);
    if (rc != PW_OK) return rc;
    if ((rc = sc_check_keys(c, obj, path, keys_of[kind])) != PW_OK) return rc;
    pw_shape_init(out, kind_of[kind]);
    /* before the sequence's files are looked for: they are not the problem */
    static const char *const not_for_bodies[][2] = {
        {"sequence", "snow bodies are seeded at t = 0 from one mesh: a mesh sequence is for "
                     "colliders and surfaces"},
        {"thickness", "a snow body fills a closed mesh: 'thickness' is for colliders"}};
    for (int k = 0; k < 2 && (flags & SC_SHAPE_NO_MOTION); k++)
        if (json_object_get(obj, not_for_bodies[k][0])) {
            char at[SC_PATH];
            sc_join(at, path, not_for_bodies[k][0]);
            return sc_fail(c, at, "%s", not_for_bodies[k][1]);
        }
    if (kind_of[kind] == PW_SHAPE_HALFSPACE && (flags & SC_SHAPE_NO_HALFSPACE)) {
        char at[SC_PATH];
        sc_join(at, path, "type");
        return sc_fail(c, at, "a half-space is unbounded and cannot be filled with snow "
                              "(use it in 'subtract')");
    }
    if ((rc = sc_vec3(c, obj, path, "center", 0, v3_zero(), sc_any, &out->center)) != PW_OK ||
        (rc = parse_size(c, obj, path, out)) != PW_OK ||
        (rc = parse_rotation(c, obj, path, out)) != PW_OK ||
        (rc = parse_motion(c, obj, path, flags, out)) != PW_OK)
        return rc;
    return PW_OK;
}
