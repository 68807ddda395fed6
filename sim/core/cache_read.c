/* cache_read.c — frame cache reader; see pw_cache.h for the API and cache_internal.h
 * for the byte layout.
 *
 * The reader trusts nothing it has not checked: the header's sizes and counts are
 * bounded before they are used to size a read, the header and table are checked
 * against their CRC before any field is believed, every attribute's extent is checked
 * against the file and the other attributes, and an attribute's compressed bytes are
 * checked against their CRC and their zstd frame header before anything is allocated
 * for the decompressed data. */
#include "pw_cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "cache_internal.h"

/* ---- types ----------------------------------------------------------------- */

/* Where a reader's bytes come from: an open file or a memory image. */
typedef struct {
    const char *name;
    FILE *fp;
    const unsigned char *mem;
    uint64_t size; /* [B] */
} source;

typedef struct {
    pw_cache_info info;
    uint32_t crc[PW_CACHE_MAX_ATTRS];
    uint64_t data_start;
} meta;

/* ---- source ---------------------------------------------------------------- */

static pw_status src_read(const source *s, uint64_t off, void *buf, size_t n, pw_error *err)
{
    if (off > s->size || n > s->size - off)
        return pw_fail(err, PW_EFORMAT, "%s: byte %llu: read of %zu bytes past the end (%llu)",
                       s->name, (unsigned long long)off, n, (unsigned long long)s->size);
    if (s->mem) {
        memcpy(buf, s->mem + off, n);
        return PW_OK;
    }
    if (fseeko(s->fp, (off_t)off, SEEK_SET) != 0 || fread(buf, 1, n, s->fp) != n)
        return pw_fail(err, PW_EIO, "%s: byte %llu: read failed (%s)", s->name,
                       (unsigned long long)off, ferror(s->fp) ? strerror(errno) : "short read");
    return PW_OK;
}

/* ---- reader: header and table ---------------------------------------------- */

static pw_status parse_header(const source *s, const unsigned char *b, meta *m, pw_error *err)
{
    pw_cache_info *in = &m->info;
    uint32_t header_size = get_u32(b + OFF_HEADER_SIZE), global_size = get_u32(b + OFF_GLOBAL_SIZE),
             entry_size = get_u32(b + OFF_ENTRY_SIZE);
    uint32_t n_globals = get_u32(b + OFF_N_GLOBALS), n_attrs = get_u32(b + OFF_N_ATTRS);
    in->file_size = get_u64(b + OFF_FILE_SIZE);
    /* sizes and counts first: they decide how much more is read */
    if (header_size < HEADER_SIZE_V1 || header_size > MAX_STRUCT_SIZE)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: bad header size (%u)", s->name,
                       OFF_HEADER_SIZE, header_size);
    if (global_size < GLOBAL_SIZE_V1 || global_size > MAX_STRUCT_SIZE)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: bad global entry size (%u)", s->name,
                       OFF_GLOBAL_SIZE, global_size);
    if (entry_size < ENTRY_SIZE_V1 || entry_size > MAX_STRUCT_SIZE)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: bad attribute entry size (%u)", s->name,
                       OFF_ENTRY_SIZE, entry_size);
    if (n_globals > PW_CACHE_MAX_GLOBALS)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: too many globals (%u, limit %d)", s->name,
                       OFF_N_GLOBALS, n_globals, PW_CACHE_MAX_GLOBALS);
    if (n_attrs > PW_CACHE_MAX_ATTRS)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: too many attributes (%u, limit %d)",
                       s->name, OFF_N_ATTRS, n_attrs, PW_CACHE_MAX_ATTRS);
    if (in->file_size > s->size)
        return pw_fail(err, PW_EFORMAT, "%s: truncated (%llu bytes, header says %llu)", s->name,
                       (unsigned long long)s->size, (unsigned long long)in->file_size);
    if (in->file_size < s->size)
        return pw_fail(err, PW_EFORMAT, "%s: %llu bytes after the declared end (%llu)", s->name,
                       (unsigned long long)(s->size - in->file_size),
                       (unsigned long long)in->file_size);
    uint64_t meta_end = header_size + (uint64_t)n_globals * global_size +
                        (uint64_t)n_attrs * entry_size;
    if (meta_end + 4 > in->file_size)
        return pw_fail(err, PW_EFORMAT, "%s: table ends at byte %llu, past the end (%llu)",
                       s->name, (unsigned long long)(meta_end + 4),
                       (unsigned long long)in->file_size);
    in->n_globals = (int)n_globals;
    in->n_attrs = (int)n_attrs;
    m->data_start = meta_end + 4;
    in->count = get_u64(b + OFF_COUNT);
    in->time = get_f64(b + OFF_TIME);
    in->h = get_f64(b + OFF_H);
    in->frame = (int64_t)get_u64(b + OFF_FRAME);
    in->step = get_u64(b + OFF_STEP);
    in->sim_hash = get_u64(b + OFF_SIM_HASH);
    return PW_OK;
}

