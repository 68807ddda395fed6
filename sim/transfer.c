/* transfer.c — particle <-> grid transfers of Stomakhin et al. 2013, section 4.1
 * (steps 1-3, 7, 8) and the stress forces of eqs. 5-6, on the sparse block grid of
 * grid.h.
 *
 * Every stencil loop runs per home block on its local box (box.h). Scatters to the grid
 * run over home blocks by colour (grid.h): within one colour no two home blocks write
 * the same node, and each node receives its contributions in a fixed order (colour,
 * then home block), so the sums do not depend on the thread count. Gathers write only
 * their home block's particles and run over all home blocks at once. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "loops.h"
#include "pw_kernel.h"
#include "stream.h"
#include "transfer.h"

/* ---- grid rebuild ------------------------------------------------------------ */

/* dst[k - lo] = src[perm[k]] for k in [lo, hi), elements of sz bytes, streamed (stream.h): the
 * sizes of the particle arrays get a copy of constant size, which the compiler inlines. */
static void gather_elements(char *dst, const char *src, size_t sz, const uint32_t *perm, long lo,
                            long hi)
{
#define GATHER(SZ)                                                                           \
    for (long k = lo; k < hi; k++)                                                           \
        pw_stream_copy(dst + (size_t)(k - lo) * (SZ), src + (size_t)perm[k] * (SZ), SZ)
    switch (sz) {
    case sizeof(uint32_t): GATHER(sizeof(uint32_t)); break;
    case sizeof(double): GATHER(sizeof(double)); break;
    case sizeof(vec3): GATHER(sizeof(vec3)); break;
    case sizeof(mat3): GATHER(sizeof(mat3)); break;
    default: GATHER(sz); break;
    }
#undef GATHER
}

#define REORDER_CHUNK 4096 /* elements per task of the reorder */

/* Applies perm to the elements of one particle array (of elements of size sz) that the
 * tasks name, through K's storage, where each task's elements are staged packed from its
 * `at` on (perm maps each task's span onto the tasks' spans).
 * Both copies stream: the reorder is bound by memory bandwidth (at 3e5 particles and 2
 * threads), and streaming skips the read of each line written, a third of the traffic
 * (sim/docs/step-speed.md, third round). */
static void reorder(pw_sim *s, void *arr, size_t sz, const uint32_t *perm,
                    const pw_reorder_task *tasks, size_t n_tasks)
{
    assert(sz % 4 == 0 && sz <= PW_REORDER_ELEMENT_MAX); /* (pw_stream_copy's unit; staging) */
    assert(!s->K_formed); /* K's storage holds nothing in use (mpm_internal.h) */
    char *src = arr, *stage = pw_step_reorder_scratch(s);
    long nt = (long)n_tasks;
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static) nowait
        for (long c = 0; c < nt; c++)
            gather_elements(stage + tasks[c].at * sz, src, sz, perm,
                            (long)tasks[c].lo, (long)tasks[c].hi);
        pw_stream_fence();
#pragma omp barrier /* (the copy back overwrites src, which every thread's gather reads) */
#pragma omp for schedule(static) nowait
        for (long c = 0; c < nt; c++)
            pw_stream_copy(src + tasks[c].lo * sz, stage + tasks[c].at * sz,
                           (tasks[c].hi - tasks[c].lo) * sz);
        pw_stream_fence();
    }
}

/* The spans of [0, n) where perm moves elements, cut into tasks of at most
 * REORDER_CHUNK: s->reorder_tasks[0..*count), and the elements they move, *moved.
 * Resting snow that stays asleep keeps its place at the end, among the places the woken
 * left (grid.c), so the reorder copies a head and scattered runs, not the whole array. */
