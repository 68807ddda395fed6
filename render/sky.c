/* sky.c — Preetham, Shirley and Smits 1999: the Perez sky of their appendix A.2 with
 * the turbidity fits of its Table and zenith formulas, and the sun's transmittance of
 * the same appendix. Equation numbers below are the paper's appendix A.2. */
#include <math.h>

#include "sampling.h"
#include "sky.h"

/* ---- constants of the paper ------------------------------------------------ */

/* Perez A..E as linear functions of T: {slope, intercept} for Y, x, y. */
static const double perez_fit[3][5][2] = {
    {{0.1787, -1.4630}, {-0.3554, 0.4275}, {-0.0227, 5.3251}, {0.1206, -2.5771},
     {-0.0670, 0.3703}},
    {{-0.0193, -0.2592}, {-0.0665, 0.0008}, {-0.0004, 0.2125}, {-0.0641, -0.8989},
     {-0.0033, 0.0452}},
    {{-0.0167, -0.2608}, {-0.0950, 0.0092}, {-0.0079, 0.2102}, {-0.0441, -1.6537},
     {-0.0109, 0.0529}},
};

/* Zenith chromaticity: x_z = [T^2 T 1] M [theta_s^3 theta_s^2 theta_s 1]^T. */
static const double zenith_x[3][4] = {
    {0.00166, -0.00375, 0.00209, 0.0},
    {-0.02903, 0.06377, -0.03202, 0.00394},
    {0.11693, -0.21196, 0.06052, 0.25886},
};
static const double zenith_y[3][4] = {
    {0.00275, -0.00610, 0.00317, 0.0},
    {-0.04214, 0.08970, -0.04153, 0.00516},
    {0.15346, -0.26756, 0.06670, 0.26688},
};

const double pw_sky_channel_nm[3] = {610.0, 550.0, 465.0};

/* Ozone's absorption coefficient [1/cm] at the channel wavelengths (Iqbal 1983, p. 127,
 * the table Preetham et al. use) and the ozone column [cm]. */
static const double ozone_k[3] = {0.120, 0.085, 0.008};
#define OZONE_CM 0.35

/* ---- helpers ----------------------------------------------------------------- */

static double perez(const double c[5], double theta, double gamma)
{
    /* exp(B / cos theta) -> 0 at the horizon (B < 0); the clamp keeps 0 / 0 away */
    double cos_theta = fmax(cos(theta), 1e-6), cos_gamma = cos(gamma);
    return (1.0 + c[0] * exp(c[1] / cos_theta)) *
           (1.0 + c[2] * exp(c[3] * gamma) + c[4] * cos_gamma * cos_gamma);
}

static double zenith_chromaticity(const double M[3][4], double T, double th)
{
    const double t[3] = {T * T, T, 1.0}, s[4] = {th * th * th, th * th, th, 1.0};
    double v = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) v += t[i] * M[i][j] * s[j];
    return v;
}

/* ---- sky --------------------------------------------------------------------- */

pw_status pw_sky_model_init(pw_sky_model *m, double sun_elevation_deg, double T,
                            pw_error *err)
{
    if (!(sun_elevation_deg > 0 && sun_elevation_deg <= 90))
        return pw_fail(err, PW_EINVAL, "daylight: sun_elevation_deg must be in (0, 90] (%g)",
                       sun_elevation_deg);
    if (!(T >= PW_SKY_T_MIN && T <= PW_SKY_T_MAX))
        return pw_fail(err, PW_EINVAL, "daylight: turbidity must be in [%g, %g], the range "
                       "of the model's fit (%g)", PW_SKY_T_MIN, PW_SKY_T_MAX, T);
    m->theta_s = (90.0 - sun_elevation_deg) * PW_PI / 180.0;
    m->T = T;
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 5; c++) m->perez[k][c] = perez_fit[k][c][0] * T + perez_fit[k][c][1];
    /* zenith luminance [kcd/m^2] */
    double chi = (4.0 / 9.0 - T / 120.0) * (PW_PI - 2.0 * m->theta_s);
    m->zenith[0] = 1000.0 * ((4.0453 * T - 4.9710) * tan(chi) - 0.2155 * T + 2.4192);
    m->zenith[1] = zenith_chromaticity(zenith_x, T, m->theta_s);
    m->zenith[2] = zenith_chromaticity(zenith_y, T, m->theta_s);
    for (int k = 0; k < 3; k++) m->f_zenith[k] = perez(m->perez[k], 0.0, m->theta_s);
    return PW_OK;
}

