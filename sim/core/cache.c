/* cache.c — frame cache writer and frame helpers; see pw_cache.h for the API and
 * cache_internal.h for the byte layout. The reader is cache_read.c. */
#include "pw_cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "cache_internal.h"
#include "pw_file.h"

/* ---- checksums ------------------------------------------------------------- */

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320, init and final xor 0xFFFFFFFF): zlib's
 * crc32, which chains the same way: crc = pw_cache_crc32(pw_cache_crc32(0, a), b).
 * crc32_z takes a size_t length, so no chunking is needed for large attributes. */
uint32_t pw_cache_crc32(uint32_t crc, const void *data, size_t n)
{
    return (uint32_t)crc32_z(crc, data, n);
}

static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ---- byte shuffle ---------------------------------------------------------- */

/* dst gets byte k (in little-endian significance) of every value, for k = 0..size-1:
 * the exponent bytes of smooth float data line up and compress far better. */
void pw_cache_shuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t size)
{
    int le = host_is_little_endian();
    for (size_t k = 0; k < size; k++) {
        size_t bk = le ? k : size - 1 - k;
        unsigned char *d = dst + k * n;
        for (size_t i = 0; i < n; i++) d[i] = src[i * size + bk];
    }
}

/* Inverse of shuffle; with shuffled == 0 the source holds plain little-endian values. */
void pw_cache_unshuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t size,
                      int shuffled)
{
    int le = host_is_little_endian();
    for (size_t k = 0; k < size; k++) {
        size_t bk = le ? k : size - 1 - k;
        for (size_t i = 0; i < n; i++)
            dst[i * size + bk] = shuffled ? src[k * n + i] : src[i * size + k];
    }
}

/* ---- names ----------------------------------------------------------------- */

/* 1 when a 32-byte name field holds a non-empty printable ASCII name and a NUL. */
int pw_cache_name_ok(const char name[32])
{
    size_t n = strnlen(name, 32);
    if (n == 0 || n == 32) return 0;
    for (size_t k = 0; k < n; k++)
        if (name[k] < 0x20 || name[k] > 0x7e) return 0;
    return 1;
}

/* ---- writer ---------------------------------------------------------------- */

static pw_status check_frame(const char *path, const pw_cache_frame *f, pw_error *err)
{
    if (f->count > PW_CACHE_MAX_COUNT)
        return pw_fail(err, PW_EINVAL, "%s: particle count too large (%llu)", path,
                       (unsigned long long)f->count);
    if (!isfinite(f->time) || !isfinite(f->h) || f->h < 0)
        return pw_fail(err, PW_ENUMERIC, "%s: bad time or grid spacing (t %g s, h %g m)", path,
                       f->time, f->h);
    if (f->n_globals < 0 || f->n_globals > PW_CACHE_MAX_GLOBALS)
        return pw_fail(err, PW_EINVAL, "%s: bad global count (%d)", path, f->n_globals);
    if (f->n_attrs < 0 || f->n_attrs > PW_CACHE_MAX_ATTRS || (f->n_attrs && !f->attrs))
        return pw_fail(err, PW_EINVAL, "%s: bad attribute count (%d)", path, f->n_attrs);
    for (int g = 0; g < f->n_globals; g++) {
        const pw_cache_global *gl = &f->globals[g];
        if (!pw_cache_name_ok(gl->name))
            return pw_fail(err, PW_EINVAL, "%s: global %d: bad name", path, g);
        if (!isfinite(gl->value))
            return pw_fail(err, PW_ENUMERIC, "%s: global '%s': not finite (%g)", path, gl->name,
                           gl->value);
        for (int o = 0; o < g; o++)
            if (strcmp(f->globals[o].name, gl->name) == 0)
                return pw_fail(err, PW_EINVAL, "%s: global '%s' appears twice", path, gl->name);
    }
    for (int a = 0; a < f->n_attrs; a++) {
        const pw_cache_attr *at = &f->attrs[a];
        if (!pw_cache_name_ok(at->name))
            return pw_fail(err, PW_EINVAL, "%s: attribute %d: bad name", path, a);
        if (pw_scalar_size(at->type) == 0)
            return pw_fail(err, PW_EINVAL, "%s: attribute '%s': unknown type (%d)", path,
                           at->name, (int)at->type);
        if (at->components != 1 && at->components != 3 && at->components != 9)
            return pw_fail(err, PW_EINVAL, "%s: attribute '%s': components must be 1, 3 or 9 (%u)",
                           path, at->name, at->components);
        if (f->count && !at->data)
            return pw_fail(err, PW_EINVAL, "%s: attribute '%s': no data", path, at->name);
        for (int o = 0; o < a; o++)
            if (strcmp(f->attrs[o].name, at->name) == 0)
                return pw_fail(err, PW_EINVAL, "%s: attribute '%s' appears twice", path, at->name);
        size_t n = (size_t)f->count * at->components;
        for (size_t i = 0; i < n && at->type != PW_U32; i++) {
            double x = at->type == PW_F64 ? ((const double *)at->data)[i]
                                          : ((const float *)at->data)[i];
            if (!isfinite(x))
                return pw_fail(err, PW_ENUMERIC,
                               "%s: attribute '%s': particle %zu: not finite (%g)", path,
                               at->name, i / at->components, x);
        }
    }
    return PW_OK;
}

