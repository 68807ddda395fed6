/* pw_simd.h — the vector types and the per-instruction-set clones of the solver's hot
 * loops (internal, not for render/: sim/box.h's stencil kernels, the lanes of
 * sim/hessian.c and sim/constitutive.c, and the warm SVD of sim/core/svd.c).
 *
 * The code that uses it is built with -ffp-contract=off (pw_sim and pw_core), so GCC
 * never fuses a * b + c, and all clones do the same lane operations in the same order:
 * they give the same bits (box_wide_narrow_same_bits compares box.h's wide and narrow
 * kernel forms, sim_deterministic_threads whole runs, and sim_same_bits_without_clones
 * a build with -DPW_NO_TARGET_CLONES, baseline SSE2 only, with the default one; it
 * fails if fused multiply-adds creep in). */
#ifndef PW_SIMD_H
#define PW_SIMD_H

#include <math.h>
#include <stdint.h>

#include "pw_math.h"

/* PW_CLONES("avx2", "default"): compile the function once per listed instruction set,
 * picked at load time; nothing where clones are unavailable or switched off. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PW_NO_TARGET_CLONES)
#define PW_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#define PW_HAVE_CLONES 1
#else
#define PW_CLONES(...)
#endif

typedef double v4d __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef long long v4m __attribute__((vector_size(32))); /* lane masks of v4d: -1 or 0 */

/* m ? a : b per lane, and |a| per lane (the sign bit cleared, as fabs does). Macros: a
 * vector return value would change the ABI between the instruction-set clones. */
#define SELECT4(m, a, b) ((v4d)(((v4m)(a) & (m)) | ((v4m)(b) & ~(m))))
#define ABS4(a) ((v4d)((v4m)(a) & (v4m){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))

/* det a per lane, the expression of m3_det (PW_M3_DET, pw_math.h): the same bits as one
 * matrix alone. */
static inline __attribute__((always_inline)) void det4(v4d a[3][3], v4d *det)
{
    *det = PW_M3_DET(a);
}

/* sqrt per lane: IEEE sqrt, the bits of the scalar one (GCC vectorises the loop where
 * errno is off, -fno-math-errno) */
static inline __attribute__((always_inline)) void sqrt4(v4d *x)
{
    for (int l = 0; l < 4; l++) (*x)[l] = sqrt((*x)[l]);
}

#endif
