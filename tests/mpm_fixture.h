/* mpm_fixture.h — small particle bodies for the solver tests, placed without the
 * seeder's sampling so the solver's tests depend only on the solver and a regular
 * lattice: a jittered lattice of k^3 particles per cell inside a box or a sphere,
 * Table 2 material, each particle made by pw_seeded_append. */
#ifndef PW_TEST_MPM_FIXTURE_H
#define PW_TEST_MPM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constitutive.h"
#include "pw_file.h"
#include "pw_sim.h"
#include "seed.h"

typedef struct {
    vec3 lo, hi;          /* [m] bounding box of the body                 */
    int sphere;           /* 1: only the ball inscribed in the box        */
    int k;                /* particles per cell per axis (2 -> 8 ppc)      */
    double h;             /* [m] grid spacing                              */
    double rho;           /* [kg/m^3]                                      */
    double E, nu;         /* [Pa], [-]                                     */
    vec3 v;               /* [m/s] initial velocity                        */
    vec3 omega;           /* [rad/s] spin about the box centre             */
    unsigned seed;        /* jitter; 0 = regular lattice                   */
} fixture_body;

static inline void fixture_default(fixture_body *b, vec3 lo, vec3 hi, double h)
{
    memset(b, 0, sizeof *b);
    b->lo = lo;
    b->hi = hi;
    b->k = 2;
    b->h = h;
    b->rho = 400;
    b->E = 1.4e5;
    b->nu = 0.2;
    b->seed = 7;
}

static inline double fixture_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (*s >> 8) * (1.0 / 16777216.0);
}

/* Appends the body's particles to out. */
static inline void fixture_fill(pw_seeded *out, const fixture_body *b)
{
    double d = b->h / b->k;
    vec3 c = v3_scale(v3_add(b->lo, b->hi), 0.5);
    double r = 0.5 * fmin(fmin(b->hi.x - b->lo.x, b->hi.y - b->lo.y), b->hi.z - b->lo.z);
    int nx = (int)floor((b->hi.x - b->lo.x) / d + 1e-9), ny = (int)floor((b->hi.y - b->lo.y) / d + 1e-9),
        nz = (int)floor((b->hi.z - b->lo.z) / d + 1e-9);
    pw_material mat;
    pw_material_default(&mat); /* Table 2, with the body's E, nu and density */
    mat.E0 = b->E;
    mat.nu = b->nu;
    mat.rho0 = b->rho;
    unsigned s = b->seed;
    for (int kz = 0; kz < nz; kz++)
        for (int ky = 0; ky < ny; ky++)
            for (int kx = 0; kx < nx; kx++) {
                double jx = 0.5, jy = 0.5, jz = 0.5;
                if (b->seed) {
                    jx = 0.2 + 0.6 * fixture_rand(&s);
                    jy = 0.2 + 0.6 * fixture_rand(&s);
                    jz = 0.2 + 0.6 * fixture_rand(&s);
                }
                vec3 x = v3(b->lo.x + (kx + jx) * d, b->lo.y + (ky + jy) * d, b->lo.z + (kz + jz) * d);
                if (b->sphere && v3_length(v3_sub(x, c)) > r) continue;
                vec3 v = v3_add(b->v, v3_cross(b->omega, v3_sub(x, c)));
                if (pw_seeded_append(out, x, v, b->rho * d * d * d, b->E, b->rho, &mat, NULL) !=
                    PW_OK)
                    exit(3);
            }
}

static inline void fixture_free(pw_seeded *s) { pw_seeded_free(s); }

/* Adds the seeded particles to s and frees them; a refusal ends the test (exit 1). */
static inline void fixture_add_or_exit(pw_sim *s, pw_seeded *seeded)
{
    pw_error err = {0};
    if (pw_sim_add_particles(s, seeded, &err) != PW_OK) {
        fprintf(stderr, "add: %s\n", err.msg);
        exit(1);
    }
    pw_seeded_free(seeded);
}

/* Adds body b's particles to s. */
static inline pw_status fixture_add(pw_sim *s, const fixture_body *b, pw_error *err)
{
    pw_seeded seeded = {0};
    fixture_fill(&seeded, b);
    pw_status rc = pw_sim_add_particles(s, &seeded, err);
    fixture_free(&seeded);
    return rc;
}

/* 1 when both files exist, are non-empty and hold the same bytes. */
static inline int fixture_same_file(const char *a, const char *b)
{
    pw_error err = {0};
    char *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    int same = pw_read_file(a, 1 << 28, &da, &na, &err) == PW_OK &&
               pw_read_file(b, 1 << 28, &db, &nb, &err) == PW_OK && na == nb && na > 0 &&
               memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

/* The interpolation kernel of the run: the cubic, or the one POWDER_TEST_KERNEL names
 * ("quadratic"): ctest runs the solver's physics tests once with each
 * (CMakeLists.txt, PW_BOTH_KERNELS), at the same thresholds. Says so once. */
static inline pw_kernel_kind fixture_kernel(void)
{
    static int said = 0;
    const char *k = getenv("POWDER_TEST_KERNEL");
    pw_kernel_kind kind = k && !strcmp(k, "quadratic") ? PW_KERNEL_QUADRATIC : PW_KERNEL_CUBIC;
    if (!said++) printf("kernel: %s\n", kind == PW_KERNEL_QUADRATIC ? "quadratic" : "cubic");
    return kind;
}

/* What a test's files carry in their names for the kernel, so that the runs of both
 * kernels (which ctest may run at once) never share a file: "" or "_quadratic". */
static inline const char *fixture_kernel_tag(void)
{
    return fixture_kernel() == PW_KERNEL_QUADRATIC ? "_quadratic" : "";
}

/* Small-domain params for tests: no gravity, given h and box. */
static inline void fixture_params(pw_sim_params *p, double h, vec3 lo, vec3 hi)
{
    pw_sim_params_default(p);
    p->h = h;
    p->domain_min = lo;
    p->domain_max = hi;
    p->gravity = v3_zero();
    p->kernel = fixture_kernel();
}

/* A floor at y = 0 with Coulomb friction mu: the ground most solver tests stand on. */
static inline pw_status fixture_ground(pw_sim *s, double mu, pw_error *err)
{
    pw_collider_desc ground = {0};
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    ground.shape.center = v3(0, 0, 0);
    ground.shape.normal = v3(0, 1, 0);
    ground.friction = mu;
    return pw_sim_add_collider(s, &ground, err);
}

/* A snowfall source (sim/emit.h): a box at `center` with half sizes `half` emitting fresh
 * snow (rho0 100 kg/m^3 under density hardening, 8 particles a cell) at `rate` [kg/s]
 * from t = 0 to t_end, born falling at 1 m/s, its terminal speed, in still air (a test
 * with wind adds it to the velocity), jitter 0.1 m/s. */
static inline void fixture_snowfall(pw_source_desc *d, vec3 center, vec3 half, double rate,
                                    double t_end)
{
    memset(d, 0, sizeof *d);
    pw_shape_init(&d->shape, PW_SHAPE_BOX);
    d->shape.center = center;
    d->shape.half_extents = half;
    pw_material_default(&d->material);
    d->material.rho0 = 100;
    d->material.hardening = PW_HARDENING_DENSITY;
    d->t_end = t_end;
    d->rate = rate;
    d->jitter = 0.1;
    d->particles_per_cell = 8;
    d->terminal_speed = 1.0;
    d->velocity = v3(0, -1.0, 0);
}

static inline int fixture_sanitized(void) { return getenv("POWDER_SANITIZED") != NULL; }

#endif
