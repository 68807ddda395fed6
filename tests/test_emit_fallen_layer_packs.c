/* Snow that falls on flat ground (sim/emit.h) lands, packs under its own weight and
 * makes a layer denser at its bottom than at its top, measured as `powder stats --layer`
 * measures it (pw_stats_cache_layer, from a slim cache): by 1.6 s no flake is left in
 * the air, every kilogram emitted is present, the bottom quarter of the layer is denser
 * than the top quarter, and the particles' own volumes fill between half the layer and
 * all of it (sim/docs/snowfall.md, section 4: 68 % where the measure was made; a
 * fluffy tower of landed flakes, or flakes crushed on impact, fall outside). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "pw_stats.h"

int main(void)
{
    const double h = 0.03;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.25, -3 * h, -0.25), v3(0.25, 0.6, 0.25));
    p.gravity = v3(0, -9.81, 0);
    p.threads = 2;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d; /* 11 kg/m^2 over the source's 0.16 m^2 in 1 s */
    fixture_snowfall(&d, v3(0, 0.45, 0), v3(0.2, 0.02, 0.2), 1.8, 1.0);
    d.seed = 5;
    if (!s || fixture_ground(s, 0.8, &err) != PW_OK || pw_sim_add_source(s, &d, &err) != PW_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return 1;
    }
    if (pw_sim_advance_to(s, 1.6, NULL, NULL, &err) != PW_OK ||
        pw_sim_save_slim(s, "fallen_layer.pwc", 0, 0, &err) != PW_OK) {
        fprintf(stderr, "run: %s\n", err.msg);
        return 1;
    }
    const pw_layer_region r = {-0.15, -0.15, 0.15, 0.15, 0};
    pw_layer_stats L;
    if (pw_stats_cache_layer("fallen_layer.pwc", &r, &L, &err) != PW_OK) {
        fprintf(stderr, "layer: %s\n", err.msg);
        return 1;
    }
    printf("emitted %.4f kg, present %.4f, in the air %.4f, over the region %.4f kg\n",
           L.mass_emitted, L.mass_present, L.mass_in_air, L.mass);
    printf("depth %.4f m (max %.4f), at its own density %.4f m (%.0f %%); density %.1f "
           "kg/m^3, by depth %.1f %.1f %.1f %.1f\n",
           L.depth_mean, L.depth_max, L.depth_of_mass, 100 * L.depth_of_mass / L.depth_mean,
           L.rho_mean, L.rho_bin[0], L.rho_bin[1], L.rho_bin[2], L.rho_bin[3]);
    CHECK(fabs(L.mass_emitted - 1.8) < 1e-3 && fabs(L.mass_present - L.mass_emitted) < 1e-6 * L.mass_emitted,
          "the mass emitted by 1 s is the rate's, and all of it is present (to the slim "
          "cache's float32 masses)");
    CHECK(L.mass_in_air == 0, "every flake has landed 0.6 s after the last was born");
    CHECK(L.has_density && L.covered == 1, "the layer covers the region");
    CHECK(L.rho_bin[3] > L.rho_bin[0], "the bottom quarter is denser than the top");
    CHECK(L.depth_of_mass > 0.5 * L.depth_mean && L.depth_of_mass < 1.05 * L.depth_mean,
          "the particles' own volumes fill between half the layer and all of it");
    pw_sim_destroy(s);
    return check_done("emit_fallen_layer_packs");
}
