/* Property: the Mohr-Coulomb return mapping (pw_mohr_coulomb_project) on random trial
 * strains, checked against Mohr-Coulomb's yield condition in the Hencky stress
 * tau = 2 mu eps + lambda tr(eps) I of the projected strain eps = log s (tension
 * positive, principal stresses tau_max >= tau_mid >= tau_min):
 *   f = (tau_max - tau_min) + (tau_max + tau_min) sin phi - 2 c cos phi <= 0.
 *   1. a trial state with f < 0 comes back bit for bit;
 *   2. a state with f > 0 under net compression past the apex lands on the pyramid,
 *      f = 0 to 1e-9 of the stress scale, keeps its volumetric strain (to 1e-12) and
 *      flows by Mohr-Coulomb's own potential (check_mohr_coulomb_flow): along
 *      (1, 0, -1) in the principal order, the intermediate moving only on an edge; the
 *      flow is isochoric, as the cone's is;
 *   3. net tension past the apex goes to it: tau = c cot phi I;
 *   4. the pyramid lies inside the cone that meets it on the compression meridian
 *      (pw_drucker_prager_alpha): every projected state satisfies the cone's condition,
 *      and on the compression meridian both mappings give the same stress;
 *   5. in plane strain with no out-of-plane deviatoric stress (pure shear plus
 *      pressure), the projected state is Mohr-Coulomb's plane-strain limit
 *      (tau_1 - tau_3) / 2 = c cos phi - (tau_1 + tau_3) / 2 sin phi, where the cone
 *      allows shear 2 sqrt 3 / (3 - sin phi) times larger at no cohesion;
 *   6. through pw_plasticity_update_law (mc_sin_phi) the same singular values. */
#define PI 3.14159265358979323846

#include "check.h"
#include "constitutive.h"
#include "return_map_checks.h"

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

/* the principal Hencky stresses of s, and Mohr-Coulomb's f */
static double mc_f(vec3 s, double mu, double lambda, double phi, double c, double tau[3])
{
    double e[3] = {log(fabs(s.x)), log(fabs(s.y)), log(fabs(s.z))}, tr = e[0] + e[1] + e[2];
    for (int k = 0; k < 3; k++) tau[k] = 2 * mu * e[k] + lambda * tr;
    double hi = fmax(tau[0], fmax(tau[1], tau[2])), lo = fmin(tau[0], fmin(tau[1], tau[2]));
    return (hi - lo) + (hi + lo) * sin(phi) - 2 * c * cos(phi);
}

static double log_trace(vec3 s) { return log(fabs(s.x)) + log(fabs(s.y)) + log(fabs(s.z)); }

