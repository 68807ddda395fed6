/* rest.c — resting snow and the translating grid; see rest.h. */
#include "rest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpm_internal.h"
#include "seed.h"

/* The rest counter: steps at rest in a row in the low bits (saturating: this many is
 * long enough for any sleep_steps), and a bit set once the particle has slept, i.e. has
 * settled under its own weight at least once. Snow seeded without stress and frozen
 * before it settled would fall when woken, and wake its neighbours as it falls. */
#define REST_SATURATED 0x40000000u
#define REST_SETTLED 0x80000000u
#define REST_COUNT(r) ((r) & ~REST_SETTLED)
_Static_assert(PW_REST_SEEDED == (REST_SATURATED | REST_SETTLED), "seed.h's settled counter");

/* what pw_rest_decide makes of a particle (s->resting): stepped, resting (wakes when
 * reached), or frozen outside a region that freezes (nothing wakes it) */
enum { STEPS = 0, RESTS = 1, FROZEN = 2, FLIES = 3 };
/* (FLIES: a flake in the air, sim/emit.h: off the grid until it lands; it holds no node,
 * wakes nothing and is not woken) */

static int grow(void **a, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap && *a) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < n) c *= 2;
    void *q = realloc(*a, c * sz);
    if (!q) return -1;
    *a = q;
    *cap = c;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts keys[0..n) and drops repeats; returns the count left. */
static size_t sort_unique(uint64_t *keys, size_t n)
{
    qsort(keys, n, sizeof *keys, cmp_key);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (u == 0 || keys[k] != keys[u - 1]) keys[u++] = keys[k];
    return u;
}

static int has_key(const uint64_t *keys, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && keys[lo] == key;
}

/* The blocks within one block of snow that moves faster than wake_speed, among the
 * particles that would not rest: s->wake_keys[0..*count), sorted. */
static pw_status moving_blocks(pw_sim *s, const uint8_t *candidate, size_t *count,
                               pw_error *err)
{
    const pw_particles *pt = &s->pt;
    double v2 = s->p.wake_speed * s->p.wake_speed;
    size_t n_moving = 0;
    for (size_t p = 0; p < pt->n; p++) n_moving += !candidate[p] && v3_length2(pt->v[p]) >= v2;
    if (grow((void **)&s->wake_keys, &s->cap_wake, 27 * (n_moving ? n_moving : 1),
             sizeof *s->wake_keys))
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate the wake test's blocks");
    size_t m = 0;
    for (size_t p = 0; p < pt->n; p++)
        if (!candidate[p] && v3_length2(pt->v[p]) >= v2)
            s->wake_keys[m++] = pw_grid_particle_key(&s->grid, pt->x[p]);
    m = sort_unique(s->wake_keys, m);
    size_t u = m;
    for (size_t k = 0; k < m; k++)
        for (int d = 0; d < 27; d++)
            if (d != 13)
                s->wake_keys[u++] =
                    pw_grid_key_offset(s->wake_keys[k], d % 3 - 1, (d / 3) % 3 - 1, d / 9 - 1);
    *count = sort_unique(s->wake_keys, u);
    return PW_OK;
}

/* The decision made (s->resting): `stepped` particles step. The SVD of Fe kept from the
 * last step a woken particle took is still its Fe's (resting changes nothing), but a
 * particle that rested from its first step, or a flake that has just landed, never had
 * one: those past the last step's stepped count are factored afresh. */
static pw_status stepped_are(pw_sim *s, long moved, size_t stepped)
{
    const pw_particles *pt = &s->pt;
    const uint8_t *cand = s->resting;
    long nl = (long)pt->n;
    if (s->fe_svd_valid)
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long p = moved; p < nl; p++)
            if (!cand[p]) {
                pw_svd3 f;
                m3_svd(pt->Fe[p], &f.U, &f.sigma, &f.V);
                pw_svd3_pack(&f, &s->fe_svd[p]);
            }
    s->n_step = stepped;
    s->particle_steps += (uint64_t)stepped;
    return PW_OK;
}

