/* Property: a scene file's every value lands in the matching pw_scene field, and every
 * omitted value takes its documented default (materials: Table 2 of Stomakhin et al.
 * 2013). Numbers are compared exactly (tolerance 0) when they are copied, and to 1e-12
 * when the parser converts them (degrees to radians, full to half extents, normalised
 * directions), which is double rounding of one or two operations. Also: the built-in
 * default shot parses with ~2e4 particles; sim_hash changes with every simulation input
 * (a sim value, frames.start, fps) and with nothing else (render values, frames.end,
 * the particle budget, or another spelling of the same numbers); frame paths are
 * zero-padded to the run of '#'; a look file replaces the render section only. */
/* (The EQ lists below check one field of a material, a body or the solver after
 * another: they share a shape, field after field, not a piece of logic to fold.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ice_optics.h"
#include "pw_file.h"
#include "scene.h"
#include "test_util.h"

#define DATA POWDER_SOURCE_DIR "/tests/data/scenes/"
static const double deg = 3.14159265358979323846 / 180.0;

/* text with its first `from` replaced by `to` (a new string). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "replace: '%s' not found\n", from);
        exit(2);
    }
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static uint64_t hash_of(const char *text, pw_scene *s)
{
    pw_error err = {0};
    pw_status rc = pw_scene_parse("variant.json", text, strlen(text), DATA, s, &err);
    CHECK(rc == PW_OK, "variant does not parse: %s", err.msg);
    return rc == PW_OK ? s->sim_hash : 0;
}

#define EQ(a, b) CHECK_NEAR((a), (b), 0, #a)
#define NEAR(a, b) CHECK_NEAR((a), (b), 1e-12, #a)
#define EQV(v, X, Y, Z) do { EQ((v).x, X); EQ((v).y, Y); EQ((v).z, Z); } while (0)
#define NEARV(v, X, Y, Z) do { NEAR((v).x, X); NEAR((v).y, Y); NEAR((v).z, Z); } while (0)

/* 1. every field of tests/data/scenes/full.json */
static void case_full(pw_scene *s)
{
    pw_error err = {0};
    pw_status rc = pw_scene_load(DATA "full.json", s, &err);
    CHECK(rc == PW_OK, "full.json: %s", err.msg);
    if (rc != PW_OK) return;
    CHECK(strcmp(s->name, "full_test") == 0, "name %s", s->name);
    CHECK(strncmp(s->comment, "Every key", 9) == 0, "comment %s", s->comment);
    CHECK(strcmp(s->dir, POWDER_SOURCE_DIR "/tests/data/scenes") == 0, "dir %s", s->dir);
    EQ(s->frame_start, 3);
    EQ(s->frame_end, 27);
    EQ(s->fps, 30);
    /* sim */
    EQ(s->sim.h, 0.015);
    EQV(s->sim.domain_min, -1, -0.5, -2);
    EQV(s->sim.domain_max, 1, 2, 2);
    EQV(s->sim.gravity, 0.1, -9.7, 0.2);
    EQ(s->sim.dt_max, 2.5e-4);
    EQ(s->sim.cfl, 0.4);
    EQ(s->sim.beta, 0.5);
    CHECK(s->sim.transfer == PW_TRANSFER_APIC, "transfer %d", (int)s->sim.transfer);
    EQ(s->sim.flip_alpha, 0.9);
    EQ(s->sim.cr_tolerance, 1e-5);
    EQ(s->sim.cr_max_iterations, 150);
    EQ((double)s->max_particles, 4e6);
    /* materials, in file order */
    EQ(s->n_materials, 2);
    const pw_material *w = &s->materials[0];
    CHECK(strcmp(w->name, "wet") == 0 && strcmp(s->materials[1].name, "snow") == 0,
          "material names %s %s", w->name, s->materials[1].name);
    EQ(w->E0, 2e5);
    EQ(w->nu, 0.3);
    EQ(w->xi, 5);
    EQ(w->theta_c, 0.03);
    EQ(w->theta_s, 0.01);
    EQ(w->rho0, 500);
    EQ(w->Jp_min, 0.5);
    EQ(w->Jp_max, 10);
    EQ(w->E_noise, 0.2);
    EQ(w->noise_scale, 0.04);
    EQ(w->shell_depth, 0.02);
    EQ(w->shell_E_factor, 2);
    EQ(w->shell_rho_factor, 1.5);
    /* bodies */
    EQ(s->n_bodies, 2);
    const pw_body_desc *b = &s->bodies[0];
    EQ(s->body_material[0], 1);
    EQ(s->body_material[1], 0);
    EQ(b->n_add, 2);
    CHECK(b->add[0].kind == PW_SHAPE_SPHERE, "kind %d", (int)b->add[0].kind);
    EQV(b->add[0].center, 0, 1, 0);
    EQ(b->add[0].radius, 0.2);
    EQ(b->add[0].n_keys, 0);
    CHECK(b->add[1].kind == PW_SHAPE_BOX, "kind %d", (int)b->add[1].kind);
    NEARV(b->add[1].half_extents, 0.1, 0.2, 0.3);
    NEARV(b->add[1].rotation_axis, 0, 0, 1);
    NEAR(b->add[1].rotation_angle, 90 * deg);
    EQ(b->n_subtract, 1);
    CHECK(b->subtract[0].kind == PW_SHAPE_HALFSPACE, "kind %d", (int)b->subtract[0].kind);
    EQV(b->subtract[0].center, 0, 0.9, 0);
    NEARV(b->subtract[0].normal, 0, -1, 0);
    EQV(b->velocity, 1, 2, 3);
    EQV(b->angular_velocity, 0, 4, 0);
    EQ(b->particles_per_cell, 6);
    EQ((double)b->seed, 42);
    b = &s->bodies[1];
    CHECK(b->add[0].kind == PW_SHAPE_CYLINDER, "kind %d", (int)b->add[0].kind);
    EQ(b->add[0].radius, 0.1);
    EQ(b->add[0].half_height, 0.2);
    CHECK(b->add[1].kind == PW_SHAPE_MESH, "kind %d", (int)b->add[1].kind);
    CHECK(strcmp(b->add[1].path, POWDER_SOURCE_DIR "/tests/data/scenes/../cube.obj") == 0,
          "mesh path %s", b->add[1].path);
    EQ(b->add[1].scale, 0.1);
    EQV(b->add[1].center, 0, 0.2, 1);
    EQ(b->particles_per_cell, 8); /* default */
    EQ((double)b->seed, 1);       /* default: the body's index */
    EQ(b->n_subtract, 0);
    /* colliders */
    EQ(s->n_colliders, 2);
    CHECK(s->colliders[0].shape.kind == PW_SHAPE_HALFSPACE, "collider 0 kind");
    NEARV(s->colliders[0].shape.normal, 0, 1, 0); /* default normal */
    EQV(s->colliders[0].shape.center, 0, 0, 0);  /* default center */
    EQ(s->colliders[0].friction, 0.3);
    EQ(s->colliders[0].sticky, 0);
    const pw_shape *m = &s->colliders[1].shape;
    EQ(s->colliders[1].sticky, 1);
    EQ(s->colliders[1].friction, 0.5); /* default */
    EQ(m->n_keys, 2);
    EQ(m->keys[1].t, 0.5);
    EQV(m->keys[1].translation, 0, 0, 1);
    NEARV(m->keys[1].axis, 1, 0, 0);
    NEAR(m->keys[1].angle, 45 * deg);
    NEARV(m->keys[0].axis, 0, 1, 0);
    EQ(m->keys[0].angle, 0);
    /* render */
    EQV(s->camera.eye, 1, 2, 3);
    EQV(s->camera.target, 0, 0.5, 0);
    NEARV(s->camera.up, 0, 0, 1);
    EQ(s->camera.fov_deg, 50);
    EQ(s->camera.width_px, 800);
    EQ(s->camera.height_px, 600);
    EQ(s->render.spp, 32);
    EQ(s->render.max_depth, 500);
    EQ(s->render.rr_start_depth, 16);
    EQ((double)s->render.seed, 7);
    EQ(s->render.subdiv, 2);
    EQ(s->render.raster, PW_RASTER_BSPLINE);
    EQ(s->render.aov_depth, 1);
    EQ(s->render.aov_albedo, 1);
    EQ(s->exr_compression, PW_EXR_PIZ);
    EQ(s->exr_float, 1);
    EQ(s->png_exposure, -1.5);
    EQ(s->medium.sigma_t_ref, 500);
    EQ(s->medium.rho_ref, 350);
    EQV(s->medium.albedo, 0.8, 0.85, 0.9);
    EQ(s->medium.g, 0.3);
    NEARV(s->lights.sun_direction, 0, 0.6, 0.8);
    EQ(s->lights.sun_angular_diameter_deg, 1);
    EQV(s->lights.sun_irradiance, 5, 4, 3);
    EQV(s->lights.sky_radiance, 0.1, 0.2, 0.3);
    CHECK(s->lights.envmap_path[0] == '\0', "envmap %s", s->lights.envmap_path);
    EQ(s->n_surfaces, 2);
    EQ(s->surfaces[0].size, 5);
    EQV(s->surfaces[0].color, 0.2, 0.3, 0.4);
    CHECK(s->surfaces[1].shape.kind == PW_SHAPE_SPHERE, "surface 1 kind");
    EQV(s->surfaces[1].color, 0.8, 0.8, 0.8); /* default */
    CHECK(s->surfaces[0].role == PW_SURFACE_SHADOW_CATCHER, "surface 0 role %d", s->surfaces[0].role);
    CHECK(s->surfaces[1].role == PW_SURFACE_OPAQUE, "surface 1 role %d (default)", s->surfaces[1].role);
    EQ(s->draw_colliders, 0);
    EQV(s->collider_color, 0.1, 0.6, 0.9);
    CHECK(strcmp(s->cache_pattern, "tmp/c/full.###.pwc") == 0, "caches %s", s->cache_pattern);
    CHECK(strcmp(s->frame_pattern, "tmp/f/full_#####.exr") == 0, "frames %s", s->frame_pattern);
    CHECK(s->particle_estimate > 0, "particle estimate %zu", s->particle_estimate);
    printf("full.json: %zu particles estimated, sim_hash %016llx\n", s->particle_estimate,
           (unsigned long long)s->sim_hash);
}

