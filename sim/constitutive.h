/* constitutive.h — the snow model of Stomakhin et al. 2013, section 5 and 7:
 * fixed-corotated elasticity with hardening, and plasticity by singular-value clamp.
 * Notation and derivation: sim/docs/semi-implicit.md. Pure functions, thread safe. */
#ifndef PW_CONSTITUTIVE_H
#define PW_CONSTITUTIVE_H

#include "pw_math.h"
#include "pw_svd.h"

/* (tr(S) I - S) has eigenvalues s_j + s_k (pairs of singular values). A pair whose sum
 * is below this fraction of |s_1|+|s_2|+|s_3| is treated as singular: that rotation
 * mode of dR is dropped (pseudo-inverse) instead of blowing up, which only happens for
 * an inverted, degenerate element. */
#define PW_FCR_SINGULAR_REL 1e-10

/* Lamé parameters from Young's modulus E [Pa] and Poisson's ratio nu [-]. */
void pw_lame(double E, double nu, double *mu, double *lambda);

/* Hardening factor e^{xi (1 - Jp)} of eq. 2, with Jp already clamped by the caller's
 * material bounds. */
double pw_hardening(double xi, double Jp);

/* Energy density Psi(F) = mu |F - R|^2 + lambda/2 (J - 1)^2  [J/m^3]  (eq. 1). */
double pw_fcr_energy(mat3 F, double mu, double lambda);

/* First Piola-Kirchhoff stress P = dPsi/dF = 2 mu (F - R) + lambda (J - 1) cof(F). */
mat3 pw_fcr_stress(mat3 F, double mu, double lambda);

/* Stress differential dP = d^2Psi/dF^2 : dF, including the rotation derivative dR
 * (sim/docs/semi-implicit.md, section 2). Singular (tr(S) I - S) is guarded. */
mat3 pw_fcr_stress_differential(mat3 F, double mu, double lambda, mat3 dF);

/* dR for F = R S and a perturbation dF (exposed for the finite-difference test). */
mat3 pw_polar_rotation_differential(mat3 F, mat3 dF);

/* What the stress and its differential are formed from, once per F: R, cof(F), J and
 * (tr(S) I - S)^-1 (S itself, F = R S, is needed only through that inverse). The
 * functions on it are the scalar definition of P and dP: the ones above factor F with
 * m3_svd and call them, and the solver's lanes (pw_mpm_linearise_stress, hessian.h,
 * which forms K = the matrix of G -> V0 dP(F; G F) F^T) are tested against them. */
typedef struct {
    mat3 F, R, cofF;
    double J, mu, lambda;
    mat3 inv_trS_minus_S;  /* (tr(S) I - S)^-1, zero when singular */
} pw_fcr_cache;
void pw_fcr_cache_init(pw_fcr_cache *c, mat3 F, double mu, double lambda);

/* An SVD (pw_svd3, pw_svd.h) with each rotation as a unit quaternion (w, x, y, z): 88
 * bytes instead of 168, what the solver keeps per particle between steps. Unpacking
 * gives rotations orthogonal to rounding that differ from the packed ones by a few
 * ulps. */
typedef struct {
    double qU[4], qV[4];
    vec3 sigma;
} pw_svd3_packed;
void pw_svd3_pack(const pw_svd3 *f, pw_svd3_packed *out);
/* The same for n <= PW_SVD_BATCH factorisations at once (faster; the same bits). */
void pw_svd3_pack_batch(int n, const pw_svd3 *f, pw_svd3_packed *out);
void pw_svd3_unpack(const pw_svd3_packed *in, pw_svd3 *f);
/* (inline: returned through memory from another unit, the matrix was read back by wide
 * loads that could not be store-forwarded: sim/docs/step-speed.md, second round) */
static inline mat3 pw_quat_to_rotation(const double q[4])
{
    double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    double k = 2.0 / n; /* unit to rounding already; this makes the result orthogonal */
    double w = q[0], x = q[1], y = q[2], z = q[3];
    mat3 R;
    R.m[0][0] = 1.0 - k * (y * y + z * z);
    R.m[0][1] = k * (x * y - z * w);
    R.m[0][2] = k * (x * z + y * w);
    R.m[1][0] = k * (x * y + z * w);
    R.m[1][1] = 1.0 - k * (x * x + z * z);
    R.m[1][2] = k * (y * z - x * w);
    R.m[2][0] = k * (x * z - y * w);
    R.m[2][1] = k * (y * z + x * w);
    R.m[2][2] = 1.0 - k * (x * x + y * y);
    return R;
}

