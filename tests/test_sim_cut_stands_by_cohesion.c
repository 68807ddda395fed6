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

static int always(vec3 q, const void *user)
{
    (void)q, (void)user;
    return 1;
}

/* The runout of the face [m] after 0.5 s of a block of height f H_c */
static double cut(double f, double Hc, double phi)
{
    const double h = 0.005, cells = 4;
    double c = Hc * HEAP_RHO * HEAP_G / (4 * tan((45 + phi / 2) * HEAP_DEG));
    pw_material m = heap_material(PW_PLASTICITY_DRUCKER_PRAGER, phi, c, 0);
    double H = f * Hc, B = H, y0 = 2 * h, W = (cells + 4) * h;
    pw_sim *s = heap_sim(h, v3(2 * h + B + 2.5 * H + 4 * h, y0 + H + 4 * h, W));
    heap_seed(s, h, v3(2 * h, y0, 2 * h), v3(2 * h + B, y0 + H, W - 2 * h), &m, always, NULL);
    double face0 = 0, face = 0;
    const vec3 *x = pw_sim_positions(s);
    for (size_t i = 0; i < pw_sim_particle_count(s); i++) face0 = fmax(face0, x[i].x);
    heap_advance(s, 0.5);
    x = pw_sim_positions(s);
    for (size_t i = 0; i < pw_sim_particle_count(s); i++) face = fmax(face, x[i].x);
    printf("H %.2f H_c = %.4f m (c %.2f Pa): runout %.4f m = %.3f H, fastest %.4f m/s\n", f, H,
           c, face - face0, (face - face0) / H, heap_vmax(s));
    pw_sim_destroy(s);
    return (face - face0) / H;
}

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
        double r = cut(stands[k], Hc, phi);
        CHECK(r < 0.03, "H %.2f H_c: the face ran out %.3f H", stands[k], r);
    }
    for (int k = 0; k < 2; k++) {
        double r = cut(falls[k], Hc, phi);
        CHECK(r > 0.1, "H %.2f H_c: the face stood (runout %.3f H)", falls[k], r);
    }
    return check_done("sim_cut_stands_by_cohesion");
}
