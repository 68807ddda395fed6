/* Property: a text body is seeded with snow exactly where its letters are, and nowhere
 * in their holes.
 * - The particle count of "Rogue" (DejaVu Sans Bold, capitals 0.3 m, 0.06 m deep,
 *   8 particles per cell of h = 0.01 m, off the grid) equals 8 A d / h^3 within 2 %, A
 *   the area of the flattened outlines by the shoelace formula computed here from the
 *   contours as the font draws them (outer contours one way, holes the other, so the
 *   signed sum is the area: no use of the reader's hole flags). Jittered sampling is
 *   unbiased per cell; ~1e5 particles fluctuate by ~0.2 % in the ~25 % of cells the
 *   letters' boundary cuts, and the distance grid (h/2) moves the boundary by a small
 *   fraction of a cell, so 2 % catches a lost hole (the counter of the 'o' alone is
 *   ~5 % of the area), a doubled glyph or a wrong scale, not noise.
 * - Each hole (the counters of R, o, g, e: the contours drawn against the text's
 *   direction) is checked at its centroid, which must lie in the hole's polygon: the
 *   signed distance of the text's mesh there is positive and matches the exact distance
 *   to the hole's polygon within h/2 (the grid's spacing: trilinear interpolation of a
 *   distance field is exact on planes and errs by less than a cell at curved walls).
 * - No seeded particle lies inside a hole's polygon.
 * - The seeder's estimate (mesh volume by the divergence theorem) is 8 A d / h^3 within
 *   0.5 % (the mesh is the outline extruded; only float rounding of vertices differs). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mesh_sdf.h"
#include "seed.h"

#define TEXT "Rogue"

/* area of contour c by the shoelace formula, signed as drawn */
static double signed_area(const pw_text_outline *o, size_t c)
{
    size_t f = o->first[c], m = o->first[c + 1] - f;
    double a = 0;
    for (size_t k = 0; k < m; k++) {
        const double *p = &o->xy[2 * (f + k)], *q = &o->xy[2 * (f + (k + 1) % m)];
        a += p[0] * q[1] - q[0] * p[1];
    }
    return 0.5 * a;
}

static void centroid(const pw_text_outline *o, size_t c, double *cx, double *cy)
{
    size_t f = o->first[c], m = o->first[c + 1] - f;
    double a = 0, x = 0, y = 0;
    for (size_t k = 0; k < m; k++) {
        const double *p = &o->xy[2 * (f + k)], *q = &o->xy[2 * (f + (k + 1) % m)];
        double w = p[0] * q[1] - q[0] * p[1];
        a += w;
        x += (p[0] + q[0]) * w;
        y += (p[1] + q[1]) * w;
    }
    *cx = x / (3 * a);
    *cy = y / (3 * a);
}

static int in_polygon(const pw_text_outline *o, size_t c, double x, double y)
{
    size_t f = o->first[c], m = o->first[c + 1] - f;
    int inside = 0;
    for (size_t k = 0; k < m; k++) {
        const double *u = &o->xy[2 * (f + k)], *v = &o->xy[2 * (f + (k + 1) % m)];
        if ((u[1] > y) != (v[1] > y) && x < u[0] + (y - u[1]) * (v[0] - u[0]) / (v[1] - u[1]))
            inside = !inside;
    }
    return inside;
}

/* exact distance from (x, y) to the edges of contour c */
static double polygon_distance(const pw_text_outline *o, size_t c, double x, double y)
{
    size_t f = o->first[c], m = o->first[c + 1] - f;
    double d2 = INFINITY;
    for (size_t k = 0; k < m; k++) {
        const double *u = &o->xy[2 * (f + k)], *v = &o->xy[2 * (f + (k + 1) % m)];
        double ex = v[0] - u[0], ey = v[1] - u[1], l2 = ex * ex + ey * ey;
        double t = l2 > 0 ? ((x - u[0]) * ex + (y - u[1]) * ey) / l2 : 0;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        double dx = u[0] + t * ex - x, dy = u[1] + t * ey - y;
        d2 = fmin(d2, dx * dx + dy * dy);
    }
    return sqrt(d2);
}

