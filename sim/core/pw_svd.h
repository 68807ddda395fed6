/* pw_svd.h — the 3x3 singular value decompositions, both in sim/core/svd.c:
 *  - m3_svd (declared in pw_math.h with the other mat3 helpers): cold, robust, sorted;
 *    cyclic Jacobi on A^T A, then a QR of A V by Givens rotations;
 *  - pw_svd_warm_batch (below): the plasticity step's fast form, a one-sided Jacobi on
 *    the columns of A V0 started from a guess V0 near A's own right basis, in vector
 *    lanes, falling back to m3_svd where it cannot answer.
 * Both return U and V proper rotations (det = +1), with any reflection of A carried by
 * its smallest singular value. They share the plane rotation that updates columns
 * and rows (ROTATE_PAIR in svd.c); they find the rotation's angle each its own way (see
 * svd.c), so their bits differ, within the rounding that svd_warm_lanes_match_m3_svd
 * bounds lane by lane. */
#ifndef PW_SVD_H
#define PW_SVD_H

#include "pw_math.h"

/* F = U diag(sigma) V^T with U, V proper rotations (as m3_svd returns them). */
typedef struct {
    mat3 U, V;
    vec3 sigma;
} pw_svd3;

/* The one-sided Jacobi SVD of the plasticity step (pw_plasticity_update_svd), for up to
 * PW_SVD_BATCH matrices at once, as two halves of four lanes (faster per matrix; the
 * same bits as one at a time): for k < n, ok[k] = 1 and out[k] the SVD of A[k] started
 * from the right basis V0[k] (U, V proper rotations, sigma unsorted, negative only in
 * the smallest), or ok[k] = 0 where the caller must use m3_svd (near-singular A[k], or
 * no convergence). */
#define PW_SVD_BATCH 8
void pw_svd_warm_batch(int n, const mat3 *A, const mat3 *V0, pw_svd3 *out, int *ok);

#endif
