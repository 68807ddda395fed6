/* Property: `powder turntable` without --frame turns around the last frame that has a
 * cache of the scene's simulation setup, and says which; it took the scene's last frame
 * and failed on its missing cache when the shot was simulated only part of the way.
 * When no frame has a cache it says so, naming the cache folder and `powder sim`
 * (exit 2). Exact frame numbers, no tolerance.
 *
 * Cases: 1. the tiny shot (frames 0-5) simulated to frame 2: the turntable's views are
 * of frame 2, and the log names frame 2 as the last cached one; 2. --frame 1 still
 * chooses frame 1; 3. a scene with no cache: exit 2 and "no cached frame". */
#include "check.h"
#include "pipeline_fixture.h"

int main(void)
{
    const char *dir = fixture_dir("cli_turntable_last_cached");
    char scene[4200], log[4200], out[4200], view[4400], empty[4200];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 5));
    snprintf(log, sizeof log, "%s/sim.log", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);

    const char *sim[] = {"sim", scene, "--frames", "0-2", "--output", out, "--quiet", NULL};
    CHECK(powder_run(log, sim) == 0, "powder sim failed (see %s)", log);

    /* 1. no --frame: the last cached frame, 2, not the scene's last, 5 */
    snprintf(log, sizeof log, "%s/turntable.log", dir);
    const char *tt[] = {"turntable", scene, "--output", out, "--steps", "2", "--resolution",
                        "16x9", "--spp", "1", NULL};
    int rc = powder_run(log, tt);
    CHECK(rc == 0, "1.1 turntable without --frame: exit %d (see %s)", rc, log);
    snprintf(view, sizeof view, "%s/turntable/tiny.f0002.t000.exr", out);
    CHECK(file_exists(view), "1.2 no view of frame 2 (%s; see %s)", view, log);
    CHECK(file_contains(log, "turntable: frame 2, the last frame with a cache (of 0-5;"),
          "1.3 the log does not say frame 2 is the last cached one (see %s)", log);
    CHECK(file_contains(log, "(azimuth 0 deg): frame 2: "), "1.4 view 1 is not of frame 2");

    /* 2. --frame N still chooses the frame */
    snprintf(log, sizeof log, "%s/turntable1.log", dir);
    const char *tt1[] = {"turntable", scene, "--output", out, "--steps", "2", "--resolution",
                         "16x9", "--spp", "1", "--frame", "1", NULL};
    rc = powder_run(log, tt1);
    CHECK(rc == 0, "2.1 turntable --frame 1: exit %d (see %s)", rc, log);
    snprintf(view, sizeof view, "%s/turntable/tiny.f0001.t000.exr", out);
    CHECK(file_exists(view), "2.2 no view of frame 1 (%s)", view);
    CHECK(!file_contains(log, "the last frame with a cache"), "2.3 --frame 1 called last");

    /* 3. no cache at all: said, exit 2 */
    snprintf(log, sizeof log, "%s/none.log", dir);
    const char *none[] = {"turntable", scene, "--output", empty, "--steps", "2", "--quiet", NULL};
    rc = powder_run(log, none);
    CHECK(rc == 2, "3.1 turntable with no cache: exit %d, expected 2 (see %s)", rc, log);
    CHECK(file_contains(log, "no frame of 0-5 has a cache"), "3.2 no message (see %s)", log);
    CHECK(file_contains(log, "powder sim"), "3.3 the message names no `powder sim` (see %s)", log);
    return check_done("cli_turntable_last_cached");
}