static pw_status reorder_spans(pw_sim *s, size_t n, size_t *count, size_t *moved, pw_error *err)
{
    const uint32_t *perm = s->perm;
    size_t m = 0, at = 0;
    for (int pass = 0; pass < 2; pass++) {
        m = 0;
        at = 0;
        for (size_t k = 0; k < n;) {
            if (perm[k] == k) {
                k++;
                continue;
            }
            size_t lo = k;
            while (k < n && perm[k] != k && k - lo < REORDER_CHUNK) k++;
            if (pass) s->reorder_tasks[m] = (pw_reorder_task){lo, k, at};
            m++;
            at += k - lo;
        }
        if (!pass && m > s->cap_reorder_tasks) {
            size_t c = m + m / 2 + 64;
            pw_reorder_task *q = realloc(s->reorder_tasks, c * sizeof *q);
            if (!q) return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu reorder spans", m);
            s->reorder_tasks = q;
            s->cap_reorder_tasks = c;
        }
    }
    *count = m;
    *moved = at;
    return PW_OK;
}

/* Moves every particle field into the sort's order, through K's storage as staging. */
static void reorder_particles(pw_sim *s)
{
    pw_particles *pt = &s->pt;
    size_t n_tasks = s->n_reorder_tasks;
    if (n_tasks == 0) return;
    const pw_reorder_task *tasks = s->reorder_tasks;
    for (int f = 0; f < pw_particle_field_count; f++) {
        const pw_particle_field *fd = &pw_particle_fields[f];
        if (!pw_particle_field_held(pt, fd)) continue;
        reorder(s, *pw_particle_array(pt, fd), pw_particle_field_bytes(fd), s->perm, tasks,
                n_tasks);
    }
    if (s->fe_svd_valid) reorder(s, s->fe_svd, sizeof *s->fe_svd, s->perm, tasks, n_tasks);
}

/* Each particle of one home block: its place in its stencil at x^n. */
static void place_home(const pw_sim *s, uint32_t home, void *ctx)
{
    (void)ctx;
    const pw_particles *pt = &s->pt;
    const pw_grid *g = &s->grid;
    uint64_t key = g->home_keys[home];
    int64_t origin[3];
    for (int a = 0; a < 3; a++)
        origin[a] = (int64_t)((key >> (a * PW_BLOCK_COORD_BITS)) &
                              ((UINT64_C(1) << PW_BLOCK_COORD_BITS) - 1)) * PW_BLOCK;
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_ploc *q = &s->ps[p];
        double u[3] = {(pt->x[p].x - g->origin.x) * g->inv_h, (pt->x[p].y - g->origin.y) * g->inv_h,
                       (pt->x[p].z - g->origin.z) * g->inv_h};
        for (int a = 0; a < 3; a++) {
            int base = (int)pw_stencil_first(u[a], g->stencil); /* the stencil's first node */
            q->fu[a] = u[a] - (double)base; /* exact, in [1, 2) or [1/2, 3/2) */
            /* the sort put p in the home block of this base node (positions stay inside
             * the domain, so grid.c's clamp of the base is never taken): the stencil
             * stays in the local box */
            assert(base - origin[a] >= 0 && base - origin[a] < PW_BLOCK);
            q->off[a] = (uint8_t)(base - origin[a]);
        }
        q->home = home;
    }
}

pw_status pw_mpm_sort(pw_sim *s, size_t *staging, pw_error *err)
{
    pw_particles *pt = &s->pt;
    /* flakes in the air move every step: with sources every particle is keyed afresh */
    size_t tail = s->rest_tail < pt->n && !pt->emits ? s->rest_tail : pt->n;
    pw_status rc = pw_grid_build(&s->grid, pt->n, pt->x,
                                 pt->rests || pt->emits ? s->resting : NULL, s->n_step, tail,
                                 s->perm, s->threads, err);
    if (rc != PW_OK) return rc;
    s->rest_tail = s->n_step; /* the resting tail, and its keys in grid.pkey */
    size_t moved = 0;
    rc = reorder_spans(s, pt->n, &s->n_reorder_tasks, &moved, err);
    if (rc != PW_OK) return rc;
    *staging = (moved * PW_REORDER_ELEMENT_MAX + sizeof *s->K - 1) / sizeof *s->K;
    return PW_OK;
}

