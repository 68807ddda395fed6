/* Property: the mesh of extruded text is a closed, consistently oriented solid of the
 * outlines' area times its depth, so seeding, the colliders' distance grids and Embree
 * can take it as they take a closed OBJ.
 * - closed: every undirected edge belongs to exactly two triangles, which run it in
 *   opposite directions (consistent orientation), and no triangle repeats a vertex;
 * - volume by the divergence theorem is positive and equals area x depth within 0.5 %
 *   (the brief's bound; the mesh is that prism exactly, so what remains is the float
 *   rounding of its vertices, ~1e-7 relative, printed);
 * - every front-cap triangle faces +z with positive area (no folded ear), their areas
 *   sum to the outline's area to 1e-9 relative;
 * Cases: 1. words ("SIGGRAPH", "The end", "Rogue", "Façade", "g@8%&") in DejaVu Sans
 * Bold; 2. every glyph U+0021..U+017F that four DejaVu faces (Sans Bold, Sans, Serif,
 * Sans Mono Oblique) have, one mesh each: composites whose parts overlap (ç, ą, Ş, Ů:
 * merged by the reader) and whose parts touch at a point (ţ in DejaVu Sans) included; a
 * glyph the reader refuses is a failure; 3. the mesh is accepted by the distance-grid
 * builder (pw_mesh_sdf_build) and its volume agrees. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mesh_sdf.h"
#include "pw_text.h"

#define DEJAVU "/usr/share/fonts/truetype/dejavu/"

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : (a > b);
}

/* 1 when closed and consistently oriented; *volume by the divergence theorem, *front the
 * area of the front cap (z > 0), *bad_caps the cap triangles facing the wrong way. */
static int closed_mesh(const pw_mesh *m, double *volume, double *front, int *bad_caps,
                       char *why, size_t why_size)
{
    size_t ne = 3 * m->n_triangles;
    uint64_t *e = malloc(ne * sizeof *e);
    if (!e) return 0;
    *volume = *front = 0;
    *bad_caps = 0;
    int ok = 1;
    for (size_t t = 0; t < m->n_triangles; t++) {
        const uint32_t *f = &m->triangles[3 * t];
        double p[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) p[c][k] = m->vertices[3 * f[c] + k];
        vec3 a = v3(p[0][0], p[0][1], p[0][2]), b = v3(p[1][0], p[1][1], p[1][2]),
             c = v3(p[2][0], p[2][1], p[2][2]);
        *volume += v3_dot(a, v3_cross(b, c)) / 6.0;
        vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
        int cap = a.z == b.z && b.z == c.z;
        if (cap && a.z > 0) {
            *front += 0.5 * n.z;
            *bad_caps += !(n.z > 0);
        }
        if (cap && a.z < 0) *bad_caps += !(n.z < 0);
        if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2]) {
            snprintf(why, why_size, "triangle %zu repeats a vertex", t);
            ok = 0;
        }
        for (int k = 0; k < 3; k++) e[3 * t + k] = (uint64_t)f[k] << 32 | f[(k + 1) % 3];
    }
    qsort(e, ne, sizeof *e, u64_cmp);
    for (size_t i = 0; i < ne && ok; i++) {
        uint64_t twin = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        if (i + 1 < ne && e[i + 1] == e[i]) {
            snprintf(why, why_size, "edge %u->%u runs the same way in two triangles",
                     (unsigned)(e[i] >> 32), (unsigned)(e[i] & 0xffffffffu));
            ok = 0;
        } else if (!bsearch(&twin, e, ne, sizeof *e, u64_cmp)) {
            snprintf(why, why_size, "edge %u->%u has no twin (open or inconsistently "
                     "oriented)", (unsigned)(e[i] >> 32), (unsigned)(e[i] & 0xffffffffu));
            ok = 0;
        }
    }
    free(e);
    return ok;
}

static double worst_volume_error = 0;

