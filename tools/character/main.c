/* main.c — powder-character: writes the OBJ sequence of a walking or digging figure,
 * the test characters; see tools/character/README.md.
 *
 *   powder-character walker|digger --out 'dir/name.####.obj' [--frames 49] [--first 1]
 *       [--fps 24] [--detail 2] [--start X Z] [--heading DEG]
 *       [--speed 1.3] [--cycle 1.0]     (walker)
 *       [--swing 1.0] [--depth 0.04]    (digger)
 *
 * --help (or -h) prints the usage and exits 0. Every option is checked before anything
 * is written; bad input gets one line naming the option and exit status 2. Each frame is written to a temporary name and renamed
 * into place, so a reader (or a second build writing the same assets) never sees a
 * half-written frame. */
#include "character.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FRAMES 100000
/* parse_args' return for --help (or -h): the usage was printed, exit 0 */
#define HELP_GIVEN (-1)

typedef struct {
    const char *kind, *out;
    long frames, first;
    char_options o;
} run;

/* One line on stderr naming the option and the problem; returns exit status 2. */
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "powder-character: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

static int parse_num(const char *opt, const char *text, double lo, double hi, double *x)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v < lo || v > hi) {
        char range[64];
        snprintf(range, sizeof range, "%g to %g", lo, hi);
        fprintf(stderr, "powder-character: %s: '%s' is not a number from %s\n", opt, text,
                range);
        return 2;
    }
    *x = v;
    return 0;
}

