/* transfer.c — particle <-> grid transfers of Stomakhin et al. 2013, section 4.1
 * (steps 1-3, 7, 8), the stress forces of eqs. 5-6 and the Hessian action of
 * eqs. 7-8, on the sparse block grid of grid.h.
 *
 * Every scatter to the grid runs over home blocks by colour (grid.h): within one
 * colour no two home blocks write the same node, and each node receives its
 * contributions in a fixed order (colour, then particle index), so the sums do not
 * depend on the thread count. Gathers from the grid are per particle and trivially
 * parallel. */
#include <stdlib.h>
#include <string.h>

#include "mpm_internal.h"
#include "pw_kernel.h"

/* ---- stencil --------------------------------------------------------------- */

/* Node indices, weights w_ip and gradients grad w_ip [1/m] of the 4x4x4 stencil of
 * one particle; grad may be NULL. Order: x fastest, then y, then z. */
static inline void stencil(const pw_grid *g, const pw_pstep *q, uint32_t idx[64], double w[64],
                           vec3 *grad)
{
    const uint32_t *nb = g->nbr[q->home];
    int k = 0;
    for (int c = 0; c < 4; c++) {
        int oz = q->off[2] + c, bz = (oz >> 2) << 2, lz = (oz & 3) << 4;
        for (int b = 0; b < 4; b++) {
            int oy = q->off[1] + b, by = (oy >> 2) << 1, ly = (oy & 3) << 2;
            double wyz = q->w[1][b] * q->w[2][c];
            for (int a = 0; a < 4; a++, k++) {
                int ox = q->off[0] + a;
                idx[k] = nb[(ox >> 2) | by | bz] * PW_BLOCK_NODES + (uint32_t)((ox & 3) | ly | lz);
                w[k] = q->w[0][a] * wyz;
                if (grad)
                    grad[k] = v3(q->dw[0][a] * wyz, q->w[0][a] * q->dw[1][b] * q->w[2][c],
                                 q->w[0][a] * q->w[1][b] * q->dw[2][c]);
            }
        }
    }
}

/* x_i - x_p [m] for stencil entry k (same order as stencil()). */
static inline vec3 stencil_offset(const pw_pstep *q, int k, double h)
{
    return v3(h * ((double)(k & 3) - q->fu[0]), h * ((double)((k >> 2) & 3) - q->fu[1]),
              h * ((double)(k >> 4) - q->fu[2]));
}

/* sum_i a_i grad w_ip^T over the stencil */
static inline mat3 gather_gradient(const vec3 *a, const uint32_t idx[64], const vec3 grad[64])
{
    mat3 G = m3_zero();
    for (int k = 0; k < 64; k++) {
        vec3 ai = a[idx[k]];
        vec3 gk = grad[k];
        G.m[0][0] += ai.x * gk.x; G.m[0][1] += ai.x * gk.y; G.m[0][2] += ai.x * gk.z;
        G.m[1][0] += ai.y * gk.x; G.m[1][1] += ai.y * gk.y; G.m[1][2] += ai.y * gk.z;
        G.m[2][0] += ai.z * gk.x; G.m[2][1] += ai.z * gk.y; G.m[2][2] += ai.z * gk.z;
    }
    return G;
}

/* out_i += sign * M_p grad w_ip for all particles, by colour (deterministic). */
static void scatter_matrices(pw_sim *s, const mat3 *Mp, double sign, vec3 *out)
{
    const pw_grid *g = &s->grid;
#pragma omp parallel num_threads(s->threads)
    for (int colour = 0; colour < 8; colour++) {
        long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
        for (long j = lo; j < hi; j++) {
            uint32_t home = g->colour_order[j];
            uint32_t idx[64];
            double w[64];
            vec3 grad[64];
            for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
                stencil(g, &s->ps[p], idx, w, grad);
                mat3 M = m3_scale(Mp[p], sign);
                for (int k = 0; k < 64; k++) {
                    vec3 *o = &out[idx[k]];
                    vec3 d = m3_mulv(M, grad[k]);
                    o->x += d.x;
                    o->y += d.y;
                    o->z += d.z;
                }
            }
        }
    }
}

static void clear_nodes(pw_sim *s, vec3 *a)
{
    long nn = (long)pw_grid_node_count(&s->grid);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) a[i] = v3_zero();
}

/* ---- grid rebuild ------------------------------------------------------------ */

