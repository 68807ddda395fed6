/* stats.c — frame measures (pw_stats.h): fragments by union-find over a hash grid,
 * J_P, kinetic, potential and elastic energy, bounds and the share of snow near each
 * collider. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constitutive.h"
#include "pw_stats.h"
#include "seed.h"

/* Cells of the hash grid are link-sized, so linked particles lie in the same or
 * adjacent cells. Cell coordinates are packed 21 bits per axis (offset to be
 * non-negative), which covers 2^21 link lengths per axis: 1.4 km at h = 1 mm. */
#define CELL_BITS 21
#define CELL_OFFSET (1 << (CELL_BITS - 1))

typedef struct {
    uint64_t key;
    uint32_t index;
} cell_entry;

static int cmp_entry(const void *a, const void *b)
{
    const cell_entry *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return p->index < q->index ? -1 : (p->index > q->index);
}

static uint64_t pack_cell(const int64_t c[3])
{
    return ((uint64_t)(c[0] + CELL_OFFSET) << (2 * CELL_BITS)) |
           ((uint64_t)(c[1] + CELL_OFFSET) << CELL_BITS) | (uint64_t)(c[2] + CELL_OFFSET);
}

/* Root of i with path halving; roots are the smallest index of their set. */
static uint32_t find_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

/* Index range [*lo, *hi) of entries with this key (entries sorted by key). */
static void key_range(const cell_entry *e, size_t n, uint64_t key, size_t *lo, size_t *hi)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (e[mid].key < key) a = mid + 1;
        else b = mid;
    }
    *lo = a;
    b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (e[mid].key <= key) a = mid + 1;
        else b = mid;
    }
    *hi = a;
}

/* Links every pair closer than link: each cell against itself and the 13 neighbour
 * cells that come after it in a fixed half-stencil, so each cell pair is visited once. */
static void link_pairs(const vec3 *x, const cell_entry *e, size_t n, double link,
                       uint32_t *parent)
{
    static const int half[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1},
                                    {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},
                                    {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};
    double link2 = link * link;
    size_t start = 0;
    while (start < n) {
        size_t end = start + 1;
        while (end < n && e[end].key == e[start].key) end++;
        /* within the cell */
        for (size_t a = start; a < end; a++)
            for (size_t b = a + 1; b < end; b++)
                if (v3_length2(v3_sub(x[e[a].index], x[e[b].index])) < link2)
                    unite(parent, e[a].index, e[b].index);
        /* against the half-stencil neighbours */
        uint64_t key = e[start].key, mask = ((uint64_t)1 << CELL_BITS) - 1;
        int64_t c[3] = {(int64_t)((key >> (2 * CELL_BITS)) & mask) - CELL_OFFSET,
                        (int64_t)((key >> CELL_BITS) & mask) - CELL_OFFSET,
                        (int64_t)(key & mask) - CELL_OFFSET};
        for (int k = 0; k < 13; k++) {
            int64_t d[3] = {c[0] + half[k][0], c[1] + half[k][1], c[2] + half[k][2]};
            size_t lo, hi;
            key_range(e, n, pack_cell(d), &lo, &hi);
            for (size_t a = start; a < end; a++)
                for (size_t b = lo; b < hi; b++)
                    if (v3_length2(v3_sub(x[e[a].index], x[e[b].index])) < link2)
                        unite(parent, e[a].index, e[b].index);
        }
        start = end;
    }
}

