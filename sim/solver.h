/* solver.h — the semi-implicit velocity update, eq. 9 (solver.c; internal to sim/). */
#ifndef PW_SOLVER_H
#define PW_SOLVER_H

#include "mpm_internal.h"

/* 6. Solves eq. 9 for grid.v (input v*, fixed DOFs keep their value) by conjugate
 * residual; iteration count in *iterations, *converged. Needs pw_mpm_prepare_stress.
 * PW_ENUMERIC on NaN/Inf. */
pw_status pw_mpm_solve(pw_sim *s, double dt, int *iterations, int *converged, pw_error *err);

/* Makes the last solve's correction the warm start of the next step's solve: called once
 * a step is accepted, so that a refused attempt leaves the warm start as it found it. */
void pw_mpm_solve_accept(pw_sim *s);

#endif
