/* Property: every lane of the warm SVD (pw_svd_warm_batch: one-sided Jacobi from a
 * guess, eight matrices in two halves of four lanes) factors its matrix as the cold
 * m3_svd does, lane by lane, element by element: with the warm factors sorted by |sigma|
 * (m3_svd sorts them) and each pair of singular vectors matched up to a common sign,
 *   |sigma_w - sigma_m| <= 64 eps s1,
 *   |u_w - u_m|, |v_w - v_m| <= (64 eps + TOL) s1^2 / min_j |s_k^2 - s_j^2|   (each entry),
 * eps = 2^-53, s1 the largest singular value, TOL = 1e-15 the warm SVD's stopping
 * tolerance (the columns' relative non-orthogonality it leaves); and the lanes the warm
 * SVD declines (ok = 0: rank-deficient or NaN) are exactly those. Both put a reflection
 * of A on the smallest singular value, so the signs of sigma agree too.
 *
 * Tolerances: each is backward stable, the exact SVD of A + E with |E| <= c eps |A|, c
 * about the number of rounded operations on an entry's way (m3_svd: 4-6 Jacobi sweeps of
 * a few operations each, on A^T A, then three Givens rotations; the warm SVD: 2-3 sweeps
 * from the guess, then a normalisation), under 32 each. The singular values then differ
 * by at most |E_w| + |E_m| (Weyl) <= 64 eps s1. The singular vectors move by the
 * perturbation over the gap to the nearest other singular value; m3_svd takes V from
 * A^T A, whose eigenvalues s^2 are what the gap is measured in (s1^2 / |s_k^2 - s_j^2|
 * >= s1 / 2 |s_k - s_j| for the solver's s near 1), and the warm SVD stops with columns
 * orthogonal to TOL, which moves its vectors by TOL over the same gap. A lane that took
 * another lane's matrix, a wrong rotation or a dropped sweep errs by far more.
 *
 * Cases, mixed within each batch so that every kind lands in every lane (3000 batches of
 * 1-8 matrices): 0-5 the solver's (Fe_hat = (I + dt grad v) U0 S0 V0^T from the guess V0,
 * S0 in [0.97, 1.01], dt grad v ~1e-3); 6 the same inverted (a negative singular value);
 * 7 a guess unrelated to A (more sweeps); 8 compressed and stretched (S0 in [0.3, 2]);
 * 9 rank 2 and 10 a NaN entry (declined). Singular vectors are compared where the gap is
 * at least 1e-9 s1 (below it they are not determined). */
#include "check.h"
#include "pw_svd.h"
#include "random_fixture.h"

#define EPS 0x1p-53
#define TOL 1e-15

typedef struct {
    mat3 A, V0;
    int kind;
} svd_case;

static svd_case draw(unsigned long long *st)
{
    svd_case c;
    c.kind = (int)(rnd_uniform(st) * 11);
    mat3 U0 = rnd_rotation(st), V0 = rnd_rotation(st);
    double lo = c.kind == 8 ? 0.3 : 0.97, hi = c.kind == 8 ? 2.0 : 1.01;
    mat3 S = m3_diag(rnd_range(st, lo, hi), rnd_range(st, lo, hi), rnd_range(st, lo, hi));
    if (c.kind == 6) S.m[2][2] = -S.m[2][2];
    mat3 L = m3_identity();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) L.m[i][j] += 1e-3 * (2 * rnd_uniform(st) - 1);
    c.A = m3_mul(L, m3_mul(m3_mul(U0, S), m3_transpose(V0)));
    c.V0 = c.kind == 7 ? rnd_rotation(st) : V0;
    if (c.kind == 9)
        for (int i = 0; i < 3; i++) c.A.m[i][2] = 0.5 * c.A.m[i][0] - 0.25 * c.A.m[i][1];
    if (c.kind == 10) c.A.m[1][1] = NAN;
    return c;
}

