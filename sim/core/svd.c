/* svd.c — the 3x3 singular value decompositions (pw_svd.h): m3_svd, robust, and the
 * polar decomposition from it; and pw_svd_warm_batch, the plasticity step's warm start
 * in vector lanes. Both rotate pairs of columns (and m3_svd rows) by one formula,
 * ROTATE_PAIR.
 *
 * m3_svd's method: cyclic Jacobi on the symmetric AᵀA gives V (the right singular vectors);
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
#include "pw_simd.h"
#include "pw_svd.h"

/* Cyclic Jacobi converges quadratically; 3x3 needs 4-6 sweeps, the cap only guards
 * NaN input (which never reaches zero off-diagonals). */
#define SVD_MAX_SWEEPS 32

/* ---- helpers ----------------------------------------------------------------- */

/* (x, y) <- (c x - s y, s x + c y): the plane rotation of a pair of columns or rows by
 * the angle of cosine c and sine s, for doubles (T double) and for lanes (T v4d) alike,
 * in one order of operations. (A macro: C has no function generic over both types.) */
#define ROTATE_PAIR(T, x, y, c, s)                                                     \
    do {                                                                               \
        T x_ = (x), y_ = (y);                                                          \
        (x) = (c) * x_ - (s) * y_;                                                     \
        (y) = (s) * x_ + (c) * y_;                                                     \
    } while (0)

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
    for (int k = 0; k < 3; k++) ROTATE_PAIR(double, S[k][p], S[k][q], c, s);
    for (int k = 0; k < 3; k++) ROTATE_PAIR(double, S[p][k], S[q][k], c, s);
    S[p][q] = S[q][p] = 0.0;
    for (int k = 0; k < 3; k++) ROTATE_PAIR(double, V->m[k][p], V->m[k][q], c, s);
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
    double c = a / r, s = b / r, ms = -s; /* rows by -theta: c bi + s bj, -s bi + c bj */
    for (int k = 0; k < 3; k++) ROTATE_PAIR(double, B->m[i][k], B->m[j][k], c, ms);
    B->m[j][col] = 0.0;
    for (int k = 0; k < 3; k++) ROTATE_PAIR(double, Q->m[k][i], Q->m[k][j], c, ms);
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

/* ---- the warm SVD, in lanes (pw_svd.h) ------------------------------------------ */

/* One-sided (Hestenes) Jacobi SVD of A from a right basis V0 near A's own: the columns
 * of B = A V are rotated pairwise until each pair is orthogonal to WARM_SVD_TOL
 * relative; then sigma_k = |b_k| and u_k = b_k / sigma_k, and a reflection left in U
 * moves to the smallest sigma (negated), so U and V are proper rotations as m3_svd
 * returns them (unsorted). Started from the previous step's V, B is orthogonal to
 * ~dt |grad v| and 2-3 sweeps converge (quadratically), against m3_svd's four or more
 * Jacobi sweeps on A^T A plus a QR. Returns -1, for the caller to use m3_svd, when a
 * sigma is below WARM_SVD_RANK of the largest (U would be ill-defined) or the sweeps
 * do not converge.
 *
 * No sweep is spent confirming convergence: rotating pair (p, r) by an angle of sine s
 * refills the pair (p, q) cleared before it with s times pair (q, r)'s off-diagonal,
 * and that is all a sweep leaves behind. So once the largest sine of a sweep times
 * each pair's relative off-diagonal met in it is within WARM_SVD_TOL, every pair is as
 * orthogonal as a further sweep without rotations would have confirmed. From the
 * solver's guess that is mostly after the third sweep, where waiting for a sweep
 * without rotations took a fourth for half the particles (bench_plasticity). */
#define WARM_SVD_SWEEPS 8
#define WARM_SVD_TOL 1e-15
#define WARM_SVD_RANK 1e-6

/* Four matrices at a time, one per lane of a 4-wide vector: a rotation's square roots
 * and division form a chain of ~60 cycles that one matrix would wait on, three times a
 * sweep; four independent chains overlap. Every lane does the operations of the
 * one-matrix form in its order (IEEE operations, no contraction: pw_core is built with
 * -ffp-contract=off), so each lane gives the bits one matrix alone would. */

