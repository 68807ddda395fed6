/* pw_render.h — stages 2 and 3: B-spline rasterizer and volumetric path tracer
 * (Stomakhin et al. 2013, section 9).
 *
 * Stage 2 turns particles into a sparse density grid (pw_density_rasterize). Stage 3
 * renders it as a participating medium with sigma_t(x) = sigma_t_ref rho(x) / rho_ref,
 * HG phase function and per-channel albedo, together with opaque diffuse surfaces, a
 * sun, a constant sky or an environment map (pw_renderer_create, pw_render_frame).
 * The description structs are filled by the scene parser. */
#ifndef PW_RENDER_H
#define PW_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "exr.h"
#include "pw_error.h"
#include "pw_math.h"
#include "surfaces.h"

typedef struct {
    vec3 eye, target, up;     /* [m] look-at camera                                 */
    double fov_deg;           /* vertical field of view [deg]                       */
    int width_px, height_px;
    double lens_radius;       /* [m] thin-lens aperture radius; 0 = pinhole         */
    double focus_distance;    /* [m] distance of the plane in focus along the view
                                 axis (> 0 when lens_radius > 0)                    */
} pw_camera_desc;

typedef struct {
    double sigma_t_ref;       /* extinction at rho_ref [1/m]          (724)         */
    double rho_ref;           /* packed snow density [kg/m^3]         (400)         */
    vec3 albedo;              /* sigma_s / sigma_t per channel        (0.9, 0.95, 1) */
    double g;                 /* Henyey-Greenstein mean cosine        (0.5)         */
} pw_medium_desc;

enum { PW_SKY_SAMPLING_AUTO = 0, PW_SKY_SAMPLING_ALWAYS = 1, PW_SKY_SAMPLING_NEVER = 2 };

typedef struct {
    vec3 sun_direction;       /* unit vector towards the sun                        */
    double sun_angular_diameter_deg; /* (0.53)                                      */
    vec3 sun_irradiance;      /* [W/m^2] per channel at normal incidence; 0 = none  */
    vec3 sky_radiance;        /* constant sky [W/m^2/sr] per channel                */
    char envmap_path[1024];   /* lat-long EXR, "" = none (replaces the sky)          */
    double envmap_intensity;  /* multiplier [-] (1)                                 */
    double envmap_rotation_deg; /* rotation about +Y [deg] (0)                      */
    /* Daylight (render/sky.h): when set, the sun's direction and irradiance and the sky
     * (an importance-sampled map of the Preetham sky) all follow from these, and
     * sun_direction, sun_irradiance, sky_radiance and envmap_path must be left unset. */
    int daylight;
    double sun_elevation_deg; /* above the horizon, (0, 90]                          */
    double sun_azimuth_deg;   /* from +X towards +Z                                 */
    double turbidity;         /* [2, 10] (3: clear)                                 */
    double daylight_intensity; /* multiplier of sun and sky [-] (1)                 */
    double daylight_ground_albedo; /* below the horizon: a diffuse ground of this
                                      albedo lit by the sun and sky [0, 1] (0.3)    */
    /* Whether the sky or map is light-sampled (next-event estimation combined with the
     * scattered ray by MIS): PW_SKY_SAMPLING_AUTO (0) samples environment maps and not
     * the daylight sky, whose scattered rays alone cost less for the noise they leave
     * (render/docs/daylight.md); ALWAYS and NEVER override that for both. */
    int sky_sampling;
} pw_lights_desc;

typedef struct {
    int spp;                  /* samples per pixel                                  */
    int max_depth;            /* safety cap on scattering events; cut paths counted */
    int rr_start_depth;       /* Russian roulette starts after this many events     */
    uint64_t seed;            /* image noise seed                                   */
    int threads;              /* 0 = OpenMP default                                 */
    int subdiv;               /* render grid spacing = sim h / subdiv               */
    int raster;               /* pw_raster_kind of stage 2                          */
    double detail;            /* bounded raster: particle-bound detail amplitude (0) */
    int aov_depth;            /* write depth.Z                                      */
    int aov_albedo;           /* write albedo.R/G/B                                 */
    int transparent_background; /* camera rays that see only sky or sun add nothing,
                                   so RGB = 0 where alpha = 0 (premultiplied)        */
    double noise_target;      /* 0: spp samples in every pixel. > 0: adaptive, spp is
                                 the most a pixel takes; it stops once the standard
                                 error of its mean luminance is at most noise_target
                                 times that mean (or times a tenth of the image's mean
                                 luminance where it is darker)                      */
    int noise_min_spp;        /* with noise_target: samples every pixel takes before
                                 its error is judged (>= 2)                         */
    int aov_noise;            /* write noise.samples and noise.variance             */
    int denoise;              /* filter the image (render/denoise.h) with the features
                                 the camera paths gather: RGB then holds the filtered
                                 colour and the image's noisy buffer the unfiltered
                                 RGBA. Needs spp >= 2 (a variance needs two samples) */
    int aov_features;         /* write the denoiser's features beside albedo and depth:
                                 normal.X/Y/Z and sun.T (for a compositor's denoiser) */
} pw_render_settings;

