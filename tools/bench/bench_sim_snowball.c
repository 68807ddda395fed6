/* bench_sim_snowball — the paper's snowball drop (Stomakhin et al. 2013, Table 3:
 * 3.0e5 particles, 5.2 min/frame on 8 cores): a Table 2 snowball of 3e5 particles at
 * 8 per cell (h = 0.01 m, radius 0.208 m) in a 6 x 3 x 6 m domain, beta = 1,
 * dt_max = 5e-4 s, 24 frames/s, thrown at 4 m/s onto a ground half-space so that the
 * impact (the expensive part: stress, solve iterations) falls in the first frames.
 *
 *   bench_sim_snowball [--frames N] [--particles N] [--threads N] [--speed V]
 *                      [--tolerance T] [--save FILE] [--compare FILE] [--cache FILE]
 *                      [--kernels REPS] [--sweep] [--law 2013|durable|density|pyramid]
 *                      [--kernel cubic|quadratic] [--beta B]
 *
 * --kernel picks the interpolation kernel (sim.kernel; the cubic by default) and --beta
 * the time integration (1, the default: backward Euler; 0: explicit, with the elastic
 * bound at courant 0.5);
 * --tolerance sets cr_tolerance; --save writes the final positions (by particle id,
 * doubles) and --compare reports the largest and RMS distance to a saved run, to see
 * what a solver change or tolerance does to the result; --kernels times the step's
 * particle kernels REPS times each on the final state (CPU ns per particle), for
 * work on one kernel without the noise of a whole run.
 *
 * Prints per frame and in total: seconds per frame (elapsed and process CPU time, the
 * latter unaffected by other processes competing for the cores), particle-steps per
 * second, steps per frame, mean conjugate-residual iterations, the peak resident memory,
 * where the time of a step goes (the solver's phase timers) and the bytes per particle
 * the solver has reserved, array by array.
 *
 * --law picks the snow's law: the 2013 paper's (the default), "durable" (the 2013 clamp
 * then a Drucker-Prager cone: friction 35 deg, cohesion 500 Pa, durability_rate 2), or
 * "density" (durable, with hardening from the grid's density), or "pyramid" (durable on
 * the Mohr-Coulomb pyramid in place of the cone): what the optional laws cost a
 * particle-step (sim/docs/durable-snow.md).
 *
 * --sweep instead runs the same throw at 1e4, 3e4, 1e5, 3e5, 1e6 and 3e6 particles
 * (sizes up to --particles, when given) over the first SWEEP_TIME of simulated time
 * (the fall and the first steps of the impact) and prints, per size, wall time per
 * step, mean CR iterations, steps the solver ran on one thread because the machine
 * looked contended (a busy machine: measure again), reserved bytes and peak RSS per
 * particle, then the least-squares slope of log(wall per step) against log(particles)
 * (1 is linear) over all sizes and over those from 1e5 on (below that the solver uses
 * fewer threads, which flattens the slope). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "constitutive.h"
#include "hessian.h"
#include "mpm_internal.h"
#include "transfer.h"
#include "pw_sim.h"
#include "bench_cpu.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double rand01(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static const char *law_name = "2013"; /* --law */
static pw_kernel_kind kernel_kind = PW_KERNEL_CUBIC; /* --kernel */
static double beta = 1.0;                             /* --beta */

/* A jittered lattice of 8 particles per cell inside the sphere (Table 2 material, under
 * the law --law names). */
