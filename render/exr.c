/* exr.c — EXR output and input through the OpenEXR C API (OpenEXRCore); see exr.h.
 *
 * Both directions use our own stream callbacks (pread/pwrite on a descriptor we
 * opened, or a memory buffer), so the context's user data is ours: the error handler
 * finds through it where to store the library's last message instead of letting the
 * library print to stderr, which it does by default. */
#include "exr.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pw_file.h"

/* ---- constants ------------------------------------------------------------ */

/* Larger images are refused before anything is allocated: 2^28 pixels of RGBA float
 * is already 4 GiB. */
#define EXR_MAX_PIXELS ((int64_t)1 << 28)
#define EXR_MAX_SIDE (1 << 20)     /* [px] either side of the data window */
#define EXR_MAX_TILE_SIDE (1 << 16) /* [px] */

/* ---- streams and errors ---------------------------------------------------- */

typedef struct {
    int fd;                /* file descriptor, or -1 for a memory stream */
    const uint8_t *mem;    /* memory stream data */
    uint64_t mem_size;     /* [bytes] */
    int os_error;          /* the operating system refused a read or write */
    char last_msg[256];    /* the library's most recent message */
} exr_stream;

/* Keeps the library silent: its messages go into the stream's last_msg. */
static void quiet_handler(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) != EXR_ERR_SUCCESS || !ud) return;
    exr_stream *st = ud;
    snprintf(st->last_msg, sizeof st->last_msg, "%s",
             msg ? msg : exr_get_default_error_message(code));
}

static int64_t stream_read(exr_const_context_t ctxt, void *ud, void *buf, uint64_t sz,
                           uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    exr_stream *st = ud;
    if (st->fd < 0) {
        if (offset >= st->mem_size) return 0;
        uint64_t n = st->mem_size - offset < sz ? st->mem_size - offset : sz;
        memcpy(buf, st->mem + offset, n);
        return (int64_t)n;
    }
    uint64_t done = 0;
    while (done < sz) {
        ssize_t r = pread(st->fd, (char *)buf + done, sz - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            st->os_error = 1;
            error_cb(ctxt, EXR_ERR_READ_IO, "read failed (%s)", strerror(errno));
            return -1;
        }
        if (r == 0) break;
        done += (uint64_t)r;
    }
    return (int64_t)done;
}

