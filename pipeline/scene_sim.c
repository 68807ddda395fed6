/* scene_sim.c — the scene's "sim" section: solver settings, snow materials (defaults
 * from Table 2 of Stomakhin et al. 2013), snow bodies and colliders. */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const keys_sim[] = {
    "h",          "domain",       "gravity",           "dt_max",        "cfl",
    "beta",       "transfer",     "flip_alpha",        "cr_tolerance",  "cr_max_iterations",
    "max_particles", "materials", "bodies",            "colliders",     "rest",
    "active_region", "courant",     "retake_limit",      "sources",       "air_velocity",
    "kernel",        NULL};
static const char *const keys_rest[] = {"speed", "sleep_steps", "wake_speed", NULL};
static const char *const keys_region[] = {"shape", "follow_collider", "freeze_outside", NULL};
static const char *const keys_domain[] = {"min", "max", NULL};
static const char *const keys_material[] = {
    "E0",          "nu",          "xi",             "theta_c",         "theta_s",
    "rho0",        "Jp_min",      "Jp_max",         "E_noise",         "noise_scale",
    "shell_depth", "shell_E_factor", "shell_rho_factor", "rho_max",
    "Jp_floor",    "plasticity",  "hardening",      "friction_angle",  "cohesion",
    "durability_rate", NULL};
static const char *const keys_body[] = {"material", "shapes",             "subtract",
                                        "velocity", "angular_velocity",   "particles_per_cell",
                                        "seed",     "layers",             "settled",
                                        NULL};
/* A layer's own numbers: the per-particle ones (the shell and the noise stay the body
 * material's, applied to every layer alike). */
static const char *const keys_layer[] = {"thickness", "blend",  "E0",     "nu",
                                         "xi",        "theta_c", "theta_s", "rho0",
                                         "Jp_min",    "Jp_max", "rho_max", "Jp_floor",
                                         NULL};
static const char *const keys_collider[] = {"shape", "friction", "sticky", NULL};
static const char *const transfers[] = {"pic_flip", "apic", NULL};
static const char *const kernels[] = {"cubic", "quadratic", NULL}; /* pw_kernel_kind's order */

/* Grid node indices are packed into 21 bits per axis by the sparse grid. */
#define MAX_CELLS_PER_AXIS 2097152.0

/* ---- materials ------------------------------------------------------------------- */

/* The keys that belong to one plastic law: a key given to a material of another law is
 * refused, naming the law it belongs to (sim/docs/durable-snow.md). */
static pw_status check_law_keys(const sc_ctx *c, json_t *obj, const char *path, int plasticity)
{
    static const char *const clamp_keys[] = {"theta_c", "theta_s", "rho_max", "Jp_floor", NULL};
    static const char *const cone_keys[] = {"friction_angle", "cohesion", "durability_rate", NULL};
    char at[SC_PATH];
    uint32_t law = pw_plasticity_law(plasticity);
    if (!(law & PW_LAW_CLAMP))
        for (int k = 0; clamp_keys[k]; k++)
            if (json_object_get(obj, clamp_keys[k])) {
                sc_join(at, path, clamp_keys[k]);
                return sc_fail(c, at, "belongs to plasticity \"clamp\" or one that begins "
                               "with \"clamp+\" (this material's is \"%s\")",
                               pw_plasticity_names[plasticity]);
            }
    if (!(law & PW_LAW_FRICTION))
        for (int k = 0; cone_keys[k]; k++)
            if (json_object_get(obj, cone_keys[k])) {
                sc_join(at, path, cone_keys[k]);
                return sc_fail(c, at, "belongs to a plasticity with friction (\"drucker_prager\", "
                               "\"mohr_coulomb\", or either after \"clamp+\"); this "
                               "material's is \"clamp\", the default");
            }
    if (plasticity != PW_PLASTICITY_CLAMP && !json_object_get(obj, "friction_angle")) {
        sc_join(at, path, "friction_angle");
        return sc_fail(c, at, "is required by plasticity \"%s\": the angle of repose "
                       "[deg], in (0, 90)", pw_plasticity_names[plasticity]);
    }
    return PW_OK;
}

