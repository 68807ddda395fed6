/* Property: "the same bits on every target", tested rather than remembered.
 * This test is linked with pw_sim_plain, the solver built with -DPW_NO_TARGET_CLONES:
 * no AVX-512 or AVX2 clones of the stencil loops, only the narrow kernels at the
 * compiler's baseline (SSE2 on x86-64). It runs the snowball of sim_deterministic_threads
 * (APIC and PIC/FLIP, 2 threads) and compares its caches byte for byte with the ones the
 * default build wrote there (on an AVX-512 machine: the wide kernels of the AVX-512
 * clone). ctest runs sim_deterministic_threads first (a fixture). */
#include "mpm_internal.h" /* (also names the library this test links) */
#include "sim_ball_fixture.h"

int main(void)
{
#if !defined(PW_NO_TARGET_CLONES)
#error "build this test against pw_sim_plain (CMakeLists.txt)"
#endif
    for (int transfer = 0; transfer < 2; transfer++) {
        char ref[512], mine[512];
        ball_cache_path(ref, sizeof ref, transfer, "t1");
        ball_cache_path(mine, sizeof mine, transfer, "plain");
        ball_run(2, (pw_transfer)transfer, mine);
        CHECK(fixture_same_file(ref, mine), "transfer %d: the build without target clones "
              "writes other bytes than the default build (%s vs %s)", transfer, mine, ref);
    }
    return check_done("sim_same_bits_without_clones");
}
