/* bench_render_snowball — one frame of a snowball on a ground plane: rasterization
 * (stage 2) and path tracing (stage 3) timed separately.
 *
 *   bench_render_snowball [cache.pwc] [--size WxH] [--spp N] [--subdiv S] [--threads T]
 *                         [--raster bspline|bounded] [--exr out.exr] [--png preview.png]
 *                         [--seed S] [--efficiency] [--daylight ELEVATION]
 *                         [--sky-samples] [--noise-target T] [--min-spp M]
 *                         [--reference-spp N]
 *
 * --raster defaults to bspline (subdiv 1), the raster of the figures in the README;
 * bounded (the shots' default) has subdiv 4 unless --subdiv says otherwise.
 *
 * With a cache file the particles are its "x" (F64x3) and "m" (F64) attributes and its
 * grid spacing; without one, 3e5 particles at 8 per cell (h = 0.01 m, rho = 400 kg/m^3)
 * fill a sphere resting on y = 0. Defaults: 640x360, 64 spp, sun + sky, the paper's
 * medium (sigma_t 724 /m, albedo 0.9/0.95/1, g 0.5). --daylight lights it instead as the
 * shipped scenes are: Preetham sun and sky, the sun ELEVATION degrees up from the same
 * azimuth, turbidity 3, scaled by 1/32 (the scenes' png_exposure of about -5).
 * --sky-samples light-samples the daylight sky as well (off by default: lights.h).
 *
 * --efficiency renders the frame a second time with seed + 1 and prints the noise
 * figures of render/docs/noise.md: variance per pixel and channel estimated as the mean of
 * (A - B)^2 / 2 over the two renders, and efficiency = 1 / (variance x seconds), over
 * the whole image and over the snow's pixels (those whose first event is in the medium,
 * by the albedo AOV), with the two renders' mean wall time. It also prints the snow's
 * relative standard deviation of luminance, the measure of render/docs/ice-optics.md: per pixel, the RMS
 * over the snow's pixels of |Y1 - Y2| / (sqrt(2) Y), and of the whole, the RMS of
 * (Y1 - Y2) / sqrt(2) over the RMS of Y. Y is the two renders' mean, or the reference's
 * with --reference-spp N: a third render, seed 77, N spp fixed, whose image mean the two
 * renders' means are also compared with.
 * --noise-target T renders adaptively (render.noise_target; --spp is then the cap and
 * --min-spp the samples every pixel takes first, 16 unless given). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exr.h"
#include "png.h"
#include "pw_cache.h"
#include "pw_render.h"
#include "sampling.h"
#include "surfaces.h"
#include "bench_cpu.h"

static void progress(void *user, double f)
{
    int *last = user;
    int pct = (int)(f * 100);
    if (pct >= *last + 10 || (pct == 100 && *last < 100)) {
        *last = pct;
        fprintf(stderr, "\r  render %3d%%", pct);
        if (pct == 100) fputc('\n', stderr);
    }
}

static double luminance(const float *rgb)
{
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

/* 3e5 particles at 8 per cell in a sphere on the ground, hash-random positions. */
static size_t synth_snowball(double h, double **xo, double **mo, vec3 *centre, double *radius)
{
    const size_t n = 300000;
    const double ppc = 8, rho0 = 400;
    double volume = n / ppc * h * h * h;
    double r = cbrt(3 * volume / (4 * PW_PI));
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    *centre = v3(0, r, 0);
    pw_rng rng = pw_rng_seed(7, 0, 0);
    for (size_t p = 0; p < n;) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = r * (2 * pw_rng_next(&rng) - 1);
        if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > r * r) continue;
        x[3 * p] = q[0], x[3 * p + 1] = q[1] + r, x[3 * p + 2] = q[2];
        m[p] = rho0 * volume / n;
        p++;
    }
    *xo = x, *mo = m, *radius = r;
    return n;
}

