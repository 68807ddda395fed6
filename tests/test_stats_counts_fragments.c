/* Property: `powder stats` measures what it says (sim/pw_stats.h).
 * 1. Fragments equal the connected components of the "closer than link" graph, found
 *    by brute force over all pairs, on random clouds at five densities around the
 *    percolation threshold (labels identical, not just counts), whatever the order.
 * 2. Two lattice blocks 0.5 apart inside are one fragment when the gap between them is
 *    0.69 (< link 0.7) and two at 0.71: the link is strict and exact.
 * 3. Shares: blocks of 1000 and 512 particles plus 3 singletons give 5 fragments, the
 *    largest 1000/1515, the second 512/1515, 2 fragments >= 1 %, 2 of >= 5 particles.
 * 4. Kinetic energy, momentum, mass, J_P min/mean/max and bounds equal the sums
 *    computed here; the share within 2 h of a floor equals the lattice layers below it.
 * 5. Bad input: a NaN position and a zero link are refused (PW_EINVAL); a cache without
 *    Jp is refused naming the file and the attribute; a written cache measures the same
 *    as the arrays it was written from.
 * 6. Energies: elastic = sum V0 Psi(F_E) with the moduli hardened by e^{xi (1 - J_P)}
 *    (J_P clamped to the particle's bounds), in closed form for a stretch and a shear;
 *    potential = -sum m g . x; a cache with F_E and the moduli gives the same, one
 *    without them gives elastic 0. Density m / (V0 J_P det F_E): median, largest and
 *    the share denser than ice in closed form, the same from the cache; none while a
 *    particle's V0 is still 0 (a seeded frame).
 * 7. Chunks: in the crack lattice below, with a broken layer (J_P 1.5), a weakened one
 *    (J_P 1.4: 1.8 % of its stiffness left) and one that cannot harden (xi = 0), 20 %
 *    is weak and the sound snow is in chunks of 200, 200 and 400 particles, so the mean
 *    chunk is 0.2^2 + 0.2^2 + 0.4^2 = 0.24 exactly; J_P 1.069 (factor 0.502) is still
 *    sound (chunks of 500 and 400: 0.41), 1.07 (0.497) weak. Without xi nothing is
 *    weak and the mean chunk is the fragments' sum of squared shares.
 * 8. Height: see height_percentile.
 * 9. The default link follows the seeding: an intact seeded ball is one fragment at 4,
 *    5, 6 and 8 particles per cell with pw_stats_default_link_h (a fixed 0.7 h split
 *    it at 4 per cell, which is shown too). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_stats.h"
#include "seed.h"

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t root_of(uint32_t *p, uint32_t i)
{
    while (p[i] != i) i = p[i];
    return i;
}

/* Canonical labels by brute force: components of the graph, numbered by their lowest
 * index. */
static size_t brute_labels(const vec3 *x, size_t n, double link, uint32_t *label)
{
    uint32_t *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (uint32_t)i;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (v3_length(v3_sub(x[i], x[j])) < link) {
                uint32_t a = root_of(p, (uint32_t)i), b = root_of(p, (uint32_t)j);
                if (a < b) p[b] = a;
                else if (b < a) p[a] = b;
            }
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = root_of(p, (uint32_t)i);
        label[i] = r == i ? (uint32_t)count++ : label[r];
    }
    free(p);
    return count;
}

