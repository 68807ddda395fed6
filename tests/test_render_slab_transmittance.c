/* Property: light through a homogeneous non-scattering slab is attenuated by
 * exp(-sigma_t d) (Beer-Lambert), for optical depths tau = sigma_t d in {0.25, 1, 2}.
 *
 * The slab is a lattice of equal particles, spacing h, 4 layers thick. By the B-spline
 * partition of unity its rasterized density is uniform across the slab and, along z,
 * the trilinear profile integrates exactly to m * layers / h^2, so the optical depth of
 * a ray with direction cosine mu to the normal is tau / mu exactly, ramps at the faces
 * included. With albedo 0 a camera ray either collides (black) or reaches the sky, so
 *   1. each image's mean of pixel / (L exp(-tau/mu)) is 1 within 1% and within 3
 *      binomial standard errors (1M samples: sigma <= 0.25% at tau = 2);
 *   2. every pixel is within 5 binomial standard errors of its expectation;
 *   3. mean alpha = 1 - exp(-tau/mu) within 3 standard errors;
 *   4. the ratio tracker's estimate of the transmittance (what shadow rays use), with
 *      and without Russian roulette, is exp(-tau) within 1% and 3 standard errors;
 *   5. the deterministic quadrature (the denoiser's sun guide) gives tau within 0.1 %,
 *      and where it stops at half of it, the depth from there on is the other half;
 *   6. the denoiser's sun feature (the features AOV) under a sun 60 degrees from the
 *      normal: the density depends on z alone, so from where a camera ray of direction
 *      cosine mu_v reaches optical depth tau_g the sun's path has depth tau_g mu_v / mu_s,
 *      and every pixel's sun.T is exp(-tau_g mu_v / mu_s) within 0.5 % (slabs deeper
 *      than tau_g; tau_g = 0.35, as in render/tracer.c; measured 0.15 % and 0.30 %: the
 *      midpoint rule's steps, a quarter and a half spacing, across the faces' ramps). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "density.h"
#include "pw_render.h"
#include "slab_fixture.h"

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    const double taus[3] = {0.25, 1.0, 2.0};
    const double h = 0.01, sigma_t_ref = 724.0, rho_ref = 400.0;
    const int layers = 4, side = 40;
    size_t n = (size_t)side * side * layers;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    vec3 L = v3(1.0, 2.0, 0.5);
    for (int ti = 0; ti < 3; ti++) {
        double tau = taus[ti];
        double rho = tau / (sigma_t_ref / rho_ref * layers * h); /* [kg/m^3] */
        slab_lattice(side, layers, h, rho, x, m);
        pw_error err = {0};
        pw_density *d = pw_density_rasterize(x, m, n, h, 1, &err);
        CHECK(d != NULL, "rasterize: %s", err.msg);
        if (!d) break;

        /* 1-3. camera through the slab at a uniform sky */
        pw_camera_desc cam = {v3(0, 0, 1.0), v3(0, 0, 0), v3(0, 1, 0), 2.0, 16, 16, 0, 0};
        pw_medium_desc md = {sigma_t_ref, rho_ref, v3(0, 0, 0), 0.5};
        pw_lights_desc lights = {0};
        lights.sky_radiance = L;
        pw_render_settings rs = {0};
        rs.spp = sanitized ? 256 : 4096;
        rs.max_depth = 1000;
        rs.rr_start_depth = 3;
        rs.seed = 3 + ti;
        pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
        CHECK(r != NULL, "create: %s", err.msg);
        pw_image img;
        if (!r || pw_render_frame(r, d, &img, NULL, NULL, NULL, &err) != PW_OK) {
            CHECK(0, "render: %s", err.msg);
            pw_renderer_destroy(r);
            pw_density_destroy(d);
            break;
        }
        double tan_half = tan(1.0 * 3.14159265358979 / 180.0);
        double ratio = 0, alpha = 0, expect_alpha = 0, var_ratio = 0, worst_z = 0;
        int npix = 16 * 16;
        for (int py = 0; py < 16; py++)
            for (int px = 0; px < 16; px++) {
                double sx = (2 * (px + 0.5) / 16 - 1) * tan_half, sy = (1 - 2 * (py + 0.5) / 16) * tan_half;
                double mu = 1.0 / sqrt(1 + sx * sx + sy * sy);
                double T = exp(-tau / mu);
                const float *q = img.rgba + 4 * (py * 16 + px);
                for (int c = 0; c < 3; c++) {
                    double v = q[c] / (v3_get(L, c) * T);
                    double z = (v - 1) / sqrt((1 - T) / (T * rs.spp));
                    if (fabs(z) > worst_z) worst_z = fabs(z);
                }
                ratio += q[1] / (L.y * T);
                var_ratio += (1 - T) / (T * rs.spp);
                alpha += q[3];
                expect_alpha += 1 - T;
            }
        ratio /= npix;
        double se = sqrt(var_ratio) / npix;
        double se_alpha = sqrt(expect_alpha / npix * (1 - expect_alpha / npix) / (npix * rs.spp));
        alpha /= npix;
        expect_alpha /= npix;
        CHECK(fabs(ratio - 1) <= 3 * se, "tau %g: image/expected %.5f is %.2f se off", tau, ratio,
              fabs(ratio - 1) / se);
        if (!sanitized) CHECK(fabs(ratio - 1) <= 0.01, "tau %g: image/expected %.5f", tau, ratio);
        CHECK(worst_z <= 5, "tau %g: a pixel is %.2f sigma off", tau, worst_z);
        CHECK(fabs(alpha - expect_alpha) <= 3 * se_alpha, "tau %g: alpha %.5f vs %.5f", tau,
              alpha, expect_alpha);
        printf("tau %.2f: image/(L exp(-tau/mu)) = %.5f (%.2f se), worst pixel %.2f sigma, "
               "alpha %.5f vs %.5f\n", tau, ratio, fabs(ratio - 1) / se, worst_z, alpha,
               expect_alpha);
        pw_image_free(&img);
        pw_renderer_destroy(r);

        /* 4. ratio tracking directly, along -z through the slab centre region */
        for (int rr = 0; rr < 2; rr++) {
            double thr = rr ? 0.1 : 0.0;
            int nt = sanitized ? 100000 : 1000000;
            pw_rng rng = pw_rng_seed(77, (uint64_t)ti, (uint64_t)rr);
            double s1 = 0, s2 = 0;
            for (int k = 0; k < nt; k++) {
                vec3 o = v3(0.1 * (pw_rng_next(&rng) - 0.5), 0.1 * (pw_rng_next(&rng) - 0.5), 0.5);
                double T = pw_medium_transmittance(d, sigma_t_ref / rho_ref, o, v3(0, 0, -1), 0.0,
                                                   INFINITY, thr, &rng);
                s1 += T;
                s2 += T * T;
            }
            double mean = s1 / nt, se_t = sqrt((s2 / nt - mean * mean) / nt), T = exp(-tau);
            CHECK(fabs(mean - T) <= 3 * se_t + 1e-12, "tau %g rr %g: ratio tracking %.6f vs %.6f "
                  "(%.2f se)", tau, thr, mean, T, fabs(mean - T) / se_t);
            if (!sanitized) CHECK(fabs(mean / T - 1) <= 0.01, "tau %g rr %g: ratio tracking %.6f "
                                  "vs %.6f", tau, thr, mean, T);
            printf("          ratio tracking (rr threshold %.1f): %.6f vs exp(-tau) %.6f "
                   "(%.2f se)\n", thr, mean, T, se_t > 0 ? fabs(mean - T) / se_t : 0.0);
        }
        /* 5. the midpoint rule, a quarter spacing a step, and its stopping point */
        {
            double spr = sigma_t_ref / rho_ref, t_half, t_none;
            vec3 o = v3(0.013, -0.021, 0.5), dir = v3(0, 0, -1);
            double q = pw_medium_optical_depth(d, spr, o, dir, 0.0, INFINITY, 0.25 * h,
                                               100.0, &t_none);
            double half = pw_medium_optical_depth(d, spr, o, dir, 0.0, INFINITY, 0.25 * h,
                                                  0.5 * tau, &t_half);
            double rest = pw_medium_optical_depth(d, spr, v3_madd(o, dir, t_half), dir, 0.0,
                                                  INFINITY, 0.25 * h, 100.0, NULL);
            CHECK(fabs(q / tau - 1) <= 1e-3, "tau %g: quadrature %.6f", tau, q);
            CHECK(isinf(t_none), "tau %g: stopped at %g short of a depth it never reaches", tau,
                  t_none);
            CHECK(half == 0.5 * tau && fabs(rest / (0.5 * tau) - 1) <= 2e-3,
                  "tau %g: stopped at %.6f, %.6f after it", tau, half, rest);
            printf("          quadrature: %.6f; stopped at half, %.6f after (of %.6f)\n", q,
                   rest, 0.5 * tau);
        }
        /* 6. the sun guide through the features AOV */
        if (tau > 0.35) {
            pw_camera_desc cam = {v3(0, 0, 1.0), v3(0, 0, 0), v3(0, 1, 0), 2.0, 8, 8, 0, 0};
            pw_medium_desc md = {sigma_t_ref, rho_ref, v3(0.5, 0.5, 0.5), 0.5};
            pw_lights_desc lights = {0};
            const double mu_s = 0.5;
            lights.sun_direction = v3(sqrt(1 - mu_s * mu_s), 0, mu_s);
            lights.sun_angular_diameter_deg = 0.53;
            lights.sun_irradiance = v3(1, 1, 1);
            pw_render_settings rs = {0};
            rs.spp = 8;
            rs.max_depth = 4;
            rs.rr_start_depth = 3;
            rs.seed = 11;
            rs.aov_features = 1;
            pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
            pw_image img;
            if (r && pw_render_frame(r, d, &img, NULL, NULL, NULL, &err) == PW_OK) {
                double worst = 0;
                for (int py = 0; py < 8; py++)
                    for (int px = 0; px < 8; px++) {
                        double sx = (2 * (px + 0.5) / 8 - 1) * tan_half;
                        double sy = (1 - 2 * (py + 0.5) / 8) * tan_half;
                        double mu_v = 1.0 / sqrt(1 + sx * sx + sy * sy);
                        double expect = exp(-0.35 * mu_v / mu_s);
                        double rel = fabs(img.sun[py * 8 + px] / expect - 1);
                        if (rel > worst) worst = rel;
                    }
                CHECK(worst <= 5e-3, "tau %g: sun guide off by %.5f", tau, worst);
                printf("          sun guide: worst pixel %.5f from exp(-tau_g mu_v / mu_s) = "
                       "%.5f\n", worst, exp(-0.35 / mu_s));
                pw_image_free(&img);
            } else {
                CHECK(0, "sun guide render: %s", err.msg);
            }
            pw_renderer_destroy(r);
        }
        pw_density_destroy(d);
    }
    free(x);
    free(m);
    return check_done("render_slab_transmittance");
}