int main(void)
{
    const double h = 0.01, height = 0.3, depth = 0.06, ppc = 8;
    const vec3 center = v3(0.0137, 0.4071, -0.0033); /* off the grid: cells cut anyhow */
    pw_error err = {0};

    pw_body_desc b;
    memset(&b, 0, sizeof b);
    pw_shape *sh = &b.add[0];
    pw_shape_init(sh, PW_SHAPE_TEXT);
    snprintf(sh->path, sizeof sh->path, "%s", PW_TEXT_DEFAULT_FONT);
    snprintf(sh->text, sizeof sh->text, "%s", TEXT);
    sh->text_height = height;
    sh->text_depth = depth;
    sh->center = center;
    b.n_add = 1;
    b.particles_per_cell = ppc;
    b.seed = 7;

    /* the outlines the mesh is built from, and their area by the shoelace formula */
    pw_text_outline o;
    if (pw_text_outline_create(sh->path, TEXT, height, PW_TEXT_TOLERANCE * height, &o, &err) !=
        PW_OK) {
        fprintf(stderr, "outline: %s\n", err.msg);
        return 1;
    }
    double A = 0;
    for (size_t c = 0; c < o.n_contours; c++) A += signed_area(&o, c);
    double drawn = A > 0 ? 1 : -1; /* TrueType draws outer contours clockwise */
    A = fabs(A);
    double expect = ppc * A * depth / (h * h * h);
    printf("\"%s\": %zu contours, %zu points, area %.6f m^2 (drawn %s), expect %.0f particles\n",
           TEXT, o.n_contours, o.n_points, A, drawn > 0 ? "ccw" : "cw", expect);

    /* 1. particle count */
    pw_material mat;
    pw_material_default(&mat);
    pw_seeded s = {0};
    CHECK(pw_seed_body(&b, &mat, h, &s, &err) == PW_OK, "1 seed: %s", err.msg);
    double rel = ((double)s.n - expect) / expect;
    printf("1 count: %zu particles, %.3f %% from 8 A d / h^3\n", s.n, 100 * rel);
    CHECK(fabs(rel) <= 0.02, "1 count %zu vs %.0f (%.2f %%)", s.n, expect, 100 * rel);

    /* 2. the holes: R, o, g, e each have one, drawn against the text */
    pw_mesh_sdf *sdf = NULL;
    CHECK(pw_mesh_sdf_of_shape(sh, 0.5 * h, h, &sdf, &err) == PW_OK, "2 sdf: %s", err.msg);
    int holes = 0, holes_of[8] = {0};
    for (size_t c = 0; c < o.n_contours && sdf; c++) {
        if (signed_area(&o, c) * drawn > 0) continue;
        holes++;
        holes_of[o.character[c]]++;
        CHECK(o.hole[c], "2 contour %zu drawn as a hole is not flagged one", c);
        double cx, cy;
        centroid(&o, c, &cx, &cy);
        CHECK(in_polygon(&o, c, cx, cy), "2 centroid of hole %zu outside its polygon", c);
        double phi = pw_mesh_sdf_phi(sdf, v3(cx, cy, 0), NULL);
        double exact = polygon_distance(&o, c, cx, cy);
        printf("2 hole of '%c' at (%.4f, %.4f): phi %.5f m, distance to its wall %.5f m\n",
               TEXT[o.character[c]], cx, cy, phi, exact);
        CHECK(phi > 0, "2 phi %g at the centre of the hole of '%c'", phi, TEXT[o.character[c]]);
        CHECK(fabs(phi - exact) <= 0.5 * h, "2 phi %g vs distance %g", phi, exact);
    }
    CHECK(holes == 4 && holes_of[0] == 1 && holes_of[1] == 1 && holes_of[2] == 1 &&
          holes_of[3] == 0 && holes_of[4] == 1, "2 holes: %d (R %d o %d g %d u %d e %d)", holes,
          holes_of[0], holes_of[1], holes_of[2], holes_of[3], holes_of[4]);

    /* 3. no particle inside a hole */
    int inside = 0;
    for (size_t p = 0; p < s.n; p++) {
        vec3 q = v3_sub(s.x[p], center);
        for (size_t c = 0; c < o.n_contours; c++)
            if (signed_area(&o, c) * drawn < 0 && in_polygon(&o, c, q.x, q.y)) inside++;
    }
    printf("3 particles inside holes: %d\n", inside);
    CHECK(inside == 0, "3 %d particles in the holes", inside);

    /* 4. estimate */
    size_t est = 0;
    CHECK(pw_seed_estimate(&b, h, &est, &err) == PW_OK, "4 estimate: %s", err.msg);
    printf("4 estimate %zu (%.4f %% from 8 A d / h^3)\n", est, 100 * (est - expect) / expect);
    CHECK(fabs((double)est - expect) <= 0.005 * expect, "4 estimate %zu vs %.0f", est, expect);

    pw_mesh_sdf_destroy(sdf);
    pw_seeded_free(&s);
    pw_text_outline_free(&o);
    return check_done("text_seed_fills_glyphs");
}
