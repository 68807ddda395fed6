/* pw_render.h — stages 2 and 3: B-spline rasterizer and volumetric path tracer.
 *
 * (Types agreed between the scene parser and the renderer; the renderer's functions
 * are declared below them by the renderer's owner.) */
#ifndef PW_RENDER_H
#define PW_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "exr.h"
#include "pw_error.h"
#include "pw_math.h"
#include "surfaces.h"

typedef struct {
    vec3 eye, target, up;     /* [m] look-at pinhole camera                        */
    double fov_deg;           /* vertical field of view [deg]                       */
    int width_px, height_px;
} pw_camera_desc;

typedef struct {
    double sigma_t_ref;       /* extinction at rho_ref [1/m]          (724)         */
    double rho_ref;           /* packed snow density [kg/m^3]         (400)         */
    vec3 albedo;              /* sigma_s / sigma_t per channel        (0.9, 0.95, 1) */
    double g;                 /* Henyey-Greenstein mean cosine        (0.5)         */
} pw_medium_desc;

typedef struct {
    vec3 sun_direction;       /* unit vector towards the sun                        */
    double sun_angular_diameter_deg; /* (0.53)                                      */
    vec3 sun_irradiance;      /* [W/m^2] per channel at normal incidence; 0 = none  */
    vec3 sky_radiance;        /* constant sky [W/m^2/sr] per channel                */
    char envmap_path[1024];   /* lat-long EXR, "" = none (replaces the sky)          */
    double envmap_intensity;  /* multiplier [-] (1)                                 */
    double envmap_rotation_deg; /* rotation about +Y [deg] (0)                      */
} pw_lights_desc;

typedef struct {
    int spp;                  /* samples per pixel                                  */
    int max_depth;            /* safety cap on scattering events; cut paths counted */
    int rr_start_depth;       /* Russian roulette starts after this many events     */
    uint64_t seed;            /* image noise seed                                   */
    int threads;              /* 0 = OpenMP default                                 */
    int subdiv;               /* render grid spacing = sim h / subdiv (1)           */
    int aov_depth;            /* write depth.Z                                      */
    int aov_albedo;           /* write albedo.R/G/B                                 */
} pw_render_settings;

#endif