/* Applies perm to one particle array of n elements of size sz, through tmp. */
static void reorder(pw_sim *s, void *arr, size_t sz, const uint32_t *perm, size_t n)
{
    char *src = arr, *dst = s->reorder_tmp;
    long nl = (long)n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long k = 0; k < nl; k++) memcpy(dst + (size_t)k * sz, src + (size_t)perm[k] * sz, sz);
    memcpy(arr, dst, n * sz);
}

static void reorder_particles(pw_sim *s)
{
    pw_particles *pt = &s->pt;
    size_t n = pt->n;
    int identity = 1;
    for (size_t k = 0; k < n && identity; k++) identity = s->perm[k] == k;
    if (identity) return;
    reorder(s, pt->x, sizeof *pt->x, s->perm, n);
    reorder(s, pt->v, sizeof *pt->v, s->perm, n);
    reorder(s, pt->m, sizeof *pt->m, s->perm, n);
    reorder(s, pt->V0, sizeof *pt->V0, s->perm, n);
    reorder(s, pt->Fe, sizeof *pt->Fe, s->perm, n);
    reorder(s, pt->Fp, sizeof *pt->Fp, s->perm, n);
    reorder(s, pt->C, sizeof *pt->C, s->perm, n);
    reorder(s, pt->mu0, sizeof *pt->mu0, s->perm, n);
    reorder(s, pt->lambda0, sizeof *pt->lambda0, s->perm, n);
    reorder(s, pt->xi, sizeof *pt->xi, s->perm, n);
    reorder(s, pt->theta_c, sizeof *pt->theta_c, s->perm, n);
    reorder(s, pt->theta_s, sizeof *pt->theta_s, s->perm, n);
    reorder(s, pt->Jp_min, sizeof *pt->Jp_min, s->perm, n);
    reorder(s, pt->Jp_max, sizeof *pt->Jp_max, s->perm, n);
    reorder(s, pt->id, sizeof *pt->id, s->perm, n);
}

pw_status pw_mpm_rebuild_grid(pw_sim *s, pw_error *err)
{
    pw_particles *pt = &s->pt;
    pw_grid *g = &s->grid;
    pw_status rc = pw_grid_build(g, pt->n, pt->x, s->perm, err);
    if (rc != PW_OK) return rc;
    reorder_particles(s);

    /* weights of x^n, once per step */
    long nh = (long)g->n_home;
#pragma omp parallel for schedule(dynamic, 8) num_threads(s->threads)
    for (long home = 0; home < nh; home++) {
        uint64_t key = g->home_keys[home];
        int64_t origin[3];
        for (int a = 0; a < 3; a++)
            origin[a] = (int64_t)((key >> (a * PW_BLOCK_COORD_BITS)) &
                                  ((UINT64_C(1) << PW_BLOCK_COORD_BITS) - 1)) * PW_BLOCK;
        for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
            pw_pstep *q = &s->ps[p];
            double u[3] = {(pt->x[p].x - g->origin.x) * g->inv_h,
                           (pt->x[p].y - g->origin.y) * g->inv_h,
                           (pt->x[p].z - g->origin.z) * g->inv_h};
            for (int a = 0; a < 3; a++) {
                int base = pw_bspline_weights(u[a], g->inv_h, q->w[a], q->dw[a]);
                q->fu[a] = u[a] - (double)base;
                q->off[a] = (uint8_t)(base - origin[a]);
            }
            q->home = (uint32_t)home;
        }
    }
    return PW_OK;
}

/* ---- 1. P2G ------------------------------------------------------------------ */

void pw_mpm_p2g(pw_sim *s)
{
    pw_grid *g = &s->grid;
    const pw_particles *pt = &s->pt;
    long nn = (long)pw_grid_node_count(g);
    int apic = s->p.transfer == PW_TRANSFER_APIC;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        g->m[i] = 0;
        g->v[i] = v3_zero();
    }
