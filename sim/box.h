/* box.h — a home block's stencil neighbourhood as a dense local box (internal to
 * sim/: every particle <-> grid transfer, the Hessian action and its diagonal).
 *
 * The particles of one home block (grid.h) reach only the 2x2x2 blocks around it. Their
 * scatters and gathers run on a copy of those blocks in a dense 8x8x8 box of padded
 * nodes, x fastest: a stencil row is four consecutive nodes at a fixed stride from
 * the particle's base node, so the loops need no index loads (see below for how the
 * nodes of a row share vectors). A scatter box is added to the grid per home block, by
 * colour, so every node's sum is the same bits for any thread count.
 *
 * The functions are inline and forced so into their callers, which are compiled as
 * clones per instruction set (BOX_CLONES): a call across a clone boundary would also
 * cost the switch between AVX and SSE register states. */
#ifndef PW_BOX_H
#define PW_BOX_H

#include <string.h>

#include "loops.h"
#include "mpm_internal.h"
#include "pw_simd.h"

/* One clone per instruction set (pw_simd.h says why they agree to the bit). */
#define BOX_CLONES PW_CLONES("avx512f", "avx2", "default")
#if defined(PW_HAVE_CLONES)
#define BOX_HAVE_CLONES 1
#endif
#define BOX_INLINE static inline __attribute__((always_inline))

/* Runs f(args..., W) with W the grid's stencil width (pw_kernel.h) as a constant: every
 * stencil loop takes W as its last parameter and is inlined, so each is compiled once
 * per kernel with its trip counts known (the quadratic's rows stay four nodes wide, its
 * fourth weight 0, and it visits 3 x 3 of them instead of 4 x 4). */
#define PW_STENCIL_CALL(g, f, ...)                                                       \
    ((g)->stencil == PW_STENCIL_QUADRATIC ? f(__VA_ARGS__, PW_STENCIL_QUADRATIC)          \
                                          : f(__VA_ARGS__, PW_STENCIL_CUBIC))

/* (through pointers: a wide vector as a return value would change the ABI between
 * the clones) */
BOX_INLINE void load4(v4d *r, const pw_vec4 *a) { memcpy(r, a, sizeof *r); }
BOX_INLINE void store4(pw_vec4 *a, const v4d *r) { memcpy(a, r, sizeof *r); }
BOX_INLINE void load8(v8d *r, const pw_vec4 *a) { memcpy(r, a, sizeof *r); }
BOX_INLINE void store8(pw_vec4 *a, const v8d *r) { memcpy(a, r, sizeof *r); }

#define BOX_EDGE 8
#define BOX_NODES (BOX_EDGE * BOX_EDGE * BOX_EDGE)
#define BOX_ROW(b, c) (BOX_EDGE * ((b) + BOX_EDGE * (c))) /* y offset b, z offset c */

typedef struct {
    _Alignas(64) pw_vec4 node[BOX_NODES];
} pw_box;

/* Box index of the first node of neighbourhood block d (dx + 2 dy + 4 dz). */
BOX_INLINE int box_block_origin(int d)
{
    return (d & 1) * PW_BLOCK + BOX_ROW(((d >> 1) & 1) * PW_BLOCK, (d >> 2) * PW_BLOCK);
}

/* Box index of node l (x + 4 y + 16 z) of the block whose first node is at box index o. */
BOX_INLINE int box_at(int o, int l) { return o + (l & 3) + BOX_ROW((l >> 2) & 3, l >> 4); }

/* Box index of particle q's first stencil node. */
BOX_INLINE int box_base(const pw_pstep *q) { return q->off[0] + BOX_ROW(q->off[1], q->off[2]); }
/* The same from its place, for the kernels that do not expand the weights in double. */
BOX_INLINE int box_base_at(const pw_ploc *l) { return l->off[0] + BOX_ROW(l->off[1], l->off[2]); }

BOX_INLINE void box_zero(pw_box *L)
{
    const v8d zero = {0};
    for (int i = 0; i < BOX_NODES; i += 2) store8(&L->node[i], &zero);
}

/* out += L on the 2x2x2 blocks around home, for unpadded node vectors */
BOX_INLINE void box_add_to_vec3(const pw_grid *g, uint32_t home, const pw_box *L, vec3 *out)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        vec3 *dst = out + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l++) {
            const pw_vec4 *b = &L->node[box_at(o, l)];
            dst[l].x += b->x;
            dst[l].y += b->y;
            dst[l].z += b->z;
        }
    }
}

