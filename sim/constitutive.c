/* constitutive.c — fixed-corotated elasticity with hardening and the singular-value
 * plasticity clamp of Stomakhin et al. 2013 (eqs. 1, 2, 11, 12), with the stress
 * differential of ../shared/reference/math-notes.md. */
#include <stddef.h>

#include "constitutive.h"

/* (tr(S) I - S) has eigenvalues s_j + s_k (pairs of singular values). A pair whose sum
 * is below this fraction of |s_1|+|s_2|+|s_3| is treated as singular: that rotation
 * mode of dR is dropped (pseudo-inverse) instead of blowing up, which only happens for
 * an inverted, degenerate element. */
#define FCR_SINGULAR_REL 1e-10

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
    for (int i = 0; i < 3; i++) inv[i] = fabs(d[i]) > FCR_SINGULAR_REL * scale ? 1.0 / d[i] : 0.0;
}

/* The shared tail of dP once dR is known (math-notes.md). */
static mat3 stress_differential_from(mat3 dF, mat3 dR, mat3 cofF, double J, double mu,
                                     double lambda, mat3 F)
{
    mat3 dP = m3_scale(m3_sub(dF, dR), 2.0 * mu);
    dP = m3_add(dP, m3_scale(cofF, lambda * m3_ddot(cofF, dF)));
    return m3_add(dP, m3_scale(cofactor_differential(F, dF), lambda * (J - 1.0)));
}

/* One-sided (Hestenes) Jacobi SVD of A from a right basis V0 near A's own: the columns
 * of B = A V are rotated pairwise until each pair is orthogonal to WARM_SVD_TOL
 * relative; then sigma_k = |b_k| and u_k = b_k / sigma_k, and a reflection left in U
 * moves to the smallest sigma (negated), so U and V are proper rotations as m3_svd
 * returns them (unsorted). Started from the previous step's V, B is orthogonal to
 * ~dt |grad v| and 2-3 sweeps converge (quadratically), against m3_svd's four or more
 * Jacobi sweeps on A^T A plus a QR. Returns -1, for the caller to use m3_svd, when a
 * sigma is below WARM_SVD_RANK of the largest (U would be ill-defined) or the sweeps
 * do not converge. */
#define WARM_SVD_SWEEPS 8
#define WARM_SVD_TOL 1e-15
#define WARM_SVD_RANK 1e-6