static int fill_ball(pw_seeded *sd, vec3 c, double r, double h, vec3 v)
{
    double d = h / 2;
    pw_material mat;
    pw_material_default(&mat);
    if (strcmp(law_name, "2013")) {
        mat.plasticity = strcmp(law_name, "pyramid") ? PW_PLASTICITY_CLAMP_DRUCKER_PRAGER
                                                      : PW_PLASTICITY_CLAMP_MOHR_COULOMB;
        mat.friction_angle = 35;
        mat.cohesion = 500;
        mat.durability_rate = 2;
        if (!strcmp(law_name, "density")) mat.hardening = PW_HARDENING_DENSITY;
    }
    int n = (int)ceil(2 * r / d);
    uint64_t seed = 1;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                vec3 x = v3(c.x - r + (i + rand01(&seed)) * d, c.y - r + (j + rand01(&seed)) * d,
                            c.z - r + (k + rand01(&seed)) * d);
                if (v3_length(v3_sub(x, c)) > r) continue;
                if (pw_seeded_append(sd, x, v, mat.rho0 * d * d * d, mat.E0, mat.rho0, &mat,
                                     NULL) != PW_OK)
                    return -1;
            }
    return 0;
}

/* A sim holding the benchmark's snowball of about `particles` particles, 2 cm above
 * the ground, thrown down at speed [m/s]; NULL after printing why. */
static pw_sim *snowball_sim(int threads, double tolerance, double particles, double speed,
                            size_t *count, double *radius)
{
    pw_sim_params p;
    pw_sim_params_default(&p); /* h 0.01, 6 x 3 x 6 m, beta 1, dt_max 5e-4 */
    p.threads = threads;
    p.kernel = kernel_kind;
    p.beta = beta;
    if (beta == 0) p.courant = 0.5; /* an explicit step is stable only below the elastic
                                       wave's crossing time of a cell */
    if (tolerance > 0) p.cr_tolerance = tolerance;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    if (!s) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    pw_collider_desc ground = {0};
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.center = v3(0, 0.1, 0);
    ground.shape.normal = v3(0, 1, 0);
    ground.friction = 0.5;
    double r = cbrt(3.0 * particles / (4.0 * 3.14159265358979323846 * 8.0)) * p.h; /* 8 per cell */
    pw_seeded sd = {0};
    int bad = pw_sim_add_collider(s, &ground, &err) != PW_OK ||
              fill_ball(&sd, v3(0, 0.1 + r + 0.02, 0), r, p.h, v3(0, -speed, 0)) != 0 ||
              pw_sim_add_particles(s, &sd, &err) != PW_OK;
    *count = sd.n;
    *radius = r;
    pw_seeded_free(&sd); /* the sim has copied it: not part of what a run holds */
    if (bad) {
        fprintf(stderr, "bench: %s\n", err.msg[0] ? err.msg : "out of memory");
        pw_sim_destroy(s);
        return NULL;
    }
    return s;
}

static double peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return 1024.0 * (double)ru.ru_maxrss;
}

/* The solver's reserved bytes per particle, by array group, on one line. */
static void print_memory(const pw_sim *s)
{
    pw_mpm_memory m;
    pw_mpm_memory_report(s, &m);
    double n = (double)s->pt.n;
    printf("memory (reserved bytes per particle):");
    for (int k = 0; k < m.count; k++)
        printf(" %s %.0f%s", m.item[k].name, (double)m.item[k].bytes / n, k + 1 < m.count ? "," : "");
    printf("; total %.0f B/particle; peak RSS %.0f B/particle\n", (double)m.total / n,
           peak_rss_bytes() / n);
}

/* Least-squares slope of y against x over n points. */
static double slope(const double *x, const double *y, int n)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) mx += x[k] / n, my += y[k] / n;
    for (int k = 0; k < n; k++) sxx += (x[k] - mx) * (x[k] - mx), sxy += (x[k] - mx) * (y[k] - my);
    return sxy / sxx;
}

#define SWEEP_TIME 0.01 /* [s] simulated per size: 20 steps of 5e-4, half of them in contact */

