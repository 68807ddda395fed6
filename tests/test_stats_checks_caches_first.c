/* Property: `powder stats` checks the cache of every frame it is to measure before it
 * prints anything, as render and export do: with a missing and a damaged frame in the
 * range it prints no row (so `--json > file` leaves the file empty, not a partial
 * table), names every bad frame and exits 2. The tiny fixture shot (frames 0-4) is
 * simulated to frame 2 only (a second).
 *  1. Whole and in order: the default range measures frames 0-2 (the frames not
 *     simulated yet, 3-4, are not asked for), one JSON line each, exit 0.
 *  2. Frame 0 whole, frame 1 deleted and frame 2 damaged (a byte of its compressed data
 *     flipped: the checksum fails): the default range exits 2 with nothing on stdout
 *     (frame 0 was printed before), and stderr names frame 1 and frame 2; the same as a
 *     table (not --json), and with --frames 0-2.
 *  3. --frames 0 (no bad frame) measures one frame, exit 0.
 *  4. A frame of another simulation setup (a cache of the same shot with another E0) in
 *     place of frame 1 is named too, with the damaged frame 2. */
#include "check.h"
#include "pipeline_fixture.h"

enum { LAST_FRAME = 4, SIMULATED = 2 };

static char dir[4096], out[4200], scene[4300], json_path[4300], err_path[4300];

/* Runs `powder stats scene --output out` with extra arguments, stdout to json_path and
 * stderr to err_path; returns the exit status. */
static int stats(const char *extra)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' stats '%s' --output '%s' %s > '%s' 2> '%s'",
             POWDER_BINARY, scene, out, extra, json_path, err_path);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int count_lines(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    int n = 0, c;
    while ((c = fgetc(fp)) != EOF) n += c == '\n';
    fclose(fp);
    return n;
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", fixture_dir("stats_checks_caches_first"));
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", LAST_FRAME));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(json_path, sizeof json_path, "%s/stats.json", dir);
    snprintf(err_path, sizeof err_path, "%s/stats.err", dir);
    char log[4300], frames[16];
    snprintf(log, sizeof log, "%s/sim.log", dir);
    snprintf(frames, sizeof frames, "0-%d", SIMULATED);
    const char *sim[] = {"sim", scene, "--output", out, "--frames", frames, "--quiet", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "sim exited %d (see %s)", rc, log);
    if (rc) return check_done("stats_checks_caches_first");

    /* 1. whole */
    rc = stats("--json");
    CHECK(rc == 0, "1.1 stats exited %d (see %s)", rc, err_path);
    CHECK(count_lines(json_path) == SIMULATED + 1, "1.2 %d JSON lines, expected %d",
          count_lines(json_path), SIMULATED + 1);

    /* 2. frame 1 missing, frame 2 damaged */
    char f1[4400], f2[4400], cmd[9000];
    snprintf(f1, sizeof f1, "%s/cache/tiny.0001.pwc", out);
    snprintf(f2, sizeof f2, "%s/cache/tiny.0002.pwc", out);
    CHECK(remove(f1) == 0, "%s: cannot delete", f1);
    FILE *fp = fopen(f2, "r+b");
    CHECK(fp != NULL, "%s: cannot open", f2);
    if (fp) {
        fseek(fp, -16, SEEK_END);
        int c = fgetc(fp);
        fseek(fp, -16, SEEK_END);
        fputc(c ^ 0x5a, fp);
        fclose(fp);
    }
    const char *variants[] = {"--json", "", "--json --frames 0-2"};
    for (int v = 0; v < 3; v++) {
        rc = stats(variants[v]);
        CHECK(rc == 2, "2.%d.1 stats %s exited %d, expected 2", v + 1, variants[v], rc);
        CHECK(file_size(json_path) == 0, "2.%d.2 stats %s printed %ld bytes", v + 1,
              variants[v], file_size(json_path));
        CHECK(file_contains(err_path, "frame 1") && file_contains(err_path, "tiny.0001.pwc"),
              "2.%d.3 stats %s does not name frame 1 (see %s)", v + 1, variants[v], err_path);
        CHECK(file_contains(err_path, "frame 2") && file_contains(err_path, "tiny.0002.pwc"),
              "2.%d.4 stats %s does not name frame 2 (see %s)", v + 1, variants[v], err_path);
    }

    /* 3. good frames only */
    rc = stats("--json --frames 0");
    CHECK(rc == 0, "3.1 stats --frames 0 exited %d (see %s)", rc, err_path);
    CHECK(count_lines(json_path) == 1, "3.2 %d JSON lines, expected 1", count_lines(json_path));

    /* 4. a frame of another setup in place of frame 1 */
    char other[4300], other_out[4300], other_log[4300], text[sizeof tiny_scene_json + 64];
    snprintf(text, sizeof text, tiny_scene_json, LAST_FRAME);
    char *at = strstr(text, "\"snow\": {}");
    CHECK(at != NULL, "fixture has no \"snow\": {}");
    if (!at) return check_done("stats_checks_caches_first");
    char b_text[sizeof text + 64];
    snprintf(b_text, sizeof b_text, "%.*s\"snow\": {\"E0\": 7e4}%s", (int)(at - text), text,
             at + strlen("\"snow\": {}"));
    snprintf(other, sizeof other, "%s/other.json", dir);
    fixture_write(other, b_text);
    snprintf(other_out, sizeof other_out, "%s/other", dir);
    snprintf(other_log, sizeof other_log, "%s/other.log", dir);
    const char *sim_other[] = {"sim", other, "--output", other_out, "--frames", "0", "--quiet",
                               NULL};
    CHECK(powder_run(other_log, sim_other) == 0, "sim of the other setup failed (see %s)",
          other_log);
    snprintf(cmd, sizeof cmd, "cp '%s/cache/tiny.0000.pwc' '%s'", other_out, f1);
    CHECK(system(cmd) == 0, "%s", cmd);
    rc = stats("--json");
    CHECK(rc == 2, "4.1 stats exited %d, expected 2", rc);
    CHECK(file_size(json_path) == 0, "4.2 stats printed %ld bytes", file_size(json_path));
    CHECK(file_contains(err_path, "frame 2"), "4.3 frame 2 not named (see %s)", err_path);
    CHECK(file_contains(err_path, "frame 1") &&
          file_contains(err_path, "different simulation setup"), "4.4 frame 1 of another "
          "setup not named (see %s)", err_path);
    return check_done("stats_checks_caches_first");
}