static int64_t stream_size(exr_const_context_t ctxt, void *ud)
{
    (void)ctxt;
    exr_stream *st = ud;
    if (st->fd < 0) return (int64_t)st->mem_size;
    struct stat sb;
    return fstat(st->fd, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

static int64_t stream_write(exr_const_context_t ctxt, void *ud, const void *buf, uint64_t sz,
                            uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    exr_stream *st = ud;
    uint64_t done = 0;
    while (done < sz) {
        ssize_t r = pwrite(st->fd, (const char *)buf + done, sz - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            st->os_error = 1;
            error_cb(ctxt, EXR_ERR_WRITE_IO, "write failed (%s)", strerror(errno));
            return -1;
        }
        done += (uint64_t)r;
    }
    return (int64_t)done;
}

/* A read past the end is reported by the library as an I/O error, but it means a
 * truncated file: only a refusal by the operating system is PW_EIO. */
static pw_status status_of(const exr_stream *st, exr_result_t rv, pw_status otherwise)
{
    if (rv == EXR_ERR_OUT_OF_MEMORY) return PW_ENOMEM;
    if (st->os_error || rv == EXR_ERR_FILE_ACCESS) return PW_EIO;
    return otherwise;
}

/* "<name>: <what> (<library message>)" */
static pw_status exr_fail(pw_error *err, const exr_stream *st, exr_result_t rv,
                          pw_status otherwise, const char *name, const char *what)
{
    const char *lib = st->last_msg[0] ? st->last_msg : exr_get_default_error_message(rv);
    return pw_fail(err, status_of(st, rv, otherwise), "%s: %s (%s)", name, what, lib);
}

/* ---- writing ------------------------------------------------------------------ */

void pw_exr_options_default(pw_exr_options *o)
{
    memset(o, 0, sizeof *o);
    o->compression = PW_EXR_ZIP;
    o->float_beauty = 0;
    o->spp = 0;
    o->frame = 0;
    o->fov_deg = 0;
}

/* One channel to write: where its floats come from in the caller's interleaved
 * arrays. */
/* RGBA, albedo (3), depth, noise (2), noisy (4), normal (3), sun */
#define PW_EXR_MAX_CHANNELS 18

typedef struct {
    const char *name;
    exr_pixel_type_t type;
    const float *base; /* first pixel's value */
    int stride;        /* [floats] between pixels */
} out_channel;

/* Fills ch[] in the order EXR requires (sorted by name, byte-wise) and returns the
 * count. Upper-case beauty names sort before the lower-case layer names. */
static int list_channels(const pw_image *img, const pw_exr_options *o, out_channel ch[PW_EXR_MAX_CHANNELS])
{
    exr_pixel_type_t beauty = o->float_beauty ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF;
    int n = 0;
    ch[n++] = (out_channel){"A", beauty, img->rgba + 3, 4};
    ch[n++] = (out_channel){"B", beauty, img->rgba + 2, 4};
    ch[n++] = (out_channel){"G", beauty, img->rgba + 1, 4};
    ch[n++] = (out_channel){"R", beauty, img->rgba + 0, 4};
    if (img->albedo) {
        ch[n++] = (out_channel){"albedo.B", EXR_PIXEL_HALF, img->albedo + 2, 3};
        ch[n++] = (out_channel){"albedo.G", EXR_PIXEL_HALF, img->albedo + 1, 3};
        ch[n++] = (out_channel){"albedo.R", EXR_PIXEL_HALF, img->albedo + 0, 3};
    }
    if (img->depth) ch[n++] = (out_channel){"depth.Z", EXR_PIXEL_FLOAT, img->depth, 1};
    if (img->samples && img->variance) {
        ch[n++] = (out_channel){"noise.samples", EXR_PIXEL_FLOAT, img->samples, 1};
        ch[n++] = (out_channel){"noise.variance", EXR_PIXEL_FLOAT, img->variance, 1};
    }
    /* the unfiltered beauty beside the denoised one, stored alike */
    if (img->noisy) {
        ch[n++] = (out_channel){"noisy.A", beauty, img->noisy + 3, 4};
        ch[n++] = (out_channel){"noisy.B", beauty, img->noisy + 2, 4};
        ch[n++] = (out_channel){"noisy.G", beauty, img->noisy + 1, 4};
        ch[n++] = (out_channel){"noisy.R", beauty, img->noisy + 0, 4};
    }
    if (img->normal) {
        ch[n++] = (out_channel){"normal.X", EXR_PIXEL_HALF, img->normal + 0, 3};
        ch[n++] = (out_channel){"normal.Y", EXR_PIXEL_HALF, img->normal + 1, 3};
        ch[n++] = (out_channel){"normal.Z", EXR_PIXEL_HALF, img->normal + 2, 3};
    }
    if (img->sun) ch[n++] = (out_channel){"sun.T", EXR_PIXEL_HALF, img->sun, 1};
    return n;
}

static exr_result_t write_header(exr_context_t ctx, const pw_image *img,
                                 const pw_exr_options *o, const out_channel *ch, int nch)
{
    static const exr_compression_t comp[] = {EXR_COMPRESSION_ZIP, EXR_COMPRESSION_PIZ,
                                             EXR_COMPRESSION_NONE};
    int part = 0;
    exr_result_t rv = exr_add_part(ctx, "beauty", EXR_STORAGE_SCANLINE, &part);
    if (!rv)
        rv = exr_initialize_required_attr_simple(ctx, part, img->width, img->height,
                                                 comp[o->compression]);
    for (int c = 0; c < nch && !rv; c++)
        /* pLinear says a channel is perceived linearly (chroma-like); light, depth and
         * albedo are not, so no channel carries it, half or float */
        rv = exr_add_channel(ctx, part, ch[c].name, ch[c].type, EXR_PERCEPTUALLY_LOGARITHMIC,
                             1, 1);
    if (!rv) rv = exr_attr_set_string(ctx, part, "powderVersion", POWDER_VERSION);
    if (!rv) rv = exr_attr_set_int(ctx, part, "powder:spp", o->spp);
    if (!rv) rv = exr_attr_set_double(ctx, part, "powder:renderSeconds", o->render_seconds);
    if (!rv) rv = exr_attr_set_int(ctx, part, "powder:frame", o->frame);
    if (!rv && o->scene_name)
        rv = exr_attr_set_string(ctx, part, "powder:scene", o->scene_name);
    if (!rv && o->source) rv = exr_attr_set_string(ctx, part, "powder:source", o->source);
    if (!rv && o->settings)
        rv = exr_attr_set_string(ctx, part, "powder:renderSettings", o->settings);
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    if (!rv) rv = exr_attr_set_string(ctx, part, "powder:seed", seed);
    /* the primaries the tracer's RGB means: Rec.709/sRGB, D65 white (ITU-R BT.709-6;
     * OpenEXR's own default, written so that no reader has to assume it) */
    static const exr_attr_chromaticities_t rec709 = {0.6400f, 0.3300f, 0.3000f, 0.6000f,
                                                     0.1500f, 0.0600f, 0.3127f, 0.3290f};
    if (!rv) rv = exr_attr_set_chromaticities(ctx, part, "chromaticities", &rec709);
    if (!rv && o->has_camera) {
        exr_attr_m44f_t m;
        memcpy(m.m, o->world_to_camera, sizeof m.m);
        rv = exr_attr_set_m44f(ctx, part, "worldToCamera", &m);
        memcpy(m.m, o->world_to_ndc, sizeof m.m);
        if (!rv) rv = exr_attr_set_m44f(ctx, part, "worldToNDC", &m);
        if (!rv) rv = exr_attr_set_double(ctx, part, "powder:fovDeg", o->fov_deg);
    }
    /* how the frame's PNG preview is made, so that `powder png` makes it again */
    if (!rv && o->has_preview) {
        rv = exr_attr_set_double(ctx, part, "powder:previewExposure", o->preview_exposure);
        if (!rv && o->preview_view)
            rv = exr_attr_set_string(ctx, part, "powder:previewView", o->preview_view);
        if (!rv && o->preview_look)
            rv = exr_attr_set_string(ctx, part, "powder:previewLook", o->preview_look);
    }
    if (!rv) rv = exr_write_header(ctx);
    return rv;
}

/* Encodes every scanline chunk from the caller's float arrays; the library converts
 * to half where the channel is half (round to nearest). */
static exr_result_t write_pixels(exr_context_t ctx, const pw_image *img, const out_channel *ch,
                                 int nch)
{
    int32_t lines = 0;
    exr_result_t rv = exr_get_scanlines_per_chunk(ctx, 0, &lines);
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    int started = 0;
    for (int y = 0; y < img->height && !rv; y += lines) {
        exr_chunk_info_t cinfo;
        rv = exr_write_scanline_chunk_info(ctx, 0, y, &cinfo);
        if (rv) break;
        rv = started ? exr_encoding_update(ctx, 0, &cinfo, &enc)
                     : exr_encoding_initialize(ctx, 0, &cinfo, &enc);
        if (rv) break;
        started = 1;
        for (int c = 0; c < enc.channel_count; c++) {
            exr_coding_channel_info_t *cc = &enc.channels[c];
            const out_channel *src = NULL;
            for (int k = 0; k < nch; k++)
                if (strcmp(ch[k].name, cc->channel_name) == 0) src = &ch[k];
            if (!src) return EXR_ERR_INVALID_ARGUMENT; /* cannot happen: we declared them */
            cc->encode_from_ptr =
                (const uint8_t *)(src->base + (size_t)cinfo.start_y * img->width * src->stride);
            cc->user_pixel_stride = src->stride * (int32_t)sizeof(float);
            cc->user_line_stride = img->width * src->stride * (int32_t)sizeof(float);
            cc->user_bytes_per_element = sizeof(float);
            cc->user_data_type = EXR_PIXEL_FLOAT;
        }
        rv = exr_encoding_choose_default_routines(ctx, 0, &enc);
        if (!rv) rv = exr_encoding_run(ctx, 0, &enc);
    }
    if (started) exr_encoding_destroy(ctx, &enc);
    return rv;
}

pw_status pw_exr_write(const char *path, const pw_image *img, const pw_exr_options *opt,
                       pw_error *err)
{
    pw_exr_options defaults;
    if (!opt) {
        pw_exr_options_default(&defaults);
        opt = &defaults;
    }
    if (!img || !img->rgba || img->width <= 0 || img->height <= 0 ||
        (int64_t)img->width * img->height > EXR_MAX_PIXELS)
        return pw_fail(err, PW_EINVAL, "%s: bad image (%d x %d)", path, img ? img->width : 0,
                       img ? img->height : 0);
    if ((unsigned)opt->compression > PW_EXR_NONE)
        return pw_fail(err, PW_EINVAL, "%s: unknown compression (%d)", path,
                       (int)opt->compression);
    if (opt->has_preview) {
        if (!(fabs(opt->preview_exposure) <= PW_EXR_PREVIEW_EXPOSURE_MAX))
            return pw_fail(err, PW_EINVAL, "%s: preview exposure must be in [-%g, %g] stops (%g)",
                           path, PW_EXR_PREVIEW_EXPOSURE_MAX, PW_EXR_PREVIEW_EXPOSURE_MAX,
                           opt->preview_exposure);
        const char *names[2] = {opt->preview_view, opt->preview_look};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) >= PW_EXR_PREVIEW_NAME_CAP)
                return pw_fail(err, PW_EINVAL, "%s: preview %s name of %zu bytes, over %d", path,
                               k ? "look" : "view", strlen(names[k]),
                               PW_EXR_PREVIEW_NAME_CAP - 1);
    }

    char tmp[4096 + 32];
    pw_atomic_tmp_name(path, tmp, sizeof tmp);
    exr_stream st = {.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666)};
    if (st.fd < 0)
        return pw_fail(err, PW_EIO, "%s: cannot create (%s)", tmp, strerror(errno));

    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = quiet_handler;
    init.user_data = &st;
    init.write_fn = stream_write;
    exr_context_t ctx = NULL;
    out_channel ch[PW_EXR_MAX_CHANNELS];
    int nch = list_channels(img, opt, ch);
    exr_result_t rv = exr_start_write(&ctx, tmp, EXR_WRITE_FILE_DIRECTLY, &init);
    if (!rv) rv = write_header(ctx, img, opt, ch, nch);
    if (!rv) rv = write_pixels(ctx, img, ch, nch);
    exr_result_t rv_finish = ctx ? exr_finish(&ctx) : EXR_ERR_SUCCESS;
    if (!rv) rv = rv_finish;
    int close_failed = close(st.fd) != 0;
    if (rv) {
        remove(tmp);
        return exr_fail(err, &st, rv, PW_EIO, path, "cannot write EXR");
    }
    if (close_failed) {
        remove(tmp);
        return pw_fail(err, PW_EIO, "%s: write failed (%s)", tmp, strerror(errno));
    }
    return pw_atomic_rename(tmp, path, err);
}

