/* Property: what pw_exr_write stores is what it was given, and pw_exr_read_rgb/_rgba
 * return what any EXR holds.
 *
 * Frames written by pw_exr_write are read back with OpenEXRCore directly (not with our
 * reader), so a symmetric bug cannot hide: channel names, types and the data window are
 * exact; half channels are within half an ulp of the float input (|x| 2^-11 for
 * normal halves, 2^-25 absolute below 2^-14: round to nearest can do no worse); float
 * channels (depth.Z, float beauty) are bit-exact, INFINITY included; metadata
 * attributes have the exact values written. Env maps in every storage and type we claim
 * to read (scanline and tiled, half, float and uint, NONE/RLE/ZIPS/ZIP/PIZ/PXR24, a data
 * window not at the origin, sizes that are not multiples of the chunk or tile size) are
 * written here with OpenEXRCore and must come back exactly: the values are chosen
 * representable in half, and all those codecs are lossless for them.
 *
 * Cases: 1.x frames (ZIP, PIZ, NONE, float beauty, 1x1), 2.x env maps, 3.x atomicity. */
#include <openexr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "exr.h"
#include "pw_file.h"

/* ---- a direct OpenEXRCore reader (independent of render/exr.c) ----------- */

static void silent(exr_const_context_t c, exr_result_t code, const char *msg)
{
    (void)c;
    (void)code;
    (void)msg;
}

typedef struct {
    int nch;
    char names[16][32];
    exr_pixel_type_t types[16];
    int w, h;
    float *planes[16]; /* w*h each, rows top down */
} raw_image;

static void raw_free(raw_image *r)
{
    for (int c = 0; c < r->nch; c++) free(r->planes[c]);
}

static const float *raw_plane(const raw_image *r, const char *name)
{
    for (int c = 0; c < r->nch; c++)
        if (strcmp(r->names[c], name) == 0) return r->planes[c];
    return NULL;
}

static exr_result_t raw_decode(exr_context_t ctx, const exr_chunk_info_t *ci, raw_image *r,
                               int y0)
{
    exr_decode_pipeline_t d = EXR_DECODE_PIPELINE_INITIALIZER;
    exr_result_t rv = exr_decoding_initialize(ctx, 0, ci, &d);
    for (int c = 0; c < d.channel_count && !rv; c++) {
        int k = 0;
        while (k < r->nch && strcmp(r->names[k], d.channels[c].channel_name) != 0) k++;
        d.channels[c].decode_to_ptr = (uint8_t *)(r->planes[k] + (size_t)y0 * r->w);
        d.channels[c].user_pixel_stride = 4;
        d.channels[c].user_line_stride = 4 * r->w;
        d.channels[c].user_bytes_per_element = 4;
        d.channels[c].user_data_type = EXR_PIXEL_FLOAT;
    }
    if (!rv) rv = exr_decoding_choose_default_routines(ctx, 0, &d);
    if (!rv) rv = exr_decoding_run(ctx, 0, &d);
    exr_decoding_destroy(ctx, &d);
    return rv;
}

/* Scanline files only (what pw_exr_write produces). Returns the open context in *out
 * for attribute checks; the caller finishes it. */
static int raw_read(const char *path, raw_image *r, exr_context_t *out)
{
    memset(r, 0, sizeof *r);
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = silent;
    exr_context_t ctx = NULL;
    if (exr_start_read(&ctx, path, &init)) return 0;
    exr_attr_box2i_t dw;
    const exr_attr_chlist_t *cl;
    int32_t lines;
    exr_get_data_window(ctx, 0, &dw);
    exr_get_channels(ctx, 0, &cl);
    exr_get_scanlines_per_chunk(ctx, 0, &lines);
    r->w = dw.max.x - dw.min.x + 1;
    r->h = dw.max.y - dw.min.y + 1;
    r->nch = cl->num_channels < 16 ? cl->num_channels : 16;
    for (int c = 0; c < r->nch; c++) {
        snprintf(r->names[c], sizeof r->names[c], "%s", cl->entries[c].name.str);
        r->types[c] = cl->entries[c].pixel_type;
        r->planes[c] = calloc((size_t)r->w * r->h, sizeof(float));
    }
    exr_result_t rv = 0;
    for (int y = dw.min.y; y <= dw.max.y && !rv; y += lines) {
        exr_chunk_info_t ci;
        rv = exr_read_scanline_chunk_info(ctx, 0, y, &ci);
        if (!rv) rv = raw_decode(ctx, &ci, r, ci.start_y - dw.min.y);
    }
    *out = ctx;
    return rv == 0;
}

