/* medium.c — free-flight sampling and transmittance in the snow medium over the
 * majorant grid: sigma_t(x) = sigma_per_rho * rho(x) with sigma_per_rho =
 * sigma_t_ref / rho_ref, grey, so one distance serves all three colour channels.
 *
 * Within one brick the majorant sigma_maj = sigma_per_rho * rho_max is constant; the
 * exponential is memoryless, so when a tentative step leaves a brick we restart at the
 * brick's exit with the next brick's majorant (pbrt-v4's majorant iterator does the
 * same). Empty bricks (rho_max = 0) are crossed in one step.
 *
 * Both estimators share one walk (walk_majorant_grid), which hands each tentative
 * collision to the estimator's step. It first tracks inside the brick the ray starts in,
 * without the DDA: in packed snow a mean free path (1.4 mm) is a small part of a brick
 * (2-8 cm), so most scattering events and shadow rays end there, and the DDA's set-up
 * showed in the render's profile (render/docs/noise.md). A brick is a box, so while the
 * tentative points stay in it the whole segment does. The first step that leaves it is
 * discarded and the walk goes on from that brick's exit, as the DDA would have. */
#include <math.h>

#include "density.h"

/* Exponential step of rate sigma_maj [1/m]. logf: the distance needs no more than float
 * precision, and it is the most frequent transcendental of the tracer. */
static inline double exp_step(pw_rng *rng, double sigma_maj)
{
    return -(double)logf((float)(1.0 - pw_rng_next(rng))) / sigma_maj;
}

/* Points *w at the occupied brick holding x (its table cell, node values and density)
 * and returns its max density; 0 when x is outside the table or in an empty brick. */
static double brick_at(pw_brick_walk *w, const struct pw_density *d, vec3 x)
{
    const double inv_bs = d->inv_h / PW_BRICK;
    const double p[3] = {x.x * inv_bs, x.y * inv_bs, x.z * inv_bs};
    for (int k = 0; k < 3; k++) {
        double c = p[k] - d->blo[k]; /* truncation is floor once c >= 0 */
        if (!(c >= 0 && c < d->bdim[k])) return 0.0;
        w->brick[k] = (int)c;
    }
    size_t c = pw_density_cell(d, w->brick[0], w->brick[1], w->brick[2]);
    if (d->slot[c] < 0) return 0.0;
    w->d = d;
    w->rho = d->rho + (size_t)d->slot[c] * PW_BRICK_SIZE;
    return d->rho_max[c];
}

/* Whether x lies in the (closed) brick *w points at. */
static inline int in_brick(const pw_brick_walk *w, vec3 x)
{
    const struct pw_density *d = w->d;
    const double p[3] = {x.x * d->inv_h, x.y * d->inv_h, x.z * d->inv_h};
    for (int k = 0; k < 3; k++) {
        double v = p[k] - (double)((d->blo[k] + w->brick[k]) * PW_BRICK);
        if (!(v >= 0 && v <= PW_BRICK)) return 0;
    }
    return 1;
}

/* Starts the DDA at o + t dir past the brick `first` (the one tracked so far), so the
 * walk resumes at its exit. */
static void walk_past(pw_brick_walk *w, const struct pw_density *d, const int first[3], vec3 o,
                      vec3 dir, double t, double tmax)
{
    pw_brick_walk_init(w, d, o, dir, t, tmax);
    if (!w->done && w->cell[0] == first[0] && w->cell[1] == first[1] && w->cell[2] == first[2]) {
        double t0, t1, rho_max;
        pw_brick_walk_next(w, &t0, &t1, &rho_max);
    }
}

/* ---- the walk along a ray through the majorant grid --------------------------------- */

/* What an estimator does with one tentative collision, at o + t dir, where the medium's
 * sigma_t [1/m] lies under the majorant sigma_maj [1/m]; it may draw from rng. Returns 1
 * to walk on, 0 to stop the walk there. */
typedef int (*tentative_collision_fn)(void *state, double t, double sigma_t, double sigma_maj,
                                      pw_rng *rng);

/* Samples tentative collisions with the majorant along o + t dir, t in (tmin, tmax), and
 * hands each to at_collision in order of t (pbrt-v4's SampleT_maj over its majorant
 * iterator). Returns 1 when at_collision stopped the walk, 0 when the ray passed tmax or
 * left the grid. Forced inline into each estimator: at_collision is then a direct call
 * the compiler inlines too, not an indirect call per tentative collision. */