/* ---- stage 2: rasterization -------------------------------------------- */

typedef struct pw_density pw_density;

/* Rasterizes n particles (positions x, 3n values [m]; masses m, n values [kg]) with the
 * cubic B-spline of pw_kernel.h: rho_i = sum_p m_p w_ip / h^3 at node spacing
 * h = h_sim / subdiv (subdiv >= 1; 2 halves the aliasing the paper mentions). The grid
 * is sparse (8^3-cell bricks where particles are) and carries the per-brick majorant.
 * Parallel (OpenMP) and deterministic: the same bits for any thread count.
 * n may be 0 (an empty grid). Returns NULL with *err set on non-finite or negative
 * input, absurd extents or allocation failure. The caller owns the result. */
pw_density *pw_density_rasterize(const double *x, const double *m, size_t n, double h_sim,
                                 int subdiv, pw_error *err);
void pw_density_destroy(pw_density *d); /* NULL is a no-op */

/* The default for shots (render/raster_bounded.c, render/docs/bounded-raster.md): the
 * density at spacing h = h_sim / subdiv (1..16; 4 for shots) as the particles' density
 * smoothed at 2 h_sim (smooth inside, low where the snow is loose) divided by the share
 * of its footprint inside the particles' level set (Zhu and Bridson 2005, particle
 * radius 0.48 h_sim, search radius 2 h_sim) and cut off there, antialiased over one
 * fine spacing. Mass is conserved to rounding. Same grid type, errors and determinism
 * as pw_density_rasterize.
 * Detail below the grid, bound to the particles so that it moves with the snow and does
 * not flicker: with id (n particle ids, as in the cache's "id") and detail in (0, 1],
 * each particle carries a value n_p in [-1, 1] hashed from its id; their average D over
 * 0.75 h_sim scales the density by 1 + detail D and the particles' radius likewise.
 * id NULL or detail 0: none. */
pw_density *pw_density_rasterize_bounded(const double *x, const double *m, const uint32_t *id,
                                         size_t n, double h_sim, int subdiv, double detail,
                                         pw_error *err);

/* Stage-2 choice of render.raster. */
typedef enum {
    PW_RASTER_BOUNDED = 0,    /* pw_density_rasterize_bounded (default)             */
    PW_RASTER_BSPLINE = 1     /* pw_density_rasterize: the paper's                  */
} pw_raster_kind;

/* Dispatches to the rasterizer of kind (id and detail: bounded only). */
pw_density *pw_density_build(pw_raster_kind kind, const double *x, const double *m,
                             const uint32_t *id, size_t n, double h_sim, int subdiv,
                             double detail, pw_error *err);

/* World bounds [m] of the region where the density can be nonzero. PW_EINVAL when the
 * grid is empty. */
pw_status pw_density_bounds(const pw_density *d, vec3 *lo, vec3 *hi);

/* sum_i rho_i h^3 over the grid [kg]; equals the particles' total mass to rounding. */
double pw_density_total_mass(const pw_density *d);

/* Node spacing h [m] of the grid (h_sim / subdiv); node (i, j, k) sits at world
 * (i h, j h, k h). */
double pw_density_spacing(const pw_density *d);

/* The factor [-] the bounded raster scaled every node by at the end, so that the grid's
 * mass is the particles' (0 when it found no mass); 1 for the B-spline raster and for
 * NULL. Dividing it out compares two rasters of the same positions node by node. */
double pw_density_mass_scale(const pw_density *d);

/* Density [kg/m^3] of node (i, j, k) itself (no interpolation); 0 outside occupied
 * bricks. */
double pw_density_node(const pw_density *d, int i, int j, int k);

/* Called once per node: integer node index ijk, its world position x = ijk h [m] and
 * its density rho [kg/m^3]. */
typedef void (*pw_density_node_fn)(void *user, const int ijk[3], vec3 x, double rho);

/* Visits every node of every occupied brick exactly once (zeros included; nodes outside
 * occupied bricks are 0 and are not visited), bricks in table order, x fastest within
 * a brick. For exporters that copy the grid into another format. Single-threaded. */
void pw_density_visit(const pw_density *d, pw_density_node_fn fn, void *user);

/* ---- camera ---------------------------------------------------------------- */

/* Camera matrices for EXR metadata, row-major 4x4 in the OpenEXR (Imath) row-vector
 * convention p' = p M: world_to_camera maps to a left-handed camera space (+x right,
 * +y up, +z the viewing direction, origin at the eye); world_to_ndc maps to NDC
 * (x right and y down over [0, 1] across the image, after division by w = camera z;
 * z/w = 1 / camera z). PW_EINVAL on a degenerate camera. */