/* ---- reading ------------------------------------------------------------------ */

/* Where each channel of the part lands in the interleaved output (-1: skipped). */
static int component_of(const char *name, int nc)
{
    if (strcmp(name, "R") == 0) return 0;
    if (strcmp(name, "G") == 0) return 1;
    if (strcmp(name, "B") == 0) return 2;
    if (strcmp(name, "A") == 0 && nc == 4) return 3;
    return -1;
}

/* The decoded image. Rows are allocated as chunks arrive (top to bottom), so memory
 * follows the data actually decoded, not what a damaged header claims. */
typedef struct {
    float *px;   /* rows [0, rows) of w * nc floats */
    size_t rows;
    int w, h, nc;
} image_out;

static exr_result_t ensure_rows(image_out *o, size_t rows)
{
    if (rows <= o->rows) return EXR_ERR_SUCCESS;
    size_t grown = o->rows * 2 > rows ? o->rows * 2 : rows;
    if (grown > (size_t)o->h) grown = (size_t)o->h;
    size_t row_floats = (size_t)o->w * o->nc;
    float *p = realloc(o->px, grown * row_floats * sizeof *p);
    if (!p) return EXR_ERR_OUT_OF_MEMORY;
    memset(p + o->rows * row_floats, 0, (grown - o->rows) * row_floats * sizeof *p);
    o->px = p;
    o->rows = grown;
    return EXR_ERR_SUCCESS;
}

