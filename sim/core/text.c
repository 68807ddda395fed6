/* text.c — glyph outlines of a line of text through FreeType, flattened, cleaned and
 * classified into outer contours and holes (pw_text.h, steps 1-4; overlapping parts
 * are merged by text_union.c, the mesh is text_mesh.c's). */
#include "text_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include FT_TRUETYPE_TABLES_H

/* ---- constants --------------------------------------------------------------- */

/* Points closer than this fraction of the cap height are one point, and a point this
 * close to the line through its neighbours is dropped (1 um on 1 m letters). */
#define TEXT_MERGE_FRACTION 1e-6
/* A Bézier is never cut into more chords than this, whatever the tolerance. */
#define TEXT_MAX_CHORDS 1024

/* FreeType's error strings, built as fterrors.h documents (FT_ERRORDEF per code). */
#undef FTERRORS_H_
#define FT_ERRORDEF(e, v, s) {e, s},
#define FT_ERROR_START_LIST {
#define FT_ERROR_END_LIST {0, NULL}};
static const struct {
    int code;
    const char *msg;
} ft_errors[] =
#include FT_ERRORS_H

/* ---- types ------------------------------------------------------------------- */

/* What the outline callbacks fill: points in font units, then metres. */
typedef struct {
    double *xy;
    size_t n, cap;
    size_t *first; /* contour starts; n_contours + 1 once closed */
    int *character;
    size_t nc, cap_c;
    double pen_x; /* [font units] where the current glyph's origin is */
    double tol;   /* [font units] chord tolerance */
    double cur_x, cur_y; /* [font units] current point, glyph-relative */
    int character_index;
    int oom;
} builder;

/* ---- small helpers ----------------------------------------------------------- */

static const char *ft_message(FT_Error e)
{
    for (size_t k = 0; ft_errors[k].msg; k++)
        if (ft_errors[k].code == e) return ft_errors[k].msg;
    return "unknown FreeType error";
}

/* The next code point of UTF-8 text at *pos (advanced past it); -1 for a bad sequence
 * (overlong, surrogate, beyond U+10FFFF, truncated). */
static long utf8_next(const unsigned char *s, size_t *pos)
{
    unsigned c = s[*pos];
    int len = c < 0x80             ? 1
              : (c & 0xe0) == 0xc0 ? 2
              : (c & 0xf0) == 0xe0 ? 3
              : (c & 0xf8) == 0xf0 ? 4
                                   : 0;
    if (!len) return -1;
    long cp = len == 1 ? (long)c : (long)(c & (0x7f >> len));
    for (int k = 1; k < len; k++) {
        unsigned d = s[*pos + k];
        if ((d & 0xc0) != 0x80) return -1;
        cp = (cp << 6) | (long)(d & 0x3f);
    }
    static const long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
    *pos += (size_t)len;
    return cp;
}

/* The character as the message shows it: itself, or U+XXXX for controls. */
static void show_char(char *out, size_t cap, const char *text, size_t at, size_t len, long cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
        snprintf(out, cap, "U+%04lX", (unsigned long)cp);
    else
        snprintf(out, cap, "'%.*s' (U+%04lX)", (int)len, text + at, (unsigned long)cp);
}

static double cross2(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* ---- outline callbacks (font units) --------------------------------------------- */

static int add_point(builder *b, double x, double y)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        double *xy = realloc(b->xy, 2 * cap * sizeof *xy);
        if (!xy) return b->oom = 1;
        b->xy = xy;
        b->cap = cap;
    }
    b->xy[2 * b->n] = b->pen_x + x;
    b->xy[2 * b->n + 1] = y;
    b->n++;
    b->cur_x = x;
    b->cur_y = y;
    return 0;
}

