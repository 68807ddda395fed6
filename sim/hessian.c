/* hessian.c — the matrix-free Hessian action of Stomakhin et al. 2013, eqs. 7-8, and
 * its diagonal: the inner loop of the semi-implicit solve (solver.c).
 *
 *     (H u)_i = sum_p V0 dP(Fe; G_p Fe) Fe^T grad w_ip,   G_p = sum_j u_j grad w_jp^T,
 *
 * where G -> V0 dP(Fe; G Fe) Fe^T is the particle's 9x9 matrix K, built once per step
 * here (pw_mpm_prepare_stress): a particle gathers G (eq. 8), multiplies it by K and
 * scatters B = K G (eq. 7), on its home block's local box, in float (box_f32.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "box_f32.h"
#include "hessian.h"
#include "loops.h"
#include "stream.h"

/* ---- the linearised stress K ----------------------------------------------------- */

/* K (mpm_internal.h): with dF = G F and cof(F) F^T = J I, the terms of dP
 * (sim/docs/semi-implicit.md, section 3) become, after the product with F^T,
 *   2 mu (dF - dR) F^T       = 2 mu (G F F^T - R [w]x F^T),
 *   lambda cof (cof : dF) F^T = lambda J^2 tr(G) I,
 *   lambda (J - 1) dcof F^T   = lambda (J - 1) J (tr(G) I - G^T),
 * where w = (tr(S) I - S)^-1 axial(R^T G F - F^T G^T R) is linear in G. Writing
 * w = Minv b with b = Bm G (Bm: 3 x 9), the rotation term R [w]x F^T is Bm^T w (the
 * columns of R [e_m]x F^T are the rows of Bm), so it contributes Bm^T Minv Bm: symmetric,
 * like the other terms. Each entry of the upper triangle is formed once and stored in
 * both triangles, so every particle's K is exactly symmetric (and the assembled
 * operator symmetric up to the rounding of its sums). */

/* The stress caches and K of up to PW_STRESS_LANES particles, one per vector lane: the
 * polar rotation R = U V^T, cof(F), J, (tr(S) I - S)^-1 = V diag(1 / (s_j + s_k)) V^T,
 * the matrix B = -V0 P F^T of the forces, and K. Each lane does the one-particle
 * operations in their order (as pw_fcr_cache_init_svd and m3_mul sum them; no
 * contraction: pw_sim is built with -ffp-contract=off), so each result has the bits it
 * would have alone, and the four particles' chains of products overlap. The entry loop
 * of K is unrolled whole, so that its index tests resolve at compile time (as a loop,
 * the index arithmetic cost more than the products: sim/docs/step-speed.md, first
 * round, change 5). */
BOX_CLONES void pw_mpm_linearise_stress(const pw_stress_input *in, int n, pw_pstress *st,
                                        float (*K)[PW_K_ENTRIES])
{
    v4d F[3][3], U[3][3], V[3][3], sg[3], mu, lambda, V0;
    for (int l = 0; l < PW_STRESS_LANES; l++) {
        const pw_stress_input *il = &in[l < n ? l : 0]; /* spare lanes repeat particle 0 */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                F[i][j][l] = il->F.m[i][j];
                U[i][j][l] = il->f.U.m[i][j];
                V[i][j][l] = il->f.V.m[i][j];
            }
        sg[0][l] = il->f.sigma.x;
        sg[1][l] = il->f.sigma.y;
        sg[2][l] = il->f.sigma.z;
        mu[l] = il->mu;
        lambda[l] = il->lambda;
        V0[l] = il->V0;
    }
    const v4d zero = {0, 0, 0, 0};
    v4d R[3][3], Minv[3][3], cof[3][3], inv[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) /* U V^T */
            R[i][j] = U[i][0] * V[j][0] + U[i][1] * V[j][1] + U[i][2] * V[j][2];
    { /* pair_sum_inverses */
        v4d d[3] = {sg[1] + sg[2], sg[0] + sg[2], sg[0] + sg[1]};
        v4d scale = ABS4(sg[0]) + ABS4(sg[1]) + ABS4(sg[2]);
        for (int k = 0; k < 3; k++)
            inv[k] = SELECT4(ABS4(d[k]) > PW_FCR_SINGULAR_REL * scale, 1.0 / d[k], zero);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) /* (V diag(inv)) V^T */
            Minv[i][j] = V[i][0] * inv[0] * V[j][0] + V[i][1] * inv[1] * V[j][1] +
                         V[i][2] * inv[2] * V[j][2];
    for (int i = 0; i < 3; i++) { /* m3_cofactor */
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            cof[i][j] = F[i1][j1] * F[i2][j2] - F[i1][j2] * F[i2][j1];
        }
    }
    v4d J;
    det4(F, &J);
    /* P = 2 mu (F - R) + lambda (J - 1) cof(F); B = -V0 P F^T */
    v4d two_mu = 2.0 * mu, l_J1 = lambda * (J - 1.0), P[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P[i][j] = (F[i][j] - R[i][j]) * two_mu + cof[i][j] * l_J1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            v4d b = (P[i][0] * F[j][0] + P[i][1] * F[j][1] + P[i][2] * F[j][2]) * -V0;
            for (int p = 0; p < n; p++) st[p].B[3 * i + j] = b[p];
        }
    for (int p = 0; p < n; p++) {
        st[p].mu = in[p].mu;
        st[p].lambda = in[p].lambda;
    }
    if (!K) return; /* explicit forces need no linearisation */

    v4d k_mu = 2.0 * mu * V0, k_vol = lambda * V0 * J * J, k_cof = lambda * V0 * (J - 1.0) * J;
    v4d FFt[3][3]; /* F F^T, summed as m3_mul sums */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            FFt[i][j] = F[i][0] * F[j][0] + F[i][1] * F[j][1] + F[i][2] * F[j][2];
    /* b_k = sum_ij Bm[k][3i+j] G_ij with b = axial(M - M^T), M = R^T G F */
    v4d Bm[3][9], W[3][9];
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Bm[k][3 * i + j] = R[i][k2] * F[j][k1] - R[i][k1] * F[j][k2];
    }
    for (int m = 0; m < 3; m++)
        for (int q = 0; q < 9; q++)
            W[m][q] = Minv[m][0] * Bm[0][q] + Minv[m][1] * Bm[1][q] + Minv[m][2] * Bm[2][q];
