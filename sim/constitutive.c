/* constitutive.c — fixed-corotated elasticity with hardening and the singular-value
 * plasticity clamp of Stomakhin et al. 2013 (eqs. 1, 2, 11, 12), with the stress
 * differential derived in sim/docs/semi-implicit.md. */
#include <stddef.h>
#include <stdint.h>

#include "constitutive.h"
#include "pw_simd.h"


/* ---- helpers ----------------------------------------------------------------- */

/* cof is quadratic in F; this is its derivative at F in direction dF, minor by minor:
 * cof(F)_ij = F_{i+1,j+1} F_{i+2,j+2} - F_{i+1,j+2} F_{i+2,j+1} (indices mod 3). */
static mat3 cofactor_differential(mat3 F, mat3 dF)
{
    mat3 d;
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            d.m[i][j] = dF.m[i1][j1] * F.m[i2][j2] + F.m[i1][j1] * dF.m[i2][j2] -
                        dF.m[i1][j2] * F.m[i2][j1] - F.m[i1][j2] * dF.m[i2][j1];
        }
    }
    return d;
}

/* [w]x, the skew matrix with [w]x a = w x a */
static mat3 skew(vec3 w)
{
    mat3 r = {{{0, -w.z, w.y}, {w.z, 0, -w.x}, {-w.y, w.x, 0}}};
    return r;
}

/* M diag(d), a column scaling: a third of a product with the diagonal matrix */
static mat3 scale_columns(mat3 M, vec3 d)
{
    for (int i = 0; i < 3; i++) {
        M.m[i][0] *= d.x;
        M.m[i][1] *= d.y;
        M.m[i][2] *= d.z;
    }
    return M;
}

/* axial(M - Mᵀ) with M = Rᵀ dF: the right-hand side of (tr(S) I - S) w = axial(...) */
static vec3 rotation_rhs(mat3 R, mat3 dF)
{
    mat3 M = m3_mul(m3_transpose(R), dF);
    return v3(M.m[2][1] - M.m[1][2], M.m[0][2] - M.m[2][0], M.m[1][0] - M.m[0][1]);
}

/* 1 / (s_j + s_k) for the eigenvalue of (tr(S) I - S) along v_i, 0 when singular */
static void pair_sum_inverses(vec3 s, double inv[3])
{
    double d[3] = {s.y + s.z, s.x + s.z, s.x + s.y};
    double scale = fabs(s.x) + fabs(s.y) + fabs(s.z);
    for (int i = 0; i < 3; i++)
        inv[i] = fabs(d[i]) > PW_FCR_SINGULAR_REL * scale ? 1.0 / d[i] : 0.0;
}

/* The shared tail of dP once dR is known (sim/docs/semi-implicit.md, section 2). */
static mat3 stress_differential_from(mat3 dF, mat3 dR, mat3 cofF, double J, double mu,
                                     double lambda, mat3 F)
{
    mat3 dP = m3_scale(m3_sub(dF, dR), 2.0 * mu);
    dP = m3_add(dP, m3_scale(cofF, lambda * m3_ddot(cofF, dF)));
    return m3_add(dP, m3_scale(cofactor_differential(F, dF), lambda * (J - 1.0)));
}

/* ---- public ------------------------------------------------------------------ */

