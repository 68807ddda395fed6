/* Property: the shot camera — motion blur from the caches, camera keys, lens
 * from an f-number, EXR metadata per frame. Caches are written here, not simulated: a
 * ball of particles in free flight, x(t) = x0 + v0 t + g t^2 / 2, at frames 0, 1, 2.
 *   1. the blurred frame 1 (shutter [-0.5, 0.5], 4 instants) equals the mean of four
 *      frozen renders of the ball placed exactly where free flight has it at the four
 *      instants (squared difference over all pixels within 1.3x the noise measured
 *      from two seeds), so the particles move along their true arcs;
 *   2. the smear is as long as the motion: the variance of alpha along the motion grows
 *      by the spread of the instants' positions, (v dt)^2 (n^2 - 1) / (12 n^2) with the
 *      pixel scale, within 10 %;
 *   3. a static ball (v = 0, the same positions in every frame) renders the same pixels,
 *      bit for bit, with and without the shutter;
 *   4. camera keys: at each key time the camera is the key's values exactly, held
 *      before the first and after the last, a linear motion is reproduced exactly in
 *      between, and each frame's EXR carries the camera of its own time (worldToCamera);
 *   5. f_number N gives the lens radius (film height / 2) / tan(fov / 2) / (2 N), the
 *      focus on the target by default;
 *   6. the scene errors name the bad camera value. */
#include <math.h>

#include "camera_rig.h"
#include "check.h"
#include "exr.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "scene.h"
#include "shot.h"

static const double FPS = 24, G = -9.81;
static const double V0[3] = {1.5, 0.8, 0.0};
enum { W = 96, H = 48 };

static const char scene_fmt[] =
    "{\"name\": \"blur\", \"frames\": {\"start\": 0, \"end\": 2, \"fps\": 24},\n"
    " \"sim\": {\"h\": 0.02, \"domain\": {\"min\": [-1, -1, -1], \"max\": [1, 1, 1]},\n"
    "         \"materials\": {\"snow\": {}}, \"bodies\": [{\"material\": \"snow\",\n"
    "         \"shapes\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.05}]}]},\n"
    " \"render\": {\"camera\": {\"eye\": [0, 0, 0.8], \"target\": [0, 0, 0], \"fov_deg\": 30 %s},\n"
    "            \"resolution\": [%d, %d], \"spp\": 64, \"seed\": %d,\n"
    "            \"lights\": {\"sun\": {\"direction\": [0.3, 0.8, 0.5], \"irradiance\": [3, 3, 3]},\n"
    "                       \"sky\": {\"radiance\": [0.1, 0.1, 0.1]}}, \"draw_colliders\": false}}\n";

static pw_scene *load_scene(const char *dir, const char *camera_extra, int seed)
{
    char text[4096], path[4200];
    snprintf(text, sizeof text, scene_fmt, camera_extra, W, H, seed);
    snprintf(path, sizeof path, "%s/blur.json", dir);
    fixture_write(path, text);
    pw_scene *sc = malloc(sizeof *sc);
    pw_error err = {0};
    if (!sc || pw_scene_load(path, sc, &err) != PW_OK ||
        pw_shot_apply_output_and_look(sc, dir, NULL, &err) != PW_OK) {
        CHECK(0, "scene: %s", err.msg);
        free(sc);
        return NULL;
    }
    return sc;
}

/* The ball's particles (a lattice in a sphere of 5 cm) at time t of free flight with
 * initial velocity v0 * moving, written as frame f of sc's caches. */
