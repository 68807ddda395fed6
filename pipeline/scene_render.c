/* scene_render.c — the scene's "render" section: camera, image settings, participating
 * medium, lights, surfaces and EXR/PNG output options. */
#include "scene_internal.h"

#include "ice_optics.h"

#include <stdio.h>
#include <string.h>

static const char *const keys_render[] = {
    "camera",  "resolution",  "spp",    "max_depth", "rr_start_depth", "seed",
    "subdiv",  "raster", "detail", "aovs",        "compression", "beauty", "png_exposure",
    "medium",  "lights",  "surfaces",    "draw_colliders", "collider_color", "background",
    "noise_target", "noise_min_spp", "denoise", NULL};
static const char *const keys_camera[] = {
    "eye", "target", "up", "fov_deg", "f_number", "aperture_radius", "sensor_height_mm",
    "focus_distance", "shutter", "shutter_samples", "motion", NULL};
static const char *const keys_camera_key[] = {"t", "eye", "target", "up", "fov_deg", NULL};
static const char *const keys_medium[] = {"sigma_t", "rho_ref", "albedo", "g", "grain_radius_um",
                                          NULL};
static const char *const keys_lights[] = {"sun", "sky", "envmap", "daylight", NULL};
static const char *const keys_daylight[] = {"sun_elevation_deg", "sun_azimuth_deg", "turbidity",
                                            "intensity", "angular_diameter_deg",
                                            "ground_albedo", NULL};
static const char *const keys_sun[] = {"direction", "angular_diameter_deg", "irradiance", NULL};
static const char *const keys_sky[] = {"radiance", NULL};
static const char *const keys_envmap[] = {"path", "intensity", "rotation_deg", NULL};
static const char *const keys_surface[] = {"shape", "color", "size", "role", NULL};
/* in pw_surface_role order */
static const char *const surface_roles[] = {"opaque", "holdout", "shadow_catcher", NULL};
static const char *const compressions[] = {"zip", "piz", "none", NULL};
static const char *const beauties[] = {"half", "float", NULL};
static const char *const backgrounds[] = {"sky", "transparent", NULL};
/* in pw_raster_kind order */
static const char *const rasters[] = {"bounded", "bspline", NULL};
static const char *const aov_names[] = {"depth", "albedo", "noise", "features", NULL};

#define MAX_SIDE_PX 16384
#define MAX_PIXELS (1LL << 28)

static const sc_range colour = {0, 1, 0, 0, "a colour component"};

/* A look-at camera must have a view direction and an up off its axis. */
static pw_status check_look_at(const sc_ctx *c, const char *at, vec3 eye, vec3 target, vec3 up)
{
    vec3 view = v3_sub(target, eye);
    double len = v3_length(view);
    if (!(len > 0))
        return sc_fail(c, at, "eye and target coincide: the view direction is undefined");
    if (!isfinite(len))
        return sc_fail(c, at, "eye and target are too far apart (%g m)", len);
    /* A look-at basis needs up off the view axis; sin of the angle below 1e-6 is
     * as good as parallel. */
    if (!(v3_length(v3_cross(v3_scale(view, 1 / len), up)) > 1e-6))
        return sc_fail(c, at, "up is parallel to the view direction (target - eye)");
    return PW_OK;
}

/* "motion": [{"t", "eye", "target", "up", "fov_deg"}, ...], the form of a collider's
 * motion: t [s] strictly increasing, each value the static camera's where a key is
 * silent. */