/* --sweep: wall per step and memory against the particle count, and the slope. */
static int sweep(int threads, double tolerance, double largest, double speed)
{
    static const double sizes[] = {1e4, 3e4, 1e5, 3e5, 1e6, 3e6};
    double lx[6], ly[6];
    int m = 0, m_small = 0;
    printf("sweep: %.3g s of the throw at %.1f m/s per size, sizes up to %.3g particles\n", SWEEP_TIME,
           speed, largest);
    for (int k = 0; k < 6 && sizes[k] <= largest * 1.0001; k++) {
        size_t n;
        double r;
        pw_sim *s = snowball_sim(threads, tolerance, sizes[k], speed, &n, &r);
        if (!s) return 1;
        pw_error err = {0};
        double t0 = now(), c0 = cpu_now();
        if (pw_sim_advance_to(s, SWEEP_TIME, NULL, NULL, &err) != PW_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            pw_sim_destroy(s);
            return 1;
        }
        double sec = now() - t0, cpu = cpu_now() - c0;
        pw_sim_stats st;
        pw_sim_get_stats(s, &st);
        pw_mpm_memory mem;
        pw_mpm_memory_report(s, &mem);
        double per_step = sec / (double)st.steps;
        printf("sweep %9zu particles: %3llu steps (%llu on 1 thread for contention), %8.2f ms/step "
               "(CPU %8.2f), %.3g particle-steps/s, mean CR %.1f, reserved %.0f B/particle, peak RSS "
               "%.0f B/particle\n",
               n, (unsigned long long)st.steps, (unsigned long long)s->contended_total,
               1e3 * per_step, 1e3 * cpu / (double)st.steps, (double)n / per_step,
               st.cr_iterations_mean, (double)mem.total / (double)n, peak_rss_bytes() / (double)n);
        fflush(stdout);
        lx[m] = log((double)n);
        ly[m] = log(per_step);
        if (sizes[k] < 1e5) m_small = m + 1;
        m++;
        pw_sim_destroy(s);
    }
    if (m >= 2) printf("sweep slope: wall per step ~ particles^%.3f over all %d sizes\n", slope(lx, ly, m), m);
    if (m - m_small >= 2)
        printf("sweep slope: wall per step ~ particles^%.3f over the %d sizes from 1e5 on\n",
               slope(lx + m_small, ly + m_small, m - m_small), m - m_small);
    return 0;
}

/* Writes (save) or compares with (compare) the final positions ordered by id. */
static int compare_positions(const pw_sim *s, const char *save, const char *compare)
{
    size_t n = pw_sim_particle_count(s);
    vec3 *x = malloc(n * sizeof *x);
    if (!x) return -1;
    for (size_t q = 0; q < n; q++) x[pw_sim_particle_ids(s)[q]] = pw_sim_positions(s)[q];
    int rc = 0;
    if (save) {
        FILE *f = fopen(save, "wb");
        rc = !f || fwrite(x, sizeof *x, n, f) != n;
        if (f && fclose(f) != 0) rc = 1;
        if (rc) fprintf(stderr, "bench: cannot write %s\n", save);
    }
    if (compare && !rc) {
        vec3 *y = malloc(n * sizeof *y);
        FILE *f = fopen(compare, "rb");
        rc = !y || !f || fread(y, sizeof *y, n, f) != n;
        if (f) fclose(f);
        if (rc) {
            fprintf(stderr, "bench: cannot read %zu positions from %s\n", n, compare);
        } else {
            double dmax = 0, d2 = 0;
            for (size_t q = 0; q < n; q++) {
                double d = v3_length(v3_sub(x[q], y[q]));
                dmax = fmax(dmax, d);
                d2 += d * d;
            }
            printf("vs %s: max distance %.3g m, RMS %.3g m\n", compare, dmax, sqrt(d2 / (double)n));
        }
        free(y);
    }
    free(x);
    return rc;
}

/* Times the step's kernels on the final state, each repeated reps times: CPU time per
 * particle, which other processes on the machine inflate far less than wall time. */
