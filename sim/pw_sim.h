/* pw_sim.h — stage 1: the MPM snow solver of Stomakhin et al. 2013.
 *
 * (Types agreed between the scene parser and the solver; the solver's functions are
 * declared below them by the solver's owner.) */
#ifndef PW_SIM_H
#define PW_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "pw_error.h"
#include "pw_math.h"
#include "seed.h"

typedef enum {
    PW_TRANSFER_PIC_FLIP = 0, /* PIC/FLIP blend of section 4.1 step 8, weight flip_alpha */
    PW_TRANSFER_APIC = 1      /* affine particle-in-cell (Jiang et al. 2015)             */
} pw_transfer;

typedef struct {
    double h;                 /* grid spacing [m]                                  */
    vec3 domain_min;          /* [m] simulation domain; its faces are walls         */
    vec3 domain_max;          /* [m]                                               */
    vec3 gravity;             /* [m/s^2]                    (0, -9.81, 0)           */
    double dt_max;            /* largest substep [s]        (5e-4, semi-implicit)   */
    double cfl;               /* dt <= cfl h / max|v| [-]   (0.5)                   */
    double beta;              /* 0 explicit, 0.5 trapezoidal, 1 backward Euler (1)  */
    pw_transfer transfer;     /*                            (PIC/FLIP)              */
    double flip_alpha;        /* FLIP fraction [-]          (0.95)                  */
    double cr_tolerance;      /* relative residual of the solve [-] (1e-6)          */
    int cr_max_iterations;    /* cap of conjugate residual iterations (200)         */
    int threads;              /* 0 = OpenMP default                                 */
} pw_sim_params;

#endif
