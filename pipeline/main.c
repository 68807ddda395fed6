/* main.c — the `powder` program: command-line parsing, messages and exit status.
 * The only file of Powder that prints errors or decides how the process ends.
 *
 * Exit status: 0 success, 1 the work failed, 2 bad usage or bad input, 3 interrupted by
 * SIGTERM or SIGINT where a rerun resumes (sim, run, render). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "cli.h"
#include "frames.h"
#include "interrupt.h"
#include "preview_colour.h"
#include "progress.h"
#include "pw_cache.h"
#include "pw_error.h"
#include "pw_file.h"
#include "scene.h"
#include "shot.h"
#include "stats_cmd.h"
#include "submit.h"
#include "view.h"

enum { EXIT_WORK = PW_EXIT_WORK, EXIT_USAGE = PW_EXIT_USAGE };

/* ---- options ---------------------------------------------------------------- */

typedef struct {
    const char *command;
    const char **positional; /* argc entries: png takes any number of files */
    int n_positional;
    const char *frames, *look, *output, *caches, *mask;
    const char *view_name, *view_look; /* --view, --view-look: the PNGs' view transform */
    pw_view *view;                     /* made from them when the command writes PNGs */
    int threads, quiet, force, resume, png, help;
    int replace; /* sim, run: delete caches of another simulation setup in the folder */
    int beauty; /* 'h' --half, 'f' --float, 0: the scene's render.beauty */
    int denoise; /* 'y' --denoise, 'n' --no-denoise, 0: the scene's (turntable: on) */
    int frame, steps, spp, width_px, height_px;
    int seed_set, frame_set, exposure_set; /* given on the command line (0 is valid) */
    uint64_t seed;
    double radius, elevation_deg, exposure;
    double max_memory; /* [B] 0 = 90% of physical memory */
} options;

static const char *const usage_text =
    "usage: powder <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [scene.json]      simulate, rasterize and render a shot (no scene: the built-in\n"
    "                        default shot, a snowball dropped on the ground)\n"
    "  sim scene.json        simulate only: one cache file per frame\n"
    "  render scene.json     render existing caches to EXR (--look other.json for new lighting)\n"
    "  turntable scene.json  orbit the camera around one frame (--frame N --steps K)\n"
    "  info FILE             print a cache file's header, attributes, sizes and ratio\n"
    "  png FILE.exr...       write PNG previews, through a view transform, next to EXR files\n"
    "  export vdb|ply scene.json  density as OpenVDB or particles as PLY, per cached frame\n"
    "  stats scene.json      fragments, largest piece, J_P, kinetic energy, bounds per frame\n"
    "  submit scene.json     hand the shot to a Slurm cluster (sim job, render job array)\n"
    "\n"
    "common options (every command takes them):\n"
    "  --threads N     worker threads (default: all cores)\n"
    "  --quiet         no progress display\n"
    "  --help          help for a command\n"
    "  --frames SPEC   frames to do: 5, 1-48, 1-100x2, or a comma list of those (the\n"
    "                  commands of a shot's frames: run, sim, render, export, stats,\n"
    "                  submit)\n"
    "\n"
    "exit status: 0 success, 1 the work failed, 2 bad usage or bad input, 3 interrupted\n"
    "(SIGTERM/SIGINT: sim, run and render stop after the frame in flight; rerun to resume)\n";

