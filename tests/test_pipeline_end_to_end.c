/* Property: the powder program takes a tiny shot end to end. `powder run` writes a
 * valid cache and a valid EXR (and PNG) per frame; the snow is brighter than the
 * background and alpha covers it (alpha > 0.5 on the snow, 0 on empty sky); a
 * re-render with another look changes pixels but not one byte of the caches; a
 * turntable writes the requested views and a contact sheet; a second run keeps the
 * frames of the same simulation; a changed one of the same name is refused over them
 * (exit 2), and with --replace simulates and renders them again (the frame's
 * "powder:source" names the simulation); bad input exits 2 with the file and place
 * named. Thresholds are loose on purpose (4 spp): a broken stage gives
 * black, empty or identical images, far from them. */
#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"

static double luminance(const float *p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

int main(void)
{
    const char *dir = fixture_dir("pipeline_end_to_end");
    char scene[4096], out[4096], log[4096], path[4096], path2[4096];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 2));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);

    /* 1. powder run: caches, EXR and PNG for frames 0..2 */
    const char *run[] = {"run", scene, "--output", out, "--png", NULL};
    int rc = powder_run(log, run);
    CHECK(rc == 0, "powder run exited %d (log %s)", rc, log);
    for (int f = 0; f <= 2; f++) {
        pw_error err = {0};
        pw_cache_info info;
        snprintf(path, sizeof path, "%s/cache/tiny.%04d.pwc", out, f);
        CHECK(pw_cache_stat(path, &info, &err) == PW_OK, "cache %d: %s", f, err.msg);
        CHECK(info.count > 600 && info.count < 1200, "cache %d holds %llu particles", f,
              (unsigned long long)info.count);
        snprintf(path, sizeof path, "%s/tiny.%04d.png", out, f);
        CHECK(file_exists(path), "no PNG %s", path);
    }

    /* 2. the last frame is non-trivial: snow brighter than sky, alpha covers snow */
    snprintf(path, sizeof path, "%s/tiny.0002.exr", out);
    int w = 0, h = 0;
    float *rgba = NULL;
    pw_error err = {0};
    CHECK(pw_exr_read_rgba(path, &w, &h, &rgba, &err) == PW_OK, "%s", err.msg);
    if (rgba) {
        CHECK(w == 48 && h == 27, "size %dx%d", w, h);
        double snow = 0, sky = 0;
        int n_snow = 0, n_sky = 0;
        for (int k = 0; k < w * h; k++) {
            const float *p = rgba + 4 * k;
            if (p[3] > 0.5f) snow += luminance(p), n_snow++;
            else if (p[3] == 0.0f) sky += luminance(p), n_sky++;
        }
        CHECK(n_snow > 20, "only %d pixels covered by snow", n_snow);
        CHECK(n_sky > 100, "only %d pixels of open sky", n_sky);
        if (n_snow && n_sky)
            CHECK(snow / n_snow > 2 * sky / n_sky, "snow %.4f not brighter than sky %.4f",
                  snow / n_snow, sky / n_sky);
        /* the centre pixel looks at the snowball's centre line */
        CHECK(rgba[4 * ((h / 2) * w + w / 2) + 3] > 0.5f, "alpha at the centre %.3f",
              rgba[4 * ((h / 2) * w + w / 2) + 3]);
    }

    /* 3. a look re-renders without touching caches */
    char look[4096], cache_copy[4096];
    snprintf(look, sizeof look, "%s/warm.json", dir);
    fixture_write(look, "{\"render\": {\"camera\": {\"eye\": [0.3, 0.2, 0.5], \"target\": [0, 0.08, 0],"
                        " \"fov_deg\": 40}, \"resolution\": [48, 27], \"spp\": 4,"
                        " \"lights\": {\"sun\": {\"direction\": [-0.9, 0.3, 0.2],"
                        " \"irradiance\": [4, 2.5, 1.2]}, \"sky\": {\"radiance\": [0.02, 0.02,"
                        " 0.03]}}}}");
    snprintf(path, sizeof path, "%s/cache/tiny.0002.pwc", out);
    snprintf(cache_copy, sizeof cache_copy, "%s/before.pwc", dir);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, cache_copy);
    CHECK(system(cmd) == 0, "copy");
    char frame_copy[4096];
    snprintf(frame_copy, sizeof frame_copy, "%s/before.exr", dir);
    snprintf(cmd, sizeof cmd, "cp '%s/tiny.0002.exr' '%s'", out, frame_copy);
    CHECK(system(cmd) == 0, "copy");
    const char *render[] = {"render", scene, "--look", look, "--output", out, "--frames", "2", NULL};
    rc = powder_run(log, render);
    CHECK(rc == 0, "powder render --look exited %d", rc);
    CHECK(same_bytes(path, cache_copy), "re-render changed the cache");
    /* the look's frames go to their own folder, even with --output: the shot's frame
     * is not touched */
    snprintf(path2, sizeof path2, "%s/tiny.0002.exr", out);
    CHECK(same_bytes(path2, frame_copy), "the look overwrote the shot's frame %s", path2);
    snprintf(path2, sizeof path2, "%s/warm/tiny.0002.exr", out);
    float *rgba_look = NULL;
    int w2, h2;
    CHECK(pw_exr_read_rgba(path2, &w2, &h2, &rgba_look, &err) == PW_OK, "%s", err.msg);
    if (rgba && rgba_look && w2 == w && h2 == h) {
        int differ = 0;
        for (int k = 0; k < 4 * w * h; k++) differ += rgba[k] != rgba_look[k];
        CHECK(differ > w * h / 2, "look changed only %d values", differ);
    }
    free(rgba);
    free(rgba_look);

    /* 4. turntable: 4 views and a contact sheet */
    char tt[4096];
    snprintf(tt, sizeof tt, "%s/turntable", dir);
    const char *turn[] = {"turntable", scene, "--output", out, "--frame", "2", "--steps", "4",
                          "--resolution", "32x18", "--spp", "2", NULL};
    /* turntable writes next to the frames of --output */
    rc = powder_run(log, turn);
    CHECK(rc == 0, "powder turntable exited %d", rc);
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/turntable/tiny.f0002.t%03d.exr", out, k);
        CHECK(file_exists(path), "no view %s", path);
    }
    snprintf(path, sizeof path, "%s/turntable/tiny.f0002.t004.exr", out);
    CHECK(!file_exists(path), "a fifth view was written");
    snprintf(path, sizeof path, "%s/turntable/tiny.f0002.contact.png", out);
    CHECK(file_exists(path), "no contact sheet %s", path);
    (void)tt;
    /* --frame 0 is frame 0, not the default (the last frame) */
    const char *turn0[] = {"turntable", scene, "--output", out, "--frame", "0", "--steps", "1",
                           "--resolution", "32x18", "--spp", "1", NULL};
    rc = powder_run(log, turn0);
    CHECK(rc == 0, "powder turntable --frame 0 exited %d", rc);
    snprintf(path, sizeof path, "%s/turntable/tiny.f0000.t000.exr", out);
    CHECK(file_exists(path), "turntable --frame 0 wrote no view %s", path);

    /* 6. a second run keeps the frames of the same simulation; after the simulation
     * changes (the ball thrown faster), it renders them again, however well the old
     * ones read */
    char src_before[64], src_after[64], log2[4096], log3[4096], faster[4096];
    snprintf(path, sizeof path, "%s/tiny.0001.exr", out);
    pw_error err6 = {0};
    CHECK(pw_exr_read_string(path, "powder:source", src_before, sizeof src_before, &err6) == PW_OK,
          "%s", err6.msg);
    snprintf(log2, sizeof log2, "%s/rerun.txt", dir);
    rc = powder_run(log2, run);
    CHECK(rc == 0, "second powder run exited %d", rc);
    CHECK(file_contains(log2, "frame 1 already done"), "the second run rendered frame 1 again");
    snprintf(faster, sizeof faster, "%s/faster.json", dir);
    char text[4096];
    snprintf(text, sizeof text, tiny_scene_json, 2);
    char *at = strstr(text, "[0, -1.5, 0]");
    CHECK(at != NULL, "fixture velocity not found");
    if (at) memcpy(at, "[0, -2.5, 0]", 12);
    fixture_write(faster, text);
    snprintf(log3, sizeof log3, "%s/changed.txt", dir);
    /* the same name, another simulation: its caches would overwrite the first scene's,
     * so it is refused until --replace says to delete them */
    const char *run_faster[] = {"run", faster, "--output", out, NULL};
    rc = powder_run(log3, run_faster);
    CHECK(rc == 2, "powder run of the changed scene over the old caches exited %d, not 2", rc);
    CHECK(file_contains(log3, "--replace"), "the refusal does not name --replace");
    const char *replace_faster[] = {"run", faster, "--output", out, "--replace", NULL};
    remove(log3);
    rc = powder_run(log3, replace_faster);
    CHECK(rc == 0, "powder run --replace of the changed scene exited %d", rc);
    CHECK(!file_contains(log3, "already done"), "a frame of the old simulation counted as done");
    CHECK(pw_exr_read_string(path, "powder:source", src_after, sizeof src_after, &err6) == PW_OK,
          "%s", err6.msg);
    printf("6. frame 1 source %s, after the change %s\n", src_before, src_after);
    CHECK(strcmp(src_before, src_after) != 0, "frame 1 still names the old simulation");
    /* 6b. rendering the first scene over the changed caches is refused, naming the
     * cache's own hash (it was once formed after the cache was freed: all zeros) */
    char hashlog[4096], cache1[4096], want[64];
    snprintf(hashlog, sizeof hashlog, "%s/hash.txt", dir);
    snprintf(cache1, sizeof cache1, "%s/cache/tiny.0001.pwc", out);
    pw_cache_info ci;
    CHECK(pw_cache_stat(cache1, &ci, &err6) == PW_OK, "%s", err6.msg);
    snprintf(want, sizeof want, "sim hash %016llx", (unsigned long long)ci.sim_hash);
    const char *render_old[] = {"render", scene, "--output", out, "--frames", "1", NULL};
    CHECK(powder_run(hashlog, render_old) == 2, "render over another setup's caches not refused");
    CHECK(file_contains(hashlog, want), "the message does not name the cache's %s", want);

    /* 5. bad input: exit 2 with file and place */
    char bad[4096], badlog[4096];
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    snprintf(badlog, sizeof badlog, "%s/bad.txt", dir);
    fixture_write(bad, "{\"name\": \"x\",\n \"frames\": {\"start\": 0, \"end\": 1 \"fps\": 24}}\n");
    const char *sim_bad[] = {"sim", bad, NULL};
    CHECK(powder_run(badlog, sim_bad) == 2, "syntax error did not exit 2");
    CHECK(file_contains(badlog, "bad.json:2:"), "no file:line in the message");
    const char *no_args[] = {"render", NULL};
    CHECK(powder_run(badlog, no_args) == 2, "missing scene did not exit 2");
    const char *bad_frames[] = {"sim", scene, "--frames", "9-1", NULL};
    CHECK(powder_run(badlog, bad_frames) == 2, "backwards frames did not exit 2");
    const char *missing[] = {"render", scene, "--output", dir, NULL};
    CHECK(powder_run(badlog, missing) == 2, "render without caches did not exit 2");
    CHECK(file_contains(badlog, "no cache for frame 0"), "missing cache not named");
    return check_done("pipeline_end_to_end");
}
