/* character.h — the test characters' meshes and poses (tools/character).
 *
 * A character is a set of parts, each one closed, outward-oriented mesh (a tapered
 * capsule, an ellipsoid or a rounded box) built once in its bone's own frame and moved
 * rigidly by that bone's pose every frame. Parts overlap at the joints; a collider made
 * of them is their union. Topology never changes, so every frame file has the same
 * `f` lines and only the `v` lines move: the sequence format of the deforming mesh
 * colliders.
 *
 * Character frame: x forward, y up, z to the character's right, metres, the ground at
 * y = 0. The file's world frame is the character frame turned by the heading about +y
 * and moved by the start offset (placement). */
#ifndef POWDER_CHARACTER_H
#define POWDER_CHARACTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHAR_MAX_PARTS 32
#define CHAR_PI 3.14159265358979323846

typedef struct {
    double x, y, z;
} dvec3;

/* world = R p + t */
typedef struct {
    double R[3][3];
    dvec3 t;
} rigid;

typedef struct {
    uint32_t c[4]; /* vertex indices, 0-based, counter-clockwise seen from outside */
    int n;         /* 3 or 4 */
} char_face;

typedef struct {
    char name[24];
    size_t v0, nv;     /* its vertices: [v0, v0 + nv) of the mesh */
    size_t f0, nf;     /* its faces */
} part;

typedef struct {
    double *local;     /* 3 per vertex, in its part's bone frame [m] */
    size_t nv, cap_v;
    char_face *faces;
    size_t nf, cap_f;
    part parts[CHAR_MAX_PARTS];
    int n_parts;
} char_mesh;

/* Options shared by both kinds, as the command line gave them. */
typedef struct {
    int detail;          /* resolution level, 1.. (triangles grow as detail^2) */
    double fps;          /* [1/s] */
    double start_x, start_z; /* placement of the character's origin on the ground [m] */
    double heading_deg;  /* turn about +y; 0 walks along +x, 90 along -z [deg] */
    /* walker */
    double speed;        /* [m/s] */
    double cycle;        /* walk cycle period, two steps [s] */
    /* digger */
    double swing;        /* one pick swing, raise to raise [s] */
    double depth;        /* how far the pick's point goes below y = 0 [m] */
} char_options;

/* ---- mesh building (shapes.c) ---------------------------------------------- */

void char_mesh_free(char_mesh *m);
/* Each adds one closed part named `name`; returns its index, or -1 out of memory. */
int char_add_capsule(char_mesh *m, const char *name, double length, double r0, double r1,
                     int detail);
int char_add_ellipsoid(char_mesh *m, const char *name, dvec3 center, dvec3 radii, int detail);
/* A box [lo, hi] with every edge rounded to radius r (needs hi - lo > 2 r on each axis),
 * its z extent scaled by a factor running linearly from taper0 at x = lo.x to taper1 at
 * x = hi.x (a foot wider at the ball than at the heel). */
int char_add_rounded_box(char_mesh *m, const char *name, dvec3 lo, dvec3 hi, double r,
                         double taper0, double taper1, int detail);

/* ---- poses ----------------------------------------------------------------- */

rigid rigid_identity(void);
/* A turn by angle [rad] about +z, then a move to t: the sagittal-plane bones. */
rigid rigid_rot_z(double angle, dvec3 t);
rigid rigid_mul(rigid a_from_b, rigid b_from_c);
dvec3 rigid_apply(rigid a_from_b, dvec3 p);
/* The pose that puts a part built along +y (a capsule from 0 to its length) on the
 * segment from `from` towards `to`; both must share z (bones in a sagittal plane). */
rigid rigid_bone(dvec3 from, dvec3 to);

/* Writes one frame: the parts' vertices posed by pose[part] then by world_from_char,
 * as `o`, `v` (%.5f) and `f` lines. Returns 0, or -1 on a write error. */
int char_write_obj(FILE *f, const char_mesh *m, const rigid *pose, rigid world_from_char,
                   const char *comment);
