/* Property: every invalid scene is refused before any work starts, with a message that
 * names the file, the place (line:col for syntax, the JSON path otherwise) and what is
 * allowed. Each numbered case edits one value of tests/data/scenes/minimal.json (which
 * itself must parse) and asserts that parsing fails and that the message contains the
 * expected substrings; the three messages quoted in the format reference are compared
 * in full. Matching substrings rather than whole messages keeps wording free to improve
 * while still pinning the place and the rule; an error that is not raised, or raised
 * at the wrong path, fails the case. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_file.h"
#include "scene.h"
#include "test_util.h"

#define DATA POWDER_SOURCE_DIR "/tests/data/scenes/"

typedef struct {
    const char *id;
    const char *from, *to; /* first `from` in minimal.json becomes `to` */
    const char *expect[3]; /* substrings of the message; NULL ends */
} error_case;

/* Anchors in minimal.json where a key can be added or a value changed. */
#define MAT "\"snow\": {}"
#define SIM "\"materials\""
#define REND "\"camera\""
#define FR "\"end\": 10"
#define BODY "\"material\": \"snow\","
#define SPHERE "{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.1}"
#define BODIES "\"bodies\": [{\"material\": \"snow\", \"shapes\": [" SPHERE "]}]"
#define CAM "\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0.5]}"
#define HALFSPACE \
    "\"colliders\": [{\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0], " \
    "\"normal\": [0, 1, 0]}}]"
#define LIGHTS "\"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}}"
/* a text body shape with the given keys and height, in the middle of the unit domain */
#define TEXT_AT(keys, height) \
    "{\"type\": \"text\", " keys ", \"center\": [0.5, 0.5, 0.5], \"height\": " height \
    ", \"depth\": 0.05}"
#define LONG_TEXT "Snow snow snow snow snow snow snow snow snow snow snow snow snow snow snow " \
                  "snow snow snow snow snow snow snow snow snow snow snow!!"