/* Largest unpacked / packed ratio a chunk can honestly have: zlib expands at most
 * 1032:1, RLE 64:1 (two bytes for a run of 128), B44A stores a flat 4x4 block of
 * 32 bytes in 3; PIZ and DWA have no simple bound and get a generous one. A chunk
 * beyond it is damaged, and refusing it stops a tiny file from making the library
 * allocate gigabytes. */
static uint64_t max_expansion(exr_compression_t c)
{
    switch (c) {
    case EXR_COMPRESSION_NONE: return 1;
    case EXR_COMPRESSION_RLE: return 64;
    case EXR_COMPRESSION_ZIPS:
    case EXR_COMPRESSION_ZIP: return 1032;
    case EXR_COMPRESSION_PXR24: return 1032 * 2; /* zlib of 24-bit floats */
    case EXR_COMPRESSION_B44:
    case EXR_COMPRESSION_B44A: return 11;
    default: return (uint64_t)1 << 16;
    }
}

/* Decodes one chunk (scanline block or tile) whose top-left pixel is (x0, y0) relative
 * to the data window into o.
 *
 * OpenEXRCore 3.1.5 picks specialised unpackers for half -> float when the output
 * looks interleaved (forwards or backwards) or planar with a 4-byte pixel step, and
 * chooses them by the part's channel count, not by the channels we fill: the reversed
 * interleave (A, B, G, R sorted order onto R, G, B, A memory) comes out mirrored, and
 * the planar one writes through the NULL pointer of a skipped channel. So each channel
 * goes into its own plane of *scratch with a pixel step of two floats, which only the
 * general unpacker accepts, and is interleaved here. */
