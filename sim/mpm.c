/* mpm.c — the time step of Stomakhin et al. 2013, section 4.1.
 *
 * substep() is the paper's list, one call per item. Domain faces are slip walls:
 * within WALL_BAND h of a face, a grid node's or particle's velocity component into
 * the face is set to zero (tangential motion and separation stay free), and positions
 * are kept at least h inside so every stencil stays on the grid. Colliders (section 8)
 * are evaluated at the end of the substep, t + dt, where the material is headed. */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hessian.h"
#include "loops.h"
#include "mpm_internal.h"
#include "rest.h"
#include "solver.h"
#include "transfer.h"

/* WALL_BAND [h]: width of the slip-wall band at the domain faces (mpm_internal.h) */

/* Thread contention (mpm_internal.h): judged only on steps of at least this many
 * particles (shorter steps time too noisily), a step with CPU time below this fraction
 * of threads x elapsed counts as contended (a free machine measures ~0.95, spinning
 * at barriers included; a contended one 0.5-0.65) when other tasks also preempted its
 * threads at least this often a second of the step (a step short of CPU for a reason
 * outside the machine's scheduler, a virtual machine's stolen time or a thread asleep
 * through a serial stretch, is not preempted, and one thread would not be faster there;
 * the counts measured: sim/docs/step-speed.md), and one-thread stretches last
 * from the first to the last back-off [steps], doubling while contention lasts. */
#define CONTENTION_MIN_PARTICLES 50000
#define CONTENTION_EFFICIENCY 0.8
#define CONTENTION_PREEMPTIONS_PER_S 40.0
#define CONTENTION_BACKOFF_FIRST 16
#define CONTENTION_BACKOFF_MAX 1024

static int grow_array(void **a, size_t n, size_t sz)
{
    void *q = realloc(*a, (n ? n : 1) * sz);
    if (!q) return -1;
    *a = q;
    return 0;
}

/* Per-particle scratch of a step for every particle: the permutation, and the SVD each
 * Fe keeps between steps. */
pw_status pw_mpm_reserve_step(pw_sim *s, pw_error *err)
{
    size_t n = s->pt.n;
    if (n <= s->cap_step && s->cap_step) return PW_OK;
    size_t c = s->pt.cap;
    if (grow_array((void **)&s->fe_svd, c, sizeof *s->fe_svd) ||
        grow_array((void **)&s->perm, c, sizeof *s->perm))
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate step scratch for %zu particles", c);
    s->cap_step = c;
    return PW_OK;
}

/* Replaces *a by an array of n elements of sz bytes, contents not kept: no copy. */
static int renew_array(void **a, size_t n, size_t sz)
{
    free(*a);
    *a = malloc((n ? n : 1) * sz);
    return *a ? 0 : -1;
}

pw_status pw_mpm_reserve_stepped(pw_sim *s, size_t count, pw_error *err)
{
    size_t c = s->cap_stepped;
    if (count <= c && (count >= c / 2 || c <= 2 * PW_SCRATCH_SLACK)) return PW_OK;
    /* every particle stepped: exactly the particle arrays' size, as before resting snow
     * (no slack where nothing rests); else a quarter more, so the capacity is not
     * renewed every step while the stepped count drifts */
    c = count >= s->pt.n ? s->pt.cap : count + count / 4 + PW_SCRATCH_SLACK;
    if (c < count) c = count;
    if (renew_array((void **)&s->ps, c, sizeof *s->ps) ||
        renew_array((void **)&s->stress, c, sizeof *s->stress) ||
        renew_array((void **)&s->K, c, sizeof *s->K) ||
        renew_array((void **)&s->home_scratch, c, sizeof *s->home_scratch) ||
        renew_array((void **)&s->batch_psi, c / PW_STRESS_LANES + 1, sizeof *s->batch_psi)) {
        s->cap_stepped = 0; /* (some of the five may be NULL: renewed on the next call) */
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate step scratch for %zu particles", c);
    }
    s->cap_stepped = c;
    return PW_OK;
}

/* Per-node solver vectors, and the partial-sum buffer (loops.h), whose chunks cover node
 * and particle arrays. Node vectors hold a quarter beyond the need (the node count
 * drifts from step to step, and doubling would leave up to half of the largest arrays
 * of the solve unused) and are given back when the need halves (pw_scratch_fit): none
 * holds anything between steps. */
