/* Property (Fig. 8 of Stomakhin et al. 2013, section 5: "the hardening coefficient
 * determines how fast the material breaks once it is plastic (larger = brittle)"): the
 * wedge shot of scenes/wedge_*.json at preview scale (h = 0.02 m, 3,966 particles),
 * run with xi = 5, 10 and 15, breaks more the larger xi is. "Breaks" is measured as
 * `powder stats` measures it: the share of snow hardening has left with less than 1 %
 * of its stiffness (broken), 0.42 s in (frame 10, after the block has split over the
 * wedge). Measured here: 12.1 %, 17.6 %, 22.2 %; at h = 0.01 m the shipped scenes give
 * 6.0 %, 19.3 %, 33.2 % at frame 10. Each step must raise it by at least 2 points.
 *
 * The companion ordering of Fig. 8 for the critical compression and stretch (lower =
 * powdery) is asserted by test_wedge_critical_order, with measures of its own: not the
 * broken share (which does not order the reference and higher variants at this scale)
 * but the share of snow that has started to break (less than half its stiffness left)
 * and the size of the chunks of the rest (sim/docs/wedge-critical-order.md). The test
 * runs the powder program end to end (sim, then stats --json). */
#include "check.h"
#include "pipeline_fixture.h"

static const char wedge_json[] =
    "{\"name\": \"wedge\", \"frames\": {\"start\": 0, \"end\": 10, \"fps\": 24},\n"
    " \"sim\": {\"h\": 0.02, \"domain\": {\"min\": [-0.45, -0.05, -0.2], \"max\": [0.45, 0.6, 0.2]},\n"
    "  \"materials\": {\"snow\": {\"xi\": %g}},\n"
    "  \"bodies\": [{\"material\": \"snow\", \"particles_per_cell\": 8, \"seed\": 8,\n"
    "    \"shapes\": [{\"type\": \"box\", \"center\": [0, 0.35, 0], \"half_extents\": [0.2, 0.05, 0.05]}]}],\n"
    "  \"colliders\": [\n"
    "   {\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0], \"normal\": [0, 1, 0]}, \"friction\": 0.5},\n"
    "   {\"shape\": {\"type\": \"box\", \"center\": [0, 0.08, 0], \"half_extents\": [0.1, 0.1, 0.15],\n"
    "     \"rotation\": {\"axis\": [0, 0, 1], \"angle_deg\": 45}}, \"friction\": 0.2}]},\n"
    " \"render\": {\"camera\": {\"eye\": [0, 0.3, 1], \"target\": [0, 0.1, 0], \"fov_deg\": 40},\n"
    "  \"resolution\": [32, 18], \"spp\": 1,\n"
    "  \"lights\": {\"sky\": {\"radiance\": [0.2, 0.2, 0.2]}}}}\n";

/* Broken share at frame 10 of the wedge with hardening xi, or -1 on failure. */
static double broken_share(const char *dir, double xi)
{
    char scene[4200], out[4200], log[4200], text[sizeof wedge_json + 32];
    snprintf(scene, sizeof scene, "%s/wedge_xi%g.json", dir, xi);
    snprintf(out, sizeof out, "%s/xi%g", dir, xi);
    snprintf(log, sizeof log, "%s/xi%g.log", dir, xi);
    snprintf(text, sizeof text, wedge_json, xi);
    fixture_write(scene, text);
    const char *sim[] = {"sim", scene, "--output", out, "--quiet", NULL};
    int rc = powder_run(log, sim);
    CHECK(rc == 0, "xi %g: powder sim exit %d (see %s)", xi, rc, log);
    if (rc) return -1;
    const char *stats[] = {"stats", scene, "--output", out, "--frames", "10", "--json", NULL};
    rc = powder_run(log, stats);
    CHECK(rc == 0, "xi %g: powder stats exit %d (see %s)", xi, rc, log);
    FILE *fp = fopen(log, "r");
    char line[8192];
    double share = -1;
    while (fp && fgets(line, sizeof line, fp)) {
        const char *at = strstr(line, "\"broken_share\": ");
        if (at) share = strtod(at + strlen("\"broken_share\": "), NULL);
    }
    if (fp) fclose(fp);
    CHECK(share >= 0, "xi %g: no broken_share in %s", xi, log);
    return share;
}

int main(void)
{
    const char *dir = fixture_dir("wedge_hardening_order");
    double ductile = broken_share(dir, 5), reference = broken_share(dir, 10),
           brittle = broken_share(dir, 15);
    printf("broken share at 0.42 s: xi 5 %.1f %%, xi 10 %.1f %%, xi 15 %.1f %%\n", 100 * ductile,
           100 * reference, 100 * brittle);
    CHECK(reference >= ductile + 0.02, "xi 10 (%.3f) not more broken than xi 5 (%.3f)", reference,
          ductile);
    CHECK(brittle >= reference + 0.02, "xi 15 (%.3f) not more broken than xi 10 (%.3f)", brittle,
          reference);
    return check_done("wedge_hardening_order");
}
