/* main_export.c — `powder export vdb|ply`: the command (options, messages, exit status,
 * as in main.c) and the per-frame density export it drives. See export.h.
 *
 * Paths: caches are read where `powder sim` wrote them (--caches DIR, else DIR/cache/
 * with --output DIR when it exists, else the scene's cache pattern); exports go beside the EXR frames, named like them with
 * .vdb or .ply instead of .exr (DIR/<name>.####.vdb with --output DIR). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "export.h"
#include "frames.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "pw_render.h"
#include "scene.h"
#include "shot.h"
#ifdef POWDER_HAVE_VDB
#include "export_vdb.h"
#endif

enum { EXIT_WORK = PW_EXIT_WORK, EXIT_USAGE = PW_EXIT_USAGE };

#ifndef POWDER_HAVE_VDB
static const char *const no_vdb_text =
    "this build has no OpenVDB support (cmake -DPOWDER_VDB=ON with libopenvdb-dev)";
#endif

/* ---- density grid -> VDB ----------------------------------------------------- */

#ifdef POWDER_HAVE_VDB

typedef struct {
    size_t n, cap;
    int32_t *ijk;
    float *rho;   /* [kg/m^3] */
    float *dur;   /* [-] with dm: the durability at the same voxels */
    int failed;   /* allocation failed or a value overflowed float32 */
    const pw_density *d, *dm; /* the density, and the same raster of m durability (or NULL) */
} voxel_list;

/* The particles' mass-weighted mean durability at node ijk of d: dm is the same raster
 * of the masses m_p durability_p, which weighs each particle's mass at a node exactly as
 * d does (the kernel, and in the bounded raster the level-set share and the detail, all
 * from positions and ids), so dm / d is sum m d w / sum m w once each raster's own final
 * mass correction is divided out (the bounded raster's mass_scale, 1 for the B-spline). */
static float durability_at(const voxel_list *L, const int ijk[3], double rho)
{
    double scale = pw_density_mass_scale(L->d), scale_m = pw_density_mass_scale(L->dm);
    if (!(scale_m > 0)) return 0; /* every durability 0 */
    double dur = pw_density_node(L->dm, ijk[0], ijk[1], ijk[2]) / scale_m / (rho / scale);
    return (float)(dur < 0 ? 0 : dur > 1 ? 1 : dur); /* (rounding past the ends) */
}

/* pw_density_node_fn: keeps the nonzero nodes; VDB's background (0) stands for the rest. */
static void collect_voxel(void *user, const int ijk[3], vec3 x, double rho)
{
    (void)x;
    voxel_list *L = user;
    if (L->failed || !(rho > 0)) return;
    if (!(rho <= FLT_MAX)) {
        L->failed = 2;
        return;
    }
    float f = (float)rho;
    if (f == 0) return; /* below float32's smallest subnormal: background */
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 4096;
        int32_t *a = realloc(L->ijk, 3 * cap * sizeof *a);
        if (a) L->ijk = a;
        float *b = a ? realloc(L->rho, cap * sizeof *b) : NULL;
        if (b) L->rho = b;
        float *c = b && L->dm ? realloc(L->dur, cap * sizeof *c) : NULL;
        if (c) L->dur = c;
        if (!a || !b || (L->dm && !c)) {
            L->failed = 1;
            return;
        }
        L->cap = cap;
    }
    for (int k = 0; k < 3; k++) L->ijk[3 * L->n + k] = ijk[k];
    if (L->dm) L->dur[L->n] = durability_at(L, ijk, rho);
    L->rho[L->n++] = f;
}
#endif

pw_status pw_export_vdb_density(const char *vdb_path, const pw_density *d,
                                const pw_export_meta *meta, size_t *n_voxels, pw_error *err)
{
    return pw_export_vdb_durability(vdb_path, d, NULL, meta, n_voxels, err);
}

