/* sky.h — daylight from one angle (internal to render/): the clear sky of Preetham,
 * Shirley and Smits 1999 ("A practical analytic model for daylight", SIGGRAPH 99) and
 * the sun after the atmosphere of their appendix A.2, both from the sun's elevation and
 * the air's turbidity T. render/docs/daylight.md says why this model, where its numbers
 * come from and how the units meet the other lights.
 *
 * Units: the sky model gives luminance [cd/m^2] and CIE xy chromaticity. The renderer's
 * lights are RGB radiance [W/m^2/sr] (linear Rec.709 primaries, D65 white, as the EXRs
 * say); a luminance is turned into RGB whose Rec.709 luminance 0.2126 R + 0.7152 G +
 * 0.0722 B equals L_v / 683 lm/W, the radiance of 555 nm light as bright. The sun is
 * turned the same way, so sun and sky keep the model's balance. */
#ifndef PW_SKY_H
#define PW_SKY_H

#include "pw_error.h"
#include "pw_math.h"

/* Luminous efficacy of 555 nm light, the photometric-to-radiometric factor [lm/W]. */
#define PW_SKY_LM_PER_W 683.0
/* Extraterrestrial solar illuminance at normal incidence, mean Earth-Sun distance [lux]
 * (the solar illuminance constant of the IES Lighting Handbook, 128 klux). */
#define PW_SKY_SOLAR_ILLUMINANCE 128000.0

typedef struct {
    double theta_s;        /* sun's zenith angle [rad]                        */
    double T;              /* turbidity [-]                                   */
    double perez[3][5];    /* A..E of the Perez function for Y, x, y          */
    double zenith[3];      /* Y_z [cd/m^2], x_z, y_z at the zenith            */
    double f_zenith[3];    /* Perez F(0, theta_s) for Y, x, y: the normaliser */
} pw_sky_model;

/* Range of the model's fit: turbidity in [PW_SKY_T_MIN, PW_SKY_T_MAX]. */
#define PW_SKY_T_MIN 2.0
#define PW_SKY_T_MAX 10.0

/* Sets up the model for a sun elevation_deg above the horizon, in (0, 90], and
 * turbidity T in [2, 10]; PW_EINVAL naming the value otherwise. */
pw_status pw_sky_model_init(pw_sky_model *m, double sun_elevation_deg, double T,
                            pw_error *err);

/* Luminance [cd/m^2] and chromaticity of the sky seen at zenith angle theta [rad] (in
 * [0, pi/2]), gamma [rad] from the sun: Yxy[0] = Y, Yxy[1] = x, Yxy[2] = y. */
void pw_sky_model_Yxy(const pw_sky_model *m, double theta, double gamma, double Yxy[3]);

/* Linear Rec.709 RGB [W/m^2/sr] of luminance Y [cd/m^2] and chromaticity (x, y), by the
 * 683 lm/W convention above; components below 0 (outside the gamut) are set to 0. */
vec3 pw_sky_rgb_from_Yxy(double Y, double x, double y);

/* Sky radiance [W/m^2/sr, RGB] towards dir (unit, +Y up) with the sun towards sun_dir;
 * 0 below the horizon (the ground is the scene's surfaces). */
vec3 pw_sky_model_radiance(const pw_sky_model *m, vec3 sun_dir, vec3 dir);

/* Wavelengths [nm] at which the sun's transmittance is taken for R, G, B: about the
 * dominant wavelengths of the Rec.709 primaries. */
extern const double pw_sky_channel_nm[3];

/* Relative optical air mass at sun zenith angle theta_s [rad] (Kasten 1966, as in
 * Preetham et al. A.2): 1 at the zenith, about 38 at the horizon. */
double pw_sky_air_mass(double theta_s);

/* The sun's direct transmittance through the atmosphere in channel (0 R, 1 G, 2 B: at
 * the wavelength pw_sky_channel_nm[channel]) for a
 * sun at zenith angle theta_s and turbidity T: Rayleigh scattering, the aerosols'
 * Angstrom law (alpha 1.3, beta from T) and ozone (0.35 cm) of Preetham et al. A.2,
 * with the ozone coefficients of Iqbal 1983 (p. 127) at the channel wavelengths;
 * mixed gases and water vapour absorb only beyond 689 nm, outside the three. */
double pw_sky_sun_transmittance(int channel, double theta_s, double T);

/* The sun's irradiance at normal incidence at the ground [W/m^2, RGB]: the
 * extraterrestrial sun (PW_SKY_SOLAR_ILLUMINANCE, the chromaticity of a 5778 K black
 * body) times the transmittance of each channel's wavelength. */
vec3 pw_sky_sun_irradiance(double sun_elevation_deg, double T);

/* Unit vector towards a sun at elevation_deg above the horizon (+Y up) and azimuth_deg
 * measured from +X towards +Z (the env maps' phi, lights.h). */
vec3 pw_sky_sun_direction(double elevation_deg, double azimuth_deg);

#endif