/* Two forms of each stencil kernel, one result. The wide form puts two nodes of a row in
 * one 8-wide vector: lanes 0-3 for node a, 4-7 for node a + 1, so every sum over x runs
 * as two interleaved halves (nodes 0 + 2 and 1 + 3), folded once per particle; on
 * AVX-512 that is half the instructions. Where the target has no 8-wide registers GCC
 * keeps such vectors in memory, so the narrow form holds the two halves as two 4-wide
 * vectors (lo: nodes 0 and 2, hi: nodes 1 and 3) and does the same operations in the
 * same order: the same bits (box_wide_narrow_same_bits compares the two, kernel by
 * kernel, on every instruction set, since a CPU runs only one of them). box_wide() is
 * true where the AVX-512 clone runs and the simulation's policy (pw_sim_params.kernel_width)
 * asks for the wide forms; by default, on a CPU that executes 512-bit operations whole
 * (pw_cpu_splits_512). Each simulation decides once (s->wide) and every loop passes it
 * to every kernel call. */
static inline int box_wide_for(int kernel_width)
{
#if defined(BOX_HAVE_CLONES)
    return __builtin_cpu_supports("avx512f") &&
           (kernel_width == 2 || (kernel_width == 0 && !pw_cpu_splits_512()));
#else
    (void)kernel_width;
    return 0;
#endif
}

/* The x weights of a stencil row as pairs: lanes 0-3 for node a, 4-7 for node a + 1. */
typedef struct {
    v8d w01, w23, dw01, dw23;
} x_pairs;

BOX_INLINE x_pairs x_weight_pairs(const pw_pstep *q)
{
    const double *w = q->w[0], *dw = q->dw[0];
    x_pairs r = {{w[0], w[0], w[0], w[0], w[1], w[1], w[1], w[1]},
                 {w[2], w[2], w[2], w[2], w[3], w[3], w[3], w[3]},
                 {dw[0], dw[0], dw[0], dw[0], dw[1], dw[1], dw[1], dw[1]},
                 {dw[2], dw[2], dw[2], dw[2], dw[3], dw[3], dw[3], dw[3]}};
    return r;
}

#define NEG_ZERO4 {-0.0, -0.0, -0.0, -0.0}
#define NEG_ZERO8 {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0}

/* G = sum_i u_i grad w_ip^T over the stencil from the box, with
 * grad w_ip = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z): the sums run x innermost and are
 * weighted by the y and z factors afterwards, so each node costs two vector
 * multiply-adds instead of a full outer product. (The sums start from -0.0, which adds
 * nothing to any value, so the first product needs no add.) */
