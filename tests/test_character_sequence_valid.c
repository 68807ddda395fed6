/* Property: powder-character (tools/character) writes OBJ sequences that the deforming
 * mesh colliders can take, moving as a walking and a digging figure should.
 * Everything is measured from the written files, read by Powder's own OBJ reader.
 * 1. Format: every frame has the first frame's vertex count and the very same faces;
 *    each connected component is closed, every edge run once each way by two faces
 *    (consistent orientation), with positive volume (outward faces); each `o` part is
 *    exactly one component.
 * 2. Walker (1.3 m/s, 1 s cycle, 49 frames at 24 fps):
 *    2.1 nothing goes below the ground by more than 0.05 mm (%.5f printing is 0.01 mm);
 *    2.2 each foot's contact (lowest point < 3 mm) holds frames where it lies flat
 *        (lowest point within 0.05 mm of y = 0), and between contacts it lifts by more
 *        than 2 cm;
 *    2.3 heel to toe: at each contact's first frame the heel (the rear 6 cm of the foot)
 *        touches and the toes are more than 1 cm up; at its last frame the toes touch
 *        and the heel is more than 2 cm up;
 *    2.4 the knee (angle between thigh and shin axes, principal axes of their
 *        vertices) stays below 15 deg somewhere in stance and bends past 45 deg (but
 *        below 80) in swing: a walk's knee, not a stiff leg;
 *    2.5 speed: the mean vertex moves 1.3 m/s x 1 s per cycle (the body repeats), within
 *        1 %; with --heading 90 --start 2 3 --speed 1.2 it moves toward -z at 1.2 m/s
 *        from (2, 3) within 1 % and 1 cm.
 * 3. Digger (1 s swings, depth 0.04 m): in each of the two swings the pick's lowest point
 *    reaches -0.04 m within 1 mm and the pick comes out of the ground (> 0.1 m) within
 *    the same swing; no other part goes below the ground.
 * 4. Determinism: a second run writes the same bytes. Bad options (too fast a walk, a
 *    pattern without '#') exit 2 and write nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "pw_obj.h"
#include "test_util.h"

#define DIR POWDER_TEST_TMP "/character_sequence_valid"
#define MAX_PARTS 32
#define FRAMES 49

typedef struct {
    pw_mesh m;
    int n_parts;
    char name[MAX_PARTS][32];
    size_t v0[MAX_PARTS], nv[MAX_PARTS];
} frame;

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : (a > b);
}

/* Reads a frame with pw_obj_read, and the `o` parts' vertex ranges from the text. */
static int read_frame(const char *path, frame *f)
{
    memset(f, 0, sizeof *f);
    pw_error err = {0};
    if (pw_obj_read(path, &f->m, &err) != PW_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (!in) return -1;
    char line[256];
    size_t nv = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == 'o' && line[1] == ' ' && f->n_parts < MAX_PARTS) {
            int k = f->n_parts++;
            sscanf(line + 2, "%31s", f->name[k]);
            f->v0[k] = nv;
        } else if (line[0] == 'v' && line[1] == ' ') {
            nv++;
            if (f->n_parts) f->nv[f->n_parts - 1]++;
        }
    }
    fclose(in);
    return nv == f->m.n_vertices ? 0 : -1;
}

static int part_index(const frame *f, const char *name)
{
    for (int k = 0; k < f->n_parts; k++)
        if (!strcmp(f->name[k], name)) return k;
    return -1;
}

static const float *vtx(const frame *f, size_t v) { return f->m.vertices + 3 * v; }

/* Lowest y of part k's vertices; with x_window > 0 only those within x_window of the
 * part's smallest x (its rear end, for a figure walking along +x). */
static double part_min_y(const frame *f, int k, double x_window)
{
    double xmin = INFINITY, lo = INFINITY;
    for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++) xmin = fmin(xmin, vtx(f, v)[0]);
    for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++)
        if (x_window <= 0 || vtx(f, v)[0] <= xmin + x_window) lo = fmin(lo, vtx(f, v)[1]);
    return lo;
}

/* Principal axis of part k's vertices (power iteration on their covariance). */
static void part_axis(const frame *f, int k, double axis[3])
{
    double c[3] = {0, 0, 0}, C[3][3] = {{0}};
    for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++)
        for (int a = 0; a < 3; a++) c[a] += vtx(f, v)[a] / (double)f->nv[k];
    for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                C[a][b] += (vtx(f, v)[a] - c[a]) * (vtx(f, v)[b] - c[b]);
    double x[3] = {0.3, 1, 0.1};
    for (int it = 0; it < 200; it++) {
        double y[3], n = 0;
        for (int a = 0; a < 3; a++) y[a] = C[a][0] * x[0] + C[a][1] * x[1] + C[a][2] * x[2];
        for (int a = 0; a < 3; a++) n += y[a] * y[a];
        for (int a = 0; a < 3; a++) x[a] = y[a] / sqrt(n);
    }
    memcpy(axis, x, sizeof x);
}