/* Rotates the columns bp, bq of B (and wp, wq of V alike) to make bp . bq = 0, by the
 * smaller angle, in the lanes of `active`. Keeps g^2 and a b (the squared relative
 * off-diagonal is their ratio) for the convergence test and the squared sine in *s2,
 * 0 where the pair is already orthogonal to WARM_SVD_TOL. With d = b - a and
 * r = sqrt(d^2 + 4 g^2), the tangent t = 2g / (d + sign(d) r) gives
 * 1 + t^2 = 2r / (|d| + r), so with D = |d| + r, cos = D / sqrt(2 r D) and
 * sin = sign(d) 2g / sqrt(2 r D): one division where the textbook form through
 * cot(2 theta) takes three, all on the critical path. A d^2 that overflows (entries
 * beyond ~1e77) makes cos NaN, which the sigma checks hand on to m3_svd. */
static inline __attribute__((always_inline)) void
jacobi_rotate4(v4d bp[3], v4d bq[3], v4d wp[3], v4d wq[3], v4m active, v4d *g2,
               v4d *ab, v4d *s2)
{
    const v4d zero = {0, 0, 0, 0};
    v4d a = bp[0] * bp[0] + bp[1] * bp[1] + bp[2] * bp[2];
    v4d b = bq[0] * bq[0] + bq[1] * bq[1] + bq[2] * bq[2];
    v4d g = bp[0] * bq[0] + bp[1] * bq[1] + bp[2] * bq[2];
    *g2 = g * g;
    *ab = a * b;
    v4m rotate = active & (*g2 > (WARM_SVD_TOL * WARM_SVD_TOL) * *ab);
    v4d d = b - a, r = d * d + 4.0 * *g2;
    sqrt4(&r);
    v4d D = ABS4(d) + r;
    v4d root = 2.0 * r * D;
    sqrt4(&root);
    v4d k = 1.0 / root;
    v4d c = D * k, sn = SELECT4(d >= 0, 2.0 * g, -2.0 * g) * k;
    for (int i = 0; i < 3; i++) {
        v4d p = bp[i], q = bq[i], x = wp[i], y = wq[i];
        ROTATE_PAIR(v4d, p, q, c, sn);
        ROTATE_PAIR(v4d, x, y, c, sn);
        bp[i] = SELECT4(rotate, p, bp[i]);
        bq[i] = SELECT4(rotate, q, bq[i]);
        wp[i] = SELECT4(rotate, x, wp[i]);
        wq[i] = SELECT4(rotate, y, wq[i]);
    }
    *s2 = SELECT4(rotate, sn * sn, zero);
}

/* U, sigma, V from converged columns, per lane: sigma_k = |b_k|, u_k = b_k / sigma_k,
 * and a reflection moved to the smallest sigma (the first of equal ones); the lanes
 * where U would be ill-defined (a sigma at or below WARM_SVD_RANK of the largest, or
 * none finite and positive) come back 0 in the mask. Each lane does the one-matrix
 * operations in their order (det as m3_det sums it). */
static inline __attribute__((always_inline)) void warm_finish4(v4d Bt[3][3], v4d sg[3],
                                                               v4m *good_out)
{
    const v4d zero = {0, 0, 0, 0}, huge = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
    v4d smax = zero;
    for (int k = 0; k < 3; k++) {
        sg[k] = Bt[k][0] * Bt[k][0] + Bt[k][1] * Bt[k][1] + Bt[k][2] * Bt[k][2];
        sqrt4(&sg[k]);
        smax = SELECT4(sg[k] > smax, sg[k], smax);
    }
    v4m good = (smax > zero) & (smax <= huge);
    for (int k = 0; k < 3; k++) {
        good &= sg[k] > WARM_SVD_RANK * smax;
        v4d inv = 1.0 / sg[k];
        for (int i = 0; i < 3; i++) Bt[k][i] *= inv;
    }
    v4m min1 = sg[1] < sg[0];
    v4m min2 = sg[2] < SELECT4(min1, sg[1], sg[0]);
    v4m is_min[3] = {~min1 & ~min2, min1 & ~min2, min2};
    v4d det;
    det4(Bt, &det);
    v4m flip = det < zero;
    for (int k = 0; k < 3; k++) {
        v4m f = flip & is_min[k];
        for (int i = 0; i < 3; i++) Bt[k][i] = SELECT4(f, -Bt[k][i], Bt[k][i]);
        sg[k] = SELECT4(f, -sg[k], sg[k]);
    }
    *good_out = good; /* (not returned: a vector return value would change the ABI
                         between the clones) */
}