/* 2. omitted keys take their defaults; the material is Table 2 of the paper */
static void case_defaults(pw_scene *s)
{
    pw_error err = {0};
    pw_status rc = pw_scene_load(DATA "minimal.json", s, &err);
    CHECK(rc == PW_OK, "minimal.json: %s", err.msg);
    if (rc != PW_OK) return;
    const pw_material *m = &s->materials[0];
    EQ(m->theta_c, 2.5e-2);
    EQ(m->theta_s, 7.5e-3);
    EQ(m->xi, 10);
    EQ(m->rho0, 400);
    EQ(m->E0, 1.4e5);
    EQ(m->nu, 0.2);
    EQ(m->Jp_min, 0.6);
    EQ(m->Jp_max, 20);
    EQ(m->rho_max, 0);
    EQ(m->Jp_floor, 0);
    EQ(s->frame_start, 0);
    EQ(s->fps, 24);
    EQ(s->sim.h, 0.02);
    EQV(s->sim.gravity, 0, -9.81, 0);
    EQ(s->sim.dt_max, 5e-4);
    EQ(s->sim.cfl, 0.5);
    EQ(s->sim.beta, 1);
    CHECK(s->sim.transfer == PW_TRANSFER_PIC_FLIP, "transfer %d", (int)s->sim.transfer);
    EQ(s->sim.flip_alpha, 0.95);
    EQ(s->sim.cr_tolerance, 1e-4);
    EQ(s->sim.cr_max_iterations, 200);
    EQ((double)s->max_particles, 5e6);
    EQ(s->bodies[0].particles_per_cell, 8);
    EQ(s->n_colliders, 0);
    EQ(s->medium.sigma_t_ref, 724);
    EQ(s->medium.rho_ref, 400);
    EQV(s->medium.albedo, 0.9, 0.95, 1.0);
    EQ(s->medium.g, 0.5);
    EQ(s->camera.width_px, 640);
    EQ(s->camera.height_px, 360);
    NEARV(s->camera.up, 0, 1, 0);
    EQ(s->camera.fov_deg, 40);
    EQ(s->render.spp, 64);
    EQ(s->render.max_depth, 10000);
    EQ(s->render.rr_start_depth, 64);
    EQ(s->render.raster, PW_RASTER_BOUNDED); /* crisp packed snow by default */
    EQ(s->render.subdiv, 4);                 /* the bounded raster's default */
    EQ(s->render.aov_depth + s->render.aov_albedo, 0);
    EQ(s->exr_compression, PW_EXR_ZIP);
    EQ(s->exr_float, 0);
    EQ(s->png_exposure, 0);
    EQ(s->lights.sun_angular_diameter_deg, 0.53);
    EQV(s->lights.sun_irradiance, 0, 0, 0);
    EQ(s->lights.envmap_intensity, 1);
    EQ(s->draw_colliders, 1);
    EQV(s->collider_color, 0.5, 0.5, 0.5);
    EQ(s->n_surfaces, 0);
    CHECK(strcmp(s->cache_pattern, "out/minimal/cache/minimal.####.pwc") == 0, "caches %s",
          s->cache_pattern);
    CHECK(strcmp(s->frame_pattern, "out/minimal/minimal.####.exr") == 0, "frames %s",
          s->frame_pattern);
}

