/* shape.c — analytic solid shapes and their keyframed rigid motion (pw_shape.h).
 *
 * Frames: a shape's body frame has the shape centred at its origin (box, sphere,
 * cylinder; a point of the half-space's plane; the mesh's OBJ origin scaled by
 * `scale`; the text's middle, pw_text.h). local = center + R_static body,
 * world = R(t) local + T(t). */
#include <stdio.h>
#include <string.h>

#include "pw_shape.h"

/* ---- quaternions (w, x, y, z), only what slerp needs ---------------------------- */

typedef struct { double w, x, y, z; } quat;

static quat quat_from_axis_angle(vec3 axis, double angle)
{
    vec3 a = v3_normalize(axis);
    double s = sin(0.5 * angle);
    quat q = {cos(0.5 * angle), a.x * s, a.y * s, a.z * s};
    return q;
}

static mat3 quat_to_mat(quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    mat3 r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
               {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
               {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    return r;
}

/* a key's rotation; a zero axis means no rotation whatever the angle */
static quat key_quat(const pw_keyframe *k)
{
    if (v3_length2(k->axis) == 0) {
        quat id = {1, 0, 0, 0};
        return id;
    }
    return quat_from_axis_angle(k->axis, k->angle);
}

/* q1 relative to q0 in the world frame, q_rel = q1 q0^-1, taking the shorter arc */
static quat quat_relative(quat q0, quat q1)
{
    quat r = {q1.w * q0.w + q1.x * q0.x + q1.y * q0.y + q1.z * q0.z,
              -q1.w * q0.x + q1.x * q0.w - q1.y * q0.z + q1.z * q0.y,
              -q1.w * q0.y + q1.x * q0.z + q1.y * q0.w - q1.z * q0.x,
              -q1.w * q0.z - q1.x * q0.y + q1.y * q0.x + q1.z * q0.w};
    if (r.w < 0) {
        r.w = -r.w;
        r.x = -r.x;
        r.y = -r.y;
        r.z = -r.z;
    }
    return r;
}

/* axis * angle of a unit quaternion with w >= 0 (angle in [0, pi]) */
static vec3 quat_rotation_vector(quat q)
{
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-300) return v3_zero();
    double angle = 2.0 * atan2(s, q.w);
    return v3_scale(v3(q.x, q.y, q.z), angle / s);
}

/* The keyframe segment containing t: keys[*i0] .. keys[*i0 + 1] with fraction *u, or
 * a held key (returns 0) before the first / after the last key. */
static int find_segment(const pw_shape *s, double t, int *i0, double *u)
{
    int n = s->n_keys;
    if (t <= s->keys[0].t) {
        *i0 = 0;
        return 0;
    }
    if (t >= s->keys[n - 1].t) {
        *i0 = n - 1;
        return 0;
    }
    int i = 0;
    while (i + 2 < n && s->keys[i + 1].t <= t) i++;
    double dt = s->keys[i + 1].t - s->keys[i].t;
    *i0 = i;
    *u = dt > 0 ? (t - s->keys[i].t) / dt : 1.0;
    return dt > 0;
}

/* ---- distance functions in the body frame ---------------------------------------- */

static double sdf_sphere(double r, vec3 p, vec3 *n)
{
    double l = v3_length(p);
    *n = l > 0 ? v3_scale(p, 1.0 / l) : v3(0, 1, 0);
    return l - r;
}

/* exact box distance; the normal is the gradient (outside) or the nearest face's */
static double sdf_box(vec3 b, vec3 p, vec3 *n)
{
    double pa[3] = {p.x, p.y, p.z}, ba[3] = {b.x, b.y, b.z}, q[3], outer[3];
    int kmax = 0;
    for (int k = 0; k < 3; k++) {
        q[k] = fabs(pa[k]) - ba[k];
        outer[k] = q[k] > 0 ? copysign(q[k], pa[k]) : 0.0;
        if (q[k] > q[kmax]) kmax = k;
    }
    double lo = sqrt(outer[0] * outer[0] + outer[1] * outer[1] + outer[2] * outer[2]);
    if (lo > 0) {
        *n = v3(outer[0] / lo, outer[1] / lo, outer[2] / lo);
        return lo;
    }
    double na[3] = {0, 0, 0};
    na[kmax] = pa[kmax] < 0 ? -1.0 : 1.0;
    *n = v3(na[0], na[1], na[2]);
    return q[kmax];
}

/* capped cylinder, axis +Y: a 2D box in (radial, axial) */
static double sdf_cylinder(double r, double hh, vec3 p, vec3 *n)
{
    double rho = hypot(p.x, p.z);
    vec3 radial = rho > 0 ? v3(p.x / rho, 0, p.z / rho) : v3(1, 0, 0);
    vec3 axial = v3(0, p.y < 0 ? -1.0 : 1.0, 0);
    double qr = rho - r, qa = fabs(p.y) - hh;
    if (qr > 0 && qa > 0) {
        double l = hypot(qr, qa);
        *n = v3_add(v3_scale(radial, qr / l), v3_scale(axial, qa / l));
        return l;
    }
    if (qr > qa) {
        *n = radial;
        return qr;
    }
    *n = axial;
    return qa;
}

static mat3 static_rotation(const pw_shape *s)
{
    if (v3_length2(s->rotation_axis) == 0 || s->rotation_angle == 0) return m3_identity();
    return m3_rotation(s->rotation_axis, s->rotation_angle);
}

/* ---- public ------------------------------------------------------------------ */

void pw_shape_init(pw_shape *s, pw_shape_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->normal = v3(0, 1, 0);
    s->rotation_axis = v3(0, 1, 0);
    s->rotation_angle = 0;
    s->scale = 1;
    s->n_keys = 0;
}

void pw_shape_motion(const pw_shape *s, double t, mat3 *rotation, vec3 *translation)
{
    if (s->n_keys <= 0) {
        *rotation = m3_identity();
        *translation = v3_zero();
        return;
    }
    int i;
    double u = 0;
    if (!find_segment(s, t, &i, &u)) {
        *rotation = quat_to_mat(key_quat(&s->keys[i]));
        *translation = s->keys[i].translation;
        return;
    }
    const pw_keyframe *k0 = &s->keys[i], *k1 = &s->keys[i + 1];
    *translation = v3_add(v3_scale(k0->translation, 1 - u), v3_scale(k1->translation, u));
    /* slerp as q(u) = exp(u log(q1 q0^-1)) q0: constant angular velocity on the segment */
    quat q0 = key_quat(k0);
    vec3 rv = quat_rotation_vector(quat_relative(q0, key_quat(k1)));
    mat3 step = v3_length2(rv) > 0 ? m3_rotation(rv, u * v3_length(rv)) : m3_identity();
    *rotation = m3_mul(step, quat_to_mat(q0));
}

vec3 pw_shape_velocity(const pw_shape *s, double t, vec3 x)
{
    int i;
    double u = 0;
    if (s->n_keys <= 0 || !find_segment(s, t, &i, &u)) return v3_zero();
    const pw_keyframe *k0 = &s->keys[i], *k1 = &s->keys[i + 1];
    double dt = k1->t - k0->t;
    vec3 v_T = v3_scale(v3_sub(k1->translation, k0->translation), 1.0 / dt);
    vec3 omega = v3_scale(quat_rotation_vector(quat_relative(key_quat(k0), key_quat(k1))), 1.0 / dt);
    mat3 R;
    vec3 T;
    pw_shape_motion(s, t, &R, &T);
    /* v_co = dT/dt + omega x (x - T): the rotation turns about the moving local origin */
    return v3_add(v_T, v3_cross(omega, v3_sub(x, T)));
}

void pw_shape_pose_at(const pw_shape *s, double t, pw_shape_pose *pose)
{
    mat3 R, Rs = static_rotation(s);
    vec3 T;
    pw_shape_motion(s, t, &R, &T);
    pose->world_from_body = m3_mul(R, Rs);
    pose->origin = v3_add(m3_mulv(R, s->center), T);
    pose->body_normal = s->kind == PW_SHAPE_HALFSPACE ? v3_normalize(s->normal) : v3(0, 1, 0);
}

double pw_shape_sdf_posed(const pw_shape *s, const pw_shape_pose *pose, const vec3 *x,
                          vec3 *normal)
{
    if (pw_shape_is_mesh(s)) {
        if (normal) *normal = v3(0, 1, 0);
        return INFINITY;
    }
    vec3 p = pw_shape_pose_to_body(pose, *x);
    vec3 n = v3(0, 1, 0);
    double d;
    switch (s->kind) {
    case PW_SHAPE_HALFSPACE:
        n = pose->body_normal;
        d = v3_dot(p, n);
        break;
    case PW_SHAPE_SPHERE: d = sdf_sphere(s->radius, p, &n); break;
    case PW_SHAPE_BOX: d = sdf_box(s->half_extents, p, &n); break;
    case PW_SHAPE_CYLINDER: d = sdf_cylinder(s->radius, s->half_height, p, &n); break;
    default: d = INFINITY; break;
    }
    if (normal) *normal = m3_mulv(pose->world_from_body, n);
    return d;
}

double pw_shape_sdf(const pw_shape *s, double t, vec3 x, vec3 *normal)
{
    pw_shape_pose pose;
    pw_shape_pose_at(s, t, &pose);
    return pw_shape_sdf_posed(s, &pose, &x, normal);
}

void pw_shape_mesh_name(const pw_shape *s, char *out, size_t cap)
{
    if (s->kind == PW_SHAPE_TEXT)
        snprintf(out, cap, "text \"%s\"", s->text);
    else
        snprintf(out, cap, "%s", s->path);
}