pw_status pw_rest_decide(pw_sim *s, double t_next, pw_error *err)
{
    pw_particles *pt = &s->pt;
    size_t n = pt->n;
    s->particle_steps_all += n;
    if (!pt->rests && !pt->emits) {
        s->n_step = n;
        s->particle_steps += n;
        return PW_OK;
    }
    if (grow((void **)&s->resting, &s->cap_resting, n, 1))
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate rest flags for %zu particles", n);
    uint8_t *cand = s->resting;
    long nl = (long)n, moved = (long)s->n_step, stepped = 0;
    if (!pt->rests) { /* only flakes in the air are left out */
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(+ : stepped)
        for (long p = 0; p < nl; p++) {
            cand[p] = pt->drag[p] > 0 ? FLIES : STEPS;
            stepped += !cand[p];
        }
        return stepped_are(s, moved, (size_t)stepped);
    }
    double v2 = s->p.rest_speed * s->p.rest_speed;
    uint32_t sleep = (uint32_t)s->p.sleep_steps;
    int freezes = s->p.region_freezes;
    pw_shape_pose region;
    if (s->p.has_region) pw_shape_pose_at(&s->p.region, t_next, &region);

    /* 1. the counters of the particles the last step moved (the others kept theirs),
     * and who would rest */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < nl; p++) {
        uint32_t r = pt->rest[p], count = REST_COUNT(r), settled = r & REST_SETTLED;
        if (p < moved)
            count = v3_length2(pt->v[p]) < v2 ? (count < REST_SATURATED ? count + 1 : count) : 0;
        if (count >= sleep) settled = REST_SETTLED;
        pt->rest[p] = count | settled;
        /* outside the region: settled snow rests as soon as it is slow, or at once when
         * the region freezes (the region is asked only where its answer decides) */
        cand[p] = count >= sleep && pt->V0[p] > 0; /* (a particle steps once for its volume,
                                                       step 2 of the paper, unless seeded
                                                       with it) */
        if (s->p.has_region && settled && (freezes || (count >= 1 && !cand[p])) &&
            pw_shape_sdf_posed(&s->p.region, &region, &pt->x[p], NULL) > 0)
            cand[p] = freezes ? FROZEN : RESTS;
        if (pt->emits && pt->drag[p] > 0) cand[p] = FLIES;
    }

    /* 2. wake what moving snow or a moving collider reaches */
    size_t n_wake = 0;
    pw_status rc = moving_blocks(s, cand, &n_wake, err);
    if (rc != PW_OK) return rc;
    int colliders = pw_colliders_count(s->colliders) > 0;
    if (colliders) pw_colliders_pose_at(s->colliders, t_next);
    double h = s->p.h, reach = 8 * h + 2 * sqrt(3.0) * h; /* band + block half-diagonal */
#pragma omp parallel num_threads(s->threads) reduction(+ : stepped)
    {
        uint64_t last = UINT64_MAX; /* particles come in runs of one block: ask once */
        int last_wakes = 0;
#pragma omp for schedule(static)
        for (long p = 0; p < nl; p++) {
            if (cand[p] == RESTS) {
                /* a particle that rested at the last sort has not moved since */
                uint64_t key = (size_t)p >= s->rest_tail && (size_t)p >= (size_t)moved
                                   ? s->grid.pkey[p] & ~PW_RESTING_KEY
                                   : pw_grid_particle_key(&s->grid, pt->x[p]);
                if (key != last) {
                    last = key;
                    last_wakes = has_key(s->wake_keys, n_wake, key);
                    if (!last_wakes && colliders) {
                        /* the centre of where this block's particles lie: their base
                         * node is in the block, so they sit 1 to 5 h past its origin */
                        vec3 c = v3_add(pw_grid_block_origin(&s->grid, key), v3(3 * h, 3 * h, 3 * h));
                        double speed, phi = pw_colliders_moving_phi(s->colliders, t_next, c,
                                                                    &speed);
                        last_wakes = phi < reach + 4 * speed * s->p.dt_max;
                    }
                }
                if (last_wakes) {
                    cand[p] = STEPS;
                    pt->rest[p] &= REST_SETTLED;
                }
            }
            stepped += !cand[p];
        }
    }
    return stepped_are(s, moved, (size_t)stepped);
}

/* Marks the nodes of one resting particle's stencil that the stepped grid has. Its base
 * node lies in block (bx, by, bz), so the stencil reaches that block and the next along
 * each axis: near[] holds those eight blocks' indices (SIZE_MAX: not in the grid). */