void pw_lame(double E, double nu, double *mu, double *lambda)
{
    *mu = E / (2.0 * (1.0 + nu));
    *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

double pw_hardening(double xi, double Jp) { return exp(xi * (1.0 - Jp)); }

double pw_fcr_energy(mat3 F, double mu, double lambda)
{
    mat3 U, V;
    vec3 s;
    m3_svd(F, &U, &s, &V);
    /* |F - R|^2 = sum (s_i - 1)^2 in the rotation-variant SVD, exact for inverted F */
    double dev = (s.x - 1) * (s.x - 1) + (s.y - 1) * (s.y - 1) + (s.z - 1) * (s.z - 1);
    double J = m3_det(F);
    return mu * dev + 0.5 * lambda * (J - 1.0) * (J - 1.0);
}

/* The stress and its differential are formed once, from the cache (R, cof F, J and
 * (tr(S) I - S)^-1 of one SVD of F); the forms from F alone factor F with m3_svd first.
 * They are the scalar reference of the solver's lanes (pw_mpm_linearise_stress). */

void pw_fcr_cache_init_svd(pw_fcr_cache *c, mat3 F, const pw_svd3 *f, double mu, double lambda)
{
    mat3 Vt = m3_transpose(f->V);
    vec3 s = f->sigma;
    c->F = F;
    c->R = m3_mul(f->U, Vt);
    c->cofF = m3_cofactor(F);
    c->J = m3_det(F);
    c->mu = mu;
    c->lambda = lambda;
    double inv[3];
    pair_sum_inverses(s, inv);
    c->inv_trS_minus_S = m3_mul(scale_columns(f->V, v3(inv[0], inv[1], inv[2])), Vt);
}

void pw_fcr_cache_init(pw_fcr_cache *c, mat3 F, double mu, double lambda)
{
    pw_svd3 f;
    m3_svd(F, &f.U, &f.sigma, &f.V);
    pw_fcr_cache_init_svd(c, F, &f, mu, lambda);
}

/* dR = R [w]x, with (tr(S) I - S) w = axial(R^T dF - dF^T R) solved by the cached
 * inverse */
static mat3 rotation_differential(const pw_fcr_cache *c, mat3 dF)
{
    vec3 w = m3_mulv(c->inv_trS_minus_S, rotation_rhs(c->R, dF));
    return m3_mul(c->R, skew(w));
}

mat3 pw_fcr_stress_cached(const pw_fcr_cache *c)
{
    return m3_add(m3_scale(m3_sub(c->F, c->R), 2.0 * c->mu),
                  m3_scale(c->cofF, c->lambda * (c->J - 1.0)));
}

mat3 pw_fcr_stress_differential_cached(const pw_fcr_cache *c, mat3 dF)
{
    mat3 dR = rotation_differential(c, dF);
    return stress_differential_from(dF, dR, c->cofF, c->J, c->mu, c->lambda, c->F);
}

mat3 pw_fcr_stress(mat3 F, double mu, double lambda)
{
    pw_fcr_cache c;
    pw_fcr_cache_init(&c, F, mu, lambda);
    return pw_fcr_stress_cached(&c);
}

mat3 pw_polar_rotation_differential(mat3 F, mat3 dF)
{
    pw_fcr_cache c;
    pw_fcr_cache_init(&c, F, 0.0, 0.0);
    return rotation_differential(&c, dF);
}

mat3 pw_fcr_stress_differential(mat3 F, double mu, double lambda, mat3 dF)
{
    pw_fcr_cache c;
    pw_fcr_cache_init(&c, F, mu, lambda);
    return pw_fcr_stress_differential_cached(&c, dF);
}

/* The unit quaternions of four proper rotations, one per lane, each from its
 * largest-magnitude component (Shepperd): the square root is always of a number >= 1,
 * so no branch loses precision. Each lane takes its branch by masks and does that
 * branch's operations in their order, so the bits are those of one rotation alone; the
 * lanes' square roots and divisions overlap instead of waiting in turn. */
#define HALF 4 /* the rotations packed at a time: the lanes of a v4d */

static inline __attribute__((always_inline)) void rotation_to_quat4(v4d m[3][3], v4d q[4])
{
    const v4d zero = {0, 0, 0, 0};
    v4d tr = m[0][0] + m[1][1] + m[2][2];
    v4m c0 = tr > zero;
    v4m c1 = ~c0 & (m[0][0] > m[1][1]) & (m[0][0] > m[2][2]);
    v4m c2 = ~c0 & ~c1 & (m[1][1] > m[2][2]);
    v4m c3 = ~c0 & ~c1 & ~c2;
    v4d arg = SELECT4(c0, tr + 1.0,
                      SELECT4(c1, 1.0 + m[0][0] - m[1][1] - m[2][2],
                              SELECT4(c2, 1.0 + m[1][1] - m[0][0] - m[2][2],
                                      1.0 + m[2][2] - m[0][0] - m[1][1])));
    sqrt4(&arg);
    v4d s = 2.0 * arg, quarter = 0.25 * s;
    v4d a = m[2][1] - m[1][2], b = m[0][2] - m[2][0], c = m[1][0] - m[0][1];
    v4d d = m[0][1] + m[1][0], e = m[0][2] + m[2][0], f = m[1][2] + m[2][1];
    q[0] = SELECT4(c0, quarter, SELECT4(c1, a, SELECT4(c2, b, c)) / s);
    q[1] = SELECT4(c1, quarter, SELECT4(c0, a, SELECT4(c2, d, e)) / s);
    q[2] = SELECT4(c2, quarter, SELECT4(c0, b, SELECT4(c1, d, f)) / s);
    q[3] = SELECT4(c3, quarter, SELECT4(c0, c, SELECT4(c1, e, f)) / s);
}

PW_CLONES("avx2", "default") void pw_svd3_pack_batch(int n, const pw_svd3 *f, pw_svd3_packed *out)
{
    for (int h = 0; h * HALF < n; h++) /* (the halves' chains are short: one after the other) */
        for (int which = 0; which < 2; which++) { /* U, then V */
            v4d m[3][3] = {{{0}}}, q[4];
            for (int l = 0; l < HALF; l++) {
                int k = HALF * h + l;
                const mat3 *R = k < n ? (which ? &f[k].V : &f[k].U) : &f[0].U; /* spare lanes */
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) m[i][j][l] = R->m[i][j];
            }
            rotation_to_quat4(m, q);
            for (int l = 0; l < HALF && HALF * h + l < n; l++)
                for (int k = 0; k < 4; k++)
                    (which ? out[HALF * h + l].qV : out[HALF * h + l].qU)[k] = q[k][l];
        }
    for (int l = 0; l < n; l++) out[l].sigma = f[l].sigma;
}

