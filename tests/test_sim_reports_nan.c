/* Property: NaN or Inf never passes silently. A run that meets one stops with
 * PW_ENUMERIC and a message naming the step and the particle, and the state it leaves
 * cannot be written to a cache (the cache writer refuses NaN; no file appears).
 *  1. one particle with a NaN velocity: stopped before the first step, naming it;
 *  2. one particle with an infinite velocity component: likewise;
 *  3. one particle with an absurd Young's modulus (1e250 Pa): its stress overflows
 *     in the first solve; the error names the step and that particle (40);
 *  4. a NaN position is refused when added (PW_EINVAL, naming the particle);
 *  5. a healthy body runs without error (so 1-3 are about the bad values). */
#include "check.h"
#include "constitutive.h"
#include "mpm_fixture.h"
#include "pw_sim.h"

static pw_sim *make(pw_seeded *seeded)
{
    pw_error err = {0};
    pw_sim_params p;
    double h = 0.05;
    fixture_params(&p, h, v3(-0.5, -0.5, -0.5), v3(0.5, 0.5, 0.5));
    p.gravity = v3(0, -9.81, 0);
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    fixture_default(&b, v3(-0.15, -0.15, -0.15), v3(0.15, 0.15, 0.15), h);
    b.v = v3(0, -1, 0);
    fixture_fill(seeded, &b);
    return s;
}

static void expect_numeric(pw_sim *s, const char *what, const char *particle)
{
    pw_error err = {0};
    pw_status rc = pw_sim_advance_to(s, 0.05, NULL, NULL, &err);
    printf("%s: %s\n", what, err.msg);
    CHECK(rc == PW_ENUMERIC, "%s: status %d", what, (int)rc);
    CHECK(strstr(err.msg, "step") != NULL, "%s: message does not name the step", what);
    CHECK(strstr(err.msg, particle) != NULL, "%s: message does not name '%s'", what, particle);
    char path[512];
    snprintf(path, sizeof path, "%s/sim_nan_%s.pwc", POWDER_TEST_TMP, what);
    remove(path);
    pw_error err2 = {0};
    CHECK(pw_sim_save(s, path, 0, 0, &err2) != PW_OK, "%s: a NaN state was saved", what);
    FILE *fp = fopen(path, "rb");
    CHECK(fp == NULL, "%s: a cache file was written", what);
    if (fp) fclose(fp);
}

int main(void)
{
    pw_error err = {0};
    /* 1. NaN velocity */
    {
        pw_seeded sd = {0};
        pw_sim *s = make(&sd);
        sd.v[17] = v3(0, NAN, 0);
        CHECK(pw_sim_add_particles(s, &sd, &err) == PW_OK, "add: %s", err.msg);
        expect_numeric(s, "1.nan_velocity", "particle 17");
        fixture_free(&sd);
        pw_sim_destroy(s);
    }
    /* 2. infinite velocity */
    {
        pw_seeded sd = {0};
        pw_sim *s = make(&sd);
        sd.v[5] = v3(INFINITY, 0, 0);
        CHECK(pw_sim_add_particles(s, &sd, &err) == PW_OK, "add: %s", err.msg);
        expect_numeric(s, "2.inf_velocity", "particle 5");
        fixture_free(&sd);
        pw_sim_destroy(s);
    }
    /* 3. absurd E */
    {
        pw_seeded sd = {0};
        pw_sim *s = make(&sd);
        pw_lame(1e250, 0.2, &sd.mu0[40], &sd.lambda0[40]);
        CHECK(pw_sim_add_particles(s, &sd, &err) == PW_OK, "add: %s", err.msg);
        expect_numeric(s, "3.absurd_E", "particle 40");
        fixture_free(&sd);
        pw_sim_destroy(s);
    }
    /* 4. NaN position */
    {
        pw_seeded sd = {0};
        pw_sim *s = make(&sd);
        sd.x[3] = v3(NAN, 0, 0);
        pw_status rc = pw_sim_add_particles(s, &sd, &err);
        printf("4.nan_position: %s\n", err.msg);
        CHECK(rc == PW_EINVAL && strstr(err.msg, "particle 3") != NULL, "4. status %d", (int)rc);
        CHECK(pw_sim_particle_count(s) == 0, "4. particles were added");
        fixture_free(&sd);
        pw_sim_destroy(s);
    }
    /* 5. control */
    {
        pw_seeded sd = {0};
        pw_sim *s = make(&sd);
        CHECK(pw_sim_add_particles(s, &sd, &err) == PW_OK, "add: %s", err.msg);
        CHECK(pw_sim_advance_to(s, 0.05, NULL, NULL, &err) == PW_OK, "5. healthy run: %s", err.msg);
        fixture_free(&sd);
        pw_sim_destroy(s);
    }
    return check_done("sim_reports_nan");
}
