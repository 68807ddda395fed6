/* Property (eqs. 11-12): after pw_plasticity_update the singular values of Fe lie in
 * [1 - theta_c, 1 + theta_s] (to 1e-12: the SVD reconstructs to ~1e-15), the total
 * deformation is kept, |Fe Fp - Fe_hat Fp_old| <= 1e-12 |Fe_hat Fp_old| (a few hundred
 * ulps through two products of 3x3 factors), and Jp changes by exactly the volume
 * taken out of Fe: Jp_new = Jp_old det(Fe_hat) / det(Fe) to 1e-12 relative. An elastic
 * Fe_hat (all singular values inside the band) is returned unchanged with Fp kept.
 * The hardening factor equals e^{xi (1 - Jp)} exactly (it is that one expression;
 * the reference values check the sign convention: compression hardens).
 * 7. The compaction limit: squeezing by 8.8 % a step (in volume), 40 steps, with
 * Jp_floor 0.6, J_P falls as without it until it reaches 0.6, then stays there to
 * 1e-12 while Fe takes the rest (its volume falls below (1 - theta_c)^3), until det Fe
 * reaches PW_FLOOR_JE_MIN; from there det Fe stays at it to 1e-12 and J_P goes on below
 * the floor. Fe Fp = Fe_hat Fp holds to 1e-12 each step; without the floor J_P goes on
 * to below 0.2 from the start. */
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

static const double theta_c = 2.5e-2, theta_s = 7.5e-3;

static void check_update(mat3 Fe_hat, mat3 Fp, const char *what)
{
    mat3 Fe, Fp_new;
    int rc = pw_plasticity_update(Fe_hat, Fp, theta_c, theta_s, &Fe, &Fp_new);
    CHECK(rc == 0, "%s: rc %d", what, rc);
    mat3 U, V;
    vec3 s;
    m3_svd(Fe, &U, &s, &V);
    double lo = 1 - theta_c, hi = 1 + theta_s;
    for (int k = 0; k < 3; k++) {
        double sk = v3_get(s, k);
        CHECK(sk >= lo - 1e-12 && sk <= hi + 1e-12, "%s: sigma_%d = %.15g outside band", what,
              k, sk);
    }
    mat3 F_old = m3_mul(Fe_hat, Fp), F_new = m3_mul(Fe, Fp_new);
    double err = m3_norm_frobenius(m3_sub(F_new, F_old)), n = m3_norm_frobenius(F_old);
    CHECK(err <= 1e-12 * n, "%s: Fe Fp changed by %.3g of %.3g", what, err, n);
    double Jp_expect = m3_det(Fp) * m3_det(Fe_hat) / m3_det(Fe);
    CHECK(fabs(m3_det(Fp_new) - Jp_expect) <= 1e-12 * fabs(Jp_expect), "%s: Jp %.15g vs %.15g",
          what, m3_det(Fp_new), Jp_expect);
}