static void write_ball(const pw_scene *sc, int f, double t, int moving)
{
    enum { SIDE = 11 };
    double *x = malloc(3 * SIDE * SIDE * SIDE * sizeof *x), *v = malloc(3 * SIDE * SIDE * SIDE * sizeof *v);
    double *m = malloc(SIDE * SIDE * SIDE * sizeof *m);
    uint32_t *id = malloc(SIDE * SIDE * SIDE * sizeof *id);
    size_t n = 0;
    const double sp = 0.01;
    for (int i = 0; i < SIDE; i++)
        for (int j = 0; j < SIDE; j++)
            for (int k = 0; k < SIDE; k++) {
                double p[3] = {(i - 5) * sp, (j - 5) * sp, (k - 5) * sp};
                if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 0.05 * 0.05) continue;
                for (int c = 0; c < 3; c++) {
                    double g = c == 1 ? G : 0, v0 = moving ? V0[c] : 0, gg = moving ? g : 0;
                    x[3 * n + c] = p[c] + v0 * t + 0.5 * gg * t * t;
                    v[3 * n + c] = v0 + gg * t;
                }
                m[n] = 400.0 * sp * sp * sp;
                id[n] = (uint32_t)(i * SIDE * SIDE + j * SIDE + k); /* ids need not be packed */
                n++;
            }
    pw_cache_attr attrs[4] = {{"x", PW_F64, 3, x}, {"v", PW_F64, 3, v}, {"m", PW_F64, 1, m},
                              {"id", PW_U32, 1, id}};
    pw_cache_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.count = n;
    fr.time = t;
    fr.h = sc->sim.h;
    fr.frame = f;
    fr.sim_hash = sc->sim_hash;
    fr.n_attrs = 4;
    fr.attrs = attrs;
    char path[4096];
    pw_error err = {0};
    pw_shot_cache_path(sc, f, path, sizeof path, &err);
    CHECK(pw_mkdir_parent(path, &err) == PW_OK && pw_cache_write(path, &fr, &err) == PW_OK,
          "write %s: %s", path, err.msg);
    free(x), free(v), free(m), free(id);
}

/* Renders frame f of sc and returns its RGBA (caller frees). */
static float *render_frame(const pw_scene *sc, int f)
{
    pw_frame_list fl = {&f, 1};
    pw_shot_options o;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    o.force = 1;
    pw_error err = {0};
    char exr[4096];
    float *rgba = NULL;
    int w, h;
    if (pw_shot_render(sc, &fl, &o, &err) != PW_OK ||
        pw_shot_frame_path(sc, f, exr, sizeof exr, &err) != PW_OK ||
        pw_exr_read_rgba(exr, &w, &h, &rgba, &err) != PW_OK) {
        CHECK(0, "render frame %d: %s", f, err.msg);
        return NULL;
    }
    return rgba;
}

/* Alpha summed over each column. */
static void column_profile(const float *rgba, double prof[W])
{
    for (int x = 0; x < W; x++) {
        prof[x] = 0;
        for (int y = 0; y < H; y++) prof[x] += rgba[4 * (y * W + x) + 3];
    }
}

/* Variance of the column profile about its centroid [px^2]. */
static double profile_variance(const double prof[W])
{
    double s = 0, s1 = 0, s2 = 0;
    for (int x = 0; x < W; x++) s += prof[x], s1 += prof[x] * (x + 0.5);
    double c = s1 / s;
    for (int x = 0; x < W; x++) s2 += prof[x] * (x + 0.5 - c) * (x + 0.5 - c);
    return s2 / s;
}

