/* Property: the B-spline rasterizer conserves mass and its majorant bounds the medium.
 *   1. sum_i rho_i h^3 over distinct nodes = sum_p m_p to 1e-10 relative, at subdiv 1
 *      and 2 (partition of unity makes it exact up to double rounding, ~1e-15 per term).
 *   2. node values equal the direct sum rho_i = sum_p m_p w_ip / h^3 to 1e-12 relative.
 *   3. every trilinear lookup inside a brick is <= the brick's majorant (exactly: a
 *      trilinear interpolant is bounded by its corner values); random points.
 *   4. the same bits for 1 and 2 threads.
 *   5. edge cases: no particles (empty grid, mass 0, bounds refused); NaN position;
 *      negative mass; subdiv 0; zero spacing. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "density.h"
#include "pw_kernel.h"
#include "pw_render.h"

static double urand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1p-53;
}

/* Two blobs, one straddling the origin (negative brick indices), one far away. */
static void make_particles(size_t n, double *x, double *m)
{
    unsigned long long s = 42;
    for (size_t p = 0; p < n; p++) {
        double cx = p % 3 == 0 ? 0.61 : -0.013, r = p % 3 == 0 ? 0.05 : 0.12;
        for (int k = 0; k < 3; k++) x[3 * p + k] = cx + r * (2 * urand(&s) - 1);
        m[p] = 1e-5 * (0.5 + urand(&s));
    }
}

