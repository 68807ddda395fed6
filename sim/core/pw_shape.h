/* pw_shape.h — solid shapes and rigid keyframed motion, shared by the solver (seeding,
 * level-set colliders) and the renderer (Embree surfaces), so a collider and the
 * surface drawn for it are the same object at the same time.
 *
 * A shape is given in its own local frame and placed in the world by a rigid motion:
 * world_from_local(t) = translate(T(t)) * rotate(R(t)). A shape with no keyframes is
 * static at the identity. All lengths [m], times [s], angles [rad]. Y is up. */
#ifndef PW_SHAPE_H
#define PW_SHAPE_H

#include "pw_error.h"
#include "pw_math.h"
#include "pw_obj.h"
#include "pw_text.h"

typedef enum {
    PW_SHAPE_HALFSPACE = 1, /* solid below the plane through `center` with normal `normal` */
    PW_SHAPE_SPHERE,        /* centre `center`, radius `radius`                            */
    PW_SHAPE_BOX,           /* centre `center`, half sizes `half_extents`                  */
    PW_SHAPE_CYLINDER,      /* centre `center`, axis local +Y, `radius`, `half_height`    */
    PW_SHAPE_MESH,          /* closed triangle mesh from the OBJ at `path`, placed by
                               `center` (translation) and `scale`                       */
    PW_SHAPE_TEXT           /* `text` in the font at `path`, capitals `text_height` tall,
                               extruded `text_depth` along local z (pw_text.h), its
                               middle at `center`; a mesh to everything downstream     */
} pw_shape_kind;

/* One key of a rigid motion: at time t the local frame is rotated by `angle` about
 * `axis` (through the local origin) and then translated by `translation`. */
typedef struct {
    double t;            /* [s] */
    vec3 translation;    /* [m] */
    vec3 axis;           /* unit rotation axis */
    double angle;        /* [rad] */
} pw_keyframe;

#define PW_SHAPE_MAX_KEYS 64

typedef struct {
    pw_shape_kind kind;
    vec3 center;         /* [m] local position of the shape (sphere/box/cylinder centre,
                            a point on the half-space's plane, or the mesh offset) */
    vec3 normal;         /* half-space outward normal (unit) */
    double radius;       /* [m] sphere and cylinder */
    double half_height;  /* [m] cylinder */
    vec3 half_extents;   /* [m] box */
    vec3 rotation_axis;  /* static orientation of the shape in its local frame */
    double rotation_angle; /* [rad] */
    double scale;        /* mesh scale factor [-] (1 = OBJ units are metres; 1 for text) */
    char path[1024];     /* mesh OBJ path, resolved relative to the scene file; for text
                            the font file */
    char text[PW_TEXT_MAX_BYTES]; /* text: one line of UTF-8 */
    double text_height;  /* [m] text: height of the capitals */
    double text_depth;   /* [m] text: extrusion along local z */
    /* A mesh given as a sequence of OBJ files, one per animation frame (pw_mesh_seq.h):
     * `path` holds one run of '#', replaced by the file number; file k (number
     * seq_first + k seq_step, up to seq_last) is the mesh at t = seq_start + k seq_step /
     * seq_fps. seq_step = 0: one OBJ, no sequence. */
    int seq_first, seq_last, seq_step;
    double seq_fps;      /* [1/s] the animation's frame rate */
    double seq_start;    /* [s] time of the first file */
    /* [m] > 0: the mesh is a shell this thick (open meshes, a character's body): a
     * collider whose solid is every point within thickness / 2 of a triangle. 0: the
     * mesh must be closed, and its inside is solid. */
    double thickness;
    int n_keys;          /* 0 = static */
    pw_keyframe keys[PW_SHAPE_MAX_KEYS]; /* sorted by t; linear in translation,
                                            slerp in rotation; held before/after */
} pw_shape;

/* Fills a shape with neutral defaults (no rotation, scale 1, no keys). */
void pw_shape_init(pw_shape *s, pw_shape_kind kind);