void pw_mpm_reorder(pw_sim *s)
{
    reorder_particles(s);
    pw_mpm_for_homes(s, place_home, NULL); /* once per step */
}

/* ---- 1. P2G ------------------------------------------------------------------ */

/* q with the derivative weights replaced by k N_k along each axis, so that the box's
 * gradient gather and scatter weigh node (a, b, c) of the stencil by (a, b, c) N_abc:
 * the affine terms of APIC, since x_i - x_p = h ((a, b, c) - fu). */
static void offset_weighted(const pw_pstep *q, pw_pstep *qa)
{
    *qa = *q;
    for (int ax = 0; ax < 3; ax++)
        for (int k = 0; k < 4; k++) qa->dw[ax][k] = (double)k * q->w[ax][k];
}

/* node (momentum, mass) += m_p w_ip (v_p + C_p (x_i - x_p), 1) over one home block */
BOX_INLINE void p2g_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const int wide = s->wide; /* the simulation's kernel form (box.h) */
    (void)ctx;
    const pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt;
    int apic = s->p.transfer == PW_TRANSFER_APIC;
    pw_box out;
    box_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_pstep qs;
        pw_pstep_expand(&s->ps[p], g->inv_h, &qs, W);
        const pw_pstep *q = &qs;
        pw_vec4 *base = &out.node[box_base(q)];
        double mp = pt->m[p];
        vec3 v0 = pt->v[p]; /* C_p (x_i - x_p) = h C_p (a, b, c) - h C_p fu */
        if (apic) {
            mat3 hC = m3_scale(pt->C[p], g->h);
            v0 = v3_sub(v0, m3_mulv(hC, v3(q->fu[0], q->fu[1], q->fu[2])));
            pw_pstep qa;
            offset_weighted(q, &qa);
            double B[9];
            memcpy(B, m3_scale(hC, mp).m, sizeof B);
            box_scatter(wide, base, &qa, B, W);
        }
        pw_vec4 val = {mp * v0.x, mp * v0.y, mp * v0.z, mp};
        box_scatter_value(wide, base, q, &val, W);
    }
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        size_t first = (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l++) {
            const pw_vec4 *a = &out.node[box_at(o, l)];
            g->v[first + l] = v3_add(g->v[first + l], v3(a->x, a->y, a->z));
            g->m[first + l] += a->pad;
        }
    }
}

BOX_CLONES static void p2g_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, p2g_home_w, s, home, ctx);
}

void pw_mpm_p2g(pw_sim *s)
{
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        g->m[i] = 0;
        g->v[i] = v3_zero();
    }
    pw_mpm_for_homes_by_colour(s, p2g_home, NULL);
    /* normalise: v_i = sum_p m_p w_ip v_p / m_i */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        g->v[i] = g->m[i] > 0 ? v3_scale(g->v[i], 1.0 / g->m[i]) : v3_zero();
        g->v_old[i] = g->v[i];
    }
}

/* ---- 2. initial volumes ------------------------------------------------------ */

/* Whose mass a particle's rest volume counts: the particles of body `body`
 * (PW_ALL_BODIES: every particle) as gathered into the node masses m. */
#define PW_ALL_BODIES UINT32_MAX
typedef struct {
    uint32_t body;
    double *m; /* [kg] per node */
} volumes_ctx;

static int in_body(const pw_particles *pt, size_t p, uint32_t body)
{
    return body == PW_ALL_BODIES || pw_particles_body_of(pt, pt->id[p]) == body;
}

