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

/* Weights w_ip of the 4x4x4 stencil of one particle (for the transfers of velocity
 * and mass), in the order of its node indices s->stencil_idx[p]: x fastest, then y,
 * then z. */
static inline void stencil_weights(const pw_pstep *q, double w[64])
{
    int k = 0;
    for (int c = 0; c < 4; c++)
        for (int b = 0; b < 4; b++) {
            double wyz = q->w[1][b] * q->w[2][c];
            for (int a = 0; a < 4; a++, k++) w[k] = q->w[0][a] * wyz;
        }
}

/* x_i - x_p [m] for stencil entry k (same order as stencil_weights()). */
static inline vec3 stencil_offset(const pw_pstep *q, int k, double h)
{
    return v3(h * ((double)(k & 3) - q->fu[0]), h * ((double)((k >> 2) & 3) - q->fu[1]),
              h * ((double)(k >> 4) - q->fu[2]));
}

/* Node indices of the 16 stencil rows (y offset b, z offset c at 4c + b), 4 along x
 * each; a row may cross from one block into its x neighbour. */
static inline void stencil_rows(const pw_grid *g, const pw_pstep *q, uint32_t idx[16][4])
{
    const uint32_t *nb = g->nbr[q->home];
    uint32_t xmask[4], xl[4]; /* all ones where the node lies in the x neighbour */
    for (int a = 0; a < 4; a++) {
        int ox = q->off[0] + a;
        xmask[a] = 0u - (uint32_t)(ox >> 2);
        xl[a] = (uint32_t)(ox & 3);
    }
    for (int c = 0; c < 4; c++) {
        int oz = q->off[2] + c;
        for (int b = 0; b < 4; b++) {
            int oy = q->off[1] + b;
            int sel = ((oy >> 2) << 1) | ((oz >> 2) << 2);
            uint32_t local = (uint32_t)(((oy & 3) << 2) | ((oz & 3) << 4));
            uint32_t row = nb[sel] * PW_BLOCK_NODES + local;
            uint32_t step = (nb[sel | 1] - nb[sel]) * PW_BLOCK_NODES; /* mod 2^32 */
            for (int a = 0; a < 4; a++) idx[4 * c + b][a] = row + (step & xmask[a]) + xl[a];
        }
    }
}

/* The stencil loops below work on a node's (x, y) as one 2-wide vector and z alone:
 * the same operations in the same order as scalar code (same bits), in fewer
 * instructions on any x86-64 or arm64. */
typedef double v2d __attribute__((vector_size(16)));
static inline v2d load_xy(const vec3 *a)
{
    v2d r;
    memcpy(&r, a, sizeof r);
    return r;
}
static inline void store_xy(vec3 *a, v2d r) { memcpy(a, &r, sizeof r); }

/* G = sum_i u_i grad w_ip^T with grad w_ip = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z): the
 * sums run x innermost and are weighted by the y and z factors afterwards, so each
 * node costs two vector multiply-adds instead of a full outer product. */
static inline void gather_separable(const uint32_t idx[16][4], const pw_pstep *q, const vec3 *u,
                                    double G[9])
{
    v2d gx = {0, 0}, gy = {0, 0}, gz = {0, 0};
    double gx_z = 0, gy_z = 0, gz_z = 0;
    for (int c = 0; c < 4; c++) {
        v2d t_w = {0, 0}, t_dw = {0, 0}, t_xw = {0, 0};
        double t_w_z = 0, t_dw_z = 0, t_xw_z = 0;
        for (int b = 0; b < 4; b++) {
            const uint32_t *row = idx[4 * c + b];
            v2d s_w = {0, 0}, s_dw = {0, 0};
            double s_w_z = 0, s_dw_z = 0;
            for (int a = 0; a < 4; a++) {
                v2d ui = load_xy(&u[row[a]]);
                double ui_z = u[row[a]].z, wa = q->w[0][a], dwa = q->dw[0][a];
                s_w += ui * wa;
                s_w_z += ui_z * wa;
                s_dw += ui * dwa;
                s_dw_z += ui_z * dwa;
            }
            double wb = q->w[1][b], dwb = q->dw[1][b];
            t_w += s_w * wb; /* sum Nx Ny  */
            t_w_z += s_w_z * wb;
            t_dw += s_w * dwb; /* sum Nx N'y */
            t_dw_z += s_w_z * dwb;
            t_xw += s_dw * wb; /* sum N'x Ny */
            t_xw_z += s_dw_z * wb;
        }
        double wc = q->w[2][c], dwc = q->dw[2][c];
        gx += t_xw * wc;
        gx_z += t_xw_z * wc;
        gy += t_dw * wc;
        gy_z += t_dw_z * wc;
        gz += t_w * dwc;
        gz_z += t_w_z * dwc;
    }
    double G_[9] = {gx[0], gy[0], gz[0], gx[1], gy[1], gz[1], gx_z, gy_z, gz_z};
    memcpy(G, G_, sizeof G_);
}

