/* walker.c — a biped walking along +x: feet planted by rolling contact, legs by
 * two-bone inverse kinematics; see character.h and tools/character/README.md.
 *
 * The feet lead. In stance a foot rolls on the ground without slipping, in the three
 * rockers of gait analysis (Perry & Burnfield, Gait Analysis, ch. 4): the heel rocker
 * (heel strike, the foot turning down about its rounded heel), the ankle rocker (foot
 * flat, still) and the forefoot rocker (the heel rising, the rear foot turning about
 * the ball while the toes stay flat), ending with the toes rolling over their tip to
 * toe-off. In swing the foot's state (ankle position, pitch, toe bend) follows a cubic
 * Hermite curve from its toe-off value and velocity to the next heel strike's, lifted
 * by a bump. The hips move at the requested speed, bobbing a little; each knee is
 * placed by the law of cosines so that thigh and shin reach from hip to ankle, bent
 * forward. Every part is rigid on its bone. */
#include "character.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG (CHAR_PI / 180)

/* ---- the walk cycle, in fractions u of the cycle from this leg's heel strike
 * (Perry & Burnfield: loading response to 10 %, heel rise ~ 31-40 %, opposite heel
 * strike 50 %, toe-off ~ 60-62 %) ------------------------------------------------- */

static const double u_foot_flat = 0.08, u_heel_off = 0.38, u_toe_roll = 0.50,
                    u_toe_off = 0.62;
static const double heel_strike_pitch = 20 * DEG; /* toes up at heel strike */
static const double ball_bend_at_toe_off = 35 * DEG, toe_roll_at_toe_off = 20 * DEG;
static const double u_mid_stance = 0.25;  /* the ankle passes under the hip */
static const double hip_bob = 0.025; /* [m] */
static const double swing_lift = 0.03;    /* extra ankle lift in swing [m] */
static const double arm_swing = 20 * DEG;
/* the legs may straighten to this fraction of their length, no further (body.c) */
static const double max_reach = 0.995;

/* ---- helpers ------------------------------------------------------------------ */

static dvec3 v3(double x, double y, double z)
{
    dvec3 r = {x, y, z};
    return r;
}

static double stride_of(const char_options *o) { return o->speed * o->cycle; }

/* Heel-back position of the flat foot, relative to the hips at this leg's heel strike:
 * the ankle then passes under the hip at u_mid_stance. */
static double foot_lead(const char_options *o)
{
    return u_mid_stance * stride_of(o) - body_ankle_f.x;
}

static foot_state state_from_rear(rigid rear, double bend)
{
    dvec3 a = rigid_apply(rear, body_ankle_f);
    foot_state s = {a.x, a.y, atan2(rear.R[1][0], rear.R[0][0]), bend};
    return s;
}

/* The foot in stance at u in [0, u_toe_off], its flat heel-back at x0. */
static foot_state stance_state(double u, double x0)
{
    if (u < u_foot_flat) { /* heel rocker: rolls on the heel arc toward flat */
        double s = u / u_foot_flat;
        double psi = heel_strike_pitch * (1 - s) * (1 - s);
        dvec3 w = v3(x0 + body_heel_c.x - body_foot_r * psi, body_foot_r, 0);
        return state_from_rear(body_turn_about(psi, body_heel_c, w), 0);
    }
    if (u < u_heel_off) /* ankle rocker: flat and still */
        return state_from_rear(rigid_rot_z(0, v3(x0, 0, 0)), 0);
    /* forefoot rocker: the heel rises about the ball, then the toes roll on their tip */
    double s = (u - u_heel_off) / (u_toe_off - u_heel_off);
    double bend = ball_bend_at_toe_off * s * s;
    double roll = 0;
    if (u > u_toe_roll) {
        double r = (u - u_toe_roll) / (u_toe_off - u_toe_roll);
        roll = toe_roll_at_toe_off * r * r;
    }
    dvec3 tip = v3(x0 + body_toe_c.x + body_toe_r * roll, body_toe_r, 0); /* rolled on */
    rigid toes = body_turn_about(-roll, body_toe_c, tip);
    rigid rear_in_toes = body_turn_about(-bend, body_ball_j, body_ball_j);
    return state_from_rear(rigid_mul(toes, rear_in_toes), bend);
}

static foot_state state_lerp4(const foot_state *p, const double *w)
{
    foot_state r = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        r.ax += w[i] * p[i].ax, r.ay += w[i] * p[i].ay;
        r.psi += w[i] * p[i].psi, r.bend += w[i] * p[i].bend;
    }
    return r;
}

