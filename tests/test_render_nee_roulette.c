/* Property: next-event roulette deep in the snow changes the noise, never the image.
 *
 * 1. The column floor is a lower bound. For 3000 random points of a packed ball (both
 *    rasterizers) and a random direction each, the mass per unit area the ray crosses,
 *    integrated along it from the density lookup (trapezoid, h/32 steps, to the grid's
 *    end), is at least the floor of the point's cell: a shadow ray's transmittance never
 *    exceeds exp(-sigma_per_rho q), so NEE roulette with p = T_max never weights a sample
 *    above the unoccluded light. Measured: the rays cross at least 2.56x (B-spline) and
 *    1.86x (bounded) their floor. The bound is also of use: at the paper's sigma_t, 25 %
 *    (B-spline) and 39 % (bounded) of the points inside this 8-cell ball get sigma q > 3
 *    (T_max < 0.05); the test asks for a sixth.
 * 2. Unbiased. A ball of sigma_t 60 /m at h = 5 mm (thin enough that the events the
 *    roulette thins, p 0.3-1, still see the sun), lit by the sun alone, rendered with the
 *    floor (roulette on) and with it removed (NEE at every event), two seeds each: the
 *    image means agree within 4 standard errors (per-pixel variance from the two seeds;
 *    measured -0.4 and 1.3 for two seed pairs). Checked to fail: with the surviving
 *    samples not divided by p the means differ by -10.9 and -8.4 standard errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "density.h"
#include "pw_render.h"

static double urand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1p-53;
}

/* n particles of mass m uniformly in a ball of radius rad around c. */
static void ball(double *x, double *m, size_t n, vec3 c, double rad, double mass,
                 unsigned long long seed)
{
    for (size_t p = 0; p < n;) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = rad * (2 * urand(&seed) - 1);
        if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > rad * rad) continue;
        x[3 * p] = c.x + q[0], x[3 * p + 1] = c.y + q[1], x[3 * p + 2] = c.z + q[2];
        m[p++] = mass;
    }
}

/* Mass per unit area [kg/m^2] along o + t dir from t = 0 to the far side of the grid. */
static double column_mass(const pw_density *d, vec3 o, vec3 dir)
{
    double ds = d->h / 32, reach = v3_length(v3_sub(d->hi, d->lo)) + 2 * d->h;
    double sum = 0, prev = pw_density_lookup(d, o);
    for (double t = ds; t <= reach; t += ds) {
        double v = pw_density_lookup(d, v3_madd(o, dir, t));
        sum += 0.5 * (prev + v) * ds;
        prev = v;
    }
    return sum;
}

static void check_bound(pw_raster_kind kind, const char *name)
{
    pw_error err = {0};
    const size_t n = 60000;
    const double rad = 0.04, h = 0.005;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    /* 8 particles per cell at 400 kg/m^3 */
    ball(x, m, n, v3(0, 0, 0), rad, 400 * (4.0 / 3 * PW_PI * rad * rad * rad) / n, 5);
    pw_density *d = pw_density_build(kind, x, m, NULL, n, h, kind == PW_RASTER_BOUNDED ? 2 : 1,
                                      0, &err);
    CHECK(d && d->column_floor, "%s: density with floor: %s", name, err.msg);
    if (!d || !d->column_floor) {
        free(x), free(m), pw_density_destroy(d);
        return;
    }
    unsigned long long s = 99;
    int violations = 0, useful = 0, inside = 0;
    double worst = INFINITY;
    for (int k = 0; k < 3000; k++) {
        vec3 o;
        do o = v3(rad * (2 * urand(&s) - 1), rad * (2 * urand(&s) - 1), rad * (2 * urand(&s) - 1));
        while (v3_dot(o, o) > 1.1 * rad * 1.1 * rad);
        double z = 2 * urand(&s) - 1, phi = 2 * PW_PI * urand(&s), r = sqrt(1 - z * z);
        vec3 dir = v3(r * cos(phi), r * sin(phi), z);
        double q = pw_density_column_floor_at(d, o), col = column_mass(d, o, dir);
        if (col < q * (1 - 1e-3)) violations++;
        if (q > 0) worst = fmin(worst, col / q);
        if (v3_dot(o, o) < rad * rad) {
            inside++;
            useful += 724.0 / 400.0 * q > 3;
        }
    }
    printf("%s: %d of 3000 rays below their floor (worst column / floor %.4f); %d of %d points "
           "inside have sigma q > 3\n", name, violations, worst, useful, inside);
    CHECK(violations == 0, "%s: %d rays cross less snow than their cell's floor (worst ratio %g)",
          name, violations, worst);
    CHECK(useful > inside / 6, "%s: only %d of %d points inside get a bound sigma q > 3", name,
          useful, inside);
    pw_density_destroy(d);
    free(x), free(m);
}