/* out_i += B grad w_ip over the stencil, in the same separable order. */
static inline void scatter_separable(const uint32_t idx[16][4], const pw_pstep *q,
                                     const double B[9], vec3 *out)
{
    v2d b0 = {B[0], B[3]}, b1 = {B[1], B[4]}, b2 = {B[2], B[5]};
    for (int c = 0; c < 4; c++) {
        double wc = q->w[2][c], dwc = q->dw[2][c];
        v2d cz_w = b0 * wc, cy_w = b1 * wc, cz_dw = b2 * dwc;
        double cz_w_z = B[6] * wc, cy_w_z = B[7] * wc, cz_dw_z = B[8] * dwc;
        for (int b = 0; b < 4; b++) {
            const uint32_t *row = idx[4 * c + b];
            double wb = q->w[1][b], dwb = q->dw[1][b];
            v2d along_dw = cz_w * wb; /* times N'x */
            double along_dw_z = cz_w_z * wb;
            v2d along_w = cy_w * dwb + cz_dw * wb; /* times Nx */
            double along_w_z = cy_w_z * dwb + cz_dw_z * wb;
            for (int a = 0; a < 4; a++) {
                vec3 *o = &out[row[a]];
                double wa = q->w[0][a], dwa = q->dw[0][a];
                store_xy(o, load_xy(o) + (along_dw * dwa + along_w * wa));
                o->z += along_dw_z * dwa + along_w_z * wa;
            }
        }
    }
}

/* ---- grid rebuild ------------------------------------------------------------ */

/* Applies perm to one particle array of n elements of size sz, through tmp. */
static void reorder(pw_sim *s, void *arr, size_t sz, const uint32_t *perm, size_t n)
{
    char *src = arr, *dst = s->reorder_tmp;
    long nl = (long)n;
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static)
        for (long k = 0; k < nl; k++) memcpy(dst + (size_t)k * sz, src + (size_t)perm[k] * sz, sz);
#pragma omp for schedule(static)
        for (long k = 0; k < nl; k++) memcpy(src + (size_t)k * sz, dst + (size_t)k * sz, sz);
    }
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
    if (s->fe_svd_valid) reorder(s, s->fe_svd, sizeof *s->fe_svd, s->perm, n);
}

pw_status pw_mpm_rebuild_grid(pw_sim *s, pw_error *err)
{
    pw_particles *pt = &s->pt;
    pw_grid *g = &s->grid;
    pw_status rc = pw_grid_build(g, pt->n, pt->x, s->perm, s->threads, err);
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
            stencil_rows(g, q, s->stencil_idx[p]);
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
            double w[64];
            for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
                const pw_pstep *q = &s->ps[p];
                const uint32_t *idx = &s->stencil_idx[p][0][0];
                stencil_weights(q, w);
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
        const uint32_t *idx = &s->stencil_idx[p][0][0];
        double w[64];
        stencil_weights(&s->ps[p], w);
        double rho = 0;
        for (int k = 0; k < 64; k++) rho += g->m[idx[k]] * w[k];
        rho *= inv_h3; /* rho_p^0 = sum_i m_i w_ip / h^3 [kg/m^3] */
        pt->V0[p] = pt->m[p] / rho;
    }
}

