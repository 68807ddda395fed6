/* seed_material.c — what a material gives one seeded particle (seed.h): its E and density
 * by the body material's harder, denser shell and its noise on E (Stomakhin et al. 2013,
 * section 10), and the per-particle values of pw_seeded from them. The material's
 * numbers and their ranges are material.c's. */
#include "constitutive.h"
#include "seed_internal.h"

/* Value noise in [-1, 1] with feature size `scale` [m]: hashed lattice values blended
 * with smoothstep weights (continuous, so neighbouring particles get similar E). */
static double value_noise(uint64_t seed, double scale, vec3 x)
{
    double g[3] = {x.x / scale, x.y / scale, x.z / scale}, w[3];
    int64_t c[3];
    for (int a = 0; a < 3; a++) {
        double f = floor(g[a]);
        c[a] = (int64_t)f;
        double t = g[a] - f;
        w[a] = t * t * (3 - 2 * t);
    }
    double sum = 0;
    for (int corner = 0; corner < 8; corner++) {
        int di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
        double v = 2 * unit_double(hash5(seed ^ 0x6e6f697365ull, c[0] + di, c[1] + dj, c[2] + dk, 0)) - 1;
        sum += v * (di ? w[0] : 1 - w[0]) * (dj ? w[1] : 1 - w[1]) * (dk ? w[2] : 1 - w[2]);
    }
    return sum;
}

/* E [Pa] and rho [kg/m^3] of a particle at x, depth [m] below the body surface, from
 * E0 and rho0 of its material (or layer) by the body material's shell blend, then its
 * noise. */
static void particle_material(const pw_material *mat, double E0, double rho0, uint64_t seed,
                              vec3 x, double depth, double *E, double *rho)
{
    double shell = 1.0; /* 0 at the surface, 1 at shell_depth and below */
    if (mat->shell_depth > 0) shell = fmin(fmax(depth / mat->shell_depth, 0.0), 1.0);
    *E = E0 * (mat->shell_E_factor + (1 - mat->shell_E_factor) * shell);
    *rho = rho0 * (mat->shell_rho_factor + (1 - mat->shell_rho_factor) * shell);
    if (mat->E_noise > 0) *E *= 1 + mat->E_noise * value_noise(seed, mat->noise_scale, x);
}

particle_values pw_seed_values_of(const pw_material *mat, double E, double rho)
{
    particle_values v;
    pw_lame(E, mat->nu, &v.mu0, &v.lambda0);
    v.xi = mat->xi;
    v.theta_c = mat->theta_c;
    v.theta_s = mat->theta_s;
    v.Jp_min = mat->Jp_min;
    v.Jp_max = mat->Jp_max;
    /* (the denser shell, seeded above rho_max, is not compacted at all) */
    double floor_rho = mat->rho_max > 0 ? fmin(1.0, rho / mat->rho_max) : 0.0;
    v.Jp_floor = fmax(mat->Jp_floor, floor_rho);
    v.rho = rho;
    v.law = pw_plasticity_law(mat->plasticity) |
            (mat->hardening == PW_HARDENING_DENSITY ? PW_LAW_DENSITY_HARDENING : 0u);
    v.friction_angle = mat->friction_angle * (3.14159265358979323846 / 180.0);
    v.cohesion = mat->cohesion;
    v.durability_rate = mat->durability_rate;
    return v;
}

particle_values pw_seed_values_at(const particle_site *at, const pw_material *m)
{
    double E, rho;
    particle_material(at->body, m->E0, m->rho0, at->seed, at->x, at->surface_depth, &E, &rho);
    return pw_seed_values_of(m, E, rho);
}
