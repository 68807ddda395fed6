/* Property: `powder png FILE.exr` without options makes the preview `powder run --png`
 * made: the render records the scene's render.png_exposure and its --view in the EXR's
 * header, and png uses them. The tiny shot rendered at png_exposure -3 with float beauty
 * (so the EXR holds the very floats the render's PNG was made from) and the view
 * "Un-tone-mapped":
 *   1. the PNG `powder png` writes from the EXR equals the render's PNG byte for byte
 *      (tolerance 0: the same floats through the same view and exposure);
 *   2. an explicit --exposure 0 still wins: the preview is brighter, its mean byte
 *      over 1.5 times the recorded one's (3 stops is a factor 8 in light, about 2.5 in
 *      sRGB bytes; the dark sky and clipping keep the mean's factor near 1.9 here);
 *   3. an explicit --view still wins: the default view gives other bytes;
 *   4. an EXR that records nothing (as written before the record existed) keeps
 *      exposure 0 and the default view, as before;
 *   5. an EXR whose recorded view this build lacks is refused, naming the view and
 *      how to override it, and --view then makes the preview. */
#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"
#include "png_read.h"
#include "view.h"

static double mean_byte(const char *path)
{
    int w = 0, h = 0;
    unsigned char *px = png_read_rgba8(path, &w, &h);
    if (!px) return -1;
    double sum = 0;
    for (int k = 0; k < w * h; k++) sum += (px[4 * k] + px[4 * k + 1] + px[4 * k + 2]) / 3.0;
    free(px);
    return sum / (w * h);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    if (system(cmd) != 0) exit(3);
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_png_uses_recorded_exposure");
    unsetenv("OCIO"); /* the built-in config, whose default view is named here */
    const char *default_view = pw_view_has_ocio() ? "ACES 1.0 - SDR Video" : "Powder filmic";
    char text[sizeof tiny_scene_json + 256], scene[4096], out[4096], log[4096];
    snprintf(text, sizeof text, tiny_scene_json, 0);
    /* the render section gets the preview's exposure and float beauty */
    const char *anchor = "\"render\": {\n";
    char *at = strstr(text, anchor);
    if (!at) return 3;
    at += strlen(anchor);
    char tail[sizeof text];
    snprintf(tail, sizeof tail, "%s", at);
    snprintf(at, sizeof text - (size_t)(at - text),
             "    \"png_exposure\": -3, \"beauty\": \"float\",\n%s", tail);
    snprintf(scene, sizeof scene, "%s/tiny.json", dir);
    fixture_write(scene, text);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);

    const char *run[] = {"run", scene, "--output", out, "--png", "--view", "Un-tone-mapped",
                         "--quiet", NULL};
    int rc = powder_run(log, run);
    CHECK(rc == 0, "powder run exited %d (log %s)", rc, log);
    char exr[4096], rendered[4096], png[4096];
    snprintf(exr, sizeof exr, "%s/tiny.0000.exr", out);
    snprintf(rendered, sizeof rendered, "%s/rendered.png", dir);
    snprintf(png, sizeof png, "%s/tiny.0000.png", out);
    copy_file(png, rendered);
    double m_rendered = mean_byte(rendered);
    CHECK(m_rendered > 0, "the render's PNG: mean byte %g", m_rendered);

    /* 1. no options: the render's preview again */
    remove(png);
    const char *plain[] = {"png", exr, NULL};
    rc = powder_run(log, plain);
    CHECK(rc == 0, "1: powder png exited %d (log %s)", rc, log);
    CHECK(same_bytes(png, rendered), "1: powder png made other bytes than render --png: mean %g, "
          "the render's %g", mean_byte(png), m_rendered);
    CHECK(file_contains(log, "exposure -3, recorded by the render"),
          "1: the log does not say the exposure came from the EXR (log %s)", log);

    /* 2. --exposure wins */
    const char *bright[] = {"png", exr, "--exposure", "0", "--quiet", NULL};
    rc = powder_run(log, bright);
    double m_bright = mean_byte(png);
    CHECK(rc == 0 && m_bright > 1.5 * m_rendered,
          "2: --exposure 0 (exit %d): mean byte %g, the recorded -3 gave %g", rc, m_bright,
          m_rendered);

    /* 3. --view wins */
    const char *other[] = {"png", exr, "--view", default_view, "--quiet", NULL};
    rc = powder_run(log, other);
    CHECK(rc == 0 && !same_bytes(png, rendered), "3: --view '%s' (exit %d) kept the recorded "
          "view", default_view, rc);

    /* 4. nothing recorded: exposure 0 and the default view, as before the record */
    int w = 0, h = 0;
    float *rgba = NULL;
    pw_error err = {0};
    CHECK(pw_exr_read_rgba(exr, &w, &h, &rgba, &err) == PW_OK, "4: %s", err.msg);
    char bare[4096], bare_png[4096], ref_png[4096];
    snprintf(bare, sizeof bare, "%s/bare.exr", dir);
    snprintf(bare_png, sizeof bare_png, "%s/bare.png", dir);
    snprintf(ref_png, sizeof ref_png, "%s/bare_default.png", dir);
    pw_image img = {.width = w, .height = h, .rgba = rgba};
    pw_exr_options eo;
    pw_exr_options_default(&eo);
    eo.float_beauty = 1;
    CHECK(pw_exr_write(bare, &img, &eo, &err) == PW_OK, "4: %s", err.msg);
    const char *bare_run[] = {"png",    bare,         "--exposure", "0",
                              "--view", default_view, "--quiet",    NULL};
    rc = powder_run(log, bare_run);
    copy_file(bare_png, ref_png);
    const char *bare_plain[] = {"png", bare, "--quiet", NULL};
    int rc2 = powder_run(log, bare_plain);
    CHECK(rc == 0 && rc2 == 0 && same_bytes(bare_png, ref_png),
          "4: an EXR without a record (exit %d, %d) did not get exposure 0 and the default view",
          rc, rc2);

    /* 5. a recorded view this build lacks: refused with the remedy; --view overrides */
    char odd[4096], odd_log[4096];
    snprintf(odd, sizeof odd, "%s/odd.exr", dir);
    snprintf(odd_log, sizeof odd_log, "%s/odd.log", dir);
    eo.has_preview = 1;
    eo.preview_exposure = -1;
    eo.preview_view = "No Such View";
    CHECK(pw_exr_write(odd, &img, &eo, &err) == PW_OK, "5: %s", err.msg);
    const char *odd_plain[] = {"png", odd, NULL};
    rc = powder_run(odd_log, odd_plain);
    CHECK(rc != 0 && file_contains(odd_log, "No Such View") && file_contains(odd_log, "--view"),
          "5: a view this build lacks (exit %d): see %s", rc, odd_log);
    const char *odd_view[] = {"png", odd, "--view", "Un-tone-mapped", "--quiet", NULL};
    rc = powder_run(odd_log, odd_view);
    CHECK(rc == 0, "5: --view did not override the recorded view (exit %d, %s)", rc, odd_log);
    free(rgba);
    return check_done("pipeline_png_uses_recorded_exposure");
}