/* ---- 3. stress forces (eqs. 5-6) --------------------------------------------- */

/* K of mpm_internal.h: with dF = G F and cof(F) F^T = J I, the terms of dP
 * (math-notes.md) become, after the product with F^T,
 *   2 mu (dF - dR) F^T       = 2 mu (G F F^T - R [w]x F^T),
 *   lambda cof (cof : dF) F^T = lambda J^2 tr(G) I,
 *   lambda (J - 1) dcof F^T   = lambda (J - 1) J (tr(G) I - G^T),
 * where w = (tr(S) I - S)^-1 axial(R^T G F - F^T G^T R) is linear in G. Writing
 * w = Minv b with b = Bm G (Bm: 3 x 9), the rotation term R [w]x F^T is Bm^T w (the
 * columns of R [e_m]x F^T are the rows of Bm), so it contributes Bm^T Minv Bm: symmetric,
 * like the other terms. Only the upper triangle is formed and stored, so the solver's
 * operator is exactly symmetric. */
static void linearise_stress(const pw_fcr_cache *c, double V0, double K[PW_K_PACKED])
{
    const mat3 F = c->F, R = c->R, Minv = c->inv_trS_minus_S;
    double k_mu = 2.0 * c->mu * V0, k_vol = c->lambda * V0 * c->J * c->J,
           k_cof = c->lambda * V0 * (c->J - 1.0) * c->J;
    mat3 FFt = m3_mul(F, m3_transpose(F));
    /* b_k = sum_ij Bm[k][3i+j] G_ij with b = axial(M - M^T), M = R^T G F */
    double Bm[3][9], W[3][9];
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Bm[k][3 * i + j] = R.m[i][k2] * F.m[j][k1] - R.m[i][k1] * F.m[j][k2];
    }
    for (int m = 0; m < 3; m++)
        for (int q = 0; q < 9; q++)
            W[m][q] = Minv.m[m][0] * Bm[0][q] + Minv.m[m][1] * Bm[1][q] + Minv.m[m][2] * Bm[2][q];
    int n = 0;
    for (int r = 0; r < 9; r++) {
        int i = r / 3, j = r % 3;
        for (int q = r; q < 9; q++) {
            int k = q / 3, l = q % 3;
            double v = (i == k ? FFt.m[l][j] : 0.0) -
                       (Bm[0][r] * W[0][q] + Bm[1][r] * W[1][q] + Bm[2][r] * W[2][q]);
            v *= k_mu;
            if (i == j && k == l) v += k_vol + k_cof;
            if (i == l && j == k) v -= k_cof;
            K[n++] = v;
        }
    }
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
        if (s->fe_svd_valid)
            pw_fcr_cache_init_svd(&s->fcr[p], pt->Fe[p], &s->fe_svd[p], pt->mu0[p] * hard,
                                  pt->lambda0[p] * hard);
        else
            pw_fcr_cache_init(&s->fcr[p], pt->Fe[p], pt->mu0[p] * hard, pt->lambda0[p] * hard);
        linearise_stress(&s->fcr[p], pt->V0[p], s->K[p]);
    }
}

/* Fe_hat(dx) = (I + sum_i dx_i grad w_ip^T) Fe of eq. 4 */
static mat3 displaced_Fe(const pw_sim *s, size_t p, const vec3 *dx)
{
    double g9[9];
    mat3 G;
    gather_separable(s->stencil_idx[p], &s->ps[p], dx, g9);
    memcpy(G.m, g9, sizeof g9);
    return m3_mul(m3_add(m3_identity(), G), s->pt.Fe[p]);
}

/* f_i += -V0 P(Fe_hat) Fe^T grad w_ip of one particle (eq. 5) */
static void particle_force(pw_sim *s, size_t p, const vec3 *dx)
{
    const pw_fcr_cache *c = &s->fcr[p];
    mat3 P;
    if (dx) {
        P = pw_fcr_stress(displaced_Fe(s, p, dx), c->mu, c->lambda);
    } else {
        /* P = 2 mu (F - R) + lambda (J - 1) cof(F), from the cached polar part */
        P = m3_add(m3_scale(m3_sub(c->F, c->R), 2.0 * c->mu),
                   m3_scale(c->cofF, c->lambda * (c->J - 1.0)));
    }
    mat3 B = m3_scale(m3_mul(P, m3_transpose(s->pt.Fe[p])), -s->pt.V0[p]);
    double b9[9];
    memcpy(b9, B.m, sizeof b9);
    scatter_separable(s->stencil_idx[p], &s->ps[p], b9, s->grid.f);
}

