/* pw_stats.h — measures of a simulated frame that artists tune snow by and tests assert
 * on: how many pieces the snow is in and how large the largest is, how compacted
 * (J_P) it is, how much it still moves, where it is, and how much of it clings to each
 * collider.
 *
 * Fragments. Two particles are linked when they lie closer than a link distance (by
 * default PW_STATS_LINK_H h = 0.7 h: at 8 particles per cell the mean spacing of
 * packed snow is h/2, so packed neighbours are linked and a crack wider than ~h/5
 * beyond that separates them); a fragment is a connected set of linked particles. The
 * count is exact (union-find over a hash grid of cell size = the link distance) and
 * does not depend on the particle order.
 *
 * Pieces. In MPM a crack is not at first a gap: the material in it has hardened away
 * (stiffness factor exp(xi (1 - J_P)) -> 0, section 5) while its particles still sit
 * near their neighbours, and the pieces separate only as far as their relative motion
 * carries them. So a second count leaves out broken particles, those whose hardening
 * factor is below PW_STATS_BROKEN of their initial stiffness (J_P > 1 + ln(100) / xi),
 * and links the others as above: a piece is a connected set of snow that still holds
 * together. Broken particles are loose snow; their share is reported.
 *
 * Chunks. The critical compression and stretch set *when* snow starts to break, the
 * hardening coefficient how fast it then goes (section 5): powdery snow starts to fail
 * throughout the block, chunky snow only along a few cracks between large sound
 * blocks. So a third count leaves out the weakened particles, those hardening has left
 * with less than PW_STATS_WEAK of their stiffness (J_P > 1 + ln 2 / xi), and links the
 * others: a chunk is a connected set of sound snow. Their particle-weighted mean size,
 * sum_k (n_k / n)^2, is the share of the snow in the chunk a particle picked at random
 * belongs to (none for a weakened one): small when the snow is powder or in small
 * chunks, large when it is in a few big ones. Unlike a count of chunks it is not swayed
 * by the grid-scale specks every crack sheds (sim/docs/wedge-critical-order.md).
 *
 * Crumbs. What a viewer sees of a breakup is how the snow is shared among the pieces
 * that have moved apart, whatever the state of the snow inside them: the share of the
 * snow in crumbs (fragments smaller than a share of the body, PW_STATS_CRUMB by default:
 * specks and clods the eye reads as powder), the particle-weighted median fragment size
 * (half the snow is in fragments at most this large; for snow of one density it is the
 * mass-weighted median) and the count of fragments >= PW_STATS_SHARE (separated chunks:
 * a crack that has not opened leaves one fragment, however weak its snow, which the weak
 * share reports) (sim/docs/fig8-visible-breakup.md).
 *
 * Plates. Layered snow (seed.h) labels its particles by seeded layer; the top layer's
 * intact particles, linked as above, form its plates: a crust broken by a foot is in
 * several, a crust that bent or compacted without breaking stays one. Plates holding at
 * least PW_STATS_SHARE of the top layer's particles are counted
 * (sim/docs/layered-snow.md).
 *
 * Damage. Snow of the optional laws (seed.h) carries a durability, 1 intact, falling to
 * 0 as plastic stretch breaks its bonds (its cohesion goes with it); where the frame has
 * it, the mass-weighted mean durability and the mass share of damaged snow (durability
 * below PW_STATS_DAMAGED) are reported. */
#ifndef PW_STATS_H
#define PW_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "pw_cache.h"
#include "pw_error.h"
#include "pw_math.h"

#define PW_STATS_LINK_H 0.7 /* default link distance [h] at 8 particles per cell */

/* The default link distance [h] for snow seeded at ppc particles per cell:
 * 0.7 h (8 / ppc)^0.6, never below PW_STATS_LINK_H (0.7 h at 8 per cell and above,
 * 0.93 h at 5, 1.06 h at 4). Seeding is jittered, so the link must span the tail of
 * the neighbour distances, which grows faster than the mean spacing h / cbrt(ppc) as
 * ppc falls; a fixed 0.7 h split an intact ball at 4 per cell into 42 fragments
 * (sim/docs/stats-default-link.md). */