pw_status pw_stats_fragments(const vec3 *x, size_t n, double link, uint32_t *label,
                             size_t *n_fragments, pw_error *err)
{
    *n_fragments = 0;
    if (!(link > 0) || !isfinite(link))
        return pw_fail(err, PW_EINVAL, "stats: link distance %g m must be positive", link);
    if (n > UINT32_MAX) return pw_fail(err, PW_EINVAL, "stats: %zu particles exceed 2^32", n);
    if (n == 0) return PW_OK;
    cell_entry *e = malloc(n * sizeof *e);
    uint32_t *parent = malloc(n * sizeof *parent);
    if (!e || !parent) {
        free(e);
        free(parent);
        return pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu particles", n);
    }
    double inv = 1.0 / link, lim = (double)(CELL_OFFSET - 2);
    for (size_t i = 0; i < n; i++) {
        int64_t c[3];
        for (int a = 0; a < 3; a++) {
            double u = floor(v3_get(x[i], a) * inv);
            if (!(fabs(u) < lim)) {
                free(e);
                free(parent);
                return pw_fail(err, PW_EINVAL, "stats: particle %zu: position %g m is not finite "
                               "or beyond %g link lengths", i, v3_get(x[i], a), lim);
            }
            c[a] = (int64_t)u;
        }
        e[i].key = pack_cell(c);
        e[i].index = (uint32_t)i;
        parent[i] = (uint32_t)i;
    }
    qsort(e, n, sizeof *e, cmp_entry);
    link_pairs(x, e, n, link, parent);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = find_root(parent, (uint32_t)i);
        if (r == i) {
            if (label) label[i] = (uint32_t)count;
            count++;
        } else if (label) {
            label[i] = label[r]; /* r < i, labelled already */
        }
    }
    free(e);
    free(parent);
    *n_fragments = count;
    return PW_OK;
}

static int cmp_size_desc(const void *a, const void *b)
{
    size_t p = *(const size_t *)a, q = *(const size_t *)b;
    return p < q ? 1 : (p > q ? -1 : 0);
}

/* Connected sets of the particles x[0..n) at link distance link: their count, the two
 * largest sizes, how many hold at least 1 % of `total` and how many particles those hold,
 * how many hold at least 5 particles, and the sum of their squared sizes (a double:
 * exact below 2^53). */
typedef struct {
    size_t count, first, second, large, in_large, five;
    double sum_sq;
    size_t in_crumbs; /* particles in fragments of fewer than crumb * total               */
    size_t median;    /* the smallest size s with fragments of <= s particles holding at
                         least half of the n                                              */
} fragment_census;

/* Particles in fragments below crumb * total, and the particle-weighted median size, of
 * the nf sizes sorted largest first. */
static void size_distribution(const size_t *size, size_t nf, size_t n, size_t total,
                              double crumb, fragment_census *c)
{
    size_t below = 0;
    for (size_t k = nf; k-- > 0;) {
        if ((double)size[k] < crumb * (double)total) c->in_crumbs += size[k];
        below += size[k];
        /* 2 below >= n: half reached, in integers */
        if (!c->median && 2 * below >= n) c->median = size[k];
    }
}

static pw_status census(const vec3 *x, size_t n, double link, size_t total, double crumb,
                        fragment_census *c, pw_error *err)
{
    memset(c, 0, sizeof *c);
    uint32_t *label = malloc((n ? n : 1) * sizeof *label);
    if (!label) return pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu particles", n);
    size_t nf = 0;
    pw_status rc = pw_stats_fragments(x, n, link, label, &nf, err);
    size_t *size = rc == PW_OK ? calloc(nf ? nf : 1, sizeof *size) : NULL;
    if (rc == PW_OK && !size) rc = pw_fail(err, PW_ENOMEM, "stats: cannot allocate %zu sizes", nf);
    if (rc == PW_OK) {
        for (size_t i = 0; i < n; i++) size[label[i]]++;
        qsort(size, nf, sizeof *size, cmp_size_desc);
        c->count = nf;
        c->first = nf > 0 ? size[0] : 0;
        c->second = nf > 1 ? size[1] : 0;
        for (size_t k = 0; k < nf; k++) {
            if ((double)size[k] >= PW_STATS_SHARE * (double)total) {
                c->large++;
                c->in_large += size[k];
            }
            if (size[k] >= 5) c->five++;
            c->sum_sq += (double)size[k] * (double)size[k];
        }
        size_distribution(size, nf, n, total, crumb, c);
    }
    free(size);
    free(label);
    return rc;
}