static pw_status parse_material(const sc_ctx *c, json_t *obj, const char *path,
                                const char *name, pw_material *m)
{
    pw_status rc = sc_check_keys(c, obj, path, keys_material);
    if (rc != PW_OK) return rc;
    pw_material_default(m);
    snprintf(m->name, sizeof m->name, "%s", name);
    if ((rc = sc_enum(c, obj, path, "plasticity", PW_PLASTICITY_CLAMP, pw_plasticity_names,
                      &m->plasticity)) != PW_OK ||
        (rc = sc_enum(c, obj, path, "hardening", PW_HARDENING_PLASTIC, pw_hardening_names,
                      &m->hardening)) != PW_OK ||
        (rc = check_law_keys(c, obj, path, m->plasticity)) != PW_OK)
        return rc;
    /* every number's range is the solver's own (pw_material_ranges) */
    for (const pw_material_range *r = pw_material_ranges; r->key; r++) {
        double *field = (double *)((char *)m + r->offset);
        const sc_range range = {r->lo, r->hi, r->lo_open, r->hi_open, r->what};
        if ((rc = sc_number(c, obj, path, r->key, 0, *field, range, field)) != PW_OK) return rc;
    }
    /* Keys added after caches were written stay out of the canonical text (sim_hash) at
     * their no-op value, so those caches still belong to the scenes that made them. */
    if (m->Jp_floor == 0) json_object_del(obj, "Jp_floor");
    if (m->plasticity == PW_PLASTICITY_CLAMP) json_object_del(obj, "plasticity");
    if (m->friction_angle == 0) json_object_del(obj, "friction_angle");
    if (m->cohesion == 0) json_object_del(obj, "cohesion");
    if (m->durability_rate == 0) json_object_del(obj, "durability_rate");
    if (m->hardening == PW_HARDENING_PLASTIC) json_object_del(obj, "hardening");
    /* and the rules between numbers, as seeding checks them */
    const char *key;
    double value;
    char why[160], at[SC_PATH];
    if (pw_material_check(m, &key, &value, why, sizeof why) != PW_OK) {
        sc_join(at, path, key);
        return sc_fail_value(c, at, value, "%s", why);
    }
    return PW_OK;
}

static pw_status parse_materials(const sc_ctx *c, json_t *sim, pw_scene *s)
{
    json_t *mats;
    pw_status rc = sc_get_object(c, sim, "sim", "materials", 1, &mats);
    if (rc != PW_OK) return rc;
    if (json_object_size(mats) == 0)
        return sc_fail(c, "sim.materials", "at least one material is required "
                                           "(e.g. \"snow\": {} for Table 2 of the paper)");
    if (json_object_size(mats) > PW_SCENE_MAX_MATERIALS)
        return sc_fail(c, "sim.materials", "%zu materials, at most %d", json_object_size(mats),
                       PW_SCENE_MAX_MATERIALS);
    const char *name;
    json_t *m;
    s->n_materials = 0;
    json_object_foreach(mats, name, m) {
        char at[SC_PATH];
        sc_join(at, "sim.materials", name);
        if (strlen(name) == 0 || strlen(name) >= sizeof s->materials[0].name)
            return sc_fail(c, at, "a material name must have 1 to %zu bytes",
                           sizeof s->materials[0].name - 1);
        rc = parse_material(c, m, at, name, &s->materials[s->n_materials]);
        if (rc != PW_OK) return rc;
        s->n_materials++;
    }
    return PW_OK;
}

/* ---- bodies ------------------------------------------------------------------------ */

/* Axis-aligned bounds of a static analytic shape; 0 for kinds without closed-form
 * bounds (meshes are checked by the seeder when it reads them). */
static int shape_bounds(const pw_shape *sh, vec3 *lo, vec3 *hi)
{
    mat3 R = m3_rotation(sh->rotation_axis, sh->rotation_angle);
    vec3 ext;
    switch (sh->kind) {
    case PW_SHAPE_SPHERE: ext = v3(sh->radius, sh->radius, sh->radius); break;
    case PW_SHAPE_BOX: {
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = fabs(R.m[k][0]) * sh->half_extents.x + fabs(R.m[k][1]) * sh->half_extents.y +
                   fabs(R.m[k][2]) * sh->half_extents.z;
        ext = v3(e[0], e[1], e[2]);
        break;
    }
    case PW_SHAPE_CYLINDER: {
        vec3 a = m3_mulv(R, v3(0, 1, 0));
        double e[3], ak[3] = {a.x, a.y, a.z};
        for (int k = 0; k < 3; k++)
            e[k] = sh->half_height * fabs(ak[k]) + sh->radius * sqrt(fmax(0, 1 - ak[k] * ak[k]));
        ext = v3(e[0], e[1], e[2]);
        break;
    }
    default: return 0;
    }
    *lo = v3_sub(sh->center, ext);
    *hi = v3_add(sh->center, ext);
    return 1;
}

