/* Property, for both of the solver's kernels (pw_kernel.h: the cubic B-spline, 4x4x4
 * nodes, and the quadratic, 3x3x3):
 *  1. partition of unity: the weights of the nodes around any point sum to 1 and their
 *     gradients to 0, to 1e-12 (double rounding);
 *  2. linear completeness: the weights reproduce the point, sum_i w_i x_i = x_p, and the
 *     gradients the identity, sum_i x_i grad w_i^T = I, to 1e-12 (in cells), so a linear
 *     velocity field goes to the particle and its gradient exactly;
 *  3. the derivative matches a central difference of N to 1e-7, away from the kinks;
 *  4. the solver's weights, expanded per particle from its place in the stencil
 *     (pw_pstep_expand, polynomials in the fraction), equal the kernel's to 4e-16 (N)
 *     and 4e-16 / h (N'/h), with the same partition of unity, and 0 on the quadratic's
 *     fourth (padding) node;
 *  5. the values at the nodes and the support. */
#include "check.h"
#include "mpm_internal.h"
#include "pw_kernel.h"

static const char *kernel_name = "";

/* CHECK_NEAR, the message prefixed by the kernel's name */
#define KNEAR(a, b, tol, what)                                                          \
    do {                                                                                \
        char m_[96];                                                                    \
        snprintf(m_, sizeof m_, "%s: %s", kernel_name, what);                           \
        CHECK_NEAR(a, b, tol, m_);                                                      \
    } while (0)

static void check_kernel(int W)
{
    kernel_name = W == PW_STENCIL_CUBIC ? "cubic" : "quadratic";
    unsigned s = 12345u;
    for (int trial = 0; trial < 1000; trial++) {
        double p[3];
        for (int k = 0; k < 3; k++) {
            s = s * 1664525u + 1013904223u;
            p[k] = (s >> 8) * (1.0 / 16777216.0) * 40.0 - 20.0;
        }
        double h = 0.01, inv_h = 1 / h;
        double w[3][4], dw[3][4];
        int base[3];
        for (int k = 0; k < 3; k++) base[k] = pw_kernel_weights(W, p[k], inv_h, w[k], dw[k]);
        double sum = 0, g[3] = {0, 0, 0}, x[3] = {0, 0, 0}, I[3][3] = {{0}};
        for (int a = 0; a < W; a++)
            for (int b = 0; b < W; b++)
                for (int c = 0; c < W; c++) {
                    double wi = w[0][a] * w[1][b] * w[2][c];
                    double gi[3] = {dw[0][a] * w[1][b] * w[2][c], w[0][a] * dw[1][b] * w[2][c],
                                    w[0][a] * w[1][b] * dw[2][c]};
                    double xi[3] = {base[0] + a, base[1] + b, base[2] + c}; /* [cells] */
                    sum += wi;
                    for (int k = 0; k < 3; k++) {
                        g[k] += gi[k];
                        x[k] += wi * xi[k];
                        for (int l = 0; l < 3; l++) I[k][l] += xi[k] * gi[l] * h;
                    }
                }
        KNEAR(sum, 1.0, 1e-12, "sum of weights");
        for (int k = 0; k < 3; k++) {
            KNEAR(g[k] * h, 0.0, 1e-12, "sum of gradients");
            KNEAR(x[k], p[k], 1e-12, "sum w_i x_i = x_p");
            for (int l = 0; l < 3; l++)
                KNEAR(I[k][l], k == l ? 1.0 : 0.0, 1e-12, "sum x_i grad w_i^T = I");
        }

        /* 4. the solver's expanded weights from fu = u - base */
        pw_ploc l = {{0}, 0, {0}};
        for (int k = 0; k < 3; k++) l.fu[k] = p[k] - (double)pw_stencil_first(p[k], W);
        pw_pstep q;
        pw_pstep_expand(&l, inv_h, &q, W);
        for (int k = 0; k < 3; k++) {
            double ws = 0, dws = 0;
            for (int a = 0; a < 4; a++) {
                KNEAR(q.w[k][a], w[k][a], 4e-16, "expanded N vs the kernel");
                KNEAR(q.dw[k][a] * h, dw[k][a] * h, 4e-16, "expanded N'/h vs the kernel");
                ws += q.w[k][a];
                dws += q.dw[k][a] * h;
            }
            if (W == PW_STENCIL_QUADRATIC)
                CHECK(q.w[k][3] == 0 && q.dw[k][3] == 0, "quadratic: padding node not 0");
            KNEAR(ws, 1.0, 4e-16, "expanded weights along an axis sum to 1");
            KNEAR(dws, 0.0, 4e-16, "expanded derivatives along an axis sum to 0");
        }
    }
    /* 3. derivative against central differences, away from the kinks (cubic: 0, +-1,
     * +-2; quadratic: +-1/2, +-3/2) */
    for (double x = -2.505; x <= 2.5; x += 0.01) {
        double e = 1e-6;
        double fd = (pw_kernel_N(W, x + e) - pw_kernel_N(W, x - e)) / (2 * e);
        KNEAR(pw_kernel_dN(W, x), fd, 1e-7, "N'(x) vs finite difference");
    }
}

int main(void)
{
    check_kernel(PW_STENCIL_CUBIC);
    check_kernel(PW_STENCIL_QUADRATIC);
    /* 5. the values at the node and the support */
    CHECK_NEAR(pw_bspline(0.0), 2.0 / 3.0, 0, "N(0)");
    CHECK_NEAR(pw_bspline(2.0), 0.0, 0, "N(2)");
    CHECK_NEAR(pw_bspline(-2.5), 0.0, 0, "N(-2.5)");
    CHECK_NEAR(pw_bspline2(0.0), 0.75, 0, "N2(0)");
    CHECK_NEAR(pw_bspline2(0.5), 0.5, 0, "N2(1/2)");
    CHECK_NEAR(pw_bspline2(1.5), 0.0, 0, "N2(3/2)");
    CHECK_NEAR(pw_bspline2(-2.0), 0.0, 0, "N2(-2)");
    return check_done("kernel_partition_of_unity");
}