static void centroid(const frame *f, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    for (size_t v = 0; v < f->m.n_vertices; v++)
        for (int a = 0; a < 3; a++) c[a] += vtx(f, v)[a] / (double)f->m.n_vertices;
}

/* Case 1 on one frame: each part one closed, consistently oriented component with
 * positive volume. Returns the number of problems. */
static int check_closed(const frame *f, const char *path)
{
    const pw_mesh *m = &f->m;
    size_t ne = 3 * m->n_triangles;
    uint64_t *e = malloc(ne * sizeof *e);
    int *part_of = malloc(m->n_vertices * sizeof *part_of);
    double vol[MAX_PARTS] = {0};
    int bad = 0;
    for (int k = 0; k < f->n_parts; k++)
        for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++) part_of[v] = k;
    for (size_t t = 0; t < m->n_triangles; t++) {
        const uint32_t *tri = m->triangles + 3 * t;
        int k = part_of[tri[0]];
        if (part_of[tri[1]] != k || part_of[tri[2]] != k) bad++; /* a face across parts */
        const float *a = vtx(f, tri[0]), *b = vtx(f, tri[1]), *c = vtx(f, tri[2]);
        vol[k] += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
                   a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                   a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6;
        for (int i = 0; i < 3; i++)
            e[3 * t + i] = (uint64_t)tri[i] << 32 | tri[(i + 1) % 3];
    }
    qsort(e, ne, sizeof *e, u64_cmp);
    for (size_t i = 0; i < ne; i++) {
        uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        int dup = i + 1 < ne && e[i + 1] == e[i];
        if (dup || !bsearch(&rev, e, ne, sizeof *e, u64_cmp)) bad++;
    }
    /* connectivity: each part's vertices reachable from its first through its edges */
    size_t *parent = malloc(m->n_vertices * sizeof *parent);
    for (size_t v = 0; v < m->n_vertices; v++) parent[v] = v;
    for (size_t i = 0; i < ne; i++) {
        size_t a = e[i] >> 32, b = e[i] & 0xffffffffu;
        while (parent[a] != a) a = parent[a] = parent[parent[a]];
        while (parent[b] != b) b = parent[b] = parent[parent[b]];
        if (a != b) parent[a] = b;
    }
    for (int k = 0; k < f->n_parts; k++) {
        size_t root = f->v0[k];
        while (parent[root] != root) root = parent[root];
        for (size_t v = f->v0[k]; v < f->v0[k] + f->nv[k]; v++) {
            size_t r = v;
            while (parent[r] != r) r = parent[r];
            if (r != root) {
                bad++;
                break;
            }
        }
        if (!(vol[k] > 0)) bad++;
    }
    if (bad) fprintf(stderr, "%s: %d closedness/orientation problems\n", path, bad);
    free(parent);
    free(part_of);
    free(e);
    return bad;
}

static void frame_name(char *out, size_t size, const char *dir, const char *name, int i)
{
    snprintf(out, size, "%s/%s.%04d.obj", dir, name, i);
}

/* Reads a whole sequence and checks case 1 on it. */
static frame *read_sequence(const char *dir, const char *name, int n)
{
    frame *fr = calloc((size_t)n, sizeof *fr);
    char path[1024];
    for (int i = 0; i < n; i++) {
        frame_name(path, sizeof path, dir, name, i + 1);
        CHECK(read_frame(path, &fr[i]) == 0, "%s: not read", path);
        CHECK(fr[i].m.n_vertices == fr[0].m.n_vertices &&
                  fr[i].m.n_triangles == fr[0].m.n_triangles && fr[i].n_parts == fr[0].n_parts,
              "%s: %zu vertices, %zu triangles vs the first frame's %zu, %zu", path,
              fr[i].m.n_vertices, fr[i].m.n_triangles, fr[0].m.n_vertices,
              fr[0].m.n_triangles);
        if (fr[i].m.n_triangles == fr[0].m.n_triangles)
            CHECK(!memcmp(fr[i].m.triangles, fr[0].m.triangles,
                          3 * fr[0].m.n_triangles * sizeof(uint32_t)),
                  "%s: faces differ from the first frame's", path);
        CHECK(check_closed(&fr[i], path) == 0, "%s: not closed and outward", path);
    }
    return fr;
}

static void free_sequence(frame *fr, int n)
{
    for (int i = 0; i < n; i++) pw_mesh_free(&fr[i].m);
    free(fr);
}

