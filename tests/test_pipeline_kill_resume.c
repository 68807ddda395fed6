/* Property: a process killed (SIGKILL) at any moment of `powder sim` or `powder render`
 * never leaves a file under its final name that a reader refuses, and restarting the
 * same command continues from the last complete frame to exactly the same caches (byte
 * for byte) and the same pixels as an uninterrupted run. The kill points sweep from
 * start-up through every phase (seeding, stepping, cache and EXR writes) by delays
 * growing from 5 ms by half each time, whatever the machine's speed: a run of T ms is
 * killed about log(T / 5 ms) / log 1.5 times (5 or more for any run over 40 ms) before
 * one outlasts what is left; every run after a kill must make progress, so the loop is
 * bounded. */
#include <dirent.h>

#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"

enum { LAST_FRAME = 4, MAX_ATTEMPTS = 60 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}


static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

/* Every file named *.pwc / *.exr in dir must read back. Returns the number checked. */
static int check_final_files(const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ext)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        pw_error err = {0};
        if (!strcmp(ext, ".pwc")) {
            pw_cache_info info;
            CHECK(pw_cache_stat(path, &info, &err) == PW_OK, "killed writer left %s: %s", path,
                  err.msg);
        } else {
            int w, h;
            float *rgba = NULL;
            CHECK(pw_exr_read_rgba(path, &w, &h, &rgba, &err) == PW_OK,
                  "killed writer left %s: %s", path, err.msg);
            free(rgba);
        }
        n++;
    }
    closedir(d);
    return n;
}

/* Runs args, killing it after growing delays, until one run finishes by itself.
 * After each kill the final-named files in check_dir must all read back. */
static int run_with_kills(const char *log, const char *const *args, const char *check_dir,
                          const char *ext)
{
    int kills = 0;
    double grow = 5;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++, grow *= 1.5) {
        pid_t pid = powder_start(log, args);
        long delay = (long)grow + (attempt * 7919) % 23; /* irregular offsets */
        int status, exited = 0;
        for (long waited = 0; waited < delay; waited += 2) {
            if (waitpid(pid, &status, WNOHANG) == pid) {
                exited = 1;
                break;
            }
            sleep_ms(2);
        }
        if (exited) {
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run exited with %d",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            return kills;
        }
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0) {}
        kills++;
        check_final_files(check_dir, ext);
    }
    CHECK(0, "no run finished within %d attempts", MAX_ATTEMPTS);
    return kills;
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_kill_resume");
    char scene[4096], ref[4096], killed[4096], log[4096];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", LAST_FRAME));
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(killed, sizeof killed, "%s/killed", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);

    /* 1. reference: uninterrupted (timed only to be printed) */
    const char *sim_ref[] = {"sim", scene, "--output", ref, "--quiet", NULL};
    double t0 = now_ms();
    CHECK(powder_run(log, sim_ref) == 0, "reference sim failed (log %s)", log);
    double sim_ms = now_ms() - t0;
    const char *render_ref[] = {"render", scene, "--output", ref, "--quiet", NULL};
    t0 = now_ms();
    CHECK(powder_run(log, render_ref) == 0, "reference render failed");
    double render_ms = now_ms() - t0;
    printf("uninterrupted: sim %.0f ms, render %.0f ms\n", sim_ms, render_ms);

    /* 2. the simulation, killed again and again */
    char cache_dir[4096];
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", killed);
    const char *sim[] = {"sim", scene, "--output", killed, "--quiet", NULL};
    int kills = run_with_kills(log, sim, cache_dir, ".pwc");
    printf("sim: killed %d times before a run completed\n", kills);
    CHECK(kills >= 3 || sim_ms < 40, "only %d kills of a %.0f ms run: the sweep did not "
          "interrupt the simulation", kills, sim_ms);
    for (int f = 0; f <= LAST_FRAME; f++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/cache/tiny.%04d.pwc", ref, f);
        snprintf(b, sizeof b, "%s/cache/tiny.%04d.pwc", killed, f);
        CHECK(same_bytes(a, b), "frame %d: resumed cache differs from the uninterrupted one", f);
    }

    /* 3. the render, killed again and again (resume skips finished frames) */
    const char *render[] = {"render", scene, "--output", killed, "--resume", "--quiet", NULL};
    kills = run_with_kills(log, render, killed, ".exr");
    printf("render: killed %d times before a run completed\n", kills);
    for (int f = 0; f <= LAST_FRAME; f++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/tiny.%04d.exr", ref, f);
        snprintf(b, sizeof b, "%s/tiny.%04d.exr", killed, f);
        int wa, ha, wb, hb;
        float *pa = NULL, *pb = NULL;
        pw_error err = {0};
        CHECK(pw_exr_read_rgba(a, &wa, &ha, &pa, &err) == PW_OK, "%s", err.msg);
        CHECK(pw_exr_read_rgba(b, &wb, &hb, &pb, &err) == PW_OK, "%s", err.msg);
        CHECK(!pa || !pb || (wa == wb && ha == hb), "frame %d: %dx%d, the reference %dx%d", f,
              wb, hb, wa, ha);
        if (pa && pb && wa == wb && ha == hb)
            CHECK(!memcmp(pa, pb, sizeof(float) * 4 * wa * ha), "frame %d: pixels differ", f);
        free(pa);
        free(pb);
    }
    return check_done("pipeline_kill_resume");
}
