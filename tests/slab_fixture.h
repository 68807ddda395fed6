/* slab_fixture.h — a homogeneous slab as the renderer's tests build it: a lattice of
 * equal particles at spacing h, side x side x layers, centred on the origin in x and y,
 * layers stacked in z from -layers h / 2. By the B-spline partition of unity its density
 * is uniform inside and integrates along z to rho * layers * h exactly. */
#ifndef PW_TEST_SLAB_FIXTURE_H
#define PW_TEST_SLAB_FIXTURE_H

#include <stddef.h>

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

#endif