static const error_case cases[] = {
    /* 1. the three messages of the format reference */
    {"1.1", "{\n  \"name\"", "{\n  \"name\": \"x\",\n  \"frames\": {\"end\": 1,}\n, \"name\"",
     {"scene.json:3:23: ", "string or '}' expected", NULL}},
    {"1.2", MAT, "\"snow\": {\"nuu\": 0.3}",
     {"scene.json: sim.materials.snow.nuu: unknown key (did you mean 'nu'?)", NULL}},
    {"1.3", MAT, "\"snow\": {\"nu\": 0.7}",
     {"scene.json: sim.materials.snow.nu = 0.7: Poisson's ratio must be in (-1, 0.5)", NULL}},
    /* 2. unknown keys at other levels */
    {"2.1", REND, "\"sppp\": 4, " REND, {"render.sppp: unknown key (did you mean 'spp'?)"}},
    {"2.2", "\"render\"", "\"rendr\": {}, \"render\"",
     {"scene.json: rendr: unknown key (did you mean 'render'?)"}},
    {"2.3", SPHERE, "{\"type\": \"sphere\", \"radius\": 0.1, \"half_extents\": [1, 1, 1]}",
     {"sim.bodies[0].shapes[0].half_extents: unknown key", "allowed: type, center, radius"}},
    {"2.4", SIM, "\"zzzzzzzz\": 1, " SIM, {"sim.zzzzzzzz: unknown key (allowed: h, domain,"}},
    /* 3. wrong JSON types and array lengths */
    {"3.1", SIM, "\"h\": \"0.01\", " SIM, {"scene.json: sim.h: expected a number, got a string"}},
    {"3.2", SIM, "\"gravity\": [0, -9.81], " SIM,
     {"sim.gravity: expected an array of 3 numbers, got 2 elements"}},
    {"3.3", SIM, "\"gravity\": [0, \"-9.81\", 0], " SIM,
     {"sim.gravity[1]: expected a number, got a string"}},
    {"3.4", BODIES, "\"bodies\": {}", {"sim.bodies: expected an array, got an object"}},
    {"3.5", REND, "\"resolution\": [640], " REND,
     {"render.resolution: expected an array [width, height], got 1 element"}},
    {"3.6", REND, "\"draw_colliders\": 1, " REND,
     {"render.draw_colliders: expected true or false, got a number"}},
    {"3.7", "\"name\": \"minimal\"", "\"name\": 7", {"scene.json: name: expected a string"}},
    {"3.8", FR, FR ", \"start\": 1.5", {"frames.start = 1.5", "must be an integer"}},
    {"3.9", SIM, "\"transfer\": \"flip\", " SIM,
     {"sim.transfer: \"flip\" is not one of \"pic_flip\", \"apic\""}},
    {"3.9b", SIM, "\"kernel\": \"linear\", " SIM,
     {"sim.kernel: \"linear\" is not one of \"cubic\", \"quadratic\""}},
    {"3.10", REND, "\"compression\": \"dwaa\", " REND, {"render.compression", "\"zip\", \"piz\""}},
    {"3.11", REND, "\"aovs\": [\"normal\"], " REND, {"render.aovs[0]", "\"depth\", \"albedo\""}},
    {"3.12", REND, "\"aovs\": [\"depth\", \"depth\"], " REND, {"render.aovs[1]", "twice"}},
    {"3.13", SPHERE, "{\"type\": \"torus\"}",
     {"sim.bodies[0].shapes[0].type: \"torus\" is not one of \"halfspace\", \"sphere\""}},
    {"3.14", BODIES, "\"bodies\": [3]",
     {"sim.bodies[0]: expected an object, got a number"}},
    /* 4. out-of-range values, one per checked field */
    {"4.1", MAT, "\"snow\": {\"theta_c\": 0}", {"snow.theta_c = 0", "in (0, 1)"}},
    {"4.2", MAT, "\"snow\": {\"theta_c\": 1}", {"snow.theta_c = 1", "in (0, 1)"}},
    {"4.3", MAT, "\"snow\": {\"theta_s\": 0}", {"snow.theta_s = 0", "in (0, 1)"}},
    {"4.4", MAT, "\"snow\": {\"E0\": 0}", {"snow.E0 = 0", "Young's modulus [Pa] must be > 0"}},
    {"4.5", MAT, "\"snow\": {\"E0\": -1e5}", {"snow.E0 = -100000", "> 0"}},
    {"4.6", MAT, "\"snow\": {\"rho0\": 0}", {"snow.rho0 = 0", "> 0"}},
    {"4.7", MAT, "\"snow\": {\"xi\": -1}", {"snow.xi = -1", ">= 0"}},
    {"4.8", MAT, "\"snow\": {\"Jp_min\": 0}", {"snow.Jp_min = 0", "in (0, 1]"}},
    {"4.9", MAT, "\"snow\": {\"Jp_min\": 1.5}", {"snow.Jp_min = 1.5", "in (0, 1]"}},
    {"4.10", MAT, "\"snow\": {\"Jp_max\": 0.9}", {"snow.Jp_max = 0.9", ">= 1"}},
    {"4.10b", MAT, "\"snow\": {\"rho_max\": 400}", {"snow.rho_max = 400", "above rho0 = 400"}},
    {"4.10c", MAT, "\"snow\": {\"rho_max\": -1}", {"snow.rho_max = -1", ">= 0"}},
    {"4.10d", MAT, "\"snow\": {\"Jp_floor\": 1}", {"snow.Jp_floor = 1", "in [0, 1)"}},
    {"4.10e", MAT, "\"snow\": {\"Jp_floor\": -0.1}", {"snow.Jp_floor = -0.1", "in [0, 1)"}},
    {"4.11", MAT, "\"snow\": {\"nu\": -1}", {"snow.nu = -1", "in (-1, 0.5)"}},
    {"4.12", MAT, "\"snow\": {\"nu\": 0.5}", {"snow.nu = 0.5", "in (-1, 0.5)"}},
    {"4.13", MAT, "\"snow\": {\"E_noise\": 1}", {"snow.E_noise = 1", "in [0, 1)"}},
    {"4.14", MAT, "\"snow\": {\"E_noise\": 0.1, \"noise_scale\": 0}",
     {"snow.noise_scale", "must be > 0 when E_noise > 0"}},
    {"4.15", MAT, "\"snow\": {\"shell_depth\": -0.01}", {"snow.shell_depth = -0.01", ">= 0"}},
    {"4.16", MAT, "\"snow\": {\"shell_E_factor\": 0}", {"snow.shell_E_factor = 0", "> 0"}},
    {"4.17", MAT, "\"snow\": {\"shell_rho_factor\": -2}", {"snow.shell_rho_factor = -2", "> 0"}},
    {"4.18", MAT, "\"snow\": {\"xi\": 2000, \"Jp_min\": 0.6}", {"snow.xi = 2000", "overflows"}},
    {"4.19", SIM, "\"h\": 0, " SIM, {"sim.h = 0", "grid spacing [m] must be > 0"}},
    {"4.20", SIM, "\"h\": -0.01, " SIM, {"sim.h = -0.01", "> 0"}},
    {"4.21", "\"max\": [1, 1, 1]", "\"max\": [1, 0, 1]", {"sim.domain: min 0 >= max 0 on y"}},
    {"4.22", SIM, "\"h\": 1e-7, " SIM, {"sim.domain", "at most 2^21 per axis"}},
    {"4.23", FR, FR ", \"fps\": 0", {"frames.fps = 0", "in (0, 1000000]"}},
    {"4.24", FR, "\"end\": 2, \"start\": 5", {"frames.end = 2", ">= frames.start (5)"}},
    {"4.25", REND, "\"resolution\": [0, 10], " REND, {"render.resolution[0] = 0", "[1, 16384]"}},
    {"4.26", REND, "\"resolution\": [10, 16385], " REND, {"render.resolution[1] = 16385"}},
    {"4.28", REND, "\"resolution\": [640.5, 10], " REND, {"render.resolution[0] = 640.5"}},
    {"4.29", REND, "\"spp\": 0, " REND, {"render.spp = 0", "[1, 1048576]"}},
    {"4.30", SIM, "\"beta\": 1.5, " SIM, {"sim.beta = 1.5", "in [0, 1]"}},
    {"4.31", SIM, "\"beta\": -0.1, " SIM, {"sim.beta = -0.1", "in [0, 1]"}},
    {"4.32", SIM, "\"flip_alpha\": 1.01, " SIM, {"sim.flip_alpha = 1.01", "in [0, 1]"}},
    {"4.33", SIM, "\"cfl\": 0, " SIM, {"sim.cfl = 0", "in (0, 1]"}},
    {"4.34", SIM, "\"cfl\": 1.5, " SIM, {"sim.cfl = 1.5", "in (0, 1]"}},
    {"4.35", SIM, "\"dt_max\": 0, " SIM, {"sim.dt_max = 0", "> 0"}},
    {"4.36", BODY, BODY " \"particles_per_cell\": 0,", {"bodies[0].particles_per_cell = 0",
                                                        "in [1, 64]"}},
    {"4.37", BODY, BODY " \"particles_per_cell\": 65,", {"bodies[0].particles_per_cell = 65"}},
    {"4.55", BODY, BODY " \"particles_per_cell\": 6.5,", {"bodies[0].particles_per_cell = 6.5",
                                                          "must be an integer"}},
    {"4.38", REND, "\"medium\": {\"albedo\": [0.9, 1.1, 1]}, " REND,
     {"render.medium.albedo[1] = 1.1", "in [0, 1]"}},
    {"4.39", REND, "\"medium\": {\"g\": 1}, " REND, {"render.medium.g = 1", "in (-1, 1)"}},
    {"4.40", REND, "\"medium\": {\"g\": -1}, " REND, {"render.medium.g = -1", "in (-1, 1)"}},
    {"4.41", REND, "\"medium\": {\"sigma_t\": 0}, " REND, {"render.medium.sigma_t = 0", "> 0"}},
    {"4.42", REND, "\"collider_color\": [0, 0, 2], " REND,
     {"render.collider_color[2] = 2", "colour component must be in [0, 1]"}},
    {"4.43", REND, "\"surfaces\": [{\"shape\": {\"type\": \"halfspace\"}, \"color\": [-0.1, 0, 0]}], "
                   REND, {"render.surfaces[0].color[0] = -0.1"}},
    {"4.44", CAM, "\"camera\": {\"eye\": [0, 0, 1], \"target\": [0, 0, 0], \"fov_deg\": 180}", {"render.camera.fov_deg = 180", "in (0, 180)"}},
    {"4.45", SIM, "\"cr_tolerance\": 0, " SIM, {"sim.cr_tolerance = 0", "in (0, 1)"}},
    {"4.46", SIM, "\"cr_max_iterations\": 0, " SIM, {"sim.cr_max_iterations = 0"}},
    {"4.46b", SIM, "\"cr_max_iterations\": 100001, " SIM, {"sim.cr_max_iterations = 100001"}},
    {"4.47", SIM, "\"max_particles\": 0, " SIM, {"sim.max_particles = 0"}},
    {"4.48", SIM, "\"colliders\": [{\"shape\": {\"type\": \"halfspace\"}, \"friction\": -0.1}], "
                  SIM, {"sim.colliders[0].friction = -0.1", ">= 0"}},
    {"4.49", SPHERE, "{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0}",
     {"sim.bodies[0].shapes[0].radius = 0", "radius [m] must be > 0"}},
    {"4.50", LIGHTS, "\"lights\": {\"sun\": {\"direction\": [0, 0, 0], \"irradiance\": [1, 1, 1]}}",
     {"render.lights.sun.direction = [0, 0, 0]", "non-zero"}},
    {"4.51", LIGHTS, "\"lights\": {\"sun\": {\"direction\": [0, 1, 0], \"irradiance\": [1, 1, 1], "
                     "\"angular_diameter_deg\": 0}}", {"sun.angular_diameter_deg = 0"}},
    {"4.52", LIGHTS, "\"lights\": {\"sky\": {\"radiance\": [1, -1, 1]}}",
     {"render.lights.sky.radiance[1] = -1", ">= 0"}},
    {"4.53", REND, "\"subdiv\": 9, " REND, {"render.subdiv = 9", "[1, 8]"}},
    {"4.54", REND, "\"png_exposure\": 100, " REND, {"render.png_exposure = 100"}},
    /* 5. values that are fine alone but not together */
    {"5.1", SPHERE, "{\"type\": \"sphere\", \"center\": [0.95, 0.5, 0.5], \"radius\": 0.1}",
     {"sim.bodies[0].shapes[0]: the shape spans [0.85, 1.05] on x", "outside sim.domain"}},
    {"5.2", SPHERE, "{\"type\": \"halfspace\"}",
     {"sim.bodies[0].shapes[0].type", "half-space is unbounded"}},
    {"5.3", SPHERE, "{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.1, "
                    "\"motion\": [{\"t\": 0}]}", {"sim.bodies[0].shapes[0].motion", "cannot be "
                                                 "keyframed"}},
    {"5.4", SIM, "\"colliders\": [{\"shape\": {\"type\": \"halfspace\", \"motion\": [{\"t\": 1}, "
                 "{\"t\": 0.5}]}}], " SIM, {"sim.colliders[0].shape.motion[1]", "increase"}},
    {"5.5", SPHERE, "{\"type\": \"box\", \"center\": [0.5, 0.5, 0.5], \"size\": [0.1, 0.1, 0.1], "
                    "\"half_extents\": [0.1, 0.1, 0.1]}", {"shapes[0]: give either"}},
    {"5.6", LIGHTS, "\"lights\": {}", {"render.lights: no light"}},
    {"5.7", LIGHTS, "\"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}, \"envmap\": {\"path\": "
                    "\"minimal.json\"}}", {"render.lights", "exclude each other"}},
    {"5.30", LIGHTS, "\"lights\": {\"daylight\": {\"sun_elevation_deg\": 30}, \"sun\": "
                     "{\"direction\": [0, 1, 0], \"irradiance\": [1, 1, 1]}}",
     {"render.lights", "'daylight' gives the sun and the sky", "excludes 'sun'"}},
    {"5.31", LIGHTS, "\"lights\": {\"daylight\": {\"sun_elevation_deg\": 0}}",
     {"render.lights.daylight.sun_elevation_deg", "elevation above the horizon"}},
    {"5.32", LIGHTS, "\"lights\": {\"daylight\": {\"sun_elevation_deg\": 30, "
                     "\"turbidity\": 12}}", {"render.lights.daylight.turbidity", "Preetham"}},
    {"5.33", LIGHTS, "\"lights\": {\"daylight\": {}}",
     {"render.lights.daylight.sun_elevation_deg", "required"}},
    {"5.34", LIGHTS, LIGHTS ", \"medium\": {\"grain_radius_um\": 200, \"sigma_t\": 500}",
     {"render.medium: give the medium as grain_radius_um or as sigma_t and albedo"}},
    {"5.35", LIGHTS, LIGHTS ", \"medium\": {\"grain_radius_um\": 5}",
     {"render.medium.grain_radius_um = 5: ", "where geometric optics holds"}},
    {"5.36", LIGHTS, LIGHTS ", \"medium\": {\"grain_radius_um\": 200, \"rho_ref\": 950}",
     {"render.medium.rho_ref = 950: snow is less dense than ice"}},
    {"5.37", REND, "\"noise_target\": 1, " REND, {"render.noise_target = 1: ", "[0, 1)"}},
    {"5.38", REND, "\"aovs\": [\"noise\", \"noise\"], " REND,
     {"render.aovs[1]: \"noise\" is listed twice"}},
    {"5.8", CAM, "\"camera\": {\"eye\": [0, 0, 1], \"target\": [0, 0, 1]}",
     {"render.camera: eye and target coincide"}},
    {"5.16", CAM, "\"camera\": {\"eye\": [1e308, 0, 0], \"target\": [-1e308, 0, 0]}",
     {"render.camera: eye and target are too far apart"}},
    {"5.9", CAM, "\"camera\": {\"eye\": [0, 3, 0], \"target\": [0, 0, 0]}",
     {"render.camera: up is parallel"}},
    {"5.10", "\"name\": \"minimal\"", "\"name\": \"a/b\"", {"scene.json: name", "only letters"}},
    {"5.11", "\"render\"", "\"output\": {\"frames\": \"out/f.exr\"}, \"render\"",
     {"output.frames", "exactly one run of '#'", "found 0"}},
    {"5.12", "\"render\"", "\"output\": {\"caches\": \"c##/f.##.pwc\"}, \"render\"",
     {"output.caches", "found 2"}},
    {"5.13", SIM, "\"max_particles\": 100, " SIM,
     {"scene.json: sim.bodies: about ", "over the budget sim.max_particles = 100"}},
    {"5.17", SIM, "\"h\": 0.0001, " SIM,
     {"scene.json: sim.bodies[0]: about ", "sim.h = ", "sim.max_particles"}},
    {"5.14", SPHERE, "{\"type\": \"mesh\", \"path\": \"no_such_mesh.obj\"}",
     {"sim.bodies[0].shapes[0].path: cannot open", "scenes/no_such_mesh.obj'"}},
    {"5.15", REND, "\"surfaces\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"size\": 2}], "
                   REND, {"render.surfaces[0].size = 2", "only a half-space"}},
    {"5.18", REND, "\"surfaces\": [{\"shape\": {\"type\": \"halfspace\"}, \"role\": \"catcher\"}], "
                   REND, {"render.surfaces[0].role", "catcher", "shadow_catcher"}},
    /* 6. unknown material reference */
    {"6.1", BODY, "\"material\": \"ice\",",
     {"scene.json: sim.bodies[0].material: \"ice\" is not defined in sim.materials"}},
    /* 7. missing required keys */
    {"7.1", "\"name\": \"minimal\",", "", {"scene.json: name: required key is missing"}},
    {"7.2", FR, "\"fps\": 24", {"frames.end: required key is missing"}},
    {"7.3", "\"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},", "",
     {"sim.domain: required key is missing"}},
    {"7.4", "\"min\": [0, 0, 0], ", "", {"sim.domain.min: required key is missing",
                                           "array of 3 numbers"}},
    {"7.5", "\"materials\": {\"snow\": {}},", "", {"sim.materials: required key is missing"}},
    {"7.6", "\"materials\": {\"snow\": {}}", "\"materials\": {}", {"sim.materials: at least one"}},
    {"7.7", "\"shapes\"", "\"subtract\"", {"sim.bodies[0].shapes: required key is missing"}},
    {"7.8", ", \"radius\": 0.1}", "}", {"sim.bodies[0].shapes[0].radius: required key"}},
    {"7.9", "\"type\": \"sphere\", ", "", {"sim.bodies[0].shapes[0].type: required key", "one of \"halfspace\", \"sphere\""}},
    {"7.10", "\"eye\": [0.5, 0.5, 3], ", "", {"render.camera.eye: required key is missing"}},
    {"7.11", "\"camera\": {", "\"kamera\": {", {"render.kamera: unknown key (did you mean "
                                               "'camera'?)"}},
    {"7.12", LIGHTS, "\"spp\": 4", {"render.lights: required key is missing"}},
    {"7.13", BODIES, "\"bodies\": []", {"sim.bodies: at least one snow body"}},
    {"7.14", "\"material\": \"snow\", ", "", {"sim.bodies[0].material: required key"}},
    /* 11. text shapes: the font, the string, the size, each named by its key */
    {"11.1", SPHERE, TEXT_AT("\"font\": \"no_such_font.ttf\", \"text\": \"Snow\"", "0.1"),
     {"scene.json: sim.bodies[0].shapes[0].font: cannot open", "scenes/no_such_font.ttf'"}},
    {"11.2", SPHERE, TEXT_AT("\"font\": \"minimal.json\", \"text\": \"Snow\"", "0.1"),
     {"sim.bodies[0].shapes[0].font: ", "minimal.json: not a font file FreeType reads"}},
    {"11.3", SPHERE, TEXT_AT("\"text\": \"\"", "0.1"),
     {"scene.json: sim.bodies[0].shapes[0].text: empty"}},
    {"11.4", SPHERE, TEXT_AT("\"text\": \"Snow \xe9\x9b\xaa\"", "0.1"),
     {"scene.json: sim.bodies[0].shapes[0].text: ", "DejaVuSans-Bold.ttf: the font has no glyph",
      "(U+96EA, character 6 of \"Snow \xe9\x9b\xaa\")"}},
    {"11.5", SPHERE, TEXT_AT("\"text\": \"Snow\"", "2"),
     {"scene.json: sim.bodies[0].shapes[0].height = 2: the text \"Snow\" spans",
      "outside sim.domain [0, 1]: too large"}},
    {"11.6", SPHERE, TEXT_AT("\"text\": \"Snow\\nfall\"", "0.1"),
     {"sim.bodies[0].shapes[0].text: ", "control character U+000A at character 5"}},
    {"11.7", SPHERE, "{\"type\": \"text\", \"text\": \"Snow\", \"depth\": 0.05}",
     {"sim.bodies[0].shapes[0].height: required key is missing"}},
    {"11.8", SPHERE, TEXT_AT("\"text\": \"" LONG_TEXT "\"", "0.1"),
     {"sim.bodies[0].shapes[0].text: string of 131 bytes is too long (at most 127)"}},
    {"11.9", SPHERE, TEXT_AT("\"text\": \"Snow\", \"scale\": 2", "0.1"),
     {"sim.bodies[0].shapes[0].scale: unknown key", "allowed: type, center, text, font"}},
    {"11.10", SIM, "\"colliders\": [{\"shape\": {\"type\": \"text\", \"text\": \"Go\", "
                   "\"font\": \"/nonexistent/x.otf\", \"height\": 1, \"depth\": 1}}], " SIM,
     {"scene.json: sim.colliders[0].shape.font: cannot open '/nonexistent/x.otf'"}},
    {"11.11", REND, "\"surfaces\": [{\"shape\": {\"type\": \"text\", \"text\": \"x\xe9\x9b\xaa\", "
                    "\"height\": 1, \"depth\": 1}}], " REND,
     {"scene.json: render.surfaces[0].shape.text: ", "no glyph for '\xe9\x9b\xaa' (U+96EA"}},
    {"11.12", SPHERE, TEXT_AT("\"text\": \"   \"", "0.1"),
     {"sim.bodies[0].shapes[0].text: ", "\"   \" has no visible character"}},
    /* 12. layers of a body (a crust): each number named by its layer and key */
    {"12.1", BODY, BODY " \"layers\": [{\"blend\": 0.01}],",
     {"scene.json: sim.bodies[0].layers[0].thickness: required key is missing"}},
    {"12.2", BODY, BODY " \"layers\": [{\"thickness\": 0.02}, {\"thickness\": -1}],",
     {"sim.bodies[0].layers[1].thickness = -1: ", "the layer's thickness [m] must be > 0"}},
    {"12.3", BODY, BODY " \"layers\": [{\"thickness\": 0.02, \"theta_c\": 1.5}],",
     {"sim.bodies[0].layers[0].theta_c = 1.5: the critical compression must be in (0, 1)"}},
    {"12.4", BODY, BODY " \"layers\": [{\"thickness\": 0.02, \"E_noise\": 0.1}],",
     {"sim.bodies[0].layers[0].E_noise: unknown key", "allowed: thickness, blend, E0"}},
    {"12.5", BODY, BODY " \"layers\": [{\"thickness\": 0.02, \"blend\": -0.01}],",
     {"sim.bodies[0].layers[0].blend = -0.01: the blend into the material below"}},
    {"12.6", BODY, BODY " \"layers\": [{\"thickness\": 0.02, \"rho0\": 500, \"rho_max\": 450}],",
     {"sim.bodies[0].layers[0].rho_max = 450: must be 0 (no limit) or above rho0 = 500"}},
    {"12.7", BODY, BODY " \"layers\": [{\"thickness\": 0.02, \"blend\": 0.01, \"xi\": 3000, "
                   "\"Jp_min\": 0.9964}, {\"thickness\": 0.02, \"xi\": 0, \"Jp_min\": 0.001}],",
     {"sim.bodies[0].layers[0].blend = 0.01: xi and Jp_min blend", "e^751.96 inside the blend"}},
    /* hardened past ice (sim/seed.h): the walking character's crust at the default Jp_min */
    {"12.10", MAT, "\"snow\": {\"E0\": 1.4e6, \"xi\": 30}",
     {"sim.materials.snow.Jp_min = 0.6: hardens E0 e^(xi (1 - Jp_min)) to 2.28e+11 Pa, stiffer "
      "than ice (9e+09 Pa): keep Jp_min >= 0.708, or xi <= 21.9, or lower E0"}},
    {"12.8", BODY, BODY " \"layers\": {\"thickness\": 0.02},",
     {"sim.bodies[0].layers: ", "array"}},
    {"12.9", BODY, BODY " \"settled\": 1,",
     {"scene.json: sim.bodies[0].settled: ", "true or false"}},
    /* 13. mesh sequences (deforming colliders) */
    {"13.1", SIM, "\"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"walk.####.obj\", "
                  "\"sequence\": {\"first\": 1, \"last\": 3}}}], " SIM,
     {"scene.json: sim.colliders[0].shape.path: file 1 of the sequence 1..3: cannot open",
      "walk.0001.obj'"}},
    {"13.2", SIM, "\"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"walk.obj\", "
                  "\"sequence\": {\"first\": 1, \"last\": 3}}}], " SIM,
     {"sim.colliders[0].shape.path: \"walk.obj\": a mesh sequence's path needs exactly one run"}},
    {"13.3", SIM, "\"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"w.##.obj\", "
                  "\"sequence\": {\"first\": 5, \"last\": 3}}}], " SIM,
     {"sim.colliders[0].shape.sequence.last = 3: ", "the last file's number (>= first)"}},
    {"13.4", SPHERE, "{\"type\": \"mesh\", \"path\": \"w.##.obj\", \"sequence\": {\"first\": 1, "
                     "\"last\": 3}}",
     {"sim.bodies[0].shapes[0].sequence: snow bodies are seeded at t = 0 from one mesh"}},
    {"13.5", SIM, "\"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"w.##.obj\", "
                  "\"thickness\": -0.01}}], " SIM,
     {"sim.colliders[0].shape.thickness = -0.01: the shell's thickness [m] must be"}},
    /* 14. each range names what its own key means, where two keys share a range */
    {"14.1", SIM, "\"rest\": {\"speed\": 0.01, \"wake_speed\": -1}, " HALFSPACE ", " SIM,
     {"sim.rest.wake_speed = -1: the speed of moving snow that wakes resting snow a block "
      "away [m/s] must be > 0"}},
    /* a scene without colliders read no "rest" at all: its numbers went unchecked, and
     * unused */
    {"14.2", SIM, "\"rest\": {\"speed\": -1}, " SIM,
     {"sim.rest.speed = -1: the speed below which snow rests [m/s] must be > 0"}},
    {"14.3", SIM, "\"active_region\": {\"shape\": {\"type\": \"box\", \"center\": [0, 0, 0], "
                  "\"half_extents\": [1, 1, 1]}}, " SIM,
     {"sim.active_region: needs sim.rest"}},
    {"14.4", SPHERE, "{\"type\": \"text\", \"text\": \"Snow\", \"height\": 0.1, \"depth\": -1}",
     {"sim.bodies[0].shapes[0].depth = -1: the depth [m] must be > 0"}},
    {"14.5", SIM, "\"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"w.obj\", "
                  "\"scale\": 0}}], " SIM,
     {"sim.colliders[0].shape.scale = 0: the mesh scale [-] must be > 0"}},
    /* 15. snow sources (sim/emit.h): one line naming the key and the range */
#define SOURCE_AT(y, keys) \
    "\"sources\": [{\"shape\": {\"type\": \"box\", \"center\": [0.5, " y ", 0.5], " \
    "\"half_extents\": [0.2, 0.02, 0.2]}, " keys "}], " SIM
#define SOURCE(keys) SOURCE_AT("0.8", "\"material\": \"snow\", \"end\": 0.3, " keys)
    {"15.1", SIM, SOURCE("\"rate\": 0"),
     {"sim.sources[0].rate = 0: the rate [kg/s] must be > 0"}},
    {"15.2", SIM, SOURCE("\"rate\": 1, \"start\": 0.5"),
     {"sim.sources[0].start = 0.5: the time the source starts [s], before the shot's last "
      "frame, must be in [0, 0.416666667)"}},
    {"15.3", SIM, SOURCE_AT("0.8", "\"material\": \"snow\", \"rate\": 1, \"start\": 0.2, "
                                   "\"end\": 0.1"),
     {"sim.sources[0].end = 0.1: the time the source stops [s], after its start, must be > "
      "0.2"}},
    {"15.4", SIM, SOURCE_AT("0.99", "\"material\": \"snow\", \"end\": 0.3, \"rate\": 1"),
     {"sim.sources[0].shape: the source leaves sim.domain"}},
    {"15.5", SIM, SOURCE_AT("0.8", "\"material\": \"ice\", \"end\": 0.3, \"rate\": 1"),
     {"sim.sources[0].material: \"ice\" is not defined in sim.materials"}},
    {"15.6", SIM, SOURCE("\"intensity\": 10, \"rate\": 1"),
     {"sim.sources[0]: give the source either \"rate\" [kg/s] or \"intensity\""}},
    {"15.7", SIM, SOURCE("\"rate\": 1, \"jitter\": -1"),
     {"sim.sources[0].jitter = -1: the jitter [m/s] must be >= 0"}},
    {"15.8", SIM, "\"air_velocity\": [1, 0], " SIM, {"sim.air_velocity"}},
    /* 8. duplicate keys, empty and non-object documents, bad bytes */
    {"8.1", MAT, "\"snow\": {\"nu\": 0.2, \"nu\": 0.3}",
     {"scene.json:6:42: ", "duplicate object key"}},
    {"8.2", "{", "{\"name\": \"a\", ", {"scene.json:", "duplicate object key"}},
    {"8.3", FR, FR ", \"start\": 99999999999999999999999", {"scene.json:3:", "too big"}},
    {"8.4", FR, FR ", \"fps\": 1e999", {"scene.json:3:", "overflow"}},
    {"8.5", "\"minimal\"", "\"min\xff\"", {"scene.json:2:", "unable to decode byte 0xff"}},
};

