/* Property: the Drucker-Prager return mapping (pw_drucker_prager_project) on random
 * trial strains, checked against the yield condition it implements, in the Hencky
 * stress tau = 2 mu eps + lambda tr(eps) I of the projected strain eps = log s:
 *   1. a trial state inside the cone, ||dev tau|| < 3 alpha (p + c cot phi) with
 *      p = -tr(tau)/3, comes back bit for bit;
 *   2. a state outside it with p + c cot phi > 0 after the mapping lands on the cone,
 *      ||dev tau|| = 3 alpha (p + c cot phi) to 1e-9 of the stress scale, keeps its
 *      volumetric strain (the flow is deviatoric: tr eps unchanged to 1e-12) and its
 *      deviator's direction (dev eps scaled by a factor in [0, 1));
 *   3. net tension past the apex goes to the apex, eps = (c cot phi / (3 lambda + 2 mu))
 *      (1, 1, 1), where tau = c cot phi I: the cohesion's isotropic tensile strength;
 *   4. on the compression meridian (two equal principal stresses, the third the most
 *      compressive) the cone meets Mohr-Coulomb: the projected stresses satisfy
 *      sigma_1 - sigma_3 = -(sigma_1 + sigma_3) sin phi + 2 c cos phi to 1e-9 (the
 *      alpha of pw_drucker_prager_alpha);
 *   5. the law's plastic stretch (pw_plasticity_update_law): 0 for compaction past
 *      theta_c alone; log(s / (1 + theta_s)) for a stretch past theta_s alone; and with
 *      the cone the norm of the positive part of log(s_hat / s);
 *   6. the 2013 law through pw_plasticity_update_law and through
 *      pw_plasticity_update_from_svd give the same bits. */
#include <string.h>

#define PI 3.14159265358979323846

#include "check.h"
#include "constitutive.h"
#include "return_map_checks.h"

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
    double norm_dev, p; /* ||dev tau||, -tr(tau)/3 */
    double tau[3];
} hencky;

static hencky stress_of(vec3 s, double mu, double lambda)
{
    double e[3] = {log(fabs(s.x)), log(fabs(s.y)), log(fabs(s.z))}, tr = e[0] + e[1] + e[2];
    hencky h;
    for (int k = 0; k < 3; k++) h.tau[k] = 2 * mu * e[k] + lambda * tr;
    h.p = -(h.tau[0] + h.tau[1] + h.tau[2]) / 3;
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (h.tau[k] + h.p) * (h.tau[k] + h.p);
    h.norm_dev = sqrt(d2);
    return h;
}

