/* particles.c — the table of per-particle fields; see particles.h. */
#include "particles.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "mpm_internal.h"
#include "seed.h"

#define PT(f) offsetof(pw_particles, f)
#define SD(f) offsetof(pw_seeded, f)

/* In cache order: checkpoints list their attributes in this order. */
const pw_particle_field pw_particle_fields[] = {
    {"x", PW_F64, 3, PT(x), SD(x), 0, 0},
    {"v", PW_F64, 3, PT(v), SD(v), 0, 0},
    {"m", PW_F64, 1, PT(m), SD(m), 0, 0},
    {"V0", PW_F64, 1, PT(V0), SD(V0), 0, 0},
    {"Fe", PW_F64, 9, PT(Fe), SD(Fe), 0, 0},
    {"Fp", PW_F64, 9, PT(Fp), PW_NOT_SEEDED, 0, 0},
    {"C", PW_F64, 9, PT(C), PW_NOT_SEEDED, 1, 0},
    {"mu0", PW_F64, 1, PT(mu0), SD(mu0), 0, 0},
    {"lambda0", PW_F64, 1, PT(lambda0), SD(lambda0), 0, 0},
    {"xi", PW_F64, 1, PT(xi), SD(xi), 0, 0},
    {"theta_c", PW_F64, 1, PT(theta_c), SD(theta_c), 0, 0},
    {"theta_s", PW_F64, 1, PT(theta_s), SD(theta_s), 0, 0},
    {"Jp_min", PW_F64, 1, PT(Jp_min), SD(Jp_min), 0, 0},
    {"Jp_max", PW_F64, 1, PT(Jp_max), SD(Jp_max), 0, 0},
    {"id", PW_U32, 1, PT(id), PW_NOT_SEEDED, 0, 0},
    {"Jp_floor", PW_F64, 1, PT(Jp_floor), SD(Jp_floor), 0, 1},
    /* steps at rest in a row (resting snow, rest.c); a checkpoint without it wakes all */
    {"rest", PW_U32, 1, PT(rest), SD(rest), 2, 1},
    /* the seeded layer (seed.h), for measures; held once a layered body is added */
    {"layer", PW_U32, 1, PT(layer), SD(layer), 3, 1},
    /* the optional laws (seed.h), held once a body of such a material is added */
    {"law", PW_U32, 1, PT(law), SD(law), 4, 0},
    {"friction_angle", PW_F64, 1, PT(friction_angle), SD(friction_angle), 4, 0},
    {"cohesion", PW_F64, 1, PT(cohesion), SD(cohesion), 4, 0},
    {"durability_rate", PW_F64, 1, PT(durability_rate), SD(durability_rate), 4, 0},
    {"durability", PW_F64, 1, PT(durability), SD(durability), 4, 0},
    {"rho_rest", PW_F64, 1, PT(rho_rest), SD(rho_rest), 4, 0},
    /* snowfall (emit.h): the drag of a flake still in the air; held once a source is */
    {"drag", PW_F64, 1, PT(drag), PW_NOT_SEEDED, 5, 0},
};
#define FIELD_COUNT (sizeof pw_particle_fields / sizeof pw_particle_fields[0])
_Static_assert(FIELD_COUNT <= PW_PARTICLE_MAX_FIELDS, "raise PW_PARTICLE_MAX_FIELDS");
const int pw_particle_field_count = (int)FIELD_COUNT;

size_t pw_particle_field_bytes(const pw_particle_field *f)
{
    return f->components * pw_scalar_size(f->type);
}

void **pw_particle_array(pw_particles *pt, const pw_particle_field *f)
{
    return (void **)((char *)pt + f->offset);
}

void **pw_seeded_array(pw_seeded *s, const pw_particle_field *f)
{
    return f->seeded_offset == PW_NOT_SEEDED ? NULL : (void **)((char *)s + f->seeded_offset);
}

int pw_particle_field_held(const pw_particles *pt, const pw_particle_field *f)
{
    return !f->apic_only || (f->apic_only == 1 && pt->apic) || (f->apic_only == 2 && pt->rests) ||
           (f->apic_only == 3 && pt->layered) || (f->apic_only == 4 && pt->laws) ||
           (f->apic_only == 5 && pt->emits);
}

