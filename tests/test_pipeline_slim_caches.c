/* Property: slim render caches (output.checkpoint_every). The tiny shot,
 * frames 0-8, is run twice: every frame a full checkpoint (A), and checkpoint_every 4
 * (B: frames 0, 4, 8 full, the others slim).
 *   1. the slim frames are at least 4x smaller on disk than the same frames of A;
 *   2. B's checkpoints hold the same bytes as A's (the setting changes what is stored,
 *      not what is simulated), and the sim hash is the same;
 *   3. B's frames render the same image as A's within half-float precision (relative
 *      1e-3 of the pixel's value, or 1e-4 absolute);
 *   4. after frames 6-8 are deleted, `powder sim` resumes from checkpoint 4 and writes
 *      the same bytes for 5-8; with the checkpoints 4 and 8 deleted it resumes from 0,
 *      never from a slim frame, and again writes the same bytes;
 *   5. pw_sim_load refuses a slim cache, naming it; `powder stats` reads slim frames
 *      (and reports no elastic energy there, but the density the slim cache stores: the
 *      full frame's median within float32 rounding); `powder export ply` of a slim frame
 *      gives the same file as of the full frame. */
#include <math.h>

#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"
#include "pw_sim.h"

enum { LAST = 8, EVERY = 4 };

/* The number after "key": in a file of `powder stats --json`; NAN when absent or null. */
static double json_number(const char *path, const char *key)
{
    char text[8192] = "", needle[64];
    FILE *fp = fopen(path, "r");
    if (fp) {
        text[fread(text, 1, sizeof text - 1, fp)] = '\0';
        fclose(fp);
    }
    snprintf(needle, sizeof needle, "\"%s\": ", key);
    const char *at = strstr(text, needle);
    if (!at) return NAN;
    char *end;
    double v = strtod(at + strlen(needle), &end);
    return end == at + strlen(needle) ? NAN : v;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void cache_path(char *out, size_t n, const char *dir, int f)
{
    snprintf(out, n, "%s/cache/tiny.%04d.pwc", dir, f);
}

static int is_slim(const char *path)
{
    pw_cache_info info;
    pw_error err = {0};
    if (pw_cache_stat(path, &info, &err) != PW_OK) return -1;
    return pw_cache_info_global(&info, PW_CACHE_SLIM, 0) != 0;
}

/* The largest difference between two EXR frames, relative to half precision. */
static double frame_difference(const char *a, const char *b)
{
    int wa, ha, wb, hb;
    float *pa = NULL, *pb = NULL;
    pw_error err = {0};
    double worst = INFINITY;
    if (pw_exr_read_rgba(a, &wa, &ha, &pa, &err) == PW_OK &&
        pw_exr_read_rgba(b, &wb, &hb, &pb, &err) == PW_OK && wa == wb && ha == hb) {
        worst = 0;
        for (int k = 0; k < 4 * wa * ha; k++) {
            double d = fabs((double)pa[k] - pb[k]) / (1e-3 * fabs((double)pa[k]) + 1e-4);
            worst = fmax(worst, d);
        }
    }
    free(pa);
    free(pb);
    return worst;
}

int main(void)
{
    const char *dir = fixture_dir("slim_caches");
    char scene_a[4096], scene_b[4096], out_a[4096], out_b[4096], log[4096], path[4096];
    snprintf(scene_a, sizeof scene_a, "%s", fixture_scene(dir, "a.json", LAST));
    /* B: the same shot with output.checkpoint_every */
    char text[sizeof tiny_scene_json + 128];
    snprintf(text, sizeof text, tiny_scene_json, LAST);
    char *end = strrchr(text, '}');
    if (end) snprintf(end, sizeof text - (size_t)(end - text), ",\n  \"output\": "
                      "{\"checkpoint_every\": %d}\n}\n", EVERY);
    snprintf(scene_b, sizeof scene_b, "%s/b.json", dir);
    fixture_write(scene_b, text);
    snprintf(out_a, sizeof out_a, "%s/a", dir);
    snprintf(out_b, sizeof out_b, "%s/b", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    const char *run_a[] = {"run", scene_a, "--output", out_a, "--quiet", NULL};
    const char *run_b[] = {"run", scene_b, "--output", out_b, "--quiet", NULL};
    CHECK(powder_run(log, run_a) == 0, "run A failed (see %s)", log);
    CHECK(powder_run(log, run_b) == 0, "run B failed (see %s)", log);

    /* 1, 2 */
    long full_bytes = 0, slim_bytes = 0;
    char pa[4096], pb[4096];
    for (int f = 0; f <= LAST; f++) {
        cache_path(pa, sizeof pa, out_a, f);
        cache_path(pb, sizeof pb, out_b, f);
        int want_slim = f % EVERY != 0 && f != LAST;
        CHECK(is_slim(pa) == 0, "A frame %d is not a full checkpoint", f);
        CHECK(is_slim(pb) == want_slim, "B frame %d: slim %d, expected %d", f, is_slim(pb),
              want_slim);
        if (want_slim) {
            full_bytes += file_size(pa);
            slim_bytes += file_size(pb);
        } else {
            CHECK(same_bytes(pa, pb), "B's checkpoint %d differs from A's", f);
        }
    }
    double ratio = slim_bytes > 0 ? (double)full_bytes / (double)slim_bytes : 0;
    printf("slim frames: %ld bytes, the same frames full: %ld bytes, %.2fx smaller\n",
           slim_bytes, full_bytes, ratio);
    CHECK(ratio >= 4, "slim caches only %.2fx smaller", ratio);

    /* 3 */
    double worst = 0;
    for (int f = 0; f <= LAST; f++) {
        snprintf(pa, sizeof pa, "%s/tiny.%04d.exr", out_a, f);
        snprintf(pb, sizeof pb, "%s/tiny.%04d.exr", out_b, f);
        worst = fmax(worst, frame_difference(pa, pb));
    }
    printf("renders of slim vs full caches: largest difference %.3g of the tolerance\n", worst);
    CHECK(worst <= 1, "slim and full renders differ by %.3g of the tolerance", worst);

    /* 4: keep copies, delete frames 6-8, resume */
    char copy[4096], cmd[9000];
    snprintf(copy, sizeof copy, "%s/b_cache_copy", dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s/cache' '%s'", out_b, copy);
    CHECK(system(cmd) == 0, "copy");
    for (int f = 6; f <= LAST; f++) {
        cache_path(pb, sizeof pb, out_b, f);
        remove(pb);
    }
    char log2[4096];
    snprintf(log2, sizeof log2, "%s/resume.txt", dir);
    const char *sim_b[] = {"sim", scene_b, "--output", out_b, NULL};
    CHECK(powder_run(log2, sim_b) == 0, "resume failed (see %s)", log2);
    CHECK(file_contains(log2, "resuming after frame 4"), "did not resume from checkpoint 4");
    for (int f = 5; f <= LAST; f++) {
        cache_path(pb, sizeof pb, out_b, f);
        snprintf(pa, sizeof pa, "%s/tiny.%04d.pwc", copy, f);
        CHECK(same_bytes(pa, pb), "frame %d after the resume differs", f);
    }
    /* only slim frames left after 0: the resume starts at 0 */
    for (int f = EVERY; f <= LAST; f += EVERY) {
        cache_path(pb, sizeof pb, out_b, f);
        remove(pb);
    }
    char log3[4096];
    snprintf(log3, sizeof log3, "%s/resume0.txt", dir);
    CHECK(powder_run(log3, sim_b) == 0, "second resume failed (see %s)", log3);
    CHECK(file_contains(log3, "resuming after frame 0"), "did not resume from checkpoint 0");
    for (int f = 1; f <= LAST; f++) {
        cache_path(pb, sizeof pb, out_b, f);
        snprintf(pa, sizeof pa, "%s/tiny.%04d.pwc", copy, f);
        CHECK(same_bytes(pa, pb), "frame %d after resuming from 0 differs", f);
    }

    /* 5 */
    cache_path(pb, sizeof pb, out_b, 5);
    pw_sim_params params;
    pw_sim_params_default(&params);
    params.h = 0.02;
    params.domain_min = v3(-0.3, -0.1, -0.3);
    params.domain_max = v3(0.3, 0.5, 0.3);
    pw_error err = {0};
    pw_sim *sim = pw_sim_create(&params, &err);
    CHECK(sim != NULL, "create: %s", err.msg);
    if (sim) {
        CHECK(pw_sim_load(sim, pb, &err) != PW_OK && strstr(err.msg, "slim") &&
                  strstr(err.msg, "tiny.0005.pwc"),
              "a slim cache was loaded, or the message does not say why: %s", err.msg);
        pw_sim_destroy(sim);
    }
    char log4[4096];
    snprintf(log4, sizeof log4, "%s/stats.txt", dir);
    const char *stats[] = {"stats", scene_b, "--output", out_b, "--frames", "5", "--json", NULL};
    CHECK(powder_run(log4, stats) == 0, "stats of a slim frame failed (see %s)", log4);
    CHECK(file_contains(log4, "\"elastic_energy\": null"), "slim frame's elastic energy shown");
    double rho_slim = json_number(log4, "rho_median");
    char log5[4096];
    snprintf(log5, sizeof log5, "%s/stats_a.txt", dir);
    const char *stats_a[] = {"stats", scene_a, "--output", out_a, "--frames", "5", "--json", NULL};
    CHECK(powder_run(log5, stats_a) == 0, "stats of a full frame failed (see %s)", log5);
    double rho_full = json_number(log5, "rho_median");
    CHECK(rho_full > 100 && fabs(rho_slim - rho_full) <= 1e-6 * rho_full,
          "slim frame's median density %g, the full frame's %g (%s, %s)", rho_slim, rho_full,
          log4, log5);
    const char *ply_b[] = {"export", "ply", scene_b, "--output", out_b, "--frames", "5-6", NULL};
    int rc = powder_run(log4, ply_b);
    CHECK(rc == 0, "PLY export of slim frames exited %d (see %s)", rc, log4);
    snprintf(path, sizeof path, "%s/tiny.0005.ply", out_b);
    CHECK(file_size(path) > 900 * 32, "no PLY of slim frame 5 (%s)", path);
    /* the slim cache's float32 values are the PLY's: the same file as from the full one */
    const char *ply_a[] = {"export", "ply", scene_a, "--output", out_a, "--frames", "5", NULL};
    CHECK(powder_run(log4, ply_a) == 0, "PLY export of A failed");
    snprintf(pa, sizeof pa, "%s/tiny.0005.ply", out_a);
    CHECK(same_bytes(pa, path), "PLY of the slim frame differs from the full frame's");
    return check_done("pipeline_slim_caches");
}