void pw_svd3_pack(const pw_svd3 *f, pw_svd3_packed *out) { pw_svd3_pack_batch(1, f, out); }

void pw_svd3_unpack(const pw_svd3_packed *in, pw_svd3 *f)
{
    f->U = pw_quat_to_rotation(in->qU);
    f->V = pw_quat_to_rotation(in->qV);
    f->sigma = in->sigma;
}

int pw_plasticity_update(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s, mat3 *Fe_out,
                         mat3 *Fp_out)
{
    pw_svd3 f;
    return pw_plasticity_update_svd(Fe_hat, Fp, theta_c, theta_s, 0.0, NULL, Fe_out, Fp_out, &f);
}

int pw_plasticity_update_svd(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s,
                             double Jp_floor, const mat3 *V_guess, mat3 *Fe_out, mat3 *Fp_out,
                             pw_svd3 *svd_out)
{
    pw_svd3 warm;
    int ok = 0;
    if (V_guess) pw_svd_warm_batch(1, &Fe_hat, V_guess, &warm, &ok);
    return pw_plasticity_update_from_svd(&Fe_hat, &Fp, theta_c, theta_s, Jp_floor,
                                         ok ? &warm : NULL, Fe_out, Fp_out, svd_out);
}

int pw_plasticity_update_from_svd(const mat3 *Fe_hat_in, const mat3 *Fp_in, double theta_c,
                                  double theta_s, double Jp_floor, const pw_svd3 *svd_hat,
                                  mat3 *Fe_out, mat3 *Fp_out, pw_svd3 *svd_out)
{
    const pw_plastic_law law = {1, theta_c, theta_s, Jp_floor, 0, 0, 0, 0, 0};
    return pw_plasticity_update_law(Fe_hat_in, Fp_in, &law, svd_hat, Fe_out, Fp_out, svd_out,
                                    NULL);
}

double pw_drucker_prager_alpha(double phi) { return pw_drucker_prager_alpha_of_sin(sin(phi)); }

/* log|x| and back, with |x| held above this so an element crushed to a point has a
 * finite strain (the cone then pushes it back towards its apex) */
#define DP_LEAST_STRETCH 1e-6

