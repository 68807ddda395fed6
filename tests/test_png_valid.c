/* Property: pw_png_write and pw_png_write_rgb8 produce valid PNG files whose pixels are
 * exactly the expected bytes.
 *
 * The file is parsed here from scratch: signature; chunk sequence IHDR, IDAT..., IEND
 * with each CRC-32 recomputed with zlib; IHDR fields; the IDAT stream inflated with
 * zlib to exactly (1 + w * channels) * h bytes; every filter byte in 0..4; rows
 * un-filtered by the PNG spec's rules. Pixel bytes must match exactly (tolerance 0)
 * through the analytic "Un-tone-mapped" view (view.h; the views that tone map have
 * tests of their own): the expected byte is round(255 * sRGB(clamp(2^exposure *
 * linear))), computed here
 * independently and pinned by hand-computed anchors (0.18 -> 118, 0.5 -> 188, the
 * linear segment 0.002 -> 7); alpha is round(255 * clamp(a)) without a curve.
 *
 * Cases: 1 float image with anchors, clamping, NaN and exposure, 2 RGB8 gradients and
 * noise (several filter types must appear), 3 one pixel, 4 bad input and atomicity. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "check.h"
#include "png.h"
#include "pw_file.h"
#include "view.h"

/* The analytic clip-and-sRGB view, exact in every build. */
static pw_view *clip_view(void)
{
    pw_view_params p;
    pw_view_params_default(&p);
    p.analytic = 1;
    p.view = "Un-tone-mapped";
    pw_error err = {0};
    pw_view *v = pw_view_create(&p, &err);
    CHECK(v != NULL, "view: %s", err.msg);
    return v;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* Parses and decodes path; returns the pixels (w*h*channels) or NULL. Counts the
 * filter types used in used[5]. */
static unsigned char *decode(const char *id, const char *path, int *w, int *h, int *channels,
                             int used[5])
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "%s: cannot open %s", id, path);
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(got == (size_t)n && n > 8 && memcmp(b, sig, 8) == 0, "%s: signature", id);

    unsigned char *idat = NULL;
    size_t idat_len = 0, pos = 8;
    int chunk = 0, seen_iend = 0, crc_bad = 0;
    *w = *h = *channels = 0;
    while (pos + 12 <= (size_t)n && !seen_iend) {
        uint32_t len = be32(b + pos);
        if (pos + 12 + len > (size_t)n) break;
        const unsigned char *type = b + pos + 4, *data = b + pos + 8;
        uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + len);
        if (crc != be32(data + len)) crc_bad++;
        if (chunk == 0) {
            CHECK(memcmp(type, "IHDR", 4) == 0 && len == 13, "%s: first chunk is IHDR", id);
            *w = (int)be32(data);
            *h = (int)be32(data + 4);
            CHECK(data[8] == 8, "%s: bit depth %d", id, data[8]);
            CHECK(data[9] == 2 || data[9] == 6, "%s: colour type %d", id, data[9]);
            *channels = data[9] == 6 ? 4 : 3;
            CHECK(data[10] == 0 && data[11] == 0 && data[12] == 0, "%s: methods", id);
        } else if (memcmp(type, "IDAT", 4) == 0) {
            idat = realloc(idat, idat_len + len);
            memcpy(idat + idat_len, data, len);
            idat_len += len;
        } else if (memcmp(type, "IEND", 4) == 0) {
            CHECK(len == 0, "%s: IEND length %u", id, len);
            seen_iend = 1;
        }
        pos += 12 + len;
        chunk++;
    }
    CHECK(crc_bad == 0, "%s: %d chunks with a wrong CRC", id, crc_bad);
    CHECK(seen_iend && pos == (size_t)n, "%s: IEND missing or bytes after it", id);
    free(b);

    size_t stride = (size_t)*w * *channels, raw_size = (stride + 1) * (size_t)*h;
    unsigned char *raw = malloc(raw_size + 1);
    uLongf out_len = (uLongf)raw_size + 1; /* one spare byte shows an over-long stream */
    int zrc = idat ? uncompress(raw, &out_len, idat, (uLong)idat_len) : Z_DATA_ERROR;
    CHECK(zrc == Z_OK && out_len == raw_size, "%s: inflate %d, %lu bytes, want %zu", id, zrc,
          (unsigned long)out_len, raw_size);
    free(idat);
    if (zrc != Z_OK || out_len != raw_size) {
        free(raw);
        return NULL;
    }
    unsigned char *px = malloc(stride * *h);
    int bpp = *channels;
    for (int y = 0; y < *h; y++) {
        int ft = raw[(size_t)y * (stride + 1)];
        CHECK(ft <= 4, "%s: row %d filter %d", id, y, ft);
        if (ft <= 4) used[ft]++;
        const unsigned char *src = raw + (size_t)y * (stride + 1) + 1;
        unsigned char *row = px + (size_t)y * stride, *prev = y ? row - stride : NULL;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)bpp ? row[i - bpp] : 0, bb = prev ? prev[i] : 0;
            int c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;
            int pred = ft == 1 ? a : ft == 2 ? bb : ft == 3 ? (a + bb) / 2
                     : ft == 4 ? paeth(a, bb, c) : 0;
            row[i] = (unsigned char)(src[i] + pred);
        }
    }
    free(raw);
    return px;
}