static int on_move(const FT_Vector *to, void *user)
{
    builder *b = user;
    if (b->nc + 1 >= b->cap_c) {
        size_t cap = b->cap_c ? 2 * b->cap_c : 64;
        size_t *first = realloc(b->first, cap * sizeof *first);
        if (first) b->first = first;
        int *ch = realloc(b->character, cap * sizeof *ch);
        if (ch) b->character = ch;
        if (!first || !ch) return b->oom = 1;
        b->cap_c = cap;
    }
    b->first[b->nc] = b->n;
    b->character[b->nc] = b->character_index;
    b->nc++;
    return add_point(b, (double)to->x, (double)to->y);
}

static int on_line(const FT_Vector *to, void *user)
{
    return add_point(user, (double)to->x, (double)to->y);
}

/* Chords of a Bézier whose second differences have length at most d2 [font units]
 * keep within tol of it when there are sqrt(k d2 / tol) of them: the chord error of a
 * uniform split in n is at most max|B''| / (8 n^2), and max|B''| = 2 d2 for a conic
 * (k = 1/4), at most 6 d2 for a cubic (k = 3/4). */
static int chord_count(double k_d2, double tol)
{
    double n = ceil(sqrt(k_d2 / tol));
    return n < 1 ? 1 : (n > TEXT_MAX_CHORDS ? TEXT_MAX_CHORDS : (int)n);
}

static int on_conic(const FT_Vector *c, const FT_Vector *to, void *user)
{
    builder *b = user;
    double x0 = b->cur_x, y0 = b->cur_y, x1 = (double)c->x, y1 = (double)c->y;
    double x2 = (double)to->x, y2 = (double)to->y;
    int n = chord_count(0.25 * hypot(x0 - 2 * x1 + x2, y0 - 2 * y1 + y2), b->tol);
    for (int k = 1; k <= n; k++) {
        double t = (double)k / n, s = 1 - t;
        if (add_point(b, s * s * x0 + 2 * s * t * x1 + t * t * x2,
                      s * s * y0 + 2 * s * t * y1 + t * t * y2))
            return 1;
    }
    return 0;
}

static int on_cubic(const FT_Vector *c1, const FT_Vector *c2, const FT_Vector *to, void *user)
{
    builder *b = user;
    double x0 = b->cur_x, y0 = b->cur_y, x1 = (double)c1->x, y1 = (double)c1->y;
    double x2 = (double)c2->x, y2 = (double)c2->y, x3 = (double)to->x, y3 = (double)to->y;
    double d2 = fmax(hypot(x0 - 2 * x1 + x2, y0 - 2 * y1 + y2),
                     hypot(x1 - 2 * x2 + x3, y1 - 2 * y2 + y3));
    int n = chord_count(0.75 * d2, b->tol);
    for (int k = 1; k <= n; k++) {
        double t = (double)k / n, s = 1 - t;
        double w0 = s * s * s, w1 = 3 * s * s * t, w2 = 3 * s * t * t, w3 = t * t * t;
        if (add_point(b, w0 * x0 + w1 * x1 + w2 * x2 + w3 * x3,
                      w0 * y0 + w1 * y1 + w2 * y2 + w3 * y3))
            return 1;
    }
    return 0;
}

/* ---- reading the glyphs ------------------------------------------------------------ */

/* [font units] the height of the capitals: OS/2 sCapHeight (table version 2 and up),
 * else the top of the 'H' outline, else the ascender, else the em. */
static double cap_height_units(FT_Face face)
{
    TT_OS2 *os2 = FT_Get_Sfnt_Table(face, FT_SFNT_OS2);
    if (os2 && os2->version >= 2 && os2->sCapHeight > 0) return os2->sCapHeight;
    FT_UInt h = FT_Get_Char_Index(face, 'H');
    if (h && FT_Load_Glyph(face, h, FT_LOAD_NO_SCALE) == 0 &&
        face->glyph->format == FT_GLYPH_FORMAT_OUTLINE) {
        FT_BBox box;
        FT_Outline_Get_CBox(&face->glyph->outline, &box);
        if (box.yMax > 0) return (double)box.yMax;
    }
    if (face->ascender > 0) return face->ascender;
    return face->units_per_EM > 0 ? face->units_per_EM : 1000;
}