/* Values the checksum cannot vouch for: a writer that was given them was wrong. */
static pw_status check_header_values(const source *s, const meta *m, pw_error *err)
{
    const pw_cache_info *in = &m->info;
    if (in->count > PW_CACHE_MAX_COUNT)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: absurd particle count (%llu)", s->name,
                       OFF_COUNT, (unsigned long long)in->count);
    if (!isfinite(in->time))
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: non-finite time (%g)", s->name, OFF_TIME,
                       in->time);
    if (!isfinite(in->h) || in->h < 0)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: bad grid spacing (%g)", s->name, OFF_H,
                       in->h);
    return PW_OK;
}

static pw_status parse_globals(const source *s, const unsigned char *b, uint64_t pos,
                               uint32_t global_size, meta *m, pw_error *err)
{
    pw_cache_info *in = &m->info;
    for (int g = 0; g < in->n_globals; g++, pos += global_size) {
        pw_cache_global *gl = &in->globals[g];
        memcpy(gl->name, b + pos + GOFF_NAME, 32);
        gl->value = get_f64(b + pos + GOFF_VALUE);
        if (!pw_cache_name_ok(gl->name))
            return pw_fail(err, PW_EFORMAT, "%s: byte %llu: global %d has a bad name", s->name,
                           (unsigned long long)pos, g);
        if (!isfinite(gl->value))
            return pw_fail(err, PW_EFORMAT, "%s: byte %llu: global '%s' is not finite (%g)",
                           s->name, (unsigned long long)pos, gl->name, gl->value);
        for (int o = 0; o < g; o++)
            if (strcmp(in->globals[o].name, gl->name) == 0)
                return pw_fail(err, PW_EFORMAT, "%s: byte %llu: global '%s' appears twice",
                               s->name, (unsigned long long)pos, gl->name);
    }
    return PW_OK;
}

