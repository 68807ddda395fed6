/* Property: lat-long environment-map importance sampling is consistent.
 *   1. the histogram of sampled directions over the map's pixels matches the target
 *      distribution P_ij = lum_ij Omega_ij / sum(lum Omega) (luminance times the pixel's
 *      solid angle, i.e. the sin(theta) weighting): every pixel within 4.5 binomial
 *      sigma, and the chi-square per degree of freedom < 1.3 (its sd is 0.09 at 511
 *      dof, so this is > 3 sd);
 *   2. the solid-angle pdf integrates to 1 over the sphere to 1e-3 (midpoint rule on a
 *      grid aligned with the map rows and not with its rotated columns; the bound on the
 *      error is of order columns/phi-steps x contrast ~ 3e-4 here);
 *   3. the pdf and radiance returned with each sample equal pw_envmap_pdf/eval there;
 *   4. MIS: at every sampled direction the power-heuristic weights of light and phase
 *      sampling sum to 1 (1e-12), and the MIS estimate of int L(w) p_HG(w) dw matches
 *      a quadrature reference within 3 standard errors and 1%;
 *   5. edge cases: a black map samples nothing (pdf 0); negative and NaN pixels refused.
 * The map is rotated by 37 deg to test the rotation in sample, pdf and eval together. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "lights.h"
#include "sampling.h"

#define W 32
#define H 16

static double lum(const float *c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    static float rgb[3 * W * H];
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            float *c = rgb + 3 * (i * W + j);
            c[0] = (float)(0.2 + 0.1 * sin(0.7 * j) + (i < H / 2 ? 0.3 : 0.05));
            c[1] = (float)(0.3 + 0.05 * i);
            c[2] = (float)(0.5 + 0.2 * cos(0.3 * (i + j)));
            if (i == 4 && j == 9) c[0] = c[1] = c[2] = 3.0f; /* a "sun" pixel */
        }
    pw_error err = {0};
    pw_envmap *e = pw_envmap_create(rgb, W, H, 1.5, 37.0, &err);
    CHECK(e != NULL, "create: %s", err.msg);
    if (!e) return check_done("envmap_sampling_pdf");

    /* target distribution */
    double P[H][W], total = 0;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            double omega = 2 * PW_PI / W * (cos(PW_PI * i / H) - cos(PW_PI * (i + 1) / H));
            P[i][j] = lum(rgb + 3 * (i * W + j)) * omega;
            total += P[i][j];
        }

    /* 1 + 3. histogram; consistency of sample with pdf and eval */
    int n = sanitized ? 200000 : 2000000;
    static long hist[H][W];
    pw_rng rng = pw_rng_seed(99, 0, 0);
    double worst_pdf = 0, worst_L = 0;
    for (int k = 0; k < n; k++) {
        vec3 dir;
        double pdf;
        vec3 L = pw_envmap_sample(e, pw_rng_next(&rng), pw_rng_next(&rng), &dir, &pdf);
        int i, j;
        pw_envmap_pixel(e, dir, &i, &j);
        hist[i][j]++;
        double rp = fabs(pdf - pw_envmap_pdf(e, dir)) / pdf;
        vec3 Le = pw_envmap_eval(e, dir);
        double rl = v3_length(v3_sub(L, Le)) / v3_length(L);
        if (rp > worst_pdf) worst_pdf = rp;
        if (rl > worst_L) worst_L = rl;
    }
    double chi2 = 0, worst_z = 0;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            double p = P[i][j] / total, ex = n * p;
            double z = (hist[i][j] - ex) / sqrt(ex * (1 - p));
            chi2 += (hist[i][j] - ex) * (hist[i][j] - ex) / ex;
            if (fabs(z) > worst_z) worst_z = fabs(z);
        }
    chi2 /= (W * H - 1);
    CHECK(worst_z <= 4.5, "histogram: a pixel is %.2f sigma off", worst_z);
    CHECK(chi2 < 1.3, "histogram: chi-square per dof %.3f", chi2);
    CHECK(worst_pdf <= 1e-9, "sample pdf vs pw_envmap_pdf: %.3g", worst_pdf);
    CHECK(worst_L <= 1e-6, "sample radiance vs pw_envmap_eval: %.3g", worst_L);
    printf("1. histogram: worst pixel %.2f sigma, chi2/dof %.3f (%d samples)\n", worst_z, chi2, n);

    /* 2. pdf over the sphere: theta bands aligned with rows, phi not aligned */
    int sub = 8, nphi = sanitized ? 10007 : 100003;
    double integral = 0;
    for (int b = 0; b < H * sub; b++) {
        double th0 = PW_PI * b / (H * sub), th1 = PW_PI * (b + 1) / (H * sub);
        double th = 0.5 * (th0 + th1), band = (cos(th0) - cos(th1)) * 2 * PW_PI / nphi;
        double s = 0;
        for (int a = 0; a < nphi; a++) {
            double phi = 2 * PW_PI * (a + 0.5) / nphi;
            s += pw_envmap_pdf(e, v3(sin(th) * cos(phi), cos(th), sin(th) * sin(phi)));
        }
        integral += s * band;
    }
    CHECK_NEAR(integral, 1.0, 1e-3, "integral of the env-map pdf over the sphere");
    printf("2. pdf integral %.7f\n", integral);

    /* 4. MIS between env-map sampling and HG sampling, g = 0.5 about wi */
    double g = 0.5;
    vec3 wi = v3_normalize(v3(0.2, 0.9, -0.3));
    /* reference by quadrature (luminance of L) */
    double ref = 0;
    int nth = 256, nph = 1024;
    for (int b = 0; b < nth; b++) {
        double th0 = PW_PI * b / nth, th1 = PW_PI * (b + 1) / nth, th = 0.5 * (th0 + th1);
        double band = (cos(th0) - cos(th1)) * 2 * PW_PI / nph;
        for (int a = 0; a < nph; a++) {
            double phi = 2 * PW_PI * (a + 0.5) / nph;
            vec3 w = v3(sin(th) * cos(phi), cos(th), sin(th) * sin(phi));
            vec3 L = pw_envmap_eval(e, w);
            ref += (0.2126 * L.x + 0.7152 * L.y + 0.0722 * L.z) * pw_hg_pdf(v3_dot(wi, w), g) * band;
        }
    }
    int m = sanitized ? 50000 : 400000;
    double s1 = 0, s2 = 0, worst_wsum = 0;
    for (int k = 0; k < m; k++) {
        double est = 0;
        /* light sample */
        vec3 wl;
        double pl;
        vec3 L = pw_envmap_sample(e, pw_rng_next(&rng), pw_rng_next(&rng), &wl, &pl);
        double f = pw_hg_pdf(v3_dot(wi, wl), g);
        double wsum = pw_mis_power(pl, f) + pw_mis_power(f, pl);
        if (fabs(wsum - 1) > worst_wsum) worst_wsum = fabs(wsum - 1);
        est += (0.2126 * L.x + 0.7152 * L.y + 0.0722 * L.z) * f * pw_mis_power(pl, f) / pl;
        /* phase sample */
        double pp;
        vec3 wp = pw_hg_sample(wi, g, pw_rng_next(&rng), pw_rng_next(&rng), &pp);
        vec3 Lp = pw_envmap_eval(e, wp);
        double plp = pw_envmap_pdf(e, wp);
        wsum = pw_mis_power(pp, plp) + pw_mis_power(plp, pp);
        if (fabs(wsum - 1) > worst_wsum) worst_wsum = fabs(wsum - 1);
        est += (0.2126 * Lp.x + 0.7152 * Lp.y + 0.0722 * Lp.z) * pw_mis_power(pp, plp);
        s1 += est;
        s2 += est * est;
    }
    double mean = s1 / m, se = sqrt((s2 / m - mean * mean) / m);
    CHECK(worst_wsum <= 1e-12, "MIS weights sum to 1 within %.3g", worst_wsum);
    CHECK(fabs(mean - ref) <= 3 * se && fabs(mean - ref) <= 0.01 * ref,
          "MIS estimate %.6f vs quadrature %.6f (%.2f se)", mean, ref, fabs(mean - ref) / se);
    printf("4. MIS estimate %.6f, quadrature %.6f, %.2f se, rel %.2g\n", mean, ref,
           fabs(mean - ref) / se, fabs(mean - ref) / ref);
    pw_envmap_destroy(e);

    /* 5.1 black map */
    static float black[3 * 4 * 2];
    pw_envmap *b = pw_envmap_create(black, 4, 2, 1.0, 0.0, &err);
    CHECK(b != NULL, "black map refused: %s", err.msg);
    if (b) {
        vec3 d;
        double pdf = 1;
        pw_envmap_sample(b, 0.3, 0.7, &d, &pdf);
        CHECK(pdf == 0 && pw_envmap_pdf(b, v3(0, 1, 0)) == 0, "black map has pdf 0");
        pw_envmap_destroy(b);
    }
    /* 5.2 negative, 5.3 NaN pixel */
    black[5] = -1.0f;
    CHECK(pw_envmap_create(black, 4, 2, 1.0, 0.0, &err) == NULL, "negative pixel accepted");
    printf("5.2: %s\n", err.msg);
    black[5] = NAN;
    CHECK(pw_envmap_create(black, 4, 2, 1.0, 0.0, &err) == NULL, "NaN pixel accepted");
    /* 5.4 zero size */
    CHECK(pw_envmap_create(black, 0, 2, 1.0, 0.0, &err) == NULL, "0 x 2 map accepted");
    return check_done("envmap_sampling_pdf");
}
