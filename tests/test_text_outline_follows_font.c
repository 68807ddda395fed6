/* Property: the text reader's outlines are the font's, placed as the font places them.
 * 1. size and frame: the capitals of "H" span exactly [-height/2, height/2] in y (the
 *    cap height is the 'H' outline's top in DejaVu, whose OS/2 table predates
 *    sCapHeight), the ink is centred in x; to 1e-12 m.
 * 2. advances and kerning: the ink width of "AV", "To" and "LT" equals
 *    s (advance(first) + kern(pair) + xMax(second) - xMin(first)) from FreeType's own
 *    numbers (s = height / cap height), to 1e-9 m: the pen moves by the advance plus
 *    the kerning (which is negative for these pairs in DejaVu Sans Bold: the test also
 *    checks it is, so the case cannot pass with kerning ignored).
 * 3. flattening: every point of the outline flattened at tolerance / 100 lies within
 *    1.01 tolerance + 1e-6 height of the outline flattened at `tolerance` (the chords
 *    stay within the tolerance of the curve, as pw_text.h promises; the fine outline is
 *    within tolerance / 100 of the curve itself).
 * 4. filled area: pw_text_outline_area equals the area FreeType's own anti-aliasing
 *    rasterizer covers with the glyph (exact coverage per pixel, the font's non-zero
 *    fill rule) at 4096 pixels per em, within 0.1 %: for glyphs with holes (o, R, B, 8,
 *    @), composites whose parts overlap and are merged here (ç, Ą, ę, Ů, ţ whose
 *    cedilla touches the t at a point) and a word. 8-bit coverage and 1e-5 height
 *    flattening keep the two within ~1e-4; a hole filled or an overlap counted twice is
 *    off by percents. */
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H

#include "check.h"
#include "pw_text.h"

static const char *const font = PW_TEXT_DEFAULT_FONT;

static pw_text_outline outline(const char *text, double height, double tol)
{
    pw_text_outline o;
    pw_error err = {0};
    if (pw_text_outline_create(font, text, height, tol, &o, &err) != PW_OK) {
        CHECK(0, "\"%s\": %s", text, err.msg);
        memset(&o, 0, sizeof o);
    }
    return o;
}

static double seg_dist(const double *p, const double *u, const double *v)
{
    double ex = v[0] - u[0], ey = v[1] - u[1], l2 = ex * ex + ey * ey;
    double t = l2 > 0 ? ((p[0] - u[0]) * ex + (p[1] - u[1]) * ey) / l2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return hypot(u[0] + t * ex - p[0], u[1] + t * ey - p[1]);
}

/* FreeType glyph numbers in font units */
typedef struct {
    FT_Library lib;
    FT_Face face;
} ft;

static FT_Glyph_Metrics metrics(ft *f, char c)
{
    FT_Load_Char(f->face, (FT_ULong)c, FT_LOAD_NO_SCALE);
    return f->face->glyph->metrics;
}

/* area [font units^2] FreeType's smooth rasterizer covers with the UTF-8 character */
static double raster_area(ft *f, unsigned long cp, int ppem)
{
    FT_Set_Pixel_Sizes(f->face, 0, (FT_UInt)ppem);
    if (FT_Load_Char(f->face, cp, FT_LOAD_NO_HINTING | FT_LOAD_RENDER) != 0) return -1;
    FT_Bitmap *bm = &f->face->glyph->bitmap;
    double covered = 0;
    for (unsigned r = 0; r < bm->rows; r++)
        for (unsigned c = 0; c < bm->width; c++) covered += bm->buffer[r * bm->pitch + c] / 255.0;
    double unit = (double)f->face->units_per_EM / ppem;
    return covered * unit * unit;
}

