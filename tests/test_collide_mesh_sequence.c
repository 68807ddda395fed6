/* Property: a collider given as an OBJ sequence (mesh_deform.c) is the mesh where its
 * animation has it at every substep's time, with the surface's own velocity.
 *
 * 1. A box 0.2 x 0.1 x 0.2 m whose top rises at 0.5 m/s and which slides along x at
 *    1 m/s, written as 7 files at 24 fps: between files inside the sequence (where the
 *    Catmull-Rom cubic through positions that move linearly is that line), its signed
 *    distance at 200 points inside, outside, near faces, edges and corners equals the
 *    analytic box distance to 1e-6 m, and a sticky contact gives each point the
 *    velocity of the nearest surface point (the top: 1 m/s along x and 0.5 m/s up; the
 *    bottom: 1 m/s along x) to 1e-9 m/s.
 * 2. The cubic goes through every file's vertices at the files' times, and its velocity
 *    is continuous across a file (a vertex on a circle: left and right derivatives
 *    agree to 1e-9, and match the circle's speed to 2 %).
 * 3. Two overlapping closed parts are their union: a point inside one part but near a
 *    face of the other that lies inside the first is inside (phi < 0).
 * 4. An open mesh is refused, naming the open edge and the 'thickness' remedy; with a
 *    thickness it is a shell: phi = |d| - thickness / 2 on both sides.
 * 5. Bad sequences: a file with other vertex counts, other faces, a missing file, a
 *    huge coordinate: each refused with the file's name and place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collide.h"
#include "pw_mesh_seq.h"
#include "tri_mesh.h"

#include "obj_fixture.h" /* after pw_math.h, which the headers above bring */

#define FPS 24.0
#define FILES 7

static char dir[900];

/* the box of part 1 at time t */
static void box_at(double t, vec3 *lo, vec3 *hi)
{
    *lo = v3(-0.1 + 1.0 * t, 0.0, -0.1);
    *hi = v3(0.1 + 1.0 * t, 0.1 + 0.5 * t, 0.1);
}

static double box_sdf(vec3 p, vec3 lo, vec3 hi)
{
    vec3 c = v3_scale(v3_add(lo, hi), 0.5), e = v3_scale(v3_sub(hi, lo), 0.5);
    vec3 q = v3(fabs(p.x - c.x) - e.x, fabs(p.y - c.y) - e.y, fabs(p.z - c.z) - e.z);
    vec3 o = v3(fmax(q.x, 0), fmax(q.y, 0), fmax(q.z, 0));
    return v3_length(o) + fmin(fmax(q.x, fmax(q.y, q.z)), 0.0);
}

static pw_colliders *make(const pw_shape *sh, int sticky, pw_error *err)
{
    pw_colliders *c = pw_colliders_create(0.01, err);
    if (!c) return NULL;
    pw_collider_desc d = {0};
    d.shape = *sh;
    d.sticky = sticky;
    if (pw_colliders_add(c, &d, err) != PW_OK) {
        pw_colliders_destroy(c);
        return NULL;
    }
    return c;
}

static void sequence_shape(pw_shape *sh, const char *pattern, int files)
{
    pw_shape_init(sh, PW_SHAPE_MESH);
    snprintf(sh->path, sizeof sh->path, "%s/%s", dir, pattern);
    sh->seq_first = 1;
    sh->seq_last = files;
    sh->seq_step = 1;
    sh->seq_fps = FPS;
    sh->seq_start = 0;
}

static unsigned rng = 12345;
static double uniform(double a, double b)
{
    rng = rng * 1103515245u + 12345u;
    return a + (b - a) * ((rng >> 8) / 16777216.0);
}