/* A text's bounds: the box of its outlines (ink in x and y, depth in z), rotated and
 * placed; 0 when the outlines cannot be read (sc_shape has reported that already). */
static int text_bounds(const pw_shape *sh, vec3 *lo, vec3 *hi)
{
    pw_text_outline o;
    if (pw_text_outline_create(sh->path, sh->text, sh->text_height,
                               PW_TEXT_TOLERANCE * sh->text_height, &o, NULL) != PW_OK)
        return 0;
    mat3 R = m3_rotation(sh->rotation_axis, sh->rotation_angle);
    *lo = v3(INFINITY, INFINITY, INFINITY);
    *hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int k = 0; k < 8; k++) {
        vec3 corner = v3(k & 1 ? o.hi[0] : o.lo[0], k & 2 ? o.hi[1] : o.lo[1],
                         (k & 4 ? 0.5 : -0.5) * sh->text_depth);
        vec3 w = v3_add(sh->center, m3_mulv(R, corner));
        *lo = v3_min(*lo, w);
        *hi = v3_max(*hi, w);
    }
    pw_text_outline_free(&o);
    return 1;
}

static pw_status check_inside_domain(const sc_ctx *c, const pw_shape *sh, const char *path,
                                     const pw_sim_params *p)
{
    vec3 lo, hi;
    if (sh->kind == PW_SHAPE_TEXT) {
        if (!text_bounds(sh, &lo, &hi)) return PW_OK;
        static const char axis[] = "xyz";
        char at[SC_PATH];
        sc_join(at, path, "height");
        for (int k = 0; k < 3; k++) {
            double l = v3_get(lo, k), u = v3_get(hi, k);
            double dl = v3_get(p->domain_min, k), du = v3_get(p->domain_max, k);
            if (l < dl || u > du)
                return sc_fail_value(c, at, sh->text_height, "the text \"%s\" spans [%g, %g] "
                                     "m on %c, outside sim.domain [%g, %g]: too large for the "
                                     "domain where it stands (snow there would start inside a "
                                     "wall)", sh->text, l, u, axis[k], dl, du);
        }
        return PW_OK;
    }
    if (!shape_bounds(sh, &lo, &hi)) return PW_OK;
    static const char axis[] = "xyz";
    for (int k = 0; k < 3; k++) {
        double l = v3_get(lo, k), u = v3_get(hi, k);
        double dl = v3_get(p->domain_min, k), du = v3_get(p->domain_max, k);
        if (l < dl || u > du)
            return sc_fail(c, path, "the shape spans [%g, %g] on %c, outside sim.domain "
                                    "[%g, %g]: snow there would start inside a wall",
                           l, u, axis[k], dl, du);
    }
    return PW_OK;
}

static pw_status parse_shape_list(const sc_ctx *c, json_t *body, const char *path,
                                  const char *key, int required, pw_shape *out, int *n,
                                  int flags)
{
    json_t *list;
    pw_status rc = sc_get_array(c, body, path, key, required, &list);
    if (rc != PW_OK) return rc;
    char at[SC_PATH];
    sc_join(at, path, key);
    *n = 0;
    if (!list) {
        json_object_set_new(body, key, json_array());
        return PW_OK;
    }
    if (required && json_array_size(list) == 0)
        return sc_fail(c, at, "at least one shape is required");
    if (json_array_size(list) > PW_BODY_MAX_SHAPES)
        return sc_fail(c, at, "%zu shapes, at most %d", json_array_size(list),
                       PW_BODY_MAX_SHAPES);
    for (size_t k = 0; k < json_array_size(list); k++) {
        char ak[SC_PATH];
        sc_index(ak, at, (int)k);
        rc = sc_shape(c, json_array_get(list, k), ak, flags, &out[k]);
        if (rc != PW_OK) return rc;
        *n = (int)k + 1;
    }
    return PW_OK;
}

