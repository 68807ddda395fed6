/* lights.h — the lights of stage 3 (internal to render/): a sun of finite angular
 * size, and an environment that is either a constant sky or a lat-long map importance
 * sampled by luminance.
 *
 * Env map convention: pixel (row i, column j) of a W x H map covers polar angle
 * theta in [i pi/H, (i+1) pi/H] from +Y (row 0 is the zenith) and azimuth phi in
 * [j 2pi/W, (j+1) 2pi/W], direction (sin theta cos phi, cos theta, sin theta sin phi),
 * after rotating the map by rotation_deg about +Y. Radiance is constant per pixel
 * (nearest lookup), which keeps eval and pdf exactly consistent. */
#ifndef PW_LIGHTS_H
#define PW_LIGHTS_H

#include "pw_error.h"
#include "pw_math.h"
#include "pw_render.h"

typedef struct pw_envmap pw_envmap;

/* Builds an env map from rgb (3 floats a pixel, rows top to bottom, copied) scaled by
 * intensity. Negative or non-finite pixels are errors. The sampling distribution is
 * proportional to luminance (Rec. 709) times the pixel's solid angle. */
pw_envmap *pw_envmap_create(const float *rgb, int width, int height, double intensity,
                            double rotation_deg, pw_error *err);
/* Same, from a lat-long EXR (render/exr.h). */
pw_envmap *pw_envmap_load(const char *path, double intensity, double rotation_deg,
                          pw_error *err);
void pw_envmap_destroy(pw_envmap *e); /* NULL is a no-op */

/* Radiance [W/m^2/sr] arriving from direction dir (unit, pointing away from the scene). */
vec3 pw_envmap_eval(const pw_envmap *e, vec3 dir);
/* Solid-angle density [1/sr] with which pw_envmap_sample returns dir. */
double pw_envmap_pdf(const pw_envmap *e, vec3 dir);
/* Draws a direction from (u1, u2) in [0,1)^2; returns its radiance and sets *pdf. */
vec3 pw_envmap_sample(const pw_envmap *e, double u1, double u2, vec3 *dir, double *pdf);
/* Pixel (row, column) that direction dir falls in. */
void pw_envmap_pixel(const pw_envmap *e, vec3 dir, int *row, int *col);

typedef struct {
    int has_sun;
    vec3 sun_dir;          /* unit, towards the sun */
    double sun_cos_max;    /* cos of the half angular diameter */
    vec3 sun_radiance;     /* [W/m^2/sr], so that its irradiance at normal incidence is
                              the described sun_irradiance */
    vec3 sky;              /* constant sky radiance [W/m^2/sr] when env is NULL */
    pw_envmap *env;        /* owned */
    int env_light_sampled; /* env is worth light sampling (pw_lights_desc.sky_sampling) */
} pw_lights;

/* Checks the description and builds the lights (loads the env map). */
pw_status pw_lights_init(pw_lights *L, const pw_lights_desc *desc, pw_error *err);
void pw_lights_release(pw_lights *L);

/* Environment (sky or map): radiance from dir, sampling density, sample. */
vec3 pw_lights_env_eval(const pw_lights *L, vec3 dir);
double pw_lights_env_pdf(const pw_lights *L, vec3 dir);
vec3 pw_lights_env_sample(const pw_lights *L, double u1, double u2, vec3 *dir, double *pdf);
/* 1 when the environment is black (no light sampling needed). */
int pw_lights_env_black(const pw_lights *L);
/* 1 when the environment is worth light sampling (next-event estimation, combined
 * with the scattered ray by MIS): an environment map, not black. A constant sky is
 * not: the scattered ray's own density (cosine, or the phase function) is already
 * proportional to its unoccluded integrand, and a uniform light sample through the
 * snow only adds a shadow ray and noise (render/docs/noise.md). Nor, by default, is the
 * daylight sky: smooth apart from the sun, which has its own sample, it leaves less
 * noise per second to the scattered rays alone (render/docs/daylight.md). */
int pw_lights_env_sampled(const pw_lights *L);

/* Sun: a direction uniform in its cone; returns radiance / pdf (~ the irradiance). */
vec3 pw_lights_sun_sample(const pw_lights *L, double u1, double u2, vec3 *dir);
/* Sun radiance seen along dir (camera rays only; scattered light gets the sun by NEE). */
vec3 pw_lights_sun_eval(const pw_lights *L, vec3 dir);

#endif