/* 3. the built-in default shot */
static void case_default_scene(pw_scene *s)
{
    pw_error err = {0};
    const char *text = pw_scene_default_json();
    pw_status rc = pw_scene_parse("default", text, strlen(text), "", s, &err);
    CHECK(rc == PW_OK, "default scene: %s", err.msg);
    memset(s, 0xff, sizeof *s);
    pw_scene_default(s);
    CHECK(strcmp(s->name, "snowball") == 0, "default name %s", s->name);
    EQ(s->sim.h, 0.01);
    EQ(s->bodies[0].add[0].radius, 0.1);
    EQ(s->camera.width_px, 320);
    EQ(s->render.spp, 16);
    EQ(s->frame_end - s->frame_start, 24);
    /* 4/3 pi (0.1/0.01)^3 cells x 5 per cell = 20944: the seeder's estimate must be
     * within 25% of the analytic count (surface cells are partly filled). */
    CHECK(s->particle_estimate > 15700 && s->particle_estimate < 26200,
          "default particle estimate %zu, expected ~20944", s->particle_estimate);
    printf("default scene: %zu particles estimated\n", s->particle_estimate);
}

/* 4. sim_hash follows the simulation inputs and nothing else */
static void case_hash(pw_scene *s)
{
    char *base = slurp(DATA "minimal.json", NULL);
    CHECK(base != NULL, "cannot read minimal.json");
    if (!base) return;
    uint64_t h0 = hash_of(base, s);
    struct {
        const char *from, *to;
        int changes;
        const char *what;
    } v[] = {
        {"\"snow\": {}", "\"snow\": {\"nu\": 0.21}", 1, "material nu"},
        {"\"radius\": 0.1", "\"radius\": 0.11", 1, "body radius"},
        {"\"max\": [1, 1, 1]", "\"max\": [1, 1.5, 1]", 1, "domain"},
        {"\"end\": 10", "\"end\": 10, \"start\": 1", 1, "frames.start"},
        {"\"end\": 10", "\"end\": 10, \"fps\": 25", 1, "fps"},
        {"\"materials\"", "\"h\": 0.01, \"materials\"", 1, "h"},
        {"\"materials\"", "\"colliders\": [{\"shape\": {\"type\": \"halfspace\"}}], \"materials\"",
         1, "a collider"},
        {"\"end\": 10", "\"end\": 11", 0, "frames.end"},
        {"\"end\": 10", "\"end\": 10, \"fps\": 24.0", 0, "fps spelled as the default"},
        {"\"materials\"", "\"h\": 2e-2, \"materials\"", 0, "h spelled as the default"},
        {"\"materials\"", "\"max_particles\": 1000000, \"materials\"", 0, "particle budget"},
        {"\"snow\": {}", "\"snow\": {\"E0\": 140000, \"nu\": 0.2}", 0, "Table 2 spelled out"},
        {"\"radius\": 0.1", "\"radius\": 1e-1", 0, "0.1 as 1e-1"},
        {"\"camera\"", "\"spp\": 3, \"camera\"", 0, "render spp"},
        {"[1, 1, 1]}}", "[1, 1, 1]}}, \"resolution\": [10, 10]", 0, "render resolution"},
        {"\"name\": \"minimal\"", "\"name\": \"other\"", 0, "name"},
        {"\"snow\": {}", "\"snow\": {\"Jp_floor\": 0.6}", 1, "the compaction floor"},
        {"\"snow\": {}", "\"snow\": {\"Jp_floor\": 0}", 0, "the floor at its no-op value"},
    };
    /* Caches carry the hash of the scene that wrote them, and a scene whose hash changed
     * no longer renders or resumes them. This is the hash the caches of this scene have
     * had since the compaction limit (rho_max) came in: a new key must stay out of the
     * canonical text at its no-op value (scene_sim.c), or every user's cache is orphaned. */
    CHECK(h0 == 0xd3c62640b2ead7e2ull, "minimal.json hashes to %016llx, not d3c62640b2ead7e2: "
          "existing caches would no longer match their scenes", (unsigned long long)h0);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        char *t = replace(base, v[k].from, v[k].to);
        uint64_t h = hash_of(t, s);
        CHECK((h != h0) == v[k].changes, "sim_hash %s when changing %s",
              v[k].changes ? "unchanged" : "changed", v[k].what);
        free(t);
    }
    /* a box given by full size and by half extents is the same setup */
    char *a = replace(base, "{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.1}",
                      "{\"type\": \"box\", \"center\": [0.5, 0.5, 0.5], \"size\": [0.2, 0.2, 0.4]}");
    char *b = replace(base, "{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.1}",
                      "{\"center\": [0.5, 0.5, 0.5], \"half_extents\": [0.1, 0.1, 0.2], "
                      "\"type\": \"box\"}");
    CHECK(hash_of(a, s) == hash_of(b, s), "box size vs half_extents hash differently");
    free(a);
    free(b);
    free(base);
}

