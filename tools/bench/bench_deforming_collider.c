/* bench_deforming_collider — what a deforming mesh collider (an OBJ sequence) costs: the
 * walking character of scenes/assets (build target character-assets-paper for the
 * 20k-triangle one) read and checked, moved to each substep's time (vertices on their
 * cubics, normals, Embree refit), and asked for distances at grid nodes near its feet.
 *
 *   bench_deforming_collider [PATTERN FIRST LAST] [--substeps-per-frame N] [--queries Q]
 *
 * Prints the CPU, triangles and parts, the read time, the time per placement, ns per
 * distance query near the surface and far from it, and their sum for one 24 fps frame
 * at N substeps with Q queries each (defaults 20 and 20,000: the snow nodes about two
 * feet at h = 1 cm). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cpu.h"
#include "collide.h"
#include "mesh_deform.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *pattern = POWDER_SOURCE_DIR "/scenes/assets/walker_paper/walker.####.obj";
    int first = 1, last = 49, substeps = 20, queries = 20000, a = 1;
    if (argc > 3 && argv[1][0] != '-') {
        pattern = argv[1], first = atoi(argv[2]), last = atoi(argv[3]);
        a = 4;
    }
    for (; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--substeps-per-frame")) substeps = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--queries")) queries = atoi(argv[a + 1]);
    }
    pw_shape sh;
    pw_shape_init(&sh, PW_SHAPE_MESH);
    snprintf(sh.path, sizeof sh.path, "%s", pattern);
    sh.seq_first = first, sh.seq_last = last, sh.seq_step = 1, sh.seq_fps = 24;
    pw_error err = {0};
    pw_mesh_deform *d = NULL;
    double t0 = now();
    if (pw_mesh_deform_create(&sh, &d, &err) != PW_OK) {
        fprintf(stderr, "bench_deforming_collider: %s\n", err.msg);
        return 1;
    }
    double t_read = now() - t0;
    bench_print_cpu();
    printf("mesh                 %s, files %d..%d\n", pattern, first, last);
    printf("triangles            %zu in %d parts\n", pw_mesh_deform_triangles(d),
           pw_mesh_deform_components(d));
    printf("read and check       %.3f s (%d files)\n", t_read, last - first + 1);

    int n_place = substeps * (last - first);
    t0 = now();
    for (int k = 0; k < n_place; k++) pw_mesh_deform_at(d, (k + 0.5) / (24.0 * substeps), &err);
    double t_place = (now() - t0) / n_place;
    printf("placement            %.3f ms per substep (vertices, normals, refit)\n", 1e3 * t_place);

    /* queries at points a few cm around the feet: the character's lowest 0.15 m */
    double t_mid = 0.5 * (last - first) / 24.0;
    pw_mesh_deform_at(d, t_mid, &err);
    unsigned r = 1;
    double sum = 0;
    int n_near = 0;
    vec3 *p = malloc((size_t)queries * sizeof *p);
    /* the character's bounds near the ground from a coarse scan */
    vec3 lo = v3(INFINITY, 0, INFINITY), hi = v3(-INFINITY, 0.15, -INFINITY);
    for (double x = -5; x <= 5; x += 0.05)
        for (double z = -5; z <= 5; z += 0.05) {
            vec3 q = v3(x, 0.05, z);
            if (pw_mesh_deform_phi(d, q, 0.1, NULL, NULL) < 0.1) {
                lo = v3_min(lo, v3(x - 0.1, 0, z - 0.1));
                hi = v3_max(hi, v3(x + 0.1, 0.15, z + 0.1));
            }
        }
    for (int i = 0; i < queries; i++) {
        double u[3];
        for (int c = 0; c < 3; c++) r = r * 1103515245u + 12345u, u[c] = (r >> 8) / 16777216.0;
        p[i] = v3(lo.x + u[0] * (hi.x - lo.x), lo.y + u[1] * (hi.y - lo.y), lo.z + u[2] * (hi.z - lo.z));
    }
    t0 = now();
    for (int i = 0; i < queries; i++) {
        vec3 n, v;
        double phi = pw_mesh_deform_phi(d, p[i], 0.32, &n, &v);
        sum += phi;
        n_near += fabs(phi) < 0.03;
    }
    double t_query = (now() - t0) / queries;
    t0 = now();
    for (int i = 0; i < queries; i++) sum += pw_mesh_deform_phi(d, v3_add(p[i], v3(0, 0, 3)), 0, NULL, NULL);
    double t_far = (now() - t0) / queries;
    printf("query near the feet  %.0f ns (%d of %d within 3 cm of the surface)\n", 1e9 * t_query,
           n_near, queries);
    printf("query far from it    %.0f ns\n", 1e9 * t_far);
    printf("per 24 fps frame     %.3f s at %d substeps x %d queries, one thread\n",
           substeps * (t_place + queries * t_query), substeps, queries);
    if (sum == 12345.678) printf("\n"); /* keep the loops */
    free(p);
    pw_mesh_deform_destroy(d);
    return 0;
}
