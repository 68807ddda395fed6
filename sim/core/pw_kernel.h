/* pw_kernel.h — the cubic B-spline of Stomakhin et al. 2013, section 4, shared by the
 * solver (stage 1) and the rasterizer (stage 2) so both see the same kernel.
 *
 *   N(x) = 1/2|x|^3 - x^2 + 2/3            for 0 <= |x| < 1
 *        = -1/6|x|^3 + x^2 - 2|x| + 4/3     for 1 <= |x| < 2
 *        = 0                               otherwise
 *
 * w_ip = N((x_p - x_i)/h) N((y_p - y_i)/h) N((z_p - z_i)/h), support 4 nodes per axis. */
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

/* The 4 weights along one axis for a point at grid coordinate u = x/h: the nodes are
 * base, base+1, base+2, base+3 with base = floor(u) - 1; w[k] = N(u - (base+k)) and
 * dw[k] = N'(u - (base+k)) / h (gradient in world units). Returns base. */
static inline int pw_bspline_weights(double u, double inv_h, double w[4], double dw[4])
{
    int base = (int)floor(u) - 1;
    for (int k = 0; k < 4; k++) {
        double d = u - (double)(base + k);
        w[k] = pw_bspline(d);
        if (dw) dw[k] = pw_bspline_deriv(d) * inv_h;
    }
    return base;
}

#endif
