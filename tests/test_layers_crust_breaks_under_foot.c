/* Property (the paper's walking character, Fig. 9: "the top layer was stiffer
 * and crunchier"): pressing a foot into a field with a stiff, brittle top layer, the
 * print's depth grows with how far the foot is pressed, and the top layer breaks where
 * the same field without the crust stays mostly in one piece.
 *
 * A field 0.3 x 0.1 x 0.3 m (h = 0.02 m, 8 per cell, 9,001 particles) of soft snow (E0
 * 4.8e4 Pa, Fig. 8's lower Young's modulus; otherwise Table 2) on a floor; its top 0.04 m
 * is a layer: either the crust (E0 1.4e6 Pa, theta_s 2.5e-3, xi 30, Jp_min 0.72, which
 * keeps its hardened modulus below ice's (sim/seed.h, PW_ICE_YOUNGS): ten times stiffer,
 * a third of the critical stretch, three times the hardening: it breaks soon and fast)
 * or the same soft snow (a layer that only labels the top 0.04 m, so both fields measure
 * the same particles). A rigid box foot, 0.08 x 0.08 x 0.12 m, is pressed down D by
 * `motion` keys over 0.08 s, held 0.02 s, lifted clear by 0.14 s; frame 4 (0.167 s) is
 * measured by `powder stats --json` and from the cache:
 *
 * 1. Print depth: the mean height of the snow's top in the h-columns under the foot
 *    (inside its footprint by h) below that in the columns far from it (0.05 m beyond
 *    the footprint). Measured (AMD EPYC, shared machine, Release): crust D = 0.03 m:
 *    0.0249 m; D = 0.05 m: 0.0465 m; soft field D = 0.05 m: 0.0459 m. Asserted: the
 *    deeper press leaves a print deeper by at least 0.6 of the 0.02 m difference, and
 *    each print is within 0.3 D of D (snow this soft keeps most of its compaction).
 * 2. The top layer breaks: its broken share (intact particles are those hardening has
 *    left >= 1 % of their stiffness, pw_stats.h) and the share of it in its largest
 *    plate (a connected piece of intact particles). Measured at D = 0.05 m, particle
 *    seeds 3 (this test), 5 and 11: crust broken 21.7 / 21.9 / 19.1 %, soft field 4.7 /
 *    3.8 / 4.2 %; crust largest plate 38.9 / 42.4 / 78.3 %, soft field 84.8 / 85.7 /
 *    85.4 %. Asserted: the crust's broken share at least 3 times the soft field's, and
 *    its largest plate at least 5 points smaller. Counts of plates (>= 1 % of the layer)
 *    are 2 in every run (the print's floor and the rest, or the crust's two halves):
 *    at h = 0.02 m the crust is 2 cells thick and the rest of its plates are smaller
 *    than 1 % (sim/docs/layered-snow.md).
 *
 * 3. The same print through `powder stats --surface` (the top of each h-column against
 *    frame 0): deepest 0.0293 / 0.0500 / 0.0487 m for D = 0.03 / 0.05 / 0.05 (soft),
 *    lowered by more than h/2 over 0.0080 / 0.0148 / 0.0088 m^2 against the foot's
 *    0.0096 (the broken crust sinks beside the foot too). Asserted: deepest within
 *    0.15 D of D, the lowered area at least half the foot's.
 * 4. The print's floor is compacted: the density within 2 h under the surface of the
 *    lowered columns against that of the columns that did not move (stats --surface).
 *    Measured: 315.3 / 295.7 / 404.6 kg/m^3 against 279.9 / 272.9 / 278.4 (the soft
 *    field's snow under the foot 1.45 times the field's; under the crust the lowered
 *    area takes in broken crust that sank without being pressed). Asserted: the soft
 *    print at least 1.25 times the field, the crust's prints denser than the field.
 *
 * The test runs the powder program end to end (sim, then stats --json --surface). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"
#include "pw_math.h"

#define H 0.02
#define TOP 0.10

static const char field_json[] =
    "{\"name\": \"%s\", \"frames\": {\"start\": 0, \"end\": 4, \"fps\": 24},\n"
    " \"sim\": {\"h\": 0.02, \"domain\": {\"min\": [-0.3, -0.02, -0.3], \"max\": [0.3, 0.3, 0.3]},\n"
    "  \"materials\": {\"snow\": {\"E0\": 48000}},\n"
    "  \"bodies\": [{\"material\": \"snow\", \"seed\": 3, \"layers\": [{\"thickness\": 0.04%s}],\n"
    "    \"shapes\": [{\"type\": \"box\", \"center\": [0, 0.05, 0], \"half_extents\": [0.15, 0.05, 0.15]}]}],\n"
    "  \"colliders\": [\n"
    "   {\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0], \"normal\": [0, 1, 0]}, \"friction\": 0.5},\n"
    "   {\"shape\": {\"type\": \"box\", \"center\": [0, 0, 0], \"half_extents\": [0.04, 0.04, 0.06],\n"
    "     \"motion\": [{\"t\": 0, \"translation\": [0, 0.145, 0]}, {\"t\": 0.08, \"translation\": [0, %.6f, 0]},\n"
    "                {\"t\": 0.1, \"translation\": [0, %.6f, 0]}, {\"t\": 0.14, \"translation\": [0, 0.165, 0]}]},\n"
    "    \"friction\": 0.3}]},\n"
    " \"render\": {\"camera\": {\"eye\": [0, 0.5, 1], \"target\": [0, 0.05, 0], \"fov_deg\": 40},\n"
    "  \"resolution\": [32, 18], \"spp\": 1, \"lights\": {\"sky\": {\"radiance\": [0.2, 0.2, 0.2]}}}}\n";

static const char crust[] = ", \"E0\": 1.4e6, \"theta_s\": 0.0025, \"xi\": 30, \"Jp_min\": 0.72";

#define FOOT_AREA (0.08 * 0.12) /* [m^2] */

