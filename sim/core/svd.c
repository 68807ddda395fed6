/* svd.c — robust 3x3 singular value decomposition and polar decomposition.
 *
 * Method: cyclic Jacobi on the symmetric AᵀA gives V (the right singular vectors);
 * then B = A V is factored B = Q R by three Givens rotations, so U = Q is a product of
 * rotations (det +1 by construction, orthogonal to rounding even when columns of B
 * vanish) and sigma = diag(R). Dropping R's off-diagonal entries costs only
 * ~eps |A| in the reconstruction, because those entries are the residual
 * off-diagonals of the Jacobi sweep divided by a singular value (McAdams et al.
 * 2011 use the same split). Squaring A in AᵀA only hurts the accuracy of V's
 * small-singular-value columns, never the reconstruction, so rank-deficient and
 * near-singular input are handled without special cases. */
#include <float.h>

#include "pw_math.h"

/* Cyclic Jacobi converges quadratically; 3x3 needs 4-6 sweeps, the cap only guards
 * NaN input (which never reaches zero off-diagonals). */
#define SVD_MAX_SWEEPS 32

/* ---- helpers ----------------------------------------------------------------- */

static void swap_columns(mat3 *a, int i, int j)
{
    for (int r = 0; r < 3; r++) {
        double t = a->m[r][i];
        a->m[r][i] = a->m[r][j];
        a->m[r][j] = t;
    }
}

static void negate_column(mat3 *a, int i)
{
    for (int r = 0; r < 3; r++) a->m[r][i] = -a->m[r][i];
}

/* One Jacobi rotation in the (p, q) plane that zeroes S[p][q]; V accumulates it. */
static void jacobi_rotate(double S[3][3], mat3 *V, int p, int q)
{
    double apq = S[p][q];
    if (apq == 0.0) return;
    double theta = (S[q][q] - S[p][p]) / (2.0 * apq);
    /* t = tan of the rotation angle, the smaller root for stability (Rutishauser) */
    double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
    if (!isfinite(theta)) t = 0.5 / theta; /* theta overflow: t ~ 1/(2 theta) */
    double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
    /* S <- Gᵀ S G with G the rotation acting on columns p and q */
    for (int k = 0; k < 3; k++) {
        double skp = S[k][p], skq = S[k][q];
        S[k][p] = c * skp - s * skq;
        S[k][q] = s * skp + c * skq;
    }
    for (int k = 0; k < 3; k++) {
        double spk = S[p][k], sqk = S[q][k];
        S[p][k] = c * spk - s * sqk;
        S[q][k] = s * spk + c * sqk;
    }
    S[p][q] = S[q][p] = 0.0;
    for (int k = 0; k < 3; k++) {
        double vkp = V->m[k][p], vkq = V->m[k][q];
        V->m[k][p] = c * vkp - s * vkq;
        V->m[k][q] = s * vkp + c * vkq;
    }
}

/* Eigenvectors of the symmetric S (columns of V, a proper rotation) sorted by
 * decreasing eigenvalue. */
static void symmetric_eigen(double S[3][3], mat3 *V)
{
    *V = m3_identity();
    for (int sweep = 0; sweep < SVD_MAX_SWEEPS; sweep++) {
        double off = fabs(S[0][1]) + fabs(S[0][2]) + fabs(S[1][2]);
        if (off == 0.0 || !isfinite(off)) break;
        static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 3; k++) {
            int p = pq[k][0], q = pq[k][1];
            /* after a few sweeps, drop off-diagonals that no longer change either
             * diagonal entry in floating point (Numerical Recipes' test) */
            double g = 100.0 * fabs(S[p][q]);
            if (sweep > 3 && fabs(S[p][p]) + g == fabs(S[p][p]) &&
                fabs(S[q][q]) + g == fabs(S[q][q])) {
                S[p][q] = S[q][p] = 0.0;
                continue;
            }
            jacobi_rotate(S, V, p, q);
        }
    }
    /* sort by decreasing eigenvalue (3-element insertion sort) */
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && S[j][j] > S[j - 1][j - 1]; j--) {
            double t = S[j][j];
            S[j][j] = S[j - 1][j - 1];
            S[j - 1][j - 1] = t;
            swap_columns(V, j, j - 1);
        }
    if (m3_det(*V) < 0) negate_column(V, 2);
}