static pw_status parse_camera_motion(const sc_ctx *c, json_t *obj, const char *at,
                                     const pw_camera_desc *cam, pw_camera_rig *rig)
{
    json_t *keys;
    pw_status rc = sc_get_list(c, obj, at, "motion", 0, PW_CAMERA_MAX_KEYS, "keyframes", &keys);
    if (rc != PW_OK || !keys) return rc;
    char am[SC_PATH];
    sc_join(am, at, "motion");
    const sc_range fov = {0, 180, 1, 1, "the vertical field of view [deg]"};
    for (size_t k = 0; k < json_array_size(keys); k++) {
        json_t *key = json_array_get(keys, k);
        char ak[SC_PATH];
        sc_index(ak, am, (int)k);
        pw_camera_key *f = &rig->keys[k];
        if ((rc = sc_check_keys(c, key, ak, keys_camera_key)) != PW_OK ||
            (rc = sc_number(c, key, ak, "t", 1, 0, sc_any, &f->t)) != PW_OK ||
            (rc = sc_vec3(c, key, ak, "eye", 0, cam->eye, sc_any, &f->eye)) != PW_OK ||
            (rc = sc_vec3(c, key, ak, "target", 0, cam->target, sc_any, &f->target)) ||
            (rc = sc_direction(c, key, ak, "up", 0, cam->up, &f->up)) != PW_OK ||
            (rc = sc_number(c, key, ak, "fov_deg", 0, cam->fov_deg, fov, &f->fov_deg)) ||
            (rc = check_look_at(c, ak, f->eye, f->target, f->up)) != PW_OK)
            return rc;
        if (k > 0 && !(f->t > rig->keys[k - 1].t))
            return sc_fail(c, ak, "t = %g: keyframe times must increase strictly (previous "
                                  "%g)", f->t, rig->keys[k - 1].t);
        rig->n_keys = (int)k + 1;
    }
    return PW_OK;
}

/* "shutter": [open, close] in frames relative to the frame's time; absent = none. */
static pw_status parse_shutter(const sc_ctx *c, json_t *obj, const char *at, pw_camera_rig *rig)
{
    json_t *v = json_object_get(obj, "shutter");
    if (!v) return PW_OK;
    char as[SC_PATH];
    sc_join(as, at, "shutter");
    if (!json_is_array(v) || json_array_size(v) != 2)
        return sc_fail(c, as, "expected [open, close] in frames (e.g. [-0.25, 0.25], a 180 "
                              "degree shutter), got %s", sc_type_name(v));
    double oc[2];
    for (int k = 0; k < 2; k++) {
        json_t *e = json_array_get(v, (size_t)k);
        char ek[SC_PATH];
        sc_index(ek, as, k);
        if (!json_is_number(e))
            return sc_fail(c, ek, "expected a number [frames], got %s", sc_type_name(e));
        oc[k] = json_number_value(e);
        if (!(oc[k] >= -1 && oc[k] <= 1))
            return sc_fail_value(c, ek, oc[k], "the shutter opens and closes within one "
                                 "frame of the frame's time: [-1, 1]");
    }
    if (!(oc[1] > oc[0]) || oc[1] - oc[0] > 1)
        return sc_fail(c, as, "[%g, %g]: close must follow open by at most one frame", oc[0],
                       oc[1]);
    rig->shutter_open = oc[0];
    rig->shutter_close = oc[1];
    return PW_OK;
}

