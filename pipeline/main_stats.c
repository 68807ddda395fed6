/* main_stats.c — `powder stats`: the measures of sim/pw_stats.h for each cached frame of
 * a shot, as a table or as JSON lines, for artists tuning snow and for tests. Caches are
 * read where `powder sim` wrote them (--caches DIR, else DIR/cache/ with --output DIR
 * when it exists, else the scene's cache pattern). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "frames.h"
#include "pw_file.h"
#include "pw_stats.h"
#include "scene.h"
#include "seed.h"
#include "shot.h"
#include "stats_cmd.h"

enum { EXIT_WORK = PW_EXIT_WORK, EXIT_USAGE = PW_EXIT_USAGE };

typedef struct {
    const char *scene, *frames, *output, *caches;
    double link_h;
    double crumb; /* crumb size, a share of the particles; 0: PW_STATS_CRUMB */
    int json, help, threads, quiet;
    int gathered; /* collider index whose gathered snow is measured, -1: none */
    int surface;  /* measure the top surface's change against the first frame */
    int layer;    /* measure the snow fallen on layer_region (--layer) */
    pw_layer_region layer_region;
} stats_options;

static const char *const help_text =
    "usage: powder stats scene.json [--frames SPEC] [--output DIR] [--caches DIR] [--link H]\n"
    "                               [--crumb SHARE] [--gathered K] [--surface]\n"
    "                               [--layer X0,Z0,X1,Z1[,Y0]] [--json]\n"
    "                               [--threads N] [--quiet]\n"
    "\n"
    "Measures each cached frame of the shot:\n"
    "  fragments   connected sets of particles, two particles being linked when closer\n"
    "              than --link H grid spacings (default: 0.7 h at 8 particles per cell\n"
    "              and more, 0.7 h (8 / ppc)^0.6 below, for the scene's smallest\n"
    "              particles_per_cell: seeding is jittered, and the link must span its\n"
    "              larger gaps for intact snow to be one fragment)\n"
    "  largest     share of the particles in the largest fragment (and the second)\n"
    "  >=1%        fragments holding at least 1% of the particles; >=5: of 5 particles\n"
    "  in>=1%      share of the particles in fragments of >= 1%: the snow in chunks\n"
    "              (the rest is powder and small debris); >=1% counts the chunks that\n"
    "              have moved apart, a crack that has not opened leaves one (its snow\n"
    "              weakened: see weak)\n"
    "  crumbs      share of the particles in fragments smaller than --crumb SHARE of\n"
    "              them (default 0.001, 0.1%): the snow seen as powder and crumbs\n"
    "  median      particle-weighted median fragment size, a share of the particles:\n"
    "              half the snow is in fragments no larger (mass-weighted for snow of\n"
    "              one density)\n"
    "  pieces      the same count over intact particles only, those hardening has left\n"
    "              at least 1% of their stiffness (exp(xi (1 - Jp)) >= 0.01): cracks\n"
    "              that have not opened yet separate pieces; largest piece share and\n"
    "              broken (loose) share of all particles\n"
    "  weak        share of particles hardening has left with less than half their\n"
    "              stiffness (started to break: exp(xi (1 - Jp)) < 0.5)\n"
    "  chunk       particle-weighted mean size of the chunks, connected sets of the\n"
    "              others: sum (n_k / n)^2, the share of the snow in the chunk a random\n"
    "              particle belongs to (small: powdery; large: a few big chunks)\n"
    "  Jp          min / mean / max of J_P = det F_P (< 1 compacted, > 1 stretched)\n"
    "  KE          kinetic energy [J]; elastic: the elastic energy stored (sum V0 Psi,\n"
    "              hardened moduli) [J]; total: kinetic + elastic + gravitational\n"
    "              (relative to y = 0) [J], what plasticity and friction take and\n"
    "              what the model makes show as its change from frame to frame\n"
    "  rho         median and largest density of the snow, m / (V0 det F), or under\n"
    "              density hardening the density measured on the grid [kg/m^3],\n"
    "              and >ice: the share of particles denser than ice (917 kg/m^3)\n"
    "  bounds      the particles' bounding box [m]\n"
    "  top99       the height below which 99% of the snow lies [m] (along -gravity):\n"
    "              how high the bulk of the snow reaches, a spray or an eruption\n"
    "              raises it; the box's top follows the single highest speck\n"
    "  near        per collider, share of particles within 2 h of its surface\n"
    "  top layer   with layered bodies: the top layer's particles, fragments and plates\n"
    "              (its pieces of intact particles holding >= 1% of it: a broken crust\n"
    "              is in several, an intact one in one), the largest plate's share of\n"
    "              it and its broken share\n"
    "  damaged     with snow of a durability (a Drucker-Prager plasticity): the mass\n"
    "              share of the snow whose durability is below 0.5, and dur, the\n"
    "              mass-weighted mean durability (1 intact, 0 broken)\n"
    "  gathered    with --gathered K: the snow collider K (0-based, as near0, near1...)\n"
    "              carries, as a rolling snowball's core carries what it picked up: the\n"
    "              pieces (linked as fragments) of snow moving with the collider's rigid\n"
    "              motion (within 0.25 of its speed) that touch it (within 2 h): their\n"
    "              particles, mass [kg], equivalent radius [m] (a sphere of their volume\n"
    "              plus the collider's own), density [kg/m^3] and mean J_P, beside the\n"
    "              density and mean J_P of the rest of the snow\n"
    "  surface     with --surface: the snow's top surface against the shot's first frame,\n"
    "              in columns of h across -gravity: the deepest lowering [m] (a print,\n"
    "              a pit, a track), the area lowered by more than h/2 [m^2], the volume\n"
    "              dug below the first frame's surface and heaped above it [m^3] (spray\n"
    "              over a column counts as heaped), and the density [kg/m^3] of the snow\n"
    "              within 2 h under the surface of the lowered columns (the print's\n"
    "              floor, compacted) and of the columns that did not move (the field)\n"
    "  layer       with --layer X0,Z0,X1,Z1[,Y0]: snow that fell (sim.sources) on the\n"
    "              rectangle x in [X0, X1], z in [Z0, Z1] above the floor Y0 [m]: the mass\n"
    "              the sources emitted by the frame, the mass present, the mass still in\n"
    "              the air, the landed mass over the region [kg]; the mean depth over\n"
    "              columns of h (each column's highest particle plus half its size) and\n"
    "              the depth its mass would make at the core's density [m]; the density\n"
    "              (mass over the particles' volume, m / rho) [kg/m^3] of the layer, of its\n"
    "              core (2 h or more below the top, where a density measured on the grid\n"
    "              is not read half in the air), then by depth below each column's top in\n"
    "              four equal parts, top first; the share of the columns with snow\n"
    "--json prints one JSON object per frame and line. --threads N and --quiet are taken\n"
    "as by every command (stats has no progress display: --quiet changes nothing).\n"
    "Caches come from `powder sim` (--caches DIR, else DIR/cache/ with --output DIR when\n"
    "it exists, else where the scene says). Every frame's cache is checked before a row\n"
    "is printed: each missing, damaged or foreign one is named and nothing is measured.\n"
    "Without --frames the range ends at the last cached frame.\n";

