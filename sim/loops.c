/* loops.c — parallel loops over home blocks and deterministic sums; see loops.h. */
#include "loops.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static int split_512 = 0; /* read once at load: the CPU does not change */

/* AMD family 19h (Zen 3 and 4; only Zen 4 has AVX-512) runs each 512-bit operation as
 * two 256-bit halves, so the wide forms' fewer instructions buy nothing there, and
 * their wider shuffles and folds cost: on the AMD EPYC of that family measured, the
 * narrow forms were faster in the forces scatter, P2G and G2P (sim/docs/step-speed.md,
 * second round). Family 1Ah (Zen 5) and Intel's AVX-512 cores keep the wide forms. */
__attribute__((constructor)) static void detect_split_512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    int amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u; /* "AuthenticAMD" */
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return;
    unsigned family = ((a >> 8) & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
    split_512 = family == 0x19;
#endif
}

int pw_cpu_splits_512(void) { return split_512; }

/* Home loops: each thread owns a run of homes and steals from the others' runs' ends.
 *
 * A run is a stretch of homes in key order, cut so that the runs hold about equal
 * particle counts. The particles are stored in key order and a home's grid blocks are
 * those of its neighbours in key order, so a thread that keeps one region of space in
 * every loop and every colour reads its particles in stream order and finds its nodes in
 * its own cache. A shared queue (dynamic schedule) sent the same node lines back and
 * forth between the cores. Runs alone left a thread waiting at each colour's barrier,
 * since a run's cost is not quite its particle count, so a thread that finishes its run
 * takes homes from the far end of another run, one at a time, where its owner would
 * come last. Which thread runs a home never changes a sum: homes of one colour write
 * disjoint nodes (grid.h), and gathers write only their own particles. */
typedef struct pw_home_run {
    _Alignas(64) _Atomic uint64_t span; /* [front, back) of the run's untaken homes, as
                                           front | back << 32 (one line per run) */
} home_run;

home_run *pw_mpm_home_runs_create(int threads)
{
    size_t bytes = 8 * (size_t)threads * sizeof(home_run); /* (a multiple of 64) */
    return aligned_alloc(_Alignof(home_run), bytes);
}

/* Takes the front (owner) or back (thief) home of r into *j; 0 when r is empty.
 *
 * Relaxed order is enough: the span carries no data, it only decides which thread runs
 * a home. A compare-and-swap on one atomic object hands each home to exactly one thread
 * in any memory order (a read-modify-write always reads the span's latest value).
 * Everything a home reads was written before the parallel region or before the barrier
 * that ended the previous colour, and the spans were set before the barrier that ends
 * the run-cutting `single` or `for`; an OpenMP barrier implies a flush, so those
 * barriers publish both. What a home writes (its colour's disjoint nodes, or its own
 * particles) is read only after the next barrier. A stale first load costs a retry,
 * never a wrong answer: within one loop a span only shrinks, so it reads empty only
 * when it is. */
static int take(home_run *r, int back, uint32_t *j)
{
    uint64_t v = atomic_load_explicit(&r->span, memory_order_relaxed);
    for (;;) {
        uint32_t f = (uint32_t)v, b = (uint32_t)(v >> 32);
        if (f >= b) return 0;
        uint64_t next = back ? ((uint64_t)(b - 1) << 32 | f) : ((uint64_t)b << 32 | (f + 1));
        if (atomic_compare_exchange_weak_explicit(&r->span, &v, next, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *j = back ? b - 1 : f;
            return 1;
        }
    }
}

/* Cuts order[lo, hi) (or lo..hi when order is NULL) into nt runs of about equal particle
 * counts: a home goes to the run its middle particle falls in. */
static void cut_runs(const pw_grid *g, const uint32_t *order, size_t lo, size_t hi, int nt,
                     home_run *runs)
{
    size_t total = 0;
    for (size_t j = lo; j < hi; j++) {
        uint32_t k = order ? order[j] : (uint32_t)j;
        total += g->start[k + 1] - g->start[k];
    }
    size_t before = 0, j = lo;
    for (int t = 0; t < nt; t++) {
        size_t first = j;
        for (; j < hi; j++) {
            uint32_t k = order ? order[j] : (uint32_t)j;
            size_t count = g->start[k + 1] - g->start[k];
            if ((2 * before + count) * (size_t)nt >= 2 * total * (size_t)(t + 1) && t < nt - 1)
                break;
            before += count;
        }
        atomic_init(&runs[t].span, (uint64_t)first | (uint64_t)j << 32);
    }
}

/* Calls fn for every home of order[lo, hi) (homes lo..hi when order is NULL), this
 * thread's run first, then what it can take from the others' runs. */
static void run_homes(pw_sim *s, pw_home_fn fn, void *ctx, const uint32_t *order,
                      home_run *runs, int t, int nt)
{
    uint32_t j;
    for (int pass = 0; pass < 2; pass++) {
        if (pass != s->p.steal_first) /* own run: pass 0, unless the sim says 1 */
            while (take(&runs[t], 0, &j)) fn(s, order ? order[j] : j, ctx);
        else
            for (int d = 1; d < nt; d++)
                while (take(&runs[(t + d) % nt], 1, &j)) fn(s, order ? order[j] : j, ctx);
    }
}

void pw_mpm_for_homes(pw_sim *s, pw_home_fn fn, void *ctx)
{
    home_run *runs = s->home_runs;
#pragma omp parallel num_threads(s->threads)
    {
        int nt = omp_get_num_threads();
#pragma omp single
        cut_runs(&s->grid, NULL, 0, s->grid.n_home, nt, runs);
        run_homes(s, fn, ctx, NULL, runs, omp_get_thread_num(), nt);
    }
}

void pw_mpm_for_homes_by_colour(pw_sim *s, pw_home_fn fn, void *ctx)
{
    const pw_grid *g = &s->grid;
    home_run *runs = s->home_runs;
#pragma omp parallel num_threads(s->threads)
    {
        int nt = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int colour = 0; colour < 8; colour++)
            cut_runs(g, g->colour_order, g->colour_start[colour], g->colour_start[colour + 1], nt,
                     runs + colour * nt);
        for (int colour = 0; colour < 8; colour++) {
            run_homes(s, fn, ctx, g->colour_order, runs + colour * nt, omp_get_thread_num(), nt);
#pragma omp barrier /* (the next colour writes nodes this one wrote) */
        }
    }
}

double pw_mpm_sum(const pw_sim *s, const double *a, size_t n)
{
    long nc = (long)pw_sum_chunks(n);
    double *part = s->partial;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (long c = 0; c < nc; c++) {
        size_t lo = (size_t)c * PW_SUM_CHUNK, hi = lo + PW_SUM_CHUNK < n ? lo + PW_SUM_CHUNK : n;
        double acc = 0;
        for (size_t k = lo; k < hi; k++) acc += a[k];
        part[c] = acc;
    }
    return pw_sum_in_order(part, (size_t)nc);
}
