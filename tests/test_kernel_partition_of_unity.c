/* Property: the cubic B-spline weights of the 4x4x4 nodes around any point sum to 1
 * (partition of unity) and their gradients sum to 0, to 1e-12 (double rounding);
 * the derivative matches a central difference of N to 1e-7; and the solver's weights,
 * expanded per particle from its place in the stencil (pw_pstep_expand, polynomials
 * in the fraction), equal the kernel's to 4e-16 (N) and 4e-16 / h (N'/h), with the
 * same partition of unity. */
#include "check.h"
#include "mpm_internal.h"
#include "pw_kernel.h"

int main(void)
{
    unsigned s = 12345u;
    for (int trial = 0; trial < 1000; trial++) {
        double p[3];
        for (int k = 0; k < 3; k++) {
            s = s * 1664525u + 1013904223u;
            p[k] = (s >> 8) * (1.0 / 16777216.0) * 40.0 - 20.0;
        }
        double h = 0.01, inv_h = 1 / h;
        double w[3][4], dw[3][4];
        for (int k = 0; k < 3; k++) pw_bspline_weights(p[k], inv_h, w[k], dw[k]);
        double sum = 0, g[3] = {0, 0, 0};
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int c = 0; c < 4; c++) {
                    sum += w[0][a] * w[1][b] * w[2][c];
                    g[0] += dw[0][a] * w[1][b] * w[2][c];
                    g[1] += w[0][a] * dw[1][b] * w[2][c];
                    g[2] += w[0][a] * w[1][b] * dw[2][c];
                }
        CHECK_NEAR(sum, 1.0, 1e-12, "sum of weights");
        for (int k = 0; k < 3; k++) CHECK_NEAR(g[k] * h, 0.0, 1e-12, "sum of gradients");

        /* 3. the solver's expanded weights from fu = u - base, base = floor(u) - 1 */
        pw_ploc l = {{0}, 0, {0}};
        for (int k = 0; k < 3; k++) l.fu[k] = p[k] - (floor(p[k]) - 1.0);
        pw_pstep q;
        pw_pstep_expand(&l, inv_h, &q);
        for (int k = 0; k < 3; k++) {
            double ws = 0, dws = 0;
            for (int a = 0; a < 4; a++) {
                CHECK_NEAR(q.w[k][a], w[k][a], 4e-16, "expanded N vs the kernel");
                CHECK_NEAR(q.dw[k][a] * h, dw[k][a] * h, 4e-16, "expanded N'/h vs the kernel");
                ws += q.w[k][a];
                dws += q.dw[k][a] * h;
            }
            CHECK_NEAR(ws, 1.0, 4e-16, "expanded weights along an axis sum to 1");
            CHECK_NEAR(dws, 0.0, 4e-16, "expanded derivatives along an axis sum to 0");
        }
    }
    /* 1. derivative against central differences, away from the kinks at 0, +-1, +-2 */
    for (double x = -2.5; x <= 2.5; x += 0.01) {
        double e = 1e-6;
        double fd = (pw_bspline(x + e) - pw_bspline(x - e)) / (2 * e);
        CHECK_NEAR(pw_bspline_deriv(x), fd, 1e-7, "N'(x) vs finite difference");
    }
    /* 2. support and the value at the node */
    CHECK_NEAR(pw_bspline(0.0), 2.0 / 3.0, 0, "N(0)");
    CHECK_NEAR(pw_bspline(2.0), 0.0, 0, "N(2)");
    CHECK_NEAR(pw_bspline(-2.5), 0.0, 0, "N(-2.5)");
    return check_done("kernel_partition_of_unity");
}
