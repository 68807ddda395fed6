/* Snow that falls on flat ground (sim/emit.h) lands, packs under its own weight and
 * makes a layer denser at its bottom than at its top, measured as `powder stats --layer`
 * measures it (pw_stats_cache_layer, from a slim cache): by 1.6 s no flake is left in
 * the air, every kilogram emitted is present, the bottom quarter of the layer is denser
 * than the top quarter, and the layer's mean depth is within 5 % of its mass over (area
 * x its measured density, the core's: sim/docs/snowfall.md, section 4). The density is
 * density hardening's, measured on the grid; the same fall with the 2013 hardening from
 * det F_P stands as a fluffy layer whose particles' densities say it is far thinner
 * (Gissler et al. 2020, Fig. 13), so the measure tells the two apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "pw_stats.h"

/* 1.8 kg over a 0.4 x 0.4 m source in 1 s (11 kg/m^2), at h 0.03, measured at 1.6 s */
static int fall(int hardening, const char *path, pw_layer_stats *L)
{
    const double h = 0.03;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.25, -3 * h, -0.25), v3(0.25, 0.6, 0.25));
    p.gravity = v3(0, -9.81, 0);
    p.threads = 2;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d;
    fixture_snowfall(&d, v3(0, 0.45, 0), v3(0.2, 0.02, 0.2), 1.8, 1.0);
    d.seed = 5;
    d.material.hardening = hardening;
    const pw_layer_region r = {-0.15, -0.15, 0.15, 0.15, 0};
    int ok = s && fixture_ground(s, 0.8, &err) == PW_OK && pw_sim_add_source(s, &d, &err) == PW_OK &&
             pw_sim_advance_to(s, 1.6, NULL, NULL, &err) == PW_OK &&
             pw_sim_save_slim(s, path, 0, 0, &err) == PW_OK &&
             pw_stats_cache_layer(path, &r, L, &err) == PW_OK;
    if (!ok) fprintf(stderr, "%s: %s\n", path, err.msg);
    pw_sim_destroy(s);
    if (!ok) return 0;
    printf("%s: emitted %.4f kg, present %.4f, in the air %.4f, over the region %.4f kg\n", path,
           L->mass_emitted, L->mass_present, L->mass_in_air, L->mass);
    printf("  depth %.4f m (max %.4f), of its mass at its density %.4f m (%.1f %%); density "
           "%.1f kg/m^3, core %.1f, by depth %.1f %.1f %.1f %.1f\n",
           L->depth_mean, L->depth_max, L->depth_of_mass, 100 * L->depth_of_mass / L->depth_mean,
           L->rho_mean, L->rho_core, L->rho_bin[0], L->rho_bin[1], L->rho_bin[2], L->rho_bin[3]);
    return 1;
}

int main(void)
{
    pw_layer_stats L, P;
    if (!fall(PW_HARDENING_DENSITY, "fallen_layer.pwc", &L) ||
        !fall(PW_HARDENING_PLASTIC, "fallen_layer_2013.pwc", &P))
        return 1;
    CHECK(fabs(L.mass_emitted - 1.8) < 1e-3 && fabs(L.mass_present - L.mass_emitted) < 1e-6 * L.mass_emitted,
          "the mass emitted by 1 s is the rate's, and all of it is present (to the slim "
          "cache's float32 masses)");
    CHECK(L.mass_in_air == 0, "every flake has landed 0.6 s after the last was born");
    CHECK(L.has_density && L.covered == 1 && L.rho_core > 0, "the layer covers the region");
    CHECK(L.rho_bin[3] > L.rho_bin[0], "the bottom quarter is denser than the top");
    CHECK(fabs(L.depth_of_mass / L.depth_mean - 1) <= 0.05,
          "the mean depth is within 5 %% of mass / (area x the measured density)");
    CHECK(P.mass_in_air == 0 && fabs(P.depth_of_mass / P.depth_mean - 1) > 0.05,
          "under the 2013 hardening from det F_P the particles' densities miss the layer "
          "(the measure can fail)");
    return check_done("emit_fallen_layer_packs");
}
