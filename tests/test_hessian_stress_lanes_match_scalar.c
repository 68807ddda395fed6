/* Property: the solver's linearised stress, formed four particles at a time in vector
 * lanes (pw_mpm_linearise_stress, hessian.c), equals the scalar definition of the
 * stress and its differential (pw_fcr_*_cached, constitutive.c) particle by particle,
 * entry by entry, given the same F, SVD of F, mu, lambda and V0:
 *  1. K[r][q], the matrix of G -> V0 dP(F; G F) F^T rounded to float, against
 *     K_ref[r][q] = V0 (dP(F; E_q F) F^T)[r], E_q the unit matrix of entry q:
 *        |K - K_ref| <= 2^-24 |K_ref| + 64 2^-53 max|K_ref|   (per particle's max);
 *  2. B = -V0 P F^T (the forces' matrix, double) against -V0 pw_fcr_stress_cached F^T,
 *     and mu, lambda: bit for bit;
 *  3. each particle's K and B, in any lane of a batch of 1 to 4, have the bits they have
 *     alone.
 * Tolerances. 1: the lanes form each entry in double and round it to float once, which
 * moves it by at most 2^-24 |K| (round to nearest); the two double computations (the
 * lanes expand K's entries from F F^T, Bm, Minv Bm and the J terms; the reference forms
 * dP for one direction, through dR, cof (cof : dF) and the cofactor differential, then
 * the product with F^T) each round fewer than 32 times on the way to an entry, on values
 * no larger than max|K| (the terms are blocks of K itself, and the J terms and cof
 * products are of its size for the singular values tested, |s| <= 1.5), so they differ
 * by less than 2 * 32 2^-53 max|K|. An entry of a wrong lane errs by ~|K|, at least
 * 1e-3 max|K| in every case here. 2: the lanes do the scalar operations in their order
 * (R = U V^T and P F^T as m3_mul sums, cof and det as m3_cofactor and m3_det), so the
 * bits agree; 3: lanes never mix.
 *
 * Cases, mixed at random within each batch (every kind lands in every lane), 4000
 * batches of 1-4 particles: 0. near identity (singular values in the clamp's range
 * [0.975, 1.0075]); 1. general F = I + 0.5 A; 2. inverted (s3 in [-0.5, -0.1]);
 * 3. near-singular (s3 = 1e-6 or 1e-9); 4. a nearly singular pair s2 + s3 around the
 * guard PW_FCR_SINGULAR_REL (0, +-1e-11, +-1e-9, +-1e-6 relative), where the rotation
 * mode is dropped or kept alike in both; 5. compressed and hardened (singular values
 * near 0.6, mu and lambda times e^{xi (1 - Jp)} with xi = 10, Jp in [0.1, 1.2]). Each with
 * the SVD from m3_svd, or through the quaternion packing the solver keeps between steps
 * (factors orthogonal only to rounding), and E0 in [0.5, 2] x 1.4e5 Pa, nu 0.2 or 0.35,
 * V0 around (h/2)^3 for h = 1 cm. */
#include <string.h>

#include "check.h"
#include "hessian.h"
#include "random_fixture.h"

typedef struct {
    pw_stress_input in;
    pw_fcr_cache c; /* the reference's cache, from the same SVD */
} particle;

static particle draw(unsigned long long *st)
{
    int kind = (int)(rnd_uniform(st) * 6);
    mat3 F;
    double hard = 1.0;
    switch (kind) {
    case 0:
        F = rnd_with_sigma(st, rnd_range(st, 0.975, 1.0075), rnd_range(st, 0.975, 1.0075),
                           rnd_range(st, 0.975, 1.0075));
        break;
    case 1: F = m3_add(m3_identity(), m3_scale(rnd_matrix(st), 0.5)); break;
    case 2: F = rnd_with_sigma(st, 1.2, 0.7, rnd_range(st, -0.5, -0.1)); break;
    case 3: F = rnd_with_sigma(st, 1.1, 0.9, rnd_uniform(st) < 0.5 ? 1e-6 : 1e-9); break;
    case 4: {
        static const double rel[7] = {0, 1e-11, -1e-11, 1e-9, -1e-9, 1e-6, -1e-6};
        double d = rel[(int)(rnd_uniform(st) * 7)];
        F = rnd_with_sigma(st, 1.0, 0.5, -0.5 + 2.0 * d);
        break;
    }
    default:
        F = rnd_with_sigma(st, rnd_range(st, 0.55, 0.65), rnd_range(st, 0.55, 0.65),
                           rnd_range(st, 0.55, 0.65));
        hard = pw_hardening(10.0, rnd_range(st, 0.1, 1.2));
        break;
    }
    particle p;
    memset(&p, 0, sizeof p);
    p.in.F = F;
    m3_svd(F, &p.in.f.U, &p.in.f.sigma, &p.in.f.V);
    if (rnd_uniform(st) < 0.5) { /* as the solver keeps it between steps */
        pw_svd3_packed q;
        pw_svd3_pack(&p.in.f, &q);
        pw_svd3_unpack(&q, &p.in.f);
    }
    double mu0, lambda0;
    pw_lame(1.4e5 * rnd_range(st, 0.5, 2.0), rnd_uniform(st) < 0.5 ? 0.2 : 0.35, &mu0, &lambda0);
    p.in.mu = mu0 * hard;
    p.in.lambda = lambda0 * hard;
    p.in.V0 = 1.25e-7 * rnd_range(st, 0.5, 2.0);
    pw_fcr_cache_init_svd(&p.c, F, &p.in.f, p.in.mu, p.in.lambda);
    return p;
}

