/* mesh_sdf.h — internal to sim/: a closed triangle mesh (OBJ, text) turned into a signed
 * distance grid, shared by the level-set colliders (collide.c) and seeding (seed.c).
 *
 * The grid lives in the mesh's body frame: OBJ coordinates multiplied by `scale`.
 * A pw_shape of kind PW_SHAPE_MESH places that frame in the world by
 * world = R(t) (center + R_static body) + T(t); pw_mesh_sdf_body_point does it. */
#ifndef PW_MESH_SDF_H
#define PW_MESH_SDF_H

#include "pw_error.h"
#include "pw_obj.h"
#include "pw_shape.h"

typedef struct pw_mesh_sdf pw_mesh_sdf;

/* Reads the OBJ at path, checks that it is closed (every edge shared by exactly two
 * triangles, consistently oriented) and builds the signed distance grid at spacing dx
 * [m] over the scaled mesh bounds plus `margin` [m]. Inward-facing meshes are flipped.
 * Errors name the file ("cube.obj: mesh is not closed: edge (3, 7) belongs to 1
 * triangle (must be 2)"). On success *out is owned by the caller. */
pw_status pw_mesh_sdf_create(const char *path, double scale, double dx, double margin,
                             pw_mesh_sdf **out, pw_error *err);

/* Same for a shape given by triangles (pw_shape_is_mesh: an OBJ mesh or text), its
 * triangles from pw_shape_mesh and its `scale`; messages name the OBJ or the text. */
pw_status pw_mesh_sdf_of_shape(const pw_shape *shape, double dx, double margin,
                               pw_mesh_sdf **out, pw_error *err);

/* Same from a mesh in memory; `name` is used in messages. The mesh is not kept. */
pw_status pw_mesh_sdf_build(const pw_mesh *mesh, const char *name, double scale, double dx,
                            double margin, pw_mesh_sdf **out, pw_error *err);

void pw_mesh_sdf_destroy(pw_mesh_sdf *s); /* NULL is a no-op */

/* Signed distance [m] (negative inside) at body-frame point p by trilinear
 * interpolation, and (if grad is non-NULL) the unit gradient of that interpolant.
 * Outside the grid the distance to the grid box is added to the value at the nearest
 * grid point, so phi stays positive and grows away from the mesh. Thread safe. */
double pw_mesh_sdf_phi(const pw_mesh_sdf *s, vec3 p, vec3 *grad);

/* 1 when body-frame point p is inside the closed mesh (phi(p) < 0), else 0. */
int pw_mesh_sdf_inside(const pw_mesh_sdf *s, vec3 p);

/* Bounds [m] of the scaled mesh (without the margin), enclosed volume [m^3] by the
 * divergence theorem, and the triangle count. */
void pw_mesh_sdf_bounds(const pw_mesh_sdf *s, vec3 *lo, vec3 *hi);
double pw_mesh_sdf_volume(const pw_mesh_sdf *s);
size_t pw_mesh_sdf_triangles(const pw_mesh_sdf *s);

/* The work of the build, for tests and benchmarks: grid nodes (the sign search and
 * the distance sweeps visit each a fixed number of times) and the point-triangle
 * distances of the narrow band (each triangle against the nodes of its bounding box
 * grown by the band, so the build stays linear in the mesh, not nodes x triangles). */
size_t pw_mesh_sdf_nodes(const pw_mesh_sdf *s);
size_t pw_mesh_sdf_band_tests(const pw_mesh_sdf *s);

/* The body-frame point of world point x at time t for shape sh (any kind: for the
 * analytic kinds the body frame is the one centred on the shape), and the rotation
 * world_from_body (may be NULL) that takes body vectors such as normals to the world. */
vec3 pw_mesh_sdf_body_point(const pw_shape *sh, double t, vec3 x, mat3 *world_from_body);

#endif
