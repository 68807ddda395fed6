/* Property: a frame cache exported with pw_export_ply_frame reads back (pw_ply_read, and
 * an independent decode of the raw little-endian bytes) with
 *   - x, v and jp equal to the cache's float64 values rounded to float32 (tolerance 0:
 *     the file stores float32 and nothing else may change them);
 *   - density equal to m / (V0 det(Fe) Jp) computed here in double, within 1.2e-7
 *     relative: the writer rounds the double to float32 (at most half an ulp, 2^-24),
 *     and a 1e-15 difference between two double evaluations of det may move that
 *     rounding by one ulp (2^-23 = 1.19e-7);
 *   - before the solver's first step (V0 = 0) the density is rho_p^0 = sum_i rho_i w_ip,
 *     which for particles on a lattice of spacing h/2 (8 per cell, any offset) is
 *     exactly 8 m / h^3 away from the block's surface (the cubic B-spline is a partition
 *     of unity, so each axis sums to 2), within 1e-6 relative (float32 storage, sums
 *     of 64 terms in double).
 * The reader is strict: every damaged or foreign header, every truncation and a NaN are
 * refused with a status, never read wrongly or crashed on; the writer refuses NaN and
 * leaves no file. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "export.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "test_util.h"

static unsigned rng(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}
static double uniform(unsigned *s) { return (rng(s) >> 8) / 16777216.0; }

static float le_f32(const unsigned char *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* det by cofactors along the first row (independent of pw_math.h's m3_det). */
static double det3(const double *F)
{
    return F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
           F[2] * (F[3] * F[7] - F[4] * F[6]);
}

typedef struct {
    size_t n;
    double *x, *v, *m, *V0, *Fe, *Jp;
} frame_data;

static void frame_alloc(frame_data *f, size_t n)
{
    f->n = n;
    size_t k = n ? n : 1;
    f->x = calloc(3 * k, sizeof(double));
    f->v = calloc(3 * k, sizeof(double));
    f->m = calloc(k, sizeof(double));
    f->V0 = calloc(k, sizeof(double));
    f->Fe = calloc(9 * k, sizeof(double));
    f->Jp = calloc(k, sizeof(double));
}

static void frame_free(frame_data *f)
{
    free(f->x), free(f->v), free(f->m), free(f->V0), free(f->Fe), free(f->Jp);
}

/* Writes f as a cache (attributes: all six, or without Fe when skip_fe). */
static pw_status write_cache(const char *path, const frame_data *f, double h, int skip_fe,
                             pw_error *err)
{
    struct { const char *name; uint32_t comps; double *data; } a[6] = {
        {"x", 3, f->x}, {"v", 3, f->v}, {"m", 1, f->m}, {"V0", 1, f->V0},
        {"Jp", 1, f->Jp}, {"Fe", 9, f->Fe}};
    pw_cache_attr attrs[6];
    int na = skip_fe ? 5 : 6;
    for (int k = 0; k < na; k++) {
        memset(&attrs[k], 0, sizeof attrs[k]);
        snprintf(attrs[k].name, sizeof attrs[k].name, "%s", a[k].name);
        attrs[k].type = PW_F64;
        attrs[k].components = a[k].comps;
        attrs[k].data = a[k].data;
    }
    pw_cache_frame cf;
    memset(&cf, 0, sizeof cf);
    cf.count = f->n;
    cf.h = h;
    cf.time = 0.5;
    cf.frame = 12;
    cf.n_attrs = na;
    cf.attrs = attrs;
    return pw_cache_write(path, &cf, err);
}

/* ---- case 1: random frame, every value compared ---------------------------------- */