pw_status pw_export_vdb_durability(const char *vdb_path, const pw_density *d,
                                   const pw_density *dm, const pw_export_meta *meta,
                                   size_t *n_voxels, pw_error *err)
{
#ifndef POWDER_HAVE_VDB
    (void)d, (void)dm, (void)meta, (void)n_voxels;
    return pw_fail(err, PW_EUNSUPPORTED, "%s: %s", vdb_path, no_vdb_text);
#else
    voxel_list L = {0};
    L.d = d;
    L.dm = dm;
    pw_density_visit(d, collect_voxel, &L);
    pw_status rc = PW_OK;
    if (L.failed == 1)
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu voxels)", vdb_path, L.n);
    else if (L.failed == 2)
        rc = pw_fail(err, PW_ENUMERIC, "%s: a density exceeds the float32 range", vdb_path);
    if (rc == PW_OK) rc = pw_mkdir_parent(vdb_path, err);
    const pw_vdb_out_grid grids[2] = {{"density", L.rho, "kg/m^3", 1},
                                      {"durability", L.dur, "-", 0}};
    if (rc == PW_OK)
        rc = pw_export_vdb_grids(vdb_path, pw_density_spacing(d), L.n, L.ijk, grids,
                                 dm ? 2 : 1, meta ? meta->scene : NULL,
                                 meta ? meta->frame : 0, meta ? meta->time : 0.0, err);
    if (rc == PW_OK && n_voxels) *n_voxels = L.n;
    free(L.ijk);
    free(L.rho);
    free(L.dur);
    return rc;
#endif
}

/* ---- command line ----------------------------------------------------------------- */

typedef struct {
    const char *format;   /* "vdb" or "ply" */
    const char *scene, *frames, *output, *caches;
    int threads, quiet, help;
} export_options;

static const char *const help_text =
    "usage: powder export vdb|ply scene.json [--frames SPEC] [--output DIR] [--caches DIR]\n"
    "                                         [--threads N] [--quiet]\n"
    "\n"
    "Writes files that Houdini, Blender and Nuke open directly, one per cached frame:\n"
    "  vdb  the stage-2 density (as rendered: render.raster, render.subdiv) as an OpenVDB\n"
    "       FloatGrid named 'density' [kg/m^3]; voxel (i,j,k) is centred at (i,j,k)*h\n"
    "  ply  the particles as binary little-endian PLY: x y z [m], vx vy vz [m/s],\n"
    "       density [kg/m^3] = m / (V0 det(Fe) Jp) (under density hardening, the density\n"
    "       measured on the grid: rho_rest / |det(Fe)|), jp = det(Fp)\n"
    "Snow of a material with a durability (a plasticity with friction) adds\n"
    "its durability [-] (1 intact, 0 broken): a PLY property 'durability', and a VDB\n"
    "grid 'durability' on the density's voxels, the mass-weighted mean there.\n"
    "World space of the scene, Y up, metres. Caches come from `powder sim`; the files go\n"
    "beside the EXR frames (<name>.####.vdb/.ply), under DIR with --output DIR. Caches\n"
    "are read from --caches DIR, else DIR/cache/ when it exists (as `powder sim --output\n"
    "DIR` wrote them), else where the scene says; every frame's cache is checked before\n"
    "any file is written. --threads N: the threads that rasterize the density (default:\n"
    "all cores); --quiet: no line per file.\n";