static void command_help(const char *cmd)
{
    if (!strcmp(cmd, "run"))
        printf("usage: powder run [scene.json] [--frames SPEC] [--threads N] [--quiet]\n"
               "                  [--force] [--replace] [--png] [--half|--float] [--output DIR]\n"
               "                  [--max-memory SIZE] [--spp N] [--resolution WxH] [--seed S]\n"
               "                  [--view NAME] [--view-look NAME] [--denoise|--no-denoise]\n\n"
               "Simulates the shot (continuing from the last complete cache), then renders every\n"
               "frame whose EXR is missing. --force recomputes everything; --png writes PNG\n"
               "previews beside the EXR frames; --output DIR puts caches and frames under DIR.\n"
               "Without a scene, runs the built-in default shot. --half/--float store the\n"
               "beauty RGBA as half or float (default: the scene's render.beauty). A shot that\n"
               "would need more memory than --max-memory (default: 90%% of this machine's) is\n"
               "refused before seeding. --spp, --resolution and --seed replace the scene's\n"
               "render settings (a quick preview: --spp 4 --resolution 320x180). --view and\n"
               "--view-look choose the PNGs' view transform (see powder png --help).\n"
               "--denoise/--no-denoise replace the scene's render.denoise (the EXR's RGBA\n"
               "denoised, its noisy layer unfiltered; needs --spp 2 or more).\n"
               "--replace: as for powder sim (see powder sim --help).\n");
    else if (!strcmp(cmd, "sim"))
        printf("usage: powder sim scene.json [--frames SPEC] [--threads N] [--quiet] [--force]\n"
               "                 [--resume] [--replace] [--output DIR] [--max-memory SIZE]\n\n"
               "Simulates up to the last requested frame, one cache per frame. A restarted run\n"
               "continues from the last complete cache of the same simulation setup (--resume is\n"
               "the default) before the first frame that is missing or of another setup;\n"
               "--force starts from the first frame. When the cache folder holds frames of\n"
               "another simulation setup (a scene with the same \"name\" whose simulation\n"
               "differs), nothing is written and the command exits 2; --replace deletes all of\n"
               "that setup's frames (beyond the requested range too) and simulates this one.\n"
               "Another \"name\" or --output DIR keeps both.\n");
    else if (!strcmp(cmd, "render"))
        printf("usage: powder render scene.json [--look other.json] [--frames SPEC] [--threads N]\n"
               "                    [--quiet] [--resume] [--png] [--half|--float]\n"
               "                    [--output DIR] [--caches DIR] [--spp N] [--resolution WxH]\n"
               "                    [--seed S] [--view NAME] [--view-look NAME]\n"
               "                    [--denoise|--no-denoise]\n\n"
               "Renders existing caches to EXR frames. --look changes camera, lights, medium,\n"
               "surfaces or render settings from another file (a file with only a \"render\"\n"
               "section is enough); its frames go to a subdirectory named after the look file\n"
               "(also under --output DIR), so the shot's own frames are never overwritten.\n"
               "--output DIR puts the frames under DIR; caches are read from --caches DIR, else\n"
               "DIR/cache/ when it exists (`powder sim --output DIR`), else where the scene says.\n"
               "Every frame's cache is checked before anything is written. --resume skips\n"
               "frames whose EXR reads back and was made with the same settings. --half/--float\n"
               "store the beauty RGBA as half or float (depth.Z is always float). --spp,\n"
               "--resolution, --seed and --denoise/--no-denoise replace the render settings\n"
               "(after the look's); denoised, the EXR's RGBA is filtered and its noisy layer\n"
               "is not.\n"
               "--view and --view-look choose the PNGs' view transform (see powder png --help).\n");
    else if (!strcmp(cmd, "turntable"))
        printf("usage: powder turntable scene.json [--frame N] [--steps K] [--radius M]\n"
               "                       [--elevation DEG] [--spp N] [--resolution WxH]\n"
               "                       [--output DIR] [--caches DIR] [--threads N] [--quiet]\n"
               "                       [--view NAME] [--view-look NAME] [--no-denoise]\n\n"
               "Orbits the camera around the snow of one cached frame in K steps (default 36;\n"
               "the last stops one step short of 360 degrees so the loop is seamless), writing\n"
               "EXR frames and a PNG contact sheet. The frame is --frame N, else the last frame\n"
               "that has a cache of the scene's simulation (so a shot simulated part of the\n"
               "way turns around its newest frame). Preview defaults: 320x180, 16 spp,\n"
               "denoised (--no-denoise: not; the EXRs keep the unfiltered image as their noisy\n"
               "layer). --view and --view-look choose the contact sheet's view transform (see\n"
               "powder png --help).\n");
    else if (!strcmp(cmd, "info"))
        printf("usage: powder info FILE [--threads N] [--quiet]\n\n"
               "Prints a cache file's header, its attributes with types and sizes, and the\n"
               "compression ratio. Damaged files are reported with what is wrong. --threads\n"
               "and --quiet are taken as by every command; info has no progress display.\n");
    else if (!strcmp(cmd, "png"))
        printf("usage: powder png FILE.exr... [--exposure EV] [--view NAME] [--view-look NAME]\n"
               "                  [--mask MASK.exr] [--threads N] [--quiet]\n\n"
               "Writes FILE.png next to each EXR: its scene-linear colour scaled by 2^EV, then\n"
               "shown through a view transform of OpenColorIO. EV and the view default to\n"
               "what the render recorded in the EXR (the scene's render.png_exposure, the\n"
               "render's --view and --view-look), so the PNG is the one render --png made;\n"
               "--exposure and --view override them. With $OCIO set, that config's\n"
               "default display and --view (default: the display's default view) and\n"
               "--view-look (looks replacing the view's own). Without $OCIO, Powder's built-in\n"
               "config: display 'sRGB - Display', views 'ACES 1.0 - SDR Video' (default) and\n"
               "'Un-tone-mapped' (each channel clipped, as previews were before views), look\n"
               "'ACES 1.3 Reference Gamut Compression'. A powder built without OpenColorIO has\n"
               "the views 'Powder filmic' (default) and 'Un-tone-mapped', and no looks.\n"
               "--mask MASK.exr also prints what each preview shows of the snow, over the\n"
               "pixels where MASK's alpha exceeds 0.5 (the frame rendered without its\n"
               "surfaces): the mean HSV saturation of the bytes, how many have a channel at\n"
               "255 beside one below 204 (one channel clipped), and the mean colour.\n");
    else
        fputs(usage_text, stdout);
}

