/* body.c — the body both characters share: its parts and how its bones are posed.
 *
 * A 1.70 m adult, segment lengths after Winter, Biomechanics and Motor Control of
 * Human Movement, fig. 4.1 (thigh 0.245 H, shank 0.246 H, foot 0.152 H long and
 * 0.055 H wide, ankle 0.039 H high, hip 0.53 H). Every part is rigid on its bone;
 * the bones of a leg or an arm lie in the sagittal plane of their side. */
#include "character.h"

#include <math.h>

static const double thigh_len = 0.42, shin_len = 0.42;   /* [m] */
static const double hip_half_width = 0.09;               /* hip joint from the midline [m] */
static const double shoulder_half_width = 0.20, shoulder_above_hip = 0.52; /* [m] */
static const double neck_above_hip = 0.54, head_above_hip = 0.72;         /* [m] */
static const double upper_arm_len = 0.29, forearm_len = 0.26, hand_len = 0.12; /* [m] */
/* the knee may straighten to this fraction of the leg's full length, no further */
static const double max_reach = 0.995;

const double body_foot_r = 0.025, body_toe_r = 0.02;                  /* [m] */
const dvec3 body_heel_c = {0.025, 0.025, 0};
const dvec3 body_ball_j = {0.185, 0.025, 0}; /* metatarsophalangeal joint */
const dvec3 body_toe_c = {0.24, 0.02, 0};
const dvec3 body_ankle_f = {0.06, 0.085, 0};
const double body_hip_height = 0.895;

static dvec3 v3(double x, double y, double z)
{
    dvec3 r = {x, y, z};
    return r;
}

static dvec3 rot2(dvec3 p, double a) /* about +z */
{
    return v3(p.x * cos(a) - p.y * sin(a), p.x * sin(a) + p.y * cos(a), p.z);
}

int body_build(char_mesh *m, int d)
{
    if (char_add_ellipsoid(m, "pelvis", v3(0, 0.04, 0), v3(0.12, 0.11, 0.17), d) < 0 ||
        char_add_ellipsoid(m, "torso", v3(0, 0.33, 0), v3(0.12, 0.26, 0.18), d) < 0 ||
        char_add_capsule(m, "neck", 0.14, 0.05, 0.045, d) < 0 ||
        char_add_ellipsoid(m, "head", v3(0.01, 0, 0), v3(0.095, 0.12, 0.085), d) < 0)
        return -1;
    static const char *side_name[2] = {"right", "left"};
    static const char *what[BODY_SIDE_PARTS] = {"thigh", "shin", "foot", "toes",
                                                "upper_arm", "forearm", "hand"};
    for (int side = 0; side < 2; side++) {
        char n[BODY_SIDE_PARTS][24];
        for (int p = 0; p < BODY_SIDE_PARTS; p++)
            snprintf(n[p], sizeof n[p], "%s_%s", side_name[side], what[p]);
        /* rear foot 21 cm heel to ball front, toes to 26 cm; 6.7 cm wide at the heel,
         * 9.5 cm at the ball */
        if (char_add_capsule(m, n[BODY_THIGH], thigh_len, 0.075, 0.05, d) < 0 ||
            char_add_capsule(m, n[BODY_SHIN], shin_len, 0.05, 0.035, d) < 0 ||
            char_add_rounded_box(m, n[BODY_FOOT], v3(0, 0, -0.0475), v3(0.21, 0.075, 0.0475),
                                 body_foot_r, 0.70, 1.0, d) < 0 ||
            char_add_rounded_box(m, n[BODY_TOES], v3(0.16, 0, -0.045), v3(0.26, 0.045, 0.045),
                                 body_toe_r, 1.0, 0.75, d) < 0 ||
            char_add_capsule(m, n[BODY_UPPER_ARM], upper_arm_len, 0.045, 0.035, d) < 0 ||
            char_add_capsule(m, n[BODY_FOREARM], forearm_len, 0.035, 0.028, d) < 0 ||
            char_add_capsule(m, n[BODY_HAND], hand_len, 0.03, 0.025, d) < 0)
            return -1;
    }
    return 0;
}

rigid body_turn_about(double angle, dvec3 c, dvec3 w)
{
    dvec3 rc = rot2(c, angle);
    return rigid_rot_z(angle, v3(w.x - rc.x, w.y - rc.y, 0));
}

rigid body_rear_foot(foot_state f)
{
    return body_turn_about(f.psi, body_ankle_f, v3(f.ax, f.ay, 0));
}

void body_pose_trunk(rigid *pose, dvec3 hips, double lean)
{
    rigid trunk = rigid_rot_z(-lean, hips);
    pose[BODY_PELVIS] = rigid_rot_z(0, hips);
    pose[BODY_TORSO] = trunk;
    pose[BODY_NECK] = rigid_mul(trunk, rigid_rot_z(0, v3(0, neck_above_hip, 0)));
    pose[BODY_HEAD] = rigid_mul(trunk, rigid_rot_z(0, v3(0, head_above_hip, 0)));
}

double body_pose_leg(rigid *pose, int side, dvec3 hips, foot_state f)
{
    rigid *leg = pose + BODY_SIDE0 + side * BODY_SIDE_PARTS;
    double z = side ? -hip_half_width : hip_half_width;
    dvec3 hip = v3(hips.x, hips.y, z), ankle = v3(f.ax, f.ay, z);
    /* the knee by the law of cosines, bent forward (the hip-to-ankle direction turned
     * counter-clockwise about +z) */
    double dx = ankle.x - hip.x, dy = ankle.y - hip.y, d = sqrt(dx * dx + dy * dy);
    double dc = fmin(d, max_reach * (thigh_len + shin_len));
    double cos_b = (thigh_len * thigh_len + dc * dc - shin_len * shin_len) /
                   (2 * thigh_len * dc);
    dvec3 k = rot2(v3(dx / d, dy / d, 0), acos(fmax(-1, fmin(1, cos_b))));
    dvec3 knee = v3(hip.x + thigh_len * k.x, hip.y + thigh_len * k.y, z);
    leg[BODY_THIGH] = rigid_bone(hip, knee);
    leg[BODY_SHIN] = rigid_bone(knee, ankle);
    rigid rear = body_rear_foot(f);
    rear.t.z = z;
    leg[BODY_FOOT] = rear;
    leg[BODY_TOES] = rigid_mul(rear, body_turn_about(f.bend, body_ball_j, body_ball_j));
    return d / (thigh_len + shin_len);
}

dvec3 body_pose_arm(rigid *pose, int side, dvec3 hips, double lean, double upper,
                    double fore)
{
    rigid *arm = pose + BODY_SIDE0 + side * BODY_SIDE_PARTS;
    double z = side ? -shoulder_half_width : shoulder_half_width;
    dvec3 s = rot2(v3(0, shoulder_above_hip, 0), -lean);
    dvec3 shoulder = v3(hips.x + s.x, hips.y + s.y, z);
    dvec3 elbow = v3(shoulder.x + upper_arm_len * cos(upper),
                     shoulder.y + upper_arm_len * sin(upper), z);
    dvec3 wrist = v3(elbow.x + forearm_len * cos(fore), elbow.y + forearm_len * sin(fore), z);
    arm[BODY_UPPER_ARM] = rigid_bone(shoulder, elbow);
    arm[BODY_FOREARM] = rigid_bone(elbow, wrist);
    arm[BODY_HAND] = rigid_bone(wrist, v3(wrist.x + cos(fore), wrist.y + sin(fore), z));
    return v3(wrist.x + 0.6 * hand_len * cos(fore), wrist.y + 0.6 * hand_len * sin(fore), z);
}