static int parse(int argc, char **argv, stats_options *o)
{
    memset(o, 0, sizeof *o);
    o->link_h = 0; /* 0: follow the scene's seeding (pw_stats_default_link_h) */
    o->gathered = -1;
    static const char *const options =
        " --frames= --output= --caches= --link= --crumb= --gathered= --surface --layer= --json"
        " --threads= --quiet ";
    for (int a = 2; a < argc; a++) {
        const char *arg = argv[a];
        pw_cli_token tok;
        if (!pw_cli_next("stats", options, argc, argv, &a, &tok)) return 0;
        if (!tok.name) {
            if (o->scene) {
                pw_cli_extra_argument("stats", arg, "one scene file");
                return 0;
            }
            o->scene = arg;
            continue;
        }
        const char *name = tok.name, *value = tok.value;
        if (!strcmp(name, "--help")) o->help = 1;
        else if (!strcmp(name, "--json")) o->json = 1;
        else if (!strcmp(name, "--quiet")) o->quiet = 1;
        else if (!strcmp(name, "--surface")) o->surface = 1;
        else if (!strcmp(name, "--frames")) o->frames = value;
        else if (!strcmp(name, "--output")) o->output = value;
        else if (!strcmp(name, "--caches")) o->caches = value;
        else if (!strcmp(name, "--link")) {
            if (!pw_cli_double("stats", name, value, 0.01, 10, &o->link_h)) return 0;
        } else if (!strcmp(name, "--crumb")) {
            if (!pw_cli_double("stats", name, value, 1e-9, 0.5, &o->crumb)) return 0;
        } else if (!strcmp(name, "--gathered")) {
            if (!pw_cli_int("stats", name, value, 0, PW_STATS_MAX_COLLIDERS - 1, &o->gathered))
                return 0;
        } else if (!strcmp(name, "--layer")) {
            pw_layer_region *r = &o->layer_region;
            char end;
            r->y0 = 0;
            int n = sscanf(value, "%lf,%lf,%lf,%lf%c", &r->x0, &r->z0, &r->x1, &r->z1, &end);
            if (n == 5 && end == ',') n = sscanf(value, "%lf,%lf,%lf,%lf,%lf%c", &r->x0, &r->z0,
                                                 &r->x1, &r->z1, &r->y0, &end) == 5 ? 4 : 0;
            if (n != 4 || !(r->x1 > r->x0) || !(r->z1 > r->z0) || !isfinite(r->x1 - r->x0) ||
                !isfinite(r->z1 - r->z0) || !isfinite(r->y0)) {
                pw_cli_usage_error("stats", "--layer %s: expected X0,Z0,X1,Z1[,Y0] [m], the "
                                   "rectangle x in [X0, X1], z in [Z0, Z1] with X0 < X1 and "
                                   "Z0 < Z1, and the floor's height Y0 (default 0)", value);
                return 0;
            }
            o->layer = 1;
        } else if (!strcmp(name, "--threads")) {
            if (!pw_cli_int("stats", name, value, 1, 1024, &o->threads)) return 0;
        } else {
            pw_cli_unknown_option("stats", name);
            return 0;
        }
    }
    pw_cli_threads(o->threads);
    return 1;
}

