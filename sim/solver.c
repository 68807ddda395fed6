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
 * Degrees of freedom set by collisions (grid.fixed: axis components, or the component
 * along a contact normal) and massless nodes are projected out: they keep v* and enter
 * only through the initial residual.
 * Dot products are summed per fixed chunk and the chunks in index order, so the
 * iterates are the same bits for any thread count.
 *
 * Preconditioning: Jacobi, D = diag(I + beta dt^2 M^-1/2 H M^-1/2) per node and DOF,
 * in the standard preconditioned CR recurrence (Saad, Iterative Methods, alg. 6.20
 * with M = D), which keeps the true residual r = b - A y alongside z = D^-1 r; the
 * stopping test uses |r|, so the tolerance means what it meant without D. D is built
 * once per step from the diagonal of H (pw_mpm_hessian_diagonal); entries below 1,
 * where compression makes H's diagonal negative, are raised to 1 (the identity part)
 * so that D stays positive definite, which the recurrence needs.
 *
 * Initial guess: v* plus the implicit correction v^{n+1} - v* of the previous step at the
 * same node (matched by block key), extrapolated linearly by its change since the step
 * before where both are known, on the free components. The correction changes little
 * and smoothly from step to step, so the start is closer than v* alone and the
 * extrapolated one closer still: fewer iterations for the same relative tolerance
 * (sim/docs/cr-tolerance.md). The first step of each pw_sim_advance_to call starts from
 * v*, so a resumed run repeats the bits of an uninterrupted one. */
#include <stdlib.h>
#include <string.h>

#include "hessian.h"
#include "loops.h"
#include "solver.h"
#include "stream.h"

/* P a: removes the components the collisions set (grid.fixed, grid.normal) */
static inline vec3 project(vec3 a, uint8_t fixed, vec3 normal)
{
    if (fixed & PW_FIXED_NORMAL) return v3_madd(a, normal, -v3_dot(a, normal));
    if (fixed & 1) a.x = 0;
    if (fixed & 2) a.y = 0;
    if (fixed & 4) a.z = 0;
    return a;
}

/* fmax(a, 1) by a comparison (fmax is a library call), NaN included: 1 */
static inline double at_least_one(double a) { return a > 1.0 ? a : 1.0; }

/* ---- fused vector passes ------------------------------------------------------------
 * Each pass runs over fixed chunks of PW_SUM_CHUNK nodes, accumulates its dot products
 * per chunk in index order and returns their sums over the chunks in order (loops.h).
 * So the sums are the same bits for any thread count, and a CR iteration makes three
 * passes over the node vectors instead of seven. */

#define CHUNK_RANGE(c, n, lo, hi)                                                        \
    size_t lo = (size_t)(c) * PW_SUM_CHUNK, hi = lo + PW_SUM_CHUNK < (n) ? lo + PW_SUM_CHUNK : (n)

/* a rounded to float and padded: the Hessian action's input (it sums in float) */
static inline pw_vec4f pad(vec3 a)
{
    pw_vec4f r = {(float)a.x, (float)a.y, (float)a.z, 0.f};
    return r;
}

/* u = pad(a) for the next Hessian action; with several threads, written past the caches.
 * Every thread's action reads u all over the grid, so its lines sit shared in several
 * cores' caches; an ordinary store must first take each line back, and at 2 threads the
 * stores of this pass stalled on it. A non-temporal store writes the whole 16-byte node
 * without taking the line, and the action reads it back from memory in its streamed
 * block loads. On one thread the lines stay in its own cache, where the action finds
 * them sooner, so there the store is ordinary (sim/docs/step-speed.md, third round). */
static inline void store_input(pw_vec4f *u, vec3 a, int stream)
{
    pw_vec4f v = pad(a);
    if (stream)
        pw_stream_store16(u, &v);
    else
        *u = v;
}

static inline int stream_input(const pw_sim *s) { return s->threads > 1; }

/* z = D^-1 r is not stored: each pass forms it from r and dinv where it needs it. */
static inline vec3 precondition(vec3 r, vec3 dinv) { return v3(r.x * dinv.x, r.y * dinv.y, r.z * dinv.z); }

/* z = P D^-1 r, the preconditioned residual where it becomes a search direction. D^-1
 * keeps an axis constraint's zero component zero, but scales the axes of a contact
 * normal differently, so only a normal constraint needs P again. The dot products
 * z . Az and Ap . D^-1 Ap need no P: Az and Ap already lie in P's range. */
