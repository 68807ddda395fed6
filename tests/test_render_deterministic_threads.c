/* Property: a frame is bit-identical for any thread count and tile schedule, because
 * every camera sample draws from its own RNG seeded by hash(seed, pixel, sample) and
 * each pixel sums its samples in order. Checked on a scene that exercises every path:
 * a scattering blob resting on a diffuse ground plane (Embree), sun, env map (written
 * to EXR and loaded back), AOVs on; rgba, depth and albedo compared byte for byte for
 * 1, 2 and 3 threads. Also:
 *   2. a different seed gives a different image (the seed reaches the samples);
 *   3. the progress callback is called once per tile, increasing, ending at 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "random_fixture.h"
#include "exr.h"
#include "pw_render.h"
#include "surfaces.h"

typedef struct {
    int calls;
    double last;
    int monotonic;
} progress_log;

static void on_progress(void *user, double f)
{
    progress_log *p = user;
    if (f < p->last) p->monotonic = 0;
    p->last = f;
    p->calls++;
}

static int same_image(const pw_image *a, const pw_image *b)
{
    size_t n = (size_t)a->width * a->height;
    return a->width == b->width && a->height == b->height &&
           memcmp(a->rgba, b->rgba, 4 * n * sizeof(float)) == 0 &&
           memcmp(a->depth, b->depth, n * sizeof(float)) == 0 &&
           memcmp(a->albedo, b->albedo, 3 * n * sizeof(float)) == 0;
}

int main(void)
{
    pw_error err = {0};
    /* blob of radius 4 cm sitting on y = 0 */
    size_t n = 4000;
    double *x, *m;
    rnd_blob(n, 0.04, 4e-5, 11, &x, &m);
    pw_density *d = pw_density_rasterize(x, m, n, 0.005, 1, &err);
    CHECK(d != NULL, "rasterize: %s", err.msg);

    /* env map 16 x 8, a bright band near the horizon */
    char env_path[1024];
    snprintf(env_path, sizeof env_path, "%s/deterministic_threads_env.exr", POWDER_TEST_TMP);
    float rgba[4 * 16 * 8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 16; j++) {
            float *c = rgba + 4 * (i * 16 + j);
            c[0] = 0.3f + (i == 3) * 2.0f, c[1] = 0.4f + 0.1f * j / 16, c[2] = 0.8f, c[3] = 1;
        }
    pw_image env = {16, 8, rgba, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pw_exr_options eo;
    pw_exr_options_default(&eo);
    eo.float_beauty = 1;
    CHECK(pw_exr_write(env_path, &env, &eo, &err) == PW_OK, "env write: %s", err.msg);

    pw_surface_desc ground;
    memset(&ground, 0, sizeof ground);
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.center = v3(0, 0, 0);
    ground.shape.normal = v3(0, 1, 0);
    ground.color = v3(0.7, 0.6, 0.5);
    pw_surfaces *surf = pw_surfaces_create(&ground, 1, 0.0, &err);
    CHECK(surf != NULL, "surfaces: %s", err.msg);

    pw_camera_desc cam = {v3(0.1, 0.08, 0.25), v3(0, 0.035, 0), v3(0, 1, 0), 30.0, 24, 16, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0.9, 0.95, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = v3(0.4, 0.8, 0.3);
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(3, 3, 2.8);
    snprintf(lights.envmap_path, sizeof lights.envmap_path, "%s", env_path);
    lights.envmap_intensity = 1.0;
    lights.envmap_rotation_deg = 20;
    pw_render_settings rs = {0};
    rs.spp = getenv("POWDER_SANITIZED") ? 2 : 8;
    rs.max_depth = 100000;
    rs.rr_start_depth = 8;
    rs.seed = 2024;
    rs.aov_depth = rs.aov_albedo = 1;

    pw_image img[4];
    memset(img, 0, sizeof img);
    const int threads[4] = {1, 2, 3, 2};
    progress_log plog = {0, 0, 1};
    pw_render_stats st = {0};
    for (int k = 0; k < 4; k++) {
        rs.threads = threads[k];
        if (k == 3) rs.seed = 2025;
        pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
        CHECK(r != NULL, "create: %s", err.msg);
        if (!r || !d) break;
        pw_status rc = pw_render_frame(r, d, &img[k], k == 1 ? on_progress : NULL, &plog,
                                       k == 1 ? &st : NULL, &err);
        CHECK(rc == PW_OK, "render with %d threads: %s", threads[k], err.msg);
        pw_renderer_destroy(r);
    }
    if (img[0].rgba && img[1].rgba && img[2].rgba && img[3].rgba) {
        CHECK(same_image(&img[0], &img[1]), "1 and 2 threads differ");
        CHECK(same_image(&img[0], &img[2]), "1 and 3 threads differ");
        CHECK(!same_image(&img[1], &img[3]), "seeds 2024 and 2025 give the same image");
        /* 3. progress: (24/16 -> 2) x (16/16 -> 1) = 2 tiles */
        CHECK(plog.calls == 2 && plog.monotonic && plog.last == 1.0,
              "progress: %d calls, last %g, monotonic %d", plog.calls, plog.last, plog.monotonic);
        double mean = 0, cover = 0;
        for (int q = 0; q < 24 * 16; q++) mean += img[0].rgba[4 * q + 1], cover += img[0].rgba[4 * q + 3];
        printf("mean green %.4f, alpha mean %.3f, %.1f events/path, %.0f samples/s\n",
               mean / (24 * 16), cover / (24 * 16), st.mean_scattering_events,
               st.samples_per_second);
    }
    for (int k = 0; k < 4; k++) pw_image_free(&img[k]);
    pw_surfaces_destroy(surf);
    pw_density_destroy(d);
    free(x);
    free(m);
    return check_done("render_deterministic_threads");
}
