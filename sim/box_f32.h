/* box_f32.h — the stencil sums of the Hessian action in single precision (internal to
 * sim/, used by hessian.c).
 *
 * Why single precision: the solve stops at a relative residual of cr_tolerance (1e-4
 * by default), and the action's own error in float is ~1e-6 relative (weights, node
 * values and sums each rounded at 2^-24; K is stored in float already), so the
 * solution moves well inside the tolerance while the action, which is bound by its
 * multiplies, runs twice as many lanes per instruction. Everything that is state
 * (forces, transfers, F) stays in double; only the solver's operator is rounded.
 *
 * A box node is four floats (x, y, z, 0), so a stencil row of four nodes is one 16-wide
 * vector: lanes 4a..4a+3 hold node a. The sums run y and z first, on whole rows, and
 * weight the four nodes of a row by their x factors once per particle, which costs
 * about 47 vector multiplies per gather or scatter instead of 112 per row pair.
 * Lane operations are IEEE single precision in a fixed order (no fused multiply-adds:
 * pw_sim is built with -ffp-contract=off), so every instruction-set clone, whatever
 * vector width it lowers the 16 lanes to, gives the same bits. */
#ifndef PW_BOX_F32_H
#define PW_BOX_F32_H

#include "box.h"

typedef float v16f __attribute__((vector_size(64)));

typedef struct {
    _Alignas(64) float node[BOX_NODES][4];
} pw_box_f32;

/* A particle's stencil weights in float: per axis for the y and z sums, and as lane
 * vectors for x (lanes 4a..4a+3: node a's factor). */
typedef struct {
    v16f wx, dwx;
    float w[3][4], dw[3][4];
} pw_weights_f32;

BOX_INLINE void weights_f32(const pw_pstep *q, pw_weights_f32 *f)
{
    for (int ax = 0; ax < 3; ax++)
        for (int k = 0; k < 4; k++) {
            f->w[ax][k] = (float)q->w[ax][k];
            f->dw[ax][k] = (float)q->dw[ax][k];
        }
    for (int l = 0; l < 16; l++) {
        f->wx[l] = f->w[0][l >> 2];
        f->dwx[l] = f->dw[0][l >> 2];
    }
}

BOX_INLINE void load16(v16f *r, const float *a) { memcpy(r, a, sizeof *r); }
BOX_INLINE void store16(float *a, const v16f *r) { memcpy(a, r, sizeof *r); }

/* L = u, rounded to float, on the 2x2x2 blocks around home */
BOX_INLINE void box_f32_load(const pw_grid *g, uint32_t home, const pw_vec4 *u, pw_box_f32 *L)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        const pw_vec4 *src = u + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l += 2) {
            v8d a;
            load8(&a, src + l);
            v8f f = __builtin_convertvector(a, v8f);
            memcpy(L->node[box_at(o, l)], &f, sizeof f);
        }
    }
}

BOX_INLINE void box_f32_zero(pw_box_f32 *L)
{
    const v16f zero = {0};
    for (int i = 0; i < BOX_NODES; i += 4) store16(L->node[i], &zero);
}

/* out += L, widened to double, on the 2x2x2 blocks around home */
BOX_INLINE void box_f32_add_to(const pw_grid *g, uint32_t home, const pw_box_f32 *L, pw_vec4 *out)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        pw_vec4 *dst = out + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l += 2) {
            v8f f;
            memcpy(&f, L->node[box_at(o, l)], sizeof f);
            v8d a;
            load8(&a, dst + l);
            a += __builtin_convertvector(f, v8d);
            store8(dst + l, &a);
        }
    }
}

/* Lane i of node 0 + node 1 + node 2 + node 3 (a fixed order). */
BOX_INLINE float fold_nodes(v16f v, int i) { return (v[i] + v[4 + i]) + (v[8 + i] + v[12 + i]); }

/* G = sum_i u_i grad w_ip^T over the stencil, grad w_ip = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z)
 * (G[3 i + j]: component i, derivative j). The sums start from -0.0, which adds nothing
 * to any value. */
BOX_INLINE void box_f32_gather(const float (*base)[4], const pw_weights_f32 *f, float G[9])
{
    const v16f nz = {-0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f,
                     -0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f};
    v16f u_ww = nz, u_wd = nz, u_dw = nz; /* rows summed with (Ny Nz, Ny N'z, N'y Nz) */
    for (int c = 0; c < 4; c++) {
        v16f t_w = nz, t_dw = nz;
        for (int b = 0; b < 4; b++) {
            v16f row;
            load16(&row, base[BOX_ROW(b, c)]);
            t_w += row * f->w[1][b];
            t_dw += row * f->dw[1][b];
        }
        u_ww += t_w * f->w[2][c];
        u_wd += t_w * f->dw[2][c];
        u_dw += t_dw * f->w[2][c];
    }
    v16f gx = u_ww * f->dwx, gy = u_dw * f->wx, gz = u_wd * f->wx;
    for (int i = 0; i < 3; i++) {
        G[3 * i] = fold_nodes(gx, i);
        G[3 * i + 1] = fold_nodes(gy, i);
        G[3 * i + 2] = fold_nodes(gz, i);
    }
}

/* out_i += B grad w_ip over the stencil:
 *   row (b, c) += (P0 Nz + P2 N'z) Ny + (P1 Nz) N'y,
 * with P0 = B's column 0 times N'x, P1 and P2 its columns 1 and 2 times Nx, per node. */
BOX_INLINE void box_f32_scatter(float (*base)[4], const pw_weights_f32 *f, const float B[9])
{
    v16f b0, b1, b2;
    for (int l = 0; l < 16; l++) {
        int i = l & 3;
        b0[l] = i < 3 ? B[3 * i] : 0.f;
        b1[l] = i < 3 ? B[3 * i + 1] : 0.f;
        b2[l] = i < 3 ? B[3 * i + 2] : 0.f;
    }
    v16f p0 = b0 * f->dwx, p1 = b1 * f->wx, p2 = b2 * f->wx;
    for (int c = 0; c < 4; c++) {
        v16f along_w = p0 * f->w[2][c] + p2 * f->dw[2][c], along_dw = p1 * f->w[2][c];
        for (int b = 0; b < 4; b++) {
            float *r = base[BOX_ROW(b, c)];
            v16f row;
            load16(&row, r);
            row += along_w * f->w[1][b] + along_dw * f->dw[1][b];
            store16(r, &row);
        }
    }
}

#endif