static int run(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", POWDER_CHARACTER, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void check_walker(void)
{
    frame *fr = read_sequence(DIR "/walk", "walker", FRAMES);
    /* 2.1 */
    double lowest = INFINITY;
    for (int i = 0; i < FRAMES; i++)
        for (size_t v = 0; v < fr[i].m.n_vertices; v++) lowest = fmin(lowest, vtx(&fr[i], v)[1]);
    CHECK(lowest >= -5e-5, "walker goes %.6f m below the ground", lowest);
    printf("walker: %zu vertices, %zu triangles; lowest point %.5f m\n", fr[0].m.n_vertices,
           fr[0].m.n_triangles, lowest);
    static const char *side[2] = {"right", "left"};
    double knee_lo = 180, knee_hi = 0;
    for (int s = 0; s < 2; s++) {
        char n[64];
        snprintf(n, sizeof n, "%s_foot", side[s]);
        int foot = part_index(&fr[0], n);
        snprintf(n, sizeof n, "%s_toes", side[s]);
        int toes = part_index(&fr[0], n);
        snprintf(n, sizeof n, "%s_thigh", side[s]);
        int thigh = part_index(&fr[0], n);
        snprintf(n, sizeof n, "%s_shin", side[s]);
        int shin = part_index(&fr[0], n);
        CHECK(foot >= 0 && toes >= 0 && thigh >= 0 && shin >= 0, "%s leg parts missing",
              side[s]);
        if (foot < 0 || toes < 0 || thigh < 0 || shin < 0) continue;
        double low[FRAMES], heel[FRAMES], toe[FRAMES], knee[FRAMES];
        int contact[FRAMES];
        for (int i = 0; i < FRAMES; i++) {
            heel[i] = part_min_y(&fr[i], foot, 0.06);
            toe[i] = part_min_y(&fr[i], toes, 0);
            low[i] = fmin(part_min_y(&fr[i], foot, 0), toe[i]);
            contact[i] = low[i] < 3e-3;
            double a[3], b[3];
            part_axis(&fr[i], thigh, a);
            part_axis(&fr[i], shin, b);
            knee[i] = acos(fmin(1, fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]))) * 180 /
                      3.14159265358979323846;
            knee_lo = fmin(knee_lo, knee[i]);
            knee_hi = fmax(knee_hi, knee[i]);
        }
        /* 2.2 and 2.3, contact by contact */
        int contacts = 0, complete = 0;
        for (int i = 0; i < FRAMES;) {
            if (!contact[i]) {
                i++;
                continue;
            }
            int j = i;
            while (j + 1 < FRAMES && contact[j + 1]) j++;
            contacts++;
            int flat = 0;
            for (int k = i; k <= j; k++) flat += fabs(low[k]) < 5e-5;
            if (i > 0 && j < FRAMES - 1)
                CHECK(flat > 0, "%s foot, frames %d-%d: never flat on the ground", side[s],
                      i + 1, j + 1);
            if (i > 0) {
                CHECK(heel[i] < 3e-3 && toe[i] > 0.01,
                      "%s foot, frame %d (heel strike): heel %.4f m, toes %.4f m", side[s],
                      i + 1, heel[i], toe[i]);
                double lift = 0;
                for (int k = i - 1; k >= 0 && !contact[k]; k--) lift = fmax(lift, low[k]);
                if (i > 8) CHECK(lift > 0.02, "%s foot: swing before frame %d lifts %.4f m",
                                 side[s], i + 1, lift);
            }
            if (j < FRAMES - 1)
                CHECK(toe[j] < 3e-3 && heel[j] > 0.02,
                      "%s foot, frame %d (toe-off): heel %.4f m, toes %.4f m", side[s], j + 1,
                      heel[j], toe[j]);
            if (i > 0 && j < FRAMES - 1) complete++;
            printf("walker: %s foot on the ground frames %d-%d (heel %.4f toes %.4f m at "
                   "the first, heel %.4f toes %.4f m at the last)\n",
                   side[s], i + 1, j + 1, heel[i], toe[i], heel[j], toe[j]);
            i = j + 1;
        }
        CHECK(contacts >= 2 && complete >= 1, "%s foot: %d contacts, %d complete", side[s],
              contacts, complete);
    }
    /* 2.4 */
    printf("walker: knee flexion %.1f to %.1f deg\n", knee_lo, knee_hi);
    CHECK(knee_lo < 15 && knee_hi > 45 && knee_hi < 80, "knee %.1f to %.1f deg", knee_lo,
          knee_hi);
    /* 2.5 */
    for (int i = 0; i + 24 < FRAMES; i += 24) {
        double c0[3], c1[3];
        centroid(&fr[i], c0);
        centroid(&fr[i + 24], c1);
        printf("walker: frames %d-%d: the body moved %.5f m along x, %.5f along z\n", i + 1,
               i + 25, c1[0] - c0[0], c1[2] - c0[2]);
        CHECK_NEAR(c1[0] - c0[0], 1.3, 0.013, "distance walked in one 1 s cycle [m]");
        CHECK_NEAR(c1[2] - c0[2], 0, 1e-4, "sideways drift in one cycle [m]");
    }
    free_sequence(fr, FRAMES);

    fr = read_sequence(DIR "/turned", "walker", 25);
    double c0[3], c1[3], p[3] = {0, 0, 0};
    centroid(&fr[0], c0);
    centroid(&fr[24], c1);
    int pelvis = part_index(&fr[0], "pelvis");
    for (size_t v = fr[0].v0[pelvis]; v < fr[0].v0[pelvis] + fr[0].nv[pelvis]; v++)
        for (int a = 0; a < 3; a++) p[a] += vtx(&fr[0], v)[a] / (double)fr[0].nv[pelvis];
    CHECK_NEAR(c1[0] - c0[0], 0, 1e-4, "turned walker: x moved [m]");
    CHECK_NEAR(c1[2] - c0[2], -1.2, 0.012, "turned walker: z moved in 1 s [m]");
    CHECK_NEAR(p[0], 2, 0.01, "turned walker: pelvis x at t = 0 [m]");
    CHECK_NEAR(p[2], 3, 0.01, "turned walker: pelvis z at t = 0 [m]");
    free_sequence(fr, 25);
}

