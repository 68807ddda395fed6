/* pw_math.h — small value types shared by sim/ and render/: vec3, mat3 (double).
 *
 * Internal header, never installed, so these names go without the pw_ prefix.
 * Everything is static inline and passed by value; mat3 is row-major, m[r][c]. */
#ifndef PW_MATH_H
#define PW_MATH_H

#include <math.h>

typedef struct { double x, y, z; } vec3;
typedef struct { double m[3][3]; } mat3;

/* x limited to [lo, hi] by comparisons (fmin and fmax are library calls without
 * -ffast-math); a NaN x stays NaN, where fmin/fmax would hide it */
static inline double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* ---- vec3 ---------------------------------------------------------------- */
static inline vec3 v3(double x, double y, double z) { vec3 r = {x, y, z}; return r; }
static inline vec3 v3_zero(void) { return v3(0, 0, 0); }
static inline vec3 v3_add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 v3_sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 v3_mul(vec3 a, vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline vec3 v3_scale(vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline vec3 v3_madd(vec3 a, vec3 b, double s) /* a + s b */
{
    return v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 v3_cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double v3_length2(vec3 a) { return v3_dot(a, a); }
static inline double v3_length(vec3 a) { return sqrt(v3_dot(a, a)); }
static inline vec3 v3_normalize(vec3 a)
{
    double l = v3_length(a);
    return l > 0 ? v3_scale(a, 1.0 / l) : a;
}
static inline vec3 v3_min(vec3 a, vec3 b)
{
    return v3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z));
}
static inline vec3 v3_max(vec3 a, vec3 b)
{
    return v3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z));
}
static inline double v3_get(vec3 a, int k) { return k == 0 ? a.x : (k == 1 ? a.y : a.z); }
static inline int v3_isfinite(vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/* An orthonormal basis (t, b) around unit n (Duff et al. 2017, branchless). */
static inline void v3_basis(vec3 n, vec3 *t, vec3 *b)
{
    double sign = copysign(1.0, n.z);
    double a = -1.0 / (sign + n.z);
    double c = n.x * n.y * a;
    *t = v3(1.0 + sign * n.x * n.x * a, sign * c, -sign * n.x);
    *b = v3(c, sign + n.y * n.y * a, -n.y);
}

/* ---- mat3 ---------------------------------------------------------------- */
static inline mat3 m3_zero(void) { mat3 r = {{{0}}}; return r; }
static inline mat3 m3_identity(void)
{
    mat3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    return r;
}
static inline mat3 m3_diag(double a, double b, double c)
{
    mat3 r = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
    return r;
}
static inline mat3 m3_add(mat3 a, mat3 b)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = a.m[i][j] + b.m[i][j];
    return r;
}
static inline mat3 m3_sub(mat3 a, mat3 b)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = a.m[i][j] - b.m[i][j];
    return r;
}
static inline mat3 m3_scale(mat3 a, double s)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = a.m[i][j] * s;
    return r;
}
static inline mat3 m3_mul(mat3 a, mat3 b)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
static inline mat3 m3_transpose(mat3 a)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = a.m[j][i];
    return r;
}
static inline vec3 m3_mulv(mat3 a, vec3 v)
{
    return v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
              a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
              a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
/* a bᵀ */
static inline mat3 m3_outer(vec3 a, vec3 b)
{
    mat3 r = {{{a.x * b.x, a.x * b.y, a.x * b.z},
                {a.y * b.x, a.y * b.y, a.y * b.z},
                {a.z * b.x, a.z * b.y, a.z * b.z}}};
    return r;
}
/* The determinant of a 3x3 array a[i][j] in one order of operations, for doubles and
 * for the solver's lane vectors alike (det4, pw_simd.h): one expression, the same bits
 * in each lane as m3_det. */
#define PW_M3_DET(a)                                                                   \
    ((a)[0][0] * ((a)[1][1] * (a)[2][2] - (a)[1][2] * (a)[2][1]) -                     \
     (a)[0][1] * ((a)[1][0] * (a)[2][2] - (a)[1][2] * (a)[2][0]) +                     \
     (a)[0][2] * ((a)[1][0] * (a)[2][1] - (a)[1][1] * (a)[2][0]))
static inline double m3_det(mat3 a) { return PW_M3_DET(a.m); }
/* cof(A) = det(A) A^-T, defined for every A (no division). */
static inline mat3 m3_cofactor(mat3 a)
{
    mat3 c;
    c.m[0][0] = a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1];
    c.m[0][1] = a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2];
    c.m[0][2] = a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0];
    c.m[1][0] = a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2];
    c.m[1][1] = a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0];
    c.m[1][2] = a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1];
    c.m[2][0] = a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1];
    c.m[2][1] = a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2];
    c.m[2][2] = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
    return c;
}
/* A : B = Σ A_ij B_ij */
static inline double m3_ddot(mat3 a, mat3 b)
{
    double s = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s += a.m[i][j] * b.m[i][j];
    return s;
}
static inline double m3_trace(mat3 a) { return a.m[0][0] + a.m[1][1] + a.m[2][2]; }
static inline double m3_norm_frobenius(mat3 a) { return sqrt(m3_ddot(a, a)); }
static inline int m3_isfinite(mat3 a)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!isfinite(a.m[i][j])) return 0;
    return 1;
}
/* Rotation matrix from a unit axis and an angle [rad] (right-handed). */
static inline mat3 m3_rotation(vec3 axis, double angle)
{
    vec3 a = v3_normalize(axis);
    double c = cos(angle), s = sin(angle), t = 1 - c;
    mat3 r = {{{t * a.x * a.x + c, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y},
                {t * a.x * a.y + s * a.z, t * a.y * a.y + c, t * a.y * a.z - s * a.x},
                {t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, t * a.z * a.z + c}}};
    return r;
}

/* Singular value decomposition A = U diag(sigma) Vᵀ with U and V proper rotations
 * (det = +1); sigma sorted by decreasing magnitude, and when det A < 0 the smallest
 * singular value carries the sign. Correct on identity, repeated, zero and
 * inverted input. Implemented in sim/core/svd.c. */
void m3_svd(mat3 a, mat3 *u, vec3 *sigma, mat3 *v);

/* Polar decomposition A = R S, R a proper rotation (from the SVD: R = U Vᵀ). */
void m3_polar(mat3 a, mat3 *r, mat3 *s);

#endif
