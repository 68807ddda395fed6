/* transfer.h — particle <-> grid transfers and stress forces (transfer.c; internal to
 * sim/): the steps of Stomakhin et al. 2013, section 4.1, other than the solve. */
#ifndef PW_TRANSFER_H
#define PW_TRANSFER_H

#include "mpm_internal.h"

/* The step's particle order: sorts the particles by block (s->perm), rebuilds the grid
 * and plans the reorder; *staging gets the K elements the reorder borrows as staging
 * (the caller holds K that large: pw_mpm_reserve_stepped). */
pw_status pw_mpm_sort(pw_sim *s, size_t *staging, pw_error *err);
/* Moves the particles into the sorted order and fills s->ps, their stencil places. */
void pw_mpm_reorder(pw_sim *s);
/* 1. P2G: m_i and v_i (normalised momentum, with APIC's affine term); v_old = v. */
void pw_mpm_p2g(pw_sim *s);
/* 2. rho_p^0 = sum_i m_i w_ip / h^3, V0 = m_p / rho_p^0 for particles with V0 = 0, m_i
 * the mass of the particle's own body (pw_particles.body_start). With several bodies,
 * uses grid.f as scratch (step 3 writes it afresh). */
void pw_mpm_init_volumes(pw_sim *s);
/* 3. f_i = -sum_p V0 P(Fe_hat) Fe^T grad w_ip, eq. 5, where Fe_hat = (I + sum_i
 * dx_i grad w_ip^T) Fe for a node displacement field dx [m] (NULL: dx = 0, eq. 6).
 * Needs pw_mpm_prepare_stress (hessian.h). Writes grid.f. */
void pw_mpm_grid_forces(pw_sim *s, const vec3 *dx);
/* Phi(dx) = sum_p V0 Psi(Fe_hat(dx)) [J] (for the force test). */
double pw_mpm_energy(pw_sim *s, const vec3 *dx);
/* 7. Fe_hat = (I + dt grad v_p) Fe, then the clamp of eqs. 11-12. Returns the
 * index of the first particle whose update failed (non-finite), or n. */
size_t pw_mpm_update_deformation(pw_sim *s, double dt);
/* 8. PIC/FLIP blend or APIC velocity (and C) from the grid. */
void pw_mpm_g2p(pw_sim *s);

#endif