/* The usage on out, with what the options default to when full (--help). */
static void usage(FILE *out, int full)
{
    fprintf(out,
            "usage: powder-character walker|digger --out 'dir/name.####.obj' [--frames N]\n"
            "       [--first F] [--fps FPS] [--detail D] [--start X Z] [--heading DEG]\n"
            "       [--speed M_PER_S] [--cycle S] (walker)  [--swing S] [--depth M] (digger)\n");
    if (full)
        fprintf(out,
                "\n"
                "Writes the OBJ sequence of a walking figure (walker) or of a figure swinging\n"
                "a pick into the ground (digger), one file per frame, the '#' run of --out\n"
                "replaced by the frame number. Defaults: --frames 49, --first 1, --fps 24,\n"
                "--detail 2 (1..8), --start 0 0 [m], --heading 0 [deg], --speed 1.3 [m/s],\n"
                "--cycle 1.0 [s], --swing 1.0 [s], --depth 0.04 [m]. See\n"
                "tools/character/README.md.\n");
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static int parse_args(int argc, char **argv, run *r)
{
    if (argc < 2) {
        usage(stderr, 0);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (is_help(argv[i])) {
            usage(stdout, 1);
            return HELP_GIVEN;
        }
    r->kind = argv[1];
    if (strcmp(r->kind, "walker") && strcmp(r->kind, "digger"))
        return bad("unknown kind '%s' (walker or digger)", r->kind);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        static const char *known[] = {"--out", "--frames", "--first", "--fps", "--detail",
                                      "--start", "--heading", "--speed", "--cycle",
                                      "--swing", "--depth"};
        int is_known = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            is_known |= !strcmp(a, known[k]);
        if (!is_known) return bad("unknown option '%s'", a);
        int need = !strcmp(a, "--start") ? 2 : 1;
        if (i + need >= argc)
            return bad("%s: needs %s", a, need == 2 ? "two values (X Z)" : "a value");
        double x = 0;
        int rc = 0;
        if (!strcmp(a, "--out")) r->out = argv[++i];
        else if (!strcmp(a, "--frames")) {
            if (!(rc = parse_num(a, argv[++i], 1, MAX_FRAMES, &x))) r->frames = (long)x;
            if (!rc && x != floor(x)) return bad("%s: '%s' is not a whole number", a, argv[i]);
        } else if (!strcmp(a, "--first")) {
            if (!(rc = parse_num(a, argv[++i], 0, 1e8, &x))) r->first = (long)x;
            if (!rc && x != floor(x)) return bad("%s: '%s' is not a whole number", a, argv[i]);
        } else if (!strcmp(a, "--fps")) rc = parse_num(a, argv[++i], 1, 1000, &r->o.fps);
        else if (!strcmp(a, "--detail")) {
            if (!(rc = parse_num(a, argv[++i], 1, 8, &x))) r->o.detail = (int)x;
            if (!rc && x != floor(x)) return bad("%s: '%s' is not a whole number", a, argv[i]);
        } else if (!strcmp(a, "--start")) {
            rc = parse_num(a, argv[i + 1], -1e4, 1e4, &r->o.start_x);
            if (!rc) rc = parse_num(a, argv[i + 2], -1e4, 1e4, &r->o.start_z);
            i += 2;
        } else if (!strcmp(a, "--heading"))
            rc = parse_num(a, argv[++i], -360, 360, &r->o.heading_deg);
        else if (!strcmp(a, "--speed")) rc = parse_num(a, argv[++i], 0.01, 2.5, &r->o.speed);
        else if (!strcmp(a, "--cycle")) rc = parse_num(a, argv[++i], 0.6, 2.5, &r->o.cycle);
        else if (!strcmp(a, "--swing")) rc = parse_num(a, argv[++i], 0.4, 10, &r->o.swing);
        else if (!strcmp(a, "--depth")) rc = parse_num(a, argv[++i], 0, 0.3, &r->o.depth);
        if (rc) return rc;
    }
    if (!r->out) return bad("--out: missing (a pattern such as 'walker/walker.####.obj')");
    /* exactly one run of '#' */
    const char *h = strchr(r->out, '#');
    if (!h) return bad("--out: '%s' has no '#' run for the frame number", r->out);
    while (*h == '#') h++;
    if (strchr(h, '#')) return bad("--out: '%s' has more than one '#' run", r->out);
    if (strlen(r->out) > 3800)
        return bad("--out: pattern too long (%zu characters)", strlen(r->out));
    return 0;
}

/* The pattern with its '#' run replaced by the frame number, zero-padded to the run's
 * length (longer numbers are written whole). */
static void frame_path(const char *pattern, long frame, char *out, size_t size)
{
    const char *h = strchr(pattern, '#');
    int width = 0;
    while (h[width] == '#') width++;
    snprintf(out, size, "%.*s%0*ld%s", (int)(h - pattern), pattern, width, frame, h + width);
}

/* mkdir -p of the directory part of path */
static int make_parent_dirs(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (dir[0] && mkdir(dir, 0777) && errno != EEXIST) return -1;
    return 0;
}

int main(int argc, char **argv)
{
    run r = {.frames = 49, .first = 1,
             .o = {.detail = 2, .fps = 24, .speed = 1.3, .cycle = 1.0, .swing = 1.0,
                   .depth = 0.04}};
    int rc = parse_args(argc, argv, &r);
    if (rc) return rc == HELP_GIVEN ? 0 : rc;
    int walker = !strcmp(r.kind, "walker");
    char msg[512];
    if ((walker ? walker_check : digger_check)(&r.o, msg, sizeof msg)) {
        fprintf(stderr, "powder-character: %s\n", msg);
        return 2;
    }

    char_mesh m = {0};
    if ((walker ? walker_build : digger_build)(&m, &r.o)) {
        fprintf(stderr, "powder-character: out of memory building the %s\n", r.kind);
        char_mesh_free(&m);
        return 1;
    }
    /* every part outward-facing (a bug here, never bad input) */
    for (int k = 0; k < m.n_parts; k++)
        if (!(char_part_volume(&m, k) > 0)) {
            fprintf(stderr, "powder-character: part %s is inside out (volume %g)\n",
                    m.parts[k].name, char_part_volume(&m, k));
            char_mesh_free(&m);
            return 1;
        }
    size_t triangles = 0;
    for (size_t f = 0; f < m.nf; f++) triangles += (size_t)m.faces[f].n - 2;

    double hdg = r.o.heading_deg * CHAR_PI / 180;
    rigid world_from_char = {{{cos(hdg), 0, sin(hdg)}, {0, 1, 0}, {-sin(hdg), 0, cos(hdg)}},
                             {r.o.start_x, 0, r.o.start_z}};
    char path[4200], tmp[4300];
    frame_path(r.out, r.first, path, sizeof path);
    if (make_parent_dirs(path)) {
        fprintf(stderr, "powder-character: %s: cannot create its directory (%s)\n", path,
                strerror(errno));
        char_mesh_free(&m);
        return 1;
    }
    rigid pose[CHAR_MAX_PARTS];
    long bytes = 0;
    for (long i = 0; i < r.frames; i++) {
        double t = i / r.o.fps;
        (walker ? walker_pose : digger_pose)(&m, &r.o, t, pose);
        frame_path(r.out, r.first + i, path, sizeof path);
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "w");
        char comment[160];
        snprintf(comment, sizeof comment, "powder-character %s, frame %ld, t = %.6f s",
                 r.kind, r.first + i, t);
        int bad_write = !f || char_write_obj(f, &m, pose, world_from_char, comment);
        if (f) {
            bytes += ftell(f);
            bad_write |= fclose(f) != 0;
        }
        if (bad_write || rename(tmp, path)) {
            fprintf(stderr, "powder-character: %s: cannot write (%s)\n", path, strerror(errno));
            remove(tmp);
            char_mesh_free(&m);
            return 1;
        }
    }
    printf("powder-character: %s, %ld frames at %g fps (t = 0 to %.4f s), %d parts, "
           "%zu vertices, %zu triangles a frame, %ld bytes\n",
           r.kind, r.frames, r.o.fps, (r.frames - 1) / r.o.fps, m.n_parts, m.nv, triangles,
           bytes);
    char_mesh_free(&m);
    return 0;
}
