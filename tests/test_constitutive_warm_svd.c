/* Property: the plasticity step's SVD started from a guess of V (the solver passes the
 * previous step's) is a valid SVD of Fe_hat: U and V are proper rotations
 * (|X^T X - I| <= 1e-13, det = 1 to 1e-13) and, with a clamp too wide to act,
 * |U Sigma V^T - Fe_hat| <= 1e-13 |Fe_hat| and |Sigma| matches m3_svd's singular values
 * to 1e-13 relative. 1e-13 is a few hundred ulps: the rotations stop when column pairs
 * are orthogonal to 1e-15 relative and each product of 3x3 factors adds a few ulps;
 * a wrong rotation sign or a missed sweep errs by the size of the off-diagonal, >= 1e-6
 * here. Cases:
 *  1. Fe_hat = (I + dt grad v) U0 S0 V0^T from V0 (the solver's case), 200 draws with
 *     dt grad v of 1e-2 and 1e-3; here U is also orthogonal to 1e-14 (at most 1.7e-15
 *     over bench_plasticity's 3e5 inputs), which the sweeps, stopping without a
 *     confirming one, must keep;
 *  2. Fe_hat an exact rotation, repeated singular values (nothing to rotate);
 *  3. a guess unrelated to Fe_hat (a random rotation): still a valid SVD;
 *  4. inverted Fe_hat (det < 0), with the real clamp: U, V proper, the clamped Sigma
 *     positive, and Fe_out Fp_out = Fe_hat Fp (eq. 12) to 1e-12;
 *  5. rank-2 Fe_hat (falls back to m3_svd): still valid;
 *  6. the SVD the solver keeps between steps, packed as two quaternions: unpacked
 *     rotations within 3e-15 of the packed ones entry by entry and orthogonal to 4e-15
 *     (a few ulps: 1.2e-15 and 1.6e-15 measured), over every branch of the quaternion
 *     extraction (rotations by up to 2 pi about random axes, and half turns about the
 *     three coordinate axes); a swapped sign or index errs by O(1). */
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

static double rotation_error(mat3 X)
{
    double e = m3_norm_frobenius(m3_sub(m3_mul(m3_transpose(X), X), m3_identity()));
    return fmax(e, fabs(m3_det(X) - 1.0));
}

/* Checks the SVD of F found from V_guess with a clamp that leaves Sigma alone; returns
 * U's departure from a rotation. */
static double check_svd(mat3 F, const mat3 *V_guess, const char *what)
{
    mat3 Fe, Fp;
    pw_svd3 f;
    int rc = pw_plasticity_update_svd(F, m3_identity(), 1.0 - 1e-9, 1e9, 0.0, V_guess, &Fe, &Fp, &f);
    CHECK(rc == 0, "%s: rc %d", what, rc);
    double eu = rotation_error(f.U), ev = rotation_error(f.V);
    CHECK(eu <= 1e-13 && ev <= 1e-13, "%s: U, V not proper rotations (%.3g, %.3g)", what, eu, ev);
    mat3 R = m3_mul(m3_mul(f.U, m3_diag(f.sigma.x, f.sigma.y, f.sigma.z)), m3_transpose(f.V));
    double er = m3_norm_frobenius(m3_sub(R, F)) / m3_norm_frobenius(F);
    CHECK(er <= 1e-13, "%s: |U S V^T - F| / |F| = %.3g", what, er);
    /* singular values as a set, against m3_svd's (sorted, decreasing) */
    mat3 U, V;
    vec3 s;
    m3_svd(F, &U, &s, &V);
    double a[3] = {fabs(f.sigma.x), fabs(f.sigma.y), fabs(f.sigma.z)};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (a[j] > a[i]) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
    double ref[3] = {fabs(s.x), fabs(s.y), fabs(s.z)};
    for (int i = 0; i < 3; i++)
        CHECK(fabs(a[i] - ref[i]) <= 1e-13 * ref[0], "%s: sigma_%d %.17g vs m3_svd %.17g", what,
              i, a[i], ref[i]);
    return eu;
}