int main(void)
{
    unsigned long long st = 3;
    /* 1. stretched and compressed beyond the band, with a non-trivial Fp */
    for (int k = 0; k < 200; k++) {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        mat3 Fe_hat = m3_mul(m3_mul(Q1, m3_diag(1.0 + 0.2 * urand(&st), 1.0 + 0.02 * (urand(&st) - 0.5),
                                                 0.7 + 0.2 * urand(&st))),
                             m3_transpose(Q2));
        mat3 Fp = m3_mul(m3_mul(Q2, m3_diag(0.9, 1.05, 0.95)), m3_transpose(Q1));
        check_update(Fe_hat, Fp, "1 beyond band");
    }
    /* 2. elastic: inside the band, Fe = Fe_hat and Fp unchanged (to 1e-14) */
    for (int k = 0; k < 50; k++) {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        mat3 Fe_hat = m3_mul(m3_mul(Q1, m3_diag(1.005, 0.99, 0.98)), m3_transpose(Q2));
        mat3 Fp = m3_diag(0.8, 0.9, 1.1), Fe, Fp_new;
        pw_plasticity_update(Fe_hat, Fp, theta_c, theta_s, &Fe, &Fp_new);
        CHECK(m3_norm_frobenius(m3_sub(Fe, Fe_hat)) <= 1e-14, "2 elastic Fe changed");
        CHECK(m3_norm_frobenius(m3_sub(Fp_new, Fp)) <= 1e-14, "2 elastic Fp changed");
        check_update(Fe_hat, Fp, "2 elastic");
    }
    /* 3. pure compression of 10% along x from rest: sigma clamps to 0.975 and Jp
     * becomes 0.9 / 0.975 exactly */
    {
        mat3 Fe, Fp;
        pw_plasticity_update(m3_diag(0.9, 1, 1), m3_identity(), theta_c, theta_s, &Fe, &Fp);
        CHECK_NEAR(Fe.m[0][0], 0.975, 1e-15, "3 Fe_xx");
        CHECK_NEAR(m3_det(Fp), 0.9 / 0.975, 1e-14, "3 Jp");
        check_update(m3_diag(0.9, 1, 1), m3_identity(), "3 compression");
    }
    /* 4. inverted Fe_hat (det < 0): the clamp returns a proper Fe inside the band and
     * pushes the inversion into Fp, keeping Fe Fp */
    {
        mat3 Q1 = random_rotation(&st), Q2 = random_rotation(&st);
        mat3 Fe_hat = m3_mul(m3_mul(Q1, m3_diag(1.1, 0.9, -0.2)), m3_transpose(Q2));
        check_update(Fe_hat, m3_identity(), "4 inverted");
        mat3 Fe, Fp;
        pw_plasticity_update(Fe_hat, m3_identity(), theta_c, theta_s, &Fe, &Fp);
        CHECK(m3_det(Fe) > 0, "4 Fe still inverted (%g)", m3_det(Fe));
    }
    /* 5. non-finite input is refused */
    {
        mat3 bad = m3_identity(), Fe, Fp;
        bad.m[0][1] = NAN;
        CHECK(pw_plasticity_update(bad, m3_identity(), theta_c, theta_s, &Fe, &Fp) == -1,
              "5 NaN Fe_hat accepted");
        bad.m[0][1] = INFINITY;
        CHECK(pw_plasticity_update(m3_identity(), bad, theta_c, theta_s, &Fe, &Fp) == -1,
              "5 Inf Fp accepted");
    }
    /* 6. hardening factor e^{xi (1 - Jp)} */
    {
        double xi = 10;
        for (double Jp = 0.6; Jp <= 20.0; Jp *= 1.37)
            CHECK(pw_hardening(xi, Jp) == exp(xi * (1 - Jp)), "6 hardening at Jp %g", Jp);
        CHECK(pw_hardening(xi, 1.0) == 1.0, "6 rest state is not hardened");
        CHECK_NEAR(pw_hardening(xi, 0.9), exp(1.0), 1e-14 * exp(1.0), "6 compression hardens");
        CHECK_NEAR(pw_hardening(xi, 1.1), exp(-1.0), 1e-15, "6 stretch softens");
    }
    /* 7. the compaction limit */
    {
        mat3 Fe = m3_identity(), Fp = m3_identity(), Fe0 = m3_identity(), Fp0 = m3_identity();
        int reached = -1, bound = -1;
        for (int step = 0; step < 40; step++) {
            mat3 squeeze = m3_diag(0.95, 0.97, 0.99);
            mat3 Fe_hat = m3_mul(squeeze, Fe), Fe_hat0 = m3_mul(squeeze, Fe0);
            mat3 total = m3_mul(Fe_hat, Fp);
            pw_svd3 f;
            CHECK(pw_plasticity_update_svd(Fe_hat, Fp, theta_c, theta_s, 0.6, NULL, &Fe, &Fp, &f) == 0,
                  "7 update failed");
            CHECK(pw_plasticity_update_svd(Fe_hat0, Fp0, theta_c, theta_s, 0.0, NULL, &Fe0, &Fp0, &f) == 0,
                  "7 update failed (no floor)");
            double err = m3_norm_frobenius(m3_sub(m3_mul(Fe, Fp), total)) / m3_norm_frobenius(total);
            CHECK(err <= 1e-12, "7 step %d: Fe Fp off the total by %.3g", step, err);
            if (m3_det(Fe) > PW_FLOOR_JE_MIN + 1e-12)
                CHECK(m3_det(Fp) >= 0.6 - 1e-12, "7 step %d: J_P %.15g below the floor", step,
                      m3_det(Fp));
            else if (bound < 0)
                bound = step;
            if (bound >= 0)
                CHECK(fabs(m3_det(Fe) - PW_FLOOR_JE_MIN) <= 1e-12,
                      "7 step %d: det Fe %.15g past the bound", step, m3_det(Fe));
            if (reached < 0 && m3_det(Fp) <= 0.6 + 1e-12) reached = step;
            if (reached < 0)
                CHECK(fabs(m3_det(Fp) - m3_det(Fp0)) <= 1e-12, "7 step %d: J_P %.15g before the floor, "
                      "%.15g without it", step, m3_det(Fp), m3_det(Fp0));
        }
        printf("7. compaction limit: J_P reached the floor at step %d, det Fe its bound at step %d; "
               "after 40 steps J_P %.15g (without: %.6g), det Fe %.15g (without: %.6g)\n",
               reached, bound, m3_det(Fp), m3_det(Fp0), m3_det(Fe), m3_det(Fe0));
        CHECK(reached > 0, "7 the floor was never reached (or at once)");
        CHECK(bound > reached, "7 det Fe never reached its bound after the floor (step %d)", bound);
        CHECK_NEAR(m3_det(Fe), PW_FLOOR_JE_MIN, 1e-12, "7 det Fe after 40 steps");
        CHECK(m3_det(Fp) < 0.6 * 0.5, "7 J_P stayed at the floor past the bound (%g)", m3_det(Fp));
        CHECK(m3_det(Fp0) < 0.2, "7 without the floor J_P stayed at %g", m3_det(Fp0));
    }
    return check_done("constitutive_plasticity_clamp");
}