double pw_stats_default_link_h(double ppc);
#define PW_STATS_SHARE 0.01 /* a "large" fragment holds at least this share of particles */
#define PW_STATS_MAX_COLLIDERS 16
#define PW_STATS_BROKEN 0.01 /* hardening factor below which a particle holds nothing */
#define PW_STATS_WEAK 0.5 /* hardening factor below which a particle has started to break */
#define PW_STATS_CRUMB 0.001 /* default: fragments below this share of the particles are crumbs */
#define PW_STATS_ICE_DENSITY 917.0 /* [kg/m^3] ice: compacted snow cannot get denser */
#define PW_STATS_DAMAGED 0.5 /* durability below which snow counts as damaged */

typedef struct {
    size_t particles;
    double link;               /* link distance used [m]                                  */
    size_t fragments;          /* connected sets of particles (singletons included)       */
    size_t fragments_large;    /* fragments holding >= PW_STATS_SHARE of the particles    */
    double in_large_share;     /* share of the particles in those fragments: the snow that
                                  is in chunks; the rest is powder and small debris [-]   */
    size_t fragments_5;        /* fragments of at least 5 particles                       */
    double crumb_limit;        /* the crumb size used, a share of the particles [-]        */
    double crumb_share;        /* share of the particles in fragments smaller than
                                  crumb_limit: the snow seen as powder and crumbs [-]     */
    double median_fragment;    /* particle-weighted median fragment size: the smallest size
                                  s such that fragments of at most s particles hold at
                                  least half of them, as a share of the particles [-]     */
    double largest_share;      /* particles in the largest fragment / particles [-]       */
    double second_share;       /* the same for the second largest [-]                     */
    double broken_share;       /* share of broken particles (loose snow) [-]              */
    size_t pieces_large;       /* pieces (intact particles only) >= PW_STATS_SHARE of all */
    double largest_piece;      /* particles in the largest piece / all particles [-]      */
    double second_piece;       /* the same for the second largest piece [-]               */
    double weak_share;         /* share of weakened particles (started to break) [-]       */
    double chunk_mean;         /* particle-weighted mean size of the chunks (sound snow
                                  only), sum_k (n_k / n)^2 [-]                            */
    double jp_min, jp_mean, jp_max;  /* J_P = det F_P [-] (1 when the frame has no Jp)    */
    double kinetic_energy;     /* sum 1/2 m |v|^2 [J]                                     */
    double elastic_energy;     /* sum V0 Psi(F_E) with the hardened mu, lambda (eqs. 1-2)
                                  [J]; 0 when the frame lacks F_E (has_elastic 0: a slim
                                  render cache)                                           */
    int has_elastic;           /* 1 when elastic_energy was measured                      */
    double rho_median, rho_max; /* the snow's density m / (V0 J_P J_E) over the particles:
                                  median and largest [kg/m^3]                         */
    double ice_share;          /* share of particles denser than ice (PW_STATS_ICE_DENSITY),
                                  what compaction the model does not bound produces [-]  */
    int has_density;           /* 1 when the densities were measured: the frame has m, F_E
                                  and V0, and V0 has been estimated (a seeded frame 0 has
                                  V0 = 0 until the first step measures it)               */
    double potential_energy;   /* sum -m g . x, relative to the origin [J]; 0 without g   */
    double mass;               /* [kg]                                                    */
    vec3 momentum;             /* sum m v [kg m/s]                                        */
    vec3 lo, hi;               /* bounding box of the particle positions [m]              */
    double top99;              /* height (along -gravity, y without it) below which 99 %
                                  of the particles lie, nearest rank [m]: how high the bulk
                                  of the snow reaches; unlike the box it ignores the few
                                  highest specks, so it rises only when a spray or an
                                  eruption lifts a share of the snow                       */
    int has_layers;            /* 1 when the particles carry seeded layers (the measures
                                  of the top layer below are then filled)                 */
    size_t top_particles;      /* particles of the top layer (label 1)                    */
    size_t top_fragments;      /* its fragments, singletons included                     */
    size_t top_plates;         /* its pieces (intact particles) of >= PW_STATS_SHARE of
                                  its particles: the plates a crust broke into            */
    double top_largest_plate;  /* particles in its largest piece / its particles [-]      */
    double top_broken_share;   /* share of its particles that are broken [-]              */
    size_t top_chunks;         /* its chunks (sound particles) of >= PW_STATS_SHARE of it */
    double top_weak_share;     /* share of its particles that are weakened [-]            */
    int has_durability;        /* 1 when the particles carry a durability (optional laws) */
    double damaged_share;      /* mass share of the snow with durability below
                                  PW_STATS_DAMAGED [-]                                    */
    double durability_mean;    /* mass-weighted mean durability [-] (1: all intact)       */
    int n_colliders;
    double near_share[PW_STATS_MAX_COLLIDERS]; /* share of particles with phi < 2 h of
                                                  collider k at the frame's time [-]      */
} pw_frame_stats;

