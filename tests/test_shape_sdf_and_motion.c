/* Property: pw_shape_sdf is the exact signed distance of each analytic shape under its
 * static rotation and keyframed rigid motion, and pw_shape_velocity is the time
 * derivative of a material point's world position.
 * - values at hand-computed points match to 1e-12 m (they are closed-form);
 * - |grad phi| = 1 by central differences (step 1e-6 m) to 1e-6, at random points
 *   at least 1e-3 m from edges/medial sets (where phi is smooth): truncation error
 *   ~ step^2 / curvature radius, rounding ~ eps / step ~ 1e-10;
 * - the returned normal equals the normalised FD gradient to 1e-6;
 * - velocity equals (X(t + e) - X(t - e)) / 2e for a fixed body point X to 1e-6
 *   relative (e = 1e-6 s, motion is smooth inside a keyframe segment). */
#include "check.h"
#include "pw_shape.h"

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

static vec3 fd_gradient(const pw_shape *s, double t, vec3 x)
{
    double e = 1e-6;
    vec3 g;
    double *gp[3] = {&g.x, &g.y, &g.z};
    for (int k = 0; k < 3; k++) {
        vec3 xp = x, xm = x;
        double *cp = k == 0 ? &xp.x : (k == 1 ? &xp.y : &xp.z);
        double *cm = k == 0 ? &xm.x : (k == 1 ? &xm.y : &xm.z);
        *cp += e;
        *cm -= e;
        *gp[k] = (pw_shape_sdf(s, t, xp, NULL) - pw_shape_sdf(s, t, xm, NULL)) / (2 * e);
    }
    return g;
}

/* random points; those within 1e-3 m of a kink of phi (given by `near_kink`) skipped */
static void check_gradients(const pw_shape *s, double t, vec3 lo, vec3 hi,
                            int (*near_kink)(const pw_shape *, double, vec3), const char *what,
                            unsigned long long *st)
{
    int tested = 0;
    for (int k = 0; k < 400; k++) {
        vec3 x = v3(lo.x + (hi.x - lo.x) * urand(st), lo.y + (hi.y - lo.y) * urand(st),
                    lo.z + (hi.z - lo.z) * urand(st));
        if (near_kink && near_kink(s, t, x)) continue;
        vec3 n, g = fd_gradient(s, t, x);
        pw_shape_sdf(s, t, x, &n);
        CHECK_NEAR(v3_length(g), 1.0, 1e-6, what);
        CHECK(v3_length(v3_sub(n, v3_normalize(g))) < 1e-6, "%s: normal (%g %g %g) vs FD (%g %g %g)",
              what, n.x, n.y, n.z, g.x, g.y, g.z);
        tested++;
    }
    CHECK(tested > 200, "%s: only %d points tested", what, tested);
}

/* body-frame coordinates of a world point, by the same motion the shape uses */
static vec3 to_body(const pw_shape *s, double t, vec3 x)
{
    mat3 R, Rs = m3_rotation(s->rotation_axis, s->rotation_angle);
    vec3 T;
    pw_shape_motion(s, t, &R, &T);
    mat3 W = m3_mul(R, Rs);
    return m3_mulv(m3_transpose(W), v3_sub(x, v3_add(m3_mulv(R, s->center), T)));
}

/* box kinks: the box's edges (outside) and the medial planes |q_i| == |q_j| (inside) */
static int box_kink(const pw_shape *s, double t, vec3 x)
{
    vec3 p = to_body(s, t, x), b = s->half_extents;
    double q[3] = {fabs(p.x) - b.x, fabs(p.y) - b.y, fabs(p.z) - b.z};
    for (int i = 0; i < 3; i++) {
        if (fabs(q[i]) < 1e-3) return 1;
        for (int j = i + 1; j < 3; j++)
            if (q[i] < 0 && q[j] < 0 && fabs(q[i] - q[j]) < 1e-3) return 1;
    }
    return fabs(p.x) < 1e-3 || fabs(p.y) < 1e-3 || fabs(p.z) < 1e-3;
}

static int cylinder_kink(const pw_shape *s, double t, vec3 x)
{
    vec3 p = to_body(s, t, x);
    double qr = hypot(p.x, p.z) - s->radius, qa = fabs(p.y) - s->half_height;
    return fabs(qr) < 1e-3 || fabs(qa) < 1e-3 || (qr < 0 && qa < 0 && fabs(qr - qa) < 1e-3) ||
           hypot(p.x, p.z) < 1e-3 || fabs(p.y) < 1e-3;
}

