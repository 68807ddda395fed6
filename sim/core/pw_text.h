/* pw_text.h — a line of text as a solid: the glyph outlines of a real font, read through
 * FreeType, flattened to polygons and extruded into a closed triangle mesh (the pw_mesh
 * the OBJ reader makes), so that seeding, the colliders' distance grids and the
 * renderer's Embree surfaces take text exactly as they take an OBJ mesh.
 *
 * Why a mesh and not a distance function of its own: the mesh machinery (closedness
 * check, narrow-band signed distance, pseudo-normal signs, Embree) is already tested
 * for meshes, and a text collider and the surface drawn for it are then the same
 * triangles. The cost is one cap triangulation per text, milliseconds for a word.
 *
 * The steps, in order (text.c, then text_mesh.c):
 * 1. each character (UTF-8) is mapped through the font's Unicode map; the pen moves by
 *    the glyph's advance plus the kerning of the pair (the font's 'kern' table through
 *    FT_Get_Kerning; kerning that a font keeps only in OpenType GPOS is not applied);
 * 2. each outline (FT_Outline_Decompose: lines, conic and cubic Béziers) is flattened
 *    with chords that stay within `tolerance` of the curve (a uniform split whose count
 *    bounds the chord error by the Bézier's second differences);
 * 3. repeated and collinear points are dropped; outlines that cross or touch are
 *    refused, so the regions are nested, never overlapping;
 * 4. which regions are solid comes from the non-zero winding rule of TrueType and CFF,
 *    computed from the contours' own directions: TrueType draws outer contours
 *    clockwise, CFF counter-clockwise (FT_Outline_Get_Orientation tells them apart),
 *    and the winding rule fills the same regions for both. A contour inside an even
 *    number of others is an outer boundary, inside an odd number a hole (the counters
 *    of o, e, g, R); a font whose directions disagree with that nesting is refused;
 * 5. each outer contour with its holes is triangulated by ear clipping, the holes
 *    joined to the outer contour by bridges; the caps and one wall of two triangles
 *    per outline edge share their vertices, so the mesh is closed and watertight.
 *
 * The text's body frame: reading along +x, up +y, extruded along z. x = 0 is the middle
 * of the ink's extent, y = 0 half the cap height above the baseline (capitals span
 * [-height/2, height/2]; descenders reach below), z in [-depth/2, depth/2]. Lengths [m]. */
#ifndef PW_TEXT_H
#define PW_TEXT_H

#include <stddef.h>

#include "pw_error.h"
#include "pw_math.h"
#include "pw_obj.h"

/* The font a text uses when the scene names none: Debian's fonts-dejavu-core. */
#define PW_TEXT_DEFAULT_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
/* Longest text in bytes of UTF-8, its terminating NUL included (a shape keeps it inline). */
#define PW_TEXT_MAX_BYTES 128
/* The flattening tolerance shapes use, as a fraction of the cap height: 0.5 mm on 1 m
 * letters, far below any grid spacing letters are simulated at (a stroke must span
 * several cells to be snow at all), and about 70 chords on the bowl of an 'O'. */
#define PW_TEXT_TOLERANCE 5e-4

/* Flattened outlines of a line of text, in the text's body frame. */
typedef struct {
    size_t n_contours;
    size_t n_points;
    double *xy;     /* [m] 2 n_points: x, y of each point */
    size_t *first;  /* n_contours + 1: contour c is points first[c] .. first[c+1] - 1,
                       closed (the last point joins the first), at least 3 points, in
                       the direction the font draws it */
    int *character; /* n_contours: index (0-based, in characters) of the character the
                       contour belongs to */
    int *parent;    /* n_contours: the contour immediately enclosing it, or -1 */
    int *hole;      /* n_contours: 1 for a hole (inside an odd number of contours) */
    double *box;    /* [m] n_contours x 4: the contour's x_lo, y_lo, x_hi, y_hi */
    double lo[2], hi[2]; /* [m] bounds of the ink in x, y */
    int n_characters;
} pw_text_outline;

/* Reads the outlines of `text` (UTF-8, one line) from the font file at font_path (any
 * outline font FreeType reads: TrueType, OpenType/CFF, Type 1) with capitals `height`
 * [m] tall (the font's cap height: OS/2 sCapHeight, else the height of its 'H', else
 * its ascender), flattened within `tolerance` [m]. On success *out is owned by the
 * caller (pw_text_outline_free).
 *
 * @return PW_OK; PW_EINVAL for a text the font cannot make solid (empty or only spaces,
 * bad UTF-8, a control character or line break, a character the font lacks, glyphs
 * that overlap or cross themselves), its message naming the character; PW_ENOENT /
 * PW_EIO when the font file cannot be opened; PW_EFORMAT / PW_EUNSUPPORTED when it is
 * not a font FreeType reads or has no outlines or Unicode map; PW_ENOMEM. Messages
 * start with the font's path. Bad height or tolerance: PW_EINVAL. Thread safe (each
 * call has its own FreeType library). */
pw_status pw_text_outline_create(const char *font_path, const char *text, double height,
                                 double tolerance, pw_text_outline *out, pw_error *err);

void pw_text_outline_free(pw_text_outline *o); /* zeroes *o; NULL is a no-op */

/* Enclosed area [m^2] of the outlines: outer contours count positive, holes negative. */
double pw_text_outline_area(const pw_text_outline *o);

/* The exact signed distance [m] (negative inside) from body-frame point p [m] to the
 * outlines extruded over z in [-depth/2, depth/2]: the distance to the nearest outline
 * edge, signed by how many contours hold the point, combined with the distance to the
 * caps as for a box. O(edges of the contours near p). Seeding uses it near the surface,
 * where the distance grid's trilinear values round the letters' corners. */
double pw_text_sdf(const pw_text_outline *o, double depth, vec3 p);

/* The closed mesh of the outlines extruded over z in [-depth/2, depth/2] [m]: caps
 * facing +z and -z, one wall per outline edge, faces wound counter-clockwise seen from
 * outside. Its volume is pw_text_outline_area * depth. On success *out is owned by the
 * caller (pw_mesh_free). @return PW_OK, PW_EINVAL (bad depth), PW_ENUMERIC (an outline
 * that ear clipping cannot triangulate; never seen on DejaVu), PW_ENOMEM. */
pw_status pw_text_extrude(const pw_text_outline *o, double depth, pw_mesh *out, pw_error *err);

#endif
