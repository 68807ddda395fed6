/* Property: `powder png` shows an EXR exactly as OpenColorIO's own ocioconvert does with
 * the same config, display and view: every byte of Powder's PNG is within 1 of
 * round(255 * clamp(ocioconvert's float output, 0, 1)). Tolerance 1/255: both run
 * OCIO's CPU processor in float, but Powder's joins the Rec.709 -> ACES2065-1 step
 * to the view while ocioconvert gets it from the config's colour space, so the ops are
 * optimised apart and may round the other way at a byte boundary; a wrong transform
 * is off by tens.
 *
 * The config is written here, from OCIO's built-in transforms (ACES 1.0 SDR video
 * output, sRGB display), independently of Powder's built-in one, so case 1 also proves
 * that Powder's default view is the ACES 1.0 SDR video view of an sRGB display.
 * The EXR: a grey ramp 2^-10 .. 2^8, lit snow (0.38, 0.55, 1.27) x 1/4 .. 64, primaries
 * and secondaries at 1/4, 1 and 4, colours outside the Rec.709 gamut (a negative
 * channel, where the gamut compression look acts) and black; float, alpha 1.
 *
 * Cases: 1 $OCIO unset, default view; 2 $OCIO unset, --view Un-tone-mapped (each channel
 * clipped: the previews before view transforms); 3 $OCIO set, --view-look with the
 * ACES 1.3 gamut compression look, against a view of the config that carries that
 * look (and the look must change some pixel); 4 $OCIO set to a config whose
 * scene_linear is ACEScg, as in the ACES studio configs: the EXR still enters as
 * linear Rec.709 (through the aces_interchange role).
 * Skipped (77) when ocioconvert is absent, or when powder was built without
 * OpenColorIO (-DPOWDER_OCIO=OFF, or no libopencolorio-dev): its analytic views are
 * tested by view_filmic_keeps_hue, and build_finds_optional_libraries fails when an AUTO build
 * leaves OpenColorIO out of a machine that has it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "exr.h"
#include "png_read.h"

#pragma GCC diagnostic ignored "-Wformat-truncation" /* short scratch paths */

/* The test's config; %s is the scene_linear role. */
static const char config_template[] =
    "ocio_profile_version: 2.1\n"
    "roles:\n"
    "  aces_interchange: ACES2065-1\n"
    "  default: Linear Rec.709 (sRGB)\n"
    "  scene_linear: %s\n"
    "file_rules:\n"
    "  - !<Rule> {name: Default, colorspace: default}\n"
    "displays:\n"
    "  sRGB - Display:\n"
    "    - !<View> {name: ACES 1.0 - SDR Video, view_transform: ACES 1.0 - SDR Video, "
    "display_colorspace: sRGB - Display}\n"
    "    - !<View> {name: Un-tone-mapped, view_transform: Un-tone-mapped, "
    "display_colorspace: sRGB - Display}\n"
    "    - !<View> {name: ACES gamut compressed, view_transform: ACES 1.0 - SDR Video, "
    "display_colorspace: sRGB - Display, looks: ACES 1.3 Reference Gamut Compression}\n"
    "looks:\n"
    "  - !<Look>\n"
    "    name: ACES 1.3 Reference Gamut Compression\n"
    "    process_space: ACES2065-1\n"
    "    transform: !<BuiltinTransform> {style: ACES-LMT - ACES 1.3 Reference Gamut "
    "Compression}\n"
    "view_transforms:\n"
    "  - !<ViewTransform>\n"
    "    name: ACES 1.0 - SDR Video\n"
    "    from_scene_reference: !<BuiltinTransform> {style: ACES-OUTPUT - "
    "ACES2065-1_to_CIE-XYZ-D65 - SDR-VIDEO_1.0}\n"
    "  - !<ViewTransform>\n"
    "    name: Un-tone-mapped\n"
    "    from_scene_reference: !<BuiltinTransform> {style: UTILITY - "
    "ACES-AP0_to_CIE-XYZ-D65_BFD}\n"
    "display_colorspaces:\n"
    "  - !<ColorSpace>\n"
    "    name: sRGB - Display\n"
    "    from_display_reference: !<BuiltinTransform> {style: DISPLAY - "
    "CIE-XYZ-D65_to_sRGB}\n"
    "colorspaces:\n"
    "  - !<ColorSpace>\n"
    "    name: ACES2065-1\n"
    "  - !<ColorSpace>\n"
    "    name: ACEScg\n"
    "    to_scene_reference: !<BuiltinTransform> {style: ACEScg_to_ACES2065-1}\n"
    "  - !<ColorSpace>\n"
    "    name: Linear Rec.709 (sRGB)\n"
    "    to_scene_reference: !<GroupTransform>\n"
    "      children:\n"
    "        - !<BuiltinTransform> {style: UTILITY - ACES-AP1_to_LINEAR-REC709_BFD, "
    "direction: inverse}\n"
    "        - !<BuiltinTransform> {style: ACEScg_to_ACES2065-1}\n";

