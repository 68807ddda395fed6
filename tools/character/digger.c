/* digger.c — a figure standing still, swinging a pick into the ground in front of it
 * with its right arm; see character.h and tools/character/README.md.
 *
 * Each swing passes through three poses of the arm-and-pick chain (world angles in the
 * sagittal plane of the right shoulder): raised overhead with the pick hanging behind
 * (top), struck with the point `depth` below y = 0 (bottom), and levered out (pulled).
 * The strike accelerates all the way down (the angles go as s^2 of the strike's time
 * fraction s), the pick then stays in the ground for a moment, is levered out and
 * raised again. The bottom pose is solved for each swing: the trunk leans forward by
 * an amount that changes from swing to swing (so successive cuts land at different
 * distances, as a real digger's do), and the shoulder angle is found by bisection so
 * that the point lands exactly at y = -depth. */
#include "character.h"

#include <math.h>
#include <stdio.h>

#define DEG (CHAR_PI / 180)

enum { PICK_HANDLE = BODY_PARTS, PICK_HEAD, DIGGER_PARTS };

static const double hip_height = 0.87;                 /* knees a little bent [m] */
static const double right_heel_x = -0.20, left_heel_x = -0.02; /* feet planted [m] */
static const double handle_len = 0.91, grip_from_end = 0.06; /* 36 in haft [m] */
static const double head_half_len = 0.30;              /* eye to point [m] */
/* fractions of a swing: strike ends, hold ends, lever-out ends; then the raise */
static const double w_strike = 0.30, w_hold = 0.45, w_pulled = 0.60;

/* one pose of the swing: trunk lean and the chain's world angles [rad] */
typedef struct {
    double lean, upper, fore, handle;
} swing_key;

static dvec3 v3(double x, double y, double z)
{
    dvec3 r = {x, y, z};
    return r;
}

static dvec3 hips(void) { return v3(0, hip_height, 0); }

static swing_key key_top(void)
{
    swing_key k = {0, 110 * DEG, 150 * DEG, 200 * DEG};
    return k;
}

static swing_key key_from_shoulder(double lean, double sigma)
{
    swing_key k = {lean, sigma, sigma + 15 * DEG, sigma + 35 * DEG};
    return k;
}

static double lean_of_swing(long k) { return (30 - 6 * (double)(k % 3)) * DEG; }

/* Poses arm and pick for a key; returns the pick's point. */
static dvec3 pose_chain(rigid *pose, swing_key key)
{
    rigid scratch[DIGGER_PARTS];
    if (!pose) pose = scratch;
    dvec3 palm = body_pose_arm(pose, 0, hips(), key.lean, key.upper, key.fore);
    dvec3 h = v3(cos(key.handle), sin(key.handle), 0);
    dvec3 end0 = v3(palm.x - grip_from_end * h.x, palm.y - grip_from_end * h.y, palm.z);
    double reach = handle_len - grip_from_end;
    dvec3 eye = v3(palm.x + reach * h.x, palm.y + reach * h.y, palm.z);
    /* the point hangs at right angles to the haft, on the side toward the digger */
    dvec3 point = v3(eye.x + head_half_len * h.y, eye.y - head_half_len * h.x, palm.z);
    pose[PICK_HANDLE] = rigid_bone(end0, eye);
    pose[PICK_HEAD] = rigid_bone(point, eye);
    return point;
}

/* The bottom pose of swing k: the shoulder angle that puts the point at -depth, by
 * bisection where the point's height rises with the angle. Returns -1 if the point
 * cannot reach that deep. */
static int key_bottom(const char_options *o, long k, swing_key *out)
{
    double lean = lean_of_swing(k);
    rigid pose[DIGGER_PARTS];
    body_pose_arm(pose, 0, hips(), lean, 0, 0);
    dvec3 shoulder = rigid_apply(pose[BODY_SIDE0 + BODY_UPPER_ARM], v3(0, 0, 0));
    dvec3 p0 = pose_chain(NULL, key_from_shoulder(lean, 0));
    /* the chain turns rigidly about the shoulder with sigma: lowest when shoulder to
     * point hangs straight down */
    double lowest = -CHAR_PI / 2 - atan2(p0.y - shoulder.y, p0.x - shoulder.x);
    double lo = lowest, hi = lowest + CHAR_PI / 2;
    if (pose_chain(NULL, key_from_shoulder(lean, lo)).y > -o->depth) return -1;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (pose_chain(NULL, key_from_shoulder(lean, mid)).y > -o->depth)
            hi = mid;
        else
            lo = mid;
    }
    *out = key_from_shoulder(lean, 0.5 * (lo + hi));
    return 0;
}

