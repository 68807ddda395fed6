/* hessian.h — the linearised stress and the matrix-free Hessian action of eqs. 7-8
 * (hessian.c; internal to sim/). */
#ifndef PW_HESSIAN_H
#define PW_HESSIAN_H

#include "mpm_internal.h"

/* Per particle: the stress forces' matrix and hardened mu, lambda (pw_pstress), and K. */
void pw_mpm_prepare_stress(pw_sim *s);

/* What the stress of a particle is formed from: Fe, its SVD (from the plasticity step,
 * or factored), the hardened Lame parameters and the volume. */
typedef struct {
    mat3 F;
    pw_svd3 f; /* filled in place: a copy of the factors as one struct reloaded the
                  unpacking's 8-byte stores 16 bytes at a time, which cannot be
                  forwarded, and the batch loop waited on it (sim/docs/step-speed.md,
                  third round) */
    double mu, lambda, V0; /* [Pa], [Pa], [m^3] */
} pw_stress_input;
#define PW_STRESS_LANES 4
/* The step of pw_mpm_prepare_stress for n <= PW_STRESS_LANES particles at once, one per
 * vector lane (hessian.c): st[k].B = -V0 P(F) F^T and st[k].mu, lambda, and K[k], the
 * 9x9 matrix G -> V0 dP(F; G F) F^T rounded to float, for in[k], k < n (K NULL: the
 * stress alone, what explicit forces need). The lanes'
 * fast form of constitutive.h's scalar pw_fcr_stress_cached and
 * pw_fcr_stress_differential_cached, and tested against them lane by lane
 * (hessian_stress_lanes_match_scalar). */
void pw_mpm_linearise_stress(const pw_stress_input *in, int n, pw_pstress *st,
                             float (*K)[PW_K_ENTRIES]);
/* (H u)_i = sum_p V0 dP(Fe; (sum_j u_j grad w_jp^T) Fe) Fe^T grad w_ip, eqs. 7-8.
 * Needs pw_mpm_prepare_stress; the tests' form, in double at its ends, with buffers of
 * its own (the solver's keep their state). @return PW_OK or PW_ENOMEM. */
pw_status pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu);
/* The same on padded node vectors, u in float (the solver's form). */
void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4f *u, pw_vec4f *Hu);
/* d_i = the diagonal of H at node i, one entry per DOF [N/m] (the solver's Jacobi
 * preconditioner), padded. Needs pw_mpm_prepare_stress. */
void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4f *d);

#endif