/* The foot at cycle coordinate c of this leg (heel strike at integers). */
static foot_state foot_at(const char_options *o, double c, double leg_offset)
{
    double k = floor(c), u = c - k, stride = stride_of(o);
    double x0 = stride * (k - leg_offset) + foot_lead(o);
    if (u <= u_toe_off) return stance_state(u, x0);
    /* swing: cubic Hermite in u between toe-off and the next heel strike, with the
     * stance's own velocities at both ends (one-sided differences), so the foot's
     * path is C1 through both contacts */
    const double du = 1e-6, D = 1 - u_toe_off;
    foot_state p0 = stance_state(u_toe_off, x0);
    foot_state pm = stance_state(u_toe_off - du, x0);
    foot_state p1 = stance_state(0, x0 + stride);
    foot_state pp = stance_state(du, x0 + stride);
    foot_state v0 = {(p0.ax - pm.ax) / du * D, (p0.ay - pm.ay) / du * D,
                     (p0.psi - pm.psi) / du * D, (p0.bend - pm.bend) / du * D};
    foot_state v1 = {(pp.ax - p1.ax) / du * D, (pp.ay - p1.ay) / du * D,
                     (pp.psi - p1.psi) / du * D, (pp.bend - p1.bend) / du * D};
    double s = (u - u_toe_off) / D;
    foot_state pts[4] = {p0, v0, p1, v1};
    double w[4] = {2 * s * s * s - 3 * s * s + 1, s * s * s - 2 * s * s + s,
                   -2 * s * s * s + 3 * s * s, s * s * s - s * s};
    foot_state f = state_lerp4(pts, w);
    /* s^2 (1-s)^3 peaks at s = 0.4 with value 0.03456, flat at both ends */
    f.ay += swing_lift * s * s * (1 - s) * (1 - s) * (1 - s) / 0.03456;
    return f;
}

static dvec3 hips_at(const char_options *o, double c)
{
    return v3(stride_of(o) * c, body_hip_height + hip_bob * cos(4 * CHAR_PI * (c - u_mid_stance)),
              0);
}

/* ---- public ---------------------------------------------------------------------- */

int walker_build(char_mesh *m, const char_options *o) { return body_build(m, o->detail); }

/* Poses the legs at cycle coordinate c; returns the larger leg reach. */
static double pose_legs(rigid *pose, const char_options *o, double c)
{
    dvec3 hips = hips_at(o, c);
    double worst = 0;
    for (int side = 0; side < 2; side++) {
        double off = 0.5 * side;
        double reach = body_pose_leg(pose, side, hips, foot_at(o, c + off, off));
        if (reach > worst) worst = reach;
    }
    return worst;
}

int walker_check(const char_options *o, char *msg, size_t msg_size)
{
    if (!(o->speed > 0 && o->speed <= 2.5)) {
        snprintf(msg, msg_size, "--speed: %g m/s is not a walk (0 < speed <= 2.5)", o->speed);
        return 2;
    }
    if (!(o->cycle >= 0.6 && o->cycle <= 2.5)) {
        snprintf(msg, msg_size, "--cycle: %g s is not a walk cycle (0.6 to 2.5 s)", o->cycle);
        return 2;
    }
    /* the leg's reach over one cycle, finely sampled */
    rigid pose[BODY_PARTS];
    double reach = 0;
    for (int i = 0; i < 2000; i++) reach = fmax(reach, pose_legs(pose, o, i / 2000.0));
    if (reach > max_reach) {
        snprintf(msg, msg_size,
                 "--speed %g with --cycle %g: a stride of %.3f m needs the legs at %.3f of "
                 "their length (at most %.3f); walk slower or with a shorter cycle",
                 o->speed, o->cycle, stride_of(o), reach, max_reach);
        return 2;
    }
    return 0;
}

void walker_pose(const char_mesh *m, const char_options *o, double t, rigid *pose)
{
    (void)m;
    double c = t / o->cycle;
    dvec3 hips = hips_at(o, c);
    body_pose_trunk(pose, hips, 0);
    pose_legs(pose, o, c);
    for (int side = 0; side < 2; side++) {
        /* arms swing against the legs: this arm is furthest forward at the other
         * leg's heel strike, the elbow bending more as it comes forward */
        double swing = -arm_swing * cos(2 * CHAR_PI * (c + 0.5 * side));
        double elbow = (10 + 15 * (0.5 + 0.5 * swing / arm_swing)) * DEG;
        double upper = -CHAR_PI / 2 + swing;
        body_pose_arm(pose, side, hips, 0, upper, upper + elbow);
    }
}
