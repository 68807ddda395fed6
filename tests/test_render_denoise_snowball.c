/* Property: on a real render, the denoised image is closer to the converged one than
 * the unfiltered image of the same samples, on the whole frame, on the snow and along
 * the snow's outline, and keeps the snow's mean.
 * The scene tests/data/scenes/tiny_snowball_drop.json at its first frame (the seeded
 * snowball, about 900 particles, bounded raster), at 96 x 54, with a sun added to its
 * sky (the sky alone lights the ball almost evenly and leaves little noise to remove).
 * relMSE = mean over pixels and channels of (x - ref)^2 / (ref^2 + 0.01), against
 * 256 spp (whose own noise adds the same to both sides; POWDER_DENOISE_REF_SPP sets
 * another, for the figures of render/docs/denoiser.md):
 *   1. denoised 16 spp at most half the unfiltered 16 spp's relMSE, on the frame and on
 *      the snow (reference alpha > 0.01);
 *   2. along the outline (pixels within 2 px of one whose reference alpha differs by
 *      more than 0.5), the denoised relMSE at most the unfiltered's;
 *   3. the denoised mean over the snow within 1 % of the reference's;
 *   4. the EXR of a denoised render holds the filtered image as RGBA (read back equal)
 *      and the unfiltered one as noisy.R/G/B/A, stored as RGBA is (float here);
 *   5. the unfiltered buffer is the same bytes as a render without the denoiser (it
 *      takes the same samples), and the denoised image the same on 1 and 2 threads;
 *   6. the features as AOVs without the denoiser leave the beauty as it is, and the
 *      EXR carries normal.X/Y/Z and sun.T;
 * and it prints the unfiltered 64 spp figures beside them (render/docs/denoiser.md). */
#include <math.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exr.h"
#include "exr_channels.h"
#include "pw_render.h"
#include "scene.h"
#include "seed.h"

#define W 96
#define H 54
#define NPIX (W * H)

static int render(const pw_scene *sc, const pw_density *d, int spp, int denoise, int threads,
                  pw_image *out, pw_render_stats *st)
{
    pw_render_settings rs = sc->render;
    rs.spp = spp;
    rs.threads = threads;
    rs.denoise = denoise;
    rs.seed = 7;
    pw_camera_desc cam = sc->camera;
    cam.width_px = W, cam.height_px = H;
    /* framed on the ball, so that the snow fills most of the frame */
    cam.target = v3(0.05, 0.12, -0.03);
    cam.fov_deg = 16;
    pw_error err = {0};
    pw_renderer *r = pw_renderer_create(&rs, &cam, &sc->medium, &sc->lights, NULL, &err);
    CHECK(r != NULL, "create: %s", err.msg);
    if (!r) return 0;
    pw_status rc = pw_render_frame(r, d, out, NULL, NULL, st, &err);
    CHECK(rc == PW_OK, "render: %s", err.msg);
    pw_renderer_destroy(r);
    return rc == PW_OK;
}

/* relMSE over the pixels where mask is set (NULL: all) */
static double rel_mse(const float *x, const float *ref, const unsigned char *mask)
{
    double s = 0;
    long n = 0;
    for (int q = 0; q < NPIX; q++) {
        if (mask && !mask[q]) continue;
        for (int ch = 0; ch < 3; ch++) {
            double e = x[4 * q + ch] - ref[4 * q + ch];
            s += e * e / (ref[4 * q + ch] * (double)ref[4 * q + ch] + 0.01);
        }
        n += 3;
    }
    return n ? s / n : 0;
}

static double mean_lum(const float *x, const unsigned char *mask)
{
    double s = 0;
    long n = 0;
    for (int q = 0; q < NPIX; q++)
        if (mask[q]) s += 0.2126 * x[4 * q] + 0.7152 * x[4 * q + 1] + 0.0722 * x[4 * q + 2], n++;
    return n ? s / n : 0;
}

