/* grid.h — the sparse block grid of the MPM solver (internal to sim/).
 *
 * Nodes live in blocks of 4x4x4; a block exists only when some particle's 4x4x4
 * B-spline stencil touches it, so memory and work follow the particles, not the
 * domain. The grid is rebuilt every step: particles are sorted by their "home" block
 * (the block holding the first node of their stencil), and each home block knows the
 * 2x2x2 blocks its particles' stencils can reach. Home blocks are split into 8
 * colours by the parity of their block coordinates: two home blocks of one colour
 * never write the same node, so scatters run in parallel without atomics and give
 * the same bits for any thread count. */
#ifndef PW_GRID_H
#define PW_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"
#include "pw_kernel.h"
#include "pw_math.h"

#define PW_BLOCK 4                 /* nodes per block edge              */
#define PW_BLOCK_NODES 64          /* nodes per block                   */
#define PW_BLOCK_COORD_BITS 21     /* bits per block coordinate in keys */

typedef struct {
    double h, inv_h;      /* spacing [m], 1/h [1/m]                                 */
    vec3 origin;          /* [m] world position of node (0,0,0)                      */
    int64_t max_node;     /* largest node coordinate allowed on any axis             */
    int stencil;          /* nodes a particle's stencil spans per axis: 4 (cubic) or 3
                             (quadratic; pw_kernel.h); the first of them keys its home */

    /* active blocks, sorted by key; nodes of block b are b*64 + x + 4y + 16z */
    size_t n_blocks, cap_blocks;
    uint64_t *keys, *keys_tmp;

    /* home blocks: particles [start[k], start[k+1]) live in home block k, whose
     * 2x2x2 neighbourhood is nbr[k][dx + 2 dy + 4 dz] (indices into the blocks) */
    size_t n_home, cap_home;
    uint64_t *home_keys;
    size_t *start;
    uint32_t (*nbr)[8];
    uint32_t *colour_order;      /* home blocks grouped by colour, in key order within
                                    each colour (loops.c splits them among the threads) */
    size_t colour_start[9];

    /* node data, n_blocks * 64 entries */
    size_t cap_nodes;
    double *m;            /* [kg]                                        */
    vec3 *v;              /* [m/s] v^{n+1} after the solve               */
    vec3 *v_old;          /* [m/s] v^n, for FLIP                         */
    vec3 *f;              /* [N] stress force (also momentum in P2G)     */
    uint8_t *fixed;       /* bit k < 3 set: component k is projected out;
                             PW_FIXED_NORMAL: the component along normal[i] */
    vec3 *normal;         /* unit contact normal where PW_FIXED_NORMAL     */

    /* scratch of the build */
    size_t cap_particles;
    uint64_t *pkey, *pkey_tmp;
    uint32_t *perm_tmp;
    uint64_t *akey;   /* the keys and indices of the particles the sort orders when */
    uint32_t *aidx;   /* resting snow keeps its place (pw_grid_build's tail)          */
    size_t cap_a;
} pw_grid;

#define PW_FIXED_ALL 7u     /* all three components */
#define PW_FIXED_NORMAL 8u  /* only the component along grid.normal[i] */

/* Sets spacing h [m] and the world position of node 0 (origin, block aligned);
 * max_node bounds the node coordinates so keys fit. */
void pw_grid_init(pw_grid *g, double h, vec3 origin, int64_t max_node);
void pw_grid_free(pw_grid *g);

/* Rebuilds the grid for n particles at x: stable sort by home block, written as a
 * permutation (perm[k] = old index of the particle that goes to position k; the
 * caller reorders its arrays with it), then home blocks, their neighbourhoods,
 * colours and active blocks. Particles with resting[k] set (resting may be NULL; there
 * must be n - n_step of them) sort after all the others, by block too (their keys carry
 * PW_RESTING_KEY), and make no home block: the grid is the stepped particles'. Node
 * arrays are sized but not cleared. Positions must map to node coordinates in
 * [0, max_node - 3]. Uses up to threads threads (the result does not depend on it).
 * @return PW_OK or PW_ENOMEM. */
pw_status pw_grid_build(pw_grid *g, size_t n, const vec3 *x, const uint8_t *resting,
                        size_t n_step, size_t tail, uint32_t *perm, int threads,
                        pw_error *err);
/* (tail: particles [tail, n) rested at the last build and kept their order and keys
 * since, g->pkey[tail, n) still theirs; tail = n when there are none. Those that still
 * rest keep their order behind the sorted stepped ones, and their keys are not computed
 * again: a resting field costs the sort a copy, not a sort.) */

#define PW_RESTING_KEY (UINT64_C(1) << 63) /* above every block key (3 x 21 bits) */

/* Keys the resting particles [first, n) at x as a sort would have (for a state read
 * from a cache, so that the next sort keeps them as an uninterrupted run does).
 * @return PW_OK or PW_ENOMEM. */
pw_status pw_grid_key_resting(pw_grid *g, size_t n, const vec3 *x, size_t first, pw_error *err);

/* The home block key of a particle at x (as the sort computes it). */
uint64_t pw_grid_particle_key(const pw_grid *g, vec3 x);

/* The key of the block (dx, dy, dz) blocks away from key's (each in [-1, 1]). */
uint64_t pw_grid_key_offset(uint64_t key, int dx, int dy, int dz);

/* World position [m] of a block's first node. */
vec3 pw_grid_block_origin(const pw_grid *g, uint64_t key);

/* The index of the active block with this key, or SIZE_MAX when it is not active. */
size_t pw_grid_block_index(const pw_grid *g, uint64_t key);

static inline size_t pw_grid_node_count(const pw_grid *g) { return g->n_blocks * PW_BLOCK_NODES; }

/* Holds *p (capacity *cap elements of sz bytes) for n elements of scratch whose contents
 * die each step, sized to a count that drifts, such as the stepped snow's nodes: renewed
 * without a copy when n exceeds the capacity or falls below half of it, to n plus a
 * quarter plus PW_SCRATCH_SLACK. So memory a field's settling needed is given back once
 * it sleeps. -1 when out of memory (*p is then NULL and *cap 0). */
#define PW_SCRATCH_SLACK 1024 /* elements: small next to a field, large next to a few */
int pw_scratch_fit(void **p, size_t *cap, size_t n, size_t sz);

/* World position [m] of node index i (block * 64 + local). */
vec3 pw_grid_node_position(const pw_grid *g, size_t i);

#endif
