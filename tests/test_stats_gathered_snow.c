/* Property: pw_stats_gathered counts the snow a collider carries and nothing else.
 * Lattices of particles (spacing h/2, 8 per cell) with known velocities around a
 * sphere collider of radius R rolling along +x (centre speed V, spin V / R about -z):
 *
 * 1. A shell R < r < R + 3 h moving rigidly with the core, on a slab at rest linked to the
 *    shell's bottom (one lattice spacing below it): the shell is gathered whole, and no
 *    slab particle whose rigid speed exceeds PW_GATHER_SLIP U (here the slab lies
 *    0.0675 m below the rolling contact line, rigid speed 0.675 V against a tolerance of
 *    0.35 V: none). Mass to 1e-12 (sums of equal masses); the equivalent radius within
 *    1e-12 of the sphere of the gathered volume plus the core's.
 * 2. The same shell with a piece cut loose: a cap of it moving at the core's velocity
 *    plus V along +y (U is 1.42 V here, the tolerance 0.35 V) is not gathered, the
 *    rest is.
 * 3. A speck moving with the core's rigid motion but 4 h away from the shell (not linked)
 *    is not gathered.
 * 4. Densities: the shell at J_P 0.8 (compacted, rho = m / (V0 J_P)), the slab at 1: the
 *    gathered density over the rest's is 1 / 0.8 to 1e-12 (any slab particle gathered is
 *    given J_P 0.8 too), and jp_mean 0.8.
 * 5. A collider at rest (U = 0) with snow at rest: everything linked to it is gathered;
 *    no particle touching: nothing is, and speed is 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_stats.h"

#define H 0.02
#define R 0.1
#define V 1.0
#define NMAX 100000

typedef struct {
    vec3 x[NMAX], v[NMAX];
    double m[NMAX], Jp[NMAX], V0[NMAX], rho[NMAX];
    int kind[NMAX]; /* 0 slab, 1 shell, 2 cut cap, 3 speck */
    size_t n;
} cloud;

static vec3 rigid_velocity(vec3 x, vec3 c)
{
    vec3 d = v3_sub(x, c);
    double w = -V / R; /* about +z */
    return v3(V - w * d.y, w * d.x, 0);
}

static void add(cloud *c, vec3 x, vec3 v, double jp, int kind)
{
    size_t i = c->n++;
    c->x[i] = x;
    c->v[i] = v;
    c->m[i] = 1e-3;
    c->Jp[i] = jp;
    c->V0[i] = 1e-3 / 400;
    c->rho[i] = 400 / jp;
    c->kind[i] = kind;
}

static pw_collider_desc core_at(vec3 centre, int moving)
{
    pw_collider_desc d;
    memset(&d, 0, sizeof d);
    pw_shape_init(&d.shape, PW_SHAPE_SPHERE);
    d.shape.radius = R;
    d.sticky = 1;
    if (moving) { /* keys at t = -0.01 and 0.01 s (a turn of 0.1 rad each way, well within
                     slerp's half turn): the motion at t = 0 is the one above */
        d.shape.n_keys = 2;
        for (int k = 0; k < 2; k++) {
            double t = 0.02 * k - 0.01;
            d.shape.keys[k].t = t;
            d.shape.keys[k].translation = v3_add(centre, v3(V * t, 0, 0));
            d.shape.keys[k].axis = v3(0, 0, 1);
            d.shape.keys[k].angle = -V / R * t;
        }
    } else {
        d.shape.center = centre;
    }
    return d;
}

/* The shell around centre c and the slab below it, on the h/2 lattice. */
static void build(cloud *cl, vec3 c, int cut, int speck, int moving)
{
    cl->n = 0;
    double s = H / 2;
    for (double x = -0.4; x <= 0.4; x += s)
        for (double y = -0.2; y <= 0.2; y += s)
            for (double z = -0.2; z <= 0.2; z += s) {
                vec3 p = v3_add(c, v3(x + s / 4, y + s / 4, z + s / 4));
                double r = v3_length(v3_sub(p, c));
                vec3 v = moving ? rigid_velocity(p, c) : v3_zero();
                if (r > R && r < R + 3 * H) {
                    int cap = cut && p.y > c.y + R + 0.5 * H && p.x > c.x;
                    add(cl, p, cap ? v3_add(v, v3(0, V, 0)) : v, 0.8, cap ? 2 : 1);
                }
            }
    /* the slab: its top touches the shell's bottom, at rest */
    double top = c.y - R - 3 * H - 0.75 * s; /* one spacing below the shell's lowest */
    for (double x = -0.4; x <= 0.4; x += s)
        for (double y = top - 0.08; y <= top; y += s)
            for (double z = -0.2; z <= 0.2; z += s)
                add(cl, v3(c.x + x + s / 4, y, c.z + z + s / 4), v3_zero(), 1, 0);
    if (speck) {
        vec3 p = v3_add(c, v3(0, R + 3 * H + 4 * H, 0));
        add(cl, p, moving ? rigid_velocity(p, c) : v3_zero(), 1, 3);
    }
}

static pw_stats_particles view(const cloud *c, int stored_rho)
{
    pw_stats_particles p = {.n = c->n, .x = c->x, .v = c->v, .m = c->m, .Jp = c->Jp};
    if (stored_rho) p.rho = c->rho;
    else p.V0 = c->V0; /* with Fe NULL: no density from F_E */
    return p;
}

