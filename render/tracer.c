/* tracer.c — stage 3: the volumetric path tracer (integrator and frame loop).
 *
 * One camera sample is a path: free flight by delta tracking up to the nearest surface,
 * a real collision scatters by HG (throughput x albedo), a surface hit scatters
 * diffusely (throughput x colour); at every event the sun and an environment map are
 * sampled (next-event estimation) with ratio-tracked shadow rays, and the environment
 * is also reached by the scattered ray, the two combined by the power heuristic; a
 * constant sky is reached by the scattered ray alone (pw_lights_env_sampled).
 * Russian roulette after rr_start_depth events; max_depth is only a safety cap whose
 * cuts are counted. Every sample draws from its own hash-seeded RNG, so pixels do not
 * depend on the thread schedule. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "denoise.h"
#include "density.h"
#include "lights.h"
#include "pw_render.h"
#include "sampling.h"

#define TILE 16
/* Shadow-ray transmittance below which ratio tracking plays Russian roulette. Inside
 * packed snow most shadow rays are doomed, so an early roulette saves more time than it
 * adds variance: 0.5 was more efficient than 0.1 on the snowball benchmark
 * (render/docs/noise.md, "Figures behind the code's comments"). */
#define SHADOW_RR_THRESHOLD 0.5
/* Next-event roulette (nee_probability): a medium event does NEE with probability
 * T_max / NEE_T_REF where its transmittance bound T_max is below NEE_T_REF. */
#define NEE_T_REF 1.0
/* Offset of ray origins off a surface [m]: well above double rounding at scene scale
 * (< 1e3 m), well below the snow's mean free path (1.4 mm). */
#define SURFACE_EPS 1e-6
/* The denoiser's sun guide (sun_guide): the optical depth along the camera ray from which
 * it looks towards the sun (render/docs/denoiser.md measures 0.05-2), the quadrature's
 * step in density spacings (the surface's rim is one spacing wide), and the depth past
 * which the sun is taken as unseen (e^-20). */
#define GUIDE_TAU 0.35
#define GUIDE_STEP 0.25
#define GUIDE_TAU_OPAQUE 20.0
/* Adaptive sampling (settings.noise_target > 0): every pixel takes noise_min_spp
 * samples, then batches of ADAPTIVE_BATCH until its standard error meets the target;
 * pixels darker than ADAPTIVE_FLOOR_SHARE of the image's mean luminance are held to
 * the target relative to that (render/docs/adaptive-sampling.md). */
#define ADAPTIVE_BATCH 8
#define ADAPTIVE_FLOOR_SHARE 0.1

struct pw_renderer {
    pw_render_settings s;
    int features;           /* the camera paths gather the first events' features (for
                               the denoiser or the features AOV) */
    int n_instants;                           /* instants of the shutter (1 = frozen) */
    pw_camera cam[PW_MAX_INSTANTS];           /* the camera at each instant */
    const pw_surfaces *surf[PW_MAX_INSTANTS]; /* the surfaces at each instant (or NULL) */
    pw_medium_desc md;
    double sigma_per_rho;   /* sigma_t_ref / rho_ref [m^2/kg] */
    pw_lights lights;
};

/* What one camera sample sees: the scene at the instant it was given. */
typedef struct {
    const pw_density *d;
    const pw_surfaces *surf;
} instant;

typedef struct {
    vec3 L;                 /* radiance [W/m^2/sr] */
    int hit;                /* the primary ray met the medium or a surface */
    double alpha;           /* coverage of this sample: 1 on a hit, the shadow share on a
                               shadow catcher, 0 for sky and holdouts */
    int seen;               /* the primary ray met anything, holdouts and shadow catchers
                               too: depth is set (compositors place other elements behind
                               a holdout by its depth) */
    double depth;           /* [m] distance to the first event */
    vec3 albedo;            /* albedo of the first event */
    vec3 normal;            /* unit normal at the first event (features only) */
    double sun_T;           /* the sun's transmittance: sun_guide's (sun_seen 2), else the
                               first event's shadow ray's (sun_seen 1; features only) */
    int sun_seen;
    uint64_t events;        /* real collisions + surface bounces */
    int cut;                /* ended by max_depth */
} path_result;

/* ---- settings ----------------------------------------------------------------- */