/* One table entry: its own fields, then its extent against the file. */
static pw_status parse_entry(const source *s, const unsigned char *e, uint64_t pos, int a,
                             meta *m, pw_error *err)
{
    pw_cache_info *in = &m->info;
    pw_cache_attr_info *at = &in->attrs[a];
    memcpy(at->name, e + AOFF_NAME, 32);
    if (!pw_cache_name_ok(at->name))
        return pw_fail(err, PW_EFORMAT, "%s: byte %llu: attribute %d has a bad name", s->name,
                       (unsigned long long)pos, a);
    at->type = (pw_scalar_type)get_u32(e + AOFF_TYPE);
    at->components = get_u32(e + AOFF_COMPONENTS);
    at->flags = get_u32(e + AOFF_FLAGS);
    m->crc[a] = get_u32(e + AOFF_CRC);
    at->offset = get_u64(e + AOFF_OFFSET);
    at->compressed_bytes = get_u64(e + AOFF_CSIZE);
    at->raw_bytes = get_u64(e + AOFF_RSIZE);
    if (at->offset < m->data_start || at->offset > in->file_size ||
        at->compressed_bytes > in->file_size - at->offset)
        return pw_fail(err, PW_EFORMAT,
                       "%s: attribute '%s': bytes %llu..%llu outside the data (%llu..%llu)",
                       s->name, at->name, (unsigned long long)at->offset,
                       (unsigned long long)(at->offset + at->compressed_bytes),
                       (unsigned long long)m->data_start, (unsigned long long)in->file_size);
    /* written as a division: the product could overflow */
    if (at->compressed_bytes == 0 ||
        (at->raw_bytes > RATIO_SLACK &&
         (at->raw_bytes - RATIO_SLACK) / MAX_RATIO > at->compressed_bytes))
        return pw_fail(err, PW_EFORMAT,
                       "%s: attribute '%s': absurd sizes (%llu raw from %llu compressed)",
                       s->name, at->name, (unsigned long long)at->raw_bytes,
                       (unsigned long long)at->compressed_bytes);
    for (int o = 0; o < a; o++) {
        const pw_cache_attr_info *ot = &in->attrs[o];
        if (strcmp(ot->name, at->name) == 0)
            return pw_fail(err, PW_EFORMAT, "%s: byte %llu: attribute '%s' appears twice",
                           s->name, (unsigned long long)pos, at->name);
        if (at->offset < ot->offset + ot->compressed_bytes &&
            ot->offset < at->offset + at->compressed_bytes)
            return pw_fail(err, PW_EFORMAT,
                           "%s: attribute '%s': bytes %llu..%llu overlap attribute '%s'",
                           s->name, at->name, (unsigned long long)at->offset,
                           (unsigned long long)(at->offset + at->compressed_bytes), ot->name);
    }
    return PW_OK;
}

/* Reads and checks the header, globals and table (not the data). */
static pw_status read_meta(const source *s, meta *m, pw_error *err)
{
    memset(m, 0, sizeof *m);
    unsigned char head[HEADER_SIZE_V1];
    if (s->size < sizeof cache_magic)
        return pw_fail(err, PW_EFORMAT, "%s: too short for a cache (%llu bytes)", s->name,
                       (unsigned long long)s->size);
    pw_status rc = src_read(s, 0, head, sizeof cache_magic, err);
    if (rc != PW_OK) return rc;
    if (memcmp(head, cache_magic, sizeof cache_magic) != 0)
        return pw_fail(err, PW_EFORMAT, "%s: byte 0: not a Powder cache (bad magic)", s->name);
    if (s->size < HEADER_SIZE_V1)
        return pw_fail(err, PW_EFORMAT, "%s: truncated header (%llu bytes, need %d)", s->name,
                       (unsigned long long)s->size, HEADER_SIZE_V1);
    if ((rc = src_read(s, 0, head, HEADER_SIZE_V1, err)) != PW_OK) return rc;
    m->info.version_major = get_u16(head + OFF_MAJOR);
    m->info.version_minor = get_u16(head + OFF_MINOR);
    if (m->info.version_major != PW_CACHE_VERSION_MAJOR)
        return pw_fail(err, PW_EFORMAT, "%s: byte %d: format version %u.%u, this reader reads %s",
                       s->name, OFF_MAJOR, m->info.version_major, m->info.version_minor,
                       m->info.version_major > PW_CACHE_VERSION_MAJOR
                           ? "1.x only (written by a newer Powder)"
                           : "1.x only");
    if ((rc = parse_header(s, head, m, err)) != PW_OK) return rc;

    /* the whole meta block, then its checksum, before believing any other field */
    size_t meta_len = (size_t)(m->data_start - 4);
    unsigned char *b = malloc(meta_len + 4);
    if (!b) return pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu-byte table)", s->name, meta_len);
    if ((rc = src_read(s, 0, b, meta_len + 4, err)) != PW_OK) goto done;
    uint32_t stored = get_u32(b + meta_len), computed = pw_cache_crc32(0, b, meta_len);
    if (stored != computed) {
        rc = pw_fail(err, PW_EFORMAT,
                     "%s: byte %zu: header checksum mismatch (stored 0x%08x, computed 0x%08x)",
                     s->name, meta_len, stored, computed);
        goto done;
    }
    if ((rc = check_header_values(s, m, err)) != PW_OK) goto done;
    uint32_t header_size = get_u32(b + OFF_HEADER_SIZE), global_size = get_u32(b + OFF_GLOBAL_SIZE),
             entry_size = get_u32(b + OFF_ENTRY_SIZE);
    if ((rc = parse_globals(s, b, header_size, global_size, m, err)) != PW_OK) goto done;
    uint64_t pos = header_size + (uint64_t)m->info.n_globals * global_size;
    for (int a = 0; a < m->info.n_attrs && rc == PW_OK; a++, pos += entry_size)
        rc = parse_entry(s, b + pos, pos, a, m, err);
