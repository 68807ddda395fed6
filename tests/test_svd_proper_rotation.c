/* Property: m3_svd(A) = U diag(sigma) Vᵀ with U, V proper rotations, for every A.
 * Checked per case: reconstruction |U S Vᵀ - A|_F <= 1e-12 |A|_F (1e-12 for |A| = 0),
 * orthogonality |UᵀU - I|_F, |VᵀV - I|_F <= 1e-12, det U = det V = +1 to 1e-12,
 * |sigma| non-increasing, only sigma_3 may be negative and sign(sigma_3) = sign(det A).
 * 1e-12 is ~4500 ulps of double: a backward-stable 3x3 SVD reaches ~1e-15, so this
 * leaves room for rounding but not for a wrong or improper factor. m3_polar is checked
 * the same way (A = R S, R proper, S symmetric). */
#include <stdlib.h>

#include "check.h"
#include "pw_math.h"

static double max_rec = 0, max_orth = 0; /* reported, so regressions show in the log */

static double orth_error(mat3 q)
{
    return m3_norm_frobenius(m3_sub(m3_mul(m3_transpose(q), q), m3_identity()));
}

static void check_svd(mat3 a, const char *what)
{
    mat3 U, V;
    vec3 s;
    m3_svd(a, &U, &s, &V);
    double na = m3_norm_frobenius(a);
    mat3 rec = m3_mul(m3_mul(U, m3_diag(s.x, s.y, s.z)), m3_transpose(V));
    double rec_err = m3_norm_frobenius(m3_sub(rec, a));
    if (na > 0) max_rec = fmax(max_rec, rec_err / na);
    max_orth = fmax(max_orth, fmax(orth_error(U), orth_error(V)));
    CHECK(rec_err <= 1e-12 * na || (na == 0 && rec_err == 0), "%s: reconstruction %.3g |A| %.3g",
          what, rec_err, na);
    CHECK(orth_error(U) <= 1e-12, "%s: U not orthogonal (%.3g)", what, orth_error(U));
    CHECK(orth_error(V) <= 1e-12, "%s: V not orthogonal (%.3g)", what, orth_error(V));
    CHECK_NEAR(m3_det(U), 1.0, 1e-12, what);
    CHECK_NEAR(m3_det(V), 1.0, 1e-12, what);
    CHECK(fabs(s.x) >= fabs(s.y) && fabs(s.y) >= fabs(s.z), "%s: sigma not sorted (%g %g %g)",
          what, s.x, s.y, s.z);
    CHECK(s.x >= 0 && s.y >= 0, "%s: negative leading sigma (%g %g)", what, s.x, s.y);
    double det = m3_det(a);
    /* sign(det A) is only meaningful when det is not rounding noise */
    if (fabs(det) > 1e-10 * na * na * na)
        CHECK((det > 0) == (s.z > 0), "%s: sign of sigma_3 %g vs det %g", what, s.z, det);

    mat3 R, S;
    m3_polar(a, &R, &S);
    double pol_err = m3_norm_frobenius(m3_sub(m3_mul(R, S), a));
    CHECK(pol_err <= 1e-12 * na || (na == 0 && pol_err == 0), "%s: polar %.3g", what, pol_err);
    CHECK_NEAR(m3_det(R), 1.0, 1e-12, what);
    CHECK(m3_norm_frobenius(m3_sub(S, m3_transpose(S))) <= 1e-12 * (na + 1e-300),
          "%s: S not symmetric", what);
}

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

static mat3 random_rotation(unsigned long long *st)
{
    vec3 axis = v3(urand(st) - 0.5, urand(st) - 0.5, urand(st) - 0.5);
    return m3_rotation(axis, 6.283185307179586 * urand(st));
}