static pw_status parse_camera(const sc_ctx *c, json_t *render, pw_scene *s)
{
    pw_camera_desc *cam = &s->camera;
    pw_camera_rig *rig = &s->camera_rig;
    memset(rig, 0, sizeof *rig);
    json_t *obj;
    pw_status rc = sc_get_object(c, render, "render", "camera", 1, &obj);
    if (rc != PW_OK) return rc;
    const char *at = "render.camera";
    const sc_range fov = {0, 180, 1, 1, "the vertical field of view [deg]"};
    const sc_range f_number = {0, 1000, 1, 0, "the f-number"};
    const sc_range aperture = {0, 10, 0, 0, "the aperture radius [m]"};
    const sc_range sensor = {0, 1000, 1, 0, "the film height [mm]"};
    const sc_range focus = {0, 1e6, 1, 0, "the focus distance [m]"};
    long long samples;
    double sensor_mm;
    /* asked before the parse below fills in the defaults */
    int has_f_number = json_object_get(obj, "f_number") != NULL;
    int has_aperture = json_object_get(obj, "aperture_radius") != NULL;
    if ((rc = sc_check_keys(c, obj, at, keys_camera)) != PW_OK ||
        (rc = sc_vec3(c, obj, at, "eye", 1, v3_zero(), sc_any, &cam->eye)) != PW_OK ||
        (rc = sc_vec3(c, obj, at, "target", 1, v3_zero(), sc_any, &cam->target)) != PW_OK ||
        (rc = sc_direction(c, obj, at, "up", 0, v3(0, 1, 0), &cam->up)) != PW_OK ||
        (rc = sc_number(c, obj, at, "fov_deg", 0, 40, fov, &cam->fov_deg)) != PW_OK ||
        (rc = check_look_at(c, at, cam->eye, cam->target, cam->up)) != PW_OK ||
        /* absent lens values stay 0: a pinhole, focus on the target */
        (has_f_number &&
         (rc = sc_number(c, obj, at, "f_number", 1, 0, f_number, &rig->f_number)) != PW_OK) ||
        (rc = sc_number(c, obj, at, "aperture_radius", 0, 0, aperture,
                        &rig->aperture_radius)) != PW_OK ||
        (rc = sc_number(c, obj, at, "sensor_height_mm", 0, 24, sensor, &sensor_mm)) ||
        (json_object_get(obj, "focus_distance") &&
         (rc = sc_number(c, obj, at, "focus_distance", 1, 0, focus, &rig->focus_distance))) ||
        (rc = parse_shutter(c, obj, at, rig)) != PW_OK ||
        (rc = sc_int(c, obj, at, "shutter_samples", 0, 8, 1, PW_MAX_INSTANTS,
                     "the instants over the shutter", &samples)) != PW_OK ||
        (rc = parse_camera_motion(c, obj, at, cam, rig)) != PW_OK)
        return rc;
    if (has_f_number && has_aperture)
        return sc_fail(c, at, "give the lens as f_number or as aperture_radius, not both");
    rig->sensor_height = sensor_mm * 1e-3;
    rig->shutter_samples = (int)samples;
    cam->lens_radius = 0;
    cam->focus_distance = 0;
    return PW_OK;
}

static pw_status parse_resolution(const sc_ctx *c, json_t *render, pw_camera_desc *cam)
{
    json_t *v = json_object_get(render, "resolution");
    const char *at = "render.resolution";
    long long wh[2] = {640, 360};
    if (v) {
        if (!json_is_array(v))
            return sc_fail(c, at, "expected an array [width, height], got %s", sc_type_name(v));
        if (json_array_size(v) != 2)
            return sc_fail(c, at, "expected an array [width, height], got %zu element%s",
                           json_array_size(v), json_array_size(v) == 1 ? "" : "s");
        for (int k = 0; k < 2; k++) {
            json_t *e = json_array_get(v, (size_t)k);
            char ek[SC_PATH];
            sc_index(ek, at, k);
            if (!json_is_number(e))
                return sc_fail(c, ek, "expected an integer, got %s", sc_type_name(e));
            double x = json_number_value(e);
            if (!(x == floor(x)) || x < 1 || x > MAX_SIDE_PX)
                return sc_fail_value(c, ek, x, "%s must be an integer in [1, %d]",
                                     k ? "the height [px]" : "the width [px]", MAX_SIDE_PX);
            wh[k] = (long long)x;
        }
    }
    if (wh[0] * wh[1] > MAX_PIXELS)
        return sc_fail(c, at, "%lld x %lld = %lld pixels, at most 2^28", wh[0], wh[1],
                       wh[0] * wh[1]);
    json_object_set_new(render, "resolution", json_pack("[II]", wh[0], wh[1]));
    cam->width_px = (int)wh[0];
    cam->height_px = (int)wh[1];
    return PW_OK;
}

