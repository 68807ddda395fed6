/* Property: `powder sim` never overwrites, nor mixes its frames with, the caches of another
 * simulation setup in its folder, and a resume relies only on earlier frames of its own
 * setup. Two scenes with the same name (so the same cache files) differ only in E0:
 *  1. A simulated to frame 2, then B asked for frames 0-1 in the same folder: B exits 2
 *     with one message naming the folder, the first frame of the other setup, how many
 *     there are and the remedy (--replace, another name or --output); A's three caches
 *     are unchanged byte for byte and no other file appears (nothing written).
 *  2. B with --replace --frames 0: A's whole range goes, frames beyond B's range too
 *     (1-2 no longer exist), and frame 0 is B's (its sim hash is not A's).
 *  3. A again (the folder now holds B's frame 0): refused with exit 2, B's frame
 *     untouched; with --replace: A's frames 0-2 come back identical, byte for byte, to
 *     the first run's (the simulation is deterministic, so exact equality is right).
 *  4. A resume checks every earlier frame it relies on: with A's frame 1 deleted, or
 *     frame 0's header damaged, rerunning A (whose frame 2 is there) re-simulates from
 *     the last good frame before it (frame 0; the seeding) instead of reporting
 *     "already cached", and the caches end byte for byte as the first run's; `powder
 *     render` then accepts them.
 * The tiny fixture shot (about 900 particles, a few tenths of a second per frame). */
#include <dirent.h>

#include "check.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"

enum { LAST_FRAME = 2 };

static char dir[4096], out[4200], cache_dir[4300], ref_dir[4300], log_path[4300];

static void cache_path(const char *d, int f, char *path, size_t n)
{
    snprintf(path, n, "%s/tiny.%04d.pwc", d, f);
}

static int count_files(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (e->d_name[0] != '.') n++;
    closedir(dp);
    return n;
}

static uint64_t sim_hash_of(const char *path)
{
    static pw_cache_info info;
    pw_error err = {0};
    if (pw_cache_table(path, &info, &err) != PW_OK) return 0;
    return info.sim_hash;
}

/* 1 when frames lo..hi in the cache folder equal the first run's. */
static int same_as_reference(int lo, int hi)
{
    int same = 1;
    for (int f = lo; f <= hi; f++) {
        char a[4400], b[4400];
        cache_path(ref_dir, f, a, sizeof a);
        cache_path(cache_dir, f, b, sizeof b);
        if (!same_bytes(a, b)) {
            fprintf(stderr, "frame %d differs from the first run's\n", f);
            same = 0;
        }
    }
    return same;
}