/* "layers": from the top down, each the body material with the layer's numbers in
 * place of its own (seed.h, pw_layer). */
static pw_status parse_layers(const sc_ctx *c, json_t *body, const char *path,
                              const pw_material *mat, pw_body_desc *b)
{
    json_t *list;
    pw_status rc = sc_get_list(c, body, path, "layers", 0, PW_BODY_MAX_LAYERS, "layers", &list);
    if (rc != PW_OK || !list) return rc;
    char at[SC_PATH];
    sc_join(at, path, "layers");
    const sc_range thickness = {0, INFINITY, 1, 1, "the layer's thickness [m]"};
    const sc_range blend = {0, INFINITY, 0, 1, "the blend into the material below [m]"};
    for (size_t k = 0; k < json_array_size(list); k++) {
        char ak[SC_PATH];
        sc_index(ak, at, (int)k);
        json_t *obj = json_array_get(list, k);
        pw_layer *L = &b->layers[k];
        if ((rc = sc_check_keys(c, obj, ak, keys_layer)) != PW_OK ||
            (rc = sc_number(c, obj, ak, "thickness", 1, 0, thickness, &L->thickness)) != PW_OK ||
            (rc = sc_number(c, obj, ak, "blend", 0, 0, blend, &L->blend)) != PW_OK)
            return rc;
        L->material = *mat;
        for (int q = 2; keys_layer[q]; q++) {
            const pw_material_range *r = pw_material_range_of(keys_layer[q]);
            double *field = (double *)((char *)&L->material + r->offset);
            const sc_range range = {r->lo, r->hi, r->lo_open, r->hi_open, r->what};
            if ((rc = sc_number(c, obj, ak, r->key, 0, *field, range, field)) != PW_OK)
                return rc;
        }
        b->n_layers = (int)k + 1;
    }
    /* the rules between numbers, and across each blend, as seeding checks them */
    int layer;
    const char *key;
    double value;
    char why[256], ak[SC_PATH], ak_key[SC_PATH];
    if (pw_layers_check(b, mat, &layer, &key, &value, why, sizeof why) != PW_OK) {
        sc_index(ak, at, layer < 0 ? 0 : layer);
        sc_join(ak_key, ak, key);
        return sc_fail_value(c, ak_key, value, "%s", why);
    }
    return PW_OK;
}

pw_status sc_material_ref(const sc_ctx *c, json_t *obj, const char *path, const pw_scene *s,
                          int *index)
{
    char mat[64], at[SC_PATH];
    pw_status rc = sc_string(c, obj, path, "material", NULL, mat, sizeof mat);
    if (rc != PW_OK) return rc;
    *index = -1;
    for (int m = 0; m < s->n_materials; m++)
        if (strcmp(s->materials[m].name, mat) == 0) *index = m;
    if (*index >= 0) return PW_OK;
    sc_join(at, path, "material");
    return sc_fail(c, at, "\"%s\" is not defined in sim.materials", mat);
}