BOX_INLINE void gather_wide(const pw_vec4 *base, const pw_pstep *q, double G[9], const int W)
{
    const x_pairs xw = x_weight_pairs(q);
    const v8d nz = NEG_ZERO8;
    v8d gx = nz, gy = nz, gz = nz;
    for (int c = 0; c < W; c++) {
        v8d t_w = nz, t_dw = nz, t_xw = nz;
        for (int b = 0; b < W; b++) {
            const pw_vec4 *row = base + BOX_ROW(b, c);
            v8d u01, u23;
            load8(&u01, row);
            load8(&u23, row + 2);
            v8d s_w = u01 * xw.w01 + u23 * xw.w23;
            v8d s_dw = u01 * xw.dw01 + u23 * xw.dw23;
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

BOX_INLINE void gather_narrow(const pw_vec4 *base, const pw_pstep *q, double G[9], const int W)
{
    const double *w = q->w[0], *dw = q->dw[0];
    const v4d nz = NEG_ZERO4;
    v4d gx[2] = {nz, nz}, gy[2] = {nz, nz}, gz[2] = {nz, nz};
    /* the two halves one after the other (each its own sums, so the same bits as
     * interleaved): half the accumulators and x weights live at once, which the
     * registers hold (interleaved, two accumulators went to the stack and each of their
     * adds waited on a reload: sim/docs/step-speed.md, third round) */
    for (int h = 0; h < 2; h++)
        for (int c = 0; c < W; c++) {
            v4d t_w = nz, t_dw = nz, t_xw = nz;
            for (int b = 0; b < W; b++) {
                const pw_vec4 *row = base + BOX_ROW(b, c);
                v4d u_a, u_b; /* nodes h and h + 2 */
                load4(&u_a, row + h);
                load4(&u_b, row + h + 2);
                v4d s_w = u_a * w[h] + u_b * w[h + 2];
                v4d s_dw = u_a * dw[h] + u_b * dw[h + 2];
                t_w += s_w * q->w[1][b];
                t_dw += s_w * q->dw[1][b];
                t_xw += s_dw * q->w[1][b];
            }
            gx[h] += t_xw * q->w[2][c];
            gy[h] += t_dw * q->w[2][c];
            gz[h] += t_w * q->dw[2][c];
        }
    double G_[9] = {gx[0][0] + gx[1][0], gy[0][0] + gy[1][0], gz[0][0] + gz[1][0],
                    gx[0][1] + gx[1][1], gy[0][1] + gy[1][1], gz[0][1] + gz[1][1],
                    gx[0][2] + gx[1][2], gy[0][2] + gy[1][2], gz[0][2] + gz[1][2]};
    memcpy(G, G_, sizeof G_);
}

BOX_INLINE void box_gather(int wide, const pw_vec4 *base, const pw_pstep *q, double G[9], const int W)
{
    if (wide)
        gather_wide(base, q, G, W);
    else
        gather_narrow(base, q, G, W);
}

/* out_i += B grad w_ip over the stencil into the box, in the same separable order */
BOX_INLINE void scatter_wide(pw_vec4 *base, const pw_pstep *q, const double B[9], const int W)
{
    const x_pairs xw = x_weight_pairs(q);
    v8d b0 = {B[0], B[3], B[6], 0, B[0], B[3], B[6], 0}, b1 = {B[1], B[4], B[7], 0, B[1], B[4], B[7], 0},
        b2 = {B[2], B[5], B[8], 0, B[2], B[5], B[8], 0};
    for (int c = 0; c < W; c++) {
        v8d cz_w = b0 * q->w[2][c], cy_w = b1 * q->w[2][c], cz_dw = b2 * q->dw[2][c];
        for (int b = 0; b < W; b++) {
            pw_vec4 *row = base + BOX_ROW(b, c);
            v8d along_dw = cz_w * q->w[1][b];                      /* times N'x */
            v8d along_w = cy_w * q->dw[1][b] + cz_dw * q->w[1][b]; /* times Nx  */
            v8d o01, o23;
            load8(&o01, row);
            load8(&o23, row + 2);
            o01 += along_dw * xw.dw01 + along_w * xw.w01;
            o23 += along_dw * xw.dw23 + along_w * xw.w23;
            store8(row, &o01);
            store8(row + 2, &o23);
        }
    }
}

BOX_INLINE void scatter_narrow(pw_vec4 *base, const pw_pstep *q, const double B[9], const int W)
{
    v4d b0 = {B[0], B[3], B[6], 0}, b1 = {B[1], B[4], B[7], 0}, b2 = {B[2], B[5], B[8], 0};
    for (int c = 0; c < W; c++) {
        v4d cz_w = b0 * q->w[2][c], cy_w = b1 * q->w[2][c], cz_dw = b2 * q->dw[2][c];
        for (int b = 0; b < W; b++) {
            pw_vec4 *row = base + BOX_ROW(b, c);
            v4d along_dw = cz_w * q->w[1][b];
            v4d along_w = cy_w * q->dw[1][b] + cz_dw * q->w[1][b];
            for (int a = 0; a < 4; a++) {
                v4d o;
                load4(&o, row + a);
                o += along_dw * q->dw[0][a] + along_w * q->w[0][a];
                store4(row + a, &o);
            }
        }
    }
}

BOX_INLINE void box_scatter(int wide, pw_vec4 *base, const pw_pstep *q, const double B[9], const int W)
{
    if (wide)
        scatter_wide(base, q, B, W);
    else
        scatter_narrow(base, q, B, W);
}

/* L = u (unpadded node vectors) on the 2x2x2 blocks around home (all of them exist: grid.h) */
BOX_INLINE void box_load_vec3(const pw_grid *g, uint32_t home, const vec3 *u, pw_box *L)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        const vec3 *src = u + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l++) {
            pw_vec4 a = {src[l].x, src[l].y, src[l].z, 0};
            L->node[box_at(o, l)] = a;
        }
    }
}

