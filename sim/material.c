/* material.c — the snow material's defaults (Table 2), the table of its ranges and the
 * rules between its numbers (material.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "material.h"

const char *const pw_plasticity_names[] = {"clamp",        "drucker_prager",
                                           "clamp+drucker_prager", "mohr_coulomb",
                                           "clamp+mohr_coulomb",   NULL};
const char *const pw_hardening_names[] = {"plastic", "density", NULL};

int pw_material_has_laws(const pw_material *m)
{
    return m->plasticity != PW_PLASTICITY_CLAMP || m->hardening != PW_HARDENING_PLASTIC;
}

/* (friction_angle 0 is "no cone", a 2013 material's; pw_material_check requires it in
 * (0, 90) with one) */
#define FIELD(f) offsetof(pw_material, f)
const pw_material_range pw_material_ranges[] = {
    {"E0", FIELD(E0), 0, INFINITY, 1, 1, "Young's modulus [Pa]"},
    {"nu", FIELD(nu), -1, 0.5, 1, 1, "Poisson's ratio"},
    {"xi", FIELD(xi), 0, INFINITY, 0, 1, "the hardening coefficient"},
    {"theta_c", FIELD(theta_c), 0, 1, 1, 1, "the critical compression"},
    {"theta_s", FIELD(theta_s), 0, 1, 1, 1, "the critical stretch"},
    {"rho0", FIELD(rho0), 0, INFINITY, 1, 1, "the density [kg/m^3]"},
    {"Jp_min", FIELD(Jp_min), 0, 1, 1, 0, "Jp_min"},
    {"Jp_max", FIELD(Jp_max), 1, INFINITY, 0, 1, "Jp_max"},
    {"E_noise", FIELD(E_noise), 0, 1, 0, 1, "the relative noise amplitude"},
    {"noise_scale", FIELD(noise_scale), 0, INFINITY, 0, 1, "a length [m]"},
    {"shell_depth", FIELD(shell_depth), 0, INFINITY, 0, 1, "a length [m]"},
    {"shell_E_factor", FIELD(shell_E_factor), 0, INFINITY, 1, 1, "a multiplier"},
    {"shell_rho_factor", FIELD(shell_rho_factor), 0, INFINITY, 1, 1, "a multiplier"},
    {"rho_max", FIELD(rho_max), 0, INFINITY, 0, 1, "the compaction limit [kg/m^3]"},
    {"Jp_floor", FIELD(Jp_floor), 0, 1, 0, 1, "the least J_P of plastic compaction"},
    {"friction_angle", FIELD(friction_angle), 0, 90, 0, 1, "the friction angle [deg]"},
    {"cohesion", FIELD(cohesion), 0, INFINITY, 0, 1, "the cohesion [Pa]"},
    {"durability_rate", FIELD(durability_rate), 0, PW_DURABILITY_RATE_MAX, 0, 0,
     "the durability lost per unit plastic stretch"},
    {NULL, 0, 0, 0, 0, 0, NULL}};
#undef FIELD

const pw_material_range *pw_material_range_of(const char *key)
{
    for (const pw_material_range *r = pw_material_ranges; r->key; r++)
        if (!strcmp(r->key, key)) return r;
    return NULL;
}

int pw_material_range_holds(const pw_material_range *r, double v)
{
    return (r->lo_open ? v > r->lo : v >= r->lo) && (r->hi_open ? v < r->hi : v <= r->hi);
}

