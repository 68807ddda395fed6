/* Property: pw_renderer_create refuses every out-of-range setting, medium or light with
 * PW_EINVAL (or the loader's code for a missing env map) and a message naming the
 * field and its value, and never returns a half-built renderer. One numbered case per
 * field; case 0 checks that the valid baseline is accepted, so the refusals below are
 * caused by the single field each case changes. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pw_render.h"

static pw_render_settings rs;
static pw_camera_desc cam;
static pw_medium_desc md;
static pw_lights_desc lights;

static void baseline(void)
{
    memset(&rs, 0, sizeof rs);
    rs.spp = 4, rs.max_depth = 100, rs.rr_start_depth = 4, rs.seed = 1;
    cam = (pw_camera_desc){v3(0, 0, 1), v3(0, 0, 0), v3(0, 1, 0), 40, 8, 8, 0, 0};
    md = (pw_medium_desc){724, 400, v3(0.9, 0.95, 1.0), 0.5};
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = v3(0, 1, 0);
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(1, 1, 1);
    lights.sky_radiance = v3(0.1, 0.1, 0.1);
}

static void expect_refused(const char *what, const char *field)
{
    pw_error err = {0};
    pw_renderer *r = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
    CHECK(r == NULL, "%s: accepted", what);
    CHECK(err.code != PW_OK && strstr(err.msg, field) != NULL, "%s: message '%s' lacks '%s'",
          what, err.msg, field);
    printf("%-28s -> %s\n", what, err.msg);
    pw_renderer_destroy(r);
    baseline();
}

int main(void)
{
    pw_error err = {0};
    baseline();
    pw_renderer *ok = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
    CHECK(ok != NULL, "0. baseline refused: %s", err.msg);
    pw_renderer_destroy(ok);

    rs.spp = 0;                         expect_refused("1. spp 0", "spp");
    rs.max_depth = 0;                   expect_refused("2. max_depth 0", "max_depth");
    rs.rr_start_depth = -1;             expect_refused("3. rr_start_depth -1", "rr_start_depth");
    rs.threads = -2;                    expect_refused("4. threads -2", "threads");
    md.sigma_t_ref = NAN;               expect_refused("5. sigma_t_ref NaN", "sigma_t_ref");
    md.rho_ref = 0;                     expect_refused("6. rho_ref 0", "rho_ref");
    md.albedo.y = 1.5;                  expect_refused("7. albedo 1.5", "albedo");
    md.g = 1.0;                         expect_refused("8. g 1", "g must");
    md.g = -INFINITY;                   expect_refused("9. g -inf", "g must");
    cam.width_px = 0;                   expect_refused("10. width 0", "size");
    cam.fov_deg = 180;                  expect_refused("11. fov 180", "fov_deg");
    cam.up = v3(0, 0, 5);               expect_refused("12. up parallel to view", "up");
    lights.sun_irradiance.x = -1;       expect_refused("13. sun irradiance -1", "sun_irradiance");
    lights.sun_direction = v3(0, 0, 0); expect_refused("14. sun direction 0", "sun_direction");
    lights.sun_angular_diameter_deg = 0; expect_refused("15. sun diameter 0", "angular_diameter");
    lights.sky_radiance.z = NAN;        expect_refused("16. sky NaN", "sky_radiance");
    strcpy(lights.envmap_path, "/nonexistent/powder/sky.exr");
    lights.envmap_intensity = 1;        expect_refused("17. missing env map", "sky.exr");
    /* 18. no sun at all: direction and diameter are then irrelevant */
    lights.sun_irradiance = v3(0, 0, 0);
    lights.sun_direction = v3(0, 0, 0);
    ok = pw_renderer_create(&rs, &cam, &md, &lights, NULL, &err);
    CHECK(ok != NULL, "18. sunless scene refused: %s", err.msg);
    pw_renderer_destroy(ok);
    /* 19. NULL descriptions */
    CHECK(pw_renderer_create(NULL, &cam, &md, &lights, NULL, &err) == NULL, "19. NULL settings");
    return check_done("render_rejects_bad_input");
}