enum { MAX_PX = 64 };

static char dir[4096];

/* The test image: n pixels in one row. */
static int test_image(float *rgba)
{
    int n = 0;
    for (int i = 0; i <= 18; i++) {
        double g = ldexp(1.0, i - 10);
        for (int c = 0; c < 3; c++) rgba[4 * n + c] = (float)g;
        n++;
    }
    const double snow[3] = {0.38, 0.55, 1.27};
    for (int i = -2; i <= 6; i++, n++)
        for (int c = 0; c < 3; c++) rgba[4 * n + c] = (float)(snow[c] * ldexp(1.0, i));
    const float hues[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}};
    for (int h = 0; h < 6; h++)
        for (int s = -2; s <= 2; s += 2, n++)
            for (int c = 0; c < 3; c++) rgba[4 * n + c] = hues[h][c] * (float)ldexp(1.0, s);
    const float outside[4][3] = {
        {-0.05f, 0.2f, 1.0f}, {0.8f, -0.02f, 0.1f}, {-0.1f, -0.05f, 0.6f}, {0.02f, 0.5f, -0.03f}};
    for (int k = 0; k < 4; k++, n++)
        for (int c = 0; c < 3; c++) rgba[4 * n + c] = outside[k][c];
    for (int c = 0; c < 3; c++) rgba[4 * n + c] = 0; /* black */
    n++;
    for (int k = 0; k < n; k++) rgba[4 * k + 3] = 1;
    return n;
}

