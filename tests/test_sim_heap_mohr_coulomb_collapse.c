/* Property: a low column of cohesionless Mohr-Coulomb snow (radius 0.10 m, height
 * 0.05 m, h 0.01 m) released at rest spreads into a heap whose flank, fitted to the
 * surface profile at 1.25 and 1.5 s, is within 3 degrees of the friction angle at
 * phi 25, and at phi 40 at least 31 degrees (and not above 43). What the law achieves:
 * at 40 degrees the collapse stops 6-8 degrees below the friction angle
 * (sim/docs/friction-and-cohesion.md, section 8), short of the product's "within 3
 * degrees". The pyramid's own flow (Koiter's rule: the intermediate stress flows only on
 * an edge) lifted these flanks from 22.0 and 28.9 degrees, the von Mises-like radial
 * return before it: under that flow the phi 40 bound fails, and phi 25 passes at its
 * edge. */
#include "check.h"
#include "heap_fixture.h"

int main(void)
{
    if (fixture_sanitized_heap()) return 77;
    double lo = heap_collapse(PW_PLASTICITY_MOHR_COULOMB, 25, 0.10, 0.05, 1.25, 0.25, 2);
    double hi = heap_collapse(PW_PLASTICITY_MOHR_COULOMB, 40, 0.10, 0.05, 1.25, 0.25, 2);
    printf("heap slope: %.2f deg at phi 25, %.2f at phi 40\n", lo, hi);
    CHECK(fabs(lo - 25) <= 3, "phi 25: heap slope %.2f deg", lo);
    CHECK(hi >= 31 && hi <= 43, "phi 40: heap slope %.2f deg", hi);
    return check_done("sim_heap_mohr_coulomb_collapse");
}