done:
    free(b);
    return rc;
}

/* ---- reader: attribute data ------------------------------------------------ */

/* Type, shape and encoding of an attribute about to be decoded. Not checked for
 * attributes that are skipped, so a newer minor version can add types and encodings
 * that older readers pass over. */
static pw_status check_decodable(const source *s, const pw_cache_info *in,
                                 const pw_cache_attr_info *at, pw_error *err)
{
    size_t ts = pw_scalar_size(at->type);
    if (ts == 0)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s': unknown type (%u)", s->name,
                       at->name, (unsigned)at->type);
    if (at->components != 1 && at->components != 3 && at->components != 9)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s': bad component count (%u)",
                       s->name, at->name, at->components);
    if (at->flags & ~ATTR_KNOWN_FLAGS)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s': unknown encoding flags (0x%x)",
                       s->name, at->name, at->flags);
    /* count <= 2^32 was checked, so this product is below 2^39 */
    uint64_t want = in->count * at->components * ts;
    if (at->raw_bytes != want)
        return pw_fail(err, PW_EFORMAT,
                       "%s: attribute '%s': raw size %llu, but %llu x %u x %zu B = %llu",
                       s->name, at->name, (unsigned long long)at->raw_bytes,
                       (unsigned long long)in->count, at->components, ts,
                       (unsigned long long)want);
    return PW_OK;
}

/* The zstd frame header must promise exactly the raw size; when c holds the whole
 * attribute (whole != 0), it must also be exactly one frame. */
static pw_status check_frame_header(const source *s, const pw_cache_attr_info *at,
                                    const void *c, size_t csize, int whole, pw_error *err)
{
    unsigned long long fcs = ZSTD_getFrameContentSize(c, csize);
    if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s': byte %llu: not a sized zstd frame",
                       s->name, at->name, (unsigned long long)at->offset);
    if (fcs != at->raw_bytes)
        return pw_fail(err, PW_EFORMAT,
                       "%s: attribute '%s': zstd frame holds %llu bytes, table says %llu",
                       s->name, at->name, fcs, (unsigned long long)at->raw_bytes);
    if (!whole) return PW_OK;
    size_t fsize = ZSTD_findFrameCompressedSize(c, csize);
    if (ZSTD_isError(fsize) || fsize != csize)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s': zstd frame length %s (table: %zu)",
                       s->name, at->name,
                       ZSTD_isError(fsize) ? ZSTD_getErrorName(fsize) : "differs", csize);
    return PW_OK;
}

static pw_status check_crc(const source *s, const pw_cache_attr_info *at, uint32_t stored,
                           uint32_t computed, pw_error *err)
{
    if (stored == computed) return PW_OK;
    return pw_fail(err, PW_EFORMAT,
                   "%s: attribute '%s': bytes %llu..%llu: checksum mismatch (stored 0x%08x, "
                   "computed 0x%08x)",
                   s->name, at->name, (unsigned long long)at->offset,
                   (unsigned long long)(at->offset + at->compressed_bytes), stored, computed);
}

/* Reads, verifies and decodes attribute a of m into a new array (*data, NULL when the
 * attribute is empty). */
