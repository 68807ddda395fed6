/* png.h — 8-bit PNG previews of scene-linear HDR images, for people without an EXR
 * viewer, shown through a view transform (view.h). zlib does the deflate; the PNG
 * chunks are written here. */
#ifndef PW_PNG_H
#define PW_PNG_H

#include "pw_error.h"
#include "view.h"

/* Writes rgba (scene-linear Rec.709, premultiplied, 4 floats a pixel, rows top down) as
 * an RGBA PNG: colour multiplied by 2^exposure, then through view (NULL: the default
 * view, pw_view_create(NULL)); alpha kept. Atomic (temporary name, then rename).
 * Errors name the file. */
pw_status pw_png_write_view(const char *path, const float *rgba, int width, int height,
                            const pw_view *view, double exposure, pw_error *err);

/* pw_png_write_view with the default view: $OCIO's, else the built-in one. */
pw_status pw_png_write(const char *path, const float *rgba, int width, int height,
                       double exposure, pw_error *err);

/* Writes 8-bit RGB pixels (3 bytes a pixel) as they are (contact sheets). */
pw_status pw_png_write_rgb8(const char *path, const unsigned char *rgb, int width, int height,
                            pw_error *err);

#endif
