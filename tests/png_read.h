/* png_read.h — reading back the 8-bit PNGs Powder writes, for tests that look at their
 * pixels (test_png_valid.c checks the format itself, chunk by chunk): chunks walked,
 * IDAT inflated with zlib, rows un-filtered by the PNG spec's rules (section 9). */
#ifndef PW_TEST_PNG_READ_H
#define PW_TEST_PNG_READ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static inline uint32_t png_read_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline int png_read_paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* The pixels of the 8-bit RGB or RGBA PNG at path as RGBA (alpha 255 for RGB), w * h * 4
 * bytes the caller frees; NULL when the file is missing or not such a PNG. */
static inline unsigned char *png_read_rgba8(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = n > 8 ? malloc((size_t)n) : NULL;
    size_t got = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (!b || got != (size_t)n || memcmp(b, sig, 8) != 0) {
        free(b);
        return NULL;
    }
    unsigned char *idat = NULL;
    size_t idat_len = 0, pos = 8;
    int channels = 0;
    *w = *h = 0;
    while (pos + 12 <= (size_t)n) {
        uint32_t len = png_read_be32(b + pos);
        if (pos + 12 + len > (size_t)n) break;
        const unsigned char *type = b + pos + 4, *data = b + pos + 8;
        if (!memcmp(type, "IHDR", 4) && len == 13 && data[8] == 8 &&
            (data[9] == 2 || data[9] == 6)) {
            *w = (int)png_read_be32(data);
            *h = (int)png_read_be32(data + 4);
            channels = data[9] == 6 ? 4 : 3;
        } else if (!memcmp(type, "IDAT", 4)) {
            unsigned char *grown = realloc(idat, idat_len + len + 1);
            if (!grown) break;
            idat = grown;
            memcpy(idat + idat_len, data, len);
            idat_len += len;
        }
        pos += 12 + len;
    }
    free(b);
    if (!channels || *w <= 0 || *h <= 0 || !idat) {
        free(idat);
        return NULL;
    }
    size_t stride = (size_t)*w * channels, raw_size = (stride + 1) * (size_t)*h;
    unsigned char *raw = malloc(raw_size), *px = malloc(stride * *h);
    uLongf out_len = (uLongf)raw_size;
    int zrc = raw && px ? uncompress(raw, &out_len, idat, (uLong)idat_len) : Z_MEM_ERROR;
    free(idat);
    if (zrc != Z_OK || out_len != raw_size) {
        free(raw);
        free(px);
        return NULL;
    }
    for (int y = 0; y < *h; y++) {
        int ft = raw[(size_t)y * (stride + 1)];
        const unsigned char *src = raw + (size_t)y * (stride + 1) + 1;
        unsigned char *row = px + (size_t)y * stride, *prev = y ? row - stride : NULL;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)channels ? row[i - channels] : 0, up = prev ? prev[i] : 0;
            int c = prev && i >= (size_t)channels ? prev[i - channels] : 0;
            int pred = ft == 1 ? a : ft == 2 ? up : ft == 3 ? (a + up) / 2
                     : ft == 4 ? png_read_paeth(a, up, c) : 0;
            row[i] = (unsigned char)(src[i] + pred);
        }
    }
    free(raw);
    unsigned char *rgba = malloc((size_t)*w * *h * 4);
    for (size_t i = 0; rgba && i < (size_t)*w * *h; i++)
        for (int c = 0; c < 4; c++)
            rgba[4 * i + c] = c < channels ? px[i * channels + c] : 255;
    free(px);
    return rgba;
}

#endif