/* Whether any material of the scene (a layer's too) gives its snow a durability. */
static int scene_has_laws(const pw_scene *sc)
{
    int laws = 0;
    for (int k = 0; k < sc->n_materials; k++) laws |= pw_material_has_laws(&sc->materials[k]);
    for (int b = 0; b < sc->n_bodies; b++)
        for (int k = 0; k < sc->bodies[b].n_layers; k++)
            laws |= pw_material_has_laws(&sc->bodies[b].layers[k].material);
    return laws;
}

static void print_header(const pw_scene *sc, int gathered, int surface, int durable, int layer)
{
    printf("%5s %9s %9s %7s %7s %5s %7s %5s %7s %7s %6s %7s %7s %7s %7s %6s %6s %6s %10s %10s "
           "%10s %7s %6s %6s",
           "frame", "particles", "fragments", "largest", "second", ">=1%", "in>=1%", ">=5",
           "crumbs", "median",
           "pieces", "largest", "broken", "weak", "chunk", "Jp min", "mean", "max", "KE [J]",
           "elastic", "total", "rho med", "max", ">ice");
    for (int k = 0; k < sc->n_colliders && k < PW_STATS_MAX_COLLIDERS; k++)
        printf("  near%d", k);
    int layered = 0;
    for (int b = 0; b < sc->n_bodies; b++) layered |= sc->bodies[b].n_layers > 0;
    if (layered)
        printf(" %7s %6s %6s %7s %7s %6s %6s", "top n", "frags", "plates", "largest", "broken",
               "chunks", "weak");
    if (durable) printf(" %7s %6s", "damaged", "dur");
    if (gathered >= 0)
        printf(" %8s %9s %7s %7s %6s %6s %6s", "gath n", "mass [kg]", "r [m]", "rho", "rest",
               "Jp", "rest");
    if (surface)
        printf(" %9s %9s %9s %9s %7s %7s", "deepest", "lowered", "dug [m3]", "heaped",
               "rho prt", "field");
    if (layer)
        printf(" %9s %9s %9s %9s %8s %8s %7s %6s %6s %6s %6s %6s %6s", "emitted", "present",
               "in air", "layer kg", "depth", "m/rho/A", "rho", "core", "top", "2nd", "3rd",
               "bottom", "cover");
    printf("  top99 [m]  bounds [m]\n");
}

