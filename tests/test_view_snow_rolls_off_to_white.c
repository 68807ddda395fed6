/* Property: a preview shows lit snow as bright, slightly blue white, not as saturated
 * blue. Lit snow in the renders is about (0.38, 0.55, 1.27) in scene-linear Rec.709:
 * clipping each channel at 1 (the previews before the view transform) stops blue at
 * 255 while red stays at 166 and green at 196. Through the default view ($OCIO unset:
 * the built-in one) that pixel and its brighter multiples x2 ... x64 must
 *   (a) never have a channel at 255 while another is below 204 (0.8 of full scale):
 *       a channel reaches full scale only when the others are close behind (white);
 *   (b) keep the input's hue or move it away from blue: the HSV hue of the output in
 *       display-linear light (bytes through the sRGB decoding) is no nearer 240 deg
 *       (pure blue) than the input's 228.5 deg. Tolerance: what 8-bit rounding can do
 *       to that hue. With blue largest, H = 240 + 60 (R - G) / (B - min); moving each
 *       channel by at most d (half a byte, in linear light, at the largest channel)
 *       moves H by at most 240 d / (B - min) deg (2 deg for x1 through ACES, 6 deg near
 *       white). Near-white outputs (max - min below 8 of 255) have no hue to speak of
 *       and are not held to it;
 *   (c) get no darker as the light grows (the sum of the three bytes never falls): a
 *       view must not keep blue from clipping by dimming the highlights.
 * Case 2: --exposure acts in scene-linear light before the view: x1 at exposure +1 and
 * x2 at +2 are, byte for byte, x2 and x8 at exposure 0 (tolerance 0: 2^e is exact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "png.h"
#include "png_read.h"

enum { N_MULT = 7 };
static const double snow[3] = {0.38, 0.55, 1.27};
static const double mult[N_MULT] = {1, 2, 4, 8, 16, 32, 64};

/* HSV hue [deg] of rgb, or -1 for a grey. */
static double hue_deg(const double c[3])
{
    double mx = fmax(c[0], fmax(c[1], c[2])), mn = fmin(c[0], fmin(c[1], c[2]));
    if (mx <= mn) return -1;
    double h = mx == c[0]   ? fmod((c[1] - c[2]) / (mx - mn), 6)
               : mx == c[1] ? (c[2] - c[0]) / (mx - mn) + 2
                            : (c[0] - c[1]) / (mx - mn) + 4;
    h *= 60;
    return h < 0 ? h + 360 : h;
}

static double srgb_decode(double byte)
{
    double v = byte / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* Writes the n pixels c[k] * scale[k] through pw_png_write at exposure and reads them
 * back into px (4 n bytes). */
static int preview(const char *name, const double *scale, int n, double exposure,
                   unsigned char *px)
{
    float *rgba = malloc(sizeof(float) * 4 * n);
    for (int k = 0; k < n; k++) {
        for (int c = 0; c < 3; c++) rgba[4 * k + c] = (float)(snow[c] * scale[k]);
        rgba[4 * k + 3] = 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/view_snow_%s.png", POWDER_TEST_TMP, name);
    pw_error err = {0};
    pw_status rc = pw_png_write(path, rgba, n, 1, exposure, &err);
    CHECK(rc == PW_OK, "%s: write: %s", name, err.msg);
    free(rgba);
    int w = 0, h = 0;
    unsigned char *got = rc == PW_OK ? png_read_rgba8(path, &w, &h) : NULL;
    CHECK(got && w == n && h == 1, "%s: cannot read %s back", name, path);
    if (!got || w != n || h != 1) {
        free(got);
        return 0;
    }
    memcpy(px, got, 4 * (size_t)n);
    free(got);
    return 1;
}

int main(void)
{
    unsetenv("OCIO"); /* the built-in default, whatever the caller's environment says */
    unsigned char px[4 * N_MULT];
    double hue_in = hue_deg(snow);

    /* 1. lit snow and brighter multiples */
    if (preview("mult", mult, N_MULT, 0, px)) {
        int last_sum = -1;
        for (int k = 0; k < N_MULT; k++) {
            const unsigned char *p = px + 4 * k;
            int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
            int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
            double lin[3] = {srgb_decode(p[0]), srgb_decode(p[1]), srgb_decode(p[2])};
            double hue = hue_deg(lin);
            double spread = fmax(lin[0], fmax(lin[1], lin[2])) - fmin(lin[0], fmin(lin[1], lin[2]));
            double d = (srgb_decode(mx + 0.5) - srgb_decode(mx - 0.5)) / 2; /* steepest at max */
            double tol = spread > 0 ? 240 * d / spread : 360;
            printf("1.%d snow x%-3g -> %3d %3d %3d  hue %.1f deg (input %.1f, tolerance %.1f)\n",
                   k + 1, mult[k], p[0], p[1], p[2], hue, hue_in, tol);
            CHECK(!(mx == 255 && mn < 204), "1.%d (a) snow x%g: %d %d %d has a channel at 255 "
                  "and another below 204", k + 1, mult[k], p[0], p[1], p[2]);
            if (mx - mn >= 8)
                CHECK(fabs(hue - 240) >= fabs(hue_in - 240) - tol,
                      "1.%d (b) snow x%g: hue %.1f deg is bluer than the input's %.1f deg "
                      "(tolerance %.1f)", k + 1, mult[k], hue, hue_in, tol);
            int sum = p[0] + p[1] + p[2];
            CHECK(sum >= last_sum, "1.%d (c) snow x%g is darker (sum %d) than x%g (sum %d)",
                  k + 1, mult[k], sum, mult[k - (k > 0)], last_sum);
            last_sum = sum;
        }
    }

    /* 2. exposure before the view */
    const double one[2] = {1, 2}, two[2] = {2, 8};
    unsigned char a[8], b[8];
    if (preview("exposure_1", one, 1, 1.0, a) && preview("exposure_2", one + 1, 1, 2.0, a + 4) &&
        preview("exposure_0", two, 2, 0.0, b))
        CHECK(!memcmp(a, b, 8), "2 exposure: x1 at +1 -> %d %d %d, x2 at 0 -> %d %d %d; "
              "x2 at +2 -> %d %d %d, x8 at 0 -> %d %d %d", a[0], a[1], a[2], b[0], b[1], b[2],
              a[4], a[5], a[6], b[4], b[5], b[6]);
    return check_done("view_snow_rolls_off_to_white");
}
