/* Property: the OBJ reader returns exactly the mesh the text describes.
 * - Vertex values are the float nearest to the decimal text, so they compare exactly
 *   (tolerance 0) with the same literal converted by the compiler.
 * - Polygons are fan-triangulated: an n-gon gives n-2 triangles (first, k, k+1).
 * - Negative indices count back from the last vertex read; v/vt, v//vn and v/vt/vn
 *   corners give the same triangles as plain v corners.
 * - The shipped cube and sphere are closed and outward-facing: every directed edge
 *   appears once and its reverse once, and the divergence-theorem volume equals the
 *   analytic volume (cube: exactly 1 m^3; UV sphere 12x8 of radius 0.5: between the
 *   polyhedron bound 0.85 * 4/3 pi r^3 and 4/3 pi r^3, since an inscribed polyhedron
 *   is smaller than its sphere but this one is within 15%). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_obj.h"

static int parse(const char *text, pw_mesh *m, pw_error *err)
{
    return pw_obj_parse("test.obj", text, strlen(text), m, err);
}

static int tri_is(const pw_mesh *m, size_t t, uint32_t a, uint32_t b, uint32_t c)
{
    const uint32_t *x = m->triangles + 3 * t;
    return x[0] == a && x[1] == b && x[2] == c;
}

/* Signed volume by the divergence theorem, and whether every directed edge (a,b) has
 * exactly one reverse (b,a) and appears once itself. */
static double volume_and_closed(const pw_mesh *m, int *closed)
{
    double vol = 0;
    *closed = 1;
    size_t ne = 3 * m->n_triangles;
    uint32_t(*e)[2] = malloc(ne * sizeof *e);
    for (size_t t = 0; t < m->n_triangles; t++) {
        const float *p[3];
        for (int k = 0; k < 3; k++) p[k] = m->vertices + 3 * m->triangles[3 * t + k];
        vol += (p[0][0] * ((double)p[1][1] * p[2][2] - (double)p[1][2] * p[2][1]) -
                p[0][1] * ((double)p[1][0] * p[2][2] - (double)p[1][2] * p[2][0]) +
                p[0][2] * ((double)p[1][0] * p[2][1] - (double)p[1][1] * p[2][0])) /
               6.0;
        for (int k = 0; k < 3; k++) {
            e[3 * t + k][0] = m->triangles[3 * t + k];
            e[3 * t + k][1] = m->triangles[3 * t + (k + 1) % 3];
        }
    }
    for (size_t a = 0; a < ne; a++) {
        int same = 0, rev = 0;
        for (size_t b = 0; b < ne; b++) {
            same += e[b][0] == e[a][0] && e[b][1] == e[a][1];
            rev += e[b][0] == e[a][1] && e[b][1] == e[a][0];
        }
        if (same != 1 || rev != 1) *closed = 0;
    }
    free(e);
    return vol;
}

