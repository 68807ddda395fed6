/* Property: Henyey-Greenstein sampling draws from the HG distribution.
 *   1. the mean cosine of N samples equals g within 3 standard errors (sigma estimated
 *      from the samples' variance), for g in {-0.7, 0, 0.5, 0.9};
 *   2. the pdf integrates to 1 over the sphere to 1e-3 (midpoint rule in cos theta with
 *      2e5 intervals: error ~1e-6 even at g = 0.9, whose peak is 15/sr);
 *   3. the pdf returned with a sample equals pw_hg_pdf at that direction to 1e-12
 *      relative, and the samples are unit vectors;
 *   4. the histogram of cos theta in 20 bins matches the integral of the pdf over each
 *      bin within 4.5 binomial standard deviations (a 20-bin test at 4.5 sigma fails
 *      by chance with probability < 1e-4, and the seed is fixed). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sampling.h"

#define NBINS 20

static double hg_integral(double g, double c0, double c1, int steps)
{
    double s = 0, dc = (c1 - c0) / steps;
    for (int k = 0; k < steps; k++) s += pw_hg_pdf(c0 + (k + 0.5) * dc, g);
    return s * dc * 2.0 * PW_PI;
}

int main(void)
{
    const double gs[4] = {-0.7, 0.0, 0.5, 0.9};
    int n = getenv("POWDER_SANITIZED") ? 100000 : 1000000;
    vec3 wi = v3_normalize(v3(0.3, -0.5, 0.8));
    for (int gi = 0; gi < 4; gi++) {
        double g = gs[gi];
        pw_rng rng = pw_rng_seed(1234, (uint64_t)gi, 0);
        double sum = 0, sum2 = 0, worst_pdf = 0, worst_len = 0;
        long hist[NBINS] = {0};
        for (int k = 0; k < n; k++) {
            double pdf;
            vec3 wo = pw_hg_sample(wi, g, pw_rng_next(&rng), pw_rng_next(&rng), &pdf);
            double c = v3_dot(wi, wo);
            sum += c;
            sum2 += c * c;
            double rel = fabs(pdf - pw_hg_pdf(c, g)) / pdf;
            if (rel > worst_pdf) worst_pdf = rel;
            if (fabs(v3_length(wo) - 1) > worst_len) worst_len = fabs(v3_length(wo) - 1);
            int b = (int)((c + 1) * 0.5 * NBINS);
            hist[b < 0 ? 0 : (b >= NBINS ? NBINS - 1 : b)]++;
        }
        /* 1. mean cosine */
        double mean = sum / n, var = sum2 / n - mean * mean, se = sqrt(var / n);
        CHECK(fabs(mean - g) <= 3 * se, "g = %g: mean cosine %.6f, %.2f standard errors off",
              g, mean, fabs(mean - g) / se);
        printf("g = %+.1f: mean cos %.6f (%.2f se), ", g, mean, fabs(mean - g) / se);
        /* 2. normalisation */
        double total = hg_integral(g, -1, 1, 200000);
        CHECK_NEAR(total, 1.0, 1e-3, "integral of the HG pdf over the sphere");
        printf("integral %.8f, ", total);
        /* 3. sampled pdf vs evaluated */
        CHECK(worst_pdf <= 1e-12, "g = %g: sampled pdf differs from pw_hg_pdf by %.3g", g,
              worst_pdf);
        CHECK(worst_len <= 1e-12, "g = %g: sample not unit (%.3g)", g, worst_len);
        /* 4. histogram */
        double worst_z = 0;
        for (int b = 0; b < NBINS; b++) {
            double c0 = -1 + 2.0 * b / NBINS, c1 = -1 + 2.0 * (b + 1) / NBINS;
            double p = hg_integral(g, c0, c1, 2000);
            double z = (hist[b] - n * p) / sqrt(n * p * (1 - p) + 1e-300);
            if (fabs(z) > worst_z) worst_z = fabs(z);
        }
        CHECK(worst_z <= 4.5, "g = %g: histogram bin off by %.2f sigma", g, worst_z);
        printf("worst bin %.2f sigma\n", worst_z);
    }
    /* 5. edge: the pdf is symmetric under g -> -g, cos -> -cos */
    CHECK_NEAR(pw_hg_pdf(0.3, 0.5), pw_hg_pdf(-0.3, -0.5), 1e-15, "HG symmetry");
    /* 6. g = 0 is isotropic, 1/(4 pi) */
    CHECK_NEAR(pw_hg_pdf(0.77, 0.0), 1.0 / (4 * PW_PI), 1e-15, "isotropic HG");
    return check_done("hg_sampling");
}
