/* Property: an infinite Lambertian ground of albedo a under a sun of irradiance E at
 * elevation angle cos(theta_s) to the normal and a uniform sky of radiance L reflects
 *     L_o = a E cos(theta_s) / pi + a L
 * (sky irradiance on a horizontal plane is pi L; nothing reflects back from an infinite
 * plane). This checks surface next-event estimation, the sun's radiance normalisation
 * (sun_irradiance is the irradiance at normal incidence; the cone's finite size changes
 * cos(theta_s) by < 1e-5 at 0.53 deg) and that a constant sky is reached by cosine
 * sampling alone (no light sampling of it):
 *   1. image mean within 0.5% and 3 standard errors of L_o per channel;
 *   2. every pixel within 3% (noise per pixel measured ~0.5%; 8% in the sanitizer run,
 *      which takes 8x fewer samples, so sqrt(8) more noise);
 *   3. alpha = 1 everywhere (every primary ray hits the plane), no medium;
 *   4. with the sun below the horizon the plane gets only the sky (a L), and then every
 *      pixel is exact to float rounding (3e-7): cosine sampling's density is the
 *      integrand's, so the estimate has no variance;
 *   5. depth.Z is planar camera z (distance along the view axis, as compositors' depth
 *      nodes expect), not ray length: per pixel the mean over the pixel's area of the
 *      plane's z, within 0.2 % (ray length is up to 7 % longer at these corners). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_render.h"
#include "surfaces.h"

/* Mean over pixel (px, py) of the camera z at which the ground y = 0 is seen: a ray
 * through screen point (sx, sy) is eye + z (forward + sx right + sy up). */
static double plane_z_pixel(const pw_camera_desc *cam, int px, int py)
{
    vec3 fwd = v3_normalize(v3_sub(cam->target, cam->eye));
    vec3 right = v3_normalize(v3_cross(fwd, cam->up)), up = v3_cross(right, fwd);
    double t = tan(0.5 * cam->fov_deg * 3.14159265358979 / 180);
    double aspect = (double)cam->width_px / cam->height_px, sum = 0;
    const int n = 32;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double sx = (2.0 * (px + (i + 0.5) / n) / cam->width_px - 1.0) * t * aspect;
            double sy = (1.0 - 2.0 * (py + (j + 0.5) / n) / cam->height_px) * t;
            vec3 d = v3_madd(v3_madd(fwd, right, sx), up, sy);
            sum += -cam->eye.y / d.y;
        }
    return sum / (n * n);
}

static void check_plane(vec3 sun_dir, const char *what)
{
    pw_error err = {0};
    pw_surface_desc ground;
    memset(&ground, 0, sizeof ground);
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.normal = v3(0, 1, 0);
    ground.color = v3(0.8, 0.5, 0.3);
    pw_surfaces *surf = pw_surfaces_create(&ground, 1, 0.0, &err);
    CHECK(surf != NULL, "surfaces: %s", err.msg);
    if (!surf) return;
    pw_camera_desc cam = {v3(0, 1, 0.5), v3(0, 0, -0.5), v3(0, 1, 0), 40.0, 12, 12, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0.9, 0.95, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = sun_dir;
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(3.0, 2.5, 2.0);
    lights.sky_radiance = v3(0.2, 0.3, 0.5);
    pw_render_settings rs = {0};
    rs.spp = getenv("POWDER_SANITIZED") ? 256 : 2048;
    rs.max_depth = 1000;
    rs.rr_start_depth = 3;
    rs.seed = 8;
    rs.aov_depth = 1;
    pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
    CHECK(r != NULL, "create: %s", err.msg);
    pw_image img;
    if (r && pw_render_frame(r, NULL, &img, NULL, NULL, NULL, &err) == PW_OK) {
        double cos_s = fmax(0.0, v3_normalize(sun_dir).y);
        int npix = img.width * img.height;
        double worst = 0, alpha_min = 1;
        for (int c = 0; c < 3; c++) {
            double a = v3_get(ground.color, c);
            double Lo = a * v3_get(lights.sun_irradiance, c) * cos_s / 3.14159265358979 +
                        a * v3_get(lights.sky_radiance, c);
            double s1 = 0, s2 = 0;
            for (int q = 0; q < npix; q++) {
                double v = img.rgba[4 * q + c] / Lo;
                s1 += v, s2 += v * v;
                if (fabs(v - 1) > worst) worst = fabs(v - 1);
                if (img.rgba[4 * q + 3] < alpha_min) alpha_min = img.rgba[4 * q + 3];
            }
            double mean = s1 / npix, se = sqrt(fmax(0.0, s2 / npix - mean * mean) / (npix - 1));
            /* 3e-7: the float32 pixels' own rounding, where the estimate has no variance */
            CHECK(fabs(mean - 1) <= 0.005 && fabs(mean - 1) <= 3 * se + 3e-7,
                  "%s channel %d: mean / L_o = %.5f (%.2f se)", what, c, mean,
                  fabs(mean - 1) / se);
            printf("%s channel %d: mean/L_o %.5f (%.2f se), ", what, c, mean,
                   se > 0 ? fabs(mean - 1) / se : 0.0);
        }
        /* a constant sky on a plane is reached by cosine sampling alone, whose density
         * is the integrand's: no variance, every pixel exact to float rounding */
        double tol = cos_s == 0 ? 3e-7 : getenv("POWDER_SANITIZED") ? 0.08 : 0.03;
        CHECK(worst <= tol, "%s: a pixel is %.2f%% off", what, 100 * worst);
        CHECK(alpha_min == 1.0f, "%s: alpha %g < 1", what, alpha_min);
        double depth_err = 0;
        for (int q = 0; q < npix; q++) {
            double z = plane_z_pixel(&cam, q % img.width, q / img.width);
            depth_err = fmax(depth_err, fabs(img.depth[q] / z - 1));
        }
        CHECK(depth_err <= 2e-3, "%s: depth.Z %.3f%% off the planar z", what, 100 * depth_err);
        printf("depth.Z within %.4f%% of planar z; ", 100 * depth_err);
        printf("worst pixel %.2f%%\n", 100 * worst);
        pw_image_free(&img);
    } else {
        CHECK(0, "render: %s", err.msg);
    }
    pw_renderer_destroy(r);
    pw_surfaces_destroy(surf);
}

int main(void)
{
    check_plane(v3(0.5, 0.8, -0.2), "1. sun at cos 0.84");
    check_plane(v3(0.5, -0.3, -0.2), "4. sun below the horizon");
    return check_done("render_diffuse_plane");
}
