/* mesh_deform.h — internal to sim/: a mesh collider whose shape changes over time (an
 * OBJ sequence, pw_mesh_seq.h) or that is a shell of some thickness (an open mesh such
 * as a character's body), measured by exact distances to its triangles.
 *
 * A distance grid would have to be rebuilt every substep as a character's legs bend;
 * instead the triangles are moved to the substep's time, their bounding volume
 * hierarchy is refitted, and each grid node or particle asks for its nearest triangle. The signed
 * distance is exact wherever asked (no band, no grid resolution), its sign comes from
 * the angle-weighted pseudo-normal of the nearest feature (tri_mesh.h), and the
 * surface's velocity there is interpolated from the vertices' velocities, so snow that
 * a foot pushes moves with the foot.
 *
 * The mesh is the union of its connected components, each closed and consistently
 * oriented (or, with a thickness, any triangles at all): components may overlap, as
 * the separate parts of a character often do. */
#ifndef PW_MESH_DEFORM_H
#define PW_MESH_DEFORM_H

#include "pw_error.h"
#include "pw_shape.h"

typedef struct pw_mesh_deform pw_mesh_deform;

/* Reads the mesh of s (every file of a sequence, checked now so that a bad file stops
 * the shot before any work), splits it into components and checks that each is closed
 * unless s->thickness > 0. Errors name the file and the first open edge. */
pw_status pw_mesh_deform_create(const pw_shape *s, pw_mesh_deform **out, pw_error *err);
void pw_mesh_deform_destroy(pw_mesh_deform *d); /* NULL is a no-op */

/* Moves the mesh to time t [s] (a no-op when it is there). Not thread safe. */
pw_status pw_mesh_deform_at(pw_mesh_deform *d, double t, pw_error *err);

/* The time the mesh is at (NAN before the first pw_mesh_deform_at). */
double pw_mesh_deform_time(const pw_mesh_deform *d);

/* Signed distance [m] (negative inside) at body-frame point p to the mesh where
 * pw_mesh_deform_at put it; the outward unit normal there and the surface's velocity
 * [m/s] at the nearest point, both in the body frame (either may be NULL). Points
 * farther than `beyond` [m] from every component's bounds may get a lower bound of the
 * distance instead (still > beyond), and no normal or velocity worth using. Thread
 * safe. */
double pw_mesh_deform_phi(const pw_mesh_deform *d, vec3 p, double beyond, vec3 *normal,
                          vec3 *velocity);

/* Triangles, components, and the wall time [s] the last pw_mesh_deform_at took. */
size_t pw_mesh_deform_triangles(const pw_mesh_deform *d);
int pw_mesh_deform_components(const pw_mesh_deform *d);

#endif
