/* Property: a layered body's seeded particles carry the values its layers give at their
 * depth below the body's top (seed.h, pw_layer), and their mass follows each layer's
 * density.
 *
 * Two layers over Table 2 snow: a crust (0.04 m, E0 4e5 Pa, nu 0.25, xi 15, theta_c
 * 0.012, theta_s 0.004, rho0 300 kg/m^3) blending over 0.02 m into a middle layer (0.03 m,
 * E0 2e5 Pa, rho0 350 kg/m^3, no blend) over the body material.
 *
 * 1. A box (0.3 x 0.2 x 0.3 m, h = 0.02 m, 8 per cell): with the depth d = y_top - y,
 *    every particle's mu0, lambda0, xi, theta_c, theta_s, Jp_min, Jp_max and mass
 *    (rho h^3 / 8) equal the layer's own values in [0, 0.04), the linear blend of crust
 *    and middle layer in [0.04, 0.06), the middle layer's in [0.06, 0.09) and the body
 *    material's below, to 1e-12 relative; within 1e-3 h of the step at 0.09 m either
 *    side's values are taken (depth is found to 1e-4 h). On the ramp the tolerance is
 *    the change the depth's 1e-4 h error can make. The label is 1, then 2 past the
 *    ramp's middle (0.05 m), 2 down to 0.09 m, then 0.
 * 2. A sphere (r 0.12 m): depth is measured in the particle's own column, from the
 *    sphere's top above it, y_c + sqrt(r^2 - dx^2 - dz^2) - y; same checks.
 * 3. Density by layer: in the box, the mass of the particles in [0, 0.04) over that
 *    slab's volume is the crust's 300 kg/m^3 within 2 % (jittered seeding puts a
 *    binomial count in the cells the slab's lower face cuts: ~1 %), the middle layer's
 *    350 and the body's 400 likewise.
 * 4. A layer that changes nothing (thickness only) gives every particle the bits the
 *    unlayered body gives it; the unlayered set is not `layered` and all its labels are 0.
 * 5. Bad layers are refused by pw_seed_body naming layer and key: a negative thickness,
 *    a theta_s of 1.
 * 6. Resume: a layered box (h = 0.04 m) run 4 frames straight, and run 2, saved, loaded
 *    into a fresh solver and run 2 more, gives identical frame-4 caches, which hold the
 *    labels (the `layer` attribute, the seeded ones in id order). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "constitutive.h"
#include "mpm_fixture.h"
#include "pw_cache.h"
#include "pw_sim.h"
#include "seed.h"

#define H 0.02
#define PPC 8

typedef struct {
    double mu0, lambda0, xi, theta_c, theta_s, Jp_min, Jp_max, rho;
} expected;

static expected of(const pw_material *m)
{
    expected e;
    pw_lame(m->E0, m->nu, &e.mu0, &e.lambda0);
    e.xi = m->xi;
    e.theta_c = m->theta_c;
    e.theta_s = m->theta_s;
    e.Jp_min = m->Jp_min;
    e.Jp_max = m->Jp_max;
    e.rho = m->rho0;
    return e;
}

static expected mix(expected a, expected b, double s)
{
    double *pa[8] = {&a.mu0, &a.lambda0, &a.xi, &a.theta_c, &a.theta_s, &a.Jp_min, &a.Jp_max, &a.rho};
    const double pb[8] = {b.mu0, b.lambda0, b.xi, b.theta_c, b.theta_s, b.Jp_min, b.Jp_max, b.rho};
    for (int k = 0; k < 8; k++) *pa[k] += s * (pb[k] - *pa[k]);
    return a;
}

typedef struct {
    pw_material base, crust, middle;
    pw_body_desc body;
} layered_setup;

static void setup(layered_setup *L, pw_shape shape)
{
    memset(L, 0, sizeof *L);
    pw_material_default(&L->base);
    L->crust = L->base;
    L->crust.E0 = 4e5;
    L->crust.nu = 0.25;
    L->crust.xi = 15;
    L->crust.theta_c = 0.012;
    L->crust.theta_s = 0.004;
    L->crust.rho0 = 300;
    L->middle = L->base;
    L->middle.E0 = 2e5;
    L->middle.rho0 = 350;
    L->body.add[0] = shape;
    L->body.n_add = 1;
    L->body.particles_per_cell = PPC;
    L->body.seed = 7;
    L->body.n_layers = 2;
    L->body.layers[0] = (pw_layer){0.04, 0.02, L->crust};
    L->body.layers[1] = (pw_layer){0.03, 0, L->middle};
}

/* What particle p should hold at depth d; *label its expected label; *tol the relative
 * tolerance (the ramp's sensitivity to the depth's error); 0 when d is too close to a
 * step to say. */
