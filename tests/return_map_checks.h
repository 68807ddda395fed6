/* return_map_checks.h — what the isochoric return mappings of the yield laws keep
 * (test_constitutive_drucker_prager.c, test_constitutive_mohr_coulomb.c), checked on a
 * trial s and its projection o: the volumetric Hencky strain tr log s (to 1e-12), and
 * either the deviator's direction (the cone: the projected deviator is the trial's scaled
 * by a factor in [0, 1)) or Mohr-Coulomb's own flow (the pyramid). Include after
 * check.h. */
#ifndef PW_TEST_RETURN_MAP_CHECKS_H
#define PW_TEST_RETURN_MAP_CHECKS_H

#include "pw_math.h"

static inline void check_isochoric_return(vec3 s, vec3 o, int trial)
{
    double tr_in = log(s.x) + log(s.y) + log(s.z), tr_out = log(o.x) + log(o.y) + log(o.z);
    CHECK_NEAR(tr_out, tr_in, 1e-12, "volumetric strain kept");
    double ei[3] = {log(s.x) - tr_in / 3, log(s.y) - tr_in / 3, log(s.z) - tr_in / 3};
    double eo[3] = {log(o.x) - tr_out / 3, log(o.y) - tr_out / 3, log(o.z) - tr_out / 3};
    double num = 0, den = 0;
    for (int k = 0; k < 3; k++) num += ei[k] * eo[k], den += ei[k] * ei[k];
    double k = num / den;
    CHECK(k >= -1e-12 && k < 1, "trial %d: deviator scaled by %g", trial, k);
    for (int q = 0; q < 3; q++) CHECK_NEAR(eo[q], k * ei[q], 1e-12, "deviator direction");
}

/* Mohr-Coulomb's flow with no dilatancy (Koiter's rule on the pyramid's faces): the
 * plastic strain d = log s - log o is the face's (1, 0, -1) in the trial's principal
 * order, plus (0, 1, -1) or (1, -1, 0) with a non-negative weight only on the edge where
 * the intermediate stress meets the largest or the smallest. So: the order of the
 * principal strains is kept; d_max >= 0 >= d_min; the intermediate value moves only on an
 * edge, d_mid > 0 where o_max = o_mid and d_mid < 0 where o_mid = o_min. Returns 0 on a
 * face, 1 on the edge o_max = o_mid, 2 on o_mid = o_min. */
static inline int check_mohr_coulomb_flow(vec3 s, vec3 o, int trial)
{
    double tr_in = log(s.x) + log(s.y) + log(s.z), tr_out = log(o.x) + log(o.y) + log(o.z);
    CHECK_NEAR(tr_out, tr_in, 1e-12, "volumetric strain kept");
    double ei[3] = {log(s.x), log(s.y), log(s.z)}, eo[3] = {log(o.x), log(o.y), log(o.z)};
    int i1 = 0, i3 = 0;
    for (int k = 1; k < 3; k++) {
        if (ei[k] > ei[i1]) i1 = k;
        if (ei[k] < ei[i3]) i3 = k;
    }
    int i2 = 3 - i1 - i3;
    const double tol = 1e-12;
    CHECK(eo[i1] >= eo[i2] - tol && eo[i2] >= eo[i3] - tol, "trial %d: principal order changed",
          trial);
    double d1 = ei[i1] - eo[i1], d2 = ei[i2] - eo[i2], d3 = ei[i3] - eo[i3];
    CHECK(d1 >= -tol && d3 <= tol, "trial %d: flow against the face (%g, %g)", trial, d1, d3);
    if (d2 > tol) CHECK_NEAR(eo[i1], eo[i2], 1e-10, "the intermediate flowed off the edge");
    if (d2 < -tol) CHECK_NEAR(eo[i2], eo[i3], 1e-10, "the intermediate flowed off the edge");
    return d2 > tol ? 1 : d2 < -tol ? 2 : 0;
}

#endif