static exr_result_t decode_chunk(exr_context_t ctx, const exr_chunk_info_t *cinfo,
                                 exr_decode_pipeline_t *dec, int *started, float **scratch,
                                 size_t *scratch_size, int x0, int y0, image_out *o)
{
    int w = o->w, nc = o->nc;
    /* An uncompressed chunk whose stored size differs from what the header implies
     * is damaged; 3.1.5 would decode it from an uninitialised buffer. */
    exr_compression_t comp = EXR_COMPRESSION_NONE;
    exr_result_t rv = exr_get_compression(ctx, 0, &comp);
    if (rv) return rv;
    if (comp == EXR_COMPRESSION_NONE && cinfo->packed_size != cinfo->unpacked_size)
        return EXR_ERR_CORRUPT_CHUNK;
    if (cinfo->unpacked_size / max_expansion(comp) > cinfo->packed_size + 64)
        return EXR_ERR_CORRUPT_CHUNK;
    rv = ensure_rows(o, (size_t)y0 + (size_t)cinfo->height);
    if (rv) return rv;
    float *out = o->px;
    rv = *started ? exr_decoding_update(ctx, 0, cinfo, dec)
                  : exr_decoding_initialize(ctx, 0, cinfo, dec);
    if (rv) return rv;
    *started = 1;
    size_t cw = (size_t)cinfo->width, ch = (size_t)cinfo->height, plane = cw * ch;
    if (2 * plane * nc > *scratch_size) {
        float *grown = realloc(*scratch, 2 * plane * nc * sizeof(float));
        if (!grown) return EXR_ERR_OUT_OF_MEMORY;
        *scratch = grown;
        *scratch_size = 2 * plane * nc;
    }
    int present[4] = {0, 0, 0, 0};
    for (int c = 0; c < dec->channel_count; c++) {
        exr_coding_channel_info_t *cc = &dec->channels[c];
        int k = component_of(cc->channel_name, nc);
        if (k < 0 || cc->height == 0) {
            cc->decode_to_ptr = NULL; /* other layers are skipped */
            continue;
        }
        present[k] = 1;
        cc->decode_to_ptr = (uint8_t *)(*scratch + 2 * k * plane);
        cc->user_pixel_stride = 2 * sizeof(float);
        cc->user_line_stride = (int32_t)(2 * cw * sizeof(float));
        cc->user_bytes_per_element = sizeof(float);
        cc->user_data_type = EXR_PIXEL_FLOAT;
    }
    rv = exr_decoding_choose_default_routines(ctx, 0, dec);
    if (!rv) rv = exr_decoding_run(ctx, 0, dec);
    if (rv) return rv;
    for (int k = 0; k < nc; k++) {
        if (!present[k]) continue; /* absent alpha keeps its 1 */
        const float *src = *scratch + 2 * k * plane;
        for (size_t y = 0; y < ch; y++) {
            float *dst = out + ((size_t)(y0 + y) * w + x0) * nc + k;
            for (size_t x = 0; x < cw; x++) dst[x * nc] = src[2 * (y * cw + x)];
        }
    }
    return EXR_ERR_SUCCESS;
}

/* Checks that a chunk the library describes stays inside the w x h window. */
static int chunk_inside(const exr_chunk_info_t *c, int x0, int y0, int w, int h)
{
    return x0 >= 0 && y0 >= 0 && c->width >= 0 && c->height >= 0 &&
           (int64_t)x0 + c->width <= w && (int64_t)y0 + c->height <= h;
}

static pw_status read_scanlines(exr_context_t ctx, const exr_stream *st, const char *name,
                                const exr_attr_box2i_t *dw, image_out *o, pw_error *err)
{
    int w = o->w, h = o->h;
    int32_t lines = 0;
    exr_result_t rv = exr_get_scanlines_per_chunk(ctx, 0, &lines);
    if (rv || lines <= 0)
        return exr_fail(err, st, rv, PW_EFORMAT, name, "bad scanline layout");
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int started = 0;
    float *scratch = NULL;
    size_t scratch_size = 0;
    pw_status rc = PW_OK;
    /* Chunks start at multiples of `lines` counted from the window's top. */
    for (int64_t y = dw->min.y; y <= dw->max.y && rc == PW_OK; y += lines) {
        exr_chunk_info_t cinfo;
        rv = exr_read_scanline_chunk_info(ctx, 0, (int)y, &cinfo);
        if (rv) {
            rc = exr_fail(err, st, rv, PW_EFORMAT, name, "bad scanline chunk");
            break;
        }
        int y0 = (int)((int64_t)cinfo.start_y - dw->min.y);
        if (!chunk_inside(&cinfo, 0, y0, w, h) || cinfo.width != w) {
            rc = pw_fail(err, PW_EFORMAT, "%s: scanline chunk %d outside the data window (y %d)",
                         name, cinfo.idx, cinfo.start_y);
            break;
        }
        rv = decode_chunk(ctx, &cinfo, &dec, &started, &scratch, &scratch_size, 0, y0, o);
        if (rv) rc = exr_fail(err, st, rv, PW_EFORMAT, name, "cannot decode scanlines");
    }
    if (started) exr_decoding_destroy(ctx, &dec);
    free(scratch);
    return rc;
}

