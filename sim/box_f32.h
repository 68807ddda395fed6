/* box_f32.h — the stencil sums of the Hessian action in single precision (internal to
 * sim/, used by hessian.c).
 *
 * Why single precision: the solve stops at a relative residual of cr_tolerance (1e-4
 * by default), and the action's own error in float is ~1e-6 relative (weights, node
 * values and sums each rounded at 2^-24, also where the home blocks' boxes are added
 * up; K is stored in float already), so the solution moves well inside the tolerance
 * while the action, which is bound by its multiplies, runs twice as many lanes per
 * instruction. Everything that is state (forces, transfers, F) stays in double; only
 * the solver's operator is rounded.
 *
 * A box node is four floats (x, y, z, 0), so a stencil row of four nodes is two 8-wide
 * vectors, its halves: lanes 4a..4a+3 of half h hold node 2h + a. The sums run y and z
 * first, on whole rows, and weight the nodes of a row by their x factors once per
 * particle, which costs about 47 multiplies of 16 lanes per gather or scatter instead
 * of 112 of 8 lanes (double, box.h). Eight lanes are what AVX2 holds in a register;
 * on AVX-512 cores that split 512-bit operations in two (AMD Zen 4) they cost the same
 * as 16, and 16-lane vectors, which AVX2 keeps in memory, made the AVX2 clone several
 * times slower (sim/docs/step-speed.md, first round, change 3). Lane operations are
 * IEEE single precision in a fixed order (no fused multiply-adds: pw_sim is built with
 * -ffp-contract=off), so every instruction-set clone gives the same bits. */
#ifndef PW_BOX_F32_H
#define PW_BOX_F32_H

#include "box.h"

typedef float v4f __attribute__((vector_size(16)));

typedef struct {
    _Alignas(64) float node[BOX_NODES][4];
} pw_box_f32;

/* A particle's stencil weights in float: per axis for the y and z sums, and for x as
 * lane vectors of the row halves (lanes 4a..4a+3 of half h: node 2h + a's factor). */
typedef struct {
    v8f wx[2], dwx[2];
    float w[3][4], dw[3][4];
} pw_weights_f32;

/* r[h] = (v[2h] x4, v[2h+1] x4), in registers: widening v through memory (a 16-byte
 * store read back by a 32-byte load) cannot be store-forwarded, and the Hessian action
 * waited on the two stalls (sim/docs/step-speed.md, second round). */
BOX_INLINE void spread_halves(v4f v, v8f r[2])
{
    r[0] = __builtin_shufflevector(v, v, 0, 0, 0, 0, 1, 1, 1, 1);
    r[1] = __builtin_shufflevector(v, v, 2, 2, 2, 2, 3, 3, 3, 3);
}

/* The stencil form of the B-spline (pw_kernel.h) in float, for one axis (x) and for two
 * side by side (y and z). */
PW_BSPLINE_STENCIL_DEFINE(bspline_stencil4f, v4f, float, PW_BSPLINE_LANES4)
PW_BSPLINE_STENCIL_DEFINE(bspline_stencil8f, v8f, float, PW_BSPLINE_LANES8)

/* The stencil weights of the particle at place l, evaluated in float: the stencil form
 * of pw_kernel.h with t rounded to float, y and z together in one 8-wide vector.
 * Against expanding in double and rounding (what the forces and transfers use), the
 * weights differ by a few 2^-24 in absolute terms (they sum to 1; the small edge weights
 * lose more relative to themselves), like every sum here (kernel_float_weights_match_double
 * bounds them: 15 2^-24 for N, 18 2^-24 / h for N'/h); it saves the double expansion
 * and its conversions, which made the action and the diagonal faster on the CPU
 * measured (sim/docs/step-speed.md, fourth round). */
BOX_INLINE void weights_f32(const pw_ploc *l, double inv_h, pw_weights_f32 *f, const int W)
{
    float half_inv_h = (float)(0.5 * inv_h), w_scale = W == PW_STENCIL_CUBIC ? 1.f / 6.f : 0.5f;
    double t0 = pw_stencil_t_origin(W);
    float tx = (float)(l->fu[0] - t0), ty = (float)(l->fu[1] - t0), tz = (float)(l->fu[2] - t0);
    v4f t4 = {tx, tx, tx, tx}, wx, dwx;
    bspline_stencil4f(&t4, W, w_scale, half_inv_h, &wx, &dwx);
    spread_halves(wx, f->wx);
    spread_halves(dwx, f->dwx);
    memcpy(f->w[0], &wx, sizeof wx);
    memcpy(f->dw[0], &dwx, sizeof dwx);
    v8f t = {ty, ty, ty, ty, tz, tz, tz, tz}, w, dw;
    bspline_stencil8f(&t, W, w_scale, half_inv_h, &w, &dw);
    memcpy((float *)f->w + 4, &w, sizeof w); /* w[1] and w[2], adjacent */
    memcpy((float *)f->dw + 4, &dw, sizeof dw);
}