/* The layer's columns (--layer): masses, depths, densities; "-" where not measured. */
static void print_layer_row(const pw_layer_stats *L)
{
    if (L->mass_emitted >= 0) printf(" %9.4g", L->mass_emitted);
    else printf(" %9s", "-");
    printf(" %9.4g %9.4g %9.4g %8.4f", L->mass_present, L->mass_in_air, L->mass, L->depth_mean);
    if (L->has_density) {
        printf(" %8.4f %7.1f %6.1f", L->depth_of_mass, L->rho_mean, L->rho_core);
        for (int b = 0; b < PW_LAYER_BINS; b++) printf(" %6.0f", L->rho_bin[b]);
    } else {
        printf(" %8s %7s %6s", "-", "-", "-");
        for (int b = 0; b < PW_LAYER_BINS; b++) printf(" %6s", "-");
    }
    printf(" %5.1f%%", 100 * L->covered);
}

static void print_row(int f, const pw_frame_stats *st, int durable, const pw_gathered *g,
                      const pw_surface_change *sf, const pw_layer_stats *L)
{
    printf("%5d %9zu %9zu %6.1f%% %6.1f%% %5zu %6.1f%% %5zu %6.2f%% %6.2f%% %6zu %6.1f%% "
           "%6.1f%% %6.1f%% %6.1f%% %6.3f %6.3f %6.3f %10.4g",
           f, st->particles, st->fragments, 100 * st->largest_share, 100 * st->second_share,
           st->fragments_large, 100 * st->in_large_share, st->fragments_5,
           100 * st->crumb_share, 100 * st->median_fragment, st->pieces_large,
           100 * st->largest_piece, 100 * st->broken_share, 100 * st->weak_share,
           100 * st->chunk_mean, st->jp_min, st->jp_mean, st->jp_max, st->kinetic_energy);
    if (st->has_elastic) /* a slim render cache has no F_E: its energies are not complete */
        printf(" %10.4g %10.5g", st->elastic_energy,
               st->kinetic_energy + st->potential_energy + st->elastic_energy);
    else
        printf(" %10s %10s", "-", "-");
    if (st->has_density)
        printf(" %7.0f %6.0f %5.1f%%", st->rho_median, st->rho_max, 100 * st->ice_share);
    else
        printf(" %7s %6s %6s", "-", "-", "-");
    for (int k = 0; k < st->n_colliders; k++) printf(" %5.1f%%", 100 * st->near_share[k]);
    if (st->has_layers)
        printf(" %7zu %6zu %6zu %6.1f%% %6.1f%% %6zu %5.1f%%", st->top_particles,
               st->top_fragments, st->top_plates, 100 * st->top_largest_plate,
               100 * st->top_broken_share, st->top_chunks, 100 * st->top_weak_share);
    if (durable && st->has_durability)
        printf(" %6.1f%% %6.3f", 100 * st->damaged_share, st->durability_mean);
    else if (durable)
        printf(" %7s %6s", "-", "-");
    if (g && g->has_density)
        printf(" %8zu %9.4g %7.4f %7.1f %6.1f %6.3f %6.3f", g->particles, g->mass, g->radius,
               g->rho, g->rho_rest, g->jp_mean, g->jp_rest);
    else if (g)
        printf(" %8zu %9.4g %7s %7s %6s %6.3f %6.3f", g->particles, g->mass, "-", "-", "-",
               g->jp_mean, g->jp_rest);
    if (sf) {
        printf(" %9.4f %9.4f %9.3g %9.3g", sf->deepest, sf->lowered_area, sf->dug_volume,
               sf->heaped_volume);
        if (sf->has_density && sf->rho_print > 0)
            printf(" %7.1f %7.1f", sf->rho_print, sf->rho_field);
        else if (sf->has_density)
            printf(" %7s %7.1f", "-", sf->rho_field);
        else
            printf(" %7s %7s", "-", "-");
    }
    if (L) print_layer_row(L);
    printf("  %8.3f  [%.3f %.3f %.3f]-[%.3f %.3f %.3f]\n", st->top99, st->lo.x, st->lo.y,
           st->lo.z, st->hi.x, st->hi.y, st->hi.z);
}