static void case_random_frame(size_t n)
{
    frame_data f;
    frame_alloc(&f, n);
    unsigned s = 7;
    for (size_t p = 0; p < n; p++) {
        for (int k = 0; k < 3; k++) {
            f.x[3 * p + k] = -0.7 + 1.9 * uniform(&s);
            f.v[3 * p + k] = -5 + 10 * uniform(&s);
        }
        f.m[p] = 1e-5 * (0.5 + uniform(&s));
        f.V0[p] = 2e-8 * (0.5 + uniform(&s));
        for (int k = 0; k < 9; k++) f.Fe[9 * p + k] = (k % 4 == 0) + 0.2 * (uniform(&s) - 0.5);
        f.Jp[p] = 0.5 + uniform(&s);
    }
    const char *cache = POWDER_TEST_TMP "/ply_rt.pwc", *ply = POWDER_TEST_TMP "/ply_rt.ply";
    pw_error err = {0};
    CHECK(write_cache(cache, &f, 0.01, 0, &err) == PW_OK, "1: cache write: %s", err.msg);
    pw_export_meta meta = {"ply_test", 12, 0.5};
    size_t count = 0;
    CHECK(pw_export_ply_frame(cache, ply, &meta, &count, &err) == PW_OK, "1: export: %s", err.msg);
    CHECK(count == n, "1: %zu particles exported, %zu in the cache", count, n);

    pw_ply_particles r;
    CHECK(pw_ply_read(ply, &r, &err) == PW_OK, "1: read: %s", err.msg);
    CHECK(r.count == n, "1: %zu particles read back, %zu written", r.count, n);
    size_t bad_exact = 0, bad_rho = 0;
    double worst = 0;
    for (size_t p = 0; p < n && r.count == n; p++) {
        for (int k = 0; k < 3; k++) {
            bad_exact += r.x[3 * p + k] != (float)f.x[3 * p + k];
            bad_exact += r.v[3 * p + k] != (float)f.v[3 * p + k];
        }
        bad_exact += r.jp[p] != (float)f.Jp[p];
        double rho = f.m[p] / (f.V0[p] * det3(&f.Fe[9 * p]) * f.Jp[p]);
        double rel = fabs(r.density[p] - rho) / rho;
        if (rel > worst) worst = rel;
        bad_rho += !(rel <= 1.2e-7);
    }
    CHECK(bad_exact == 0, "1: %zu x/v/jp values differ from the cache's float32 rounding",
          bad_exact);
    CHECK(bad_rho == 0, "1: %zu densities off by more than 1.2e-7 (worst %.3g)", bad_rho, worst);
    printf("1: %zu particles, worst density error %.3g relative\n", n, worst);

    /* the raw bytes, decoded without the reader: header size and the last vertex */
    char *data = NULL;
    size_t size = 0;
    CHECK(pw_read_file(ply, 1 << 30, &data, &size, &err) == PW_OK, "1: raw read: %s", err.msg);
    const char *eh = data ? strstr(data, "end_header\n") : NULL;
    CHECK(eh != NULL, "1: no end_header in the file");
    if (eh && n > 0) {
        size_t hb = (size_t)(eh - data) + 11;
        CHECK(size == hb + 32 * n, "1: file is %zu bytes, header %zu + 32 x %zu expected", size,
              hb, n);
        CHECK(!strncmp(data, "ply\nformat binary_little_endian 1.0\n", 36), "1: format line");
        const unsigned char *last = (const unsigned char *)data + hb + 32 * (n - 1);
        CHECK(le_f32(last + 0) == (float)f.x[3 * (n - 1)], "1: raw last x");
        CHECK(le_f32(last + 16) == (float)f.v[3 * (n - 1) + 1], "1: raw last vy");
        CHECK(le_f32(last + 28) == (float)f.Jp[n - 1], "1: raw last jp");
        CHECK(strstr(data, "comment scene ply_test frame 12") != NULL, "1: scene comment");
    }
    free(data);
    pw_ply_particles_free(&r);
    frame_free(&f);
}

/* ---- case 2: before the first step (V0 = 0): rho_p^0 = 8 m / h^3 inside a lattice --- */