static pw_status open_face(FT_Library lib, const char *font, FT_Face *face, pw_error *err)
{
    FILE *f = fopen(font, "rb");
    if (!f) return pw_fail_open(err, font, errno);
    fclose(f);
    FT_Error e = FT_New_Face(lib, font, 0, face);
    if (e == FT_Err_Unknown_File_Format)
        return pw_fail(err, PW_EFORMAT, "%s: not a font file FreeType reads (%s)", font,
                       ft_message(e));
    if (e) return pw_fail(err, PW_EFORMAT, "%s: cannot read the font (%s)", font, ft_message(e));
    if (!FT_IS_SCALABLE(*face))
        return pw_fail(err, PW_EUNSUPPORTED, "%s: a bitmap font, without the outlines a "
                       "solid needs", font);
    if (FT_Select_Charmap(*face, FT_ENCODING_UNICODE) != 0)
        return pw_fail(err, PW_EUNSUPPORTED, "%s: the font has no Unicode character map",
                       font);
    return PW_OK;
}

/* Decomposes every glyph of text into b (font units), pen moving by advance + kerning. */
static pw_status read_glyphs(FT_Face face, const char *font, const char *text, builder *b,
                             pw_error *err)
{
    static const FT_Outline_Funcs funcs = {on_move, on_line, on_conic, on_cubic, 0, 0};
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0;
    FT_UInt previous = 0;
    int visible = 0;
    for (b->character_index = 0; s[pos]; b->character_index++) {
        size_t at = pos;
        long cp = utf8_next(s, &pos);
        char shown[64];
        if (cp < 0)
            return pw_fail(err, PW_EINVAL, "%s: the text is not valid UTF-8 (byte %zu)", font,
                           at + 1);
        show_char(shown, sizeof shown, text, at, pos - at, cp);
        if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
            return pw_fail(err, PW_EINVAL, "%s: control character %s at character %d: a "
                           "text is one line of printable characters", font, shown,
                           b->character_index + 1);
        FT_UInt g = FT_Get_Char_Index(face, (FT_ULong)cp);
        if (!g)
            return pw_fail(err, PW_EINVAL, "%s: the font has no glyph for '%.*s' (U+%04lX, "
                           "character %d of \"%s\")", font, (int)(pos - at), text + at,
                           (unsigned long)cp, b->character_index + 1, text);
        if (previous && FT_HAS_KERNING(face)) {
            FT_Vector kern;
            if (FT_Get_Kerning(face, previous, g, FT_KERNING_UNSCALED, &kern) == 0)
                b->pen_x += (double)kern.x;
        }
        FT_Error e = FT_Load_Glyph(face, g, FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP);
        if (e || face->glyph->format != FT_GLYPH_FORMAT_OUTLINE)
            return pw_fail(err, PW_EFORMAT, "%s: cannot load the outline of %s (%s)", font,
                           shown, e ? ft_message(e) : "not an outline glyph");
        size_t nc = b->nc;
        e = FT_Outline_Decompose(&face->glyph->outline, &funcs, b);
        if (b->oom) return pw_fail(err, PW_ENOMEM, "%s: out of memory for the outlines", font);
        if (e)
            return pw_fail(err, PW_EFORMAT, "%s: damaged outline of %s (%s)", font, shown,
                           ft_message(e));
        visible |= b->nc > nc;
        b->pen_x += (double)face->glyph->advance.x;
        previous = g;
    }
    if (b->character_index == 0) return pw_fail(err, PW_EINVAL, "%s: the text is empty", font);
    if (!visible)
        return pw_fail(err, PW_EINVAL, "%s: \"%s\" has no visible character", font, text);
    b->first[b->nc] = b->n;
    return PW_OK;
}

/* ---- cleaning ------------------------------------------------------------------------ */

/* Drops, in place, points that repeat their successor or lie within eps of the line
 * through their neighbours (collinear points, zero-width spikes); returns the count. */