void pw_sky_model_Yxy(const pw_sky_model *m, double theta, double gamma, double Yxy[3])
{
    for (int k = 0; k < 3; k++)
        Yxy[k] = m->zenith[k] * perez(m->perez[k], theta, gamma) / m->f_zenith[k];
}

vec3 pw_sky_rgb_from_Yxy(double Y, double x, double y)
{
    if (!(Y > 0) || !(y > 0)) return v3_zero();
    double Yw = Y / PW_SKY_LM_PER_W;
    double X = x / y * Yw, Z = (1.0 - x - y) / y * Yw;
    /* XYZ -> linear Rec.709 (sRGB primaries, D65) */
    double r = 3.2404542 * X - 1.5371385 * Yw - 0.4985314 * Z;
    double g = -0.9692660 * X + 1.8760108 * Yw + 0.0415560 * Z;
    double b = 0.0556434 * X - 0.2040259 * Yw + 1.0572252 * Z;
    return v3(fmax(r, 0.0), fmax(g, 0.0), fmax(b, 0.0));
}

vec3 pw_sky_model_radiance(const pw_sky_model *m, vec3 sun_dir, vec3 dir)
{
    if (!(dir.y > 0)) return v3_zero();
    double theta = acos(fmin(1.0, dir.y));
    double gamma = acos(fmin(1.0, fmax(-1.0, v3_dot(dir, sun_dir))));
    double Yxy[3];
    pw_sky_model_Yxy(m, theta, gamma, Yxy);
    return pw_sky_rgb_from_Yxy(Yxy[0], Yxy[1], Yxy[2]);
}

/* ---- sun --------------------------------------------------------------------- */

double pw_sky_air_mass(double theta_s)
{
    double deg = theta_s * 180.0 / PW_PI;
    return 1.0 / (cos(theta_s) + 0.15 * pow(93.885 - deg, -1.253));
}

double pw_sky_sun_transmittance(int channel, double theta_s, double T)
{
    double lambda_um = pw_sky_channel_nm[channel] * 1e-3, m = pw_sky_air_mass(theta_s);
    /* Rayleigh: the molecules' optical depth 0.008735 lambda^-4.08 */
    double tau_r = 0.008735 * pow(lambda_um, -4.08);
    /* aerosols: Angstrom's beta lambda^-alpha, alpha = 1.3, beta linear in T */
    double beta = 0.04608365 * T - 0.04586025;
    double tau_a = beta * pow(lambda_um, -1.3);
    double tau_o = ozone_k[channel] * OZONE_CM;
    return exp(-(tau_r + tau_a + tau_o) * m);
}

vec3 pw_sky_sun_irradiance(double sun_elevation_deg, double T)
{
    /* the extraterrestrial sun's chromaticity: a 5778 K black body on the Planckian
     * locus (Kim et al. 2002's cubic fit, 4000-25000 K) */
    const double K = 5778.0;
    double x = -3.0258469e9 / (K * K * K) + 2.1070379e6 / (K * K) + 0.2226347e3 / K + 0.240390;
    double y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483;
    vec3 E0 = pw_sky_rgb_from_Yxy(PW_SKY_SOLAR_ILLUMINANCE, x, y);
    double theta_s = (90.0 - sun_elevation_deg) * PW_PI / 180.0;
    return v3(E0.x * pw_sky_sun_transmittance(0, theta_s, T),
              E0.y * pw_sky_sun_transmittance(1, theta_s, T),
              E0.z * pw_sky_sun_transmittance(2, theta_s, T));
}

vec3 pw_sky_sun_direction(double elevation_deg, double azimuth_deg)
{
    double e = elevation_deg * PW_PI / 180.0, a = azimuth_deg * PW_PI / 180.0;
    return v3(cos(e) * cos(a), sin(e), cos(e) * sin(a));
}
