/* Property: render.denoise and --denoise/--no-denoise decide whether a frame's EXR is
 * denoised, and a denoised EXR keeps the unfiltered image beside the filtered one.
 *   1. the tiny scene as it is (no render.denoise): the EXR has RGBA and no noisy layer;
 *   2. the same run with --denoise renders the frames again (their settings hash says
 *      so) and each EXR gains noisy.R/G/B/A, stored as RGBA (half), whose values differ
 *      from RGBA's (the filtered image is not the unfiltered one);
 *   3. --denoise with --no-denoise is a usage error (exit 2);
 *   4. a scene with "denoise": true and "spp": 1 is refused naming render.denoise
 *      (exit 2): one sample gives no variance to denoise by. */
#include <openexr.h>

#include "check.h"
#include "exr.h"
#include "exr_channels.h"
#include "pipeline_fixture.h"

/* How many of the noisy.R/G/B/A channels path has as half floats. */
static int noisy_channels(const char *path)
{
    return exr_channels_count(path, exr_noisy_channels, EXR_PIXEL_HALF);
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_render_denoise");
    char scene[4096], out[4096], log[4096], exr[4096], bad[4096];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(exr, sizeof exr, "%s/tiny.0001.exr", out);

    /* 1. the scene's default: not denoised */
    const char *plain[] = {"run", scene, "--frames", "0-1", "--output", out, NULL};
    int rc = powder_run(log, plain);
    CHECK(rc == 0, "plain run exited %d (log %s)", rc, log);
    CHECK(noisy_channels(exr) == 0, "an EXR not denoised has a noisy layer");
    float *before = NULL;
    int w = 0, h = 0;
    pw_error err = {0};
    CHECK(pw_exr_read_rgba(exr, &w, &h, &before, &err) == PW_OK, "%s", err.msg);

    /* 2. --denoise: the frames again, with the noisy layer */
    const char *denoised[] = {"run", scene, "--frames", "0-1", "--output", out, "--denoise",
                              NULL};
    rc = powder_run(log, denoised);
    CHECK(rc == 0, "denoised run exited %d (log %s)", rc, log);
    CHECK(file_contains(log, "other render settings"), "the frames were kept (log %s)", log);
    CHECK(noisy_channels(exr) == 4, "the denoised EXR has %d of the noisy channels",
          noisy_channels(exr));
    float *after = NULL;
    CHECK(pw_exr_read_rgba(exr, &w, &h, &after, &err) == PW_OK, "%s", err.msg);
    if (before && after)
        CHECK(memcmp(before, after, 4 * (size_t)w * h * sizeof(float)) != 0,
              "the denoised RGBA is the unfiltered one");
    free(before), free(after);

    /* 3. both flags */
    const char *both[] = {"run", scene, "--output", out, "--denoise", "--no-denoise", NULL};
    rc = powder_run(log, both);
    CHECK(rc == 2, "--denoise --no-denoise exited %d, not 2", rc);

    /* 4. denoise at one sample */
    snprintf(bad, sizeof bad, "%s/one_sample.json", dir);
    char text[8192];
    snprintf(text, sizeof text, tiny_scene_json, 1);
    char *spp = strstr(text, "\"spp\": 4,");
    CHECK(spp != NULL, "the fixture's scene has no \"spp\": 4");
    if (spp) {
        memcpy(spp, "\"spp\": 1,", 9);
        char fixed[8300];
        snprintf(fixed, sizeof fixed, "%.*s\"denoise\": true, %s", (int)(spp - text), text, spp);
        fixture_write(bad, fixed);
        const char *one[] = {"run", bad, "--output", out, NULL};
        rc = powder_run(log, one);
        CHECK(rc == 2, "a denoised scene at 1 spp exited %d, not 2", rc);
        CHECK(file_contains(log, "render.denoise"), "the error does not name render.denoise");
    }
    return check_done("pipeline_render_denoise");
}