/* 5. frame paths */
static void case_frame_path(void)
{
    char out[64];
    pw_error err = {0};
    struct {
        const char *pattern;
        int frame;
        const char *want; /* NULL = error */
        size_t size;
    } v[] = {
        {"out/a.####.exr", 7, "out/a.0007.exr", 64},
        {"out/a.####.exr", 0, "out/a.0000.exr", 64},
        {"out/a.####.exr", 12345, "out/a.12345.exr", 64},
        {"x#y", 3, "x3y", 64},
        {"##", 123, "123", 64},
        {"#", 5, "5", 2},
        {"#", 15, NULL, 2},             /* does not fit */
        {"noframe.exr", 1, NULL, 64},   /* no run */
        {"a##b##.exr", 1, NULL, 64},    /* two runs */
        {"a.####.exr", -1, NULL, 64},   /* negative */
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        pw_status rc = pw_frame_path(v[k].pattern, v[k].frame, out, v[k].size, &err);
        if (v[k].want)
            CHECK(rc == PW_OK && strcmp(out, v[k].want) == 0, "%s frame %d -> %s (%s)",
                  v[k].pattern, v[k].frame, rc == PW_OK ? out : "error", err.msg);
        else
            CHECK(rc != PW_OK && strstr(err.msg, "frame pattern"), "%s frame %d accepted",
                  v[k].pattern, v[k].frame);
    }
}

