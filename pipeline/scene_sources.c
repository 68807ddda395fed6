/* scene_sources.c — the scene's "sim.sources" (snow that falls or pours in over time,
 * sim/emit.h) and "sim.air_velocity". */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const keys_source[] = {
    "shape",  "material", "start",              "end",            "rate", "intensity",
    "velocity", "jitter", "particles_per_cell", "terminal_speed", "seed", NULL};

static pw_status parse_source(const sc_ctx *c, json_t *obj, const char *path, int index,
                              pw_scene *s)
{
    pw_source_desc *d = &s->sources[index];
    memset(d, 0, sizeof *d);
    pw_status rc = sc_check_keys(c, obj, path, keys_source);
    if (rc != PW_OK) return rc;
    char at[SC_PATH];
    int m;
    if ((rc = sc_material_ref(c, obj, path, s, &m)) != PW_OK) return rc;
    d->material = s->materials[m];
    json_t *shape = json_object_get(obj, "shape");
    sc_join(at, path, "shape");
    if (!shape) return sc_fail(c, at, "required key is missing (expected a shape object)");
    double t_last = (s->frame_end - s->frame_start) / s->fps;
    const sc_range start = {0, t_last, 0, 1, "the time the source starts [s], before the "
                                             "shot's last frame,"};
    const sc_range rate = {0, INFINITY, 1, 1, "the rate [kg/s]"};
    const sc_range intensity = {0, INFINITY, 1, 1, "the snowfall's intensity [mm of water "
                                                   "an hour]"};
    const sc_range jitter = {0, INFINITY, 0, 1, "the jitter [m/s]"};
    const sc_range terminal = {0, INFINITY, 0, 1, "the terminal speed [m/s] (0: no drag)"};
    long long ppc, seed;
    if ((rc = sc_shape(c, shape, at, SC_SHAPE_NO_HALFSPACE, &d->shape)) != PW_OK ||
        (rc = sc_number(c, obj, path, "start", 0, 0, start, &d->t_start)) != PW_OK)
        return rc;
    const sc_range end = {d->t_start, INFINITY, 1, 1, "the time the source stops [s], after "
                                                      "its start,"};
    if ((rc = sc_number(c, obj, path, "end", 1, 0, end, &d->t_end)) != PW_OK ||
        (rc = sc_number(c, obj, path, "jitter", 0, 0, jitter, &d->jitter)) != PW_OK ||
        (rc = sc_number(c, obj, path, "terminal_speed", 0, 1.0, terminal,
                        &d->terminal_speed)) != PW_OK ||
        (rc = sc_int(c, obj, path, "particles_per_cell", 0, 8, 1, 64, "particles per cell",
                     &ppc)) != PW_OK ||
        (rc = sc_int(c, obj, path, "seed", 0, index, 0, INT64_MAX, "the seed", &seed)) != PW_OK)
        return rc;
    /* born falling as flakes that came from above do: with the air, at the terminal
     * speed along gravity */
    vec3 g = s->sim.gravity, fall = s->sim.air_velocity;
    if (v3_length(g) > 0) fall = v3_madd(fall, v3_normalize(g), d->terminal_speed);
    if ((rc = sc_vec3(c, obj, path, "velocity", 0, fall, sc_any, &d->velocity)) != PW_OK)
        return rc;
    d->particles_per_cell = (double)ppc;
    d->seed = (uint64_t)seed;
    /* the rate, as kg/s or as a snowfall's intensity over the shape's footprint */
    int has_rate = json_object_get(obj, "rate") != NULL;
    int has_intensity = json_object_get(obj, "intensity") != NULL;
    if (has_rate == has_intensity)
        return sc_fail(c, path, "give the source either \"rate\" [kg/s] or \"intensity\" [mm "
                       "of water an hour over its shape's footprint], one of the two");
    if (has_rate) {
        if ((rc = sc_number(c, obj, path, "rate", 1, 0, rate, &d->rate)) != PW_OK) return rc;
    } else {
        double mm_h, area = pw_source_top_area(&d->shape);
        if ((rc = sc_number(c, obj, path, "intensity", 1, 0, intensity, &mm_h)) != PW_OK)
            return rc;
        if (!(area > 0)) {
            sc_join(at, path, "intensity");
            return sc_fail(c, at, "needs a footprint known in closed form (a sphere, or a box "
                           "or cylinder that is not rotated): give \"rate\" [kg/s] instead");
        }
        d->rate = mm_h * area / 3600.0; /* 1 mm of water over 1 m^2 is 1 kg */
    }
    pw_error e = {0};
    if (pw_source_check(d, s->sim.h, s->sim.domain_min, s->sim.domain_max, &e) != PW_OK) {
        /* the solver's message begins with the key it refuses */
        char key[32] = "";
        size_t k = 0;
        while (e.msg[k] && e.msg[k] != ':' && e.msg[k] != ',' && k + 1 < sizeof key) {
            key[k] = e.msg[k];
            k++;
        }
        sc_join(at, path, key);
        return sc_fail(c, at, "%s", e.msg[k] == ':' ? e.msg + k + 2 : e.msg);
    }
    return PW_OK;
}

pw_status sc_sources(const sc_ctx *c, json_t *sim, pw_scene *s)
{
    pw_status rc;
    s->n_sources = 0;
    /* (absent, neither key enters the canonical text: sim_hash) */
    if (json_object_get(sim, "air_velocity") &&
        (rc = sc_vec3(c, sim, "sim", "air_velocity", 1, v3_zero(), sc_any,
                      &s->sim.air_velocity)) != PW_OK)
        return rc;
    json_t *list;
    if ((rc = sc_get_list(c, sim, "sim", "sources", 0, PW_SIM_MAX_SOURCES, "sources",
                          &list)) != PW_OK || !list)
        return rc;
    for (size_t k = 0; k < json_array_size(list); k++) {
        char at[SC_PATH];
        sc_index(at, "sim.sources", (int)k);
        if ((rc = parse_source(c, json_array_get(list, k), at, (int)k, s)) != PW_OK) return rc;
        s->n_sources = (int)k + 1;
    }
    return PW_OK;
}
