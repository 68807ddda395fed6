/* Property: the float stencil weights of the Hessian action and its diagonal
 * (weights_f32, sim/box_f32.h: the stencil form of pw_kernel.h in float, x in four lanes
 * and spread into the row halves, y and z side by side in eight) equal the B-spline's
 * definition in double, element by element and lane by lane:
 *   |w - N(fu - k)| <= 15 u   and   |dw - N'(fu - k) / h| <= 18 u / h,   u = 2^-24,
 * for every node k of every axis, in every lane that holds it (f.w, f.dw and both row
 * halves f.wx, f.dwx), on every instruction set the solver is cloned for that this CPU
 * runs (AVX-512, AVX2, the baseline).
 *
 * The tolerances are float rounding, bounded a priori (t = fu - 1 in [0, 1)):
 *  - t rounded to float moves N by at most max|N'| u t <= 2/3 u, and N' by at most
 *    max|N''| u t <= 2 u;
 *  - Horner's rule for 6 N_k = ((a3 t + a2) t + a1) t + a0 (three multiplies and three
 *    adds) errs by at most gamma_6 sum|a_i| t^i <= 6 u * 13 (node 1: 3 + 6 + 0 + 4), so
 *    13 u in N; for 2 N'_k (two of each) by gamma_4 * 7 (node 1: 3 + 4 + 0), so 14 u in N';
 *  - the final multiply by 1/6 (or 1/(2h)), itself rounded to float: 2 u |N| <= 4/3 u,
 *    2 u |N'| <= 4/3 u.
 * Sums: 13 + 4/3 + 2/3 = 15 u for N; 14 + 4/3 + 2 < 18 u for N' (times 1/h). The
 * reference (double) errs by ~1e-16, negligible. A wrong coefficient, node, lane or
 * axis errs by 1e-3 or more (planted: sim/docs/one-definition.md).
 * The quadratic kernel (t = fu - 1/2) stays inside the same bounds: |N2'| <= 1 and
 * |N2''| <= 2 for the rounding of t; Horner on 2 N2_k (its t^3 step exact) errs by at
 * most gamma_4 * 5 in 2 N2 (node 1: 2 + 2 + 1), 10 u in N2; on 2 N2'_k by gamma_2 * 6,
 * 6 u in N2'; the scale 1/2 is exact.
 *
 * Cases, for each kernel: 1. 20000 random places (each axis's t uniform in [0, 1)) at
 * three spacings; 2. the edges t = 0, t = 1 - 2^-52 (just below 1, which float rounds
 * to 1), t = 1/2; 3. each axis takes a different fraction, so a lane that read another
 * axis's t shows. */
#include <string.h>

#include "box_f32.h"
#include "check.h"
#include "pw_kernel.h"

typedef void (*weights_fn)(const pw_ploc *l, double inv_h, pw_weights_f32 *f, int W);

/* the caller's W as a constant, as the solver's loops have it */
BOX_INLINE void weights_const(const pw_ploc *l, double inv_h, pw_weights_f32 *f, int W)
{
    if (W == PW_STENCIL_QUADRATIC)
        weights_f32(l, inv_h, f, PW_STENCIL_QUADRATIC);
    else
        weights_f32(l, inv_h, f, PW_STENCIL_CUBIC);
}

/* weights_f32 compiled for each instruction set of the solver's clones (BOX_CLONES) */
#if defined(BOX_HAVE_CLONES)
__attribute__((target("avx512f"))) static void weights_avx512(const pw_ploc *l, double inv_h,
                                                              pw_weights_f32 *f, int W)
{
    weights_const(l, inv_h, f, W);
}
__attribute__((target("avx2"))) static void weights_avx2(const pw_ploc *l, double inv_h,
                                                         pw_weights_f32 *f, int W)
{
    weights_const(l, inv_h, f, W);
}
#endif
static void weights_base(const pw_ploc *l, double inv_h, pw_weights_f32 *f, int W)
{
    weights_const(l, inv_h, f, W);
}

static const double U = 0x1p-24; /* float's unit roundoff */
static double max_w = 0, max_dw = 0; /* [u], [u / h] (reported) */
static int checked = 0;

