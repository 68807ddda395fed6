/* emit.c — snow sources and the flakes' flight (emit.h). */
#include "emit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpm_internal.h"
#include "pw_kernel.h"

/* A flake lands, for good, when the grid's velocity at it, as if it alone were on the
 * grid, differs from its own free fall by more than this share of its terminal speed:
 * a snowpack beneath holds it still (sim/docs/snowfall.md) ... */
#define LANDING_TURN 0.5
/* ... or when its stencil reaches the floor's wall band (2 cells), or a collider's face
 * it can rest on: one whose normal is within 60 degrees of straight up (against
 * gravity). On a steeper face (a car's side, a kerb's front) it slides down in flight,
 * as at a side wall, and lands where it comes to rest. */
#define LANDING_GAP 2.0
#define LANDING_FACE_UP 0.5

#define PI 3.14159265358979323846

/* ---- checks ------------------------------------------------------------------------ */

/* The corners of the shape's body-frame box, and whether it has one. */
static int body_extent(const pw_shape *s, vec3 *half)
{
    *half = v3_zero();
    switch (s->kind) {
    case PW_SHAPE_SPHERE: *half = v3(s->radius, s->radius, s->radius); return 1;
    case PW_SHAPE_BOX: *half = s->half_extents; return 1;
    case PW_SHAPE_CYLINDER: *half = v3(s->radius, s->half_height, s->radius); return 1;
    default: return 0;
    }
}

static int inside_domain_at(const pw_shape *s, double t, vec3 lo, vec3 hi)
{
    vec3 half;
    body_extent(s, &half);
    pw_shape_pose pose;
    pw_shape_pose_at(s, t, &pose);
    for (int c = 0; c < 8; c++) {
        vec3 b = v3(c & 1 ? half.x : -half.x, c & 2 ? half.y : -half.y, c & 4 ? half.z : -half.z);
        vec3 w = v3_add(m3_mulv(pose.world_from_body, b), pose.origin);
        if (w.x < lo.x || w.y < lo.y || w.z < lo.z || w.x > hi.x || w.y > hi.y || w.z > hi.z)
            return 0;
    }
    return 1;
}

pw_status pw_source_check(const pw_source_desc *d, double h, vec3 domain_min,
                          vec3 domain_max, pw_error *err)
{
    vec3 half;
    if (!body_extent(&d->shape, &half))
        return pw_fail(err, PW_EINVAL, "shape: a source is a sphere, box or cylinder");
    if (!(isfinite(d->t_start) && isfinite(d->t_end) && d->t_start >= 0 && d->t_start < d->t_end))
        return pw_fail(err, PW_EINVAL, "start, end: the source emits over 0 <= start < end [s] "
                       "(%g, %g)", d->t_start, d->t_end);
    if (!(d->rate > 0) || !isfinite(d->rate))
        return pw_fail(err, PW_EINVAL, "rate: must be > 0 [kg/s] (%g)", d->rate);
    if (!(d->jitter >= 0) || !isfinite(d->jitter))
        return pw_fail(err, PW_EINVAL, "jitter: must be >= 0 [m/s] (%g)", d->jitter);
    if (!(d->terminal_speed >= 0) || !isfinite(d->terminal_speed))
        return pw_fail(err, PW_EINVAL, "terminal_speed: must be >= 0 [m/s] (%g)",
                       d->terminal_speed);
    if (!v3_isfinite(d->velocity))
        return pw_fail(err, PW_EINVAL, "velocity: must be finite");
    if (!(d->particles_per_cell >= 1 && d->particles_per_cell <= 64))
        return pw_fail(err, PW_EINVAL, "particles_per_cell: must be in [1, 64] (%g)",
                       d->particles_per_cell);
    const char *key;
    double value;
    char why[160];
    if (pw_material_check(&d->material, &key, &value, why, sizeof why) != PW_OK)
        return pw_fail(err, PW_EINVAL, "material: %s = %g: %s", key, value, why);
    /* where it stands when it starts and stops, and at each of its keys between */
    double lo = d->t_start, hi = d->t_end;
    if (!inside_domain_at(&d->shape, lo, domain_min, domain_max) ||
        !inside_domain_at(&d->shape, hi, domain_min, domain_max))
        return pw_fail(err, PW_EINVAL, "shape: the source leaves sim.domain between start and "
                       "end: snow it emits would start inside a wall");
    for (int k = 0; k < d->shape.n_keys; k++) {
        double t = d->shape.keys[k].t;
        if (t > lo && t < hi && !inside_domain_at(&d->shape, t, domain_min, domain_max))
            return pw_fail(err, PW_EINVAL, "shape: the source leaves sim.domain at its key "
                           "t = %g s", t);
    }
    double total = d->rate * (d->t_end - d->t_start) * d->particles_per_cell /
                   (d->material.rho0 * h * h * h);
    if (!(total < 4e9))
        return pw_fail(err, PW_EINVAL, "rate: %.3g particles over the source's time: at "
                       "most 4e9", total);
    return PW_OK;
}