static void random_clouds(void)
{
    const size_t n = 1500;
    vec3 *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    size_t *perm = malloc(n * sizeof *perm);
    uint64_t s = 12345;
    const double sides[] = {6.0, 7.0, 8.0, 9.0, 12.0};
    for (int k = 0; k < 5; k++) {
        /* a box of side L with n points: around L = 8 the 0.7-graph percolates */
        double L = sides[k];
        for (size_t i = 0; i < n; i++) x[i] = v3(L * urand(&s) - 2.0, L * urand(&s), -L * urand(&s));
        size_t nb = brute_labels(x, n, 0.7, a), nf = 0;
        CHECK(pw_stats_fragments(x, n, 0.7, b, &nf, NULL) == PW_OK, "fragments failed");
        CHECK(nf == nb, "side %g: %zu fragments, brute force %zu", L, nf, nb);
        CHECK(!memcmp(a, b, n * sizeof *a), "side %g: labels differ from brute force", L);
        /* shuffled order: the same partition (particle perm[i] of y is particle i of x) */
        for (size_t i = 0; i < n; i++) perm[i] = i;
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)(urand(&s) * (double)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (size_t i = 0; i < n; i++) y[perm[i]] = x[i];
        size_t ny = 0;
        CHECK(pw_stats_fragments(y, n, 0.7, c, &ny, NULL) == PW_OK, "fragments failed");
        CHECK(ny == nb, "shuffled: %zu vs %zu", ny, nb);
        int same = 1;
        for (size_t i = 0; i < n && same; i++)
            for (size_t j = i + 1; j < n && j < i + 40; j++)
                same &= (a[i] == a[j]) == (c[perm[i]] == c[perm[j]]);
        CHECK(same, "side %g: the shuffled partition differs", L);
        printf("random cloud side %4.1f: %zu fragments (brute force agrees)\n", L, nf);
    }
    free(x), free(y), free(a), free(b), free(c), free(perm);
}

/* nx x ny x nz lattice of spacing 0.5 from origin o into x; returns the count */
static size_t lattice(vec3 *x, vec3 o, int nx, int ny, int nz)
{
    size_t n = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) x[n++] = v3_add(o, v3(0.5 * i, 0.5 * j, 0.5 * k));
    return n;
}

static void gap_is_exact(void)
{
    vec3 *x = malloc(2000 * sizeof *x);
    const double gaps[] = {0.69, 0.71};
    for (int g = 0; g < 2; g++) {
        size_t n = lattice(x, v3(0, 0, 0), 10, 10, 10);
        n += lattice(x + n, v3(4.5 + gaps[g], 0, 0), 10, 10, 10);
        size_t nf = 0;
        CHECK(pw_stats_fragments(x, n, 0.7, NULL, &nf, NULL) == PW_OK, "fragments failed");
        CHECK(nf == (size_t)(g == 0 ? 1 : 2), "gap %.2f: %zu fragments", gaps[g], nf);
    }
    free(x);
}

