/* pw_kernel.h — the solver's two interpolation kernels, each defined once here: the cubic
 * B-spline of Stomakhin et al. 2013, section 4 (the solver's default, the rasterizer's
 * and the exporters' only kernel), and the quadratic B-spline of the MPM codes that came
 * after it (MLS-MPM, Taichi's examples), which reaches 3 nodes per axis instead of 4.
 *
 *   N(x) = 1/2|x|^3 - x^2 + 2/3            for 0 <= |x| < 1
 *        = -1/6|x|^3 + x^2 - 2|x| + 4/3     for 1 <= |x| < 2
 *        = 0                               otherwise
 *
 * w_ip = N((x_p - x_i)/h) N((y_p - y_i)/h) N((z_p - z_i)/h), support 4 nodes per axis.
 *
 * Two forms, one function:
 *  - pw_bspline, pw_bspline_deriv, pw_bspline_weights: N and N' as written above, at
 *    any x. The rasterizer and the exporters use them, and the tests take them as the
 *    reference.
 *  - PW_BSPLINE_STENCIL_DEFINE: the same pieces at a particle's four stencil nodes,
 *    as polynomials in the particle's place, in vector lanes. The solver uses it
 *    (sim/mpm_internal.h in double, sim/box_f32.h in float). Tests compare each
 *    instance with pw_bspline, element by element (kernel_partition_of_unity,
 *    kernel_float_weights_match_double). */
#ifndef PW_KERNEL_H
#define PW_KERNEL_H

#include <math.h>

static inline double pw_bspline(double x)
{
    double a = fabs(x);
    if (a < 1.0) return 0.5 * a * a * a - a * a + 2.0 / 3.0;
    if (a < 2.0) {
        double b = 2.0 - a;
        return b * b * b / 6.0;
    }
    return 0.0;
}

/* dN/dx */
static inline double pw_bspline_deriv(double x)
{
    double a = fabs(x), s = x < 0 ? -1.0 : 1.0;
    if (a < 1.0) return s * (1.5 * a * a - 2.0 * a);
    if (a < 2.0) {
        double b = 2.0 - a;
        return -s * 0.5 * b * b;
    }
    return 0.0;
}

/* The quadratic B-spline (sim.kernel "quadratic"), C1, support 3 nodes per axis:
 *   N2(x) = 3/4 - x^2                 for 0 <= |x| < 1/2
 *         = 1/2 (3/2 - |x|)^2         for 1/2 <= |x| < 3/2
 *         = 0                         otherwise */
static inline double pw_bspline2(double x)
{
    double a = fabs(x);
    if (a < 0.5) return 0.75 - a * a;
    if (a < 1.5) {
        double b = 1.5 - a;
        return 0.5 * b * b;
    }
    return 0.0;
}

/* dN2/dx */
static inline double pw_bspline2_deriv(double x)
{
    double a = fabs(x), s = x < 0 ? -1.0 : 1.0;
    if (a < 0.5) return -2.0 * x;
    if (a < 1.5) return -s * (1.5 - a);
    return 0.0;
}

/* ---- a kernel by its stencil width --------------------------------------------------
 * The solver names a kernel by the nodes its stencil spans per axis, W: 4 for the cubic,
 * 3 for the quadratic. The stencil's first node along an axis, for a point at grid
 * coordinate u = x/h, is the one W/2 nodes below the nearest: floor(u) - 1 for the
 * cubic, floor(u - 1/2) for the quadratic, so fu = u - base lies in [1, 2) or [1/2, 3/2). */
#define PW_STENCIL_CUBIC 4
#define PW_STENCIL_QUADRATIC 3

static inline long pw_stencil_first(double u, int W)
{
    return W == PW_STENCIL_CUBIC ? (long)floor(u) - 1 : (long)floor(u - 0.5);
}

/* fu - t_origin is the stencil form's t in [0, 1) (exact in double: see below) */
static inline double pw_stencil_t_origin(int W) { return W == PW_STENCIL_CUBIC ? 1.0 : 0.5; }

static inline double pw_kernel_N(int W, double x)
{
    return W == PW_STENCIL_CUBIC ? pw_bspline(x) : pw_bspline2(x);
}
static inline double pw_kernel_dN(int W, double x)
{
    return W == PW_STENCIL_CUBIC ? pw_bspline_deriv(x) : pw_bspline2_deriv(x);
}

/* The weights of either kernel along one axis: w[k], dw[k] for k < W, and 0 for W <= k < 4
 * (a quadratic stencil padded to the cubic's four). Returns the first node. */
static inline int pw_kernel_weights(int W, double u, double inv_h, double w[4], double dw[4])
{
    int base = (int)pw_stencil_first(u, W);
    for (int k = 0; k < 4; k++) {
        double d = u - (double)(base + k);
        w[k] = k < W ? pw_kernel_N(W, d) : 0.0;
        if (dw) dw[k] = k < W ? pw_kernel_dN(W, d) * inv_h : 0.0;
    }
    return base;
}

/* The cubic's 4 weights along one axis for a point at grid coordinate u = x/h: the nodes
 * are base, base+1, base+2, base+3 with base = floor(u) - 1; w[k] = N(u - (base+k)) and
 * dw[k] = N'(u - (base+k)) / h (gradient in world units). Returns base. */
