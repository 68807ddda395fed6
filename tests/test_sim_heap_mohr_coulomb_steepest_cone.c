/* Property: cohesionless Mohr-Coulomb snow (plasticity "mohr_coulomb", cohesion 0) holds
 * a cone 3 degrees flatter than its friction angle and lets one 5 degrees steeper sink,
 * for friction angles 25 and 40 degrees: the steepest standing heap is at the friction
 * angle. Under the cone law ("drucker_prager") cones up to 10-15 degrees steeper than phi
 * stand (test_sim_heap_stands_at_friction_angle.c), since that cone is stronger than
 * Mohr-Coulomb's pyramid off the compression meridian. Cones of radius 0.1 m seeded at
 * rest on a sticky floor, h 0.01 m, 1 s (sim/docs/friction-and-cohesion.md).
 *   standing: the fitted flank within 1.5 degrees of the seeded slope, the top within
 *     3 % of its seeded height;
 *   sinking: the top more than 5 % lower (a cone 5 degrees past phi fails from its tip
 *     down: 7.7 and 20 % at 1 s; the standing ones lose under 0.6 %). */
#include "check.h"
#include "heap_fixture.h"

static void cone(double phi, double slope, int stands)
{
    heap_cone_check(PW_PLASTICITY_MOHR_COULOMB, phi, slope, 1.0, stands, 0.95);
}

int main(void)
{
    if (fixture_sanitized_heap()) return 77;
    cone(25, 22, 1);
    cone(25, 30, 0);
    cone(40, 37, 1);
    cone(40, 45, 0);
    return check_done("sim_heap_mohr_coulomb_steepest_cone");
}