static void shares_and_sums(void)
{
    const size_t cap = 1600;
    vec3 *x = malloc(cap * sizeof *x), *v = malloc(cap * sizeof *v);
    double *m = malloc(cap * sizeof *m), *jp = malloc(cap * sizeof *jp);
    size_t n = lattice(x, v3(0, 0.25, 0), 10, 10, 10);
    n += lattice(x + n, v3(10, 0.25, 0), 8, 8, 8);
    x[n++] = v3(20, 5, 5);
    x[n++] = v3(21, 5, 5);
    x[n++] = v3(-3, 9, 1);
    double ke = 0, jsum = 0, mass = 0;
    vec3 mom = v3(0, 0, 0);
    for (size_t i = 0; i < n; i++) {
        v[i] = v3(0.1 * (double)(i % 7), -0.2, 0.05 * (double)(i % 3));
        m[i] = 1e-3 * (1 + (double)(i % 5));
        jp[i] = 0.7 + 0.001 * (double)(i % 500);
        ke += 0.5 * m[i] * v3_length2(v[i]);
        mom = v3_madd(mom, v[i], m[i]);
        mass += m[i];
        jsum += jp[i];
    }
    pw_stats_particles p = {n, x, v, m, jp, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            {0, 0, 0}, NULL, NULL, 0, NULL, NULL, NULL};
    pw_collider_desc floor;
    memset(&floor, 0, sizeof floor);
    pw_shape_init(&floor.shape, PW_SHAPE_HALFSPACE);
    floor.shape.normal = v3(0, 1, 0);
    pw_frame_stats st;
    /* h = 0.5: the band is phi < 1, i.e. lattice layers y = 0.25 and 0.75 of both blocks */
    CHECK(pw_stats_compute(&p, 0.7, 0.5, &floor, 1, 0.0, &st, NULL) == PW_OK, "compute failed");
    CHECK(st.fragments == 5, "fragments %zu", st.fragments);
    CHECK_NEAR(st.largest_share, 1000.0 / 1515, 1e-15, "largest share");
    CHECK_NEAR(st.second_share, 512.0 / 1515, 1e-15, "second share");
    CHECK(st.fragments_large == 2 && st.fragments_5 == 2, "large %zu, >=5 %zu",
          st.fragments_large, st.fragments_5);
    CHECK(st.in_large_share == 1512.0 / 1515, "in fragments >= 1 %%: %.17g (the three singletons "
          "are not)", st.in_large_share);
    CHECK_NEAR(st.kinetic_energy, ke, 1e-12 * ke, "kinetic energy");
    CHECK_NEAR(st.mass, mass, 1e-12 * mass, "mass");
    CHECK_NEAR(v3_length(v3_sub(st.momentum, mom)), 0, 1e-12, "momentum");
    CHECK(st.jp_min == 0.7 && st.jp_max == 0.7 + 0.001 * 499, "Jp %g %g", st.jp_min, st.jp_max);
    CHECK_NEAR(st.jp_mean, jsum / (double)n, 1e-12, "Jp mean");
    CHECK(st.lo.x == -3 && st.hi.x == 21 && st.lo.y == 0.25 && st.hi.y == 9, "bounds");
    CHECK_NEAR(st.near_share[0], (2.0 * 100 + 2.0 * 64) / 1515, 1e-15, "near floor");
    CHECK(st.broken_share == 0 && st.pieces_large == st.fragments_large &&
          st.largest_piece == st.largest_share, "without xi nothing is broken");
    double squares = 1000.0 * 1000 + 512.0 * 512 + 3;
    CHECK(st.weak_share == 0 && st.chunk_mean == squares / (1515.0 * 1515),
          "without xi nothing is weak: mean chunk %.17g", st.chunk_mean);

    /* bad input */
    pw_error err = {0};
    x[3].y = NAN;
    size_t nf;
    CHECK(pw_stats_fragments(x, n, 0.7, NULL, &nf, &err) == PW_EINVAL, "NaN accepted");
    CHECK(strstr(err.msg, "particle 3") != NULL, "message: %s", err.msg);
    x[3].y = 0.25;
    CHECK(pw_stats_fragments(x, n, 0, NULL, &nf, &err) == PW_EINVAL, "zero link accepted");

    /* through a cache file: the same figures; without Jp: refused by name */
    char path[4096];
    snprintf(path, sizeof path, "%s/stats_frame.pwc", POWDER_TEST_TMP);
    pw_cache_frame cf;
    memset(&cf, 0, sizeof cf);
    cf.count = n;
    cf.h = 0.5;
    double *xi = malloc(cap * sizeof *xi);
    for (size_t i = 0; i < n; i++) xi[i] = 10;
    pw_cache_attr attrs[5] = {{"Jp", PW_F64, 1, jp}, {"x", PW_F64, 3, x}, {"v", PW_F64, 3, v},
                              {"m", PW_F64, 1, m}, {"xi", PW_F64, 1, xi}};
    cf.attrs = attrs;
    cf.n_attrs = 5;
    CHECK(pw_cache_write(path, &cf, &err) == PW_OK, "write: %s", err.msg);
    pw_frame_stats sc;
    CHECK(pw_stats_cache(path, 1.4, 0, v3_zero(), &floor, 1, &sc, &err) == PW_OK,
          "stats of cache: %s", err.msg);
    CHECK(sc.fragments == st.fragments && sc.largest_share == st.largest_share &&
          sc.kinetic_energy == st.kinetic_energy && sc.near_share[0] == st.near_share[0] &&
          sc.link == 0.7, "cache figures differ");
    cf.attrs = attrs + 1; /* no Jp */
    cf.n_attrs = 4;
    CHECK(pw_cache_write(path, &cf, &err) == PW_OK, "write: %s", err.msg);
    CHECK(pw_stats_cache(path, 1.4, 0, v3_zero(), NULL, 0, &sc, &err) == PW_EFORMAT,
          "missing Jp accepted");
    CHECK(strstr(err.msg, "stats_frame.pwc") && strstr(err.msg, "'Jp'"), "message: %s", err.msg);
    free(x), free(v), free(m), free(jp), free(xi);
}