/* 6. a look file replaces the render keys it names, keeps the others and the simulation */
static void case_look(pw_scene *s)
{
    pw_error err = {0};
    if (pw_scene_load(DATA "full.json", s, &err) != PW_OK) return; /* reported by case 1 */
    uint64_t hash = s->sim_hash;
    double h = s->sim.h;
    FILE *f = fopen(POWDER_TEST_TMP "/scene_look_sky.exr", "wb");
    CHECK(f != NULL, "cannot write the stand-in envmap");
    if (!f) return;
    fputs("stand-in: the parser only checks that the map can be opened", f);
    fclose(f);
    f = fopen(POWDER_TEST_TMP "/scene_look.json", "wb");
    if (!f) return;
    fputs("{\"name\": \"dusk\", \"comment\": \"a look\", \"render\": {"
          "\"camera\": {\"eye\": [4, 5, 6], \"target\": [0, 0, 0]}, \"spp\": 8,"
          "\"lights\": {\"envmap\": {\"path\": \"scene_look_sky.exr\", \"intensity\": 2,"
          "\"rotation_deg\": 30}}}}", f);
    fclose(f);
    pw_status rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look.json", &err);
    CHECK(rc == PW_OK, "look: %s", err.msg);
    EQV(s->camera.eye, 4, 5, 6);
    EQV(s->camera.up, 0, 1, 0); /* the look's camera replaces the scene's whole camera */
    EQ(s->render.spp, 8);
    EQ(s->camera.width_px, 800); /* not named by the look: the scene's */
    EQ(s->render.seed, 7);
    CHECK(strcmp(s->lights.envmap_path, POWDER_TEST_TMP "/scene_look_sky.exr") == 0,
          "envmap path %s", s->lights.envmap_path);
    EQ(s->lights.envmap_intensity, 2);
    EQ(s->lights.envmap_rotation_deg, 30);
    EQV(s->lights.sky_radiance, 0, 0, 0); /* the map replaces the scene's constant sky */
    EQV(s->lights.sun_irradiance, 5, 4, 3); /* lights the look does not name are kept */
    NEARV(s->lights.sun_direction, 0, 0.6, 0.8);
    EQ(s->n_surfaces, 2);
    EQ(s->draw_colliders, 0);
    EQ(s->medium.sigma_t_ref, 500);
    CHECK(strcmp(s->name, "full_test") == 0, "the look's name was applied: %s", s->name);
    CHECK(s->sim_hash == hash && s->sim.h == h && s->n_colliders == 2, "look changed the sim");
    /* 6b. a partial look over that: only spp changes, the first look's envmap stays */
    f = fopen(POWDER_TEST_TMP "/scene_look_spp.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"spp\": 4}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_spp.json", &err);
    CHECK(rc == PW_OK, "partial look: %s", err.msg);
    EQ(s->render.spp, 4);
    EQV(s->camera.eye, 4, 5, 6);
    EQ(s->camera.width_px, 800);
    CHECK(strcmp(s->lights.envmap_path, POWDER_TEST_TMP "/scene_look_sky.exr") == 0,
          "envmap path after a partial look %s", s->lights.envmap_path);
    /* 6b'. a look that names one field of a light keeps the light's other fields and
     * the other lights; null removes a light; a sky replaces the map */
    f = fopen(POWDER_TEST_TMP "/scene_look_sun.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"lights\": {\"sun\": {\"direction\": [0, 1, 0]},"
          " \"sky\": {\"radiance\": [0.4, 0.5, 0.6]}}}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_sun.json", &err);
    CHECK(rc == PW_OK, "a look with only the sun's direction: %s", err.msg);
    NEARV(s->lights.sun_direction, 0, 1, 0);
    EQV(s->lights.sun_irradiance, 5, 4, 3);
    EQ(s->lights.sun_angular_diameter_deg, 1);
    EQV(s->lights.sky_radiance, 0.4, 0.5, 0.6);
    CHECK(s->lights.envmap_path[0] == '\0', "the sky did not replace the map (%s)",
          s->lights.envmap_path);
    f = fopen(POWDER_TEST_TMP "/scene_look_nosun.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"lights\": {\"sun\": null}}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_nosun.json", &err);
    CHECK(rc == PW_OK, "a look removing the sun: %s", err.msg);
    EQV(s->lights.sun_irradiance, 0, 0, 0);
    EQV(s->lights.sky_radiance, 0.4, 0.5, 0.6);
    /* 6c. a bad value in a partial look is refused with the look's name; nothing changes */
    f = fopen(POWDER_TEST_TMP "/scene_look_bad.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"spp\": 0}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_bad.json", &err);
    CHECK(rc != PW_OK && strstr(err.msg, "scene_look_bad.json") && strstr(err.msg, "render.spp"),
          "bad partial look: %s", err.msg);
    EQ(s->render.spp, 4);
    /* 6d. a look naming daylight and grains drops the scene's sun, sky and sigma_t,
     * albedo, g; one naming sigma_t goes back */
    f = fopen(POWDER_TEST_TMP "/scene_look_ice.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"medium\": {\"grain_radius_um\": 904.2},"
          " \"lights\": {\"daylight\": {\"sun_elevation_deg\": 30}}}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_ice.json", &err);
    CHECK(rc == PW_OK, "a look with daylight and grains: %s", err.msg);
    EQ(s->lights.daylight, 1);
    EQ(s->lights.sun_elevation_deg, 30);
    EQ(s->lights.turbidity, 3);
    EQ(s->lights.daylight_ground_albedo, 0.3);
    EQV(s->lights.sun_irradiance, 0, 0, 0);
    EQV(s->lights.sky_radiance, 0, 0, 0);
    /* sigma_a = co-albedo x 3 rho_ref / (2 rho_ice r), rho_ref the scene's 350; g the
     * default 0.5 (the scene's 0.3 went with its sigma_t) */
    double sigma_a = pw_ice_sphere_coalbedo(904.2e-6, 550) * 3 * 350 / (2 * 917 * 904.2e-6);
    CHECK(fabs(s->medium.sigma_t_ref * (1 - s->medium.albedo.y) - sigma_a) < 1e-9 * sigma_a &&
          s->medium.rho_ref == 350 && s->medium.g == 0.5 && s->medium.albedo.x < 1 &&
          s->medium.albedo.x > 0.999 && s->medium.albedo.z > s->medium.albedo.x,
          "ice medium sigma_t %g rho_ref %g g %g albedo (%g, %g, %g)", s->medium.sigma_t_ref,
          s->medium.rho_ref, s->medium.g, s->medium.albedo.x, s->medium.albedo.y,
          s->medium.albedo.z);
    f = fopen(POWDER_TEST_TMP "/scene_look_paper.json", "wb");
    if (!f) return;
    fputs("{\"render\": {\"medium\": {\"sigma_t\": 724}}}", f);
    fclose(f);
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_look_paper.json", &err);
    CHECK(rc == PW_OK, "a look back to sigma_t: %s", err.msg);
    EQ(s->medium.sigma_t_ref, 724);
    EQV(s->medium.albedo, 0.9, 0.95, 1.0);
    EQ(s->medium.g, 0.5);
    EQ(s->lights.daylight, 1); /* the lights were not named */
    /* 7. frame times */
    NEAR(pw_scene_frame_time(s, 3), 0.0);
    NEAR(pw_scene_frame_time(s, 18), 0.5);
}