BOX_INLINE void volumes_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const int wide = s->wide; /* the simulation's kernel form (box.h) */
    const volumes_ctx *vc = ctx;
    const pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt; /* (the arrays it points to are written) */
    double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    pw_box m;
    box_load_scalar(g, home, vc->m, &m);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        if (pt->V0[p] > 0 || !in_body(pt, p, vc->body)) continue;
        pw_pstep qs;
        pw_pstep_expand(&s->ps[p], g->inv_h, &qs, W);
        const pw_pstep *q = &qs;
        pw_vec4 rho;
        box_gather_value(wide, &m.node[box_base(q)], q, &rho, W);
        /* rho_p^0 = sum_i m_i w_ip / h^3 is the density where the particle is now; a
         * particle added with an Fe other than I is compressed by it already, so its rest
         * volume is J_E larger (settled seeds bring their V0; this keeps any other exact) */
        pt->V0[p] = pt->m[p] / (rho.x * inv_h3) / m3_det(pt->Fe[p]);
    }
}

BOX_CLONES static void volumes_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, volumes_home_w, s, home, ctx);
}

/* node mass += m_p w_ip over one home block's particles of one body: P2G's mass
 * (p2g_home) restricted to the body, in the same order, so that a node no other body
 * reaches gets P2G's bits */
BOX_INLINE void body_mass_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const int wide = s->wide;
    const volumes_ctx *vc = ctx;
    const pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt;
    pw_box out;
    box_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        if (!in_body(pt, p, vc->body)) continue;
        pw_pstep qs;
        pw_pstep_expand(&s->ps[p], g->inv_h, &qs, W);
        pw_vec4 val = {0, 0, 0, pt->m[p]};
        box_scatter_value(wide, &out.node[box_base(&qs)], &qs, &val, W);
    }
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        size_t first = (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l++) vc->m[first + l] += out.node[box_at(o, l)].pad;
    }
}

BOX_CLONES static void body_mass_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, body_mass_home_w, s, home, ctx);
}

/* 1 when a stepped particle of body b has no rest volume yet */
static int body_pending(const pw_sim *s, uint32_t b)
{
    for (size_t p = 0; p < s->n_step; p++)
        if (!(s->pt.V0[p] > 0) && pw_particles_body_of(&s->pt, s->pt.id[p]) == b) return 1;
    return 0;
}

void pw_mpm_init_volumes(pw_sim *s)
{
    const pw_particles *pt = &s->pt;
    if (pt->n_bodies < 2) { /* one body: the grid's mass is its own */
        volumes_ctx all = {PW_ALL_BODIES, s->grid.m};
        pw_mpm_for_homes(s, volumes_home, &all);
        return;
    }
    /* Several: each body's density from its own mass alone, or a body resting on
     * another at t = 0 would count the other's mass as its own density (a dense box on
     * snow made the snow under it read 5-80 times too dense, its V0 that much too small).
     * Step 3 forms the forces later: their storage holds one body's node masses now. */
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
    volumes_ctx one = {0, (double *)g->f};
    for (uint32_t b = 0; b < pt->n_bodies; b++) {
        if (!body_pending(s, b)) continue;
        one.body = b;
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long i = 0; i < nn; i++) one.m[i] = 0;
        pw_mpm_for_homes_by_colour(s, body_mass_home, &one);
        pw_mpm_for_homes(s, volumes_home, &one);
    }
}

/* ---- 3. stress forces (eqs. 5-6) --------------------------------------------- */

/* Fe_hat(dx) = (I + sum_i dx_i grad w_ip^T) Fe of eq. 4 */
static mat3 displaced_Fe(const pw_sim *s, size_t p, const vec3 *dx)
{
    /* node by node: this serves only the force and energy tests (dx != NULL) */
    pw_pstep qs;
    const int W = s->grid.stencil;
    pw_pstep_expand(&s->ps[p], s->grid.inv_h, &qs, W);
    const pw_pstep *q = &qs;
    mat3 G = m3_zero();
    for (int c = 0; c < W; c++)
        for (int b = 0; b < W; b++)
            for (int a = 0; a < W; a++) {
                vec3 grad = v3(q->dw[0][a] * q->w[1][b] * q->w[2][c], q->w[0][a] * q->dw[1][b] * q->w[2][c],
                               q->w[0][a] * q->w[1][b] * q->dw[2][c]);
                G = m3_add(G, m3_outer(dx[pw_stencil_node(&s->grid, &s->ps[p], a, b, c)], grad));
            }
    return m3_mul(m3_add(m3_identity(), G), s->pt.Fe[p]);
}