/* The gathered snow as a JSON object (densities null until measured), or null. */
static void print_json_gathered(int collider, const pw_gathered *g)
{
    if (!g) {
        printf(", \"gathered\": null");
        return;
    }
    printf(", \"gathered\": {\"collider\": %d, \"particles\": %zu, \"mass\": %.9g, "
           "\"speed\": %.6g, \"jp_mean\": %.6g, \"jp_rest\": %.6g, ",
           collider, g->particles, g->mass, g->speed, g->jp_mean, g->jp_rest);
    if (g->has_density)
        printf("\"volume\": %.9g, \"radius\": %.6g, \"rho\": %.6g, \"rho_rest\": %.6g}",
               g->volume, g->radius, g->rho, g->rho_rest);
    else
        printf("\"volume\": null, \"radius\": null, \"rho\": null, \"rho_rest\": null}");
}

/* The surface change as a JSON object, or null. */
static void print_json_surface(const pw_surface_change *sf)
{
    if (!sf) {
        printf(", \"surface\": null");
        return;
    }
    printf(", \"surface\": {\"deepest\": %.6g, \"deepest_at\": [%.6g, %.6g, %.6g], "
           "\"highest\": %.6g, \"lowered_area\": %.6g, \"dug_volume\": %.6g, "
           "\"heaped_volume\": %.6g, \"columns\": %zu, \"emptied\": %zu, \"cell\": %.6g, ",
           sf->deepest, sf->deepest_at.x, sf->deepest_at.y, sf->deepest_at.z, sf->highest,
           sf->lowered_area, sf->dug_volume, sf->heaped_volume, sf->columns, sf->emptied,
           sf->cell);
    /* null until measured: no densities yet, or no column lowered */
    if (sf->has_density && sf->rho_print > 0)
        printf("\"rho_print\": %.6g, ", sf->rho_print);
    else
        printf("\"rho_print\": null, ");
    if (sf->has_density && sf->rho_field > 0)
        printf("\"rho_field\": %.6g}", sf->rho_field);
    else
        printf("\"rho_field\": null}");
}

/* The layer (--layer) as a JSON object, or null. */
static void print_json_layer(const pw_layer_stats *L)
{
    if (!L) {
        printf(", \"layer\": null");
        return;
    }
    char emitted[32] = "null";
    if (L->mass_emitted >= 0) snprintf(emitted, sizeof emitted, "%.9g", L->mass_emitted);
    printf(", \"layer\": {\"mass_emitted\": %s, \"mass_present\": %.9g, \"mass_in_air\": %.9g, "
           "\"mass\": %.9g, \"area\": %.9g, \"columns\": %zu, \"cell\": %.6g, "
           "\"covered\": %.6f, \"depth_mean\": %.6g, \"depth_max\": %.6g, ",
           emitted, L->mass_present, L->mass_in_air, L->mass, L->area, L->columns, L->cell,
           L->covered, L->depth_mean, L->depth_max);
    if (!L->has_density) {
        printf("\"rho_mean\": null, \"rho_core\": null, \"depth_of_mass\": null, "
               "\"rho_by_depth\": null}");
        return;
    }
    printf("\"rho_mean\": %.6g, \"rho_core\": %.6g, \"depth_of_mass\": %.6g, \"rho_by_depth\": [",
           L->rho_mean, L->rho_core, L->depth_of_mass);
    for (int b = 0; b < PW_LAYER_BINS; b++) printf("%s%.6g", b ? ", " : "", L->rho_bin[b]);
    printf("]}");
}

