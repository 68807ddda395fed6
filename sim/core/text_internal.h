/* text_internal.h — internal to sim/core's text files (text.c, text_union.c). */
#ifndef PW_TEXT_INTERNAL_H
#define PW_TEXT_INTERNAL_H

#include "pw_text.h"

/* Replaces the contours of every character c with merge[c] != 0 (o->character) by the
 * boundary of the region that the non-zero winding rule fills with them: their edges
 * are split where they cross, touch or run over one another, and an edge piece is kept
 * where the winding number is 0 on one side and not on the other, directed with the
 * filled side on its left and then reversed when the merged contours were drawn
 * clockwise overall (so the result keeps the font's direction convention). This is how
 * composite glyphs whose parts overlap (c + cedilla, e + ogonek, U + horn) and
 * overlapping kerned glyphs become one solid. Works on o->xy, first, character,
 * n_points, n_contours only (parent and hole are set later). Coordinates should be
 * the font's units, where the straight edges' ends are integers and collinear overlaps
 * are found exactly. @return PW_OK, PW_ENOMEM, or PW_ENUMERIC when the pieces do not
 * close into contours. */
pw_status pw_text_union(pw_text_outline *o, const unsigned char *merge, const char *font,
                        pw_error *err);

#endif