static swing_key key_pulled(swing_key bottom)
{
    swing_key k = {0.7 * bottom.lean, bottom.upper + 25 * DEG, bottom.upper + 45 * DEG,
                   bottom.upper + 75 * DEG};
    return k;
}

static swing_key key_lerp(swing_key a, swing_key b, double s)
{
    swing_key k = {a.lean + (b.lean - a.lean) * s, a.upper + (b.upper - a.upper) * s,
                   a.fore + (b.fore - a.fore) * s, a.handle + (b.handle - a.handle) * s};
    return k;
}

static double smooth(double s) { return s * s * (3 - 2 * s); }

/* ---- public ---------------------------------------------------------------------- */

int digger_build(char_mesh *m, const char_options *o)
{
    int d = o->detail;
    if (body_build(m, d) < 0) return -1;
    /* the pick's head from its point (y = 0) to its chisel end, eye at head_half_len */
    static const double key_y[] = {0, 0.01, 0.06, 0.15, 0.26, 0.30, 0.34, 0.45, 0.56,
                                   0.585, 0.60};
    static const double key_r[] = {0, 0.004, 0.011, 0.017, 0.024, 0.026, 0.024, 0.018,
                                   0.013, 0.010, 0};
    enum { KEYS = sizeof key_y / sizeof key_y[0] };
    double py[128], pr[128]; /* 10 d + 1 points, d <= 8 */
    int n = 0;
    for (int i = 0; i + 1 < KEYS; i++)
        for (int j = 0; j < d; j++) {
            double s = (double)j / d;
            py[n] = key_y[i] + (key_y[i + 1] - key_y[i]) * s;
            pr[n++] = key_r[i] + (key_r[i + 1] - key_r[i]) * s;
        }
    py[n] = key_y[KEYS - 1], pr[n++] = 0;
    if (char_add_capsule(m, "pick_handle", handle_len, 0.017, 0.022, d) < 0 ||
        char_add_lathe(m, "pick_head", py, pr, n, 6 * d + 2, 1, 1) < 0)
        return -1;
    return 0;
}

int digger_check(const char_options *o, char *msg, size_t msg_size)
{
    if (!(o->swing >= 0.4 && o->swing <= 10)) {
        snprintf(msg, msg_size, "--swing: %g s is not a pick swing (0.4 to 10 s)", o->swing);
        return 2;
    }
    if (!(o->depth >= 0 && o->depth <= 0.3)) {
        snprintf(msg, msg_size, "--depth: %g m is out of range (0 to 0.3)", o->depth);
        return 2;
    }
    for (long k = 0; k < 3; k++) {
        swing_key b;
        if (key_bottom(o, k, &b)) {
            snprintf(msg, msg_size, "--depth: the pick cannot reach %g m below the ground",
                     o->depth);
            return 2;
        }
    }
    return 0;
}

void digger_pose(const char_mesh *m, const char_options *o, double t, rigid *pose)
{
    (void)m;
    double c = t / o->swing;
    long k = (long)floor(c);
    double w = c - (double)k;
    swing_key top = key_top(), bottom, key;
    if (key_bottom(o, k < 0 ? 0 : k, &bottom)) bottom = top; /* refused by digger_check */
    swing_key pulled = key_pulled(bottom);
    if (w < w_strike)
        key = key_lerp(top, bottom, (w / w_strike) * (w / w_strike));
    else if (w < w_hold)
        key = bottom;
    else if (w < w_pulled)
        key = key_lerp(bottom, pulled, smooth((w - w_hold) / (w_pulled - w_hold)));
    else
        key = key_lerp(pulled, top, smooth((w - w_pulled) / (1 - w_pulled)));
    body_pose_trunk(pose, hips(), key.lean);
    foot_state right = {right_heel_x + body_ankle_f.x, body_ankle_f.y, 0, 0};
    foot_state left = {left_heel_x + body_ankle_f.x, body_ankle_f.y, 0, 0};
    body_pose_leg(pose, 0, hips(), right);
    body_pose_leg(pose, 1, hips(), left);
    pose_chain(pose, key);
    /* the free arm hangs, a little forward */
    body_pose_arm(pose, 1, hips(), key.lean, -85 * DEG, -70 * DEG);
}