/* B = -V0 P(Fe_hat) Fe^T of one particle, which eq. 5 applies to grad w_ip: at dx = 0
 * (the step) as pw_mpm_prepare_stress formed it */
static void force_matrix(const pw_sim *s, size_t p, const vec3 *dx, double B9[9])
{
    const pw_pstress *st = &s->stress[p];
    if (!dx) {
        memcpy(B9, st->B, sizeof st->B);
        return;
    }
    mat3 P = pw_fcr_stress(displaced_Fe(s, p, dx), st->mu, st->lambda);
    mat3 B = m3_scale(m3_mul(P, m3_transpose(s->pt.Fe[p])), -s->pt.V0[p]);
    memcpy(B9, B.m, 9 * sizeof *B9);
}

/* f_i += B grad w_ip over the particles of one home block */
BOX_INLINE void forces_home_w(const pw_sim *s, uint32_t home, void *dx, const int W)
{
    const int wide = s->wide; /* the simulation's kernel form (box.h) */
    const pw_grid *g = &s->grid;
    pw_box out;
    box_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_pstep qs;
        pw_pstep_expand(&s->ps[p], g->inv_h, &qs, W);
        const pw_pstep *q = &qs;
        double B[9];
        force_matrix(s, p, dx, B);
        box_scatter(wide, &out.node[box_base(q)], q, B, W);
    }
    box_add_to_vec3(g, home, &out, g->f);
}

BOX_CLONES static void forces_home(const pw_sim *s, uint32_t home, void *dx)
{
    PW_STENCIL_CALL(&s->grid, forces_home_w, s, home, dx);
}

void pw_mpm_grid_forces(pw_sim *s, const vec3 *dx)
{
    pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) g->f[i] = v3_zero();
    pw_mpm_for_homes_by_colour(s, forces_home, (void *)dx);
}

double pw_mpm_energy(pw_sim *s, const vec3 *dx)
{
    const pw_particles *pt = &s->pt;
    double *e = malloc((s->n_step ? s->n_step : 1) * sizeof *e);
    if (!e) return NAN;
    long n = (long)s->n_step;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        mat3 F = dx ? displaced_Fe(s, (size_t)p, dx) : pt->Fe[p];
        e[p] = pt->V0[p] * pw_fcr_energy(F, s->stress[p].mu, s->stress[p].lambda);
    }
    double sum = pw_mpm_sum(s, e, s->n_step);
    free(e);
    return sum;
}

/* ---- 7. deformation update (eqs. 11-12) -------------------------------------- */

typedef struct {
    double dt;
    size_t *first_bad; /* per home block: the first particle whose update failed, or n */
} deformation_ctx;

/* Particle p's plastic law (constitutive.h) at the start of the step: the 2013 clamp, or
 * its own law with the moduli hardened as the step's stress was (s->stress, formed from
 * the J_P of the step's start: under density hardening the rest density this step
 * measures reaches the moduli at the next step, as det Fp's change does), and the
 * apex from the cohesion left by its durability. */
/* sin and cos of the last friction angle law_of met: a block's particles mostly share
 * their material's (the pair cost as much as the rest of law_of) */
typedef struct {
    double phi, sin_phi, cos_phi;
} friction_trig;