static pw_status parse_body(const sc_ctx *c, json_t *obj, const char *path, int index,
                            pw_scene *s)
{
    pw_body_desc *b = &s->bodies[index];
    memset(b, 0, sizeof *b);
    pw_status rc = sc_check_keys(c, obj, path, keys_body);
    if (rc != PW_OK) return rc;
    if ((rc = sc_material_ref(c, obj, path, s, &s->body_material[index])) != PW_OK) return rc;
    long long seed, ppc;
    if ((rc = parse_shape_list(c, obj, path, "shapes", 1, b->add, &b->n_add,
                               SC_SHAPE_NO_HALFSPACE | SC_SHAPE_NO_MOTION)) != PW_OK ||
        (rc = parse_shape_list(c, obj, path, "subtract", 0, b->subtract, &b->n_subtract,
                               SC_SHAPE_NO_MOTION)) != PW_OK ||
        (rc = sc_vec3(c, obj, path, "velocity", 0, v3_zero(), sc_any, &b->velocity)) ||
        (rc = sc_vec3(c, obj, path, "angular_velocity", 0, v3_zero(), sc_any,
                      &b->angular_velocity)) ||
        /* The seeder fills whole particles per cell; 6.5 would silently become 7. */
        (rc = sc_int(c, obj, path, "particles_per_cell", 0, 8, 1, 64, "particles per cell",
                     &ppc)) ||
        (rc = sc_int(c, obj, path, "seed", 0, index, 0, INT64_MAX, "the seed", &seed)) ||
        (rc = parse_layers(c, obj, path, &s->materials[s->body_material[index]], b)) != PW_OK)
        return rc;
    /* (read only where given: its default written in would change the hash of every
     * scene, and existing caches would no longer match theirs) */
    if (json_object_get(obj, "settled") &&
        (rc = sc_bool(c, obj, path, "settled", 0, &b->settled)) != PW_OK)
        return rc;
    b->gravity = s->sim.gravity;
    b->seed = (uint64_t)seed;
    b->particles_per_cell = (double)ppc;
    for (int k = 0; k < b->n_add; k++) {
        char ak[SC_PATH], list[SC_PATH];
        sc_join(list, path, "shapes");
        sc_index(ak, list, k);
        if ((rc = check_inside_domain(c, &b->add[k], ak, &s->sim)) != PW_OK) return rc;
    }
    return PW_OK;
}

/* ---- colliders --------------------------------------------------------------------- */

static pw_status parse_collider(const sc_ctx *c, json_t *obj, const char *path,
                                pw_collider_desc *d)
{
    pw_status rc = sc_check_keys(c, obj, path, keys_collider);
    if (rc != PW_OK) return rc;
    json_t *shape = json_object_get(obj, "shape");
    char at[SC_PATH];
    sc_join(at, path, "shape");
    if (!shape) return sc_fail(c, at, "required key is missing (expected a shape object)");
    const sc_range mu = {0, INFINITY, 0, 1, "the Coulomb friction coefficient"};
    if ((rc = sc_shape(c, shape, at, 0, &d->shape)) != PW_OK ||
        (rc = sc_number(c, obj, path, "friction", 0, 0.5, mu, &d->friction)) != PW_OK ||
        (rc = sc_bool(c, obj, path, "sticky", 0, &d->sticky)) != PW_OK)
        return rc;
    return PW_OK;
}

/* ---- the section ------------------------------------------------------------------- */

static pw_status parse_domain(const sc_ctx *c, json_t *sim, pw_sim_params *p)
{
    json_t *dom;
    pw_status rc = sc_get_object(c, sim, "sim", "domain", 1, &dom);
    if (rc != PW_OK) return rc;
    if ((rc = sc_check_keys(c, dom, "sim.domain", keys_domain)) != PW_OK ||
        (rc = sc_vec3(c, dom, "sim.domain", "min", 1, v3_zero(), sc_any, &p->domain_min)) ||
        (rc = sc_vec3(c, dom, "sim.domain", "max", 1, v3_zero(), sc_any, &p->domain_max)))
        return rc;
    static const char axis[] = "xyz";
    for (int k = 0; k < 3; k++) {
        double lo = v3_get(p->domain_min, k), hi = v3_get(p->domain_max, k);
        if (!(lo < hi))
            return sc_fail(c, "sim.domain", "min %g >= max %g on %c: the domain must have "
                                            "positive size on every axis", lo, hi, axis[k]);
        double cells = (hi - lo) / p->h;
        if (!(cells <= MAX_CELLS_PER_AXIS))
            return sc_fail(c, "sim.domain", "%.4g cells of h = %g m on %c, at most 2^21 per "
                                            "axis (shrink the domain or raise h)",
                           cells, p->h, axis[k]);
    }
    return PW_OK;
}

/* "rest" and "active_region" (sim/rest.h): absent, they leave the 2013 solver, and the
 * scene's sim_hash, as they were. */
