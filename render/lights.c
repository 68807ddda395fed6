/* lights.c — sun, constant sky and importance-sampled lat-long environment map.
 *
 * The map is sampled with a 2D piecewise-constant distribution (pbrt's Distribution2D):
 * a marginal over rows and a conditional over the columns of each row, with weights
 * luminance x pixel solid angle. Inside the chosen pixel, cos(theta) and phi are
 * uniform, so the solid-angle density is constant over the pixel:
 * pdf = luminance / sum(luminance x solid angle). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exr.h"
#include "lights.h"
#include "sampling.h"
#include "sky.h"

struct pw_envmap {
    int w, h;
    float *rgb;            /* 3 w h, already scaled by the intensity */
    double cos_rot, sin_rot;
    double *lum;           /* w h luminance */
    double *row_cdf;       /* h + 1 */
    double *col_cdf;       /* h (w + 1) */
    double *cos_edge;      /* h + 1: cos theta at the row edges, decreasing */
    double inv_total;      /* 1 / sum(lum x solid angle) [1/(W/m^2)] or 0 if black */
};

/* ---- helpers --------------------------------------------------------------- */

static int v3_equal_zero(vec3 a) { return a.x == 0 && a.y == 0 && a.z == 0; }

static double luminance(double r, double g, double b)
{
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/* Index i with cdf[i] <= u < cdf[i+1] among n intervals, skipping empty ones. */
static int cdf_find(const double *cdf, int n, double u)
{
    int lo = 0, hi = n; /* cdf[lo] <= u < cdf[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] <= u) lo = mid;
        else hi = mid;
    }
    while (lo < n - 1 && cdf[lo + 1] <= cdf[lo]) lo++; /* never land on a zero-weight bin */
    return lo;
}

static vec3 map_from_world(const pw_envmap *e, vec3 d)
{
    return v3(e->cos_rot * d.x - e->sin_rot * d.z, d.y, e->sin_rot * d.x + e->cos_rot * d.z);
}

static vec3 world_from_map(const pw_envmap *e, vec3 d)
{
    return v3(e->cos_rot * d.x + e->sin_rot * d.z, d.y, -e->sin_rot * d.x + e->cos_rot * d.z);
}

/* ---- env map --------------------------------------------------------------- */

pw_envmap *pw_envmap_create(const float *rgb, int width, int height, double intensity,
                            double rotation_deg, pw_error *err)
{
    if (width < 1 || height < 1 || (size_t)width * (size_t)height > ((size_t)1 << 28)) {
        pw_fail(err, PW_EINVAL, "envmap: size must be positive and at most 2^28 pixels "
                "(%d x %d)", width, height);
        return NULL;
    }
    if (!(intensity >= 0) || !isfinite(intensity) || !isfinite(rotation_deg)) {
        pw_fail(err, PW_EINVAL, "envmap: intensity must be finite and >= 0 (%g), rotation "
                "finite (%g)", intensity, rotation_deg);
        return NULL;
    }
    size_t n = (size_t)width * (size_t)height;
    for (size_t q = 0; q < 3 * n; q++)
        if (!isfinite(rgb[q]) || rgb[q] < 0) {
            pw_fail(err, PW_EINVAL, "envmap: pixel (%zu, %zu) channel %zu is negative or not "
                    "finite (%g)", (q / 3) / width, (q / 3) % width, q % 3, rgb[q]);
            return NULL;
        }
    pw_envmap *e = calloc(1, sizeof *e);
    if (!e) goto nomem;
    e->w = width;
    e->h = height;
    e->rgb = malloc(3 * n * sizeof *e->rgb);
    e->lum = malloc(n * sizeof *e->lum);
    e->row_cdf = malloc((size_t)(height + 1) * sizeof *e->row_cdf);
    e->col_cdf = malloc((size_t)height * (size_t)(width + 1) * sizeof *e->col_cdf);
    e->cos_edge = malloc((size_t)(height + 1) * sizeof *e->cos_edge);
    if (!e->rgb || !e->lum || !e->row_cdf || !e->col_cdf || !e->cos_edge) goto nomem;
    double rot = rotation_deg * PW_PI / 180.0;
    e->cos_rot = cos(rot);
    e->sin_rot = sin(rot);
    for (size_t q = 0; q < 3 * n; q++) e->rgb[q] = (float)(rgb[q] * intensity);
    for (int i = 0; i <= height; i++) e->cos_edge[i] = cos(PW_PI * i / height);
    e->cos_edge[0] = 1.0;
    e->cos_edge[height] = -1.0;

    /* conditional CDFs per row (luminance), marginal over rows (x row solid angle) */
    double dphi = 2.0 * PW_PI / width;
    e->row_cdf[0] = 0;
    for (int i = 0; i < height; i++) {
        double *cdf = e->col_cdf + (size_t)i * (width + 1);
        cdf[0] = 0;
        for (int j = 0; j < width; j++) {
            const float *c = e->rgb + 3 * ((size_t)i * width + j);
            double l = luminance(c[0], c[1], c[2]);
            e->lum[(size_t)i * width + j] = l;
            cdf[j + 1] = cdf[j] + l;
        }
        double row_sum = cdf[width];
        for (int j = 1; j <= width; j++)
            cdf[j] = row_sum > 0 ? cdf[j] / row_sum : (double)j / width;
        cdf[width] = 1.0;
        double omega_row = dphi * (e->cos_edge[i] - e->cos_edge[i + 1]);
        e->row_cdf[i + 1] = e->row_cdf[i] + row_sum * omega_row;
    }
    double total = e->row_cdf[height];
    e->inv_total = total > 0 ? 1.0 / total : 0.0;
    for (int i = 1; i <= height; i++) e->row_cdf[i] = total > 0 ? e->row_cdf[i] / total : 0;
    e->row_cdf[height] = 1.0;
    return e;

nomem:
    pw_envmap_destroy(e);
    pw_fail(err, PW_ENOMEM, "envmap: out of memory (%d x %d)", width, height);
    return NULL;
}

pw_envmap *pw_envmap_load(const char *path, double intensity, double rotation_deg,
                          pw_error *err)
{
    int w = 0, h = 0;
    float *rgb = NULL;
    if (pw_exr_read_rgb(path, &w, &h, &rgb, err) != PW_OK) return NULL;
    pw_envmap *e = pw_envmap_create(rgb, w, h, intensity, rotation_deg, err);
    if (!e) pw_error_prefix(err, "%s", path);
    free(rgb);
    return e;
}

void pw_envmap_destroy(pw_envmap *e)
{
    if (!e) return;
    free(e->rgb);
    free(e->lum);
    free(e->row_cdf);
    free(e->col_cdf);
    free(e->cos_edge);
    free(e);
}

void pw_envmap_pixel(const pw_envmap *e, vec3 dir, int *row, int *col)
{
    vec3 d = map_from_world(e, dir);
    double theta = acos(fmin(1.0, fmax(-1.0, d.y)));
    double phi = atan2(d.z, d.x);
    if (phi < 0) phi += 2.0 * PW_PI;
    int i = (int)(theta / PW_PI * e->h), j = (int)(phi / (2.0 * PW_PI) * e->w);
    *row = i < 0 ? 0 : (i >= e->h ? e->h - 1 : i);
    *col = j < 0 ? 0 : (j >= e->w ? e->w - 1 : j);
}

vec3 pw_envmap_eval(const pw_envmap *e, vec3 dir)
{
    int i, j;
    pw_envmap_pixel(e, dir, &i, &j);
    const float *c = e->rgb + 3 * ((size_t)i * e->w + j);
    return v3(c[0], c[1], c[2]);
}

double pw_envmap_pdf(const pw_envmap *e, vec3 dir)
{
    int i, j;
    pw_envmap_pixel(e, dir, &i, &j);
    return e->lum[(size_t)i * e->w + j] * e->inv_total;
}

vec3 pw_envmap_sample(const pw_envmap *e, double u1, double u2, vec3 *dir, double *pdf)
{
    if (e->inv_total == 0) {
        *pdf = 0;
        *dir = v3(0, 1, 0);
        return v3_zero();
    }
    /* row from the marginal, column from the row's conditional; the leftover fraction of
     * each uniform number places the direction inside the pixel */
    int i = cdf_find(e->row_cdf, e->h, u1);
    double fu = (u1 - e->row_cdf[i]) / (e->row_cdf[i + 1] - e->row_cdf[i]);
    const double *cdf = e->col_cdf + (size_t)i * (e->w + 1);
    int j = cdf_find(cdf, e->w, u2);
    double fv = (u2 - cdf[j]) / (cdf[j + 1] - cdf[j]);
    fu = fmin(fmax(fu, 0.0), 1.0);
    fv = fmin(fmax(fv, 0.0), 1.0);
    double cos_theta = e->cos_edge[i] - fu * (e->cos_edge[i] - e->cos_edge[i + 1]);
    double sin_theta = sqrt(fmax(0.0, 1.0 - cos_theta * cos_theta));
    double phi = (j + fv) * 2.0 * PW_PI / e->w;
    *dir = world_from_map(e, v3(sin_theta * cos(phi), cos_theta, sin_theta * sin(phi)));
    *pdf = e->lum[(size_t)i * e->w + j] * e->inv_total;
    const float *c = e->rgb + 3 * ((size_t)i * e->w + j);
    return v3(c[0], c[1], c[2]);
}

/* ---- daylight ---------------------------------------------------------------- */

/* The daylight sky's map: 1024 x 512 pixels of 0.35 deg, each the model's radiance at
 * its centre; the horizon falls on a row edge, below it the ground. Fine enough
 * that the piecewise-constant map is within 1 % of the model over the sky, apart from
 * the first rows above the horizon when the sun is low (render/docs/daylight.md). */
#define DAYLIGHT_MAP_W 1024
#define DAYLIGHT_MAP_H 512

static pw_status init_daylight(pw_lights *L, const pw_lights_desc *desc, pw_error *err)
{
    double k = desc->daylight_intensity, a = desc->sun_angular_diameter_deg;
    if (!(k >= 0) || !isfinite(k))
        return pw_fail(err, PW_EINVAL, "lights: daylight intensity must be finite and >= 0 "
                       "(%g)", k);
    if (!(desc->daylight_ground_albedo >= 0 && desc->daylight_ground_albedo <= 1))
        return pw_fail(err, PW_EINVAL, "lights: daylight ground_albedo must be in [0, 1] (%g)",
                       desc->daylight_ground_albedo);
    if (!isfinite(desc->sun_azimuth_deg))
        return pw_fail(err, PW_EINVAL, "lights: daylight sun_azimuth_deg must be finite (%g)",
                       desc->sun_azimuth_deg);
    if (!(a > 0 && a <= 90))
        return pw_fail(err, PW_EINVAL, "lights: sun_angular_diameter_deg must be in (0, 90] "
                       "(%g)", a);
    pw_sky_model m;
    pw_status rc = pw_sky_model_init(&m, desc->sun_elevation_deg, desc->turbidity, err);
    if (rc != PW_OK) return rc;
    double half = 0.5 * a * PW_PI / 180.0;
    L->has_sun = 1;
    L->sun_dir = pw_sky_sun_direction(desc->sun_elevation_deg, desc->sun_azimuth_deg);
    L->sun_cos_max = cos(half);
    vec3 E_sun = pw_sky_sun_irradiance(desc->sun_elevation_deg, desc->turbidity);
    vec3 E = v3_scale(E_sun, k);
    L->sun_radiance = v3_scale(E, 1.0 / (PW_PI * sin(half) * sin(half)));

    const int W = DAYLIGHT_MAP_W, H = DAYLIGHT_MAP_H;
    float *rgb = calloc((size_t)3 * W * H, sizeof *rgb);
    if (!rgb) return pw_fail(err, PW_ENOMEM, "lights: out of memory (daylight map)");
    /* the sky, and its illuminance on the ground E = sum L cos(theta) dOmega */
    vec3 E_ground = v3_scale(E_sun, L->sun_dir.y); /* the map is scaled by k below */
    for (int i = 0; i < H / 2; i++) {
        double theta = (i + 0.5) * PW_PI / H;
        double omega = 2.0 * PW_PI / W * (cos(i * PW_PI / H) - cos((i + 1) * PW_PI / H));
        for (int j = 0; j < W; j++) {
            double phi = (j + 0.5) * 2.0 * PW_PI / W;
            vec3 d = v3(sin(theta) * cos(phi), cos(theta), sin(theta) * sin(phi));
            vec3 c = pw_sky_model_radiance(&m, L->sun_dir, d);
            float *px = rgb + 3 * ((size_t)i * W + j);
            px[0] = (float)c.x;
            px[1] = (float)c.y;
            px[2] = (float)c.z;
            E_ground = v3_madd(E_ground, v3((float)c.x, (float)c.y, (float)c.z),
                               cos(theta) * omega);
        }
    }
    /* below the horizon, the land beyond the scene's own surfaces: a diffuse ground of
     * albedo ground_albedo under that sun and sky, so no black band shows past a drawn
     * ground and the snow gets the land's bounce light */
    vec3 L_ground = v3_scale(E_ground, desc->daylight_ground_albedo / PW_PI);
    for (size_t q = (size_t)W * (H / 2); q < (size_t)W * H; q++) {
        rgb[3 * q + 0] = (float)L_ground.x;
        rgb[3 * q + 1] = (float)L_ground.y;
        rgb[3 * q + 2] = (float)L_ground.z;
    }
    L->env = pw_envmap_create(rgb, W, H, k, 0.0, err);
    free(rgb);
    return L->env ? PW_OK : (err ? err->code : PW_ENOMEM);
}

/* ---- lights ------------------------------------------------------------------ */

pw_status pw_lights_init(pw_lights *L, const pw_lights_desc *desc, pw_error *err)
{
    memset(L, 0, sizeof *L);
    if (!(desc->sky_sampling >= PW_SKY_SAMPLING_AUTO && desc->sky_sampling <= PW_SKY_SAMPLING_NEVER))
        return pw_fail(err, PW_EINVAL, "lights: sky_sampling must be auto, always or never (%d)",
                       desc->sky_sampling);
    if (desc->daylight) {
        if (desc->envmap_path[0] || !v3_equal_zero(desc->sun_irradiance) ||
            !v3_equal_zero(desc->sky_radiance))
            return pw_fail(err, PW_EINVAL, "lights: daylight gives the sun and the sky; "
                           "sun_irradiance, sky_radiance and envmap_path must be unset");
        L->env_light_sampled = desc->sky_sampling == PW_SKY_SAMPLING_ALWAYS;
        return init_daylight(L, desc, err);
    }
    L->env_light_sampled = desc->sky_sampling != PW_SKY_SAMPLING_NEVER;
    vec3 E = desc->sun_irradiance;
    if (!v3_isfinite(E) || E.x < 0 || E.y < 0 || E.z < 0)
        return pw_fail(err, PW_EINVAL, "lights: sun_irradiance must be finite and >= 0 "
                       "(%g, %g, %g)", E.x, E.y, E.z);
    vec3 S = desc->sky_radiance;
    if (!v3_isfinite(S) || S.x < 0 || S.y < 0 || S.z < 0)
        return pw_fail(err, PW_EINVAL, "lights: sky_radiance must be finite and >= 0 "
                       "(%g, %g, %g)", S.x, S.y, S.z);
    if (E.x > 0 || E.y > 0 || E.z > 0) {
        double len = v3_length(desc->sun_direction), a = desc->sun_angular_diameter_deg;
        if (!(len > 0) || !isfinite(len))
            return pw_fail(err, PW_EINVAL, "lights: sun_direction must be a nonzero finite "
                           "vector (length %g)", len);
        if (!(a > 0 && a <= 90))
            return pw_fail(err, PW_EINVAL, "lights: sun_angular_diameter_deg must be in "
                           "(0, 90] (%g)", a);
        double half = 0.5 * a * PW_PI / 180.0;
        L->has_sun = 1;
        L->sun_dir = v3_scale(desc->sun_direction, 1.0 / len);
        L->sun_cos_max = cos(half);
        /* a uniform disc of radiance Ls gives E = Ls pi sin^2(half) at normal incidence */
        L->sun_radiance = v3_scale(E, 1.0 / (PW_PI * sin(half) * sin(half)));
    }
    L->sky = S;
    if (desc->envmap_path[0]) {
        L->env = pw_envmap_load(desc->envmap_path, desc->envmap_intensity,
                                desc->envmap_rotation_deg, err);
        if (!L->env) return err ? err->code : PW_EIO;
    }
    return PW_OK;
}

void pw_lights_release(pw_lights *L)
{
    pw_envmap_destroy(L->env);
    L->env = NULL;
}

int pw_lights_env_black(const pw_lights *L)
{
    if (L->env) return L->env->inv_total == 0;
    return L->sky.x == 0 && L->sky.y == 0 && L->sky.z == 0;
}

int pw_lights_env_sampled(const pw_lights *L)
{
    return L->env && L->env_light_sampled && !pw_lights_env_black(L);
}

vec3 pw_lights_env_eval(const pw_lights *L, vec3 dir)
{
    return L->env ? pw_envmap_eval(L->env, dir) : L->sky;
}

double pw_lights_env_pdf(const pw_lights *L, vec3 dir)
{
    if (pw_lights_env_black(L)) return 0.0;
    return L->env ? pw_envmap_pdf(L->env, dir) : PW_INV_4PI;
}

vec3 pw_lights_env_sample(const pw_lights *L, double u1, double u2, vec3 *dir, double *pdf)
{
    if (L->env) return pw_envmap_sample(L->env, u1, u2, dir, pdf);
    *dir = pw_sample_sphere(u1, u2);
    *pdf = PW_INV_4PI;
    return L->sky;
}

vec3 pw_lights_sun_sample(const pw_lights *L, double u1, double u2, vec3 *dir)
{
    *dir = pw_sample_cone(L->sun_dir, L->sun_cos_max, u1, u2);
    return v3_scale(L->sun_radiance, 2.0 * PW_PI * (1.0 - L->sun_cos_max));
}

vec3 pw_lights_sun_eval(const pw_lights *L, vec3 dir)
{
    if (L->has_sun && v3_dot(dir, L->sun_dir) >= L->sun_cos_max) return L->sun_radiance;
    return v3_zero();
}
