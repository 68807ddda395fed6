/* Property: a file of an OBJ sequence that does not read (a bad number on one line) is
 * reported as every other scene error is: the scene file, the JSON path of the shape's
 * "path", then the OBJ file and its line. The files' contents are read when the
 * simulation builds its colliders, not when the scene is parsed, and that message said
 * only "collider 0: mesh sequence ..., file 2 of 3: ...:2: bad number". Exact
 * substrings, no tolerance: the words are what users read.
 *
 * Cases: 1. a fresh `powder sim` of the tiny shot with a three-file sequence collider,
 * file 2 damaged: exit 2, the message's head; 2. the same when resuming (the colliders
 * are built on the other path): frames 0-1 simulated with good files, then file 2
 * damaged and frame 2 asked for. */
#include "check.h"
#include "pipeline_fixture.h"

/* A tetrahedron of 0.1 m; bad puts a word where a number should be. */
static void write_obj(const char *dir, int k, int bad)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/w.%04d.obj", dir, k);
    fixture_write(path, bad ? "v 0 0 0\nv 0.1 zero 0\nv 0 0.1 0\nv 0 0 0.1\n"
                              "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
                            : "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\n"
                              "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
}

int main(void)
{
    const char *dir = fixture_dir("scene_sequence_errors_name_scene");
    char scene[4200], text[4096], log[4200], out[4200], want[8600];
    snprintf(scene, sizeof scene, "%s/seq.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    /* the tiny shot, with the sequence collider beside its ground */
    snprintf(text, sizeof text, tiny_scene_json, 2);
    const char *at = strstr(text, "\"colliders\": [");
    CHECK(at != NULL, "the fixture scene has no colliders");
    if (!at) return check_done("scene_sequence_errors_name_scene");
    char edited[8192];
    size_t head = (size_t)(at - text) + strlen("\"colliders\": [");
    snprintf(edited, sizeof edited, "%.*s{\"shape\": {\"type\": \"mesh\", \"path\": "
             "\"w.####.obj\", \"center\": [0.2, 0.3, 0.2], \"sequence\": {\"first\": 1, "
             "\"last\": 3}}}, %s", (int)head, text, text + head);
    fixture_write(scene, edited);
    snprintf(want, sizeof want, "powder: %s: sim.colliders[0].shape.path: ", scene);

    /* 1. a fresh run */
    for (int k = 1; k <= 3; k++) write_obj(dir, k, k == 2);
    snprintf(log, sizeof log, "%s/fresh.log", dir);
    const char *sim[] = {"sim", scene, "--output", out, "--quiet", "--frames", "0-1", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 2, "1.1 a damaged sequence file: exit %d, expected 2 (see %s)", rc, log);
    CHECK(file_contains(log, want), "1.2 no \"%s\" (see %s)", want, log);
    CHECK(file_contains(log, "w.0002.obj:2: bad number ('zero')"),
          "1.3 the OBJ file and line are not named (see %s)", log);
    CHECK(!file_contains(log, "collider 0:"), "1.4 the solver's own name left in (see %s)", log);

    /* 2. a resumed run builds its colliders on the other path */
    write_obj(dir, 2, 0);
    snprintf(log, sizeof log, "%s/good.log", dir);
    rc = powder_run(log, sim);
    CHECK(rc == 0, "2.1 the good sequence: exit %d (see %s)", rc, log);
    write_obj(dir, 2, 1);
    snprintf(log, sizeof log, "%s/resume.log", dir);
    const char *more[] = {"sim", scene, "--output", out, "--quiet", "--frames", "0-2", NULL};
    rc = powder_run(log, more);
    CHECK(rc == 2, "2.2 resuming with a damaged file: exit %d, expected 2 (see %s)", rc, log);
    CHECK(file_contains(log, want), "2.3 no \"%s\" (see %s)", want, log);
    CHECK(file_contains(log, "w.0002.obj:2: bad number ('zero')"),
          "2.4 the OBJ file and line are not named (see %s)", log);
    return check_done("scene_sequence_errors_name_scene");
}
