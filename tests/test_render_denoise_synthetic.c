/* Property: the denoiser (render/denoise.h) removes most of the noise of flat regions
 * without moving edges or means, and never spreads pixels that hold no estimate.
 * Synthetic 64 x 64 images with a known answer, noise Gaussian of known variance drawn
 * independently for the two halves (each half's variance 2 V, the colour's V):
 *   1. a constant 0.5 with sigma = 0.1 per pixel: the MSE falls at least 40-fold (the
 *      window holds 169 pixels; flat regions weigh most of them near 1; measured 84x
 *      cross-filtered, 68x with the variance alone), and the mean stays within 0.001 of
 *      the input's (whose own error, sigma / 64 = 0.0016, is the noise the filter keeps);
 *   2. a step from 0.2 to 1.0 at x = 32 with sigma = 0.05: the columns 2 px either side
 *      (x = 30 and x = 33) keep their true value within 0.02 (2.5 % of the step) in the
 *      mean (measured -0.006 and 0.001) and their RMS error below the input's
 *      (measured 0.009 and 0.004 against 0.05);
 *   3. a step of 0.1 in colour under noise of sigma = 0.1, marked by an albedo step (then
 *      by a step of the sun's transmittance instead): with the feature the columns 2 px
 *      either side stay within 0.01 in the mean, and
 *      the feature at least halves their summed error against the colour alone
 *      (measured 0.008 and 0.006 against 0.014 and 0.019);
 *   4. a ramp from 0.2 to 1.0 across the image with sigma = 0.1 stays unbiased: the
 *      columns away from the borders within 0.002 of the truth on average and 0.015 at
 *      worst (a column's mean carries about 0.004 of the input's noise, so the worst of
 *      42 is expected near 0.009);
 *   5. a NaN, a +inf and a zero-sample pixel holding 1e6 keep their input values, every
 *      other pixel is finite, and every other pixel is the same bytes as when the three
 *      are marked as zero-sample pixels: they are not neighbours of anything;
 *   6. the same bytes with 1 and 2 threads, with every feature present. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "denoise.h"

#define W 64
#define H 64
#define NPIX (W * H)

static double gauss(unsigned long long *s)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        u[k] = ((double)(*s >> 11) + 0.5) * 0x1p-53;
    }
    return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

typedef struct {
    float rgb[4 * NPIX], a[3 * NPIX], b[3 * NPIX], var[3 * NPIX], truth[NPIX];
    float albedo[3 * NPIX], samples[NPIX];
} image;

/* truth(x, y) plus noise of variance V (sigma^2) on the colour, 2 V on each half */
static void make(image *im, double (*truth)(int x, int y), double sigma, unsigned long long seed)
{
    unsigned long long s = seed;
    for (int q = 0; q < NPIX; q++) {
        double t = truth(q % W, q / W);
        im->truth[q] = (float)t;
        im->samples[q] = 16;
        for (int ch = 0; ch < 3; ch++) {
            double a = t + sigma * 1.4142135623730951 * gauss(&s), b = t + sigma * 1.4142135623730951 * gauss(&s);
            im->a[3 * q + ch] = (float)a;
            im->b[3 * q + ch] = (float)b;
            im->rgb[4 * q + ch] = (float)(0.5 * (a + b));
            im->var[3 * q + ch] = (float)(sigma * sigma);
            im->albedo[3 * q + ch] = 0.8f;
        }
        im->rgb[4 * q + 3] = 1.0f;
    }
}

static pw_denoise_input input_of(const image *im, int halves, int var)
{
    pw_denoise_input in;
    memset(&in, 0, sizeof in);
    in.width = W, in.height = H;
    in.color = im->rgb, in.color_stride = 4;
    in.samples = im->samples;
    if (halves) in.half_a = im->a, in.half_b = im->b;
    if (var) in.color_var = im->var;
    return in;
}

static void denoise(const pw_denoise_input *in, int threads, float *out)
{
    pw_denoise_params p;
    pw_denoise_params_default(&p);
    p.threads = threads;
    pw_error err = {0};
    pw_status rc = pw_denoise(in, &p, out, &err);
    CHECK(rc == PW_OK, "denoise: %s", err.msg);
}

/* mean squared error of the green channel against the truth, and of a column */
static double mse(const float *img, const image *im)
{
    double s = 0;
    for (int q = 0; q < NPIX; q++) s += pow(img[4 * q + 1] - im->truth[q], 2);
    return s / NPIX;
}

