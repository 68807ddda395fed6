/* view.h — the view transform: scene-linear light to the 8-bit display values of a
 * preview (PNG previews, contact sheets). EXRs never pass through it; they stay
 * scene-linear (render/docs/view-transform.md).
 *
 * Input is premultiplied RGBA in scene-linear Rec.709 primaries with a D65 white, what
 * the tracer writes; the colour is shown over black, alpha passes unchanged.
 *
 * With OpenColorIO (built when libopencolorio-dev is found; pw_view_has_ocio()):
 *   - $OCIO (or params.config) names a config: its default display, the view asked for
 *     or the display's default view, and the looks asked for. The EXR's colour enters
 *     the config as linear Rec.709: when the config has the role aces_interchange,
 *     through OCIO's built-in Rec.709 -> ACES2065-1 transform into that colour space
 *     (right for the ACES studio configs, whose scene_linear is ACEScg); otherwise as
 *     the config's scene_linear role, which must then be linear Rec.709.
 *   - without $OCIO, Powder's built-in config (pw_view_builtin_config()): display
 *     "sRGB - Display", views "ACES 1.0 - SDR Video" (default: the ACES 1.0 output
 *     transform for SDR video, which rolls highlights off to white) and
 *     "Un-tone-mapped" (clip and sRGB curve: the previews before the view transform),
 *     look "ACES 1.3 Reference Gamut Compression".
 * Without OpenColorIO: Powder's analytic views, display "sRGB": "Powder filmic"
 * (default; a luminance tone curve, then desaturation towards white so that no channel
 * reaches 1 alone) and "Un-tone-mapped"; no looks, $OCIO is ignored. */
#ifndef PW_VIEW_H
#define PW_VIEW_H

#include <stddef.h>

#include "pw_error.h"

typedef struct pw_view pw_view;

typedef struct {
    const char *config; /* OCIO config file; NULL: $OCIO when set and not empty, else the
                           built-in config; "": the built-in config */
    const char *view;   /* a view of the config's default display; NULL or "": its
                           default view */
    const char *look;   /* OCIO looks ("a" or "a, b"), replacing the view's own; NULL or
                           "": the view's own looks */
    int analytic;       /* 1: Powder's analytic views even in a build with OpenColorIO
                           (tests and comparisons); config and $OCIO are then ignored */
} pw_view_params;

/* All NULL and 0: the default view of $OCIO, or of the built-in config. */
void pw_view_params_default(pw_view_params *p);

/* 1 when this build applies views through OpenColorIO, 0 when it has only the analytic
 * views. */
int pw_view_has_ocio(void);

/* The text of the built-in OpenColorIO config (an OCIO 2.1 config using only OCIO's
 * built-in transforms), or NULL in a build without OpenColorIO. Static storage. */
const char *pw_view_builtin_config(void);

/* Returns a new view owned by the caller, or NULL with *err filled in: PW_EINVAL for a
 * view or look the config does not have (the message lists the ones it has),
 * PW_ENOENT for a missing config file, PW_EFORMAT for a config OpenColorIO refuses,
 * PW_EUNSUPPORTED for a config file or a look asked of a build without OpenColorIO.
 * p may be NULL for the defaults. */
pw_view *pw_view_create(const pw_view_params *p, pw_error *err);

void pw_view_destroy(pw_view *v); /* NULL is a no-op */

/* One line naming what v applies: "view 'ACES 1.0 - SDR Video' of display 'sRGB -
 * Display' (Powder's built-in OpenColorIO config)". Owned by v. */
const char *pw_view_describe(const pw_view *v);

/* Maps n pixels of rgba (premultiplied scene-linear, 4 floats a pixel) to out (4 bytes
 * a pixel): colour times 2^exposure [stops], then the view, then round(255 * clamp(x,
 * 0, 1)) (NaN becomes 0); alpha round(255 * clamp(a, 0, 1)) without a curve.
 * PW_EINVAL for a non-finite exposure. Several threads may apply one view at once. */
pw_status pw_view_apply(const pw_view *v, const float *rgba, size_t n, double exposure,
                        unsigned char *out, pw_error *err);

#endif
