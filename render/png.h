/* png.h — 8-bit sRGB PNG previews of linear HDR images, for people without an EXR
 * viewer. zlib does the deflate; the PNG chunks are written here. */
#ifndef PW_PNG_H
#define PW_PNG_H

#include "pw_error.h"

/* Writes rgba (linear, premultiplied, 4 floats a pixel, rows top down) as an RGBA PNG:
 * colour multiplied by 2^exposure, clamped and encoded with the sRGB curve; alpha kept.
 * Atomic (temporary name, then rename). */
pw_status pw_png_write(const char *path, const float *rgba, int width, int height,
                       double exposure, pw_error *err);

/* Writes 8-bit RGB pixels (3 bytes a pixel) as they are (contact sheets). */
pw_status pw_png_write_rgb8(const char *path, const unsigned char *rgb, int width, int height,
                            pw_error *err);

#endif