/* Whether hardening has left particle i with less than `factor` of its stiffness. */
static int weaker(const pw_stats_particles *p, size_t i, double factor)
{
    return p->Jp && p->xi && exp(p->xi[i] * (1 - p->Jp[i])) < factor;
}

/* The positions of the particles hardening has left with at least `factor` of their
 * stiffness, into kept; returns their number. */
static size_t keep_stiffer(const pw_stats_particles *p, double factor, vec3 *kept)
{
    size_t nk = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!weaker(p, i, factor)) kept[nk++] = p->x[i];
    return nk;
}

/* Fragments of all particles, pieces of the intact ones, chunks of the sound ones. */
static pw_status fragment_sizes(const pw_stats_particles *p, double link, pw_frame_stats *st,
                                pw_error *err)
{
    fragment_census all, intact;
    double crumb = p->crumb > 0 ? p->crumb : PW_STATS_CRUMB;
    pw_status rc = census(p->x, p->n, link, p->n, crumb, &all, err);
    if (rc != PW_OK) return rc;
    double n = p->n ? (double)p->n : 1;
    st->fragments = all.count;
    st->crumb_limit = crumb;
    st->crumb_share = (double)all.in_crumbs / n;
    st->median_fragment = (double)all.median / n;
    st->largest_share = (double)all.first / n;
    st->second_share = (double)all.second / n;
    st->fragments_large = all.large;
    st->in_large_share = (double)all.in_large / n;
    st->fragments_5 = all.five;

    vec3 *kept = malloc((p->n ? p->n : 1) * sizeof *kept);
    if (!kept) return pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu particles", p->n);
    size_t nk = keep_stiffer(p, PW_STATS_BROKEN, kept);
    rc = census(kept, nk, link, p->n, crumb, &intact, err);
    if (rc != PW_OK) {
        free(kept);
        return rc;
    }
    st->broken_share = (double)(p->n - nk) / n;
    st->pieces_large = intact.large;
    st->largest_piece = (double)intact.first / n;
    st->second_piece = (double)intact.second / n;

    fragment_census sound;
    nk = keep_stiffer(p, PW_STATS_WEAK, kept);
    rc = census(kept, nk, link, p->n, crumb, &sound, err);
    free(kept);
    if (rc != PW_OK) return rc;
    st->weak_share = (double)(p->n - nk) / n;
    st->chunk_mean = sound.sum_sq / (n * n);
    return PW_OK;
}

/* The top layer's fragments and plates (its pieces of >= PW_STATS_SHARE of it). */
static pw_status top_layer(const pw_stats_particles *p, double link, pw_frame_stats *st,
                           pw_error *err)
{
    if (!p->layer) return PW_OK;
    st->has_layers = 1;
    vec3 *top = malloc((p->n ? p->n : 1) * sizeof *top);
    if (!top) return pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu particles", p->n);
    size_t nt = 0, intact = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->layer[i] == 1) top[nt++] = p->x[i];
    fragment_census all, pieces;
    pw_status rc = census(top, nt, link, nt, PW_STATS_CRUMB, &all, err);
    if (rc == PW_OK) {
        for (size_t i = 0; i < p->n; i++)
            if (p->layer[i] == 1 && !weaker(p, i, PW_STATS_BROKEN)) top[intact++] = p->x[i];
        rc = census(top, intact, link, nt, PW_STATS_CRUMB, &pieces, err);
    }
    fragment_census chunks;
    size_t sound = 0;
    if (rc == PW_OK) {
        for (size_t i = 0; i < p->n; i++)
            if (p->layer[i] == 1 && !weaker(p, i, PW_STATS_WEAK)) top[sound++] = p->x[i];
        rc = census(top, sound, link, nt, PW_STATS_CRUMB, &chunks, err);
    }
    free(top);
    if (rc != PW_OK) return rc;
    double n = nt ? (double)nt : 1;
    st->top_particles = nt;
    st->top_fragments = all.count;
    st->top_plates = pieces.large;
    st->top_largest_plate = (double)pieces.first / n;
    st->top_broken_share = (double)(nt - intact) / n;
    st->top_chunks = chunks.large;
    st->top_weak_share = (double)(nt - sound) / n;
    return PW_OK;
}