/* Givens rotation on rows i and j of B that zeroes B[j][col] and leaves B[i][col] >= 0;
 * Q accumulates the transpose so that B_in = Q B_out throughout. */
static void givens_zero(mat3 *B, mat3 *Q, int i, int j, int col)
{
    double a = B->m[i][col], b = B->m[j][col];
    double r = hypot(a, b);
    if (r == 0.0) return;
    double c = a / r, s = b / r;
    for (int k = 0; k < 3; k++) {
        double bi = B->m[i][k], bj = B->m[j][k];
        B->m[i][k] = c * bi + s * bj;
        B->m[j][k] = -s * bi + c * bj;
    }
    B->m[j][col] = 0.0;
    for (int k = 0; k < 3; k++) {
        double qi = Q->m[k][i], qj = Q->m[k][j];
        Q->m[k][i] = c * qi + s * qj;
        Q->m[k][j] = -s * qi + c * qj;
    }
}

/* ---- public ------------------------------------------------------------------ */

void m3_svd(mat3 a, mat3 *u, vec3 *sigma, mat3 *v)
{
    /* scale so the largest entry is 1: AᵀA then neither overflows nor underflows */
    double amax = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) amax = fmax(amax, fabs(a.m[r][c]));
    if (!(amax > 0) || !isfinite(amax)) {
        /* zero (or non-finite) input: identity rotations, sigma = amax-scaled zero or NaN */
        double fill = amax == 0 ? 0.0 : NAN;
        *u = m3_identity();
        *v = m3_identity();
        *sigma = v3(fill, fill, fill);
        return;
    }
    mat3 as = m3_scale(a, 1.0 / amax);

    /* 1. V from the eigenvectors of AᵀA */
    mat3 ata = m3_mul(m3_transpose(as), as);
    double S[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) S[r][c] = 0.5 * (ata.m[r][c] + ata.m[c][r]);
    mat3 V;
    symmetric_eigen(S, &V);

    /* 2. B = A V = Q R by Givens rotations; U = Q, sigma = diag(R) */
    mat3 B = m3_mul(as, V), U = m3_identity();
    givens_zero(&B, &U, 0, 1, 0);
    givens_zero(&B, &U, 0, 2, 0);
    givens_zero(&B, &U, 1, 2, 1);
    double s[3] = {B.m[0][0], B.m[1][1], B.m[2][2]};

    /* 3. rounding can leave |s2| > s1 or |s3| > s2 when values are (nearly) equal:
     * restore decreasing magnitude, keeping U, V proper and U S Vᵀ unchanged */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 2; i++)
            if (fabs(s[i + 1]) > fabs(s[i])) {
                double t = s[i];
                s[i] = s[i + 1];
                s[i + 1] = t;
                swap_columns(&U, i, i + 1);
                swap_columns(&V, i, i + 1);
                /* a swap flips both determinants; negating one column of each
                 * restores them and leaves u_i s_i v_iᵀ unchanged */
                negate_column(&U, i);
                negate_column(&V, i);
            }
    /* only the smallest may be negative: move any sign there in pairs */
    for (int i = 0; i < 2; i++)
        if (s[i] < 0) {
            s[i] = -s[i];
            s[2] = -s[2];
            negate_column(&U, i);
            negate_column(&U, 2);
        }

    *u = U;
    *v = V;
    *sigma = v3(s[0] * amax, s[1] * amax, s[2] * amax);
}

void m3_polar(mat3 a, mat3 *r, mat3 *s)
{
    mat3 U, V;
    vec3 sig;
    m3_svd(a, &U, &sig, &V);
    mat3 Vt = m3_transpose(V);
    if (r) *r = m3_mul(U, Vt);
    if (s) *s = m3_mul(m3_mul(V, m3_diag(sig.x, sig.y, sig.z)), Vt);
}