static int expected_srgb(double linear)
{
    if (!(linear > 0)) return 0;
    if (linear > 1) linear = 1;
    double e = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
    return (int)floor(e * 255 + 0.5);
}

static void case_float(void)
{
    /* 1.x anchors in the first pixels, then a ramp */
    const int w = 13, h = 7;
    float *rgba = malloc(sizeof(float) * 4 * w * h);
    for (int i = 0; i < w * h; i++)
        for (int c = 0; c < 4; c++) rgba[4 * i + c] = (float)((i * 4 + c) % 97) / 60.0f - 0.2f;
    const float anchors[8][4] = {{0.09f, 0.25f, 0.001f, 0.5f}, /* exposure +1 doubles */
                                 {0.6f, -1.0f, NAN, 1.7f},     /* clamps, NaN -> 0 */
                                 {INFINITY, -INFINITY, 0, 0},
                                 {0.0f, 0.5f, 1.0f, -0.3f}};
    for (int k = 0; k < 4; k++) memcpy(rgba + 4 * k, anchors[k], sizeof anchors[k]);
    char path[4096];
    snprintf(path, sizeof path, "%s/png_valid_float.png", POWDER_TEST_TMP);
    pw_error err = {0};
    pw_view *view = clip_view();
    CHECK(pw_png_write_view(path, rgba, w, h, view, 1.0, &err) == PW_OK, "1.0 write: %s",
          err.msg);
    pw_view_destroy(view);
    int rw, rh, ch, used[5] = {0};
    unsigned char *px = decode("1.0", path, &rw, &rh, &ch, used);
    CHECK(rw == w && rh == h && ch == 4, "1.0 header %d x %d x %d", rw, rh, ch);
    if (px && rw == w && rh == h && ch == 4) {
        /* 1.1 hand-computed anchors: 2 * 0.09 = 0.18 -> 118, 0.5 -> 188, 0.002 -> 7 */
        CHECK(px[0] == 118 && px[1] == 188 && px[2] == 7 && px[3] == 128,
              "1.1 anchors %d %d %d %d", px[0], px[1], px[2], px[3]);
        /* 1.2 above 1 clamps to 255, negative and NaN to 0, alpha > 1 to 255 */
        CHECK(px[4] == 255 && px[5] == 0 && px[6] == 0 && px[7] == 255, "1.2 clamps %d %d %d %d",
              px[4], px[5], px[6], px[7]);
        CHECK(px[8] == 255 && px[9] == 0 && px[11] == 0, "1.3 infinities");
        CHECK(px[15] == 0, "1.4 negative alpha -> 0");
        int bad = 0;
        for (int i = 0; i < w * h; i++) {
            for (int c = 0; c < 3; c++)
                if (px[4 * i + c] != expected_srgb(2.0 * rgba[4 * i + c])) bad++;
            double a = rgba[4 * i + 3];
            int ea = !(a > 0) ? 0 : a >= 1 ? 255 : (int)floor(a * 255 + 0.5);
            if (px[4 * i + 3] != ea) bad++;
        }
        CHECK(bad == 0, "1.5 %d bytes differ from the expected encoding", bad);
        printf("1.x float image %dx%d: %d bytes differ; filters used N/S/U/A/P %d %d %d %d %d\n",
               w, h, bad, used[0], used[1], used[2], used[3], used[4]);
    }
    free(px);
    free(rgba);
}