static double max_excess = 0; /* largest (|K - K_ref| - 2^-24 |K_ref|) / (2^-53 max|K_ref|) */
static double max_rel = 0;    /* largest |K - K_ref| / |K_ref| where |K_ref| >= 1e-3 max */
static long entries = 0;

/* The particle's K and B from the lanes against the scalar reference. */
static void check_against_scalar(const particle *p, const float K[PW_K_ENTRIES],
                                 const pw_pstress *st, int lane, int n)
{
    mat3 F = p->in.F, Ft = m3_transpose(F);
    double V0 = p->in.V0, K_ref[PW_K_ENTRIES], Kmax = 0;
    for (int q = 0; q < 9; q++) {
        mat3 E = m3_zero();
        E.m[q / 3][q % 3] = 1.0;
        mat3 dP = pw_fcr_stress_differential_cached(&p->c, m3_mul(E, F));
        mat3 col = m3_scale(m3_mul(dP, Ft), V0);
        for (int r = 0; r < 9; r++) {
            K_ref[9 * r + q] = col.m[r / 3][r % 3];
            Kmax = fmax(Kmax, fabs(K_ref[9 * r + q]));
        }
    }
    for (int e = 0; e < PW_K_ENTRIES; e++) {
        double err = fabs((double)K[e] - K_ref[e]);
        double tol = 0x1p-24 * fabs(K_ref[e]) + 64 * 0x1p-53 * Kmax;
        max_excess = fmax(max_excess, (err - 0x1p-24 * fabs(K_ref[e])) / (0x1p-53 * Kmax));
        if (fabs(K_ref[e]) >= 1e-3 * Kmax) max_rel = fmax(max_rel, err / fabs(K_ref[e]));
        entries++;
        CHECK(err <= tol, "1. lane %d of %d, F det %.3g sigma (%.3g %.3g %.3g): K[%d][%d] = %.9g, "
              "reference %.17g (error %.3g, tolerance %.3g)", lane, n, m3_det(F),
              p->in.f.sigma.x, p->in.f.sigma.y, p->in.f.sigma.z, e / 9, e % 9, K[e], K_ref[e],
              err, tol);
    }
    mat3 B_ref = m3_scale(m3_mul(pw_fcr_stress_cached(&p->c), Ft), -V0);
    CHECK(memcmp(st->B, B_ref.m, sizeof st->B) == 0, "2. lane %d of %d: B differs from the "
          "scalar -V0 P F^T (B[0] %.17g vs %.17g)", lane, n, st->B[0], B_ref.m[0][0]);
    CHECK(st->mu == p->in.mu && st->lambda == p->in.lambda, "2. lane %d of %d: mu, lambda",
          lane, n);
}

int main(void)
{
    unsigned long long st = 31337;
    int batches = 0;
    for (int b = 0; b < 4000; b++) {
        int n = 1 + (int)(rnd_uniform(&st) * PW_STRESS_LANES);
        particle p[PW_STRESS_LANES];
        pw_stress_input in[PW_STRESS_LANES];
        for (int k = 0; k < n; k++) {
            p[k] = draw(&st);
            in[k] = p[k].in;
        }
        float K[PW_STRESS_LANES][PW_K_ENTRIES];
        pw_pstress s[PW_STRESS_LANES];
        pw_mpm_linearise_stress(in, n, s, K);
        for (int k = 0; k < n; k++) {
            check_against_scalar(&p[k], K[k], &s[k], k, n);
            /* 3. alone */
            float K1[1][PW_K_ENTRIES];
            pw_pstress s1;
            pw_mpm_linearise_stress(&in[k], 1, &s1, K1);
            CHECK(memcmp(K1[0], K[k], sizeof K1[0]) == 0 && memcmp(&s1, &s[k], sizeof s1) == 0,
                  "3. lane %d of %d: K or B differ from the particle's alone", k, n);
        }
        batches++;
    }
    printf("%d batches, %ld entries of K: error beyond float rounding at most %.2f 2^-53 "
           "max|K| (tolerance 64); relative error of entries >= 1e-3 max|K| at most %.2f "
           "2^-24\n",
           batches, entries, max_excess, max_rel / 0x1p-24);
    return check_done("hessian_stress_lanes_match_scalar");
}