/* Header, globals and table with the final offsets, sizes and checksums. */
static void encode_meta(unsigned char *b, size_t meta_len, const pw_cache_frame *f,
                        const uint64_t *off, const uint64_t *csize, const uint32_t *crc,
                        uint64_t file_size)
{
    memset(b, 0, meta_len + 4);
    memcpy(b + OFF_MAGIC, cache_magic, sizeof cache_magic);
    put_u16(b + OFF_MAJOR, PW_CACHE_VERSION_MAJOR);
    put_u16(b + OFF_MINOR, PW_CACHE_VERSION_MINOR);
    put_u32(b + OFF_HEADER_SIZE, HEADER_SIZE_V1);
    put_u32(b + OFF_GLOBAL_SIZE, GLOBAL_SIZE_V1);
    put_u32(b + OFF_ENTRY_SIZE, ENTRY_SIZE_V1);
    put_u32(b + OFF_N_GLOBALS, (uint32_t)f->n_globals);
    put_u32(b + OFF_N_ATTRS, (uint32_t)f->n_attrs);
    put_u64(b + OFF_FILE_SIZE, file_size);
    put_u64(b + OFF_COUNT, f->count);
    put_f64(b + OFF_TIME, f->time);
    put_f64(b + OFF_H, f->h);
    put_u64(b + OFF_FRAME, (uint64_t)f->frame);
    put_u64(b + OFF_STEP, f->step);
    put_u64(b + OFF_SIM_HASH, f->sim_hash);
    unsigned char *p = b + HEADER_SIZE_V1;
    for (int g = 0; g < f->n_globals; g++, p += GLOBAL_SIZE_V1) {
        /* strncpy pads with NULs, so no stray bytes reach the file */
        strncpy((char *)p + GOFF_NAME, f->globals[g].name, 32);
        put_f64(p + GOFF_VALUE, f->globals[g].value);
    }
    for (int a = 0; a < f->n_attrs; a++, p += ENTRY_SIZE_V1) {
        const pw_cache_attr *at = &f->attrs[a];
        strncpy((char *)p + AOFF_NAME, at->name, 32);
        put_u32(p + AOFF_TYPE, (uint32_t)at->type);
        put_u32(p + AOFF_COMPONENTS, at->components);
        put_u32(p + AOFF_FLAGS, ATTR_SHUFFLED);
        put_u32(p + AOFF_CRC, crc[a]);
        put_u64(p + AOFF_OFFSET, off[a]);
        put_u64(p + AOFF_CSIZE, csize[a]);
        put_u64(p + AOFF_RSIZE, f->count * at->components * pw_scalar_size(at->type));
    }
    put_u32(b + meta_len, pw_cache_crc32(0, b, meta_len));
}

/* Shuffles, compresses and appends each attribute; fills off/csize/crc. */
static pw_status write_data(pw_atomic_file *af, const pw_cache_frame *f, int level,
                            uint64_t start, uint64_t *off, uint64_t *csize, uint32_t *crc,
                            uint64_t *end, pw_error *err)
{
    size_t max_raw = 0;
    for (int a = 0; a < f->n_attrs; a++) {
        uint64_t r = f->count * f->attrs[a].components * pw_scalar_size(f->attrs[a].type);
        if (r > SIZE_MAX / 2)
            return pw_fail(err, PW_ENOMEM, "%s: attribute '%s' too large", af->path,
                           f->attrs[a].name);
        if (r > max_raw) max_raw = (size_t)r;
    }
    size_t cap = ZSTD_compressBound(max_raw);
    unsigned char *raw = malloc(max_raw ? max_raw : 1), *c = malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    pw_status rc = PW_OK;
    if (!raw || !c || !cctx) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", af->path);
    if (rc == PW_OK) {
        size_t z = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
        if (!ZSTD_isError(z)) z = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
        if (!ZSTD_isError(z)) z = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
        if (ZSTD_isError(z))
            rc = pw_fail(err, PW_EINVAL, "%s: zstd level %d: %s", af->path, level,
                         ZSTD_getErrorName(z));
    }
    uint64_t pos = start;
    for (int a = 0; a < f->n_attrs && rc == PW_OK; a++) {
        const pw_cache_attr *at = &f->attrs[a];
        size_t ts = pw_scalar_size(at->type), n = (size_t)f->count * at->components;
        if (n) pw_cache_shuffle(raw, at->data, n, ts);
        size_t got = ZSTD_compress2(cctx, c, cap, raw, n * ts);
        if (ZSTD_isError(got)) {
            rc = pw_fail(err, PW_EIO, "%s: attribute '%s': zstd: %s", af->path, at->name,
                         ZSTD_getErrorName(got));
            break;
        }
        off[a] = pos;
        csize[a] = got;
        crc[a] = pw_cache_crc32(0, c, got);
        rc = pw_atomic_write(af, c, got, err);
        pos += got;
    }
    *end = pos;
    ZSTD_freeCCtx(cctx);
    free(raw);
    free(c);
    return rc;
}