static pw_status read_tiles(exr_context_t ctx, const exr_stream *st, const char *name,
                            image_out *o, pw_error *err)
{
    int w = o->w, h = o->h;
    int32_t tw = 0, th = 0, lw = 0, lh = 0;
    exr_result_t rv = exr_get_tile_sizes(ctx, 0, 0, 0, &tw, &th);
    if (!rv) rv = exr_get_level_sizes(ctx, 0, 0, 0, &lw, &lh);
    if (rv || tw <= 0 || th <= 0 || tw > EXR_MAX_TILE_SIDE || th > EXR_MAX_TILE_SIDE ||
        lw != w || lh != h)
        return exr_fail(err, st, rv, PW_EFORMAT, name, "bad tile layout");
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int started = 0;
    float *scratch = NULL;
    size_t scratch_size = 0;
    pw_status rc = PW_OK;
    int nx = (int)(((int64_t)w + tw - 1) / tw), ny = (int)(((int64_t)h + th - 1) / th);
    for (int ty = 0; ty < ny && rc == PW_OK; ty++) {
        for (int tx = 0; tx < nx && rc == PW_OK; tx++) {
            exr_chunk_info_t cinfo;
            rv = exr_read_tile_chunk_info(ctx, 0, tx, ty, 0, 0, &cinfo);
            if (rv) {
                rc = exr_fail(err, st, rv, PW_EFORMAT, name, "bad tile");
                break;
            }
            int x0 = tx * tw, y0 = ty * th;
            if (!chunk_inside(&cinfo, x0, y0, w, h)) {
                rc = pw_fail(err, PW_EFORMAT, "%s: tile (%d, %d) outside the data window", name,
                             tx, ty);
                break;
            }
            rv = decode_chunk(ctx, &cinfo, &dec, &started, &scratch, &scratch_size, x0, y0, o);
            if (rv) rc = exr_fail(err, st, rv, PW_EFORMAT, name, "cannot decode tile");
        }
    }
    if (started) exr_decoding_destroy(ctx, &dec);
    free(scratch);
    return rc;
}

/* Validates the first part and finds its window; fills *has_alpha. */
static pw_status check_part(exr_context_t ctx, const exr_stream *st, const char *name,
                            exr_attr_box2i_t *dw, int *w, int *h, exr_storage_t *storage,
                            int *has_alpha, pw_error *err)
{
    int nparts = 0;
    exr_result_t rv = exr_get_count(ctx, &nparts);
    if (rv || nparts < 1) return exr_fail(err, st, rv, PW_EFORMAT, name, "no image part");
    rv = exr_get_storage(ctx, 0, storage);
    if (rv) return exr_fail(err, st, rv, PW_EFORMAT, name, "unknown storage");
    if (*storage != EXR_STORAGE_SCANLINE && *storage != EXR_STORAGE_TILED)
        return pw_fail(err, PW_EUNSUPPORTED, "%s: deep images are not supported (storage %d)",
                       name, (int)*storage);
    rv = exr_get_data_window(ctx, 0, dw);
    if (rv) return exr_fail(err, st, rv, PW_EFORMAT, name, "no data window");
    int64_t w64 = (int64_t)dw->max.x - dw->min.x + 1, h64 = (int64_t)dw->max.y - dw->min.y + 1;
    if (w64 <= 0 || h64 <= 0 || w64 > EXR_MAX_SIDE || h64 > EXR_MAX_SIDE ||
        w64 * h64 > EXR_MAX_PIXELS)
        return pw_fail(err, PW_EFORMAT, "%s: unreasonable data window (%lld x %lld pixels)",
                       name, (long long)w64, (long long)h64);
    *w = (int)w64;
    *h = (int)h64;

    const exr_attr_chlist_t *chl = NULL;
    rv = exr_get_channels(ctx, 0, &chl);
    if (rv || !chl) return exr_fail(err, st, rv, PW_EFORMAT, name, "no channel list");
    int found[4] = {0, 0, 0, 0};
    for (int c = 0; c < chl->num_channels; c++) {
        const exr_attr_chlist_entry_t *e = &chl->entries[c];
        int k = component_of(e->name.str, 4);
        if (k < 0) continue;
        if (e->x_sampling != 1 || e->y_sampling != 1)
            return pw_fail(err, PW_EUNSUPPORTED, "%s: channel %s is subsampled (%d x %d)",
                           name, e->name.str, e->x_sampling, e->y_sampling);
        found[k] = 1;
    }
    static const char *const rgb = "RGB";
    for (int k = 0; k < 3; k++)
        if (!found[k])
            return pw_fail(err, PW_EFORMAT, "%s: no %c channel (%d channels in part 0)", name,
                           rgb[k], chl->num_channels);
    *has_alpha = found[3];
    return PW_OK;
}