static int expect_at(const layered_setup *L, double d, expected *e, uint32_t *label, double *tol)
{
    const double step_band = 1e-3 * H, depth_err = 1e-4 * H;
    *tol = 1e-12;
    if (d < 0.04) {
        *e = of(&L->crust);
        *label = 1;
    } else if (d < 0.06) {
        double s = (d - 0.04) / 0.02;
        *e = mix(of(&L->crust), of(&L->middle), s);
        *label = s < 0.5 ? 1 : 2;
        if (fabs(s - 0.5) < depth_err / 0.02) return 0;
        *tol = 4 * depth_err / 0.02 + 1e-12; /* values change by at most 3x over the ramp */
    } else if (d < 0.09) {
        *e = of(&L->middle);
        *label = 2;
    } else {
        *e = of(&L->base);
        *label = 0;
    }
    if (fabs(d - 0.09) < step_band || fabs(d - 0.04) < step_band) return 0;
    return 1;
}

static int near(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want) + 1e-300;
}

/* Checks every particle of s against the layers at depth depth_of(x). */
static void check_layers(const char *what, const layered_setup *L, const pw_seeded *s,
                         double (*depth_of)(vec3), double mass_by_layer[3], size_t count[3])
{
    size_t bad = 0, checked = 0;
    for (size_t p = 0; p < s->n; p++) {
        double d = depth_of(s->x[p]), tol;
        expected e;
        uint32_t label;
        if (!expect_at(L, d, &e, &label, &tol)) continue;
        checked++;
        double got[8] = {s->mu0[p], s->lambda0[p], s->xi[p], s->theta_c[p], s->theta_s[p],
                         s->Jp_min[p], s->Jp_max[p], s->m[p] * PPC / (H * H * H)};
        double want[8] = {e.mu0, e.lambda0, e.xi, e.theta_c, e.theta_s, e.Jp_min, e.Jp_max, e.rho};
        int ok = s->layer[p] == label;
        for (int k = 0; k < 8; k++) ok &= near(got[k], want[k], tol);
        if (!ok && bad++ < 5)
            CHECK(0, "%s: particle %zu at depth %.6f m: mu0 %g (want %g), theta_c %g (%g), "
                  "rho %g (%g), label %u (%u)", what, p, d, got[0], want[0], got[3], want[3],
                  got[7], want[7], s->layer[p], label);
        if (mass_by_layer && d < 0.04) mass_by_layer[0] += s->m[p], count[0]++;
        if (mass_by_layer && d >= 0.06 && d < 0.09) mass_by_layer[1] += s->m[p], count[1]++;
        if (mass_by_layer && d >= 0.09) mass_by_layer[2] += s->m[p], count[2]++;
    }
    CHECK(bad == 0, "%s: %zu of %zu particles off their layer's values", what, bad, checked);
    CHECK(checked > s->n * 9 / 10, "%s: only %zu of %zu particles checked", what, checked, s->n);
    printf("%s: %zu particles, %zu checked against their depth, all match\n", what, s->n, checked);
}

static const double box_top = 0.3;
static double box_depth(vec3 x) { return box_top - x.y; }

static const vec3 ball_c = {0.5, 0.4, 0.5};
static const double ball_r = 0.12;
static double ball_depth(vec3 x)
{
    double dx = x.x - ball_c.x, dz = x.z - ball_c.z;
    return ball_c.y + sqrt(ball_r * ball_r - dx * dx - dz * dz) - x.y;
}