static pw_status check_settings(const pw_render_settings *s, const pw_medium_desc *md,
                                pw_error *err)
{
    if (s->spp < 1 || s->spp > (1 << 24))
        return pw_fail(err, PW_EINVAL, "render: spp must be in [1, 2^24] (%d)", s->spp);
    if (!(s->noise_target >= 0 && s->noise_target < 1))
        return pw_fail(err, PW_EINVAL, "render: noise_target must be in [0, 1) (%g)",
                       s->noise_target);
    if (s->noise_target > 0 && s->noise_min_spp < 2)
        return pw_fail(err, PW_EINVAL, "render: noise_min_spp must be >= 2 with a noise "
                       "target (a variance needs two samples) (%d)", s->noise_min_spp);
    if (s->denoise && s->spp < 2)
        return pw_fail(err, PW_EINVAL, "render: denoise needs spp >= 2 (a variance needs two "
                       "samples) (%d)", s->spp);
    if (s->max_depth < 1)
        return pw_fail(err, PW_EINVAL, "render: max_depth must be >= 1 (%d)", s->max_depth);
    if (s->rr_start_depth < 0)
        return pw_fail(err, PW_EINVAL, "render: rr_start_depth must be >= 0 (%d)",
                       s->rr_start_depth);
    if (s->threads < 0 || s->threads > 4096)
        return pw_fail(err, PW_EINVAL, "render: threads must be in [0, 4096] (%d)", s->threads);
    if (!(md->sigma_t_ref >= 0) || !isfinite(md->sigma_t_ref))
        return pw_fail(err, PW_EINVAL, "medium: sigma_t_ref must be finite and >= 0 (%g)",
                       md->sigma_t_ref);
    if (!(md->rho_ref > 0) || !isfinite(md->rho_ref))
        return pw_fail(err, PW_EINVAL, "medium: rho_ref must be finite and > 0 (%g)",
                       md->rho_ref);
    for (int k = 0; k < 3; k++) {
        double a = v3_get(md->albedo, k);
        if (!(a >= 0 && a <= 1))
            return pw_fail(err, PW_EINVAL, "medium: albedo[%d] must be in [0, 1] (%g)", k, a);
    }
    if (!(md->g > -1 && md->g < 1))
        return pw_fail(err, PW_EINVAL, "medium: g must be in (-1, 1) (%g)", md->g);
    return PW_OK;
}

/* ---- next-event estimation ----------------------------------------------------- */

/* Transmittance from x towards dir to infinity: surfaces block, the medium attenuates. */
static double shadow(const pw_renderer *r, const instant *in, vec3 x, vec3 dir, pw_rng *rng)
{
    if (in->surf && pw_surfaces_occluded(in->surf, x, dir, 0.0, INFINITY)) return 0.0;
    return pw_medium_transmittance(in->d, r->sigma_per_rho, x, dir, 0.0, INFINITY,
                                   SHADOW_RR_THRESHOLD, rng);
}

/* The normalised scattering lobe at an event: the HG phase function about the incoming
 * propagation direction wi (medium), or cos/pi about n (surface). It is also the pdf
 * with which the path continues. */
typedef struct {
    int surface;
    vec3 wi, n;
    double g;
} lobe;

static double lobe_eval(const lobe *lb, vec3 wo)
{
    if (lb->surface) return fmax(0.0, v3_dot(lb->n, wo)) / PW_PI;
    return pw_hg_pdf(v3_dot(lb->wi, wo), lb->g);
}

/* Light reaching the eye through one event at x, per unit path throughput. */
static vec3 direct_light(const pw_renderer *r, const instant *in, vec3 x, const lobe *lb,
                         pw_rng *rng, path_result *first)
{
    const pw_lights *L = &r->lights;
    vec3 sum = v3_zero();
    /* the sun, sampled uniformly in its cone */
    if (L->has_sun) {
        vec3 wo;
        vec3 Ew = pw_lights_sun_sample(L, pw_rng_next(rng), pw_rng_next(rng), &wo);
        double f = lobe_eval(lb, wo);
        if (f > 0) {
            double T = shadow(r, in, x, wo, rng);
            if (T > 0) sum = v3_madd(sum, Ew, f * T);
            if (first) first->sun_T = T, first->sun_seen = 1; /* the denoiser's feature */
        }
    }
    /* an environment map, light sampling half of MIS (a constant sky is reached by the
     * scattered ray alone) */
    if (pw_lights_env_sampled(L)) {
        vec3 wo;
        double pdf_light;
        vec3 Le = pw_lights_env_sample(L, pw_rng_next(rng), pw_rng_next(rng), &wo, &pdf_light);
        double f = lobe_eval(lb, wo);
        if (f > 0 && pdf_light > 0) {
            double T = shadow(r, in, x, wo, rng);
            if (T > 0)
                sum = v3_madd(sum, Le, f * T * pw_mis_power(pdf_light, f) / pdf_light);
        }
    }
    return sum;
}

/* The share of the direct light at a shadow catcher's point x that the scene takes away:
 * 1 - sum(E f T) / sum(E f) over the same light samples, luminance-weighted (alpha is
 * one channel). Only direct light: what the snow bounces onto the ground is not in it. */
static double catcher_shadow(const pw_renderer *r, const instant *in, vec3 x, const lobe *lb,
                             pw_rng *rng)
{
    const pw_lights *L = &r->lights;
    const vec3 lum = v3(0.2126, 0.7152, 0.0722);
    double lit = 0, unoccluded = 0;
    if (L->has_sun) {
        vec3 wo;
        vec3 Ew = pw_lights_sun_sample(L, pw_rng_next(rng), pw_rng_next(rng), &wo);
        double e = v3_dot(Ew, lum) * lobe_eval(lb, wo);
        if (e > 0) {
            unoccluded += e;
            lit += e * shadow(r, in, x, wo, rng);
        }
    }
    if (!pw_lights_env_black(L)) {
        vec3 wo;
        double pdf_light;
        vec3 Le = pw_lights_env_sample(L, pw_rng_next(rng), pw_rng_next(rng), &wo, &pdf_light);
        double e = pdf_light > 0 ? v3_dot(Le, lum) * lobe_eval(lb, wo) / pdf_light : 0;
        if (e > 0) {
            unoccluded += e;
            lit += e * shadow(r, in, x, wo, rng);
        }
    }
    return unoccluded > 0 ? 1.0 - lit / unoccluded : 0.0;
}

