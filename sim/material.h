/* material.h — what a snow material is: the numbers of Stomakhin et al. 2013, Table 2,
 * the compaction limits, section 10's per-particle variation, and the optional laws
 * (sim/docs/durable-snow.md); the one table of their ranges, which the scene parser,
 * seeding and the solver all read, and the rules between them. */
#ifndef PW_MATERIAL_H
#define PW_MATERIAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"

typedef struct {
    char name[64];
    double E0;             /* Young's modulus [Pa]          (Table 2: 1.4e5) */
    double nu;             /* Poisson's ratio [-]           (0.2)            */
    double xi;             /* hardening coefficient [-]     (10)             */
    double theta_c;        /* critical compression [-]      (2.5e-2)         */
    double theta_s;        /* critical stretch [-]          (7.5e-3)         */
    double rho0;           /* initial density [kg/m^3]      (400)            */
    double Jp_min, Jp_max; /* clamp of J_P so hardening stays finite ([0.6, 20]) */
    double rho_max;        /* [kg/m^3] the densest plastic compaction makes the snow: J_P
                              stops at rho / rho_max, rho the particle's seeded density
                              (0 = no limit, the 2013 model) */
    double Jp_floor;       /* [-] the least J_P plastic compaction reaches, one value for
                              every particle of the material (0 = none); with rho_max the
                              higher floor holds */
    double E_noise;        /* relative amplitude of multiplicative noise on E (0 = none) */
    double noise_scale;    /* [m] feature size of that noise                 */
    double shell_depth;    /* [m] thickness of the harder, denser outer shell (0 = none) */
    double shell_E_factor; /* E multiplier at the surface, blending to 1 at shell_depth */
    double shell_rho_factor; /* density multiplier at the surface, likewise   */
    /* The optional laws (sim/docs/durable-snow.md); at their defaults the material is the
     * 2013 paper's and its particles hold none of the fields below. */
    int plasticity;        /* PW_PLASTICITY_*: which yield law bounds Fe             */
    int hardening;         /* PW_HARDENING_*: what the hardening exponent measures   */
    double friction_angle; /* [deg] Drucker-Prager friction angle, in (0, 90) with it */
    double cohesion;       /* [Pa] Drucker-Prager cohesion of intact snow            */
    double durability_rate; /* [-] durability lost per unit plastic stretch (0 = none):
                               durability falls from 1 to 0 over 1/rate of it, and takes
                               the cohesion down with it */
} pw_material;

enum {
    PW_PLASTICITY_CLAMP = 0,          /* "clamp": eq. 11's [1 - theta_c, 1 + theta_s]  */
    PW_PLASTICITY_DRUCKER_PRAGER = 1, /* "drucker_prager": friction and cohesion only */
    PW_PLASTICITY_CLAMP_DRUCKER_PRAGER = 2, /* "clamp+drucker_prager": both, in that order */
    PW_PLASTICITY_MOHR_COULOMB = 3,   /* "mohr_coulomb": friction and cohesion on the
                                         Mohr-Coulomb pyramid instead of the cone */
    PW_PLASTICITY_CLAMP_MOHR_COULOMB = 4, /* "clamp+mohr_coulomb" */
    PW_PLASTICITY_LAST = PW_PLASTICITY_CLAMP_MOHR_COULOMB
};
enum {
    PW_HARDENING_PLASTIC = 0, /* "plastic": e^{xi (1 - J_P)}, J_P = det Fp (eq. 2)      */
    PW_HARDENING_DENSITY = 1  /* "density": J_P read from the grid's density instead,
                                 rho0 / (rho |det Fe|) (Gissler et al. 2020, eq. 21-23) */
};
/* The names of the values above, in their order, NULL-terminated. */
extern const char *const pw_plasticity_names[];
extern const char *const pw_hardening_names[];

/* A particle's law, bits of its `law` field. A particle of a 2013 material holds no
 * such field (its law is PW_LAW_CLAMP). */
#define PW_LAW_CLAMP 1u
#define PW_LAW_DRUCKER_PRAGER 2u
#define PW_LAW_DENSITY_HARDENING 4u
#define PW_LAW_MOHR_COULOMB 8u
/* the laws that bound shear by friction and tension by cohesion: their particles' fields
 * friction_angle, cohesion and durability are read */
#define PW_LAW_FRICTION (PW_LAW_DRUCKER_PRAGER | PW_LAW_MOHR_COULOMB)
#define PW_LAW_ALL (PW_LAW_CLAMP | PW_LAW_FRICTION | PW_LAW_DENSITY_HARDENING)