static void hold_stencil(const pw_grid *g, vec3 x, const int64_t b[3], const size_t near[8],
                         uint8_t *held)
{
    int64_t base[3];
    double u[3] = {(x.x - g->origin.x) * g->inv_h, (x.y - g->origin.y) * g->inv_h,
                   (x.z - g->origin.z) * g->inv_h};
    const int W = g->stencil;
    for (int a = 0; a < 3; a++) base[a] = pw_stencil_first(u[a], W);
    for (int node = 0; node < 64; node++) {
        int64_t c[3] = {base[0] + (node & 3), base[1] + ((node >> 2) & 3), base[2] + (node >> 4)};
        if ((node & 3) >= W || ((node >> 2) & 3) >= W || (node >> 4) >= W) continue;
        if (c[0] < 0 || c[1] < 0 || c[2] < 0) continue;
        int64_t o[3] = {c[0] / PW_BLOCK - b[0], c[1] / PW_BLOCK - b[1], c[2] / PW_BLOCK - b[2]};
        size_t bi;
        if ((uint64_t)o[0] <= 1 && (uint64_t)o[1] <= 1 && (uint64_t)o[2] <= 1)
            bi = near[o[0] | o[1] << 1 | o[2] << 2];
        else /* a base clamped at the domain's edge: ask the grid */
            bi = pw_grid_block_index(g, (uint64_t)(c[0] / PW_BLOCK) |
                                            ((uint64_t)(c[1] / PW_BLOCK) << PW_BLOCK_COORD_BITS) |
                                            ((uint64_t)(c[2] / PW_BLOCK) << (2 * PW_BLOCK_COORD_BITS)));
        if (bi == SIZE_MAX) continue;
        size_t local = (size_t)((c[0] & 3) | ((c[1] & 3) << 2) | ((c[2] & 3) << 4));
        /* threads may mark the same node; every one writes 1 */
        __atomic_store_n(&held[bi * PW_BLOCK_NODES + local], 1, __ATOMIC_RELAXED);
    }
}

/* Block coordinates of a block key. */
static void block_coords(uint64_t key, int64_t b[3])
{
    uint64_t mask = (UINT64_C(1) << PW_BLOCK_COORD_BITS) - 1;
    for (int a = 0; a < 3; a++) b[a] = (int64_t)((key >> (a * PW_BLOCK_COORD_BITS)) & mask);
}

pw_status pw_rest_hold_nodes(pw_sim *s, pw_error *err)
{
    pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    if (!s->pt.rests) return PW_OK;
    if (grow((void **)&s->held, &s->cap_held, nn, 1))
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate held-node flags for %zu nodes", nn);
    memset(s->held, 0, nn ? nn : 1);
    if (s->n_step == s->pt.n || g->n_blocks == 0) return PW_OK;
    /* the stepped grid's bounds, in blocks: most resting snow (a road asleep ahead of
     * the plow, frozen behind it) lies far outside them and is passed over without a
     * lookup; a stencil reaches its home block and the next along each axis, and one
     * block more is allowed for a base clamped at the domain's edge */
    int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {-1, -1, -1};
    for (size_t k = 0; k < g->n_blocks; k++) {
        int64_t b[3];
        block_coords(g->keys[k], b);
        for (int a = 0; a < 3; a++) {
            if (b[a] < lo[a]) lo[a] = b[a];
            if (b[a] > hi[a]) hi[a] = b[a];
        }
    }
    /* the resting particles sit after the stepped ones in runs of one block (g->pkey):
     * each thread marks the stencils of the runs that start in its share of them */
    const pw_particles *pt = &s->pt;
    const uint64_t *pkey = g->pkey;
    uint8_t *held = s->held;
    long first = (long)s->n_step, n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long k = first; k < n; k++) {
        if (k > first && pkey[k] == pkey[k - 1]) continue; /* not a run's start */
        uint64_t key = pkey[k] & ~PW_RESTING_KEY;
        int64_t b[3];
        block_coords(key, b);
        if (b[0] + 2 < lo[0] || b[0] - 1 > hi[0] || b[1] + 2 < lo[1] || b[1] - 1 > hi[1] ||
            b[2] + 2 < lo[2] || b[2] - 1 > hi[2])
            continue;
        size_t near[8];
        int any = 0;
        for (int d = 0; d < 8; d++) {
            near[d] = pw_grid_block_index(g, pw_grid_key_offset(key, d & 1, (d >> 1) & 1, d >> 2));
            any |= near[d] != SIZE_MAX;
        }
        if (!any) continue;
        for (long p = k; p < n && pkey[p] == pkey[k]; p++)
            if (!(pt->emits && pt->drag[p] > 0)) hold_stencil(g, pt->x[p], b, near, held);
    }
    return PW_OK;
}
