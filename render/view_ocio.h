/* view_ocio.h — the C face of view_ocio.cpp, the OpenColorIO calls of the view
 * transform (OpenColorIO has only a C++ API). Internal to view.c: built only when
 * CMake finds OpenColorIO, which then defines POWDER_HAVE_OCIO for view.c. No C++
 * exception crosses this interface. */
#ifndef PW_VIEW_OCIO_H
#define PW_VIEW_OCIO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* inside the block: pw_error.h is a C header without its own extern "C" */
#include "pw_error.h"

typedef struct pw_ocio pw_ocio;

/* The built-in config's text (static storage). */
const char *pw_ocio_builtin_config(void);

/* A CPU processor from linear Rec.709 to the display values of view (NULL: the default
 * view) of config_path's default display (config_path NULL: the built-in config), with
 * looks (NULL: the view's own). Fills describe (cap bytes) with the view, display and
 * config. NULL with *err filled in on failure (see pw_view_create). */
pw_ocio *pw_ocio_create(const char *config_path, const char *view, const char *looks,
                        char *describe, size_t cap, pw_error *err);

void pw_ocio_destroy(pw_ocio *o); /* NULL is a no-op */

/* Applies the processor in place to n packed RGBA float pixels (alpha untouched).
 * Thread-safe. */
pw_status pw_ocio_apply(const pw_ocio *o, float *rgba, size_t n, pw_error *err);

#ifdef __cplusplus
}
#endif

#endif
