/* particles.h — the per-particle fields of the solver, listed once (internal to sim/).
 *
 * pw_particles (below) holds one array per field. The table below names each
 * field's cache attribute, scalar type and components, and where the seeder supplies
 * it; reserve, free, the sort's reorder, adding seeded particles, save and load all
 * loop over it. A new per-particle field is its member in pw_particles (and in
 * pw_seeded when seeding sets it) and one line in particles.c. */
#ifndef PW_PARTICLES_H
#define PW_PARTICLES_H

#include <stddef.h>
#include <stdint.h>

#include "material.h"
#include "pw_cache.h"
#include "pw_error.h"
#include "pw_math.h"

typedef struct pw_particles pw_particles;
typedef struct pw_seeded pw_seeded;

#define PW_NOT_SEEDED ((size_t)-1)
#define PW_PARTICLE_MAX_FIELDS 32 /* room in fixed arrays over the fields */

typedef struct {
    const char *name;       /* cache attribute, also the member's name              */
    pw_scalar_type type;
    uint32_t components;    /* scalars per particle: 1, 3 or 9                      */
    size_t offset;          /* of the array pointer in pw_particles                 */
    size_t seeded_offset;   /* of the array pointer in pw_seeded, or PW_NOT_SEEDED:
                               the solver sets the initial value (pw_sim_add_particles) */
    int apic_only;          /* 1: held, sorted and saved under APIC only (a PIC/FLIP
                               run neither stores nor writes it); 2: only when resting
                               snow sleeps (rest_speed > 0); 3: only once a layered
                               body was added; 4: only once a body of an optional law
                               was added; 5: once a snow source was added; so other
                               runs' caches keep their bytes */
    int optional;           /* zero where a seeded set leaves it NULL or an older
                               checkpoint lacks it                                   */
} pw_particle_field;

extern const pw_particle_field pw_particle_fields[];
extern const int pw_particle_field_count;

/* Whether pt holds field f: fields marked apic_only only under APIC (1), when snow
 * may rest (2) or once layered snow was added (3). */
int pw_particle_field_held(const pw_particles *pt, const pw_particle_field *f);

/* Starts holding the layer field (zero for the particles already there, pt->layered =
 * 1); no-op when held. PW_ENOMEM names the count. */
pw_status pw_particles_hold_layers(pw_particles *pt, pw_error *err);

/* Starts holding the optional laws' fields (seed.h: law, friction_angle, cohesion,
 * durability_rate, durability, rho_rest); the particles already there get the 2013 law
 * and durability 1 (pt->laws = 1); no-op when held. PW_ENOMEM names the count. */
pw_status pw_particles_hold_laws(pw_particles *pt, pw_error *err);

/* Starts holding the snowfall's field (drag, zero for the particles already there:
 * none of them is in flight; pt->emits = 1); no-op when held. PW_ENOMEM names the count. */
pw_status pw_particles_hold_emission(pw_particles *pt, pw_error *err);

/* Starts a body at id first (the particles one pw_sim_add_particles call adds, ids
 * [first, the next body's first)); first must exceed the last body's. PW_ENOMEM names
 * the count. */
pw_status pw_particles_add_body(pw_particles *pt, uint32_t first, pw_error *err);

/* The body of the particle with this id: 0 .. pt->n_bodies - 1 (0 when there is none). */
uint32_t pw_particles_body_of(const pw_particles *pt, uint32_t id);

/* Bytes per particle of field f. */
size_t pw_particle_field_bytes(const pw_particle_field *f);

/* The address of field f's array pointer in pt (or, for seeded fields, in a seeded
 * set). */
void **pw_particle_array(pw_particles *pt, const pw_particle_field *f);
void **pw_seeded_array(pw_seeded *s, const pw_particle_field *f);

/* Grows every array of pt to hold cap particles (pt->cap = cap); PW_ENOMEM names the
 * count. Never shrinks. */
pw_status pw_particles_reserve(pw_particles *pt, size_t cap, pw_error *err);

/* Frees every array of pt and zeroes it. */
void pw_particles_free(pw_particles *pt);

/* Particle state, structure of arrays (all n entries); the fields are listed once, in
 * particles.c, for everything that handles them as a set. */
struct pw_particles {
    size_t n, cap;
    int apic;         /* the fields marked apic_only are held (else NULL, not saved) */
    vec3 *x;          /* [m]                                        */
    vec3 *v;          /* [m/s]                                      */
    double *m;        /* [kg]                                       */
    double *V0;       /* [m^3] initial volume (0 until initialised) */
    mat3 *Fe, *Fp;    /* elastic and plastic deformation gradients  */
    mat3 *C;          /* [1/s] APIC affine velocity                 */
    double *mu0, *lambda0;  /* [Pa]                                 */
    double *xi, *theta_c, *theta_s, *Jp_min, *Jp_max; /* [-]        */
    double *Jp_floor; /* [-] least J_P plastic compaction reaches (0 = none) */
    uint32_t *id;     /* index in the order of addition             */
    int rests;        /* snow may rest: `rest` is held                */
    uint32_t *rest;   /* steps at rest in a row (rest.c)             */
    int layered;      /* a layered body was added: `layer` is held    */
    uint32_t *layer;  /* seeded layer, 1 = top, 0 = body material (seed.h); only
                         measured (pw_stats.h), the step never reads it */
    int laws;         /* a body of one of the optional laws was added: the fields
                         below are held (sim/docs/durable-snow.md)                 */
    uint32_t *law;    /* PW_LAW_* bits (material.h)                                  */
    double *friction_angle; /* [rad] Drucker-Prager                                 */
    double *cohesion; /* [Pa] of intact snow; durability scales it                  */
    double *durability_rate; /* [-] per unit plastic stretch                        */
    double *durability; /* [-] 1 intact, falls to 0, never rises                    */
    double *rho_rest; /* [kg/m^3] rho |det Fe| measured on the grid (0: not yet)     */
    int emits;        /* a snow source was added (emit.h): `drag` is held            */
    double *drag;     /* [1/s] a flake's relaxation rate toward the air's velocity,
                         |g| / its terminal speed, while it is in the air; 0 once it
                         has landed (or for snow that never flew)                  */
    /* Bodies: the particles of one pw_sim_add_particles call, ids [body_start[b],
     * body_start[b + 1]) (the last to n). A particle's first rest volume counts only
     * its own body's mass (transfer.c, step 2). */
    uint32_t *body_start;
    size_t n_bodies, cap_bodies;
};

/* J_P as eq. 2's hardening reads it, clamped to the particle's [Jp_min, Jp_max]: det Fp,
 * or under density hardening rho0 / rho_rest, the seeded density over the rest density
 * measured on the grid (Gissler et al. 2020, eq. 21-23; sim/docs/durable-snow.md) once
 * it has been measured. */
static inline double pw_particle_Jp(const pw_particles *pt, size_t p)
{
    return pw_law_Jp(pt->laws ? pt->law[p] : PW_LAW_CLAMP, m3_det(pt->Fp[p]), pt->m[p],
                     pt->V0[p], pt->laws ? pt->rho_rest[p] : 0, pt->Jp_min[p], pt->Jp_max[p]);
}

#endif