static int time_kernels(pw_sim *s, int reps)
{
    pw_error err = {0};
    if (pw_mpm_begin_step(s, &err) != PW_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    pw_mpm_p2g(s);
    double n = (double)s->pt.n * reps;
    double c0 = cpu_now();
    for (int k = 0; k < reps; k++) pw_mpm_prepare_stress(s);
    double c1 = cpu_now();
    for (int k = 0; k < reps; k++) pw_mpm_grid_forces(s, NULL);
    double c2 = cpu_now();
    size_t nn = pw_grid_node_count(&s->grid);
    for (size_t i = 0; i < nn; i++) {
        pw_vec4f u = {(float)sin(0.1 * (double)i), (float)cos(0.2 * (double)i),
                      (float)sin(0.3 * (double)i + 1), 0.f};
        s->u4[i] = u;
    }
    for (int k = 0; k < reps; k++) pw_mpm_hessian_action4(s, s->u4, s->Hu4);
    double c3 = cpu_now();
    for (int k = 0; k < reps; k++) pw_mpm_hessian_diagonal(s, s->Hu4);
    double c4 = cpu_now();
    printf("kernels (CPU ns per particle, %d repetitions): linearised stress %.1f, forces %.1f, "
           "Hessian action %.1f, Hessian diagonal %.1f\n",
           reps, 1e9 * (c1 - c0) / n, 1e9 * (c2 - c1) / n, 1e9 * (c3 - c2) / n, 1e9 * (c4 - c3) / n);
    return 0;
}

int main(int argc, char **argv)
{
    int frames = 1, threads = 0, do_sweep = 0;
    double particles = 0, speed = 4.0, tolerance = 0;
    const char *save = NULL, *compare = NULL, *cache = NULL;
    int kernels = 0;
    for (int k = 1; k < argc; k += 2) {
        if (!strcmp(argv[k], "--sweep")) {
            do_sweep = 1;
            k--;
            continue;
        }
        if (k + 1 >= argc) k = argc - 1; /* a lone or trailing flag (--help): usage */
        if (!strcmp(argv[k], "--frames")) frames = atoi(argv[k + 1]);
        else if (!strcmp(argv[k], "--particles")) particles = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--threads")) threads = atoi(argv[k + 1]);
        else if (!strcmp(argv[k], "--speed")) speed = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--tolerance")) tolerance = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--save")) save = argv[k + 1];
        else if (!strcmp(argv[k], "--compare")) compare = argv[k + 1];
        else if (!strcmp(argv[k], "--cache")) cache = argv[k + 1];
        else if (!strcmp(argv[k], "--kernels")) kernels = atoi(argv[k + 1]);
        else if (!strcmp(argv[k], "--law") &&
                 (!strcmp(argv[k + 1], "2013") || !strcmp(argv[k + 1], "durable") ||
                  !strcmp(argv[k + 1], "density") || !strcmp(argv[k + 1], "pyramid")))
            law_name = argv[k + 1];
        else if (!strcmp(argv[k], "--kernel") &&
                 (!strcmp(argv[k + 1], "cubic") || !strcmp(argv[k + 1], "quadratic")))
            kernel_kind = strcmp(argv[k + 1], "cubic") ? PW_KERNEL_QUADRATIC : PW_KERNEL_CUBIC;
        else if (!strcmp(argv[k], "--beta") && atof(argv[k + 1]) >= 0 && atof(argv[k + 1]) <= 1)
            beta = atof(argv[k + 1]);
        else {
            fprintf(stderr, "usage: %s [--frames N] [--particles N] [--threads N] [--speed V] "
                            "[--tolerance T] [--save FILE] [--compare FILE] [--cache FILE.pwc] "
                            "[--kernels REPS] [--sweep] [--law 2013|durable|density|pyramid] "
                            "[--kernel cubic|quadratic] [--beta B]\n",
                    argv[0]);
            return 2;
        }
    }
    bench_print_cpu();
    if (do_sweep) return sweep(threads, tolerance, particles > 0 ? particles : 3e6, speed);
    size_t count;
    double r;
    pw_sim *s = snowball_sim(threads, tolerance, particles > 0 ? particles : 3e5, speed, &count, &r);
    if (!s) return 1;
    pw_error err = {0};
    printf("snowball: %zu particles, radius %.4f m, h %.3g m, %d frames at 24 fps, %s kernel, "
           "beta %g\n", count, r, s->p.h, frames,
           kernel_kind == PW_KERNEL_CUBIC ? "cubic" : "quadratic", s->p.beta);
    double t_total = 0, cpu_total = 0;
    uint64_t steps_total = 0;
    for (int f = 1; f <= frames; f++) {
        pw_sim_stats a, b;
        pw_sim_get_stats(s, &a);
        double t0 = now(), c0 = cpu_now();
        if (pw_sim_advance_to(s, f / 24.0, NULL, NULL, &err) != PW_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        double sec = now() - t0, cpu = cpu_now() - c0;
        pw_sim_get_stats(s, &b);
        uint64_t steps = b.steps - a.steps;
        double cr = (b.cr_iterations_mean * (double)b.steps - a.cr_iterations_mean * (double)a.steps) /
                    (double)(steps ? steps : 1);
        vec3 com = v3_zero();
        for (size_t q = 0; q < b.particles; q++)
            com = v3_madd(com, pw_sim_positions(s)[q], 1.0 / (double)b.particles);
        printf("frame %d: centre of mass (%.9f, %.9f, %.9f) m\n", f, com.x, com.y, com.z);
        printf("frame %d: %.2f s/frame (CPU %.2f s), %llu steps, %.3g particle-steps/s, mean CR "
               "%.1f, blocks %zu, max |v| %.2f m/s\n",
               f, sec, cpu, (unsigned long long)steps, (double)b.particles * (double)steps / sec, cr,
               b.active_blocks, b.max_speed);
        fflush(stdout);
        t_total += sec;
        cpu_total += cpu;
        steps_total += steps;
    }
    pw_sim_stats st;
    pw_sim_get_stats(s, &st);
    printf("total: %.2f s/frame (CPU %.2f s/frame, %d threads, %llu steps on 1 for contention), "
           "%.2f steps/frame, %.3g particle-steps/s, mean CR %.1f, not converged %llu, peak RSS "
           "%.0f MB\n",
           t_total / frames, cpu_total / frames, s->threads_max,
           (unsigned long long)s->contended_total, (double)steps_total / frames,
           (double)st.particles * (double)steps_total / t_total, st.cr_iterations_mean,
           (unsigned long long)st.cr_not_converged, peak_rss_bytes() / (1024.0 * 1024.0));
    print_memory(s);
    static const char *phase[PW_PHASE_COUNT] = {"rebuild/sort", "P2G", "forces", "solve",
                                                "F update", "G2P+advect"};
    double wall_sum = 0;
    for (int k = 0; k < PW_PHASE_COUNT; k++) wall_sum += s->prof.wall[k];
    printf("per step:");
    for (int k = 0; k < PW_PHASE_COUNT; k++)
        printf(" %s %.1f ms (CPU %.1f ms, %.0f%%)%s", phase[k],
               1e3 * s->prof.wall[k] / (double)st.steps, 1e3 * s->prof.cpu[k] / (double)st.steps,
               100 * s->prof.wall[k] / wall_sum, k + 1 < PW_PHASE_COUNT ? "," : "\n");
    if (compare_positions(s, save, compare) != 0) return 1;
    if (cache) { /* the last frame as a cache, e.g. for bench_render_snowball */
        pw_error err = {0};
        if (pw_sim_save(s, cache, frames, 0, &err) != PW_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        printf("cache: %s\n", cache);
    }
    if (kernels > 0 && time_kernels(s, kernels) != 0) return 1;
    pw_sim_destroy(s);
    return 0;
}
