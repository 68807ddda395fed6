/* bench_mesh_sdf — building the signed distance grid of a mesh collider: a UV sphere of
 * radius 0.5 m with 2 (nseg (nring - 1)) triangles, at grid spacings dx from 0.02 m
 * down, with the collider's 3-cell margin.
 *
 *   bench_mesh_sdf [--segments N] [--reps R]
 *
 * Prints, per dx: nodes, triangles, narrow-band distance tests, build time (best of
 * R), ns per node and per band test. The collide_mesh_sdf test asserts the work
 * (band tests within a formula); the time lives here because it depends on the load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh_sdf.h"
#include "bench_cpu.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* UV sphere of radius r, nseg around and nring bands, outward faces, in memory */
static int uv_sphere(pw_mesh *m, double r, int nseg, int nring)
{
    m->n_vertices = 2 + (size_t)(nring - 1) * (size_t)nseg;
    m->n_triangles = 2 * (size_t)nseg * (size_t)(nring - 1);
    m->vertices = malloc(3 * m->n_vertices * sizeof *m->vertices);
    m->triangles = malloc(3 * m->n_triangles * sizeof *m->triangles);
    if (!m->vertices || !m->triangles) return 0;
    float *v = m->vertices;
    uint32_t *t = m->triangles;
    *v++ = 0, *v++ = (float)r, *v++ = 0;
    for (int i = 1; i < nring; i++)
        for (int j = 0; j < nseg; j++) {
            double th = 3.141592653589793 * i / nring, ph = 6.283185307179586 * j / nseg;
            *v++ = (float)(r * sin(th) * cos(ph));
            *v++ = (float)(r * cos(th));
            *v++ = (float)(-r * sin(th) * sin(ph));
        }
    *v++ = 0, *v++ = (float)-r, *v++ = 0;
    uint32_t bottom = (uint32_t)m->n_vertices - 1;
    for (int j = 0; j < nseg; j++) *t++ = 0, *t++ = 1 + j, *t++ = 1 + (j + 1) % nseg;
    for (int i = 0; i < nring - 2; i++)
        for (int j = 0; j < nseg; j++) {
            uint32_t a = 1 + i * nseg + j, b = 1 + i * nseg + (j + 1) % nseg;
            *t++ = a, *t++ = a + nseg, *t++ = b + nseg;
            *t++ = a, *t++ = b + nseg, *t++ = b;
        }
    for (int j = 0; j < nseg; j++) {
        uint32_t a = 1 + (nring - 2) * nseg + j, b = 1 + (nring - 2) * nseg + (j + 1) % nseg;
        *t++ = a, *t++ = bottom, *t++ = b;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int nseg = 32, reps = 3;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--segments")) nseg = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--reps")) reps = atoi(argv[a + 1]);
        else {
            fprintf(stderr, "usage: bench_mesh_sdf [--segments N] [--reps R]\n");
            return 2;
        }
    }
    if (nseg < 3 || reps < 1) {
        fprintf(stderr, "bench_mesh_sdf: --segments >= 3 and --reps >= 1\n");
        return 2;
    }
    pw_mesh mesh = {0};
    if (!uv_sphere(&mesh, 0.5, nseg, nseg)) {
        fprintf(stderr, "bench_mesh_sdf: out of memory\n");
        return 1;
    }
    bench_print_cpu();
    printf("%8s %10s %9s %12s %10s %10s %10s\n", "dx [m]", "nodes", "triangles", "band tests",
           "build [s]", "ns/node", "ns/test");
    const double spacings[] = {0.02, 0.01, 0.005};
    for (int k = 0; k < 3; k++) {
        double dx = spacings[k], best = INFINITY;
        size_t nodes = 0, tests = 0;
        for (int r = 0; r < reps; r++) {
            pw_mesh_sdf *s = NULL;
            pw_error err = {0};
            double t0 = now();
            if (pw_mesh_sdf_build(&mesh, "uv sphere", 1.0, dx, 3 * dx, &s, &err) != PW_OK) {
                fprintf(stderr, "bench_mesh_sdf: %s\n", err.msg);
                return 1;
            }
            best = fmin(best, now() - t0);
            nodes = pw_mesh_sdf_nodes(s);
            tests = pw_mesh_sdf_band_tests(s);
            pw_mesh_sdf_destroy(s);
        }
        printf("%8.3f %10zu %9zu %12zu %10.4f %10.1f %10.1f\n", dx, nodes, mesh.n_triangles, tests,
               best, 1e9 * best / (double)nodes, 1e9 * best / (double)tests);
    }
    free(mesh.vertices);
    free(mesh.triangles);
    return 0;
}