static pw_plastic_law law_of(const pw_sim *s, size_t p, friction_trig *trig)
{
    const pw_particles *pt = &s->pt;
    pw_plastic_law L = {1, pt->theta_c[p], pt->theta_s[p], pt->Jp_floor[p], 0, 0, 0, 0, 0};
    if (!pt->laws) return L;
    uint32_t law = pt->law[p];
    L.clamp = (law & PW_LAW_CLAMP) != 0;
    if (law & PW_LAW_FRICTION) {
        double phi = pt->friction_angle[p];
        if (phi != trig->phi) *trig = (friction_trig){phi, sin(phi), cos(phi)};
        double sin_phi = trig->sin_phi;
        L.mu = s->stress[p].mu;
        L.lambda = s->stress[p].lambda;
        if (law & PW_LAW_DRUCKER_PRAGER)
            L.alpha = pw_drucker_prager_alpha_of_sin(sin_phi);
        else
            L.mc_sin_phi = sin_phi;
        L.apex = pt->durability[p] * pt->cohesion[p] * (trig->cos_phi / sin_phi) /
                 (3 * L.lambda + 2 * L.mu);
    }
    return L;
}

BOX_INLINE void deformation_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const int wide = s->wide; /* the simulation's kernel form (box.h) */
    const deformation_ctx *dc = ctx;
    const pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt; /* (the arrays it points to are written) */
    pw_box v, mass;
    box_load_vec3(g, home, g->v, &v);
    /* under the optional laws, the grid's density at each particle for density hardening
     * (rho_rest = sum_i m_i w_ip / h^3 |det Fe^n|: Fe^n's configuration is the one on the
     * grid) */
    if (pt->laws) box_load_scalar(g, home, g->m, &mass);
    double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    size_t bad = s->n_step;
    friction_trig trig = {NAN, NAN, NAN};
    /* in batches, for the SVD's sake (pw_svd_warm_batch) */
    for (size_t p0 = g->start[home]; p0 < g->start[home + 1]; p0 += PW_SVD_BATCH) {
        size_t left = g->start[home + 1] - p0;
        int n = left < PW_SVD_BATCH ? (int)left : PW_SVD_BATCH;
        mat3 Fe_hat[PW_SVD_BATCH], V_prev[PW_SVD_BATCH]; /* V_prev: Fe^n's */
        pw_svd3 warm[PW_SVD_BATCH];
        int ok[PW_SVD_BATCH] = {0};
        for (int k = 0; k < n; k++) {
            size_t p = p0 + (size_t)k;
            pw_pstep q;
            pw_pstep_expand(&s->ps[p], g->inv_h, &q, W);
            mat3 grad_v; /* sum_i v_i grad w_ip^T */
            double g9[9];
            box_gather(wide, &v.node[box_base(&q)], &q, g9, W);
            memcpy(grad_v.m, g9, sizeof g9);
            Fe_hat[k] = m3_mul(m3_add(m3_identity(), m3_scale(grad_v, dc->dt)), pt->Fe[p]);
            if (pt->laws && (pt->law[p] & PW_LAW_DENSITY_HARDENING)) {
                pw_vec4 rho;
                box_gather_value(wide, &mass.node[box_base(&q)], &q, &rho, W);
                pt->rho_rest[p] = rho.x * inv_h3 * fabs(m3_det(pt->Fe[p]));
            }
            if (s->fe_svd_valid) V_prev[k] = pw_quat_to_rotation(s->fe_svd[p].qV);
        }
        if (s->fe_svd_valid) pw_svd_warm_batch(n, Fe_hat, V_prev, warm, ok);
        pw_svd3 f[PW_SVD_BATCH];
        int done[PW_SVD_BATCH];
        for (int k = 0; k < n; k++) {
            size_t p = p0 + (size_t)k;
            const pw_plastic_law law = law_of(s, p, &trig);
            double stretch = 0;
            done[k] = pw_plasticity_update_law(&Fe_hat[k], &pt->Fp[p], &law,
                                               ok[k] ? &warm[k] : NULL, &pt->Fe[p], &pt->Fp[p],
                                               &f[k], pt->laws ? &stretch : NULL) == 0;
            /* durability only falls (Takahashi et al.: damaged structure never recovers) */
            if (pt->laws && stretch > 0)
                pt->durability[p] = fmax(0.0, pt->durability[p] - pt->durability_rate[p] * stretch);
            done[k] = done[k] && m3_isfinite(pt->Fe[p]) && m3_isfinite(pt->Fp[p]);
            if (!done[k]) {
                if (p < bad) bad = p;
                f[k] = (pw_svd3){m3_identity(), m3_identity(), v3(1, 1, 1)}; /* (unused) */
            }
        }
        pw_svd3_packed packed[PW_SVD_BATCH];
        pw_svd3_pack_batch(n, f, packed);
        for (int k = 0; k < n; k++)
            if (done[k]) s->fe_svd[p0 + (size_t)k] = packed[k];
    }
    dc->first_bad[home] = bad;
}

