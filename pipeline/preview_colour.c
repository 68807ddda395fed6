/* preview_colour.c — colour measures of a preview over a mask; see preview_colour.h. */
#include "preview_colour.h"

#include <stdlib.h>
#include <string.h>

#include "exr.h"

pw_status pw_preview_colour_measure(const char *exr_path, const char *mask_path,
                                    const pw_view *view, double exposure,
                                    pw_preview_colour *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    int w, h, mw, mh;
    float *rgba = NULL, *mask = NULL;
    unsigned char *px = NULL;
    pw_view *own = NULL;
    pw_status rc = pw_exr_read_rgba(exr_path, &w, &h, &rgba, err);
    if (rc == PW_OK) rc = pw_exr_read_rgba(mask_path, &mw, &mh, &mask, err);
    if (rc == PW_OK && (mw != w || mh != h))
        rc = pw_fail(err, PW_EINVAL, "%s: mask of %d x %d pixels for %s of %d x %d", mask_path,
                     mw, mh, exr_path, w, h);
    size_t n = (size_t)w * h;
    if (rc == PW_OK && !(px = malloc(4 * n)))
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", exr_path);
    if (rc == PW_OK && !view && !(view = own = pw_view_create(NULL, err))) rc = err->code;
    if (rc == PW_OK) {
        /* opaque, as the preview is (pw_shot_png_from_exr) */
        for (size_t k = 0; k < n; k++) rgba[4 * k + 3] = 1.0f;
        rc = pw_view_apply(view, rgba, n, exposure, px, err);
    }
    double sat = 0, sum[3] = {0, 0, 0};
    for (size_t k = 0; rc == PW_OK && k < n; k++) {
        if (!(mask[4 * k + 3] > 0.5f)) continue;
        const unsigned char *p = px + 4 * k;
        int mx = p[0], mn = p[0];
        for (int c = 1; c < 3; c++) {
            if (p[c] > mx) mx = p[c];
            if (p[c] < mn) mn = p[c];
        }
        sat += mx > 0 ? (double)(mx - mn) / mx : 0.0;
        out->one_channel_clipped += mx == 255 && mn < 204;
        for (int c = 0; c < 3; c++) sum[c] += p[c];
        out->pixels++;
    }
    if (rc == PW_OK && out->pixels) {
        out->mean_saturation = sat / (double)out->pixels;
        for (int c = 0; c < 3; c++) out->mean_rgb[c] = sum[c] / (double)out->pixels;
    }
    pw_view_destroy(own);
    free(px);
    free(mask);
    free(rgba);
    return rc;
}
