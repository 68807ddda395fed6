/* Property: `powder stats` measures the damage of snow of the optional laws (seed.h), and
 * hardens its elastic energy as the solver does.
 *   1. Five particles of masses 1, 2, 3, 4, 10 kg and durability 0.2, 0.5, 0.49, 1, 0.7:
 *      the damaged share (durability below 0.5; 0.5 itself is not) is (1 + 3) / 20 =
 *      0.2 of the mass and the mean durability sum m d / sum m = 13.67 / 20 = 0.6835,
 *      by hand; without masses each particle weighs alike (0.4 and 0.578); without
 *      durability nothing is reported.
 *   2. The elastic energy's hardening reads J_P as the solver does (pw_particle_Jp):
 *      under density hardening m / (V0 rho_rest) once rho_rest is measured (0.9 here,
 *      while det F_P = 1: a factor e^(10 * 0.1)), clamped to [Jp_min, Jp_max] (0.3 ->
 *      0.6: e^4), else det F_P (a Drucker-Prager particle of plastic hardening, and one
 *      whose rest density is not measured yet: factor 1). Four particles stretched to
 *      F_E = diag(1.1, 1, 1), Psi = 1.25 J/m^3 times V0 1e-3 m^3 each:
 *      E = 1.25e-3 (e + 1 + 1 + e^4) J by hand (det F_P alone would give 5e-3 J).
 *   3. The same two measures from caches (pw_stats_cache): a full one (float64, with
 *      law, rho_rest and durability) and a slim one (float32 durability and density,
 *      no energy), to 1e-12 relative (the slim one to float32 rounding of the masses and
 *      durabilities, 1e-6); a cache without durability reports none. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "constitutive.h"
#include "pw_cache.h"
#include "pw_stats.h"
#include "seed.h"

#define N 5
static const double mass[N] = {1, 2, 3, 4, 10};
static const double dur[N] = {0.2, 0.5, 0.49, 1, 0.7};
#define DAMAGED (4.0 / 20)
#define MEAN (13.67 / 20)

static void positions(vec3 *x)
{
    for (int i = 0; i < N; i++) x[i] = v3(0.1 * i, 0.5, 0); /* (apart: five fragments) */
}

static void damage(void)
{
    vec3 x[N];
    positions(x);
    pw_stats_particles p = {.n = N, .x = x, .m = mass, .durability = dur};
    pw_frame_stats st;
    CHECK(pw_stats_compute(&p, 0.01, 0.01, NULL, 0, 0.0, &st, NULL) == PW_OK, "1: compute");
    CHECK(st.has_durability, "1: durability not reported");
    CHECK_NEAR(st.damaged_share, DAMAGED, 1e-15, "1: damaged mass share");
    CHECK_NEAR(st.durability_mean, MEAN, 1e-15, "1: mass-weighted mean durability");
    printf("1: damaged %.4f of the mass, mean durability %.4f\n", st.damaged_share,
           st.durability_mean);
    p.m = NULL;
    CHECK(pw_stats_compute(&p, 0.01, 0.01, NULL, 0, 0.0, &st, NULL) == PW_OK, "1: compute");
    CHECK_NEAR(st.damaged_share, 0.4, 1e-15, "1: damaged share of the particles, no masses");
    CHECK_NEAR(st.durability_mean, 2.89 / 5, 1e-15, "1: mean durability, no masses");
    p.m = mass;
    p.durability = NULL;
    CHECK(pw_stats_compute(&p, 0.01, 0.01, NULL, 0, 0.0, &st, NULL) == PW_OK, "1: compute");
    CHECK(!st.has_durability && st.damaged_share == 0, "1: damage without durability");
}

/* The four particles of case 2. */
typedef struct {
    vec3 x[4];
    double m[4], jp[4], xi[4], V0[4], mu0[4], la0[4], jmin[4], jmax[4], rho_rest[4];
    mat3 Fe[4];
    uint32_t law[4];
} law_set;

static void law_particles(law_set *s)
{
    const uint32_t dp = PW_LAW_CLAMP | PW_LAW_DRUCKER_PRAGER;
    /* J from the density: 0.9 / (1e-3 * 1000) = 0.9; 0.3 / (1e-3 * 1000) = 0.3 -> 0.6 */
    const double m[4] = {0.9, 0.9, 0.9, 0.3}, rho_rest[4] = {1000, 1000, 0, 1000};
    const uint32_t law[4] = {dp | PW_LAW_DENSITY_HARDENING, dp, dp | PW_LAW_DENSITY_HARDENING,
                             dp | PW_LAW_DENSITY_HARDENING};
    for (int i = 0; i < 4; i++) {
        s->x[i] = v3(0.1 * i, 0.5, 0);
        s->m[i] = m[i];
        s->jp[i] = 1; /* det F_P */
        s->xi[i] = 10;
        s->V0[i] = 1e-3;
        s->mu0[i] = 100;
        s->la0[i] = 50;
        s->jmin[i] = 0.6;
        s->jmax[i] = 20;
        s->rho_rest[i] = rho_rest[i];
        s->law[i] = law[i];
        s->Fe[i] = m3_diag(1.1, 1, 1);
    }
}

#define E_LAWS (1.25e-3 * (exp(1.0) + 1 + 1 + exp(4.0)))

