/* Property: free-flight sampling (delta tracking) and the transmittance estimate (ratio
 * tracking) are exact for rays that start inside a heterogeneous medium and cross
 * bricks of different majorants, the case the trackers' first-brick path and the DDA
 * hand over in (render/medium.c).
 *
 * The medium is a lattice of particles, 24 cells a side at h = 1 cm (three 8-cell
 * bricks), whose masses make the density vary along x (a 4x step at the middle brick)
 * and y (+-40 %). The optical depth tau(s) along each ray is integrated from the
 * density lookup by the midpoint rule (step 2e-5 m: a trilinear field is smooth
 * between nodes). For 16 rays from inside the medium in random directions, half of
 * them ended at a finite tmax:
 *   1. the share of sampled collisions before s is 1 - exp(-tau(s)) at four distances
 *      along the ray, within 4.5 binomial standard errors;
 *   2. ratio tracking's mean, with and without Russian roulette, is exp(-tau(tmax))
 *      within 4.5 standard errors. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "density.h"
#include "pw_render.h"

static double optical_depth(const pw_density *d, double sigma_per_rho, vec3 o, vec3 dir,
                            double s)
{
    const double step = 2e-5;
    int n = (int)ceil(s / step);
    double ds = s / n, tau = 0;
    for (int i = 0; i < n; i++) tau += pw_density_lookup(d, v3_madd(o, dir, (i + 0.5) * ds));
    return tau * ds * sigma_per_rho;
}

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    const double h = 0.01, sigma_per_rho = 724.0 / 400.0, rho0 = 6.0; /* sigma_t ~ 11 /m */
    const int side = 24;
    size_t n = (size_t)side * side * side;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    size_t p = 0;
    for (int k = 0; k < side; k++)
        for (int j = 0; j < side; j++)
            for (int i = 0; i < side; i++, p++) {
                x[3 * p + 0] = (i + 0.5) * h;
                x[3 * p + 1] = (j + 0.5) * h;
                x[3 * p + 2] = (k + 0.5) * h;
                double f = (i >= 8 && i < 16 ? 4.0 : 1.0) * (1.0 + 0.4 * sin(0.7 * j));
                m[p] = rho0 * f * h * h * h;
            }
    pw_error err = {0};
    pw_density *d = pw_density_rasterize(x, m, n, h, 1, &err);
    CHECK(d != NULL, "rasterize: %s", err.msg);
    if (!d) return check_done("render_free_flight");

    const int rays = 16, samples = sanitized ? 20000 : 100000;
    pw_rng setup = pw_rng_seed(2024, 0, 0);
    double worst_cdf = 0, worst_T = 0;
    for (int r = 0; r < rays; r++) {
        vec3 o = v3(0.03 + 0.18 * pw_rng_next(&setup), 0.03 + 0.18 * pw_rng_next(&setup),
                    0.03 + 0.18 * pw_rng_next(&setup));
        double z = 1 - 2 * pw_rng_next(&setup), phi = 2 * 3.14159265358979 * pw_rng_next(&setup);
        double sr = sqrt(fmax(0, 1 - z * z));
        vec3 dir = v3(sr * cos(phi), sr * sin(phi), z);
        double tmax = r % 2 ? 0.05 + 0.1 * pw_rng_next(&setup) : INFINITY;
        double reach = isfinite(tmax) ? tmax : 0.45; /* past the lattice: no density */
        double s[4], P[4];
        int hits[4] = {0, 0, 0, 0};
        for (int q = 0; q < 4; q++) {
            s[q] = reach * (q + 1) / 4.0;
            P[q] = 1 - exp(-optical_depth(d, sigma_per_rho, o, dir, s[q]));
        }
        pw_rng rng = pw_rng_seed(99, (uint64_t)r, 1);
        for (int k = 0; k < samples; k++) {
            double t;
            if (!pw_medium_sample_collision(d, sigma_per_rho, o, dir, 0.0, tmax, &rng, &t))
                continue;
            CHECK(t > 0 && t < tmax, "ray %d: collision at %g outside (0, %g)", r, t, tmax);
            for (int q = 0; q < 4; q++) hits[q] += t < s[q];
        }
        for (int q = 0; q < 4; q++) {
            double got = (double)hits[q] / samples;
            double se = sqrt(fmax(P[q] * (1 - P[q]), 1e-12) / samples), zs = fabs(got - P[q]) / se;
            worst_cdf = fmax(worst_cdf, zs);
            CHECK(zs <= 4.5, "ray %d: P(collision before %.4f m) %.5f vs 1 - exp(-tau) %.5f "
                  "(%.2f se)", r, s[q], got, P[q], zs);
        }
        double T = 1 - P[3];
        for (int rr = 0; rr < 2; rr++) {
            double thr = rr ? 0.5 : 0.0, s1 = 0, s2 = 0;
            for (int k = 0; k < samples; k++) {
                double e = pw_medium_transmittance(d, sigma_per_rho, o, dir, 0.0, tmax, thr, &rng);
                s1 += e;
                s2 += e * e;
            }
            double mean = s1 / samples, se = sqrt(fmax(s2 / samples - mean * mean, 1e-12) / samples);
            double zs = fabs(mean - T) / se;
            worst_T = fmax(worst_T, zs);
            CHECK(zs <= 4.5, "ray %d rr %g: ratio tracking %.6f vs exp(-tau) %.6f (%.2f se)", r,
                  thr, mean, T, zs);
        }
        if (r < 4)
            printf("ray %d: tau to %.3f m = %.3f, P(collision) %.4f, got %.4f\n", r, s[3],
                   -log(1 - P[3]), P[3], (double)hits[3] / samples);
    }
    printf("worst deviation: collision CDF %.2f se, ratio tracking %.2f se (%d rays x %d)\n",
           worst_cdf, worst_T, rays, samples);
    pw_density_destroy(d);
    free(x);
    free(m);
    return check_done("render_free_flight");
}
