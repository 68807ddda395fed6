/* bench_resting_field — what a resting snow field costs as it grows.
 *
 * A bed of snow 0.06 m deep (h = 0.02 m, 8 particles a cell) settles and sleeps; then a
 * box is dragged through its middle for 0.25 s. The same action in beds of 1x, 4x and
 * 16x the area: with resting snow on, only the snow the box disturbs should cost, so
 * the time of the action should barely grow with the bed. Printed per size: particles,
 * stepped particles at the end, the share of particle-steps taken, CPU seconds of the
 * action and per frame of 1/24 s, and the same with every particle stepped (--awake-too,
 * slow for the large beds).
 *
 * After each run it prints what the solver holds (pw_mpm_memory_report), split into the
 * particles' state (what a resting particle must keep to wake), the scratch held for
 * every particle (the SVD each Fe keeps, the sort), the scratch held for the stepped
 * ones only, and the grid and solve (sized by the stepped snow's nodes): the bytes a
 * stepped and a resting particle cost, and what a resting one needs.
 *
 * usage: bench_resting_field [--sizes 1,4,16] [--threads N] [--awake-too | --awake-only] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpm_internal.h"
#include "pw_sim.h"
#include "seed.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static pw_sim *field(double area, int rest, int threads)
{
    const double h = 0.02, half = 0.16 * sqrt(area);
    pw_sim_params p;
    pw_sim_params_default(&p);
    p.h = h;
    p.domain_min = v3(-half - 0.1, -0.06, -half - 0.1);
    p.domain_max = v3(half + 0.1, 0.3, half + 0.1);
    p.dt_max = 1e-3;
    p.threads = threads;
    if (rest) {
        p.rest_speed = 0.02;
        p.wake_speed = 0.1;
    }
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    if (!s) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    pw_collider_desc ground = {0};
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.normal = v3(0, 1, 0);
    ground.friction = 0.5;
    /* a box 6 cm wide, its bottom 2 cm into the bed, dragged along x from t = 0.4 s */
    pw_collider_desc box = {0};
    pw_shape_init(&box.shape, PW_SHAPE_BOX);
    box.shape.half_extents = v3(0.03, 0.04, 0.03);
    box.shape.n_keys = 3;
    box.shape.keys[0] = (pw_keyframe){0, v3(-0.1, 0.08, 0), v3(0, 1, 0), 0};
    box.shape.keys[1] = (pw_keyframe){0.4, v3(-0.1, 0.08, 0), v3(0, 1, 0), 0};
    box.shape.keys[2] = (pw_keyframe){0.65, v3(0.1, 0.08, 0), v3(0, 1, 0), 0};
    pw_body_desc b;
    memset(&b, 0, sizeof b);
    pw_shape_init(&b.add[0], PW_SHAPE_BOX);
    b.add[0].center = v3(0, 0.03, 0);
    b.add[0].half_extents = v3(half, 0.03, half);
    b.n_add = 1;
    b.particles_per_cell = 8;
    b.seed = 3;
    pw_material mat;
    pw_material_default(&mat);
    pw_seeded sd = {0};
    int ok = pw_sim_add_collider(s, &ground, &err) == PW_OK &&
             pw_sim_add_collider(s, &box, &err) == PW_OK &&
             pw_seed_body(&b, &mat, h, &sd, &err) == PW_OK &&
             pw_sim_add_particles(s, &sd, &err) == PW_OK;
    pw_seeded_free(&sd);
    if (!ok) {
        fprintf(stderr, "bench: %s\n", err.msg);
        pw_sim_destroy(s);
        return NULL;
    }
    return s;
}

/* The memory report by what each part's size follows (see the top), per particle and
 * in all. */
static void print_memory(const pw_sim *s, size_t stepped)
{
    pw_mpm_memory m;
    pw_mpm_memory_report(s, &m);
    double by_kind[4] = {0};
    for (int k = 0; k < m.count; k++) by_kind[m.item[k].kind] += (double)m.item[k].bytes;
    double n = (double)s->pt.n, per_stepped = stepped ? 1.0 / (double)stepped : 0;
    double resting = (by_kind[PW_MEM_STATE] + by_kind[PW_MEM_EVERY]) / n;
    printf("        memory: state %.0f B a particle, scratch for every particle %.0f B, "
           "scratch for the %zu stepped %.1f MB, grid and solve %.1f MB: a resting particle "
           "%.0f B (it needs %.0f), a stepped one %.0f B\n",
           by_kind[PW_MEM_STATE] / n, by_kind[PW_MEM_EVERY] / n, stepped,
           by_kind[PW_MEM_STEPPED] / 1e6, by_kind[PW_MEM_NODES] / 1e6, resting,
           by_kind[PW_MEM_STATE] / n,
           resting + (by_kind[PW_MEM_STEPPED] + by_kind[PW_MEM_NODES]) * per_stepped);
}

static int run(double area, int rest, int threads)
{
    pw_sim *s = field(area, rest, threads);
    if (!s) return 1;
    pw_error err = {0};
    double c0 = cpu_seconds();
    int ok = pw_sim_advance_to(s, 0.4, NULL, NULL, &err) == PW_OK; /* settle (and sleep) */
    double c1 = cpu_seconds();
    pw_sim_stats before, after;
    pw_sim_get_stats(s, &before);
    ok = ok && pw_sim_advance_to(s, 0.65, NULL, NULL, &err) == PW_OK; /* the box's drag */
    double c2 = cpu_seconds();
    pw_sim_get_stats(s, &after);
    if (!ok) {
        fprintf(stderr, "bench: %s\n", err.msg);
        pw_sim_destroy(s);
        return 1;
    }
    printf("%5gx  %-7s %9zu particles  %8zu stepped at the end  settle %7.2f s  drag %7.2f s "
           "(%6.3f s a frame of 1/24 s)\n",
           area, rest ? "resting" : "awake", after.particles, after.particles_stepped, c1 - c0,
           c2 - c1, (c2 - c1) / (0.25 * 24));
    print_memory(s, after.particles_stepped);
    fflush(stdout);
    pw_sim_destroy(s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *sizes = "1,4,16";
    int threads = 0, awake = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc) sizes = argv[++a];
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--awake-too")) awake = 1;
        else if (!strcmp(argv[a], "--awake-only")) awake = 2;
        else {
            fprintf(stderr, "usage: bench_resting_field [--sizes 1,4,16] [--threads N] "
                            "[--awake-too | --awake-only]\n");
            return 2;
        }
    }
    printf("bench_resting_field: CPU seconds (process CPU time, all threads)\n");
    for (const char *c = sizes; *c;) {
        char *end;
        double area = strtod(c, &end);
        if (end == c || !(area > 0)) {
            fprintf(stderr, "bench: bad size in '%s'\n", sizes);
            return 2;
        }
        if ((awake < 2 && run(area, 1, threads)) || (awake && run(area, 0, threads))) return 1;
        c = *end == ',' ? end + 1 : end;
    }
    return 0;
}