/* Runs the shell command; returns its exit status (-1 when it did not exit). */
static int run(const char *cmd)
{
    int rc = system(cmd);
    return rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int file_has(const char *path, const char *text)
{
    static char buf[1 << 16];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp) fclose(fp);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* Writes the test EXR as dir/<id>.exr, runs powder png on it with env ("env -u OCIO" or
 * "OCIO=..."), and ocioconvert with config and view; compares. Returns 77 when powder
 * was built without OpenColorIO, else 0. Leaves Powder's bytes in keep (4 n) when not
 * NULL. */
static int compare(const char *id, const char *env, const char *powder_args, const char *config,
                   const char *view, unsigned char *keep)
{
    float rgba[4 * MAX_PX];
    int n = test_image(rgba);
    char exr[4200], png[4200], out[4200], log[4200], cmd[16384];
    snprintf(exr, sizeof exr, "%s/%s.exr", dir, id);
    snprintf(png, sizeof png, "%s/%s.png", dir, id);
    snprintf(out, sizeof out, "%s/%s.ocio.exr", dir, id);
    snprintf(log, sizeof log, "%s/%s.log", dir, id);
    pw_image img = {n, 1, rgba, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = 1;
    pw_error err = {0};
    CHECK(pw_exr_write(exr, &img, &o, &err) == PW_OK, "%s: write: %s", id, err.msg);

    /* Powder's preview */
    snprintf(cmd, sizeof cmd, "%s '%s' png '%s' %s >'%s' 2>&1", env, POWDER_BINARY, exr,
             powder_args, log);
    int rc = run(cmd);
    CHECK(rc == 0, "%s: powder png exit %d (see %s)", id, rc, log);
    if (rc == 0 && file_has(log, "analytic views")) {
        printf("powder was built without OpenColorIO: nothing to compare (see %s)\n", log);
        return 77;
    }
    /* OpenColorIO's */
    snprintf(cmd, sizeof cmd,
             "OCIO='%s' ocioconvert --view '%s' 'Linear Rec.709 (sRGB)' '%s' 'sRGB - Display' "
             "'%s' >>'%s' 2>&1", config, exr, out, view, log);
    rc = run(cmd);
    CHECK(rc == 0, "%s: ocioconvert exit %d (see %s)", id, rc, log);

    int w = 0, h = 0, ow = 0, oh = 0;
    unsigned char *px = png_read_rgba8(png, &w, &h);
    float *want = NULL;
    CHECK(px && w == n && h == 1, "%s: cannot read %s", id, png);
    CHECK(pw_exr_read_rgba(out, &ow, &oh, &want, &err) == PW_OK && ow == n && oh == 1,
          "%s: cannot read ocioconvert's %s: %s", id, out, err.msg);
    if (px && want && w == n && ow == n && h == 1 && oh == 1) {
        int bad = 0, worst = 0, worst_at = 0;
        for (int k = 0; k < n; k++)
            for (int c = 0; c < 3; c++) {
                double v = want[4 * k + c];
                int e = (int)lround(255 * (v > 0 ? (v < 1 ? v : 1) : 0));
                int d = abs(px[4 * k + c] - e);
                if (d > worst) worst = d, worst_at = k;
                bad += d > 1;
            }
        CHECK(bad == 0, "%s: %d bytes differ from ocioconvert by more than 1 (worst %d at "
              "pixel %d: %d %d %d vs %.4f %.4f %.4f)", id, bad, worst, worst_at,
              px[4 * worst_at], px[4 * worst_at + 1], px[4 * worst_at + 2],
              want[4 * worst_at], want[4 * worst_at + 1], want[4 * worst_at + 2]);
        printf("%s: view '%s': %d pixels, largest difference %d/255, %d over 1\n", id, view, n,
               worst, bad);
        if (keep) memcpy(keep, px, 4 * (size_t)n);
    }
    free(px);
    free(want);
    return 0;
}

int main(void)
{
    if (run("command -v ocioconvert >/dev/null 2>&1") != 0) {
        printf("no ocioconvert on this machine (apt-get install opencolorio-tools)\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "%s/view_matches_ocioconvert.%ld", POWDER_TEST_TMP, (long)getpid());
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (run(cmd) != 0) return 3;
    char cfg_rec709[4200], cfg_acescg[4200];
    snprintf(cfg_rec709, sizeof cfg_rec709, "%s/rec709.ocio", dir);
    snprintf(cfg_acescg, sizeof cfg_acescg, "%s/acescg.ocio", dir);
    const char *roles[2] = {"Linear Rec.709 (sRGB)", "ACEScg"};
    const char *paths[2] = {cfg_rec709, cfg_acescg};
    for (int k = 0; k < 2; k++) {
        FILE *fp = fopen(paths[k], "w");
        if (!fp) return 3;
        fprintf(fp, config_template, roles[k]);
        fclose(fp);
    }
    char env_rec709[4300], env_acescg[4300];
    snprintf(env_rec709, sizeof env_rec709, "OCIO='%s'", cfg_rec709);
    snprintf(env_acescg, sizeof env_acescg, "OCIO='%s'", cfg_acescg);

    unsigned char plain[4 * MAX_PX] = {0}, looked[4 * MAX_PX] = {0};
    /* 1. the default view without $OCIO is ACES 1.0 SDR video */
    if (compare("1_default", "env -u OCIO", "", cfg_rec709, "ACES 1.0 - SDR Video", plain) == 77)
        return 77;
    /* 2. Un-tone-mapped */
    compare("2_untonemapped", "env -u OCIO", "--view Un-tone-mapped", cfg_rec709,
            "Un-tone-mapped", NULL);
    /* 3. a look through $OCIO's config */
    compare("3_look", env_rec709,
            "--view 'ACES 1.0 - SDR Video' --view-look 'ACES 1.3 Reference Gamut Compression'",
            cfg_rec709, "ACES gamut compressed", looked);
    CHECK(memcmp(plain, looked, sizeof plain) != 0, "3: the look changed no pixel");
    /* 4. scene_linear is ACEScg: the EXR still enters as Rec.709 */
    compare("4_acescg_config", env_acescg, "", cfg_acescg, "ACES 1.0 - SDR Video", NULL);
    return check_done("view_matches_ocioconvert");
}
