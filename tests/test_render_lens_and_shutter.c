/* Property: the thin lens and the shutter instants of stage 3.
 *   1. every thin-lens ray of a pixel passes through the point the pinhole ray meets on
 *      the plane in focus (to 1e-12 m), and starts on the lens disk;
 *   2. a small opaque sphere on the view axis, in a black world: its coverage (alpha)
 *      image is the sphere's disk convolved with the circle of confusion and the pixel's
 *      box, so its second moment about the centroid exceeds the pinhole render's by
 *      c^2/2. In the plane of focus the blur radius c is 0 (measured < 0.3 px); 1 m nearer it is the thin-lens value c = A |1/z - 1/z_f| (in units of
 *      the image plane at distance 1) within 3 %;
 *   3. with two instants (the sphere moved sideways between them, each with its own
 *      camera), every sample sees one instant and each pixel sees both equally often
 *      (spp even): pixels inside one sphere only have alpha 0.5 exactly, inside both 1,
 *      and the whole image equals the mean of the two frozen renders within noise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "pw_render.h"
#include "sampling.h"
#include "surfaces.h"

enum { W = 96, H = 96, SPP = 64 };
static const double fov = 20.0;

static pw_camera_desc camera(double lens_radius, double focus)
{
    pw_camera_desc c = {v3(0, 0, 0), v3(0, 0, -1), v3(0, 1, 0), fov, W, H, lens_radius, focus};
    return c;
}

static pw_surfaces *sphere_at(vec3 centre, double radius)
{
    pw_surface_desc d;
    memset(&d, 0, sizeof d);
    pw_shape_init(&d.shape, PW_SHAPE_SPHERE);
    d.shape.center = centre;
    d.shape.radius = radius;
    d.color = v3(0.5, 0.5, 0.5);
    pw_error err = {0};
    pw_surfaces *s = pw_surfaces_create(&d, 1, 0.0, &err);
    CHECK(s != NULL, "surfaces: %s", err.msg);
    return s;
}

static int render(int n, const pw_camera_desc *cams, const pw_surfaces *const *surfs,
                  pw_image *img)
{
    pw_medium_desc md = {724.0, 400.0, v3(0.9, 0.95, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sky_radiance = v3(0.2, 0.3, 0.4);
    lights.sun_angular_diameter_deg = 0.53;
    pw_render_settings rs = {0};
    rs.spp = SPP;
    rs.max_depth = 50;
    rs.rr_start_depth = 3;
    rs.seed = 5;
    rs.threads = 2;
    pw_error err = {0};
    pw_renderer *r = pw_renderer_create_instants(&rs, n, cams, surfs, &md, &lights, &err);
    CHECK(r != NULL, "create: %s", err.msg);
    const pw_density *none[2] = {NULL, NULL};
    int ok = r && pw_render_frame_instants(r, none, img, NULL, NULL, NULL, &err) == PW_OK;
    CHECK(ok, "render: %s", err.msg);
    pw_renderer_destroy(r);
    return ok;
}

/* Second moment of alpha about its centroid [px^2]. */
static double alpha_moment(const pw_image *img)
{
    double s = 0, sx = 0, sy = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double a = img->rgba[4 * (y * W + x) + 3];
            s += a, sx += a * (x + 0.5), sy += a * (y + 0.5);
        }
    double cx = sx / s, cy = sy / s, m2 = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double a = img->rgba[4 * (y * W + x) + 3];
            m2 += a * ((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy));
        }
    return m2 / s;
}

static void check_focus_point(void)
{
    pw_camera cam;
    pw_error err = {0};
    pw_camera_desc d = camera(0.05, 1.7);
    CHECK(pw_camera_init(&cam, &d, &err) == PW_OK, "init: %s", err.msg);
    double worst = 0, worst_lens = 0;
    for (int k = 0; k < 200; k++) {
        double px = 3.5 + 0.37 * k, py = 90.0 - 0.41 * k;
        vec3 pin = pw_camera_ray(&cam, px, py);
        vec3 focus = v3_scale(pin, 1.7 / v3_dot(pin, cam.forward)); /* eye at the origin */
        vec3 o;
        vec3 dir = pw_camera_lens_ray(&cam, px, py, (k * 0.618034) - floor(k * 0.618034),
                                      (k * 0.754878) - floor(k * 0.754878), &o);
        vec3 to = v3_sub(focus, o);
        double miss = v3_length(v3_sub(to, v3_scale(dir, v3_dot(to, dir))));
        worst = fmax(worst, miss);
        worst_lens = fmax(worst_lens, v3_length(o) - 0.05);
        CHECK_NEAR(v3_dot(o, cam.forward), 0.0, 1e-15, "lens point off the lens plane");
    }
    CHECK(worst < 1e-12, "a lens ray misses the focus point by %g m", worst);
    CHECK(worst_lens <= 1e-15, "a lens point lies %g m outside the lens", worst_lens);
}