static inline __attribute__((always_inline)) int
walk_majorant_grid(const struct pw_density *d, double sigma_per_rho, vec3 o, vec3 dir,
                   double tmin, double tmax, pw_rng *rng, tentative_collision_fn at_collision,
                   void *state)
{
    if (!d || !(sigma_per_rho > 0) || d->nbricks == 0 || !(tmax > tmin)) return 0;
    pw_brick_walk w;
    double t = tmin, sigma_maj = sigma_per_rho * brick_at(&w, d, v3_madd(o, dir, tmin));

    /* the brick the ray starts in, without the DDA, for as long as the points stay in it */
    if (sigma_maj > 0) {
        int first[3] = {w.brick[0], w.brick[1], w.brick[2]};
        for (;;) {
            double tn = t + exp_step(rng, sigma_maj);
            vec3 x = v3_madd(o, dir, tn < tmax ? tn : tmax);
            if (!in_brick(&w, x)) break;
            if (tn >= tmax) return 0;
            if (!at_collision(state, tn, sigma_per_rho * pw_brick_walk_lookup(&w, x), sigma_maj,
                              rng))
                return 1;
            t = tn;
        }
        walk_past(&w, d, first, o, dir, t, tmax);
    } else {
        pw_brick_walk_init(&w, d, o, dir, tmin, tmax);
    }

    /* the bricks after it over the DDA, each from its entry with its own majorant */
    double t0, t1, rho_max;
    while (pw_brick_walk_next(&w, &t0, &t1, &rho_max)) {
        sigma_maj = sigma_per_rho * rho_max;
        if (!(sigma_maj > 0) || !w.rho) continue; /* empty: crossed in one step */
        t = t0;
        for (;;) {
            t += exp_step(rng, sigma_maj);
            if (t >= t1) break;
            double sigma_t = sigma_per_rho * pw_brick_walk_lookup(&w, v3_madd(o, dir, t));
            if (!at_collision(state, t, sigma_t, sigma_maj, rng)) return 1;
        }
    }
    return 0;
}

/* ---- delta tracking ----------------------------------------------------------------- */

typedef struct {
    double t_hit; /* [m] */
} collision_state;

/* A real collision with probability sigma_t / sigma_maj, else a null one. */
static inline int at_collision_delta(void *state, double t, double sigma_t, double sigma_maj,
                                     pw_rng *rng)
{
    if (pw_rng_next(rng) * sigma_maj < sigma_t) {
        ((collision_state *)state)->t_hit = t;
        return 0;
    }
    return 1;
}

int pw_medium_sample_collision(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, pw_rng *rng,
                               double *t_hit)
{
    collision_state s;
    if (!walk_majorant_grid(d, sigma_per_rho, o, dir, tmin, tmax, rng, at_collision_delta, &s))
        return 0;
    *t_hit = s.t_hit;
    return 1;
}

/* ---- ratio tracking ----------------------------------------------------------------- */

/* Ratio tracking's weight for one tentative collision, with Russian roulette once the
 * transmittance falls below rr_threshold; returns 0 when the ray is absorbed. */
static inline double ratio_step(double T, double sigma_t, double sigma_maj, double rr_threshold,
                                pw_rng *rng)
{
    T *= 1.0 - sigma_t / sigma_maj;
    if (T < rr_threshold) {
        /* survive with probability T / threshold */
        if (T <= 0.0 || pw_rng_next(rng) * rr_threshold >= T) return 0.0;
        T = rr_threshold;
    }
    return T;
}

typedef struct {
    double T;            /* transmittance so far                                      */
    double rr_threshold; /* Russian roulette below this                               */
} transmittance_state;

/* Weights by the null-collision probability; stops the walk when the ray is absorbed. */
static inline int at_collision_ratio(void *state, double t, double sigma_t, double sigma_maj,
                                     pw_rng *rng)
{
    (void)t;
    transmittance_state *s = state;
    s->T = ratio_step(s->T, sigma_t, sigma_maj, s->rr_threshold, rng);
    return s->T != 0.0;
}

double pw_medium_transmittance(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, double rr_threshold,
                               pw_rng *rng)
{
    transmittance_state s = {1.0, rr_threshold};
    if (walk_majorant_grid(d, sigma_per_rho, o, dir, tmin, tmax, rng, at_collision_ratio, &s))
        return 0.0;
    return s.T;
}

/* ---- deterministic optical depth (the denoiser's guides) ---------------------------- */

double pw_medium_optical_depth(const struct pw_density *d, double sigma_per_rho, vec3 o,
                               vec3 dir, double tmin, double tmax, double step,
                               double tau_stop, double *t_stop)
{
    if (t_stop) *t_stop = INFINITY;
    if (!d || !(sigma_per_rho > 0) || d->nbricks == 0 || !(tmax > tmin) || !(step > 0))
        return 0.0;
    pw_brick_walk w;
    pw_brick_walk_init(&w, d, o, dir, tmin, tmax);
    double t0, t1, rho_max, tau = 0.0;
    while (pw_brick_walk_next(&w, &t0, &t1, &rho_max)) {
        if (!(rho_max > 0) || !w.rho) continue;
        int n = (int)ceil((t1 - t0) / step);
        double dt = (t1 - t0) / n;
        for (int i = 0; i < n; i++) {
            double tm = t0 + (i + 0.5) * dt;
            double dtau = sigma_per_rho * pw_brick_walk_lookup(&w, v3_madd(o, dir, tm)) * dt;
            if (tau + dtau >= tau_stop) {
                if (t_stop) *t_stop = t0 + i * dt + dt * (tau_stop - tau) / dtau;
                return tau_stop;
            }
            tau += dtau;
        }
    }
    return tau;
}