/* A crack that has not opened: a 10^3 lattice (spacing 0.5, link 0.7) whose layer i = 5
 * has hardened away (J_P = 1.5 with xi = 10: factor e^-5 < 1 %) is one fragment but two
 * pieces, 500 and 400 particles; J_P = 1.4 (e^-4 = 1.8 %) still holds, and so does any
 * J_P without hardening (xi = 0). */
static void cracks_split_pieces(void)
{
    size_t n = 1000;
    vec3 *x = malloc(n * sizeof *x);
    double *jp = malloc(n * sizeof *jp), *xi = malloc(n * sizeof *xi);
    lattice(x, v3(0, 0, 0), 10, 10, 10);
    for (size_t i = 0; i < n; i++) {
        int layer = (int)(i % 10);
        jp[i] = layer == 5 ? 1.5 : layer == 2 ? 1.4 : 1.0;
        xi[i] = 10;
        if (layer == 7) jp[i] = 20, xi[i] = 0;
    }
    pw_stats_particles p = {n, x, NULL, NULL, jp, xi, NULL, NULL, NULL, NULL, NULL, NULL,
                            {0, 0, 0}, NULL, NULL, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "crack: compute");
    CHECK(st.fragments == 1 && st.largest_share == 1, "crack: %zu fragments", st.fragments);
    CHECK(st.broken_share == 0.1, "crack: broken share %g", st.broken_share);
    CHECK(st.pieces_large == 2 && st.largest_piece == 0.5 && st.second_piece == 0.4,
          "crack: %zu pieces, %g and %g", st.pieces_large, st.largest_piece, st.second_piece);
    CHECK(st.weak_share == 0.2 && st.chunk_mean == 0.24, "crack: weak %.17g, mean chunk %.17g",
          st.weak_share, st.chunk_mean);
    /* the weak threshold is a factor of 1/2: J_P 1 + ln 2 / 10 = 1.0693 between these */
    for (size_t i = 0; i < n; i++)
        if (i % 10 == 2) jp[i] = 1.069;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "crack: compute");
    CHECK(st.weak_share == 0.1 && st.chunk_mean == 0.41,
          "J_P 1.069 weak: %g, mean chunk %.17g", st.weak_share, st.chunk_mean);
    for (size_t i = 0; i < n; i++)
        if (i % 10 == 2) jp[i] = 1.07;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "crack: compute");
    CHECK(st.weak_share == 0.2 && st.chunk_mean == 0.24, "J_P 1.07 not weak: %g", st.weak_share);
    free(x), free(jp), free(xi);
}

/* Psi = mu |F - R|^2 + lambda/2 (J - 1)^2 in closed form: for F = diag(a, 1, 1), R = I,
 * Psi = mu (a - 1)^2 + lambda/2 (a - 1)^2; for a rotation F = R, Psi = 0. */