/* ---- public functions ------------------------------------------------------ */

size_t pw_scalar_size(pw_scalar_type type)
{
    switch (type) {
    case PW_F32: return 4;
    case PW_F64: return 8;
    case PW_U32: return 4;
    }
    return 0;
}

pw_status pw_cache_write_level(const char *path, const pw_cache_frame *f, int level,
                               pw_error *err)
{
    if (level == 0) level = DEFAULT_LEVEL;
    if (level < 1 || level > ZSTD_maxCLevel())
        return pw_fail(err, PW_EINVAL, "%s: zstd level out of range (%d)", path, level);
    pw_status rc = check_frame(path, f, err);
    if (rc != PW_OK) return rc;
    size_t meta_len = HEADER_SIZE_V1 + (size_t)f->n_globals * GLOBAL_SIZE_V1 +
                      (size_t)f->n_attrs * ENTRY_SIZE_V1;
    unsigned char *b = calloc(meta_len + 4, 1);
    uint64_t *off = calloc((size_t)f->n_attrs + 1, sizeof *off);
    uint64_t *csize = calloc((size_t)f->n_attrs + 1, sizeof *csize);
    uint32_t *crc = calloc((size_t)f->n_attrs + 1, sizeof *crc);
    pw_atomic_file af;
    int begun = 0;
    uint64_t end = 0;
    if (!b || !off || !csize || !crc) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", path);
    /* the table goes first but is known last: reserve it, write the data, go back */
    if (rc == PW_OK && (rc = pw_atomic_begin(&af, path, err)) == PW_OK) begun = 1;
    if (rc == PW_OK) rc = pw_atomic_write(&af, b, meta_len + 4, err);
    if (rc == PW_OK) rc = write_data(&af, f, level, meta_len + 4, off, csize, crc, &end, err);
    if (rc == PW_OK) {
        encode_meta(b, meta_len, f, off, csize, crc, end);
        if (fseeko(af.fp, 0, SEEK_SET) != 0)
            rc = pw_fail(err, PW_EIO, "%s: seek failed (%s)", af.tmp_path, strerror(errno));
    }
    if (rc == PW_OK) rc = pw_atomic_write(&af, b, meta_len + 4, err);
    if (rc == PW_OK) {
        begun = 0;
        rc = pw_atomic_commit(&af, err);
    }
    if (begun) pw_atomic_abort(&af);
    free(b);
    free(off);
    free(csize);
    free(crc);
    return rc;
}

pw_status pw_cache_write(const char *path, const pw_cache_frame *f, pw_error *err)
{
    return pw_cache_write_level(path, f, DEFAULT_LEVEL, err);
}

void pw_cache_frame_free(pw_cache_frame *f)
{
    if (!f) return;
    for (int a = 0; a < f->n_attrs && f->attrs; a++) free(f->attrs[a].data);
    free(f->attrs);
    memset(f, 0, sizeof *f);
}

const pw_cache_attr *pw_cache_find(const pw_cache_frame *f, const char *name)
{
    for (int a = 0; a < f->n_attrs; a++)
        if (strncmp(f->attrs[a].name, name, sizeof f->attrs[a].name) == 0) return &f->attrs[a];
    return NULL;
}

double pw_cache_global_get(const pw_cache_frame *f, const char *name, double fallback)
{
    for (int g = 0; g < f->n_globals && g < PW_CACHE_MAX_GLOBALS; g++)
        if (strncmp(f->globals[g].name, name, sizeof f->globals[g].name) == 0)
            return f->globals[g].value;
    return fallback;
}

pw_status pw_cache_global_set(pw_cache_frame *f, const char *name, double value, pw_error *err)
{
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof f->globals[0].name)
        return pw_fail(err, PW_EINVAL, "cache global '%s': name must be 1..31 characters", name);
    for (int g = 0; g < f->n_globals; g++)
        if (strcmp(f->globals[g].name, name) == 0) {
            f->globals[g].value = value;
            return PW_OK;
        }
    if (f->n_globals >= PW_CACHE_MAX_GLOBALS)
        return pw_fail(err, PW_EINVAL, "cache global '%s': table full (%d)", name,
                       PW_CACHE_MAX_GLOBALS);
    pw_cache_global *gl = &f->globals[f->n_globals++];
    memset(gl->name, 0, sizeof gl->name);
    memcpy(gl->name, name, n);
    gl->value = value;
    return PW_OK;
}