/* Particle arrays the measures need. v, m, Jp and xi may be NULL (their measures are
 * then 0, 0 and 1; without Jp or xi no particle counts as broken). The elastic energy
 * needs Fe, V0, mu0, lambda0, Jp_min, Jp_max, Jp and xi (else it is 0): with them the
 * sum of kinetic, potential and elastic energy is the mechanical energy the model
 * holds, so a frame-to-frame rise shows energy the model made, a fall what plasticity
 * and friction took. */
typedef struct {
    size_t n;
    const vec3 *x;       /* [m]   */
    const vec3 *v;       /* [m/s] */
    const double *m;     /* [kg]  */
    const double *Jp;    /* [-]   */
    const double *xi;    /* [-] hardening coefficient */
    const mat3 *Fe;      /* elastic deformation gradient */
    const double *V0;    /* [m^3] initial volume */
    const double *mu0, *lambda0;    /* [Pa] Lame parameters before hardening */
    const double *Jp_min, *Jp_max;  /* [-] the bounds the solver clamps J_P to in eq. 2 */
    vec3 gravity;        /* [m/s^2] for the potential energy; zero = none */
    const double *rho;   /* [kg/m^3] the density as stored (slim render caches keep it in
                            place of F_E and V0), 0 where not yet known; NULL = from F_E,
                            V0 and J_P */
    const uint32_t *layer; /* seeded layer, 1 = top (seed.h); NULL = no layers */
    double crumb;        /* [-] crumb size, a share of the particles in (0, 1); 0 =
                            PW_STATS_CRUMB */
    const double *durability; /* [-] the optional laws' (seed.h); NULL = none. Damage is
                            weighed by m (each particle alike without m) */
    const uint32_t *law; /* PW_LAW_* bits and the rest density [kg/m^3] measured on the
                            grid: with them (and m), the elastic energy hardens by the
                            J_P the solver uses (pw_law_Jp: under density hardening
                            m / (V0 rho_rest)); NULL = det F_P (Jp) for every particle */
    const double *rho_rest;
} pw_stats_particles;

/* Whether every particle's density is known: stored and positive, or V0 positive with F_E
 * (the first step estimates V0 from the grid; before it, a frame has no densities). */
int pw_stats_densities_known(const pw_stats_particles *p);

/* Density of particle i [kg/m^3]: as stored, else m / (V0 J_P det F_E). Only where
 * pw_stats_densities_known. */
double pw_stats_density(const pw_stats_particles *p, size_t i);

/* Reads from the frame cache at path into *cf the positions, masses and J_P (and the
 * velocities with want_v), and what gives the densities: F_E and V0 from a full cache,
 * the stored density from a slim one (neither: p->Fe and p->rho stay NULL), and points
 * *p at them. @return PW_OK; PW_EFORMAT naming the file and the attribute; as
 * pw_cache_read_f64. On failure nothing is left to free. */
pw_status pw_stats_cache_read_masses(const char *path, int want_v, pw_cache_frame *cf,
                                     pw_stats_particles *p, pw_error *err);

/* Fills *st for the particles p. link [m] > 0 is the link distance of the fragment
 * count. Colliders: each of the n_colliders descriptions (may be 0) is measured alone
 * at time t [s] with grid spacing h [m] (for mesh SDFs and the 2 h band).
 * @return PW_OK; PW_ENOMEM; PW_EINVAL for a non-finite position, link <= 0 or a crumb
 * size outside [0, 1). */
pw_status pw_stats_compute(const pw_stats_particles *p, double link, double h,
                           const pw_collider_desc *colliders, int n_colliders, double t,
                           pw_frame_stats *st, pw_error *err);

/* Fragment labels only: label[i] in [0, *n_fragments) for particle i, numbered by the
 * lowest particle index in each fragment (so the labelling is canonical). label may be
 * NULL to count only. @return PW_OK, PW_ENOMEM or PW_EINVAL (as above). */