int main(void)
{
    unsigned long long st = 42;
    /* 1. identity */
    check_svd(m3_identity(), "1 identity");
    {
        mat3 U, V;
        vec3 s;
        m3_svd(m3_identity(), &U, &s, &V);
        CHECK(s.x == 1 && s.y == 1 && s.z == 1, "1 identity sigma %g %g %g", s.x, s.y, s.z);
    }
    /* 2. zero matrix */
    check_svd(m3_zero(), "2 zero");
    /* 3. repeated singular values (two and three equal), rotated */
    for (int k = 0; k < 20; k++) {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        check_svd(m3_mul(m3_mul(Q1, m3_diag(2, 2, 0.5)), m3_transpose(Q2)), "3a repeated 2,2,.5");
        check_svd(m3_mul(m3_mul(Q1, m3_diag(3, 1, 1)), m3_transpose(Q2)), "3b repeated 3,1,1");
        check_svd(m3_mul(m3_mul(Q1, m3_diag(1.5, 1.5, 1.5)), m3_transpose(Q2)), "3c 1.5 I rot");
    }
    /* 4. rank 1 and rank 2 */
    for (int k = 0; k < 20; k++) {
        vec3 a = v3(urand(&st) - 0.5, urand(&st) - 0.5, urand(&st) - 0.5);
        vec3 b = v3(urand(&st) - 0.5, urand(&st) - 0.5, urand(&st) - 0.5);
        check_svd(m3_outer(a, b), "4a rank 1");
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        check_svd(m3_mul(m3_mul(Q1, m3_diag(2, 0.7, 0)), m3_transpose(Q2)), "4b rank 2");
    }
    /* 5. negative determinant (inverted element) */
    for (int k = 0; k < 20; k++) {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        mat3 a = m3_mul(m3_mul(Q1, m3_diag(1.2, 0.9, -0.3)), m3_transpose(Q2));
        check_svd(a, "5 inverted");
        mat3 U, V;
        vec3 s;
        m3_svd(a, &U, &s, &V);
        CHECK_NEAR(s.x, 1.2, 1e-12, "5 sigma1");
        CHECK_NEAR(s.y, 0.9, 1e-12, "5 sigma2");
        CHECK_NEAR(s.z, -0.3, 1e-12, "5 sigma3 carries the sign");
    }
    check_svd(m3_diag(-1, -1, -1), "5b -I");
    check_svd(m3_diag(1, 1, -1), "5c reflection");
    /* 6. near-singular: smallest singular value 1e-12, and tiny/huge scales */
    for (int k = 0; k < 20; k++) {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        check_svd(m3_mul(m3_mul(Q1, m3_diag(1, 0.5, 1e-12)), m3_transpose(Q2)), "6a 1e-12");
        check_svd(m3_mul(m3_mul(Q1, m3_diag(1, 1e-12, -1e-12)), m3_transpose(Q2)), "6b");
        check_svd(m3_mul(m3_mul(Q1, m3_diag(1e-200, 3e-201, 1e-201)), m3_transpose(Q2)),
                  "6c tiny scale");
        check_svd(m3_mul(m3_mul(Q1, m3_diag(1e150, 3e149, -1e149)), m3_transpose(Q2)),
                  "6d huge scale");
    }
    /* 7. near-identity (the common case of a snow particle) */
    for (int k = 0; k < 100; k++) {
        mat3 a = m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) a.m[i][j] += 1e-9 * (urand(&st) - 0.5);
        check_svd(a, "7 near identity");
    }
    /* 8. random matrices, entries uniform in [-1, 1] */
    for (int k = 0; k < 1000; k++) {
        mat3 a;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) a.m[i][j] = 2 * urand(&st) - 1;
        check_svd(a, "8 random");
    }
    /* 9. non-finite input gives non-finite sigma (the caller reports it), no hang */
    {
        mat3 a = m3_identity(), U, V;
        vec3 s;
        a.m[1][2] = NAN;
        m3_svd(a, &U, &s, &V);
        CHECK(!v3_isfinite(s), "9 NaN input gave finite sigma %g %g %g", s.x, s.y, s.z);
    }
    printf("max relative reconstruction error %.3g, max orthogonality error %.3g\n", max_rec,
           max_orth);
    return check_done("svd_proper_rotation");
}