static void check_blur(const char *root)
{
    const char *shutter = ", \"shutter\": [-0.5, 0.5], \"shutter_samples\": 4";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/moving", root);
    pw_scene *a = load_scene(root, shutter, 1), *b = NULL, *frozen = NULL;
    if (!a) return;
    pw_shot_apply_output_and_look(a, dir, NULL, NULL);
    for (int f = 0; f <= 2; f++) write_ball(a, f, f / FPS, 1);
    float *blur = render_frame(a, 1);
    /* the same with another seed, for the noise */
    b = load_scene(root, shutter, 2);
    pw_shot_apply_output_and_look(b, dir, NULL, NULL);
    float *blur2 = b ? render_frame(b, 1) : NULL;
    /* the frozen frame and the four instants, each in a folder of its own */
    frozen = load_scene(root, "", 1);
    double pb[W], pf[W];
    double *ref = calloc(4 * W * H, sizeof *ref);
    int ok = blur && blur2 && frozen && ref;
    for (int j = 0; j < 4 && ok; j++) {
        double t = (1 + (-0.5 + (j + 0.5) / 4)) / FPS;
        snprintf(dir, sizeof dir, "%s/instant%d", root, j);
        pw_shot_apply_output_and_look(frozen, dir, NULL, NULL);
        write_ball(frozen, 1, t, 1);
        float *img = render_frame(frozen, 1);
        if (!(ok = img != NULL)) break;
        for (int q = 0; q < 4 * W * H; q++) ref[q] += img[q] / 4.0;
        free(img);
    }
    snprintf(dir, sizeof dir, "%s/frozen", root);
    if (ok) {
        pw_shot_apply_output_and_look(frozen, dir, NULL, NULL);
        write_ball(frozen, 1, 1 / FPS, 1);
    }
    float *still = ok ? render_frame(frozen, 1) : NULL;
    if (ok && still) {
        column_profile(blur, pb), column_profile(still, pf);
        /* Over all pixels and channels: the squared difference to the mean of the
         * instants against the noise, measured as half the squared difference of two
         * seeds; the reference averages four renders of the blurred frame's spp, so its
         * own variance is a quarter of the blurred frame's. Agreement gives a ratio
         * near 1; the frozen frame in place of the reference gives far more. */
        double d2 = 0, d2_still = 0, noise = 0;
        for (int q = 0; q < 4 * W * H; q++) {
            d2 += (blur[q] - ref[q]) * (blur[q] - ref[q]);
            d2_still += (blur[q] - still[q]) * (blur[q] - still[q]);
            noise += 1.25 * 0.5 * (blur[q] - blur2[q]) * (blur[q] - blur2[q]);
        }
        printf("blurred vs the mean of its 4 instants: squared difference / noise = %.3f "
               "(vs the frozen frame: %.1f)\n", d2 / noise, d2_still / noise);
        CHECK(d2 / noise < 1.3, "the blurred frame is not the mean of its instants: %.3f",
              d2 / noise);
        CHECK(d2_still / noise > 3, "the test cannot tell blur from none: %.3f",
              d2_still / noise);
        double px_per_m = H / (2 * 0.8 * tan(15 * 3.14159265358979 / 180));
        double shift = V0[0] / FPS * px_per_m; /* across the whole shutter */
        double expect = shift * shift * (16 - 1) / (12.0 * 16);
        double grown = profile_variance(pb) - profile_variance(pf);
        printf("smear: alpha variance along x grew by %.2f px^2 (instants' spread %.2f px^2)\n",
               grown, expect);
        CHECK_NEAR(grown, expect, 0.1 * expect, "smear variance [px^2]");
    }
    free(blur), free(blur2), free(still), free(ref);
    free(a), free(b), free(frozen);
}

static void check_static(const char *root)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/static", root);
    pw_scene *a = load_scene(root, ", \"shutter\": [-0.25, 0.25]", 3);
    pw_scene *b = load_scene(root, "", 3);
    if (!a || !b) return;
    pw_shot_apply_output_and_look(a, dir, NULL, NULL);
    pw_shot_apply_output_and_look(b, dir, NULL, NULL);
    for (int f = 0; f <= 2; f++) write_ball(a, f, f / FPS, 0);
    float *pa = render_frame(a, 1), *pb = render_frame(b, 1);
    if (pa && pb)
        CHECK(memcmp(pa, pb, sizeof(float) * 4 * W * H) == 0,
              "a static ball renders differently with the shutter open");
    free(pa), free(pb), free(a), free(b);
}