/* One value of the fast form against the reference: N or N'/h at distance d. */
static void check_one(double got, double d, int deriv, double h, const char *isa,
                      const char *where, int ax, int k, int W)
{
    double ref = deriv ? pw_kernel_dN(W, d) / h : pw_kernel_N(W, d);
    double err = fabs(got - ref) * (deriv ? h : 1.0) / U; /* in u (times 1/h for N') */
    double tol = deriv ? 18.0 : 15.0;
    if (deriv)
        max_dw = fmax(max_dw, err);
    else
        max_w = fmax(max_w, err);
    checked++;
    CHECK(err <= tol, "%s, W %d: %s%s axis %d node %d, fu - k = %.17g: %.9g vs %.17g (%.1f u)",
          isa, W, deriv ? "dw" : "w", where, ax, k, d, got, ref, err);
}

static void check_place(weights_fn fn, const char *isa, const double t[3], double h, int W)
{
    pw_ploc l;
    memset(&l, 0, sizeof l);
    double fu[3];
    for (int ax = 0; ax < 3; ax++) l.fu[ax] = fu[ax] = pw_stencil_t_origin(W) + t[ax];
    pw_weights_f32 f;
    fn(&l, 1.0 / h, &f, W);
    for (int ax = 0; ax < 3; ax++)
        for (int k = 0; k < 4; k++) {
            double d = fu[ax] - k;
            check_one(f.w[ax][k], d, 0, h, isa, "", ax, k, W);
            check_one(f.dw[ax][k], d, 1, h, isa, "", ax, k, W);
        }
    /* x in the row halves: lanes 4a..4a+3 of half hf hold node 2 hf + a's factor */
    for (int hf = 0; hf < 2; hf++)
        for (int lane = 0; lane < 8; lane++) {
            int k = 2 * hf + lane / 4;
            check_one(f.wx[hf][lane], fu[0] - k, 0, h, isa, " (row half)", 0, k, W);
            check_one(f.dwx[hf][lane], fu[0] - k, 1, h, isa, " (row half)", 0, k, W);
        }
}

static void check_isa(weights_fn fn, const char *isa)
{
    static const double spacings[3] = {0.01, 0.04, 1.0 / 3.0};
    for (int W = PW_STENCIL_QUADRATIC; W <= PW_STENCIL_CUBIC; W++) {
        unsigned long long st = 4242;
        /* 1. random places */
        for (int trial = 0; trial < 20000; trial++) {
            double t[3];
            for (int ax = 0; ax < 3; ax++) {
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                t[ax] = (double)(st >> 11) * 0x1p-53;
            }
            check_place(fn, isa, t, spacings[trial % 3], W);
        }
        /* 2. the edges of [0, 1), and 3. a different fraction on each axis */
        const double edges[][3] = {{0.0, 0.0, 0.0},
                                   {1.0 - 0x1p-52, 1.0 - 0x1p-52, 1.0 - 0x1p-52},
                                   {0.5, 0.5, 0.5},
                                   {0.0, 0.5, 1.0 - 0x1p-52},
                                   {1.0 - 0x1p-52, 0.0, 0.25}};
        for (size_t c = 0; c < sizeof edges / sizeof edges[0]; c++)
            for (int s = 0; s < 3; s++) check_place(fn, isa, edges[c], spacings[s], W);
    }
}

int main(void)
{
#if defined(BOX_HAVE_CLONES)
    if (__builtin_cpu_supports("avx512f"))
        check_isa(weights_avx512, "avx512f");
    else
        printf("(no AVX-512 on this CPU: that clone not checked)\n");
    if (__builtin_cpu_supports("avx2"))
        check_isa(weights_avx2, "avx2");
    else
        printf("(no AVX2 on this CPU: that clone not checked)\n");
#endif
    check_isa(weights_base, "baseline");
    printf("%d values; largest error: N %.2f u (tolerance 15), N'/h %.2f u/h (tolerance 18)\n",
           checked, max_w, max_dw);
    return check_done("kernel_float_weights_match_double");
}