/* The law bits of a material's plasticity (PW_PLASTICITY_*). */
static inline uint32_t pw_plasticity_law(int plasticity)
{
    switch (plasticity) {
    case PW_PLASTICITY_DRUCKER_PRAGER: return PW_LAW_DRUCKER_PRAGER;
    case PW_PLASTICITY_CLAMP_DRUCKER_PRAGER: return PW_LAW_CLAMP | PW_LAW_DRUCKER_PRAGER;
    case PW_PLASTICITY_MOHR_COULOMB: return PW_LAW_MOHR_COULOMB;
    case PW_PLASTICITY_CLAMP_MOHR_COULOMB: return PW_LAW_CLAMP | PW_LAW_MOHR_COULOMB;
    default: return PW_LAW_CLAMP;
    }
}

/* J_P as eq. 2's hardening reads it for a particle of law bits `law`, clamped to
 * [Jp_min, Jp_max]: det Fp, or under density hardening m / (V0 rho_rest), the seeded
 * density over the rest density measured on the grid, once measured (rho_rest, V0 > 0).
 * The solver's (pw_particle_Jp) and `powder stats`' elastic energy alike. */
static inline double pw_law_Jp(uint32_t law, double det_Fp, double m, double V0,
                               double rho_rest, double Jp_min, double Jp_max)
{
    double Jp = det_Fp;
    if ((law & PW_LAW_DENSITY_HARDENING) && rho_rest > 0 && V0 > 0) Jp = m / (V0 * rho_rest);
    return Jp < Jp_min ? Jp_min : Jp > Jp_max ? Jp_max : Jp;
}

/* A particle's density [kg/m^3] for output (caches, PLY, `powder stats`): under density
 * hardening the density the law reads, measured on the grid (rho_rest / |det Fe|: the
 * rest density with the elastic compression put back, Gissler et al. 2020, eq. 21),
 * once measured; otherwise m / (V0 det Fe J_P). The two differ where loose snow packs:
 * det F of landed flakes drifts from the room they fill (sim/docs/snowfall.md). */
static inline double pw_law_density(uint32_t law, double m, double V0, double det_Fe,
                                    double det_Fp, double rho_rest)
{
    if ((law & PW_LAW_DENSITY_HARDENING) && rho_rest > 0 && det_Fe != 0)
        return rho_rest / fabs(det_Fe);
    return V0 > 0 ? m / (V0 * det_Fe * det_Fp) : 0;
}

/* The largest durability_rate: durability gone after a plastic stretch of 1e-4. */
#define PW_DURABILITY_RATE_MAX 1e4

/* 1 when m uses anything but the 2013 law: its particles then carry the law's fields. */
int pw_material_has_laws(const pw_material *m);

void pw_material_default(pw_material *m); /* Stomakhin et al. 2013, Table 2 */

/* The allowed interval of one number of a material: the one statement of what the
 * solver accepts, which the scene parser (messages naming file and key), seeding (for
 * materials made in code) and the solver's per-particle check all read. */
typedef struct {
    const char *key;     /* the field's scene key ("theta_c"); NULL ends the table */
    size_t offset;       /* offsetof(pw_material, field) */
    double lo, hi;       /* may be -INFINITY / INFINITY */
    int lo_open, hi_open; /* 1 excludes the end point */
    const char *what;    /* "the critical compression" */
} pw_material_range;

extern const pw_material_range pw_material_ranges[];

/* The range of key, or NULL when the material has no such number. */
const pw_material_range *pw_material_range_of(const char *key);

/* 1 when value lies in r. */
int pw_material_range_holds(const pw_material_range *r, double value);

/* e^709 is the largest finite double: the hardening factor e^{xi (1 - Jp_min)} must stay
 * well below it or the stress overflows at the strongest compression. */
#define PW_MAX_HARDENING_EXPONENT 700.0

/* [Pa] Young's modulus of polycrystalline ice near 0 C (about 9 GPa): the stiffest snow
 * can become, compacted to ice. A material whose hardened modulus E0 e^(xi (1 - Jp_min))
 * exceeds it is refused (sim/docs/step-control.md). */
#define PW_ICE_YOUNGS 9e9

/* Checks every range and the rules between fields (rho_max 0 or above rho0, a
 * noise_scale for E_noise, a finite hardening factor). On failure returns PW_EINVAL
 * with the offending key in *key, its value in *value and the rule in why ("must be
 * in (0, 1)"; "must be 0 (no limit) or above rho0 = 400 kg/m^3"). */
pw_status pw_material_check(const pw_material *m, const char **key, double *value, char *why,
                            size_t why_size);

#endif