/* A solver with a floor and the layered box of setup() at h = 0.04 m (seeded again). */
static pw_sim *layered_sim(const layered_setup *L, pw_seeded *seeded)
{
    pw_error err = {0};
    pw_sim_params prm;
    fixture_params(&prm, 0.04, v3(-0.1, -0.1, -0.1), v3(1.1, 0.8, 1.1));
    prm.gravity = v3(0, -9.81, 0);
    pw_sim *sim = pw_sim_create(&prm, &err);
    CHECK(sim != NULL, "6: create: %s", err.msg);
    if (!sim) return NULL;
    pw_collider_desc floor = {0};
    pw_shape_init(&floor.shape, PW_SHAPE_HALFSPACE);
    floor.shape.center = v3(0, 0.1, 0);
    floor.shape.normal = v3(0, 1, 0);
    CHECK(pw_sim_add_collider(sim, &floor, &err) == PW_OK, "6: floor: %s", err.msg);
    if (seeded) {
        CHECK(pw_seed_body(&L->body, &L->base, 0.04, seeded, &err) == PW_OK, "6: %s", err.msg);
        CHECK(pw_sim_add_particles(sim, seeded, &err) == PW_OK, "6: add: %s", err.msg);
    }
    return sim;
}

static void resume_keeps_layers(const layered_setup *L)
{
    pw_error err = {0};
    char straight[512], half[512], resumed[512];
    snprintf(straight, sizeof straight, "%s/layers_straight.pwc", POWDER_TEST_TMP);
    snprintf(half, sizeof half, "%s/layers_f2.pwc", POWDER_TEST_TMP);
    snprintf(resumed, sizeof resumed, "%s/layers_resumed.pwc", POWDER_TEST_TMP);
    pw_seeded seeded = {0}, again = {0};
    pw_sim *a = layered_sim(L, &seeded), *b = layered_sim(L, &again), *c = layered_sim(L, NULL);
    if (!a || !b || !c) return;
    for (int f = 1; f <= 4; f++)
        CHECK(pw_sim_advance_to(a, f / 100.0, NULL, NULL, &err) == PW_OK, "6: %s", err.msg);
    CHECK(pw_sim_save(a, straight, 4, 7, &err) == PW_OK, "6: save: %s", err.msg);
    for (int f = 1; f <= 2; f++)
        CHECK(pw_sim_advance_to(b, f / 100.0, NULL, NULL, &err) == PW_OK, "6: %s", err.msg);
    CHECK(pw_sim_save(b, half, 2, 7, &err) == PW_OK, "6: save: %s", err.msg);
    CHECK(pw_sim_load(c, half, &err) == PW_OK, "6: load: %s", err.msg);
    for (int f = 3; f <= 4; f++)
        CHECK(pw_sim_advance_to(c, f / 100.0, NULL, NULL, &err) == PW_OK, "6: %s", err.msg);
    CHECK(pw_sim_save(c, resumed, 4, 7, &err) == PW_OK, "6: save: %s", err.msg);
    CHECK(fixture_same_file(straight, resumed), "6: the resumed frame 4 differs");
    static const char *const names[] = {"id", "layer"};
    pw_cache_frame f;
    CHECK(pw_cache_read(resumed, names, 2, &f, &err) == PW_OK, "6: %s", err.msg);
    size_t wrong = 0, top = 0;
    const uint32_t *id = f.attrs[0].data, *layer = f.attrs[1].data;
    for (size_t p = 0; p < f.count && f.count == seeded.n; p++) {
        wrong += layer[p] != seeded.layer[id[p]];
        top += layer[p] == 1;
    }
    CHECK(f.count == seeded.n && wrong == 0 && top > 0, "6: %zu of %llu labels wrong, %zu top",
          wrong, (unsigned long long)f.count, top);
    printf("6. resumed layered run: same bytes; %zu of %zu particles labelled top\n", top,
           seeded.n);
    pw_cache_frame_free(&f);
    pw_seeded_free(&seeded);
    pw_seeded_free(&again);
    pw_sim_destroy(a), pw_sim_destroy(b), pw_sim_destroy(c);
}

