/* Property: `powder png --mask` (pw_preview_colour_measure) reports what the preview
 * shows under the mask, computed on the preview's own bytes: over the pixels whose mask
 * alpha exceeds 0.5, the mean HSV saturation (max - min) / max, the count with a channel
 * at 255 beside one below 204, and the mean bytes. A four-pixel frame through the
 * analytic "Un-tone-mapped" view (byte = round(255 sRGB(clamp(x))), computed here
 * independently): grey 0.5, red overexposed (2, 0.1, 0.1), a blue (0.18, 0.18, 0.5),
 * and a white pixel the mask leaves out. Tolerance: exact counts; means to 1e-12.
 * Bad input: a mask of another size, a missing mask, each an error naming the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exr.h"
#include "preview_colour.h"
#include "view.h"

static int byte_of(double x)
{
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    double s = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055;
    return (int)floor(255 * s + 0.5);
}

static void write_exr(const char *path, const float *rgba, int w, int h)
{
    pw_image img = {.width = w, .height = h, .rgba = (float *)rgba};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = 1;
    pw_error err = {0};
    CHECK(pw_exr_write(path, &img, &o, &err) == PW_OK, "write %s: %s", path, err.msg);
}

int main(void)
{
    char beauty[4096], mask[4096], small[4096], missing[4096];
    snprintf(beauty, sizeof beauty, "%s/png_mask_beauty.exr", POWDER_TEST_TMP);
    snprintf(mask, sizeof mask, "%s/png_mask_mask.exr", POWDER_TEST_TMP);
    snprintf(small, sizeof small, "%s/png_mask_small.exr", POWDER_TEST_TMP);
    snprintf(missing, sizeof missing, "%s/png_mask_no_such.exr", POWDER_TEST_TMP);
    const double px[4][3] = {{0.5, 0.5, 0.5}, {2, 0.1, 0.1}, {0.18, 0.18, 0.5}, {1, 1, 1}};
    const float alpha[4] = {1, 0.75f, 0.51f, 0.5f}; /* the last is not above 0.5 */
    float rgba[16], m[16];
    for (int k = 0; k < 4; k++) {
        for (int c = 0; c < 3; c++) rgba[4 * k + c] = (float)px[k][c], m[4 * k + c] = 0;
        rgba[4 * k + 3] = 1, m[4 * k + 3] = alpha[k];
    }
    write_exr(beauty, rgba, 4, 1);
    write_exr(mask, m, 4, 1);
    write_exr(small, m, 2, 2);

    /* expected, from the bytes computed here */
    double sat = 0, mean[3] = {0, 0, 0};
    long clipped = 0;
    for (int k = 0; k < 3; k++) {
        int b[3], mx = 0, mn = 255;
        for (int c = 0; c < 3; c++) {
            b[c] = byte_of((float)px[k][c]);
            mx = b[c] > mx ? b[c] : mx;
            mn = b[c] < mn ? b[c] : mn;
            mean[c] += b[c] / 3.0;
        }
        sat += (double)(mx - mn) / mx / 3.0;
        clipped += mx == 255 && mn < 204;
    }
    CHECK(byte_of(0.5) == 188 && byte_of(0.1f) == 89 && byte_of(0.18f) == 118,
          "anchors: %d %d %d", byte_of(0.5), byte_of(0.1f), byte_of(0.18f));

    pw_view_params vp;
    pw_view_params_default(&vp);
    vp.analytic = 1;
    vp.view = "Un-tone-mapped";
    pw_error err = {0};
    pw_view *view = pw_view_create(&vp, &err);
    CHECK(view != NULL, "view: %s", err.msg);
    pw_preview_colour pc;
    CHECK(pw_preview_colour_measure(beauty, mask, view, 0.0, &pc, &err) == PW_OK, "1.1 %s",
          err.msg);
    CHECK(pc.pixels == 3, "1.2 pixels under the mask: %ld, want 3", pc.pixels);
    CHECK(pc.one_channel_clipped == 1 && clipped == 1, "1.3 one clipped: %ld", pc.one_channel_clipped);
    CHECK_NEAR(pc.mean_saturation, sat, 1e-12, "1.4 mean saturation");
    for (int c = 0; c < 3; c++) CHECK_NEAR(pc.mean_rgb[c], mean[c], 1e-12, "1.5 mean byte");
    /* two EV down the red pixel is (0.5, 0.025, 0.025): no channel at 255 */
    CHECK(pw_preview_colour_measure(beauty, mask, view, -2.0, &pc, &err) == PW_OK, "1.6 %s",
          err.msg);
    CHECK(pc.one_channel_clipped == 0, "1.7 at -2 EV nothing clipped: %ld", pc.one_channel_clipped);

    CHECK(pw_preview_colour_measure(beauty, small, view, 0.0, &pc, &err) == PW_EINVAL &&
              strstr(err.msg, small) && strstr(err.msg, "2 x 2"),
          "2.1 mask of another size: %s", err.msg);
    CHECK(pw_preview_colour_measure(beauty, missing, view, 0.0, &pc, &err) != PW_OK &&
              strstr(err.msg, missing),
          "2.2 missing mask named: %s", err.msg);
    pw_view_destroy(view);
    return check_done("png_mask_measures");
}
