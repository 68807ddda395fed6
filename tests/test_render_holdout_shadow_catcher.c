/* Property: compositing stand-ins (render.surfaces[].role).
 * A homogeneous slab of optical depth tau = 1 (a particle lattice, albedo 0) floats
 * above a ground plane, lit by a sun straight overhead and no sky. The camera looks at
 * the ground from the side, below the slab, so no camera ray crosses it.
 *   1. shadow catcher: every pixel that sees the ground has RGB = 0 exactly; where the
 *      ground lies under the slab's uniform middle, alpha = 1 - exp(-tau) (the share of
 *      sunlight the slab takes) within 1 % and 4 standard errors; ground beyond the slab
 *      has alpha 0 exactly;
 *   2. per pixel, the catcher's alpha is 1 - (the opaque ground's radiance / the radiance
 *      of unshadowed ground), to 1e-4: the same light samples, the same transmittance
 *      estimates (same seed), only normalised;
 *   3. holdout: a sphere in front of the ground is RGB 0 and alpha 0 wherever the camera
 *      sees it, though the lit ground behind it would add colour and coverage;
 *   4. depth.Z is where the camera met a surface, whatever its role: on the catcher it
 *      equals the opaque ground's, pixel by pixel (same rays), and on the holdout it is
 *      finite and nearer than the ground behind it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "density.h"
#include "pw_render.h"
#include "slab_fixture.h"
#include "surfaces.h"

enum { W = 48, H = 32 };
static const double ground_z = -0.5, sun_E = 3.0, ground_albedo = 0.5;

static int render(const pw_surface_desc *desc, int n, const pw_density *d, int spp,
                  pw_image *img)
{
    pw_error err = {0};
    pw_surfaces *surf = pw_surfaces_create(desc, n, 0.0, &err);
    CHECK(surf != NULL, "surfaces: %s", err.msg);
    if (!surf) return 0;
    pw_camera_desc cam = {v3(0.9, 0.0, -0.2), v3(0, 0, ground_z), v3(0, 0, 1), 45.0, W, H, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0, 0, 0), 0.5};
    pw_lights_desc lights = slab_sun(v3(0, 0, 1), sun_E);
    pw_render_settings rs = slab_settings(spp, 11);
    rs.aov_depth = 1;
    pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
    CHECK(r != NULL, "create: %s", err.msg);
    int ok = r && pw_render_frame(r, d, img, NULL, NULL, NULL, &err) == PW_OK;
    CHECK(ok, "render: %s", err.msg);
    pw_renderer_destroy(r);
    pw_surfaces_destroy(surf);
    return ok;
}

/* Where pixel (px, py)'s centre ray meets the ground; 0 if it does not. */
static int ground_point(int px, int py, vec3 *x)
{
    pw_camera_desc cd = {v3(0.9, 0.0, -0.2), v3(0, 0, ground_z), v3(0, 0, 1), 45.0, W, H, 0, 0};
    pw_camera cam;
    pw_error err = {0};
    if (pw_camera_init(&cam, &cd, &err) != PW_OK) return 0;
    vec3 dir = pw_camera_ray(&cam, px + 0.5, py + 0.5);
    if (!(dir.z < 0)) return 0;
    *x = v3_madd(cam.eye, dir, (ground_z - cam.eye.z) / dir.z);
    return 1;
}