static pw_status reserve_solve(pw_sim *s, pw_error *err)
{
    size_t nn = pw_grid_node_count(&s->grid);
    size_t need_partial = pw_sum_chunks(nn > s->pt.n ? nn : s->pt.n);
    if (need_partial > s->cap_partial) {
        if (grow_array((void **)&s->partial, need_partial, sizeof *s->partial))
            return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu partial sums", need_partial);
        s->cap_partial = need_partial;
    }
    size_t c = s->cap_solve, caps[10];
    void **arrays[10] = {(void **)&s->inv_sqrt_m, (void **)&s->u4, (void **)&s->Hu4,
                         (void **)&s->dinv, (void **)&s->hdiag};
    size_t sizes[10] = {sizeof *s->inv_sqrt_m, sizeof *s->u4, sizeof *s->Hu4, sizeof *s->dinv,
                        sizeof *s->hdiag};
    for (int k = 0; k < 5; k++) {
        arrays[5 + k] = (void **)&s->cr[k];
        sizes[5 + k] = sizeof *s->cr[k];
    }
    for (int k = 0; k < 10; k++) {
        caps[k] = c;
        if (pw_scratch_fit(arrays[k], &caps[k], nn, sizes[k])) {
            s->cap_solve = 0; /* (renewed whole on the next call) */
            return pw_fail(err, PW_ENOMEM, "sim: cannot allocate solver vectors for %zu nodes", nn);
        }
    }
    assert(((uintptr_t)s->u4 & 15) == 0); /* (the solver streams it 16 bytes a node) */
    s->cap_solve = caps[0];
    return PW_OK;
}

/* ---- finiteness checks ------------------------------------------------------------- */

/* What of particle p is non-finite (x, v, Fe or Fp), or NULL. */
static const char *nonfinite_part(const pw_particles *pt, size_t p)
{
    if (!v3_isfinite(pt->x[p])) return "position";
    if (!v3_isfinite(pt->v[p])) return "velocity";
    if (!m3_isfinite(pt->Fe[p]) || !m3_isfinite(pt->Fp[p])) return "deformation gradient";
    return NULL;
}

/* First particle (lowest index) with non-finite x, v, Fe or Fp, or n. */
static size_t first_nonfinite_particle(const pw_sim *s, const char **what)
{
    const pw_particles *pt = &s->pt;
    size_t first = pt->n;
    long n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : first)
    for (long p = 0; p < n; p++)
        if ((size_t)p < first && nonfinite_part(pt, (size_t)p)) first = (size_t)p;
    if (first < pt->n) *what = nonfinite_part(pt, first);
    return first;
}

static pw_status check_particles(const pw_sim *s, pw_error *err)
{
    const char *what = "";
    size_t p = first_nonfinite_particle(s, &what);
    if (p == s->pt.n) return PW_OK;
    vec3 v = s->pt.v[p];
    return pw_fail(err, PW_ENUMERIC,
                   "sim step %" PRIu64 " (t = %.9g s): particle %u: non-finite %s (v = %g, %g, %g)",
                   s->steps, s->t, s->pt.id[p], what, v.x, v.y, v.z);
}

/* 1 when particle p's stencil reads a non-finite node of a. */
static int node_nonfinite(const pw_sim *s, size_t p, const vec3 *a)
{
    for (int k = 0; k < 64; k++)
        if (!v3_isfinite(a[pw_stencil_node(&s->grid, &s->ps[p], k & 3, (k >> 2) & 3, k >> 4)]))
            return 1;
    return 0;
}

/* Names the particle behind a non-finite grid field after a failed solve or update:
 * among the particles whose stencils read a non-finite node, the stiffest (hardened
 * mu + lambda), which is where an overflow starts; the stiffest overall if the
 * breakdown left no non-finite node. */
static pw_status grid_failure(const pw_sim *s, const vec3 *const *fields, int n_fields,
                              pw_error *err)
{
    size_t best = s->n_step;
    double best_k = -1;
    for (int pass = 0; pass < 2 && best == s->n_step; pass++)
        for (size_t p = 0; p < s->n_step; p++) {
            int touched = pass == 1;
            for (int f = 0; f < n_fields && !touched; f++) touched = node_nonfinite(s, p, fields[f]);
            double k = s->stress[p].mu + s->stress[p].lambda;
            if (touched && (k > best_k || best == s->n_step)) {
                best = p;
                best_k = k;
            }
        }
    if (best == s->n_step) {
        pw_error_prefix(err, "sim step %" PRIu64 " (t = %.9g s)", s->steps, s->t);
    } else {
        pw_error_prefix(err, "sim step %" PRIu64 " (t = %.9g s): particle %u (mu %g Pa, stiffest "
                        "near the blow-up)", s->steps, s->t, s->pt.id[best], s->stress[best].mu);
    }
    if (err) err->code = PW_ENUMERIC;
    return PW_ENUMERIC;
}

/* ---- grid steps 4-5 ------------------------------------------------------------------ */

