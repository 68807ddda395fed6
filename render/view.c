/* view.c — view transforms for 8-bit previews; see view.h.
 *
 * With OpenColorIO the work is view_ocio.cpp's; this file scales by the exposure,
 * hands blocks of pixels to OpenColorIO and quantises. Without it (or with
 * params.analytic) the views are computed here:
 *
 * "Powder filmic", per pixel, in linear Rec.709:
 *   1. c = max(colour, 0); Y = 0.2126 R + 0.7152 G + 0.0722 B (BT.709 luminance).
 *   2. The luminance tone curve Y_d = Y^n / (Y^n + k), n = 1.2, k = 0.18^(n-1) 0.82: it
 *      keeps mid grey (0.18 -> 0.18, slope 0.98 there), maps 1 -> 0.63, 4 -> 0.90,
 *      16 -> 0.98 and approaches 1 (white) without reaching it.
 *   3. c' = c Y_d / Y, then the chroma d = c' - Y_d (zero luminance) is scaled by the
 *      largest s <= 1 with max + beta (max - min) <= 1 and min >= 0, beta = 0.2:
 *      out = Y_d + s d. Luminance stays Y_d, and since the result is grey plus a
 *      positive multiple of c, the HSV hue stays the input's. A channel can reach 1
 *      only as the others do: one at 255 needs max - min <= 0.022, i.e. all >= 252.
 * "Un-tone-mapped": clamp each channel to [0, 1], as the previews did before views.
 * Both end with the sRGB curve (IEC 61966-2-1). */
#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef POWDER_HAVE_OCIO
#include "view_ocio.h"
#endif

/* ---- constants ------------------------------------------------------------ */

#define VIEW_BLOCK 4096 /* pixels handed to the view at a time */

static const double lum_709[3] = {0.2126, 0.7152, 0.0722}; /* BT.709 luminance */
#define FILMIC_N 1.2    /* contrast of the tone curve (its log-log slope in the shadows) */
#define FILMIC_GREY 0.18 /* the luminance the curve keeps */
#define FILMIC_BETA 0.2 /* how far below 1 the largest channel stays, per unit of chroma */
#define HALF_MAX 65504.0 /* larger inputs (and +Inf) are taken as this */

static const char analytic_display[] = "sRGB";
static const char *const analytic_views[] = {"Powder filmic", "Un-tone-mapped"};
enum { VIEW_FILMIC = 0, VIEW_CLIP = 1, N_ANALYTIC = 2 };

/* ---- types ------------------------------------------------------------------ */

struct pw_view {
    int analytic_view; /* VIEW_FILMIC or VIEW_CLIP when computed here */
#ifdef POWDER_HAVE_OCIO
    pw_ocio *ocio; /* NULL when computed here */
#endif
    char describe[1024];
};

/* ---- analytic views ------------------------------------------------------------ */

/* sRGB OETF (IEC 61966-2-1) of a linear value clamped to [0, 1], as 0..1. */
static double srgb_encode(double v)
{
    v = v > 0 ? (v < 1 ? v : 1) : 0;
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
}

/* The "Powder filmic" display-linear colour of scene-linear c (see the file comment). */
static void filmic(const double in[3], double out[3])
{
    double c[3], Y = 0;
    for (int i = 0; i < 3; i++) {
        c[i] = in[i] > 0 ? (in[i] < HALF_MAX ? in[i] : HALF_MAX) : 0; /* NaN -> 0 */
        Y += lum_709[i] * c[i];
    }
    if (!(Y > 0)) {
        out[0] = out[1] = out[2] = 0;
        return;
    }
    /* 2. tone curve on luminance */
    const double k = pow(FILMIC_GREY, FILMIC_N - 1) * (1 - FILMIC_GREY);
    double Yn = pow(Y, FILMIC_N), Y_d = Yn / (Yn + k);
    /* 3. chroma scaled into the soft gamut, towards the grey of the same luminance */
    double d[3], dmax = 0, dmin = 0;
    for (int i = 0; i < 3; i++) {
        d[i] = c[i] * (Y_d / Y) - Y_d;
        dmax = fmax(dmax, d[i]);
        dmin = fmin(dmin, d[i]);
    }
    double s = 1;
    if (dmax > 0) s = fmin(s, (1 - Y_d) / (dmax + FILMIC_BETA * (dmax - dmin)));
    if (dmin < 0) s = fmin(s, Y_d / -dmin);
    for (int i = 0; i < 3; i++) out[i] = Y_d + s * d[i];
}

/* The analytic view's display values (0..1, sRGB encoded) of scene-linear rgb. */
static void analytic_pixel(int view, const float rgb[3], float out[3])
{
    double in[3] = {rgb[0], rgb[1], rgb[2]}, lin[3];
    if (view == VIEW_FILMIC) filmic(in, lin);
    else memcpy(lin, in, sizeof lin);
    for (int i = 0; i < 3; i++) out[i] = (float)srgb_encode(lin[i]);
}

/* ---- helpers ---------------------------------------------------------------- */

static unsigned char to_byte(double v)
{
    v = v > 0 ? (v < 1 ? v : 1) : 0; /* NaN -> 0 */
    return (unsigned char)lround(v * 255);
}

