/* Property: every command takes the common options of `powder --help`, --threads N and
 * --quiet, and its --help lists them (export and stats refused --threads, stats
 * --quiet, info and png both or one). Where a command works in parallel, --threads N
 * is the number of threads it works on: export vdb rasterizes the density with
 * OpenMP loops that take the process's thread count, which was every core whatever
 * --threads said; after `export vdb --threads 1` (and `export ply`, `stats`) that
 * count is 1 where the test had set 4. No tolerance: acceptance, words and counts are
 * exact.
 *
 * Cases: 1.x each command given --threads 2 --quiet --help exits 0 and its help names
 * both; 2.x export vdb, export ply and stats, run in this process on the tiny shot's
 * frame 0-1 caches, leave OpenMP at --threads threads and succeed. */
#include <omp.h>

#include "check.h"
#include "export.h"
#include "pipeline_fixture.h"
#include "stats_cmd.h"

/* Runs a command of powder in this process with its output in log; returns its exit
 * status and leaves OpenMP's thread count as the command set it. */
static int run_here(int (*command)(int, char **), const char *log, const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "powder";
    for (int k = 0; args[k] && argc < 31; k++) argv[argc++] = (char *)args[k];
    argv[argc] = NULL;
    fflush(stdout);
    int saved = dup(1);
    FILE *fp = freopen(log, "w", stdout);
    int rc = fp ? command(argc, argv) : -1;
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    clearerr(stdout);
    return rc;
}

int main(void)
{
    const char *dir = fixture_dir("cli_common_options");
    char scene[4200], log[4200], out[4200], cache[4300];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(log, sizeof log, "%s/help.log", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(cache, sizeof cache, "%s/cache/tiny.0001.pwc", out);

    /* 1. every command takes --threads and --quiet, and says so in its help */
    const struct {
        const char *args[4];
    } commands[] = {
        {{"run", scene}},       {{"sim", scene}},    {{"render", scene}},
        {{"turntable", scene}}, {{"info", cache}},   {{"png", "a.exr"}},
        {{"export", "vdb", scene}}, {{"export", "ply", scene}}, {{"stats", scene}},
        {{"submit", scene}},
    };
    for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
        const char *args[12];
        int n = 0;
        for (int j = 0; commands[k].args[j]; j++) args[n++] = commands[k].args[j];
        args[n++] = "--threads", args[n++] = "2", args[n++] = "--quiet", args[n++] = "--help";
        args[n] = NULL;
        remove(log);
        int rc = powder_run(log, args);
        CHECK(rc == 0, "1.%zu %s %s --threads 2 --quiet --help: exit %d (see %s)", k + 1,
              args[0], args[1], rc, log);
        CHECK(file_contains(log, "--threads N"), "1.%zu %s --help names no --threads N", k + 1,
              args[0]);
        CHECK(file_contains(log, "--quiet"), "1.%zu %s --help names no --quiet", k + 1,
              args[0]);
    }

    /* 2. the tiny shot's frames 0-1, then export and stats in this process */
    const char *sim[] = {"sim", scene, "--output", out, "--quiet", NULL};
    CHECK(powder_run(log, sim) == 0, "powder sim failed (see %s)", log);
    snprintf(log, sizeof log, "%s/here.log", dir);
    const struct {
        int (*command)(int, char **);
        const char *args[10];
    } here[] = {
#ifdef POWDER_HAVE_VDB
        {pw_main_export, {"export", "vdb", scene, "--output", out, "--threads", "1", NULL}},
#endif
        {pw_main_export, {"export", "ply", scene, "--output", out, "--threads", "1", "--quiet"}},
        {pw_main_stats, {"stats", scene, "--output", out, "--threads", "1", "--quiet", NULL}},
    };
    for (size_t k = 0; k < sizeof here / sizeof *here; k++) {
        omp_set_num_threads(4);
        int rc = run_here(here[k].command, log, here[k].args);
        CHECK(rc == 0, "2.%zu %s %s: exit %d (see %s)", k + 1, here[k].args[0], here[k].args[1],
              rc, log);
        CHECK(omp_get_max_threads() == 1, "2.%zu %s %s --threads 1: OpenMP left at %d threads",
              k + 1, here[k].args[0], here[k].args[1], omp_get_max_threads());
    }
    return check_done("cli_common_options");
}
