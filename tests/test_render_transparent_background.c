/* Property: with a transparent background (render.background "transparent") the beauty
 * is premultiplied over nothing: camera samples that see only the sky add no colour,
 * so RGB = 0 exactly where alpha = 0, and everywhere RGB is the sky render's minus
 * (1 - alpha) times the sky radiance, the share of the pixel's samples that saw the sky
 * (the paths are the same random draws: escaping consumes none). A diffuse ball under a
 * sun and sky half fills a 24x16 image; the sun stands behind the camera, outside the
 * view, so no camera ray sees it. Both renders use the same seed and 16 spp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_render.h"
#include "surfaces.h"

static int render(int transparent, pw_surfaces *surf, pw_image *img)
{
    pw_error err = {0};
    pw_camera_desc cam = {v3(0, 0, 3), v3(0, 0, 0), v3(0, 1, 0), 40.0, 24, 16, 0, 0};
    pw_medium_desc md = {724.0, 400.0, v3(0.9, 0.95, 1.0), 0.5};
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = v3_normalize(v3(0.3, 0.5, 1));
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(3.0, 2.5, 2.0);
    lights.sky_radiance = v3(0.2, 0.3, 0.5);
    pw_render_settings rs = {0};
    rs.spp = 16;
    rs.max_depth = 100;
    rs.rr_start_depth = 3;
    rs.seed = 3;
    rs.transparent_background = transparent;
    pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, surf, &err);
    CHECK(r != NULL, "create: %s", err.msg);
    int ok = r && pw_render_frame(r, NULL, img, NULL, NULL, NULL, &err) == PW_OK;
    CHECK(ok, "render: %s", err.msg);
    pw_renderer_destroy(r);
    return ok;
}

int main(void)
{
    pw_error err = {0};
    pw_surface_desc ball;
    memset(&ball, 0, sizeof ball);
    pw_shape_init(&ball.shape, PW_SHAPE_SPHERE);
    ball.shape.radius = 0.6;
    ball.color = v3(0.7, 0.7, 0.7);
    pw_surfaces *surf = pw_surfaces_create(&ball, 1, 0.0, &err);
    CHECK(surf != NULL, "surfaces: %s", err.msg);
    pw_image sky, clear;
    if (surf && render(0, surf, &sky) && render(1, surf, &clear)) {
        int n = sky.width * sky.height, empty = 0, partial = 0;
        double worst = 0;
        const double L_sky[3] = {0.2, 0.3, 0.5};
        for (int q = 0; q < n; q++) {
            float a = clear.rgba[4 * q + 3];
            CHECK(a == sky.rgba[4 * q + 3], "pixel %d: alpha differs", q);
            if (a == 0) {
                empty++;
                CHECK(clear.rgba[4 * q] == 0 && clear.rgba[4 * q + 1] == 0 &&
                          clear.rgba[4 * q + 2] == 0,
                      "pixel %d: colour at alpha 0", q);
            } else if (a < 1) {
                partial++;
            }
            for (int c = 0; c < 3; c++) {
                double want = sky.rgba[4 * q + c] - (1 - a) * L_sky[c];
                worst = fmax(worst, fabs(clear.rgba[4 * q + c] - want));
            }
        }
        printf("%d pixels: %d see only sky, %d partly; |RGB - (sky RGB - (1 - A) L_sky)| <= %.2g\n",
               n, empty, partial, worst);
        CHECK(empty > n / 4 && empty < n, "the ball should fill part of the view (%d empty)", empty);
        CHECK(partial > 0, "no edge pixel partly covered");
        CHECK(worst <= 1e-6, "transparent differs from the sky render by %.3g", worst);
        pw_image_free(&sky);
        pw_image_free(&clear);
    }
    pw_surfaces_destroy(surf);
    return check_done("render_transparent_background");
}
