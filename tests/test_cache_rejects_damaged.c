/* Property: a damaged cache file is refused with PW_EFORMAT and a message that begins
 * with the file's name, and never crashes or returns damaged data. Checked on a small
 * valid file (two attributes, two globals): the file cut at every byte offset, every
 * single-bit flip (CRC-32 detects all single-bit errors, so there is no tolerance: each
 * one must be refused), and numbered hand-made damages whose checksums were recomputed
 * so that the structural checks themselves are exercised: wrong magic, future major
 * version, absurd counts and sizes, overlapping or out-of-file offsets, a raw size that
 * disagrees with the count, trailing bytes, and a NaN hidden in well-formed data. Both
 * pw_cache_read_memory and pw_cache_stat_memory are held to this; truncation is also
 * checked through real files with pw_cache_read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cache_internal.h"
#include "check.h"
#include "pw_cache.h"
#include "pw_file.h"

#define NAME "dmg.pwc"

/* Both readers must refuse b with PW_EFORMAT, a message naming the file and, when
 * needle is given, containing it. Returns 1 if so. */
static int refused(const unsigned char *b, size_t n, const char *needle, const char *what)
{
    pw_cache_frame r;
    pw_cache_info info;
    pw_error e1 = {0}, e2 = {0};
    pw_status r1 = pw_cache_read_memory(NAME, b, n, NULL, 0, &r, &e1);
    pw_status r2 = pw_cache_stat_memory(NAME, b, n, &info, &e2);
    int ok = r1 == PW_EFORMAT && r2 == PW_EFORMAT && strncmp(e1.msg, NAME ": ", 9) == 0 &&
             strncmp(e2.msg, NAME ": ", 9) == 0 && r.attrs == NULL && r.n_attrs == 0;
    if (needle && (!strstr(e1.msg, needle) || !strstr(e2.msg, needle))) ok = 0;
    CHECK(ok, "%s: read %s '%s', stat %s '%s'%s%s", what, pw_status_name(r1), e1.msg,
          pw_status_name(r2), e2.msg, needle ? ", want " : "", needle ? needle : "");
    if (r1 == PW_OK) pw_cache_frame_free(&r);
    return ok;
}

static size_t meta_len(const unsigned char *b)
{
    return get_u32(b + OFF_HEADER_SIZE) +
           get_u32(b + OFF_N_GLOBALS) * get_u32(b + OFF_GLOBAL_SIZE) +
           get_u32(b + OFF_N_ATTRS) * get_u32(b + OFF_ENTRY_SIZE);
}

/* Recomputes the header checksum after a deliberate edit. */
static void reseal(unsigned char *b)
{
    size_t m = meta_len(b);
    put_u32(b + m, pw_cache_crc32(0, b, m));
}

static unsigned char *entry(unsigned char *b, int a)
{
    return b + get_u32(b + OFF_HEADER_SIZE) + get_u32(b + OFF_N_GLOBALS) * GLOBAL_SIZE_V1 +
           (size_t)a * ENTRY_SIZE_V1;
}