#pragma omp parallel num_threads(s->threads)
    for (int colour = 0; colour < 8; colour++) {
        long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
        for (long j = lo; j < hi; j++) {
            uint32_t home = g->colour_order[j];
            uint32_t idx[64];
            double w[64];
            for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
                const pw_pstep *q = &s->ps[p];
                stencil(g, q, idx, w, NULL);
                double mp = pt->m[p];
                for (int k = 0; k < 64; k++) {
                    /* momentum m_p w_ip (v_p + C_p (x_i - x_p)); C = 0 without APIC */
                    vec3 vp = pt->v[p];
                    if (apic) vp = v3_add(vp, m3_mulv(pt->C[p], stencil_offset(q, k, g->h)));
                    double mw = mp * w[k];
                    g->m[idx[k]] += mw;
                    g->v[idx[k]] = v3_madd(g->v[idx[k]], vp, mw);
                }
            }
        }
    }
    /* normalise: v_i = sum_p m_p w_ip v_p / m_i */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        g->v[i] = g->m[i] > 0 ? v3_scale(g->v[i], 1.0 / g->m[i]) : v3_zero();
        g->v_old[i] = g->v[i];
    }
}

/* ---- 2. initial volumes ------------------------------------------------------ */

void pw_mpm_init_volumes(pw_sim *s)
{
    const pw_grid *g = &s->grid;
    pw_particles *pt = &s->pt;
    double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    long n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        if (pt->V0[p] > 0) continue;
        uint32_t idx[64];
        double w[64];
        stencil(g, &s->ps[p], idx, w, NULL);
        double rho = 0;
        for (int k = 0; k < 64; k++) rho += g->m[idx[k]] * w[k];
        rho *= inv_h3; /* rho_p^0 = sum_i m_i w_ip / h^3 [kg/m^3] */
        pt->V0[p] = pt->m[p] / rho;
    }
}

/* ---- 3. stress forces (eqs. 5-6) --------------------------------------------- */

/* K of mpm_internal.h, column c = V0 dP(E_c Fe) Fe^T for the unit matrices E_c; the
 * two triangles agree to rounding and are averaged so the solver's operator is exactly
 * symmetric. */
static void linearise_stress(const pw_fcr_cache *c, mat3 Fe, double V0, double K[PW_K_PACKED])
{
    double full[9][9];
    mat3 FeT = m3_transpose(Fe);
    for (int col = 0; col < 9; col++) {
        mat3 dF = m3_zero(); /* E_ab Fe: row a of Fe moved to row a */
        int a = col / 3, b = col % 3;
        for (int j = 0; j < 3; j++) dF.m[a][j] = Fe.m[b][j];
        mat3 B = m3_scale(m3_mul(pw_fcr_stress_differential_cached(c, dF), FeT), V0);
        for (int r = 0; r < 9; r++) full[r][col] = B.m[r / 3][r % 3];
    }
    int k = 0;
    for (int r = 0; r < 9; r++)
        for (int col = r; col < 9; col++) K[k++] = 0.5 * (full[r][col] + full[col][r]);
}

void pw_mpm_prepare_stress(pw_sim *s)
{
    const pw_particles *pt = &s->pt;
    long n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        /* eq. 2 with J_P clamped so that e^{xi (1 - J_P)} stays finite */
        double Jp = fmin(fmax(m3_det(pt->Fp[p]), pt->Jp_min[p]), pt->Jp_max[p]);
        double hard = pw_hardening(pt->xi[p], Jp);
        pw_fcr_cache_init(&s->fcr[p], pt->Fe[p], pt->mu0[p] * hard, pt->lambda0[p] * hard);
        linearise_stress(&s->fcr[p], pt->Fe[p], pt->V0[p], s->K[p]);
    }
}

/* Fe_hat(dx) = (I + sum_i dx_i grad w_ip^T) Fe of eq. 4 */
static mat3 displaced_Fe(const pw_sim *s, size_t p, const vec3 *dx)
{
    uint32_t idx[64];
    double w[64];
    vec3 grad[64];
    stencil(&s->grid, &s->ps[p], idx, w, grad);
    mat3 G = gather_gradient(dx, idx, grad);
    return m3_mul(m3_add(m3_identity(), G), s->pt.Fe[p]);
}

void pw_mpm_grid_forces(pw_sim *s, const vec3 *dx)
{
    const pw_particles *pt = &s->pt;
    long n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        const pw_fcr_cache *c = &s->fcr[p];
        mat3 P;
        if (dx) {
            P = pw_fcr_stress(displaced_Fe(s, (size_t)p, dx), c->mu, c->lambda);
        } else {
            /* P = 2 mu (F - R) + lambda (J - 1) cof(F), from the cached polar part */
            P = m3_add(m3_scale(m3_sub(c->F, c->R), 2.0 * c->mu),
                       m3_scale(c->cofF, c->lambda * (c->J - 1.0)));
        }
        s->Mp[p] = m3_scale(m3_mul(P, m3_transpose(pt->Fe[p])), pt->V0[p]);
    }
    clear_nodes(s, s->grid.f);
    scatter_matrices(s, s->Mp, -1.0, s->grid.f);
}