double pw_source_top_area(const pw_shape *s)
{
    int turned = s->rotation_angle != 0;
    for (int k = 0; k < s->n_keys; k++) turned |= s->keys[k].angle != 0;
    switch (s->kind) {
    case PW_SHAPE_SPHERE: return PI * s->radius * s->radius;
    case PW_SHAPE_BOX: return turned ? 0 : 4 * s->half_extents.x * s->half_extents.z;
    case PW_SHAPE_CYLINDER: return turned ? 0 : PI * s->radius * s->radius;
    default: return 0;
    }
}

/* ---- emission ---------------------------------------------------------------------- */

static double particle_mass(const pw_source_desc *d, double h)
{
    return d->material.rho0 * h * h * h / d->particles_per_cell;
}

/* particles a second */
static double particle_rate(const pw_source_desc *d, double h)
{
    return d->rate / particle_mass(d, h);
}

/* Particles born by time t: those with t_k = t_start + (k + 1) / r <= t. */
static uint64_t born_by(const pw_source_desc *d, double h, double t)
{
    double r = particle_rate(d, h), span = fmin(t, d->t_end) - d->t_start;
    if (!(span > 0)) return 0;
    /* the estimate, then made to agree with t_k's own rounding, so that the clock set to
     * a t_k (pw_emit_next_time) sees that particle born */
    double t_last = fmin(t, d->t_end);
    uint64_t c = (uint64_t)floor(r * span);
    while (d->t_start + (double)(c + 1) / r <= t_last) c++;
    while (c > 0 && d->t_start + (double)c / r > t_last) c--;
    return c;
}

uint64_t pw_source_total(const pw_source_desc *d, double h)
{
    return born_by(d, h, d->t_end);
}

static uint64_t mix64(uint64_t x) /* splitmix64's finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The q-th uniform number in [-1, 1) of particle k of a source. */
static double draw(uint64_t seed, uint64_t k, uint64_t q)
{
    uint64_t r = mix64(mix64(seed + 0x9e3779b97f4a7c15ull) ^ mix64(k ^ 0x736e6f77ull) ^ q);
    return (double)(r >> 11) * 0x1p-52 - 1.0;
}

/* A point uniform in the shape's body-frame box that the shape holds, by rejection
 * (a sphere or cylinder holds more than half its box, so 64 tries leave a miss once
 * in 2^64 draws; then the centre). */
static vec3 body_point(const pw_shape *s, uint64_t seed, uint64_t k)
{
    vec3 half;
    body_extent(s, &half);
    for (uint64_t t = 0; t < 64; t++) {
        vec3 u = v3(draw(seed, k, 3 * t), draw(seed, k, 3 * t + 1), draw(seed, k, 3 * t + 2));
        if (s->kind == PW_SHAPE_BOX) return v3(u.x * half.x, u.y * half.y, u.z * half.z);
        double r2 = s->kind == PW_SHAPE_SPHERE ? v3_length2(u) : u.x * u.x + u.z * u.z;
        if (r2 < 1) return v3(u.x * half.x, u.y * half.y, u.z * half.z);
    }
    return v3_zero();
}

/* A velocity uniform in the ball of radius `jitter`. */
static vec3 jitter_of(double jitter, uint64_t seed, uint64_t k)
{
    if (!(jitter > 0)) return v3_zero();
    for (uint64_t t = 0; t < 64; t++) {
        vec3 u = v3(draw(seed, k, 1000 + 3 * t), draw(seed, k, 1001 + 3 * t),
                    draw(seed, k, 1002 + 3 * t));
        if (v3_length2(u) < 1) return v3_scale(u, jitter);
    }
    return v3_zero();
}

pw_status pw_emit_add_source(pw_sim *s, const pw_source_desc *d, pw_error *err)
{
    if (s->n_sources >= PW_SIM_MAX_SOURCES)
        return pw_fail(err, PW_EINVAL, "sim: at most %d sources", PW_SIM_MAX_SOURCES);
    pw_status rc = pw_source_check(d, s->p.h, s->p.domain_min, s->p.domain_max, err);
    if (rc == PW_OK) rc = pw_particles_hold_emission(&s->pt, err);
    if (rc != PW_OK) return rc;
    s->sources[s->n_sources] = *d;
    s->emitted[s->n_sources] = 0;
    s->n_sources++;
    return PW_OK;
}