static void energies(void)
{
    vec3 x[3] = {v3(0, 1, 0), v3(0, 2, 0), v3(5, 0, 0)};
    double m[3] = {1, 2, 3}, jp[3] = {1.0, 0.9, 0.5}, xi[3] = {10, 10, 10};
    double V0[3] = {1e-3, 2e-3, 1e-3}, mu0[3] = {100, 100, 100}, la0[3] = {50, 50, 50};
    double jmin[3] = {0.6, 0.6, 0.6}, jmax[3] = {20, 20, 20};
    mat3 Fe[3];
    Fe[0] = m3_diag(1.1, 1, 1);
    Fe[1] = m3_diag(0.8, 1, 1);
    Fe[2] = m3_rotation(v3(0, 0, 1), 0.3); /* unstrained: no energy however hardened */
    pw_stats_particles p = {3, x, NULL, m, jp, xi, Fe, V0, mu0, la0, jmin, jmax,
                            v3(0, -10, 0), NULL, NULL, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "energy: compute");
    double e0 = 1e-3 * (100 * 0.01 + 25 * 0.01);
    double e1 = 2e-3 * exp(10 * 0.1) * (100 * 0.04 + 25 * 0.04);
    CHECK_NEAR(st.elastic_energy, e0 + e1, 1e-12 * (e0 + e1), "elastic energy");
    CHECK_NEAR(st.potential_energy, 10 * (1 * 1 + 2 * 2 + 3 * 0), 1e-12, "potential energy");
    /* rho = m / (V0 J_P det F_E): 909.1, 1388.9 and 6000 kg/m^3, two denser than ice */
    CHECK_NEAR(st.rho_median, 2 / (2e-3 * 0.9 * 0.8), 1e-9, "median density");
    CHECK_NEAR(st.rho_max, 3 / (1e-3 * 0.5), 1e-9, "largest density");
    CHECK(st.ice_share == 2.0 / 3.0 && st.has_density, "share denser than ice %g", st.ice_share);
    /* a seeded frame has V0 = 0 until the first step: no density rather than infinity */
    V0[1] = 0;
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "energy: compute");
    CHECK(!st.has_density && st.rho_max == 0, "density with V0 = 0: %g", st.rho_max);
    V0[1] = 2e-3;
    /* J_P below its bound hardens as the bound does (the solver clamps it) */
    jp[2] = 0.1;
    Fe[2] = m3_diag(1.1, 1, 1);
    CHECK(pw_stats_compute(&p, 0.7, 0.5, NULL, 0, 0.0, &st, NULL) == PW_OK, "energy: compute");
    double e2 = 1e-3 * exp(10 * 0.4) * (100 * 0.01 + 25 * 0.01);
    CHECK_NEAR(st.elastic_energy, e0 + e1 + e2, 1e-12 * (e0 + e1 + e2), "clamped J_P");
    /* the same from a cache, with and without F_E */
    pw_error err = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/stats_energy.pwc", POWDER_TEST_TMP);
    double v[9] = {0};
    pw_cache_attr attrs[11] = {{"x", PW_F64, 3, x},       {"v", PW_F64, 3, v},
                               {"m", PW_F64, 1, m},       {"Jp", PW_F64, 1, jp},
                               {"xi", PW_F64, 1, xi},     {"Fe", PW_F64, 9, Fe},
                               {"V0", PW_F64, 1, V0},     {"mu0", PW_F64, 1, mu0},
                               {"lambda0", PW_F64, 1, la0}, {"Jp_min", PW_F64, 1, jmin},
                               {"Jp_max", PW_F64, 1, jmax}};
    pw_cache_frame cf;
    memset(&cf, 0, sizeof cf);
    cf.count = 3;
    cf.h = 0.5;
    cf.attrs = attrs;
    cf.n_attrs = 11;
    pw_frame_stats sc;
    CHECK(pw_cache_write(path, &cf, &err) == PW_OK, "write: %s", err.msg);
    CHECK(pw_stats_cache(path, 1.4, 0, v3(0, -10, 0), NULL, 0, &sc, &err) == PW_OK, "%s", err.msg);
    CHECK(sc.rho_median == st.rho_median && sc.rho_max == st.rho_max, "cache densities");
    CHECK(sc.elastic_energy == st.elastic_energy && sc.potential_energy == st.potential_energy,
          "cache energies %g %g, arrays %g %g", sc.elastic_energy, sc.potential_energy,
          st.elastic_energy, st.potential_energy);
    cf.n_attrs = 5;
    CHECK(pw_cache_write(path, &cf, &err) == PW_OK, "write: %s", err.msg);
    CHECK(pw_stats_cache(path, 1.4, 0, v3(0, -10, 0), NULL, 0, &sc, &err) == PW_OK, "%s", err.msg);
    CHECK(sc.elastic_energy == 0 && sc.potential_energy == st.potential_energy,
          "without F_E: elastic %g", sc.elastic_energy);
}

