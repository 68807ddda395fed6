/* grid.c — sparse block grid: sorting particles by block, active blocks, colours.
 * See grid.h for the layout and why colouring makes scatters deterministic. */
#include "grid.h"

#include <stdlib.h>
#include <string.h>

#define COORD_MASK ((UINT64_C(1) << PW_BLOCK_COORD_BITS) - 1)

static uint64_t block_key(int64_t bx, int64_t by, int64_t bz)
{
    return (uint64_t)bx | ((uint64_t)by << PW_BLOCK_COORD_BITS) |
           ((uint64_t)bz << (2 * PW_BLOCK_COORD_BITS));
}

static void key_coords(uint64_t key, int64_t b[3])
{
    b[0] = (int64_t)(key & COORD_MASK);
    b[1] = (int64_t)((key >> PW_BLOCK_COORD_BITS) & COORD_MASK);
    b[2] = (int64_t)((key >> (2 * PW_BLOCK_COORD_BITS)) & COORD_MASK);
}

/* Grows *p to hold at least n elements of size sz, with a quarter more room: counts
 * drift from step to step, and doubling would leave up to half of each array unused. */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    size_t c = n + n / 4 + 1024;
    void *q = realloc(*p, c * sz);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

int pw_scratch_fit(void **p, size_t *cap, size_t n, size_t sz)
{
    if (*p && n <= *cap && (n >= *cap / 2 || *cap <= 2 * PW_SCRATCH_SLACK)) return 0;
    size_t c = n + n / 4 + PW_SCRATCH_SLACK;
    free(*p);
    *p = malloc(c * sz);
    *cap = *p ? c : 0;
    return *p ? 0 : -1;
}

/* Stable LSD radix sort of keys (with a payload) by 8-bit digits; digits equal for
 * all keys are skipped, which makes the common case (a few hundred distinct blocks)
 * take three or four passes. Ties keep their input order, so the result does not
 * depend on anything but the input. */