void pw_mpm_grid_forces(pw_sim *s, const vec3 *dx)
{
    const pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < nn; i++) g->f[i] = v3_zero();
        for (int colour = 0; colour < 8; colour++) {
            long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
            for (long j = lo; j < hi; j++) {
                uint32_t home = g->colour_order[j];
                for (size_t p = g->start[home]; p < g->start[home + 1]; p++)
                    particle_force(s, p, dx);
            }
        }
    }
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

/* Position of K's entry (r, c) in the packed upper triangle. */
static const unsigned char K_AT[9][9] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8},         {1, 9, 10, 11, 12, 13, 14, 15, 16},
    {2, 10, 17, 18, 19, 20, 21, 22, 23}, {3, 11, 18, 24, 25, 26, 27, 28, 29},
    {4, 12, 19, 25, 30, 31, 32, 33, 34}, {5, 13, 20, 26, 31, 35, 36, 37, 38},
    {6, 14, 21, 27, 32, 36, 39, 40, 41}, {7, 15, 22, 28, 33, 37, 40, 42, 43},
    {8, 16, 23, 29, 34, 38, 41, 43, 44},
};

/* B = K G for the packed symmetric K (fully unrolled: constant offsets) */
static inline void apply_K(const double K[PW_K_PACKED], const double G[9], double B[9])
{
#pragma GCC unroll 9
    for (int r = 0; r < 9; r++) {
        double acc = 0;
#pragma GCC unroll 9
        for (int c = 0; c < 9; c++) acc += K[K_AT[r][c]] * G[c];
        B[r] = acc;
    }
}

/* The Hessian's stencil loops on whole padded nodes: 4- and 8-wide vectors that plain
 * x86-64 and arm64 run as 2-wide operations; on x86-64 the compiler also emits AVX2 and
 * AVX-512 clones, picked at load time. The build is ISO C11, where GCC does not contract
 * a * b + c into a fused multiply-add, and all clones do the same lane operations in
 * the same order, so they give
 * the same bits (checked: the 3e3-particle snowball frame built with
 * -DPW_NO_TARGET_CLONES, plain SSE2 only, lands every particle on the same bits as the
 * AVX-512 clone). */
typedef double v4d __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PW_NO_TARGET_CLONES)
#define HESSIAN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HESSIAN_CLONES
#endif

/* (through pointers: a 4-wide vector as a return value would change the ABI between
 * the clones) */
static inline void load4(v4d *r, const pw_vec4 *a) { memcpy(r, a, sizeof *r); }

/* The Hessian action works on a home block's neighbourhood copied into a dense local
 * box of 8x8x8 padded nodes (the 2x2x2 blocks of grid.h, x fastest): a particle's
 * stencil row is then four consecutive nodes at a fixed stride from its base node, so
 * the loops need no index loads, and two nodes fill one 8-wide vector (one AVX-512
 * register, two AVX2 or four SSE2 ones, the same lane operations in each). Every sum
 * over x runs as two interleaved halves (nodes 0+2 and 1+3), folded once per
 * particle. */
#define LOCAL_EDGE 8
#define LOCAL_NODES (LOCAL_EDGE * LOCAL_EDGE * LOCAL_EDGE)
typedef double v8d __attribute__((vector_size(64)));

static inline void load8(v8d *r, const pw_vec4 *a) { memcpy(r, a, sizeof *r); }
static inline void store8(pw_vec4 *a, const v8d *r) { memcpy(a, r, sizeof *r); }

/* Local index of node (x, y, z) of neighbourhood block d (dx + 2 dy + 4 dz). */
static inline int local_block_origin(int d)
{
    return (d & 1) * PW_BLOCK + ((d >> 1) & 1) * PW_BLOCK * LOCAL_EDGE +
           (d >> 2) * PW_BLOCK * LOCAL_EDGE * LOCAL_EDGE;
}