int main(void)
{
    pw_error err = {0};
    pw_scene *sc = calloc(1, sizeof *sc);
    if (!sc) return 3;
    pw_status rc = pw_scene_load(POWDER_SOURCE_DIR "/tests/data/scenes/tiny_snowball_drop.json",
                                 sc, &err);
    CHECK(rc == PW_OK, "scene: %s", err.msg);
    if (rc != PW_OK) return check_done("render_denoise_snowball");
    sc->lights.sun_direction = v3_normalize(v3(-0.4, 0.8, 0.45));
    sc->lights.sun_angular_diameter_deg = 0.53;
    sc->lights.sun_irradiance = v3(3, 2.9, 2.7);

    /* the first frame's particles: the seeded bodies */
    size_t n = 0;
    double *x = NULL, *m = NULL;
    for (int b = 0; b < sc->n_bodies; b++) {
        pw_seeded s;
        memset(&s, 0, sizeof s);
        rc = pw_seed_body(&sc->bodies[b], &sc->materials[sc->body_material[b]], sc->sim.h, &s,
                          &err);
        CHECK(rc == PW_OK, "seed: %s", err.msg);
        if (rc != PW_OK) return check_done("render_denoise_snowball");
        x = realloc(x, 3 * (n + s.n) * sizeof *x);
        m = realloc(m, (n + s.n) * sizeof *m);
        for (size_t p = 0; p < s.n; p++) {
            x[3 * (n + p)] = s.x[p].x, x[3 * (n + p) + 1] = s.x[p].y, x[3 * (n + p) + 2] = s.x[p].z;
            m[n + p] = s.m[p];
        }
        n += s.n;
        pw_seeded_free(&s);
    }
    pw_density *d = pw_density_build((pw_raster_kind)sc->render.raster, x, m, NULL, n, sc->sim.h,
                                     sc->render.subdiv, 0.0, &err);
    CHECK(d != NULL, "density: %s", err.msg);
    if (!d) return check_done("render_denoise_snowball");

    pw_image ref, img16, img64;
    pw_render_stats st16;
    int ref_spp = getenv("POWDER_DENOISE_REF_SPP") ? atoi(getenv("POWDER_DENOISE_REF_SPP")) : 256;
    if (ref_spp < 64) ref_spp = 64;
    if (!render(sc, d, ref_spp, 0, 0, &ref, NULL) || !render(sc, d, 16, 1, 1, &img16, &st16) ||
        !render(sc, d, 64, 0, 0, &img64, NULL))
        return check_done("render_denoise_snowball");
    CHECK(img16.noisy != NULL, "no noisy buffer with denoise on");
    if (!img16.noisy) return check_done("render_denoise_snowball");

    /* the snow, and its outline */
    static unsigned char snow[NPIX], edge[NPIX];
    for (int q = 0; q < NPIX; q++) snow[q] = ref.rgba[4 * q + 3] > 0.01f;
    for (int y = 0; y < H; y++)
        for (int xx = 0; xx < W; xx++) {
            float a = ref.rgba[4 * (y * W + xx) + 3];
            for (int dy = -2; dy <= 2; dy++)
                for (int dx = -2; dx <= 2; dx++) {
                    int yy = y + dy, x2 = xx + dx;
                    if (yy < 0 || yy >= H || x2 < 0 || x2 >= W) continue;
                    /* a neighbour across a step in coverage */
                    for (int sy = 0; sy <= 1; sy++) {
                        int y3 = yy + sy, x3 = x2 + 1 - sy;
                        if (y3 >= H || x3 >= W) continue;
                        if (fabsf(ref.rgba[4 * (yy * W + x2) + 3] - ref.rgba[4 * (y3 * W + x3) + 3]) > 0.5f)
                            edge[y * W + xx] = 1;
                    }
                }
            (void)a;
        }
    int n_snow = 0, n_edge = 0;
    for (int q = 0; q < NPIX; q++) n_snow += snow[q], n_edge += edge[q];

    const unsigned char *masks[3] = {NULL, snow, edge};
    const char *names[3] = {"frame", "snow", "outline"};
    double e_noisy[3], e_den[3], e_64[3];
    for (int k = 0; k < 3; k++) {
        e_noisy[k] = rel_mse(img16.noisy, ref.rgba, masks[k]);
        e_den[k] = rel_mse(img16.rgba, ref.rgba, masks[k]);
        e_64[k] = rel_mse(img64.rgba, ref.rgba, masks[k]);
        printf("%-8s relMSE: 16 spp %.5f, denoised %.5f (%.1fx lower), 64 spp %.5f\n", names[k],
               e_noisy[k], e_den[k], e_noisy[k] / e_den[k], e_64[k]);
    }
    printf("%d snow pixels, %d on the outline; denoiser %.3f s of %.3f s\n", n_snow, n_edge,
           st16.denoise_seconds, st16.seconds);
    CHECK(n_snow > 100 && n_edge > 20, "too little snow in frame (%d, %d)", n_snow, n_edge);
    CHECK(e_den[0] * 2 <= e_noisy[0], "frame: %g against %g", e_den[0], e_noisy[0]);
    CHECK(e_den[1] * 2 <= e_noisy[1], "snow: %g against %g", e_den[1], e_noisy[1]);
    CHECK(e_den[2] <= e_noisy[2], "outline: %g against %g", e_den[2], e_noisy[2]);
    double m_ref = mean_lum(ref.rgba, snow), m_den = mean_lum(img16.rgba, snow);
    printf("snow mean: reference %.5f, denoised %.5f (%+.2f %%), 16 spp %.5f\n", m_ref, m_den,
           100 * (m_den / m_ref - 1), mean_lum(img16.noisy, snow));
    CHECK(fabs(m_den / m_ref - 1) <= 0.01, "snow mean %g against %g", m_den, m_ref);

    /* 5. the unfiltered buffer is the render without the denoiser, and the denoised
     * image the same bytes on 1 and 2 threads */
    pw_image plain, two;
    if (render(sc, d, 16, 0, 2, &plain, NULL) && render(sc, d, 16, 1, 2, &two, NULL)) {
        CHECK(memcmp(plain.rgba, img16.noisy, 4 * NPIX * sizeof(float)) == 0,
              "the noisy buffer differs from a render without the denoiser");
        CHECK(memcmp(two.rgba, img16.rgba, 4 * NPIX * sizeof(float)) == 0,
              "the denoised image differs on 1 and 2 threads");
        pw_image_free(&plain), pw_image_free(&two);
    }

    /* 4. the EXR: filtered RGBA, unfiltered noisy layer, both as float */
    char path[4096];
    snprintf(path, sizeof path, "%s/render_denoise_snowball.exr", POWDER_TEST_TMP);
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = 1;
    rc = pw_exr_write(path, &img16, &o, &err);
    CHECK(rc == PW_OK, "exr: %s", err.msg);
    int w, h;
    float *back = NULL;
    rc = pw_exr_read_rgba(path, &w, &h, &back, &err);
    CHECK(rc == PW_OK && w == W && h == H, "read: %s", err.msg);
    if (rc == PW_OK)
        CHECK(memcmp(back, img16.rgba, 4 * NPIX * sizeof(float)) == 0, "RGBA is not the filtered");
    free(back);
    int found = exr_channels_count(path, exr_noisy_channels, EXR_PIXEL_FLOAT);
    CHECK(found == 4, "the EXR has %d of the four noisy channels", found);

    /* 6. the features as AOVs, without the denoiser: the same beauty, the normal a mean
     * of unit vectors on the snow, the sun's transmittance in [0, 1] on average, and the
     * EXR's normal.X/Y/Z and sun.T */
    pw_image feat;
    sc->render.aov_features = 1;
    if (render(sc, d, 16, 0, 1, &feat, NULL)) {
        CHECK(feat.normal && feat.sun, "no feature buffers with aovs \"features\"");
        CHECK(memcmp(feat.rgba, img16.noisy, 4 * NPIX * sizeof(float)) == 0,
              "gathering the features changed the beauty");
        double len = 0, sun = 0, bad = 0;
        for (int q = 0; q < NPIX && feat.normal; q++) {
            if (!snow[q]) continue;
            const float *nq = feat.normal + 3 * q;
            double l = sqrt((double)nq[0] * nq[0] + (double)nq[1] * nq[1] + (double)nq[2] * nq[2]);
            len += l / n_snow, sun += feat.sun[q] / n_snow;
            bad += l > 1.0001 || !(feat.sun[q] >= 0);
        }
        printf("features: snow's mean |normal| %.3f, mean sun transmittance %.3f\n", len, sun);
        CHECK(bad == 0 && len > 0.5 && sun > 0.05 && sun <= 1.0,
              "features: %g bad pixels, mean |n| %g, mean sun %g", bad, len, sun);
        char fpath[4096];
        snprintf(fpath, sizeof fpath, "%s/render_denoise_features.exr", POWDER_TEST_TMP);
        rc = pw_exr_write(fpath, &feat, &o, &err);
        CHECK(rc == PW_OK, "exr: %s", err.msg);
        static const char *const names[] = {"normal.X", "normal.Y", "normal.Z", "sun.T", NULL};
        found = exr_channels_count(fpath, names, EXR_PIXEL_HALF);
        CHECK(found == 4, "the EXR has %d of the four feature channels", found);
        pw_image_free(&feat);
    }
    sc->render.aov_features = 0;
    pw_image_free(&ref), pw_image_free(&img16), pw_image_free(&img64);
    pw_density_destroy(d);
    free(x), free(m), free(sc);
    return check_done("render_denoise_snowball");
}
