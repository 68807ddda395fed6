/* Property: "Powder filmic", the analytic view of builds without OpenColorIO (view.h,
 * view.c), does what its comment says, checked in every build (params.analytic):
 *   (a) a channel reaches 255 only when every other is at 252 or more: the largest
 *       channel stays below 1 by 0.2 of the chroma, so 255 (linear >= 0.99554) allows a
 *       spread of 0.0223 at most, i.e. all channels >= 0.9733 (sRGB byte 252);
 *   (b) the HSV hue of the output in display-linear light is the input's: the result is
 *       grey plus a positive multiple of the input. Tolerance 3 deg, for outputs whose
 *       channels spread over 40 bytes or more (8-bit rounding moves each channel by half
 *       a byte, at most 60 * 2 / 40 = 3 deg);
 *   (c) the output's luminance is the tone curve Y^n / (Y^n + k) of the input's
 *       (n = 1.2, k = 0.18^0.2 0.82), within 0.005 (half a byte through the sRGB
 *       decoding, whose slope is at most 2.28);
 *   (d) greys stay grey, get brighter with the light, and keep mid grey: 0.18 gives
 *       byte 118, as it did before views.
 * The sweep: 4000 colours of random hue and saturation at luminances 2^-8 .. 2^8.
 * Edge cases: 5.1 NaN and negative channels count as 0, 5.2 +Inf is white. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "view.h"

enum { N_SWEEP = 4000 };
static const double lum[3] = {0.2126, 0.7152, 0.0722};

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

static double srgb_decode(int byte)
{
    double v = byte / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double uniform(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) / 16777216.0;
}

int main(void)
{
    pw_view_params p;
    pw_view_params_default(&p);
    p.analytic = 1; /* default view: Powder filmic */
    pw_error err = {0};
    pw_view *v = pw_view_create(&p, &err);
    CHECK(v != NULL, "create: %s", err.msg);
    if (!v) return check_done("view_filmic_keeps_hue");
    printf("%s\n", pw_view_describe(v));

    /* 1-3. the sweep */
    float *rgba = malloc(sizeof(float) * 4 * N_SWEEP);
    unsigned char *px = malloc(4 * N_SWEEP);
    uint32_t seed = 12345;
    for (int i = 0; i < N_SWEEP; i++) {
        double c[3], Y = 0;
        for (int k = 0; k < 3; k++) c[k] = uniform(&seed) * uniform(&seed);
        for (int k = 0; k < 3; k++) Y += lum[k] * c[k];
        double target = ldexp(1.0, -8 + (int)(17 * uniform(&seed)));
        for (int k = 0; k < 3; k++) rgba[4 * i + k] = (float)(c[k] * target / fmax(Y, 1e-9));
        rgba[4 * i + 3] = 1;
    }
    CHECK(pw_view_apply(v, rgba, N_SWEEP, 0, px, &err) == PW_OK, "apply: %s", err.msg);
    int bad_a = 0, bad_b = 0, bad_c = 0, hue_checked = 0;
    double worst_hue = 0, worst_lum = 0;
    const double n = 1.2, k_tone = pow(0.18, n - 1) * (1 - 0.18);
    for (int i = 0; i < N_SWEEP; i++) {
        const unsigned char *b = px + 4 * i;
        int mx = b[0] > b[1] ? (b[0] > b[2] ? b[0] : b[2]) : (b[1] > b[2] ? b[1] : b[2]);
        int mn = b[0] < b[1] ? (b[0] < b[2] ? b[0] : b[2]) : (b[1] < b[2] ? b[1] : b[2]);
        if (mx == 255 && mn < 252) bad_a++;
        double in[3] = {rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]};
        double out[3] = {srgb_decode(b[0]), srgb_decode(b[1]), srgb_decode(b[2])};
        if (mx - mn >= 40) {
            double dh = fabs(hue_deg(out) - hue_deg(in));
            dh = fmin(dh, 360 - dh);
            worst_hue = fmax(worst_hue, dh);
            bad_b += dh > 3;
            hue_checked++;
        }
        double Y = lum[0] * in[0] + lum[1] * in[1] + lum[2] * in[2];
        double Y_out = lum[0] * out[0] + lum[1] * out[1] + lum[2] * out[2];
        double want = pow(Y, n) / (pow(Y, n) + k_tone);
        worst_lum = fmax(worst_lum, fabs(Y_out - want));
        bad_c += fabs(Y_out - want) > 0.005;
    }
    CHECK(bad_a == 0, "1 (a): %d colours have a channel at 255 and another below 252", bad_a);
    CHECK(bad_b == 0, "2 (b): %d of %d colours changed hue by more than 3 deg (worst %.2f)",
          bad_b, hue_checked, worst_hue);
    CHECK(bad_c == 0, "3 (c): %d colours off the luminance curve by more than 0.005 (worst %.4f)",
          bad_c, worst_lum);
    printf("1-3 %d colours: %d with 255 beside < 252; hue checked on %d, worst %.2f deg; "
           "luminance worst %.4f\n", N_SWEEP, bad_a, hue_checked, worst_hue, worst_lum);

    /* 4. greys */
    float grey[4 * 20];
    unsigned char g8[4 * 20];
    for (int i = 0; i < 20; i++) {
        double g = i == 19 ? 0.18 : ldexp(1.0, i - 10);
        grey[4 * i] = grey[4 * i + 1] = grey[4 * i + 2] = (float)g;
        grey[4 * i + 3] = 1;
    }
    CHECK(pw_view_apply(v, grey, 20, 0, g8, &err) == PW_OK, "4 apply: %s", err.msg);
    for (int i = 0; i < 20; i++) {
        CHECK(g8[4 * i] == g8[4 * i + 1] && g8[4 * i] == g8[4 * i + 2], "4.1 grey %d: %d %d %d",
              i, g8[4 * i], g8[4 * i + 1], g8[4 * i + 2]);
        if (i > 0 && i < 19)
            CHECK(g8[4 * i] >= g8[4 * (i - 1)], "4.2 grey 2^%d darker than 2^%d", i - 10, i - 11);
    }
    CHECK(g8[4 * 19] == 118, "4.3 mid grey 0.18 -> %d, want 118", g8[4 * 19]);

    /* 5. edge values */
    float edge[8] = {NAN, -1, 0.5f, 1, INFINITY, INFINITY, INFINITY, 1};
    unsigned char e8[8];
    CHECK(pw_view_apply(v, edge, 2, 0, e8, &err) == PW_OK, "5 apply: %s", err.msg);
    float blue[4] = {0, 0, 0.5f, 1};
    unsigned char b8[4];
    CHECK(pw_view_apply(v, blue, 1, 0, b8, &err) == PW_OK, "5 apply: %s", err.msg);
    CHECK(e8[0] == b8[0] && e8[1] == b8[1] && e8[2] == b8[2], "5.1 (NaN, -1, 0.5) -> %d %d %d, "
          "(0, 0, 0.5) -> %d %d %d", e8[0], e8[1], e8[2], b8[0], b8[1], b8[2]);
    CHECK(e8[4] == 255 && e8[5] == 255 && e8[6] == 255, "5.2 +Inf -> %d %d %d", e8[4], e8[5],
          e8[6]);
    free(rgba);
    free(px);
    pw_view_destroy(v);
    return check_done("view_filmic_keeps_hue");
}
