/* Property: a retaken step leaves no trace. A step whose first attempt is refused and
 * retaken at half its dt leaves the particles with the same bytes as a run that took
 * that step at half its dt from the start (the refused attempt's solve, warm start and
 * counters are all undone), and the steps after grow back alike. Exact equality is the
 * right tolerance: both runs are deterministic and differ only by the refused attempt.
 * Also, with the retake in the run:
 *  2. the same bytes on 1 and 2 threads;
 *  3. the same bytes when the run is resumed from a cache written at a frame after the
 *     retake, and from one before it;
 *  4. the frame's step log counts the retake, its reason and its bound, and the steps
 *     after it grow back by doubling (dt at most 2, 4, ... times the retaken one);
 *  5. params: courant and retake_limit out of range are refused, naming the field. */
#include <string.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"
#include "pw_sim.h"

#define FPS 100.0
#define RETAKE_STEP 30 /* in frame 2 (20 steps a frame at dt_max 5e-4) */

static pw_sim *make(pw_transfer transfer, int threads)
{
    pw_error err = {0};
    pw_sim_params p;
    double h = 0.04;
    fixture_params(&p, h, v3(-0.6, -0.2, -0.6), v3(0.6, 0.8, 0.6));
    p.gravity = v3(0, -9.81, 0);
    p.transfer = transfer;
    p.threads = threads;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    s->particles_per_thread = 64; /* (two threads run on this small ball) */
    CHECK(fixture_ground(s, 0.5, &err) == PW_OK, "collider: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.1 : 0.15;
    fixture_default(&b, v3(-r, 0.02, -r), v3(r, 0.02 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(1, -3, 0);
    b.omega = v3(2, 0, 4);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    return s;
}

/* 1 when every particle field of a and b holds the same bytes */
static int same_particles(const pw_sim *a, const pw_sim *b)
{
    const pw_particles *pa = &a->pt, *pb = &b->pt;
    if (pa->n != pb->n) return 0;
    size_t n = pa->n;
    return !memcmp(pa->x, pb->x, n * sizeof *pa->x) && !memcmp(pa->v, pb->v, n * sizeof *pa->v) &&
           !memcmp(pa->Fe, pb->Fe, n * sizeof *pa->Fe) && !memcmp(pa->Fp, pb->Fp, n * sizeof *pa->Fp) &&
           !memcmp(pa->V0, pb->V0, n * sizeof *pa->V0) && !memcmp(pa->id, pb->id, n * sizeof *pa->id) &&
           (!pa->C || !memcmp(pa->C, pb->C, n * sizeof *pa->C)) && a->t == b->t &&
           a->steps == b->steps;
}

static void advance(pw_sim *s, int f0, int f1)
{
    pw_error err = {0};
    for (int f = f0; f <= f1; f++)
        CHECK(pw_sim_advance_to(s, f / FPS, NULL, NULL, &err) == PW_OK, "advance to frame %d: %s", f,
              err.msg);
}

int main(void)
{
    pw_error err = {0};
    char path[512];
    for (int transfer = 0; transfer < 2; transfer++) {
        /* 1. refused and retaken, against short from the start */
        pw_sim *a = make((pw_transfer)transfer, 1), *b = make((pw_transfer)transfer, 1);
        a->test_retake_step = b->test_retake_step = RETAKE_STEP;
        a->test_retake_refuse = 1;
        b->test_retake_refuse = 0;
        advance(a, 1, 2);
        advance(b, 1, 2);
        pw_sim_step_log la, lb;
        pw_sim_get_step_log(a, &la);
        pw_sim_get_step_log(b, &lb);
        printf("1. transfer %d: frame 2: %llu steps, dt %.4g-%.4g s, retakes (test) %llu / %llu\n",
               transfer, (unsigned long long)la.steps, la.dt_min, la.dt_max,
               (unsigned long long)la.retakes[PW_RETAKE_TEST],
               (unsigned long long)lb.retakes[PW_RETAKE_TEST]);
        CHECK(same_particles(a, b), "1. transfer %d: the retaken run differs from the short one",
              transfer);
        /* 4. the log */
        CHECK(la.retakes[PW_RETAKE_TEST] == 1 && lb.retakes[PW_RETAKE_TEST] == 0,
              "4. retakes counted %llu, %llu", (unsigned long long)la.retakes[PW_RETAKE_TEST],
              (unsigned long long)lb.retakes[PW_RETAKE_TEST]);
        CHECK(la.set_by[PW_DT_BY_RETAKE] >= 2, "4. steps set by the retake: %llu",
              (unsigned long long)la.set_by[PW_DT_BY_RETAKE]);
        CHECK(la.dt_min < 0.5 * la.dt_max * 1.000001, "4. dt %.4g-%.4g: no half step", la.dt_min,
              la.dt_max);
        advance(a, 3, 3);
        pw_sim_get_step_log(a, &la);
        CHECK(la.retakes[PW_RETAKE_TEST] == 0 && la.set_by[PW_DT_BY_RETAKE] == 0,
              "4. frame 3 still retakes (%llu) or grows back (%llu)",
              (unsigned long long)la.retakes[PW_RETAKE_TEST],
              (unsigned long long)la.set_by[PW_DT_BY_RETAKE]);

        /* 2. two threads */
        pw_sim *c = make((pw_transfer)transfer, 2);
        c->test_retake_step = RETAKE_STEP;
        c->test_retake_refuse = 1;
        advance(c, 1, 3);
        CHECK(same_particles(a, c), "2. transfer %d: 2 threads differ from 1", transfer);

        /* 3. resumed after the retake's frame, and before it */
        for (int at = 1; at <= 2; at++) {
            pw_sim *d = make((pw_transfer)transfer, 1);
            d->test_retake_step = RETAKE_STEP;
            d->test_retake_refuse = 1;
            advance(d, 1, at);
            snprintf(path, sizeof path, "%s/sim_retake_%d_f%d.pwc", POWDER_TEST_TMP, transfer, at);
            CHECK(pw_sim_save(d, path, at, 7, &err) == PW_OK, "save: %s", err.msg);
            pw_sim_destroy(d);
            pw_sim *e = make((pw_transfer)transfer, 1);
            CHECK(pw_sim_load(e, path, &err) == PW_OK, "load: %s", err.msg);
            e->test_retake_step = RETAKE_STEP;
            e->test_retake_refuse = 1;
            advance(e, at + 1, 3);
            CHECK(same_particles(a, e), "3. transfer %d: resumed after frame %d differs", transfer,
                  at);
            pw_sim_destroy(e);
        }
        pw_sim_destroy(a);
        pw_sim_destroy(b);
        pw_sim_destroy(c);
    }

    /* 5. the keys' ranges */
    pw_sim_params p;
    pw_sim_params_default(&p);
    p.courant = -1;
    CHECK(pw_sim_params_check(&p, &err) == PW_EINVAL && strstr(err.msg, "courant"),
          "5.1 courant -1: %s", err.msg);
    printf("5.1 %s\n", err.msg);
    pw_sim_params_default(&p);
    p.retake_limit = PW_RETAKE_LIMIT_MAX + 1;
    CHECK(pw_sim_params_check(&p, &err) == PW_EINVAL && strstr(err.msg, "retake_limit"),
          "5.2 retake_limit: %s", err.msg);
    printf("5.2 %s\n", err.msg);
    return check_done("sim_retake_same_bytes");
}