/* Probability of doing next-event estimation at a medium event at x. Every shadow ray
 * from x has transmittance at most T_max = exp(-sigma_per_rho q), q the column floor of
 * x's cell (column_floor.c), so its light is at most T_max of what an unoccluded event
 * receives. Russian roulette with p = T_max / NEE_T_REF keeps the estimate unbiased and
 * never weights a surviving sample above NEE_T_REF times the unoccluded light, while deep
 * inside packed snow, where shadow rays return almost nothing, it saves their cost.
 * Depends on x alone, never on the shadow ray's outcome. */
static double nee_probability(const pw_renderer *r, const pw_density *d, vec3 x)
{
    const double tau_ref = -log(NEE_T_REF); /* T_max < NEE_T_REF beyond this depth */
    double tau = r->sigma_per_rho * pw_density_column_floor_at(d, x);
    if (tau <= tau_ref) return 1.0;
    double p = (double)expf((float)(tau_ref - tau)); /* float: p needs no more */
    return p > 1e-30 ? p : 1e-30;
}

/* ---- one path ---------------------------------------------------------------- */

/* The denoiser's sun feature for a camera ray that enters the snow: the sun's
 * transmittance, by deterministic quadrature towards the sun's centre, from where the
 * ray's optical depth reaches GUIDE_TAU. The shadow ray next-event estimation traces from
 * the sampled first event sees the same relief (a grain in its neighbour's shadow) but
 * with the noise of the event's depth and of ratio tracking; this one varies only with
 * the sample's place in the pixel. Returns 0 (no guide) where a surface comes first or the
 * ray never gets that deep. */
static int sun_guide(const pw_renderer *r, const instant *in, vec3 o, vec3 dir, double *T)
{
    double h = pw_density_spacing(in->d), t_surf = INFINITY, t_in;
    pw_surface_hit hit;
    if (in->surf && pw_surfaces_intersect(in->surf, o, dir, 0.0, INFINITY, &hit)) t_surf = hit.t;
    pw_medium_optical_depth(in->d, r->sigma_per_rho, o, dir, 0.0, t_surf, GUIDE_STEP * h,
                            GUIDE_TAU, &t_in);
    if (!(t_in < t_surf)) return 0;
    vec3 x = v3_madd(o, dir, t_in), wo = r->lights.sun_dir;
    if (in->surf && pw_surfaces_occluded(in->surf, x, wo, 0.0, INFINITY)) {
        *T = 0.0;
        return 1;
    }
    *T = exp(-pw_medium_optical_depth(in->d, r->sigma_per_rho, x, wo, 0.0, INFINITY,
                                      2 * GUIDE_STEP * h, GUIDE_TAU_OPAQUE, NULL));
    return 1;
}

/* The denoiser's normal where a camera ray first meets the snow: the direction in which
 * the density falls, by central differences one grid spacing wide (wider than the
 * antialiased rim, so the snow's outline gives one direction across it). Where the
 * density is flat there is no surface to speak of: the normal faces the ray. */
static vec3 medium_normal(const pw_density *d, vec3 x, vec3 dir)
{
    double h = pw_density_spacing(d);
    vec3 g = v3(pw_density_lookup(d, v3(x.x + h, x.y, x.z)) -
                    pw_density_lookup(d, v3(x.x - h, x.y, x.z)),
                pw_density_lookup(d, v3(x.x, x.y + h, x.z)) -
                    pw_density_lookup(d, v3(x.x, x.y - h, x.z)),
                pw_density_lookup(d, v3(x.x, x.y, x.z + h)) -
                    pw_density_lookup(d, v3(x.x, x.y, x.z - h)));
    double len = sqrt(v3_dot(g, g));
    return len > 0 ? v3_scale(g, -1.0 / len) : v3_scale(dir, -1.0);
}

/* By comparisons: libm's fmax is a call per event (NaN rules this loop never needs). */
static inline double max3(vec3 a)
{
    double m = a.x > a.y ? a.x : a.y;
    return m > a.z ? m : a.z;
}

