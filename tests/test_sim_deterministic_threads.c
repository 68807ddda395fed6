/* Property: the solver's result does not depend on the thread count, nor on the form of
 * the stencil kernels. A snowball (APIC and PIC/FLIP) hits a floor collider and a wall
 * with stress, plasticity and the semi-implicit solve; after 10 steps the cache files
 * written with 1 and 2 threads, and with 2 threads on the narrow kernel forms (box.h;
 * on AVX-512 machines the wide ones run otherwise) are identical byte for byte. Exact
 * equality is right: every scatter runs by colour in a fixed order, every dot product is
 * summed in fixed chunks (no float atomics, no OpenMP float reductions), and the two
 * kernel forms do the same lane operations in the same order. */
#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"
#include "pw_file.h"

static int run(int threads, pw_transfer transfer, const char *path)
{
    pw_error err = {0};
    double h = 0.04;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.6, -0.2, -0.6), v3(0.6, 0.8, 0.6));
    p.gravity = v3(0, -9.81, 0);
    p.threads = threads;
    p.transfer = transfer;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    s->particles_per_thread = 64; /* use every thread even on this small body */
    pw_collider_desc floor = {0};
    pw_shape_init(&floor.shape, PW_SHAPE_HALFSPACE);
    floor.shape.center = v3(0, 0, 0);
    floor.shape.normal = v3(0, 1, 0);
    floor.friction = 0.3;
    CHECK(pw_sim_add_collider(s, &floor, &err) == PW_OK, "collider: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.1 : 0.12;
    fixture_default(&b, v3(0.4 - 2 * r, 0.05, -r), v3(0.4, 0.05 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(2, -3, 0.5);
    b.omega = v3(0, 0, 5);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    CHECK(pw_sim_advance_to(s, 0.005, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
    CHECK(pw_sim_save(s, path, 1, 42, &err) == PW_OK, "save: %s", err.msg);
    pw_sim_stats st;
    pw_sim_get_stats(s, &st);
    printf("threads %d (used %d), transfer %d: %zu particles, %llu steps, %zu blocks, mean CR %.1f\n",
           threads, s->threads, (int)transfer, st.particles, (unsigned long long)st.steps,
           st.active_blocks, st.cr_iterations_mean);
    pw_sim_destroy(s);
    return 0;
}

int main(void)
{
    char p1[512], p2[512];
    for (int transfer = 0; transfer < 2; transfer++) {
        snprintf(p1, sizeof p1, "%s/sim_det_%d_t1.pwc", POWDER_TEST_TMP, transfer);
        snprintf(p2, sizeof p2, "%s/sim_det_%d_t2.pwc", POWDER_TEST_TMP, transfer);
        run(1, (pw_transfer)transfer, p1);
        run(2, (pw_transfer)transfer, p2);
        CHECK(fixture_same_file(p1, p2), "%d.1 caches differ between 1 and 2 threads", transfer + 1);
        snprintf(p2, sizeof p2, "%s/sim_det_%d_narrow.pwc", POWDER_TEST_TMP, transfer);
        pw_box_force_narrow = 1;
        run(2, (pw_transfer)transfer, p2);
        pw_box_force_narrow = 0;
        CHECK(fixture_same_file(p1, p2), "%d.2 caches differ between the wide and narrow kernels",
              transfer + 1);
    }
    return check_done("sim_deterministic_threads");
}
