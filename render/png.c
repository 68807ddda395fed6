/* png.c — 8-bit PNG previews; see png.h.
 *
 * The file is the 8-byte signature, IHDR, one IDAT holding the zlib stream of all
 * filtered rows, and IEND; every chunk is big-endian length, type, data, CRC-32 of type
 * and data (PNG spec, sections 5.3 and 11.2). Each row gets the filter (None, Sub, Up,
 * Average or Paeth) with the smallest sum of absolute filtered bytes, the heuristic
 * the PNG spec recommends (section 12.8).
 *
 * pw_png_write keeps colour premultiplied by alpha: a pixel reads as the image over
 * black, and its alpha is stored as well. PNG means straight alpha, so a viewer that
 * composites over a light background darkens partly covered pixels; the preview is
 * for looking at the render, for which over-black is the honest answer. The colour goes
 * through a view transform (view.h), never a bare clip of each channel. */
#include "png.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pw_file.h"

/* ---- constants ------------------------------------------------------------ */

static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
#define PNG_MAX_PIXELS ((uint64_t)1 << 28) /* refuse previews beyond 256 Mpx */
#define PNG_ZLIB_LEVEL 6

/* ---- chunks ------------------------------------------------------------------- */

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static pw_status write_chunk(pw_atomic_file *f, const char type[4], const unsigned char *data,
                             uint32_t len, pw_error *err)
{
    unsigned char head[8], tail[4];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)type, 4);
    if (len) crc = crc32(crc, data, len);
    put_be32(tail, (uint32_t)crc);
    pw_status rc = pw_atomic_write(f, head, 8, err);
    if (rc == PW_OK) rc = pw_atomic_write(f, data, len, err);
    if (rc == PW_OK) rc = pw_atomic_write(f, tail, 4, err);
    return rc;
}

/* ---- filters ---------------------------------------------------------------------- */

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* Filters row (n bytes, bpp bytes a pixel; prev = the row above or NULL) into
 * out[0] = filter type, out[1..n] = filtered bytes, choosing the type with the
 * smallest sum of |signed byte|. trial must hold n bytes. */
static void filter_row(const unsigned char *row, const unsigned char *prev, size_t n, int bpp,
                       unsigned char *out, unsigned char *trial)
{
    uint64_t best_cost = UINT64_MAX;
    for (int type = 0; type <= 4; type++) {
        uint64_t cost = 0;
        for (size_t i = 0; i < n; i++) {
            int a = i >= (size_t)bpp ? row[i - bpp] : 0;
            int b = prev ? prev[i] : 0;
            int c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;
            int pred = type == 0 ? 0 : type == 1 ? a : type == 2 ? b
                     : type == 3 ? (a + b) / 2 : paeth(a, b, c);
            trial[i] = (unsigned char)(row[i] - pred);
            cost += (uint64_t)abs((signed char)trial[i]);
        }
        if (cost < best_cost) {
            best_cost = cost;
            out[0] = (unsigned char)type;
            memcpy(out + 1, trial, n);
        }
    }
}

/* ---- encoder ---------------------------------------------------------------- */

/* Writes w x h pixels of `channels` bytes (3 = RGB, 4 = RGBA), rows top down. */
static pw_status encode(const char *path, const unsigned char *px, int w, int h, int channels,
                        pw_error *err)
{
    if (!px || w <= 0 || h <= 0 || (uint64_t)w * (uint64_t)h > PNG_MAX_PIXELS)
        return pw_fail(err, PW_EINVAL, "%s: bad image size (%d x %d)", path, w, h);
    size_t stride = (size_t)w * channels, raw_size = (stride + 1) * (size_t)h;
    unsigned char *raw = malloc(raw_size), *trial = malloc(stride);
    uLongf zsize = compressBound((uLong)raw_size);
    unsigned char *z = malloc(zsize);
    pw_status rc = PW_OK;
    if (!raw || !trial || !z) {
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu bytes)", path, raw_size);
        goto done;
    }
    for (int y = 0; y < h; y++)
        filter_row(px + (size_t)y * stride, y ? px + (size_t)(y - 1) * stride : NULL, stride,
                   channels, raw + (size_t)y * (stride + 1), trial);
    int zrc = compress2(z, &zsize, raw, (uLong)raw_size, PNG_ZLIB_LEVEL);
    if (zrc != Z_OK || zsize > 0x7fffffffu) {
        rc = pw_fail(err, zrc == Z_MEM_ERROR ? PW_ENOMEM : PW_EINVAL,
                     "%s: deflate failed (zlib %d)", path, zrc);
        goto done;
    }

    /* IHDR: width, height, bit depth 8, colour type 2 (RGB) or 6 (RGBA), deflate,
     * adaptive filtering, no interlace */
    unsigned char ihdr[13];
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;
    ihdr[9] = channels == 4 ? 6 : 2;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;

    pw_atomic_file f;
    rc = pw_atomic_begin(&f, path, err);
    if (rc != PW_OK) goto done;
    rc = pw_atomic_write(&f, png_signature, sizeof png_signature, err);
    if (rc == PW_OK) rc = write_chunk(&f, "IHDR", ihdr, sizeof ihdr, err);
    if (rc == PW_OK) rc = write_chunk(&f, "IDAT", z, (uint32_t)zsize, err);
    if (rc == PW_OK) rc = write_chunk(&f, "IEND", NULL, 0, err);
    if (rc == PW_OK) rc = pw_atomic_commit(&f, err);
    else pw_atomic_abort(&f);
done:
    free(raw);
    free(trial);
    free(z);
    return rc;
}

/* ---- public -------------------------------------------------------------------- */

pw_status pw_png_write_view(const char *path, const float *rgba, int width, int height,
                            const pw_view *view, double exposure, pw_error *err)
{
    if (!rgba || width <= 0 || height <= 0 ||
        (uint64_t)width * (uint64_t)height > PNG_MAX_PIXELS)
        return pw_fail(err, PW_EINVAL, "%s: bad image size (%d x %d)", path, width, height);
    if (!isfinite(exposure))
        return pw_fail(err, PW_EINVAL, "%s: exposure not finite (%g)", path, exposure);
    pw_view *own = NULL;
    if (!view && !(view = own = pw_view_create(NULL, err))) {
        pw_error_prefix(err, "%s", path);
        return err ? err->code : PW_EINVAL;
    }
    size_t n = (size_t)width * height;
    unsigned char *px = malloc(4 * n);
    pw_status rc = px ? pw_view_apply(view, rgba, n, exposure, px, err)
                      : pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu pixels)", path, n);
    if (rc == PW_OK) rc = encode(path, px, width, height, 4, err);
    free(px);
    pw_view_destroy(own);
    return rc;
}

pw_status pw_png_write(const char *path, const float *rgba, int width, int height,
                       double exposure, pw_error *err)
{
    return pw_png_write_view(path, rgba, width, height, NULL, exposure, err);
}

pw_status pw_png_write_rgb8(const char *path, const unsigned char *rgb, int width, int height,
                            pw_error *err)
{
    return encode(path, rgb, width, height, 3, err);
}