static void trace_path(const pw_renderer *r, const instant *in, vec3 o, vec3 dir,
                       pw_rng *rng, path_result *res)
{
    const pw_lights *L = &r->lights;
    vec3 beta = v3(1, 1, 1);
    double lobe_pdf = 0;   /* density of the last scattering direction */
    memset(res, 0, sizeof *res);
    for (;;) {
        /* The nearest surface bounds the free flight. Up to t_clear no surface can be hit,
         * so a collision found there needs no surface query; past it the tracking goes on
         * from t_clear to the surface (free flight is memoryless: the same distribution as
         * tracking up to the surface at once). */
        pw_surface_hit hit;
        int has_hit = 0;
        double t, t_clear = in->surf ? pw_surfaces_clear_until(in->surf, o, dir) : INFINITY;
        int in_medium = pw_medium_sample_collision(in->d, r->sigma_per_rho, o, dir, 0.0, t_clear,
                                                   rng, &t);
        if (!in_medium && t_clear < INFINITY) {
            has_hit = pw_surfaces_intersect(in->surf, o, dir, 0.0, INFINITY, &hit);
            double t_surf = has_hit ? hit.t : INFINITY;
            if (t_surf > t_clear)
                in_medium = pw_medium_sample_collision(in->d, r->sigma_per_rho, o, dir, t_clear,
                                                       t_surf, rng, &t);
        }
        if (!in_medium && !has_hit) {
            /* escaped: the environment (MIS with light sampling), the sun for camera rays */
            vec3 Le = pw_lights_env_eval(L, dir);
            if (res->events == 0) {
                if (r->s.transparent_background) return; /* a plate goes behind instead */
                res->L = v3_add(res->L, v3_mul(beta, v3_add(Le, pw_lights_sun_eval(L, dir))));
            } else {
                double w = pw_lights_env_sampled(L)
                               ? pw_mis_power(lobe_pdf, pw_lights_env_pdf(L, dir))
                               : 1.0;
                res->L = v3_add(res->L, v3_scale(v3_mul(beta, Le), w));
            }
            return;
        }
        lobe lb = {0, {0, 0, 0}, {0, 0, 0}, 0};
        vec3 x, albedo;
        if (in_medium) {
            x = v3_madd(o, dir, t);
            albedo = r->md.albedo;
            lb.surface = 0;
            lb.wi = dir;
            lb.g = r->md.g;
        } else {
            t = hit.t;
            x = v3_madd(hit.p, hit.n, SURFACE_EPS);
            albedo = hit.color;
            lb.surface = 1;
            lb.n = hit.n;
            if (res->events == 0) {
                res->seen = 1;
                res->depth = t;
            }
            /* the camera sees a stand-in for a filmed object: no colour of its own */
            if (res->events == 0 && hit.role == PW_SURFACE_HOLDOUT) return;
            if (res->events == 0 && hit.role == PW_SURFACE_SHADOW_CATCHER) {
                res->alpha = catcher_shadow(r, in, x, &lb, rng);
                return;
            }
        }
        if (res->events == 0) {
            res->hit = 1;
            res->seen = 1;
            res->alpha = 1;
            res->depth = t;
            res->albedo = albedo;
            if (r->features) res->normal = in_medium ? medium_normal(in->d, x, dir) : lb.n;
            if (r->features && in_medium && r->lights.has_sun &&
                sun_guide(r, in, o, dir, &res->sun_T))
                res->sun_seen = 2; /* the first event's shadow ray leaves it alone */
        }
        if (++res->events > (uint64_t)r->s.max_depth) {
            res->cut = 1;
            return;
        }
        /* scatter: throughput times albedo, then light through this event */
        beta = v3_mul(beta, albedo);
        if (max3(beta) <= 0) return;
        double p_nee = in_medium ? nee_probability(r, in->d, x) : 1.0;
        /* the first event's shadow ray is the sun feature where sun_guide gave none */
        int first_nee = r->features && res->events == 1 && res->sun_seen != 2;
        if (p_nee >= 1.0 || pw_rng_next(rng) < p_nee)
            res->L = v3_add(res->L, v3_scale(v3_mul(beta, direct_light(r, in, x, &lb, rng,
                                             first_nee ? res : NULL)),
                                             1.0 / p_nee));
        /* Russian roulette on the throughput */
        if (res->events > (uint64_t)r->s.rr_start_depth) {
            double q = max3(beta);
            if (q > 1.0) q = 1.0;
            if (pw_rng_next(rng) >= q) return;
            beta = v3_scale(beta, 1.0 / q);
        }
        /* continue along a direction drawn from the lobe (weight f / pdf = 1) */
        double u1 = pw_rng_next(rng), u2 = pw_rng_next(rng);
        if (lb.surface) {
            dir = pw_sample_cosine(lb.n, u1, u2);
            lobe_pdf = fmax(0.0, v3_dot(lb.n, dir)) / PW_PI;
        } else {
            dir = pw_hg_sample(lb.wi, lb.g, u1, u2, &lobe_pdf);
        }
        o = x;
    }
}

/* ---- public -------------------------------------------------------------------- */

pw_renderer *pw_renderer_create(const pw_render_settings *s, const pw_camera_desc *c,
                                const pw_medium_desc *md, const pw_lights_desc *l,
                                const pw_surfaces *surf, pw_error *err)
{
    return pw_renderer_create_instants(s, 1, c, &surf, md, l, err);
}