/* The options and positionals each command takes; any other is refused rather than
 * ignored. */
typedef struct {
    const char *command;
    const char *options; /* for pw_cli_next: " --frames= --quiet " */
    int max_positional;  /* -1: any number */
    const char *takes;   /* its positionals, for the message on one too many */
} command_spec;

static const command_spec command_table[] = {
    {"run", " --frames= --threads= --quiet --force --replace --png --half --float --output="
            " --max-memory= --spp= --resolution= --seed= --view= --view-look= --denoise"
            " --no-denoise ", 1,
     "at most one scene file"},
    {"sim", " --frames= --threads= --quiet --force --replace --resume --output= --max-memory= ",
     1,
     "one scene file"},
    {"render", " --look= --frames= --threads= --quiet --resume --png --half --float --output="
               " --spp= --resolution= --seed= --caches= --view= --view-look= --denoise"
               " --no-denoise ", 1,
     "one scene file"},
    {"turntable", " --frame= --steps= --radius= --elevation= --spp= --resolution= --output="
                  " --threads= --quiet --half --float --caches= --view= --view-look= --denoise"
                  " --no-denoise ", 1,
     "one scene file"},
    {"info", " --threads= --quiet ", 1, "one cache file"},
    {"png", " --exposure= --view= --view-look= --mask= --threads= --quiet ", -1, "EXR files"},
};

static const command_spec *find_command(const char *command)
{
    for (size_t k = 0; k < sizeof command_table / sizeof *command_table; k++)
        if (!strcmp(command_table[k].command, command)) return &command_table[k];
    return NULL;
}

