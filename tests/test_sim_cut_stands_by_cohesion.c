/* Property: a block of Drucker-Prager snow with cohesion c and friction angle 30 degrees,
 * in plane strain (a slab 4 cells thick between the domain's frictionless z walls, h
 * 0.005 m, its back against the x = 0 wall, on a sticky floor), stands with a vertical
 * face of height H = 0.75 H_c and 0.8 H_ps and collapses at 1.2 and 1.4 H_ps, where
 * H_c = (4 c / (rho g)) tan(45 deg + phi / 2) is Mohr-Coulomb's critical height of a
 * vertical cut (c = 17 Pa for H_c = 0.03 m). Stands: the face has run out less than
 * 0.03 H after 0.5 s; collapses: more than 0.1 H.
 * Not the product's "collapses above 1.2 H_c": in plane strain the law's cone, which
 * meets Mohr-Coulomb's in triaxial compression, is Mohr-Coulomb with sin phi' =
 * 3 alpha / sqrt 2 and the same apex c cot phi: phi' 43.9 degrees and c' 1.66 c at phi
 * 30: H_ps, Mohr-Coulomb's critical height with those, is 2.26 H_c
 * (sim/docs/friction-and-cohesion.md, table 4). */
#include "check.h"
#include "constitutive.h"
#include "heap_fixture.h"

int main(void)
{
    if (fixture_sanitized_heap()) return 77;
    const double phi = 30, Hc = 0.03;
    double a = pw_drucker_prager_alpha(phi * HEAP_DEG), sp = 3 * a / sqrt(2.0);
    double phi_ps = asin(sp), cot = 1 / tan(phi * HEAP_DEG);
    double ratio = cot * tan(phi_ps) * tan(HEAP_PI / 4 + phi_ps / 2) / tan((45 + phi / 2) * HEAP_DEG);
    printf("plane strain: phi' %.2f deg, c' %.3f c, critical height %.3f H_c\n", phi_ps / HEAP_DEG,
           cot * tan(phi_ps), ratio);
    /* 0.75 H_c (the product's criterion) and 0.8 of the law's own critical height stand;
     * 1.2 and 1.4 of it fall */
    double stands[] = {0.75, 0.8 * ratio}, falls[] = {1.2 * ratio, 1.4 * ratio};
    for (int k = 0; k < 2; k++) {
        double r = heap_cut(PW_PLASTICITY_DRUCKER_PRAGER, phi, stands[k], Hc, 0.005, 0.5);
        CHECK(r < 0.03, "H %.2f H_c: the face ran out %.3f H", stands[k], r);
    }
    for (int k = 0; k < 2; k++) {
        double r = heap_cut(PW_PLASTICITY_DRUCKER_PRAGER, phi, falls[k], Hc, 0.005, 0.5);
        CHECK(r > 0.1, "H %.2f H_c: the face stood (runout %.3f H)", falls[k], r);
    }
    return check_done("sim_cut_stands_by_cohesion");
}