/* Runs powder with args, its output alone in log_path. */
static int run(const char *const *args)
{
    remove(log_path);
    return powder_run(log_path, args);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", fixture_dir("pipeline_sim_keeps_other_setups"));
    char scene_a[4300], scene_b[4300];
    snprintf(scene_a, sizeof scene_a, "%s", fixture_scene(dir, "a.json", LAST_FRAME));
    /* B: the same shot and name, a softer snow */
    char text[sizeof tiny_scene_json + 64], b_text[sizeof text + 64];
    snprintf(text, sizeof text, tiny_scene_json, LAST_FRAME);
    char *at = strstr(text, "\"snow\": {}");
    CHECK(at != NULL, "fixture has no \"snow\": {}");
    if (!at) return check_done("pipeline_sim_keeps_other_setups");
    snprintf(b_text, sizeof b_text, "%.*s\"snow\": {\"E0\": 7e4}%s", (int)(at - text), text,
             at + strlen("\"snow\": {}"));
    snprintf(scene_b, sizeof scene_b, "%s/b.json", dir);
    fixture_write(scene_b, b_text);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", out);
    snprintf(ref_dir, sizeof ref_dir, "%s/ref", dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    char cmd[9000];

    /* the first run of A, kept as the reference */
    const char *sim_a[] = {"sim", scene_a, "--output", out, "--quiet", NULL};
    CHECK(run(sim_a) == 0, "sim A failed (see %s)", log_path);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", cache_dir, ref_dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    char path[4400];
    cache_path(ref_dir, 0, path, sizeof path);
    uint64_t hash_a = sim_hash_of(path);
    CHECK(hash_a != 0, "%s: no sim hash", path);

    /* 1. B over A's frames: refused, nothing written */
    const char *sim_b[] = {"sim", scene_b, "--output", out, "--frames", "0-1", "--quiet", NULL};
    int rc = run(sim_b);
    CHECK(rc == 2, "1.1 B over A's caches exited %d, expected 2 (see %s)", rc, log_path);
    CHECK(file_contains(log_path, cache_dir), "1.2 the message does not name the folder %s",
          cache_dir);
    CHECK(file_contains(log_path, "frame 0"), "1.3 the message does not name frame 0");
    CHECK(file_contains(log_path, "3 frames"), "1.4 the message does not count 3 frames");
    CHECK(file_contains(log_path, "--replace"), "1.5 the message does not name --replace");
    CHECK(file_contains(log_path, "\"name\""), "1.6 the message does not name \"name\"");
    CHECK(same_as_reference(0, LAST_FRAME), "1.7 A's caches changed");
    CHECK(count_files(cache_dir) == LAST_FRAME + 1, "1.8 %d files in %s, expected %d",
          count_files(cache_dir), cache_dir, LAST_FRAME + 1);

    /* 2. B with --replace: A's whole range goes */
    const char *replace_b[] = {"sim",      scene_b, "--output",  out, "--frames",
                               "0",        "--quiet", "--replace", NULL};
    rc = run(replace_b);
    CHECK(rc == 0, "2.1 B --replace exited %d (see %s)", rc, log_path);
    for (int f = 0; f <= LAST_FRAME; f++) {
        cache_path(cache_dir, f, path, sizeof path);
        if (f == 0) {
            uint64_t h = sim_hash_of(path);
            CHECK(h != 0 && h != hash_a, "2.2 frame %d: sim hash %016llx, not B's", f,
                  (unsigned long long)h);
        } else {
            CHECK(!file_exists(path), "2.3 A's frame %d is left beside B's frame 0", f);
        }
    }

    /* 3. A over B's frames: refused; with --replace, A's frames as before */
    char b0[4400], b0_copy[4400];
    cache_path(cache_dir, 0, b0, sizeof b0);
    snprintf(b0_copy, sizeof b0_copy, "%s/b0.pwc", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", b0, b0_copy);
    CHECK(system(cmd) == 0, "%s", cmd);
    rc = run(sim_a);
    CHECK(rc == 2, "3.1 A over B's caches exited %d, expected 2 (see %s)", rc, log_path);
    CHECK(file_contains(log_path, "holds 1 frame of"), "3.2 the message does not count 1 "
          "frame");
    CHECK(same_bytes(b0, b0_copy), "3.3 B's frame 0 changed");
    CHECK(count_files(cache_dir) == 1, "3.4 %d files in %s, expected B's 1",
          count_files(cache_dir), cache_dir);
    const char *replace_a[] = {"sim", scene_a, "--output", out, "--quiet", "--replace", NULL};
    rc = run(replace_a);
    CHECK(rc == 0, "3.5 A --replace exited %d (see %s)", rc, log_path);
    CHECK(same_as_reference(0, LAST_FRAME), "3.6 A's caches differ from the first run's");

    /* 4. a resume checks the frames before it */
    const char *sim_a_log[] = {"sim", scene_a, "--output", out, NULL};
    cache_path(cache_dir, 1, path, sizeof path);
    remove(path);
    rc = run(sim_a_log);
    CHECK(rc == 0, "4.1 A with frame 1 deleted exited %d (see %s)", rc, log_path);
    CHECK(!file_contains(log_path, "already cached"), "4.2 frame 1 missing, yet \"already "
          "cached\" (see %s)", log_path);
    CHECK(file_contains(log_path, "resuming after frame 0"), "4.3 did not resume after frame "
          "0 (see %s)", log_path);
    CHECK(same_as_reference(0, LAST_FRAME), "4.4 A's caches differ from the first run's");

    cache_path(cache_dir, 0, path, sizeof path);
    FILE *fp = fopen(path, "r+b");
    CHECK(fp != NULL, "%s: cannot open", path);
    if (fp) { /* the magic and version: the header no longer reads */
        fwrite("XXXXXXXX", 1, 8, fp);
        fclose(fp);
    }
    rc = run(sim_a_log);
    CHECK(rc == 0, "4.5 A with frame 0 damaged exited %d (see %s)", rc, log_path);
    CHECK(file_contains(log_path, "frame 0: ") && file_contains(log_path, "seeded") &&
          !file_contains(log_path, "resuming"), "4.6 did not start anew from the seeding "
          "(see %s)", log_path);
    CHECK(same_as_reference(0, LAST_FRAME), "4.7 A's caches differ from the first run's");
    const char *render_a[] = {"render", scene_a, "--output", out, "--quiet", NULL};
    rc = run(render_a);
    CHECK(rc == 0, "4.8 render after the resumes exited %d (see %s)", rc, log_path);
    return check_done("pipeline_sim_keeps_other_setups");
}
