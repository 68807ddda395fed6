/* solver_state.h — what the semi-implicit solve keeps from one step to the next
 * (internal to sim/; solver.c fills it, struct pw_sim in mpm_internal.h holds it). */
#ifndef PW_SOLVER_STATE_H
#define PW_SOLVER_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "pw_math.h"

/* One step's implicit correction per node of its grid (solver.c's warm start). */
typedef struct {
    size_t blocks, cap;
    uint64_t *keys;             /* its grid's block keys (sorted) */
    vec3 *dv;                   /* [m/s] v^{n+1} - v*, 64 per block */
    uint32_t *map;              /* per block of the current grid: the index of the same
                                   block among keys, or UINT32_MAX */
} pw_warm_step;

#endif
