/* Property: the fixed-corotated stress P(F) = 2 mu (F - R) + lambda (J - 1) cof F is the
 * gradient of Psi(F) = mu |F - R|^2 + lambda/2 (J - 1)^2: every entry of P matches the
 * central difference (Psi(F + e E_ij) - Psi(F - e E_ij)) / 2e with |P - P_fd|_F <=
 * 1e-6 |P|_F. With e = 1e-6 the truncation error is ~e^2 |Psi'''| ~ 1e-12 and the
 * rounding error ~ eps |Psi| / e ~ 1e-10 relative, so 1e-6 only fails on a wrong
 * formula. Cases are numbered: near identity, general, inverted (det F < 0), near a
 * rotation (P tiny, tests relative accuracy), and Table 2 Lame parameters. */
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

static double max_rel = 0;

static void check_gradient(mat3 F, double mu, double lambda, const char *what)
{
    mat3 P = pw_fcr_stress(F, mu, lambda), P_fd;
    double e = 1e-6;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            mat3 Fp = F, Fm = F;
            Fp.m[i][j] += e;
            Fm.m[i][j] -= e;
            P_fd.m[i][j] = (pw_fcr_energy(Fp, mu, lambda) - pw_fcr_energy(Fm, mu, lambda)) / (2 * e);
        }
    double err = m3_norm_frobenius(m3_sub(P, P_fd)), np = m3_norm_frobenius(P);
    max_rel = fmax(max_rel, err / np);
    CHECK(err <= 1e-6 * np, "%s: |P - P_fd| %.3g, |P| %.3g", what, err, np);
}

static mat3 with_sigma(unsigned long long *st, double a, double b, double c)
{
    return m3_mul(m3_mul(random_rotation(st), m3_diag(a, b, c)), m3_transpose(random_rotation(st)));
}

int main(void)
{
    unsigned long long st = 7;
    double mu = 1.0, lambda = 0.7; /* Psi is linear in (mu, lambda): unit scale suffices */
    /* 1. near identity */
    for (int k = 0; k < 50; k++)
        check_gradient(with_sigma(&st, 1.02 + 0.01 * urand(&st), 0.99, 0.97 - 0.01 * urand(&st)),
                       mu, lambda, "1 near identity");
    /* 2. general F with entries in [-1, 1] + I */
    for (int k = 0; k < 200; k++) {
        mat3 F = m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) F.m[i][j] += urand(&st) - 0.5;
        check_gradient(F, mu, lambda, "2 general");
    }
    /* 3. inverted: det F < 0 */
    for (int k = 0; k < 50; k++) {
        mat3 F = with_sigma(&st, 1.3, 0.8 + 0.1 * urand(&st), -0.2 - 0.3 * urand(&st));
        CHECK(m3_det(F) < 0, "3 setup det %g", m3_det(F));
        check_gradient(F, mu, lambda, "3 inverted");
    }
    /* 4. near a rotation: F = Q (I + 1e-3 D), so P is O(1e-3) and must still match */
    for (int k = 0; k < 50; k++) {
        mat3 D;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) D.m[i][j] = 1e-3 * (urand(&st) - 0.5);
        mat3 F = m3_mul(random_rotation(&st), m3_add(m3_identity(), D));
        check_gradient(F, mu, lambda, "4 near rotation");
    }
    /* 5. an exact rotation is stress free and energy free */
    {
        mat3 Q = random_rotation(&st);
        CHECK(m3_norm_frobenius(pw_fcr_stress(Q, mu, lambda)) < 1e-14, "5 P(rotation) != 0");
        CHECK(fabs(pw_fcr_energy(Q, mu, lambda)) < 1e-28, "5 Psi(rotation) != 0");
    }
    /* 6. Table 2: E = 1.4e5 Pa, nu = 0.2 -> mu = E / 2.4, lambda = E 0.2 / 0.72 */
    {
        double m6, l6;
        pw_lame(1.4e5, 0.2, &m6, &l6);
        CHECK_NEAR(m6, 1.4e5 / 2.4, 1e-9, "6 mu");
        CHECK_NEAR(l6, 1.4e5 * 0.2 / 0.72, 1e-9, "6 lambda");
        check_gradient(with_sigma(&st, 1.01, 0.995, 0.98), m6, l6, "6 Table 2 scale");
    }
    printf("max relative |P - P_fd| / |P| = %.3g\n", max_rel);
    return check_done("constitutive_stress_matches_energy");
}