/* ---- an env map writer in every layout (OpenEXRCore) --------------------- */

typedef struct {
    exr_storage_t storage;
    exr_pixel_type_t type;
    exr_compression_t comp;
    int tile;        /* tile side when tiled */
    int mip;         /* tiled: write a mipmap level mode (level 0 is all we fill) */
    int x0, y0;      /* data window origin */
    int with_alpha;
} env_layout;

static int env_write(const char *path, const env_layout *L, int w, int h, const float *rgba)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = silent;
    exr_context_t ctx = NULL;
    int part = 0;
    exr_result_t rv = exr_start_write(&ctx, path, EXR_WRITE_FILE_DIRECTLY, &init);
    if (!rv) rv = exr_add_part(ctx, "env", L->storage, &part);
    exr_attr_box2i_t dw;
    dw.min.x = L->x0;
    dw.min.y = L->y0;
    dw.max.x = L->x0 + w - 1;
    dw.max.y = L->y0 + h - 1;
    exr_attr_v2f_t swc;
    swc.x = swc.y = 0;
    if (!rv)
        rv = exr_initialize_required_attr(ctx, part, &dw, &dw, 1.0f, &swc, 1.0f,
                                          EXR_LINEORDER_INCREASING_Y, L->comp);
    const char *names[4] = {"A", "B", "G", "R"};
    const int comp_of[4] = {3, 2, 1, 0};
    for (int c = L->with_alpha ? 0 : 1; c < 4 && !rv; c++)
        rv = exr_add_channel(ctx, part, names[c], L->type, EXR_PERCEPTUALLY_LINEAR, 1, 1);
    if (!rv && L->storage == EXR_STORAGE_TILED)
        rv = exr_set_tile_descriptor(ctx, part, L->tile, L->tile,
                                     L->mip ? EXR_TILE_MIPMAP_LEVELS : EXR_TILE_ONE_LEVEL,
                                     EXR_TILE_ROUND_DOWN);
    if (!rv) rv = exr_write_header(ctx);
    /* uint channels take uint input */
    uint32_t *u = NULL;
    if (L->type == EXR_PIXEL_UINT) {
        u = malloc(sizeof *u * 4 * w * h);
        for (int i = 0; i < 4 * w * h; i++) u[i] = (uint32_t)rgba[i];
    }
    int nlevels = 1;
    if (!rv && L->storage == EXR_STORAGE_TILED && L->mip) {
        int32_t lx, ly;
        exr_get_tile_levels(ctx, part, &lx, &ly);
        nlevels = lx;
    }
    int32_t lines = 1;
    if (!rv && L->storage == EXR_STORAGE_SCANLINE) exr_get_scanlines_per_chunk(ctx, part, &lines);
    for (int level = 0; level < nlevels && !rv; level++) {
        int32_t lw = w, lh = h;
        exr_get_level_sizes(ctx, part, level, level, &lw, &lh);
        int step_y = L->storage == EXR_STORAGE_TILED ? L->tile : lines;
        int step_x = L->storage == EXR_STORAGE_TILED ? L->tile : lw;
        for (int y = 0; y < lh && !rv; y += step_y) {
            for (int x = 0; x < lw && !rv; x += step_x) {
                exr_chunk_info_t ci;
                rv = L->storage == EXR_STORAGE_TILED
                         ? exr_write_tile_chunk_info(ctx, part, x / L->tile, y / L->tile, level,
                                                     level, &ci)
                         : exr_write_scanline_chunk_info(ctx, part, L->y0 + y, &ci);
                exr_encode_pipeline_t e = EXR_ENCODE_PIPELINE_INITIALIZER;
                if (!rv) rv = exr_encoding_initialize(ctx, part, &ci, &e);
                for (int c = 0; c < e.channel_count && !rv; c++) {
                    int k = 0;
                    while (strcmp(names[k], e.channels[c].channel_name) != 0) k++;
                    /* coarser levels just reuse the top-left of level 0 */
                    size_t off = ((size_t)y * w + x) * 4 + comp_of[k];
                    e.channels[c].encode_from_ptr =
                        u ? (const uint8_t *)(u + off) : (const uint8_t *)(rgba + off);
                    e.channels[c].user_pixel_stride = 16;
                    e.channels[c].user_line_stride = 16 * w;
                    e.channels[c].user_bytes_per_element = 4;
                    e.channels[c].user_data_type = u ? EXR_PIXEL_UINT : EXR_PIXEL_FLOAT;
                }
                if (!rv) rv = exr_encoding_choose_default_routines(ctx, part, &e);
                if (!rv) rv = exr_encoding_run(ctx, part, &e);
                exr_encoding_destroy(ctx, &e);
            }
        }
    }
    free(u);
    exr_result_t rf = exr_finish(&ctx);
    return rv == 0 && rf == 0;
}