static void case_rgb8(void)
{
    /* 2.x smooth gradients favour Sub/Up/Paeth, noise favours None */
    const int w = 64, h = 48;
    unsigned char *rgb = malloc(3 * w * h);
    uint32_t s = 7;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                s = s * 1103515245u + 12345u;
                rgb[3 * (y * w + x) + c] =
                    y < h / 2 ? (unsigned char)(x * 3 + y * 2 + c * 50) : (unsigned char)(s >> 16);
            }
    char path[4096];
    snprintf(path, sizeof path, "%s/png_valid_rgb8.png", POWDER_TEST_TMP);
    pw_error err = {0};
    CHECK(pw_png_write_rgb8(path, rgb, w, h, &err) == PW_OK, "2.0 write: %s", err.msg);
    int rw, rh, ch, used[5] = {0};
    unsigned char *px = decode("2.0", path, &rw, &rh, &ch, used);
    CHECK(rw == w && rh == h && ch == 3, "2.0 header %d x %d x %d", rw, rh, ch);
    CHECK(px && rw == w && rh == h && ch == 3 && memcmp(px, rgb, 3 * w * h) == 0,
          "2.1 pixels round trip exactly");
    int kinds = 0;
    for (int k = 0; k < 5; k++) kinds += used[k] > 0;
    CHECK(kinds >= 2, "2.2 only %d filter type(s) used on gradient + noise", kinds);
    printf("2.x rgb8 %dx%d: filters used N/S/U/A/P %d %d %d %d %d\n", w, h, used[0], used[1],
           used[2], used[3], used[4]);
    free(px);
    free(rgb);
}

static void case_edges(void)
{
    char path[4096], tmp[4200];
    pw_error err = {0};
    /* 3.1 one pixel */
    float one[4] = {1, 0.0031308f, 0, 1};
    snprintf(path, sizeof path, "%s/png_valid_one.png", POWDER_TEST_TMP);
    pw_view *view = clip_view();
    CHECK(pw_png_write_view(path, one, 1, 1, view, 0.0, &err) == PW_OK, "3.1 write: %s",
          err.msg);
    pw_view_destroy(view);
    int rw, rh, ch, used[5] = {0};
    unsigned char *px = decode("3.1", path, &rw, &rh, &ch, used);
    /* the linear segment's end: 12.92 * 0.0031308 * 255 = 10.3 -> 10 */
    CHECK(px && rw == 1 && rh == 1 && px[0] == 255 && px[1] == 10 && px[2] == 0 && px[3] == 255,
          "3.1 one pixel");
    free(px);
    /* 4.1 bad sizes and exposure are refused and name the file */
    CHECK(pw_png_write(path, one, 0, 1, 0, &err) == PW_EINVAL && strstr(err.msg, path),
          "4.1 zero width: %s", err.msg);
    CHECK(pw_png_write(path, one, 1, 1, NAN, &err) == PW_EINVAL, "4.2 NaN exposure");
    CHECK(pw_png_write_rgb8(path, NULL, 1, 1, &err) == PW_EINVAL, "4.3 NULL pixels");
    /* 4.4 unwritable place: PW_EIO, nothing left */
    snprintf(path, sizeof path, "%s/no_such_dir/x.png", POWDER_TEST_TMP);
    pw_atomic_tmp_name(path, tmp, sizeof tmp);
    CHECK(pw_png_write(path, one, 1, 1, 0, &err) == PW_EIO && strstr(err.msg, "x.png"),
          "4.4: %s", err.msg);
    struct stat sb;
    CHECK(stat(path, &sb) != 0 && stat(tmp, &sb) != 0, "4.4 nothing left");
}

int main(void)
{
    case_float();
    case_rgb8();
    case_edges();
    return check_done("png_valid");
}