static void case_initial_density(int cells)
{
    const double h = 0.02, mp = 4e-4;                /* [m], [kg]: 400 kg/m^3 */
    const double o[3] = {-0.117, 0.031, 0.2};        /* arbitrary lattice offset [m] */
    int per = 2 * cells;
    frame_data f;
    frame_alloc(&f, (size_t)per * per * per);
    size_t p = 0;
    for (int c = 0; c < per; c++)
        for (int b = 0; b < per; b++)
            for (int a = 0; a < per; a++, p++) {
                int ijk[3] = {a, b, c};
                for (int k = 0; k < 3; k++) f.x[3 * p + k] = o[k] + (ijk[k] + 0.5) * 0.5 * h;
                f.m[p] = mp;
                f.V0[p] = 0;
                f.Fe[9 * p] = f.Fe[9 * p + 4] = f.Fe[9 * p + 8] = 1;
                f.Jp[p] = 1;
            }
    const char *cache = POWDER_TEST_TMP "/ply_v0.pwc", *ply = POWDER_TEST_TMP "/ply_v0.ply";
    pw_error err = {0};
    CHECK(write_cache(cache, &f, h, 0, &err) == PW_OK, "2: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_OK, "2: export: %s", err.msg);
    pw_ply_particles r;
    memset(&r, 0, sizeof r);
    CHECK(pw_ply_read(ply, &r, &err) == PW_OK, "2: read: %s", err.msg);
    const double rho_exact = 8 * mp / (h * h * h);
    size_t inside = 0, bad = 0;
    double worst = 0;
    for (size_t q = 0; q < r.count; q++) {
        /* the kernel of every node this particle reaches sees a full lattice */
        int deep = 1;
        for (int k = 0; k < 3; k++) {
            double d = f.x[3 * q + k] - o[k];
            deep &= d > 4 * h && d < cells * h - 4 * h;
        }
        if (!deep) {
            bad += !(r.density[q] > 0 && r.density[q] < rho_exact * (1 + 1e-6));
            continue;
        }
        inside++;
        double rel = fabs(r.density[q] - rho_exact) / rho_exact;
        if (rel > worst) worst = rel;
        bad += !(rel <= 1e-6);
    }
    CHECK(inside > 0, "2: no particle deep inside the block");
    CHECK(bad == 0, "2: %zu densities wrong (inside: worst %.3g relative)", bad, worst);
    printf("2: %zu interior particles, rho_p^0 = %.6g kg/m^3, worst error %.3g relative\n",
           inside, rho_exact, worst);
    pw_ply_particles_free(&r);
    frame_free(&f);
}

/* ---- case 3: empty frame ------------------------------------------------------------ */

static void case_empty(void)
{
    frame_data f;
    frame_alloc(&f, 0);
    const char *cache = POWDER_TEST_TMP "/ply_empty.pwc", *ply = POWDER_TEST_TMP "/ply_empty.ply";
    pw_error err = {0};
    CHECK(write_cache(cache, &f, 0.01, 0, &err) == PW_OK, "3: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_OK, "3: export: %s", err.msg);
    pw_ply_particles r;
    CHECK(pw_ply_read(ply, &r, &err) == PW_OK && r.count == 0, "3: read: %s (count %zu)",
          err.msg, r.count);
    pw_ply_particles_free(&r);
    frame_free(&f);
}

/* ---- case 4: bad cache inputs --------------------------------------------------------- */

static void case_bad_cache(void)
{
    frame_data f;
    frame_alloc(&f, 4);
    for (size_t p = 0; p < 4; p++) {
        f.m[p] = 1e-5, f.V0[p] = 1e-8, f.Jp[p] = 1;
        f.Fe[9 * p] = f.Fe[9 * p + 4] = f.Fe[9 * p + 8] = 1;
    }
    const char *cache = POWDER_TEST_TMP "/ply_bad.pwc", *ply = POWDER_TEST_TMP "/ply_bad.ply";
    pw_error err = {0};
    remove(ply);
    /* 4.1 no Fe in the cache */
    CHECK(write_cache(cache, &f, 0.01, 1, &err) == PW_OK, "4.1: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_EFORMAT, "4.1: missing Fe: %s",
          err.msg);
    /* 4.2 negative V0 */
    f.V0[2] = -1e-8;
    CHECK(write_cache(cache, &f, 0.01, 0, &err) == PW_OK, "4.2: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_ENUMERIC &&
              strstr(err.msg, "particle 2"), "4.2: V0 < 0: %s", err.msg);
    f.V0[2] = 1e-8;
    /* 4.3 a position beyond float32 */
    f.x[3] = 1e39;
    CHECK(write_cache(cache, &f, 0.01, 0, &err) == PW_OK, "4.3: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_ENUMERIC, "4.3: 1e39 m: %s",
          err.msg);
    /* 4.4 inverted Fe (det < 0) */
    f.x[3] = 0;
    f.Fe[9 * 3] = -1;
    CHECK(write_cache(cache, &f, 0.01, 0, &err) == PW_OK, "4.4: cache write: %s", err.msg);
    CHECK(pw_export_ply_frame(cache, ply, NULL, NULL, &err) == PW_ENUMERIC, "4.4: det Fe < 0: %s",
          err.msg);
    CHECK(!file_exists(ply), "4: a refused frame left %s", ply);
    frame_free(&f);
}

/* ---- case 5: the writer refuses NaN and leaves nothing ---------------------------------- */

static void case_writer_nan(void)
{
    float x[6] = {0, 0, 0, 1, 1, 1}, v[6] = {0, 0, 0, 0, NAN, 0}, rho[2] = {400, 400},
          jp[2] = {1, 1};
    pw_ply_particles p = {2, x, v, rho, jp, NULL};
    const char *ply = POWDER_TEST_TMP "/ply_nan.ply";
    char tmp[4200];
    pw_atomic_tmp_name(ply, tmp, sizeof tmp);
    remove(ply);
    pw_error err = {0};
    CHECK(pw_ply_write(ply, &p, NULL, &err) == PW_ENUMERIC && strstr(err.msg, "particle 1"),
          "5: NaN vy: %s", err.msg);
    CHECK(!file_exists(ply) && !file_exists(tmp), "5: a refused write left a file");
}

/* ---- case 6: the reader refuses what is not exactly our layout -------------------------- */

static size_t make_ply(char *buf, const char *header, size_t count, size_t nprops, float fill)
{
    size_t n = strlen(header);
    memcpy(buf, header, n);
    for (size_t i = 0; i < count * nprops; i++) {
        float f = fill + (float)i;
        memcpy(buf + n + 4 * i, &f, 4); /* the test machine is little-endian (x86-64) */
    }
    return n + 4 * count * nprops;
}

#define PROPS8 "property float x\nproperty float y\nproperty float z\nproperty float vx\n" \
               "property float vy\nproperty float vz\nproperty float density\nproperty float jp\n"

static void expect(int id, const char *header, size_t count, size_t nprops, long delta,
                   pw_status want)
{
    static char buf[8192];
    size_t n = make_ply(buf, header, count, nprops, 1.0f);
    if (delta > 0) memset(buf + n, 0, (size_t)delta);
    n = (size_t)((long)n + delta);
    pw_ply_particles r;
    pw_error err = {0};
    pw_status rc = pw_ply_read_memory("case.ply", buf, n, &r, &err);
    CHECK(rc == want, "6.%d: status %d, expected %d (%s)", id, (int)rc, (int)want, err.msg);
    CHECK(rc == PW_OK || (strstr(err.msg, "case.ply") && r.count == 0 && !r.x),
          "6.%d: error must name the file and leave nothing (%s)", id, err.msg);
    pw_ply_particles_free(&r);
}

static void case_reader_rejects(void)
{
    const char *good = "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8
                       "end_header\n";
    expect(1, good, 3, 8, 0, PW_OK);
    expect(2, good, 3, 8, -1, PW_EFORMAT);                       /* truncated */
    expect(3, good, 3, 8, 1, PW_EFORMAT);                        /* trailing byte */
    expect(4, "ply\nformat ascii 1.0\nelement vertex 3\n" PROPS8 "end_header\n", 3, 8, 0,
           PW_EUNSUPPORTED);
    expect(5, "ply\nformat binary_big_endian 1.0\nelement vertex 3\n" PROPS8 "end_header\n", 3,
           8, 0, PW_EUNSUPPORTED);
    expect(6, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
              "property float y\nproperty float z\nproperty float vx\nproperty float vy\n"
              "property float vz\nproperty float density\nend_header\n", 3, 7, 0, PW_EFORMAT);
    expect(7, "ply\nformat binary_little_endian 1.0\nelement vertex 18446744073709551615\n"
              PROPS8 "end_header\n", 3, 8, 0, PW_EFORMAT);       /* absurd count */
    expect(8, "ply\nformat binary_little_endian 1.0\nelement vertex 99999999999999999999\n"
              PROPS8 "end_header\n", 3, 8, 0, PW_EFORMAT);       /* count overflows */
    expect(9, "plx\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8 "end_header\n",
           3, 8, 0, PW_EFORMAT);
    expect(10, "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8, 3, 8, 0,
           PW_EFORMAT);                                          /* no end_header */
    expect(11, "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8
               "property list uchar int vertex_indices\nend_header\n", 3, 8, 0, PW_EUNSUPPORTED);
    expect(12, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
               PROPS8 "end_header\n", 3, 9, 0, PW_EFORMAT);      /* x twice */
    expect(13, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double nx\n"
               PROPS8 "end_header\n", 3, 10, 0, PW_EFORMAT);     /* a double property */
    expect(14, "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8
               "element face 0\nend_header\n", 3, 8, 0, PW_EUNSUPPORTED);
    expect(15, "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" PROPS8
               "end_header\r\n", 3, 8, 0, PW_EFORMAT);           /* CR in the header */
    expect(16, "ply\nelement vertex 3\nformat binary_little_endian 1.0\n" PROPS8 "end_header\n",
           3, 8, 0, PW_EFORMAT);                                 /* format not second */

    /* 6.17 an extra float property is skipped: values still land where they belong */
    static char buf[4096];
    size_t n = make_ply(buf, "ply\nformat binary_little_endian 1.0\ncomment hi\nelement vertex 2"
                             "\nproperty float nx\n" PROPS8 "end_header\n", 2, 9, 10.0f);
    pw_ply_particles r;
    pw_error err = {0};
    CHECK(pw_ply_read_memory("extra.ply", buf, n, &r, &err) == PW_OK, "6.17: %s", err.msg);
    CHECK(r.count == 2 && r.x[0] == 11.0f && r.jp[0] == 18.0f && r.x[3] == 20.0f &&
              r.jp[1] == 27.0f, "6.17: values shifted by the extra property");
    pw_ply_particles_free(&r);

    /* 6.18 NaN in the data */
    n = make_ply(buf, good, 3, 8, 1.0f);
    float nan = NAN;
    memcpy(buf + n - 4 * 5, &nan, 4);
    CHECK(pw_ply_read_memory("nan.ply", buf, n, &r, &err) == PW_EFORMAT &&
              strstr(err.msg, "vertex 2"), "6.18: NaN: %s", err.msg);

    /* 6.19 every prefix of a valid file is refused */
    size_t refused = 0, full = make_ply(buf, good, 3, 8, 1.0f);
    for (size_t len = 0; len < full; len++) {
        pw_status rc = pw_ply_read_memory("prefix.ply", buf, len, &r, &err);
        refused += rc == PW_EFORMAT;
        if (rc == PW_OK) pw_ply_particles_free(&r);
    }
    CHECK(refused == full, "6.19: %zu of %zu truncations refused", refused, full);
}

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    case_random_frame(sanitized ? 2000 : 20000);
    case_initial_density(sanitized ? 10 : 12);
    case_empty();
    case_bad_cache();
    case_writer_nan();
    case_reader_rejects();
    return check_done("export_ply_round_trip");
}