/* L = u on the 2x2x2 blocks around home (all of them exist: grid.h) */
static inline __attribute__((always_inline)) void local_load(const pw_grid *g, uint32_t home, const pw_vec4 *u, pw_vec4 *L)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        const pw_vec4 *src = u + (size_t)nb[d] * PW_BLOCK_NODES;
        pw_vec4 *dst = L + local_block_origin(d);
        for (int z = 0; z < PW_BLOCK; z++)
            for (int y = 0; y < PW_BLOCK; y++)
                memcpy(dst + LOCAL_EDGE * (y + LOCAL_EDGE * z), src + PW_BLOCK * (y + PW_BLOCK * z),
                       PW_BLOCK * sizeof *src);
    }
}

/* out += L on the 2x2x2 blocks around home */
static inline __attribute__((always_inline)) void local_add_to(const pw_grid *g, uint32_t home, const pw_vec4 *L, pw_vec4 *out)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        pw_vec4 *dst = out + (size_t)nb[d] * PW_BLOCK_NODES;
        const pw_vec4 *src = L + local_block_origin(d);
        for (int z = 0; z < PW_BLOCK; z++)
            for (int y = 0; y < PW_BLOCK; y++)
                for (int x = 0; x < PW_BLOCK; x += 2) {
                    pw_vec4 *o = dst + x + PW_BLOCK * (y + PW_BLOCK * z);
                    v8d a, b;
                    load8(&a, o);
                    load8(&b, src + x + LOCAL_EDGE * (y + LOCAL_EDGE * z));
                    a += b;
                    store8(o, &a);
                }
    }
}

/* The x weights of a stencil row as pairs: lanes 0-3 for node a, 4-7 for node a + 1. */
typedef struct {
    v8d w01, w23, dw01, dw23;
} x_pairs;

static inline x_pairs x_weight_pairs(const pw_pstep *q)
{
    const double *w = q->w[0], *dw = q->dw[0];
    x_pairs r = {{w[0], w[0], w[0], w[0], w[1], w[1], w[1], w[1]},
                 {w[2], w[2], w[2], w[2], w[3], w[3], w[3], w[3]},
                 {dw[0], dw[0], dw[0], dw[0], dw[1], dw[1], dw[1], dw[1]},
                 {dw[2], dw[2], dw[2], dw[2], dw[3], dw[3], dw[3], dw[3]}};
    return r;
}

/* gather_separable on the local box; base is the stencil's first node. (The sums
 * start from -0.0, which adds nothing to any value, so the first product needs no
 * add.) */
static inline void gather_local(const pw_vec4 *base, const pw_pstep *q, const x_pairs *xw,
                                double G[9])
{
    const v8d nz = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
    v8d gx = nz, gy = nz, gz = nz;
    for (int c = 0; c < 4; c++) {
        v8d t_w = nz, t_dw = nz, t_xw = nz;
        for (int b = 0; b < 4; b++) {
            const pw_vec4 *row = base + LOCAL_EDGE * (b + LOCAL_EDGE * c);
            v8d u01, u23;
            load8(&u01, row);
            load8(&u23, row + 2);
            v8d s_w = u01 * xw->w01 + u23 * xw->w23;
            v8d s_dw = u01 * xw->dw01 + u23 * xw->dw23;
            t_w += s_w * q->w[1][b];   /* sum Nx Ny  */
            t_dw += s_w * q->dw[1][b]; /* sum Nx N'y */
            t_xw += s_dw * q->w[1][b]; /* sum N'x Ny */
        }
        gx += t_xw * q->w[2][c];
        gy += t_dw * q->w[2][c];
        gz += t_w * q->dw[2][c];
    }
    double G_[9] = {gx[0] + gx[4], gy[0] + gy[4], gz[0] + gz[4],
                    gx[1] + gx[5], gy[1] + gy[5], gz[1] + gz[5],
                    gx[2] + gx[6], gy[2] + gy[6], gz[2] + gz[6]};
    memcpy(G, G_, sizeof G_);
}

