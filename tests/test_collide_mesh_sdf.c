/* Property: the signed distance grid of a closed OBJ mesh approximates the mesh's true
 * signed distance to within h/2 (h the simulation spacing; the grid spacing is h/2):
 * near the surface values are exact point-triangle distances interpolated
 * trilinearly, far away they come from first-order fast sweeping, both well inside
 * h/2. The unit cube is compared with the exact box distance, the shipped UV sphere
 * (r = 0.5 m, sagitta 0.026 m) and a finer generated sphere with the analytic sphere
 * distance, at points inside the grid (mesh bounds plus the margin); beyond the grid
 * the value is only required to be positive and at least the true distance minus h/2.
 * The fine sphere (about 2k triangles) must build at h = 0.02 m in under 1 s in
 * Release (it takes ~0.3 s on a shared 2-core machine; the budget allows for load). Open and inconsistently oriented meshes are refused with a message
 * naming the file; inward-facing meshes are flipped. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collide.h"
#include "mesh_sdf.h"

static double urand(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}

static double box_sdf(vec3 p, vec3 c, double half)
{
    double q[3] = {fabs(p.x - c.x) - half, fabs(p.y - c.y) - half, fabs(p.z - c.z) - half};
    double o = 0, in = fmax(q[0], fmax(q[1], q[2]));
    for (int k = 0; k < 3; k++) o += q[k] > 0 ? q[k] * q[k] : 0;
    return sqrt(o) + fmin(in, 0.0);
}

/* UV sphere of radius r, nseg x nring, outward faces; returns the triangle count */
static int write_sphere(const char *path, double r, int nseg, int nring)
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "v 0 %.17g 0\n", r);
    for (int i = 1; i < nring; i++)
        for (int j = 0; j < nseg; j++) {
            double th = 3.141592653589793 * i / nring, ph = 6.283185307179586 * j / nseg;
            fprintf(f, "v %.17g %.17g %.17g\n", r * sin(th) * cos(ph), r * cos(th),
                    -r * sin(th) * sin(ph));
        }
    fprintf(f, "v 0 %.17g 0\n", -r);
    int bottom = 2 + (nring - 1) * nseg, tris = 0;
    for (int j = 0; j < nseg; j++) {
        fprintf(f, "f 1 %d %d\n", 2 + j, 2 + (j + 1) % nseg);
        tris++;
    }
    for (int i = 0; i < nring - 2; i++)
        for (int j = 0; j < nseg; j++) {
            int a = 2 + i * nseg + j, b = 2 + i * nseg + (j + 1) % nseg;
            fprintf(f, "f %d %d %d\nf %d %d %d\n", a, a + nseg, b + nseg, a, b + nseg, b);
            tris += 2;
        }
    for (int j = 0; j < nseg; j++) {
        int a = 2 + (nring - 2) * nseg + j, b = 2 + (nring - 2) * nseg + (j + 1) % nseg;
        fprintf(f, "f %d %d %d\n", a, bottom, b);
        tris++;
    }
    fclose(f);
    return tris;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *cube_verts = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";