static inline vec3 precondition_projected(vec3 r, vec3 dinv, const pw_grid *g, size_t i)
{
    vec3 z = precondition(r, dinv);
    return g->fixed[i] & PW_FIXED_NORMAL ? project(z, g->fixed[i], g->normal[i]) : z;
}

/* x += alpha p, r -= alpha Ap, u = M^-1/2 D^-1 r (the Hessian's input); returns r . r */
static double pass_update_x(pw_sim *s, size_t n, double alpha, vec3 *x, vec3 *r, const vec3 *p,
                            const vec3 *Ap, pw_vec4f *u)
{
    long nc = (long)pw_sum_chunks(n);
    double *part = s->partial;
    const vec3 *dinv = s->dinv;
    const int stream = stream_input(s);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        CHUNK_RANGE(c, n, lo, hi);
        double rr = 0;
        for (size_t i = lo; i < hi; i++) {
            x[i] = v3_madd(x[i], p[i], alpha);
            r[i] = v3_madd(r[i], Ap[i], -alpha);
            store_input(&u[i],
                        v3_scale(precondition_projected(r[i], dinv[i], &s->grid, i),
                                 s->inv_sqrt_m[i]),
                        stream);
            rr += v3_dot(r[i], r[i]);
        }
        if (stream) pw_stream_fence(); /* (before the loop's barrier) */
        part[c] = rr;
    }
    return pw_sum_in_order(part, (size_t)nc);
}

/* Az = P (z + beta dt^2 M^-1/2 Hu) with z = D^-1 r; returns z . Az */
static double pass_operator(pw_sim *s, size_t n, double beta_dt2, const vec3 *r,
                            const pw_vec4f *Hu, vec3 *Az)
{
    long nc = (long)pw_sum_chunks(n);
    double *part = s->partial;
    const vec3 *dinv = s->dinv;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        CHUNK_RANGE(c, n, lo, hi);
        double zAz = 0;
        for (size_t i = lo; i < hi; i++) {
            vec3 Hui = v3(Hu[i].x, Hu[i].y, Hu[i].z), z = precondition(r[i], dinv[i]);
            Az[i] = project(v3_madd(z, Hui, beta_dt2 * s->inv_sqrt_m[i]), s->grid.fixed[i],
                            s->grid.normal[i]);
            zAz += v3_dot(z, Az[i]);
        }
        part[c] = zAz;
    }
    return pw_sum_in_order(part, (size_t)nc);
}

/* p = z + beta p, Ap = Az + beta Ap; returns Ap . D^-1 Ap */
static double pass_direction(pw_sim *s, size_t n, double beta_cr, const vec3 *r, vec3 *p,
                             const vec3 *Az, vec3 *Ap)
{
    long nc = (long)pw_sum_chunks(n);
    double *part = s->partial;
    const vec3 *dinv = s->dinv;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        CHUNK_RANGE(c, n, lo, hi);
        double ApMAp = 0;
        for (size_t i = lo; i < hi; i++) {
            p[i] = v3_madd(precondition_projected(r[i], dinv[i], &s->grid, i), p[i], beta_cr);
            Ap[i] = v3_madd(Az[i], Ap[i], beta_cr);
            ApMAp += v3_dot(Ap[i], precondition(Ap[i], dinv[i]));
        }
        part[c] = ApMAp;
    }
    return pw_sum_in_order(part, (size_t)nc);
}

/* ---- warm start ----------------------------------------------------------------- */

/* Sizes one step's warm-start arrays for the current grid; 0 or -1 (no memory). */
static int reserve_warm(pw_warm_step *w, size_t nb)
{
    if (nb <= w->cap && w->cap) return 0;
    size_t c = nb + nb / 2 + 16;
    void *k = realloc(w->keys, c * sizeof *w->keys);
    if (k) w->keys = k;
    void *d = realloc(w->dv, c * PW_BLOCK_NODES * sizeof *w->dv);
    if (d) w->dv = d;
    void *m = realloc(w->map, c * sizeof *w->map);
    if (m) w->map = m;
    if (!k || !d || !m) return -1;
    w->cap = c;
    return 0;
}

/* Maps each current block to the same block of a step's correction (both key lists are
 * sorted). */
static void warm_map(const pw_grid *g, pw_warm_step *w)
{
    size_t j = 0;
    for (size_t b = 0; b < g->n_blocks; b++) {
        while (j < w->blocks && w->keys[j] < g->keys[b]) j++;
        w->map[b] = j < w->blocks && w->keys[j] == g->keys[b] ? (uint32_t)j : UINT32_MAX;
    }
}