/* 8. the examples in scenes/FORMAT.md parse, read where the shipped scenes are (the
 * complete one uses their prop mesh and the walker sequence the build makes) */
static void case_format_examples(pw_scene *s)
{
    char *doc = slurp(POWDER_SOURCE_DIR "/scenes/FORMAT.md", NULL);
    CHECK(doc != NULL, "cannot read scenes/FORMAT.md");
    if (!doc) return;
    pw_error err = {0};
    const char *names[] = {"complete", "minimal"};
    const char *at = doc;
    for (int k = 0; k < 2; k++) {
        const char *open = strstr(at, "```json\n");
        CHECK(open != NULL, "FORMAT.md: json example %d missing", k + 1);
        if (!open) break;
        open += 8;
        const char *close = strstr(open, "```");
        if (!close) break;
        pw_status rc = pw_scene_parse("FORMAT.md example", open, (size_t)(close - open),
                                      POWDER_SOURCE_DIR "/scenes", s, &err);
        CHECK(rc == PW_OK, "FORMAT.md example %d: %s", k + 1, err.msg);
        CHECK(rc != PW_OK || strcmp(s->name, names[k]) == 0, "example name %s", s->name);
        if (rc == PW_OK) printf("FORMAT.md example %s: %zu particles\n", s->name,
                                s->particle_estimate);
        at = close + 3;
    }
    free(doc);
}

/* 9. directions are normalised without overflow, even from huge components */
static void case_huge_direction(pw_scene *s)
{
    char *base = slurp(DATA "minimal.json", NULL);
    if (!base) return;
    char *t = replace(base, "\"target\": [0.5, 0.5, 0.5]",
                      "\"target\": [0.5, 0.5, 0.5], \"up\": [0, 1e300, 1e300]");
    pw_error err = {0};
    pw_status rc = pw_scene_parse("huge.json", t, strlen(t), DATA, s, &err);
    CHECK(rc == PW_OK, "huge up vector: %s", err.msg);
    NEARV(s->camera.up, 0, sqrt(0.5), sqrt(0.5));
    free(t);
    free(base);
}

int main(void)
{
    pw_scene *s = malloc(sizeof *s);
    if (!s) return 2;
    case_full(s);
    case_defaults(s);
    case_default_scene(s);
    case_hash(s);
    case_frame_path();
    case_look(s);
    case_format_examples(s);
    case_huge_direction(s);
    free(s);
    return check_done("scene_parses_and_defaults");
}