pw_status pw_emit_due(pw_sim *s, pw_error *err)
{
    double h = s->p.h;
    pw_seeded out;
    memset(&out, 0, sizeof out);
    pw_status rc = PW_OK;
    for (int i = 0; i < s->n_sources && rc == PW_OK; i++) {
        const pw_source_desc *d = &s->sources[i];
        uint64_t due = born_by(d, h, s->t);
        if (due <= s->emitted[i]) continue;
        double m = particle_mass(d, h), r = particle_rate(d, h);
        out.n = 0;
        vec3 lo = v3_add(s->p.domain_min, v3(h, h, h)), hi = v3_sub(s->p.domain_max, v3(h, h, h));
        for (uint64_t k = s->emitted[i]; k < due && rc == PW_OK; k++) {
            double t_k = d->t_start + (double)(k + 1) / r;
            pw_shape_pose pose;
            pw_shape_pose_at(&d->shape, t_k, &pose);
            vec3 b = body_point(&d->shape, d->seed, k);
            vec3 x = v3_add(m3_mulv(pose.world_from_body, b), pose.origin);
            vec3 v = v3_add(d->velocity, jitter_of(d->jitter, d->seed, k));
            /* on along its velocity from its birth to the step that takes it */
            x = v3_min(v3_max(v3_madd(x, v, fmax(0.0, s->t - t_k)), lo), hi);
            rc = pw_seeded_append(&out, x, v, m, d->material.E0, d->material.rho0, &d->material,
                                  err);
        }
        for (size_t p = 0; p < out.n; p++) out.V0[p] = m / d->material.rho0;
        double drag = d->terminal_speed > 0 ? v3_length(s->p.gravity) / d->terminal_speed : 0;
        if (rc == PW_OK) rc = pw_sim_append_emitted(s, &out, drag, err);
        if (rc == PW_OK) s->emitted[i] = due;
    }
    pw_seeded_free(&out);
    return rc;
}

double pw_emit_next_time(const pw_sim *s)
{
    double next = INFINITY;
    for (int i = 0; i < s->n_sources; i++) {
        const pw_source_desc *d = &s->sources[i];
        if (s->emitted[i] >= pw_source_total(d, s->p.h)) continue;
        double t = d->t_start + (double)(s->emitted[i] + 1) / particle_rate(d, s->p.h);
        if (t < next) next = t;
    }
    return next;
}

double pw_emit_mass(const pw_sim *s)
{
    double mass = 0;
    for (int i = 0; i < s->n_sources; i++)
        mass += (double)s->emitted[i] * particle_mass(&s->sources[i], s->p.h);
    return mass;
}

/* ---- flight ---------------------------------------------------------------------------- */

/* What the grid says at a flake at x, as if the flake (mass m, velocity v) alone were
 * on it: each node's velocity with the flake's share added, (m_i v_i + w_i m v) / (m_i +
 * w_i m), interpolated, and the density sum_i w_i (m_i + w_i m) / h^3 (the paper's step
 * 2 estimate). Nodes of blocks the grid does not hold are empty. near[8]: the indices of
 * the 2x2x2 blocks from the one holding the stencil's base node (SIZE_MAX: none). */
static void grid_at_flake(const pw_grid *g, vec3 x, double m, vec3 v, const size_t near[8],
                          vec3 *v_grid, double *rho)
{
    double w[3][4];
    int64_t base[3];
    double u[3] = {(x.x - g->origin.x) * g->inv_h, (x.y - g->origin.y) * g->inv_h,
                   (x.z - g->origin.z) * g->inv_h};
    const int W = g->stencil;
    for (int a = 0; a < 3; a++) base[a] = pw_kernel_weights(W, u[a], g->inv_h, w[a], NULL);
    int64_t b0[3] = {base[0] / PW_BLOCK, base[1] / PW_BLOCK, base[2] / PW_BLOCK};
    vec3 vs = v3_zero();
    double mass = 0;
    for (int c = 0; c < W; c++)
        for (int b = 0; b < W; b++)
            for (int a = 0; a < W; a++) {
                int64_t n[3] = {base[0] + a, base[1] + b, base[2] + c};
                double wi = w[0][a] * w[1][b] * w[2][c], mi = 0;
                vec3 vi = v3_zero();
                size_t bi = near[(n[0] / PW_BLOCK - b0[0]) | (n[1] / PW_BLOCK - b0[1]) << 1 |
                                 (n[2] / PW_BLOCK - b0[2]) << 2];
                if (bi != SIZE_MAX) {
                    size_t i = bi * PW_BLOCK_NODES + (size_t)((n[0] & 3) | (n[1] & 3) << 2 |
                                                              (n[2] & 3) << 4);
                    mi = g->m[i];
                    vi = g->v[i];
                }
                double own = wi * m;
                if (mi + own > 0) /* (an empty node at weight 0 adds nothing) */
                    vs = v3_madd(vs, v3_scale(v3_madd(v3_scale(vi, mi), v, own), 1 / (mi + own)),
                                 wi);
                mass += wi * (mi + own);
            }
    *v_grid = vs;
    *rho = mass * g->inv_h * g->inv_h * g->inv_h;
}