/* 8. Height: 200 particles at heights 0 .. 199 in scrambled order; the 99th percentile
 *    by nearest rank is the 198th smallest, 197, along -g (y down), along -g for a
 *    gravity along +x (heights -x: -2), and along y without gravity; one particle is
 *    its own. */
static void height_percentile(void)
{
    enum { n = 200 };
    vec3 x[n];
    for (int k = 0; k < n; k++) {
        double a = (double)((k * 37) % n); /* 37 is prime to 200: every height once */
        x[k] = v3(a, a, 0.5);
    }
    pw_stats_particles p = {n, x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            {0, -9.81, 0}, NULL, NULL, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    CHECK(pw_stats_compute(&p, 0.7, 1.0, NULL, 0, 0.0, &st, NULL) == PW_OK, "compute failed");
    CHECK(st.top99 == 197, "top99 along -g: %.17g", st.top99);
    p.gravity = v3(3, 0, 0);
    CHECK(pw_stats_compute(&p, 0.7, 1.0, NULL, 0, 0.0, &st, NULL) == PW_OK, "compute failed");
    CHECK(st.top99 == -2, "top99 against a gravity along +x: %.17g", st.top99);
    p.gravity = v3(0, 0, 0);
    CHECK(pw_stats_compute(&p, 0.7, 1.0, NULL, 0, 0.0, &st, NULL) == PW_OK, "compute failed");
    CHECK(st.top99 == 197, "top99 without gravity (y): %.17g", st.top99);
    p.n = 1;
    CHECK(pw_stats_compute(&p, 0.7, 1.0, NULL, 0, 0.0, &st, NULL) == PW_OK, "compute failed");
    CHECK(st.top99 == x[0].y, "top99 of one particle: %.17g", st.top99);
}

static size_t ball_fragments(double ppc, double link_h)
{
    const double h = 0.02;
    pw_body_desc b;
    memset(&b, 0, sizeof b);
    pw_shape_init(&b.add[0], PW_SHAPE_SPHERE);
    b.add[0].center = v3(0.013, 0.207, -0.031);
    b.add[0].radius = 0.15;
    b.n_add = 1;
    b.particles_per_cell = ppc;
    b.seed = 17;
    pw_material mat;
    pw_material_default(&mat);
    pw_seeded s = {0};
    pw_error err = {0};
    size_t fragments = 0;
    CHECK(pw_seed_body(&b, &mat, h, &s, &err) == PW_OK, "9: seed: %s", err.msg);
    pw_stats_particles p = {s.n, s.x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL, {0, 0, 0}, NULL, NULL, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    if (s.n && pw_stats_compute(&p, link_h * h, h, NULL, 0, 0.0, &st, &err) == PW_OK)
        fragments = st.fragments;
    pw_seeded_free(&s);
    return fragments;
}

static void link_follows_seeding(void)
{
    const double ppcs[] = {4, 5, 6, 8};
    for (int k = 0; k < 4; k++) {
        double link = pw_stats_default_link_h(ppcs[k]);
        size_t n = ball_fragments(ppcs[k], link);
        printf("intact ball at %g particles per cell: %zu fragment(s) at the default link "
               "%.3f h\n", ppcs[k], n, link);
        CHECK(n == 1, "an intact ball at %g per cell counts %zu fragments", ppcs[k], n);
    }
    CHECK(pw_stats_default_link_h(8) == PW_STATS_LINK_H, "the default at 8 per cell moved");
    size_t fixed = ball_fragments(4, PW_STATS_LINK_H);
    printf("the same ball at 4 per cell with a fixed 0.7 h: %zu fragments\n", fixed);
    CHECK(fixed > 1, "a fixed 0.7 h no longer splits the ball (%zu): the case shows nothing",
          fixed);
}

int main(void)
{
    random_clouds();
    gap_is_exact();
    shares_and_sums();
    cracks_split_pieces();
    energies();
    height_percentile();
    link_follows_seeding();
    return check_done("stats_counts_fragments");
}
