/* Property: damaged or hostile EXR input never crashes the readers and never makes the
 * library print; it yields a pw_status error whose message names the file.
 *
 * There is no tolerance: every truncation of a valid file must fail (the last chunk is
 * always cut, and the decoders must notice); a flipped bit may leave a readable file
 * (a bit of pixel data, of an attribute we do not use, or of the data window, which
 * can describe a smaller valid image) but then the read must return an image, and
 * otherwise an error naming the file. "Nothing printed" is measured by pointing file
 * descriptor 2 at a scratch file around the calls and requiring it to stay empty. The
 * sanitizer build runs the same cases (fewer offsets and flips) and must report nothing.
 *
 * Cases: 1 truncation at every offset (memory reader) and at every 7th (file reader),
 * 2 single-bit flips: every bit of the first 400 bytes, one in every 5 bytes after,
 * 3 not an EXR (empty, text, PNG signature), 4 missing channels, 5 missing file,
 * 6 absurd data windows, 7 NaN pixels. */
#include <fcntl.h>
#include <openexr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "exr.h"
#include "test_util.h"

static char tmp_dir[] = POWDER_TEST_TMP;

/* ---- stderr capture ---------------------------------------------------------- */

static int saved_fd = -1;
static char capture_path[4096];

static void capture_begin(void)
{
    fflush(stderr);
    snprintf(capture_path, sizeof capture_path, "%s/exr_rejects_stderr.txt", tmp_dir);
    int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* Returns the number of bytes written to stderr since capture_begin. */
static long capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    struct stat sb;
    return stat(capture_path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* ---- helpers -------------------------------------------------------------------- */

static int write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A small valid frame: 23 x 19, RGBA + depth + albedo, the given compression. */
static unsigned char *make_valid(const char *name, pw_exr_compression comp, size_t *n,
                                 char *path, size_t path_size)
{
    int w = 23, h = 19;
    float *rgba = malloc(sizeof(float) * 4 * w * h), *z = malloc(sizeof(float) * w * h);
    float *alb = malloc(sizeof(float) * 3 * w * h);
    for (int i = 0; i < w * h; i++) {
        for (int c = 0; c < 4; c++) rgba[4 * i + c] = (float)((i * 7 + c * 3) % 50) / 10.0f;
        for (int c = 0; c < 3; c++) alb[3 * i + c] = 0.5f;
        z[i] = (float)i;
    }
    pw_image img = {w, h, rgba, z, alb, NULL, NULL, NULL, NULL, NULL};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.compression = comp;
    o.scene_name = "damaged";
    snprintf(path, path_size, "%s/%s", tmp_dir, name);
    pw_error err = {0};
    CHECK(pw_exr_write(path, &img, &o, &err) == PW_OK, "valid file: %s", err.msg);
    free(rgba);
    free(z);
    free(alb);
    return (unsigned char *)slurp(path, n);
}

/* One read of a damaged buffer: through memory, or through a file of that content.
 * Returns the status; *named says whether the message names `name`. */
static pw_status read_damaged(const char *name, const unsigned char *b, size_t n, int via_file,
                              int *named, int *complete)
{
    pw_error err = {0};
    int w = -1, h = -1;
    float *px = NULL;
    pw_status rc;
    if (via_file) {
        write_bytes(name, b, n);
        rc = pw_exr_read_rgba(name, &w, &h, &px, &err);
    } else {
        rc = pw_exr_read_rgba_memory(name, b, n, &w, &h, &px, &err);
    }
    *named = rc != PW_OK && strstr(err.msg, name) != NULL;
    /* a flip in the data window can make a smaller valid image; it must still be one */
    *complete = rc == PW_OK && px && w >= 1 && h >= 1 && (long)w * h <= 23L * 19 * 2;
    free(px);
    return rc;
}

/* ---- 1. truncation --------------------------------------------------------- */

static void case_truncation(pw_exr_compression comp, const char *id)
{
    char path[4096], dpath[4200];
    size_t n = 0;
    unsigned char *b = make_valid("exr_rejects_valid.exr", comp, &n, path, sizeof path);
    if (!b) return;
    snprintf(dpath, sizeof dpath, "%s/exr_rejects_truncated.exr", tmp_dir);
    int accepted = 0, unnamed = 0, tried = 0, named, complete;
    capture_begin();
    int every = getenv("POWDER_SANITIZED") ? 5 : 1;
    for (size_t cut = 0; cut < n; cut += every) {
        tried++;
        if (read_damaged("truncated.exr", b, cut, 0, &named, &complete) == PW_OK) accepted++;
        else if (!named) unnamed++;
        if (cut % 7 == 0) {
            tried++;
            if (read_damaged(dpath, b, cut, 1, &named, &complete) == PW_OK) accepted++;
            else if (!named) unnamed++;
        }
    }
    long printed = capture_end();
    CHECK(accepted == 0, "%s: %d truncated files accepted", id, accepted);
    CHECK(unnamed == 0, "%s: %d errors do not name the file", id, unnamed);
    CHECK(printed == 0, "%s: the library printed %ld bytes to stderr", id, printed);
    printf("%s: %zu-byte file, %d truncated reads, %d accepted, %ld bytes printed\n", id, n,
           tried, accepted, printed);
    free(b);
}

/* ---- 2. bit flips --------------------------------------------------------- */

static void case_bit_flips(pw_exr_compression comp, const char *id)
{
    char path[4096];
    size_t n = 0;
    unsigned char *b = make_valid("exr_rejects_valid.exr", comp, &n, path, sizeof path);
    if (!b) return;
    /* every bit of the first 400 bytes (header and offset table), then one bit of
     * every few bytes of the chunks */
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    int rejected = 0, accepted = 0, unnamed = 0, incomplete = 0, named, complete;
    capture_begin();
    for (size_t i = 0; i < n; i += i < 400 ? 1 : (sanitized ? 29 : 5)) {
        for (int bit = 0; bit < 8; bit += (i < 400 && !sanitized) ? 1 : 3) {
            b[i] ^= (unsigned char)(1u << bit);
            pw_status rc = read_damaged("flipped.exr", b, n, 0, &named, &complete);
            b[i] ^= (unsigned char)(1u << bit);
            if (rc == PW_OK) {
                accepted++;
                if (!complete) incomplete++;
            } else {
                rejected++;
                if (!named) unnamed++;
            }
        }
    }
    /* 2.x the magic number: any flip there must be refused */
    int magic_accepted = 0;
    for (int i = 0; i < 4; i++) {
        b[i] ^= 0x10;
        if (read_damaged("flipped.exr", b, n, 0, &named, &complete) == PW_OK) magic_accepted++;
        b[i] ^= 0x10;
    }
    long printed = capture_end();
    CHECK(unnamed == 0, "%s: %d errors do not name the file", id, unnamed);
    CHECK(incomplete == 0, "%s: %d accepted reads returned no image", id, incomplete);
    CHECK(magic_accepted == 0, "%s: a damaged magic number was accepted", id);
    CHECK(printed == 0, "%s: the library printed %ld bytes to stderr", id, printed);
    printf("%s: %d flips refused with a message, %d gave a complete image, %ld bytes printed\n",
           id, rejected, accepted, printed);
    free(b);
}

/* ---- 3.-7. ------------------------------------------------------------------ */

static void expect_error(const char *id, const char *path, pw_status want)
{
    pw_error err = {0};
    int w, h;
    float *px = NULL;
    capture_begin();
    pw_status rc = pw_exr_read_rgb(path, &w, &h, &px, &err);
    long printed = capture_end();
    CHECK(rc == want, "%s: status %s, want %s (%s)", id, pw_status_name(rc),
          pw_status_name(want), err.msg);
    CHECK(strstr(err.msg, path) != NULL, "%s: message does not name the file: %s", id, err.msg);
    CHECK(printed == 0, "%s: %ld bytes printed", id, printed);
    printf("%s: %s\n", id, err.msg);
    free(px);
}

static void case_not_exr(void)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/exr_rejects_empty.exr", tmp_dir);
    write_bytes(p, "", 0);
    expect_error("3.1 empty file", p, PW_EFORMAT);
    snprintf(p, sizeof p, "%s/exr_rejects_text.exr", tmp_dir);
    const char *text = "this is not an OpenEXR file, just some words\n";
    write_bytes(p, text, strlen(text));
    expect_error("3.2 text", p, PW_EFORMAT);
    snprintf(p, sizeof p, "%s/exr_rejects_png.exr", tmp_dir);
    const unsigned char png[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
                                   'I', 'H', 'D', 'R'};
    write_bytes(p, png, sizeof png);
    expect_error("3.3 PNG signature", p, PW_EFORMAT);
}

static void silent(exr_const_context_t c, exr_result_t code, const char *msg)
{
    (void)c;
    (void)code;
    (void)msg;
}

/* A scanline file with the named float channels, values 1. */
static int write_channels(const char *path, const char *const *names, int nch)
{
    int w = 8, h = 4;
    float ones[8 * 4];
    for (int i = 0; i < w * h; i++) ones[i] = 1;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = silent;
    exr_context_t ctx = NULL;
    int part = 0;
    exr_result_t rv = exr_start_write(&ctx, path, EXR_WRITE_FILE_DIRECTLY, &init);
    if (!rv) rv = exr_add_part(ctx, NULL, EXR_STORAGE_SCANLINE, &part);
    if (!rv) rv = exr_initialize_required_attr_simple(ctx, part, w, h, EXR_COMPRESSION_NONE);
    for (int c = 0; c < nch && !rv; c++)
        rv = exr_add_channel(ctx, part, names[c], EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1);
    if (!rv) rv = exr_write_header(ctx);
    /* every scanline must be written, or exr_finish quietly deletes the file */
    for (int y = 0; y < h && !rv; y++) {
        exr_chunk_info_t ci;
        rv = exr_write_scanline_chunk_info(ctx, part, y, &ci);
        exr_encode_pipeline_t e = EXR_ENCODE_PIPELINE_INITIALIZER;
        if (!rv) rv = exr_encoding_initialize(ctx, part, &ci, &e);
        for (int c = 0; c < e.channel_count && !rv; c++) {
            e.channels[c].encode_from_ptr = (const uint8_t *)(ones + y * w);
            e.channels[c].user_pixel_stride = 4;
            e.channels[c].user_line_stride = 4 * w;
            e.channels[c].user_bytes_per_element = 4;
            e.channels[c].user_data_type = EXR_PIXEL_FLOAT;
        }
        if (!rv) rv = exr_encoding_choose_default_routines(ctx, part, &e);
        if (!rv) rv = exr_encoding_run(ctx, part, &e);
        exr_encoding_destroy(ctx, &e);
    }
    exr_result_t rf = exr_finish(&ctx);
    return !rv && !rf;
}

static void case_missing_channels(void)
{
    char p[4096];
    static const char *const rg[2] = {"G", "R"};
    snprintf(p, sizeof p, "%s/exr_rejects_rg.exr", tmp_dir);
    CHECK(write_channels(p, rg, 2), "4.1 writer");
    expect_error("4.1 no B channel", p, PW_EFORMAT);
    static const char *const y[1] = {"Y"};
    snprintf(p, sizeof p, "%s/exr_rejects_luminance.exr", tmp_dir);
    CHECK(write_channels(p, y, 1), "4.2 writer");
    expect_error("4.2 luminance only", p, PW_EFORMAT);
    static const char *const layered[3] = {"diffuse.B", "diffuse.G", "diffuse.R"};
    snprintf(p, sizeof p, "%s/exr_rejects_layer.exr", tmp_dir);
    CHECK(write_channels(p, layered, 3), "4.3 writer");
    expect_error("4.3 RGB only inside a layer", p, PW_EFORMAT);
    /* 4.4 the control: the same writer with R, G, B is readable */
    static const char *const bgr[3] = {"B", "G", "R"};
    snprintf(p, sizeof p, "%s/exr_rejects_control.exr", tmp_dir);
    CHECK(write_channels(p, bgr, 3), "4.4 writer");
    pw_error err = {0};
    int w, h;
    float *px = NULL;
    CHECK(pw_exr_read_rgb(p, &w, &h, &px, &err) == PW_OK && w == 8 && h == 4 && px[5] == 1,
          "4.4 control: %s", err.msg);
    free(px);
}

/* Overwrites the dataWindow box of a valid file (min.x, min.y, max.x, max.y). */
static void case_data_window(void)
{
    char path[4096], p[4200];
    size_t n = 0;
    unsigned char *b = make_valid("exr_rejects_valid.exr", PW_EXR_ZIP, &n, path, sizeof path);
    if (!b) return;
    static const char key[] = "dataWindow\0box2i";
    unsigned char *at = NULL;
    for (size_t i = 0; i + sizeof key < n && !at; i++)
        if (memcmp(b + i, key, sizeof key) == 0) at = b + i + sizeof key + 4; /* + size */
    CHECK(at != NULL, "6.0 dataWindow attribute not found");
    if (!at) {
        free(b);
        return;
    }
    int32_t boxes[4][4] = {{0, 0, 70000, 5000},           /* 3.5e8 pixels  */
                           {0, 0, 2000000, 0},            /* 2e6 wide      */
                           {10, 10, 0, 0},                /* max < min     */
                           {-2147483647, 0, 2147483646, 3}}; /* overflowing */
    for (int k = 0; k < 4; k++) {
        unsigned char saved[16];
        memcpy(saved, at, 16);
        for (int j = 0; j < 4; j++) { /* little-endian on disk */
            uint32_t v = (uint32_t)boxes[k][j];
            for (int q = 0; q < 4; q++) at[4 * j + q] = (unsigned char)(v >> (8 * q));
        }
        snprintf(p, sizeof p, "%s/exr_rejects_window%d.exr", tmp_dir, k);
        write_bytes(p, b, n);
        memcpy(at, saved, 16);
        char id[64];
        snprintf(id, sizeof id, "6.%d data window", k + 1);
        pw_error err = {0};
        int w, h;
        float *px = NULL;
        capture_begin();
        pw_status rc = pw_exr_read_rgb(p, &w, &h, &px, &err);
        long printed = capture_end();
        CHECK(rc != PW_OK && strstr(err.msg, p), "%s: %s", id, err.msg);
        CHECK(printed == 0, "%s: %ld bytes printed", id, printed);
        printf("%s: %s\n", id, err.msg);
        free(px);
    }
    free(b);
}

static void case_nan(void)
{
    float px[4 * 4] = {1, 1, 1, 1, NAN, 0, 0, 1, 1, 1, 1, 1, 1, INFINITY, 1, 1};
    pw_image img = {2, 2, px, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = 1;
    char p[4096];
    snprintf(p, sizeof p, "%s/exr_rejects_nan.exr", tmp_dir);
    pw_error err = {0};
    CHECK(pw_exr_write(p, &img, &o, &err) == PW_OK, "7.0 %s", err.msg);
    expect_error("7.1 NaN pixel", p, PW_ENUMERIC);
}

int main(void)
{
    case_truncation(PW_EXR_ZIP, "1.1 truncated ZIP");
    case_truncation(PW_EXR_PIZ, "1.2 truncated PIZ");
    case_truncation(PW_EXR_NONE, "1.3 truncated uncompressed");
    case_bit_flips(PW_EXR_ZIP, "2.1 flipped ZIP");
    case_bit_flips(PW_EXR_PIZ, "2.2 flipped PIZ");
    case_bit_flips(PW_EXR_NONE, "2.3 flipped uncompressed");
    case_not_exr();
    case_missing_channels();
    char p[4096];
    snprintf(p, sizeof p, "%s/exr_rejects_no_such_file.exr", tmp_dir);
    expect_error("5.1 missing file", p, PW_ENOENT);
    case_data_window();
    case_nan();
    return check_done("exr_rejects_damaged");
}