pw_renderer *pw_renderer_create_instants(const pw_render_settings *s, int n,
                                         const pw_camera_desc *cams,
                                         const pw_surfaces *const *surfs,
                                         const pw_medium_desc *md, const pw_lights_desc *l,
                                         pw_error *err)
{
    if (!s || !cams || !surfs || !md || !l) {
        pw_fail(err, PW_EINVAL, "pw_renderer_create: NULL description");
        return NULL;
    }
    if (n < 1 || n > PW_MAX_INSTANTS) {
        pw_fail(err, PW_EINVAL, "render: shutter instants must be in [1, %d] (%d)",
                PW_MAX_INSTANTS, n);
        return NULL;
    }
    for (int j = 1; j < n; j++)
        if (cams[j].width_px != cams[0].width_px || cams[j].height_px != cams[0].height_px) {
            pw_fail(err, PW_EINVAL, "render: the camera of instant %d is %d x %d, of instant "
                    "0 %d x %d", j, cams[j].width_px, cams[j].height_px, cams[0].width_px,
                    cams[0].height_px);
            return NULL;
        }
    if (check_settings(s, md, err) != PW_OK) return NULL;
    pw_renderer *r = calloc(1, sizeof *r);
    if (!r) {
        pw_fail(err, PW_ENOMEM, "pw_renderer_create: out of memory");
        return NULL;
    }
    r->s = *s;
    r->features = s->denoise || s->aov_features;
    r->md = *md;
    r->sigma_per_rho = md->sigma_t_ref / md->rho_ref;
    r->n_instants = n;
    for (int j = 0; j < n; j++) {
        r->surf[j] = surfs[j];
        if (pw_camera_init(&r->cam[j], &cams[j], err) != PW_OK) {
            if (n > 1) pw_error_prefix(err, "instant %d", j);
            pw_renderer_destroy(r);
            return NULL;
        }
    }
    if (pw_lights_init(&r->lights, l, err) != PW_OK) {
        pw_renderer_destroy(r);
        return NULL;
    }
    return r;
}

void pw_renderer_destroy(pw_renderer *r)
{
    if (!r) return;
    pw_lights_release(&r->lights);
    free(r);
}

void pw_image_free(pw_image *img)
{
    if (!img) return;
    free(img->rgba);
    free(img->depth);
    free(img->albedo);
    free(img->samples);
    free(img->variance);
    free(img->noisy);
    free(img->normal);
    free(img->sun);
    memset(img, 0, sizeof *img);
}

