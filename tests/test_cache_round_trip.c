/* Property: a frame written with pw_cache_write reads back bit-exactly (tolerance 0:
 * the format is lossless, so any difference is a bug), for every scalar type x
 * component count, with header fields and globals intact, including edge values
 * (-0, denormals, +-FLT_MAX/DBL_MAX, UINT32_MAX). Reading a subset returns exactly the
 * requested attributes in the requested order; an attribute of an unknown type or
 * encoding is skipped when not requested; a file of a newer minor version with longer
 * header and table entries reads the same. Two writes of one frame give identical
 * bytes. Smooth f32 data compresses by more than 1.5x and better than without byte
 * shuffling, which lines up the sign/exponent bytes (ratios printed, f64 too). The CRC is
 * the standard CRC-32: check value 0xCBF43926 for "123456789". */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cache_internal.h"
#include "check.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "test_util.h"

static const pw_scalar_type types[3] = {PW_F32, PW_F64, PW_U32};
static const uint32_t comps[3] = {1, 3, 9};

static unsigned rng(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

/* Fills n values of type t with a mix of edge values and pseudo-random bits. */
static void fill(void *data, pw_scalar_type t, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned r = rng(&seed);
        if (t == PW_F32) {
            static const float edge[6] = {-0.0f, 1e-40f, FLT_MAX, -FLT_MAX, FLT_MIN, 1.0f};
            ((float *)data)[i] = i < 6 ? edge[i] : (float)((int)r) * 1e-6f;
        } else if (t == PW_F64) {
            static const double edge[6] = {-0.0, 4.9e-324, DBL_MAX, -DBL_MAX, DBL_MIN, 1.0};
            ((double *)data)[i] = i < 6 ? edge[i] : (double)(int)r * 1.2345e-7;
        } else {
            ((uint32_t *)data)[i] = i == 0 ? UINT32_MAX : r;
        }
    }
}

/* Rewrites a 1.0 file as a "1.7" one whose header, globals and table entries are each
 * `extra` bytes longer (filled with 0xAB, meaning nothing to a 1.x reader). */
static unsigned char *as_newer_minor(const unsigned char *b, size_t n, size_t extra, size_t *out_n)
{
    uint32_t hs = get_u32(b + OFF_HEADER_SIZE), gs = get_u32(b + OFF_GLOBAL_SIZE),
             es = get_u32(b + OFF_ENTRY_SIZE), ng = get_u32(b + OFF_N_GLOBALS),
             na = get_u32(b + OFF_N_ATTRS);
    size_t meta = hs + ng * gs + na * es, delta = extra * (1 + ng + na);
    unsigned char *o = malloc(n + delta);
    memset(o, 0xAB, n + delta);
    memcpy(o, b, hs);
    for (uint32_t g = 0; g < ng; g++)
        memcpy(o + hs + extra + g * (gs + extra), b + hs + g * gs, gs);
    size_t t0 = hs + extra + ng * (gs + extra);
    for (uint32_t a = 0; a < na; a++) {
        unsigned char *e = o + t0 + a * (es + extra);
        memcpy(e, b + hs + ng * gs + a * es, es);
        put_u64(e + AOFF_OFFSET, get_u64(e + AOFF_OFFSET) + delta);
    }
    memcpy(o + meta + delta + 4, b + meta + 4, n - meta - 4);
    put_u16(o + OFF_MINOR, 7);
    put_u32(o + OFF_HEADER_SIZE, (uint32_t)(hs + extra));
    put_u32(o + OFF_GLOBAL_SIZE, (uint32_t)(gs + extra));
    put_u32(o + OFF_ENTRY_SIZE, (uint32_t)(es + extra));
    put_u64(o + OFF_FILE_SIZE, n + delta);
    put_u32(o + meta + delta, pw_cache_crc32(0, o, meta + delta));
    *out_n = n + delta;
    return o;
}