/* pw_fcr_cache_init from a known SVD of F (as the solver's lanes take the one of the
 * plasticity step, which is how it formed Fe, instead of factoring Fe again). */
void pw_fcr_cache_init_svd(pw_fcr_cache *c, mat3 F, const pw_svd3 *f, double mu, double lambda);
/* P and dP(dF) of the cached F, as pw_fcr_stress and pw_fcr_stress_differential. */
mat3 pw_fcr_stress_cached(const pw_fcr_cache *c);
mat3 pw_fcr_stress_differential_cached(const pw_fcr_cache *c, mat3 dF);

/* The least volume the compaction limit leaves to Fe. The fixed-corotated pressure
 * lambda (J - 1) J is largest at J = 1/2 and falls to 0 as J -> 0: squeezed past 1/2,
 * elastic snow softens, and a particle held at the floor collapses (det Fe 1e-13 in
 * the paper snowplow's frame 11, then NaN; sim/docs/snowplow-road.md). */
#define PW_FLOOR_JE_MIN 0.5

/* Eq. 11-12: given the trial elastic gradient Fe_hat = (I + dt grad v) Fe^n and the
 * plastic gradient Fp^n, clamp the singular values of Fe_hat to [1 - theta_c,
 * 1 + theta_s], write Fe^{n+1} = U Sigma V^T and Fp^{n+1} = V Sigma^-1 U^T Fe_hat Fp^n.
 * Returns 0, or -1 when the SVD input is not finite (caller reports it). */
int pw_plasticity_update(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s,
                         mat3 *Fe_out, mat3 *Fp_out);
/* The same, also returning Fe_out's SVD (U, the clamped Sigma, V) in *svd_out, and with
 * a compaction limit: where eq. 12 would take J_P = det Fp below Jp_floor (> 0), the
 * clamped Sigma is scaled down uniformly so that J_P stops at Jp_floor and the rest of
 * the compression stays elastic (Fe Fp = Fe_hat Fp still holds), but only down to
 * det Fe = PW_FLOOR_JE_MIN: past it the compaction goes on below the floor. Jp_floor = 0
 * is the 2013 model. With
 * V_guess (a rotation near Fe_hat's right singular vectors, e.g. the previous step's
 * V; NULL for none) the SVD is a one-sided Jacobi started there, which falls back to
 * m3_svd for near-singular Fe_hat; U, V are proper rotations either way, Sigma is
 * unsorted with a negative value (inversion) only in the smallest. */
int pw_plasticity_update_svd(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s,
                             double Jp_floor, const mat3 *V_guess, mat3 *Fe_out, mat3 *Fp_out,
                             pw_svd3 *svd_out);

/* pw_plasticity_update_svd given Fe_hat's SVD (svd_hat, e.g. from pw_svd_warm_batch;
 * NULL: factored here by m3_svd). The matrices come by address (the solver's loop calls
 * this per particle, and 72-byte arguments by value went through the stack in copies
 * whose reloads stalled on store forwarding); Fp_out may be Fp and Fe_out Fe_hat. */
int pw_plasticity_update_from_svd(const mat3 *Fe_hat, const mat3 *Fp, double theta_c,
                                  double theta_s, double Jp_floor, const pw_svd3 *svd_hat,
                                  mat3 *Fe_out, mat3 *Fp_out, pw_svd3 *svd_out);

/* ---- the optional laws (sim/docs/durable-snow.md) ---------------------------------- */

/* The Drucker-Prager friction coefficient alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)) of
 * friction angle phi [rad]: the cone ||dev tau|| <= -alpha tr tau that meets the
 * Mohr-Coulomb pyramid of angle phi along its compression meridian. */
double pw_drucker_prager_alpha(double phi);
/* The same from sin(phi), for a caller that has it. */
static inline double pw_drucker_prager_alpha_of_sin(double sin_phi)
{
    return sqrt(2.0 / 3.0) * 2.0 * sin_phi / (3.0 - sin_phi);
}