/* one text: outline, mesh, all checks; returns 0 when the reader refused it */
static int check_text(const char *id, const char *font, const char *text, double depth,
                      int verbose)
{
    pw_text_outline o;
    pw_error err = {0};
    if (pw_text_outline_create(font, text, 1.0, PW_TEXT_TOLERANCE, &o, &err) != PW_OK) {
        CHECK(0, "%s: %s", id, err.msg);
        return 0;
    }
    pw_mesh m;
    if (pw_text_extrude(&o, depth, &m, &err) != PW_OK) {
        CHECK(0, "%s: extrude: %s", id, err.msg);
        pw_text_outline_free(&o);
        return 0;
    }
    double vol, front, area = pw_text_outline_area(&o);
    int bad_caps;
    char why[160] = "";
    int closed = closed_mesh(&m, &vol, &front, &bad_caps, why, sizeof why);
    double rel = (vol - area * depth) / (area * depth);
    worst_volume_error = fmax(worst_volume_error, fabs(rel));
    if (verbose)
        printf("%s \"%s\": %zu contours, %zu triangles, volume %.6g m^3 vs area x depth %.6g "
               "(%.2g relative)\n", id, text, o.n_contours, m.n_triangles, vol, area * depth, rel);
    CHECK(closed, "%s \"%s\": not closed: %s", id, text, why);
    CHECK(area > 0 && vol > 0 && fabs(rel) <= 0.005, "%s \"%s\": volume %g vs %g", id, text, vol,
          area * depth);
    CHECK(bad_caps == 0, "%s \"%s\": %d cap triangles face the wrong way", id, text, bad_caps);
    CHECK(fabs(front - area) <= 1e-6 * area, "%s \"%s\": front cap area %.12g vs outline %.12g",
          id, text, front, area);
    pw_mesh_free(&m);
    pw_text_outline_free(&o);
    return 1;
}

static void utf8(long cp, char *s)
{
    if (cp < 0x80) {
        s[0] = (char)cp;
        s[1] = 0;
    } else {
        s[0] = (char)(0xc0 | (cp >> 6));
        s[1] = (char)(0x80 | (cp & 0x3f));
        s[2] = 0;
    }
}

int main(void)
{
    const char *bold = PW_TEXT_DEFAULT_FONT;

    /* 1. words */
    const char *words[] = {"SIGGRAPH", "The end", "Rogue", "Fa\xc3\xa7" "ade", "g@8%&"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        char id[16];
        snprintf(id, sizeof id, "1.%zu", k + 1);
        check_text(id, bold, words[k], 0.2, 1);
    }

    /* 2. every glyph of four faces */
    const char *faces[] = {bold, DEJAVU "DejaVuSans.ttf", DEJAVU "DejaVuSerif.ttf",
                           DEJAVU "DejaVuSansMono-Oblique.ttf"};
    for (size_t f = 0; f < sizeof faces / sizeof *faces; f++) {
        int meshed = 0, absent = 0;
        for (long cp = 0x21; cp <= 0x17f; cp++) {
            if (cp >= 0x7f && cp <= 0xa0) continue; /* controls and no-break space */
            char s[4], id[48];
            utf8(cp, s);
            snprintf(id, sizeof id, "2.%zu U+%04lX", f + 1, (unsigned long)cp);
            pw_text_outline probe;
            pw_error err = {0};
            if (pw_text_outline_create(faces[f], s, 1.0, PW_TEXT_TOLERANCE, &probe, &err) !=
                    PW_OK && strstr(err.msg, "has no glyph")) {
                absent++;
                continue;
            }
            pw_text_outline_free(&probe);
            meshed += check_text(id, faces[f], s, 0.3, 0);
        }
        printf("2.%zu %s: %d glyphs meshed and closed, %d absent\n", f + 1, faces[f], meshed,
               absent);
        CHECK(meshed > 300, "2.%zu only %d glyphs", f + 1, meshed);
    }
    printf("largest |volume - area x depth| / (area x depth): %.2g\n", worst_volume_error);

    /* 3. the distance-grid builder takes the mesh */
    {
        pw_text_outline o;
        pw_mesh m;
        pw_error err = {0};
        pw_mesh_sdf *sdf = NULL;
        CHECK(pw_text_outline_create(bold, "Rogue", 0.3, 0.3 * PW_TEXT_TOLERANCE, &o, &err) ==
                      PW_OK &&
                  pw_text_extrude(&o, 0.06, &m, &err) == PW_OK,
              "3: %s", err.msg);
        CHECK(pw_mesh_sdf_build(&m, "Rogue", 1.0, 0.005, 0.01, &sdf, &err) == PW_OK, "3 sdf: %s",
              err.msg);
        if (sdf)
            CHECK(fabs(pw_mesh_sdf_volume(sdf) - 0.06 * pw_text_outline_area(&o)) <=
                      1e-5 * pw_mesh_sdf_volume(sdf),
                  "3 volume %g vs %g", pw_mesh_sdf_volume(sdf), 0.06 * pw_text_outline_area(&o));
        pw_mesh_sdf_destroy(sdf);
        pw_mesh_free(&m);
        pw_text_outline_free(&o);
    }
    return check_done("text_mesh_closed");
}