int main(void)
{
    check_focus_point();
    const double tan_half = tan(0.5 * fov * PW_PI / 180.0), px_per_unit = H / (2 * tan_half);
    const double rs = 0.02, A = 0.05, zf = 2.0;

    /* 2. in focus, then 1 m nearer; the pinhole render of the same sphere gives the
     * disk-and-pixel part of the moment, so c^2 = 2 (M2_lens - M2_pinhole) */
    for (int near = 0; near <= 1; near++) {
        double z = near ? 1.0 : zf;
        pw_surfaces *s = sphere_at(v3(0, 0, -z), rs);
        pw_camera_desc lens = camera(A, zf), pin = camera(0, 0);
        const pw_surfaces *surfs[1] = {s};
        pw_image il, ip;
        memset(&il, 0, sizeof il), memset(&ip, 0, sizeof ip);
        if (s && render(1, &lens, surfs, &il) && render(1, &pin, surfs, &ip)) {
            double c2 = 2 * (alpha_moment(&il) - alpha_moment(&ip));
            double blur = c2 > 0 ? sqrt(c2) : -sqrt(-c2); /* signed: noise can make c2 < 0 */
            double expect = A * fabs(1 / z - 1 / zf) * px_per_unit;
            printf("sphere at %.1f m, focus %.1f m: blur radius %.3f px (thin lens %.3f px)\n",
                   z, zf, blur, expect);
            if (near) CHECK_NEAR(blur, expect, 0.03 * expect, "circle of confusion [px]");
            else CHECK(fabs(blur) < 0.3, "in focus the blur is %.3f px", blur);
        }
        pw_image_free(&il), pw_image_free(&ip);
        pw_surfaces_destroy(s);
    }

    /* 3. two instants */
    pw_surfaces *a = sphere_at(v3(-0.03, 0, -1.5), 0.05), *b = sphere_at(v3(0.03, 0.01, -1.5), 0.05);
    pw_camera_desc cams[2] = {camera(0, 0), camera(0, 0)};
    cams[1].eye = v3(0, 0.005, 0); /* the camera moves too */
    const pw_surfaces *both[2] = {a, b};
    pw_image blur, fa, fb;
    memset(&blur, 0, sizeof blur), memset(&fa, 0, sizeof fa), memset(&fb, 0, sizeof fb);
    if (a && b && render(2, cams, both, &blur) && render(1, &cams[0], &both[0], &fa) &&
        render(1, &cams[1], &both[1], &fb)) {
        pw_camera ca, cb;
        pw_error err = {0};
        pw_camera_init(&ca, &cams[0], &err), pw_camera_init(&cb, &cams[1], &err);
        int n_half = 0, n_full = 0, bad = 0;
        double diff = 0, var = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                /* pixels whose whole square lies inside or outside each sphere */
                int in_a = 1, out_a = 1, in_b = 1, out_b = 1;
                for (int cy = 0; cy <= 1; cy++)
                    for (int cx = 0; cx <= 1; cx++) {
                        vec3 da = pw_camera_ray(&ca, x + cx, y + cy), db = pw_camera_ray(&cb, x + cx, y + cy);
                        vec3 ea = v3_sub(v3(-0.03, 0, -1.5), ca.eye), eb = v3_sub(v3(0.03, 0.01, -1.5), cb.eye);
                        double ma = v3_length(v3_sub(ea, v3_scale(da, v3_dot(ea, da))));
                        double mb = v3_length(v3_sub(eb, v3_scale(db, v3_dot(eb, db))));
                        in_a &= ma < 0.05 - 1e-4, out_a &= ma > 0.05 + 1e-4;
                        in_b &= mb < 0.05 - 1e-4, out_b &= mb > 0.05 + 1e-4;
                    }
                double al = blur.rgba[4 * (y * W + x) + 3];
                if ((in_a && out_b) || (in_b && out_a)) n_half++, bad += al != 0.5f;
                if (in_a && in_b) n_full++, bad += al != 1.0f;
                for (int ch = 0; ch < 3; ch++) {
                    double m = 0.5 * (fa.rgba[4 * (y * W + x) + ch] + fb.rgba[4 * (y * W + x) + ch]);
                    double dd = blur.rgba[4 * (y * W + x) + ch] - m;
                    double e = fa.rgba[4 * (y * W + x) + ch] - fb.rgba[4 * (y * W + x) + ch];
                    diff += dd, var += e * e;
                }
            }
        printf("two instants: %d pixels in one sphere only, %d in both, %d off the exact "
               "share\n", n_half, n_full, bad);
        CHECK(n_half > 100 && n_full > 30, "too few test pixels (%d, %d)", n_half, n_full);
        CHECK(bad == 0, "%d pixels do not see each instant in half of their samples", bad);
        /* the mean difference over the image against its noise; the frozen pair's
         * difference is an upper bound on the per-pixel spread of the sphere's shading */
        double n_val = 3.0 * W * H, se = sqrt(var / n_val) / sqrt(n_val);
        printf("mean (blurred - mean of frozen) = %.3g (standard error bound %.3g)\n",
               diff / n_val, se);
        CHECK(fabs(diff / n_val) < 4 * se + 1e-6, "blurred image differs from the mean of "
              "the frozen renders: %.3g (se %.3g)", diff / n_val, se);
    }
    pw_image_free(&blur), pw_image_free(&fa), pw_image_free(&fb);
    pw_surfaces_destroy(a), pw_surfaces_destroy(b);
    return check_done("render_lens_and_shutter");
}
