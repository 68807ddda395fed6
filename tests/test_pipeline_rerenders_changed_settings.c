/* Property: a resumed render keeps a frame only when it was made with the render
 * settings in force now. `powder run` with a quick preview's --spp and --resolution,
 * then `powder run` without them, renders every frame again at the scene's size; a
 * third run with nothing changed keeps them byte for byte; --seed alone makes them
 * again. Each frame records its seed and a hash of its settings. */
#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"

static void frame_size(const char *path, int *w, int *h)
{
    float *rgba = NULL;
    pw_error err = {0};
    *w = *h = 0;
    CHECK(pw_exr_read_rgba(path, w, h, &rgba, &err) == PW_OK, "%s", err.msg);
    free(rgba);
}

static void frame_string(const char *path, const char *name, char *out, size_t n)
{
    pw_error err = {0};
    out[0] = '\0';
    CHECK(pw_exr_read_string(path, name, out, n, &err) == PW_OK, "%s: %s", name, err.msg);
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_rerenders_changed_settings");
    char scene[4096], out[4096], log[4096], exr[4096], copy[4096];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(exr, sizeof exr, "%s/tiny.0001.exr", out);
    snprintf(copy, sizeof copy, "%s/kept.exr", dir);
    int w, h, rc;
    char hash_preview[64], hash_final[64], seed[32];

    /* 1. a quick preview: 32x18 at 1 spp */
    const char *preview[] = {"run", scene, "--frames", "0-1", "--spp", "1", "--resolution",
                             "32x18", "--output", out, NULL};
    rc = powder_run(log, preview);
    CHECK(rc == 0, "preview run exited %d (log %s)", rc, log);
    frame_size(exr, &w, &h);
    CHECK(w == 32 && h == 18, "preview frame is %dx%d, not 32x18", w, h);
    frame_string(exr, "powder:renderSettings", hash_preview, sizeof hash_preview);

    /* 2. the scene's own settings (48x27, 4 spp): every frame is made again */
    const char *final[] = {"run", scene, "--frames", "0-1", "--output", out, NULL};
    rc = powder_run(log, final);
    CHECK(rc == 0, "final run exited %d (log %s)", rc, log);
    frame_size(exr, &w, &h);
    CHECK(w == 48 && h == 27, "the preview's %dx%d frame was kept (log %s)", w, h, log);
    CHECK(file_contains(log, "other render settings"), "the log does not say why frames were "
                                                        "rendered again (%s)", log);
    frame_string(exr, "powder:renderSettings", hash_final, sizeof hash_final);
    CHECK(hash_final[0] && strcmp(hash_final, hash_preview) != 0,
          "the settings hash did not change: '%s' vs '%s'", hash_final, hash_preview);

    /* 3. nothing changed: the frames are kept as they are */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", exr, copy);
    CHECK(system(cmd) == 0, "%s", cmd);
    rc = powder_run(log, final);
    CHECK(rc == 0, "third run exited %d", rc);
    CHECK(file_contains(log, "frame 1 already done"), "an unchanged frame was rendered again");
    CHECK(same_bytes(exr, copy), "an unchanged frame's bytes changed");

    /* 4. only the seed changes: the frames are made again, and say their seed */
    const char *reseed[] = {"run", scene, "--frames", "0-1", "--seed", "7", "--output", out,
                            NULL};
    rc = powder_run(log, reseed);
    CHECK(rc == 0, "reseeded run exited %d", rc);
    CHECK(!same_bytes(exr, copy), "a frame of another seed was kept");
    frame_string(exr, "powder:seed", seed, sizeof seed);
    CHECK(!strcmp(seed, "7"), "powder:seed is '%s', not 7", seed);
    return check_done("pipeline_rerenders_changed_settings");
}