static void radix_sort(size_t n, uint64_t *key, uint32_t *val, uint64_t *key_tmp,
                       uint32_t *val_tmp)
{
    if (n == 0) return; /* (every particle resting: the arrays may not exist yet) */
    uint64_t all_or = 0, all_and = ~UINT64_C(0);
    for (size_t k = 0; k < n; k++) {
        all_or |= key[k];
        all_and &= key[k];
    }
    uint64_t varying = all_or ^ all_and;
    for (int shift = 0; shift < 64; shift += 8) {
        if (((varying >> shift) & 0xff) == 0) continue;
        size_t count[257] = {0};
        for (size_t k = 0; k < n; k++) count[((key[k] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (size_t k = 0; k < n; k++) {
            size_t at = count[(key[k] >> shift) & 0xff]++;
            key_tmp[at] = key[k];
            if (val) val_tmp[at] = val[k];
        }
        memcpy(key, key_tmp, n * sizeof *key);
        if (val) memcpy(val, val_tmp, n * sizeof *val);
    }
}

static size_t find_block(const pw_grid *g, uint64_t key)
{
    size_t lo = 0, hi = g->n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void pw_grid_init(pw_grid *g, double h, vec3 origin, int64_t max_node)
{
    memset(g, 0, sizeof *g);
    g->h = h;
    g->inv_h = 1.0 / h;
    g->origin = origin;
    g->max_node = max_node;
    g->stencil = PW_STENCIL_CUBIC;
}

void pw_grid_free(pw_grid *g)
{
    if (!g) return;
    free(g->keys);
    free(g->keys_tmp);
    free(g->home_keys);
    free(g->start);
    free(g->nbr);
    free(g->colour_order);
    free(g->m);
    free(g->v);
    free(g->v_old);
    free(g->f);
    free(g->fixed);
    free(g->normal);
    free(g->pkey);
    free(g->pkey_tmp);
    free(g->perm_tmp);
    free(g->akey);
    free(g->aidx);
    memset(g, 0, sizeof *g);
}

vec3 pw_grid_node_position(const pw_grid *g, size_t i)
{
    int64_t b[3];
    key_coords(g->keys[i / PW_BLOCK_NODES], b);
    size_t l = i % PW_BLOCK_NODES;
    double nx = (double)(b[0] * PW_BLOCK + (int64_t)(l & 3));
    double ny = (double)(b[1] * PW_BLOCK + (int64_t)((l >> 2) & 3));
    double nz = (double)(b[2] * PW_BLOCK + (int64_t)(l >> 4));
    return v3(g->origin.x + nx * g->h, g->origin.y + ny * g->h, g->origin.z + nz * g->h);
}

/* Home keys of all particles, then the stable sort that groups them. */
uint64_t pw_grid_particle_key(const pw_grid *g, vec3 x)
{
    int64_t b[3];
    double u[3] = {(x.x - g->origin.x) * g->inv_h, (x.y - g->origin.y) * g->inv_h,
                   (x.z - g->origin.z) * g->inv_h};
    for (int a = 0; a < 3; a++) {
        int64_t base = pw_stencil_first(u[a], g->stencil);
        if (base < 0) base = 0; /* callers keep particles inside; never taken */
        if (base > g->max_node - 3) base = g->max_node - 3;
        b[a] = base / PW_BLOCK;
    }
    return block_key(b[0], b[1], b[2]);
}

uint64_t pw_grid_key_offset(uint64_t key, int dx, int dy, int dz)
{
    int64_t b[3];
    key_coords(key & ~PW_RESTING_KEY, b);
    return block_key(b[0] + dx, b[1] + dy, b[2] + dz);
}

vec3 pw_grid_block_origin(const pw_grid *g, uint64_t key)
{
    int64_t b[3];
    key_coords(key & ~PW_RESTING_KEY, b);
    return v3(g->origin.x + (double)(b[0] * PW_BLOCK) * g->h,
              g->origin.y + (double)(b[1] * PW_BLOCK) * g->h,
              g->origin.z + (double)(b[2] * PW_BLOCK) * g->h);
}

size_t pw_grid_block_index(const pw_grid *g, uint64_t key)
{
    size_t i = find_block(g, key);
    return i < g->n_blocks && g->keys[i] == key ? i : SIZE_MAX;
}

/* The sort when snow rests: the particles before the old tail and those of it that woke
 * are keyed and radix sorted. The stepped ones come first, by block. Resting snow that
 * stays asleep keeps its place in the tail, so the reorder does not copy it every step;
 * the places the woken left (and those the tail gains or loses at its head) are filled
 * with the newly resting ones by block, then with the old tail's resting particles the
 * stepped ones now need the place of. */
static pw_status sort_with_tail(pw_grid *g, size_t n, const vec3 *x, const uint8_t *resting,
                                size_t tail, uint32_t *perm, int threads, pw_error *err)
{
    size_t cap = g->cap_a, cap2 = g->cap_a;
    if (grow((void **)&g->akey, &cap, n, sizeof *g->akey) ||
        grow((void **)&g->aidx, &cap2, n, sizeof *g->aidx))
        return pw_fail(err, PW_ENOMEM, "sim grid: cannot allocate sort keys for %zu particles", n);
    g->cap_a = cap < cap2 ? cap : cap2;
    long head = (long)tail;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long k = 0; k < head; k++) {
        g->akey[k] = pw_grid_particle_key(g, x[k]) | (resting[k] ? PW_RESTING_KEY : 0);
        g->aidx[k] = (uint32_t)k;
    }
    size_t m = tail;
    for (size_t k = tail; k < n; k++)
        if (!resting[k]) { /* woke: its position has not changed since it was keyed */
            g->akey[m] = g->pkey[k] & ~PW_RESTING_KEY;
            g->aidx[m++] = (uint32_t)k;
        }
    radix_sort(m, g->akey, g->aidx, g->pkey_tmp, g->perm_tmp);
    size_t stepped = 0;
    while (stepped < m && !(g->akey[stepped] & PW_RESTING_KEY)) stepped++;
    /* assembled in pkey_tmp, which the radix sort no longer needs */
    for (size_t k = 0; k < stepped; k++) {
        perm[k] = g->aidx[k];
        g->pkey_tmp[k] = g->akey[k];
    }
    size_t fresh = stepped, displaced = tail; /* the next filler of each kind */
    for (size_t k = stepped; k < n; k++) {
        if (k >= tail && resting[k]) { /* asleep, and stays where it is */
            perm[k] = (uint32_t)k;
            g->pkey_tmp[k] = g->pkey[k];
        } else if (fresh < m) {
            perm[k] = g->aidx[fresh];
            g->pkey_tmp[k] = g->akey[fresh++];
        } else { /* an old resting particle before the tail's new head */
            while (!resting[displaced]) displaced++;
            perm[k] = (uint32_t)displaced;
            g->pkey_tmp[k] = g->pkey[displaced++];
        }
    }
    uint64_t *t = g->pkey;
    g->pkey = g->pkey_tmp;
    g->pkey_tmp = t;
    return PW_OK;
}

/* The sort's key and permutation arrays for n particles. */
static pw_status grow_sort_keys(pw_grid *g, size_t n, pw_error *err)
{
    size_t cap = g->cap_particles, cap2 = g->cap_particles, cap3 = g->cap_particles;
    if (grow((void **)&g->pkey, &cap, n, sizeof *g->pkey) ||
        grow((void **)&g->pkey_tmp, &cap2, n, sizeof *g->pkey_tmp) ||
        grow((void **)&g->perm_tmp, &cap3, n, sizeof *g->perm_tmp))
        return pw_fail(err, PW_ENOMEM, "sim grid: cannot allocate sort keys for %zu particles", n);
    g->cap_particles = cap < cap2 ? (cap < cap3 ? cap : cap3) : (cap2 < cap3 ? cap2 : cap3);
    return PW_OK;
}

pw_status pw_grid_key_resting(pw_grid *g, size_t n, const vec3 *x, size_t first, pw_error *err)
{
    pw_status rc = grow_sort_keys(g, n, err);
    if (rc != PW_OK) return rc;
    for (size_t k = first; k < n; k++) g->pkey[k] = pw_grid_particle_key(g, x[k]) | PW_RESTING_KEY;
    return PW_OK;
}

static void sort_particles(pw_grid *g, size_t n, const vec3 *x, const uint8_t *resting,
                           uint32_t *perm, int threads)
{
    long nl = (long)n;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long k = 0; k < nl; k++) {
        g->pkey[k] = pw_grid_particle_key(g, x[k]) | (resting && resting[k] ? PW_RESTING_KEY : 0);
        perm[k] = (uint32_t)k;
    }
    radix_sort(n, g->pkey, perm, g->pkey_tmp, g->perm_tmp);
}

/* Active blocks = union of the 2x2x2 neighbourhoods of the home blocks. */
static pw_status collect_blocks(pw_grid *g, pw_error *err)
{
    size_t n8 = 8 * g->n_home;
    size_t cap_k = g->cap_blocks, cap_t = g->cap_blocks;
    if (grow((void **)&g->keys, &cap_k, n8, sizeof *g->keys) ||
        grow((void **)&g->keys_tmp, &cap_t, n8, sizeof *g->keys_tmp))
        return pw_fail(err, PW_ENOMEM, "sim grid: cannot allocate %zu block keys", n8);
    g->cap_blocks = cap_k < cap_t ? cap_k : cap_t;
    size_t m = 0;
    for (size_t k = 0; k < g->n_home; k++) {
        int64_t b[3];
        key_coords(g->home_keys[k], b);
        for (int d = 0; d < 8; d++)
            g->keys[m++] = block_key(b[0] + (d & 1), b[1] + ((d >> 1) & 1), b[2] + (d >> 2));
    }
    radix_sort(m, g->keys, NULL, g->keys_tmp, NULL);
    size_t u = 0;
    for (size_t k = 0; k < m; k++)
        if (u == 0 || g->keys[k] != g->keys[u - 1]) g->keys[u++] = g->keys[k];
    g->n_blocks = u;
    return PW_OK;
}

pw_status pw_grid_build(pw_grid *g, size_t n, const vec3 *x, const uint8_t *resting,
                        size_t n_step, size_t tail, uint32_t *perm, int threads,
                        pw_error *err)
{
    pw_status krc = grow_sort_keys(g, n, err);
    if (krc != PW_OK) return krc;
    if (resting && tail < n) {
        pw_status rc = sort_with_tail(g, n, x, resting, tail, perm, threads, err);
        if (rc != PW_OK) return rc;
    } else {
        sort_particles(g, n, x, resting, perm, threads);
    }
    n = n_step; /* the resting particles, sorted last, make no home */

    /* home blocks and their particle ranges */
    size_t nh = 0;
    for (size_t k = 0; k < n; k++)
        if (k == 0 || g->pkey[k] != g->pkey[k - 1]) nh++;
    size_t cap_h = g->cap_home, cap_s = g->cap_home, cap_n = g->cap_home, cap_c = g->cap_home;
    if (grow((void **)&g->home_keys, &cap_h, nh, sizeof *g->home_keys) ||
        grow((void **)&g->start, &cap_s, nh + 1, sizeof *g->start) ||
        grow((void **)&g->nbr, &cap_n, nh, sizeof *g->nbr) ||
        grow((void **)&g->colour_order, &cap_c, nh, sizeof *g->colour_order))
        return pw_fail(err, PW_ENOMEM, "sim grid: cannot allocate %zu home blocks", nh);
    size_t caps[4] = {cap_h, cap_s - 1, cap_n, cap_c};
    g->cap_home = caps[0];
    for (int k = 1; k < 4; k++)
        if (caps[k] < g->cap_home) g->cap_home = caps[k];
    nh = 0;
    for (size_t k = 0; k < n; k++)
        if (k == 0 || g->pkey[k] != g->pkey[k - 1]) {
            g->home_keys[nh] = g->pkey[k];
            g->start[nh++] = k;
        }
    g->start[nh] = n;
    g->n_home = nh;

    pw_status rc = collect_blocks(g, err);
    if (rc != PW_OK) return rc;

    /* neighbourhoods and colours of the home blocks */
    size_t count[9] = {0};
    for (size_t k = 0; k < nh; k++) {
        int64_t b[3];
        key_coords(g->home_keys[k], b);
        for (int d = 0; d < 8; d++)
            g->nbr[k][d] = (uint32_t)find_block(
                g, block_key(b[0] + (d & 1), b[1] + ((d >> 1) & 1), b[2] + (d >> 2)));
        count[((b[0] & 1) | ((b[1] & 1) << 1) | ((b[2] & 1) << 2)) + 1]++;
    }
    for (int c = 0; c < 8; c++) count[c + 1] += count[c];
    memcpy(g->colour_start, count, sizeof count);
    for (size_t k = 0; k < nh; k++) {
        int64_t b[3];
        key_coords(g->home_keys[k], b);
        g->colour_order[count[(b[0] & 1) | ((b[1] & 1) << 1) | ((b[2] & 1) << 2)]++] =
            (uint32_t)k;
    }

    /* node storage */
    /* (what the nodes held dies with the step: given back as the stepped snow shrinks) */
    size_t nn = g->n_blocks * PW_BLOCK_NODES, c1 = g->cap_nodes, c2 = c1, c3 = c1, c4 = c1,
           c5 = c1, c6 = c1;
    if (pw_scratch_fit((void **)&g->m, &c1, nn, sizeof *g->m) ||
        pw_scratch_fit((void **)&g->v, &c2, nn, sizeof *g->v) ||
        pw_scratch_fit((void **)&g->v_old, &c3, nn, sizeof *g->v_old) ||
        pw_scratch_fit((void **)&g->f, &c4, nn, sizeof *g->f) ||
        pw_scratch_fit((void **)&g->fixed, &c5, nn, sizeof *g->fixed) ||
        pw_scratch_fit((void **)&g->normal, &c6, nn, sizeof *g->normal))
        return pw_fail(err, PW_ENOMEM, "sim grid: cannot allocate %zu nodes", nn);
    size_t cn[6] = {c1, c2, c3, c4, c5, c6};
    g->cap_nodes = cn[0];
    for (int k = 1; k < 6; k++)
        if (cn[k] < g->cap_nodes) g->cap_nodes = cn[k];
    return PW_OK;
}
