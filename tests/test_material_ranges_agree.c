/* Property: one statement of what a material may be (pw_material_ranges,
 * pw_material_check), read alike by the scene parser, by seeding and by the solver's
 * per-particle check. For every number of the table, values just inside and just
 * outside each finite end (and the end itself) are given to
 *   1. the scene parser, as sim.materials.snow.<key> of a minimal scene,
 *   2. pw_seed_body, as a material made in code,
 *   3. pw_material_check,
 * and all three accept or refuse alike; a refusal names the key. Then the rules
 * between numbers (rho_max above rho0, a noise_scale for E_noise, the hardening
 * exponent; a cone's keys without a cone, a cone without its angle) likewise, and a seeded particle outside the per-particle ranges is refused
 * by pw_sim_add_particles naming the key. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pw_sim.h"
#include "scene.h"
#include "seed.h"

static const char scene_text[] =
    "{\"name\": \"ranges\", \"frames\": {\"end\": 1},\n"
    " \"sim\": {\"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
    "  \"materials\": {\"snow\": {%s}},\n"
    "  \"bodies\": [{\"material\": \"snow\", \"shapes\": [{\"type\": \"sphere\",\n"
    "              \"center\": [0.5, 0.5, 0.5], \"radius\": 0.05}]}]},\n"
    " \"render\": {\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0.5]},\n"
    "            \"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}}}}\n";

/* 1 when the three judges agree on material m (given to the parser as `members`). */
static int agree(pw_scene *sc, const char *members, const pw_material *m, const char *key)
{
    char text[2048];
    snprintf(text, sizeof text, scene_text, members);
    pw_error e_scene = {0}, e_seed = {0};
    int scene_ok = pw_scene_parse("ranges.json", text, strlen(text), "", sc, &e_scene) == PW_OK;

    pw_body_desc b;
    memset(&b, 0, sizeof b);
    pw_shape_init(&b.add[0], PW_SHAPE_SPHERE);
    b.add[0].center = v3(0.5, 0.5, 0.5);
    b.add[0].radius = 0.05;
    b.n_add = 1;
    b.particles_per_cell = 8;
    pw_seeded s = {0};
    int seed_ok = pw_seed_body(&b, m, 0.02, &s, &e_seed) == PW_OK;
    pw_seeded_free(&s);

    const char *bad = NULL;
    double value;
    char why[160];
    int check_ok = pw_material_check(m, &bad, &value, why, sizeof why) == PW_OK;

    int same = scene_ok == seed_ok && seed_ok == check_ok;
    CHECK(same, "%s: scene %d, seeding %d, check %d (%s | %s)", members, scene_ok, seed_ok,
          check_ok, e_scene.msg, e_seed.msg);
    if (!scene_ok) CHECK(strstr(e_scene.msg, key) != NULL, "%s: scene message %s", key, e_scene.msg);
    if (!seed_ok) CHECK(strstr(e_seed.msg, key) != NULL, "%s: seeding message %s", key, e_seed.msg);
    return same;
}

int main(void)
{
    static pw_scene sc; /* a few MB: not on the stack */
    int cases = 0;
    for (const pw_material_range *r = pw_material_ranges; r->key; r++) {
        double ends[2] = {r->lo, r->hi};
        for (int e = 0; e < 2; e++) {
            if (!isfinite(ends[e])) continue;
            double scale = fmax(fabs(ends[e]), 1e-3);
            double probes[3] = {ends[e] - 1e-3 * scale, ends[e], ends[e] + 1e-3 * scale};
            for (int q = 0; q < 3; q++) {
                pw_material m;
                pw_material_default(&m);
                *(double *)((char *)&m + r->offset) = probes[q];
                /* keep the other rules out of the way of this number's own range */
                if (!strcmp(r->key, "E_noise")) m.noise_scale = 0.05;
                if (!strcmp(r->key, "rho0") || !strcmp(r->key, "rho_max")) m.rho_max = 0;
                char members[192];
                snprintf(members, sizeof members, "\"%s\": %.17g", r->key, probes[q]);
                /* the cone's numbers on a material that has a cone (with friction_angle
                 * itself at 30 unless it is the number probed) */
                int cone = !strcmp(r->key, "friction_angle") || !strcmp(r->key, "cohesion") ||
                           !strcmp(r->key, "durability_rate");
                if (cone) {
                    m.plasticity = PW_PLASTICITY_CLAMP_DRUCKER_PRAGER;
                    if (strcmp(r->key, "friction_angle")) {
                        m.friction_angle = 30;
                        snprintf(members, sizeof members,
                                 "\"plasticity\": \"clamp+drucker_prager\", \"friction_angle\": "
                                 "30, \"%s\": %.17g", r->key, probes[q]);
                    } else {
                        snprintf(members, sizeof members,
                                 "\"plasticity\": \"clamp+drucker_prager\", \"%s\": %.17g",
                                 r->key, probes[q]);
                    }
                }
                if (!strcmp(r->key, "rho_max")) {
                    /* rho_max must also exceed rho0: probe it above rho0 + its end */
                    m.rho_max = m.rho0 + probes[q];
                    snprintf(members, sizeof members, "\"rho_max\": %.17g", m.rho_max);
                }
                agree(&sc, members, &m, r->key);
                cases++;
            }
        }
    }
    /* the rules between numbers */
    pw_material m;
    pw_material_default(&m);
    m.rho_max = 300; /* below rho0 = 400 */
    agree(&sc, "\"rho_max\": 300", &m, "rho_max");
    pw_material_default(&m);
    m.E_noise = 0.2;
    m.noise_scale = 0;
    agree(&sc, "\"E_noise\": 0.2, \"noise_scale\": 0", &m, "noise_scale");
    pw_material_default(&m);
    m.xi = 2000; /* xi (1 - Jp_min) = 800 > 700 */
    agree(&sc, "\"xi\": 2000", &m, "xi");
    /* a cone's keys on a material without one, and the reverse */
    pw_material_default(&m);
    m.cohesion = 100;
    agree(&sc, "\"cohesion\": 100", &m, "cohesion");
    pw_material_default(&m);
    m.plasticity = PW_PLASTICITY_DRUCKER_PRAGER;
    agree(&sc, "\"plasticity\": \"drucker_prager\"", &m, "friction_angle");
    cases += 5;

    /* the solver's per-particle check reads the same table */
    pw_sim_params p;
    pw_sim_params_default(&p);
    p.domain_min = v3(0, 0, 0);
    p.domain_max = v3(1, 1, 1);
    pw_error err = {0};
    pw_sim *sim = pw_sim_create(&p, &err);
    CHECK(sim != NULL, "create: %s", err.msg);
    if (sim) {
        pw_material mat;
        pw_material_default(&mat);
        pw_seeded s = {0};
        CHECK(pw_seeded_append(&s, v3(0.5, 0.5, 0.5), v3(0, 0, 0), 1e-3, mat.E0, mat.rho0, &mat,
                               &err) == PW_OK, "append: %s", err.msg);
        s.theta_s[0] = 0; /* outside (0, 1) */
        CHECK(pw_sim_add_particles(sim, &s, &err) != PW_OK && strstr(err.msg, "theta_s"),
              "a particle with theta_s = 0 was taken: %s", err.msg);
        s.theta_s[0] = mat.theta_s;
        CHECK(pw_sim_add_particles(sim, &s, &err) == PW_OK, "a Table 2 particle: %s", err.msg);
        pw_seeded_free(&s);
        pw_sim_destroy(sim);
    }
    printf("%d material cases: scene parser, seeding and pw_material_check agree\n", cases);
    return check_done("material_ranges_agree");
}