static pw_status parse_medium(const sc_ctx *c, json_t *render, pw_medium_desc *m)
{
    json_t *obj;
    pw_status rc = sc_get_section(c, render, "render", "medium", &obj);
    if (rc != PW_OK) return rc;
    const char *at = "render.medium";
    const sc_range sigma = {0, INFINITY, 1, 1, "the extinction coefficient [1/m]"};
    const sc_range rho = {0, INFINITY, 1, 1, "the reference density [kg/m^3]"};
    const sc_range albedo = {0, 1, 0, 0, "an albedo component"};
    const sc_range g = {-1, 1, 1, 1, "the Henyey-Greenstein g"};
    /* asked before the parse below writes the defaults in */
    int ice = json_object_get(obj, "grain_radius_um") != NULL;
    int optical = json_object_get(obj, "sigma_t") || json_object_get(obj, "albedo");
    if ((rc = sc_check_keys(c, obj, at, keys_medium)) != PW_OK ||
        (rc = sc_number(c, obj, at, "sigma_t", 0, 724, sigma, &m->sigma_t_ref)) != PW_OK ||
        (rc = sc_number(c, obj, at, "rho_ref", 0, 400, rho, &m->rho_ref)) != PW_OK ||
        (rc = sc_vec3(c, obj, at, "albedo", 0, v3(0.9, 0.95, 1.0), albedo, &m->albedo)) ||
        (rc = sc_number(c, obj, at, "g", 0, 0.5, g, &m->g)) != PW_OK)
        return rc;
    if (!ice) return PW_OK;
    /* ice optics (render/ice_optics.h): sigma_t and albedo follow from the grains */
    if (optical)
        return sc_fail(c, at, "give the medium as grain_radius_um or as sigma_t and albedo, "
                              "not both (the grains determine sigma_t and the albedo)");
    const sc_range radius = {PW_ICE_RADIUS_MIN * 1e6, PW_ICE_RADIUS_MAX * 1e6, 0, 0,
                             "the grains' effective radius [um] (where geometric optics "
                             "holds)"};
    double r_um;
    if ((rc = sc_number(c, obj, at, "grain_radius_um", 1, 0, radius, &r_um)) != PW_OK)
        return rc;
    /* sigma_t is proportional to the snow's density, which the render takes from the
     * simulation: rho_ref only fixes where sigma_t_ref is quoted */
    if (!(m->rho_ref < PW_ICE_DENSITY)) {
        char ar[SC_PATH];
        sc_join(ar, at, "rho_ref");
        return sc_fail_value(c, ar, m->rho_ref, "snow is less dense than ice (%g kg/m^3)",
                             PW_ICE_DENSITY);
    }
    pw_error ice_err = {0};
    if (pw_ice_medium(r_um * 1e-6, m->rho_ref, m->g, m, &ice_err) != PW_OK)
        return sc_fail(c, at, "%s", ice_err.msg);
    /* the defaults written in above are not this medium's: a resolved scene read back
     * must give the grains again */
    json_object_del(obj, "sigma_t");
    json_object_del(obj, "albedo");
    return PW_OK;
}

/* "daylight": the Preetham sky and its sun (render/sky.h) from the sun's elevation. */
static pw_status parse_daylight(const sc_ctx *c, json_t *day, pw_lights_desc *l)
{
    const char *at = "render.lights.daylight";
    const sc_range elevation = {0, 90, 1, 0, "the sun's elevation above the horizon [deg]"};
    const sc_range turbidity = {2, 10, 0, 0, "the turbidity (the range of Preetham's fit)"};
    const sc_range intensity = {0, INFINITY, 0, 1, "the daylight intensity"};
    const sc_range diam = {0, 90, 1, 0, "the sun's angular diameter [deg]"};
    const sc_range ground = {0, 1, 0, 0, "the albedo of the ground below the horizon"};
    pw_status rc;
    if ((rc = sc_check_keys(c, day, at, keys_daylight)) != PW_OK ||
        (rc = sc_number(c, day, at, "sun_elevation_deg", 1, 0, elevation,
                        &l->sun_elevation_deg)) != PW_OK ||
        (rc = sc_number(c, day, at, "sun_azimuth_deg", 0, 0, sc_any, &l->sun_azimuth_deg)) ||
        (rc = sc_number(c, day, at, "turbidity", 0, 3, turbidity, &l->turbidity)) != PW_OK ||
        (rc = sc_number(c, day, at, "intensity", 0, 1, intensity, &l->daylight_intensity)) ||
        (rc = sc_number(c, day, at, "angular_diameter_deg", 0, 0.53, diam,
                        &l->sun_angular_diameter_deg)) != PW_OK ||
        (rc = sc_number(c, day, at, "ground_albedo", 0, 0.3, ground,
                        &l->daylight_ground_albedo)) != PW_OK)
        return rc;
    l->daylight = 1;
    return PW_OK;
}