int main(void)
{
    cloud *cl = malloc(sizeof *cl);
    uint8_t *in = malloc(NMAX);
    pw_error err = {0};
    vec3 c = v3(0.01, 0.3, 0.0);
    pw_collider_desc core = core_at(c, 1), still = core_at(c, 0);
    double link = PW_STATS_LINK_H * H;

    /* 1 and 4: shell on a slab; the slab's band at the contact */
    build(cl, c, 0, 0, 1);
    pw_stats_particles p = view(cl, 1);
    pw_gathered g;
    CHECK(pw_stats_gathered(&p, link, H, &core, 0.0, &g, in, &err) == PW_OK, "%s", err.msg);
    size_t shell = 0, shell_in = 0, slab_in = 0, slab_far_in = 0;
    double tol = PW_GATHER_SLIP * g.speed, band_mass = 0;
    for (size_t i = 0; i < cl->n; i++) {
        if (cl->kind[i] == 1) shell++, shell_in += in[i];
        if (cl->kind[i] == 0 && in[i]) {
            slab_in++;
            band_mass += cl->m[i];
            double rigid = v3_length(rigid_velocity(cl->x[i], c));
            slab_far_in += rigid > tol;
        }
    }
    printf("1. shell %zu of %zu gathered, slab band %zu (U %.4f m/s), radius %.6f m\n", shell_in,
           shell, slab_in, g.speed, g.radius);
    CHECK(shell_in == shell, "shell: %zu of %zu gathered", shell_in, shell);
    CHECK(slab_far_in == 0, "%zu slab particles gathered moving faster than the tolerance",
          slab_far_in);
    CHECK(slab_in < shell / 4, "slab band %zu particles (shell %zu)", slab_in, shell);
    CHECK(g.particles == shell + slab_in, "gathered %zu, shell %zu + band %zu", g.particles,
          shell, slab_in);
    CHECK(fabs(g.mass - 1e-3 * (double)g.particles) < 1e-12 * g.mass, "mass %.15g", g.mass);
    double vol = 0;
    for (size_t i = 0; i < cl->n; i++)
        if (in[i]) vol += cl->m[i] / cl->rho[i];
    double r_eq = cbrt(3 / (4 * 3.14159265358979323846) * vol + R * R * R);
    CHECK(g.has_density && fabs(g.radius - r_eq) < 1e-12, "radius %.15g, expected %.15g",
          g.radius, r_eq);
    /* 4. the band at J_P 0.8 as the shell: gathered density 1 / 0.8 of the rest's */
    for (size_t i = 0; i < cl->n; i++)
        if (in[i] && cl->kind[i] == 0) cl->Jp[i] = 0.8, cl->rho[i] = 400 / 0.8;
    CHECK(pw_stats_gathered(&p, link, H, &core, 0.0, &g, in, &err) == PW_OK, "%s", err.msg);
    printf("4. rho %.6f, rest %.6f, jp %.6f / %.6f\n", g.rho, g.rho_rest, g.jp_mean, g.jp_rest);
    CHECK(fabs(g.rho / g.rho_rest - 1 / 0.8) < 1e-12, "rho %.12g over rest %.12g", g.rho,
          g.rho_rest);
    CHECK(fabs(g.jp_mean - 0.8) < 1e-12 && fabs(g.jp_rest - 1) < 1e-12, "jp %.12g, rest %.12g",
          g.jp_mean, g.jp_rest);
    (void)band_mass;

    /* 2. a cap cut loose; 3. a speck not linked */
    build(cl, c, 1, 1, 1);
    p = view(cl, 1);
    CHECK(pw_stats_gathered(&p, link, H, &core, 0.0, &g, in, &err) == PW_OK, "%s", err.msg);
    size_t cap = 0, cap_in = 0, speck_in = 0, rest_in = 0, rest = 0;
    for (size_t i = 0; i < cl->n; i++) {
        if (cl->kind[i] == 2) cap++, cap_in += in[i];
        if (cl->kind[i] == 3) speck_in += in[i];
        if (cl->kind[i] == 1) rest++, rest_in += in[i];
    }
    printf("2-3. cap %zu (%zu gathered), shell %zu of %zu, speck %zu\n", cap, cap_in, rest_in,
           rest, speck_in);
    CHECK(cap > 100 && cap_in == 0, "cap: %zu of %zu gathered", cap_in, cap);
    CHECK(rest_in == rest, "shell: %zu of %zu gathered", rest_in, rest);
    CHECK(speck_in == 0, "the unlinked speck was gathered");

    /* 5. at rest: the shell and the slab it touches are one piece of still snow */
    build(cl, c, 0, 1, 0);
    p = view(cl, 0);
    CHECK(pw_stats_gathered(&p, link, H, &still, 0.0, &g, in, &err) == PW_OK, "%s", err.msg);
    printf("5. at rest: %zu of %zu gathered (speck apart), U %g\n", g.particles, cl->n, g.speed);
    CHECK(g.particles == cl->n - 1 && g.speed == 0, "at rest: %zu of %zu gathered", g.particles,
          cl->n);
    pw_collider_desc away = core_at(v3(5, 5, 5), 0);
    CHECK(pw_stats_gathered(&p, link, H, &away, 0.0, &g, in, &err) == PW_OK, "%s", err.msg);
    CHECK(g.particles == 0 && g.mass == 0 && g.speed == 0, "far collider: %zu gathered",
          g.particles);
    free(in);
    free(cl);
    return check_done("stats_gathered_snow");
}