BOX_INLINE void load8f(v8f *r, const float *a) { memcpy(r, a, sizeof *r); }
BOX_INLINE v4f load4f(const float a[4])
{
    v4f r;
    memcpy(&r, a, sizeof r);
    return r;
}
BOX_INLINE void store8f(float *a, const v8f *r) { memcpy(a, r, sizeof *r); }

/* L = u on the 2x2x2 blocks around home */
BOX_INLINE void box_f32_load(const pw_grid *g, uint32_t home, const pw_vec4f *u, pw_box_f32 *L)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        const pw_vec4f *src = u + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l += 4) /* (a row of four nodes at once) */
            memcpy(L->node[box_at(o, l)], src + l, 4 * sizeof *src);
    }
}

BOX_INLINE void box_f32_zero(pw_box_f32 *L)
{
    const v8f zero = {0};
    for (int i = 0; i < BOX_NODES; i += 2) store8f(L->node[i], &zero);
}

/* out += L on the 2x2x2 blocks around home */
BOX_INLINE void box_f32_add_to(const pw_grid *g, uint32_t home, const pw_box_f32 *L, pw_vec4f *out)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        pw_vec4f *dst = out + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l += 2) { /* (two nodes at once) */
            v8f f, a;
            load8f(&f, L->node[box_at(o, l)]);
            memcpy(&a, dst + l, sizeof a);
            a += f;
            memcpy(dst + l, &a, sizeof a);
        }
    }
}

/* The four nodes of a row summed, (node 0 + node 2) + (node 1 + node 3), from the
 * halves' sum lo + hi. */
BOX_INLINE v4f fold_nodes(const v8f *v) /* (by address, as box.h says why) */
{
    v4f a, b;
    memcpy(&a, v, sizeof a);
    memcpy(&b, (const char *)v + sizeof a, sizeof b);
    return a + b;
}

/* G = sum_i u_i grad w_ip^T over the stencil, grad w_ip = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z)
 * (G[3 i + j]: component i, derivative j). The sums start from -0.0, which adds nothing
 * to any value. */
BOX_INLINE void box_f32_gather(const float (*base)[4], const pw_weights_f32 *f, float G[9], const int W)
{
    const v8f nz = {-0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f, -0.f};
    v8f u_ww[2] = {nz, nz}, u_wd[2] = {nz, nz}, u_dw[2] = {nz, nz}; /* rows summed with
                                                   (Ny Nz, Ny N'z, N'y Nz), per half */
    for (int c = 0; c < W; c++) {
        v8f t_w[2] = {nz, nz}, t_dw[2] = {nz, nz};
        for (int b = 0; b < W; b++)
            for (int h = 0; h < 2; h++) {
                v8f row;
                load8f(&row, base[BOX_ROW(b, c) + 2 * h]);
                t_w[h] += row * f->w[1][b];
                t_dw[h] += row * f->dw[1][b];
            }
        for (int h = 0; h < 2; h++) {
            u_ww[h] += t_w[h] * f->w[2][c];
            u_wd[h] += t_w[h] * f->dw[2][c];
            u_dw[h] += t_dw[h] * f->w[2][c];
        }
    }
    const v8f sx = u_ww[0] * f->dwx[0] + u_ww[1] * f->dwx[1],
              sy = u_dw[0] * f->wx[0] + u_dw[1] * f->wx[1], sz = u_wd[0] * f->wx[0] + u_wd[1] * f->wx[1];
    v4f gx = fold_nodes(&sx), gy = fold_nodes(&sy), gz = fold_nodes(&sz);
    for (int i = 0; i < 3; i++) {
        G[3 * i] = gx[i];
        G[3 * i + 1] = gy[i];
        G[3 * i + 2] = gz[i];
    }
}

/* out_i += B grad w_ip over the stencil:
 *   row (b, c) += (P0 Nz + P2 N'z) Ny + (P1 Nz) N'y,
 * with P0 = B's column 0 times N'x, P1 and P2 its columns 1 and 2 times Nx, per node. */
BOX_INLINE void box_f32_scatter(float (*base)[4], const pw_weights_f32 *f, const float B[9], const int W)
{
    const v8f b0 = {B[0], B[3], B[6], 0.f, B[0], B[3], B[6], 0.f},
              b1 = {B[1], B[4], B[7], 0.f, B[1], B[4], B[7], 0.f},
              b2 = {B[2], B[5], B[8], 0.f, B[2], B[5], B[8], 0.f}; /* B's columns, twice */
    for (int h = 0; h < 2; h++) {
        v8f p0 = b0 * f->dwx[h], p1 = b1 * f->wx[h], p2 = b2 * f->wx[h];
        for (int c = 0; c < W; c++) {
            v8f along_w = p0 * f->w[2][c] + p2 * f->dw[2][c], along_dw = p1 * f->w[2][c];
            for (int b = 0; b < W; b++) {
                float *r = base[BOX_ROW(b, c) + 2 * h];
                v8f row;
                load8f(&row, r);
                row += along_w * f->w[1][b] + along_dw * f->dw[1][b];
                store8f(r, &row);
            }
        }
    }
}

#endif