pw_status pw_stats_fragments(const vec3 *x, size_t n, double link, uint32_t *label,
                             size_t *n_fragments, pw_error *err);

/* Reads the attributes the measures need from a frame cache at path (x, v, m, Jp, xi,
 * and for the elastic energy Fe, V0, mu0, lambda0, Jp_min, Jp_max (with law and
 * rho_rest), and layer and durability, when the cache has them), then computes as
 * pw_stats_compute with the cache's h and time, the given gravity [m/s^2] and crumb
 * size crumb [-] (0 = PW_STATS_CRUMB). */
pw_status pw_stats_cache(const char *path, double link_h, double crumb, vec3 gravity,
                         const pw_collider_desc *colliders, int n_colliders,
                         pw_frame_stats *st, pw_error *err);

/* Gathered snow: the snow a collider carries, as a rolling snowball's core carries the
 * snow it has picked up (Stomakhin et al. 2013, Fig. 1). A particle moves with the
 * collider when its velocity is within PW_GATHER_SLIP U of the collider's rigid velocity
 * at its position (U: the root mean square of that velocity over the particles touching
 * the collider, within PW_GATHER_TOUCH_H h of its surface); the gathered snow is every
 * connected piece (the fragments' link) of such particles that holds one touching the
 * collider. Snow at rest around a moving collider is not gathered, however close it
 * lies (the field a ball rolls on, the track it leaves), but the snow it carries is,
 * however far it reaches from the surface. Where the ball meets the field both move
 * alike, so a thin band of field snow at the contact, within about PW_GATHER_SLIP of the
 * rolling radius of the contact line, counts too (sim/docs/rolling-snowball.md). A
 * deforming mesh's own surface motion is not included, its rigid keys are. */
#define PW_GATHER_SLIP 0.25  /* velocity tolerance, a share of the collider's speed U */
#define PW_GATHER_TOUCH_H 2.0 /* touching: within this many h of the surface */

typedef struct {
    size_t particles;       /* gathered particles                                       */
    double mass;            /* their mass [kg]                                          */
    double volume;          /* their volume, sum m / rho [m^3] (0 without densities)   */
    double radius;          /* equivalent radius [m]: the sphere holding the gathered
                               snow's volume and the collider's own (sphere, box and
                               cylinder; a mesh or half-space counts 0)               */
    double rho;             /* their density, mass / volume [kg/m^3]                    */
    double rho_rest;        /* the same over all other snow [kg/m^3]                    */
    double jp_mean;         /* their mass-weighted mean J_P [-] (< 1: compacted)        */
    double jp_rest;         /* the same over all other snow [-]                         */
    double speed;           /* U [m/s]; 0 when nothing touches the collider            */
    int has_density;        /* 1 when volume, radius and the densities were measured    */
} pw_gathered;

/* The snow collider `collider` carries at time t [s] (above), with link distance link
 * [m] and grid spacing h [m]. p needs x, v, m and Jp, and for the densities either rho
 * or Fe and V0 (all V0 > 0). gathered may be NULL; else gathered[i] is 1 for the
 * particles counted, 0 for the others.
 * @return PW_OK, PW_ENOMEM, PW_EINVAL (as pw_stats_compute, or a missing x, v, m). */
pw_status pw_stats_gathered(const pw_stats_particles *p, double link, double h,
                            const pw_collider_desc *collider, double t, pw_gathered *g,
                            uint8_t *gathered, pw_error *err);

/* The same for the frame cache at path (its h and time), link_h [h] as pw_stats_cache. */
pw_status pw_stats_cache_gathered(const char *path, double link_h,
                                  const pw_collider_desc *collider, pw_gathered *g,
                                  pw_error *err);

/* How the snow's top surface changed against a reference frame (usually the first): the
 * prints a foot leaves, the pit a pick digs, the track and berm of a plough. Heights are
 * along -gravity (y when gravity is zero); the surface of a column (a square of side
 * `cell` across that axis, the grid spacing h) is its highest particle. Columns without
 * snow in the reference are not measured (no surface to compare with); spray above a
 * column counts as a rise. Jittered seeding makes the top of a column vary by about a
 * quarter of the particle spacing, so changes below cell/2 are within that noise. */