static int sphere_kink(const pw_shape *s, double t, vec3 x)
{
    return v3_length(to_body(s, t, x)) < 1e-3;
}

int main(void)
{
    unsigned long long st = 11;
    /* 1. sphere: values along an axis */
    pw_shape sp;
    pw_shape_init(&sp, PW_SHAPE_SPHERE);
    sp.center = v3(1, 2, 3);
    sp.radius = 0.5;
    vec3 n;
    CHECK_NEAR(pw_shape_sdf(&sp, 0, v3(1, 2, 3), NULL), -0.5, 1e-12, "1 sphere centre");
    CHECK_NEAR(pw_shape_sdf(&sp, 0, v3(1, 2, 4), &n), 0.5, 1e-12, "1 sphere outside");
    CHECK_NEAR(n.z, 1.0, 1e-12, "1 sphere normal");
    check_gradients(&sp, 0, v3(0, 1, 2), v3(2, 3, 4), sphere_kink, "1 sphere gradient", &st);

    /* 2. box: face, edge and corner distances, inside distance to nearest face */
    pw_shape bx;
    pw_shape_init(&bx, PW_SHAPE_BOX);
    bx.half_extents = v3(1, 0.5, 0.25);
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(2, 0, 0), &n), 1.0, 1e-12, "2 box face");
    CHECK_NEAR(n.x, 1.0, 1e-12, "2 box face normal");
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(2, 1.5, 0), NULL), sqrt(2.0), 1e-12, "2 box edge");
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(-2, -1.5, 1.25), NULL), sqrt(3.0), 1e-12, "2 box corner");
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(0.1, 0.1, 0.2), &n), -0.05, 1e-12, "2 box inside");
    CHECK_NEAR(n.z, 1.0, 1e-12, "2 box inside normal");
    /* rotated 90 deg about z: the long axis now lies along y */
    bx.rotation_axis = v3(0, 0, 1);
    bx.rotation_angle = 1.5707963267948966;
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(0, 2, 0), NULL), 1.0, 1e-12, "2 rotated box");
    CHECK_NEAR(pw_shape_sdf(&bx, 0, v3(2, 0, 0), NULL), 1.5, 1e-12, "2 rotated box side");
    bx.rotation_axis = v3(1, 2, 3);
    bx.rotation_angle = 0.7;
    check_gradients(&bx, 0, v3(-2, -2, -2), v3(2, 2, 2), box_kink, "2 box gradient", &st);

    /* 3. capped cylinder */
    pw_shape cy;
    pw_shape_init(&cy, PW_SHAPE_CYLINDER);
    cy.radius = 0.3;
    cy.half_height = 0.5;
    CHECK_NEAR(pw_shape_sdf(&cy, 0, v3(1, 0, 0), NULL), 0.7, 1e-12, "3 cylinder side");
    CHECK_NEAR(pw_shape_sdf(&cy, 0, v3(0, 1, 0), &n), 0.5, 1e-12, "3 cylinder cap");
    CHECK_NEAR(n.y, 1.0, 1e-12, "3 cap normal");
    CHECK_NEAR(pw_shape_sdf(&cy, 0, v3(0.6, -0.9, 0.8), NULL), hypot(0.7, 0.4), 1e-12,
               "3 cylinder rim");
    CHECK_NEAR(pw_shape_sdf(&cy, 0, v3(0, 0.45, 0.1), NULL), -0.05, 1e-12, "3 inside near cap");
    CHECK_NEAR(pw_shape_sdf(&cy, 0, v3(0.25, 0, 0), NULL), -0.05, 1e-12, "3 inside near side");
    cy.rotation_axis = v3(1, 0, 1);
    cy.rotation_angle = 0.4;
    check_gradients(&cy, 0, v3(-1, -1, -1), v3(1, 1, 1), cylinder_kink, "3 cylinder gradient", &st);

    /* 4. half-space: plane through (0, 1, 0) with normal (0, 1, 1)/sqrt 2 */
    pw_shape hs;
    pw_shape_init(&hs, PW_SHAPE_HALFSPACE);
    hs.center = v3(0, 1, 0);
    hs.normal = v3(0, 1, 1);
    CHECK_NEAR(pw_shape_sdf(&hs, 0, v3(5, 2, 1), &n), sqrt(2.0), 1e-12, "4 half-space");
    CHECK_NEAR(n.z, sqrt(0.5), 1e-12, "4 half-space normal");
    check_gradients(&hs, 0, v3(-1, -1, -1), v3(1, 1, 1), NULL, "4 half-space gradient", &st);

    /* 5. mesh kind is not analytic */
    pw_shape me;
    pw_shape_init(&me, PW_SHAPE_MESH);
    CHECK(isinf(pw_shape_sdf(&me, 0, v3(0, 0, 0), NULL)), "5 mesh sdf should be +inf");

    /* 6. keyframed motion: translation is linear, rotation slerps, held outside */
    pw_shape mv = bx;
    mv.center = v3(0.2, -0.1, 0.3);
    mv.n_keys = 3;
    mv.keys[0] = (pw_keyframe){0.0, v3(0, 0, 0), v3(0, 1, 0), 0.0};
    mv.keys[1] = (pw_keyframe){1.0, v3(2, 0, 0), v3(0, 1, 0), 1.0};
    mv.keys[2] = (pw_keyframe){3.0, v3(2, 4, 0), v3(1, 1, 0), 2.0};
    {
        mat3 R;
        vec3 T;
        pw_shape_motion(&mv, 0.5, &R, &T);
        CHECK_NEAR(T.x, 1.0, 1e-12, "6 linear translation");
        mat3 Rexp = m3_rotation(v3(0, 1, 0), 0.5);
        CHECK(m3_norm_frobenius(m3_sub(R, Rexp)) < 1e-12, "6 slerp about one axis");
        pw_shape_motion(&mv, -1.0, &R, &T);
        CHECK(v3_length(T) == 0 && m3_norm_frobenius(m3_sub(R, m3_identity())) < 1e-15,
              "6 held before first key");
        pw_shape_motion(&mv, 9.0, &R, &T);
        CHECK(m3_norm_frobenius(m3_sub(R, m3_rotation(v3(1, 1, 0), 2.0))) < 1e-12 && T.y == 4,
              "6 held after last key");
        CHECK(v3_length(pw_shape_velocity(&mv, 9.0, v3(1, 1, 1))) == 0, "6 no velocity after");
        /* the sdf moves with the body: a body-frame point keeps its distance */
        vec3 xb = v3(1.3, 0.2, -0.4);
        mat3 R0 = m3_rotation(bx.rotation_axis, bx.rotation_angle);
        double d0 = pw_shape_sdf(&bx, 0, v3_add(m3_mulv(R0, xb), v3_zero()), NULL);
        pw_shape_motion(&mv, 2.2, &R, &T);
        vec3 xw = v3_add(m3_mulv(R, v3_add(mv.center, m3_mulv(R0, xb))), T);
        CHECK_NEAR(pw_shape_sdf(&mv, 2.2, xw, NULL), d0, 1e-12, "6 sdf follows motion");
    }
    /* 7. velocity = FD of a material point's motion, in both segments */
    for (int k = 0; k < 200; k++) {
        double t = 0.01 + 2.98 * urand(&st);
        if (fabs(t - 1.0) < 1e-3) continue;
        vec3 X = v3(urand(&st) - 0.5, urand(&st) - 0.5, urand(&st) - 0.5); /* local point */
        double e = 1e-6;
        mat3 Rp, Rm, R;
        vec3 Tp, Tm, T;
        pw_shape_motion(&mv, t + e, &Rp, &Tp);
        pw_shape_motion(&mv, t - e, &Rm, &Tm);
        pw_shape_motion(&mv, t, &R, &T);
        vec3 xp = v3_add(m3_mulv(Rp, X), Tp), xm = v3_add(m3_mulv(Rm, X), Tm);
        vec3 v_fd = v3_scale(v3_sub(xp, xm), 0.5 / e);
        vec3 v = pw_shape_velocity(&mv, t, v3_add(m3_mulv(R, X), T));
        CHECK(v3_length(v3_sub(v, v_fd)) <= 1e-6 * v3_length(v), "7 t=%g v (%g %g %g) fd (%g %g %g)",
              t, v.x, v.y, v.z, v_fd.x, v_fd.y, v_fd.z);
    }
    return check_done("shape_sdf_and_motion");
}