/* The correction this step starts from at node i, before the collisions' projection: the
 * last step's, extrapolated linearly by the change from the step before where both are
 * known (Delta v_n + (Delta v_n - Delta v_n-1)), else the last step's alone; 0 where
 * neither step had the node's block. */
static int warm_correction(const pw_sim *s, int held, size_t i, vec3 *dv)
{
    size_t b = i / PW_BLOCK_NODES, l = i % PW_BLOCK_NODES;
    uint32_t last = held >= 1 ? s->warm.map[b] : UINT32_MAX;
    if (last == UINT32_MAX) return 0;
    *dv = s->warm.dv[(size_t)last * PW_BLOCK_NODES + l];
    uint32_t before = held >= 2 ? s->warm_old.map[b] : UINT32_MAX;
    if (before == UINT32_MAX) return 1;
    vec3 dv_old = s->warm_old.dv[(size_t)before * PW_BLOCK_NODES + l];
    *dv = v3_add(*dv, v3_sub(*dv, dv_old));
    return 1;
}

/* ---- conjugate residual --------------------------------------------------------- */

pw_status pw_mpm_solve(pw_sim *s, double dt, int *iterations, int *converged, pw_error *err)
{
    pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    long nl = (long)nn;
    double beta_dt2 = s->p.beta * dt * dt;
    vec3 *x = s->cr[0], *r = s->cr[1], *p = s->cr[2], *Ar = s->cr[3], *Ap = s->cr[4];
    pw_vec4f *u = s->u4;
    pw_vec4f *Hu = s->Hu4; /* M^-1/2 r and H M^-1/2 r */
    const int stream = stream_input(s);
    *iterations = 0;
    *converged = 1;
    if (reserve_warm(&s->warm, g->n_blocks) != 0 || reserve_warm(&s->warm_old, g->n_blocks) != 0 ||
        reserve_warm(&s->warm_new, g->n_blocks) != 0)
        return pw_fail(err, PW_ENOMEM, "implicit solve: cannot allocate the warm start for %zu blocks",
                       g->n_blocks);

    /* massless nodes carry no unknown */
    size_t nc = pw_sum_chunks(nn);
    double *part = s->partial;
    vec3 *dinv = s->dinv;
    pw_vec4f *Hd = s->hdiag;
    pw_mpm_hessian_diagonal(s, Hd);
    s->warm_new_made = 0;
    int held = s->warm_valid; /* corrections of earlier steps to start from; kept as they
                                 are until the step is accepted (pw_mpm_solve_accept) */
    if (held >= 1) warm_map(g, &s->warm);
    if (held >= 2) warm_map(g, &s->warm_old);
    /* x = M^1/2 v0 for the initial guess v0 [m/s]; u = v0 and r = b - x = M^1/2 (v* - v0)
     * until the initial residual below */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < (long)nc; c++) {
        CHUNK_RANGE(c, nn, lo, hi);
        double bb = 0;
        for (size_t i = lo; i < hi; i++) {
            double sm = g->m[i] > 0 ? sqrt(g->m[i]) : 0;
            s->inv_sqrt_m[i] = g->m[i] > 0 ? 1.0 / sm : 0;
            vec3 v0 = g->v[i];
            vec3 dv;
            if (warm_correction(s, held, (size_t)i, &dv))
                v0 = v3_add(v0, project(dv, g->fixed[i], g->normal[i]));
            x[i] = v3_scale(v0, sm);
            u[i] = pad(v0);
            double k = beta_dt2 / (g->m[i] > 0 ? g->m[i] : 1.0);
            dinv[i] = v3(1.0 / at_least_one(1.0 + k * Hd[i].x),
                         1.0 / at_least_one(1.0 + k * Hd[i].y),
                         1.0 / at_least_one(1.0 + k * Hd[i].z));
            vec3 b = v3_scale(g->v[i], sm);
            r[i] = v3_sub(b, x[i]);
            bb += v3_dot(b, b);
        }
        part[c] = bb;
    }
    double b_norm = sqrt(pw_sum_in_order(part, nc));
    if (!isfinite(b_norm)) return pw_fail(err, PW_ENUMERIC, "implicit solve: non-finite v* (%g)", b_norm);
    if (b_norm == 0) return PW_OK; /* v* = 0 everywhere: v^{n+1} = 0 */

    /* r = P (b - A x0) = P (M^1/2 (v* - v0) - beta dt^2 M^-1/2 H v0); p = z = D^-1 r,
     * Ap = 0 until the first operator product */
    pw_mpm_hessian_action4(s, u, Hu);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < (long)nc; c++) {
        CHUNK_RANGE(c, nn, lo, hi);
        double rr = 0;
        for (size_t i = lo; i < hi; i++) {
            double ism = s->inv_sqrt_m[i];
            vec3 Hv0 = v3(Hu[i].x, Hu[i].y, Hu[i].z);
            r[i] = project(v3_madd(r[i], Hv0, -beta_dt2 * ism), g->fixed[i], g->normal[i]);
            p[i] = precondition_projected(r[i], dinv[i], g, i);
            Ap[i] = v3_zero();
            store_input(&u[i], v3_scale(p[i], ism), stream); /* (the action just read u) */
            rr += v3_dot(r[i], r[i]);
        }
        if (stream) pw_stream_fence(); /* (before the loop's barrier) */
        part[c] = rr;
    }
    double r_norm = sqrt(pw_sum_in_order(part, nc)), zAz = 0, ApMAp = 0;
    double goal = s->p.cr_tolerance * b_norm;
    if (r_norm > goal) { /* (a rigid motion has H v* = 0 and needs no iteration) */
        pw_mpm_hessian_action4(s, u, Hu);
        zAz = pass_operator(s, nn, beta_dt2, r, Hu, Ar);
        ApMAp = pass_direction(s, nn, 0.0, r, p, Ar, Ap); /* p = z, Ap = Az */
    }

    int k = 0;
    while (r_norm > goal) {
        if (k >= s->p.cr_max_iterations) {
            *converged = 0;
            break;
        }
        if (!isfinite(ApMAp) || !isfinite(zAz))
            return pw_fail(err, PW_ENUMERIC,
                           "implicit solve: non-finite residual at iteration %d (Ap.D^-1 Ap = %g)", k,
                           ApMAp);
        if (ApMAp == 0 || zAz == 0) { /* breakdown: no further progress possible */
            *converged = 0;
            break;
        }
        double alpha = zAz / ApMAp;
        r_norm = sqrt(pass_update_x(s, nn, alpha, x, r, p, Ap, u));
        k++;
        if (!isfinite(r_norm))
            return pw_fail(err, PW_ENUMERIC, "implicit solve: non-finite residual at iteration %d (%g)",
                           k, r_norm);
        if (r_norm <= goal) break; /* the next direction's action would go unused */
        pw_mpm_hessian_action4(s, u, Hu);
        double zAz_new = pass_operator(s, nn, beta_dt2, r, Hu, Ar);
        double beta_cr = zAz_new / zAz;
        zAz = zAz_new;
        ApMAp = pass_direction(s, nn, beta_cr, r, p, Ar, Ap);
    }
    *iterations = k;

    /* v = M^-1/2 y on the free components; fixed ones keep v* exactly. The correction
     * waits in warm_new until the step is accepted. */
    vec3 *dv = s->warm_new.dv;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nl; i++) {
        uint8_t f = g->fixed[i];
        double ism = s->inv_sqrt_m[i];
        vec3 v = g->v[i];
        if (f & PW_FIXED_NORMAL) { /* tangential part from the solve, normal part of v* */
            vec3 n = g->normal[i];
            g->v[i] = v3_madd(project(v3_scale(x[i], ism), f, n), n, v3_dot(v, n));
            dv[i] = v3_sub(g->v[i], v);
            continue;
        }
        if (!(f & 1)) g->v[i].x = x[i].x * ism;
        if (!(f & 2)) g->v[i].y = x[i].y * ism;
        if (!(f & 4)) g->v[i].z = x[i].z * ism;
        dv[i] = v3_sub(g->v[i], v);
    }
    memcpy(s->warm_new.keys, g->keys, g->n_blocks * sizeof *g->keys);
    s->warm_new.blocks = g->n_blocks;
    s->warm_new_made = 1;
    return PW_OK;
}

void pw_mpm_solve_accept(pw_sim *s)
{
    if (!s->warm_new_made) { /* v* = 0 solved nothing: no correction to start from */
        s->warm_valid = 0;
        return;
    }
    /* this step's correction becomes the last one, and the last one the one before */
    pw_warm_step oldest = s->warm_old;
    s->warm_old = s->warm;
    s->warm = s->warm_new;
    s->warm_new = oldest;
    s->warm_valid = s->warm_valid >= 1 ? 2 : 1;
}