static double max_sigma = 0, max_vec = 0; /* [eps s1], [fraction of the tolerance] */
static int lanes = 0, vec_pairs = 0;

static vec3 column(mat3 M, int k) { return v3(M.m[0][k], M.m[1][k], M.m[2][k]); }

/* One lane's factors against m3_svd's of the same matrix. */
static void check_lane(const svd_case *c, const pw_svd3 *w, int ok, int lane, int n)
{
    lanes++;
    int declined = c->kind >= 9;
    CHECK(ok == !declined, "lane %d of %d, kind %d: ok %d", lane, n, c->kind, ok);
    if (!ok || declined) return;
    mat3 Um, Vm;
    vec3 sm;
    m3_svd(c->A, &Um, &sm, &Vm);
    double s_m[3] = {sm.x, sm.y, sm.z}, s_w[3] = {w->sigma.x, w->sigma.y, w->sigma.z};
    int ord[3] = {0, 1, 2}; /* the warm factors by decreasing |sigma| */
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && fabs(s_w[ord[j]]) > fabs(s_w[ord[j - 1]]); j--) {
            int t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    double s1 = fabs(s_m[0]);
    for (int k = 0; k < 3; k++) {
        double e = fabs(s_w[ord[k]] - s_m[k]);
        max_sigma = fmax(max_sigma, e / (EPS * s1));
        CHECK(e <= 64 * EPS * s1, "lane %d of %d, kind %d: sigma_%d %.17g vs m3_svd %.17g "
              "(%.1f eps s1)", lane, n, c->kind, k, s_w[ord[k]], s_m[k], e / (EPS * s1));
    }
    for (int k = 0; k < 3; k++) {
        double gap = INFINITY;
        for (int j = 0; j < 3; j++)
            if (j != k) gap = fmin(gap, fabs(s_m[k] * s_m[k] - s_m[j] * s_m[j]));
        if (gap < 1e-9 * s1 * s1) continue;
        double tol = (64 * EPS + TOL) * s1 * s1 / gap;
        vec3 uw = column(w->U, ord[k]), vw = column(w->V, ord[k]);
        vec3 um = column(Um, k), vm = column(Vm, k);
        double sign = v3_dot(uw, um) < 0 ? -1.0 : 1.0;
        vec3 du = v3_sub(uw, v3_scale(um, sign)), dv = v3_sub(vw, v3_scale(vm, sign));
        double e = fmax(fmax(fmax(fabs(du.x), fabs(du.y)), fabs(du.z)),
                        fmax(fmax(fabs(dv.x), fabs(dv.y)), fabs(dv.z)));
        max_vec = fmax(max_vec, e / tol);
        vec_pairs++;
        CHECK(e <= tol, "lane %d of %d, kind %d: singular vectors %d differ by %.3g "
              "(tolerance %.3g)", lane, n, c->kind, k, e, tol);
    }
}

int main(void)
{
    unsigned long long st = 5150;
    for (int b = 0; b < 3000; b++) {
        int n = b % 4 ? PW_SVD_BATCH : 1 + (int)(rnd_uniform(&st) * PW_SVD_BATCH);
        svd_case c[PW_SVD_BATCH];
        mat3 A[PW_SVD_BATCH], V0[PW_SVD_BATCH];
        for (int l = 0; l < n; l++) {
            c[l] = draw(&st);
            A[l] = c[l].A;
            V0[l] = c[l].V0;
        }
        pw_svd3 out[PW_SVD_BATCH];
        int ok[PW_SVD_BATCH];
        pw_svd_warm_batch(n, A, V0, out, ok);
        for (int l = 0; l < n; l++) check_lane(&c[l], &out[l], ok[l], l, n);
    }
    printf("%d lanes: sigma within %.2f eps s1 of m3_svd's (tolerance 64); %d pairs of "
           "singular vectors, largest difference %.3f of its tolerance\n",
           lanes, max_sigma, vec_pairs, max_vec);
    return check_done("svd_warm_lanes_match_m3_svd");
}