/* How much the colliders' surface nearest x faces up, against gravity: the cosine of
 * its normal (phi's gradient, by central differences over h / 2) with -g. */
static double face_up(const pw_colliders *c, double t, vec3 x, double h, vec3 gravity)
{
    double g[3], e = 0.25 * h;
    for (int a = 0; a < 3; a++) {
        vec3 d = v3(a == 0 ? e : 0, a == 1 ? e : 0, a == 2 ? e : 0);
        g[a] = pw_colliders_phi(c, t, v3_add(x, d)) - pw_colliders_phi(c, t, v3_sub(x, d));
    }
    vec3 grad = v3(g[0], g[1], g[2]);
    double len = v3_length(grad) * v3_length(gravity);
    return len > 0 ? -v3_dot(grad, gravity) / len : 0;
}

/* The cells of side `cell` over the domain whose centre is nearer a collider at t than
 * gap + their half-diagonal, with a margin (phi is a distance: it changes by at most
 * the distance moved, a mesh's sampled one nearly so): s->flight_near[dims], 1 near.
 * A flake in a cell not near is farther than gap from every collider. 0 when the cells
 * cannot be held (the caller then asks every flake). */
typedef struct {
    vec3 origin;
    double inv_cell;
    int64_t dims[3];
} near_cells;

static int near_cells_at(pw_sim *s, double t, double gap, near_cells *nc)
{
    vec3 size = v3_sub(s->p.domain_max, s->p.domain_min);
    /* 8 h, coarser where the domain would need more than 2^20 cells */
    double cell = fmax(8 * s->p.h, cbrt(size.x * size.y * size.z / 1048576.0));
    size_t total = 1;
    for (int a = 0; a < 3; a++) {
        nc->dims[a] = (int64_t)ceil(v3_get(size, a) / cell);
        if (nc->dims[a] < 1) nc->dims[a] = 1;
        total *= (size_t)nc->dims[a];
    }
    if (total > s->cap_flight_near) {
        uint8_t *q = realloc(s->flight_near, total);
        if (!q) return 0;
        s->flight_near = q;
        s->cap_flight_near = total;
    }
    nc->origin = s->p.domain_min;
    nc->inv_cell = 1 / cell;
    double reach = gap + 1.5 * (0.5 * sqrt(3.0) * cell);
    long nl = (long)total;
    int64_t nx = nc->dims[0], ny = nc->dims[1];
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long k = 0; k < nl; k++) {
        int64_t i = k % nx, j = (k / nx) % ny, l = k / (nx * ny);
        vec3 c = v3_add(nc->origin, v3(((double)i + 0.5) * cell, ((double)j + 0.5) * cell,
                                       ((double)l + 0.5) * cell));
        s->flight_near[k] = pw_colliders_phi(s->colliders, t, c) < reach;
    }
    return 1;
}

static int near_collider(const pw_sim *s, const near_cells *nc, vec3 x)
{
    int64_t c[3];
    for (int a = 0; a < 3; a++) {
        c[a] = (int64_t)floor((v3_get(x, a) - v3_get(nc->origin, a)) * nc->inv_cell);
        if (c[a] < 0 || c[a] >= nc->dims[a]) return 1; /* (never: flakes stay inside) */
    }
    return s->flight_near[(c[2] * nc->dims[1] + c[1]) * nc->dims[0] + c[0]];
}

