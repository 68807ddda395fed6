/* pw_obj.h — a careful reader for Wavefront OBJ triangle meshes (v and f records;
 * polygons are fan-triangulated; vt/vn indices and other records are ignored;
 * negative indices are relative). Shared by the solver's colliders and seeding and
 * the renderer's surfaces. */
#ifndef PW_OBJ_H
#define PW_OBJ_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"

typedef struct {
    size_t n_vertices;
    size_t n_triangles;
    float *vertices;     /* 3 * n_vertices, [m] in the file's units */
    uint32_t *triangles; /* 3 * n_triangles, 0-based vertex indices, all < n_vertices */
} pw_mesh;

/* Reads path into *out (which the caller later frees with pw_mesh_free). Errors name
 * the file, line and problem ("mesh.obj:12: face index 40 out of range (31 vertices)").
 * An empty mesh, a non-finite coordinate or a degenerate record is an error. */
pw_status pw_obj_read(const char *path, pw_mesh *out, pw_error *err);

/* Same, from a memory buffer; `name` is used in messages (fuzzing, tests). */
pw_status pw_obj_parse(const char *name, const char *text, size_t len, pw_mesh *out,
                       pw_error *err);

void pw_mesh_free(pw_mesh *m); /* zeroes *m; NULL is a no-op */

#endif