#pragma GCC unroll 9
    for (int r = 0; r < 9; r++) {
        int i = r / 3, j = r % 3;
#pragma GCC unroll 9
        for (int q = r; q < 9; q++) {
            int k = q / 3, l = q % 3;
            v4d v = (i == k ? FFt[l][j] : zero) -
                    (Bm[0][r] * W[0][q] + Bm[1][r] * W[1][q] + Bm[2][r] * W[2][q]);
            v *= k_mu;
            if (i == j && k == l) v += k_vol + k_cof;
            if (i == l && j == k) v -= k_cof;
            for (int p = 0; p < n; p++) K[p][9 * r + q] = K[p][9 * q + r] = (float)v[p];
        }
    }
}

void pw_mpm_prepare_stress(pw_sim *s)
{
    const pw_particles *pt = &s->pt;
    long n = (long)s->n_step, batches = (n + PW_STRESS_LANES - 1) / PW_STRESS_LANES;
    /* a whole batch of K starts 16-byte aligned where K does (malloc) */
    _Static_assert(PW_STRESS_LANES * PW_K_ENTRIES * sizeof(float) % 16 == 0, "batch of K");
    const int aligned = ((uintptr_t)s->K & 15) == 0, implicit = s->p.beta > 0;
    double c2_max = 0; /* (max is exact: any split among threads agrees) */
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(static) nowait reduction(max : c2_max)
        for (long b = 0; b < batches; b++) {
            size_t p0 = (size_t)b * PW_STRESS_LANES;
            int m = n - (long)p0 < PW_STRESS_LANES ? (int)(n - (long)p0) : PW_STRESS_LANES;
            pw_stress_input in[PW_STRESS_LANES];
            for (int k = 0; k < m; k++) {
                size_t p = p0 + (size_t)k;
                /* eq. 2 with J_P clamped so that e^{xi (1 - J_P)} stays finite */
                double hard = pw_hardening(pt->xi[p], pw_particle_Jp(pt, p));
                pw_stress_input *il = &in[k];
                if (s->fe_svd_valid)
                    pw_svd3_unpack(&s->fe_svd[p], &il->f);
                else
                    m3_svd(pt->Fe[p], &il->f.U, &il->f.sigma, &il->f.V);
                il->F = pt->Fe[p];
                il->mu = pt->mu0[p] * hard;
                il->lambda = pt->lambda0[p] * hard;
                il->V0 = pt->V0[p];
            }
            /* the step's bounds (mpm.c) read the moduli here, where they are formed */
            double psi = 0;
            for (int k = 0; k < m; k++) {
                size_t p = p0 + (size_t)k;
                const pw_stress_input *il = &in[k];
                vec3 sg = il->f.sigma;
                double Je = sg.x * sg.y * sg.z, J = Je * m3_det(pt->Fp[p]);
                double c2 = pt->m[p] > 0 ? (il->lambda + 2 * il->mu) * il->V0 * J / pt->m[p] : 0;
                if (c2 > c2_max) c2_max = c2;
                double d = (sg.x - 1) * (sg.x - 1) + (sg.y - 1) * (sg.y - 1) + (sg.z - 1) * (sg.z - 1);
                psi += il->V0 * (il->mu * d + 0.5 * il->lambda * (Je - 1) * (Je - 1));
            }
            s->batch_psi[b] = psi;
            /* K is formed here entry by entry, then a whole batch is streamed out
             * (stream.h): K is read only after every particle's is formed; an explicit
             * step (beta = 0) solves nothing and forms none */
            float K[PW_STRESS_LANES][PW_K_ENTRIES];
            pw_mpm_linearise_stress(in, m, &s->stress[p0], implicit ? K : NULL);
            if (!implicit)
                continue;
            if (m == PW_STRESS_LANES && aligned)
                for (size_t k = 0; k < sizeof K; k += 16)
                    pw_stream_store16((char *)&s->K[p0] + k, (const char *)K + k);
            else
                memcpy(&s->K[p0], K, (size_t)m * sizeof K[0]);
        }
        pw_stream_fence(); /* (before the barrier that ends the region) */
    }
    s->K_formed = implicit;
    s->wave_speed2_max = c2_max;
}

