/* particles.h — the per-particle fields of the solver, listed once (internal to sim/).
 *
 * pw_particles (mpm_internal.h) holds one array per field. The table below names each
 * field's cache attribute, scalar type and components, and where the seeder supplies
 * it; reserve, free, the sort's reorder, adding seeded particles, save and load all
 * loop over it. A new per-particle field is its member in pw_particles (and in
 * pw_seeded when seeding sets it) and one line in particles.c. */
#ifndef PW_PARTICLES_H
#define PW_PARTICLES_H

#include <stddef.h>
#include <stdint.h>

#include "pw_cache.h"
#include "pw_error.h"

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
                               was added; so other runs' caches keep their bytes */
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

#endif
