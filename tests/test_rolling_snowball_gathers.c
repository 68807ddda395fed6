/* Property (Stomakhin et al. 2013, Fig. 1: "As the snowball moves down the hill,
 * compressed snow sticks"): a snowball rolled down a snowy hill gathers the snow it
 * presses. Its gathered mass (powder stats --gathered, pw_stats.h) grows over the roll,
 * by at least half by the bottom of the hill, and the field snow it picked up is denser
 * than the field snow it left.
 *
 * The scene is the preview's (scenes/rolling_snowball.json, tools/rolling_snowball_scene.py)
 * on a coarser grid and a narrower field: a hill tilted 20 degrees (a half-space, friction
 * 1), a field of fresh snow on it (250 kg/m^3, E0 4.8e4 Pa), a ball of packed snow
 * (400 kg/m^3, E0 5.6e5 Pa, theta_c = theta_s = 0.05) around a sticky rigid core rolled down by `motion` keys
 * (sim/docs/rolling-snowball.md). FIELD_* and the ball are the preview's; h and the
 * field's width are the test's.
 *
 * 1. Growth: the mean gathered mass over each run of 5 frames (0-4, 5-9, ..., 25-29)
 *    rises strictly; no frame's falls below GROWTH_DIP of the largest before it (the
 *    measure flickers by the snow crossing its velocity tolerance at the contact and on
 *    the ball's rough surface); the last frame's is at least GROWTH times frame 0's.
 * 2. Packing: in the last frame the field particles gathered (told from the ball's by
 *    their mass: 250 against 400 kg/m^3 seeded) have a higher density m / (V0 det F)
 *    than the field particles not gathered, by DENSER at least.
 *
 * Measured (AMD EPYC, shared machine, Release, h = 0.015 m, 22,000 particles), since each
 * body's first rest volume counts its own mass only: gathered 0.921 kg at frame 0, 1.032
 * at 1, 1.082 at 10, 1.438 at 20, 1.709 kg at 29 (x1.86); worst dips 0.863 (frame 28) and
 * 0.964 (frame 27) of the largest before; the field snow gathered 0.908 kg at
 * 207.9 kg/m^3 against 147.7 kg/m^3 for the field left, ratio 1.41. (Before, with the
 * rest volume from every body's mass: x1.93, worst dip 0.968, ratio 1.39.) It takes about 66 s on 2 threads (111 CPU-s; AMD EPYC, one
 * core busy with other work), so it runs in the default suite, but not under the
 * sanitizers. Like the shipped scenes it steps every particle: letting resting snow
 * sleep (sim.rest) saves little on a field this narrow (84 against 111 CPU-s) and deepens
 * the dip at frame 28 to 0.943 (sim/docs/rolling-snowball.md). The test runs the powder
 * program end to end (sim, then stats --gathered 1 --json) and reads the last cache. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpm_fixture.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"
#include "pw_stats.h"
#include "scene.h"

#define SLOPE_DEG 20.0
#define FIELD_DEPTH 0.05   /* [m] */
#define FIELD_LENGTH 0.9   /* [m] along the slope, centred on s = 0 */
#define CORE_RADIUS 0.06   /* [m] */
#define BALL_RADIUS 0.09   /* [m] */
#define SINK 0.025         /* [m] the ball's snow reaches this deep into the field */
#define START (-0.3)       /* [m] ball centre along the slope at t = 0 */
#define ROLL 0.55          /* [m] the ball stops 0.2 m short of the field's end */
#define DURATION 1.25      /* [s] */
#define SPEED0 0.3            /* [m/s] */
#define N_KEYS 40
#define FRAMES 29          /* frame 29: t = 1.208 s, the last before the roll ends */
#define GROWTH_DIP 0.8 /* measured: 0.863 at worst (frame 28), 0.964 (frame 27) */
#define DENSER 1.2      /* measured: 1.39 */
#define GROWTH 1.5      /* measured: 1.93 */

/* A point s along the slope, q above the hill, at z = 0. */
static void at(double s, double q, double out[3])
{
    double a = SLOPE_DEG * 3.14159265358979323846 / 180;
    out[0] = s * cos(a) + q * sin(a);
    out[1] = -s * sin(a) + q * cos(a);
    out[2] = 0;
}

/* The scene as tools/rolling_snowball_scene.py writes it, for grid spacing h and field
 * half width w. */