static void column_error(const float *img, const image *im, int x, double *bias, double *rms)
{
    double b = 0, r = 0;
    for (int y = 0; y < H; y++) {
        double e = img[4 * (y * W + x) + 1] - im->truth[y * W + x];
        b += e, r += e * e;
    }
    *bias = b / H, *rms = sqrt(r / H);
}

static double flat(int x, int y) { (void)x, (void)y; return 0.5; }
static double step(int x, int y) { (void)y; return x < 32 ? 0.2 : 1.0; }
static double small_step(int x, int y) { (void)y; return x < 32 ? 0.5 : 0.6; }
static double ramp(int x, int y) { (void)y; return 0.2 + 0.8 * x / (W - 1.0); }

static image im, im2;
static float out[4 * NPIX], out2[4 * NPIX];

int main(void)
{
    /* 1. constant plus noise, cross-filtered halves and the variance alone */
    make(&im, flat, 0.1, 1);
    double mse_in = mse(im.rgb, &im), m_in = 0;
    for (int q = 0; q < NPIX; q++) m_in += im.rgb[4 * q + 1];
    m_in /= NPIX;
    for (int mode = 0; mode < 2; mode++) {
        pw_denoise_input in = input_of(&im, mode == 0, mode == 1);
        denoise(&in, 0, out);
        double m = 0;
        for (int q = 0; q < NPIX; q++) m += out[4 * q + 1];
        m /= NPIX;
        printf("flat (%s): MSE %.3g -> %.3g (%.1fx), mean %.5f (input %.5f)\n",
               mode == 0 ? "halves" : "variance", mse_in, mse(out, &im), mse_in / mse(out, &im), m, m_in);
        CHECK(mse(out, &im) * 40 < mse_in, "flat %d: MSE %g against %g", mode, mse(out, &im), mse_in);
        CHECK_NEAR(m, m_in, 0.001, "flat: mean against the input's");
    }

    /* 2. a hard step */
    make(&im, step, 0.05, 2);
    {
        pw_denoise_input in = input_of(&im, 1, 0);
        denoise(&in, 0, out);
        for (int x = 30; x <= 33; x += 3) {
            double bias, rms, bias_in, rms_in;
            column_error(out, &im, x, &bias, &rms);
            column_error(im.rgb, &im, x, &bias_in, &rms_in);
            printf("step: column %d bias %.4f, RMS %.4f (input %.4f)\n", x, bias, rms, rms_in);
            CHECK(fabs(bias) <= 0.02, "step: column %d bias %g", x, bias);
            CHECK(rms < rms_in, "step: column %d RMS %g against %g", x, rms, rms_in);
        }
    }

    /* 3. an edge the colour hides and the albedo shows */
    make(&im, small_step, 0.1, 3);
    for (int q = 0; q < NPIX; q++)
        for (int ch = 0; ch < 3; ch++) im.albedo[3 * q + ch] = q % W < 32 ? 0.5f : 0.9f;
    {
        pw_denoise_input in = input_of(&im, 1, 0);
        denoise(&in, 0, out);
        in.albedo = im.albedo;
        denoise(&in, 0, out2);
        double sum0 = 0, sum1 = 0;
        for (int x = 30; x <= 33; x += 3) {
            double b0, r0, b1, r1;
            column_error(out, &im, x, &b0, &r0);
            column_error(out2, &im, x, &b1, &r1);
            printf("hidden step: column %d bias %.4f colour only, %.4f with albedo\n", x, b0, b1);
            CHECK(fabs(b1) <= 0.01, "hidden step: column %d bias %g with albedo", x, b1);
            sum0 += fabs(b0), sum1 += fabs(b1);
        }
        CHECK(sum1 * 2 <= sum0, "hidden step: bias %g with albedo, %g colour only", sum1, sum0);
        /* the same edge shown by the sun's transmittance instead (a shadow's outline) */
        static float sun[NPIX], sun_var[NPIX];
        for (int q = 0; q < NPIX; q++) sun[q] = q % W < 32 ? 0.3f : 0.7f, sun_var[q] = 1e-4f;
        in.albedo = NULL;
        in.sun = sun, in.sun_var = sun_var;
        denoise(&in, 0, out2);
        double sum2 = 0;
        for (int x = 30; x <= 33; x += 3) {
            double b2, r2;
            column_error(out2, &im, x, &b2, &r2);
            printf("hidden step: column %d bias %.4f with the sun feature\n", x, b2);
            CHECK(fabs(b2) <= 0.01, "hidden step: column %d bias %g with the sun feature", x, b2);
            sum2 += fabs(b2);
        }
        CHECK(sum2 * 2 <= sum0, "hidden step: bias %g with the sun, %g colour only", sum2, sum0);
    }

    /* 4. a ramp stays unbiased */
    make(&im, ramp, 0.1, 4);
    {
        pw_denoise_input in = input_of(&im, 1, 0);
        denoise(&in, 0, out);
        double worst = 0, mean = 0;
        for (int x = 11; x < W - 11; x++) {
            double bias, rms;
            column_error(out, &im, x, &bias, &rms);
            if (fabs(bias) > fabs(worst)) worst = bias;
            mean += bias / (W - 22);
        }
        printf("ramp: mean column bias %.4f, worst %.4f\n", mean, worst);
        CHECK(fabs(mean) <= 0.002, "ramp: mean column bias %g", mean);
        CHECK(fabs(worst) <= 0.015, "ramp: column bias %g", worst);
    }

    /* 5. NaN, inf and a pixel with no samples */
    make(&im, flat, 0.1, 5);
    memcpy(&im2, &im, sizeof im);
    const int bad[3] = {20 * W + 20, 20 * W + 24, 40 * W + 40};
    im.rgb[4 * bad[0] + 1] = NAN;
    im.a[3 * bad[0] + 1] = NAN;
    im.rgb[4 * bad[1] + 0] = INFINITY;
    im.b[3 * bad[1] + 0] = INFINITY;
    im.samples[bad[2]] = 0;
    for (int ch = 0; ch < 3; ch++) im.rgb[4 * bad[2] + ch] = 1e6f;
    for (int k = 0; k < 3; k++) im2.samples[bad[k]] = 0;
    for (int mode = 0; mode < 2; mode++) {
        pw_denoise_input in = input_of(&im, mode == 0, mode == 1);
        pw_denoise_input in2 = input_of(&im2, mode == 0, mode == 1);
        denoise(&in, 0, out);
        denoise(&in2, 0, out2);
        CHECK(isnan(out[4 * bad[0] + 1]), "NaN pixel: %g", out[4 * bad[0] + 1]);
        CHECK(isinf(out[4 * bad[1] + 0]), "inf pixel: %g", out[4 * bad[1] + 0]);
        CHECK(out[4 * bad[2] + 0] == 1e6f, "zero-sample pixel: %g", out[4 * bad[2]]);
        int others_finite = 1, others_same = 1;
        for (int q = 0; q < NPIX; q++) {
            if (q == bad[0] || q == bad[1] || q == bad[2]) continue;
            for (int ch = 0; ch < 4; ch++) {
                if (!isfinite(out[4 * q + ch]) || fabs(out[4 * q + ch] - 0.5) > 0.5)
                    others_finite = 0;
                if (memcmp(&out[4 * q + ch], &out2[4 * q + ch], sizeof(float)) != 0)
                    others_same = 0;
            }
        }
        CHECK(others_finite, "mode %d: a pixel near the bad ones took their value", mode);
        CHECK(others_same, "mode %d: the bad pixels were read as neighbours", mode);
    }

    /* 6. the same bytes on 1 and 2 threads, features included */
    make(&im, step, 0.1, 6);
    {
        static float normal[3 * NPIX], depth[NPIX], fvar[NPIX];
        for (int q = 0; q < NPIX; q++) {
            double phi = 0.05 * (q % W);
            normal[3 * q] = (float)cos(phi), normal[3 * q + 1] = (float)sin(phi);
            normal[3 * q + 2] = 0;
            depth[q] = q % W < 40 ? (float)(1 + 0.01 * (q / W)) : INFINITY;
            fvar[q] = 1e-4f * (float)(q % 7);
            im.rgb[4 * q + 3] = (float)((q % 5) / 4.0);
        }
        pw_denoise_input in = input_of(&im, 1, 0);
        in.albedo = im.albedo, in.albedo_var = fvar;
        in.normal = normal, in.normal_var = fvar;
        in.depth = depth, in.depth_var = fvar;
        in.sun = fvar, in.sun_var = fvar;
        denoise(&in, 1, out);
        denoise(&in, 2, out2);
        CHECK(memcmp(out, out2, sizeof out) == 0, "1 and 2 threads differ");
        in.half_a = in.half_b = NULL;
        in.color_var = im.var;
        denoise(&in, 1, out);
        denoise(&in, 2, out2);
        CHECK(memcmp(out, out2, sizeof out) == 0, "1 and 2 threads differ (variance alone)");
    }
    return check_done("render_denoise_synthetic");
}
