/* Property: a vertical cut in Mohr-Coulomb snow (plasticity "mohr_coulomb", friction
 * angle 30 degrees) stands below and collapses above the classical critical height
 * H_c = (4 c / (rho g)) tan(45 deg + phi / 2): blocks of 0.6 and 0.8 H_c stand (the face
 * runs out less than 0.03 H in 0.4 s), blocks of 1.2 and 1.4 H_c collapse (more than
 * 0.1 H). H_c = 0.1 m (c 56.6 Pa) at h 0.005 m: the block is 12-28 cells high. At 6-12
 * cells the discretisation holds cuts up past 1.4 H_c (sim/docs/friction-and-cohesion.md,
 * "The Mohr-Coulomb law"). The blocks are heap_cut's (heap_fixture.h). */
#include "check.h"
#include "heap_fixture.h"

int main(void)
{
    if (fixture_sanitized_heap()) return 77;
    const double phi = 30, Hc = 0.1, h = 0.005, t = 0.4;
    const double stands[] = {0.6, 0.8}, falls[] = {1.2, 1.4};
    for (int k = 0; k < 2; k++) {
        double r = heap_cut(PW_PLASTICITY_MOHR_COULOMB, phi, stands[k], Hc, h, t);
        CHECK(r < 0.03, "H %.2f H_c: the face ran out %.3f H", stands[k], r);
    }
    for (int k = 0; k < 2; k++) {
        double r = heap_cut(PW_PLASTICITY_MOHR_COULOMB, phi, falls[k], Hc, h, t);
        CHECK(r > 0.1, "H %.2f H_c: the face stood (runout %.3f H)", falls[k], r);
    }
    return check_done("sim_cut_mohr_coulomb_critical_height");
}
