/* loops.h — how the solver's loops run (internal to sim/): over home blocks in
 * parallel, by colour where they scatter; sums in fixed chunks added in order; and the
 * switch that makes the stencil kernels take their narrow form (box.h). Everything here
 * gives the same bits for any thread count. */
#ifndef PW_LOOPS_H
#define PW_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "mpm_internal.h"

/* 1 on CPUs that run 512-bit operations as two halves, where the narrow forms of the
 * stencil kernels are the faster ones (loops.c says how it is detected and what it
 * measured): what pw_sim_params.kernel_width 0 follows. */
int pw_cpu_splits_512(void);

/* The state of the home loops' work sharing, 8 runs a thread (loops.c); NULL when out
 * of memory. Freed with free(). */
struct pw_home_run *pw_mpm_home_runs_create(int threads);

/* Calls fn(s, home, ctx) for every home block, in parallel within each of the 8
 * colours (grid.h): a scatter that writes only its home block's 2x2x2 neighbourhood
 * gets the same sums for any thread count. */
typedef void (*pw_home_fn)(const pw_sim *s, uint32_t home, void *ctx);
void pw_mpm_for_homes_by_colour(pw_sim *s, pw_home_fn fn, void *ctx);
/* Calls fn(s, home, ctx) for every home block in parallel, in any order: for gathers,
 * which write only their own particles. */
void pw_mpm_for_homes(pw_sim *s, pw_home_fn fn, void *ctx);

/* Elements per partial sum; fixed so that results ignore the thread count. */
#define PW_SUM_CHUNK 1024
/* Chunks of n elements. */
static inline size_t pw_sum_chunks(size_t n) { return (n + PW_SUM_CHUNK - 1) / PW_SUM_CHUNK; }
/* Sum of part[0..nc), in order. */
static inline double pw_sum_in_order(const double *part, size_t nc)
{
    double t = 0;
    for (size_t c = 0; c < nc; c++) t += part[c];
    return t;
}
/* Deterministic sum of a[k] over k < n (fixed chunks, combined in order); uses
 * s->partial. */
double pw_mpm_sum(const pw_sim *s, const double *a, size_t n);

#endif