static inline int pw_bspline_weights(double u, double inv_h, double w[4], double dw[4])
{
    return pw_kernel_weights(PW_STENCIL_CUBIC, u, inv_h, w, dw);
}

/* ---- the stencil form ---------------------------------------------------------------
 * With fu = u - base in [1, 2) and t = fu - 1 in [0, 1), node k of the stencil lies at
 * distance fu - k = 1 + t - k, so each node takes one piece of N, a cubic in t:
 *   6 N_k = ((a3 t + a2) t + a1) t + a0,   2 N'_k = (a3 t + b1) t + b0   (d/dt = d/du),
 * with the coefficients below, node k in place k (k = 0: 6 N = (1 - t)^3; k = 1:
 * 6 N = 3 t^3 - 6 t^2 + 4; k = 2: 6 N = -3 t^3 + 3 t^2 + 3 t + 1; k = 3: 6 N = t^3;
 * b1 = 2 a2 / 3, b0 = a1 / 3). They are small integers, exact in float and double. */
#define PW_BSPLINE_A3 -1, 3, -3, 1
#define PW_BSPLINE_A2 3, -6, 3, 0
#define PW_BSPLINE_A1 -3, 0, 3, 0
#define PW_BSPLINE_A0 1, 4, 1, 0
#define PW_BSPLINE_B1 2, -4, 2, 0
#define PW_BSPLINE_B0 -1, 0, 1, 0
/* The quadratic's, in the same form with t = fu - 1/2 (node k at distance t + 1/2 - k):
 * 2 N2_0 = (1 - t)^2, 2 N2_1 = -2 t^2 + 2 t + 1, 2 N2_2 = t^2, and node 3 outside the
 * support (0); 2 N2'_k = b1 t + b0. Scales: 1/2 and 1 / (2 h). (The t^3 coefficients are
 * zero: the Horner steps through them are exact.) */
#define PW_BSPLINE2_A3 0, 0, 0, 0
#define PW_BSPLINE2_A2 1, -2, 1, 0
#define PW_BSPLINE2_A1 -2, 2, 0, 0
#define PW_BSPLINE2_A0 1, 1, 0, 0
#define PW_BSPLINE2_B1 2, -4, 2, 0
#define PW_BSPLINE2_B0 -2, 2, 0, 0

/* Lane initialisers for the instances: four lanes (nodes 0-3), or eight (nodes 0-3 of
 * two axes side by side). */
#define PW_BSPLINE_LANES4(...) {__VA_ARGS__}
#define PW_BSPLINE_LANES8(...) {__VA_ARGS__, __VA_ARGS__}

/* Defines static inline void name(const V *t, int W, S w_scale, S d_scale, V *w, V *dw):
 * in lane l, node k = l mod 4 of the kernel of width W, *w = 6 N_k(t_l) w_scale (cubic)
 * or 2 N2_k(t_l) w_scale (quadratic) and *dw = 2 N'_k(t_l) d_scale, for the vector
 * type V of 4 or 8 lanes of the scalar type S (LANES: PW_BSPLINE_LANES4 or 8); callers
 * pass w_scale = 1/6 (cubic) or 1/2 (quadratic) and d_scale = 1 / (2 h), each rounded
 * to S, for N_k and N'_k / h. W is a constant where the callers are inlined, so each
 * instance holds one kernel's coefficients. Every instance does the same operations in
 * the same order (Horner, then one multiply), so with -ffp-contract=off each
 * instruction-set clone of a caller gives the same bits. (A macro that defines a typed
 * function: GCC's vector types have no generic functions. Vectors go by address: a
 * vector argument would change the ABI between the clones.) */
#define PW_BSPLINE_STENCIL_DEFINE(name, V, S, LANES)                                           \
    static inline __attribute__((always_inline)) void name(const V *tp, int W, S w_scale,      \
                                                           S d_scale, V *w, V *dw)             \
    {                                                                                          \
        const V t = *tp;                                                                       \
        const int cubic = W == PW_STENCIL_CUBIC;                                               \
        const V a3 = cubic ? (V)LANES(PW_BSPLINE_A3) : (V)LANES(PW_BSPLINE2_A3),               \
                a2 = cubic ? (V)LANES(PW_BSPLINE_A2) : (V)LANES(PW_BSPLINE2_A2),               \
                a1 = cubic ? (V)LANES(PW_BSPLINE_A1) : (V)LANES(PW_BSPLINE2_A1),               \
                a0 = cubic ? (V)LANES(PW_BSPLINE_A0) : (V)LANES(PW_BSPLINE2_A0);               \
        const V b1 = cubic ? (V)LANES(PW_BSPLINE_B1) : (V)LANES(PW_BSPLINE2_B1),               \
                b0 = cubic ? (V)LANES(PW_BSPLINE_B0) : (V)LANES(PW_BSPLINE2_B0);               \
        *w = (((a3 * t + a2) * t + a1) * t + a0) * w_scale;                                    \
        *dw = ((a3 * t + b1) * t + b0) * d_scale;                                              \
    }

#endif
