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

int main(void)
{
    char p1[512], p2[512];
    pw_box_split_512 = 0; /* the wide forms wherever AVX-512 runs */
    for (int transfer = 0; transfer < 2; transfer++) {
        ball_cache_path(p1, sizeof p1, transfer, "t1");
        ball_cache_path(p2, sizeof p2, transfer, "t2");
        ball_run(1, (pw_transfer)transfer, p1);
        ball_run(2, (pw_transfer)transfer, p2);
        CHECK(fixture_same_file(p1, p2), "%d.1 caches differ between 1 and 2 threads",
              transfer + 1);
        /* three threads: runs of homes that do not halve; and, since whether a thread takes
         * homes from the others' runs depends on timing, three threads that each take
         * from the others first (loops.c) */
        ball_cache_path(p2, sizeof p2, transfer, "t3");
        ball_run(3, (pw_transfer)transfer, p2);
        CHECK(fixture_same_file(p1, p2), "%d.3 caches differ between 1 and 3 threads",
              transfer + 1);
        ball_cache_path(p2, sizeof p2, transfer, "steal");
        pw_loops_steal_first = 1;
        ball_run(3, (pw_transfer)transfer, p2);
        pw_loops_steal_first = 0;
        CHECK(fixture_same_file(p1, p2), "%d.4 caches differ with homes taken from other runs",
              transfer + 1);
        ball_cache_path(p2, sizeof p2, transfer, "narrow");
        pw_box_force_narrow = 1;
        ball_run(2, (pw_transfer)transfer, p2);
        pw_box_force_narrow = 0;
        CHECK(fixture_same_file(p1, p2), "%d.2 caches differ between the wide and narrow kernels",
              transfer + 1);
    }
    return check_done("sim_deterministic_threads");
}