/* 4. v* = v^n + dt (f/m + g), eq. 10 */
static void grid_predict(pw_sim *s, double dt)
{
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        if (!(g->m[i] > 0)) continue;
        vec3 a = v3_madd(s->p.gravity, g->f[i], 1.0 / g->m[i]);
        g->v[i] = v3_madd(g->v[i], a, dt);
    }
}

/* Slip walls: removes the velocity component into a face within the band; returns the
 * components it set (bit per axis). */
static uint8_t apply_walls(const pw_sim *s, vec3 x, vec3 *v)
{
    double band = WALL_BAND * s->p.h;
    double *vc[3] = {&v->x, &v->y, &v->z};
    uint8_t fixed = 0;
    for (int a = 0; a < 3; a++) {
        double xa = v3_get(x, a);
        if ((xa <= v3_get(s->p.domain_min, a) + band && *vc[a] < 0) ||
            (xa >= v3_get(s->p.domain_max, a) - band && *vc[a] > 0)) {
            *vc[a] = 0;
            fixed |= (uint8_t)(1u << a);
        }
    }
    return fixed;
}

/* 5. grid-based body collisions on v* (section 8). The solve keeps what a collision set:
 * all components of a sticking node, the normal one of a slipping node, and the normal
 * component of a node at a domain wall. A node held by both a collider and a wall, or
 * by walls of two axes and a slipping collider, is held whole: one projection must
 * stay symmetric for the solver, and the corner case does not need tangential freedom. */
static void grid_collide(pw_sim *s, double t_next)
{
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
    int have = pw_colliders_count(s->colliders) > 0;
    if (have) pw_colliders_pose_at(s->colliders, t_next);
    const uint8_t *held = s->pt.rests && s->n_step < s->pt.n ? s->held : NULL;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        /* a node no particle reaches has no degree of freedom in the solve */
        g->fixed[i] = g->m[i] > 0 ? 0 : PW_FIXED_ALL;
        if (!(g->m[i] > 0)) continue;
        vec3 xi = pw_grid_node_position(g, (size_t)i);
        pw_contact c = have ? pw_colliders_apply(s->colliders, t_next, xi, &g->v[i], &g->normal[i])
                            : PW_CONTACT_NONE;
        uint8_t walls = apply_walls(s, xi, &g->v[i]);
        if (c == PW_CONTACT_ALL || (c == PW_CONTACT_NORMAL && walls))
            g->fixed[i] = PW_FIXED_ALL;
        else if (c == PW_CONTACT_NORMAL)
            g->fixed[i] = PW_FIXED_NORMAL;
        else
            g->fixed[i] = walls;
        if (held && held[i]) { /* resting snow beside it holds it still (rest.h) */
            g->v[i] = v3_zero();
            g->fixed[i] = PW_FIXED_ALL;
        }
    }
}

/* ---- particle steps 9-10 ----------------------------------------------------------------- */

/* 9. particle-based body collisions on v_p^{n+1} */
static void particle_collide(pw_sim *s, double t_next)
{
    pw_particles *pt = &s->pt;
    long n = (long)s->n_step;
    int have = pw_colliders_count(s->colliders) > 0;
    if (have) pw_colliders_pose_at(s->colliders, t_next);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        if (have) pw_colliders_apply(s->colliders, t_next, pt->x[p], &pt->v[p], NULL);
        apply_walls(s, pt->x[p], &pt->v[p]);
    }
}

/* 10. x^{n+1} = x^n + dt v^{n+1}, kept h inside the domain; returns 1 when a particle's
 * x or v is not finite (checked here, where both pass through registers, instead of in
 * a pass of its own over the particles) */
static int advect(pw_sim *s, double dt)
{
    pw_particles *pt = &s->pt;
    long n = (long)s->n_step;
    vec3 lo = v3_add(s->p.domain_min, v3(s->p.h, s->p.h, s->p.h));
    vec3 hi = v3_sub(s->p.domain_max, v3(s->p.h, s->p.h, s->p.h));
    int nonfinite = 0;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(| : nonfinite)
    for (long p = 0; p < n; p++) {
        vec3 x = v3_madd(pt->x[p], pt->v[p], dt); /* (clamp: a NaN stays NaN for the check) */
        pt->x[p] = v3(clamp(x.x, lo.x, hi.x), clamp(x.y, lo.y, hi.y), clamp(x.z, lo.z, hi.z));
        nonfinite |= !v3_isfinite(pt->x[p]) || !v3_isfinite(pt->v[p]);
    }
    return nonfinite;
}

/* ---- phase timing ------------------------------------------------------------------------ */

typedef struct {
    double wall, cpu;
} clock_pair;

