/* test_progress_stage_weights — the bar and the ETA weigh each stage's units by their own
 * measured cost. A job of 10 sim frames at 6 s and 10 render frames at 2 s,
 * driven on an explicit clock:
 *   1. before anything is timed the ETA is unknown (< 0), not zero;
 *   2. during the sim, units of the unmeasured render stage cost what the measured
 *      ones do (the old unit counting), so the ETA is exact for a uniform job;
 *   3. once both stages are measured, fraction and ETA are the weighted ones:
 *      after the sim and 2 render frames, fraction = (60 + 4) / (60 + 20), ETA 16 s;
 *   4. frames found done (skipped) are not timed: a resumed job whose first 5 frames
 *      were cached does not call the sim fast;
 *   5. a prior stands in for a stage's cost until that stage is measured;
 *   6. the shown fraction ("PROGRESS nn%" lines, the bar) never goes back when
 *      re-weighing lowers the fraction, and reaches 100 % exactly when the job ends;
 *   7. the reported `powder run` case: 4 sim frames at 0.5 s, then 4 render frames of
 *      1 s whose first 0.3 s (reading, rasterizing) come before the first of 50 tiles.
 *      At every tile the ETA lies within a factor 2 of the true time left (it said
 *      minutes for 4 s: the first tile's 0.3 s was read as 2 % of a frame), and the
 *      shown fraction never drops (it fell from 50 % to 2 %). */
#include "check.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

static FILE *quiet_sink(pw_progress *p)
{
    FILE *f = tmpfile();
    pw_progress_init(p, f ? f : stderr, 0, 20, "frames");
    p->mode = PW_PROGRESS_LINES;
    return f;
}

int main(void)
{
    pw_progress p;
    FILE *f = quiet_sink(&p);
    pw_progress_add_stage(&p, 10, 0);
    pw_progress_add_stage(&p, 10, 0);
    double t = p.t_start;

    /* 1 */
    CHECK(pw_progress_eta(&p) < 0, "ETA before any work is %g, not unknown", pw_progress_eta(&p));

    /* 2: 3 sim frames at 6 s; the render stage is priced like the sim */
    for (int k = 1; k <= 3; k++) pw_progress_update_at(&p, k, "sim", t += 6);
    CHECK_NEAR(pw_progress_fraction(&p), 3.0 / 20, 1e-12, "fraction after 3 sim frames");
    CHECK_NEAR(pw_progress_eta(&p), 17 * 6.0, 1e-9, "ETA after 3 sim frames");

    /* 3: the rest of the sim, then 2 render frames at 2 s in tile-sized pieces */
    for (int k = 4; k <= 10; k++) pw_progress_update_at(&p, k, "sim", t += 6);
    for (int k = 0; k < 8; k++) pw_progress_update_at(&p, 10 + 0.25 * (k + 1), "render", t += 0.5);
    CHECK_NEAR(pw_progress_fraction(&p), 64.0 / 80, 1e-12, "weighted fraction");
    CHECK_NEAR(pw_progress_eta(&p), 8 * 2.0, 1e-9, "weighted ETA");
    /* the unweighted count would say 12/20 done and 8 frames at the mean 64/12 s */
    CHECK(fabs(pw_progress_eta(&p) - 8 * 64.0 / 12) > 20, "ETA is the unit count's");

    /* 4: a resume that finds 5 sim frames cached */
    pw_progress r;
    FILE *g = quiet_sink(&r);
    pw_progress_add_stage(&r, 10, 0);
    pw_progress_add_stage(&r, 10, 0);
    t = r.t_start + 1;
    pw_progress_skip_at(&r, 5, "sim", t);
    pw_progress_update_at(&r, 6, "sim", t += 6);
    CHECK_NEAR(pw_progress_eta(&r), 14 * 6.0, 1e-9, "ETA after a resume");
    CHECK_NEAR(pw_progress_fraction(&r), 6.0 / 20, 1e-12, "fraction after a resume");

    /* 5: a prior of 1 s a render frame while only the sim is measured */
    pw_progress q;
    FILE *h = quiet_sink(&q);
    pw_progress_add_stage(&q, 10, 0);
    pw_progress_add_stage(&q, 10, 1.0);
    t = q.t_start;
    pw_progress_update_at(&q, 1, "sim", t += 6);
    CHECK_NEAR(pw_progress_eta(&q), 9 * 6.0 + 10 * 1.0, 1e-9, "ETA with a render prior");

    /* 6: the rest of the job; the printed percentages only grow, up to 100 */
    double shown = pw_progress_shown(&p);
    int monotone = 1;
    for (int k = 8; k < 40; k++) {
        pw_progress_update_at(&p, 10 + 0.25 * (k + 1), "render", t += 0.5);
        monotone &= pw_progress_shown(&p) >= shown;
        shown = pw_progress_shown(&p);
    }
    CHECK(monotone, "the shown fraction went back");
    CHECK_NEAR(shown, 1.0, 1e-12, "shown fraction at the end");
    if (f) {
        rewind(f);
        char line[64];
        int last = -1, lines = 0, grew = 1;
        while (fgets(line, sizeof line, f)) {
            int v;
            if (sscanf(line, "PROGRESS %d%%", &v) != 1) continue;
            grew &= v > last;
            last = v;
            lines++;
        }
        CHECK(lines > 5 && grew, "%d PROGRESS lines, increasing: %d", lines, grew);
        CHECK(last == 100, "last printed %d%%, not 100%%", last);
        fclose(f);
    }
    /* 7 */
    pw_progress u;
    FILE *k7 = quiet_sink(&u);
    u.total = 8;
    pw_progress_add_stage(&u, 4, 0);
    pw_progress_add_stage(&u, 4, 0);
    t = u.t_start;
    for (int k = 1; k <= 4; k++) pw_progress_update_at(&u, k, "sim", t += 0.5);
    double end = t + 4 * 1.0, worst = 1, drop = 0, before = pw_progress_shown(&u);
    for (int fr = 0; fr < 4; fr++) {
        double t0 = t;
        for (int tile = 1; tile <= 50; tile++) {
            t = t0 + 0.3 + 0.7 * tile / 50.0;
            pw_progress_update_at(&u, 4 + fr + tile / 50.0, "render", t);
            double eta = pw_progress_eta(&u), truth = end - t;
            if (truth > 0.05) worst = fmax(worst, fmax(eta / truth, truth / eta));
            drop = fmax(drop, before - pw_progress_shown(&u));
            before = pw_progress_shown(&u);
        }
        t = t0 + 1.0;
    }
    printf("render after sim: ETA within a factor %.2f of the truth, largest drop of the "
           "shown fraction %.3g\n", worst, drop);
    CHECK(worst <= 2, "the ETA was %.1fx off the time really left", worst);
    CHECK(drop == 0, "the shown fraction went back by %.3g", drop);
    if (k7) fclose(k7);
    if (g) fclose(g);
    if (h) fclose(h);
    return check_done("progress_stage_weights");
}
