/* Property: the two forms of each double stencil kernel of sim/box.h, wide (two nodes
 * of a row in one 8-wide vector; the AVX-512 clone runs it where 512-bit operations
 * are whole) and narrow (two 4-wide halves; everywhere else, AMD Zen 4 included), give
 * the same bits, element by element: the gradient gather G (9 values), the scatter of
 * B grad w into a box (all 512 nodes of it, so also nothing written off the stencil),
 * the value gather (4 values) and the value scatter (512 nodes), for the same box, the
 * same particle and the same B or value. Tolerance zero: box.h states that the forms do
 * the same IEEE operations in the same order per lane (sums over x as the halves of
 * nodes 0 + 2 and 1 + 3, folded once), and sim/ is built with -ffp-contract=off (this
 * test too: CMakeLists.txt); so any difference is a form that drifted from the other.
 * sim_deterministic_threads checks the same end to end, on whole runs.
 *
 * Checked on each instruction set the kernels are cloned for that this CPU runs
 * (AVX-512, AVX2, the baseline), 4000 particles each: the stencil's place in the box
 * (offsets 0-3 per axis) at random, weights expanded from a random place (half the
 * cases) or arbitrary (P2G and G2P also pass k N_k as the derivative weights), node
 * values and B of mixed signs and magnitudes (1e-3 to 1e3), the pad lane included; for
 * both kernels (the cubic's stencil of 4 nodes a row and column, the quadratic's of 3). */
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "check.h"
#include "random_fixture.h"

typedef struct {
    pw_box box;          /* node values, gathered from and scattered into */
    pw_box out[2];       /* the scatter's result per form: [0] narrow, [1] wide */
    pw_pstep q;
    int W;               /* the kernel's stencil width (pw_kernel.h) */
    double B[9];
    pw_vec4 val;
} kcase;

/* 1 where the forms differ: gather, scatter, value gather, value scatter */
typedef struct {
    int G, scatter, value, scatter_value;
} kdiff;

/* Both forms of every kernel on one case (inlined into each instruction set's caller). */
BOX_INLINE void compare_forms_w(kcase *c, kdiff *d, const int W)
{
    const pw_vec4 *in = &c->box.node[box_base(&c->q)];
    double G[2][9];
    pw_vec4 v[2];
    for (int wide = 0; wide < 2; wide++) {
        box_gather(wide, in, &c->q, G[wide], W);
        box_gather_value(wide, in, &c->q, &v[wide], W);
    }
    d->G = memcmp(G[0], G[1], sizeof G[0]) != 0;
    d->value = memcmp(&v[0], &v[1], sizeof v[0]) != 0;
    for (int wide = 0; wide < 2; wide++) {
        c->out[wide] = c->box;
        box_scatter(wide, &c->out[wide].node[box_base(&c->q)], &c->q, c->B, W);
    }
    d->scatter = memcmp(&c->out[0], &c->out[1], sizeof c->out[0]) != 0;
    for (int wide = 0; wide < 2; wide++) {
        c->out[wide] = c->box;
        box_scatter_value(wide, &c->out[wide].node[box_base(&c->q)], &c->q, &c->val, W);
    }
    d->scatter_value = memcmp(&c->out[0], &c->out[1], sizeof c->out[0]) != 0;
}

BOX_INLINE void compare_forms(kcase *c, kdiff *d)
{
    if (c->W == PW_STENCIL_QUADRATIC)
        compare_forms_w(c, d, PW_STENCIL_QUADRATIC);
    else
        compare_forms_w(c, d, PW_STENCIL_CUBIC);
}

#if defined(BOX_HAVE_CLONES)
__attribute__((target("avx512f"))) static void compare_avx512(kcase *c, kdiff *d)
{
    compare_forms(c, d);
}
__attribute__((target("avx2"))) static void compare_avx2(kcase *c, kdiff *d)
{
    compare_forms(c, d);
}
#endif
static void compare_base(kcase *c, kdiff *d) { compare_forms(c, d); }

/* a value of random sign and magnitude 1e-3 to 1e3 */
static double mixed(unsigned long long *st)
{
    return rnd_range(st, -1, 1) * pow(10.0, rnd_range(st, -3, 3));
}

static void draw(kcase *c, unsigned long long *st)
{
    for (int i = 0; i < BOX_NODES; i++) {
        pw_vec4 a = {mixed(st), mixed(st), mixed(st), mixed(st)};
        c->box.node[i] = a;
    }
    pw_ploc l;
    memset(&l, 0, sizeof l);
    for (int ax = 0; ax < 3; ax++) {
        l.fu[ax] = pw_stencil_t_origin(c->W) + rnd_range(st, 0, 1);
        l.off[ax] = (uint8_t)(rnd_uniform(st) * 4);
    }
    pw_pstep_expand(&l, 1.0 / rnd_range(st, 0.005, 0.05), &c->q, c->W);
    if (rnd_uniform(st) < 0.5) /* arbitrary weights */
        for (int ax = 0; ax < 3; ax++)
            for (int k = 0; k < 4; k++) {
                c->q.w[ax][k] = mixed(st);
                c->q.dw[ax][k] = mixed(st);
            }
    for (int k = 0; k < 9; k++) c->B[k] = mixed(st);
    pw_vec4 v = {mixed(st), mixed(st), mixed(st), mixed(st)};
    c->val = v;
}

static void check_isa(void (*compare)(kcase *, kdiff *), const char *isa, kcase *c)
{
    unsigned long long st = 777;
    int n = 4000, bad[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; k++) {
        c->W = k % 2 ? PW_STENCIL_QUADRATIC : PW_STENCIL_CUBIC;
        draw(c, &st);
        kdiff d;
        compare(c, &d);
        bad[0] += d.G;
        bad[1] += d.scatter;
        bad[2] += d.value;
        bad[3] += d.scatter_value;
    }
    printf("%s: %d particles (half each kernel); forms differ in gather %d, scatter %d, value gather %d, value "
           "scatter %d\n", isa, n, bad[0], bad[1], bad[2], bad[3]);
    CHECK(bad[0] == 0, "%s: gather: wide and narrow differ for %d of %d particles", isa, bad[0], n);
    CHECK(bad[1] == 0, "%s: scatter: wide and narrow differ for %d of %d particles", isa, bad[1], n);
    CHECK(bad[2] == 0, "%s: value gather: wide and narrow differ for %d of %d particles", isa,
          bad[2], n);
    CHECK(bad[3] == 0, "%s: value scatter: wide and narrow differ for %d of %d particles", isa,
          bad[3], n);
}

int main(void)
{
    kcase *c = malloc(sizeof *c);
    CHECK(c != NULL, "out of memory");
    if (!c) return check_done("box_wide_narrow_same_bits");
#if defined(BOX_HAVE_CLONES)
    if (__builtin_cpu_supports("avx512f"))
        check_isa(compare_avx512, "avx512f", c);
    else
        printf("(no AVX-512 on this CPU: that clone not checked)\n");
    if (__builtin_cpu_supports("avx2"))
        check_isa(compare_avx2, "avx2", c);
    else
        printf("(no AVX2 on this CPU: that clone not checked)\n");
#endif
    check_isa(compare_base, "baseline", c);
    free(c);
    return check_done("box_wide_narrow_same_bits");
}