int main(void)
{
    unsigned long long st = 12345;

    /* 1. the solver's case: a small velocity-gradient step from a known SVD */
    double eu_max = 0;
    for (int k = 0; k < 200; k++) {
        mat3 U0 = random_rotation(&st), V0 = random_rotation(&st);
        mat3 S0 = m3_diag(0.9 + 0.2 * urand(&st), 0.9 + 0.2 * urand(&st), 0.9 + 0.2 * urand(&st));
        mat3 G = m3_zero();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) G.m[i][j] = (k % 2 ? 0.02 : 0.002) * (urand(&st) - 0.5);
        mat3 F = m3_mul(m3_add(m3_identity(), G), m3_mul(m3_mul(U0, S0), m3_transpose(V0)));
        eu_max = fmax(eu_max, check_svd(F, &V0, "1. step from the previous SVD"));
    }
    CHECK(eu_max <= 1e-14, "1. U orthogonal to only %.3g", eu_max);

    /* 2. exact rotation: all singular values 1 */
    mat3 Q = random_rotation(&st), V0 = random_rotation(&st);
    check_svd(Q, &V0, "2. rotation");
    check_svd(m3_identity(), &V0, "2. identity");

    /* 3. unrelated guess */
    for (int k = 0; k < 20; k++) {
        mat3 F = m3_zero();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) F.m[i][j] = (i == j) + 0.5 * (urand(&st) - 0.5);
        mat3 Vg = random_rotation(&st);
        check_svd(F, &Vg, "3. unrelated guess");
    }

    /* 4. inverted: one reflected axis */
    mat3 Fi = m3_mul(random_rotation(&st), m3_diag(1.01, 0.98, -0.97));
    Fi = m3_mul(Fi, m3_transpose(V0));
    {
        mat3 Fe, Fp, Fp0 = m3_add(m3_identity(), m3_scale(m3_identity(), 0.01));
        pw_svd3 f;
        CHECK(pw_plasticity_update_svd(Fi, Fp0, 2.5e-2, 7.5e-3, 0.0, &V0, &Fe, &Fp, &f) == 0,
              "4. clamp rc");
        mat3 want = m3_mul(Fi, Fp0), got = m3_mul(Fe, Fp);
        double e = m3_norm_frobenius(m3_sub(got, want)) / m3_norm_frobenius(want);
        CHECK(e <= 1e-12, "4. Fe Fp = Fe_hat Fp_old: rel %.3g", e);
        double eu = rotation_error(f.U), ev = rotation_error(f.V);
        CHECK(eu <= 1e-13 && ev <= 1e-13, "4. U, V not proper rotations (%.3g, %.3g)", eu, ev);
        int neg = (f.sigma.x < 0) + (f.sigma.y < 0) + (f.sigma.z < 0);
        CHECK(neg == 0, "4. clamped sigma must be positive (%d negative)", neg);
    }

    /* 5. rank 2: the one-sided rotations leave a zero column, m3_svd takes over */
    mat3 F2 = m3_mul(m3_mul(random_rotation(&st), m3_diag(1.0, 0.9, 0.0)), m3_transpose(V0));
    {
        mat3 Fe, Fp;
        pw_svd3 f;
        CHECK(pw_plasticity_update_svd(F2, m3_identity(), 1.0 - 1e-9, 1e9, 0.0, &V0, &Fe, &Fp, &f) == 0,
              "5. rc");
        double eu = rotation_error(f.U), ev = rotation_error(f.V);
        CHECK(eu <= 1e-13 && ev <= 1e-13, "5. U, V not proper rotations (%.3g, %.3g)", eu, ev);
    }
    /* 6. pack and unpack */
    double pack_max = 0, orth_max = 0;
    for (int k = 0; k < 2000; k++) {
        pw_svd3 f = {random_rotation(&st), random_rotation(&st), v3(1, 0.9, 1.1)}, g;
        if (k < 3) { /* half turns about x, y, z: the trace is -1, the branches by diagonal */
            vec3 axis = v3(k == 0, k == 1, k == 2);
            f.U = m3_rotation(axis, 3.141592653589793);
            f.V = m3_rotation(axis, -3.141592653589793);
        }
        pw_svd3_packed pk;
        pw_svd3_pack(&f, &pk);
        pw_svd3_unpack(&pk, &g);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                pack_max = fmax(pack_max, fmax(fabs(g.U.m[i][j] - f.U.m[i][j]), fabs(g.V.m[i][j] - f.V.m[i][j])));
        orth_max = fmax(orth_max, fmax(rotation_error(g.U), rotation_error(g.V)));
        CHECK(g.sigma.x == f.sigma.x && g.sigma.y == f.sigma.y && g.sigma.z == f.sigma.z, "6. sigma");
    }
    printf("6. packed SVD: rotations within %.3g entry by entry, orthogonal to %.3g\n", pack_max,
           orth_max);
    CHECK(pack_max <= 3e-15, "6. unpacked rotations %.3g from the packed ones", pack_max);
    CHECK(orth_max <= 4e-15, "6. unpacked rotations orthogonal to only %.3g", orth_max);

    return check_done("constitutive_warm_svd");
}