/* ---- the Hessian action ---------------------------------------------------------- */


/* B = K G in float: B[0..7] as a sum of K's columns (its rows, K being symmetric), in
 * three partial sums of three columns each. One sum of nine is a chain of nine
 * dependent adds between the gather and the scatter, which the next particle's work
 * cannot hide; three chains were faster on the CPU measured (sim/docs/step-speed.md,
 * fourth round). */
BOX_INLINE void apply_K(const float K[PW_K_ENTRIES], const float G[9], float B[9])
{
    v8f acc[3];
    float last[3];
    for (int c = 0; c < 3; c++) {
        memcpy(&acc[c], K + 9 * c, sizeof acc[c]);
        acc[c] *= G[c];
        last[c] = K[9 * c + 8] * G[c];
    }
    for (int c = 3; c < 9; c++) {
        v8f col;
        memcpy(&col, K + 9 * c, sizeof col);
        acc[c % 3] += col * G[c];
        last[c % 3] += K[9 * c + 8] * G[c];
    }
    v8f sum = (acc[0] + acc[1]) + acc[2];
    memcpy(B, &sum, sizeof sum);
    B[8] = (last[0] + last[1]) + last[2];
}

typedef struct {
    const pw_vec4f *u;
    pw_vec4f *out;
} node_io;

/* out += H u over the particles of one home block, in float (box_f32.h says why) */
BOX_INLINE void hessian_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const node_io *io = ctx;
    const pw_grid *g = &s->grid;
    pw_box_f32 in, out;
    box_f32_load(g, home, io->u, &in);
    box_f32_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_weights_f32 f;
        weights_f32(&s->ps[p], g->inv_h, &f, W);
        int base = box_base_at(&s->ps[p]);
        float G[9], B[9];
        box_f32_gather(&in.node[base], &f, G, W); /* eq. 8: dF = G Fe */
        apply_K(s->K[p], G, B);                   /* V0 A_p Fe^T      */
        box_f32_scatter(&out.node[base], &f, B, W); /* eq. 7          */
    }
    box_f32_add_to(g, home, &out, io->out);
}

BOX_CLONES static void hessian_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, hessian_home_w, s, home, ctx);
}

static void zero_nodes(const pw_sim *s, pw_vec4f *a)
{
    long nn = (long)pw_grid_node_count(&s->grid);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) memset(&a[i], 0, sizeof a[i]);
}

void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4f *u, pw_vec4f *Hu)
{
    node_io io = {u, Hu};
    zero_nodes(s, Hu);
    pw_mpm_for_homes_by_colour(s, hessian_home, &io);
}

pw_status pw_mpm_hessian_action(pw_sim *s, const vec3 *u, vec3 *Hu)
{
    /* buffers of its own: the solver's (s->u4, s->Hu4) hold its state between calls */
    size_t nn = pw_grid_node_count(&s->grid);
    pw_vec4f *u4 = aligned_alloc(16, (nn ? nn : 1) * sizeof *u4);
    pw_vec4f *Hu4 = aligned_alloc(16, (nn ? nn : 1) * sizeof *Hu4);
    if (!u4 || !Hu4) {
        free(u4);
        free(Hu4);
        return PW_ENOMEM;
    }
    for (size_t i = 0; i < nn; i++) {
        pw_vec4f a = {(float)u[i].x, (float)u[i].y, (float)u[i].z, 0.f};
        u4[i] = a;
    }
    pw_mpm_hessian_action4(s, u4, Hu4);
    for (size_t i = 0; i < nn; i++) Hu[i] = v3(Hu4[i].x, Hu4[i].y, Hu4[i].z);
    free(u4);
    free(Hu4);
    return PW_OK;
}

