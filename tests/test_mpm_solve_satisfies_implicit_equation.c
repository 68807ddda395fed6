/* Property: the velocities the conjugate residual solve returns satisfy eq. 9 of
 * Stomakhin et al. 2013,
 *
 *     (I + beta dt^2 M^-1 H) v = v*,
 *
 * on the free degrees of freedom to the solver's tolerance: the true residual
 * |M^1/2 (v* - v) - beta dt^2 M^-1/2 H v| (recomputed here with the Hessian action,
 * not taken from the solver's recurrence) is at most 2 tol |M^1/2 v*|, and components
 * fixed by collisions keep v* exactly. Checked from a cold start (v*), from the warm
 * start (v* plus the previous solve's correction) on a second, different v*, and from
 * the extrapolated start (the last correction plus its change since the one before) on
 * a third, on a
 * deformed Table 2 ball where beta dt^2 H / m is of order one, so the correction the
 * solve makes is large (printed; at least 1% of |v*|) and a wrong start or a wrong
 * residual could not hide in the tolerance. */
#include "check.h"
#include "mpm_fixture.h"
#include "hessian.h"
#include "mpm_internal.h"
#include "solver.h"
#include "transfer.h"

static unsigned rng = 5;
static double urand(void) { return 2.0 * fixture_rand(&rng) - 1.0; }

/* |M^1/2 (v* - v) - beta dt^2 M^-1/2 H v| / |M^1/2 v*| on free components, and the
 * largest change of a fixed component; correction = |M^1/2 (v - v*)| / |M^1/2 v*|. */
static double relative_residual(pw_sim *s, const vec3 *v_star, double beta_dt2, double *fixed_change,
                                double *correction)
{
    const pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    vec3 *Hv = calloc(nn, sizeof *Hv);
    pw_mpm_hessian_action(s, g->v, Hv);
    double rr = 0, bb = 0, dd = 0;
    *fixed_change = 0;
    for (size_t i = 0; i < nn; i++) {
        if (!(g->m[i] > 0)) continue;
        double sm = sqrt(g->m[i]);
        for (int a = 0; a < 3; a++) {
            double vs = v3_get(v_star[i], a), v = v3_get(g->v[i], a);
            bb += g->m[i] * vs * vs;
            if (g->fixed[i] & (1u << a)) {
                *fixed_change = fmax(*fixed_change, fabs(v - vs));
                continue;
            }
            double r = sm * (vs - v) - beta_dt2 / sm * v3_get(Hv[i], a);
            rr += r * r;
            dd += g->m[i] * (v - vs) * (v - vs);
        }
    }
    free(Hv);
    *correction = sqrt(dd / bb);
    return sqrt(rr / bb);
}

int main(void)
{
    pw_error err = {0};
    double h = 0.05, dt = 5e-3, tol = 1e-6;
    pw_sim_params p;
    fixture_params(&p, h, v3(-1, -1, -1), v3(1, 1, 1));
    p.beta = 1;
    p.cr_tolerance = tol;
    p.cr_max_iterations = 2000;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    fixture_default(&b, v3(-0.25, -0.25, -0.25), v3(0.25, 0.25, 0.25), h);
    b.sphere = 1;
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    for (size_t q = 0; q < s->pt.n; q++) { /* a stretched, rotated state, as mid-run */
        mat3 Fe = m3_identity();
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Fe.m[i][j] += 0.05 * urand();
        s->pt.Fe[q] = m3_mul(m3_rotation(v3(urand(), urand(), 1), urand()), Fe);
    }
    CHECK(pw_mpm_begin_step(s, &err) == PW_OK, "begin: %s", err.msg);
    pw_mpm_p2g(s);
    pw_mpm_init_volumes(s);
    pw_mpm_prepare_stress(s);
    pw_grid *g = &s->grid;
    size_t nn = pw_grid_node_count(g);
    vec3 *v_star = calloc(nn, sizeof *v_star);

    static const char *start[3] = {"cold", "warm", "extrapolated"};
    for (int solve = 0; solve < 3; solve++) {
        CHECK(s->warm_valid == solve, "solve %d starts with %d earlier corrections", solve,
              s->warm_valid);
        /* v*: a rigid drift plus a shear that the stress resists; a floor-like band of
         * nodes has its y component fixed, as a slip wall would */
        for (size_t i = 0; i < nn; i++) {
            vec3 x = pw_grid_node_position(g, i);
            double k = 1 + 0.3 * solve * solve; /* (not linear in solve: the extrapolated
                                                   start must not be the answer) */
            v_star[i] = g->m[i] > 0 ? v3(0.2 + k * sin(7 * x.y), -0.5 + k * cos(5 * x.z), k * x.x * x.y)
                                    : v3_zero();
            g->v[i] = v_star[i];
            g->fixed[i] = x.y < -0.15 ? 2 : 0;
        }
        int iterations = 0, converged = 0;
        CHECK(pw_mpm_solve(s, dt, &iterations, &converged, &err) == PW_OK, "solve: %s", err.msg);
        pw_mpm_solve_accept(s); /* (the step accepted: its correction warms the next) */
        double fixed_change, correction;
        double res = relative_residual(s, v_star, p.beta * dt * dt, &fixed_change, &correction);
        printf("%s start: %d iterations, converged %d, correction %.3g of |v*|, true residual "
               "%.3g (tolerance %g), largest change of a fixed component %g m/s\n",
               start[solve], iterations, converged, correction, res, tol, fixed_change);
        CHECK(converged, "solve %d did not converge in %d iterations", solve, iterations);
        CHECK(correction > 1e-2, "solve %d: correction %.3g too small to test", solve, correction);
        CHECK(res <= 2 * tol, "solve %d: true residual %.3g over 2 x %g", solve, res, tol);
        CHECK(fixed_change == 0, "solve %d: a fixed component moved by %g", solve, fixed_change);
    }
    free(v_star);
    pw_sim_destroy(s);
    return check_done("mpm_solve_satisfies_implicit_equation");
}
