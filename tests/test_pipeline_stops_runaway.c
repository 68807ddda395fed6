/* Property: a shot that cannot be run is stopped with a clear message and loses
 * nothing. 1. A scene set up to explode (dt_max 0.01 s with E0 = 5e9 Pa and no hardening,
 * as stiff as snow may be (sim/seed.h, PW_ICE_YOUNGS), so the
 * semi-implicit step is far beyond its accuracy, the elastic bound off and one retake
 * allowed: sim/docs/step-control.md) stops, before its last frame, with exit status 1
 * and a message naming the frame and what failed (a divergence, or a solve stopped at
 * its cap); the caches of the frames before it remain valid, and no cache of a diverged
 * state is written. 2. A shot that
 * needs more memory than --max-memory is refused before seeding with the estimate,
 * exit status 2, no output at all. */
#include <dirent.h>

#include "check.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_stops_runaway");
    char scene[4096], text[8192], out[4096], log[4096], path[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);

    /* 1. the exploding scene: the tiny shot with an absurd material and step */
    snprintf(text, sizeof text, tiny_scene_json, 12);
    char *mat = strstr(text, "\"materials\": {\"snow\": {}}");
    CHECK(mat != NULL, "fixture changed");
    if (mat) {
        char rest[8192];
        snprintf(rest, sizeof rest, "%s", mat + strlen("\"materials\": {\"snow\": {}}"));
        snprintf(mat, sizeof text - (size_t)(mat - text),
                 "\"materials\": {\"snow\": {\"E0\": 5e9, \"xi\": 0}}, \"dt_max\": 0.01, \"cfl\": 1, "
                 "\"courant\": 0, \"retake_limit\": 1%s", rest);
    }
    snprintf(scene, sizeof scene, "%s/boom.json", dir);
    fixture_write(scene, text);
    const char *sim[] = {"sim", scene, "--output", out, NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 1, "exploding shot exited %d, expected 1 (log %s)", rc, log);
    /* stopped where it diverged, not after the shot: the last frame was never reached */
    snprintf(path, sizeof path, "%s/cache/tiny.0012.pwc", out);
    CHECK(!file_exists(path), "the diverged shot ran to its last frame");
    CHECK(file_contains(log, "frame "), "message does not name the frame");
    CHECK(file_contains(log, "diverg") || file_contains(log, "stopped at cr_max_iterations"),
          "message does not say what failed");
    snprintf(path, sizeof path, "%s/cache/tiny.0000.pwc", out);
    pw_cache_info info;
    pw_error err = {0};
    CHECK(pw_cache_stat(path, &info, &err) == PW_OK, "frame 0 lost: %s", err.msg);
    /* every cache left under a final name is valid (finite: the writer refuses NaN) */
    for (int f = 0; f <= 12; f++) {
        snprintf(path, sizeof path, "%s/cache/tiny.%04d.pwc", out, f);
        if (!file_exists(path)) continue;
        CHECK(pw_cache_stat(path, &info, &err) == PW_OK, "frame %d: %s", f, err.msg);
        pw_cache_frame fr;
        static const char *const names[] = {"v"};
        if (pw_cache_read(path, names, 1, &fr, &err) == PW_OK) {
            const double *v = pw_cache_find(&fr, "v")->data;
            double vmax = 0;
            for (uint64_t k = 0; k < 3 * fr.count; k++) vmax = fmax(vmax, fabs(v[k]));
            CHECK(vmax < 200, "frame %d: a cache of a diverged state (|v| = %g m/s)", f, vmax);
            pw_cache_frame_free(&fr);
        }
    }

    /* 2. over the memory limit: refused before seeding, nothing written */
    char big_out[4096];
    snprintf(big_out, sizeof big_out, "%s/big", dir);
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 2));
    const char *big[] = {"sim", scene, "--output", big_out, "--max-memory", "1M", NULL};
    rc = powder_run(log, big);
    CHECK(rc == 2, "over-budget shot exited %d, expected 2", rc);
    CHECK(file_contains(log, "particles need about"), "no estimate in the message");
    CHECK(count_files(big_out) == 0, "output written for a refused shot");
    return check_done("pipeline_stops_runaway");
}
