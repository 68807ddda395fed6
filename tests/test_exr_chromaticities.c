/* Property: every EXR that pw_exr_write makes says what its RGB means: the standard
 * "chromaticities" attribute (type chromaticities, read through OpenEXRCore's own API)
 * holds the Rec.709/sRGB primaries R (0.64, 0.33), G (0.30, 0.60), B (0.15, 0.06) and
 * the D65 white (0.3127, 0.3290) (ITU-R BT.709-6). Tolerance: the float nearest each
 * decimal (the attribute stores floats, so the decimals round-trip to exactly those).
 * Without it a reader must assume the primaries; OCIO-managed tools that honour it
 * (and OpenImageIO) then know the frames are scene-linear Rec.709.
 *
 * Cases: 1 half beauty with no AOVs, 2 float beauty with depth and albedo AOVs, each
 * also read back through pw_exr_read_rgba (the attribute does not disturb readers). */
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exr.h"

enum { W = 8, H = 4 };

static void check_file(const char *id, int float_beauty, int aovs)
{
    pw_image img = {W, H, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    img.rgba = malloc(sizeof(float) * 4 * W * H);
    for (int i = 0; i < 4 * W * H; i++) img.rgba[i] = 0.01f * (float)i;
    if (aovs) {
        img.depth = malloc(sizeof(float) * W * H);
        img.albedo = malloc(sizeof(float) * 3 * W * H);
        for (int i = 0; i < W * H; i++) img.depth[i] = 2.0f;
        for (int i = 0; i < 3 * W * H; i++) img.albedo[i] = 0.9f;
    }
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = float_beauty;
    char path[4096];
    snprintf(path, sizeof path, "%s/exr_chromaticities_%s.exr", POWDER_TEST_TMP, id);
    pw_error err = {0};
    CHECK(pw_exr_write(path, &img, &o, &err) == PW_OK, "%s write: %s", id, err.msg);

    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    CHECK(exr_start_read(&ctx, path, &init) == EXR_ERR_SUCCESS, "%s: OpenEXRCore cannot open",
          id);
    exr_attr_chromaticities_t c;
    memset(&c, 0, sizeof c);
    exr_result_t rv = ctx ? exr_attr_get_chromaticities(ctx, 0, "chromaticities", &c)
                          : EXR_ERR_INVALID_ARGUMENT;
    CHECK(rv == EXR_ERR_SUCCESS, "%s: no chromaticities attribute (%s)", id,
          exr_get_default_error_message(rv));
    const float want[8] = {0.64f, 0.33f, 0.30f, 0.60f, 0.15f, 0.06f, 0.3127f, 0.3290f};
    const float got[8] = {c.red_x,  c.red_y,  c.green_x, c.green_y,
                          c.blue_x, c.blue_y, c.white_x, c.white_y};
    static const char *const what[8] = {"red x",  "red y",  "green x", "green y",
                                         "blue x", "blue y", "white x", "white y"};
    for (int k = 0; k < 8 && rv == EXR_ERR_SUCCESS; k++)
        CHECK(got[k] == want[k], "%s: %s %.6f, want %.6f", id, what[k], got[k], want[k]);
    if (ctx) exr_finish(&ctx);

    int w = 0, h = 0;
    float *back = NULL;
    CHECK(pw_exr_read_rgba(path, &w, &h, &back, &err) == PW_OK && w == W && h == H,
          "%s read back: %s", id, err.msg);
    free(back);
    printf("%s: chromaticities R (%.4f, %.4f) G (%.4f, %.4f) B (%.4f, %.4f) W (%.4f, %.4f)\n",
           id, got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
    free(img.rgba);
    free(img.depth);
    free(img.albedo);
}

int main(void)
{
    check_file("1_half", 0, 0);
    check_file("2_float_aovs", 1, 1);
    return check_done("exr_chromaticities");
}