static void moving_box(void)
{
    char path[1200];
    for (int k = 0; k < FILES; k++) {
        vec3 lo, hi, v[8];
        box_at(k / FPS, &lo, &hi);
        box_corners(lo, hi, v);
        snprintf(path, sizeof path, "%s/box.%04d.obj", dir, k + 1);
        write_obj(path, v, 8, box_tris, 12);
    }
    pw_shape sh;
    sequence_shape(&sh, "box.####.obj", FILES);
    pw_error err = {0};
    pw_colliders *c = make(&sh, 1, &err);
    CHECK(c != NULL, "box sequence: %s", err.msg);
    if (!c) return;
    double worst_phi = 0, worst_v = 0;
    int inside = 0, touching = 0;
    for (int i = 0; i < 200; i++) {
        double t = uniform(1.0, FILES - 2.0) / FPS; /* inner spans: the cubic is the line */
        pw_colliders_pose_at(c, t);
        vec3 lo, hi;
        box_at(t, &lo, &hi);
        /* points around the box, many near its faces, edges and corners */
        vec3 p = v3(uniform(lo.x - 0.03, hi.x + 0.03), uniform(lo.y - 0.03, hi.y + 0.03),
                    uniform(lo.z - 0.03, hi.z + 0.03));
        if (i % 4 == 0) p.y = hi.y + uniform(-0.004, 0.004);
        double phi = pw_colliders_phi(c, t, p), want = box_sdf(p, lo, hi);
        worst_phi = fmax(worst_phi, fabs(phi - want));
        inside += phi < 0;
        /* sticky: v := v_co of the nearest surface point, for points in the solid */
        vec3 v = v3(3, -2, 1);
        if (pw_colliders_apply(c, t, p, &v, NULL) == PW_CONTACT_ALL) {
            touching++;
            /* which face is nearest: the top moves up, the others only along x (their
             * vertices rise with the top in proportion to their height) */
            double d_top = hi.y - p.y, d_side = fmin(fmin(p.x - lo.x, hi.x - p.x),
                                                     fmin(fmin(p.z - lo.z, hi.z - p.z), p.y - lo.y));
            if (fabs(d_top - d_side) < 1e-6) continue; /* equidistant: either is right */
            double vy;
            if (d_top < d_side) {
                vy = 0.5;
            } else if (p.y - lo.y <= fmin(fmin(p.x - lo.x, hi.x - p.x), fmin(p.z - lo.z, hi.z - p.z))) {
                vy = 0; /* the bottom stays on the ground */
            } else {
                vy = 0.5 * (p.y - lo.y) / (hi.y - lo.y); /* a side: the height's share */
            }
            worst_v = fmax(worst_v, v3_length(v3_sub(v, v3(1.0, vy, 0))));
        }
    }
    printf("box: |phi - exact| <= %.3g m, |v - v_surface| <= %.3g m/s (%d inside, %d in contact)\n",
           worst_phi, worst_v, inside, touching);
    CHECK(worst_phi < 1e-6, "signed distance off by %g m", worst_phi);
    CHECK(worst_v < 2e-6, "surface velocity off by %g m/s", worst_v);
    CHECK(inside > 20 && touching == inside, "%d inside, %d sticky contacts", inside, touching);
    pw_colliders_destroy(c);
}

static void cubic_through_files(void)
{
    /* one triangle whose first vertex runs on a circle of radius 0.3 m at 2 rad/s */
    char path[1200];
    int tri[3] = {0, 1, 2};
    for (int k = 0; k < FILES; k++) {
        double a = 2.0 * k / FPS;
        vec3 v[3] = {v3(0.3 * cos(a), 0.3 * sin(a), 0), v3(1, 0, 0), v3(0, 0, 1)};
        snprintf(path, sizeof path, "%s/circle.%04d.obj", dir, k + 1);
        write_obj(path, v, 3, tri, 1);
    }
    pw_shape sh;
    sequence_shape(&sh, "circle.####.obj", FILES);
    pw_mesh_seq q;
    pw_error err = {0};
    CHECK(pw_mesh_seq_read(&sh, -INFINITY, INFINITY, &q, &err) == PW_OK, "%s", err.msg);
    vec3 p[3], vl[3], vr[3];
    double worst = 0;
    for (int k = 0; k < FILES; k++) {
        double a = 2.0 * k / FPS;
        pw_mesh_seq_eval(&q, &sh, k / FPS, p, NULL);
        worst = fmax(worst, v3_length(v3_sub(p[0], v3(0.3 * cos(a), 0.3 * sin(a), 0))));
    }
    CHECK(worst < 1e-7, "the cubic misses a file's vertex by %g m", worst);
    double eps = 1e-9, jump = 0, speed_err = 0;
    for (int k = 2; k < FILES - 2; k++) {
        pw_mesh_seq_eval(&q, &sh, k / FPS - eps, p, vl);
        pw_mesh_seq_eval(&q, &sh, k / FPS + eps, p, vr);
        jump = fmax(jump, v3_length(v3_sub(vl[0], vr[0])));
        speed_err = fmax(speed_err, fabs(v3_length(vr[0]) - 0.6) / 0.6);
    }
    printf("circle: through files within %.2g m, velocity jump %.2g m/s, speed error %.2g %%\n",
           worst, jump, 100 * speed_err);
    CHECK(jump < 1e-6, "velocity jumps by %g m/s at a file", jump);
    CHECK(speed_err < 0.02, "speed %g %% off the circle's", 100 * speed_err);
    pw_mesh_seq_free(&q);
}