int main(void)
{
    pw_error err = {0};

    /* 1. the checksum is the standard CRC-32, and chunks chain */
    CHECK(pw_cache_crc32(0, "123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    CHECK(pw_cache_crc32(pw_cache_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u, "chained");

    /* 2. every type x components, header fields and globals, bit-exact */
    pw_cache_frame f = {.count = 1000, .time = 1.0 / 24, .h = 0.0125, .frame = -3, .step = 1u << 31,
                        .sim_hash = 0xFEEDFACECAFEBEEFull};
    pw_cache_attr attrs[10];
    memset(attrs, 0, sizeof attrs);
    for (int t = 0; t < 3; t++)
        for (int c = 0; c < 3; c++) {
            pw_cache_attr *a = &attrs[3 * t + c];
            snprintf(a->name, sizeof a->name, "attr_%d_%u", (int)types[t], comps[c]);
            a->type = types[t];
            a->components = comps[c];
            a->data = malloc(f.count * comps[c] * pw_scalar_size(types[t]));
            fill(a->data, types[t], f.count * comps[c], 17u * (unsigned)(3 * t + c) + 1);
        }
    f.n_attrs = 9;
    f.attrs = attrs;
    CHECK(pw_cache_global_set(&f, "dt_last", 2.5e-4, &err) == PW_OK, "%s", err.msg);
    CHECK(pw_cache_global_set(&f, "seed", 42, &err) == PW_OK, "%s", err.msg);
    CHECK(pw_cache_global_set(&f, "dt_last", 3e-4, &err) == PW_OK && f.n_globals == 2,
          "global_set replaces");
    const char *path = POWDER_TEST_TMP "/round_trip.pwc";
    CHECK(pw_cache_write(path, &f, &err) == PW_OK, "write: %s", err.msg);
    pw_cache_frame r;
    CHECK(pw_cache_read(path, NULL, 0, &r, &err) == PW_OK, "read: %s", err.msg);
    CHECK(r.count == f.count && r.frame == -3 && r.step == f.step && r.sim_hash == f.sim_hash,
          "integer header fields");
    CHECK(memcmp(&r.time, &f.time, 8) == 0 && memcmp(&r.h, &f.h, 8) == 0, "time and h bits");
    CHECK(r.n_globals == 2 && pw_cache_global_get(&r, "dt_last", -1) == 3e-4 &&
              pw_cache_global_get(&r, "seed", -1) == 42 &&
              pw_cache_global_get(&r, "missing", -7) == -7,
          "globals");
    CHECK(r.n_attrs == 9, "all attributes (%d)", r.n_attrs);
    for (int a = 0; a < r.n_attrs && a < 9; a++) {
        size_t bytes = f.count * attrs[a].components * pw_scalar_size(attrs[a].type);
        CHECK(strcmp(r.attrs[a].name, attrs[a].name) == 0 && r.attrs[a].type == attrs[a].type &&
                  r.attrs[a].components == attrs[a].components,
              "attribute %d description", a);
        CHECK(memcmp(r.attrs[a].data, attrs[a].data, bytes) == 0, "attribute %s bit-exact",
              attrs[a].name);
    }
    CHECK(pw_cache_find(&r, "attr_2_9") == &r.attrs[5] && pw_cache_find(&r, "nope") == NULL,
          "pw_cache_find");
    pw_cache_frame_free(&r);
    CHECK(r.attrs == NULL && r.n_attrs == 0, "frame_free zeroes");

    /* 3. a subset, in the requested order */
    const char *want[2] = {"attr_3_1", "attr_1_9"};
    CHECK(pw_cache_read(path, want, 2, &r, &err) == PW_OK, "subset: %s", err.msg);
    CHECK(r.n_attrs == 2 && strcmp(r.attrs[0].name, want[0]) == 0 &&
              strcmp(r.attrs[1].name, want[1]) == 0,
          "subset order");
    if (r.n_attrs == 2) {
        CHECK(memcmp(r.attrs[0].data, attrs[6].data, f.count * 4) == 0, "subset data 0");
        CHECK(memcmp(r.attrs[1].data, attrs[2].data, f.count * 9 * 4) == 0, "subset data 1");
    }
    pw_cache_frame_free(&r);

    /* 4. a requested attribute that is missing is an error naming it */
    const char *missing[1] = {"velocity"};
    CHECK(pw_cache_read(path, missing, 1, &r, &err) == PW_EFORMAT &&
              strstr(err.msg, "round_trip.pwc") && strstr(err.msg, "'velocity'"),
          "missing attribute: %s", err.msg);

    /* 5. two writes of the same frame give the same bytes */
    const char *path2 = POWDER_TEST_TMP "/round_trip2.pwc";
    CHECK(pw_cache_write(path2, &f, &err) == PW_OK, "%s", err.msg);
    size_t n1 = 0, n2 = 0;
    char *b1 = slurp(path, &n1), *b2 = slurp(path2, &n2);
    CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0, "deterministic bytes (%zu, %zu)", n1,
          n2);

    /* 6. unknown type / unknown encoding of an attribute that is not requested */
    if (b1) {
        pw_cache_info info;
        CHECK(pw_cache_stat_memory("t.pwc", b1, n1, &info, &err) == PW_OK, "%s", err.msg);
        unsigned char *m = (unsigned char *)b1;
        size_t meta = get_u32(m + OFF_HEADER_SIZE) + 2 * GLOBAL_SIZE_V1 + 9 * ENTRY_SIZE_V1;
        unsigned char *e0 = m + get_u32(m + OFF_HEADER_SIZE) + 2 * GLOBAL_SIZE_V1;
        put_u32(e0 + AOFF_TYPE, 77);                  /* attr 0: a type from the future */
        put_u32(e0 + ENTRY_SIZE_V1 + AOFF_FLAGS, 0x11); /* attr 1: an encoding from the future */
        put_u32(m + meta, pw_cache_crc32(0, m, meta));
        CHECK(pw_cache_read_memory("t.pwc", b1, n1, want, 2, &r, &err) == PW_OK,
              "unknown attributes skipped: %s", err.msg);
        pw_cache_frame_free(&r);
        CHECK(pw_cache_stat_memory("t.pwc", b1, n1, &info, &err) == PW_OK &&
                  info.attrs[0].type == 77,
              "stat lists an unknown type: %s", err.msg);
        CHECK(pw_cache_read_memory("t.pwc", b1, n1, NULL, 0, &r, &err) == PW_EFORMAT &&
                  strstr(err.msg, "t.pwc: attribute 'attr_1_1': unknown type (77)"),
              "reading all refuses the unknown type: %s", err.msg);
        const char *second[1] = {"attr_1_3"};
        CHECK(pw_cache_read_memory("t.pwc", b1, n1, second, 1, &r, &err) == PW_EFORMAT &&
                  strstr(err.msg, "unknown encoding flags (0x11)"),
              "requested unknown encoding: %s", err.msg);
    }

    /* 7. a newer minor version with longer header, globals and entries reads the same */
    if (b2) {
        size_t nn = 0;
        unsigned char *nb = as_newer_minor((unsigned char *)b2, n2, 24, &nn);
        CHECK(pw_cache_read_memory("v1.7.pwc", nb, nn, NULL, 0, &r, &err) == PW_OK,
              "minor version 1.7: %s", err.msg);
        CHECK(r.n_attrs == 9 && r.n_globals == 2 && r.frame == -3 &&
                  pw_cache_global_get(&r, "seed", 0) == 42,
              "1.7 header and globals");
        for (int a = 0; a < r.n_attrs; a++)
            CHECK(memcmp(r.attrs[a].data, attrs[a].data,
                         f.count * attrs[a].components * pw_scalar_size(attrs[a].type)) == 0,
                  "1.7 attribute %d", a);
        pw_cache_frame_free(&r);
        pw_cache_info info;
        CHECK(pw_cache_stat_memory("v1.7.pwc", nb, nn, &info, &err) == PW_OK &&
                  info.version_minor == 7,
              "stat 1.7: %s", err.msg);
        free(nb);
    }
    free(b1);
    free(b2);

    /* 8. an empty frame (count 0) with attributes and no globals */
    pw_cache_frame z = {.count = 0, .time = 0, .h = 0.01, .n_attrs = 1, .attrs = attrs};
    CHECK(pw_cache_write(path2, &z, &err) == PW_OK, "empty write: %s", err.msg);
    CHECK(pw_cache_read(path2, NULL, 0, &r, &err) == PW_OK && r.count == 0 && r.n_attrs == 1 &&
              r.attrs[0].data == NULL,
          "empty read: %s", err.msg);
    pw_cache_frame_free(&r);

    /* 9. smooth float data (f32 positions along a curve, as the renderer stores them):
     * ratio > 1.5 and better than zstd on unshuffled bytes; f64 is printed only, its
     * low mantissa bytes are noise and cap the ratio near 8/5 */
    size_t np = 200000;
    float *x = malloc(np * 3 * sizeof *x);
    double *xd = malloc(np * 3 * sizeof *xd);
    for (size_t p = 0; p < np; p++) {
        double s = (double)p / np;
        xd[3 * p + 0] = 0.5 + 0.3 * cos(6.283185307179586 * s); /* [m] */
        xd[3 * p + 1] = 0.2 + 0.1 * s;
        xd[3 * p + 2] = 0.5 + 0.3 * sin(6.283185307179586 * s);
        for (int k = 0; k < 3; k++) x[3 * p + k] = (float)xd[3 * p + k];
    }
    pw_cache_attr xa[2] = {{.name = "x", .type = PW_F32, .components = 3, .data = x},
                           {.name = "xd", .type = PW_F64, .components = 3, .data = xd}};
    pw_cache_frame sm = {.count = np, .time = 1, .h = 0.01, .n_attrs = 2, .attrs = xa};
    CHECK(pw_cache_write(path2, &sm, &err) == PW_OK, "%s", err.msg);
    pw_cache_info info;
    CHECK(pw_cache_stat(path2, &info, &err) == PW_OK, "stat: %s", err.msg);
    if (info.n_attrs == 2) {
        double ratio[2], plain_ratio[2];
        for (int a = 0; a < 2; a++) {
            size_t raw = (size_t)info.attrs[a].raw_bytes;
            ratio[a] = (double)raw / info.attrs[a].compressed_bytes;
            size_t cap = ZSTD_compressBound(raw);
            void *plain = malloc(cap);
            size_t pn = ZSTD_compress(plain, cap, xa[a].data, raw, 3);
            plain_ratio[a] = ZSTD_isError(pn) ? 0 : (double)raw / pn;
            free(plain);
            printf("smooth positions (%s), %zu particles: ratio %.2f shuffled, %.2f plain zstd\n",
                   a ? "f64" : "f32", np, ratio[a], plain_ratio[a]);
        }
        CHECK(ratio[0] > 1.5, "f32 compression ratio %.3f", ratio[0]);
        CHECK(ratio[0] > plain_ratio[0], "shuffling helps (%.3f vs %.3f)", ratio[0],
              plain_ratio[0]);
        CHECK(info.attrs[0].raw_bytes == np * 12 && info.attrs[1].raw_bytes == np * 24 &&
                  info.count == np && info.version_major == 1,
              "stat fields");
    }
    /* the table alone says the same, and the float32 attribute widens exactly */
    pw_cache_info table;
    CHECK(pw_cache_table(path2, &table, &err) == PW_OK, "table: %s", err.msg);
    CHECK(table.n_attrs == info.n_attrs && table.count == info.count &&
              pw_cache_info_attr(&table, "xd") && !pw_cache_info_attr(&table, "v") &&
              pw_cache_info_attr(&table, "x")->compressed_bytes ==
                  info.attrs[0].compressed_bytes &&
              pw_cache_info_global(&table, "slim", -1) == -1,
          "table differs from stat");
    pw_cache_frame wide;
    static const char *const xname[] = {"x"};
    CHECK(pw_cache_read_f64(path2, xname, 1, &wide, &err) == PW_OK, "read_f64: %s", err.msg);
    if (wide.n_attrs == 1) {
        int exact = wide.attrs[0].type == PW_F64;
        for (size_t k = 0; k < 3 * np && exact; k++)
            exact = ((const double *)wide.attrs[0].data)[k] == (double)x[k];
        CHECK(exact, "float32 not widened exactly");
    }
    pw_cache_frame_free(&wide);
    free(x);
    free(xd);

    /* 10. the writer refuses NaN (naming attribute and particle) and bad descriptions */
    float bad[6] = {0, 1, 2, 3, NAN, 5};
    pw_cache_attr ba = {.name = "v", .type = PW_F32, .components = 3, .data = bad};
    pw_cache_frame bf = {.count = 2, .h = 0.01, .n_attrs = 1, .attrs = &ba};
    remove(POWDER_TEST_TMP "/nan.pwc");
    CHECK(pw_cache_write(POWDER_TEST_TMP "/nan.pwc", &bf, &err) == PW_ENUMERIC &&
              strstr(err.msg, "attribute 'v': particle 1"),
          "NaN refused: %s", err.msg);
    ba.components = 2;
    bad[4] = 4;
    CHECK(pw_cache_write(POWDER_TEST_TMP "/nan.pwc", &bf, &err) == PW_EINVAL &&
              strstr(err.msg, "components"),
          "components 2 refused: %s", err.msg);
    pw_cache_attr two[2] = {ba, ba};
    two[0].components = two[1].components = 1;
    bf.attrs = two;
    bf.n_attrs = 2;
    CHECK(pw_cache_write(POWDER_TEST_TMP "/nan.pwc", &bf, &err) == PW_EINVAL &&
              strstr(err.msg, "twice"),
          "duplicate name refused: %s", err.msg);
    FILE *fp = fopen(POWDER_TEST_TMP "/nan.pwc", "rb");
    CHECK(fp == NULL, "no file after refused writes");
    if (fp) fclose(fp);

    for (int a = 0; a < 9; a++) free(attrs[a].data);
    return check_done("cache_round_trip");
}