/* Share of particles within 2 h of each collider, each measured alone. */
static pw_status collider_shares(const pw_stats_particles *p, double h,
                                 const pw_collider_desc *colliders, int n_colliders, double t,
                                 pw_frame_stats *st, pw_error *err)
{
    if (n_colliders > PW_STATS_MAX_COLLIDERS) n_colliders = PW_STATS_MAX_COLLIDERS;
    for (int k = 0; k < n_colliders; k++) {
        pw_colliders *c = pw_colliders_create(h, err);
        if (!c) return err ? err->code : PW_ENOMEM;
        pw_status rc = pw_colliders_add(c, &colliders[k], err);
        if (rc != PW_OK) {
            pw_colliders_destroy(c);
            return rc;
        }
        size_t near = 0;
        pw_colliders_pose_at(c, t); /* (a deforming mesh is asked where this puts it) */
        for (size_t i = 0; i < p->n; i++)
            if (pw_colliders_phi(c, t, p->x[i]) < 2.0 * h) near++;
        st->near_share[k] = p->n ? (double)near / (double)p->n : 0;
        pw_colliders_destroy(c);
    }
    st->n_colliders = n_colliders;
    return PW_OK;
}

double pw_stats_default_link_h(double ppc)
{
    double link = ppc > 0 ? PW_STATS_LINK_H * pow(8 / ppc, 0.6) : PW_STATS_LINK_H;
    return link > PW_STATS_LINK_H ? link : PW_STATS_LINK_H;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* rho = m / V with V = V0 det F = V0 J_P J_E (or as the cache stored it): the median
 * by sorting a copy. Measured only once every V0 is known (the first step estimates it
 * from the grid; a stored density is 0 until then). */
static pw_status densities(const pw_stats_particles *p, pw_frame_stats *st, pw_error *err)
{
    if (!pw_stats_densities_known(p)) return PW_OK;
    double *rho = malloc(p->n * sizeof *rho);
    if (!rho) return pw_fail(err, PW_ENOMEM, "stats: out of memory for %zu densities", p->n);
    size_t ice = 0;
    for (size_t i = 0; i < p->n; i++) {
        rho[i] = pw_stats_density(p, i);
        ice += rho[i] > PW_STATS_ICE_DENSITY;
    }
    qsort(rho, p->n, sizeof *rho, cmp_double);
    st->rho_median = p->n % 2 ? rho[p->n / 2] : 0.5 * (rho[p->n / 2 - 1] + rho[p->n / 2]);
    st->rho_max = rho[p->n - 1];
    st->ice_share = (double)ice / (double)p->n;
    st->has_density = 1;
    free(rho);
    return PW_OK;
}

/* The 99th-percentile height by sorting a copy (nearest rank: the ceil(0.99 n)-th
 * smallest), along -gravity, or y in a frame without gravity. */
static pw_status height_99(const pw_stats_particles *p, pw_frame_stats *st, pw_error *err)
{
    double gl = v3_length(p->gravity);
    vec3 up = gl > 0 ? v3_scale(p->gravity, -1 / gl) : v3(0, 1, 0);
    double *y = malloc(p->n * sizeof *y);
    if (!y) return pw_fail(err, PW_ENOMEM, "stats: out of memory for %zu heights", p->n);
    for (size_t i = 0; i < p->n; i++) y[i] = v3_dot(p->x[i], up);
    qsort(y, p->n, sizeof *y, cmp_double);
    size_t rank = (99 * p->n + 99) / 100; /* ceil(0.99 n) in integers: 0.99 is inexact */
    st->top99 = y[rank > 0 ? rank - 1 : 0];
    free(y);
    return PW_OK;
}

pw_status pw_stats_compute(const pw_stats_particles *p, double link, double h,
                           const pw_collider_desc *colliders, int n_colliders, double t,
                           pw_frame_stats *st, pw_error *err)
{
    memset(st, 0, sizeof *st);
    if (!(p->crumb >= 0 && p->crumb < 1))
        return pw_fail(err, PW_EINVAL, "stats: crumb size %g must lie in [0, 1)", p->crumb);
    st->particles = p->n;
    st->link = link;
    st->jp_min = st->jp_max = st->jp_mean = 1;
    st->has_elastic = p->Fe && p->V0 && p->mu0 && p->lambda0 && p->Jp && p->xi && p->Jp_min &&
                      p->Jp_max;
    pw_status rc = fragment_sizes(p, link, st, err);
    if (rc == PW_OK) rc = top_layer(p, link, st, err);
    if (rc != PW_OK) return rc;
    if (p->n == 0) return PW_OK;
    st->lo = st->hi = p->x[0];
    double jp_sum = 0, weight = 0, dur_sum = 0, damaged = 0;
    st->has_durability = p->durability != NULL;
    if (p->Jp) st->jp_min = st->jp_max = p->Jp[0];
    for (size_t i = 0; i < p->n; i++) {
        st->lo = v3_min(st->lo, p->x[i]);
        st->hi = v3_max(st->hi, p->x[i]);
        double m = p->m ? p->m[i] : 0;
        st->mass += m;
        if (p->v) {
            st->kinetic_energy += 0.5 * m * v3_length2(p->v[i]);
            st->momentum = v3_madd(st->momentum, p->v[i], m);
        }
        st->potential_energy -= m * v3_dot(p->gravity, p->x[i]);
        if (st->has_elastic) {
            /* the hardened moduli exactly as the solver forms them (eq. 2, J_P clamped;
             * under density hardening J_P from the measured rest density) */
            int law = p->law && p->rho_rest && p->m;
            double jp = pw_law_Jp(law ? p->law[i] : PW_LAW_CLAMP, p->Jp[i], law ? m : 0,
                                  p->V0[i], law ? p->rho_rest[i] : 0, p->Jp_min[i],
                                  p->Jp_max[i]);
            double hard = pw_hardening(p->xi[i], jp);
            st->elastic_energy +=
                p->V0[i] * pw_fcr_energy(p->Fe[i], p->mu0[i] * hard, p->lambda0[i] * hard);
        }
        if (p->Jp) {
            double j = p->Jp[i];
            st->jp_min = j < st->jp_min ? j : st->jp_min;
            st->jp_max = j > st->jp_max ? j : st->jp_max;
            jp_sum += j;
        }
        if (p->durability) {
            double w = p->m ? m : 1;
            weight += w;
            dur_sum += w * p->durability[i];
            if (p->durability[i] < PW_STATS_DAMAGED) damaged += w;
        }
    }
    if (p->Jp) st->jp_mean = jp_sum / (double)p->n;
    if (p->durability) {
        st->durability_mean = weight > 0 ? dur_sum / weight : 1;
        st->damaged_share = weight > 0 ? damaged / weight : 0;
    }
    if ((p->rho || (st->has_elastic && p->m)) && (rc = densities(p, st, err)) != PW_OK) return rc;
    if ((rc = height_99(p, st, err)) != PW_OK) return rc;
    return collider_shares(p, h, colliders, n_colliders, t, st, err);
}

int pw_stats_densities_known(const pw_stats_particles *p)
{
    if (!p->rho && !(p->Fe && p->V0 && p->m && p->Jp)) return 0;
    for (size_t i = 0; i < p->n; i++)
        if (!(p->rho ? p->rho[i] > 0 : p->V0[i] > 0)) return 0;
    return 1;
}

double pw_stats_density(const pw_stats_particles *p, size_t i)
{
    if (p->rho) return p->rho[i];
    return pw_law_density(p->law ? p->law[i] : PW_LAW_CLAMP, p->m[i], p->V0[i], m3_det(p->Fe[i]),
                          p->Jp[i], p->rho_rest ? p->rho_rest[i] : 0);
}

/* The attribute named, checked to be float64 with the given components. */
static const pw_cache_attr *need_attr(const char *path, const pw_cache_frame *cf,
                                      const char *name, uint32_t components, pw_error *err)
{
    const pw_cache_attr *a = pw_cache_find(cf, name);
    if (!a) {
        pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is missing", path, name);
        return NULL;
    }
    if (a->type != PW_F64 || a->components != components) {
        pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is not float64 with %u components", path,
                name, components);
        return NULL;
    }
    return a;
}