typedef struct {
    double print, largest, broken;
    double deepest, lowered; /* powder stats --surface: [m], [m^2] */
    double rho_print, rho_field; /* and the densities under it [kg/m^3] */
} measures;

/* The value of "key" after "top_layer" in the JSON line, or -1. */
/* a number of the JSON object `object` in a stats line, -1 when absent */
static double object_field(const char *line, const char *object, const char *key)
{
    char opened[64];
    snprintf(opened, sizeof opened, "\"%s\": {", object);
    const char *top = strstr(line, opened);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\": ", key);
    const char *at = top ? strstr(top, quoted) : NULL;
    return at ? strtod(at + strlen(quoted), NULL) : -1;
}

/* Mean top of the snow in the h-columns under the foot and far from it. */
static double print_depth(const char *cache)
{
    enum { NC = 16 }; /* columns over [-0.16, 0.16) */
    double top[NC][NC];
    for (int a = 0; a < NC; a++)
        for (int b = 0; b < NC; b++) top[a][b] = -1;
    pw_cache_frame f;
    pw_error err = {0};
    static const char *const names[] = {"x"};
    if (pw_cache_read_f64(cache, names, 1, &f, &err) != PW_OK) {
        CHECK(0, "%s", err.msg);
        return -1;
    }
    const vec3 *x = f.attrs[0].data;
    for (size_t p = 0; p < f.count; p++) {
        int a = (int)floor(x[p].x / H) + NC / 2, b = (int)floor(x[p].z / H) + NC / 2;
        if (a >= 0 && a < NC && b >= 0 && b < NC && x[p].y > top[a][b]) top[a][b] = x[p].y;
    }
    pw_cache_frame_free(&f);
    double under = 0, far = 0;
    int n_under = 0, n_far = 0;
    for (int a = 0; a < NC; a++)
        for (int b = 0; b < NC; b++) {
            double cx = (a - NC / 2 + 0.5) * H, cz = (b - NC / 2 + 0.5) * H;
            if (fabs(cx) < 0.04 - H && fabs(cz) < 0.06 - H) under += top[a][b], n_under++;
            else if ((fabs(cx) > 0.09 || fabs(cz) > 0.11) && fabs(cx) < 0.15 - H &&
                     fabs(cz) < 0.15 - H)
                far += top[a][b], n_far++;
        }
    CHECK(n_under == 8 && n_far == 24, "%d columns under the foot, %d far", n_under, n_far);
    return far / n_far - under / n_under;
}

