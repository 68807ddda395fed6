/* surfaces.h — opaque diffuse surfaces (ground, walls, collider meshes, props) traced
 * with Embree 3. Shapes come from pw_shape.h and are placed by their keyframed motion
 * at the frame's time, so the renderer draws colliders where the solver had them. */
#ifndef PW_SURFACES_H
#define PW_SURFACES_H

#include "pw_error.h"
#include "pw_math.h"
#include "pw_shape.h"

/* What a surface is for in compositing. Only camera rays see the role: for every other
 * ray (light, bounces) each surface is the diffuse surface it describes. */
typedef enum {
    PW_SURFACE_OPAQUE = 0,     /* drawn as it is */
    PW_SURFACE_HOLDOUT,        /* a stand-in for a filmed object: RGB 0 and alpha 0 where
                                  the camera sees it, so it hides the snow behind it */
    PW_SURFACE_SHADOW_CATCHER  /* a stand-in for the filmed ground: RGB 0, alpha = the share
                                  of direct light the CG (snow, other surfaces) takes away */
} pw_surface_role;

typedef struct {
    pw_shape shape;  /* half-space = a ground plane (finite when size > 0) */
    double size;     /* [m] half-space only: half side of the square drawn; 0 = infinite */
    vec3 color;      /* diffuse albedo, each channel in [0, 1] */
    pw_surface_role role;
} pw_surface_desc;

typedef struct {
    double t;        /* ray parameter of the hit [m along unit dir] */
    vec3 p;          /* hit point */
    vec3 n;          /* unit geometric normal, facing against the incoming ray */
    vec3 color;      /* diffuse albedo of the surface hit */
    pw_surface_role role;
} pw_surface_hit;

typedef struct pw_surfaces pw_surfaces;

/* Builds the Embree scene of n surfaces at time t [s]. n may be 0. Embree errors
 * reach *err through the device error callback. */
pw_surfaces *pw_surfaces_create(const pw_surface_desc *desc, int n, double t, pw_error *err);
void pw_surfaces_destroy(pw_surfaces *s); /* NULL is a no-op */

/* Nearest hit along org + s dir for s in (tmin, tmax); dir is unit. Returns 1 and
 * fills *hit, or 0. Thread safe. */
int pw_surfaces_intersect(const pw_surfaces *s, vec3 org, vec3 dir, double tmin, double tmax,
                          pw_surface_hit *hit);

/* A distance along org + t dir (dir unit) before which no surface can be hit: the
 * nearest infinite plane or the entry into the finite surfaces' bounds, INFINITY when
 * neither lies ahead. Cheap (no Embree query), so a caller can find an event before it
 * and skip pw_surfaces_intersect. */
double pw_surfaces_clear_until(const pw_surfaces *s, vec3 org, vec3 dir);

/* 1 when anything blocks org + s dir for s in (tmin, tmax). Thread safe. */
int pw_surfaces_occluded(const pw_surfaces *s, vec3 org, vec3 dir, double tmin, double tmax);

/* World-space bounds of the finite surfaces (infinite planes excluded). Returns 0 when
 * there are none. */
int pw_surfaces_bounds(const pw_surfaces *s, vec3 *lo, vec3 *hi);

#endif
