/* ice_optics.h — snow's single scattering from ice's absorption and the grain size
 * (Wiscombe and Warren 1980, geometric-optics limit), for render.medium given as a
 * grain radius (the density is the snow's own, from the simulation). Ice's refractive
 * index is Warren and Brandt 2008's (render/ice_optics.c keeps its rows for 400-700 nm
 * with their source). The derivation and its range of validity:
 * render/docs/ice-optics.md. */
#ifndef PW_ICE_OPTICS_H
#define PW_ICE_OPTICS_H

#include "pw_error.h"
#include "pw_math.h"
#include "pw_render.h"

/* Density of ice at 0 C [kg/m^3]. */
#define PW_ICE_DENSITY 917.0

/* Asymmetry parameter of ice spheres in the visible, the mean cosine of their phase
 * function (Wiscombe and Warren 1980: 0.89 for radii above ~50 um below 1 um
 * wavelength; the Lorenz-Mie sums of test ice_optics_coalbedo give 0.889-0.892). */
#define PW_ICE_G 0.89

/* Bounds of grain radius [m] the geometric-optics model is used for: above 20 um the
 * size parameter 2 pi r / lambda exceeds 180 in the visible; below 5 mm grains are
 * still many per mean free path in a shot. */
#define PW_ICE_RADIUS_MIN 20e-6
#define PW_ICE_RADIUS_MAX 5e-3

/* Ice's complex refractive index n + i k at lambda_nm in [400, 700] (Warren and Brandt
 * 2008, linear in n and in log k between their 10 nm rows). Returns 0 outside. */
int pw_ice_index(double lambda_nm, double *n, double *k);

/* Absorption efficiency Q_abs of an ice sphere of radius r [m] at lambda_nm in the
 * geometric-optics limit: every ray through the sphere refracted by Snell's law, its
 * internal reflections summed with the Fresnel coefficients of each polarisation, and
 * absorbed along its chords by the bulk coefficient 4 pi k / lambda. */
double pw_ice_sphere_q_abs(double r, double lambda_nm);

/* Single-scattering co-albedo 1 - omega of an ice sphere: Q_abs / Q_ext with Q_ext = 2
 * (the geometric limit, diffraction included). */
double pw_ice_sphere_coalbedo(double r, double lambda_nm);

/* The medium of snow of grains of effective radius r [m] and density rho_snow
 * [kg/m^3], rendered with HG g: ice's sigma_t = 3 rho_snow / (2 rho_ice r) at rho_ref =
 * rho_snow (so sigma_t(x) = sigma_t_ref rho(x) / rho_ref follows the snow's density)
 * and co-albedo per channel at the wavelengths pw_sky_channel_nm (610, 550, 465 nm);
 * for g != PW_ICE_G, sigma_s is scaled by (1 - PW_ICE_G) / (1 - g) (the similarity
 * relation), which keeps sigma_a and sigma_s (1 - g). g = PW_ICE_G gives the grains'
 * own sigma_t and albedo. PW_EINVAL naming the value outside the bounds above, rho_snow
 * outside (0, rho_ice) or g outside (-1, 1). */
pw_status pw_ice_medium(double r, double rho_snow, double g, pw_medium_desc *out,
                        pw_error *err);

#endif