static double rec709_luminance(vec3 c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

/* What one pixel has gathered: sums over its samples so far, and the running mean and
 * sum of squared deviations (Welford) of the samples' luminance, for adaptive sampling. */
typedef struct {
    vec3 sum, alb;
    double nhit, nseen, depth, coverage;
    double mean_y, m2_y;
    int n;          /* samples taken */
    int converged;  /* its error estimate met the noise target */
} pixel_acc;

/* What the denoiser needs of a pixel beyond pixel_acc (settings.denoise only): the
 * even samples' sum (the first half; the odd ones are the rest), per-channel sums of
 * squares, and the first events' normals and squared albedo and depth. */
typedef struct {
    vec3 sum_even, sum2, normal;
    double n_even, alb2, depth2;
    double sun, sun2, n_sun; /* the sun's transmittance (path_result.sun_T) where taken */
} feature_acc;

/* Takes samples a->n .. k_end - 1 of pixel (px, py) into *a (and *f, when not NULL). */
static void sample_pixel(const pw_renderer *r, const pw_density *const *d, int px, int py,
                         int k_end, pixel_acc *a, feature_acc *f, uint64_t *events,
                         uint64_t *cut)
{
    int w = r->cam[0].width_px;
    uint64_t n_inst = (uint64_t)r->n_instants;
    uint64_t pix = (uint64_t)py * (uint64_t)w + (uint64_t)px;
    /* per-pixel rotation of the R2 pattern */
    pw_rng prng = pw_rng_seed(r->s.seed ^ 0x5eedULL, pix, UINT64_MAX);
    double off_x = pw_rng_next(&prng), off_y = pw_rng_next(&prng);
    /* samples take the instants in turn from a per-pixel start, so that every
     * pixel sees each instant equally often when spp is a multiple of them */
    uint64_t inst_off = n_inst > 1 ? (uint64_t)(pw_rng_next(&prng) * n_inst) : 0;
    for (int k = a->n; k < k_end; k++) {
        pw_rng rng = pw_rng_seed(r->s.seed, pix, (uint64_t)k);
        double fx, fy;
        pw_r2((uint64_t)k, off_x, off_y, &fx, &fy);
        uint64_t j = (inst_off + (uint64_t)k) % n_inst;
        const pw_camera *cam = &r->cam[j];
        instant in = {d[j], r->surf[j]};
        vec3 eye = cam->eye, dir;
        if (cam->lens_radius > 0) {
            /* a stream of its own, so the path's numbers are those of a pinhole */
            pw_rng lens = pw_rng_seed(r->s.seed ^ 0x1e45ULL, pix, (uint64_t)k);
            double u1 = pw_rng_next(&lens), u2 = pw_rng_next(&lens);
            dir = pw_camera_lens_ray(cam, px + fx, py + fy, u1, u2, &eye);
        } else {
            dir = pw_camera_ray(cam, px + fx, py + fy);
        }
        path_result res;
        trace_path(r, &in, eye, dir, &rng, &res);
        a->sum = v3_add(a->sum, res.L);
        *events += res.events;
        *cut += (uint64_t)res.cut;
        a->coverage += res.alpha;
        if (res.seen) {
            a->nseen += 1;
            /* planar camera z, as compositors' depth nodes expect, not ray length */
            a->depth += res.depth * v3_dot(dir, cam->forward);
        }
        if (res.hit) {
            a->nhit += 1;
            a->alb = v3_add(a->alb, res.albedo);
        }
        if (f) {
            if (k % 2 == 0) f->sum_even = v3_add(f->sum_even, res.L), f->n_even += 1;
            f->sum2 = v3_add(f->sum2, v3_mul(res.L, res.L));
            if (res.seen) {
                double z = res.depth * v3_dot(dir, cam->forward);
                f->depth2 += z * z;
            }
            if (res.hit) {
                f->normal = v3_add(f->normal, res.normal);
                f->alb2 += v3_dot(res.albedo, res.albedo);
            }
            if (res.sun_seen) f->sun += res.sun_T, f->sun2 += res.sun_T * res.sun_T, f->n_sun += 1;
        }
        double y = rec709_luminance(res.L), delta = y - a->mean_y;
        a->mean_y += delta / (k + 1);
        a->m2_y += delta * (y - a->mean_y);
    }
    a->n = k_end > a->n ? k_end : a->n;
}

/* Variance of the pixel's mean luminance, s^2 / n (0 below two samples). */
static double mean_variance(const pixel_acc *a)
{
    return a->n > 1 ? a->m2_y / ((double)(a->n - 1) * a->n) : 0.0;
}

/* Whether the pixel's standard error meets noise_target relative to its luminance, or
 * to floor_y where it is darker (dark pixels would never meet a relative target). */
static int pixel_converged(const pixel_acc *a, double noise_target, double floor_y)
{
    double tol = noise_target * fmax(a->mean_y, floor_y);
    return a->n > 1 && mean_variance(a) <= tol * tol;
}

/* The tile's pixels to k_end samples each (adaptive: by batches of ADAPTIVE_BATCH until
 * converged, from the samples they have); returns its event and cut counts. */
static void render_tile(const pw_renderer *r, const pw_density *const *d, pixel_acc *acc,
                        feature_acc *feat, int tx, int ty, int k_end, double floor_y, uint64_t *events,
                        uint64_t *cut)
{
    int w = r->cam[0].width_px, h = r->cam[0].height_px;
    for (int py = ty * TILE; py < (ty + 1) * TILE && py < h; py++)
        for (int px = tx * TILE; px < (tx + 1) * TILE && px < w; px++) {
            size_t q = (size_t)py * (size_t)w + (size_t)px;
            pixel_acc *a = &acc[q];
            feature_acc *f = feat ? &feat[q] : NULL;
            if (floor_y < 0) { /* the first pass: every pixel to k_end */
                sample_pixel(r, d, px, py, k_end, a, f, events, cut);
                continue;
            }
            while (a->n < k_end &&
                   !(a->converged = pixel_converged(a, r->s.noise_target, floor_y))) {
                int next = a->n + ADAPTIVE_BATCH < k_end ? a->n + ADAPTIVE_BATCH : k_end;
                sample_pixel(r, d, px, py, next, a, f, events, cut);
            }
            if (!a->converged) a->converged = pixel_converged(a, r->s.noise_target, floor_y);
        }
}

/* The tiles in parallel to k_end samples a pixel (floor_y < 0: unconditionally);
 * every pixel depends only on (seed, pixel, sample) and floor_y. */
static void render_pass(const pw_renderer *r, const pw_density *const *d, pixel_acc *acc,
                        feature_acc *feat,
                        int k_end, double floor_y, uint64_t *tile_events, uint64_t *tile_cut,
                        pw_render_progress_fn progress, void *user, double progress_from,
                        double progress_share)
{
    int w = r->cam[0].width_px, h = r->cam[0].height_px;
    int ntx = (w + TILE - 1) / TILE, nty = (h + TILE - 1) / TILE, ntiles = ntx * nty;
    int nthreads = r->s.threads > 0 ? r->s.threads : omp_get_max_threads();
    int done = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (int tile = 0; tile < ntiles; tile++) {
        render_tile(r, d, acc, feat, tile % ntx, tile / ntx, k_end, floor_y, &tile_events[tile],
                    &tile_cut[tile]);
        if (progress) {
#pragma omp critical(pw_render_progress)
            {
                done++;
                progress(user, progress_from + progress_share * done / ntiles);
            }
        }
    }
}

/* Variance of the mean of n samples from their sum and sum of squares; `unknown` below
 * two samples. */
static double var_of_mean(double sum, double sum2, double n, double unknown)
{
    if (n < 2) return unknown;
    return fmax(0.0, sum2 - sum * sum / n) / ((n - 1) * n);
}

/* The denoiser's inputs from the pixels' sums, then the filter: out->noisy takes the
 * unfiltered RGBA and out->rgba's RGB the filtered colour. A feature seen by fewer than
 * two samples gets the largest variance a value in [0, 1] can have, so it weighs little. */
static pw_status denoise_image(const pw_renderer *r, const pixel_acc *acc,
                               const feature_acc *feat, pw_image *out, pw_error *err)
{
    size_t npix = (size_t)out->width * (size_t)out->height;
    /* one block of planes, each 1 or 3 floats a pixel */
    float *buf = malloc(22 * npix * sizeof *buf);
    out->noisy = malloc(4 * npix * sizeof *out->noisy);
    if (!buf || !out->noisy) {
        free(buf);
        return pw_fail(err, PW_ENOMEM, "pw_render_frame: out of memory (denoiser, %d x %d)",
                       out->width, out->height);
    }
    float *var = buf, *ha = buf + 3 * npix, *hb = buf + 6 * npix, *ns = buf + 9 * npix;
    float *alb = buf + 10 * npix, *albv = buf + 13 * npix, *nrm = buf + 14 * npix;
    float *nrmv = buf + 17 * npix, *dep = buf + 18 * npix, *depv = buf + 19 * npix;
    float *vis = buf + 20 * npix, *visv = buf + 21 * npix;
    memcpy(out->noisy, out->rgba, 4 * npix * sizeof *out->noisy);
    for (size_t q = 0; q < npix; q++) {
        const pixel_acc *a = &acc[q];
        const feature_acc *f = &feat[q];
        double n = a->n, ne = f->n_even, no = n - ne;
        double sum[3] = {a->sum.x, a->sum.y, a->sum.z}, s2[3] = {f->sum2.x, f->sum2.y, f->sum2.z};
        double se[3] = {f->sum_even.x, f->sum_even.y, f->sum_even.z};
        for (int ch = 0; ch < 3; ch++) {
            var[3 * q + ch] = (float)var_of_mean(sum[ch], s2[ch], n, NAN);
            ha[3 * q + ch] = (float)(ne > 0 ? se[ch] / ne : NAN);
            hb[3 * q + ch] = (float)(no > 0 ? (sum[ch] - se[ch]) / no : NAN);
        }
        ns[q] = (float)n;
        double nh = a->nhit;
        vec3 al = nh > 0 ? v3_scale(a->alb, 1.0 / nh) : v3_zero();
        vec3 nm = nh > 0 ? v3_scale(f->normal, 1.0 / nh) : v3_zero();
        alb[3 * q] = (float)al.x, alb[3 * q + 1] = (float)al.y, alb[3 * q + 2] = (float)al.z;
        nrm[3 * q] = (float)nm.x, nrm[3 * q + 1] = (float)nm.y, nrm[3 * q + 2] = (float)nm.z;
        /* a vector's: over its components, from |sum| and the sum of |x|^2 */
        albv[q] = (float)(var_of_mean(sqrt(v3_dot(a->alb, a->alb)), f->alb2, nh, 0.25) / 3);
        nrmv[q] = (float)(var_of_mean(sqrt(v3_dot(f->normal, f->normal)), nh, nh, 1.0) / 3);
        double nseen = a->nseen;
        dep[q] = nseen > 0 ? (float)(a->depth / nseen) : INFINITY;
        depv[q] = (float)var_of_mean(a->depth, f->depth2, nseen, 0.0);
        /* where no first event sampled the sun: 0, as uncertain as a value in [0, 1] can be */
        vis[q] = f->n_sun > 0 ? (float)(f->sun / f->n_sun) : 0.0f;
        visv[q] = (float)var_of_mean(f->sun, f->sun2, f->n_sun, 0.25);
    }
    pw_denoise_input in = {
        .width = out->width, .height = out->height, .color = out->noisy, .color_stride = 4,
        .color_var = var, .half_a = ha, .half_b = hb, .samples = ns, .albedo = alb,
        .albedo_var = albv, .normal = nrm, .normal_var = nrmv, .depth = dep, .depth_var = depv,
        .sun = r->lights.has_sun ? vis : NULL, .sun_var = r->lights.has_sun ? visv : NULL};
    pw_denoise_params p;
    pw_denoise_params_default(&p);
    p.threads = r->s.threads;
    pw_status rc = pw_denoise(&in, &p, out->rgba, err);
    free(buf);
    return rc;
}

pw_status pw_render_frame(pw_renderer *r, const pw_density *d, pw_image *out,
                          pw_render_progress_fn progress, void *user, pw_render_stats *stats,
                          pw_error *err)
{
    const pw_density *all[PW_MAX_INSTANTS];
    for (int j = 0; j < PW_MAX_INSTANTS; j++) all[j] = d;
    return pw_render_frame_instants(r, all, out, progress, user, stats, err);
}

pw_status pw_render_frame_instants(pw_renderer *r, const pw_density *const *d, pw_image *out,
                                   pw_render_progress_fn progress, void *user,
                                   pw_render_stats *stats, pw_error *err)
{
    if (!r || !out || !d)
        return pw_fail(err, PW_EINVAL, "pw_render_frame: NULL renderer, density list or image");
    double t_start = omp_get_wtime();
    int w = r->cam[0].width_px, h = r->cam[0].height_px;
    size_t npix = (size_t)w * (size_t)h;
    memset(out, 0, sizeof *out);
    out->width = w;
    out->height = h;
    out->rgba = malloc(4 * npix * sizeof *out->rgba);
    if (r->s.aov_depth) out->depth = malloc(npix * sizeof *out->depth);
    if (r->s.aov_albedo) out->albedo = malloc(3 * npix * sizeof *out->albedo);
    if (r->s.aov_noise) {
        out->samples = malloc(npix * sizeof *out->samples);
        out->variance = malloc(npix * sizeof *out->variance);
    }
    int ntx = (w + TILE - 1) / TILE, nty = (h + TILE - 1) / TILE, ntiles = ntx * nty;
    uint64_t *tile_events = calloc((size_t)ntiles, sizeof *tile_events);
    uint64_t *tile_cut = calloc((size_t)ntiles, sizeof *tile_cut);
    pixel_acc *acc = calloc(npix, sizeof *acc);
    feature_acc *feat = r->features ? calloc(npix, sizeof *feat) : NULL;
    if (r->s.aov_features) {
        out->normal = malloc(3 * npix * sizeof *out->normal);
        out->sun = malloc(npix * sizeof *out->sun);
    }
    if ((r->features && !feat) || (r->s.aov_features && (!out->normal || !out->sun)) || !out->rgba || (r->s.aov_depth && !out->depth) || (r->s.aov_albedo && !out->albedo) ||
        (r->s.aov_noise && (!out->samples || !out->variance)) || !tile_events || !tile_cut ||
        !acc) {
        free(tile_events), free(tile_cut), free(acc), free(feat);
        pw_image_free(out);
        return pw_fail(err, PW_ENOMEM, "pw_render_frame: out of memory (%d x %d image)", w, h);
    }

    /* fixed spp: one pass. Adaptive: every pixel to the minimum, then each on by
     * batches until its error meets the target or it reaches spp; the floor for dark
     * pixels comes from the first pass's mean luminance, summed in pixel order */
    int spp = r->s.spp, adaptive = r->s.noise_target > 0;
    int n_min = adaptive ? (spp < r->s.noise_min_spp ? spp : r->s.noise_min_spp) : spp;
    render_pass(r, d, acc, feat, n_min, -1.0, tile_events, tile_cut, progress, user, 0.0,
                adaptive ? (double)n_min / spp : 1.0);
    if (adaptive && n_min < spp) {
        double mean_y = 0;
        for (size_t q = 0; q < npix; q++) mean_y += acc[q].mean_y;
        mean_y /= (double)npix;
        render_pass(r, d, acc, feat, spp, ADAPTIVE_FLOOR_SHARE * mean_y, tile_events, tile_cut,
                    progress, user, (double)n_min / spp, 1.0 - (double)n_min / spp);
    }

    /* the image: each pixel the mean of the samples it took */
    uint64_t paths = 0, events = 0, cut = 0;
    for (size_t pix = 0; pix < npix; pix++) {
        const pixel_acc *a = &acc[pix];
        double n = a->n;
        paths += (uint64_t)a->n;
        float *p = out->rgba + 4 * pix;
        p[0] = (float)(a->sum.x / n);
        p[1] = (float)(a->sum.y / n);
        p[2] = (float)(a->sum.z / n);
        p[3] = (float)(a->coverage / n);
        if (out->depth) out->depth[pix] = a->nseen > 0 ? (float)(a->depth / a->nseen) : INFINITY;
        if (out->albedo) {
            vec3 al = a->nhit > 0 ? v3_scale(a->alb, 1.0 / a->nhit) : v3_zero();
            out->albedo[3 * pix + 0] = (float)al.x;
            out->albedo[3 * pix + 1] = (float)al.y;
            out->albedo[3 * pix + 2] = (float)al.z;
        }
        if (out->samples) {
            out->samples[pix] = (float)a->n;
            out->variance[pix] = (float)mean_variance(a);
        }
        if (out->normal) {
            const feature_acc *f = &feat[pix];
            vec3 nm = a->nhit > 0 ? v3_scale(f->normal, 1.0 / a->nhit) : v3_zero();
            out->normal[3 * pix + 0] = (float)nm.x;
            out->normal[3 * pix + 1] = (float)nm.y;
            out->normal[3 * pix + 2] = (float)nm.z;
            out->sun[pix] = f->n_sun > 0 ? (float)(f->sun / f->n_sun) : 0.0f;
        }
    }
    for (int tile = 0; tile < ntiles; tile++) {
        events += tile_events[tile];
        cut += tile_cut[tile];
    }
    free(tile_events), free(tile_cut);
    for (size_t q = 0; q < 4 * npix; q++)
        if (!isfinite(out->rgba[q])) {
            size_t pix = q / 4;
            free(acc), free(feat);
            pw_image_free(out);
            return pw_fail(err, PW_ENUMERIC, "pw_render_frame: pixel (%zu, %zu) is not finite",
                           pix % (size_t)w, pix / (size_t)w);
        }
    /* the denoiser, on a finite image */
    double t_denoise = omp_get_wtime();
    pw_status rc = r->s.denoise ? denoise_image(r, acc, feat, out, err) : PW_OK;
    if (rc != PW_OK) {
        free(acc), free(feat);
        pw_image_free(out);
        return rc;
    }
    t_denoise = omp_get_wtime() - t_denoise;
    free(acc), free(feat);
    if (stats) {
        stats->denoise_seconds = r->s.denoise ? t_denoise : 0.0;
        stats->seconds = omp_get_wtime() - t_start;
        stats->paths = paths;
        stats->paths_cut_by_cap = cut;
        stats->mean_scattering_events = paths ? (double)events / (double)paths : 0.0;
        stats->samples_per_second = stats->seconds > 0 ? paths / stats->seconds : 0.0;
    }
    return PW_OK;
}
