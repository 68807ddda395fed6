/* Property: commands that read caches find them where they are, check them all before
 * writing anything, and leave a user's edited scene alone.
 *   1. `render --look L --output NEW` reads the caches from where the scene's output
 *      section put them (NEW has none) and writes the look's frames under NEW; with
 *      --caches DIR it reads them from DIR; `sim --output A` then `render --output A`
 *      still reads A/cache/.
 *   2. Where there are no caches, the message names the file and both remedies
 *      (`powder sim`, --caches), exit 2.
 *   3. Frames 0-4 with caches 1 (truncated) and 3 (missing): `render` and
 *      `export ply` exit 2 naming both files, and write no frame at all (not even 0).
 *   4. `powder run` without a scene writes the default shot's scene once, with short
 *      decimals (0.1, not 0.10000000000000001), and keeps it, edited, on the next run,
 *      saying so. */
#include "check.h"
#include "pipeline_fixture.h"

/* Writes the tiny scene with an output section putting its files under dir/shot. */
static void scene_with_output(const char *dir, char *path, size_t n)
{
    const char *plain = fixture_scene(dir, "plain.json", 4);
    FILE *fp = fopen(plain, "r");
    char text[8192];
    size_t len = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    if (fp) fclose(fp);
    text[len] = '\0';
    char *end = strrchr(text, '}'); /* the document's last brace */
    if (end) *end = '\0';
    char full[12000];
    snprintf(full, sizeof full,
             "%s,\n  \"output\": {\"caches\": \"%s/shot/cache/tiny.####.pwc\",\n"
             "             \"frames\": \"%s/shot/tiny.####.exr\"}\n}\n",
             text, dir, dir);
    /* the fixture's text ends "  }\n}\n": drop the newline left before the comma */
    char *comma = strstr(full, "\n,\n  \"output\"");
    if (comma) memmove(comma, comma + 1, strlen(comma + 1) + 1);
    snprintf(path, n, "%s/scene.json", dir);
    fixture_write(path, full);
}