static void union_of_parts(void)
{
    /* part A: [0, 0.2]^3; part B: [0.1, 0.3] x [0.05, 0.15] x [0.05, 0.15], overlapping */
    vec3 v[16];
    int tri[72];
    box_corners(v3(0, 0, 0), v3(0.2, 0.2, 0.2), v);
    box_corners(v3(0.1, 0.05, 0.05), v3(0.3, 0.15, 0.15), v + 8);
    for (int i = 0; i < 36; i++) tri[i] = box_tris[i], tri[36 + i] = box_tris[i] + 8;
    char path[1200];
    snprintf(path, sizeof path, "%s/parts.0001.obj", dir);
    write_obj(path, v, 16, tri, 24);
    snprintf(path, sizeof path, "%s/parts.0002.obj", dir);
    write_obj(path, v, 16, tri, 24);
    pw_shape sh;
    sequence_shape(&sh, "parts.####.obj", 2);
    pw_error err = {0};
    pw_colliders *c = make(&sh, 0, &err);
    CHECK(c != NULL, "parts: %s", err.msg);
    if (!c) return;
    pw_colliders_pose_at(c, 0);
    /* inside A, 1 mm from B's face x = 0.1 (which lies inside A) */
    double phi = pw_colliders_phi(c, 0, v3(0.099, 0.1, 0.1));
    CHECK_NEAR(phi, -0.099, 1e-8, "inside part A near part B's buried face");
    /* inside both */
    phi = pw_colliders_phi(c, 0, v3(0.15, 0.1, 0.1));
    CHECK_NEAR(phi, -0.05, 1e-8, "inside both parts: the deeper one's distance");
    /* outside both, beside B's end */
    phi = pw_colliders_phi(c, 0, v3(0.35, 0.1, 0.1));
    CHECK_NEAR(phi, 0.05, 1e-7, "outside, beyond part B");
    pw_colliders_destroy(c);
}

static void open_and_shell(void)
{
    /* a square of two triangles in the plane y = 0.1, x, z in [0, 0.2] */
    vec3 v[4] = {v3(0, 0.1, 0), v3(0.2, 0.1, 0), v3(0.2, 0.1, 0.2), v3(0, 0.1, 0.2)};
    int tri[6] = {0, 2, 1, 0, 3, 2};
    char path[1200];
    snprintf(path, sizeof path, "%s/sheet.0001.obj", dir);
    write_obj(path, v, 4, tri, 2);
    pw_shape sh;
    sequence_shape(&sh, "sheet.####.obj", 1);
    pw_error err = {0};
    pw_colliders *c = make(&sh, 0, &err);
    CHECK(c == NULL && strstr(err.msg, "sheet.0001.obj") && strstr(err.msg, "not closed") &&
              strstr(err.msg, "thickness"),
          "an open mesh must be refused with its file, edge and remedy: %s", err.msg);
    pw_colliders_destroy(c);
    sh.thickness = 0.02;
    c = make(&sh, 0, &err);
    CHECK(c != NULL, "shell: %s", err.msg);
    if (!c) return;
    pw_colliders_pose_at(c, 0);
    CHECK_NEAR(pw_colliders_phi(c, 0, v3(0.1, 0.13, 0.1)), 0.02, 1e-7, "above the shell");
    CHECK_NEAR(pw_colliders_phi(c, 0, v3(0.1, 0.095, 0.1)), -0.005, 1e-7, "inside the shell");
    CHECK_NEAR(pw_colliders_phi(c, 0, v3(0.1, 0.07, 0.1)), 0.02, 1e-7, "below the shell");
    pw_colliders_destroy(c);
}

/* A UV sphere of 2,400 triangles as a shell: at 3,000 points from inside it to twice
 * its radius away, phi + thickness / 2 is the distance to the nearest of all triangles,
 * found by trying every one, within 1e-7 m (the OBJ's printed digits; measured 1.4e-8).
 * Embree's closest-point queries, tried first, missed the nearest triangle by up to
 * 9 mm here (sim/docs/deforming-colliders.md). */