static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) return NULL;
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void expect_error(const char *id, pw_status rc, const pw_error *err,
                         const char *const *expect)
{
    CHECK(rc != PW_OK, "case %s: accepted", id);
    printf("%-5s %s\n", id, err->msg);
    for (int k = 0; k < 3 && expect[k]; k++)
        CHECK(strstr(err->msg, expect[k]) != NULL, "case %s: message \"%s\" lacks \"%s\"", id,
              err->msg, expect[k]);
}

static void parse_case(const char *id, const char *text, size_t len, pw_scene *s,
                       const char *const *expect)
{
    pw_error err = {0};
    pw_status rc = pw_scene_parse("scene.json", text, len, DATA, s, &err);
    expect_error(id, rc, &err, expect);
}

int main(void)
{
    pw_scene *s = malloc(sizeof *s);
    char *base = slurp(DATA "minimal.json", NULL);
    if (!s || !base) return 2;
    pw_error err = {0};
    /* 0. the base itself parses, so each case fails for its own edit only */
    CHECK(pw_scene_parse("scene.json", base, strlen(base), DATA, s, &err) == PW_OK,
          "case 0: minimal.json: %s", err.msg);

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const error_case *c = &cases[k];
        char *text = replace(base, c->from, c->to);
        CHECK(text != NULL, "case %s: anchor '%s' not in minimal.json", c->id, c->from);
        if (!text) continue;
        parse_case(c->id, text, strlen(text), s, c->expect);
        free(text);
    }

    /* 9. empty and degenerate documents */
    const char *empty[] = {"scene.json: empty file", NULL};
    parse_case("9.1", "", 0, s, empty);
    parse_case("9.2", " \n\t\r\n", 5, s, empty);
    const char *array[] = {"scene.json: expected a JSON object at the top level, got an array",
                           NULL};
    parse_case("9.3", "[1, 2]", 6, s, array);
    const char *nul[] = {"scene.json:1:", NULL};
    parse_case("9.4", "{\"name\": \"a\0b\"}", 15, s, nul);
    const char *trailing[] = {"scene.json:1:", "end of file expected", NULL};
    parse_case("9.5", "{} {}", 5, s, trailing);
    /* 9.6: a truncated file */
    parse_case("9.6", base, strlen(base) / 2, s, (const char *[]){"scene.json:", NULL});

    /* 10. files: a missing scene names the path; a look with a sim section is refused and
     * leaves the scene as it was */
    pw_status rc = pw_scene_load(DATA "no_such_scene.json", s, &err);
    expect_error("10.1", rc, &err, (const char *[]){"no_such_scene.json", NULL});
    rc = pw_scene_load(DATA "minimal.json", s, &err);
    CHECK(rc == PW_OK, "case 10.2: %s", err.msg);
    FILE *f = fopen(POWDER_TEST_TMP "/scene_bad_look.json", "wb");
    if (f) {
        fputs("{\"render\": {\"camera\": {\"eye\": [0, 0, 1], \"target\": [0, 0, 0]},\n"
              "\"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}}},\n"
              "\"sim\": {\"h\": 0.5}}\n", f);
        fclose(f);
    }
    int spp = s->render.spp;
    vec3 eye = s->camera.eye;
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_bad_look.json", &err);
    expect_error("10.3", rc, &err,
                 (const char *[]){"scene_bad_look.json: sim: unknown key",
                                  "allowed: name, comment, render", NULL});
    CHECK(s->render.spp == spp && s->camera.eye.z == eye.z && s->sim.h == 0.02,
          "case 10.3: a refused look changed the scene");
    /* 10.4: a look whose render section is itself invalid */
    f = fopen(POWDER_TEST_TMP "/scene_bad_look2.json", "wb");
    if (f) {
        fputs("{\"render\": {\"camera\": {\"eye\": [0, 0, 1], \"target\": [0, 0, 0]}, "
              "\"spp\": 4, \"lights\": {\"sky\": {\"radiance\": [1, 1, 2]}}, \"medium\": "
              "{\"g\": 2}}}", f);
        fclose(f);
    }
    rc = pw_scene_apply_look(s, POWDER_TEST_TMP "/scene_bad_look2.json", &err);
    expect_error("10.4", rc, &err,
                 (const char *[]){"scene_bad_look2.json: render.medium.g = 2", NULL});
    CHECK(s->render.spp == spp, "case 10.4: a refused look changed spp to %d", s->render.spp);
    free(base);
    free(s);
    return check_done("scene_reports_errors");
}