int main(void)
{
    pw_error err = {0};
    pw_mesh m;

    /* 1. one triangle, exact vertex values including exponent and sign forms */
    CHECK(parse("v 0.1 -2.5e-3 3\nv 1e2 +7 -0\nv 123456.789 1e-40 .5\nf 1 2 3\n", &m,
                &err) == PW_OK,
          "%s", err.msg);
    CHECK(m.n_vertices == 3 && m.n_triangles == 1, "%zu %zu", m.n_vertices, m.n_triangles);
    const float want[9] = {0.1f, -2.5e-3f, 3.0f, 1e2f, 7.0f, -0.0f, 123456.789f, 1e-40f, .5f};
    for (int k = 0; k < 9 && m.vertices; k++)
        CHECK(m.vertices[k] == want[k], "vertex value %d: %.9g vs %.9g", k, m.vertices[k],
              want[k]);
    CHECK(m.triangles && tri_is(&m, 0, 0, 1, 2), "triangle");
    pw_mesh_free(&m);
    CHECK(m.vertices == NULL && m.n_vertices == 0, "pw_mesh_free zeroes");

    /* 2. a quad and a pentagon are fanned from their first corner */
    CHECK(parse("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 1 0\nf 1 2 3 4\nf 1 2 3 4 5\n", &m,
                &err) == PW_OK,
          "%s", err.msg);
    CHECK(m.n_triangles == 5, "quad + pentagon: %zu triangles, want 5", m.n_triangles);
    CHECK(tri_is(&m, 0, 0, 1, 2) && tri_is(&m, 1, 0, 2, 3), "quad fan");
    CHECK(tri_is(&m, 2, 0, 1, 2) && tri_is(&m, 3, 0, 2, 3) && tri_is(&m, 4, 0, 3, 4),
          "pentagon fan");
    pw_mesh_free(&m);

    /* 3. negative indices are relative to the vertices read so far */
    CHECK(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -1 -3\n", &m, &err) ==
              PW_OK,
          "%s", err.msg);
    CHECK(m.n_triangles == 2 && tri_is(&m, 0, 0, 1, 2) && tri_is(&m, 1, 0, 3, 1),
          "negative indices");
    pw_mesh_free(&m);

    /* 4. v/vt, v//vn, v/vt/vn corners, CRLF line ends, comments and other records */
    CHECK(parse("# header\r\nmtllib a.mtl\r\no thing\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\n"
                "vt 0 0\r\nvt 1 0\r\nvn 0 0 1\r\ng grp\r\nusemtl snow\r\ns 1\r\n"
                "f 1/1 2/2 3/1 # trailing comment\r\nf 1//1 2//1 3//1\r\n"
                "f 1/2/1 2/1/1 -1/-1/-1\r\nl 1 2\r\n",
                &m, &err) == PW_OK,
          "%s", err.msg);
    CHECK(m.n_vertices == 3 && m.n_triangles == 3, "%zu %zu", m.n_vertices, m.n_triangles);
    for (size_t t = 0; t < m.n_triangles; t++)
        CHECK(tri_is(&m, t, 0, 1, 2), "triangle %zu from vt/vn corners", t);
    pw_mesh_free(&m);

    /* 5. the last line may lack a newline; tabs separate tokens; w and rgb extras */
    CHECK(parse("v\t0 0 0 1\nv 1 0 0 0.5 0.5 0.5\nv 0 1 0\nf 1\t2 3", &m, &err) == PW_OK,
          "%s", err.msg);
    CHECK(m.n_triangles == 1 && m.vertices && m.vertices[3] == 1.0f, "no final newline");
    pw_mesh_free(&m);

    /* 6. the shipped cube: 8 vertices, 6 quads -> 12 triangles, closed, volume 1 */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/cube.obj", POWDER_SOURCE_DIR);
    CHECK(pw_obj_read(path, &m, &err) == PW_OK, "%s", err.msg);
    CHECK(m.n_vertices == 8 && m.n_triangles == 12, "cube: %zu vertices %zu triangles",
          m.n_vertices, m.n_triangles);
    int closed = 0;
    if (m.n_triangles) {
        double vol = volume_and_closed(&m, &closed);
        CHECK(closed, "cube is closed and consistently oriented");
        CHECK_NEAR(vol, 1.0, 1e-12, "cube volume [m^3]");
        printf("cube: volume %.15g m^3\n", vol);
    }
    pw_mesh_free(&m);

    /* 7. the shipped sphere: closed, outward, volume close to 4/3 pi r^3 */
    snprintf(path, sizeof path, "%s/tests/data/sphere.obj", POWDER_SOURCE_DIR);
    CHECK(pw_obj_read(path, &m, &err) == PW_OK, "%s", err.msg);
    CHECK(m.n_vertices == 86 && m.n_triangles == 168, "sphere: %zu vertices %zu triangles",
          m.n_vertices, m.n_triangles);
    if (m.n_triangles) {
        double vol = volume_and_closed(&m, &closed);
        double v_ball = 4.0 / 3.0 * 3.14159265358979323846 * 0.125;
        CHECK(closed, "sphere is closed and consistently oriented");
        CHECK(vol > 0.85 * v_ball && vol < v_ball, "sphere volume %.6g vs ball %.6g", vol,
              v_ball);
        printf("sphere: volume %.6g m^3 = %.4f of the ball\n", vol, vol / v_ball);
        for (size_t i = 0; i < m.n_vertices; i++) {
            const float *p = m.vertices + 3 * i;
            double r = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
            CHECK_NEAR(r, 0.5, 1e-6, "sphere vertex radius [m]");
        }
    }
    pw_mesh_free(&m);

    /* 8. pw_mesh_free(NULL) is a no-op */
    pw_mesh_free(NULL);
    return check_done("obj_reads_meshes");
}