BOX_CLONES static void deformation_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, deformation_home_w, s, home, ctx);
}

size_t pw_mpm_update_deformation(pw_sim *s, double dt)
{
    const pw_grid *g = &s->grid;
    deformation_ctx dc = {dt, s->home_scratch};
    pw_mpm_for_homes(s, deformation_home, &dc);
    size_t first_bad = s->n_step;
    for (size_t h = 0; h < g->n_home; h++)
        if (dc.first_bad[h] < first_bad) first_bad = dc.first_bad[h];
    return first_bad;
}

/* ---- 8. G2P ------------------------------------------------------------------ */

/* v_p (PIC/FLIP blend, or APIC with C_p) of the particles of one home block */
BOX_INLINE void g2p_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const int wide = s->wide; /* the simulation's kernel form (box.h) */
    (void)ctx;
    const pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt; /* (the arrays it points to are written) */
    int apic = s->p.transfer == PW_TRANSFER_APIC;
    double alpha = s->p.flip_alpha;
    /* D_p^-1 = 3/h^2 for cubic B-splines, 4/h^2 for quadratic (Jiang et al. 2015) */
    double inv_D = (W == PW_STENCIL_CUBIC ? 3.0 : 4.0) * g->inv_h * g->inv_h;
    pw_box v, v_old;
    box_load_vec3(g, home, g->v, &v);
    if (!apic) box_load_vec3(g, home, g->v_old, &v_old);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_pstep qs;
        pw_pstep_expand(&s->ps[p], g->inv_h, &qs, W);
        const pw_pstep *q = &qs;
        int base = box_base(q);
        pw_vec4 pic;
        box_gather_value(wide, &v.node[base], q, &pic, W);
        vec3 v_pic = v3(pic.x, pic.y, pic.z);
        if (apic) {
            /* B_p = sum_i w_ip v_i (x_i - x_p)^T = h (sum_i w_ip v_i (a, b, c)^T - v_pic fu^T) */
            pw_pstep qa;
            offset_weighted(q, &qa);
            double b9[9];
            box_gather(wide, &v.node[base], &qa, b9, W);
            mat3 B;
            memcpy(B.m, b9, sizeof b9);
            B = m3_scale(m3_sub(B, m3_outer(v_pic, v3(q->fu[0], q->fu[1], q->fu[2]))), g->h);
            pt->v[p] = v_pic;
            pt->C[p] = m3_scale(B, inv_D);
        } else {
            pw_vec4 old;
            box_gather_value(wide, &v_old.node[base], q, &old, W);
            vec3 v_flip = v3_add(pt->v[p], v3_sub(v_pic, v3(old.x, old.y, old.z)));
            pt->v[p] = v3_add(v3_scale(v_pic, 1.0 - alpha), v3_scale(v_flip, alpha));
        }
    }
}

BOX_CLONES static void g2p_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, g2p_home_w, s, home, ctx);
}

void pw_mpm_g2p(pw_sim *s) { pw_mpm_for_homes(s, g2p_home, NULL); }