static clock_pair clock_now(void)
{
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    clock_pair r = {(double)w.tv_sec + 1e-9 * (double)w.tv_nsec,
                    (double)c.tv_sec + 1e-9 * (double)c.tv_nsec};
    return r;
}

/* The process's involuntary context switches so far: its threads preempted by other
 * runnable tasks (0 where the system does not count them: never contended). */
static long preemptions_now(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nivcsw : 0;
}

/* Charges the time since *t to phase and restarts *t. */
static void phase_end(pw_sim *s, clock_pair *t, int phase)
{
    clock_pair n = clock_now();
    s->prof.wall[phase] += n.wall - t->wall;
    s->prof.cpu[phase] += n.cpu - t->cpu;
    *t = n;
}

/* ---- one substep ------------------------------------------------------------------------ */

static int volumes_pending(const pw_sim *s)
{
    for (size_t p = 0; p < s->n_step; p++)
        if (!(s->pt.V0[p] > 0)) return 1;
    return 0;
}

pw_status pw_mpm_begin_step(pw_sim *s, pw_error *err)
{
    /* results do not depend on the thread count, so this is only about speed */
    size_t useful = s->pt.n / s->particles_per_thread + 1;
    s->threads = useful < (size_t)s->threads_max ? (int)useful : s->threads_max;
    if (s->contended_steps > 0) {
        s->threads = 1;
        s->contended_steps--;
        s->contended_total++;
    }
    s->K_formed = 0; /* what the last step formed dies here (pw_step_reorder_scratch) */
    /* which particles this step moves (rest.c); then the thread count they need */
    pw_status rc = pw_rest_decide(s, s->t_step_end, err);
    if (rc != PW_OK) return rc;
    useful = s->n_step / s->particles_per_thread + 1;
    if (useful < (size_t)s->threads) s->threads = (int)useful;
    rc = pw_mpm_reserve_step(s, err);
    size_t staging = 0; /* the reorder's, in K's elements */
    if (rc == PW_OK) rc = pw_mpm_sort(s, &staging, err); /* by block: the grid, the order */
    if (rc == PW_OK) rc = pw_mpm_reserve_stepped(s, staging > s->n_step ? staging : s->n_step, err);
    if (rc == PW_OK) pw_mpm_reorder(s); /* the particles in that order, stencil places of x^n */
    if (rc == PW_OK) rc = pw_rest_hold_nodes(s, err); /* nodes resting snow holds still */
    if (rc == PW_OK) rc = reserve_solve(s, err);
    return rc;
}

int pw_mpm_step_contended(double wall, double cpu, int threads, long preemptions)
{
    return cpu < CONTENTION_EFFICIENCY * wall * threads &&
           preemptions >= CONTENTION_PREEMPTIONS_PER_S * wall;
}

/* Updates the contention state from a step that took (wall, cpu) on s->threads, its
 * threads preempted `preemptions` times. */
static void judge_contention(pw_sim *s, clock_pair start, clock_pair end, long preemptions)
{
    if (s->threads < 2 || s->pt.n < CONTENTION_MIN_PARTICLES) return;
    double wall = end.wall - start.wall, cpu = end.cpu - start.cpu;
    if (!pw_mpm_step_contended(wall, cpu, s->threads, preemptions)) {
        s->contended_backoff = CONTENTION_BACKOFF_FIRST;
        return;
    }
    if (s->contended_backoff < CONTENTION_BACKOFF_FIRST)
        s->contended_backoff = CONTENTION_BACKOFF_FIRST;
    s->contended_steps = s->contended_backoff;
    if (s->contended_backoff < CONTENTION_BACKOFF_MAX) s->contended_backoff *= 2;
}

/* Speed no snow of this scene can reach [m/s]: 20 times the speed of a free fall across
 * the domain's diagonal, and at least 100 m/s (thrown snowballs, fast colliders). A
 * faster particle means the step has diverged (too large a dt_max for the material's
 * stiffness); stopping there beats running for ever at CFL-shrunk steps and writing
 * caches of an explosion. Depends only on the parameters, so resumed runs agree. */
static double speed_limit(const pw_sim *s)
{
    double diag = v3_length(v3_sub(s->p.domain_max, s->p.domain_min));
    return fmax(100.0, 20.0 * sqrt(2.0 * v3_length(s->p.gravity) * diag));
}

/* ---- the step controller -------------------------------------------------------------- */