/* Returns 1 on success; prints the problem and returns 0 otherwise. */
static int parse_options(int argc, char **argv, options *o)
{
    const char *cmd = o->command;
    const command_spec *spec = find_command(cmd);
    for (int a = 2; a < argc; a++) {
        const char *arg = argv[a];
        pw_cli_token tok;
        if (!pw_cli_next(cmd, spec->options, argc, argv, &a, &tok)) return 0;
        if (!tok.name) {
            if (o->n_positional == spec->max_positional) {
                pw_cli_extra_argument(cmd, arg, spec->takes);
                return 0;
            }
            o->positional[o->n_positional++] = arg;
            continue;
        }
        const char *name = tok.name, *value = tok.value;
        if (!strcmp(name, "--help")) o->help = 1;
        else if (!strcmp(name, "--quiet")) o->quiet = 1;
        else if (!strcmp(name, "--force")) o->force = 1;
        else if (!strcmp(name, "--replace")) o->replace = 1;
        else if (!strcmp(name, "--resume")) o->resume = 1;
        else if (!strcmp(name, "--png")) o->png = 1;
        else if (!strcmp(name, "--half") || !strcmp(name, "--float")) {
            if (o->beauty && o->beauty != name[2]) {
                pw_cli_usage_error(cmd, "--half and --float exclude each other: give one");
                return 0;
            }
            o->beauty = name[2];
        } else if (!strcmp(name, "--denoise") || !strcmp(name, "--no-denoise")) {
            int want = name[2] == 'd' ? 'y' : 'n';
            if (o->denoise && o->denoise != want) {
                pw_cli_usage_error(cmd, "--denoise and --no-denoise exclude each other: give one");
                return 0;
            }
            o->denoise = want;
        } else if (!strcmp(name, "--frames")) o->frames = value;
        else if (!strcmp(name, "--look")) o->look = value;
        else if (!strcmp(name, "--output")) o->output = value;
        else if (!strcmp(name, "--caches")) o->caches = value;
        else if (!strcmp(name, "--view")) o->view_name = value;
        else if (!strcmp(name, "--view-look")) o->view_look = value;
        else if (!strcmp(name, "--threads")) {
            if (!pw_cli_int(cmd, name, value, 1, 1024, &o->threads)) return 0;
        } else if (!strcmp(name, "--frame")) {
            if (!pw_cli_int(cmd, name, value, -1000000, 1000000, &o->frame)) return 0;
            o->frame_set = 1;
        } else if (!strcmp(name, "--steps")) {
            if (!pw_cli_int(cmd, name, value, 1, 3600, &o->steps)) return 0;
        } else if (!strcmp(name, "--spp")) {
            if (!pw_cli_int(cmd, name, value, 1, 1 << 20, &o->spp)) return 0;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            unsigned long long x = strtoull(value, &end, 10);
            if (!*value || *end || value[0] == '-') {
                pw_cli_usage_error(cmd, "--seed '%s': expected a whole number >= 0", value);
                return 0;
            }
            o->seed = x;
            o->seed_set = 1;
        } else if (!strcmp(name, "--radius")) {
            if (!pw_cli_double(cmd, name, value, 1e-6, 1e6, &o->radius)) return 0;
        } else if (!strcmp(name, "--elevation")) {
            if (!pw_cli_double(cmd, name, value, -89, 89, &o->elevation_deg)) return 0;
        } else if (!strcmp(name, "--mask")) {
            o->mask = value;
        } else if (!strcmp(name, "--exposure")) {
            if (!pw_cli_double(cmd, name, value, -30, 30, &o->exposure)) return 0;
            o->exposure_set = 1;
        } else if (!strcmp(name, "--max-memory")) {
            char *end;
            double x = strtod(value, &end);
            double unit = 1;
            if (*end == 'K' || *end == 'k') unit = 1024.0, end++;
            else if (*end == 'M' || *end == 'm') unit = 1024.0 * 1024, end++;
            else if (*end == 'G' || *end == 'g') unit = 1024.0 * 1024 * 1024, end++;
            else if (*end == 'T' || *end == 't') unit = 1024.0 * 1024 * 1024 * 1024, end++;
            if (*end == 'B' || *end == 'b') end++;
            if (end == value || *end || !(x > 0)) {
                pw_cli_usage_error(cmd, "--max-memory '%s': expected a size like 512M or 16G",
                                   value);
                return 0;
            }
            o->max_memory = x * unit;
        } else if (!strcmp(name, "--resolution")) {
            int w, h;
            char extra;
            if (sscanf(value, "%dx%d%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 16384 ||
                h > 16384) {
                pw_cli_usage_error(cmd, "--resolution '%s': expected WxH, each in [1, 16384], "
                                        "e.g. 320x180", value);
                return 0;
            }
            o->width_px = w;
            o->height_px = h;
        } else {
            pw_cli_unknown_option(cmd, name);
            return 0;
        }
    }
    pw_cli_threads(o->threads); /* every OpenMP loop of the command (cli.h) */
    return 1;
}

/* ---- helpers ------------------------------------------------------------------ */

static int fail(const pw_error *err) { return pw_cli_fail(err); }

/* Loads the scene named on the command line (or the default shot when allowed) and
 * applies --output: where a simulation writes (run, sim), or where the results of a
 * command that reads caches go and, with --caches, where it reads them (reads). */
static int load_scene(const options *o, int allow_default, int reads, pw_scene *sc)
{
    pw_error err = {0};
    if (o->n_positional == 0) {
        if (!allow_default) {
            pw_cli_missing_argument(o->command, "a scene file");
            return EXIT_USAGE;
        }
        pw_scene_default(sc);
    } else if (pw_scene_load(o->positional[0], sc, &err) != PW_OK) {
        return fail(&err);
    }
    pw_status st = reads ? pw_shot_apply_read_paths(sc, o->output, o->caches, &err)
                   : o->output ? pw_shot_apply_output_and_look(sc, o->output, NULL, &err)
                               : PW_OK;
    if (st != PW_OK) return fail(&err);
    if (o->beauty) sc->exr_float = o->beauty == 'f';
    return 0;
}

/* Peak memory of the solver per particle [B], measured (954 B: state, stencil places,
 * float 9x9 stress linearisations, packed SVDs, sparse grid and solver vectors; 273 MB
 * for the 3e5-particle benchmark, `bench_sim_snowball` prints it array by array), with
 * headroom for the seeding and the cache writes. */
enum { SIM_BYTES_PER_PARTICLE = 1536 };
#define SIM_BYTES_BASE (64.0 * 1024 * 1024)

/* Refuses, before seeding, a simulation that would not fit in memory. */
static int check_memory(const options *o, const pw_scene *sc)
{
    double limit = o->max_memory;
    if (limit <= 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        limit = pages > 0 && page > 0 ? 0.9 * (double)pages * (double)page : 0;
    }
    double need = SIM_BYTES_BASE + (double)sc->particle_estimate * SIM_BYTES_PER_PARTICLE;
    if (limit > 0 && need > limit) {
        fprintf(stderr,
                "powder: %s: about %zu particles need about %.0f MiB, more than the %.0f MiB "
                "allowed (--max-memory raises the limit)\n",
                sc->path, sc->particle_estimate, need / (1 << 20), limit / (1 << 20));
        return EXIT_USAGE;
    }
    return 0;
}

/* --spp, --resolution, --seed, --denoise: the command line has the last word on render
 * settings. */
static void apply_render_overrides(const options *o, pw_scene *sc)
{
    if (o->spp) sc->render.spp = o->spp;
    if (o->denoise) sc->render.denoise = o->denoise == 'y';
    if (o->width_px) {
        sc->camera.width_px = o->width_px;
        sc->camera.height_px = o->height_px;
    }
    if (o->seed_set) sc->render.seed = o->seed;
}

static int frame_list(const options *o, const pw_scene *sc, pw_frame_list *fl)
{
    pw_error err = {0};
    pw_status rc = o->frames ? pw_frames_parse(o->frames, sc->frame_start, sc->frame_end, fl, &err)
                             : pw_frames_range(sc->frame_start, sc->frame_end, fl, &err);
    return rc == PW_OK ? 0 : fail(&err);
}

static void shot_options(const options *o, pw_shot_options *so, pw_progress *progress)
{
    memset(so, 0, sizeof *so);
    so->threads = o->threads;
    so->force = o->force;
    so->replace = o->replace;
    so->resume = o->resume;
    so->png = o->png;
    so->view = o->view;
    so->view_name = o->view_name;
    so->view_look = o->view_look;
    so->log = o->quiet ? NULL : stdout;
    so->progress = progress;
}

/* ---- commands ----------------------------------------------------------------- */

typedef int (*scene_command)(const options *o, pw_scene *sc, int arg);

/* A scene is a few megabytes: it lives on the heap, never on the stack. */
static int with_scene(const options *o, scene_command command, int arg)
{
    pw_scene *sc = calloc(1, sizeof *sc);
    if (!sc) {
        fprintf(stderr, "powder: out of memory\n");
        return EXIT_WORK;
    }
    int rc = command(o, sc, arg);
    free(sc);
    return rc;
}

/* The default shot has no scene file: its JSON goes beside its frames, so the commands
 * that take a scene (render --look, turntable, export, stats) can follow a run. */
static int write_default_scene(const options *o, const pw_scene *sc)
{
    char dir[4096], path[4300];
    snprintf(dir, sizeof dir, "%s", sc->frame_pattern);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    snprintf(path, sizeof path, "%s/%s.json", dir, sc->name);
    pw_error err = {0};
    int kept = 0;
    if (pw_scene_write_default(sc, path, &kept, &err) != PW_OK) return fail(&err);
    if (kept) /* shown even with --quiet: the run does not follow that file */
        fprintf(stderr,
                "powder: %s differs from the built-in default shot and was kept; this run is "
                "the built-in shot (`powder run %s` runs the edited one)\n", path, path);
    else if (!o->quiet)
        printf("powder: scene: %s (powder render %s re-renders it)\n", path, path);
    return 0;
}

/* Refuses a range with missing or damaged caches before any frame is written, naming
 * each bad one; frames already done (resume) need none. */
static int check_caches(const pw_scene *sc, const pw_frame_list *fl, int resume)
{
    unsigned char *skip = resume ? calloc((size_t)fl->count, 1) : NULL;
    for (int k = 0; skip && k < fl->count; k++) {
        char exr[4096];
        skip[k] = pw_shot_frame_path(sc, fl->frames[k], exr, sizeof exr, NULL) == PW_OK &&
                  pw_shot_exr_is_current(sc, exr);
    }
    int rc = pw_cli_check_caches(sc, fl, skip);
    free(skip);
    return rc;
}

static int cmd_sim_or_run(const options *o, pw_scene *sc, int render_too)
{
    int rc = load_scene(o, render_too, 0, sc);
    if (rc) return rc;
    if (o->n_positional == 0 && (rc = write_default_scene(o, sc))) return rc;
    apply_render_overrides(o, sc);
    pw_frame_list fl;
    if ((rc = frame_list(o, sc, &fl))) return rc;
    int last = fl.frames[fl.count - 1];
    if (!o->quiet)
        printf("powder: shot '%s', frames %d-%d at %g fps, about %zu particles\n", sc->name,
               sc->frame_start, last, sc->fps, sc->particle_estimate);

    if ((rc = check_memory(o, sc))) {
        pw_frame_list_free(&fl);
        return rc;
    }
    pw_progress progress;
    double total = (double)(last - sc->frame_start + 1) + (render_too ? fl.count : 0);
    pw_progress_init(&progress, stderr, o->quiet, total, "frames");
    /* a simulated frame and a rendered one cost very different times: each stage's
     * units are weighed by their own measured cost */
    pw_progress_add_stage(&progress, (double)(last - sc->frame_start + 1), 0);
    if (render_too) pw_progress_add_stage(&progress, fl.count, 0);
    pw_shot_options so;
    shot_options(o, &so, &progress);
    if (render_too) so.resume = !o->force;

    pw_error err = {0};
    int n_sim = 0;
    pw_status st = pw_shot_simulate(sc, last, &so, &n_sim, &err);
    if (st == PW_OK && render_too) {
        so.progress_base = (double)(last - sc->frame_start + 1);
        st = pw_shot_render(sc, &fl, &so, &err);
    }
    pw_progress_finish(&progress);
    pw_frame_list_free(&fl);
    if (st != PW_OK) return fail(&err);
    if (!o->quiet) {
        char path[4096];
        pw_shot_cache_path(sc, sc->frame_start, path, sizeof path, NULL);
        printf("powder: caches: %s (pattern %s)\n", path, sc->cache_pattern);
        if (render_too) printf("powder: frames: %s\n", sc->frame_pattern);
    }
    return 0;
}

static int cmd_render(const options *o, pw_scene *sc, int unused)
{
    (void)unused;
    int rc = load_scene(o, 0, 1, sc);
    if (rc) return rc;
    pw_error err = {0};
    /* --output was applied with the scene; the look decides where its frames go */
    if (o->look && pw_shot_apply_output_and_look(sc, NULL, o->look, &err) != PW_OK)
        return fail(&err);
    apply_render_overrides(o, sc);
    pw_frame_list fl;
    if ((rc = frame_list(o, sc, &fl))) return rc;
    if ((rc = check_caches(sc, &fl, o->resume && !o->force))) {
        pw_frame_list_free(&fl);
        return rc;
    }
    pw_progress progress;
    pw_progress_init(&progress, stderr, o->quiet, fl.count, "frames");
    pw_shot_options so;
    shot_options(o, &so, &progress);
    pw_status st = pw_shot_render(sc, &fl, &so, &err);
    pw_progress_finish(&progress);
    pw_frame_list_free(&fl);
    if (st != PW_OK) return fail(&err);
    if (!o->quiet) printf("powder: frames: %s\n", sc->frame_pattern);
    return 0;
}

static int cmd_turntable(const options *o, pw_scene *sc, int unused)
{
    (void)unused;
    int rc = load_scene(o, 0, 1, sc);
    if (rc) return rc;
    pw_turntable_options t = {0};
    t.frame = o->frame;
    if (!o->frame_set) { /* the last frame simulated so far, not the scene's last */
        pw_error err = {0};
        if (pw_shot_last_cached_frame(sc, &t.frame, &err) != PW_OK) return fail(&err);
        if (!o->quiet)
            printf("powder: turntable: frame %d, the last frame with a cache (of %d-%d; --frame "
                   "N chooses another)\n", t.frame, sc->frame_start, sc->frame_end);
    }
    t.steps = o->steps ? o->steps : 36;
    t.radius = o->radius;
    t.elevation_deg = o->elevation_deg ? o->elevation_deg : 20;
    t.width_px = o->width_px ? o->width_px : 320;
    t.height_px = o->height_px ? o->height_px : 180;
    t.spp = o->spp ? o->spp : 16;
    /* a turntable is a preview: denoised unless asked otherwise, or one sample gives no
     * variance to denoise by */
    sc->render.denoise = o->denoise ? o->denoise == 'y' : t.spp >= 2;
    if (t.frame < sc->frame_start || t.frame > sc->frame_end) {
        pw_cli_usage_error("turntable", "--frame %d outside the shot's %d-%d", t.frame,
                           sc->frame_start, sc->frame_end);
        return EXIT_USAGE;
    }
    pw_progress progress;
    pw_progress_init(&progress, stderr, o->quiet, t.steps, "views");
    pw_shot_options so;
    shot_options(o, &so, &progress);
    pw_error err = {0};
    pw_status st = pw_shot_turntable(sc, &t, &so, &err);
    pw_progress_finish(&progress);
    return st == PW_OK ? 0 : fail(&err);
}

static const char *type_name(pw_scalar_type t)
{
    return t == PW_F32 ? "float32" : t == PW_F64 ? "float64" : t == PW_U32 ? "uint32" : "?";
}

static void print_cache_info(const char *path, const pw_cache_info *info)
{
    printf("%s\n", path);
    printf("  format      %u.%u\n", info->version_major, info->version_minor);
    printf("  frame       %lld\n", (long long)info->frame);
    printf("  time        %.6g s (step %llu)\n", info->time, (unsigned long long)info->step);
    printf("  particles   %llu\n", (unsigned long long)info->count);
    printf("  grid h      %.6g m\n", info->h);
    printf("  sim hash    %016llx\n", (unsigned long long)info->sim_hash);
    for (int k = 0; k < info->n_globals; k++)
        printf("  global      %-24s %.17g\n", info->globals[k].name, info->globals[k].value);
    printf("  %-12s %-8s %5s %14s %14s %7s\n", "attribute", "type", "comp", "raw bytes",
           "stored bytes", "ratio");
    uint64_t raw = 0, stored = 0;
    for (int k = 0; k < info->n_attrs; k++) {
        const pw_cache_attr_info *a = &info->attrs[k];
        raw += a->raw_bytes;
        stored += a->compressed_bytes;
        printf("  %-12s %-8s %5u %14llu %14llu %7.2f\n", a->name, type_name(a->type),
               a->components, (unsigned long long)a->raw_bytes,
               (unsigned long long)a->compressed_bytes,
               a->compressed_bytes ? (double)a->raw_bytes / (double)a->compressed_bytes : 0.0);
    }
    printf("  total: %llu raw bytes in a %llu-byte file, compression ratio %.2f\n",
           (unsigned long long)raw, (unsigned long long)info->file_size,
           info->file_size ? (double)raw / (double)info->file_size : 0.0);
}

static int cmd_info(const options *o)
{
    if (o->n_positional != 1) {
        pw_cli_missing_argument("info", "a cache file");
        return EXIT_USAGE;
    }
    pw_error err = {0};
    pw_cache_info info;
    if (pw_cache_stat(o->positional[0], &info, &err) != PW_OK) return fail(&err);
    print_cache_info(o->positional[0], &info);
    return 0;
}

static int cmd_png(const options *o)
{
    if (o->n_positional < 1) {
        pw_cli_missing_argument("png", "an EXR file");
        return EXIT_USAGE;
    }
    char said[512] = ""; /* the view last printed */
    for (int k = 0; k < o->n_positional; k++) {
        pw_error err = {0};
        char png[4096];
        /* the exposure and view the render recorded, unless given here */
        pw_shot_preview pv;
        if (pw_shot_preview_of_exr(o->positional[k], o->exposure_set ? &o->exposure : NULL,
                                   o->view_name || o->view_look ? o->view : NULL, o->view, &pv,
                                   &err) != PW_OK)
            return fail(&err);
        pw_status rc = pw_shot_png_from_exr(o->positional[k], pv.view, pv.exposure, png,
                                            sizeof png, &err);
        const char *desc = pw_view_describe(pv.view);
        if (rc == PW_OK && !o->quiet && strcmp(said, desc)) {
            printf("powder: %s\n", desc);
            snprintf(said, sizeof said, "%s", desc);
        }
        if (rc == PW_OK && !o->quiet)
            printf("powder: %s (exposure %+g%s)\n", png, pv.exposure,
                   pv.exposure_recorded ? ", recorded by the render" : "");
        pw_preview_colour pc;
        if (rc == PW_OK && o->mask)
            rc = pw_preview_colour_measure(o->positional[k], o->mask, pv.view, pv.exposure, &pc,
                                           &err);
        pw_view_destroy(pv.own);
        if (rc != PW_OK) return fail(&err);
        if (o->mask)
            printf("powder: %s: %ld pixels under the mask: mean saturation %.3f, %ld with one "
                   "channel clipped, mean colour (%.1f, %.1f, %.1f)\n", png, pc.pixels,
                   pc.mean_saturation, pc.one_channel_clipped, pc.mean_rgb[0], pc.mean_rgb[1],
                   pc.mean_rgb[2]);
    }
    return 0;
}

/* The PNGs' view transform, made once before any work so that a view or look the
 * config lacks is refused at once: for png and turntable (contact sheets), and for run
 * and render with --png; --view or --view-look without --png is refused. */
static int open_view(options *o)
{
    int writes_png = !strcmp(o->command, "png") || !strcmp(o->command, "turntable") ||
                     ((!strcmp(o->command, "run") || !strcmp(o->command, "render")) && o->png);
    if (!writes_png) {
        if (o->view_name || o->view_look) {
            pw_cli_usage_error(o->command, "%s chooses the PNG previews' view: give --png too",
                               o->view_name ? "--view" : "--view-look");
            return EXIT_USAGE;
        }
        return 0;
    }
    pw_view_params p;
    pw_view_params_default(&p);
    p.view = o->view_name;
    p.look = o->view_look;
    pw_error err = {0};
    if (!(o->view = pw_view_create(&p, &err))) return fail(&err);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("powder %s\n", POWDER_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "submit")) return pw_main_submit(argc, argv);
    if (!strcmp(argv[1], "export")) return pw_main_export(argc, argv);
    if (!strcmp(argv[1], "stats")) return pw_main_stats(argc, argv);
    options o = {0};
    o.command = argv[1];
    if (!find_command(o.command)) {
        fprintf(stderr, "powder: unknown command '%s'\n\n%s", o.command, usage_text);
        return EXIT_USAGE;
    }
    o.positional = calloc((size_t)argc, sizeof *o.positional);
    if (!o.positional) {
        fprintf(stderr, "powder: out of memory\n");
        return EXIT_WORK;
    }
    int rc;
    if (!parse_options(argc, argv, &o)) rc = EXIT_USAGE;
    else if (o.help) {
        command_help(o.command);
        rc = 0;
    } else if ((rc = open_view(&o))) {
        /* refused: rc says how */
    } else if (!strcmp(o.command, "run") || !strcmp(o.command, "sim") ||
               !strcmp(o.command, "render")) {
        /* The long commands stop at a frame boundary on SIGTERM/SIGINT (exit 3); the
         * others end at once, as by default. */
        pw_interrupt_install();
        rc = with_scene(&o, !strcmp(o.command, "render") ? cmd_render : cmd_sim_or_run,
                        !strcmp(o.command, "run"));
    }
    else if (!strcmp(o.command, "turntable")) rc = with_scene(&o, cmd_turntable, 0);
    else if (!strcmp(o.command, "info")) rc = cmd_info(&o);
    else rc = cmd_png(&o);
    pw_view_destroy(o.view);
    free(o.positional);
    return rc;
}
