/* Property (white furnace): a non-absorbing medium (albedo 1) lit by a uniform sky of
 * radiance L, with no surfaces, neither gains nor loses energy, so every pixel equals L
 * in expectation, whatever the density or the phase function. Checked for g in
 * {0, 0.5, -0.3} on a lumpy blob of optical radius ~4 (up to ~60 scattering events a
 * path) that fills most of the image:
 *   - every pixel within 1% of L (per channel; the measured pixel noise is ~0.2%);
 *   - the image mean within 3 standard errors of L (standard error from the spread of
 *     the pixels, which all share the expectation L);
 *   - alpha > 0 where the blob is, no path cut by the safety cap.
 * NEE with MIS makes each path's estimate noisy while its expectation is exact, so this
 * checks the phase-function normalisation, the sky pdf, the MIS weights and the tracking
 * together. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "pw_render.h"

static double urand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1p-53;
}

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    /* a blob of radius 5 cm with lumpy density: sigma_t up to ~150/m */
    size_t n = 6000;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    unsigned long long s = 5;
    for (size_t p = 0; p < n;) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = 0.05 * (2 * urand(&s) - 1);
        if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > 0.05 * 0.05) continue;
        for (int k = 0; k < 3; k++) x[3 * p + k] = q[k];
        m[p] = 6e-6 * (0.2 + urand(&s));
        p++;
    }
    pw_error err = {0};
    pw_density *d = pw_density_rasterize(x, m, n, 0.01, 1, &err);
    CHECK(d != NULL, "rasterize: %s", err.msg);
    if (!d) return check_done("render_white_furnace");

    pw_camera_desc cam = {v3(0, 0, 0.3), v3(0, 0, 0), v3(0, 1, 0), 18.0, 4, 4, 0, 0};
    pw_lights_desc lights = {0};
    lights.sky_radiance = v3(0.5, 1.0, 2.0);
    pw_render_settings rs = {0};
    rs.spp = sanitized ? 1024 : 32768;
    rs.max_depth = 100000;
    rs.rr_start_depth = 5;
    rs.seed = 17;
    rs.subdiv = 1;
    const double gs[3] = {0.0, 0.5, -0.3};
    for (int gi = 0; gi < 3; gi++) {
        pw_medium_desc md = {724.0, 400.0, v3(1, 1, 1), gs[gi]};
        pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
        CHECK(r != NULL, "create: %s", err.msg);
        if (!r) continue;
        pw_image img;
        pw_render_stats st;
        CHECK(pw_render_frame(r, d, &img, NULL, NULL, &st, &err) == PW_OK, "render: %s", err.msg);
        int npix = img.width * img.height;
        double worst = 0, sum[3] = {0}, sum2[3] = {0}, alpha = 0;
        for (int q = 0; q < npix; q++) {
            alpha += img.rgba[4 * q + 3];
            for (int c = 0; c < 3; c++) {
                double L = v3_get(lights.sky_radiance, c), v = img.rgba[4 * q + c];
                double rel = fabs(v - L) / L;
                if (rel > worst) worst = rel;
                sum[c] += v / L;
                sum2[c] += (v / L) * (v / L);
            }
        }
        double tol = sanitized ? 0.05 : 0.01;
        CHECK(worst <= tol, "g = %g: a pixel is %.3g%% off L", gs[gi], 100 * worst);
        for (int c = 0; c < 3; c++) {
            double mean = sum[c] / npix, se = sqrt((sum2[c] / npix - mean * mean) / (npix - 1));
            CHECK(fabs(mean - 1) <= 3 * se + 1e-6, "g = %g channel %d: mean/L %.5f, %.2f se",
                  gs[gi], c, mean, fabs(mean - 1) / se);
        }
        CHECK(alpha / npix > 0.3, "the blob covers %.2f of the image", alpha / npix);
        CHECK(st.paths_cut_by_cap == 0, "%llu paths cut", (unsigned long long)st.paths_cut_by_cap);
        printf("g = %+.1f: worst pixel %.3f%%, mean/L %.5f, coverage %.2f, %.1f events/path, "
               "%.2f s\n", gs[gi], 100 * worst, sum[1] / npix, alpha / npix,
               st.mean_scattering_events, st.seconds);
        pw_image_free(&img);
        pw_renderer_destroy(r);
    }
    pw_density_destroy(d);
    free(x);
    free(m);
    return check_done("render_white_furnace");
}