pw_status pw_particles_hold_layers(pw_particles *pt, pw_error *err)
{
    if (pt->layered) return PW_OK;
    size_t cap = pt->cap ? pt->cap : 1;
    uint32_t *layer = calloc(cap, sizeof *layer);
    if (!layer) return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu particles", cap);
    free(pt->layer);
    pt->layer = layer;
    pt->layered = 1;
    return PW_OK;
}

/* Starts holding the fields of one group (apic_only == group), zeroed for the
 * particles already there. */
static pw_status hold_group(pw_particles *pt, int group, pw_error *err)
{
    size_t cap = pt->cap ? pt->cap : 1;
    for (int k = 0; k < pw_particle_field_count; k++) {
        const pw_particle_field *f = &pw_particle_fields[k];
        if (f->apic_only != group) continue;
        void **a = pw_particle_array(pt, f);
        free(*a);
        if (!(*a = calloc(cap, pw_particle_field_bytes(f)))) {
            for (int j = 0; j <= k; j++)
                if (pw_particle_fields[j].apic_only == group) {
                    free(*pw_particle_array(pt, &pw_particle_fields[j]));
                    *pw_particle_array(pt, &pw_particle_fields[j]) = NULL;
                }
            return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu particles", cap);
        }
    }
    return PW_OK;
}

pw_status pw_particles_hold_laws(pw_particles *pt, pw_error *err)
{
    if (pt->laws) return PW_OK;
    pw_status rc = hold_group(pt, 4, err);
    if (rc != PW_OK) return rc;
    /* the particles already there are of the 2013 law, intact */
    for (size_t p = 0; p < pt->n; p++) {
        pt->law[p] = PW_LAW_CLAMP;
        pt->durability[p] = 1;
    }
    pt->laws = 1;
    return PW_OK;
}

pw_status pw_particles_hold_emission(pw_particles *pt, pw_error *err)
{
    if (pt->emits) return PW_OK;
    pw_status rc = hold_group(pt, 5, err); /* (the particles already there: not in flight) */
    if (rc == PW_OK) pt->emits = 1;
    return rc;
}

pw_status pw_particles_reserve(pw_particles *pt, size_t cap, pw_error *err)
{
    if (cap <= pt->cap) return PW_OK;
    for (int k = 0; k < pw_particle_field_count; k++) {
        if (!pw_particle_field_held(pt, &pw_particle_fields[k])) continue;
        void **a = pw_particle_array(pt, &pw_particle_fields[k]);
        void *q = realloc(*a, cap * pw_particle_field_bytes(&pw_particle_fields[k]));
        if (!q) return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu particles", cap);
        *a = q;
    }
    pt->cap = cap;
    return PW_OK;
}

void pw_particles_free(pw_particles *pt)
{
    for (int k = 0; k < pw_particle_field_count; k++) {
        void **a = pw_particle_array(pt, &pw_particle_fields[k]);
        free(*a);
        *a = NULL;
    }
    free(pt->body_start);
    pt->body_start = NULL;
    pt->n = pt->cap = pt->n_bodies = pt->cap_bodies = 0;
}

pw_status pw_particles_add_body(pw_particles *pt, uint32_t first, pw_error *err)
{
    assert(pt->n_bodies == 0 || first > pt->body_start[pt->n_bodies - 1]);
    if (pt->n_bodies == pt->cap_bodies) {
        size_t c = pt->cap_bodies ? 2 * pt->cap_bodies : 8;
        uint32_t *q = realloc(pt->body_start, c * sizeof *q);
        if (!q) return pw_fail(err, PW_ENOMEM, "sim: cannot allocate %zu bodies", c);
        pt->body_start = q;
        pt->cap_bodies = c;
    }
    pt->body_start[pt->n_bodies++] = first;
    return PW_OK;
}

uint32_t pw_particles_body_of(const pw_particles *pt, uint32_t id)
{
    /* the last body starting at or before id */
    size_t lo = 0, hi = pt->n_bodies;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pt->body_start[mid] <= id) lo = mid;
        else hi = mid;
    }
    return (uint32_t)lo;
}