int main(void)
{
    pw_error err = {0};
    /* 1. and 3. the box */
    pw_shape box = {0};
    box.kind = PW_SHAPE_BOX;
    box.center = v3(0.5, box_top - 0.1, 0.5);
    box.half_extents = v3(0.15, 0.1, 0.15);
    layered_setup L;
    setup(&L, box);
    pw_seeded s = {0};
    pw_status rc = pw_seed_body(&L.body, &L.base, H, &s, &err);
    CHECK(rc == PW_OK, "box: %s", err.msg);
    CHECK(s.layered == 1, "box: the seeded set is not marked layered");
    double mass[3] = {0}, slab[3] = {0.04, 0.03, 0.2 - 0.09}, rho_want[3] = {300, 350, 400};
    size_t count[3] = {0};
    check_layers("box", &L, &s, box_depth, mass, count);
    for (int k = 0; k < 3; k++) {
        double rho = mass[k] / (0.3 * 0.3 * slab[k]);
        printf("box: layer %d: %zu particles, %.1f kg/m^3 (want %.0f)\n", k, count[k], rho,
               rho_want[k]);
        CHECK(fabs(rho / rho_want[k] - 1) < 0.02, "box: layer %d: density %.2f kg/m^3, want "
              "%.0f within 2 %%", k, rho, rho_want[k]);
    }

    /* 4. a layer that changes nothing */
    pw_body_desc plain = L.body, same = L.body;
    plain.n_layers = 0;
    same.n_layers = 1;
    same.layers[0] = (pw_layer){0.05, 0.01, L.base};
    pw_seeded a = {0}, b = {0};
    CHECK(pw_seed_body(&plain, &L.base, H, &a, &err) == PW_OK, "plain: %s", err.msg);
    CHECK(pw_seed_body(&same, &L.base, H, &b, &err) == PW_OK, "same: %s", err.msg);
    CHECK(a.n == b.n && a.n > 0, "plain %zu and same %zu particles", a.n, b.n);
    CHECK(!a.layered && b.layered, "layered flags %d %d", a.layered, b.layered);
    size_t differ = 0, labels_plain = 0, labels_same = 0;
    for (size_t p = 0; p < a.n && a.n == b.n; p++) {
        differ += memcmp(&a.x[p], &b.x[p], sizeof a.x[p]) || a.m[p] != b.m[p] ||
                  a.mu0[p] != b.mu0[p] || a.lambda0[p] != b.lambda0[p] || a.xi[p] != b.xi[p] ||
                  a.theta_c[p] != b.theta_c[p] || a.theta_s[p] != b.theta_s[p] ||
                  a.Jp_floor[p] != b.Jp_floor[p];
        labels_plain += a.layer[p] != 0;
        labels_same += b.layer[p] == 1;
    }
    CHECK(differ == 0, "a layer equal to the body material changed %zu particles", differ);
    CHECK(labels_plain == 0, "unlayered body: %zu particles labelled", labels_plain);
    CHECK(labels_same > 0, "the neutral layer labels no particle");
    pw_seeded_free(&a);
    pw_seeded_free(&b);
    pw_seeded_free(&s);

    /* 2. the sphere: the depth in each particle's own column */
    pw_shape ball = {0};
    ball.kind = PW_SHAPE_SPHERE;
    ball.center = ball_c;
    ball.radius = ball_r;
    setup(&L, ball);
    rc = pw_seed_body(&L.body, &L.base, H, &s, &err);
    CHECK(rc == PW_OK, "ball: %s", err.msg);
    check_layers("ball", &L, &s, ball_depth, NULL, NULL);
    pw_seeded_free(&s);

    /* 5. bad layers */
    setup(&L, box);
    L.body.layers[1].thickness = -0.01;
    rc = pw_seed_body(&L.body, &L.base, H, &s, &err);
    CHECK(rc == PW_EINVAL && strstr(err.msg, "layers[1].thickness = -0.01"), "5.1: %s", err.msg);
    setup(&L, box);
    L.body.layers[0].material.theta_s = 1;
    rc = pw_seed_body(&L.body, &L.base, H, &s, &err);
    CHECK(rc == PW_EINVAL && strstr(err.msg, "layers[0].theta_s = 1"), "5.2: %s", err.msg);
    CHECK(s.n == 0, "5: %zu particles seeded from bad layers", s.n);
    pw_seeded_free(&s);

    /* 6. resume */
    setup(&L, box);
    resume_keeps_layers(&L);
    return check_done("seed_layers_follow_depth");
}