int main(void)
{
    unsigned long long st = 7;
    const double E = 1.4e5, nu = 0.2;
    double mu, lambda;
    pw_lame(E, nu, &mu, &lambda);
    int inside = 0, on_cone = 0, apex = 0;
    for (int trial = 0; trial < 20000; trial++) {
        double phi_deg = 10 + 70 * urand(&st), phi = phi_deg * PI / 180;
        double c = trial % 3 == 0 ? 0 : 2000 * urand(&st);
        double alpha = pw_drucker_prager_alpha(phi), cot = cos(phi) / sin(phi);
        double shift = c * cot / (3 * lambda + 2 * mu);
        vec3 s = v3(exp(0.03 * (urand(&st) - 0.6)), exp(0.03 * (urand(&st) - 0.6)),
                    exp(0.03 * (urand(&st) - 0.6)));
        hencky in = stress_of(s, mu, lambda);
        vec3 o = pw_drucker_prager_project(s, mu, lambda, alpha, shift);
        hencky out = stress_of(o, mu, lambda);
        double scale = E * 1e-9 * 30;
        double tr_in = log(s.x) + log(s.y) + log(s.z);
        if (in.norm_dev < 3 * alpha * (in.p + c * cot) && in.p + c * cot > 0) {
            CHECK(o.x == s.x && o.y == s.y && o.z == s.z, "trial %d: inside the cone but moved", trial);
            inside++;
        } else if (tr_in - 3 * shift >= 0) {
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(log(fabs(v3_get(o, k))), shift, 1e-12, "apex strain");
            CHECK_NEAR(out.p, -c * cot, 1e-9 * (1 + c * cot), "apex pressure = -c cot phi");
            apex++;
        } else {
            CHECK_NEAR(out.norm_dev, 3 * alpha * (out.p + c * cot), scale, "on the cone");
            check_isochoric_return(s, o, trial);
            on_cone++;
        }
    }
    CHECK(inside > 1000 && on_cone > 1000 && apex > 1000,
          "each case drawn often: %d inside, %d on the cone, %d to the apex", inside, on_cone, apex);

    /* 4. the compression meridian meets Mohr-Coulomb */
    for (int q = 0; q < 6; q++) {
        double phi = (15 + 10 * q) * PI / 180, c = 300.0 * q;
        double alpha = pw_drucker_prager_alpha(phi), cot = cos(phi) / sin(phi);
        double shift = c * cot / (3 * lambda + 2 * mu);
        vec3 s = v3(exp(0.008), exp(0.008), exp(-0.02)); /* squeezed along z, past the cone */
        vec3 o = pw_drucker_prager_project(s, mu, lambda, alpha, shift);
        hencky h = stress_of(o, mu, lambda);
        double s1 = h.tau[0], s3 = h.tau[2]; /* s3 the most compressive */
        CHECK_NEAR(h.tau[0], h.tau[1], 1e-9 * E, "two equal principal stresses");
        CHECK_NEAR(s1 - s3, -(s1 + s3) * sin(phi) + 2 * c * cos(phi), 1e-9 * E,
                   "Mohr-Coulomb on the compression meridian");
    }

    /* 5-6. the law's plastic stretch, and the 2013 law's bits */
    const double theta_c = 2.5e-2, theta_s = 7.5e-3;
    pw_plastic_law clamp_law = {1, theta_c, theta_s, 0, 0, 0, 0, 0, 0};
    mat3 Fp = m3_identity(), Fe, Fp_out, Fe2, Fp2;
    pw_svd3 f, f2;
    double stretch = -1;
    mat3 squeeze = m3_diag(0.95, 0.99, 1.0);
    CHECK(pw_plasticity_update_law(&squeeze, &Fp, &clamp_law, NULL, &Fe, &Fp_out, &f, &stretch) == 0,
          "update");
    CHECK(stretch == 0, "compaction is no stretch: %g", stretch);
    mat3 pull = m3_diag(1.02, 1.0, 1.0);
    CHECK(pw_plasticity_update_law(&pull, &Fp, &clamp_law, NULL, &Fe, &Fp_out, &f, &stretch) == 0,
          "update");
    CHECK_NEAR(stretch, log(1.02 / (1 + theta_s)), 1e-14, "stretch past theta_s");
    CHECK(pw_plasticity_update_from_svd(&pull, &Fp, theta_c, theta_s, 0, NULL, &Fe2, &Fp2, &f2) == 0,
          "2013 update");
    CHECK(!memcmp(&Fe, &Fe2, sizeof Fe) && !memcmp(&Fp_out, &Fp2, sizeof Fp2) &&
              !memcmp(&f.sigma, &f2.sigma, sizeof f.sigma),
          "the 2013 law's bits through either entry");
    pw_plastic_law cone = {1, theta_c, theta_s, 0, pw_drucker_prager_alpha(0.6), 0, mu, lambda, 0};
    mat3 shear = m3_diag(1.004, 0.996, 1.0);
    pw_svd3 shear_svd = {m3_identity(), m3_identity(), v3(1.004, 0.996, 1.0)};
    CHECK(pw_plasticity_update_law(&shear, &Fp, &cone, &shear_svd, &Fe, &Fp_out, &f, &stretch) == 0,
          "cone update");
    vec3 so = f.sigma;
    double d[3] = {log(1.004 / fabs(so.x)), log(0.996 / fabs(so.y)), log(1.0 / fabs(so.z))}, want = 0;
    for (int k = 0; k < 3; k++) want += d[k] > 0 ? d[k] * d[k] : 0;
    CHECK(want > 0, "the cohesionless cone yields under shear at no pressure");
    CHECK_NEAR(stretch, sqrt(want), 1e-14, "stretch with the cone");
    return check_done("constitutive_drucker_prager");
}
