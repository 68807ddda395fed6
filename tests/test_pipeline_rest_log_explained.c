/* Property: with resting snow (sim.rest), each frame's log line says what its counts
 * are: how many particles the frame's last step stepped, that the others rest
 * unstepped, and over which frames the share of particle steps taken runs: from the
 * frame where this run began, which a resumed run names as its own first frame (the
 * share restarts there, and the words say so). It read "N of M particles stepped
 * (P % so far)", and "so far" silently restarted on every resume. Exact words, no
 * tolerance.
 *
 * Cases: 1. the tiny shot with sim.rest simulated to frame 2: the lines explain the
 * counts and name frame 1, the first this run stepped (frame 0 is seeded); 2. resumed
 * to frame 4: frame 3's and frame 4's lines name frame 3; 3. no line keeps "so far". */
#include "check.h"
#include "pipeline_fixture.h"

int main(void)
{
    const char *dir = fixture_dir("pipeline_rest_log_explained");
    char scene[4200], text[4096], edited[8192], log[4200], out[4200];
    snprintf(scene, sizeof scene, "%s/rest.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(text, sizeof text, tiny_scene_json, 4);
    const char *at = strstr(text, "\"colliders\"");
    CHECK(at != NULL, "the fixture scene has no colliders");
    if (!at) return check_done("pipeline_rest_log_explained");
    snprintf(edited, sizeof edited, "%.*s\"rest\": {\"speed\": 0.05},\n    %s",
             (int)(at - text), text, at);
    fixture_write(scene, edited);

    /* 1. a fresh run to frame 2 */
    snprintf(log, sizeof log, "%s/first.log", dir);
    const char *sim[] = {"sim", scene, "--output", out, "--frames", "0-2", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "1.1 powder sim: exit %d (see %s)", rc, log);
    CHECK(file_contains(log, "particles stepped at the frame's end (the others rest, not "
                             "stepped); "),
          "1.2 the counts are not explained (see %s)", log);
    CHECK(file_contains(log, "% of particle steps taken since frame 1, where this run began"),
          "1.3 the share does not name frame 1, the first this run stepped (see %s)", log);

    /* 2. resumed: the share starts again, and says where */
    snprintf(log, sizeof log, "%s/resumed.log", dir);
    const char *more[] = {"sim", scene, "--output", out, "--frames", "0-4", NULL};
    rc = powder_run(log, more);
    CHECK(rc == 0, "2.1 the resumed powder sim: exit %d (see %s)", rc, log);
    CHECK(file_contains(log, "resuming after frame 2"), "2.2 the run did not resume (see %s)",
          log);
    CHECK(file_contains(log, "% of particle steps taken since frame 3, where this run began"),
          "2.3 the resumed share does not name frame 3 (see %s)", log);
    CHECK(!file_contains(log, "since frame 1"), "2.4 the resumed run claims frame 1 (see %s)",
          log);

    /* 3. "so far" is gone */
    CHECK(!file_contains(log, "so far"), "3.1 a line still says \"so far\" (see %s)", log);
    return check_done("pipeline_rest_log_explained");
}
