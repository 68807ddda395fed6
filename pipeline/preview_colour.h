/* preview_colour.h — what a preview shows of the snow: the colour measures of
 * render/docs/view-transform.md, over the pixels a mask selects, on the very bytes the
 * PNG holds. */
#ifndef PW_PREVIEW_COLOUR_H
#define PW_PREVIEW_COLOUR_H

#include "pw_error.h"
#include "view.h"

typedef struct {
    long pixels;            /* selected: the mask's alpha above 0.5                  */
    double mean_saturation; /* HSV saturation (max - min) / max of the bytes, mean   */
    long one_channel_clipped; /* a channel at 255 beside another below 204: one
                                 channel clipped, the hue pushed toward it            */
    double mean_rgb[3];     /* the bytes' mean, 0..255                               */
} pw_preview_colour;

/* Measures the preview of exr_path (through view, NULL the default, at exposure EV) over
 * the pixels where mask_path's alpha exceeds 0.5; the mask is an EXR of the same size,
 * usually the same frame rendered without its surfaces. Errors name the file. */
pw_status pw_preview_colour_measure(const char *exr_path, const char *mask_path,
                                    const pw_view *view, double exposure,
                                    pw_preview_colour *out, pw_error *err);

#endif