/* scatter_separable on the local box */
static inline void scatter_local(pw_vec4 *base, const pw_pstep *q, const x_pairs *xw,
                                 const double B[9])
{
    v8d b0 = {B[0], B[3], B[6], 0, B[0], B[3], B[6], 0}, b1 = {B[1], B[4], B[7], 0, B[1], B[4], B[7], 0},
        b2 = {B[2], B[5], B[8], 0, B[2], B[5], B[8], 0};
    for (int c = 0; c < 4; c++) {
        v8d cz_w = b0 * q->w[2][c], cy_w = b1 * q->w[2][c], cz_dw = b2 * q->dw[2][c];
        for (int b = 0; b < 4; b++) {
            pw_vec4 *row = base + LOCAL_EDGE * (b + LOCAL_EDGE * c);
            v8d along_dw = cz_w * q->w[1][b];                      /* times N'x */
            v8d along_w = cy_w * q->dw[1][b] + cz_dw * q->w[1][b]; /* times Nx  */
            v8d o01, o23;
            load8(&o01, row);
            load8(&o23, row + 2);
            o01 += along_dw * xw->dw01 + along_w * xw->w01;
            o23 += along_dw * xw->dw23 + along_w * xw->w23;
            store8(row, &o01);
            store8(row + 2, &o23);
        }
    }
}

/* Hu += the contributions of the particles of one home block */
HESSIAN_CLONES static void hessian_home(const pw_sim *s, uint32_t home, const pw_vec4 *u,
                                        pw_vec4 *Hu)
{
    const pw_grid *g = &s->grid;
    _Alignas(64) pw_vec4 in[LOCAL_NODES], out[LOCAL_NODES];
    local_load(g, home, u, in);
    const v8d zero = {0};
    for (int i = 0; i < LOCAL_NODES; i += 2) store8(&out[i], &zero); /* (no call to memset:
                                        a call here would cost the vzeroupper at exit) */
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        const pw_pstep *q = &s->ps[p];
        size_t base = q->off[0] + LOCAL_EDGE * (q->off[1] + LOCAL_EDGE * (size_t)q->off[2]);
        x_pairs xw = x_weight_pairs(q);
        double G[9], B[9];
        gather_local(in + base, q, &xw, G);    /* eq. 8: dF = G Fe */
        apply_K(s->K[p], G, B);                /* V0 A_p Fe^T      */
        scatter_local(out + base, q, &xw, B);  /* eq. 7            */
    }
    local_add_to(g, home, out, Hu);
}

void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4 *u, pw_vec4 *Hu)
{
    const pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < nn; i++) memset(&Hu[i], 0, sizeof Hu[i]);
        for (int colour = 0; colour < 8; colour++) {
            long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
            for (long j = lo; j < hi; j++) hessian_home(s, g->colour_order[j], u, Hu);
        }
    }
}

/* diag_a += g^T K_aa g over the stencil nodes of the particles of one home block, where
 * K_aa is K's 3x3 block of rows and columns 3a..3a+2: the Hessian action gathers
 * G = u g^T (G[3a+d] = u_a g_d) and scatters (B g)_a, so a unit u along e_a at one node
 * contributes e_a . K (e_a g^T) g, that block's quadratic form. With
 * g = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z) / h every product g_d g_e separates into
 * per-axis factors (N^2, N'^2, N N'), so the form is summed per row and only three
 * products remain per node. */