pw_status pw_material_check(const pw_material *m, const char **key, double *value, char *why,
                            size_t why_size)
{
    int cone = m->plasticity != PW_PLASTICITY_CLAMP;
    for (const pw_material_range *r = pw_material_ranges; r->key; r++) {
        double v = *(const double *)((const char *)m + r->offset);
        if (pw_material_range_holds(r, v)) continue;
        *key = r->key;
        *value = v;
        snprintf(why, why_size, "must be in %c%g, %g%c", r->lo_open ? '(' : '[', r->lo, r->hi,
                 r->hi_open ? ')' : ']');
        return PW_EINVAL;
    }
    if (!(m->plasticity >= 0 && m->plasticity <= PW_PLASTICITY_LAST) ||
        !(m->hardening >= 0 && m->hardening <= PW_HARDENING_DENSITY)) {
        *key = m->hardening < 0 || m->hardening > PW_HARDENING_DENSITY ? "hardening" : "plasticity";
        *value = *key[0] == 'h' ? m->hardening : m->plasticity;
        snprintf(why, why_size, "is not a law Powder has");
        return PW_EINVAL;
    }
    if (cone && !(m->friction_angle > 0)) {
        *key = "friction_angle";
        *value = m->friction_angle;
        snprintf(why, why_size, "must be in (0, 90) with plasticity \"%s\"",
                 pw_plasticity_names[m->plasticity]);
        return PW_EINVAL;
    }
    if (!cone && (m->friction_angle != 0 || m->cohesion != 0 || m->durability_rate != 0)) {
        *key = m->friction_angle != 0 ? "friction_angle"
               : m->cohesion != 0     ? "cohesion"
                                      : "durability_rate";
        *value = *(const double *)((const char *)m + pw_material_range_of(*key)->offset);
        snprintf(why, why_size, "belongs to a plasticity with friction (\"drucker_prager\", "
                 "\"mohr_coulomb\", or either after \"clamp+\"); this material's is \"clamp\"");
        return PW_EINVAL;
    }
    if (m->rho_max > 0 && !(m->rho_max > m->rho0)) {
        *key = "rho_max";
        *value = m->rho_max;
        snprintf(why, why_size, "must be 0 (no limit) or above rho0 = %g kg/m^3", m->rho0);
        return PW_EINVAL;
    }
    if (m->E_noise > 0 && !(m->noise_scale > 0)) {
        *key = "noise_scale";
        *value = m->noise_scale;
        snprintf(why, why_size, "must be > 0 when E_noise > 0 (the noise's feature size [m])");
        return PW_EINVAL;
    }
    if (m->xi * (1 - m->Jp_min) > PW_MAX_HARDENING_EXPONENT) {
        *key = "xi";
        *value = m->xi;
        snprintf(why, why_size, "the hardening factor e^(xi (1 - Jp_min)) = e^%g overflows "
                 "(keep xi (1 - Jp_min) <= %g)", m->xi * (1 - m->Jp_min),
                 PW_MAX_HARDENING_EXPONENT);
        return PW_EINVAL;
    }
    /* Snow hardened past ice's stiffness is outside the model, and the elastic bound on
     * the step (sim/docs/step-control.md) makes it unaffordable: the step shrinks with
     * sqrt(e^(xi (1 - Jp_min))), 400 times for the xi 30 crust at Jp_min 0.6 */
    double hardest = m->E0 * exp(m->xi * (1 - m->Jp_min));
    if (hardest > PW_ICE_YOUNGS) {
        double xi_max = log(PW_ICE_YOUNGS / m->E0) / (1 - m->Jp_min);
        double Jp_min_least = m->xi > 0 ? 1 - log(PW_ICE_YOUNGS / m->E0) / m->xi : 0;
        *key = "Jp_min";
        *value = m->Jp_min;
        snprintf(why, why_size, "hardens E0 e^(xi (1 - Jp_min)) to %.3g Pa, stiffer than ice "
                 "(%.3g Pa): keep Jp_min >= %.3g, or xi <= %.3g, or lower E0",
                 hardest, PW_ICE_YOUNGS, Jp_min_least, xi_max);
        return PW_EINVAL;
    }
    return PW_OK;
}

void pw_material_default(pw_material *m)
{
    memset(m, 0, sizeof *m);
    strcpy(m->name, "snow");
    m->E0 = 1.4e5;
    m->nu = 0.2;
    m->xi = 10;
    m->theta_c = 2.5e-2;
    m->theta_s = 7.5e-3;
    m->rho0 = 400;
    m->Jp_min = 0.6;
    m->rho_max = 0;
    m->Jp_floor = 0;
    m->Jp_max = 20;
    m->E_noise = 0;
    m->noise_scale = 0.05;
    m->shell_depth = 0;
    m->shell_E_factor = 1;
    m->shell_rho_factor = 1;
    m->plasticity = PW_PLASTICITY_CLAMP;
    m->hardening = PW_HARDENING_PLASTIC;
    m->friction_angle = 0;
    m->cohesion = 0;
    m->durability_rate = 0;
}
