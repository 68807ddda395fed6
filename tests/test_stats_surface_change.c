/* Property: pw_surface_change_of measures how the snow's top surface moved against a
 * reference, exactly on a lattice whose answer is known: a slab 0.5 x 0.5 m, 0.1 m deep
 * (particles every 5 mm, columns of 2 cm), with a pit dug 0.04 m deep over 5 x 5
 * columns, a heap 0.03 m high over 3 x 3 columns and one column emptied to the ground.
 * Expected: deepest 0.04 m at a pit column, highest 0.03 m, lowered area 25 columns
 * (0.01 m^2), dug 25 x 0.04 x 4e-4 m^3, heaped 9 x 0.03 x 4e-4 m^3, 625 columns, 1
 * emptied. The same slab with gravity along -x (heights along x) gives the same figures:
 * the height axis follows gravity. Tolerance 1e-12 m (the lattice's rounding).
 * Densities under the surface: the field's snow is 200 kg/m^3; the pit's columns
 * alternate 500 kg/m^3 (mass 1) and 800 kg/m^3 (mass 2) along x, two columns of the one
 * for three of the other, so mass over volume under the print is 8 / (2/500 + 6/800) =
 * 695.65 kg/m^3 whatever the depth of the skin; the heap's 300 kg/m^3 counts in
 * neither. Without densities has_density stays 0. Bad
 * input: a non-positive column, a non-finite position, each PW_EINVAL naming what. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_stats.h"

#define S 0.005  /* particle spacing [m] */
#define CELL 0.02
#define LAYERS 20

/* the slab, then the changes when dug; swap: heights along x instead of y; m and rho
 * (may be NULL) the particles' masses and densities */
static size_t lattice(vec3 *x, double *m, double *rho, int dug, int swap)
{
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        for (int k = 0; k < 100; k++) {
            double px = (i + 0.5) * S, pz = (k + 0.5) * S;
            int in_pit = px >= 0.1 && px < 0.2 && pz >= 0.1 && pz < 0.2;
            int in_heap = px >= 0.3 && px < 0.36 && pz >= 0.3 && pz < 0.36;
            int emptied = px >= 0.4 && px < 0.42 && pz >= 0.4 && pz < 0.42;
            int layers = LAYERS + (dug && in_heap ? 6 : 0);
            for (int l = 0; l < layers; l++) {
                double py = (l + 0.5) * S;
                if (dug && in_pit && py > 0.06) continue;
                if (dug && emptied) continue;
                if (m) {
                    int heavy = in_pit && (long)floor(px / CELL) % 2;
                    m[n] = heavy ? 2 : 1;
                    rho[n] = in_pit ? (heavy ? 800 : 500) : in_heap ? 300 : 200;
                }
                x[n++] = swap ? v3(py, -px, pz) : v3(px, py, pz);
            }
        }
    return n;
}

static void check_case(const char *name, int swap)
{
    size_t cap = 100 * 100 * (LAYERS + 6);
    vec3 *ref = malloc(cap * sizeof *ref), *now = malloc(cap * sizeof *now);
    double *m = malloc(cap * sizeof *m), *rho = malloc(cap * sizeof *rho);
    size_t n_ref = lattice(ref, NULL, NULL, 0, swap), n = lattice(now, m, rho, 1, swap);
    vec3 g = swap ? v3(-9.81, 0, 0) : v3(0, -9.81, 0);
    pw_surface_change sc;
    pw_error err = {0};
    CHECK(pw_surface_change_of(ref, n_ref, now, NULL, NULL, n, g, CELL, &sc, &err) == PW_OK &&
              !sc.has_density,
          "%s: %s", name, err.msg);
    CHECK(pw_surface_change_of(ref, n_ref, now, m, rho, n, g, CELL, &sc, &err) == PW_OK &&
              sc.has_density,
          "%s: %s", name, err.msg);
    CHECK_NEAR(sc.rho_print, 8.0 / (2.0 / 500 + 6.0 / 800), 1e-9, "density under the print");
    CHECK_NEAR(sc.rho_field, 200, 1e-9, "density of the field");
    const double a = CELL * CELL, tol = 1e-12;
    CHECK_NEAR(sc.deepest, 0.04, tol, "deepest");
    CHECK_NEAR(sc.highest, 0.03, tol, "highest");
    CHECK_NEAR(sc.lowered_area, 25 * a, tol, "lowered area");
    CHECK_NEAR(sc.dug_volume, 25 * 0.04 * a, tol, "dug volume");
    CHECK_NEAR(sc.heaped_volume, 9 * 0.03 * a, tol, "heaped volume");
    CHECK(sc.columns == 625 && sc.emptied == 1, "%s: %zu columns, %zu emptied", name,
          sc.columns, sc.emptied);
    /* the deepest column lies in the pit, at the pit's floor */
    double u = swap ? -sc.deepest_at.y : sc.deepest_at.x, h = swap ? sc.deepest_at.x : sc.deepest_at.y;
    CHECK(u > 0.1 && u < 0.2 && sc.deepest_at.z > 0.1 && sc.deepest_at.z < 0.2,
          "%s: deepest at (%g, %g, %g), not in the pit", name, sc.deepest_at.x, sc.deepest_at.y,
          sc.deepest_at.z);
    CHECK_NEAR(h, 11.5 * S, tol, "deepest's height");
    /* the reference against itself: nothing moved */
    CHECK(pw_surface_change_of(ref, n_ref, ref, NULL, NULL, n_ref, g, CELL, &sc, &err) == PW_OK &&
              sc.deepest == 0 && sc.highest == 0 && sc.dug_volume == 0 &&
              sc.heaped_volume == 0 && sc.lowered_area == 0 && sc.emptied == 0,
          "%s: unchanged slab changed (deepest %g, heaped %g)", name, sc.deepest,
          sc.heaped_volume);
    free(ref), free(now), free(m), free(rho);
}

int main(void)
{
    check_case("heights along y", 0);
    check_case("heights along x", 1);

    vec3 p[2] = {v3(0, 0, 0), v3(0.1, 0, 0)};
    pw_surface_change sc;
    pw_error err = {0};
    CHECK(pw_surface_change_of(p, 2, p, NULL, NULL, 2, v3(0, -9.81, 0), 0, &sc, &err) == PW_EINVAL &&
              strstr(err.msg, "column size"),
          "cell 0: %s", err.msg);
    vec3 bad[2] = {v3(0, 0, 0), v3(NAN, 0, 0)};
    CHECK(pw_surface_change_of(p, 2, bad, NULL, NULL, 2, v3(0, -9.81, 0), CELL, &sc, &err) == PW_EINVAL &&
              strstr(err.msg, "particle 1 of the measured frame"),
          "NaN: %s", err.msg);
    CHECK(pw_surface_change_of(NULL, 0, NULL, NULL, NULL, 0, v3(0, -9.81, 0), CELL, &sc, &err) == PW_OK &&
              sc.columns == 0,
          "no snow: %zu columns", sc.columns);
    return check_done("stats_surface_change");
}