double pw_mpm_energy(pw_sim *s, const vec3 *dx)
{
    const pw_particles *pt = &s->pt;
    double *e = malloc((pt->n ? pt->n : 1) * sizeof *e);
    if (!e) return NAN;
    long n = (long)pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        mat3 F = dx ? displaced_Fe(s, (size_t)p, dx) : pt->Fe[p];
        e[p] = pt->V0[p] * pw_fcr_energy(F, s->fcr[p].mu, s->fcr[p].lambda);
    }
    double sum = pw_mpm_sum(s, e, pt->n);
    free(e);
    return sum;
}

/* ---- Hessian action (eqs. 7-8) ------------------------------------------------ */

/* The 4 node indices along x of stencil row (y offset b, z offset c): the row may
 * cross from one block into its x neighbour. */
static inline void stencil_row(const uint32_t *nb, const pw_pstep *q, int b, int c, uint32_t idx[4])
{
    int oy = q->off[1] + b, oz = q->off[2] + c;
    int sel = ((oy >> 2) << 1) | ((oz >> 2) << 2);
    uint32_t local = (uint32_t)(((oy & 3) << 2) | ((oz & 3) << 4));
    uint32_t row[2] = {nb[sel] * PW_BLOCK_NODES + local, nb[sel | 1] * PW_BLOCK_NODES + local};
    for (int a = 0; a < 4; a++) {
        int ox = q->off[0] + a;
        idx[a] = row[ox >> 2] + (uint32_t)(ox & 3);
    }
}

/* G = sum_i u_i grad w_ip^T with grad w_ip = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z): the
 * sums run x innermost and are weighted by the y and z factors afterwards, so each
 * node costs two vector multiply-adds instead of a full outer product. */
static inline void gather_separable(const pw_grid *g, const pw_pstep *q, const vec3 *u,
                                    double G[9])
{
    const uint32_t *nb = g->nbr[q->home];
    vec3 gx = v3_zero(), gy = v3_zero(), gz = v3_zero();
    for (int c = 0; c < 4; c++) {
        vec3 t_w = v3_zero(), t_dw = v3_zero(), t_xw = v3_zero();
        for (int b = 0; b < 4; b++) {
            uint32_t idx[4];
            stencil_row(nb, q, b, c, idx);
            vec3 s_w = v3_zero(), s_dw = v3_zero();
            for (int a = 0; a < 4; a++) {
                vec3 ui = u[idx[a]];
                s_w = v3_madd(s_w, ui, q->w[0][a]);
                s_dw = v3_madd(s_dw, ui, q->dw[0][a]);
            }
            t_w = v3_madd(t_w, s_w, q->w[1][b]);   /* sum Nx Ny      */
            t_dw = v3_madd(t_dw, s_w, q->dw[1][b]); /* sum Nx N'y     */
            t_xw = v3_madd(t_xw, s_dw, q->w[1][b]); /* sum N'x Ny     */
        }
        gx = v3_madd(gx, t_xw, q->w[2][c]);
        gy = v3_madd(gy, t_dw, q->w[2][c]);
        gz = v3_madd(gz, t_w, q->dw[2][c]);
    }
    double G_[9] = {gx.x, gy.x, gz.x, gx.y, gy.y, gz.y, gx.z, gy.z, gz.z};
    memcpy(G, G_, sizeof G_);
}