static void check_keys(const char *root)
{
    const char *keys =
        ", \"motion\": [{\"t\": 0.0, \"eye\": [0, 0, 0.8]},"
        " {\"t\": 0.0416666666666666667, \"eye\": [0.1, 0.05, 0.8], \"fov_deg\": 25},"
        " {\"t\": 0.1, \"eye\": [0.2, 0.1, 0.8], \"target\": [0.01, 0, 0], \"fov_deg\": 20}]";
    pw_scene *sc = load_scene(root, keys, 4);
    if (!sc) return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/keys", root);
    pw_shot_apply_output_and_look(sc, dir, NULL, NULL);
    const pw_camera_rig *rig = &sc->camera_rig;
    CHECK(rig->n_keys == 3, "%d keys", rig->n_keys);
    for (int k = 0; k < rig->n_keys; k++) {
        pw_camera_desc c;
        pw_camera_rig_at(rig, &sc->camera, rig->keys[k].t, &c);
        CHECK(memcmp(&c.eye, &rig->keys[k].eye, sizeof c.eye) == 0 &&
                  memcmp(&c.target, &rig->keys[k].target, sizeof c.target) == 0 &&
                  c.fov_deg == rig->keys[k].fov_deg,
              "key %d not reproduced at its time", k);
    }
    pw_camera_desc before, after;
    pw_camera_rig_at(rig, &sc->camera, -1.0, &before);
    pw_camera_rig_at(rig, &sc->camera, 5.0, &after);
    CHECK(before.eye.x == 0 && after.eye.x == 0.2 && after.fov_deg == 20,
          "keys are not held outside their range");
    /* keys on a line at constant speed, unevenly spaced in time: the spline keeps the
     * motion linear */
    pw_scene *lin = load_scene(root, ", \"motion\": [{\"t\": 0, \"eye\": [0, 0, 0.8]}, "
                                     "{\"t\": 0.03, \"eye\": [0.03, 0, 0.8]}, "
                                     "{\"t\": 0.1, \"eye\": [0.1, 0, 0.8]}]", 4);
    if (lin) {
        double worst = 0;
        for (int k = 0; k <= 100; k++) {
            pw_camera_desc c;
            double t = 0.001 * k;
            pw_camera_rig_at(&lin->camera_rig, &lin->camera, t, &c);
            worst = fmax(worst, fabs(c.eye.x - t));
        }
        CHECK(worst < 1e-15, "a linear motion is bent by %g m", worst);
        free(lin);
    }
    /* each frame's EXR carries its own camera */
    for (int f = 0; f <= 2; f++) write_ball(sc, f, f / FPS, 0);
    for (int f = 0; f <= 2; f++) {
        float *img = render_frame(sc, f);
        free(img);
        char exr[4096];
        float w2c[16], want[16], w2n[16];
        pw_error err = {0};
        pw_camera_desc c;
        pw_camera_rig_at(rig, &sc->camera, f / FPS, &c);
        pw_shot_frame_path(sc, f, exr, sizeof exr, &err);
        if (pw_exr_read_m44f(exr, "worldToCamera", w2c, &err) != PW_OK ||
            pw_camera_matrices(&c, want, w2n, &err) != PW_OK) {
            CHECK(0, "frame %d metadata: %s", f, err.msg);
            continue;
        }
        CHECK(memcmp(w2c, want, sizeof want) == 0, "frame %d: worldToCamera is not the "
              "camera of its time (translation %g vs %g)", f, w2c[12], want[12]);
    }
    free(sc);
}

static void check_lens(const char *root)
{
    pw_scene *sc = load_scene(root, ", \"f_number\": 2.8", 5);
    if (!sc) return;
    pw_camera_desc c;
    pw_camera_rig_at(&sc->camera_rig, &sc->camera, 0.0, &c);
    double f = 0.012 / tan(15 * 3.14159265358979323846 / 180);
    CHECK_NEAR(c.lens_radius, f / 5.6, 1e-15, "lens radius from f/2.8 [m]");
    CHECK_NEAR(c.focus_distance, 0.8, 1e-15, "focus on the target [m]");
    free(sc);
}

static void check_errors(const char *root)
{
    static const struct {
        const char *extra, *want;
    } cases[] = {
        {", \"f_number\": 2, \"aperture_radius\": 0.01", "not both"},
        {", \"shutter\": [0.3, 0.1]", "render.camera.shutter"},
        {", \"shutter\": [0, 0.5], \"shutter_samples\": 0", "render.camera.shutter_samples"},
        {", \"motion\": [{\"t\": 1}, {\"t\": 1}]", "render.camera.motion[1]"},
        {", \"motion\": [{\"t\": 0, \"eye\": [0, 0, 0]}]", "render.camera.motion[0]"},
        {", \"focus_distance\": -1", "render.camera.focus_distance"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[4096];
        snprintf(text, sizeof text, scene_fmt, cases[k].extra, W, H, 1);
        pw_scene *sc = malloc(sizeof *sc);
        pw_error err = {0};
        pw_status rc = pw_scene_parse("cam.json", text, strlen(text), root, sc, &err);
        CHECK(rc != PW_OK && strstr(err.msg, cases[k].want),
              "case %zu: expected an error naming '%s', got '%s'", k, cases[k].want,
              rc == PW_OK ? "(accepted)" : err.msg);
        free(sc);
    }
}

int main(void)
{
    const char *root = fixture_dir("camera_motion");
    check_lens(root);
    check_errors(root);
    check_keys(root);
    check_static(root);
    check_blur(root);
    return check_done("pipeline_camera_motion");
}
