/* Property: `powder render` without --png removes the PNG preview of each frame whose
 * EXR it rewrites, and says so, so no preview is left showing an older image beside its
 * EXR; the previews of frames it does not render stay. It left them, stale. Exact file
 * existence, no tolerance.
 *
 * Cases: 1. the tiny shot's frames 0-1 rendered with --png: both PNGs; 2. frame 1
 * rendered again without --png: frame 1's EXR rewritten, its PNG gone and the log
 * names it; frame 0's PNG stays. */
#include "check.h"
#include "pipeline_fixture.h"

int main(void)
{
    const char *dir = fixture_dir("pipeline_render_drops_stale_png");
    char scene[4200], log[4200], out[4200], png0[4300], png1[4300];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(png0, sizeof png0, "%s/tiny.0000.png", out);
    snprintf(png1, sizeof png1, "%s/tiny.0001.png", out);

    /* 1. with previews */
    const char *run[] = {"run", scene, "--output", out, "--png", "--quiet", "--spp", "1",
                         "--resolution", "16x9", NULL};
    int rc = powder_run(log, run);
    CHECK(rc == 0, "1.1 powder run --png: exit %d (see %s)", rc, log);
    CHECK(file_exists(png0) && file_exists(png1), "1.2 no previews %s, %s", png0, png1);

    /* 2. frame 1 again, without --png */
    snprintf(log, sizeof log, "%s/render.log", dir);
    const char *render[] = {"render", scene, "--output", out, "--frames", "1", "--spp", "1",
                            "--resolution", "16x9", NULL};
    rc = powder_run(log, render);
    CHECK(rc == 0, "2.1 powder render: exit %d (see %s)", rc, log);
    CHECK(!file_exists(png1), "2.2 the stale preview %s is still there", png1);
    CHECK(file_contains(log, "tiny.0001.png removed: its EXR was rewritten without --png"),
          "2.3 the log does not say the preview was removed (see %s)", log);
    CHECK(file_exists(png0), "2.4 frame 0's preview %s, not rendered again, is gone", png0);
    return check_done("pipeline_render_drops_stale_png");
}