static size_t simplify(double *xy, size_t m, double eps)
{
    int changed = 1;
    while (changed && m >= 3) {
        changed = 0;
        for (size_t i = 0; i < m && m >= 3;) {
            const double *a = &xy[2 * ((i + m - 1) % m)], *p = &xy[2 * i];
            const double *c = &xy[2 * ((i + 1) % m)];
            double len = hypot(c[0] - a[0], c[1] - a[1]);
            int drop = hypot(c[0] - p[0], c[1] - p[1]) <= eps || len <= eps ||
                       fabs(cross2(a, p, c)) <= eps * len;
            if (!drop) {
                i++;
                continue;
            }
            memmove(&xy[2 * i], &xy[2 * (i + 1)], 2 * (m - i - 1) * sizeof *xy);
            m--;
            changed = 1;
        }
    }
    return m;
}

/* Simplifies every contour and drops those left with fewer than 3 points. */
static void clean(pw_text_outline *o, double eps)
{
    size_t w = 0, wc = 0;
    for (size_t c = 0; c < o->n_contours; c++) {
        size_t start = o->first[c], m = o->first[c + 1] - start;
        memmove(&o->xy[2 * w], &o->xy[2 * start], 2 * m * sizeof *o->xy);
        m = simplify(&o->xy[2 * w], m, eps);
        if (m < 3) continue;
        o->first[wc] = w;
        o->character[wc] = o->character[c];
        wc++;
        w += m;
    }
    o->first[wc] = w;
    o->n_contours = wc;
    o->n_points = w;
}

/* ---- checks: no crossings, nesting that the winding rule fills ----------------------- */

typedef struct {
    double x0, x1; /* x range */
    uint32_t c, k; /* contour, edge k from point k to k + 1 */
} seg;

static int seg_cmp(const void *pa, const void *pb)
{
    const seg *a = pa, *b = pb;
    return a->x0 < b->x0 ? -1 : (a->x0 > b->x0);
}

static int on_segment(const double *a, const double *b, const double *p)
{
    return fmin(a[0], b[0]) <= p[0] && p[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= p[1] &&
           p[1] <= fmax(a[1], b[1]);
}

/* 1 when segments ab and cd cross or touch */
static int segments_meet(const double *a, const double *b, const double *c, const double *d)
{
    double o1 = cross2(a, b, c), o2 = cross2(a, b, d), o3 = cross2(c, d, a), o4 = cross2(c, d, b);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return 1;
    return (o1 == 0 && on_segment(a, b, c)) || (o2 == 0 && on_segment(a, b, d)) ||
           (o3 == 0 && on_segment(c, d, a)) || (o4 == 0 && on_segment(c, d, b));
}

static int same2(const double *a, const double *b) { return a[0] == b[0] && a[1] == b[1]; }

/* 1 when segments ab and cd, known to meet, meet only at an end point they share: two
 * contours that touch at a vertex (a cedilla's tip on its letter) bound regions that
 * are solid on one side each, which the caps and walls take as they are. */
static int touch_at_shared_end(const double *a, const double *b, const double *c, const double *d)
{
    const double *s = same2(a, c) || same2(a, d) ? a : same2(b, c) || same2(b, d) ? b : NULL;
    if (!s) return 0;
    if (cross2(a, b, c) != 0 || cross2(a, b, d) != 0) return 1; /* lines meet once */
    /* collinear: they must leave the shared point in opposite directions */
    const double *e = s == a ? b : a, *f = same2(s, c) ? d : c;
    return (e[0] - s[0]) * (f[0] - s[0]) + (e[1] - s[1]) * (f[1] - s[1]) < 0;
}

static const double *point(const pw_text_outline *o, size_t c, size_t k)
{
    size_t m = o->first[c + 1] - o->first[c];
    return &o->xy[2 * (o->first[c] + k % m)];
}

/* The character number (1-based) and its bytes, for messages. */
static void char_at(const char *text, int index, char *out, size_t cap)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0;
    for (int k = 0; k < index && s[pos]; k++) utf8_next(s, &pos);
    size_t at = pos;
    utf8_next(s, &pos);
    snprintf(out, cap, "'%.*s' (character %d)", (int)(pos - at), text + at, index + 1);
}