int main(void)
{
    ft f;
    if (FT_Init_FreeType(&f.lib) || FT_New_Face(f.lib, font, 0, &f.face)) {
        fprintf(stderr, "cannot open %s\n", font);
        return 1;
    }
    double cap = (double)(metrics(&f, 'H').horiBearingY); /* top of the 'H' outline */
    const double height = 0.7, s = height / cap;

    /* 1. size and frame */
    pw_text_outline o = outline("H", height, PW_TEXT_TOLERANCE * height);
    printf("1 \"H\": y in [%.15g, %.15g], x in [%.15g, %.15g]\n", o.lo[1], o.hi[1], o.lo[0],
           o.hi[0]);
    CHECK(fabs(o.lo[1] + 0.5 * height) <= 1e-12 && fabs(o.hi[1] - 0.5 * height) <= 1e-12,
          "1 capitals span [%g, %g]", o.lo[1], o.hi[1]);
    CHECK(fabs(o.lo[0] + o.hi[0]) <= 1e-12, "1 ink not centred: [%g, %g]", o.lo[0], o.hi[0]);
    pw_text_outline_free(&o);

    /* 2. advances and kerning */
    const char *pairs[] = {"AV", "To", "LT"};
    for (int k = 0; k < 3; k++) {
        FT_Vector kern;
        FT_UInt g0 = FT_Get_Char_Index(f.face, (FT_ULong)pairs[k][0]);
        FT_UInt g1 = FT_Get_Char_Index(f.face, (FT_ULong)pairs[k][1]);
        FT_Get_Kerning(f.face, g0, g1, FT_KERNING_UNSCALED, &kern);
        FT_Glyph_Metrics a = metrics(&f, pairs[k][0]), b = metrics(&f, pairs[k][1]);
        double expect = s * (double)(a.horiAdvance + kern.x + b.horiBearingX + b.width -
                                     a.horiBearingX);
        o = outline(pairs[k], height, PW_TEXT_TOLERANCE * height);
        double width = o.hi[0] - o.lo[0];
        printf("2.%d \"%s\": kerning %ld units, ink width %.9f m, expected %.9f m\n", k + 1,
               pairs[k], (long)kern.x, width, expect);
        CHECK(kern.x < 0, "2.%d \"%s\": the font should kern this pair (%ld)", k + 1, pairs[k],
              (long)kern.x);
        CHECK(fabs(width - expect) <= 1e-9, "2.%d \"%s\" width %.12g vs %.12g", k + 1, pairs[k],
              width, expect);
        pw_text_outline_free(&o);
    }

    /* 3. flattening within the tolerance */
    const char *curvy[] = {"O", "S", "@", "g"};
    for (int k = 0; k < 4; k++) {
        double tol = PW_TEXT_TOLERANCE * height;
        pw_text_outline coarse = outline(curvy[k], height, tol);
        pw_text_outline fine = outline(curvy[k], height, tol / 100);
        double worst = 0;
        CHECK(coarse.n_contours == fine.n_contours, "3 \"%s\": %zu vs %zu contours", curvy[k],
              coarse.n_contours, fine.n_contours);
        for (size_t c = 0; c < coarse.n_contours && coarse.n_contours == fine.n_contours; c++)
            for (size_t i = fine.first[c]; i < fine.first[c + 1]; i++) {
                double d = INFINITY;
                size_t f0 = coarse.first[c], m = coarse.first[c + 1] - f0;
                for (size_t j = 0; j < m; j++)
                    d = fmin(d, seg_dist(&fine.xy[2 * i], &coarse.xy[2 * (f0 + j)],
                                         &coarse.xy[2 * (f0 + (j + 1) % m)]));
                worst = fmax(worst, d);
            }
        printf("3 \"%s\": %zu points at tolerance %g m (%zu at %g): farthest fine point %.3g m "
               "from the coarse outline\n", curvy[k], coarse.n_points, tol, fine.n_points,
               tol / 100, worst);
        CHECK(worst <= 1.01 * tol + 1e-6 * height, "3 \"%s\": %g m > tolerance %g m", curvy[k],
              worst, tol);
        pw_text_outline_free(&coarse);
        pw_text_outline_free(&fine);
    }

    /* 4. filled area against FreeType's rasterizer */
    const struct {
        const char *text;
        unsigned long cp;
    } glyphs[] = {{"o", 'o'},          {"R", 'R'},          {"B", 'B'},
                  {"8", '8'},          {"@", '@'},          {"\xc3\xa7", 0xe7},
                  {"\xc4\x84", 0x104}, {"\xc4\x99", 0x119}, {"\xc5\xae", 0x16e},
                  {"\xc5\xa3", 0x163}};
    for (size_t k = 0; k < sizeof glyphs / sizeof *glyphs; k++) {
        o = outline(glyphs[k].text, height, 1e-5 * height);
        double area = pw_text_outline_area(&o) / (s * s);
        double ref = raster_area(&f, glyphs[k].cp, 4096);
        printf("4.%zu \"%s\": %zu contours, area %.1f units^2, FreeType raster %.1f (%.4f %%)\n",
               k + 1, glyphs[k].text, o.n_contours, area, ref, 100 * (area - ref) / ref);
        CHECK(ref > 0 && fabs(area - ref) <= 1e-3 * ref, "4.%zu \"%s\": area %g vs %g", k + 1,
              glyphs[k].text, area, ref);
        pw_text_outline_free(&o);
    }
    FT_Done_Face(f.face);
    FT_Done_FreeType(f.lib);
    return check_done("text_outline_follows_font");
}