/* 1 when no two adjacent characters of the file start a number of 16 or more digits. */
static int has_long_numbers(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return 1;
    int c, run = 0, worst = 0;
    while ((c = fgetc(fp)) != EOF) {
        run = (c >= '0' && c <= '9') ? run + 1 : (c == '.' ? run : 0);
        worst = run > worst ? run : worst;
    }
    fclose(fp);
    return worst >= 16;
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_reads_caches_where_they_are");
    char scene[4096], log[4096], path[4096], look[4096], out[4096], cmd[9000];
    scene_with_output(dir, scene, sizeof scene);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(look, sizeof look, "%s/dusk.json", dir);
    fixture_write(look, "{\"render\": {\"lights\": {\"sun\": {\"direction\": [0, 1, 0]}}}}");

    /* 1. caches where the scene put them; the look's frames under NEW */
    const char *sim[] = {"sim", scene, "--quiet", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "sim exited %d (%s)", rc, log);
    snprintf(out, sizeof out, "%s/new", dir);
    const char *relook[] = {"render", scene, "--look", look, "--output", out, "--frames", "1",
                            "--quiet", NULL};
    rc = powder_run(log, relook);
    CHECK(rc == 0, "render --look --output NEW exited %d (%s)", rc, log);
    snprintf(path, sizeof path, "%s/dusk/tiny.0001.exr", out);
    CHECK(file_exists(path), "no look frame %s", path);
    snprintf(out, sizeof out, "%s/elsewhere", dir);
    char caches[4096];
    snprintf(caches, sizeof caches, "%s/shot/cache", dir);
    const char *from[] = {"render", scene, "--output", out, "--caches", caches, "--frames", "2",
                          "--quiet", NULL};
    rc = powder_run(log, from);
    CHECK(rc == 0, "render --caches exited %d (%s)", rc, log);
    snprintf(path, sizeof path, "%s/tiny.0002.exr", out);
    CHECK(file_exists(path), "no frame %s", path);
    char a[4096];
    snprintf(a, sizeof a, "%s/a", dir);
    const char *sim_a[] = {"sim", scene, "--output", a, "--frames", "0-1", "--quiet", NULL};
    const char *render_a[] = {"render", scene, "--output", a, "--frames", "1", "--quiet", NULL};
    rc = powder_run(log, sim_a);
    CHECK(rc == 0 && powder_run(log, render_a) == 0, "sim/render --output A failed (%s)", log);
    snprintf(path, sizeof path, "%s/tiny.0001.exr", a);
    CHECK(file_exists(path), "no frame %s", path);

    /* 2. no caches: the message says what to do */
    char log2[4096], empty[4096];
    snprintf(log2, sizeof log2, "%s/missing.txt", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    const char *none[] = {"render", scene, "--caches", empty, "--frames", "1", NULL};
    rc = powder_run(log2, none);
    CHECK(rc == 2, "render without caches exited %d, not 2", rc);
    CHECK(file_contains(log2, "empty/tiny.0001.pwc") && file_contains(log2, "powder sim") &&
              file_contains(log2, "--caches"),
          "the missing-cache message lacks the file or a remedy (%s)", log2);

    /* 3. damaged caches in the middle of a range: nothing is written */
    snprintf(cmd, sizeof cmd, "truncate -s 100 '%s/shot/cache/tiny.0001.pwc' && "
                              "rm '%s/shot/cache/tiny.0003.pwc'", dir, dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    char log3[4096], r[4096];
    snprintf(log3, sizeof log3, "%s/damaged.txt", dir);
    snprintf(r, sizeof r, "%s/r", dir);
    const char *render_r[] = {"render", scene, "--output", r, "--frames", "0-4", NULL};
    rc = powder_run(log3, render_r);
    CHECK(rc == 2, "render over damaged caches exited %d, not 2", rc);
    CHECK(file_contains(log3, "tiny.0001.pwc") && file_contains(log3, "tiny.0003.pwc"),
          "not every bad cache is named (%s)", log3);
    snprintf(path, sizeof path, "%s/tiny.0000.exr", r);
    CHECK(!file_exists(path), "frame 0 was rendered before the damaged range was refused");
    snprintf(log3, sizeof log3, "%s/damaged_ply.txt", dir);
    const char *ply[] = {"export", "ply", scene, "--output", r, "--frames", "0-4", NULL};
    rc = powder_run(log3, ply);
    CHECK(rc == 2, "export over damaged caches exited %d, not 2", rc);
    CHECK(file_contains(log3, "tiny.0001.pwc") && file_contains(log3, "tiny.0003.pwc"),
          "export does not name every bad cache (%s)", log3);
    snprintf(path, sizeof path, "%s/tiny.0000.ply", r);
    CHECK(!file_exists(path), "frame 0 was exported before the damaged range was refused");

    /* 4. the default shot's scene: short decimals, a user's edits kept */
    char d[4096], log4[4096];
    snprintf(d, sizeof d, "%s/default", dir);
    snprintf(log4, sizeof log4, "%s/default.txt", dir);
    const char *run_default[] = {"run", "--frames", "0", "--spp", "1", "--output", d, "--quiet",
                                 NULL};
    rc = powder_run(log4, run_default);
    CHECK(rc == 0, "powder run (default shot) exited %d (%s)", rc, log4);
    snprintf(path, sizeof path, "%s/snowball.json", d);
    CHECK(file_exists(path) && !has_long_numbers(path), "%s is missing or has 16-digit numbers",
          path);
    snprintf(cmd, sizeof cmd, "sed -i 's/\"spp\": 16/\"spp\": 32/' '%s' && cp '%s' '%s.mine'",
             path, path, path);
    CHECK(system(cmd) == 0, "%s", cmd);
    rc = powder_run(log4, run_default);
    CHECK(rc == 0, "second powder run exited %d", rc);
    snprintf(a, sizeof a, "%s.mine", path);
    CHECK(same_bytes(path, a), "the user's edited %s was overwritten", path);
    CHECK(file_contains(log4, "was kept"), "the run does not say it kept the edited scene");
    return check_done("pipeline_reads_caches_where_they_are");
}