static pw_status parse_lights(const sc_ctx *c, json_t *render, pw_lights_desc *l)
{
    json_t *obj, *sun, *sky, *env, *day;
    pw_status rc = sc_get_object(c, render, "render", "lights", 1, &obj);
    if (rc != PW_OK) return rc;
    memset(l, 0, sizeof *l);
    l->sun_angular_diameter_deg = 0.53;
    l->envmap_intensity = 1;
    const char *at = "render.lights";
    if ((rc = sc_check_keys(c, obj, at, keys_lights)) != PW_OK ||
        (rc = sc_get_object(c, obj, at, "sun", 0, &sun)) != PW_OK ||
        (rc = sc_get_object(c, obj, at, "sky", 0, &sky)) != PW_OK ||
        (rc = sc_get_object(c, obj, at, "envmap", 0, &env)) != PW_OK ||
        (rc = sc_get_object(c, obj, at, "daylight", 0, &day)) != PW_OK)
        return rc;
    if (day && (sun || sky || env))
        return sc_fail(c, at, "'daylight' gives the sun and the sky from one angle: it "
                              "excludes '%s'", sun ? "sun" : sky ? "sky" : "envmap");
    if (day) return parse_daylight(c, day, l);
    if (!sun && !sky && !env)
        return sc_fail(c, at, "no light: give at least one of 'sun', 'sky', 'envmap', "
                              "'daylight'");
    if (sky && env)
        return sc_fail(c, at, "'sky' and 'envmap' exclude each other (the map replaces the "
                              "constant sky)");
    const sc_range diam = {0, 90, 1, 0, "the sun's angular diameter [deg]"};
    const sc_range power = {0, INFINITY, 0, 1, "a light component"};
    if (sun) {
        const char *s = "render.lights.sun";
        if ((rc = sc_check_keys(c, sun, s, keys_sun)) != PW_OK ||
            (rc = sc_direction(c, sun, s, "direction", 1, v3_zero(), &l->sun_direction)) ||
            (rc = sc_number(c, sun, s, "angular_diameter_deg", 0, 0.53, diam,
                            &l->sun_angular_diameter_deg)) != PW_OK ||
            (rc = sc_vec3(c, sun, s, "irradiance", 1, v3_zero(), power, &l->sun_irradiance)))
            return rc;
    }
    if (sky) {
        const char *s = "render.lights.sky";
        if ((rc = sc_check_keys(c, sky, s, keys_sky)) != PW_OK ||
            (rc = sc_vec3(c, sky, s, "radiance", 1, v3_zero(), power, &l->sky_radiance)))
            return rc;
    }
    if (env) {
        const char *s = "render.lights.envmap";
        char rel[1024];
        const sc_range intensity = {0, INFINITY, 0, 1, "the envmap intensity"};
        if ((rc = sc_check_keys(c, env, s, keys_envmap)) != PW_OK ||
            (rc = sc_string(c, env, s, "path", NULL, rel, sizeof rel)) != PW_OK ||
            (rc = sc_asset_path(c, "render.lights.envmap.path", rel, l->envmap_path,
                                sizeof l->envmap_path)) != PW_OK ||
            (rc = sc_number(c, env, s, "intensity", 0, 1, intensity, &l->envmap_intensity)) ||
            (rc = sc_number(c, env, s, "rotation_deg", 0, 0, sc_any,
                            &l->envmap_rotation_deg)))
            return rc;
    }
    return PW_OK;
}

