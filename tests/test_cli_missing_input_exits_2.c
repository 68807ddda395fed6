/* Property: a named input that does not exist (scene, look, cache, EXR) is bad input:
 * every command exits 2 ("bad usage or bad input"), with one message naming the file,
 * as the usage text promises; a failure of the work itself, such as an output directory
 * that cannot be created, still exits 1. Exact exit statuses, no tolerance.
 *
 * Before PW_ENOENT a missing file was PW_EIO like a full disk, and every command exited
 * 1 for it. */
#include "check.h"
#include "pipeline_fixture.h"

#define NOENT ": cannot open (No such file or directory)"

/* Runs powder with args into a fresh log; checks the exit status and that the log
 * holds needle. */
static void expect(const char *dir, const char *what, const char *const *args, int want,
                   const char *needle)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/%s.log", dir, what);
    remove(log);
    int rc = powder_run(log, args);
    CHECK(rc == want, "%s: exit %d, expected %d (see %s)", what, rc, want, log);
    CHECK(file_contains(log, needle), "%s: no \"%s\" in %s", what, needle, log);
}

int main(void)
{
    const char *dir = fixture_dir("cli_missing_input_exits_2");
    char scene[4200], none[4200], look[4200], cache[4200], exr[4200], below[4200];
    char blocker[4200], out[4300];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(none, sizeof none, "%s/no_such_scene.json", dir);
    snprintf(look, sizeof look, "%s/no_such_look.json", dir);
    snprintf(cache, sizeof cache, "%s/no_such_cache.pwc", dir);
    snprintf(exr, sizeof exr, "%s/no_such_frame.exr", dir);
    snprintf(below, sizeof below, "%s/tiny.json/scene.json", dir);
    snprintf(blocker, sizeof blocker, "%s/a_file", dir);
    snprintf(out, sizeof out, "%s/a_file/out", dir);
    fixture_write(blocker, "not a directory\n");

    /* 1-9. each command, its scene (or cache, or EXR) missing: exit 2 naming it */
    const char *run[] = {"run", none, "--quiet", NULL};
    const char *sim[] = {"sim", none, "--quiet", NULL};
    const char *render[] = {"render", none, "--quiet", NULL};
    const char *turntable[] = {"turntable", none, "--quiet", NULL};
    const char *info[] = {"info", cache, NULL};
    const char *png[] = {"png", exr, "--quiet", NULL};
    const char *export_ply[] = {"export", "ply", none, "--quiet", NULL};
    const char *stats[] = {"stats", none, NULL};
    const char *submit[] = {"submit", none, "--dry-run", NULL};
    expect(dir, "1_run", run, 2, "no_such_scene.json" NOENT);
    expect(dir, "2_sim", sim, 2, "no_such_scene.json" NOENT);
    expect(dir, "3_render", render, 2, "no_such_scene.json" NOENT);
    expect(dir, "4_turntable", turntable, 2, "no_such_scene.json" NOENT);
    expect(dir, "5_info", info, 2, "no_such_cache.pwc" NOENT);
    expect(dir, "6_png", png, 2, "no_such_frame.exr" NOENT);
    expect(dir, "7_export", export_ply, 2, "no_such_scene.json" NOENT);
    expect(dir, "8_stats", stats, 2, "no_such_scene.json" NOENT);
    expect(dir, "9_submit", submit, 2, "no_such_scene.json" NOENT);

    /* 10. the scene exists, the look it is given does not */
    const char *render_look[] = {"render", scene, "--look", look, "--quiet", NULL};
    expect(dir, "10_look", render_look, 2, "no_such_look.json" NOENT);

    /* 11. a path through a regular file (ENOTDIR) names no file either */
    const char *sim_below[] = {"sim", below, "--quiet", NULL};
    expect(dir, "11_below_a_file", sim_below, 2,
           "tiny.json/scene.json: cannot open (Not a directory)");

    /* 12. a failure of the work, not of the input, stays 1: the output directory cannot
     * be created because a regular file is in its way */
    const char *sim_blocked[] = {"sim", scene, "--output", out, "--quiet", "--threads", "1", NULL};
    expect(dir, "12_unwritable", sim_blocked, 1, "cannot create directory (Not a directory)");
    return check_done("cli_missing_input_exits_2");
}