static void check_digger(void)
{
    frame *fr = read_sequence(DIR "/dig", "digger", FRAMES);
    int head = part_index(&fr[0], "pick_head");
    CHECK(head >= 0, "no pick_head part");
    if (head < 0) return free_sequence(fr, FRAMES);
    double others = INFINITY;
    for (int swing = 0; swing < 2; swing++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 24 * swing; i < 24 * (swing + 1); i++) {
            double y = part_min_y(&fr[i], head, 0);
            lo = fmin(lo, y);
            hi = fmax(hi, y);
            for (int k = 0; k < fr[i].n_parts; k++)
                if (k != head) others = fmin(others, part_min_y(&fr[i], k, 0));
        }
        printf("digger: swing %d: the pick's lowest point from %.5f to %.4f m\n", swing + 1,
               lo, hi);
        CHECK_NEAR(lo, -0.04, 1e-3, "pick's deepest point in a swing [m]");
        CHECK(hi > 0.1, "swing %d: the pick stays low (%.4f m)", swing + 1, hi);
    }
    CHECK(others >= -5e-5, "digger's other parts go %.6f m below the ground", others);
    free_sequence(fr, FRAMES);
}

int main(void)
{
    CHECK(system("rm -rf '" DIR "' && mkdir -p '" DIR "'") == 0, "scratch " DIR);
    CHECK(run("walker --detail 1 --out " DIR "/walk/walker.####.obj") == 0, "walker run");
    CHECK(run("walker --detail 1 --out " DIR "/walk2/walker.####.obj") == 0, "walker rerun");
    CHECK(run("walker --detail 1 --frames 25 --heading 90 --start 2 3 --speed 1.2 --out " DIR
              "/turned/walker.####.obj") == 0, "turned walker run");
    CHECK(run("digger --detail 1 --out " DIR "/dig/digger.####.obj") == 0, "digger run");
    CHECK(run("digger --detail 1 --out " DIR "/dig2/digger.####.obj") == 0, "digger rerun");
    /* 4: same bytes, bad options refused with nothing written */
    char a[1024], b[1024];
    for (int i = 1; i <= FRAMES; i++) {
        frame_name(a, sizeof a, DIR "/walk", "walker", i);
        frame_name(b, sizeof b, DIR "/walk2", "walker", i);
        CHECK(same_bytes(a, b), "%s and %s differ", a, b);
        frame_name(a, sizeof a, DIR "/dig", "digger", i);
        frame_name(b, sizeof b, DIR "/dig2", "digger", i);
        CHECK(same_bytes(a, b), "%s and %s differ", a, b);
    }
    CHECK(run("walker --speed 2.4 --cycle 1.5 --out " DIR "/bad/walker.####.obj") == 2,
          "a 3.6 m stride is refused");
    CHECK(run("walker --out " DIR "/bad/walker.obj") == 2, "a pattern without '#' is refused");
    CHECK(run("digger --depth 0.5 --out " DIR "/bad/digger.####.obj") == 2,
          "--depth 0.5 is refused");
    CHECK(system("test -e '" DIR "/bad'") != 0, "a refused run wrote " DIR "/bad");

    check_walker();
    check_digger();
    return check_done("character_sequence_valid");
}