/* The return mappings' common ends: the Hencky strain of s shifted by the apex,
 * eps = log|s| - apex, and its trace; and back, s from out = log|s| with each value's sign
 * kept (an inverted element's negative value stays negative). */
static double shifted_hencky(vec3 s, double apex, double sv[3], double eps[3])
{
    sv[0] = s.x, sv[1] = s.y, sv[2] = s.z;
    for (int k = 0; k < 3; k++) eps[k] = log(fmax(fabs(sv[k]), DP_LEAST_STRETCH)) - apex;
    return eps[0] + eps[1] + eps[2];
}

static vec3 stretches_of(const double out[3], const double sv[3])
{
    return v3(copysign(exp(out[0]), sv[0]), copysign(exp(out[1]), sv[1]),
              copysign(exp(out[2]), sv[2]));
}

vec3 pw_drucker_prager_project(vec3 s, double mu, double lambda, double alpha, double apex)
{
    if (!(mu > 0)) return s;
    double sv[3], eps[3], out[3];
    double tr = shifted_hencky(s, apex, sv, eps);
    if (tr >= 0) {
        for (int k = 0; k < 3; k++) out[k] = apex;
    } else {
        double e[3], e2 = 0;
        for (int k = 0; k < 3; k++) {
            e[k] = eps[k] - tr / 3.0;
            e2 += e[k] * e[k];
        }
        double en = sqrt(e2);
        double dgamma = en + (3.0 * lambda + 2.0 * mu) / (2.0 * mu) * alpha * tr;
        if (dgamma <= 0 || en == 0) return s; /* inside the cone */
        for (int k = 0; k < 3; k++) out[k] = eps[k] - dgamma * e[k] / en + apex;
    }
    return stretches_of(out, sv);
}

vec3 pw_mohr_coulomb_project(vec3 s, double mu, double lambda, double sin_phi, double apex)
{
    if (!(mu > 0)) return s;
    double sv[3], eps[3], out[3];
    double tr = shifted_hencky(s, apex, sv, eps);
    if (tr >= 0) {
        for (int k = 0; k < 3; k++) out[k] = apex;
        return stretches_of(out, sv);
    }
    /* principal Kirchhoff stresses in the order of the strains (isotropic elasticity) */
    int i1 = 0, i3 = 0;
    for (int k = 1; k < 3; k++) {
        if (eps[k] > eps[i1]) i1 = k;
        if (eps[k] < eps[i3]) i3 = k;
    }
    if (i1 == i3) return s; /* no deviator: inside */
    int i2 = 3 - i1 - i3;
    double tau[3];
    for (int k = 0; k < 3; k++) tau[k] = 2.0 * mu * eps[k] + lambda * tr;
    const double sp = 1.0 + sin_phi, sm = 1.0 - sin_phi;
    double fa = sp * tau[i1] - sm * tau[i3];
    if (fa <= 0) return s; /* inside the pyramid */
    for (int k = 0; k < 3; k++) out[k] = eps[k];
    double a = fa / (4.0 * mu);
    double t1 = tau[i1] - 2.0 * mu * a, t3 = tau[i3] + 2.0 * mu * a;
    if (t1 >= tau[i2] && tau[i2] >= t3) {
        out[i1] -= a, out[i3] += a; /* the face: flow (1, 0, -1) */
    } else if (tau[i2] > t1) {
        /* the edge tau_max = tau_mid: faces (1, 3) and (2, 3) */
        double fb = sp * tau[i2] - sm * tau[i3], det = 2.0 * mu * (4.0 - sm * sm);
        double ga = (2.0 * fa - sm * fb) / det, gb = (2.0 * fb - sm * fa) / det;
        out[i1] -= ga, out[i2] -= gb, out[i3] += ga + gb;
    } else {
        /* the edge tau_mid = tau_min: faces (1, 3) and (1, 2) */
        double fc = sp * tau[i1] - sm * tau[i2], det = 2.0 * mu * (4.0 - sp * sp);
        double ga = (2.0 * fa - sp * fc) / det, gc = (2.0 * fc - sp * fa) / det;
        out[i1] -= ga + gc, out[i3] += ga, out[i2] += gc;
    }
    for (int k = 0; k < 3; k++) out[k] += apex;
    return stretches_of(out, sv);
}