static pw_status parse_surfaces(const sc_ctx *c, json_t *render, pw_scene *s)
{
    json_t *list;
    pw_status rc = sc_get_list(c, render, "render", "surfaces", 0, PW_SCENE_MAX_SURFACES,
                               "surfaces", &list);
    if (rc != PW_OK) return rc;
    s->n_surfaces = 0;
    if (!list) return PW_OK;
    const sc_range size = {0, INFINITY, 0, 1, "the half side [m]"};
    for (size_t k = 0; k < json_array_size(list); k++) {
        char at[SC_PATH], sh[SC_PATH];
        sc_index(at, "render.surfaces", (int)k);
        json_t *obj = json_array_get(list, k);
        pw_surface_desc *d = &s->surfaces[k];
        if ((rc = sc_check_keys(c, obj, at, keys_surface)) != PW_OK) return rc;
        json_t *shape = json_object_get(obj, "shape");
        sc_join(sh, at, "shape");
        if (!shape) return sc_fail(c, sh, "required key is missing (expected a shape object)");
        if ((rc = sc_shape(c, shape, sh, 0, &d->shape)) != PW_OK ||
            (rc = sc_vec3(c, obj, at, "color", 0, v3(0.8, 0.8, 0.8), colour, &d->color)) ||
            (rc = sc_number(c, obj, at, "size", 0, 0, size, &d->size)) != PW_OK)
            return rc;
        int role;
        if ((rc = sc_enum(c, obj, at, "role", PW_SURFACE_OPAQUE, surface_roles, &role)) != PW_OK)
            return rc;
        d->role = (pw_surface_role)role;
        if (d->size > 0 && d->shape.kind != PW_SHAPE_HALFSPACE) {
            char sz[SC_PATH];
            sc_join(sz, at, "size");
            return sc_fail_value(c, sz, d->size, "only a half-space has a drawn size");
        }
        s->n_surfaces = (int)k + 1;
    }
    return PW_OK;
}

/* "aovs": ["depth", "albedo", "noise"] */
static pw_status parse_aovs(const sc_ctx *c, json_t *render, pw_render_settings *r)
{
    json_t *list;
    pw_status rc = sc_get_array(c, render, "render", "aovs", 0, &list);
    if (rc != PW_OK) return rc;
    r->aov_depth = r->aov_albedo = r->aov_noise = r->aov_features = 0;
    if (!list) return PW_OK;
    int *flags[] = {&r->aov_depth, &r->aov_albedo, &r->aov_noise, &r->aov_features};
    for (size_t k = 0; k < json_array_size(list); k++) {
        char at[SC_PATH];
        sc_index(at, "render.aovs", (int)k);
        json_t *e = json_array_get(list, k);
        if (!json_is_string(e))
            return sc_fail(c, at, "expected a string (\"depth\", \"albedo\" or \"noise\"), "
                                  "got %s", sc_type_name(e));
        int *flag = NULL;
        for (int a = 0; aov_names[a]; a++)
            if (strcmp(json_string_value(e), aov_names[a]) == 0)
                flag = flags[a];
        if (!flag)
            return sc_fail(c, at, "\"%.40s\" is not one of \"depth\", \"albedo\", \"noise\"",
                           json_string_value(e));
        if (*flag) return sc_fail(c, at, "\"%s\" is listed twice", json_string_value(e));
        *flag = 1;
    }
    return PW_OK;
}

