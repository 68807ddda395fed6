/* emit.h — snow sources: shapes that emit snow over a time range (snowfall, a chute, a
 * snow cannon), and the flakes' flight to where they land (sim/docs/snowfall.md).
 *
 * Particle k of a source is born at t_k = t_start + (k + 1) / r, r its rate in particles
 * a second, at a point drawn uniformly in the shape as it stands at t_k, with the
 * source's velocity plus a jitter drawn uniformly in a ball. Every draw is a hash of
 * (seed, k), and a step emits the particles born before it starts, each moved on by its
 * velocity over the time since its birth: the same particles on any thread count and
 * through kill and resume. A flake in the air falls on its own: gravity, and a relaxation
 * toward the air's velocity at the rate |g| / its terminal speed (linear drag, so it
 * falls at the terminal speed in still air and drifts with the wind). It is off the grid
 * until it lands (rest.c leaves it out of the step like resting snow, and it holds no
 * node): the grid is the landed snow's, and a flake costs its flight, not a step. It
 * lands, for good, when its stencil reaches the floor or a collider's face it can rest
 * on (it slides down a steep one), or when the grid's velocity at it, as if it alone
 * were on the grid, turns from its own free fall (a snowpack under it), and joins the
 * snow there unstrained (F_E = I) at the density of the snow where it lands. */
#ifndef PW_EMIT_H
#define PW_EMIT_H

#include <stdint.h>

#include "material.h"
#include "pw_error.h"
#include "pw_shape.h"

#define PW_SIM_MAX_SOURCES 16

typedef struct {
    pw_shape shape;           /* sphere, box or cylinder; may move (its keys)        */
    pw_material material;     /* of the snow it emits; rho0 is the fresh snow's      */
    double t_start, t_end;    /* [s] emits in (t_start, t_end]                       */
    double rate;              /* [kg/s] > 0                                          */
    vec3 velocity;            /* [m/s] at birth                                      */
    double jitter;            /* [m/s] >= 0: a speed uniform in a ball added at birth */
    double particles_per_cell; /* 1..64: a particle's mass is rho0 h^3 / this        */
    double terminal_speed;    /* [m/s] > 0: in the air; 0: no drag (a chute's snow)  */
    uint64_t seed;
} pw_source_desc;

/* Checks a source against the solver's parameters: an analytic bounded shape inside the
 * domain at t_start and t_end and at each of its keys, t_start < t_end, finite positive
 * rate, jitter >= 0, terminal speed >= 0, a valid material. On failure names the key
 * ("shape", "start", "rate", ...) and the range. */
pw_status pw_source_check(const pw_source_desc *d, double h, vec3 domain_min,
                          vec3 domain_max, pw_error *err);

/* The area [m^2] of the shape seen from above (straight down -y), for a snowfall's
 * intensity in mm of water an hour: kg/s = intensity * area / 3600. 0 for a shape whose
 * footprint is not known in closed form (a rotated box or cylinder). */
double pw_source_top_area(const pw_shape *s);

/* The particles a source emits over its whole time range at grid spacing h. */
uint64_t pw_source_total(const pw_source_desc *d, double h);

#endif