/* out_i += B grad w_ip over the stencil, in the same separable order. */
static inline void scatter_separable(const pw_grid *g, const pw_pstep *q, const double B[9],
                                     vec3 *out)
{
    const uint32_t *nb = g->nbr[q->home];
    vec3 b0 = v3(B[0], B[3], B[6]), b1 = v3(B[1], B[4], B[7]), b2 = v3(B[2], B[5], B[8]);
    for (int c = 0; c < 4; c++) {
        vec3 cz_w = v3_scale(b0, q->w[2][c]), cy_w = v3_scale(b1, q->w[2][c]),
             cz_dw = v3_scale(b2, q->dw[2][c]);
        for (int b = 0; b < 4; b++) {
            uint32_t idx[4];
            stencil_row(nb, q, b, c, idx);
            vec3 along_dw = v3_scale(cz_w, q->w[1][b]);                       /* x N'x */
            vec3 along_w = v3_madd(v3_scale(cy_w, q->dw[1][b]), cz_dw, q->w[1][b]); /* x Nx */
            for (int a = 0; a < 4; a++) {
                vec3 *o = &out[idx[a]];
                vec3 d = v3_madd(v3_scale(along_dw, q->dw[0][a]), along_w, q->w[0][a]);
                o->x += d.x;
                o->y += d.y;
                o->z += d.z;
            }
        }
    }
}

/* B = K G for the packed symmetric K */
static inline void apply_K(const double K[PW_K_PACKED], const double G[9], double B[9])
{
    for (int r = 0; r < 9; r++) B[r] = 0;
    int k = 0;
    for (int r = 0; r < 9; r++) {
        B[r] += K[k++] * G[r];
        for (int c = r + 1; c < 9; c++, k++) {
            B[r] += K[k] * G[c];
            B[c] += K[k] * G[r];
        }
    }
}

void pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu)
{
    const pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < nn; i++) Hu[i] = v3_zero();
        for (int colour = 0; colour < 8; colour++) {
            long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
            for (long j = lo; j < hi; j++) {
                uint32_t home = g->colour_order[j];
                for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
                    double G[9], B[9];
                    gather_separable(g, &s->ps[p], u, G);  /* eq. 8: dF = G Fe      */
                    apply_K(s->K[p], G, B);               /* V0 A_p Fe^T           */
                    scatter_separable(g, &s->ps[p], B, Hu); /* eq. 7                 */
                }
            }
        }
    }
}

/* ---- 7. deformation update (eqs. 11-12) -------------------------------------- */

size_t pw_mpm_update_deformation(pw_sim *s, double dt)
{
    pw_particles *pt = &s->pt;
    long n = (long)pt->n;
    size_t first_bad = pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : first_bad)
    for (long p = 0; p < n; p++) {
        uint32_t idx[64];
        double w[64];
        vec3 grad[64];
        stencil(&s->grid, &s->ps[p], idx, w, grad);
        mat3 grad_v = gather_gradient(s->grid.v, idx, grad); /* sum_i v_i grad w_ip^T */
        mat3 Fe_hat = m3_mul(m3_add(m3_identity(), m3_scale(grad_v, dt)), pt->Fe[p]);
        if (pw_plasticity_update(Fe_hat, pt->Fp[p], pt->theta_c[p], pt->theta_s[p], &pt->Fe[p],
                                 &pt->Fp[p]) != 0 &&
            (size_t)p < first_bad)
            first_bad = (size_t)p;
    }
    return first_bad;
}

/* ---- 8. G2P ------------------------------------------------------------------ */

void pw_mpm_g2p(pw_sim *s)
{
    const pw_grid *g = &s->grid;
    pw_particles *pt = &s->pt;
    long n = (long)pt->n;
    int apic = s->p.transfer == PW_TRANSFER_APIC;
    double alpha = s->p.flip_alpha;
    double inv_D = 3.0 * g->inv_h * g->inv_h; /* D_p^-1 = 3/h^2 for cubic B-splines */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long p = 0; p < n; p++) {
        uint32_t idx[64];
        double w[64];
        stencil(g, &s->ps[p], idx, w, NULL);
        const pw_pstep *q = &s->ps[p];
        vec3 v_pic = v3_zero(), dv = v3_zero();
        mat3 B = m3_zero();
        for (int k = 0; k < 64; k++) {
            vec3 vi = g->v[idx[k]];
            v_pic = v3_madd(v_pic, vi, w[k]);
            if (apic)
                B = m3_add(B, m3_outer(v3_scale(vi, w[k]), stencil_offset(q, k, g->h)));
            else
                dv = v3_madd(dv, v3_sub(vi, g->v_old[idx[k]]), w[k]);
        }
        if (apic) {
            pt->v[p] = v_pic;
            pt->C[p] = m3_scale(B, inv_D);
        } else {
            vec3 v_flip = v3_add(pt->v[p], dv);
            pt->v[p] = v3_add(v3_scale(v_pic, 1.0 - alpha), v3_scale(v_flip, alpha));
        }
    }
}