static double node_sum(const pw_density *d)
{
    /* distinct nodes: local 0..7 of each brick (8 is the next brick's 0) */
    double s = 0;
    for (size_t b = 0; b < d->nbricks; b++)
        for (int k = 0; k < PW_BRICK; k++)
            for (int j = 0; j < PW_BRICK; j++)
                for (int i = 0; i < PW_BRICK; i++)
                    s += d->rho[b * PW_BRICK_SIZE + (k * PW_BRICK_NODES + j) * PW_BRICK_NODES + i];
    return s * d->h * d->h * d->h;
}

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    size_t n = sanitized ? 3000 : 40000;
    double *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
    make_particles(n, x, m);
    double mass = 0;
    for (size_t p = 0; p < n; p++) mass += m[p];
    double h_sim = 0.01;
    pw_error err = {0};

    for (int subdiv = 1; subdiv <= 2; subdiv++) {
        pw_density *d = pw_density_rasterize(x, m, n, h_sim, subdiv, &err);
        CHECK(d != NULL, "rasterize subdiv %d: %s", subdiv, err.msg);
        if (!d) continue;
        /* 1. mass */
        CHECK_NEAR(pw_density_total_mass(d) / mass, 1.0, 1e-10, "total mass / sum m_p");
        CHECK_NEAR(node_sum(d) / mass, 1.0, 1e-10, "sum rho_i h^3 / sum m_p");
        printf("subdiv %d: %zu bricks, mass ratio - 1 = %.3g\n", subdiv, d->nbricks,
               node_sum(d) / mass - 1.0);

        /* 2. node values against the direct sum at random nodes near particles */
        unsigned long long s = 7;
        double worst = 0;
        for (int trial = 0; trial < 40; trial++) {
            size_t p0 = (size_t)(urand(&s) * n);
            int node[3];
            for (int k = 0; k < 3; k++) node[k] = (int)floor(x[3 * p0 + k] / d->h) + (trial % 3) - 1;
            double direct = 0;
            for (size_t p = 0; p < n; p++) {
                double w = 1;
                for (int k = 0; k < 3; k++) w *= pw_bspline(x[3 * p + k] / d->h - node[k]);
                direct += m[p] * w;
            }
            direct /= d->h * d->h * d->h;
            double got = pw_density_lookup(d, v3(node[0] * d->h, node[1] * d->h, node[2] * d->h));
            double rel = fabs(got - direct) / fmax(direct, 1e-300);
            if (rel > worst) worst = rel;
        }
        CHECK(worst <= 1e-12, "node value vs direct sum: worst relative error %.3g", worst);
        printf("subdiv %d: worst node error %.3g\n", subdiv, worst);

        /* 3. majorant bounds lookups, random points in every brick */
        vec3 lo, hi;
        CHECK(pw_density_bounds(d, &lo, &hi) == PW_OK, "bounds");
        double bs = PW_BRICK * d->h, worst_ratio = 0;
        long violations = 0, tested = 0;
        for (int bz = 0; bz < d->bdim[2]; bz++)
            for (int by = 0; by < d->bdim[1]; by++)
                for (int bx = 0; bx < d->bdim[0]; bx++) {
                    size_t c = pw_density_cell(d, bx, by, bz);
                    if (d->slot[c] < 0) {
                        CHECK(d->rho_max[c] == 0, "empty brick with majorant %g", d->rho_max[c]);
                        continue;
                    }
                    for (int t = 0; t < 64; t++) {
                        vec3 q = v3((d->blo[0] + bx + urand(&s)) * bs,
                                    (d->blo[1] + by + urand(&s)) * bs,
                                    (d->blo[2] + bz + urand(&s)) * bs);
                        double v = pw_density_lookup(d, q);
                        tested++;
                        if (v > d->rho_max[c]) violations++;
                        if (d->rho_max[c] > 0 && v / d->rho_max[c] > worst_ratio)
                            worst_ratio = v / d->rho_max[c];
                    }
                }
        CHECK(violations == 0, "%ld of %ld lookups exceed their brick's majorant", violations,
              tested);
        printf("subdiv %d: %ld lookups, max lookup/majorant %.4f\n", subdiv, tested, worst_ratio);

        /* 4. determinism across thread counts */
        omp_set_num_threads(1);
        pw_density *d1 = pw_density_rasterize(x, m, n, h_sim, subdiv, &err);
        omp_set_num_threads(2);
        pw_density *d2 = pw_density_rasterize(x, m, n, h_sim, subdiv, &err);
        CHECK(d1 && d2 && d1->nbricks == d->nbricks && d2->nbricks == d->nbricks, "brick counts");
        if (d1 && d2 && d1->nbricks == d2->nbricks)
            CHECK(memcmp(d1->rho, d2->rho, d1->nbricks * PW_BRICK_SIZE * sizeof(double)) == 0,
                  "1 and 2 threads give different densities");
        pw_density_destroy(d1);
        pw_density_destroy(d2);
        pw_density_destroy(d);
    }

    /* 5.1 no particles */
    pw_density *e = pw_density_rasterize(NULL, NULL, 0, h_sim, 1, &err);
    CHECK(e != NULL, "empty rasterize: %s", err.msg);
    vec3 lo, hi;
    CHECK(pw_density_bounds(e, &lo, &hi) != PW_OK, "empty grid has no bounds");
    CHECK(pw_density_total_mass(e) == 0, "empty mass");
    CHECK(pw_density_lookup(e, v3(0, 0, 0)) == 0, "empty lookup");
    pw_density_destroy(e);
    /* 5.2 NaN position */
    double xn[3] = {0, NAN, 0}, mn[1] = {1};
    CHECK(pw_density_rasterize(xn, mn, 1, h_sim, 1, &err) == NULL && err.code == PW_ENUMERIC,
          "NaN position accepted");
    printf("5.2: %s\n", err.msg);
    /* 5.3 negative mass */
    double xm[3] = {0, 0, 0}, mm[1] = {-1};
    CHECK(pw_density_rasterize(xm, mm, 1, h_sim, 1, &err) == NULL && err.code == PW_EINVAL,
          "negative mass accepted");
    /* 5.4 subdiv 0, 5.5 zero spacing, 5.6 far-away particle */
    CHECK(pw_density_rasterize(xm, mn, 1, h_sim, 0, &err) == NULL, "subdiv 0 accepted");
    CHECK(pw_density_rasterize(xm, mn, 1, 0.0, 1, &err) == NULL, "h = 0 accepted");
    double xf[6] = {0, 0, 0, 1e7, 0, 0}, mf[2] = {1, 1};
    CHECK(pw_density_rasterize(xf, mf, 2, h_sim, 1, &err) == NULL, "1e7 m extent accepted");
    printf("5.6: %s\n", err.msg);
    free(x);
    free(m);
    return check_done("density_conserves_mass");
}