static void write_scene(const char *path, double h, double w)
{
    double a = SLOPE_DEG * 3.14159265358979323846 / 180, height = BALL_RADIUS + FIELD_DEPTH - SINK;
    double acc = 2 * (ROLL - SPEED0 * DURATION) / (DURATION * DURATION), ball[3], field[3];
    at(START, height, ball);
    at(0, FIELD_DEPTH / 2, field);
    static char text[65536];
    int n = snprintf(text, sizeof text,
        "{\"name\": \"roll\", \"frames\": {\"start\": 0, \"end\": %d, \"fps\": 24},\n"
        " \"sim\": {\"h\": %g, \"dt_max\": 1e-3, \"domain\": {\"min\": [-0.7, -0.3, %g], \"max\": [0.8, 0.5, %g]},\n"

        "  \"materials\": {\"fresh\": {\"rho0\": 250, \"E0\": 4.8e4, \"rho_max\": 600},\n"
        "                \"packed\": {\"rho0\": 400, \"E0\": 5.6e5, \"rho_max\": 600,\n"
        "                           \"theta_c\": 0.05, \"theta_s\": 0.05}},\n"
        "  \"bodies\": [\n"
        "   {\"material\": \"packed\", \"seed\": 1, \"velocity\": [%.6f, %.6f, 0],\n"
        "    \"angular_velocity\": [0, 0, %.6f],\n"
        "    \"shapes\": [{\"type\": \"sphere\", \"center\": [%.6f, %.6f, 0], \"radius\": %g}],\n"
        "    \"subtract\": [{\"type\": \"sphere\", \"center\": [%.6f, %.6f, 0], \"radius\": %g}]},\n"
        "   {\"material\": \"fresh\", \"seed\": 2,\n"
        "    \"shapes\": [{\"type\": \"box\", \"center\": [%.6f, %.6f, 0],\n"
        "      \"half_extents\": [%g, %g, %g], \"rotation\": {\"axis\": [0, 0, 1], \"angle_deg\": %g}}],\n"
        "    \"subtract\": [{\"type\": \"sphere\", \"center\": [%.6f, %.6f, 0], \"radius\": %g}]}],\n"
        "  \"colliders\": [\n"
        "   {\"shape\": {\"type\": \"halfspace\", \"normal\": [%.6f, %.6f, 0]}, \"friction\": 1},\n"
        "   {\"sticky\": true, \"shape\": {\"type\": \"sphere\", \"radius\": %g, \"motion\": [",
        FRAMES, h, -w - 0.1, w + 0.1, SPEED0 * cos(a), -SPEED0 * sin(a), -SPEED0 / BALL_RADIUS, ball[0],
        ball[1], BALL_RADIUS, ball[0], ball[1], CORE_RADIUS, field[0], field[1],
        FIELD_LENGTH / 2, FIELD_DEPTH / 2, w, -SLOPE_DEG, ball[0], ball[1], BALL_RADIUS, sin(a),
        cos(a), CORE_RADIUS);
    for (int k = -1; k <= N_KEYS; k++) { /* one key before t = 0: the core moves at frame 0 */
        double t = DURATION * k / N_KEYS, s = SPEED0 * t + 0.5 * acc * t * t, c[3];
        at(START + s, height, c);
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%s{\"t\": %.6f, \"translation\": [%.6f, %.6f, 0], \"axis\": [0, 0, 1], "
                      "\"angle_deg\": %.6f}", k > -1 ? ",\n     " : "", t, c[0], c[1],
                      -s / BALL_RADIUS * 180 / 3.14159265358979323846);
    }
    snprintf(text + n, sizeof text - (size_t)n,
             "]}}]},\n"
             " \"render\": {\"camera\": {\"eye\": [0, 0.5, 1.5], \"target\": [0, 0, 0]},\n"
             "  \"resolution\": [32, 18], \"spp\": 1, \"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}}}}\n");
    fixture_write(path, text);
}

/* The gathered mass in a stats --json line, or -1. */
static double gathered_mass(const char *line)
{
    const char *g = strstr(line, "\"gathered\": {");
    const char *m = g ? strstr(g, "\"mass\": ") : NULL;
    return m ? strtod(m + 8, NULL) : -1;
}

