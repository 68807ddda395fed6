/* Property: the stress differential dP(F; dF) is the directional derivative of P, and
 * dR that of the polar rotation R: |dP - (P(F + e dF) - P(F - e dF)) / 2e|_F <=
 * 1e-6 |dP|_F and likewise for dR, with e = 1e-6 (truncation ~e^2 = 1e-12, rounding
 * ~eps / e = 1e-10, so 1e-6 only fails on a wrong formula). (The forms from a cache,
 * pw_fcr_*_cached, are the same code: the ones from F build a cache first; the solver's
 * lanes are checked against them by hessian_stress_lanes_match_scalar.) Numbered
 * cases: near identity, general, inverted, near rotation, singular (tr S I - S),
 * non-symmetric dF. */
#include "check.h"
#include "constitutive.h"

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

static mat3 random_matrix(unsigned long long *st)
{
    mat3 a;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a.m[i][j] = 2 * urand(st) - 1;
    return a;
}

static mat3 with_sigma(unsigned long long *st, double a, double b, double c)
{
    return m3_mul(m3_mul(random_rotation(st), m3_diag(a, b, c)), m3_transpose(random_rotation(st)));
}

static double max_dp = 0, max_dr = 0;

static void check_differential(mat3 F, mat3 dF, const char *what)
{
    double mu = 1.0, lambda = 1.3, e = 1e-6;
    mat3 dP = pw_fcr_stress_differential(F, mu, lambda, dF);
    mat3 Pp = pw_fcr_stress(m3_add(F, m3_scale(dF, e)), mu, lambda);
    mat3 Pm = pw_fcr_stress(m3_sub(F, m3_scale(dF, e)), mu, lambda);
    mat3 dP_fd = m3_scale(m3_sub(Pp, Pm), 0.5 / e);
    double err = m3_norm_frobenius(m3_sub(dP, dP_fd)), n = m3_norm_frobenius(dP);
    max_dp = fmax(max_dp, err / n);
    CHECK(err <= 1e-6 * n, "%s: dP error %.3g of %.3g", what, err, n);

    mat3 dR = pw_polar_rotation_differential(F, dF), Rp, Rm;
    m3_polar(m3_add(F, m3_scale(dF, e)), &Rp, NULL);
    m3_polar(m3_sub(F, m3_scale(dF, e)), &Rm, NULL);
    mat3 dR_fd = m3_scale(m3_sub(Rp, Rm), 0.5 / e);
    double errR = m3_norm_frobenius(m3_sub(dR, dR_fd)), nR = m3_norm_frobenius(dR);
    max_dr = fmax(max_dr, errR / nR);
    CHECK(errR <= 1e-6 * nR, "%s: dR error %.3g of %.3g", what, errR, nR);
}

int main(void)
{
    unsigned long long st = 99;
    /* 1. near identity */
    for (int k = 0; k < 50; k++)
        check_differential(with_sigma(&st, 1.006, 0.99, 0.978), random_matrix(&st), "1 near I");
    /* 2. general (distinct singular values well apart from coalescing) */
    for (int k = 0; k < 200; k++) {
        mat3 F = m3_add(m3_identity(), m3_scale(random_matrix(&st), 0.5));
        check_differential(F, random_matrix(&st), "2 general");
    }
    /* 3. inverted, det F < 0 */
    for (int k = 0; k < 50; k++) {
        mat3 F = with_sigma(&st, 1.2, 0.7, -0.3 - 0.2 * urand(&st));
        check_differential(F, random_matrix(&st), "3 inverted");
    }
    /* 4. near a rotation */
    for (int k = 0; k < 50; k++) {
        mat3 F = m3_mul(random_rotation(&st),
                        m3_add(m3_identity(), m3_scale(random_matrix(&st), 1e-3)));
        check_differential(F, random_matrix(&st), "4 near rotation");
    }
    /* 5. singular (tr S I - S): s2 + s3 = 0. The guard must keep dR and dP finite,
     * and the two well-posed rotation modes still match their analytic values. */
    {
        mat3 F = m3_diag(1.0, 0.5, -0.5), dF = random_matrix(&st);
        mat3 dR = pw_polar_rotation_differential(F, dF);
        mat3 dP = pw_fcr_stress_differential(F, 1.0, 1.0, dF);
        CHECK(m3_isfinite(dR) && m3_isfinite(dP), "5 singular: non-finite dR or dP");
        /* with R = I, S = F: w_z = (M10 - M01) / (s1 + s2), w_y = (M02 - M20) / (s1 + s3) */
        CHECK_NEAR(dR.m[1][0], (dF.m[1][0] - dF.m[0][1]) / 1.5, 1e-14, "5 w_z mode");
        CHECK_NEAR(dR.m[0][2], (dF.m[0][2] - dF.m[2][0]) / 0.5, 1e-14, "5 w_y mode");
        CHECK_NEAR(dR.m[2][1], 0.0, 0, "5 singular w_x mode dropped");
        pw_fcr_cache c;
        pw_fcr_cache_init(&c, F, 1.0, 1.0);
        CHECK(m3_isfinite(c.inv_trS_minus_S), "5 cache inverse not finite");
    }
    /* 6. symmetric dF at F = I produces no rotation: dR = 0 exactly in exact math */
    {
        mat3 A = random_matrix(&st);
        mat3 dF = m3_add(A, m3_transpose(A));
        mat3 dR = pw_polar_rotation_differential(m3_identity(), dF);
        CHECK(m3_norm_frobenius(dR) < 1e-15, "6 symmetric dF rotated (%.3g)",
              m3_norm_frobenius(dR));
    }
    printf("max relative error: dP %.3g, dR %.3g\n", max_dp, max_dr);
    return check_done("constitutive_differential_matches_stress");
}