static void print_json(int f, double t, const pw_frame_stats *st, int collider,
                       const pw_gathered *g, const pw_surface_change *sf,
                       const pw_layer_stats *L)
{
    char elastic[32] = "null", rho[96] = "null, \"rho_max\": null, \"ice_share\": null";
    if (st->has_elastic) /* not measured in a slim render cache */
        snprintf(elastic, sizeof elastic, "%.9g", st->elastic_energy);
    if (st->has_density)
        snprintf(rho, sizeof rho, "%.6g, \"rho_max\": %.6g, \"ice_share\": %.6f", st->rho_median,
                 st->rho_max, st->ice_share);
    printf("{\"frame\": %d, \"time\": %.9g, \"particles\": %zu, \"link_m\": %.9g, "
           "\"fragments\": %zu, \"largest_share\": %.6f, \"second_share\": %.6f, "
           "\"fragments_ge_1pct\": %zu, \"in_fragments_ge_1pct\": %.6f, \"fragments_ge_5\": %zu, "
           "\"crumb_limit\": %.6g, \"crumb_share\": %.6f, \"median_fragment\": %.6f, "
           "\"pieces_ge_1pct\": %zu, "
           "\"largest_piece_share\": %.6f, \"second_piece_share\": %.6f, "
           "\"broken_share\": %.6f, \"weak_share\": %.6f, \"chunk_mean\": %.6f, "
           "\"jp_min\": %.6g, "
           "\"jp_mean\": %.6g, \"jp_max\": %.6g, \"kinetic_energy\": %.9g, "
           "\"elastic_energy\": %s, \"rho_median\": %s, \"potential_energy\": %.9g, "
           "\"mass\": %.9g, "
           "\"momentum\": [%.9g, %.9g, %.9g], \"bounds\": [[%.6g, %.6g, %.6g], [%.6g, %.6g, "
           "%.6g]], \"top99\": %.6g, \"near_collider\": [",
           f, t, st->particles, st->link, st->fragments, st->largest_share, st->second_share,
           st->fragments_large, st->in_large_share, st->fragments_5, st->crumb_limit,
           st->crumb_share, st->median_fragment, st->pieces_large, st->largest_piece,
           st->second_piece, st->broken_share, st->weak_share, st->chunk_mean,
           st->jp_min, st->jp_mean, st->jp_max, st->kinetic_energy, elastic, rho,
           st->potential_energy, st->mass, st->momentum.x, st->momentum.y, st->momentum.z,
           st->lo.x, st->lo.y, st->lo.z, st->hi.x, st->hi.y, st->hi.z, st->top99);
    for (int k = 0; k < st->n_colliders; k++) printf("%s%.6f", k ? ", " : "", st->near_share[k]);
    if (st->has_layers)
        printf("], \"top_layer\": {\"particles\": %zu, \"fragments\": %zu, \"plates\": %zu, "
               "\"largest_plate_share\": %.6f, \"broken_share\": %.6f, \"chunks\": %zu, "
               "\"weak_share\": %.6f}",
               st->top_particles, st->top_fragments, st->top_plates, st->top_largest_plate,
               st->top_broken_share, st->top_chunks, st->top_weak_share);
    else
        printf("], \"top_layer\": null");
    if (st->has_durability)
        printf(", \"durability\": {\"damaged_share\": %.6f, \"mean\": %.6f}", st->damaged_share,
               st->durability_mean);
    else
        printf(", \"durability\": null");
    print_json_gathered(collider, g);
    print_json_surface(sf);
    print_json_layer(L);
    printf("}\n");
}

/* Checks the cache of every frame to measure (and with --surface of the shot's first
 * frame, its reference) before the first row is printed, as render and export do: a
 * missing, damaged or foreign frame in the middle must not leave a partial table or a
 * partial --json file, and every bad frame is named. Without --frames the range is
 * what has been simulated: it ends at the last frame that has a cache, and *fl is cut
 * there. Returns 0 or the exit status (the problems printed). */
static int check_range(const stats_options *o, const pw_scene *sc, pw_frame_list *fl)
{
    char cache[4096];
    struct stat sb;
    if (!o->frames) {
        while (fl->count > 0 &&
               (pw_frame_path(sc->cache_pattern, fl->frames[fl->count - 1], cache,
                              sizeof cache, NULL) != PW_OK ||
                stat(cache, &sb) != 0))
            fl->count--;
        if (fl->count == 0) {
            pw_error err = {0};
            pw_fail(&err, PW_ENOENT, "%s: no cached frame found in %s (`powder sim %s` "
                    "writes them; --caches DIR reads them from another folder)",
                    sc->path, sc->cache_pattern, sc->path);
            return pw_cli_fail(&err);
        }
    }
    if (!o->surface || fl->frames[0] == sc->frame_start)
        return pw_cli_check_caches(sc, fl, NULL);
    /* the surface's reference first, then the listed frames (all after it) */
    pw_frame_list with_first = {malloc((size_t)(fl->count + 1) * sizeof(int)), fl->count + 1};
    if (!with_first.frames) {
        fprintf(stderr, "powder: out of memory\n");
        return EXIT_WORK;
    }
    with_first.frames[0] = sc->frame_start;
    memcpy(with_first.frames + 1, fl->frames, (size_t)fl->count * sizeof(int));
    int rc = pw_cli_check_caches(sc, &with_first, NULL);
    pw_frame_list_free(&with_first);
    return rc;
}

