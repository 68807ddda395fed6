/* solver.c — the semi-implicit velocity update of Stomakhin et al. 2013, eq. 9:
 *
 *     (I + beta dt^2 M^-1 H) v^{n+1} = v*,
 *
 * solved by conjugate residual (CR), matrix free, with H applied by
 * pw_mpm_hessian_action. M^-1 H is symmetric in the mass inner product, so we solve
 * the equivalent Euclidean-symmetric system for y = M^{1/2} v:
 *
 *     (I + beta dt^2 M^-1/2 H M^-1/2) y = M^{1/2} v*.
 *
 * Its residual is the mass-weighted velocity residual (units of sqrt(kg) m/s), so the
 * relative tolerance weighs nodes by how much material they carry. CR rather than CG
 * because H of the fixed-corotated energy is not positive definite under compression
 * (as in the paper, which reports 10-30 iterations without preconditioning).
 * Degrees of freedom set by collisions (grid.fixed bits) and massless nodes are
 * projected out: they keep v* and enter only through the initial residual.
 * Dot products are summed per fixed chunk and the chunks in index order, so the
 * iterates are the same bits for any thread count. */
#include <stdlib.h>

#include "mpm_internal.h"

#define SUM_CHUNK 1024 /* elements per partial sum; fixed so results ignore threads */

/* ---- deterministic sums -------------------------------------------------------- */

double pw_mpm_sum(const pw_sim *s, const double *a, size_t n)
{
    long nc = (long)((n + SUM_CHUNK - 1) / SUM_CHUNK);
    double *part = s->partial;
    double total = 0;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        size_t lo = (size_t)c * SUM_CHUNK, hi = lo + SUM_CHUNK < n ? lo + SUM_CHUNK : n;
        double acc = 0;
        for (size_t k = lo; k < hi; k++) acc += a[k];
        part[c] = acc;
    }
    for (long c = 0; c < nc; c++) total += part[c];
    return total;
}

/* a . b over n nodes (3 components each) */
static double dot(const pw_sim *s, const vec3 *a, const vec3 *b, size_t n)
{
    long nc = (long)((n + SUM_CHUNK - 1) / SUM_CHUNK);
    double *part = s->partial;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        size_t lo = (size_t)c * SUM_CHUNK, hi = lo + SUM_CHUNK < n ? lo + SUM_CHUNK : n;
        double acc = 0;
        for (size_t k = lo; k < hi; k++) acc += v3_dot(a[k], b[k]);
        part[c] = acc;
    }
    double total = 0;
    for (long c = 0; c < nc; c++) total += part[c];
    return total;
}

static inline vec3 project(vec3 a, uint8_t fixed)
{
    if (fixed & 1) a.x = 0;
    if (fixed & 2) a.y = 0;
    if (fixed & 4) a.z = 0;
    return a;
}

/* out = P (I + beta dt^2 M^-1/2 H M^-1/2) y for projected y; uses cr[5] as scratch */
static void apply_operator(pw_sim *s, double beta_dt2, const vec3 *y, vec3 *out)
{
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
    vec3 *u = out, *Hu = s->cr[5];
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) u[i] = v3_scale(y[i], s->inv_sqrt_m[i]);
    pw_mpm_hessian_action(s, u, Hu);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++)
        out[i] = project(v3_madd(y[i], Hu[i], beta_dt2 * s->inv_sqrt_m[i]), g->fixed[i]);
}

/* ---- conjugate residual --------------------------------------------------------- */

pw_status pw_mpm_solve(pw_sim *s, double dt, int *iterations, int *converged, pw_error *err)
{
    pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    long nl = (long)nn;
    double beta_dt2 = s->p.beta * dt * dt;
    vec3 *x = s->cr[0], *r = s->cr[1], *p = s->cr[2], *Ar = s->cr[3], *Ap = s->cr[4];
    *iterations = 0;
    *converged = 1;

    /* massless nodes carry no unknown; x = M^1/2 v* is the initial guess */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nl; i++) {
        double sm = g->m[i] > 0 ? sqrt(g->m[i]) : 0;
        s->inv_sqrt_m[i] = g->m[i] > 0 ? 1.0 / sm : 0;
        if (!(g->m[i] > 0)) g->fixed[i] = 7;
        x[i] = v3_scale(g->v[i], sm);
    }
    double b_norm = sqrt(dot(s, x, x, nn));
    if (!isfinite(b_norm)) return pw_fail(err, PW_ENUMERIC, "implicit solve: non-finite v* (%g)", b_norm);
    if (b_norm == 0) return PW_OK; /* v* = 0 everywhere: v^{n+1} = 0 */

    /* r = P (b - A x0) = -P beta dt^2 M^-1/2 H v*, since b = x0 */
    pw_mpm_hessian_action(s, g->v, Ar);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nl; i++) {
        r[i] = project(v3_scale(Ar[i], -beta_dt2 * s->inv_sqrt_m[i]), g->fixed[i]);
        p[i] = r[i];
    }
    double r_norm = sqrt(dot(s, r, r, nn));
    double goal = s->p.cr_tolerance * b_norm;
    double rAr = 0;
    if (r_norm > goal) { /* (a rigid motion has H v* = 0 and needs no iteration) */
        apply_operator(s, beta_dt2, r, Ar);
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long i = 0; i < nl; i++) Ap[i] = Ar[i];
        rAr = dot(s, r, Ar, nn);
    }

    int k = 0;
    while (r_norm > goal) {
        if (k >= s->p.cr_max_iterations) {
            *converged = 0;
            break;
        }
        double ApAp = dot(s, Ap, Ap, nn);
        if (!isfinite(ApAp) || !isfinite(rAr))
            return pw_fail(err, PW_ENUMERIC,
                           "implicit solve: non-finite residual at iteration %d (|Ap|^2 = %g)", k,
                           ApAp);
        if (ApAp == 0 || rAr == 0) { /* breakdown: no further progress possible */
            *converged = 0;
            break;
        }
        double alpha = rAr / ApAp;
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long i = 0; i < nl; i++) {
            x[i] = v3_madd(x[i], p[i], alpha);
            r[i] = v3_madd(r[i], Ap[i], -alpha);
        }
        apply_operator(s, beta_dt2, r, Ar);
        double rAr_new = dot(s, r, Ar, nn);
        double beta_cr = rAr_new / rAr;
        rAr = rAr_new;
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long i = 0; i < nl; i++) {
            p[i] = v3_madd(r[i], p[i], beta_cr);
            Ap[i] = v3_madd(Ar[i], Ap[i], beta_cr);
        }
        r_norm = sqrt(dot(s, r, r, nn));
        k++;
        if (!isfinite(r_norm))
            return pw_fail(err, PW_ENUMERIC, "implicit solve: non-finite residual at iteration %d (%g)",
                           k, r_norm);
    }
    *iterations = k;

    /* v = M^-1/2 y on the free components; fixed ones keep v* exactly */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nl; i++) {
        uint8_t f = g->fixed[i];
        double ism = s->inv_sqrt_m[i];
        if (!(f & 1)) g->v[i].x = x[i].x * ism;
        if (!(f & 2)) g->v[i].y = x[i].y * ism;
        if (!(f & 4)) g->v[i].z = x[i].z * ism;
    }
    return PW_OK;
}
