/* obj_fixture.h — OBJ files for the mesh tests: a writer of vertices and 0-based
 * triangles, and an axis-aligned box as 8 corners and 12 outward triangles. Include
 * after check.h and pw_math.h. */
#ifndef PW_TEST_OBJ_FIXTURE_H
#define PW_TEST_OBJ_FIXTURE_H

#include <stdio.h>

/* Writes n vertices and m triangles (0-based indices in tri, written 1-based). */
static inline void write_obj(const char *path, const vec3 *v, int n, const int *tri, int m)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    for (int i = 0; i < n; i++) fprintf(f, "v %.9f %.9f %.9f\n", v[i].x, v[i].y, v[i].z);
    for (int t = 0; t < m; t++)
        fprintf(f, "f %d %d %d\n", tri[3 * t] + 1, tri[3 * t + 1] + 1, tri[3 * t + 2] + 1);
    fclose(f);
}

/* corner k has bit 0 = +x, bit 1 = +y, bit 2 = +z; faces outward */
static const int box_tris[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                 2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};

static inline void box_corners(vec3 lo, vec3 hi, vec3 v[8])
{
    for (int k = 0; k < 8; k++)
        v[k] = v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
}

/* The box of corners v as one closed OBJ. */
static inline void write_box(const char *path, const vec3 v[8]) { write_obj(path, v, 8, box_tris, 12); }

#endif