/* Calls meet(ctx, ci, cj, point) for each pair of edges of contours ci, cj that cross
 * or touch (neighbours in one contour, and edges that only share an end point,
 * excepted) until it returns non-zero; returns that value, 0 when all were seen, -1
 * when out of memory. */
static int find_crossings(const pw_text_outline *o,
                          int (*meet)(void *ctx, size_t ci, size_t cj, const double *at),
                          void *ctx)
{
    seg *s = malloc((o->n_points ? o->n_points : 1) * sizeof *s);
    if (!s) return -1;
    size_t n = 0;
    for (size_t c = 0; c < o->n_contours; c++)
        for (size_t k = 0; k < o->first[c + 1] - o->first[c]; k++) {
            const double *a = point(o, c, k), *b = point(o, c, k + 1);
            seg e = {fmin(a[0], b[0]), fmax(a[0], b[0]), (uint32_t)c, (uint32_t)k};
            s[n++] = e;
        }
    qsort(s, n, sizeof *s, seg_cmp);
    int stop = 0;
    /* sweep in x: only edges whose x ranges overlap are compared */
    for (size_t i = 0; i < n && !stop; i++)
        for (size_t j = i + 1; j < n && s[j].x0 <= s[i].x1 && !stop; j++) {
            size_t m = o->first[s[i].c + 1] - o->first[s[i].c];
            if (s[i].c == s[j].c && ((s[i].k + 1) % m == s[j].k || (s[j].k + 1) % m == s[i].k))
                continue; /* neighbours share a point */
            const double *a = point(o, s[i].c, s[i].k), *b = point(o, s[i].c, s[i].k + 1);
            const double *c = point(o, s[j].c, s[j].k), *d = point(o, s[j].c, s[j].k + 1);
            if (segments_meet(a, b, c, d) && !touch_at_shared_end(a, b, c, d))
                stop = meet(ctx, s[i].c, s[j].c, a);
        }
    free(s);
    return stop;
}

/* find_crossings: marks both characters for merging */
static int mark_merge(void *ctx, size_t ci, size_t cj, const double *at)
{
    const pw_text_outline *o = ((const void **)ctx)[0];
    unsigned char *merge = ((void **)ctx)[1];
    (void)at;
    merge[o->character[ci]] = merge[o->character[cj]] = 1;
    return 0;
}

typedef struct {
    const pw_text_outline *o;
    const char *font, *text;
    pw_error *err;
} crossing_report;

/* find_crossings: the first crossing left after merging is an error */
static int report_crossing(void *ctx, size_t ci, size_t cj, const double *at)
{
    crossing_report *r = ctx;
    char a[64], b[64];
    char_at(r->text, r->o->character[ci], a, sizeof a);
    char_at(r->text, r->o->character[cj], b, sizeof b);
    if (r->o->character[ci] == r->o->character[cj])
        pw_fail(r->err, PW_EINVAL, "%s: the outline of %s touches itself near (%.4g, %.4g) m "
                "after its overlaps were merged, which no solid can follow", r->font, a,
                at[0], at[1]);
    else
        pw_fail(r->err, PW_EINVAL, "%s: the glyphs %s and %s touch near (%.4g, %.4g) m after "
                "their overlaps were merged", r->font, a, b, at[0], at[1]);
    return 1;
}

static double contour_area(const pw_text_outline *o, size_t c)
{
    size_t m = o->first[c + 1] - o->first[c];
    double a = 0;
    for (size_t k = 0; k < m; k++) {
        const double *p = point(o, c, k), *q = point(o, c, k + 1);
        a += p[0] * q[1] - q[0] * p[1];
    }
    return 0.5 * a;
}