pw_status pw_camera_matrices(const pw_camera_desc *c, float world_to_camera[16],
                             float world_to_ndc[16], pw_error *err);

/* ---- stage 3: rendering ------------------------------------------------ */

typedef struct pw_renderer pw_renderer;

/* Checks the settings and descriptions (naming the first bad field), loads the
 * environment map if any and returns a renderer owned by the caller. surf may be NULL
 * (no surfaces); the renderer keeps a reference to it, so it must outlive the renderer.
 * The descriptions are copied. */
pw_renderer *pw_renderer_create(const pw_render_settings *s, const pw_camera_desc *c,
                                const pw_medium_desc *md, const pw_lights_desc *l,
                                const pw_surfaces *surf, pw_error *err);
void pw_renderer_destroy(pw_renderer *r); /* NULL is a no-op */

/* Motion blur: the scene at n instants of the shutter (1 <= n <= PW_MAX_INSTANTS), the
 * camera cams[j] and the surfaces surfs[j] (NULL entries: none) at instant j, all of one
 * image size. Camera samples take the instants in turn from a per-pixel start, so each
 * pixel is the mean over the instants (exactly so in expectation; equal shares when spp
 * is a multiple of n) of the pixel a frozen render of that instant would give. n = 1 is
 * pw_renderer_create. The surfaces must outlive the renderer. */
#define PW_MAX_INSTANTS 64
pw_renderer *pw_renderer_create_instants(const pw_render_settings *s, int n,
                                         const pw_camera_desc *cams,
                                         const pw_surfaces *const *surfs,
                                         const pw_medium_desc *md, const pw_lights_desc *l,
                                         pw_error *err);

/* Called with the fraction of tiles finished, in [0, 1], never concurrently. */
typedef void (*pw_render_progress_fn)(void *user, double fraction_done);

typedef struct {
    double seconds;                /* wall time of pw_render_frame [s]                */
    double samples_per_second;     /* camera samples per second                       */
    double mean_scattering_events; /* real collisions + surface bounces per path      */
    uint64_t paths;                /* camera samples traced                           */
    uint64_t paths_cut_by_cap;     /* paths ended by settings.max_depth (a bias)      */
    double denoise_seconds;        /* wall time of the denoiser, within seconds [s]   */
} pw_render_stats;

/* Renders density d (NULL = no medium) into *out, which this function allocates (free
 * with pw_image_free). Pixel values are the mean over settings.spp samples (box filter
 * over the pixel, R2 low-discrepancy positions) of the radiance [W/m^2/sr] reaching the
 * eye; the image is bit-identical for any thread count. Alpha is the fraction of camera
 * samples whose primary ray met the medium (a real collision, so its expectation is
 * 1 - transmittance) or a surface; a sample whose primary ray meets a holdout surface
 * adds nothing (RGB 0, alpha 0), one that meets a shadow catcher adds RGB 0 and alpha =
 * the share of direct light the scene takes from that point (surfaces.h). Colour is
 * premultiplied and includes what is seen of the sky or environment through the holes,
 * which therefore adds colour at alpha 0 (none with transparent_background).
 * Optional AOVs (settings.aov_depth, aov_albedo): depth = mean planar camera z [m]
 * (along the view axis) of the first thing met (medium or surface, holdouts and shadow
 * catchers included) over the samples that met one (INFINITY if none); albedo = mean
 * albedo at that event. With settings.denoise, out->rgba's RGB is the denoised colour
 * (alpha unchanged) and out->noisy the unfiltered RGBA; the denoiser's features are the
 * first event's albedo, depth, coverage and normal (a surface's, or for the medium the
 * direction in which the density falls, from its gradient there), and its variance the
 * samples' per channel with the even and odd samples as two halves, and the sun's
 * transmittance from the first event (when its light was sampled there). With
 * settings.aov_features, out->normal holds the mean normal and out->sun that mean
 * transmittance (0 where no first event sampled the sun). progress and stats may be NULL. One frame at a time per renderer. */
pw_status pw_render_frame(pw_renderer *r, const pw_density *d, pw_image *out,
                          pw_render_progress_fn progress, void *user, pw_render_stats *stats,
                          pw_error *err);

/* pw_render_frame with the density of each instant of the renderer: d[j] (NULL = no
 * medium) for j < n of pw_renderer_create_instants. pw_render_frame uses its d for all. */
pw_status pw_render_frame_instants(pw_renderer *r, const pw_density *const *d, pw_image *out,
                                   pw_render_progress_fn progress, void *user,
                                   pw_render_stats *stats, pw_error *err);

/* Frees the buffers of an image from pw_render_frame and zeroes it; NULL is a no-op. */
void pw_image_free(pw_image *img);

#endif
