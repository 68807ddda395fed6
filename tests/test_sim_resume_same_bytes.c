/* Property: a frame cache holds the full solver state. Running 4 frames straight and
 * running 2 frames, saving, loading into a fresh solver and running 2 more give frame-4
 * caches that are identical byte for byte (APIC, so the affine C is part of the state,
 * and PIC/FLIP). Exact equality is the right tolerance: the step is deterministic and
 * depends only on what the cache stores. Also:
 *  3. loading into a solver with a different h is refused (PW_EINVAL);
 *  4. loading a missing file fails with an error that names it. */
#include "check.h"
#include "mpm_fixture.h"
#include "pw_sim.h"
#include "pw_file.h"

#define FPS 100.0

static pw_sim *make(pw_transfer transfer, double h)
{
    pw_error err = {0};
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.6, -0.2, -0.6), v3(0.6, 0.8, 0.6));
    p.gravity = v3(0, -9.81, 0);
    p.transfer = transfer;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    CHECK(fixture_ground(s, 0.5, &err) == PW_OK, "collider: %s", err.msg);
    return s;
}

static void add_ball(pw_sim *s, double h)
{
    pw_error err = {0};
    fixture_body b;
    double r = fixture_sanitized() ? 0.1 : 0.15;
    fixture_default(&b, v3(-r, 0.02, -r), v3(r, 0.02 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(1, -3, 0);
    b.omega = v3(2, 0, 4);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
}

int main(void)
{
    double h = 0.04;
    pw_error err = {0};
    char straight[512], half[512], resumed[512];
    for (int transfer = 0; transfer < 2; transfer++) {
        snprintf(straight, sizeof straight, "%s/sim_resume_%d_straight%s.pwc", POWDER_TEST_TMP, transfer,
                 fixture_kernel_tag());
        snprintf(half, sizeof half, "%s/sim_resume_%d_f2%s.pwc", POWDER_TEST_TMP, transfer,
                 fixture_kernel_tag());
        snprintf(resumed, sizeof resumed, "%s/sim_resume_%d_resumed%s.pwc", POWDER_TEST_TMP, transfer,
                 fixture_kernel_tag());
        pw_sim *a = make((pw_transfer)transfer, h);
        add_ball(a, h);
        for (int f = 1; f <= 4; f++)
            CHECK(pw_sim_advance_to(a, f / FPS, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
        CHECK(pw_sim_save(a, straight, 4, 7, &err) == PW_OK, "save: %s", err.msg);

        pw_sim *b = make((pw_transfer)transfer, h);
        add_ball(b, h);
        for (int f = 1; f <= 2; f++)
            CHECK(pw_sim_advance_to(b, f / FPS, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
        CHECK(pw_sim_save(b, half, 2, 7, &err) == PW_OK, "save: %s", err.msg);
        pw_sim_destroy(b);

        pw_sim *c = make((pw_transfer)transfer, h);
        CHECK(pw_sim_load(c, half, &err) == PW_OK, "load: %s", err.msg);
        for (int f = 3; f <= 4; f++)
            CHECK(pw_sim_advance_to(c, f / FPS, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
        CHECK(pw_sim_save(c, resumed, 4, 7, &err) == PW_OK, "save: %s", err.msg);
        pw_sim_stats sa, sc;
        pw_sim_get_stats(a, &sa);
        pw_sim_get_stats(c, &sc);
        printf("%d. transfer %d: %zu particles, straight %llu steps, resumed %llu steps, mean CR %.2f/%.2f\n",
               transfer + 1, transfer, sa.particles, (unsigned long long)sa.steps,
               (unsigned long long)sc.steps, sa.cr_iterations_mean, sc.cr_iterations_mean);
        CHECK(fixture_same_file(straight, resumed), "%d. resumed frame 4 differs from the straight run",
              transfer + 1);
        pw_sim_destroy(a);
        pw_sim_destroy(c);
    }
    /* 3. a cache from another grid spacing */
    pw_sim *d = make(PW_TRANSFER_APIC, 0.05);
    pw_status rc = pw_sim_load(d, half, &err);
    printf("3. load with another h: %s\n", err.msg);
    CHECK(rc == PW_EINVAL, "3. status %d", (int)rc);
    /* 4. a missing file */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/sim_resume_missing.pwc", POWDER_TEST_TMP);
    rc = pw_sim_load(d, missing, &err);
    printf("4. missing file: %s\n", err.msg);
    CHECK(rc != PW_OK && strstr(err.msg, "sim_resume_missing.pwc") != NULL, "4. status %d", (int)rc);
    CHECK(pw_sim_particle_count(d) == 0, "4. failed load changed the particles");
    pw_sim_destroy(d);
    return check_done("sim_resume_same_bytes");
}
