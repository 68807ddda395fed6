/* hessian.h — the linearised stress and the matrix-free Hessian action of eqs. 7-8
 * (hessian.c; internal to sim/). */
#ifndef PW_HESSIAN_H
#define PW_HESSIAN_H

#include "mpm_internal.h"

/* Per particle: the stress forces' matrix and hardened mu, lambda (pw_pstress), and K. */
void pw_mpm_prepare_stress(pw_sim *s);
/* (H u)_i = sum_p V0 dP(Fe; (sum_j u_j grad w_jp^T) Fe) Fe^T grad w_ip, eqs. 7-8.
 * Needs pw_mpm_prepare_stress; uses s->u4, s->Hu4 as scratch (the tests' form). */
void pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu);
/* The same on padded node vectors, u in float (the solver's form). */
void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4f *u, pw_vec4f *Hu);
/* d_i = the diagonal of H at node i, one entry per DOF [N/m] (the solver's Jacobi
 * preconditioner), padded. Needs pw_mpm_prepare_stress. */
void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4f *d);

#endif