/* Image mean and its variance estimate from two renders of different seeds. */
static void mean_and_var(const pw_image *a, const pw_image *b, double *mean, double *var)
{
    size_t np = (size_t)a->width * a->height;
    double sum = 0, v = 0;
    for (size_t p = 0; p < np; p++)
        for (int c = 0; c < 3; c++) {
            double x = a->rgba[4 * p + c], y = b->rgba[4 * p + c];
            sum += 0.5 * (x + y);
            v += 0.5 * (x - y) * (x - y) / 2; /* variance of the two-render mean */
        }
    *mean = sum / (3.0 * np);
    *var = v / (9.0 * np * np);
}

static void check_unbiased(void)
{
    pw_error err = {0};
    const size_t n = 40000;
    const double rad = 0.04, h = 0.005;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    ball(x, m, n, v3(0, 0, 0), rad, 400 * (4.0 / 3 * PW_PI * rad * rad * rad) / n, 7);
    pw_density *d = pw_density_build(PW_RASTER_BSPLINE, x, m, NULL, n, h, 1, 0, &err);
    CHECK(d && d->column_floor, "density: %s", err.msg);
    if (!d || !d->column_floor) {
        free(x), free(m), pw_density_destroy(d);
        return;
    }
    pw_density plain = *d; /* the same density without its floor: NEE at every event */
    plain.column_floor = NULL;

    pw_camera_desc cam = {v3(0.05, 0.06, 0.2), v3(0, 0, 0), v3(0, 1, 0), 30.0, 24, 16, 0, 0};
    pw_medium_desc md = {60.0, 400.0, v3(0.95, 0.98, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = v3_normalize(v3(-0.5, 0.7, 0.4));
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(3, 3, 3);
    pw_render_settings rs = {0};
    rs.spp = getenv("POWDER_SANITIZED") ? 64 : 256;
    rs.max_depth = 1000000;
    rs.rr_start_depth = 16;
    pw_image img[4];
    memset(img, 0, sizeof img);
    for (int k = 0; k < 4; k++) {
        rs.seed = 100 + (uint64_t)(k % 2);
        pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
        CHECK(r != NULL, "create: %s", err.msg);
        if (!r) break;
        pw_status rc = pw_render_frame(r, k < 2 ? d : &plain, &img[k], NULL, NULL, NULL, &err);
        CHECK(rc == PW_OK, "render %d: %s", k, err.msg);
        pw_renderer_destroy(r);
    }
    if (img[0].rgba && img[1].rgba && img[2].rgba && img[3].rgba) {
        double ma, va, mb, vb;
        mean_and_var(&img[0], &img[1], &ma, &va);
        mean_and_var(&img[2], &img[3], &mb, &vb);
        double z = (ma - mb) / sqrt(va + vb);
        printf("image mean with roulette %.6f, NEE everywhere %.6f: %.2f standard errors; "
               "variance of the mean %.3g vs %.3g\n", ma, mb, z, va, vb);
        CHECK(fabs(z) < 4, "image means differ by %.2f standard errors (%.6f vs %.6f)", z, ma, mb);
        CHECK(ma > 0.01, "the ball is dark (%g): the scene does not test anything", ma);
    }
    for (int k = 0; k < 4; k++) pw_image_free(&img[k]);
    pw_density_destroy(d);
    free(x), free(m);
}

int main(void)
{
    check_bound(PW_RASTER_BSPLINE, "bspline");
    check_bound(PW_RASTER_BOUNDED, "bounded");
    check_unbiased();
    return check_done("render_nee_roulette");
}
