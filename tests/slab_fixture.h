/* slab_fixture.h — a homogeneous slab as the renderer's tests build it: a lattice of
 * equal particles at spacing h, side x side x layers, centred on the origin in x and y,
 * layers stacked in z from -layers h / 2. By the B-spline partition of unity its density
 * is uniform inside and integrates along z to rho * layers * h exactly. */
#ifndef PW_TEST_SLAB_FIXTURE_H
#define PW_TEST_SLAB_FIXTURE_H

#include <stddef.h>
#include <string.h>

#include "pw_render.h"

/* Fills x (3 n) and m (n), n = side * side * layers, with the slab of density rho. */
static inline void slab_lattice(int side, int layers, double h, double rho, double *x,
                                double *m)
{
    size_t p = 0;
    for (int k = 0; k < layers; k++)
        for (int j = 0; j < side; j++)
            for (int i = 0; i < side; i++, p++) {
                x[3 * p + 0] = (i + 0.5 - 0.5 * side) * h;
                x[3 * p + 1] = (j + 0.5 - 0.5 * side) * h;
                x[3 * p + 2] = (k + 0.5 - 0.5 * layers) * h;
                m[p] = rho * h * h * h;
            }
}

/* The sun alone (no sky), of irradiance E from direction dir (unit), 0.53 degrees wide. */
static inline pw_lights_desc slab_sun(vec3 dir, double E)
{
    pw_lights_desc lights;
    memset(&lights, 0, sizeof lights);
    lights.sun_direction = dir;
    lights.sun_angular_diameter_deg = 0.53;
    lights.sun_irradiance = v3(E, E, E);
    return lights;
}

/* Render settings of the slab tests: paths up to 100 bounces, roulette from bounce 3. */
static inline pw_render_settings slab_settings(int spp, uint64_t seed)
{
    pw_render_settings rs = {0};
    rs.spp = spp;
    rs.max_depth = 100;
    rs.rr_start_depth = 3;
    rs.seed = seed;
    return rs;
}

#endif