/* even-odd crossing test of point p against contour c */
static int contour_contains(const pw_text_outline *o, size_t c, const double *p)
{
    size_t m = o->first[c + 1] - o->first[c];
    int inside = 0;
    for (size_t k = 0; k < m; k++) {
        const double *u = point(o, c, k), *v = point(o, c, k + 1);
        if ((u[1] > p[1]) != (v[1] > p[1]) &&
            p[0] < u[0] + (p[1] - u[1]) * (v[0] - u[0]) / (v[1] - u[1]))
            inside = !inside;
    }
    return inside;
}

/* Parents, holes, and the check that the non-zero winding rule fills exactly the
 * regions between an outer contour and its holes: just outside a contour at even depth
 * the winding number must be 0 and just inside it non-zero, at odd depth the reverse. */
static pw_status classify(pw_text_outline *o, const double *area, const char *font,
                          const char *text, pw_error *err)
{
    for (size_t i = 0; i < o->n_contours; i++) {
        /* an edge's midpoint: contours may share vertices, never edges */
        const double *p0 = point(o, i, 0), *p1 = point(o, i, 1);
        const double p[2] = {0.5 * (p0[0] + p1[0]), 0.5 * (p0[1] + p1[1])};
        int depth = 0, w_out = 0;
        double parent_area = INFINITY;
        o->parent[i] = -1;
        for (size_t j = 0; j < o->n_contours; j++) {
            if (j == i || !contour_contains(o, j, p)) continue;
            depth++;
            w_out += area[j] > 0 ? 1 : -1;
            if (fabs(area[j]) < parent_area) {
                parent_area = fabs(area[j]);
                o->parent[i] = (int)j;
            }
        }
        int w_in = w_out + (area[i] > 0 ? 1 : -1);
        o->hole[i] = depth & 1;
        int fills = o->hole[i] ? (w_out != 0 && w_in == 0) : (w_out == 0 && w_in != 0);
        if (!fills) {
            char ci[64];
            char_at(text, o->character[i], ci, sizeof ci);
            return pw_fail(err, PW_EINVAL, "%s: the outline of %s nests contours that run the "
                           "same way (winding %d inside, %d outside), which this reader does "
                           "not fill", font, ci, w_in, w_out);
        }
    }
    return PW_OK;
}

/* Cleans the contours (font units) and merges the characters whose outlines cross or
 * touch (their own or another's) into the regions they fill (text_union.c). */
static pw_status merge_overlaps(pw_text_outline *o, const char *font, double eps, pw_error *err)
{
    clean(o, eps);
    unsigned char *merge = calloc((size_t)o->n_characters + 1, 1);
    if (!merge) return pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
    const void *ctx[2] = {o, merge};
    int found = find_crossings(o, mark_merge, (void *)ctx);
    int any = 0;
    for (int c = 0; c < o->n_characters; c++) any |= merge[c];
    pw_status rc = found < 0 ? pw_fail(err, PW_ENOMEM, "%s: out of memory", font) : PW_OK;
    if (rc == PW_OK && any) {
        rc = pw_text_union(o, merge, font, err);
        if (rc == PW_OK) clean(o, eps);
    }
    free(merge);
    return rc;
}

/* ---- public -------------------------------------------------------------------------- */