/* The rigid motion at time t: world = rotation * local + translation. */
void pw_shape_motion(const pw_shape *s, double t, mat3 *rotation, vec3 *translation);

/* Velocity [m/s] at world point x of the rigidly moving shape at time t
 * (v_co of Stomakhin et al. 2013, section 8), from the keyframe motion. */
vec3 pw_shape_velocity(const pw_shape *s, double t, vec3 x);

/* 1 for the kinds given by triangles (an OBJ mesh, text), which seeding, colliders and
 * surfaces take through pw_shape_mesh, 0 for the analytic kinds. */
static inline int pw_shape_is_mesh(const pw_shape *s)
{
    return s->kind == PW_SHAPE_MESH || s->kind == PW_SHAPE_TEXT;
}

/* 1 for a mesh whose shape changes over time (an OBJ sequence). */
static inline int pw_shape_is_sequence(const pw_shape *s)
{
    return s->kind == PW_SHAPE_MESH && s->seq_step > 0;
}

/* The triangles of a mesh or text shape in its body frame, before `scale` (the OBJ as
 * read, an OBJ sequence's first file; the text's outlines extruded, flattened within PW_TEXT_TOLERANCE of its
 * height). On success *out is the caller's (pw_mesh_free). Errors name the OBJ file or
 * the font (pw_obj_read, pw_text_outline_create). Thread safe. */
pw_status pw_shape_mesh(const pw_shape *s, pw_mesh *out, pw_error *err);

/* Same at time t [s]: an OBJ sequence's mesh where its animation has it (the files
 * around t, pw_mesh_seq.h), any other shape's pw_shape_mesh. */
pw_status pw_shape_mesh_at(const pw_shape *s, double t, pw_mesh *out, pw_error *err);

/* A short name of the shape's asset for messages: the OBJ path, or the text in quotes. */
void pw_shape_mesh_name(const pw_shape *s, char *out, size_t cap);

/* Signed distance [m] (negative inside) and outward unit normal at world point x, at
 * time t, for the analytic kinds (half-space, sphere, box, cylinder). Meshes and text
 * are handled by sim/collide.c through a signed-distance grid; calling this on them
 * returns +INFINITY. `normal` may be NULL. */
double pw_shape_sdf(const pw_shape *s, double t, vec3 x, vec3 *normal);

/* Where the shape is at one time: world = world_from_body body + origin. Loops that ask
 * many points at one time form it once (pw_shape_pose_at) and ask pw_shape_sdf_posed,
 * which gives the bits pw_shape_sdf gives. */
typedef struct {
    mat3 world_from_body;
    vec3 origin;      /* [m] world position of the body origin */
    vec3 body_normal; /* unit normal of a half-space, in the body frame */
} pw_shape_pose;
void pw_shape_pose_at(const pw_shape *s, double t, pw_shape_pose *pose);
/* The body-frame point of world point x. */
static inline vec3 pw_shape_pose_to_body(const pw_shape_pose *pose, vec3 x)
{
    /* world_from_body^T d, summed as m3_mulv sums, without forming the transpose (its
     * copy on the stack was reloaded across two stores, a forwarding stall) */
    const double(*w)[3] = pose->world_from_body.m;
    vec3 d = v3_sub(x, pose->origin);
    return v3(w[0][0] * d.x + w[1][0] * d.y + w[2][0] * d.z,
              w[0][1] * d.x + w[1][1] * d.y + w[2][1] * d.z,
              w[0][2] * d.x + w[1][2] * d.y + w[2][2] * d.z);
}
/* x by address: a 24-byte vec3 passed by value goes through the stack, and the callee's
 * 16-byte reload of the caller's 8-byte stores cannot be forwarded, and the collisions
 * waited on such stalls (sim/docs/step-speed.md, third round). */
double pw_shape_sdf_posed(const pw_shape *s, const pw_shape_pose *pose, const vec3 *x,
                          vec3 *normal);

#endif
