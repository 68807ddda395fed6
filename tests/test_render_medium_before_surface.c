/* Property: a camera ray through an absorbing slab reaches a surface behind it with
 * probability exp(-tau / mu), however the tracer splits the free flight. The tracer
 * tracks the medium up to the distance before which no surface can be hit (the nearest
 * plane or the entry into the finite surfaces' bounds) without asking Embree, and only
 * past it queries the surface and goes on tracking up to it. Both cases are rendered:
 *   A. the finite surfaces' bounds start behind the slab (the whole slab is tracked
 *      before any surface query);
 *   B. a small sphere out of view stretches the bounds over the slab and the camera, so
 *      the slab is tracked in the second part, after the query.
 * Scene: an albedo-0 slab of optical depth tau = 1 along z (4 lattice layers, uniform by
 * the B-spline partition of unity), a finite Lambertian square (Embree) of albedo a at
 * z = -0.1 behind it, lit by a low sun whose shadow rays pass under the slab, black sky.
 * Each camera sample sees either nothing (absorbed) or the square's radiance
 * a E cos(theta) / pi exactly, so per pixel the expectation is that times
 * exp(-tau / mu) and the image mean is binomial: it must match within 1 % and 3
 * standard errors in both cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "density.h"
#include "pw_render.h"
#include "slab_fixture.h"
#include "surfaces.h"

#define W 24
#define H 16

static const vec3 eye = {0, 0, 1};
static const double fov = 16.0, albedo = 0.5, sun_E = 3.0;

static void render_case(const pw_density *d, int with_sphere, const char *name, int spp)
{
    pw_error err = {0};
    pw_surface_desc s[2];
    memset(s, 0, sizeof s);
    pw_shape_init(&s[0].shape, PW_SHAPE_HALFSPACE);
    s[0].shape.center = v3(0, 0, -0.1);
    s[0].shape.normal = v3(0, 0, 1);
    s[0].size = 0.5; /* finite: an Embree quad */
    s[0].color = v3(albedo, albedo, albedo);
    pw_shape_init(&s[1].shape, PW_SHAPE_SPHERE);
    s[1].shape.center = v3(0.3, 0.3, 1.2); /* behind the camera: out of view, in the bounds */
    s[1].shape.radius = 0.02;
    s[1].color = v3(0.5, 0.5, 0.5);
    pw_surfaces *surf = pw_surfaces_create(s, with_sphere ? 2 : 1, 0.0, &err);
    CHECK(surf != NULL, "%s: surfaces: %s", name, err.msg);
    if (!surf) return;
    vec3 lo, hi;
    CHECK(pw_surfaces_bounds(surf, &lo, &hi) && (with_sphere ? hi.z > 1.1 : hi.z < -0.05),
          "%s: the finite bounds do not cover what the case needs (top z %g)", name, hi.z);

    pw_camera_desc cd = {eye, v3(0, 0, 0), v3(0, 1, 0), fov, W, H, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0, 0, 0), 0.5};
    vec3 sun = v3_normalize(v3(1, 0, 0.1));
    pw_lights_desc lights = slab_sun(sun, sun_E);
    pw_render_settings rs = slab_settings(spp, 6);
    pw_renderer *r = pw_renderer_create(&rs, &cd, &md, &lights, surf, &err);
    CHECK(r != NULL, "%s: create: %s", name, err.msg);
    pw_image img;
    memset(&img, 0, sizeof img);
    int ok = r && pw_render_frame(r, d, &img, NULL, NULL, NULL, &err) == PW_OK;
    CHECK(ok, "%s: render: %s", name, err.msg);
    if (ok) {
        pw_camera cam;
        CHECK(pw_camera_init(&cam, &cd, &err) == PW_OK, "camera: %s", err.msg);
        /* the sun's cone changes cos(theta) by < 1e-5 */
        const double L_square = albedo * sun_E * sun.z / PW_PI;
        double sum = 0, expect = 0, var = 0;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                /* the pixel's samples spread over its footprint; mu varies by < 1e-4 */
                vec3 dir = pw_camera_ray(&cam, px + 0.5, py + 0.5);
                double T = exp(-1.0 / fabs(dir.z));
                sum += img.rgba[4 * (py * W + px) + 1];
                expect += L_square * T;
                var += L_square * L_square * T * (1 - T) / spp;
            }
        double se = sqrt(var);
        printf("%s: image sum %.6f vs %.6f (%.2f standard errors, ratio %.5f)\n", name, sum,
               expect, (sum - expect) / se, sum / expect);
        CHECK(fabs(sum / expect - 1) < 0.01 && fabs(sum - expect) < 3 * se,
              "%s: image sum %.6f, expected %.6f (se %.3g)", name, sum, expect, se);
    }
    pw_image_free(&img);
    pw_renderer_destroy(r);
    pw_surfaces_destroy(surf);
}

int main(void)
{
    /* tau = 1 along z: 4 layers at h = 1 cm over 0.6 m, centred on z = 0 */
    const double h = 0.01, tau = 1.0;
    const int layers = 4, side = 60;
    size_t n = (size_t)side * side * layers;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    slab_lattice(side, layers, h, tau / (724.0 / 400.0 * layers * h), x, m);
    pw_error err = {0};
    pw_density *d = pw_density_rasterize(x, m, n, h, 1, &err);
    CHECK(d != NULL, "rasterize: %s", err.msg);
    int spp = getenv("POWDER_SANITIZED") ? 256 : 1024;
    if (d) {
        render_case(d, 0, "bounds behind the slab", spp);
        render_case(d, 1, "bounds over the slab", spp);
    }
    pw_density_destroy(d);
    free(x), free(m);
    return check_done("render_medium_before_surface");
}