int main(int argc, char **argv)
{
    const char *cache = NULL, *exr = NULL, *png = NULL;
    int width = 640, height = 360, spp = 64, subdiv = 0, threads = 0;
    pw_raster_kind raster = PW_RASTER_BSPLINE;
    unsigned long long seed = 1;
    int efficiency = 0;
    double daylight = 0; /* sun elevation [deg], 0: the constant sun and sky */
    int sky_samples = 0, min_spp = 16, reference_spp = 0;
    double noise_target = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--size") && a + 1 < argc) sscanf(argv[++a], "%dx%d", &width, &height);
        else if (!strcmp(argv[a], "--spp") && a + 1 < argc) spp = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--subdiv") && a + 1 < argc) subdiv = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--raster") && a + 1 < argc)
            raster = !strcmp(argv[++a], "bounded") ? PW_RASTER_BOUNDED : PW_RASTER_BSPLINE;
        else if (!strcmp(argv[a], "--exr") && a + 1 < argc) exr = argv[++a];
        else if (!strcmp(argv[a], "--png") && a + 1 < argc) png = argv[++a];
        else if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--efficiency")) efficiency = 1;
        else if (!strcmp(argv[a], "--daylight") && a + 1 < argc) daylight = atof(argv[++a]);
        else if (!strcmp(argv[a], "--sky-samples")) sky_samples = 1;
        else if (!strcmp(argv[a], "--noise-target") && a + 1 < argc) noise_target = atof(argv[++a]);
        else if (!strcmp(argv[a], "--min-spp") && a + 1 < argc) min_spp = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reference-spp") && a + 1 < argc)
            reference_spp = atoi(argv[++a]);
        else if (argv[a][0] != '-') cache = argv[a];
        else {
            fprintf(stderr, "bench_render_snowball: unknown option %s\n", argv[a]);
            return 2;
        }
    }
    pw_error err = {0};
    double *x = NULL, *m = NULL, h = 0.01, radius = 0;
    size_t n = 0;
    vec3 centre = v3(0, 0, 0);
    pw_cache_frame frame;
    memset(&frame, 0, sizeof frame);
    if (cache) {
        const char *names[2] = {"x", "m"};
        if (pw_cache_read(cache, names, 2, &frame, &err) != PW_OK) {
            fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
            return 1;
        }
        const pw_cache_attr *ax = pw_cache_find(&frame, "x"), *am = pw_cache_find(&frame, "m");
        if (ax->type != PW_F64 || ax->components != 3 || am->type != PW_F64 || am->components != 1) {
            fprintf(stderr, "bench_render_snowball: %s: x must be F64x3 and m F64\n", cache);
            return 1;
        }
        x = ax->data, m = am->data, n = frame.count, h = frame.h;
    } else {
        n = synth_snowball(h, &x, &m, &centre, &radius);
    }

    /* stage 2 */
    double t0 = omp_get_wtime();
    if (subdiv == 0) subdiv = raster == PW_RASTER_BOUNDED ? 4 : 1;
    pw_density *d = pw_density_build(raster, x, m, NULL, n, h, subdiv, 0, &err);
    double t_raster = omp_get_wtime() - t0;
    if (!d) {
        fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
        return 1;
    }
    vec3 lo, hi;
    if (pw_density_bounds(d, &lo, &hi) == PW_OK && cache) {
        centre = v3_scale(v3_add(lo, hi), 0.5);
        radius = 0.5 * v3_length(v3_sub(hi, lo));
    }

    /* stage 3: ground plane, sun + sky */
    pw_surface_desc ground;
    memset(&ground, 0, sizeof ground);
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.center = v3(0, cache ? lo.y : 0, 0);
    ground.shape.normal = v3(0, 1, 0);
    ground.color = v3(0.5, 0.5, 0.5);
    pw_surfaces *surf = pw_surfaces_create(&ground, 1, 0.0, &err);
    if (!surf) {
        fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
        return 1;
    }
    pw_camera_desc cam = {v3_add(centre, v3(2.2 * radius, 1.0 * radius, 3.6 * radius)),
                          v3_add(centre, v3(0, -0.25 * radius, 0)), v3(0, 1, 0), 35.0, width,
                          height, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0.9, 0.95, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_angular_diameter_deg = 0.53;
    if (daylight > 0) {
        lights.daylight = 1;
        lights.sun_elevation_deg = daylight;
        lights.sun_azimuth_deg = atan2(0.4, -0.6) * 180 / PW_PI;
        lights.turbidity = 3;
        lights.daylight_intensity = 1.0 / 32;
        lights.daylight_ground_albedo = 0.3;
        if (sky_samples) lights.sky_sampling = PW_SKY_SAMPLING_ALWAYS;
    } else {
        lights.sun_direction = v3_normalize(v3(-0.6, 0.7, 0.4));
        lights.sun_irradiance = v3(2.0, 2.0, 1.9);
        lights.sky_radiance = v3(0.20, 0.26, 0.36);
    }
    pw_render_settings rs = {0};
    rs.spp = spp;
    rs.max_depth = 100000;
    rs.rr_start_depth = 16;
    rs.seed = seed;
    rs.threads = threads;
    rs.subdiv = subdiv;
    rs.aov_albedo = efficiency;
    rs.noise_target = noise_target;
    rs.noise_min_spp = min_spp;
    pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
    if (!r) {
        fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
        return 1;
    }
    pw_image img;
    pw_render_stats st;
    int last = -10;
    if (pw_render_frame(r, d, &img, progress, &last, &st, &err) != PW_OK) {
        fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
        return 1;
    }
    bench_print_cpu();
    printf("particles            %zu (%s)\n", n, cache ? cache : "synthetic sphere");
    printf("rasterization        %.3f s (%s, h = %g m, subdiv %d, mass %.6g kg)\n", t_raster,
           raster == PW_RASTER_BOUNDED ? "bounded" : "bspline", h, subdiv,
           pw_density_total_mass(d));
    printf("render               %dx%d, %d spp%s, %d threads\n", width, height, spp,
           noise_target > 0 ? " at most (adaptive)" : "", threads ? threads : omp_get_max_threads());
    if (noise_target > 0)
        printf("adaptive             target %g, min %d spp: %.2f samples a pixel\n", noise_target,
               min_spp, (double)st.paths / ((double)width * height));
    printf("wall time            %.2f s\n", st.seconds);
    printf("samples per second   %.0f\n", st.samples_per_second);
    printf("scattering events    %.2f per path (mean)\n", st.mean_scattering_events);
    printf("paths cut by cap     %llu of %llu\n", (unsigned long long)st.paths_cut_by_cap,
           (unsigned long long)st.paths);
    if (efficiency) {
        pw_image img2;
        pw_render_stats st2;
        pw_renderer_destroy(r);
        rs.seed = seed + 1;
        last = -10;
        r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
        if (!r || pw_render_frame(r, d, &img2, progress, &last, &st2, &err) != PW_OK) {
            fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
            return 1;
        }
        double var_all = 0, var_snow = 0, mean_all = 0, var_snow_c[3] = {0, 0, 0};
        size_t n_snow = 0, npix = (size_t)width * height;
        for (size_t q = 0; q < npix; q++) {
            int snow = img.albedo[3 * q] > 0.7 && img.albedo[3 * q + 2] > 0.95; /* the medium's */
            for (int c = 0; c < 3; c++) {
                double a = img.rgba[4 * q + c], b = img2.rgba[4 * q + c], v = 0.5 * (a - b) * (a - b);
                var_all += v;
                mean_all += 0.5 * (a + b);
                if (snow) var_snow += v, var_snow_c[c] += v;
            }
            n_snow += (size_t)snow;
        }
        var_all /= 3.0 * npix;
        mean_all /= 3.0 * npix;
        var_snow = n_snow ? var_snow / (3.0 * n_snow) : 0;
        double secs = 0.5 * (st.seconds + st2.seconds);
        printf("noise (2 seeds)      image: variance %.4g, efficiency %.4g /s; snow (%zu px): "
               "variance %.4g, efficiency %.4g /s; %.2f s per render; image mean %.6g\n",
               var_all, 1.0 / (var_all * secs), n_snow, var_snow,
               n_snow ? 1.0 / (var_snow * secs) : 0.0, secs, mean_all);
        if (n_snow)
            printf("snow variance per channel  r %.4g, g %.4g, b %.4g\n", var_snow_c[0] / n_snow,
                   var_snow_c[1] / n_snow, var_snow_c[2] / n_snow);
        /* the snow's relative noise, on luminance; against a long render's when there is one */
        pw_image ref = {0};
        if (reference_spp > 0) {
            pw_render_settings rr = rs;
            rr.spp = reference_spp, rr.noise_target = 0, rr.seed = 77;
            pw_renderer_destroy(r);
            last = -10;
            r = pw_renderer_create(&rr, &cam, &md, &lights, surf, &err);
            pw_render_stats st3;
            if (!r || pw_render_frame(r, d, &ref, progress, &last, &st3, &err) != PW_OK) {
                fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
                return 1;
            }
        }
        double dy2 = 0, y2 = 0, rel2 = 0, sum_a = 0, sum_b = 0, sum_ref = 0;
        size_t n_rel = 0;
        for (size_t q = 0; q < npix; q++) {
            double ya = luminance(img.rgba + 4 * q), yb = luminance(img2.rgba + 4 * q);
            double yr = ref.rgba ? luminance(ref.rgba + 4 * q) : 0.5 * (ya + yb);
            sum_a += ya, sum_b += yb, sum_ref += yr;
            if (!(img.albedo[3 * q] > 0.7 && img.albedo[3 * q + 2] > 0.95)) continue;
            dy2 += 0.5 * (ya - yb) * (ya - yb);
            y2 += yr * yr;
            if (yr > 0) rel2 += 0.5 * (ya - yb) * (ya - yb) / (yr * yr), n_rel++;
        }
        printf("snow relative sd     %.4f per pixel (RMS), %.4f of the whole (luminance, 2 seeds%s)\n",
               n_rel ? sqrt(rel2 / n_rel) : 0.0, y2 > 0 ? sqrt(dy2 / y2) : 0.0,
               ref.rgba ? ", over the reference's" : "");
        if (ref.rgba) {
            printf("image mean           %+.3f %%, %+.3f %% against %d spp (seed 77)\n",
                   100 * (sum_a / sum_ref - 1), 100 * (sum_b / sum_ref - 1), reference_spp);
            pw_image_free(&ref);
        }
        pw_image_free(&img2);
    }
    if (png && pw_png_write(png, img.rgba, img.width, img.height, 0.0, &err) != PW_OK)
        fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
    if (exr) {
        pw_exr_options eo;
        pw_exr_options_default(&eo);
        eo.spp = spp;
        eo.render_seconds = st.seconds;
        eo.has_camera = 1;
        eo.fov_deg = cam.fov_deg;
        pw_camera_matrices(&cam, eo.world_to_camera, eo.world_to_ndc, NULL);
        if (pw_exr_write(exr, &img, &eo, &err) != PW_OK)
            fprintf(stderr, "bench_render_snowball: %s\n", err.msg);
    }
    pw_image_free(&img);
    pw_renderer_destroy(r);
    pw_surfaces_destroy(surf);
    pw_density_destroy(d);
    if (cache) pw_cache_frame_free(&frame);
    else free(x), free(m);
    return 0;
}
