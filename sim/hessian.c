/* hessian.c — the matrix-free Hessian action of Stomakhin et al. 2013, eqs. 7-8, and
 * its diagonal: the inner loop of the semi-implicit solve (solver.c).
 *
 *     (H u)_i = sum_p V0 dP(Fe; G_p Fe) Fe^T grad w_ip,   G_p = sum_j u_j grad w_jp^T,
 *
 * where G -> V0 dP(Fe; G Fe) Fe^T is the particle's 9x9 matrix K (transfer.c): a
 * particle gathers G (eq. 8), multiplies it by K and scatters B = K G (eq. 7), on its
 * home block's local box (box.h). */
#include "box.h"

/* B = K G: B[0..7] as a sum of K's columns (its rows, K being symmetric) */
BOX_INLINE void apply_K(const double K[PW_K_ENTRIES], const double G[9], double B[9])
{
    v8d acc = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
    double last = 0;
    for (int c = 0; c < 9; c++) {
        v8d col;
        memcpy(&col, K + 9 * c, sizeof col);
        acc += col * G[c];
        last += K[9 * c + 8] * G[c];
    }
    memcpy(B, &acc, sizeof acc);
    B[8] = last;
}

typedef struct {
    const pw_vec4 *u;
    pw_vec4 *out;
} node_io;

/* out += H u over the particles of one home block */
BOX_CLONES static void hessian_home(const pw_sim *s, uint32_t home, void *ctx)
{
    const int wide = box_wide(); /* once for the loop below */
    const node_io *io = ctx;
    const pw_grid *g = &s->grid;
    pw_box in, out;
    box_load(g, home, io->u, &in);
    box_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        const pw_pstep *q = &s->ps[p];
        int base = box_base(q);
        double G[9], B[9];
        box_gather(wide, &in.node[base], q, G);   /* eq. 8: dF = G Fe */
        apply_K(s->K[p], G, B);             /* V0 A_p Fe^T      */
        box_scatter(wide, &out.node[base], q, B); /* eq. 7            */
    }
    box_add_to(g, home, &out, io->out);
}

static void zero_nodes(const pw_sim *s, pw_vec4 *a)
{
    long nn = (long)pw_grid_node_count(&s->grid);
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long i = 0; i < nn; i++) memset(&a[i], 0, sizeof a[i]);
}

void pw_mpm_hessian_action4(pw_sim *s, const pw_vec4 *u, pw_vec4 *Hu)
{
    node_io io = {u, Hu};
    zero_nodes(s, Hu);
    pw_mpm_for_homes_by_colour(s, hessian_home, &io);
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

/* d_a += g^T K_aa g over the stencil nodes of the particles of one home block, where
 * K_aa is K's 3x3 block of rows and columns 3a..3a+2: the Hessian action gathers
 * G = u g^T (G[3a+d] = u_a g_d) and scatters (B g)_a, so a unit u along e_a at one node
 * contributes e_a . K (e_a g^T) g, that block's quadratic form. With
 * g = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z) / h every product g_d g_e separates into
 * per-axis factors (N^2, N'^2, N N'), so the form is summed per row and only three
 * products remain per node. */
BOX_CLONES static void diagonal_home(const pw_sim *s, uint32_t home, void *ctx)
{
    const pw_grid *g = &s->grid;
    pw_box out;
    box_zero(&out);
    for (size_t p = g->start[home]; p < g->start[home + 1]; p++) {
        const pw_pstep *q = &s->ps[p];
        const double *K = s->K[p];
        double kk[6][4] = {{0}}; /* [j][a]: xx yy zz xy xz yz of block K_aa, off-diagonals
                                    doubled */
        for (int a = 0; a < 3; a++) {
            const double *Kr = K + 9 * 3 * a + 3 * a; /* K_aa's first entry; rows 9 apart */
            kk[0][a] = Kr[0];
            kk[1][a] = Kr[10];
            kk[2][a] = Kr[20];
            kk[3][a] = 2.0 * Kr[1];
            kk[4][a] = 2.0 * Kr[2];
            kk[5][a] = 2.0 * Kr[11];
        }
        v4d k[6];
        for (int j = 0; j < 6; j++) memcpy(&k[j], kk[j], sizeof k[j]);
        double f[3][3][4]; /* f[axis][0: N^2, 1: N'^2, 2: N N'][node] */
        for (int ax = 0; ax < 3; ax++)
            for (int n = 0; n < 4; n++) {
                f[ax][0][n] = q->w[ax][n] * q->w[ax][n];
                f[ax][1][n] = q->dw[ax][n] * q->dw[ax][n];
                f[ax][2][n] = q->w[ax][n] * q->dw[ax][n];
            }
        pw_vec4 *base = &out.node[box_base(q)];
        for (int c = 0; c < 4; c++)
            for (int b = 0; b < 4; b++) {
                double Y0 = f[1][0][b], Y1 = f[1][1][b], Y2 = f[1][2][b];
                double Z0 = f[2][0][c], Z1 = f[2][1][c], Z2 = f[2][2][c];
                v4d P0 = k[1] * (Y1 * Z0) + k[2] * (Y0 * Z1) + k[5] * (Y2 * Z2); /* times Nx^2   */
                v4d P1 = k[0] * (Y0 * Z0);                                      /* times N'x^2  */
                v4d P2 = k[3] * (Y2 * Z0) + k[4] * (Y0 * Z2);                    /* times Nx N'x */
                pw_vec4 *row = base + BOX_ROW(b, c);
                for (int a = 0; a < 4; a++) {
                    v4d o;
                    load4(&o, row + a);
                    o += P0 * f[0][0][a] + P1 * f[0][1][a] + P2 * f[0][2][a];
                    store4(row + a, &o);
                }
            }
    }
    box_add_to(g, home, &out, ctx);
}

void pw_mpm_hessian_diagonal(pw_sim *s, pw_vec4 *d)
{
    zero_nodes(s, d);
    pw_mpm_for_homes_by_colour(s, diagonal_home, d);
}