static pw_status parse_resting(const sc_ctx *c, json_t *sim, pw_scene *s)
{
    pw_sim_params *p = &s->sim;
    json_t *rest, *region;
    pw_status rc;
    if ((rc = sc_get_object(c, sim, "sim", "rest", 0, &rest)) != PW_OK ||
        (rc = sc_get_object(c, sim, "sim", "active_region", 0, &region)) != PW_OK)
        return rc;
    if (rest) {
        const sc_range speed = {0, INFINITY, 1, 1, "the speed below which snow rests [m/s]"};
        const sc_range wake = {0, INFINITY, 1, 1, "the speed of moving snow that wakes resting "
                                                  "snow a block away [m/s]"};
        long long steps;
        if ((rc = sc_check_keys(c, rest, "sim.rest", keys_rest)) != PW_OK ||
            (rc = sc_number(c, rest, "sim.rest", "speed", 1, 0, speed, &p->rest_speed)) ||
            (rc = sc_int(c, rest, "sim.rest", "sleep_steps", 0, 50, 1, 1000000,
                         "the steps at rest before snow sleeps", &steps)) != PW_OK ||
            (rc = sc_number(c, rest, "sim.rest", "wake_speed", 0, 10 * p->rest_speed, wake,
                            &p->wake_speed)) != PW_OK)
            return rc;
        p->sleep_steps = (int)steps;
    }
    if (!region) return PW_OK;
    if (!rest) return sc_fail(c, "sim.active_region", "needs sim.rest (its speed tells resting "
                                                      "snow from moving snow)");
    json_t *shape;
    long long follow;
    if ((rc = sc_check_keys(c, region, "sim.active_region", keys_region)) != PW_OK ||
        (rc = sc_get_object(c, region, "sim.active_region", "shape", 1, &shape)) != PW_OK ||
        (rc = sc_shape(c, shape, "sim.active_region.shape", 0, &p->region)) != PW_OK ||
        (rc = sc_int(c, region, "sim.active_region", "follow_collider", 0, -1, -1,
                     PW_SCENE_MAX_COLLIDERS - 1, "a collider's index", &follow)) != PW_OK ||
        (rc = sc_bool(c, region, "sim.active_region", "freeze_outside", 0,
                      &p->region_freezes)) != PW_OK)
        return rc;
    if (p->region.kind != PW_SHAPE_BOX)
        return sc_fail(c, "sim.active_region.shape.type", "the active region is a box");
    if (follow >= s->n_colliders)
        return sc_fail(c, "sim.active_region.follow_collider", "%lld: the scene has %d "
                       "collider(s)", follow, s->n_colliders);
    if (follow >= 0) {
        /* the box rides on the collider: its centre is an offset in the collider's frame */
        if (p->region.n_keys > 0)
            return sc_fail(c, "sim.active_region", "give the box 'motion' or "
                                                   "'follow_collider', not both");
        const pw_shape *co = &s->colliders[follow].shape;
        p->region.n_keys = co->n_keys;
        memcpy(p->region.keys, co->keys, sizeof co->keys);
    }
    p->has_region = 1;
    return PW_OK;
}