static int parse(int argc, char **argv, export_options *o)
{
    memset(o, 0, sizeof *o);
    int n_pos = 0;
    static const char *const options = " --frames= --output= --caches= --threads= --quiet ";
    for (int a = 2; a < argc; a++) {
        const char *arg = argv[a];
        pw_cli_token tok;
        if (!pw_cli_next("export", options, argc, argv, &a, &tok)) return 0;
        if (!tok.name) {
            if (n_pos == 0) o->format = arg;
            else if (n_pos == 1) o->scene = arg;
            else {
                pw_cli_extra_argument("export", arg, "a format and one scene file");
                return 0;
            }
            n_pos++;
            continue;
        }
        const char *name = tok.name, *value = tok.value;
        if (!strcmp(name, "--help")) o->help = 1;
        else if (!strcmp(name, "--quiet")) o->quiet = 1;
        else if (!strcmp(name, "--frames")) o->frames = value;
        else if (!strcmp(name, "--output")) o->output = value;
        else if (!strcmp(name, "--caches")) o->caches = value;
        else if (!strcmp(name, "--threads")) {
            if (!pw_cli_int("export", name, value, 1, 1024, &o->threads)) return 0;
        } else {
            pw_cli_unknown_option("export", name);
            return 0;
        }
    }
    pw_cli_threads(o->threads); /* the rasterizer's OpenMP loops */
    return 1;
}

static int fail(const pw_error *err) { return pw_cli_fail(err); }

/* The export pattern: the frame pattern with its .exr replaced by .ext. */
static pw_status export_pattern(const pw_scene *sc, const char *ext, char *out, size_t n,
                                pw_error *err)
{
    const char *fp = sc->frame_pattern;
    size_t len = strlen(fp);
    int strip = len > 4 && !strcmp(fp + len - 4, ".exr") ? 4 : 0;
    return pw_path_format(out, n, err, "%.*s.%s", (int)(len - (size_t)strip), fp, ext);
}

/* Stage 2 of one frame, written as VDB. */
static pw_status export_vdb_frame(const pw_scene *sc, const char *cache, const char *out,
                                  const pw_export_meta *meta, size_t *n_voxels, pw_error *err)
{
    /* as the shot's stage 2 (shot.c load_density): the same inputs, the same grid */
    const char *names[4] = {"x", "m", "id"};
    int detail = sc->render.raster == PW_RASTER_BOUNDED && sc->render.detail > 0;
    int n_names = detail ? 3 : 2;
    /* snow of the optional laws: its durability as a second grid */
    pw_cache_info info;
    pw_status rc = pw_cache_table(cache, &info, err);
    if (rc != PW_OK) return rc;
    int durable = pw_cache_info_attr(&info, "durability") != NULL;
    if (durable) names[n_names++] = "durability";
    pw_cache_frame cf;
    rc = pw_cache_read_f64(cache, names, n_names, &cf, err);
    if (rc != PW_OK) return rc;
    const pw_cache_attr *x = pw_cache_find(&cf, "x"), *m = pw_cache_find(&cf, "m");
    const pw_cache_attr *id = detail ? pw_cache_find(&cf, "id") : NULL;
    const pw_cache_attr *dur = durable ? pw_cache_find(&cf, "durability") : NULL;
    if (x->type != PW_F64 || x->components != 3 || m->type != PW_F64 || m->components != 1 ||
        (id && (id->type != PW_U32 || id->components != 1)) ||
        (dur && (dur->type != PW_F64 || dur->components != 1))) {
        pw_cache_frame_free(&cf);
        return pw_fail(err, PW_EFORMAT, "%s: attributes x/m/id/durability are not float64 "
                       "vec3, float64, uint32, float64", cache);
    }
    size_t n = (size_t)cf.count;
    int subdiv = sc->render.subdiv > 0 ? sc->render.subdiv : 1;
    pw_density *d = pw_density_build((pw_raster_kind)sc->render.raster, x->data, m->data,
                                     id ? id->data : NULL, n, cf.h, subdiv, sc->render.detail,
                                     err);
    pw_density *dm = NULL;
    if (d && dur) { /* the masses m durability, rasterized alike (durability_at) */
        double *md = malloc((n ? n : 1) * sizeof *md);
        const double *mv = m->data, *dv = dur->data;
        for (size_t p = 0; md && p < n; p++) md[p] = mv[p] * dv[p];
        if (!md) pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu particles)", cache, n);
        else dm = pw_density_build((pw_raster_kind)sc->render.raster, x->data, md,
                                   id ? id->data : NULL, n, cf.h, subdiv, sc->render.detail,
                                   err);
        free(md);
    }
    pw_cache_frame_free(&cf);
    if (!d || (dur && !dm)) {
        pw_density_destroy(d);
        return err ? err->code : PW_ENOMEM;
    }
    rc = pw_export_vdb_durability(out, d, dm, meta, n_voxels, err);
    pw_density_destroy(dm);
    pw_density_destroy(d);
    return rc;
}