void pw_emit_flight(pw_sim *s, double t_next, double dt)
{
    pw_particles *pt = &s->pt;
    if (!pt->emits) return;
    const pw_grid *g = &s->grid;
    vec3 air = s->p.air_velocity, gravity = s->p.gravity;
    double gap = LANDING_GAP * s->p.h, band = (WALL_BAND + LANDING_GAP) * s->p.h;
    vec3 lo = v3_add(s->p.domain_min, v3(band, band, band));
    vec3 hi = v3_sub(s->p.domain_max, v3(band, band, band));
    /* the advection's clamp, as for snow */
    vec3 lo_x = v3_add(s->p.domain_min, v3(s->p.h, s->p.h, s->p.h));
    vec3 hi_x = v3_sub(s->p.domain_max, v3(s->p.h, s->p.h, s->p.h));
    int colliders = pw_colliders_count(s->colliders) > 0;
    int down_axis = 1;
    for (int a = 0; a < 3; a++)
        if (fabs(v3_get(gravity, a)) > fabs(v3_get(gravity, down_axis))) down_axis = a;
    double down_sign = v3_get(gravity, down_axis) > 0 ? 1 : -1;
    near_cells nc;
    int cells = colliders && near_cells_at(s, t_next, gap, &nc);
    /* the flakes are not stepped (rest.c): they sit past the stepped particles, sorted
     * by block, so a thread asks the grid for its blocks once a run */
    long first = (long)s->n_step, n = (long)pt->n;
#pragma omp parallel num_threads(s->threads)
    {
        uint64_t last = UINT64_MAX;
        size_t near[8];
        int any = 0;
#pragma omp for schedule(static)
        for (long p = first; p < n; p++) {
            double k = pt->drag[p];
            if (!(k > 0)) continue;
            /* its own free fall over the step: gravity, and dv/dt = -k (v - v_air) solved
             * exactly */
            vec3 v = v3_add(air, v3_scale(v3_sub(v3_madd(pt->v[p], gravity, dt), air), exp(-k * dt)));
            vec3 x = pt->x[p];
            /* the floor, the wall gravity falls toward, ends a flight; a flake the wind
             * drives against a side wall slides down it, kept inside by the clamp */
            double along = v3_get(x, down_axis);
            int landed = down_sign < 0 ? along < v3_get(lo, down_axis)
                                       : along > v3_get(hi, down_axis);
            if (!landed && colliders && (!cells || near_collider(s, &nc, x)) &&
                pw_colliders_phi(s->colliders, t_next, x) < gap) {
                landed = face_up(s->colliders, t_next, x, s->p.h, gravity) > LANDING_FACE_UP;
                if (!landed) /* a steep face: no way into it, friction along it */
                    pw_colliders_apply(s->colliders, t_next, x, &v, NULL);
            }
            uint64_t key = pw_grid_particle_key(g, x);
            if (key != last) {
                last = key;
                any = 0;
                for (int d = 0; d < 8; d++) {
                    near[d] = pw_grid_block_index(g, pw_grid_key_offset(key, d & 1, (d >> 1) & 1, d >> 2));
                    any |= near[d] != SIZE_MAX;
                }
            }
            /* snow under it: the grid's velocity at it turns from its own free fall */
            vec3 v_grid = v;
            double rho = 0;
            if (any) grid_at_flake(g, x, pt->m[p], v, near, &v_grid, &rho);
            double limit = LANDING_TURN * v3_length(gravity) / k;
            landed = landed || v3_length2(v3_sub(v_grid, v)) > limit * limit;
            if (landed) {
                /* part of the snowpack from the next step on, bringing its momentum,
                 * joining it unstrained (F_E = I) and as loose as the snow where it
                 * lands: its density there, the grid's with its own share, against its
                 * own rho0 = m / V0 is a plastic expansion J_P = rho0 / rho, which both
                 * hardenings read as snow that holds little until it is packed back to
                 * rho0 (sim/docs/snowfall.md) */
                if (!any) grid_at_flake(g, x, pt->m[p], v, near, &v_grid, &rho);
                double jp = fmin(fmax(pt->m[p] / (pt->V0[p] * rho), 1.0), pt->Jp_max[p]);
                pt->drag[p] = 0;
                pt->Fe[p] = m3_identity();
                pt->Fp[p] = m3_scale(m3_identity(), cbrt(jp));
            }
            pt->v[p] = v;
            if (pt->apic) pt->C[p] = m3_zero();
            x = v3_madd(x, v, dt);
            pt->x[p] = v3(fmin(fmax(x.x, lo_x.x), hi_x.x), fmin(fmax(x.y, lo_x.y), hi_x.y),
                          fmin(fmax(x.z, lo_x.z), hi_x.z));
        }
    }
}