/* The batch runs as two halves of four lanes, their rotations interleaved: the three
 * rotations of a sweep depend on each other, so one half alone waited on each chain in
 * turn. Two halves were faster than one on the CPU measured, and batches of 12 or 16
 * slower, their lanes waiting for the slowest (bench_plasticity; sim/docs/step-speed.md,
 * fourth round). */
#define HALF 4
#define HALVES (PW_SVD_BATCH / HALF)
_Static_assert(PW_SVD_BATCH % HALF == 0, "the warm SVD's batch is whole halves");

PW_CLONES("avx2", "default") void pw_svd_warm_batch(int n, const mat3 *A, const mat3 *V0, pw_svd3 *out, int *ok)
{
    /* rows of Bt and Wt are the columns of B = A V and V, so a pair is two rows; lane l
     * of half h holds matrix 4 h + l, and lanes from n on the identity, which needs no
     * rotation */
    v4d Bt[HALVES][3][3], Wt[HALVES][3][3];
    for (int l = 0; l < PW_SVD_BATCH; l++) {
        mat3 B = l < n ? m3_transpose(m3_mul(A[l], V0[l])) : m3_identity();
        mat3 W = l < n ? m3_transpose(V0[l]) : m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                Bt[l / HALF][i][j][l % HALF] = B.m[i][j];
                Wt[l / HALF][i][j][l % HALF] = W.m[i][j];
            }
    }
    v4m converged[HALVES] = {{0}};
    static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < WARM_SVD_SWEEPS; sweep++) {
        v4m active[HALVES], any = {0, 0, 0, 0};
        for (int h = 0; h < HALVES; h++) {
            active[h] = ~converged[h];
            any |= active[h];
        }
        if (!(any[0] | any[1] | any[2] | any[3])) break;
        v4d g2[HALVES][3], ab[HALVES][3], s2[HALVES][3];
        for (int k = 0; k < 3; k++)
            for (int h = 0; h < HALVES; h++) {
                int p = pair[k][0], q = pair[k][1];
                jacobi_rotate4(Bt[h][p], Bt[h][q], Wt[h][p], Wt[h][q], active[h], &g2[h][k],
                               &ab[h][k], &s2[h][k]);
            }
        const double tol2 = WARM_SVD_TOL * WARM_SVD_TOL;
        for (int h = 0; h < HALVES; h++) {
            v4d s2_max = SELECT4(s2[h][0] > s2[h][1], s2[h][0], s2[h][1]);
            s2_max = SELECT4(s2_max > s2[h][2], s2_max, s2[h][2]);
            v4m done = (s2_max * g2[h][0] <= tol2 * ab[h][0]) &
                       (s2_max * g2[h][1] <= tol2 * ab[h][1]) &
                       (s2_max * g2[h][2] <= tol2 * ab[h][2]);
            converged[h] |= active[h] & done;
        }
    }
    for (int h = 0; h < HALVES; h++) {
        v4d sg[3];
        v4m good;
        warm_finish4(Bt[h], sg, &good);
        for (int l = 0; l < HALF && HALF * h + l < n; l++) {
            int m = HALF * h + l;
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++) {
                    out[m].U.m[i][k] = Bt[h][k][i][l];
                    out[m].V.m[i][k] = Wt[h][k][i][l];
                }
            out[m].sigma = v3(sg[0][l], sg[1][l], sg[2][l]);
            ok[m] = converged[h][l] && good[l];
        }
    }
}
