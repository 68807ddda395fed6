/* sampling.h — random numbers and the warps the path tracer draws with: a counter-hash
 * RNG seeded from (seed, pixel, sample), the R2 low-discrepancy sequence for pixel
 * positions, Henyey-Greenstein phase sampling, cone/sphere/cosine warps and the power
 * heuristic. Internal header of render/; everything is static inline.
 *
 * Why a hash and not a stream per thread: every camera sample owns its random numbers,
 * so an image is bit-identical for any thread count and tile order. */
#ifndef PW_SAMPLING_H
#define PW_SAMPLING_H

#include <math.h>
#include <stdint.h>

#include "pw_math.h"

#define PW_PI 3.14159265358979323846
#define PW_INV_4PI (1.0 / (4.0 * PW_PI))

/* ---- hash RNG ------------------------------------------------------------- */

/* splitmix64 finaliser (Steele et al. 2014): a bijective 64-bit mixer. */
static inline uint64_t pw_hash64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t pw_hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return pw_hash64(pw_hash64(pw_hash64(a) ^ b) ^ c);
}

typedef struct {
    uint64_t state;
} pw_rng;

static inline pw_rng pw_rng_seed(uint64_t seed, uint64_t pixel, uint64_t sample)
{
    pw_rng r = {pw_hash3(seed, pixel, sample)};
    return r;
}

/* Uniform in [0, 1) with 53 random bits (splitmix64 stream). */
static inline double pw_rng_next(pw_rng *r)
{
    r->state += 0x9e3779b97f4a7c15ULL;
    return (double)(pw_hash64(r->state) >> 11) * 0x1p-53;
}

/* ---- low discrepancy ------------------------------------------------------ */

/* Point n of the R2 sequence (Roberts 2018, generalised golden ratio), shifted by a
 * per-pixel offset (Cranley-Patterson rotation) so neighbouring pixels decorrelate. */
static inline void pw_r2(uint64_t n, double off_x, double off_y, double *x, double *y)
{
    const double a1 = 0.75487766624669276005, a2 = 0.56984029099805326591;
    double fx = 0.5 + a1 * (double)n + off_x, fy = 0.5 + a2 * (double)n + off_y;
    *x = fx - floor(fx);
    *y = fy - floor(fy);
}

/* ---- phase function ------------------------------------------------------- */

/* Henyey-Greenstein density [1/sr] of scattering by angle theta, where cos_theta is
 * measured between the propagation directions before and after scattering
 * (g > 0 scatters forward). */
static inline double pw_hg_pdf(double cos_theta, double g)
{
    double denom = 1.0 + g * g - 2.0 * g * cos_theta;
    return PW_INV_4PI * (1.0 - g * g) / (denom * sqrt(denom));
}

/* Unit vector at polar angle acos(cos_theta) and azimuth phi around unit axis w. The
 * azimuth's sine and cosine in float, rescaled to a unit pair in double: the pair in
 * double showed in the render's profile (render/docs/noise.md). */
static inline vec3 pw_around(vec3 w, double cos_theta, double phi)
{
    vec3 t, b;
    v3_basis(w, &t, &b);
    double sin_theta = sqrt(fmax(0.0, 1.0 - cos_theta * cos_theta));
    float phi_f = (float)phi;
    double c = cosf(phi_f), s = sinf(phi_f), unit = 1.0 / sqrt(c * c + s * s); /* |d| = 1 to double */
    vec3 d = v3_scale(w, cos_theta);
    d = v3_madd(d, t, sin_theta * c * unit);
    d = v3_madd(d, b, sin_theta * s * unit);
    return d;
}

/* Samples a new propagation direction for a photon travelling along unit `dir`, by
 * inverting the HG cumulative distribution in cos_theta; *pdf gets pw_hg_pdf. */
static inline vec3 pw_hg_sample(vec3 dir, double g, double u1, double u2, double *pdf)
{
    double cos_theta;
    if (fabs(g) < 1e-3) {
        cos_theta = 1.0 - 2.0 * u1;
    } else {
        double s = (1.0 - g * g) / (1.0 + g - 2.0 * g * u1);
        cos_theta = (1.0 + g * g - s * s) / (2.0 * g);
    }
    cos_theta = fmin(1.0, fmax(-1.0, cos_theta));
    if (pdf) *pdf = pw_hg_pdf(cos_theta, g);
    return pw_around(dir, cos_theta, 2.0 * PW_PI * u2);
}

/* ---- warps ---------------------------------------------------------------- */

/* Uniform on the sphere; pdf 1/(4 pi). */
static inline vec3 pw_sample_sphere(double u1, double u2)
{
    double z = 1.0 - 2.0 * u1, r = sqrt(fmax(0.0, 1.0 - z * z)), phi = 2.0 * PW_PI * u2;
    return v3(r * cos(phi), r * sin(phi), z);
}

/* Uniform in the cone of half-angle acos(cos_max) around unit w; pdf 1/(2 pi (1 - cos_max)). */
static inline vec3 pw_sample_cone(vec3 w, double cos_max, double u1, double u2)
{
    double cos_theta = 1.0 - u1 * (1.0 - cos_max);
    return pw_around(w, cos_theta, 2.0 * PW_PI * u2);
}

/* Cosine-weighted hemisphere around unit n; pdf cos/pi. */
static inline vec3 pw_sample_cosine(vec3 n, double u1, double u2)
{
    return pw_around(n, sqrt(1.0 - u1), 2.0 * PW_PI * u2);
}

/* Uniform point of the unit disk from (u1, u2) in [0, 1)^2 by the concentric map of
 * Shirley and Chiu (1997), which keeps the strata of low-discrepancy samples compact. */
static inline void pw_sample_disk(double u1, double u2, double *x, double *y)
{
    double a = 2.0 * u1 - 1.0, b = 2.0 * u2 - 1.0, r, phi;
    if (a == 0 && b == 0) {
        *x = *y = 0;
        return;
    }
    if (fabs(a) > fabs(b)) {
        r = a;
        phi = 0.25 * PW_PI * (b / a);
    } else {
        r = b;
        phi = 0.5 * PW_PI - 0.25 * PW_PI * (a / b);
    }
    *x = r * cos(phi);
    *y = r * sin(phi);
}

/* Power heuristic (Veach 1997, beta = 2) weight of a sample drawn with density pdf_a
 * when pdf_b is the other strategy's density for the same direction. */
static inline double pw_mis_power(double pdf_a, double pdf_b)
{
    double a = pdf_a * pdf_a, b = pdf_b * pdf_b;
    return a + b > 0 ? a / (a + b) : 0.0;
}

#endif