/* Rejects NaN and infinite colours: one would poison every pixel that samples it. */
static pw_status check_finite(const char *name, const float *px, int w, int h, int nc,
                              pw_error *err)
{
    for (size_t i = 0; i < (size_t)w * h * nc; i++)
        if (!isfinite(px[i]))
            return pw_fail(err, PW_ENUMERIC, "%s: pixel (%zu, %zu) channel %c is not finite (%g)",
                           name, (i / nc) % w, (i / nc) / w, "RGBA"[i % nc], px[i]);
    return PW_OK;
}

/* Opens st for reading and parses its header, with our size limits and a silent
 * library; with `complaints`, what the library skips as damaged while parsing reaches
 * st->last_msg (else it is not reported at all). */
static pw_status open_header_as(exr_stream *st, const char *name, int complaints,
                                exr_context_t *ctx, pw_error *err)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = quiet_handler;
    init.user_data = st;
    init.read_fn = stream_read;
    init.size_fn = stream_size;
    init.max_image_width = EXR_MAX_SIDE;
    init.max_image_height = EXR_MAX_SIDE;
    init.max_tile_width = EXR_MAX_TILE_SIDE;
    init.max_tile_height = EXR_MAX_TILE_SIDE;
    init.flags = complaints ? 0 : EXR_CONTEXT_FLAG_SILENT_HEADER_PARSE;
    *ctx = NULL;
    exr_result_t rv = exr_start_read(ctx, name, &init);
    if (rv) {
        if (*ctx) exr_finish(ctx);
        return exr_fail(err, st, rv, PW_EFORMAT, name, "not a readable EXR header");
    }
    return PW_OK;
}

static pw_status open_header(exr_stream *st, const char *name, exr_context_t *ctx, pw_error *err)
{
    return open_header_as(st, name, 0, ctx, err);
}

/* The common reader: nc = 3 (RGB) or 4 (RGBA, alpha 1 when absent). */
static pw_status read_stream(exr_stream *st, const char *name, int nc, int *width, int *height,
                             float **pixels, pw_error *err)
{
    exr_context_t ctx;
    pw_status open_rc = open_header(st, name, &ctx, err);
    if (open_rc != PW_OK) return open_rc;
    exr_attr_box2i_t dw;
    exr_storage_t storage;
    int w = 0, h = 0, has_alpha = 0;
    pw_status rc = check_part(ctx, st, name, &dw, &w, &h, &storage, &has_alpha, err);
    image_out o = {NULL, 0, w, h, nc};
    if (rc == PW_OK)
        rc = storage == EXR_STORAGE_TILED ? read_tiles(ctx, st, name, &o, err)
                                          : read_scanlines(ctx, st, name, &dw, &o, err);
    if (rc == PW_OK && ensure_rows(&o, (size_t)h) != EXR_ERR_SUCCESS)
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory (%d x %d pixels)", name, w, h);
    float *px = o.px;
    if (rc == PW_OK && nc == 4 && !has_alpha)
        for (size_t i = 0; i < (size_t)w * h; i++) px[4 * i + 3] = 1.0f;
    if (rc == PW_OK) rc = check_finite(name, px, w, h, nc, err);
    exr_finish(&ctx);
    if (rc != PW_OK) {
        free(px);
        return rc;
    }
    *width = w;
    *height = h;
    *pixels = px;
    return PW_OK;
}

static pw_status read_file(const char *path, int nc, int *width, int *height, float **px,
                           pw_error *err)
{
    exr_stream st = {.fd = open(path, O_RDONLY)};
    if (st.fd < 0) return pw_fail_open(err, path, errno);
    pw_status rc = read_stream(&st, path, nc, width, height, px, err);
    close(st.fd);
    return rc;
}

pw_status pw_exr_read_rgb(const char *path, int *width, int *height, float **rgb,
                          pw_error *err)
{
    return read_file(path, 3, width, height, rgb, err);
}

pw_status pw_exr_read_rgba(const char *path, int *width, int *height, float **rgba,
                           pw_error *err)
{
    return read_file(path, 4, width, height, rgba, err);
}

pw_status pw_exr_read_string(const char *path, const char *attr, char *out, size_t cap,
                             pw_error *err)
{
    exr_stream st = {.fd = open(path, O_RDONLY)};
    if (st.fd < 0) return pw_fail_open(err, path, errno);
    exr_context_t ctx;
    pw_status rc = open_header(&st, path, &ctx, err);
    if (rc == PW_OK) {
        int32_t len = 0;
        const char *text = NULL;
        if (exr_attr_get_string(ctx, 0, attr, &len, &text) != EXR_ERR_SUCCESS || !text || len < 0)
            rc = pw_fail(err, PW_EFORMAT, "%s: no string attribute '%s'", path, attr);
        else if ((size_t)len >= cap)
            rc = pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is %d bytes, over %zu", path, attr,
                         (int)len, cap - 1);
        else {
            memcpy(out, text, (size_t)len);
            out[len] = 0;
        }
        exr_finish(&ctx);
    }
    close(st.fd);
    return rc;
}