static int svd_warm(mat3 A, mat3 V0, mat3 *U, vec3 *sigma, mat3 *V)
{
    static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    mat3 B = m3_mul(A, V0), W = V0;
    int converged = 0;
    for (int sweep = 0; sweep < WARM_SVD_SWEEPS && !converged; sweep++) {
        converged = 1;
        for (int k = 0; k < 3; k++) {
            int p = pq[k][0], q = pq[k][1];
            double a = 0, b = 0, g = 0;
            for (int r = 0; r < 3; r++) {
                a += B.m[r][p] * B.m[r][p];
                b += B.m[r][q] * B.m[r][q];
                g += B.m[r][p] * B.m[r][q];
            }
            if (!(fabs(g) > WARM_SVD_TOL * sqrt(a * b))) continue;
            converged = 0;
            /* the rotation that makes columns p and q orthogonal, the smaller angle */
            double zeta = (b - a) / (2.0 * g);
            double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
            double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;
            for (int r = 0; r < 3; r++) {
                double bp = B.m[r][p], bq = B.m[r][q], wp = W.m[r][p], wq = W.m[r][q];
                B.m[r][p] = c * bp - sn * bq;
                B.m[r][q] = sn * bp + c * bq;
                W.m[r][p] = c * wp - sn * wq;
                W.m[r][q] = sn * wp + c * wq;
            }
        }
    }
    if (!converged) return -1;
    double sg[3], smax = 0;
    for (int k = 0; k < 3; k++) {
        sg[k] = sqrt(B.m[0][k] * B.m[0][k] + B.m[1][k] * B.m[1][k] + B.m[2][k] * B.m[2][k]);
        smax = fmax(smax, sg[k]);
    }
    if (!(smax > 0) || !isfinite(smax)) return -1;
    int kmin = 0;
    for (int k = 0; k < 3; k++) {
        if (!(sg[k] > WARM_SVD_RANK * smax)) return -1;
        if (sg[k] < sg[kmin]) kmin = k;
        for (int r = 0; r < 3; r++) B.m[r][k] /= sg[k];
    }
    if (m3_det(B) < 0) {
        for (int r = 0; r < 3; r++) B.m[r][kmin] = -B.m[r][kmin];
        sg[kmin] = -sg[kmin];
    }
    *U = B;
    *V = W;
    *sigma = v3(sg[0], sg[1], sg[2]);
    return 0;
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

mat3 pw_fcr_stress(mat3 F, double mu, double lambda)
{
    mat3 R;
    m3_polar(F, &R, NULL);
    double J = m3_det(F);
    return m3_add(m3_scale(m3_sub(F, R), 2.0 * mu), m3_scale(m3_cofactor(F), lambda * (J - 1.0)));
}

mat3 pw_polar_rotation_differential(mat3 F, mat3 dF)
{
    mat3 U, V;
    vec3 s;
    m3_svd(F, &U, &s, &V);
    mat3 R = m3_mul(U, m3_transpose(V));
    /* solve (tr(S) I - S) w = b in S's eigenbasis V, where it is diagonal */
    vec3 b = m3_mulv(m3_transpose(V), rotation_rhs(R, dF));
    double inv[3];
    pair_sum_inverses(s, inv);
    vec3 w = m3_mulv(V, v3(b.x * inv[0], b.y * inv[1], b.z * inv[2]));
    return m3_mul(R, skew(w));
}

mat3 pw_fcr_stress_differential(mat3 F, double mu, double lambda, mat3 dF)
{
    mat3 dR = pw_polar_rotation_differential(F, dF);
    return stress_differential_from(dF, dR, m3_cofactor(F), m3_det(F), mu, lambda, F);
}

void pw_fcr_cache_init(pw_fcr_cache *c, mat3 F, double mu, double lambda)
{
    pw_svd3 f;
    m3_svd(F, &f.U, &f.sigma, &f.V);
    pw_fcr_cache_init_svd(c, F, &f, mu, lambda);
}

void pw_fcr_cache_init_svd(pw_fcr_cache *c, mat3 F, const pw_svd3 *f, double mu, double lambda)
{
    mat3 Vt = m3_transpose(f->V);
    vec3 s = f->sigma;
    c->F = F;
    c->R = m3_mul(f->U, Vt);
    c->S = m3_mul(m3_mul(f->V, m3_diag(s.x, s.y, s.z)), Vt);
    c->cofF = m3_cofactor(F);
    c->J = m3_det(F);
    c->mu = mu;
    c->lambda = lambda;
    double inv[3];
    pair_sum_inverses(s, inv);
    c->inv_trS_minus_S = m3_mul(m3_mul(f->V, m3_diag(inv[0], inv[1], inv[2])), Vt);
}

mat3 pw_fcr_stress_differential_cached(const pw_fcr_cache *c, mat3 dF)
{
    vec3 w = m3_mulv(c->inv_trS_minus_S, rotation_rhs(c->R, dF));
    mat3 dR = m3_mul(c->R, skew(w));
    return stress_differential_from(dF, dR, c->cofF, c->J, c->mu, c->lambda, c->F);
}

int pw_plasticity_update(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s, mat3 *Fe_out,
                         mat3 *Fp_out)
{
    pw_svd3 f;
    return pw_plasticity_update_svd(Fe_hat, Fp, theta_c, theta_s, NULL, Fe_out, Fp_out, &f);
}

int pw_plasticity_update_svd(mat3 Fe_hat, mat3 Fp, double theta_c, double theta_s,
                             const mat3 *V_guess, mat3 *Fe_out, mat3 *Fp_out, pw_svd3 *svd_out)
{
    if (!m3_isfinite(Fe_hat) || !m3_isfinite(Fp)) return -1;
    mat3 U, V;
    vec3 s_hat;
    if (!V_guess || svd_warm(Fe_hat, *V_guess, &U, &s_hat, &V) != 0) m3_svd(Fe_hat, &U, &s_hat, &V);
    if (!v3_isfinite(s_hat)) return -1;
    double lo = 1.0 - theta_c, hi = 1.0 + theta_s;
    vec3 s = v3(fmin(fmax(s_hat.x, lo), hi), fmin(fmax(s_hat.y, lo), hi),
                fmin(fmax(s_hat.z, lo), hi));
    mat3 Vt = m3_transpose(V);
    /* eq. 12: Fe = U Sigma Vᵀ; Fp = V Sigma^-1 Uᵀ Fe_hat Fp = V (Sigma_hat / Sigma) Vᵀ Fp,
     * the second form skipping the Uᵀ U round trip so Fe Fp keeps Fe_hat Fp to rounding */
    *Fe_out = m3_mul(m3_mul(U, m3_diag(s.x, s.y, s.z)), Vt);
    mat3 push = m3_mul(m3_mul(V, m3_diag(s_hat.x / s.x, s_hat.y / s.y, s_hat.z / s.z)), Vt);
    *Fp_out = m3_mul(push, Fp);
    svd_out->U = U;
    svd_out->V = V;
    svd_out->sigma = s;
    return 0;
}