int main(void)
{
    int spp = 256; /* 0.2 s in Release */
    /* the slab: 4 layers of particles, spacing h, over [-0.2, 0.2]^2, tau = 1 along z */
    const double h = 0.01, tau = 1.0;
    const int layers = 4, side = 40;
    size_t n = (size_t)side * side * layers;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    double rho = tau / (724.0 / 400.0 * layers * h);
    slab_lattice(side, layers, h, rho, x, m);
    pw_error err = {0};
    pw_density *d = pw_density_rasterize(x, m, n, h, 1, &err);
    CHECK(d != NULL, "rasterize: %s", err.msg);

    pw_surface_desc s[2];
    memset(s, 0, sizeof s);
    pw_shape_init(&s[0].shape, PW_SHAPE_HALFSPACE);
    s[0].shape.center = v3(0, 0, ground_z);
    s[0].shape.normal = v3(0, 0, 1);
    s[0].color = v3(ground_albedo, ground_albedo, ground_albedo);
    pw_shape_init(&s[1].shape, PW_SHAPE_SPHERE);
    s[1].shape.center = v3(0.45, -0.12, -0.42);
    s[1].shape.radius = 0.05;
    s[1].color = v3(0.8, 0.8, 0.8);

    pw_image opaque, catcher, holdout;
    s[0].role = PW_SURFACE_OPAQUE;
    int ok = d && render(s, 1, d, spp, &opaque);
    s[0].role = PW_SURFACE_SHADOW_CATCHER;
    ok = ok && render(s, 1, d, spp, &catcher);
    s[0].role = PW_SURFACE_OPAQUE;
    s[1].role = PW_SURFACE_HOLDOUT;
    ok = ok && render(s, 2, d, spp, &holdout);

    if (ok) {
        const double lit = ground_albedo * sun_E / PW_PI; /* unshadowed ground radiance */
        double sum_a = 0, sum_a2 = 0, worst_ratio = 0;
        int under = 0, beyond = 0, beyond_bad = 0, colour_bad = 0, held = 0, held_bad = 0;
        int depth_bad = 0, held_depth_bad = 0;
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                int q = py * W + px;
                const float *c = catcher.rgba + 4 * q, *o = opaque.rgba + 4 * q;
                vec3 g;
                /* pixels near the horizon mix ground and sky samples: left out */
                if (!ground_point(px, py, &g) || v3_length(g) > 1.2) continue;
                if (c[0] != 0 || c[1] != 0 || c[2] != 0) colour_bad++;
                /* 4: the catcher has the ground's depth */
                if (!isfinite(catcher.depth[q]) ||
                    fabsf(catcher.depth[q] - opaque.depth[q]) > 1e-5f * opaque.depth[q])
                    depth_bad++;
                /* 2: the same samples, normalised */
                worst_ratio = fmax(worst_ratio, fabs((1.0 - c[3]) - o[1] / lit));
                if (fabs(g.x) < 0.12 && fabs(g.y) < 0.12) {
                    under++;
                    sum_a += c[3];
                    sum_a2 += (double)c[3] * c[3];
                } else if (fabs(g.x) > 0.3 || fabs(g.y) > 0.3) {
                    beyond++;
                    if (c[3] != 0) beyond_bad++;
                }
                /* 3: pixels whose centre ray meets the holdout sphere */
                vec3 cen = s[1].shape.center, eye = v3(0.9, 0.0, -0.2);
                vec3 dir = v3_normalize(v3_sub(g, eye));
                vec3 oc = v3_sub(eye, cen);
                double b = v3_dot(oc, dir), cc = v3_dot(oc, oc) - 0.05 * 0.05;
                /* well inside the silhouette: the whole pixel footprint meets it */
                if (b * b - cc > 0.7 * 0.05 * 0.05) {
                    held++;
                    const float *hp = holdout.rgba + 4 * q;
                    if (hp[0] != 0 || hp[1] != 0 || hp[2] != 0 || hp[3] != 0) held_bad++;
                    if (!isfinite(holdout.depth[q]) || !(holdout.depth[q] < opaque.depth[q]))
                        held_depth_bad++;
                }
            }
        double mean = under ? sum_a / under : 0;
        double var = under > 1 ? (sum_a2 - under * mean * mean) / (under - 1) : 0;
        double se = sqrt(fmax(var, 0) / (under ? under : 1));
        double want = 1 - exp(-tau);
        printf("shadow catcher: %d pixels under the slab, alpha %.4f (1 - e^-tau = %.4f, "
               "se %.2g); %d beyond it; |1 - A - opaque/lit| <= %.2g; holdout pixels %d\n",
               under, mean, want, se, beyond, worst_ratio, held);
        CHECK(under > 20 && beyond > 20, "the view should hold both (%d, %d)", under, beyond);
        CHECK(fabs(mean - want) <= 0.01 * want && fabs(mean - want) <= 4 * se + 1e-9,
              "alpha under the slab %.5f, expected %.5f (se %.3g)", mean, want, se);
        CHECK(colour_bad == 0, "%d catcher pixels have colour", colour_bad);
        CHECK(beyond_bad == 0, "%d pixels beyond the slab have alpha", beyond_bad);
        CHECK(worst_ratio <= 1e-4, "catcher alpha vs opaque ratio off by %.3g", worst_ratio);
        CHECK(held > 4, "the holdout should cover some pixels (%d)", held);
        CHECK(held_bad == 0, "%d holdout pixels are not RGBA 0", held_bad);
        CHECK(depth_bad == 0, "%d catcher pixels lack the ground's depth", depth_bad);
        CHECK(held_depth_bad == 0, "%d holdout pixels lack a depth in front of the ground",
              held_depth_bad);
        pw_image_free(&opaque);
        pw_image_free(&catcher);
        pw_image_free(&holdout);
    }
    pw_density_destroy(d);
    free(x);
    free(m);
    return check_done("render_holdout_shadow_catcher");
}