int main(void)
{
    unsigned long long st = 11;
    const double E = 1.4e5, nu = 0.2;
    double mu, lambda;
    pw_lame(E, nu, &mu, &lambda);
    const double scale = E * 1e-9 * 30;
    int inside = 0, on_pyramid = 0, apex = 0, on_edge[3] = {0};
    for (int trial = 0; trial < 20000; trial++) {
        double phi = (10 + 70 * urand(&st)) * PI / 180, sp = sin(phi), cot = cos(phi) / sp;
        double c = trial % 3 == 0 ? 0 : 2000 * urand(&st);
        double shift = c * cot / (3 * lambda + 2 * mu);
        vec3 s = v3(exp(0.03 * (urand(&st) - 0.6)), exp(0.03 * (urand(&st) - 0.6)),
                    exp(0.03 * (urand(&st) - 0.6)));
        double tau[3], f_in = mc_f(s, mu, lambda, phi, c, tau);
        vec3 o = pw_mohr_coulomb_project(s, mu, lambda, sp, shift);
        double tau_out[3], f_out = mc_f(o, mu, lambda, phi, c, tau_out);
        double tr_in = log_trace(s);
        /* 4. inside the cone */
        double p = -(tau_out[0] + tau_out[1] + tau_out[2]) / 3, d2 = 0;
        for (int k = 0; k < 3; k++) d2 += (tau_out[k] + p) * (tau_out[k] + p);
        CHECK(sqrt(d2) <= 3 * pw_drucker_prager_alpha(phi) * (p + c * cot) + scale,
              "trial %d: outside the cone that meets the pyramid", trial);
        if (tr_in - 3 * shift >= 0) {
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(log(fabs(v3_get(o, k))), shift, 1e-12, "apex strain");
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(tau_out[k], c * cot, 1e-9 * (1 + c * cot), "apex stress c cot phi");
            apex++;
        } else if (f_in < 0) {
            CHECK(o.x == s.x && o.y == s.y && o.z == s.z, "trial %d: inside but moved", trial);
            inside++;
        } else {
            CHECK(fabs(f_out) <= scale, "trial %d: off the pyramid by %g", trial, f_out);
            on_edge[check_mohr_coulomb_flow(s, o, trial)]++;
            on_pyramid++;
        }
    }
    CHECK(inside > 1000 && on_pyramid > 1000 && apex > 1000,
          "each case drawn often: %d inside, %d on the pyramid, %d to the apex", inside,
          on_pyramid, apex);
    CHECK(on_edge[0] > 100 && on_edge[1] > 100 && on_edge[2] > 100,
          "each part of the pyramid drawn often: %d on a face, %d and %d on the edges", on_edge[0],
          on_edge[1], on_edge[2]);

    for (int q = 0; q < 6; q++) {
        double phi = (15 + 10 * q) * PI / 180, sp = sin(phi), c = 300.0 * q;
        double shift = c * (cos(phi) / sp) / (3 * lambda + 2 * mu), tau[3], tau_dp[3];
        /* 4. the compression meridian: the cone's answer */
        vec3 sq = v3(exp(0.008), exp(0.008), exp(-0.02));
        vec3 o = pw_mohr_coulomb_project(sq, mu, lambda, sp, shift);
        vec3 od = pw_drucker_prager_project(sq, mu, lambda, pw_drucker_prager_alpha(phi), shift);
        mc_f(o, mu, lambda, phi, c, tau);
        mc_f(od, mu, lambda, phi, c, tau_dp);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(tau[k], tau_dp[k], 1e-9 * E, "the meridian: the cone's stress");
        /* 5. plane strain, pure shear under pressure: eps = (-g, +g, 0) - pressure */
        vec3 ps = v3(exp(-0.03 - 0.004), exp(0.03 - 0.004), exp(-0.004)); /* past the limit */
        o = pw_mohr_coulomb_project(ps, mu, lambda, sp, shift);
        mc_f(o, mu, lambda, phi, c, tau);
        CHECK_NEAR(tau[2], (tau[0] + tau[1]) / 2, 1e-9 * E, "no out-of-plane deviator");
        CHECK_NEAR((tau[1] - tau[0]) / 2, c * cos(phi) - (tau[0] + tau[1]) / 2 * sp, 1e-9 * E,
                   "the plane-strain limit");
        /* 6. through the law */
        pw_plastic_law law = {0, 0, 0, 0, 0, shift, mu, lambda, sp};
        mat3 Fp = m3_identity(), Fe, Fp_out, F = m3_diag(ps.x, ps.y, ps.z);
        pw_svd3 f;
        CHECK(pw_plasticity_update_law(&F, &Fp, &law, NULL, &Fe, &Fp_out, &f, NULL) == 0, "update");
        vec3 so = f.sigma;
        double got[3] = {so.x, so.y, so.z}, want[3] = {o.x, o.y, o.z};
        for (int a = 0; a < 3; a++) {
            int hit = 0;
            for (int b = 0; b < 3; b++) hit |= fabs(got[a] - want[b]) < 1e-14;
            CHECK(hit, "phi %d: the law's singular value %d (%.17g)", q, a, got[a]);
        }
    }
    return check_done("constitutive_mohr_coulomb");
}