static measures run(const char *dir, const char *name, const char *layer, double D)
{
    measures m = {-1, -1, -1, -1, -1, -1, -1};
    char scene[4200], out[4200], log[4200], cache[4400], text[sizeof field_json + 256];
    snprintf(scene, sizeof scene, "%s/%s.json", dir, name);
    snprintf(out, sizeof out, "%s/%s", dir, name);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    double y = TOP - D + 0.04; /* the foot's centre at the deepest */
    snprintf(text, sizeof text, field_json, name, layer, y, y);
    fixture_write(scene, text);
    const char *sim[] = {"sim", scene, "--output", out, "--quiet", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "%s: powder sim exit %d (see %s)", name, rc, log);
    if (rc) return m;
    const char *stats[] = {"stats", scene, "--output", out, "--frames", "4", "--json",
                           "--surface", NULL};
    rc = powder_run(log, stats);
    CHECK(rc == 0, "%s: powder stats exit %d (see %s)", name, rc, log);
    FILE *fp = fopen(log, "r");
    char line[8192];
    while (fp && fgets(line, sizeof line, fp))
        if (strstr(line, "\"frame\": 4,")) {
            m.largest = object_field(line, "top_layer", "largest_plate_share");
            m.broken = object_field(line, "top_layer", "broken_share");
            m.deepest = object_field(line, "surface", "deepest");
            m.lowered = object_field(line, "surface", "lowered_area");
            m.rho_print = object_field(line, "surface", "rho_print");
            m.rho_field = object_field(line, "surface", "rho_field");
        }
    if (fp) fclose(fp);
    CHECK(m.largest >= 0 && m.broken >= 0, "%s: no top_layer figures in %s", name, log);
    snprintf(cache, sizeof cache, "%s/cache/%s.0004.pwc", out, name);
    m.print = print_depth(cache);
    printf("%s (D = %.2f m): print %.4f m (stats --surface: deepest %.4f m, lowered %.4f "
           "m^2, density under it %.1f against %.1f kg/m^3), top layer's largest plate %.1f "
           "%%, broken %.1f %%\n", name, D, m.print, m.deepest, m.lowered, m.rho_print,
           m.rho_field, 100 * m.largest, 100 * m.broken);
    return m;
}

int main(void)
{
    const char *dir = fixture_dir("layers_crust_breaks_under_foot");
    measures shallow = run(dir, "crust_d3", crust, 0.03);
    measures deep = run(dir, "crust_d5", crust, 0.05);
    measures soft = run(dir, "soft_d5", "", 0.05);

    /* 1. the print deepens with the press */
    CHECK(deep.print >= shallow.print + 0.6 * 0.02, "print %.4f m at D = 0.05 not deeper "
          "than %.4f m at D = 0.03 by 0.012 m", deep.print, shallow.print);
    CHECK(fabs(shallow.print - 0.03) < 0.3 * 0.03, "print %.4f m for D = 0.03", shallow.print);
    CHECK(fabs(deep.print - 0.05) < 0.3 * 0.05, "print %.4f m for D = 0.05", deep.print);
    CHECK(fabs(soft.print - 0.05) < 0.3 * 0.05, "soft print %.4f m for D = 0.05", soft.print);
    /* the same print as powder stats --surface measures it, column by column against
     * frame 0: as deep as the foot went, over at least half its footprint */
    const measures *all[3] = {&shallow, &deep, &soft};
    const double pressed[3] = {0.03, 0.05, 0.05};
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(all[k]->deepest - pressed[k]) < 0.15 * pressed[k],
              "stats --surface: deepest %.4f m for D = %.2f", all[k]->deepest, pressed[k]);
        CHECK(all[k]->lowered >= 0.5 * FOOT_AREA, "stats --surface: %.4f m^2 lowered under a "
              "foot of %.4f m^2", all[k]->lowered, FOOT_AREA);
    }

    /* 4. the print's floor is compacted */
    CHECK(soft.rho_print >= 1.25 * soft.rho_field, "soft print's floor %.1f kg/m^3, not 1.25 "
          "times the field's %.1f", soft.rho_print, soft.rho_field);
    for (int k = 0; k < 2; k++)
        CHECK(all[k]->rho_print > all[k]->rho_field, "crust print %d: floor %.1f kg/m^3, field "
              "%.1f", k, all[k]->rho_print, all[k]->rho_field);

    /* 2. the crust breaks, the soft top much less */
    CHECK(deep.broken >= 3 * soft.broken, "crust broken %.3f, not 3 times the soft field's %.3f",
          deep.broken, soft.broken);
    CHECK(deep.largest <= soft.largest - 0.05, "the crust's largest plate holds %.3f of it, "
          "the soft top's largest piece %.3f", deep.largest, soft.largest);
    return check_done("layers_crust_breaks_under_foot");
}