HESSIAN_CLONES static void diagonal_home(const pw_sim *s, uint32_t home, pw_vec4 *d)
{
    const pw_grid *g = &s->grid;
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        const pw_pstep *q = &s->ps[p];
        const double *K = s->K[p];
        v4d k[6]; /* lanes a = 0..2: xx yy zz xy xz yz of block K_aa, off-diagonals doubled */
        for (int j = 0; j < 6; j++) k[j] = (v4d){0};
        for (int a = 0; a < 3; a++) {
            int r = 3 * a;
            k[0][a] = K[K_AT[r][r]];
            k[1][a] = K[K_AT[r + 1][r + 1]];
            k[2][a] = K[K_AT[r + 2][r + 2]];
            k[3][a] = 2.0 * K[K_AT[r][r + 1]];
            k[4][a] = 2.0 * K[K_AT[r][r + 2]];
            k[5][a] = 2.0 * K[K_AT[r + 1][r + 2]];
        }
        double f[3][3][4]; /* f[axis][0: N^2, 1: N'^2, 2: N N'][node] */
        for (int ax = 0; ax < 3; ax++)
            for (int n = 0; n < 4; n++) {
                f[ax][0][n] = q->w[ax][n] * q->w[ax][n];
                f[ax][1][n] = q->dw[ax][n] * q->dw[ax][n];
                f[ax][2][n] = q->w[ax][n] * q->dw[ax][n];
            }
        const uint32_t(*idx)[4] = s->stencil_idx[p];
        for (int c = 0; c < 4; c++)
            for (int b = 0; b < 4; b++) {
                double Y0 = f[1][0][b], Y1 = f[1][1][b], Y2 = f[1][2][b];
                double Z0 = f[2][0][c], Z1 = f[2][1][c], Z2 = f[2][2][c];
                v4d P0 = k[1] * (Y1 * Z0) + k[2] * (Y0 * Z1) + k[5] * (Y2 * Z2); /* times Nx^2  */
                v4d P1 = k[0] * (Y0 * Z0);                                      /* times N'x^2 */
                v4d P2 = k[3] * (Y2 * Z0) + k[4] * (Y0 * Z2);                    /* times Nx N'x */
                const uint32_t *row = idx[4 * c + b];
                for (int a = 0; a < 4; a++) {
                    v4d o;
                    load4(&o, &d[row[a]]);
                    o += P0 * f[0][0][a] + P1 * f[0][1][a] + P2 * f[0][2][a];
                    memcpy(&d[row[a]], &o, sizeof o);
                }
            }
    }
}

void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4 *d)
{
    const pw_grid *g = &s->grid;
    long nn = (long)pw_grid_node_count(g);
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < nn; i++) memset(&d[i], 0, sizeof d[i]);
        for (int colour = 0; colour < 8; colour++) {
            long lo = (long)g->colour_start[colour], hi = (long)g->colour_start[colour + 1];
#pragma omp for schedule(dynamic, 2)
            for (long j = lo; j < hi; j++) diagonal_home(s, g->colour_order[j], d);
        }
    }
}

void pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu)
{
    long nn = (long)pw_grid_node_count(&s->grid);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) {
        pw_vec4 a = {u[i].x, u[i].y, u[i].z, 0};
        s->u4[i] = a;
    }
    pw_mpm_hessian_action4(s, s->u4, s->Hu4);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) Hu[i] = v3(s->Hu4[i].x, s->Hu4[i].y, s->Hu4[i].z);
}

/* ---- 7. deformation update (eqs. 11-12) -------------------------------------- */

size_t pw_mpm_update_deformation(pw_sim *s, double dt)
{
    pw_particles *pt = &s->pt;
    long n = (long)pt->n;
    size_t first_bad = pt->n;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : first_bad)
    for (long p = 0; p < n; p++) {
        double g9[9];
        mat3 grad_v; /* sum_i v_i grad w_ip^T */
        gather_separable(s->stencil_idx[p], &s->ps[p], s->grid.v, g9);
        memcpy(grad_v.m, g9, sizeof g9);
        mat3 Fe_hat = m3_mul(m3_add(m3_identity(), m3_scale(grad_v, dt)), pt->Fe[p]);
        const mat3 *V_guess = s->fe_svd_valid ? &s->fe_svd[p].V : NULL; /* Fe^n's */
        if (pw_plasticity_update_svd(Fe_hat, pt->Fp[p], pt->theta_c[p], pt->theta_s[p], V_guess,
                                     &pt->Fe[p], &pt->Fp[p], &s->fe_svd[p]) != 0 &&
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
        const uint32_t *idx = &s->stencil_idx[p][0][0];
        double w[64];
        const pw_pstep *q = &s->ps[p];
        stencil_weights(q, w);
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