pw_status pw_text_outline_create(const char *font_path, const char *text, double height,
                                 double tolerance, pw_text_outline *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    const char *font = font_path && font_path[0] ? font_path : PW_TEXT_DEFAULT_FONT;
    if (!text) text = "";
    if (!(height > 0) || !isfinite(height))
        return pw_fail(err, PW_EINVAL, "%s: text height must be > 0 (%g m)", font, height);
    if (!(tolerance > 0) || !isfinite(tolerance))
        return pw_fail(err, PW_EINVAL, "%s: flattening tolerance must be > 0 (%g m)", font,
                       tolerance);
    FT_Library lib;
    if (FT_Init_FreeType(&lib) != 0)
        return pw_fail(err, PW_ENOMEM, "%s: FreeType could not start", font);
    FT_Face face = NULL;
    builder b = {0};
    pw_status rc = open_face(lib, font, &face, err);
    double cap = 1, scale = 1;
    if (rc == PW_OK) {
        cap = cap_height_units(face);
        scale = height / cap; /* [m per font unit] */
        b.tol = tolerance / scale;
        rc = read_glyphs(face, font, text, &b, err);
    }
    if (face) FT_Done_Face(face);
    FT_Done_FreeType(lib);
    out->xy = b.xy;
    out->first = b.first;
    out->character = b.character;
    out->n_points = b.n;
    out->n_contours = b.nc;
    out->n_characters = b.character_index;
    if (rc == PW_OK) rc = merge_overlaps(out, font, TEXT_MERGE_FRACTION * cap, err);
    if (rc == PW_OK) {
        /* to metres in the body frame: ink centred in x, capitals centred in y */
        double x_lo = INFINITY, x_hi = -INFINITY;
        for (size_t k = 0; k < out->n_points; k++) {
            x_lo = fmin(x_lo, out->xy[2 * k]);
            x_hi = fmax(x_hi, out->xy[2 * k]);
        }
        double x_mid = 0.5 * (x_lo + x_hi), y_mid = 0.5 * cap;
        for (size_t k = 0; k < out->n_points; k++) {
            out->xy[2 * k] = (out->xy[2 * k] - x_mid) * scale;
            out->xy[2 * k + 1] = (out->xy[2 * k + 1] - y_mid) * scale;
        }
        if (out->n_contours == 0)
            rc = pw_fail(err, PW_EINVAL, "%s: \"%s\" has no visible character", font, text);
    }
    if (rc != PW_OK) {
        pw_text_outline_free(out);
        return rc;
    }
    /* no crossings left; nesting */
    crossing_report report = {out, font, text, err};
    int crossed = find_crossings(out, report_crossing, &report);
    double *area = malloc(out->n_contours * sizeof *area);
    out->parent = malloc(out->n_contours * sizeof *out->parent);
    out->hole = malloc(out->n_contours * sizeof *out->hole);
    if (crossed < 0 || !area || !out->parent || !out->hole)
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu contours", font, out->n_contours);
    else if (crossed)
        rc = PW_EINVAL;
    if (rc == PW_OK) {
        for (size_t c = 0; c < out->n_contours; c++) area[c] = contour_area(out, c);
        rc = classify(out, area, font, text, err);
    }
    free(area);
    if (rc != PW_OK) {
        pw_text_outline_free(out);
        return rc;
    }
    out->box = malloc(4 * out->n_contours * sizeof *out->box);
    if (!out->box) {
        pw_text_outline_free(out);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
    }
    out->lo[0] = out->lo[1] = INFINITY;
    out->hi[0] = out->hi[1] = -INFINITY;
    for (size_t c = 0; c < out->n_contours; c++) {
        double *box = &out->box[4 * c];
        box[0] = box[1] = INFINITY;
        box[2] = box[3] = -INFINITY;
        for (size_t k = out->first[c]; k < out->first[c + 1]; k++)
            for (int a = 0; a < 2; a++) {
                box[a] = fmin(box[a], out->xy[2 * k + a]);
                box[2 + a] = fmax(box[2 + a], out->xy[2 * k + a]);
            }
        for (int a = 0; a < 2; a++) {
            out->lo[a] = fmin(out->lo[a], box[a]);
            out->hi[a] = fmax(out->hi[a], box[2 + a]);
        }
    }
    return PW_OK;
}

void pw_text_outline_free(pw_text_outline *o)
{
    if (!o) return;
    free(o->xy);
    free(o->first);
    free(o->character);
    free(o->parent);
    free(o->hole);
    free(o->box);
    memset(o, 0, sizeof *o);
}

double pw_text_outline_area(const pw_text_outline *o)
{
    double sum = 0;
    for (size_t c = 0; c < o->n_contours; c++)
        sum += (o->hole[c] ? -1 : 1) * fabs(contour_area(o, c));
    return sum;
}
