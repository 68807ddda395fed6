/* medium.c — free-flight sampling and transmittance in the snow medium over the
 * majorant grid: sigma_t(x) = sigma_per_rho * rho(x) with sigma_per_rho =
 * sigma_t_ref / rho_ref, grey, so one distance serves all three colour channels.
 *
 * Within one brick the majorant sigma_maj = sigma_per_rho * rho_max is constant; the
 * exponential is memoryless, so when a tentative step leaves a brick we restart at the
 * brick's exit with the next brick's majorant (pbrt-v4's majorant iterator does the
 * same). Empty bricks (rho_max = 0) are crossed in one step. */
#include <math.h>

#include "density.h"

/* Exponential step of rate sigma_maj [1/m]. logf: the distance needs no more than float
 * precision, and it is the most frequent transcendental of the tracer. */
static inline double exp_step(pw_rng *rng, double sigma_maj)
{
    return -(double)logf((float)(1.0 - pw_rng_next(rng))) / sigma_maj;
}

int pw_medium_sample_collision(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, pw_rng *rng,
                               double *t_hit)
{
    if (!d || !(sigma_per_rho > 0)) return 0;
    pw_brick_walk w;
    pw_brick_walk_init(&w, d, o, dir, tmin, tmax);
    double t0, t1, rho_max;
    while (pw_brick_walk_next(&w, &t0, &t1, &rho_max)) {
        double sigma_maj = sigma_per_rho * rho_max;
        if (!(sigma_maj > 0) || !w.rho) continue;
        double t = t0;
        for (;;) {
            /* sample a tentative collision with the majorant */
            t += exp_step(rng, sigma_maj);
            if (t >= t1) break;
            /* real collision with probability sigma_t / sigma_maj, else null */
            double sigma_t = sigma_per_rho * pw_brick_walk_lookup(&w, v3_madd(o, dir, t));
            if (pw_rng_next(rng) * sigma_maj < sigma_t) {
                *t_hit = t;
                return 1;
            }
        }
    }
    return 0;
}

double pw_medium_transmittance(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, double rr_threshold,
                               pw_rng *rng)
{
    if (!d || !(sigma_per_rho > 0)) return 1.0;
    pw_brick_walk w;
    pw_brick_walk_init(&w, d, o, dir, tmin, tmax);
    double T = 1.0, t0, t1, rho_max;
    while (pw_brick_walk_next(&w, &t0, &t1, &rho_max)) {
        double sigma_maj = sigma_per_rho * rho_max;
        if (!(sigma_maj > 0) || !w.rho) continue;
        double t = t0;
        for (;;) {
            t += exp_step(rng, sigma_maj);
            if (t >= t1) break;
            /* ratio tracking: weight by the null-collision probability */
            double sigma_t = sigma_per_rho * pw_brick_walk_lookup(&w, v3_madd(o, dir, t));
            T *= 1.0 - sigma_t / sigma_maj;
            if (T < rr_threshold) {
                /* Russian roulette: survive with probability T / threshold */
                if (T <= 0.0 || pw_rng_next(rng) * rr_threshold >= T) return 0.0;
                T = rr_threshold;
            }
        }
    }
    return T;
}