/* One recorded preview name into out ("" when absent). */
static pw_status preview_name(exr_context_t ctx, const char *path, const char *attr, char *out,
                              pw_error *err)
{
    out[0] = '\0';
    const exr_attribute_t *a = NULL;
    if (exr_get_attribute_by_name(ctx, 0, attr, &a) != EXR_ERR_SUCCESS || !a) return PW_OK;
    if (a->type != EXR_ATTR_STRING || !a->string || !a->string->str || a->string->length < 0)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is of type '%s', not a string",
                       path, attr, a->type_name ? a->type_name : "?");
    if (a->string->length >= PW_EXR_PREVIEW_NAME_CAP)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is %d bytes, over %d", path, attr,
                       (int)a->string->length, PW_EXR_PREVIEW_NAME_CAP - 1);
    memcpy(out, a->string->str, (size_t)a->string->length);
    out[a->string->length] = '\0';
    if (strlen(out) != (size_t)a->string->length)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' holds a zero byte", path, attr);
    return PW_OK;
}

/* The recorded preview exposure, when there is one. */
static pw_status preview_exposure(exr_context_t ctx, const char *path, pw_exr_preview *out,
                                  pw_error *err)
{
    static const char *const attr = "powder:previewExposure";
    const exr_attribute_t *a = NULL;
    out->has_exposure = 0;
    out->exposure = 0;
    if (exr_get_attribute_by_name(ctx, 0, attr, &a) != EXR_ERR_SUCCESS || !a) return PW_OK;
    if (a->type != EXR_ATTR_DOUBLE)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' is of type '%s', not a double",
                       path, attr, a->type_name ? a->type_name : "?");
    if (!(fabs(a->d) <= PW_EXR_PREVIEW_EXPOSURE_MAX))
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' must be in [-%g, %g] stops (%g)",
                       path, attr, PW_EXR_PREVIEW_EXPOSURE_MAX, PW_EXR_PREVIEW_EXPOSURE_MAX, a->d);
    out->has_exposure = 1;
    out->exposure = a->d;
    return PW_OK;
}

pw_status pw_exr_read_preview(const char *path, pw_exr_preview *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    exr_stream st = {.fd = open(path, O_RDONLY)};
    if (st.fd < 0) return pw_fail_open(err, path, errno);
    exr_context_t ctx;
    pw_status rc = open_header_as(&st, path, 1, &ctx, err);
    /* the library parses past an attribute it cannot read, dropping it (and may misread
     * those after it): a record it complained about cannot be trusted */
    if (rc == PW_OK && st.last_msg[0]) {
        rc = pw_fail(err, PW_EFORMAT, "%s: damaged header, the preview record cannot be "
                     "trusted (%s)", path, st.last_msg);
        exr_finish(&ctx);
    } else if (rc == PW_OK) {
        rc = preview_exposure(ctx, path, out, err);
        if (rc == PW_OK) rc = preview_name(ctx, path, "powder:previewView", out->view, err);
        if (rc == PW_OK) rc = preview_name(ctx, path, "powder:previewLook", out->look, err);
        exr_finish(&ctx);
    }
    close(st.fd);
    if (rc != PW_OK) memset(out, 0, sizeof *out);
    return rc;
}

pw_status pw_exr_read_m44f(const char *path, const char *attr, float out[16], pw_error *err)
{
    exr_stream st = {.fd = open(path, O_RDONLY)};
    if (st.fd < 0) return pw_fail_open(err, path, errno);
    exr_context_t ctx;
    pw_status rc = open_header(&st, path, &ctx, err);
    if (rc == PW_OK) {
        exr_attr_m44f_t m;
        if (exr_attr_get_m44f(ctx, 0, attr, &m) != EXR_ERR_SUCCESS)
            rc = pw_fail(err, PW_EFORMAT, "%s: no m44f attribute '%s'", path, attr);
        else
            memcpy(out, m.m, 16 * sizeof *out);
        exr_finish(&ctx);
    }
    close(st.fd);
    return rc;
}

pw_status pw_exr_read_rgba_memory(const char *name, const void *data, size_t size, int *width,
                                  int *height, float **rgba, pw_error *err)
{
    exr_stream st = {.fd = -1, .mem = data, .mem_size = size};
    return read_stream(&st, name, 4, width, height, rgba, err);
}
