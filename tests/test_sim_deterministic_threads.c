/* Property: the solver's result does not depend on the thread count, nor on the form of
 * the stencil kernels. A snowball (APIC and PIC/FLIP) hits a floor collider and a wall
 * with stress, plasticity and the semi-implicit solve; after 10 steps the cache files
 * written with 1, 2 and 3 threads, and with 2 threads on the narrow kernel forms (box.h;
 * the other runs take the wide ones on any AVX-512 machine, including those that split
 * 512-bit operations and would pick the narrow forms) are identical byte for byte. Exact
 * equality is right: every scatter runs by colour in a fixed order, every dot product is
 * summed in fixed chunks (no float atomics, no OpenMP float reductions), and the two
 * kernel forms do the same lane operations in the same order. */
#include "mpm_internal.h" /* (also names the library this test links) */
#include "sim_ball_fixture.h"

/* Runs the ball on threads threads into the file tagged tag and checks it against ref. */
static void check_same(const char *ref, int threads, int transfer, const char *tag,
                       const char *what)
{
    char path[512];
    ball_cache_path(path, sizeof path, transfer, tag);
    ball_run(threads, (pw_transfer)transfer, path);
    CHECK(fixture_same_file(ref, path), "%d (%s): caches differ %s", transfer + 1, tag, what);
}

int main(void)
{
    char p1[512];
    ball_kernel_width = 2; /* the wide forms wherever AVX-512 runs */
#if defined(__x86_64__)
    int avx512 = __builtin_cpu_supports("avx512f");
#else
    int avx512 = 0;
#endif
    /* say what the wide/narrow comparison compares on this CPU */
    printf("sim_deterministic_threads: %s\n",
           avx512 ? "AVX-512 runs: the wide kernel forms are compared with the narrow ones"
                  : "no AVX-512 here: the wide forms cannot run, so the \"narrow\" runs repeat "
                    "the narrow ones (box_wide_narrow_same_bits compares the forms directly)");
    for (int transfer = 0; transfer < 2; transfer++) {
        ball_cache_path(p1, sizeof p1, transfer, "t1");
        ball_run(1, (pw_transfer)transfer, p1);
        check_same(p1, 2, transfer, "t2", "between 1 and 2 threads");
        /* three threads: runs of homes that do not halve; and, since whether a thread takes
         * homes from the others' runs depends on timing, three threads that each take
         * from the others first (loops.c) */
        check_same(p1, 3, transfer, "t3", "between 1 and 3 threads");
        ball_steal_first = 1;
        check_same(p1, 3, transfer, "steal", "with homes taken from other runs");
        ball_steal_first = 0;
        ball_kernel_width = 1;
        check_same(p1, 2, transfer, "narrow", "between the wide and narrow kernels");
        ball_kernel_width = 2;
    }
    return check_done("sim_deterministic_threads");
}