static void energy(void)
{
    law_set s;
    law_particles(&s);
    pw_stats_particles p = {.n = 4, .x = s.x, .m = s.m, .Jp = s.jp, .xi = s.xi, .Fe = s.Fe,
                            .V0 = s.V0, .mu0 = s.mu0, .lambda0 = s.la0, .Jp_min = s.jmin,
                            .Jp_max = s.jmax, .law = s.law, .rho_rest = s.rho_rest};
    pw_frame_stats st;
    CHECK(pw_stats_compute(&p, 0.01, 0.01, NULL, 0, 0.0, &st, NULL) == PW_OK, "2: compute");
    CHECK(st.has_elastic, "2: no elastic energy");
    CHECK_NEAR(st.elastic_energy, E_LAWS, 1e-12 * E_LAWS, "2: elastic energy, the laws' J_P");
    printf("2: elastic energy %.9g J (det F_P alone: %.9g J)\n", st.elastic_energy, 5e-3);
    p.law = NULL; /* a frame without the laws: det F_P throughout */
    CHECK(pw_stats_compute(&p, 0.01, 0.01, NULL, 0, 0.0, &st, NULL) == PW_OK, "2: compute");
    CHECK_NEAR(st.elastic_energy, 5e-3, 1e-15, "2: elastic energy, det F_P");
}

static void caches(void)
{
    law_set s;
    law_particles(&s);
    vec3 x[N];
    positions(x);
    double v[3 * N] = {0}, d4[4];
    for (int i = 0; i < 4; i++) d4[i] = dur[i];
    /* a full cache: the four law particles with the first four durabilities */
    pw_cache_attr full[14] = {
        {"x", PW_F64, 3, s.x},          {"v", PW_F64, 3, v},
        {"m", PW_F64, 1, s.m},          {"Jp", PW_F64, 1, s.jp},
        {"xi", PW_F64, 1, s.xi},        {"Fe", PW_F64, 9, s.Fe},
        {"V0", PW_F64, 1, s.V0},        {"mu0", PW_F64, 1, s.mu0},
        {"lambda0", PW_F64, 1, s.la0},  {"Jp_min", PW_F64, 1, s.jmin},
        {"Jp_max", PW_F64, 1, s.jmax},  {"law", PW_U32, 1, s.law},
        {"rho_rest", PW_F64, 1, s.rho_rest}, {"durability", PW_F64, 1, d4}};
    pw_cache_frame f;
    memset(&f, 0, sizeof f);
    f.count = 4;
    f.h = 0.01;
    f.attrs = full;
    f.n_attrs = 14;
    pw_error err = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/stats_durability_full.pwc", POWDER_TEST_TMP);
    CHECK(pw_cache_write(path, &f, &err) == PW_OK, "3: write: %s", err.msg);
    pw_frame_stats st;
    CHECK(pw_stats_cache(path, 0.7, 0, v3(0, 0, 0), NULL, 0, &st, &err) == PW_OK, "3: %s",
          err.msg);
    /* masses 0.9, 0.9, 0.9, 0.3; durability 0.2, 0.5, 0.49, 1 */
    double damaged = 1.8 / 3.0, mean = (0.9 * (0.2 + 0.5 + 0.49) + 0.3) / 3.0;
    CHECK(st.has_durability && st.has_elastic, "3: full cache: durability %d, energy %d",
          st.has_durability, st.has_elastic);
    CHECK_NEAR(st.elastic_energy, E_LAWS, 1e-12 * E_LAWS, "3: full cache: elastic energy");
    CHECK_NEAR(st.damaged_share, damaged, 1e-12, "3: full cache: damaged share");
    CHECK_NEAR(st.durability_mean, mean, 1e-12, "3: full cache: mean durability");

    /* a slim cache: float32, the density stored, no energy */
    float xf[3 * N], vf[3 * N] = {0}, mf[N], jpf[N], xif[N], rhof[N], df[N];
    uint32_t id[N];
    for (int i = 0; i < N; i++) {
        xf[3 * i] = (float)x[i].x, xf[3 * i + 1] = (float)x[i].y, xf[3 * i + 2] = (float)x[i].z;
        mf[i] = (float)mass[i], jpf[i] = 1, xif[i] = 10, rhof[i] = 400, df[i] = (float)dur[i];
        id[i] = (uint32_t)i;
    }
    pw_cache_attr slim[8] = {{"x", PW_F32, 3, xf},     {"v", PW_F32, 3, vf},
                             {"m", PW_F32, 1, mf},     {"Jp", PW_F32, 1, jpf},
                             {"xi", PW_F32, 1, xif},   {"density", PW_F32, 1, rhof},
                             {"id", PW_U32, 1, id},    {"durability", PW_F32, 1, df}};
    f.count = N;
    f.attrs = slim;
    f.n_attrs = 8;
    CHECK(pw_cache_global_set(&f, PW_CACHE_SLIM, 1, &err) == PW_OK, "3: %s", err.msg);
    snprintf(path, sizeof path, "%s/stats_durability_slim.pwc", POWDER_TEST_TMP);
    CHECK(pw_cache_write(path, &f, &err) == PW_OK, "3: write: %s", err.msg);
    CHECK(pw_stats_cache(path, 0.7, 0, v3(0, 0, 0), NULL, 0, &st, &err) == PW_OK, "3: %s",
          err.msg);
    CHECK(st.has_durability && !st.has_elastic, "3: slim cache: durability %d, energy %d",
          st.has_durability, st.has_elastic);
    CHECK_NEAR(st.damaged_share, DAMAGED, 1e-6, "3: slim cache: damaged share");
    CHECK_NEAR(st.durability_mean, MEAN, 1e-6, "3: slim cache: mean durability");
    /* and without the attribute */
    f.n_attrs = 7;
    CHECK(pw_cache_write(path, &f, &err) == PW_OK, "3: write: %s", err.msg);
    CHECK(pw_stats_cache(path, 0.7, 0, v3(0, 0, 0), NULL, 0, &st, &err) == PW_OK, "3: %s",
          err.msg);
    CHECK(!st.has_durability, "3: durability reported for a cache without it");
}

int main(void)
{
    damage();
    energy();
    caches();
    return check_done("stats_durability");
}