int pw_plasticity_update_law(const mat3 *Fe_hat_in, const mat3 *Fp_in, const pw_plastic_law *law,
                             const pw_svd3 *svd_hat, mat3 *Fe_out, mat3 *Fp_out,
                             pw_svd3 *svd_out, double *plastic_stretch)
{
    const mat3 Fe_hat = *Fe_hat_in, Fp = *Fp_in; /* (the outputs may be the inputs) */
    if (!m3_isfinite(Fe_hat) || !m3_isfinite(Fp)) return -1;
    pw_svd3 own;
    if (!svd_hat) {
        m3_svd(Fe_hat, &own.U, &own.sigma, &own.V);
        svd_hat = &own;
    }
    const mat3 U = svd_hat->U, V = svd_hat->V;
    const vec3 s_hat = svd_hat->sigma;
    if (!v3_isfinite(s_hat)) return -1;
    const double Jp_floor = law->Jp_floor;
    vec3 s = s_hat;
    if (law->clamp) {
        double lo = 1.0 - law->theta_c, hi = 1.0 + law->theta_s;
        s = v3(clamp(s_hat.x, lo, hi), clamp(s_hat.y, lo, hi), clamp(s_hat.z, lo, hi));
    }
    if (law->alpha > 0) s = pw_drucker_prager_project(s, law->mu, law->lambda, law->alpha, law->apex);
    if (law->mc_sin_phi > 0)
        s = pw_mohr_coulomb_project(s, law->mu, law->lambda, law->mc_sin_phi, law->apex);
    if (plastic_stretch) {
        /* log(1) = 0 exactly: an elastic step (most of them) needs no logarithm */
        double r[3] = {fabs(s_hat.x) / fabs(s.x), fabs(s_hat.y) / fabs(s.y),
                       fabs(s_hat.z) / fabs(s.z)}, sum = 0;
        for (int k = 0; k < 3; k++) {
            double d = r[k] > 1.0 ? log(r[k]) : 0.0;
            sum += d * d;
        }
        *plastic_stretch = isfinite(sum) ? sqrt(sum) : 0;
    }
    if (Jp_floor > 0) {
        /* det Fp_out = det Fp prod(s_hat / s): below the floor, shrink s by k with
         * k^3 = that / floor, which moves the excess compression into Fe */
        double jp = m3_det(Fp) * (s_hat.x / s.x) * (s_hat.y / s.y) * (s_hat.z / s.z);
        if (jp < Jp_floor) {
            s = v3_scale(s, cbrt(jp / Jp_floor));
            double je = s.x * s.y * s.z; /* (s > 0: the clamp's band and a positive k) */
            if (je < PW_FLOOR_JE_MIN) s = v3_scale(s, cbrt(PW_FLOOR_JE_MIN / je));
        }
    }
    if (s.x == s_hat.x && s.y == s_hat.y && s.z == s_hat.z) {
        /* elastic: U Sigma Vᵀ is Fe_hat and the push below the identity, to rounding */
        *Fe_out = Fe_hat;
        *Fp_out = Fp;
    } else {
        mat3 Vt = m3_transpose(V);
        /* eq. 12: Fe = U Sigma Vᵀ; Fp = V Sigma^-1 Uᵀ Fe_hat Fp = V (Sigma_hat / Sigma) Vᵀ Fp,
         * the second form skipping the Uᵀ U round trip so Fe Fp keeps Fe_hat Fp to
         * rounding */
        *Fe_out = m3_mul(scale_columns(U, s), Vt);
        vec3 push = v3(s_hat.x / s.x, s_hat.y / s.y, s_hat.z / s.z);
        *Fp_out = m3_mul(m3_mul(scale_columns(V, push), Vt), Fp);
    }
    svd_out->U = U;
    svd_out->V = V;
    svd_out->sigma = s;
    return 0;
}