static pw_status read_attr(const source *s, const meta *m, int a, ZSTD_DCtx *dctx, void **data,
                           pw_error *err)
{
    const pw_cache_attr_info *at = &m->info.attrs[a];
    *data = NULL;
    pw_status rc = check_decodable(s, &m->info, at, err);
    if (rc != PW_OK) return rc;
    if (at->raw_bytes > SIZE_MAX || at->compressed_bytes > SIZE_MAX)
        return pw_fail(err, PW_ENOMEM, "%s: attribute '%s': too large for this machine",
                       s->name, at->name);
    size_t csize = (size_t)at->compressed_bytes, rsize = (size_t)at->raw_bytes;
    unsigned char *c = malloc(csize), *raw = NULL, *out = NULL;
    if (!c) return pw_fail(err, PW_ENOMEM, "%s: attribute '%s': out of memory", s->name, at->name);
    if ((rc = src_read(s, at->offset, c, csize, err)) != PW_OK) goto done;
    if ((rc = check_crc(s, at, m->crc[a], pw_cache_crc32(0, c, csize), err)) != PW_OK) goto done;
    if ((rc = check_frame_header(s, at, c, csize, 1, err)) != PW_OK) goto done;
    if (rsize == 0) goto done;
    raw = malloc(rsize);
    out = malloc(rsize);
    if (!raw || !out) {
        rc = pw_fail(err, PW_ENOMEM, "%s: attribute '%s': out of memory (%zu bytes)", s->name,
                     at->name, rsize);
        goto done;
    }
    size_t got = ZSTD_decompressDCtx(dctx, raw, rsize, c, csize);
    if (ZSTD_isError(got) || got != rsize) {
        rc = pw_fail(err, PW_EFORMAT, "%s: attribute '%s': zstd: %s", s->name, at->name,
                     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
        goto done;
    }
    size_t ts = pw_scalar_size(at->type), n = rsize / ts;
    pw_cache_unshuffle(out, raw, n, ts, (at->flags & ATTR_SHUFFLED) != 0);
    /* NaN never reaches the renderer or a resumed solver, even from a hand-made file */
    for (size_t i = 0; i < n && at->type != PW_U32; i++) {
        double x = at->type == PW_F64 ? ((double *)out)[i] : ((float *)out)[i];
        if (!isfinite(x)) {
            rc = pw_fail(err, PW_EFORMAT, "%s: attribute '%s': particle %zu: non-finite value",
                         s->name, at->name, i / at->components);
            goto done;
        }
    }
    *data = out;
    out = NULL;
done:
    free(c);
    free(raw);
    free(out);
    return rc;
}

static pw_status read_frame(const source *s, const char *const *names, int n_names,
                            pw_cache_frame *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (n_names < 0 || (n_names > 0 && !names))
        return pw_fail(err, PW_EINVAL, "%s: bad attribute list (%d names)", s->name, n_names);
    for (int k = 0; k < n_names; k++) {
        if (!names[k]) return pw_fail(err, PW_EINVAL, "%s: attribute name %d is NULL", s->name, k);
        for (int o = 0; o < k; o++)
            if (strcmp(names[o], names[k]) == 0)
                return pw_fail(err, PW_EINVAL, "%s: attribute '%s' requested twice", s->name,
                               names[k]);
    }
    meta *m = malloc(sizeof *m);
    if (!m) return pw_fail(err, PW_ENOMEM, "%s: out of memory", s->name);
    pw_status rc = read_meta(s, m, err);
    const pw_cache_info *in = &m->info;
    /* which table entry fills each output slot */
    int n_out = n_names ? n_names : in->n_attrs;
    int pick[PW_CACHE_MAX_ATTRS];
    /* names are unique and each must be in the table, so more cannot succeed */
    if (rc == PW_OK && n_out > PW_CACHE_MAX_ATTRS)
        rc = pw_fail(err, PW_EINVAL, "%s: too many attributes requested (%d)", s->name, n_out);
    for (int k = 0; k < n_out && rc == PW_OK; k++) {
        if (!n_names) {
            pick[k] = k;
            continue;
        }
        pick[k] = -1;
        for (int a = 0; a < in->n_attrs; a++)
            if (strcmp(in->attrs[a].name, names[k]) == 0) pick[k] = a;
        if (pick[k] < 0)
            rc = pw_fail(err, PW_EFORMAT, "%s: no attribute '%s' (the file has %d)", s->name,
                         names[k], in->n_attrs);
    }
    ZSTD_DCtx *dctx = NULL;
    if (rc == PW_OK && n_out > 0) {
        out->attrs = calloc((size_t)n_out, sizeof *out->attrs);
        dctx = ZSTD_createDCtx();
        if (!out->attrs || !dctx) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", s->name);
    }
    for (int k = 0; k < n_out && rc == PW_OK; k++) {
        const pw_cache_attr_info *at = &in->attrs[pick[k]];
        pw_cache_attr *dst = &out->attrs[k];
        rc = read_attr(s, m, pick[k], dctx, &dst->data, err);
        if (rc != PW_OK) break;
        memcpy(dst->name, at->name, 32);
        dst->type = at->type;
        dst->components = at->components;
        out->n_attrs = k + 1;
    }
    ZSTD_freeDCtx(dctx);
    if (rc == PW_OK) {
        out->count = in->count;
        out->time = in->time;
        out->h = in->h;
        out->frame = in->frame;
        out->step = in->step;
        out->sim_hash = in->sim_hash;
        out->n_globals = in->n_globals;
        memcpy(out->globals, in->globals, sizeof out->globals);
    } else {
        pw_cache_frame_free(out);
    }
    free(m);
    return rc;
}

/* Checks every attribute's CRC and frame header without decompressing. */
static pw_status stat_source(const source *s, pw_cache_info *out, pw_error *err)
{
    meta *m = malloc(sizeof *m);
    if (!m) return pw_fail(err, PW_ENOMEM, "%s: out of memory", s->name);
    pw_status rc = read_meta(s, m, err);
    unsigned char *chunk = rc == PW_OK ? malloc(CHUNK) : NULL;
    if (rc == PW_OK && !chunk) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", s->name);
    for (int a = 0; a < m->info.n_attrs && rc == PW_OK; a++) {
        const pw_cache_attr_info *at = &m->info.attrs[a];
        /* attributes of a newer minor version are listed, not judged */
        if (pw_scalar_size(at->type) && !(at->flags & ~ATTR_KNOWN_FLAGS) &&
            (rc = check_decodable(s, &m->info, at, err)) != PW_OK)
            break;
        uint32_t crc = 0;
        unsigned char head[32]; /* a zstd frame header is at most 18 bytes */
        size_t n_head = 0, whole = at->compressed_bytes <= CHUNK;
        for (uint64_t done = 0; done < at->compressed_bytes && rc == PW_OK;) {
            uint64_t left = at->compressed_bytes - done;
            size_t n = left < CHUNK ? (size_t)left : CHUNK;
            rc = src_read(s, at->offset + done, chunk, n, err);
            if (rc != PW_OK) break;
            if (done == 0) memcpy(head, chunk, n_head = n < sizeof head ? n : sizeof head);
            crc = pw_cache_crc32(crc, chunk, n);
            done += n;
        }
        if (rc == PW_OK) rc = check_crc(s, at, m->crc[a], crc, err);
        /* a small attribute is still in the chunk and is checked as one whole frame */
        if (rc == PW_OK)
            rc = whole ? check_frame_header(s, at, chunk, (size_t)at->compressed_bytes, 1, err)
                       : check_frame_header(s, at, head, n_head, 0, err);
    }
    free(chunk);
    if (rc == PW_OK) *out = m->info;
    else memset(out, 0, sizeof *out);
    free(m);
    return rc;
}

/* Opens path as a source; the caller closes s->fp. */
static pw_status open_source(const char *path, source *s, pw_error *err)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    s->fp = fopen(path, "rb");
    if (!s->fp) return pw_fail_open(err, path, errno);
    struct stat st;
    if (fstat(fileno(s->fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(s->fp);
        s->fp = NULL;
        return pw_fail(err, PW_EIO, "%s: not a regular file", path);
    }
    s->size = (uint64_t)st.st_size;
    return PW_OK;
}

/* ---- public functions ------------------------------------------------------ */

pw_status pw_cache_read(const char *path, const char *const *names, int n_names,
                        pw_cache_frame *out, pw_error *err)
{
    source s;
    memset(out, 0, sizeof *out);
    pw_status rc = open_source(path, &s, err);
    if (rc != PW_OK) return rc;
    rc = read_frame(&s, names, n_names, out, err);
    fclose(s.fp);
    return rc;
}

pw_status pw_cache_read_f64(const char *path, const char *const *names, int n_names,
                            pw_cache_frame *out, pw_error *err)
{
    pw_status rc = pw_cache_read(path, names, n_names, out, err);
    for (int a = 0; a < out->n_attrs && rc == PW_OK; a++) {
        pw_cache_attr *at = &out->attrs[a];
        if (at->type != PW_F32) continue;
        size_t n = (size_t)out->count * at->components;
        double *wide = malloc((n ? n : 1) * sizeof *wide);
        if (!wide) {
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory widening '%s'", path, at->name);
            break;
        }
        const float *narrow = at->data;
        for (size_t k = 0; k < n; k++) wide[k] = narrow[k];
        free(at->data);
        at->data = wide;
        at->type = PW_F64;
    }
    if (rc != PW_OK) pw_cache_frame_free(out);
    return rc;
}

pw_status pw_cache_read_memory(const char *name, const void *data, size_t size,
                               const char *const *names, int n_names, pw_cache_frame *out,
                               pw_error *err)
{
    source s = {.name = name ? name : "<memory>", .mem = data, .size = size};
    if (!data && size) {
        memset(out, 0, sizeof *out);
        return pw_fail(err, PW_EINVAL, "%s: no data", s.name);
    }
    static const unsigned char none[1] = {0};
    if (!s.mem) s.mem = none; /* size 0: a valid pointer keeps the reader uniform */
    return read_frame(&s, names, n_names, out, err);
}

pw_status pw_cache_table(const char *path, pw_cache_info *out, pw_error *err)
{
    source s;
    memset(out, 0, sizeof *out);
    pw_status rc = open_source(path, &s, err);
    if (rc != PW_OK) return rc;
    meta *m = malloc(sizeof *m);
    rc = m ? read_meta(&s, m, err) : pw_fail(err, PW_ENOMEM, "%s: out of memory", s.name);
    if (rc == PW_OK) *out = m->info;
    free(m);
    fclose(s.fp);
    return rc;
}

double pw_cache_info_global(const pw_cache_info *info, const char *name, double fallback)
{
    for (int g = 0; g < info->n_globals; g++)
        if (!strcmp(info->globals[g].name, name)) return info->globals[g].value;
    return fallback;
}

const pw_cache_attr_info *pw_cache_info_attr(const pw_cache_info *info, const char *name)
{
    for (int a = 0; a < info->n_attrs; a++)
        if (!strcmp(info->attrs[a].name, name)) return &info->attrs[a];
    return NULL;
}

pw_status pw_cache_stat(const char *path, pw_cache_info *out, pw_error *err)
{
    source s;
    memset(out, 0, sizeof *out);
    pw_status rc = open_source(path, &s, err);
    if (rc != PW_OK) return rc;
    rc = stat_source(&s, out, err);
    fclose(s.fp);
    return rc;
}

pw_status pw_cache_stat_memory(const char *name, const void *data, size_t size,
                               pw_cache_info *out, pw_error *err)
{
    source s = {.name = name ? name : "<memory>", .mem = data, .size = size};
    static const unsigned char none[1] = {0};
    if (!data) {
        if (size) return pw_fail(err, PW_EINVAL, "%s: no data", s.name);
        s.mem = none;
    }
    return stat_source(&s, out, err);
}