int main(void)
{
    const char *dir = fixture_dir("rolling_snowball_gathers");
    /* At h = 0.02 m, coarse enough for the sanitizers' build, the ball's 3 cm of snow is
     * 1.5 cells thick and the property does not hold (measured: 0.1 to 0.3 kg of the
     * ball's own snow lost, dips of 10-30 %); the measure itself runs under the
     * sanitizers in stats_gathered_snow. */
    if (fixture_sanitized()) {
        printf("rolling_snowball_gathers: skipped under the sanitizers (minutes at h = 0.015 m)\n");
        return 77;
    }
    double h = 0.015, w = 0.08;
    char scene[4200], out[4200], log[4200], cache[4400];
    snprintf(scene, sizeof scene, "%s/roll.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/roll.log", dir);
    write_scene(scene, h, w);
    const char *sim[] = {"sim", scene, "--output", out, "--quiet", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "powder sim exit %d (see %s)", rc, log);
    if (rc) return check_done("rolling_snowball_gathers");
    const char *stats[] = {"stats", scene, "--output", out, "--gathered", "1", "--json", NULL};
    rc = powder_run(log, stats);
    CHECK(rc == 0, "powder stats exit %d (see %s)", rc, log);

    /* 1. the gathered mass over the roll */
    double mass[FRAMES + 1];
    for (int f = 0; f <= FRAMES; f++) mass[f] = -1;
    FILE *fp = fopen(log, "r");
    char line[16384];
    while (fp && fgets(line, sizeof line, fp)) {
        int f = -1;
        if (sscanf(line, "{\"frame\": %d,", &f) == 1 && f >= 0 && f <= FRAMES)
            mass[f] = gathered_mass(line);
    }
    if (fp) fclose(fp);
    double most = 0, window_before = 0;
    for (int w0 = 0; w0 + 5 <= FRAMES + 1; w0 += 5) {
        double window = 0;
        for (int f = w0; f < w0 + 5; f++) window += mass[f] / 5;
        CHECK(window > window_before, "frames %d-%d: mean gathered %.4f kg, not above the "
              "%.4f kg of the 5 frames before", w0, w0 + 4, window, window_before);
        window_before = window;
    }
    for (int f = 0; f <= FRAMES; f++) {
        printf("frame %2d: gathered %.4f kg\n", f, mass[f]);
        CHECK(mass[f] > 0, "frame %d: no gathered mass in %s", f, log);
        CHECK(mass[f] >= GROWTH_DIP * most, "frame %d: gathered %.4f kg, below %.2f of the "
              "%.4f kg gathered before", f, mass[f], GROWTH_DIP, most);
        most = mass[f] > most ? mass[f] : most;
    }
    CHECK(mass[FRAMES] >= GROWTH * mass[0], "gathered %.4f kg at the bottom, not %.1f times "
          "the %.4f kg at the top", mass[FRAMES], GROWTH, mass[0]);

    /* 2. the picked-up field snow against the field left behind */
    snprintf(cache, sizeof cache, "%s/cache/roll.%04d.pwc", out, FRAMES);
    static const char *const names[] = {"x", "v", "m", "Jp", "Fe", "V0"};
    pw_cache_frame cf;
    pw_error err = {0};
    CHECK(pw_cache_read_f64(cache, names, 6, &cf, &err) == PW_OK, "%s", err.msg);
    pw_scene *sc = calloc(1, sizeof *sc);
    CHECK(sc && pw_scene_load(scene, sc, &err) == PW_OK, "%s", err.msg);
    if (check_failures) return check_done("rolling_snowball_gathers");
    pw_stats_particles p = {.n = (size_t)cf.count, .x = cf.attrs[0].data, .v = cf.attrs[1].data,
                            .m = cf.attrs[2].data, .Jp = cf.attrs[3].data,
                            .Fe = cf.attrs[4].data, .V0 = cf.attrs[5].data};
    uint8_t *in = malloc(p.n);
    pw_gathered g;
    CHECK(pw_stats_gathered(&p, pw_stats_default_link_h(8) * h, h, &sc->colliders[1], cf.time,
                            &g, in, &err) == PW_OK, "%s", err.msg);
    double m_cut = 325 * h * h * h / 8; /* between the two snows' particle masses */
    double M[2] = {0}, V[2] = {0};
    for (size_t i = 0; i < p.n; i++)
        if (p.m[i] < m_cut) {
            M[in[i]] += p.m[i];
            V[in[i]] += p.V0[i] * p.Jp[i] * m3_det(p.Fe[i]);
        }
    double rho_picked = M[1] / V[1], rho_left = M[0] / V[0];
    printf("field snow gathered %.4f kg at %.1f kg/m^3, left %.4f kg at %.1f kg/m^3; "
           "gathered in all %.4f kg (stats), r %.4f m\n", M[1], rho_picked, M[0], rho_left,
           g.mass, g.radius);
    CHECK(fabs(g.mass - mass[FRAMES]) < 1e-6 * g.mass, "stats %.6f kg, here %.6f kg",
          mass[FRAMES], g.mass);
    CHECK(rho_picked >= DENSER * rho_left, "picked-up field snow %.1f kg/m^3, not %.2f times "
          "the %.1f kg/m^3 of the field left", rho_picked, DENSER, rho_left);
    free(in);
    free(sc);
    pw_cache_frame_free(&cf);
    return check_done("rolling_snowball_gathers");
}
