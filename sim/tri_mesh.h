/* tri_mesh.h — internal to sim/: triangle-mesh geometry shared by the signed-distance
 * grids (mesh_sdf.c) and the deforming mesh colliders (mesh_deform.c): closedness and
 * orientation, the angle-weighted pseudo-normals that sign a distance (Baerentzen &
 * Aanaes 2005), and the exact closest point on a triangle. */
#ifndef PW_TRI_MESH_H
#define PW_TRI_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"
#include "pw_math.h"

/* mesh in double precision with the pseudo-normals that sign distances */
typedef struct {
    size_t nv, nt;
    vec3 *v;          /* scaled vertices */
    uint32_t *t;      /* 3 per triangle, outward (counter-clockwise seen from outside) */
    vec3 *n_face;     /* unit face normals (zero for degenerate triangles) */
    vec3 *n_vertex;   /* angle-weighted vertex pseudo-normals */
    vec3 *n_edge;     /* per slot 3t+e: sum of the two adjacent face normals */
} pw_tri_mesh;

/* Pairs every edge with its twin and fills n_edge (call pw_tri_normals first) and, when
 * twin is not NULL, twin[slot] (3 per triangle: the twin's slot 3 t' + e'). Fails
 * on the first edge not shared by exactly two triangles or run the same way by both,
 * naming it; vertex and triangle numbers in messages are 1-based, as in the OBJ. */
pw_status pw_tri_pair_edges(pw_tri_mesh *m, const char *name, uint32_t *twin, pw_error *err);

/* Unit face normals (zero for degenerate triangles) and vertex pseudo-normals. */
void pw_tri_normals(pw_tri_mesh *m);

/* Closest point to p on triangle abc and its feature: 0..2 vertex a, b, c; 3 edge ab,
 * 4 edge bc, 5 edge ca; 6 face (Ericson 2005, 5.1.5, with a fallback to the edges for
 * degenerate triangles). */
vec3 pw_tri_closest(vec3 p, vec3 a, vec3 b, vec3 c, int *feature);

/* The pseudo-normal of triangle t's feature (unnormalised): its sign against p - q
 * tells inside from outside for a closed, consistently oriented mesh. */
vec3 pw_tri_feature_normal(const pw_tri_mesh *m, size_t t, int feature);

void pw_tri_mesh_free(pw_tri_mesh *m); /* frees the arrays */

#endif
