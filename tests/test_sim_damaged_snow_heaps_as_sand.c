/* Property: snow whose bonds are broken heaps as cohesionless snow does. Columns of
 * radius 0.06 m and height 0.12 m (h 0.01 m) under "clamp+drucker_prager", friction 40
 * degrees:
 *   intact: cohesion 300 Pa, durability_rate 0: the column stands (its top within 5 % of
 *     its height after 1 s; the cone's uniaxial strength 2 c tan(45 + phi / 2) is 1,290
 *     Pa against 470 Pa of weight at its foot);
 *   damaged: the same cohesion with durability_rate 1e4 (the largest), so the clamp's
 *     first stretch takes the durability, and with it the cohesion, to 0: the column
 *     collapses, its mean durability ends below 0.05, and its heap's flank (fitted to the
 *     surface profile, mean of 0.8, 0.9, 1.0 s) is within 3 degrees of the heap of the
 *     same snow with cohesion 0 (sim/docs/friction-and-cohesion.md, table 5). */
#include "check.h"
#include "heap_fixture.h"
#include "mpm_internal.h"

/* The column's flank [deg] (NaN while it stands) and its top [m] after 1 s; its mean
 * durability in *durability. */
static double column(double cohesion, double rate, double *top, double *durability)
{
    const double h = 0.01;
    pw_material m = heap_material(PW_PLASTICITY_CLAMP_DRUCKER_PRAGER, 40, cohesion, rate);
    heap_shape c = {.R = 0.06, .H = 0.12};
    pw_sim *s = heap_make(h, &c, &m);
    double sum = 0;
    for (int k = 0; k < 3; k++) {
        heap_advance(s, 0.8 + 0.1 * k);
        sum += heap_slope(s, &c, h, top);
    }
    double d = 0;
    for (size_t i = 0; i < s->pt.n; i++) d += s->pt.durability[i];
    *durability = d / (double)s->pt.n;
    printf("cohesion %.0f Pa, durability_rate %.0f: flank %.2f deg, top %.4f m, durability "
           "%.4f, fastest %.4f m/s\n",
           cohesion, rate, sum / 3, *top, *durability, heap_vmax(s));
    pw_sim_destroy(s);
    return sum / 3;
}

int main(void)
{
    if (fixture_sanitized_heap()) return 77;
    double top, dur;
    column(300, 0, &top, &dur);
    CHECK(top > 0.95 * 0.12, "the intact column fell to %.4f m", top);
    CHECK(dur == 1, "the intact column's durability %.4f", dur);
    double broken = column(300, PW_DURABILITY_RATE_MAX, &top, &dur);
    CHECK(top < 0.7 * 0.12, "the damaged column stood (top %.4f m)", top);
    CHECK(dur < 0.05, "the damaged column's durability %.4f", dur);
    double sand = column(0, 0, &top, &dur);
    CHECK_NEAR(broken, sand, 3, "damaged heap's slope against cohesionless snow's [deg]");
    return check_done("sim_damaged_snow_heaps_as_sand");
}
