/* Property: seeding fills exactly the body with the requested density of particles.
 * - A sphere gets round(ppc) V / h^3 particles within 2% and total mass rho V within
 *   2%: jittered sampling is unbiased per cell, and with ~33k particles the count
 *   fluctuates by ~0.3% (boundary cells only), so 2% catches a wrong cell range or
 *   mass formula, not noise.
 * - every particle is inside (phi < 0); a box minus a sphere has no particle in the
 *   hole and the count of the difference;
 * - the same seed gives bit-identical arrays, another seed different ones;
 * - the shell multiplies E (and rho) by the factor at the surface blending linearly to
 *   1 at shell_depth (checked per particle to 1e-9 relative, analytic depth); the
 *   compaction floor is the higher of Jp_floor and rho / rho_max (capped at 1), rho the
 *   particle's analytic density, so the core takes Jp_floor and the outer shell rho_max;
 * - initial angular momentum about the centre of mass equals I omega of a uniform
 *   sphere (I = 2/5 M R^2) within 3% (sampling noise of the second moment ~0.5%);
 *   linear momentum equals M v to 1e-9 relative.
 * - estimate: equals round(ppc) V / h^3 before any allocation; half-space add refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "constitutive.h"
#include "seed.h"

static pw_body_desc sphere_body(double r, vec3 c, uint64_t seed)
{
    pw_body_desc b;
    memset(&b, 0, sizeof b);
    pw_shape_init(&b.add[0], PW_SHAPE_SPHERE);
    b.add[0].center = c;
    b.add[0].radius = r;
    b.n_add = 1;
    b.particles_per_cell = 8;
    b.seed = seed;
    return b;
}

static int same_arrays(const pw_seeded *a, const pw_seeded *b)
{
    if (a->n != b->n) return 0;
    size_t n = a->n;
    return !memcmp(a->x, b->x, n * sizeof(vec3)) && !memcmp(a->v, b->v, n * sizeof(vec3)) &&
           !memcmp(a->m, b->m, n * 8) && !memcmp(a->mu0, b->mu0, n * 8) &&
           !memcmp(a->lambda0, b->lambda0, n * 8) && !memcmp(a->xi, b->xi, n * 8) &&
           !memcmp(a->Jp_min, b->Jp_min, n * 8) && !memcmp(a->Jp_max, b->Jp_max, n * 8);
}

int main(void)
{
    const double pi = 3.14159265358979323846;
    double h = 0.02, R = 0.2;
    vec3 c = v3(0.513, 0.707, -0.31); /* off the grid so cells are cut arbitrarily */
    pw_material mat;
    pw_material_default(&mat);
    pw_error err = {0};

    /* 1. sphere: count, mass, inside */
    pw_body_desc b = sphere_body(R, c, 1234);
    pw_seeded s = {0};
    CHECK(pw_seed_body(&b, &mat, h, &s, &err) == PW_OK, "1 seed: %s", err.msg);
    double V = 4.0 / 3.0 * pi * R * R * R, expect = 8 * V / (h * h * h), M = 0;
    for (size_t p = 0; p < s.n; p++) M += s.m[p];
    printf("1 sphere: %zu particles (expected %.0f), mass %.5f kg (expected %.5f)\n", s.n, expect,
           M, mat.rho0 * V);
    CHECK(fabs(s.n - expect) <= 0.02 * expect, "1 count %zu vs %.0f", s.n, expect);
    CHECK(fabs(M - mat.rho0 * V) <= 0.02 * mat.rho0 * V, "1 mass %g", M);
    int outside = 0;
    for (size_t p = 0; p < s.n; p++) outside += v3_length(v3_sub(s.x[p], c)) >= R;
    CHECK(outside == 0, "1 %d particles outside the sphere", outside);
    /* Table 2 material everywhere */
    double mu, la;
    pw_lame(mat.E0, mat.nu, &mu, &la);
    CHECK(s.mu0[0] == mu && s.lambda0[s.n - 1] == la && s.xi[0] == 10 && s.Jp_max[0] == 20,
          "1 material not Table 2");

    /* 2. estimate before allocation matches the formula and the actual count */
    size_t est = 0;
    CHECK(pw_seed_estimate(&b, h, &est, &err) == PW_OK, "2 estimate: %s", err.msg);
    CHECK(fabs((double)est - expect) <= 1, "2 estimate %zu vs %.0f", est, expect);
    pw_body_desc hb = b;
    pw_shape_init(&hb.add[0], PW_SHAPE_HALFSPACE);
    CHECK(pw_seed_estimate(&hb, h, &est, &err) == PW_EINVAL && strstr(err.msg, "half-space"),
          "2 half-space add: %s", err.msg);
    CHECK(pw_seed_estimate(&b, 0, &est, &err) == PW_EINVAL, "2 h = 0 accepted");

    /* 3. same seed -> identical arrays; another seed -> different points */
    pw_seeded s2 = {0}, s3 = {0};
    pw_seed_body(&b, &mat, h, &s2, &err);
    CHECK(same_arrays(&s, &s2), "3 same seed differs");
    pw_body_desc b3 = sphere_body(R, c, 4321);
    pw_seed_body(&b3, &mat, h, &s3, &err);
    CHECK(!same_arrays(&s, &s3), "3 other seed gave the same particles");
    pw_seeded_free(&s2);
    pw_seeded_free(&s3);

    /* 4. difference: box minus a sphere */
    {
        pw_body_desc d;
        memset(&d, 0, sizeof d);
        pw_shape_init(&d.add[0], PW_SHAPE_BOX);
        d.add[0].center = v3(0.01, 0.02, 0.03);
        d.add[0].half_extents = v3(0.2, 0.15, 0.1);
        d.n_add = 1;
        pw_shape_init(&d.subtract[0], PW_SHAPE_SPHERE);
        d.subtract[0].center = d.add[0].center;
        d.subtract[0].radius = 0.09;
        d.n_subtract = 1;
        d.particles_per_cell = 6;
        d.seed = 9;
        pw_seeded sd = {0};
        CHECK(pw_seed_body(&d, &mat, h, &sd, &err) == PW_OK, "4: %s", err.msg);
        double Vd = 0.4 * 0.3 * 0.2 - 4.0 / 3.0 * pi * 0.09 * 0.09 * 0.09;
        double ed = 6 * Vd / (h * h * h);
        int in_hole = 0;
        for (size_t p = 0; p < sd.n; p++) in_hole += v3_length(v3_sub(sd.x[p], d.subtract[0].center)) < 0.09;
        printf("4 box minus sphere: %zu particles (expected %.0f)\n", sd.n, ed);
        CHECK(in_hole == 0, "4 %d particles in the hole", in_hole);
        CHECK(fabs(sd.n - ed) <= 0.02 * ed, "4 count %zu vs %.0f", sd.n, ed);
        pw_seeded_free(&sd);
    }

    /* 5. shell: E and rho doubled/1.5x at the surface, blending to 1 at 0.05 m depth */
    {
        pw_material sm = mat;
        sm.shell_depth = 0.05;
        sm.shell_E_factor = 2.0;
        sm.shell_rho_factor = 1.5;
        sm.rho_max = 500;  /* floor 0.8 in the core, 1 (no compaction) where rho >= 500 */
        sm.Jp_floor = 0.85;
        pw_seeded ss = {0};
        pw_seed_body(&b, &sm, h, &ss, &err);
        int bad = 0, bad_floor = 0, n_core_floor = 0, n_shell_floor = 0;
        double max_ratio = 0, base_m = mat.rho0 * h * h * h / 8;
        for (size_t p = 0; p < ss.n; p++) {
            double depth = R - v3_length(v3_sub(ss.x[p], c));
            double t = fmin(depth / sm.shell_depth, 1.0);
            double fE = 2.0 + (1 - 2.0) * t, fr = 1.5 + (1 - 1.5) * t;
            bad += fabs(ss.mu0[p] / mu - fE) > 1e-9 * fE || fabs(ss.m[p] / base_m - fr) > 1e-9 * fr;
            max_ratio = fmax(max_ratio, ss.mu0[p] / mu);
            double floor = fmax(0.85, fmin(1.0, fr * mat.rho0 / 500));
            bad_floor += fabs(ss.Jp_floor[p] - floor) > 1e-9;
            n_core_floor += ss.Jp_floor[p] == 0.85;
            n_shell_floor += ss.Jp_floor[p] > 0.85;
        }
        CHECK(bad == 0, "5 %d particles off the shell profile", bad);
        CHECK(bad_floor == 0, "5 %d particles off the compaction floor", bad_floor);
        CHECK(n_core_floor > 1000 && n_shell_floor > 1000, "5 floors: %d at Jp_floor, %d above",
              n_core_floor, n_shell_floor);
        CHECK(max_ratio > 1.95 && max_ratio <= 2.0, "5 outermost stiffening %g", max_ratio);
        pw_seeded_free(&ss);
    }

    /* 6. spin: L about the centre of mass = (2/5) M R^2 omega within 3%; P = M v */
    {
        pw_body_desc sb = b;
        sb.velocity = v3(1.0, -0.5, 0.25);
        sb.angular_velocity = v3(0.3, 3.0, -1.0);
        pw_seeded sp = {0};
        pw_seed_body(&sb, &mat, h, &sp, &err);
        double Ms = 0;
        vec3 mx = v3_zero(), P = v3_zero(), L = v3_zero();
        for (size_t p = 0; p < sp.n; p++) {
            Ms += sp.m[p];
            mx = v3_madd(mx, sp.x[p], sp.m[p]);
            P = v3_madd(P, sp.v[p], sp.m[p]);
        }
        vec3 cm = v3_scale(mx, 1 / Ms);
        for (size_t p = 0; p < sp.n; p++)
            L = v3_madd(L, v3_cross(v3_sub(sp.x[p], cm), sp.v[p]), sp.m[p]);
        vec3 Lexp = v3_scale(sb.angular_velocity, 0.4 * Ms * R * R);
        printf("6 spin: L = (%.5g %.5g %.5g), I omega = (%.5g %.5g %.5g)\n", L.x, L.y, L.z,
               Lexp.x, Lexp.y, Lexp.z);
        CHECK(v3_length(v3_sub(L, Lexp)) <= 0.03 * v3_length(Lexp), "6 angular momentum");
        CHECK(v3_length(v3_sub(P, v3_scale(sb.velocity, Ms))) <= 1e-9 * Ms * v3_length(sb.velocity),
              "6 linear momentum");
        pw_seeded_free(&sp);
    }

    /* 7. noise on E: within [1 - a, 1 + a] E0, not constant, continuous (particles
     * closer than noise_scale / 20 differ by well under the amplitude) */
    {
        pw_material nm = mat;
        nm.E_noise = 0.3;
        nm.noise_scale = 0.1;
        pw_seeded sn = {0};
        pw_seed_body(&b, &nm, h, &sn, &err);
        double lo = 1e300, hi = 0;
        for (size_t p = 0; p < sn.n; p++) {
            lo = fmin(lo, sn.mu0[p] / mu);
            hi = fmax(hi, sn.mu0[p] / mu);
        }
        CHECK(lo >= 0.7 - 1e-12 && hi <= 1.3 + 1e-12 && hi - lo > 0.1, "7 noise range %g..%g", lo, hi);
        int jumps = 0;
        for (size_t p = 1; p < sn.n; p++)
            if (v3_length(v3_sub(sn.x[p], sn.x[p - 1])) < 0.005)
                jumps += fabs(sn.mu0[p] - sn.mu0[p - 1]) > 0.1 * mu;
        CHECK(jumps == 0, "7 %d discontinuities in the noise", jumps);
        pw_seeded_free(&sn);
    }

    /* 8. mesh body: the unit cube OBJ scaled to 0.2 m, aligned with the grid: every
     * cell is whole, so exactly ppc * 1000 particles, all inside */
    {
        pw_body_desc mb;
        memset(&mb, 0, sizeof mb);
        pw_shape_init(&mb.add[0], PW_SHAPE_MESH);
        snprintf(mb.add[0].path, sizeof mb.add[0].path, "%s/tests/data/cube.obj", POWDER_SOURCE_DIR);
        mb.add[0].scale = 0.2;
        mb.add[0].center = v3(0.4, 0.2, 0.0);
        mb.n_add = 1;
        mb.particles_per_cell = 8;
        pw_seeded sm = {0};
        CHECK(pw_seed_body(&mb, &mat, h, &sm, &err) == PW_OK, "8 mesh: %s", err.msg);
        int out = 0;
        for (size_t p = 0; p < sm.n; p++) {
            vec3 q = v3_sub(sm.x[p], mb.add[0].center);
            out += q.x < 0 || q.x > 0.2 || q.y < 0 || q.y > 0.2 || q.z < 0 || q.z > 0.2;
        }
        printf("8 mesh cube: %zu particles (expected 8000)\n", sm.n);
        CHECK(fabs((double)sm.n - 8000) <= 0.02 * 8000, "8 count %zu", sm.n);
        CHECK(out == 0, "8 %d particles outside the cube", out);
        size_t me = 0;
        CHECK(pw_seed_estimate(&mb, h, &me, &err) == PW_OK && me == 8000, "8 estimate %zu", me);
        /* appending a second body keeps the first */
        size_t n1 = sm.n;
        pw_seed_body(&b, &mat, h, &sm, &err);
        CHECK(sm.n == n1 + s.n && !memcmp(sm.x + n1, s.x, s.n * sizeof(vec3)), "8 append");
        pw_seeded_free(&sm);
    }
    /* 9. bad material is refused with its field named */
    {
        pw_material bm = mat;
        bm.E_noise = 1.5;
        pw_seeded sb = {0};
        CHECK(pw_seed_body(&b, &bm, h, &sb, &err) == PW_EINVAL && strstr(err.msg, "E_noise"),
              "9 message: %s", err.msg);
        CHECK(sb.n == 0, "9 particles added on error");
        pw_seeded_free(&sb);
    }
    pw_seeded_free(&s);
    pw_seeded_free(NULL);
    return check_done("seed_fills_shapes");
}