/* Counts a step of dt set by bound in the frame's log; a retake's cap grows back. */
static void log_step(pw_sim *s, double dt, pw_dt_bound bound, int retook)
{
    pw_sim_step_log *l = &s->step_log;
    l->steps++;
    l->set_by[bound]++;
    if (dt < l->dt_min) l->dt_min = dt;
    if (dt > l->dt_max) l->dt_max = dt;
    double c = s->wave_speed2_max > 0 ? sqrt(s->wave_speed2_max) * dt / s->p.h : 0;
    if (c > l->courant_max) l->courant_max = c;
    if (retook)
        s->dt_retake_cap = dt;
    else if (s->dt_retake_cap < INFINITY)
        s->dt_retake_cap = 2 * s->dt_retake_cap >= s->p.dt_max ? INFINITY : 2 * s->dt_retake_cap;
}

/* Kinetic energy 1/2 sum m_i |v_i|^2 [J] and mass sum m_i [kg] of the grid, summed in a
 * fixed order (loops.h), so any thread count gives the same bits. */
static void grid_kinetic(pw_sim *s, double *kinetic, double *mass)
{
    const pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    long nc = (long)pw_sum_chunks(nn);
    double *part = s->partial;
    for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long c = 0; c < nc; c++) {
            size_t lo = (size_t)c * PW_SUM_CHUNK, hi = lo + PW_SUM_CHUNK < nn ? lo + PW_SUM_CHUNK : nn;
            double acc = 0;
            for (size_t i = lo; i < hi; i++)
                if (g->m[i] > 0) acc += pass ? g->m[i] : 0.5 * g->m[i] * v3_length2(g->v[i]);
            part[c] = acc;
        }
        *(pass ? mass : kinetic) = pw_sum_in_order(part, (size_t)nc);
    }
}

/* max |v_i| over the nodes with mass; held_only: over those a collider or wall set.
 * m_ref > 0: each node's speed weighed by min(1, m_i / m_ref), what of it reaches a
 * particle of mass m_ref (w_ip <= m_i / m_p): the solve's tolerance is relative in
 * the mass-weighted norm, and leaves nodes that carry a sliver of a particle's mass
 * free to move fast without any particle seeing it. */
static double grid_speed_max(const pw_sim *s, int held_only, double m_ref)
{
    const pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
    double v2max = 0;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(max : v2max)
    for (long i = 0; i < nn; i++) {
        if (!(g->m[i] > 0) || (held_only && !g->fixed[i])) continue;
        double v2 = v3_length2(g->v[i]);
        if (m_ref > 0 && g->m[i] < m_ref) v2 *= (g->m[i] / m_ref) * (g->m[i] / m_ref);
        if (v2 > v2max || v2 != v2) v2max = v2 != v2 ? INFINITY : v2;
    }
    return sqrt(v2max);
}

/* What an attempt's solve left on the grid, against what the step had to spend
 * (sim/docs/step-control.md): every source of the snow's motion is bounded, so the grid's
 * rms speed sqrt(2 KE / M) after the solve can exceed that of all the energy it held
 * (kinetic and elastic) by no more than twice the fastest speed a collider or wall set
 * (a rebound off a moving body) and g dt. */
typedef struct {
    double kinetic, mass, elastic; /* [J], [kg], [J] at the step's start */
    double collider_speed;         /* [m/s] fastest node a collider or wall set */
} attempt_budget;

static double elastic_energy(pw_sim *s)
{
    size_t batches = (s->n_step + PW_STRESS_LANES - 1) / PW_STRESS_LANES;
    return pw_mpm_sum(s, s->batch_psi, batches);
}

/* The reason to refuse an attempt whose solve returned rc and converged, or -1. */
static int judge_attempt(pw_sim *s, double dt, pw_status rc, int converged,
                         const attempt_budget *b)
{
    if (rc != PW_OK) return PW_RETAKE_NONFINITE;
    if (s->p.retake_limit == 0) return -1; /* (the 2013 rule: no judgement) */
    if (!converged) return PW_RETAKE_CAPPED;
    double ke, mass;
    grid_kinetic(s, &ke, &mass);
    if (!(mass > 0)) return -1;
    double vmax = grid_speed_max(s, 0, mass / (double)s->n_step);
    if (!isfinite(vmax)) return PW_RETAKE_NONFINITE;
    if (vmax > speed_limit(s)) return PW_RETAKE_SPEED;
    double v_had = sqrt(2 * (b->kinetic + b->elastic) / mass);
    double v_can = v_had + 2 * b->collider_speed + v3_length(s->p.gravity) * dt;
    double v_rms = sqrt(2 * ke / mass);
    /* (1 % and 1 mm/s: roundings of sums over the grid) */
    return v_rms > 1.01 * v_can + 1e-3 ? PW_RETAKE_ENERGY : -1;
}

/* The error of a step refused retake_limit + 1 times in a row, naming the particle
 * behind it as grid_failure does (the stiffest, or one reading a non-finite node). */
