/* return_map_checks.h — what the isochoric return mappings of the yield laws keep
 * (test_constitutive_drucker_prager.c, test_constitutive_mohr_coulomb.c), checked on a
 * trial s and its projection o: the volumetric Hencky strain tr log s (to 1e-12), and the
 * deviator's direction, the projected deviator being the trial's scaled by a factor in
 * [0, 1). Include after check.h. */
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

#endif
