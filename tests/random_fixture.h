/* random_fixture.h — seeded draws for the math tests: numbers, rotations and 3x3
 * matrices with chosen singular values. The same seed gives the same draws on every
 * machine (a 64-bit LCG, no library RNG). */
#ifndef PW_TEST_RANDOM_FIXTURE_H
#define PW_TEST_RANDOM_FIXTURE_H

#include <stdlib.h>

#include "pw_math.h"

/* uniform in [0, 1), 53 random bits */
static inline double rnd_uniform(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * 0x1p-53;
}

/* uniform in [lo, hi) */
static inline double rnd_range(unsigned long long *st, double lo, double hi)
{
    return lo + (hi - lo) * rnd_uniform(st);
}

/* a rotation about a random axis by a random angle in [0, 2 pi) */
static inline mat3 rnd_rotation(unsigned long long *st)
{
    vec3 axis = v3(rnd_uniform(st) - 0.5, rnd_uniform(st) - 0.5, rnd_uniform(st) - 0.5);
    return m3_rotation(axis, 6.283185307179586 * rnd_uniform(st));
}

/* entries uniform in [-1, 1) */
static inline mat3 rnd_matrix(unsigned long long *st)
{
    mat3 a;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a.m[i][j] = 2 * rnd_uniform(st) - 1;
    return a;
}

/* Q1 diag(s0, s1, s2) Q2^T for random rotations Q1, Q2: singular values |s_k|, det of
 * the sign of s0 s1 s2 */
static inline mat3 rnd_with_sigma(unsigned long long *st, double s0, double s1, double s2)
{
    mat3 Q1 = rnd_rotation(st), Q2 = rnd_rotation(st);
    return m3_mul(m3_mul(Q1, m3_diag(s0, s1, s2)), m3_transpose(Q2));
}

/* n points uniform in the ball of radius r resting on y = 0 (centre (0, r, 0)), each of
 * mass mass: x[3 n] and m[n], allocated here (NULL when out of memory; the caller frees
 * them). */
static inline void rnd_blob(size_t n, double r, double mass, unsigned long long seed,
                            double **x, double **m)
{
    *x = malloc(3 * n * sizeof **x);
    *m = malloc(n * sizeof **m);
    if (!*x || !*m) return;
    for (size_t p = 0; p < n;) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = r * (2 * rnd_uniform(&seed) - 1);
        if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > r * r) continue;
        (*x)[3 * p] = q[0], (*x)[3 * p + 1] = q[1] + r, (*x)[3 * p + 2] = q[2];
        (*m)[p] = mass;
        p++;
    }
}

#endif