static pw_status step_failed(pw_sim *s, int reason, double dt, pw_status rc, pw_error *err)
{
    const vec3 *fields[] = {s->grid.v, s->cr[0], s->cr[1], s->cr[3], s->cr[4]};
    if (reason == PW_RETAKE_NONFINITE) {
        if (rc != PW_OK && rc != PW_ENUMERIC) return rc;
        if (rc == PW_OK) pw_fail(err, PW_ENUMERIC, "non-finite grid velocity");
        return grid_failure(s, fields, rc == PW_OK ? 1 : 5, err);
    }
    if (reason == PW_RETAKE_CAPPED)
        pw_fail(err, PW_ENUMERIC,
                "the solve stopped at cr_max_iterations (%d) above cr_tolerance (%g) after %d "
                "retakes down to dt %.3g s: raise sim.cr_max_iterations or sim.retake_limit, "
                "or lower sim.courant",
                s->p.cr_max_iterations, s->p.cr_tolerance, s->p.retake_limit, dt);
    else
        pw_fail(err, PW_ENUMERIC,
                "the simulation diverged (%s) after %d retakes down to dt %.3g s: the material "
                "is too stiff for its hardening (lower xi or raise Jp_min) or sim.retake_limit "
                "too low",
                pw_retake_reason_name((pw_retake_reason)reason), s->p.retake_limit, dt);
    return grid_failure(s, fields, 1, err);
}

/* Steps 4-6 at *dt, retaken at half the dt while refused, up to retake_limit times;
 * *retakes counts them, *bound becomes PW_DT_BY_RETAKE when there was one. */
static pw_status attempt_steps_4_to_6(pw_sim *s, double *dt, pw_dt_bound *bound, int *retakes,
                                      clock_pair *tp, pw_error *err)
{
    attempt_budget b = {0};
    b.elastic = s->p.retake_limit > 0 ? elastic_energy(s) : 0;
    int iterations = 0, converged = 1;
    for (*retakes = 0;; (*retakes)++) {
        if (*retakes > 0) pw_mpm_p2g(s);              /*    (v_i afresh for the retake)  */
        if (s->p.retake_limit > 0) grid_kinetic(s, &b.kinetic, &b.mass);
        grid_predict(s, *dt);                         /* 4. v*, eq. 10                   */
        grid_collide(s, s->t + *dt);                  /* 5. colliders and walls, sec. 8  */
        if (s->p.retake_limit > 0) b.collider_speed = grid_speed_max(s, 1, 0);
        phase_end(s, tp, PW_PHASE_FORCES);
        pw_status rc = PW_OK;                         /* 6. eq. 9, conjugate residual    */
        if (s->p.beta > 0) rc = pw_mpm_solve(s, *dt, &iterations, &converged, err);
        if (rc == PW_ENOMEM) return rc;
        phase_end(s, tp, PW_PHASE_SOLVE);
        int reason = judge_attempt(s, *dt, rc, converged, &b);
        if (reason < 0 && *retakes == 0 && s->steps == s->test_retake_step &&
            s->test_retake_refuse)
            reason = PW_RETAKE_TEST;
        if (reason < 0) break;
        s->step_log.retakes[reason]++;
        if (*retakes >= s->p.retake_limit) return step_failed(s, reason, *dt, rc, err);
        *dt *= 0.5;
        *bound = PW_DT_BY_RETAKE;
    }
    if (s->p.beta > 0) {
        pw_mpm_solve_accept(s);
        s->cr_iterations_last = iterations;
        s->cr_iterations_total += (uint64_t)iterations;
        s->cr_solves++;
        s->cr_not_converged += converged ? 0u : 1u;
        s->step_log.cr_iterations += (uint64_t)iterations;
    }
    return PW_OK;
}

/* One step of at most dt_try (set by `bound`); the elastic bound may shorten it, and
 * refused attempts halve it. The stepped set and the grid are those begin_step made for
 * dt_try: the steps 1-3 before the first attempt do not depend on dt, so a retake redoes
 * only P2G's velocities and steps 4-6, and leaves the bits of a step that was short from
 * the start. *dt_taken: the length taken [s]. */