pw_status pw_stats_cache(const char *path, double link_h, double crumb, vec3 gravity,
                         const pw_collider_desc *colliders, int n_colliders,
                         pw_frame_stats *st, pw_error *err)
{
    static const char *const required[] = {"x", "v", "m", "Jp", "xi", "density"};
    static const char *const with_energy[] = {"x",  "v",   "m",       "Jp",     "xi",
                                              "Fe", "V0",  "mu0",     "lambda0", "Jp_min",
                                              "Jp_max"};
    /* the elastic energy only when the cache holds what it needs */
    pw_cache_info info;
    pw_status rc = pw_cache_table(path, &info, err);
    if (rc != PW_OK) return rc;
    int energy = 1;
    for (int k = 5; k < 11; k++) energy &= pw_cache_info_attr(&info, with_energy[k]) != NULL;
    /* a slim render cache stores the density itself */
    int stored_rho = !energy && pw_cache_info_attr(&info, "density") != NULL;
    pw_cache_frame cf;
    /* slim render caches hold float32: widened, they measure like full ones; the
     * layers, the durability and the laws' J_P, when there are any, come last */
    const char *names[16];
    int n_names = energy ? 11 : 5 + stored_rho;
    memcpy(names, energy ? with_energy : required, (size_t)n_names * sizeof *names);
    int layered = pw_cache_info_attr(&info, "layer") != NULL;
    if (layered) names[n_names++] = "layer";
    int durable = pw_cache_info_attr(&info, "durability") != NULL;
    if (durable) names[n_names++] = "durability";
    int laws = energy && pw_cache_info_attr(&info, "law") && pw_cache_info_attr(&info, "rho_rest");
    if (laws) names[n_names++] = "law", names[n_names++] = "rho_rest";
    rc = pw_cache_read_f64(path, names, n_names, &cf, err);
    if (rc != PW_OK) return rc;
    const pw_cache_attr *x = need_attr(path, &cf, "x", 3, err);
    const pw_cache_attr *v = x ? need_attr(path, &cf, "v", 3, err) : NULL;
    const pw_cache_attr *m = v ? need_attr(path, &cf, "m", 1, err) : NULL;
    const pw_cache_attr *jp = m ? need_attr(path, &cf, "Jp", 1, err) : NULL;
    const pw_cache_attr *xi = jp ? need_attr(path, &cf, "xi", 1, err) : NULL;
    const pw_cache_attr *e[6] = {NULL};
    static const unsigned e_comp[6] = {9, 1, 1, 1, 1, 1};
    int ok = xi != NULL;
    for (int k = 0; k < 6 && ok && energy; k++)
        ok = (e[k] = need_attr(path, &cf, with_energy[5 + k], e_comp[k], err)) != NULL;
    const pw_cache_attr *rho = ok && stored_rho ? need_attr(path, &cf, "density", 1, err) : NULL;
    ok = ok && (rho || !stored_rho);
    const pw_cache_attr *layer = ok && layered ? pw_cache_find(&cf, "layer") : NULL;
    if (layer && (layer->type != PW_U32 || layer->components != 1)) {
        pw_fail(err, PW_EFORMAT, "%s: attribute 'layer' is not uint32 with 1 component", path);
        ok = 0;
    }
    const pw_cache_attr *dur = ok && durable ? need_attr(path, &cf, "durability", 1, err) : NULL;
    ok = ok && (dur || !durable);
    const pw_cache_attr *law = ok && laws ? pw_cache_find(&cf, "law") : NULL;
    if (law && (law->type != PW_U32 || law->components != 1)) {
        pw_fail(err, PW_EFORMAT, "%s: attribute 'law' is not uint32 with 1 component", path);
        ok = 0;
    }
    const pw_cache_attr *rho_rest = ok && laws ? need_attr(path, &cf, "rho_rest", 1, err) : NULL;
    ok = ok && (rho_rest || !laws);
    if (!ok) rc = err ? err->code : PW_EFORMAT;
    if (rc == PW_OK) {
        pw_stats_particles p = {(size_t)cf.count, x->data, v->data, m->data, jp->data, xi->data,
                                NULL, NULL, NULL, NULL, NULL, NULL, gravity, NULL, NULL, crumb,
                                NULL, NULL, NULL};
        if (energy) {
            p.Fe = e[0]->data;
            p.V0 = e[1]->data;
            p.mu0 = e[2]->data;
            p.lambda0 = e[3]->data;
            p.Jp_min = e[4]->data;
            p.Jp_max = e[5]->data;
        }
        if (rho) p.rho = rho->data;
        if (layer) p.layer = layer->data;
        if (dur) p.durability = dur->data;
        if (law) p.law = law->data, p.rho_rest = rho_rest->data;
        rc = pw_stats_compute(&p, link_h * cf.h, cf.h, colliders, n_colliders, cf.time, st, err);
        if (rc != PW_OK) pw_error_prefix(err, "%s", path);
    }
    pw_cache_frame_free(&cf);
    return rc;
}