int main(void)
{
    int sanitized = getenv("POWDER_SANITIZED") != NULL;
    unsigned long long st = 5;
    pw_error err = {0};
    char path[1024];
    double h = 0.1;

    /* 1. unit cube [0,1]^3 against the exact box distance */
    pw_mesh_sdf *cube = NULL;
    snprintf(path, sizeof path, "%s/tests/data/cube.obj", POWDER_SOURCE_DIR);
    CHECK(pw_mesh_sdf_create(path, 1.0, h / 2, 3 * h, &cube, &err) == PW_OK, "1 cube: %s", err.msg);
    if (cube) {
        double max_err = 0;
        for (int k = 0; k < 20000; k++) {
            vec3 p = v3(-0.3 + 1.6 * urand(&st), -0.3 + 1.6 * urand(&st), -0.3 + 1.6 * urand(&st));
            double e = fabs(pw_mesh_sdf_phi(cube, p, NULL) - box_sdf(p, v3(0.5, 0.5, 0.5), 0.5));
            max_err = fmax(max_err, e);
            CHECK(pw_mesh_sdf_inside(cube, p) == (box_sdf(p, v3(0.5, 0.5, 0.5), 0.5) < 0) ||
                      fabs(box_sdf(p, v3(0.5, 0.5, 0.5), 0.5)) < 0.01,
                  "1 inside test wrong at (%g %g %g)", p.x, p.y, p.z);
        }
        printf("1 cube: max |phi - exact| = %.4g m (h/2 = %g)\n", max_err, h / 2);
        CHECK(max_err <= h / 2, "1 cube error %.4g", max_err);
        CHECK_NEAR(pw_mesh_sdf_volume(cube), 1.0, 1e-12, "1 cube volume");
        /* 1b. normals near faces (inside the band, away from edges) are the face normals */
        vec3 n;
        pw_mesh_sdf_phi(cube, v3(0.5, 1.03, 0.4), &n);
        CHECK(v3_length(v3_sub(n, v3(0, 1, 0))) < 1e-6, "1b +y normal (%g %g %g)", n.x, n.y, n.z);
        pw_mesh_sdf_phi(cube, v3(-0.02, 0.45, 0.55), &n);
        CHECK(v3_length(v3_sub(n, v3(-1, 0, 0))) < 1e-6, "1b -x normal (%g %g %g)", n.x, n.y, n.z);
        /* 1c. outside the grid phi stays positive and bounds the distance from above */
        for (int k = 0; k < 2000; k++) {
            vec3 p = v3(-3 + 7 * urand(&st), -3 + 7 * urand(&st), -3 + 7 * urand(&st));
            double phi = pw_mesh_sdf_phi(cube, p, NULL), exact = box_sdf(p, v3(0.5, 0.5, 0.5), 0.5);
            if (exact < 0.3) continue;
            CHECK(phi > 0 && phi >= exact - h / 2, "1c outside grid at (%g %g %g): %g vs %g", p.x,
                  p.y, p.z, phi, exact);
        }
    }
    pw_mesh_sdf_destroy(cube);

    /* 2. shipped coarse UV sphere: analytic distance to within h/2 */
    pw_mesh_sdf *sph = NULL;
    snprintf(path, sizeof path, "%s/tests/data/sphere.obj", POWDER_SOURCE_DIR);
    CHECK(pw_mesh_sdf_create(path, 1.0, h / 2, 3 * h, &sph, &err) == PW_OK, "2 sphere: %s",
          err.msg);
    if (sph) {
        double max_err = 0;
        for (int k = 0; k < 20000; k++) {
            vec3 p = v3(-0.8 + 1.6 * urand(&st), -0.8 + 1.6 * urand(&st), -0.8 + 1.6 * urand(&st));
            max_err = fmax(max_err, fabs(pw_mesh_sdf_phi(sph, p, NULL) - (v3_length(p) - 0.5)));
        }
        printf("2 coarse sphere: max |phi - analytic| = %.4g m\n", max_err);
        CHECK(max_err <= h / 2, "2 sphere error %.4g", max_err);
    }
    pw_mesh_sdf_destroy(sph);

    /* 3. fine sphere, ~2k triangles, h = 0.02 m: accuracy and the work of the build.
     * The build must stay linear in the mesh: each triangle is measured against the
     * nodes of its bounding box grown by the 2-cell band, at most (e / dx + 6)^3 nodes
     * for a triangle of largest extent e (the UV sphere's widest, at the equator, spans
     * 2 pi r / 32 ~ 0.1 m). A build testing every node against every triangle would do
     * nodes x triangles, ~700 times more here. Its time is a benchmark
     * (tools/bench/bench_mesh_sdf.c), not a test: a busy machine must not fail it. */
    {
        double hf = sanitized ? 0.04 : 0.02, dx = hf / 2;
        snprintf(path, sizeof path, "%s/fine_sphere.obj", POWDER_TEST_TMP);
        int tris = write_sphere(path, 0.5, 32, 32);
        pw_mesh_sdf *fs = NULL;
        CHECK(pw_mesh_sdf_create(path, 1.0, dx, 3 * hf, &fs, &err) == PW_OK, "3 fine: %s",
              err.msg);
        CHECK(tris >= 1900, "3 triangle count %d", tris);
        if (fs) {
            double extent = 2 * 3.141592653589793 * 0.5 / 32, per_tri = ceil(extent / dx) + 6;
            double bound = tris * per_tri * per_tri * per_tri;
            double tests = (double)pw_mesh_sdf_band_tests(fs), nodes = (double)pw_mesh_sdf_nodes(fs);
            printf("3 fine sphere: %d triangles, dx = %g m, %.0f nodes, %.0f band distance "
                   "tests (bound %.0f, all pairs %.3g)\n", tris, dx, nodes, tests, bound,
                   nodes * tris);
            CHECK(tests > 0 && tests <= bound, "3 band tests %.0f above %.0f", tests, bound);
            double a = 0.5 + 3 * hf, side = 2 * a / dx + 2;
            CHECK(nodes <= side * side * side, "3 grid of %.0f nodes for the box", nodes);
        }
        if (fs) {
            double max_err = 0;
            for (int k = 0; k < 20000; k++) {
                double a = 0.5 + 3 * hf;
                vec3 p = v3(a * (2 * urand(&st) - 1), a * (2 * urand(&st) - 1), a * (2 * urand(&st) - 1));
                max_err = fmax(max_err, fabs(pw_mesh_sdf_phi(fs, p, NULL) - (v3_length(p) - 0.5)));
            }
            printf("3 fine sphere: max |phi - analytic| = %.4g m\n", max_err);
            CHECK(max_err <= hf / 2, "3 error %.4g", max_err);
            CHECK(fabs(pw_mesh_sdf_volume(fs) - 4.18879020478639 * 0.125) < 0.02 * 0.5236,
                  "3 volume %g", pw_mesh_sdf_volume(fs));
        }
        pw_mesh_sdf_destroy(fs);
    }

    /* 4. open mesh (cube without its top) is refused, naming the file */
    {
        char text[1024];
        snprintf(path, sizeof path, "%s/open_cube.obj", POWDER_TEST_TMP);
        snprintf(text, sizeof text, "%sf 1 4 3 2\nf 1 2 6 5\nf 2 3 7 6\nf 4 8 7 3\nf 1 5 8 4\n",
                 cube_verts);
        write_text(path, text);
        pw_mesh_sdf *o = NULL;
        pw_status rc = pw_mesh_sdf_create(path, 1.0, 0.05, 0.1, &o, &err);
        CHECK(rc == PW_EFORMAT && o == NULL, "4 open mesh accepted (rc %d)", rc);
        CHECK(strstr(err.msg, "open_cube.obj") && strstr(err.msg, "not closed"), "4 message: %s",
              err.msg);
        printf("4 open mesh: %s\n", err.msg);
    }
    /* 5. one face flipped: closed but inconsistently oriented, refused */
    {
        char text[1024];
        snprintf(path, sizeof path, "%s/flipped_face.obj", POWDER_TEST_TMP);
        snprintf(text, sizeof text,
                 "%sf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 1 4 8 5\n", cube_verts);
        write_text(path, text);
        pw_mesh_sdf *o = NULL;
        CHECK(pw_mesh_sdf_create(path, 1.0, 0.05, 0.1, &o, &err) == PW_EFORMAT && !o,
              "5 inconsistent mesh accepted");
        CHECK(strstr(err.msg, "flipped_face.obj") && strstr(err.msg, "orientation"),
              "5 message: %s", err.msg);
    }
    /* 6. all faces inward: flipped, so the inside is still negative */
    {
        char text[1024];
        snprintf(path, sizeof path, "%s/inward_cube.obj", POWDER_TEST_TMP);
        snprintf(text, sizeof text,
                 "%sf 1 2 3 4\nf 8 7 6 5\nf 5 6 2 1\nf 6 7 3 2\nf 7 8 4 3\nf 5 1 4 8\n", cube_verts);
        write_text(path, text);
        pw_mesh_sdf *o = NULL;
        CHECK(pw_mesh_sdf_create(path, 1.0, 0.05, 0.1, &o, &err) == PW_OK, "6: %s", err.msg);
        if (o) CHECK_NEAR(pw_mesh_sdf_phi(o, v3(0.5, 0.5, 0.5), NULL), -0.5, 1e-6, "6 centre");
        pw_mesh_sdf_destroy(o);
    }
    /* 7. a mesh collider, scaled by 2, offset and translated by keyframes: phi equals
     * the box distance of [0,2]^3 + offset + translation; a missing file is named */
    {
        pw_colliders *cs = pw_colliders_create(h, &err);
        pw_collider_desc d = {.friction = 0.3};
        pw_shape_init(&d.shape, PW_SHAPE_MESH);
        snprintf(d.shape.path, sizeof d.shape.path, "%s/tests/data/cube.obj", POWDER_SOURCE_DIR);
        d.shape.scale = 2;
        d.shape.center = v3(-1, 0, 0);
        d.shape.n_keys = 2;
        d.shape.keys[0] = (pw_keyframe){0, v3(0, 0, 0), v3(0, 1, 0), 0};
        d.shape.keys[1] = (pw_keyframe){1, v3(0, 1, 0), v3(0, 1, 0), 0};
        CHECK(pw_colliders_add(cs, &d, &err) == PW_OK, "7 add mesh: %s", err.msg);
        double max_err = 0;
        for (int k = 0; k < 2000; k++) {
            /* inside the grid: the box [-1,1]x[0.5,2.5]x[0,2] plus the 3h margin */
            vec3 p = v3(-1.3 + 2.6 * urand(&st), 0.2 + 2.6 * urand(&st), -0.3 + 2.6 * urand(&st));
            double expect = box_sdf(p, v3(0, 1.5, 1), 1.0); /* at t = 0.5: +0.5 in y */
            max_err = fmax(max_err, fabs(pw_colliders_phi(cs, 0.5, p) - expect));
        }
        printf("7 moving mesh collider: max error %.4g m\n", max_err);
        CHECK(max_err <= h / 2, "7 error %.4g", max_err);
        /* contact with the moving mesh: velocity relative to its (0, 1, 0) motion */
        vec3 v = v3(0, 0, 0);
        CHECK(pw_colliders_apply(cs, 0.5, v3(0, 2.49, 1), &v, NULL) != PW_CONTACT_NONE, "7 contact on top");
        CHECK_NEAR(v.y, 1.0, 1e-6, "7 pushed with the collider");
        snprintf(d.shape.path, sizeof d.shape.path, "%s/no_such_mesh.obj", POWDER_TEST_TMP);
        CHECK(pw_colliders_add(cs, &d, &err) != PW_OK && strstr(err.msg, "no_such_mesh.obj"),
              "7 missing file message: %s", err.msg);
        pw_colliders_destroy(cs);
    }
    return check_done("collide_mesh_sdf");
}