static pw_status substep(pw_sim *s, double dt_try, pw_dt_bound bound, double *dt_taken,
                         pw_error *err)
{
    double dt = dt_try;
    s->t_step_end = s->t + dt;
    clock_pair tp = clock_now(), t_start = tp;
    long preempted_before = preemptions_now();
    pw_status rc = pw_mpm_begin_step(s, err);
    if (rc != PW_OK) return rc;
    phase_end(s, &tp, PW_PHASE_REBUILD);

    pw_mpm_p2g(s);                                    /* 1. m_i, v_i (normalised)        */
    if (volumes_pending(s)) pw_mpm_init_volumes(s);   /* 2. rho_p^0, V0 (first step)     */
    phase_end(s, &tp, PW_PHASE_P2G);
    pw_mpm_prepare_stress(s);                         /* 3. f_i, eq. 6, with hardening   */
    pw_mpm_grid_forces(s, NULL);
    if (s->p.courant > 0 && s->wave_speed2_max > 0) { /*    the elastic bound            */
        double dt_elastic = s->p.courant * s->p.h / sqrt(s->wave_speed2_max);
        if (dt_elastic < dt) {
            dt = dt_elastic;
            bound = PW_DT_BY_ELASTIC;
        }
    }
    int as_retaken = s->steps == s->test_retake_step && !s->test_retake_refuse;
    if (as_retaken) {
        dt *= 0.5; /* as if one attempt had been refused */
        bound = PW_DT_BY_RETAKE;
    }
    int retakes = 0;                                  /* 4-6, retaken while refused      */
    if ((rc = attempt_steps_4_to_6(s, &dt, &bound, &retakes, &tp, err)) != PW_OK) return rc;
    size_t bad = pw_mpm_update_deformation(s, dt);    /* 7. Fe, Fp, eqs. 11-12           */
    if (bad < s->n_step) {
        const vec3 *fields[] = {s->grid.v};
        if (node_nonfinite(s, bad, s->grid.v)) {
            pw_fail(err, PW_ENUMERIC, "non-finite grid velocity");
            return grid_failure(s, fields, 1, err);
        }
        return pw_fail(err, PW_ENUMERIC,
                       "sim step %" PRIu64 " (t = %.9g s): particle %u: non-finite deformation "
                       "gradient",
                       s->steps, s->t, s->pt.id[bad]);
    }
    phase_end(s, &tp, PW_PHASE_UPDATE_F);
    s->fe_svd_valid = 1;
    pw_emit_flight(s, s->t + dt, dt);                 /*    flakes: fall, or land      */
    pw_mpm_g2p(s);                                    /* 8. PIC/FLIP blend or APIC       */
    particle_collide(s, s->t + dt);                   /* 9. sec. 8 on particles          */
    int nonfinite = advect(s, dt);                    /* 10. x += dt v                   */
    phase_end(s, &tp, PW_PHASE_G2P);
    judge_contention(s, t_start, tp, preemptions_now() - preempted_before);
    log_step(s, dt, bound, retakes > 0 || as_retaken);
    s->steps++;
    s->dt_last = dt;
    *dt_taken = dt;
    /* NaN never reaches a cache: x and v were checked in advect, Fe and Fp in step 7 */
    return nonfinite ? check_particles(s, err) : PW_OK;
}

/* ---- clock ----------------------------------------------------------------------------- */

/* max |v_p| (max is exact, so any split among threads agrees) */
static double max_speed(const pw_sim *s)
{
    double vmax2 = 0;
    long n = (long)s->n_step; /* resting snow is slower than rest_speed: it sets no step */
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(max : vmax2)
    for (long p = 0; p < n; p++) {
        double v2 = v3_length2(s->pt.v[p]);
        if (v2 > vmax2) vmax2 = v2; /* (NaN is caught by check_particles) */
    }
    return sqrt(vmax2);
}

static pw_status check_divergence(const pw_sim *s, double vmax, pw_error *err)
{
    double limit = speed_limit(s);
    if (vmax <= limit) return PW_OK;
    size_t fastest = 0;
    for (size_t p = 0; p < s->pt.n; p++)
        if (v3_length(s->pt.v[p]) >= vmax) {
            fastest = p;
            break;
        }
    return pw_fail(err, PW_ENUMERIC,
                   "sim step %" PRIu64 " (t = %.9g s): the simulation diverged: particle %u moves "
                   "at %.4g m/s, over the %.4g m/s snow can reach in this domain (dt_max %.3g s "
                   "is too large for the material's stiffness: lower dt_max or E0)",
                   s->steps, s->t, s->pt.id[fastest], vmax, limit, s->p.dt_max);
}

void pw_mpm_forget_kept_state(pw_sim *s)
{
    s->fe_svd_valid = 0;
    s->warm_valid = 0;
}