typedef struct {
    double deepest;     /* [m] the largest lowering of a column's top                 */
    vec3 deepest_at;    /* [m] that column's centre, at its present top                */
    double highest;     /* [m] the largest rise                                        */
    double lowered_area;/* [m^2] columns lowered by more than cell/2                   */
    double dug_volume;  /* [m^3] sum of the lowerings times the column area            */
    double heaped_volume; /* [m^3] sum of the rises times the column area              */
    size_t columns;     /* columns with snow in the reference                          */
    size_t emptied;     /* of those, columns with no snow left (dug to the ground or
                           blown away), in neither volume                             */
    double cell;        /* [m] column side                                             */
    /* With densities: the snow just under the surface, PW_SURFACE_SKIN columns' widths
     * below each column's present top, as mass over volume (sum m / sum m/rho): what a
     * foot or a wheel compacted, against the snow no print reached. */
    double rho_print;   /* [kg/m^3] under the lowered columns (0: none lowered)        */
    double rho_field;   /* [kg/m^3] under the columns that moved by less than cell/2   */
    int has_density;    /* 1 when the two densities were measured                      */
} pw_surface_change;
#define PW_SURFACE_SKIN 2.0

/* The change from the particles x_ref to x (either set may be empty). m and rho, the
 * measured particles' masses and densities, may both be NULL (no densities). PW_EINVAL
 * for a non-finite position or cell <= 0, or columns spread over more than 10^8 cells;
 * PW_ENOMEM. */
pw_status pw_surface_change_of(const vec3 *x_ref, size_t n_ref, const vec3 *x, const double *m,
                               const double *rho, size_t n, vec3 gravity, double cell,
                               pw_surface_change *out, pw_error *err);

/* The same between two frame caches, with columns of the measured cache's h and its
 * densities when it has them. */
pw_status pw_stats_cache_surface(const char *ref_path, const char *path, vec3 gravity,
                                 pw_surface_change *out, pw_error *err);

/* The snow that fell on a region (sim/emit.h's sources): over columns of side `cell`
 * across the rectangle [x0, x1] x [z0, z1] above the floor y0, the top of each column is
 * its highest landed particle plus half that particle's own size (cbrt(m / rho)), and
 * the depth its height over y0 (0 where no snow is). Snow still in the air (a positive
 * drag) is counted apart and nowhere else. depth_of_mass is the depth the region's mass
 * would have if its particles' own volumes tiled the layer: against depth_mean it tells
 * whether the particles packed as densely as their densities say (loosely sampled MPM
 * particles need not: Gissler et al. 2020, Fig. 12). */
#define PW_LAYER_BINS 4
typedef struct {
    double x0, z0, x1, z1; /* [m] */
    double y0;             /* [m] the floor the depth is measured from */
} pw_layer_region;

typedef struct {
    double mass_emitted;  /* [kg] the sources' by the frame's time (-1: not recorded) */
    double mass_present;  /* [kg] of every particle of the frame                      */
    double mass_in_air;   /* [kg] of the snow still in flight                         */
    double mass;          /* [kg] landed snow over the region, above the floor        */
    size_t columns;
    double cell, area;    /* [m], [m^2] the columns' side and their total area         */
    double covered;       /* share of the columns with snow                           */
    double depth_mean, depth_max; /* [m]                                               */
    double rho_mean;      /* [kg/m^3] mass over the sum of the particles' volumes m/rho */
    double rho_core;      /* [kg/m^3] the same over the snow 2 cells or more below its
                             column's top (0: none that deep)                          */
    double depth_of_mass; /* [m] mass / (area rho_core), or rho_mean without a core     */
    double rho_bin[PW_LAYER_BINS]; /* [kg/m^3] the same by depth below each column's top,
                             in PW_LAYER_BINS equal parts from the top (0: none there) */
    int has_density;
} pw_layer_stats;

/* drag may be NULL (nothing in flight). PW_EINVAL for an empty region or cell <= 0, or
 * over 1e8 columns; PW_ENOMEM. */
pw_status pw_layer_stats_of(const pw_stats_particles *p, const double *drag,
                            const pw_layer_region *r, double cell, pw_layer_stats *out,
                            pw_error *err);

/* The same for the frame cache at path, with columns of its h. */
pw_status pw_stats_cache_layer(const char *path, const pw_layer_region *r, pw_layer_stats *out,
                               pw_error *err);

#endif
