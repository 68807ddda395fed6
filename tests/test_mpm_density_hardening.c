/* Property: hardening from density (Gissler et al. 2020, eqs. 20-23) reads how densely
 * snow is packed on the grid, whatever its own Fp says. A box of snow (0.2 m, 8
 * particles per cell, h = 0.02 m, no gravity) of the 2013 clamp with "hardening":
 * "density", and the same box of the 2013 law:
 *   1. after a first step of 1e-6 s the measured J (pw_particle_Jp: rho0 / (rho |det Fe|))
 *      is 1 to 1e-12 for every particle: the rest density V0 and rho_rest are the same
 *      grid estimate of the same configuration;
 *   2. the particles are then pushed together by hand, x -> c + 0.9 (x - c) (volume
 *      0.729), with Fe and Fp kept (det Fp = 1: the 2013 law sees no compaction), and
 *      stepped 1e-6 s again: in the interior (0.06 m inside every face) the measured J
 *      is 0.729 to 0.1 %, and the next step's stress has the moduli mu0 e^{xi (1 - J)}
 *      (e^{2.71}: 15x) to 1e-6 (J moves a little in that step); the 2013 box's J stays
 *      det Fp = 1 and its moduli mu0. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"

#define H 0.02

static pw_sim *make(int density)
{
    pw_sim_params p;
    fixture_params(&p, H, v3(-0.3, -0.3, -0.3), v3(0.3, 0.3, 0.3));
    p.threads = 2;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    if (!s) exit(1);
    pw_material mat;
    pw_material_default(&mat);
    if (density) mat.hardening = PW_HARDENING_DENSITY;
    pw_seeded seeded = {0};
    const double d = H / 2;
    for (int k = 0; k < 20; k++)
        for (int j = 0; j < 20; j++)
            for (int i = 0; i < 20; i++) {
                vec3 x = v3(-0.1 + (i + 0.5) * d, -0.1 + (j + 0.5) * d, -0.1 + (k + 0.5) * d);
                if (pw_seeded_append(&seeded, x, v3(0, 0, 0), mat.rho0 * d * d * d, mat.E0,
                                     mat.rho0, &mat, &err) != PW_OK)
                    exit(1);
            }
    fixture_add_or_exit(s, &seeded);
    return s;
}

static void step(pw_sim *s)
{
    pw_error err = {0};
    if (pw_sim_advance_to(s, s->t + 1e-6, NULL, NULL, &err) != PW_OK) {
        fprintf(stderr, "step: %s\n", err.msg);
        exit(1);
    }
}

int main(void)
{
    for (int density = 0; density <= 1; density++) {
        pw_sim *s = make(density);
        pw_particles *pt = &s->pt;
        CHECK(pt->laws == density, "law fields held only under density hardening");
        step(s);
        double worst = 0;
        for (size_t p = 0; p < pt->n; p++) worst = fmax(worst, fabs(pw_particle_Jp(pt, p) - 1));
        CHECK(worst <= 1e-12, "density %d: first step J off 1 by %g", density, worst);
        for (size_t p = 0; p < pt->n; p++) pt->x[p] = v3_scale(pt->x[p], 0.9);
        step(s);
        step(s); /* the step after: its stress reads the J the last one measured */
        size_t interior = 0;
        double J_lo = 1e9, J_hi = 0, mod_err = 0;
        for (size_t p = 0; p < pt->n; p++) {
            vec3 x = pt->x[p];
            double inside = 0.09 - fmax(fabs(x.x), fmax(fabs(x.y), fabs(x.z)));
            if (inside < 0.06) continue;
            interior++;
            double J = pw_particle_Jp(pt, p);
            J_lo = fmin(J_lo, J);
            J_hi = fmax(J_hi, J);
            /* s->stress is in the stepped order, which is pt's after the step */
            double want = pt->mu0[p] * pw_hardening(pt->xi[p], J);
            mod_err = fmax(mod_err, fabs(s->stress[p].mu - want) / want);
        }
        printf("density %d: %zu interior particles, J in [%.5f, %.5f], moduli within %.2g\n",
               density, interior, J_lo, J_hi, mod_err);
        CHECK(interior > 100, "interior %zu", interior);
        if (density)
            CHECK(fabs(J_lo - 0.729) <= 1e-3 * 0.729 && fabs(J_hi - 0.729) <= 1e-3 * 0.729,
                  "J in [%g, %g], want 0.729", J_lo, J_hi);
        else
            CHECK(J_lo == 1 && J_hi == 1, "2013 law: J in [%g, %g], want det Fp = 1", J_lo, J_hi);
        CHECK(mod_err <= 1e-6, "moduli off mu0 e^{xi (1 - J)} by %g", mod_err);
        pw_sim_destroy(s);
    }
    return check_done("mpm_density_hardening");
}