pw_status pw_sim_advance_to(pw_sim *s, double t_end, pw_sim_progress_fn progress, void *user,
                            pw_error *err)
{
    if (!isfinite(t_end) || t_end < s->t)
        return pw_fail(err, PW_EINVAL, "sim: target time %.9g s is before the current time %.9g s",
                       t_end, s->t);
    if (s->failed)
        return pw_fail(err, PW_ENUMERIC, "sim: a previous step failed; the state is unusable");
    pw_mpm_forget_kept_state(s);
    pw_status rc = check_particles(s, err);
    if (rc != PW_OK) {
        s->failed = 1;
        return rc;
    }
    memset(&s->step_log, 0, sizeof s->step_log);
    s->step_log.dt_min = INFINITY;
    s->dt_retake_cap = INFINITY; /* (kept state: a resumed run starts the frame alike) */
    while (s->t < t_end) {
        /* snow the sources have born by now; before the first, nothing to step: the
         * clock runs on to it */
        if (s->n_sources && (rc = pw_emit_due(s, err)) != PW_OK) {
            s->failed = 1;
            return rc;
        }
        if (s->pt.n == 0) {
            double next = pw_emit_next_time(s);
            s->t = next < t_end ? next : t_end;
            if (progress) progress(user, s->t, t_end);
            continue;
        }
        /* the bounds known before the step: dt <= cfl h / max|v_p|, dt_max, a retake's
         * cap; the last step lands on t_end (a step within 1e-6 of the remainder is
         * stretched so no sliver step follows); the elastic bound comes in the step */
        double vmax = max_speed(s);
        if ((rc = check_divergence(s, vmax, err)) != PW_OK) {
            s->failed = 1;
            return rc;
        }
        double dt = s->p.dt_max;
        pw_dt_bound bound = PW_DT_BY_MAX;
        if (vmax > 0 && s->p.cfl * s->p.h / vmax < dt) {
            dt = s->p.cfl * s->p.h / vmax;
            bound = PW_DT_BY_SPEED;
        }
        if (s->dt_retake_cap < dt) {
            dt = s->dt_retake_cap;
            bound = PW_DT_BY_RETAKE;
        }
        double remaining = t_end - s->t, taken = 0;
        if (remaining <= dt * (1 + 1e-6)) {
            dt = remaining;
            bound = PW_DT_BY_FRAME;
        }
        rc = substep(s, dt, bound, &taken, err);
        if (rc != PW_OK) {
            s->failed = 1;
            return rc;
        }
        s->t = taken == remaining ? t_end : s->t + taken;
        if (progress) progress(user, s->t, t_end);
    }
    /* the frame holds the snow born by its time */
    if (s->n_sources && (rc = pw_emit_due(s, err)) != PW_OK) {
        s->failed = 1;
        return rc;
    }
    s->max_speed = max_speed(s);
    return PW_OK;
}

/* ---- queries ---------------------------------------------------------------------------- */

void pw_sim_get_stats(const pw_sim *s, pw_sim_stats *st)
{
    memset(st, 0, sizeof *st);
    st->steps = s->steps;
    st->time = s->t;
    st->dt_last = s->dt_last;
    st->max_speed = max_speed(s);
    st->cr_iterations_last = s->cr_iterations_last;
    st->cr_iterations_mean = s->cr_solves ? (double)s->cr_iterations_total / (double)s->cr_solves : 0;
    st->cr_iterations_total = s->cr_iterations_total;
    st->cr_solves = s->cr_solves;
    st->cr_not_converged = s->cr_not_converged;
    st->particles = s->pt.n;
    st->particles_stepped = s->n_step;
    st->stepped_share = s->particle_steps_all
                            ? (double)s->particle_steps / (double)s->particle_steps_all
                            : 1.0;
    st->active_blocks = s->grid.n_blocks;
}

void pw_sim_get_step_log(const pw_sim *s, pw_sim_step_log *log) { *log = s->step_log; }

const char *pw_dt_bound_name(pw_dt_bound b)
{
    static const char *const names[PW_DT_BY_COUNT] = {"speed", "elastic", "dt_max", "retake",
                                                      "frame"};
    return (unsigned)b < PW_DT_BY_COUNT ? names[b] : "?";
}

const char *pw_retake_reason_name(pw_retake_reason r)
{
    static const char *const names[PW_RETAKE_COUNT] = {"capped solve", "non-finite",
                                                       "speed limit", "energy", "test"};
    return (unsigned)r < PW_RETAKE_COUNT ? names[r] : "?";
}

size_t pw_sim_particle_count(const pw_sim *s) { return s->pt.n; }
const vec3 *pw_sim_positions(const pw_sim *s) { return s->pt.x; }
const vec3 *pw_sim_velocities(const pw_sim *s) { return s->pt.v; }
const double *pw_sim_masses(const pw_sim *s) { return s->pt.m; }
const uint32_t *pw_sim_particle_ids(const pw_sim *s) { return s->pt.id; }
double pw_sim_time(const pw_sim *s) { return s->t; }