/* L = (m, 0, 0, 0) for the node scalars m on the 2x2x2 blocks around home */
BOX_INLINE void box_load_scalar(const pw_grid *g, uint32_t home, const double *m, pw_box *L)
{
    const uint32_t *nb = g->nbr[home];
    for (int d = 0; d < 8; d++) {
        const double *src = m + (size_t)nb[d] * PW_BLOCK_NODES;
        int o = box_block_origin(d);
        for (int l = 0; l < PW_BLOCK_NODES; l++) {
            pw_vec4 a = {src[l], 0, 0, 0};
            L->node[box_at(o, l)] = a;
        }
    }
}

/* out = sum_i w_ip u_i over the stencil from the box */
BOX_INLINE void gather_value_wide(const pw_vec4 *base, const pw_pstep *q, pw_vec4 *out, const int W)
{
    const x_pairs xw = x_weight_pairs(q);
    const v8d nz = NEG_ZERO8;
    v8d acc = nz;
    for (int c = 0; c < W; c++) {
        v8d t = nz;
        for (int b = 0; b < W; b++) {
            const pw_vec4 *row = base + BOX_ROW(b, c);
            v8d u01, u23;
            load8(&u01, row);
            load8(&u23, row + 2);
            t += (u01 * xw.w01 + u23 * xw.w23) * q->w[1][b];
        }
        acc += t * q->w[2][c];
    }
    pw_vec4 r = {acc[0] + acc[4], acc[1] + acc[5], acc[2] + acc[6], acc[3] + acc[7]};
    *out = r;
}

BOX_INLINE void gather_value_narrow(const pw_vec4 *base, const pw_pstep *q, pw_vec4 *out, const int W)
{
    const double *w = q->w[0];
    const v4d nz = NEG_ZERO4;
    v4d acc[2] = {nz, nz};
    for (int c = 0; c < W; c++) {
        v4d t[2] = {nz, nz};
        for (int b = 0; b < W; b++) {
            const pw_vec4 *row = base + BOX_ROW(b, c);
            for (int h = 0; h < 2; h++) {
                v4d u_a, u_b;
                load4(&u_a, row + h);
                load4(&u_b, row + h + 2);
                t[h] += (u_a * w[h] + u_b * w[h + 2]) * q->w[1][b];
            }
        }
        for (int h = 0; h < 2; h++) acc[h] += t[h] * q->w[2][c];
    }
    v4d r = acc[0] + acc[1];
    store4(out, &r);
}

BOX_INLINE void box_gather_value(int wide, const pw_vec4 *base, const pw_pstep *q, pw_vec4 *out, const int W)
{
    if (wide)
        gather_value_wide(base, q, out, W);
    else
        gather_value_narrow(base, q, out, W);
}

/* out_i += w_ip val over the stencil into the box */
BOX_INLINE void scatter_value_wide(pw_vec4 *base, const pw_pstep *q, const pw_vec4 *val, const int W)
{
    const x_pairs xw = x_weight_pairs(q);
    v8d v = {val->x, val->y, val->z, val->pad, val->x, val->y, val->z, val->pad};
    for (int c = 0; c < W; c++) {
        v8d vc = v * q->w[2][c];
        for (int b = 0; b < W; b++) {
            pw_vec4 *row = base + BOX_ROW(b, c);
            v8d along = vc * q->w[1][b];
            v8d o01, o23;
            load8(&o01, row);
            load8(&o23, row + 2);
            o01 += along * xw.w01;
            o23 += along * xw.w23;
            store8(row, &o01);
            store8(row + 2, &o23);
        }
    }
}

BOX_INLINE void scatter_value_narrow(pw_vec4 *base, const pw_pstep *q, const pw_vec4 *val, const int W)
{
    v4d v;
    load4(&v, val);
    for (int c = 0; c < W; c++) {
        v4d vc = v * q->w[2][c];
        for (int b = 0; b < W; b++) {
            pw_vec4 *row = base + BOX_ROW(b, c);
            v4d along = vc * q->w[1][b];
            for (int a = 0; a < 4; a++) {
                v4d o;
                load4(&o, row + a);
                o += along * q->w[0][a];
                store4(row + a, &o);
            }
        }
    }
}

BOX_INLINE void box_scatter_value(int wide, pw_vec4 *base, const pw_pstep *q, const pw_vec4 *val, const int W)
{
    if (wide)
        scatter_value_wide(base, q, val, W);
    else
        scatter_value_narrow(base, q, val, W);
}

#endif
