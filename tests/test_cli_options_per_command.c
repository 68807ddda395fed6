/* Property: each command accepts the options it uses and refuses every other with exit
 * 2 and a message naming the option and the command (an ignored option is a silent
 * surprise: `render --steps 3` once ran a full render); `render` (and `run`) apply
 * --spp, --resolution and --seed over the scene's render settings.
 *
 * The tiny fixture shot (about 900 particles) is simulated to frame 1, then frame 1 is
 * rendered at 40x20: the image has that size, --seed picks the noise (same seed, same
 * pixels; another seed, other pixels) and --spp changes the estimate. Then the
 * default shot's run writes its scene, which a partial look then re-renders. Last, a
 * two-view turntable of frame 1 logs each view by number and azimuth. */
#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"

/* Renders frame 1 into dir/name with extra options; returns the RGBA pixels (w x h). */
static float *render_frame(const char *dir, const char *scene, const char *name,
                           const char *spp, const char *seed, int *w, int *h)
{
    char out[4200], log[4200], exr[4300];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    char cache_src[4200], cmd[9000];
    snprintf(cache_src, sizeof cache_src, "%s/sim/cache", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s' '%s/'", out, cache_src, out);
    if (system(cmd) != 0) return NULL;
    const char *args[] = {"render", scene,   "--output", out,    "--frames", "1", "--quiet",
                          "--spp",  spp,     "--seed",   seed,   "--resolution", "40x20", NULL};
    int rc = powder_run(log, args);
    CHECK(rc == 0, "%s: render exited %d (see %s)", name, rc, log);
    snprintf(exr, sizeof exr, "%s/tiny.0001.exr", out);
    float *rgba = NULL;
    pw_error err = {0};
    if (rc == 0)
        CHECK(pw_exr_read_rgba(exr, w, h, &rgba, &err) == PW_OK, "%s: %s", name, err.msg);
    return rgba;
}

static int same_pixels(const float *a, const float *b, int n)
{
    return a && b && memcmp(a, b, (size_t)n * 4 * sizeof *a) == 0;
}

int main(void)
{
    const char *dir = fixture_dir("cli_options_per_command");
    char scene[4200], log[4200], sim_out[4200], cache[4300];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(log, sizeof log, "%s/refused.log", dir);
    snprintf(sim_out, sizeof sim_out, "%s/sim", dir);
    snprintf(cache, sizeof cache, "%s/cache/tiny.0001.pwc", sim_out);

    /* 1. options of other commands are refused, naming option and command */
    const struct {
        const char *args[8];
        const char *says;
    } refused[] = {
        {{"render", scene, "--steps", "3", NULL}, "'--steps' is not an option of render"},
        {{"sim", scene, "--png", NULL}, "'--png' is not an option of sim"},
        {{"sim", scene, "--spp", "4", NULL}, "'--spp' is not an option of sim"},
        {{"run", scene, "--look", scene, NULL}, "'--look' is not an option of run"},
        {{"turntable", scene, "--resume", NULL}, "'--resume' is not an option of turntable"},
        {{"info", cache, "--frames", "2", NULL}, "'--frames' is not an option of info"},
        {{"png", "x.exr", "--frames", "2", NULL}, "'--frames' is not an option of png"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        int rc = powder_run(log, refused[k].args);
        CHECK(rc == 2, "%s %s: exit %d, expected 2", refused[k].args[0], refused[k].args[2], rc);
        CHECK(file_contains(log, refused[k].says), "no message \"%s\"", refused[k].says);
    }

    /* 2. the options a command uses still work: sim to frame 1 */
    const char *sim[] = {"sim", scene, "--output", sim_out, "--quiet", "--threads", "1", NULL};
    CHECK(powder_run(log, sim) == 0, "powder sim failed (see %s)", log);

    /* 3. render overrides: size, seed and samples reach the image */
    int w = 0, h = 0, w2, h2;
    float *a = render_frame(dir, scene, "seed7", "2", "7", &w, &h);
    float *b = render_frame(dir, scene, "seed7again", "2", "7", &w2, &h2);
    float *c = render_frame(dir, scene, "seed8", "2", "8", &w2, &h2);
    float *d = render_frame(dir, scene, "spp1", "1", "7", &w2, &h2);
    CHECK(w == 40 && h == 20, "--resolution 40x20 gave %dx%d", w, h);
    CHECK(same_pixels(a, b, w * h), "the same --seed gave other pixels");
    CHECK(!same_pixels(a, c, w * h), "--seed 8 gave the pixels of --seed 7");
    CHECK(!same_pixels(a, d, w * h), "--spp 1 gave the pixels of --spp 2");
    free(a), free(b), free(c), free(d);

    /* 4. the default shot (no scene file) writes its scene beside its frames, and the
     * commands that need a scene follow it: a partial look re-renders frame 0 */
    char dflt[4200], written[4300], look[4300], exr[4400];
    snprintf(dflt, sizeof dflt, "%s/default", dir);
    snprintf(written, sizeof written, "%s/snowball.json", dflt);
    snprintf(look, sizeof look, "%s/quick.json", dir);
    fixture_write(look, "{\"render\": {\"spp\": 1, \"resolution\": [32, 18]}}\n");
    const char *run_default[] = {"run", "--frames", "0", "--output", dflt, "--quiet",
                                 "--spp", "1", "--resolution", "32x18", NULL};
    CHECK(powder_run(log, run_default) == 0, "default run failed (see %s)", log);
    CHECK(file_exists(written), "the default run wrote no scene at %s", written);
    const char *rerender[] = {"render", written, "--look", look, "--frames", "0", "--quiet", NULL};
    CHECK(powder_run(log, rerender) == 0, "re-render of the written scene failed (see %s)", log);
    snprintf(exr, sizeof exr, "%s/quick/snowball.0000.exr", dflt);
    CHECK(file_exists(exr), "no frame %s", exr);

    /* 5. each log line of a turntable's views names the view and its azimuth */
    char tt_log[4200];
    snprintf(tt_log, sizeof tt_log, "%s/turntable.log", dir);
    const char *turntable[] = {"turntable", scene, "--output", sim_out, "--steps", "2",
                               "--resolution", "16x9", "--spp", "1", NULL};
    CHECK(powder_run(tt_log, turntable) == 0, "turntable failed (see %s)", tt_log);
    CHECK(file_contains(tt_log, "turntable: view 1/2 (azimuth 0 deg): frame 1: "),
          "no log line names view 1 (see %s)", tt_log);
    CHECK(file_contains(tt_log, "turntable: view 2/2 (azimuth 180 deg): frame 1: "),
          "no log line names view 2 (see %s)", tt_log);
    CHECK(!file_contains(tt_log, "render: frame"), "a view's line names no view (see %s)", tt_log);
    return check_done("cli_options_per_command");
}
