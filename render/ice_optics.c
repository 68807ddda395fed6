/* ice_optics.c — single scattering by ice spheres in the geometric-optics limit
 * (Wiscombe and Warren 1980), and the snow medium it gives. */
#include <math.h>

#include "ice_optics.h"
#include "sampling.h"
#include "sky.h"

/* Ice's complex refractive index n + i k, 400-700 nm every 10 nm: S. G. Warren and
 * R. E. Brandt, "Optical constants of ice from the ultraviolet to the microwave: A
 * revised compilation", J. Geophys. Res. 113, D14220 (2008), doi:10.1029/2007JD009744,
 * at -7 C. Public data, as compiled in the refractiveindex.info database (CC0). */
static const struct {
    double nm, n, k;
} warren_brandt_2008[] = {
    {400, 1.3194, 2.365e-11}, {410, 1.3185, 2.669e-11}, {420, 1.3177, 3.135e-11},
    {430, 1.3170, 4.14e-11},  {440, 1.3163, 6.268e-11}, {450, 1.3157, 9.239e-11},
    {460, 1.3151, 1.325e-10}, {470, 1.3145, 1.956e-10}, {480, 1.3140, 2.861e-10},
    {490, 1.3135, 4.172e-10}, {500, 1.3130, 5.889e-10}, {510, 1.3126, 8.036e-10},
    {520, 1.3121, 1.076e-09}, {530, 1.3117, 1.409e-09}, {540, 1.3114, 1.813e-09},
    {550, 1.3110, 2.289e-09}, {560, 1.3106, 2.839e-09}, {570, 1.3103, 3.461e-09},
    {580, 1.3100, 4.159e-09}, {590, 1.3097, 4.93e-09},  {600, 1.3094, 5.73e-09},
    {610, 1.3091, 6.89e-09},  {620, 1.3088, 8.58e-09},  {630, 1.3085, 1.04e-08},
    {640, 1.3083, 1.22e-08},  {650, 1.3080, 1.43e-08},  {660, 1.3078, 1.66e-08},
    {670, 1.3076, 1.89e-08},  {680, 1.3073, 2.09e-08},  {690, 1.3071, 2.4e-08},
    {700, 1.3069, 2.9e-08},
};
#define N_ROWS ((int)(sizeof warren_brandt_2008 / sizeof warren_brandt_2008[0]))

/* Midpoints of the chord integral: the integrand is smooth in cos(theta_i), and 2000
 * points put the rule's error below 1e-7 of Q_abs (test ice_optics_coalbedo). */
#define CHORD_STEPS 2000

int pw_ice_index(double lambda_nm, double *n, double *k)
{
    if (!(lambda_nm >= warren_brandt_2008[0].nm &&
          lambda_nm <= warren_brandt_2008[N_ROWS - 1].nm))
        return 0;
    int i = 0;
    while (i < N_ROWS - 2 && lambda_nm > warren_brandt_2008[i + 1].nm) i++;
    double f = (lambda_nm - warren_brandt_2008[i].nm) /
               (warren_brandt_2008[i + 1].nm - warren_brandt_2008[i].nm);
    *n = warren_brandt_2008[i].n + f * (warren_brandt_2008[i + 1].n - warren_brandt_2008[i].n);
    /* k spans decades across the table: interpolate its logarithm */
    *k = exp(log(warren_brandt_2008[i].k) +
             f * (log(warren_brandt_2008[i + 1].k) - log(warren_brandt_2008[i].k)));
    return 1;
}

/* Share of one polarisation's power entering at reflectance R that the sphere absorbs:
 * each pass along the chord keeps t = exp(-tau), each internal reflection R of it (the
 * internal angle equals the refraction angle at every bounce, so R is the same). */
static double absorbed_share(double R, double tau)
{
    double one_minus_t = -expm1(-tau);
    return (1.0 - R) * one_minus_t / (1.0 - R * (1.0 - one_minus_t));
}

double pw_ice_sphere_q_abs(double r, double lambda_nm)
{
    double n, k;
    if (!pw_ice_index(lambda_nm, &n, &k)) return NAN;
    double alpha = 4.0 * PW_PI * k / (lambda_nm * 1e-9); /* bulk absorption [1/m] */
    /* Q_abs = integral over the sphere's cross-section (u = impact parameter^2 / r^2,
     * uniform in [0, 1]) of the absorbed share; with v = cos(theta_i), du = 2 v dv */
    double q = 0;
    for (int s = 0; s < CHORD_STEPS; s++) {
        double v = (s + 0.5) / CHORD_STEPS, sin2_i = 1.0 - v * v;
        double cos_t = sqrt(1.0 - sin2_i / (n * n));
        double rs = (v - n * cos_t) / (v + n * cos_t), rp = (n * v - cos_t) / (n * v + cos_t);
        double tau = alpha * 2.0 * r * cos_t;
        q += 0.5 * (absorbed_share(rs * rs, tau) + absorbed_share(rp * rp, tau)) * 2.0 * v;
    }
    return q / CHORD_STEPS;
}

double pw_ice_sphere_coalbedo(double r, double lambda_nm)
{
    return pw_ice_sphere_q_abs(r, lambda_nm) / 2.0;
}

pw_status pw_ice_medium(double r, double rho_snow, double g, pw_medium_desc *out,
                        pw_error *err)
{
    if (!(r >= PW_ICE_RADIUS_MIN && r <= PW_ICE_RADIUS_MAX))
        return pw_fail(err, PW_EINVAL, "ice optics: grain radius %g um outside [%g, %g] um, "
                       "where geometric optics holds", r * 1e6, PW_ICE_RADIUS_MIN * 1e6,
                       PW_ICE_RADIUS_MAX * 1e6);
    if (!(rho_snow > 0 && rho_snow < PW_ICE_DENSITY))
        return pw_fail(err, PW_EINVAL, "ice optics: snow density %g kg/m^3 must be in (0, %g) "
                       "(ice)", rho_snow, PW_ICE_DENSITY);
    if (!(g > -1 && g < 1))
        return pw_fail(err, PW_EINVAL, "ice optics: g must be in (-1, 1) (%g)", g);
    /* n = (rho_snow / rho_ice) / (4/3 pi r^3) spheres per m^3, each of cross-section
     * Q_ext pi r^2 = 2 pi r^2 */
    double sigma_t = 3.0 * rho_snow / (2.0 * PW_ICE_DENSITY * r);
    /* similarity (first order): rendered with HG g instead of ice's PW_ICE_G, the
     * scattering coefficient is scaled so that sigma_a and sigma_s (1 - g), what the
     * multiple scattering depends on, stay ice's. The tracer's sigma_t is grey: it is
     * scaled at green, and each channel keeps its own sigma_a exactly through its
     * albedo (its sigma_s (1 - g) is then off by sigma_a's spread, < 1e-3) */
    double scale = (1.0 - PW_ICE_G) / (1.0 - g);
    double co_green = pw_ice_sphere_coalbedo(r, pw_sky_channel_nm[1]);
    double sigma_t_render = sigma_t * (co_green + (1.0 - co_green) * scale);
    double albedo[3];
    for (int c = 0; c < 3; c++) {
        double sigma_a = pw_ice_sphere_coalbedo(r, pw_sky_channel_nm[c]) * sigma_t;
        albedo[c] = 1.0 - sigma_a / sigma_t_render;
    }
    out->sigma_t_ref = sigma_t_render;
    out->rho_ref = rho_snow;
    out->albedo = v3(albedo[0], albedo[1], albedo[2]);
    out->g = g;
    return PW_OK;
}