static void nearest_of_all(void)
{
    enum { SEG = 40, RING = 31 };
    int nv = 2 + (RING - 1) * SEG, nt = 2 * SEG * (RING - 1);
    vec3 *v = malloc((size_t)nv * sizeof *v);
    int *tri = malloc(3 * (size_t)nt * sizeof *tri), *t = tri;
    v[0] = v3(0, 0.3, 0);
    for (int i = 1; i < RING; i++)
        for (int j = 0; j < SEG; j++) {
            double th = 3.141592653589793 * i / RING, ph = 6.283185307179586 * j / SEG;
            v[1 + (i - 1) * SEG + j] = v3(0.3 * sin(th) * cos(ph), 0.3 * cos(th), -0.3 * sin(th) * sin(ph));
        }
    v[nv - 1] = v3(0, -0.3, 0);
    for (int j = 0; j < SEG; j++) *t++ = 0, *t++ = 1 + j, *t++ = 1 + (j + 1) % SEG;
    for (int i = 0; i < RING - 2; i++)
        for (int j = 0; j < SEG; j++) {
            int a = 1 + i * SEG + j, b = 1 + i * SEG + (j + 1) % SEG;
            *t++ = a, *t++ = a + SEG, *t++ = b + SEG, *t++ = a, *t++ = b + SEG, *t++ = b;
        }
    for (int j = 0; j < SEG; j++) {
        int a = 1 + (RING - 2) * SEG + j, b = 1 + (RING - 2) * SEG + (j + 1) % SEG;
        *t++ = a, *t++ = nv - 1, *t++ = b;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/ball.0001.obj", dir);
    write_obj(path, v, nv, tri, nt);
    pw_shape sh;
    sequence_shape(&sh, "ball.####.obj", 1);
    sh.thickness = 0.01;
    pw_error err = {0};
    pw_colliders *c = make(&sh, 0, &err);
    CHECK(c != NULL, "ball: %s", err.msg);
    double worst = 0;
    for (int i = 0; c && i < 3000; i++) {
        vec3 p = v3(uniform(-0.6, 0.6), uniform(-0.6, 0.6), uniform(-0.6, 0.6));
        double best = INFINITY;
        for (int k = 0; k < nt; k++) {
            int f;
            /* the OBJ's single-precision vertices, as the collider reads them */
            vec3 a = v[tri[3 * k]], b = v[tri[3 * k + 1]], cc = v[tri[3 * k + 2]];
            a = v3((float)a.x, (float)a.y, (float)a.z), b = v3((float)b.x, (float)b.y, (float)b.z);
            cc = v3((float)cc.x, (float)cc.y, (float)cc.z);
            best = fmin(best, v3_length(v3_sub(p, pw_tri_closest(p, a, b, cc, &f))));
        }
        pw_colliders_pose_at(c, 0);
        double d = pw_colliders_phi(c, 0, p);
        if (best - 0.005 < 32 * 0.01) worst = fmax(worst, fabs(d + 0.005 - best));
    }
    printf("ball: the nearest of all 2,400 triangles within %.3g m at 3,000 points\n", worst);
    CHECK(worst < 1e-7, "the nearest triangle missed by %g m", worst);
    pw_colliders_destroy(c);
    free(v);
    free(tri);
}

static void bad_sequences(void)
{
    vec3 v[9];
    box_corners(v3(0, 0, 0), v3(0.1, 0.1, 0.1), v);
    v[8] = v3(0.05, 0.05, 0.05);
    char path[1200];
    int swapped[36];
    memcpy(swapped, box_tris, sizeof swapped);
    swapped[1] = box_tris[2], swapped[2] = box_tris[1], swapped[4] = box_tris[5],
    swapped[5] = box_tris[4];
    struct {
        const char *name, *want;
        int n_second;        /* vertices in the second file */
        const int *tri2;     /* faces of the second file */
        double coord;        /* x of vertex 1 in the second file */
        int write_second;
    } cases[] = {
        {"count", "9 vertices", 9, box_tris, 0, 1},
        {"faces", "triangle 1 has other vertices", 8, swapped, 0, 1},
        {"missing", "cannot open", 8, box_tris, 0, 0},
        {"huge", "beyond", 8, box_tris, 3e7, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/bad_%s.0001.obj", dir, cases[i].name);
        write_obj(path, v, 8, box_tris, 12);
        snprintf(path, sizeof path, "%s/bad_%s.0002.obj", dir, cases[i].name);
        remove(path);
        vec3 w[9];
        memcpy(w, v, sizeof w);
        w[0].x += cases[i].coord;
        if (cases[i].write_second) write_obj(path, w, cases[i].n_second, cases[i].tri2, 12);
        char pattern[64];
        snprintf(pattern, sizeof pattern, "bad_%s.####.obj", cases[i].name);
        pw_shape sh;
        sequence_shape(&sh, pattern, 2);
        pw_error err = {0};
        pw_colliders *c = make(&sh, 0, &err);
        CHECK(c == NULL && strstr(err.msg, "bad_") && strstr(err.msg, "0002.obj") &&
                  strstr(err.msg, cases[i].want),
              "%s: want the second file named and \"%s\": %s", cases[i].name, cases[i].want,
              err.msg);
        printf("%s: %s\n", cases[i].name, err.msg);
        pw_colliders_destroy(c);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/mesh_sequence", POWDER_TEST_TMP);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    CHECK(system(cmd) == 0, "mkdir %s", dir);
    moving_box();
    cubic_through_files();
    union_of_parts();
    open_and_shell();
    nearest_of_all();
    bad_sequences();
    return check_done("collide_mesh_sequence");
}