/* The Drucker-Prager return mapping on the Hencky strain eps = log|s| of the singular
 * values s of a trial Fe, for moduli mu > 0, lambda (the hardened ones) and friction
 * coefficient alpha, with the cone's apex shifted to the volumetric strain 3 apex,
 * apex = c cot(phi) / (3 lambda + 2 mu) for cohesion c [Pa] (0: cohesionless). With
 * eps' = eps - apex and its trace t and deviator e:
 *   t >= 0 (net tension past the apex): eps = apex (1, 1, 1), the cone's tip;
 *   else dgamma = |e| + (3 lambda + 2 mu) / (2 mu) alpha t, and where dgamma > 0 the
 *   deviator shrinks by it: eps = eps - dgamma e / |e|.
 * The yield condition and the mapping are exact for the Hencky (St. Venant-Kirchhoff in
 * log strain) energy and agree with the fixed-corotated one to first order in the
 * elastic strain, which the snow's clamp keeps at a few percent. Signs of s are kept
 * (an inverted element's negative value stays negative). Returns the projected s. */
vec3 pw_drucker_prager_project(vec3 s, double mu, double lambda, double alpha, double apex);

/* The Mohr-Coulomb return mapping on the same Hencky strain, for sin_phi = sin(phi) of
 * friction angle phi and the same shifted apex: the yield condition on the principal
 * Kirchhoff stresses tau (tension positive) shifted by the apex's mean stress c cot(phi),
 *   (tau_max - tau_min) + (tau_max + tau_min) sin(phi) <= 0,
 * is Mohr-Coulomb's pyramid, which the cone of pw_drucker_prager_project only touches
 * along the compression meridian (in plane strain the cone is as strong as a pyramid of
 * 44 degrees at phi 30: sim/docs/friction-and-cohesion.md). The flow keeps the volume, as
 * the cone's does, and follows the pyramid's own potential with no dilatancy (Koiter's
 * rule): on a face the largest and smallest principal strains move by +-dgamma and the
 * intermediate stays, so the intermediate stress is not relaxed by the flow (a heap's
 * hoop stress, say); where that would carry tau past an edge, the two faces of the edge
 * return together. Net tension past the apex goes to the apex. Signs of s are kept. */
vec3 pw_mohr_coulomb_project(vec3 s, double mu, double lambda, double sin_phi, double apex);

/* One particle's plastic law: the 2013 clamp, Drucker-Prager or Mohr-Coulomb, or the
 * clamp then one of those (the two combine by projecting in that order: the clamp bounds
 * each singular value, the cone or pyramid then bounds shear by friction and tension by
 * cohesion). */
typedef struct {
    int clamp;               /* 1: clamp to [1 - theta_c, 1 + theta_s] (eq. 11)   */
    double theta_c, theta_s; /* (used with clamp) */
    double Jp_floor;         /* the compaction floor, as pw_plasticity_update_svd */
    double alpha;            /* Drucker-Prager friction coefficient; 0: no cone  */
    double apex;             /* the cone's apex strain (pw_drucker_prager_project) */
    double mu, lambda;       /* [Pa] hardened moduli, for the cone or pyramid */
    double mc_sin_phi;       /* Mohr-Coulomb sin(phi), the pyramid in place of the
                                cone when > 0 (alpha is then 0) */
} pw_plastic_law;

/* pw_plasticity_update_from_svd under law (with law->clamp and alpha 0 it gives the
 * same bits), and the step's plastic stretch: |max(0, log|s_hat| - log|s|)|, the norm of
 * the positive part of the plastic Hencky strain increment before the compaction floor
 * (compaction, the negative part, packs snow and does not count; what breaks bonds is
 * stretch and the stretch share of shear). plastic_stretch may be NULL. */
int pw_plasticity_update_law(const mat3 *Fe_hat, const mat3 *Fp, const pw_plastic_law *law,
                             const pw_svd3 *svd_hat, mat3 *Fe_out, mat3 *Fp_out,
                             pw_svd3 *svd_out, double *plastic_stretch);

#endif
