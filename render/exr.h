/* exr.h — EXR files through the OpenEXR C API (OpenEXRCore): rendered frames out,
 * environment maps in. Every write goes to a temporary name, is synced and renamed,
 * so a killed process never leaves a partial file under the final name. */
#ifndef PW_EXR_H
#define PW_EXR_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"

/* A rendered frame, rows top to bottom. */
typedef struct {
    int width, height;
    float *rgba;     /* 4 per pixel, premultiplied alpha (required) */
    float *depth;    /* 1 per pixel [m] camera distance, INFINITY for none (optional) */
    float *albedo;   /* 3 per pixel, first-hit albedo (optional) */
    float *samples;  /* 1 per pixel, samples the pixel took (optional, with variance) */
    float *variance; /* 1 per pixel, variance of the pixel's mean luminance (optional) */
    float *noisy;    /* 4 per pixel, the RGBA before denoising, when rgba is denoised
                        (optional) */
    float *normal;   /* 3 per pixel, the first events' mean normal (optional) */
    float *sun;      /* 1 per pixel, the sun's mean transmittance from the first events
                        (optional) */
} pw_image;

typedef enum { PW_EXR_ZIP = 0, PW_EXR_PIZ = 1, PW_EXR_NONE = 2 } pw_exr_compression;

typedef struct {
    pw_exr_compression compression; /* ZIP by default */
    int float_beauty;                /* 0: RGBA as half (default), 1: as float */
    int spp;                         /* samples per pixel, written as metadata */
    double render_seconds;           /* wall time, metadata */
    int frame;                       /* frame number, metadata */
    const char *scene_name;          /* metadata, may be NULL */
    const char *source;              /* metadata: what the frame was rendered from, may be
                                        NULL */
    const char *settings;            /* metadata: a hash of the render settings the frame
                                        was made with (pw_scene_render_hash), may be NULL */
    uint64_t seed;                   /* metadata: the image noise seed */
    int has_camera;                  /* when 1, the next three are written */
    float world_to_camera[16];       /* row-major 4x4 (OpenEXR m44f convention) */
    float world_to_ndc[16];
    double fov_deg;                  /* vertical field of view */
    int has_preview;                 /* when 1, the next three are written */
    double preview_exposure;         /* [stops] the PNG preview's exposure (the scene's
                                        render.png_exposure), in [-64, 64] */
    const char *preview_view;        /* the preview's view (--view), NULL: the default */
    const char *preview_look;        /* its looks (--view-look), NULL: the view's own */
} pw_exr_options;

/* The preview settings a frame records (pw_exr_write with has_preview). */
#define PW_EXR_PREVIEW_EXPOSURE_MAX 64.0 /* [stops] either way */
#define PW_EXR_PREVIEW_NAME_CAP 256       /* bytes of a view or look name, with its 0 */
typedef struct {
    int has_exposure;                     /* "powder:previewExposure" is present */
    double exposure;                      /* [stops] */
    char view[PW_EXR_PREVIEW_NAME_CAP];   /* "powder:previewView", "" when absent */
    char look[PW_EXR_PREVIEW_NAME_CAP];   /* "powder:previewLook", "" when absent */
} pw_exr_preview;

void pw_exr_options_default(pw_exr_options *o);

/* Writes img to path atomically: RGBA (half or float), and when present depth.Z
 * (float), albedo.R/G/B (half), noise.samples and noise.variance (float) and
 * noisy.R/G/B/A (the unfiltered beauty, stored as RGBA is), as one scanline part named
 * "beauty". Metadata:
 * "powderVersion" (string), "powder:spp" (int), "powder:frame" (int),
 * "powder:renderSeconds" (double), "powder:seed" (decimal string: EXR has no 64-bit
 * integer), "powder:scene", "powder:source" and "powder:renderSettings" (strings, when
 * set), "chromaticities" (Rec.709/sRGB primaries, D65 white: the RGB is scene-linear
 * Rec.709) and, when has_camera, "worldToCamera" and "worldToNDC" (m44f) and
 * "powder:fovDeg" (double); when has_preview, how the PNG preview of the frame is made:
 * "powder:previewExposure" (double, stops) and, when set, "powder:previewView" and
 * "powder:previewLook" (strings). opt may be NULL for the defaults. Errors name the file
 * (PW_EINVAL for a preview exposure that is not finite or beyond 64 stops, or a name of
 * PW_EXR_PREVIEW_NAME_CAP bytes or more); on failure no file is left under path or the
 * temporary name. */
pw_status pw_exr_write(const char *path, const pw_image *img, const pw_exr_options *opt,
                       pw_error *err);

/* Reads the R, G, B channels (half or float, scanline or tiled, any compression the
 * C API decodes) of the first part of path into a new float buffer of 3*w*h, rows top
 * to bottom. Missing channels, absurd sizes and damaged data are errors that name the
 * file. The caller frees *rgb with free(). */
pw_status pw_exr_read_rgb(const char *path, int *width, int *height, float **rgb,
                          pw_error *err);

/* Reads RGBA back as float (tests, PNG conversion). Alpha = 1 when absent.
 * Both readers refuse NaN and infinite pixel values (PW_ENUMERIC), deep and
 * subsampled images (PW_EUNSUPPORTED) and data windows beyond 2^20 px a side or
 * 2^28 pixels in all. */
pw_status pw_exr_read_rgba(const char *path, int *width, int *height, float **rgba,
                           pw_error *err);

/* Copies the string attribute attr of path's first part into out (cap bytes with the
 * terminating 0), reading only the header. PW_EFORMAT when it is absent or too long. */
pw_status pw_exr_read_string(const char *path, const char *attr, char *out, size_t cap,
                             pw_error *err);

/* The preview settings recorded in path's header, reading only the header: an absent
 * attribute leaves has_exposure 0 or its name "". A present one that is damaged is
 * PW_EFORMAT naming the file and the attribute: an exposure that is not a double, not
 * finite or beyond PW_EXR_PREVIEW_EXPOSURE_MAX, a name that is not a string, is too long
 * or holds a zero byte; so is a header the library could parse only by skipping damage
 * (it drops what it cannot read). On failure *out is zeroed. */
pw_status pw_exr_read_preview(const char *path, pw_exr_preview *out, pw_error *err);

/* The same for a 4x4 float matrix attribute (m44f, row-major), e.g. "worldToCamera". */
pw_status pw_exr_read_m44f(const char *path, const char *attr, float out[16], pw_error *err);

/* pw_exr_read_rgba on size bytes at data (fuzzing, embedded maps); `name` stands for
 * the file in messages. The buffer is only read during the call. */
pw_status pw_exr_read_rgba_memory(const char *name, const void *data, size_t size, int *width,
                                  int *height, float **rgba, pw_error *err);

#endif