pw_status pw_stats_cache_read_masses(const char *path, int want_v, pw_cache_frame *cf,
                                     pw_stats_particles *p, pw_error *err)
{
    /* a full cache gives the density from F_E and V0, a slim render cache stores it */
    pw_cache_info info;
    pw_status rc = pw_cache_table(path, &info, err);
    if (rc != PW_OK) return rc;
    int full = pw_cache_info_attr(&info, "Fe") && pw_cache_info_attr(&info, "V0");
    int stored = !full && pw_cache_info_attr(&info, "density");
    /* and under density hardening the density the law measured (pw_law_density) */
    int laws = full && pw_cache_info_attr(&info, "law") && pw_cache_info_attr(&info, "rho_rest");
    const char *names[8] = {"x", "m", "Jp", "v"};
    static const uint32_t components[6] = {3, 1, 1, 3};
    int n_base = want_v ? 4 : 3, n_names = n_base;
    if (full) names[n_names++] = "Fe", names[n_names++] = "V0";
    else if (stored) names[n_names++] = "density";
    if (laws) names[n_names++] = "law", names[n_names++] = "rho_rest";
    if ((rc = pw_cache_read_f64(path, names, n_names, cf, err)) != PW_OK) return rc;
    const pw_cache_attr *a[8] = {NULL};
    for (int k = 0; k < n_names; k++) {
        uint32_t want = k < n_base ? components[k] : !strcmp(names[k], "Fe") ? 9 : 1;
        if (!strcmp(names[k], "law")) { /* the laws' bits stay uint32 */
            a[k] = pw_cache_find(cf, "law");
            if (a[k]->type == PW_U32 && a[k]->components == 1) continue;
            pw_fail(err, PW_EFORMAT, "%s: attribute 'law' is not uint32 with 1 component", path);
            pw_cache_frame_free(cf);
            return PW_EFORMAT;
        }
        if (!(a[k] = need_attr(path, cf, names[k], want, err))) {
            pw_cache_frame_free(cf);
            return err ? err->code : PW_EFORMAT;
        }
    }
    memset(p, 0, sizeof *p);
    p->n = (size_t)cf->count;
    p->x = a[0]->data, p->m = a[1]->data, p->Jp = a[2]->data;
    if (want_v) p->v = a[3]->data;
    if (full) p->Fe = a[n_base]->data, p->V0 = a[n_base + 1]->data;
    else if (stored) p->rho = a[n_base]->data;
    if (laws) p->law = a[n_base + 2]->data, p->rho_rest = a[n_base + 3]->data;
    return PW_OK;
}
