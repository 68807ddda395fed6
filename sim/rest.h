/* rest.h — resting snow and the translating grid: which particles a step moves
 * (internal to sim/; sim/docs/resting-snow.md).
 *
 * A snow field at rest costs nothing to keep at rest, yet the 2013 solver steps every
 * particle every substep. Here a particle whose speed has stayed below rest_speed for
 * sleep_steps steps rests: it is not stepped (no transfer, stress, solve, update or
 * advection), keeps its whole state bit for bit, and the grid nodes its stencil shares
 * with moving snow are held still, as the resting snow would hold them. It wakes, and is
 * stepped again from its stored state, when snow moving faster than rest_speed comes
 * within one grid block (4 h) of its own, or a moving collider within a band of
 * 8 h + 4 |v_collider| dt_max. Outside the active region (pw_sim_params.region) snow
 * rests as soon as it is slower than rest_speed: the paper's translating grid, without
 * freezing spray in flight.
 *
 * Flakes in the air (emit.h) are left out of the step the same way, sorted with the
 * resting snow, whether or not snow rests: they hold no node, wake nothing and are not
 * woken; pw_emit_flight moves them until they land.
 *
 * Everything is decided once per step, from state all threads agree on, so the results
 * stay the same bytes for any thread count. */
#ifndef PW_REST_H
#define PW_REST_H

#include "pw_error.h"

struct pw_sim;

/* Updates the rest counters of the particles the last step moved, decides which
 * particles rest this step (s->resting) and counts the others (s->n_step). t_next [s]:
 * the step's end, where colliders and the region are posed. */
pw_status pw_rest_decide(struct pw_sim *s, double t_next, pw_error *err);

/* After the grid is built from the stepped particles: marks (s->held) every active node
 * that a resting particle's stencil reaches. The step holds those nodes still. */
pw_status pw_rest_hold_nodes(struct pw_sim *s, pw_error *err);

#endif