pw_status sc_render(const sc_ctx *c, json_t *render, pw_scene *s)
{
    pw_status rc = sc_check_keys(c, render, "render", keys_render);
    if (rc != PW_OK) return rc;
    pw_render_settings *r = &s->render;
    memset(r, 0, sizeof *r);
    long long spp, max_depth, rr, seed, subdiv, min_spp;
    const sc_range exposure = {-64, 64, 0, 0, "the preview exposure [stops]"};
    const sc_range detail_range = {0, 1, 0, 0, "the particle-bound detail amplitude"};
    const sc_range noise_range = {0, 1, 0, 1, "the noise target (0: off; the standard "
                                              "error relative to the pixel)"};
    if ((rc = parse_camera(c, render, s)) != PW_OK ||
        (rc = parse_resolution(c, render, &s->camera)) != PW_OK ||
        (rc = sc_int(c, render, "render", "spp", 0, 64, 1, 1 << 20, "samples per pixel",
                     &spp)) != PW_OK ||
        (rc = sc_int(c, render, "render", "max_depth", 0, 10000, 1, 1 << 30,
                     "the scattering cap", &max_depth)) != PW_OK ||
        (rc = sc_int(c, render, "render", "rr_start_depth", 0, 64, 0, 1 << 30,
                     "the Russian roulette start", &rr)) != PW_OK ||
        (rc = sc_int(c, render, "render", "seed", 0, 0, 0, INT64_MAX, "the seed", &seed)) ||
        (rc = sc_enum(c, render, "render", "raster", PW_RASTER_BOUNDED, rasters,
                      &r->raster)) != PW_OK ||
        /* the bounded raster draws its edge over one render spacing: h / 4 makes it
         * 0.27 h (render/docs/bounded-raster.md); the paper's B-spline is at h */
        (rc = sc_int(c, render, "render", "subdiv", 0, r->raster == PW_RASTER_BOUNDED ? 4 : 1,
                     1, 8, "the render grid subdivision", &subdiv)) != PW_OK ||
        (rc = sc_number(c, render, "render", "detail", 0, 0, detail_range, &r->detail)) ||
        (rc = sc_number(c, render, "render", "noise_target", 0, 0, noise_range,
                        &r->noise_target)) != PW_OK ||
        (rc = sc_int(c, render, "render", "noise_min_spp", 0, 16, 2, 1 << 20,
                     "the samples before a pixel's error is judged", &min_spp)) != PW_OK ||
        (rc = parse_aovs(c, render, r)) != PW_OK ||
        (rc = sc_bool(c, render, "render", "denoise", 0, &r->denoise)) != PW_OK ||
        (rc = sc_enum(c, render, "render", "compression", 0, compressions,
                      &s->exr_compression)) != PW_OK ||
        (rc = sc_enum(c, render, "render", "beauty", 0, beauties, &s->exr_float)) != PW_OK ||
        (rc = sc_enum(c, render, "render", "background", 0, backgrounds,
                      &r->transparent_background)) != PW_OK ||
        (rc = sc_number(c, render, "render", "png_exposure", 0, 0, exposure,
                        &s->png_exposure)) != PW_OK ||
        (rc = parse_medium(c, render, &s->medium)) != PW_OK ||
        (rc = parse_lights(c, render, &s->lights)) != PW_OK ||
        (rc = parse_surfaces(c, render, s)) != PW_OK ||
        (rc = sc_bool(c, render, "render", "draw_colliders", 1, &s->draw_colliders)) ||
        (rc = sc_vec3(c, render, "render", "collider_color", 0, v3(0.5, 0.5, 0.5), colour,
                      &s->collider_color)) != PW_OK)
        return rc;
    r->spp = (int)spp;
    if (r->denoise && spp < 2)
        return sc_fail(c, "render.denoise", "needs spp >= 2, the variance it denoises by takes "
                       "two samples (spp is %lld)", spp);
    r->noise_min_spp = (int)min_spp;
    r->max_depth = (int)max_depth;
    r->rr_start_depth = (int)rr;
    r->seed = (uint64_t)seed;
    r->subdiv = (int)subdiv;
    r->threads = 0;
    /* The program appends the drawn colliders to the same array. */
    int drawn = s->draw_colliders ? s->n_colliders : 0;
    if (s->n_surfaces + drawn > PW_SCENE_MAX_SURFACES)
        return sc_fail(c, "render.surfaces", "%d surfaces plus %d drawn colliders, at most "
                                             "%d together", s->n_surfaces, drawn,
                       PW_SCENE_MAX_SURFACES);
    return PW_OK;
}