pw_status sc_sim(const sc_ctx *c, json_t *sim, pw_scene *s)
{
    pw_sim_params *p = &s->sim;
    pw_status rc = sc_check_keys(c, sim, "sim", keys_sim);
    if (rc != PW_OK) return rc;
    const sc_range h = {0, INFINITY, 1, 1, "the grid spacing [m]"};
    const sc_range dt = {0, INFINITY, 1, 1, "the largest time step [s]"};
    const sc_range cfl = {0, 1, 1, 0, "the CFL number"};
    const sc_range courant = {0, PW_COURANT_MAX, 0, 0,
                              "the elastic Courant number (0: no elastic bound)"};
    const sc_range beta = {0, 1, 0, 0, "beta (0 explicit .. 1 backward Euler)"};
    const sc_range alpha = {0, 1, 0, 0, "the FLIP fraction"};
    const sc_range tol = {0, 1, 1, 1, "the relative residual tolerance"};
    int transfer, kernel;
    long long iters, budget, retakes;
    pw_sim_params d; /* the step controller's defaults */
    pw_sim_params_default(&d);
    if ((rc = sc_number(c, sim, "sim", "h", 0, 0.02, h, &p->h)) != PW_OK ||
        (rc = parse_domain(c, sim, p)) != PW_OK ||
        (rc = sc_vec3(c, sim, "sim", "gravity", 0, v3(0, -9.81, 0), sc_any, &p->gravity)) ||
        (rc = sc_number(c, sim, "sim", "dt_max", 0, 5e-4, dt, &p->dt_max)) != PW_OK ||
        (rc = sc_number(c, sim, "sim", "cfl", 0, 0.5, cfl, &p->cfl)) != PW_OK ||
        (rc = sc_number(c, sim, "sim", "courant", 0, d.courant, courant, &p->courant)) ||
        (rc = sc_int(c, sim, "sim", "retake_limit", 0, d.retake_limit, 0, PW_RETAKE_LIMIT_MAX,
                     "the retakes of one step (0: never retake)", &retakes)) != PW_OK ||
        (rc = sc_number(c, sim, "sim", "beta", 0, 1, beta, &p->beta)) != PW_OK ||
        (rc = sc_enum(c, sim, "sim", "transfer", PW_TRANSFER_PIC_FLIP, transfers,
                      &transfer)) != PW_OK ||
        (rc = sc_enum(c, sim, "sim", "kernel", PW_KERNEL_CUBIC, kernels, &kernel)) != PW_OK ||
        (rc = sc_number(c, sim, "sim", "flip_alpha", 0, 0.95, alpha, &p->flip_alpha)) ||
        (rc = sc_number(c, sim, "sim", "cr_tolerance", 0, 1e-4, tol, &p->cr_tolerance)) ||
        (rc = sc_int(c, sim, "sim", "cr_max_iterations", 0, 200, 1, 100000,
                     "the iteration cap", &iters)) != PW_OK ||
        (rc = sc_int(c, sim, "sim", "max_particles", 0, 5000000, 1, 1LL << 40,
                     "the particle budget", &budget)) != PW_OK)
        return rc;
    p->transfer = (pw_transfer)transfer;
    p->kernel = (pw_kernel_kind)kernel;
    p->cr_max_iterations = (int)iters;
    p->retake_limit = (int)retakes;
    /* (the step controller's keys stay out of the canonical text at their defaults, so
     * that caches written before them still match their scenes: sim_hash) */
    if (p->courant == d.courant) json_object_del(sim, "courant");
    if (p->retake_limit == d.retake_limit) json_object_del(sim, "retake_limit");
    if (p->kernel == PW_KERNEL_CUBIC) json_object_del(sim, "kernel"); /* (likewise) */
    p->threads = 0;
    s->max_particles = (uint64_t)budget;
    if ((rc = parse_materials(c, sim, s)) != PW_OK || (rc = sc_sources(c, sim, s)) != PW_OK)
        return rc;

    /* bodies (none needed where sources bring the snow) */
    json_t *bodies;
    int need_body = s->n_sources == 0;
    if ((rc = sc_get_list(c, sim, "sim", "bodies", need_body, PW_SCENE_MAX_BODIES, "bodies",
                          &bodies)) != PW_OK)
        return rc;
    if (!bodies) json_object_set_new(sim, "bodies", bodies = json_array());
    if (need_body && json_array_size(bodies) == 0)
        return sc_fail(c, "sim.bodies", "at least one snow body (or a source in "
                                        "sim.sources) is required");
    s->n_bodies = 0;
    for (size_t k = 0; k < json_array_size(bodies); k++) {
        char at[SC_PATH];
        sc_index(at, "sim.bodies", (int)k);
        if ((rc = parse_body(c, json_array_get(bodies, k), at, (int)k, s)) != PW_OK) return rc;
        s->n_bodies = (int)k + 1;
    }

    /* colliders */
    json_t *cols;
    if ((rc = sc_get_list(c, sim, "sim", "colliders", 0, PW_SCENE_MAX_COLLIDERS, "colliders",
                          &cols)) != PW_OK)
        return rc;
    s->n_colliders = 0;
    if (!cols) { /* "rest" and "active_region" still apply */
        json_object_set_new(sim, "colliders", json_array());
        return parse_resting(c, sim, s);
    }
    for (size_t k = 0; k < json_array_size(cols); k++) {
        char at[SC_PATH];
        sc_index(at, "sim.colliders", (int)k);
        rc = parse_collider(c, json_array_get(cols, k), at, &s->colliders[k]);
        if (rc != PW_OK) return rc;
        s->n_colliders = (int)k + 1;
    }
    return parse_resting(c, sim, s);
}
