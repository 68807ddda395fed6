/* collide.h — collision objects as level sets (Stomakhin et al. 2013, section 8):
 * analytic shapes from pw_shape.h and closed OBJ meshes turned into signed-distance
 * grids, static or moving rigidly along keyframes; deforming meshes (OBJ sequences) and
 * shells (meshes with a thickness) by exact distances to their triangles, moving with
 * their vertices (mesh_deform.h); Coulomb friction or sticky, relative to the
 * collider's velocity where the snow touches it. */
#ifndef PW_COLLIDE_H
#define PW_COLLIDE_H

#include "pw_error.h"
#include "pw_shape.h"

typedef struct {
    pw_shape shape;
    double friction;     /* Coulomb mu [-], >= 0 */
    int sticky;          /* 1: v_rel := 0 whenever in contact (sec. 8, last paragraph) */
} pw_collider_desc;

typedef struct pw_colliders pw_colliders;

/* An empty set; h [m] is the simulation grid spacing (mesh SDF grids use h/2). */
pw_colliders *pw_colliders_create(double h, pw_error *err);
void pw_colliders_destroy(pw_colliders *c); /* NULL is a no-op */

/* Adds a copy of desc; a mesh is read (pw_obj) and converted to an SDF grid here.
 * Errors name the OBJ file and line. */
pw_status pw_colliders_add(pw_colliders *c, const pw_collider_desc *desc, pw_error *err);
int pw_colliders_count(const pw_colliders *c);

/* Forms every collider's pose at time t once, for the calls at t that follow (a step
 * asks each node and particle, and forming the pose per point showed in the step's
 * profile: sim/docs/step-speed.md, second round), and moves deforming meshes to t. Not
 * thread safe: call it before the parallel loops. Calls at other times form their own
 * rigid pose, but ask a deforming mesh where the last call put it. */
void pw_colliders_pose_at(pw_colliders *c, double t);

/* Signed distance [m] to the union of all colliders at x and time t (minimum). */
double pw_colliders_phi(const pw_colliders *c, double t, vec3 x);

/* Signed distance [m] at x and time t to the nearest collider that moves there (its
 * rigid velocity at x is not zero), and that velocity's size [m/s] in *speed; INFINITY
 * and 0 when none moves. What wakes resting snow (rest.c). */
double pw_colliders_moving_phi(const pw_colliders *c, double t, vec3 x, double *speed);

/* What a collision constrains in the implicit solve. Section 8 projects the colliding
 * nodes' degrees of freedom out of the solve; only those the collision set are
 * constrained: the normal one when the contact slips (dynamic friction, or mu = 0),
 * all three when it sticks (sticky, or static friction). Fixing all three for a
 * slipping contact would discard the solve's tangential forces (a drop on a
 * frictionless floor drifted sideways). */
typedef enum { PW_CONTACT_NONE = 0, PW_CONTACT_NORMAL = 1, PW_CONTACT_ALL = 2 } pw_contact;

/* Applies section 8 to velocity v at world point x and time t: for every collider with
 * phi(x) <= 0, transform to the collider's frame, stick or apply Coulomb friction,
 * transform back. Returns what the collisions constrain; for PW_CONTACT_NORMAL,
 * *normal (may be NULL) is the unit normal. Two slipping contacts with different
 * normals constrain all. Thread safe (read only). */
pw_contact pw_colliders_apply(const pw_colliders *c, double t, vec3 x, vec3 *v, vec3 *normal);

/* The velocity projection alone (exposed for tests): v_rel = v - v_co against unit
 * normal n with friction mu or sticky; returns the collided world velocity and, when
 * kind is not NULL, what it constrains (PW_CONTACT_NONE when separating). */
vec3 pw_collide_velocity(vec3 v, vec3 v_co, vec3 n, double mu, int sticky, pw_contact *kind);

#endif