/* Signed volume of part k at its build pose [m^3] (> 0: outward faces). */
double char_part_volume(const char_mesh *m, int k);
/* The lowest y of part k's vertices under pose [m]. */
double char_part_min_y(const char_mesh *m, int k, rigid pose);

/* A closed surface of revolution about +y from the profile (py[k], pr[k]), k = 0..n-1,
 * with pr = 0 exactly at both ends (the poles), seg segments around, x scaled by sx and
 * z by sz. */
int char_add_lathe(char_mesh *m, const char *name, const double *py, const double *pr,
                   int n, int seg, double sx, double sz);

/* ---- the body both kinds share (body.c) ---------------------------------------
 * Parts, in build order: pelvis, torso, neck, head, then per side (right, left) the
 * BODY_* parts. */
enum { BODY_PELVIS, BODY_TORSO, BODY_NECK, BODY_HEAD, BODY_SIDE0 };
enum { BODY_THIGH, BODY_SHIN, BODY_FOOT, BODY_TOES, BODY_UPPER_ARM, BODY_FOREARM,
       BODY_HAND, BODY_SIDE_PARTS };
#define BODY_PARTS (BODY_SIDE0 + 2 * BODY_SIDE_PARTS)

/* A foot in the sagittal plane: where its ankle is, how its rear part is pitched and
 * how far its toes are bent up at the ball. */
typedef struct {
    double ax, ay; /* ankle [m] */
    double psi;    /* rear foot pitch, toes up positive [rad] */
    double bend;   /* toes turned up relative to the rear foot [rad] */
} foot_state;

int body_build(char_mesh *m, int detail);
/* Trunk (pelvis at hips, torso, neck, head leaning forward by lean [rad] about the
 * hips). */
void body_pose_trunk(rigid *pose, dvec3 hips, double lean);
/* One leg (side 0 right, 1 left): thigh and shin from the hip to the foot's ankle with
 * the knee bent forward, and the foot. Returns the hip-to-ankle distance as a fraction
 * of the leg's length (the knee straightens at 0.995 of it, no further). */
double body_pose_leg(rigid *pose, int side, dvec3 hips, foot_state foot);
/* One arm from its shoulder (given the hips and lean): upper arm, forearm and hand at
 * world angles [rad] from +x toward +y (-pi/2 hangs down). Returns the palm. */
dvec3 body_pose_arm(rigid *pose, int side, dvec3 hips, double lean, double upper,
                    double fore);
/* The rigid pose of the rear foot, for a state. */
rigid body_rear_foot(foot_state f);
/* Pose that turns by angle [rad] about the foot-frame point c, which lands at w. */
rigid body_turn_about(double angle, dvec3 c, dvec3 w);

/* The foot, in its own frame: x forward from the back of the heel, y up from the sole.
 * The rear foot's edges are rounded to body_foot_r, so the heel's side profile is an
 * arc about body_heel_c and the ball's an arc about the joint body_ball_j; the toes'
 * tip is an arc of radius body_toe_r about body_toe_c. */
extern const double body_foot_r, body_toe_r;
extern const dvec3 body_heel_c, body_ball_j, body_toe_c, body_ankle_f;
extern const double body_hip_height; /* standing, knees nearly straight [m] */

/* ---- the kinds -------------------------------------------------------------- */

/* Builds the parts; returns 0, or -1 out of memory. */
int walker_build(char_mesh *m, const char_options *o);
/* Checks the walk options against the leg's reach; returns 0, or 2 with a one-line
 * message in msg. */
int walker_check(const char_options *o, char *msg, size_t msg_size);
/* The parts' poses in the character frame at time t [s]. */
void walker_pose(const char_mesh *m, const char_options *o, double t, rigid *pose);

int digger_build(char_mesh *m, const char_options *o);
int digger_check(const char_options *o, char *msg, size_t msg_size);
void digger_pose(const char_mesh *m, const char_options *o, double t, rigid *pose);

#endif