/* d_a += g^T K_aa g over the stencil nodes of the particles of one home block, where
 * K_aa is K's 3x3 block of rows and columns 3a..3a+2: the Hessian action gathers
 * G = u g^T (G[3a+d] = u_a g_d) and scatters (B g)_a, so a unit u along e_a at one node
 * contributes e_a . K (e_a g^T) g, that block's quadratic form. With
 * g = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z) / h every product g_d g_e separates into
 * per-axis factors (N^2, N'^2, N N'), so the form is summed per row and only three
 * products remain per node. In float on the row halves of box_f32.h, like the action:
 * the diagonal only preconditions the solve, and float was faster on the CPU measured
 * (sim/docs/step-speed.md, first round, change 7). */
BOX_INLINE void diagonal_home_w(const pw_sim *s, uint32_t home, void *ctx, const int W)
{
    const pw_grid *g = &s->grid;
    pw_box_f32 out;
    box_f32_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        pw_weights_f32 f;
        weights_f32(&s->ps[p], g->inv_h, &f, W);
        const float *K = s->K[p];
        v8f k[6] = {{0}}; /* xx yy zz xy xz yz of block K_aa in lane a of both quads,
                             off-diagonals doubled */
        static const int entry[6] = {0, 10, 20, 1, 2, 11}; /* in K_aa, rows 9 apart */
        for (int j = 0; j < 6; j++) {
            const float *K0 = K + entry[j], *K1 = K0 + 30, *K2 = K0 + 60; /* a = 0, 1, 2 */
            float m = j < 3 ? 1.f : 2.f;
            /* widened in registers: eight lanes set one by one went through the stack,
             * and the wide reload of those small stores could not be forwarded
             * (sim/docs/step-speed.md, second round) */
            v4f kq = {*K0, *K1, *K2, 0.f};
            k[j] = __builtin_shufflevector(kq, kq, 0, 1, 2, 3, 0, 1, 2, 3) * m;
        }
        v8f x[3][2]; /* Nx^2, N'x^2, Nx N'x per half */
        for (int h = 0; h < 2; h++) {
            x[0][h] = f.wx[h] * f.wx[h];
            x[1][h] = f.dwx[h] * f.dwx[h];
            x[2][h] = f.wx[h] * f.dwx[h];
        }
        float (*base)[4] = &out.node[box_base_at(&s->ps[p])];
        /* the y z factors of the six terms for every row, four rows to a vector:
         * yz[c][j][b] for term j (the scalar products one by one, with a broadcast each,
         * took more instructions than the rows' vector work) */
        v4f Y0 = load4f(f.w[1]) * load4f(f.w[1]), Y1 = load4f(f.dw[1]) * load4f(f.dw[1]),
            Y2 = load4f(f.w[1]) * load4f(f.dw[1]);
        float yz[4][6][4];
        for (int c = 0; c < W; c++) {
            float Z0 = f.w[2][c] * f.w[2][c], Z1 = f.dw[2][c] * f.dw[2][c],
                  Z2 = f.w[2][c] * f.dw[2][c];
            v4f t[6] = {Y1 * Z0, Y0 * Z1, Y2 * Z2, Y0 * Z0, Y2 * Z0, Y0 * Z2};
            memcpy(yz[c], t, sizeof t);
        }
        for (int c = 0; c < W; c++) {
            for (int b = 0; b < W; b++) {
                const float(*t)[4] = yz[c]; /* t[j][b]: term j of row b */
                v8f P0 = k[1] * t[0][b] + k[2] * t[1][b] + k[5] * t[2][b]; /* times Nx^2   */
                v8f P1 = k[0] * t[3][b];                                /* times N'x^2  */
                v8f P2 = k[3] * t[4][b] + k[4] * t[5][b];                /* times Nx N'x */
                for (int h = 0; h < 2; h++) {
                    float *r = base[BOX_ROW(b, c) + 2 * h];
                    v8f row;
                    load8f(&row, r);
                    row += P0 * x[0][h] + P1 * x[1][h] + P2 * x[2][h];
                    store8f(r, &row);
                }
            }
        }
    }
    box_f32_add_to(g, home, &out, ctx);
}

BOX_CLONES static void diagonal_home(const pw_sim *s, uint32_t home, void *ctx)
{
    PW_STENCIL_CALL(&s->grid, diagonal_home_w, s, home, ctx);
}

void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4f *d)
{
    zero_nodes(s, d);
    pw_mpm_for_homes_by_colour(s, diagonal_home, d);
}