/* ---- helpers --------------------------------------------------------------- */

/* Largest error of round-to-nearest float -> half. */
static double half_tol(double x)
{
    double a = fabs(x);
    return a >= 6.103515625e-05 ? a * 0x1p-11 : 0x1p-25;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static pw_image make_frame(int w, int h, float **rgba, float **depth, float **albedo)
{
    *rgba = malloc(sizeof(float) * 4 * w * h);
    *depth = malloc(sizeof(float) * w * h);
    *albedo = malloc(sizeof(float) * 3 * w * h);
    uint32_t s = 12345;
    for (int i = 0; i < w * h; i++) {
        for (int c = 0; c < 4; c++) {
            s = s * 1664525u + 1013904223u;
            double u = (s >> 8) * 0x1p-24;
            /* spread over many binades, including tiny and subnormal halves */
            (*rgba)[4 * i + c] = (float)(c == 3 ? u : u * pow(2, (double)(i % 30) - 20));
        }
        (*depth)[i] = (i % 7 == 0) ? INFINITY : (float)(0.1 + 0.37 * i);
        for (int c = 0; c < 3; c++) (*albedo)[3 * i + c] = (float)((i * 3 + c) % 101) / 100.0f;
    }
    pw_image img = {w, h, *rgba, *depth, *albedo, NULL, NULL, NULL, NULL, NULL};
    return img;
}

static void check_attrs(exr_context_t ctx, const pw_exr_options *o, const char *what)
{
    int32_t iv = -1;
    double dv = -1;
    const char *sv = NULL;
    int32_t len = 0;
    exr_attr_m44f_t m;
    CHECK(exr_attr_get_int(ctx, 0, "powder:spp", &iv) == 0 && iv == o->spp, "%s: spp %d", what,
          iv);
    CHECK(exr_attr_get_int(ctx, 0, "powder:frame", &iv) == 0 && iv == o->frame, "%s: frame %d",
          what, iv);
    CHECK(exr_attr_get_double(ctx, 0, "powder:renderSeconds", &dv) == 0 &&
              dv == o->render_seconds, "%s: render seconds %g", what, dv);
    CHECK(exr_attr_get_string(ctx, 0, "powder:scene", &len, &sv) == 0 && sv &&
              strcmp(sv, o->scene_name) == 0, "%s: scene name", what);
    CHECK(exr_attr_get_string(ctx, 0, "powderVersion", &len, &sv) == 0 && sv &&
              strcmp(sv, POWDER_VERSION) == 0, "%s: version", what);
    CHECK(exr_attr_get_m44f(ctx, 0, "worldToCamera", &m) == 0 &&
              memcmp(m.m, o->world_to_camera, sizeof m.m) == 0, "%s: worldToCamera", what);
    CHECK(exr_attr_get_m44f(ctx, 0, "worldToNDC", &m) == 0 &&
              memcmp(m.m, o->world_to_ndc, sizeof m.m) == 0, "%s: worldToNDC", what);
    CHECK(exr_attr_get_double(ctx, 0, "powder:fovDeg", &dv) == 0 && dv == o->fov_deg,
          "%s: fov %g", what, dv);
}

/* ---- 1.x frames ----------------------------------------------------------- */

static void frame_case(const char *id, pw_exr_compression comp, int float_beauty, int w, int h,
                       int aovs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/exr_round_trip_%s.exr", POWDER_TEST_TMP, id);
    float *rgba, *depth, *albedo;
    pw_image img = make_frame(w, h, &rgba, &depth, &albedo);
    if (!aovs) img.depth = NULL, img.albedo = NULL;
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.compression = comp;
    o.float_beauty = float_beauty;
    o.spp = 256;
    o.render_seconds = 12.5;
    o.frame = 17;
    o.scene_name = "avalanche";
    o.has_camera = 1;
    for (int k = 0; k < 16; k++) {
        o.world_to_camera[k] = (float)(k * 0.25 - 1);
        o.world_to_ndc[k] = (float)(k * k * 0.125);
    }
    o.fov_deg = 39.6;
    pw_error err = {0};
    pw_status rc = pw_exr_write(path, &img, &o, &err);
    CHECK(rc == PW_OK, "%s: write: %s", id, err.msg);

    raw_image r;
    exr_context_t ctx = NULL;
    CHECK(raw_read(path, &r, &ctx), "%s: OpenEXRCore cannot read it back", id);
    static const char *const expect[8] = {"A", "B", "G", "R", "albedo.B", "albedo.G",
                                          "albedo.R", "depth.Z"};
    exr_pixel_type_t beauty = float_beauty ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF;
    const exr_pixel_type_t etype[8] = {beauty, beauty, beauty, beauty, EXR_PIXEL_HALF,
                                       EXR_PIXEL_HALF, EXR_PIXEL_HALF, EXR_PIXEL_FLOAT};
    CHECK(r.nch == (aovs ? 8 : 4), "%s: %d channels", id, r.nch);
    for (int c = 0; c < r.nch && c < 8; c++) {
        CHECK(strcmp(r.names[c], expect[c]) == 0, "%s: channel %d is %s, want %s", id, c,
              r.names[c], expect[c]);
        CHECK(r.types[c] == etype[c], "%s: channel %s type %d", id, r.names[c], (int)r.types[c]);
    }
    CHECK(r.w == w && r.h == h, "%s: size %d x %d", id, r.w, r.h);
    exr_compression_t ct;
    static const exr_compression_t ecomp[] = {EXR_COMPRESSION_ZIP, EXR_COMPRESSION_PIZ,
                                              EXR_COMPRESSION_NONE};
    CHECK(ctx && exr_get_compression(ctx, 0, &ct) == 0 && ct == ecomp[comp], "%s: compression",
          id);
    if (ctx) check_attrs(ctx, &o, id);
    if (ctx) exr_finish(&ctx);

    /* pixel values */
    const char *beauty_names[4] = {"R", "G", "B", "A"};
    const char *albedo_names[3] = {"albedo.R", "albedo.G", "albedo.B"};
    double worst_rel = 0;
    int bad = 0;
    for (int c = 0; c < 4; c++) {
        const float *p = raw_plane(&r, beauty_names[c]);
        for (int i = 0; p && i < w * h; i++) {
            double x = rgba[4 * i + c], y = p[i];
            if (float_beauty ? !same_bits((float)x, (float)y) : fabs(x - y) > half_tol(x)) bad++;
            if (fabs(x) >= 6.103515625e-05) worst_rel = fmax(worst_rel, fabs(x - y) / fabs(x));
        }
    }
    CHECK(bad == 0, "%s: %d beauty values off", id, bad);
    bad = 0;
    for (int c = 0; c < 3; c++) {
        const float *p = raw_plane(&r, albedo_names[c]);
        for (int i = 0; p && i < w * h; i++)
            if (fabs(albedo[3 * i + c] - p[i]) > half_tol(albedo[3 * i + c])) bad++;
    }
    const float *z = raw_plane(&r, "depth.Z");
    for (int i = 0; z && i < w * h; i++)
        if (!same_bits(z[i], depth[i])) bad++;
    CHECK(bad == 0, "%s: %d AOV values off", id, bad);
    printf("%s: %dx%d, worst relative error of normal-range beauty %.3g (bound %s)\n", id, w,
           h, worst_rel, float_beauty ? "0" : "2^-11 = 4.88e-4");

    /* our reader agrees with OpenEXRCore's decode */
    int rw = 0, rh = 0;
    float *back = NULL, *back3 = NULL;
    rc = pw_exr_read_rgba(path, &rw, &rh, &back, &err);
    CHECK(rc == PW_OK && rw == w && rh == h, "%s: pw_exr_read_rgba: %s", id, err.msg);
    rc = pw_exr_read_rgb(path, &rw, &rh, &back3, &err);
    CHECK(rc == PW_OK && rw == w && rh == h, "%s: pw_exr_read_rgb: %s", id, err.msg);
    bad = 0;
    for (int c = 0; back && back3 && c < 4; c++) {
        const float *p = raw_plane(&r, beauty_names[c]);
        for (int i = 0; p && i < w * h; i++) {
            if (!same_bits(back[4 * i + c], p[i])) bad++;
            if (c < 3 && !same_bits(back3[3 * i + c], p[i])) bad++;
        }
    }
    CHECK(bad == 0, "%s: pw_exr_read_* differs from OpenEXRCore in %d values", id, bad);
    free(back);
    free(back3);
    raw_free(&r);
    free(rgba);
    free(depth);
    free(albedo);
}

/* ---- 2.x env maps ------------------------------------------------------------- */

static void env_case(const char *id, env_layout L, int w, int h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/exr_env_%s.exr", POWDER_TEST_TMP, id);
    float *src = malloc(sizeof(float) * 4 * w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) /* multiples of 1/8 below 256: exact in half */
                src[4 * (y * w + x) + c] =
                    L.type == EXR_PIXEL_UINT ? (float)(x * 7 + y * 3 + c)
                                             : (float)((x * 7 + y * 13 + c * 5) % 2040) / 8.0f;
    CHECK(env_write(path, &L, w, h, src), "%s: test writer failed", id);
    pw_error err = {0};
    int rw = 0, rh = 0;
    float *rgb = NULL, *rgba = NULL;
    pw_status rc = pw_exr_read_rgb(path, &rw, &rh, &rgb, &err);
    CHECK(rc == PW_OK && rw == w && rh == h, "%s: read_rgb: %s (%d x %d)", id, err.msg, rw, rh);
    rc = pw_exr_read_rgba(path, &rw, &rh, &rgba, &err);
    CHECK(rc == PW_OK && rw == w && rh == h, "%s: read_rgba: %s", id, err.msg);
    int bad = 0;
    for (int i = 0; rgb && rgba && i < w * h; i++) {
        for (int c = 0; c < 3; c++) {
            if (rgb[3 * i + c] != src[4 * i + c]) bad++;
            if (rgba[4 * i + c] != src[4 * i + c]) bad++;
        }
        if (rgba[4 * i + 3] != (L.with_alpha ? src[4 * i + 3] : 1.0f)) bad++;
    }
    CHECK(bad == 0, "%s: %d values differ", id, bad);
    free(rgb);
    free(rgba);
    free(src);
}

/* ---- 3.x atomic output ------------------------------------------------------- */

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static void atomic_cases(void)
{
    float px[4] = {1, 2, 3, 1};
    pw_image img = {1, 1, px, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    char path[4096], tmp[4200];
    pw_error err = {0};

    /* 3.1 a good write leaves only the final name */
    snprintf(path, sizeof path, "%s/exr_atomic.exr", POWDER_TEST_TMP);
    pw_atomic_tmp_name(path, tmp, sizeof tmp);
    CHECK(pw_exr_write(path, &img, NULL, &err) == PW_OK, "3.1: %s", err.msg);
    CHECK(exists(path) && !exists(tmp), "3.1: final file present, temporary gone");

    /* 3.2 an unwritable place gives PW_EIO naming the file and leaves nothing */
    snprintf(path, sizeof path, "%s/no_such_dir/x.exr", POWDER_TEST_TMP);
    pw_atomic_tmp_name(path, tmp, sizeof tmp);
    err.msg[0] = '\0';
    CHECK(pw_exr_write(path, &img, NULL, &err) == PW_EIO && strstr(err.msg, "x.exr"),
          "3.2: %s", err.msg);
    CHECK(!exists(path) && !exists(tmp), "3.2: nothing left");

    /* 3.3 bad arguments are refused before touching the disk */
    pw_image empty = {0, 4, px, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    snprintf(path, sizeof path, "%s/exr_empty.exr", POWDER_TEST_TMP);
    CHECK(pw_exr_write(path, &empty, NULL, &err) == PW_EINVAL && !exists(path), "3.3: %s",
          err.msg);
}

int main(void)
{
    /* 1.1-1.5 frames through pw_exr_write */
    frame_case("1.1_zip", PW_EXR_ZIP, 0, 61, 37, 1);
    frame_case("1.2_piz", PW_EXR_PIZ, 0, 61, 37, 1);
    frame_case("1.3_none", PW_EXR_NONE, 0, 61, 37, 1);
    frame_case("1.4_float_beauty", PW_EXR_ZIP, 1, 33, 20, 1);
    frame_case("1.5_one_pixel", PW_EXR_PIZ, 0, 1, 1, 1);
    /* 1.6-1.7 beauty alone: the part has exactly 4 channels, which selects other
     * conversion routines inside OpenEXRCore */
    frame_case("1.6_rgba_only_zip", PW_EXR_ZIP, 0, 61, 37, 0);
    frame_case("1.7_rgba_only_float_none", PW_EXR_NONE, 1, 17, 40, 0);

    /* 2.x env maps in other layouts */
    env_layout L = {EXR_STORAGE_SCANLINE, EXR_PIXEL_HALF, EXR_COMPRESSION_ZIP, 0, 0, 0, 0, 1};
    env_case("2.1_scan_half_zip", L, 64, 32);
    L.type = EXR_PIXEL_FLOAT, L.comp = EXR_COMPRESSION_PIZ, L.with_alpha = 0;
    env_case("2.2_scan_float_piz_noalpha", L, 45, 19);
    L.type = EXR_PIXEL_HALF, L.comp = EXR_COMPRESSION_RLE, L.x0 = -3, L.y0 = 5;
    env_case("2.3_scan_half_rle_offset_window", L, 30, 17);
    L.comp = EXR_COMPRESSION_ZIPS, L.x0 = L.y0 = 0;
    env_case("2.4_scan_half_zips", L, 16, 9);
    L.comp = EXR_COMPRESSION_PXR24;
    env_case("2.5_scan_half_pxr24", L, 40, 40);
    L.type = EXR_PIXEL_UINT, L.comp = EXR_COMPRESSION_ZIP;
    env_case("2.6_scan_uint_zip", L, 20, 20);
    env_layout T = {EXR_STORAGE_TILED, EXR_PIXEL_HALF, EXR_COMPRESSION_ZIP, 16, 0, 0, 0, 1};
    env_case("2.7_tiled_half_zip", T, 37, 23);
    T.type = EXR_PIXEL_FLOAT, T.comp = EXR_COMPRESSION_NONE, T.tile = 8, T.with_alpha = 0;
    env_case("2.8_tiled_float_none", T, 20, 12);
    T.type = EXR_PIXEL_HALF, T.comp = EXR_COMPRESSION_PIZ, T.mip = 1, T.x0 = 4, T.y0 = -2;
    env_case("2.9_tiled_half_piz_mipmap_offset", T, 32, 16);

    atomic_cases();
    return check_done("exr_round_trip");
}