static int run_export(const export_options *o, pw_scene *sc)
{
    pw_error err = {0};
    if (pw_scene_load(o->scene, sc, &err) != PW_OK ||
        pw_shot_apply_read_paths(sc, o->output, o->caches, &err) != PW_OK)
        return fail(&err);
    int vdb = !strcmp(o->format, "vdb");
    char pattern[4096];
    if (export_pattern(sc, vdb ? "vdb" : "ply", pattern, sizeof pattern, &err) != PW_OK)
        return fail(&err);
    pw_frame_list fl;
    pw_status st = o->frames ? pw_frames_parse(o->frames, sc->frame_start, sc->frame_end, &fl, &err)
                             : pw_frames_range(sc->frame_start, sc->frame_end, &fl, &err);
    if (st != PW_OK) return fail(&err);
    int rc = pw_cli_check_caches(sc, &fl, NULL); /* the whole range, before any file */
    if (rc) {
        pw_frame_list_free(&fl);
        return rc;
    }
    for (int k = 0; k < fl.count && st == PW_OK; k++) {
        int f = fl.frames[k];
        char cache[4096], out[4096];
        pw_cache_info info;
        size_t n = 0;
        if ((st = pw_frame_path(sc->cache_pattern, f, cache, sizeof cache, &err)) != PW_OK ||
            (st = pw_frame_path(pattern, f, out, sizeof out, &err)) != PW_OK ||
            (st = pw_shot_cache_info(sc, f, &info, &err)) != PW_OK)
            break;
        pw_export_meta meta = {sc->name, f, info.time};
        st = vdb ? export_vdb_frame(sc, cache, out, &meta, &n, &err)
                 : pw_export_ply_frame(cache, out, &meta, &n, &err);
        struct stat sb;
        if (st == PW_OK && !o->quiet)
            printf("powder: %s (%zu %s, %lld bytes)\n", out, n, vdb ? "voxels" : "particles",
                   stat(out, &sb) == 0 ? (long long)sb.st_size : -1LL);
    }
    pw_frame_list_free(&fl);
    return st == PW_OK ? 0 : fail(&err);
}

int pw_main_export(int argc, char **argv)
{
    export_options o;
    if (!parse(argc, argv, &o)) return EXIT_USAGE;
    if (o.help) {
        fputs(help_text, stdout);
        return 0;
    }
    if (!o.format || (strcmp(o.format, "vdb") && strcmp(o.format, "ply"))) {
        pw_cli_usage_error("export", "expected a format, vdb or ply (%s); see powder export --help",
                           o.format ? o.format : "none given");
        return EXIT_USAGE;
    }
#ifndef POWDER_HAVE_VDB
    if (!strcmp(o.format, "vdb")) {
        pw_cli_usage_error("export", "%s", no_vdb_text);
        return EXIT_USAGE;
    }
#endif
    if (!o.scene) {
        pw_cli_missing_argument("export", "a scene file");
        return EXIT_USAGE;
    }
    /* A scene is a few megabytes: it lives on the heap, never on the stack. */
    pw_scene *sc = calloc(1, sizeof *sc);
    if (!sc) {
        fprintf(stderr, "powder: out of memory\n");
        return EXIT_WORK;
    }
    int rc = run_export(&o, sc);
    free(sc);
    return rc;
}
