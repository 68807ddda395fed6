/* Property: the solver's three discrete operators are derivatives of one another.
 *  1. The grid force of eq. 5 is minus the gradient of the discrete energy
 *     Phi(x^) = sum_p V0 Psi(Fe^(x^)): for random node directions u,
 *     -f . u = (Phi(eps u) - Phi(-eps u)) / (2 eps) to 1e-4 relative.
 *  2. The Hessian action of eqs. 7-8 is minus the derivative of the force:
 *     H u = -(f(eps u) - f(-eps u)) / (2 eps), relative 2-norm error < 1e-4.
 * Central differences in double with eps = 1e-6 m on h = 0.1 m leave truncation
 * ~eps^2 |f'''| and rounding ~1e-16 |f| / eps ~ 1e-10 relative; 1e-4 catches any
 * missing term (the rotation derivative alone changes H u by tens of percent).
 * The particles carry a random rotation times a random elastic stretch (entries of
 * Fe - I up to 0.1) and a random plastic part (entries of Fp - I up to 0.05), so the
 * rotation derivative and the hardening both matter.
 *  3. The Hessian diagonal that preconditions the solve is e^T H e for unit vectors e
 *     along each component of sampled nodes (through the Hessian action), to 1e-5
 *     relative: the two sum the same products, both in float (sim/box_f32.h) but in
 *     different orders of products and sums, whose roundings of 2^-24 leave ~4e-7; a
 *     missing or misplaced term of either is a relative error of order one. */
#include "check.h"
#include "mpm_fixture.h"
#include "hessian.h"
#include "mpm_internal.h"
#include "solver.h"
#include "transfer.h"

static unsigned rng = 99;
static double urand(void) { return 2.0 * fixture_rand(&rng) - 1.0; }

static double norm(const vec3 *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v3_length2(a[i]);
    return sqrt(s);
}

int main(void)
{
    pw_error err = {0};
    double h = 0.1;
    pw_sim_params p;
    fixture_params(&p, h, v3(-1, -1, -1), v3(1, 1, 1));
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    fixture_default(&b, v3(-0.25, -0.25, -0.25), v3(0.25, 0.25, 0.25), h);
    b.sphere = 1;
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);

    /* random elastic and plastic deformation, one step's worth of state */
    for (size_t q = 0; q < s->pt.n; q++) {
        mat3 Fe = m3_identity(), Fp = m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                Fe.m[i][j] += 0.1 * urand();
                Fp.m[i][j] += 0.05 * urand();
            }
        s->pt.Fe[q] = m3_mul(m3_rotation(v3(urand(), urand(), 1), 3 * urand()), Fe);
        s->pt.Fp[q] = Fp;
    }
    CHECK(pw_mpm_begin_step(s, &err) == PW_OK, "begin: %s", err.msg);
    pw_mpm_p2g(s);
    pw_mpm_init_volumes(s);
    pw_mpm_prepare_stress(s);
    size_t nn = pw_grid_node_count(&s->grid);
    vec3 *u = calloc(nn, sizeof *u), *dx = calloc(nn, sizeof *dx), *f0 = calloc(nn, sizeof *f0),
         *fp = calloc(nn, sizeof *fp), *fm = calloc(nn, sizeof *fm), *Hu = calloc(nn, sizeof *Hu),
         *fd = calloc(nn, sizeof *fd);
    double eps = 1e-6;
    pw_mpm_grid_forces(s, NULL);
    memcpy(f0, s->grid.f, nn * sizeof *f0);

    for (int trial = 0; trial < 3; trial++) {
        for (size_t i = 0; i < nn; i++) u[i] = s->grid.m[i] > 0 ? v3(urand(), urand(), urand()) : v3_zero();
        /* 1. force = -dPhi/dx along u */
        for (size_t i = 0; i < nn; i++) dx[i] = v3_scale(u[i], eps);
        double Pp = pw_mpm_energy(s, dx);
        pw_mpm_grid_forces(s, dx);
        memcpy(fp, s->grid.f, nn * sizeof *fp);
        for (size_t i = 0; i < nn; i++) dx[i] = v3_scale(u[i], -eps);
        double Pm = pw_mpm_energy(s, dx);
        pw_mpm_grid_forces(s, dx);
        memcpy(fm, s->grid.f, nn * sizeof *fm);
        double dPhi = (Pp - Pm) / (2 * eps), fu = 0;
        for (size_t i = 0; i < nn; i++) fu += v3_dot(f0[i], u[i]);
        double e1 = fabs(-fu - dPhi) / fabs(dPhi);
        printf("1.%d -f.u = %.10g, dPhi/deps = %.10g, rel %.3g\n", trial + 1, -fu, dPhi, e1);
        CHECK(e1 < 1e-4, "1.%d force vs energy rel %.3g", trial + 1, e1);

        /* 2. H u = -df/dx along u */
        pw_mpm_hessian_action(s, u, Hu);
        for (size_t i = 0; i < nn; i++) fd[i] = v3_scale(v3_sub(fp[i], fm[i]), -1.0 / (2 * eps));
        for (size_t i = 0; i < nn; i++) fm[i] = v3_sub(Hu[i], fd[i]);
        double e2 = norm(fm, nn) / norm(Hu, nn);
        printf("2.%d |Hu| = %.6g, |Hu - FD| / |Hu| = %.3g\n", trial + 1, norm(Hu, nn), e2);
        CHECK(e2 < 1e-4, "2.%d Hessian action vs FD rel %.3g", trial + 1, e2);
    }

    /* 3. diagonal = e^T H e */
    pw_vec4f *diag = calloc(nn, sizeof *diag);
    pw_mpm_hessian_diagonal(s, diag);
    double worst = 0;
    int sampled = 0;
    for (size_t i = 0; i < nn; i += 7) {
        if (!(s->grid.m[i] > 0)) continue;
        double d[3] = {diag[i].x, diag[i].y, diag[i].z};
        for (int a = 0; a < 3; a++) {
            memset(u, 0, nn * sizeof *u);
            u[i] = v3(a == 0, a == 1, a == 2);
            pw_mpm_hessian_action(s, u, Hu);
            double eHe = v3_get(Hu[i], a);
            double e = fabs(d[a] - eHe) / fabs(eHe);
            if (e > worst) worst = e;
        }
        sampled++;
    }
    printf("3. diagonal vs e^T H e on %d nodes x 3 components: worst rel %.3g\n", sampled, worst);
    CHECK(sampled >= 20, "3. only %d massive nodes sampled", sampled);
    CHECK(worst < 1e-5, "3. diagonal vs e^T H e rel %.3g", worst);
    free(diag);
    free(u); free(dx); free(f0); free(fp); free(fm); free(Hu); free(fd);
    pw_sim_destroy(s);
    return check_done("mpm_hessian_matches_forces");
}