int main(void)
{
    pw_error err = {0};
    /* a small valid file */
    double x[3 * 4] = {0, 0.1, 0.2, 1, 1.1, 1.2, 2, 2.1, 2.2, 3, 3.1, 3.2}; /* [m] */
    uint32_t id[4] = {7, 8, 9, 10};
    pw_cache_attr at[2] = {{.name = "x", .type = PW_F64, .components = 3, .data = x},
                           {.name = "id", .type = PW_U32, .components = 1, .data = id}};
    pw_cache_frame f = {.count = 4, .time = 0.5, .h = 0.02, .frame = 12, .n_attrs = 2,
                        .attrs = at};
    pw_cache_global_set(&f, "dt", 1e-3, &err);
    pw_cache_global_set(&f, "seed", 5, &err);
    const char *path = POWDER_TEST_TMP "/damaged_src.pwc";
    CHECK(pw_cache_write(path, &f, &err) == PW_OK, "%s", err.msg);
    char *text = NULL;
    size_t n = 0;
    if (pw_read_file(path, 1 << 20, &text, &n, &err) != PW_OK) {
        CHECK(0, "%s", err.msg);
        return check_done("cache_rejects_damaged");
    }
    const unsigned char *good = (const unsigned char *)text;
    unsigned char *b = malloc(n + 64);
    pw_cache_frame r;
    CHECK(pw_cache_read_memory(NAME, good, n, NULL, 0, &r, &err) == PW_OK, "valid: %s", err.msg);
    pw_cache_frame_free(&r);
    printf("test file: %zu bytes\n", n);

    /* 1. truncated at every byte offset */
    int n_cut = 0;
    for (size_t cut = 0; cut < n; cut++) n_cut += refused(good, cut, NULL, "truncated");
    printf("1. truncations refused: %d of %zu\n", n_cut, n);

    /* 2. the same through real files, every 7th offset (file reads are slower) */
    const char *cutp = POWDER_TEST_TMP "/damaged_cut.pwc";
    for (size_t cut = 0; cut < n; cut += 7) {
        FILE *fp = fopen(cutp, "wb");
        fwrite(good, 1, cut, fp);
        fclose(fp);
        pw_status rc = pw_cache_read(cutp, NULL, 0, &r, &err);
        CHECK(rc == PW_EFORMAT && strstr(err.msg, "damaged_cut.pwc: "), "file cut at %zu: %s %s",
              cut, pw_status_name(rc), err.msg);
    }

    /* 3. every single-bit flip */
    int n_flip = 0;
    for (size_t bit = 0; bit < 8 * n; bit++) {
        memcpy(b, good, n);
        b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        n_flip += refused(b, n, NULL, "bit flip");
    }
    printf("3. bit flips refused: %d of %zu\n", n_flip, 8 * n);

    /* 4. wrong magic */
    memcpy(b, good, n);
    b[1] = 'X';
    refused(b, n, "byte 0: not a Powder cache", "wrong magic");
    /* 5. future major version (header resealed so only the version is wrong) */
    memcpy(b, good, n);
    put_u16(b + OFF_MAJOR, 2);
    reseal(b);
    refused(b, n, "format version 2.0, this reader reads 1.x only (written by a newer", "v2");
    /* 6. major version 0 */
    put_u16(b + OFF_MAJOR, 0);
    reseal(b);
    refused(b, n, "format version 0.0", "v0");
    /* 7. absurd particle count (2^40), resealed */
    memcpy(b, good, n);
    put_u64(b + OFF_COUNT, (uint64_t)1 << 40);
    reseal(b);
    refused(b, n, "absurd particle count (1099511627776)", "count 2^40");
    /* 8. a count that disagrees with the raw sizes */
    memcpy(b, good, n);
    put_u64(b + OFF_COUNT, 5);
    reseal(b);
    refused(b, n, "attribute 'x': raw size 96, but 5 x 3 x 8 B = 120", "count 5");
    /* 9. absurd attribute and global counts */
    memcpy(b, good, n);
    put_u32(b + OFF_N_ATTRS, 100000);
    refused(b, n, "too many attributes (100000", "n_attrs");
    memcpy(b, good, n);
    put_u32(b + OFF_N_GLOBALS, 33);
    refused(b, n, "too many globals (33", "n_globals");
    /* 10. absurd raw size from a tiny compressed size (count raised to match) */
    memcpy(b, good, n);
    put_u64(b + OFF_COUNT, (uint64_t)1 << 32);
    put_u64(entry(b, 0) + AOFF_RSIZE, ((uint64_t)1 << 32) * 24);
    put_u64(entry(b, 1) + AOFF_RSIZE, ((uint64_t)1 << 32) * 4);
    reseal(b);
    refused(b, n, "attribute 'x': absurd sizes (103079215104 raw", "ratio");
    /* 11. overlapping attributes */
    memcpy(b, good, n);
    put_u64(entry(b, 1) + AOFF_OFFSET, get_u64(entry(b, 0) + AOFF_OFFSET) + 1);
    reseal(b);
    refused(b, n, "attribute 'id': bytes", "overlap");
    refused(b, n, "overlap attribute 'x'", "overlap");
    /* 12. an attribute inside the header, and one past the end */
    memcpy(b, good, n);
    put_u64(entry(b, 0) + AOFF_OFFSET, 8);
    reseal(b);
    refused(b, n, "attribute 'x': bytes 8..", "offset in header");
    memcpy(b, good, n);
    put_u64(entry(b, 1) + AOFF_CSIZE, UINT64_MAX - 3);
    reseal(b);
    refused(b, n, "outside the data", "size past end (overflowing)");
    /* 13. trailing bytes after the declared end */
    memcpy(b, good, n);
    memset(b + n, 0, 16);
    refused(b, n + 16, "16 bytes after the declared end", "trailing bytes");
    /* 14. bad names: empty, unterminated, duplicate */
    memcpy(b, good, n);
    memset(entry(b, 1), 0, 32);
    reseal(b);
    refused(b, n, "attribute 1 has a bad name", "empty name");
    memcpy(b, good, n);
    memset(entry(b, 1), 'a', 32);
    reseal(b);
    refused(b, n, "attribute 1 has a bad name", "unterminated name");
    memcpy(b, good, n);
    memcpy(entry(b, 1), "x\0", 2);
    reseal(b);
    refused(b, n, "attribute 'x' appears twice", "duplicate name");
    /* 15. a non-finite global and time */
    memcpy(b, good, n);
    put_f64(b + HEADER_SIZE_V1 + GOFF_VALUE, NAN);
    reseal(b);
    refused(b, n, "global 'dt' is not finite", "NaN global");
    memcpy(b, good, n);
    put_f64(b + OFF_TIME, INFINITY);
    reseal(b);
    refused(b, n, "non-finite time", "inf time");
    /* 16. header checksum alone damaged */
    memcpy(b, good, n);
    b[meta_len(b)] ^= 0x80;
    refused(b, n, "header checksum mismatch", "meta crc");
    /* 17. a NaN inside correctly compressed and checksummed data: x[1] := NaN, the
     * attribute re-encoded exactly as the writer does and spliced in */
    {
        double xn[12];
        memcpy(xn, x, sizeof xn);
        xn[4] = NAN;
        unsigned char sh[96], z[256];
        pw_cache_shuffle(sh, (const unsigned char *)xn, 12, 8);
        ZSTD_CCtx *cc = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
        size_t zn = ZSTD_compress2(cc, z, sizeof z, sh, sizeof sh);
        ZSTD_freeCCtx(cc);
        unsigned char *e0 = NULL;
        memcpy(b, good, n);
        e0 = entry(b, 0);
        size_t off0 = get_u64(e0 + AOFF_OFFSET), c0 = get_u64(e0 + AOFF_CSIZE);
        size_t off1 = get_u64(entry(b, 1) + AOFF_OFFSET), c1 = get_u64(entry(b, 1) + AOFF_CSIZE);
        CHECK(!ZSTD_isError(zn) && off1 == off0 + c0 && off1 + c1 == n, "layout as written");
        unsigned char *nb = malloc(off0 + zn + c1);
        memcpy(nb, b, off0);
        memcpy(nb + off0, z, zn);
        memcpy(nb + off0 + zn, good + off1, c1);
        e0 = entry(nb, 0);
        put_u64(e0 + AOFF_CSIZE, zn);
        put_u32(e0 + AOFF_CRC, pw_cache_crc32(0, z, zn));
        put_u64(entry(nb, 1) + AOFF_OFFSET, off0 + zn);
        put_u64(nb + OFF_FILE_SIZE, off0 + zn + c1);
        reseal(nb);
        pw_status rc = pw_cache_read_memory(NAME, nb, off0 + zn + c1, NULL, 0, &r, &err);
        CHECK(rc == PW_EFORMAT && strstr(err.msg, "dmg.pwc: attribute 'x': particle 1: non-finite"),
              "hidden NaN: %s %s", pw_status_name(rc), err.msg);
        free(nb);
    }
    /* 18. an empty buffer and a missing file */
    refused(good, 0, "too short", "empty");
    CHECK(pw_cache_read(POWDER_TEST_TMP "/none.pwc", NULL, 0, &r, &err) == PW_ENOENT &&
              strstr(err.msg, "none.pwc: cannot open"),
          "missing file: %s", err.msg);

    free(b);
    free(text);
    return check_done("cache_rejects_damaged");
}