static int run_stats(const stats_options *o, pw_scene *sc)
{
    pw_error err = {0};
    if (pw_scene_load(o->scene, sc, &err) != PW_OK ||
        pw_shot_apply_read_paths(sc, o->output, o->caches, &err) != PW_OK)
        return pw_cli_fail(&err);
    double link_h = o->link_h;
    if (!(link_h > 0)) { /* the default follows the sparsest seeding of the shot */
        double ppc = 0;
        for (int k = 0; k < sc->n_bodies; k++)
            if (ppc == 0 || sc->bodies[k].particles_per_cell < ppc)
                ppc = sc->bodies[k].particles_per_cell;
        for (int k = 0; k < sc->n_sources; k++)
            if (ppc == 0 || sc->sources[k].particles_per_cell < ppc)
                ppc = sc->sources[k].particles_per_cell;
        link_h = pw_stats_default_link_h(ppc);
    }
    if (o->gathered >= sc->n_colliders) {
        pw_cli_usage_error("stats", "--gathered %d: %s has %d collider(s), numbered from 0",
                           o->gathered, sc->path, sc->n_colliders);
        return EXIT_USAGE;
    }
    pw_frame_list fl;
    pw_status st = o->frames ? pw_frames_parse(o->frames, sc->frame_start, sc->frame_end, &fl, &err)
                             : pw_frames_range(sc->frame_start, sc->frame_end, &fl, &err);
    if (st != PW_OK) return pw_cli_fail(&err);
    int rc = check_range(o, sc, &fl);
    if (rc) {
        pw_frame_list_free(&fl);
        return rc;
    }
    int printed = 0, durable = scene_has_laws(sc);
    char first_cache[4096]; /* the surface's reference: the shot's first frame */
    for (int k = 0; k < fl.count && st == PW_OK; k++) {
        int f = fl.frames[k];
        char cache[4096];
        if ((st = pw_frame_path(sc->cache_pattern, f, cache, sizeof cache, &err)) != PW_OK) break;
        pw_cache_info info;
        if ((st = pw_shot_cache_info(sc, f, &info, &err)) != PW_OK) break;
        pw_frame_stats fs;
        st = pw_stats_cache(cache, link_h, o->crumb, sc->sim.gravity, sc->colliders,
                            sc->n_colliders, &fs, &err);
        if (st != PW_OK) break;
        pw_gathered gathered, *g = NULL;
        if (o->gathered >= 0) {
            st = pw_stats_cache_gathered(cache, link_h, &sc->colliders[o->gathered], &gathered,
                                         &err);
            if (st != PW_OK) break;
            g = &gathered;
        }
        pw_surface_change surface, *sf = NULL;
        if (o->surface) {
            if ((st = pw_frame_path(sc->cache_pattern, sc->frame_start, first_cache,
                                    sizeof first_cache, &err)) != PW_OK ||
                (st = pw_stats_cache_surface(first_cache, cache, sc->sim.gravity, &surface,
                                             &err)) != PW_OK)
                break;
            sf = &surface;
        }
        pw_layer_stats layer, *L = NULL;
        if (o->layer) {
            if ((st = pw_stats_cache_layer(cache, &o->layer_region, &layer, &err)) != PW_OK) break;
            L = &layer;
        }
        if (o->json) {
            print_json(f, info.time, &fs, o->gathered, g, sf, L);
        } else {
            if (!printed) {
                durable |= fs.has_durability; /* (the columns follow what is measured) */
                print_header(sc, o->gathered, o->surface, durable, o->layer);
            }
            print_row(f, &fs, durable, g, sf, L);
        }
        printed++;
        fflush(stdout);
    }
    pw_frame_list_free(&fl);
    return st == PW_OK ? 0 : pw_cli_fail(&err);
}

int pw_main_stats(int argc, char **argv)
{
    stats_options o;
    if (!parse(argc, argv, &o)) return EXIT_USAGE;
    if (o.help) {
        fputs(help_text, stdout);
        return 0;
    }
    if (!o.scene) {
        pw_cli_missing_argument("stats", "a scene file");
        return EXIT_USAGE;
    }
    pw_scene *sc = calloc(1, sizeof *sc); /* a few megabytes: never on the stack */
    if (!sc) {
        fprintf(stderr, "powder: out of memory\n");
        return EXIT_WORK;
    }
    int rc = run_stats(&o, sc);
    free(sc);
    return rc;
}