static pw_view *create_analytic(const pw_view_params *p, const char *ocio_note, pw_error *err)
{
    int chosen = VIEW_FILMIC;
    if (p->view && *p->view) {
        for (chosen = 0; chosen < N_ANALYTIC; chosen++)
            if (!strcasecmp(p->view, analytic_views[chosen])) break;
        if (chosen == N_ANALYTIC) {
            pw_fail(err, PW_EINVAL, "no view '%s' of display '%s' (views: %s, %s)", p->view,
                    analytic_display, analytic_views[0], analytic_views[1]);
            return NULL;
        }
    }
    if (p->look && *p->look) {
        pw_fail(err, PW_EUNSUPPORTED,
                "look '%s': looks need OpenColorIO, and Powder's analytic views have none%s",
                p->look, ocio_note);
        return NULL;
    }
    pw_view *v = calloc(1, sizeof *v);
    if (!v) {
        pw_fail(err, PW_ENOMEM, "view: out of memory");
        return NULL;
    }
    v->analytic_view = chosen;
    snprintf(v->describe, sizeof v->describe,
             "view '%s' of display '%s', Powder's analytic views%s", analytic_views[chosen],
             analytic_display, ocio_note);
    return v;
}

/* ---- public -------------------------------------------------------------------- */

void pw_view_params_default(pw_view_params *p) { memset(p, 0, sizeof *p); }

int pw_view_has_ocio(void)
{
#ifdef POWDER_HAVE_OCIO
    return 1;
#else
    return 0;
#endif
}

const char *pw_view_builtin_config(void)
{
#ifdef POWDER_HAVE_OCIO
    return pw_ocio_builtin_config();
#else
    return NULL;
#endif
}

pw_view *pw_view_create(const pw_view_params *params, pw_error *err)
{
    pw_view_params p;
    if (params) p = *params;
    else pw_view_params_default(&p);
    const char *config = p.config;
    if (!config) {
        const char *env = getenv("OCIO");
        config = env && *env ? env : "";
    }
#ifdef POWDER_HAVE_OCIO
    if (!p.analytic) {
        if (*config) { /* a missing file is named as such, before OpenColorIO tries */
            FILE *f = fopen(config, "r");
            if (!f) {
                pw_fail_open(err, config, errno);
                return NULL;
            }
            fclose(f);
        }
        pw_view *v = calloc(1, sizeof *v);
        if (!v) {
            pw_fail(err, PW_ENOMEM, "view: out of memory");
            return NULL;
        }
        v->ocio = pw_ocio_create(*config ? config : NULL, p.view, p.look, v->describe,
                                 sizeof v->describe, err);
        if (!v->ocio) {
            free(v);
            return NULL;
        }
        return v;
    }
    return create_analytic(&p, "", err);
#else
    if (!p.analytic && p.config && *p.config) {
        pw_fail(err, PW_EUNSUPPORTED,
                "%s: OpenColorIO configs need a powder built with OpenColorIO (apt-get install "
                "libopencolorio-dev, then reconfigure)", p.config);
        return NULL;
    }
    const char *note = !p.analytic && *config ? " ($OCIO ignored: built without OpenColorIO)" : "";
    return create_analytic(&p, note, err);
#endif
}

void pw_view_destroy(pw_view *v)
{
    if (!v) return;
#ifdef POWDER_HAVE_OCIO
    pw_ocio_destroy(v->ocio);
#endif
    free(v);
}

const char *pw_view_describe(const pw_view *v) { return v->describe; }

pw_status pw_view_apply(const pw_view *v, const float *rgba, size_t n, double exposure,
                        unsigned char *out, pw_error *err)
{
    if (!isfinite(exposure))
        return pw_fail(err, PW_EINVAL, "view: exposure not finite (%g)", exposure);
    float gain = (float)exp2(exposure);
    float *block = malloc(sizeof(float) * 4 * VIEW_BLOCK);
    if (!block) return pw_fail(err, PW_ENOMEM, "view: out of memory");
    pw_status rc = PW_OK;
    for (size_t i0 = 0; i0 < n && rc == PW_OK; i0 += VIEW_BLOCK) {
        size_t m = n - i0 < VIEW_BLOCK ? n - i0 : VIEW_BLOCK;
        /* exposure in scene-linear light, before the view */
        for (size_t i = 0; i < m; i++) {
            for (int c = 0; c < 3; c++) block[4 * i + c] = gain * rgba[4 * (i0 + i) + c];
            block[4 * i + 3] = rgba[4 * (i0 + i) + 3];
        }
#ifdef POWDER_HAVE_OCIO
        if (v->ocio) rc = pw_ocio_apply(v->ocio, block, m, err);
        else
#endif
            for (size_t i = 0; i < m; i++)
                analytic_pixel(v->analytic_view, block + 4 * i, block + 4 * i);
        for (size_t i = 0; i < m && rc == PW_OK; i++)
            for (int c = 0; c < 4; c++) out[4 * (i0 + i) + c] = to_byte(block[4 * i + c]);
    }
    free(block);
    return rc;
}
