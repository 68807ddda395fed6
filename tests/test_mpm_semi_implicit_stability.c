/* Property: the semi-implicit solve is what makes dt = 5e-4 s stable (section 6.1 and
 * 10: explicit needs ~1e-5 s). A Table 2 snowball hits the floor at 4 m/s; impact
 * compaction hardens it (e^{xi (1 - J_P)} up to e^4), so the elastic wave speed
 * c = sqrt((lambda + 2 mu) / rho) grows from 20 to ~150 m/s and the explicit limit
 * ~h / c drops far below 5e-4 s.
 *  1. beta = 1 at dt = 5e-4 s: no NaN, and the mechanical energy
 *     E = sum_p m_p (|v_p|^2 / 2 - g . x_p) + V0 Psi(F_E) (kinetic, gravitational and
 *     elastic, as `powder stats` reports it) never exceeds its initial value by more
 *     than 1% (backward Euler, plasticity and inelastic collisions only remove energy;
 *     1% covers the transfer's interpolation).
 *  2. beta = 0 at the same dt blows up within the same time: PW_ENUMERIC, or E past
 *     10x its initial value, or an impossible plastic state (some J_P <= 0 or > 1e3;
 *     the clamp keeps Fe bounded, so an explicit instability shows up first as
 *     runaway plastic flow), or velocities so large that the CFL bound had to cut
 *     the mean step below half of dt. If explicit survived, the test would prove
 *     nothing about the implicit solve, so this case must fail that way.
 * h = 0.005 m puts the unhardened explicit limit near h / c = 2.5e-4 s. The beta = 1
 * run must pass every one of those criteria. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"
#include "pw_stats.h"

/* E = kinetic + gravitational + elastic, as `powder stats` measures it (pw_stats.h):
 * the elastic energy stored in a compressed ball comes back, so leaving it out would
 * let a rebound look like a gain, and counting it makes the balance exact. */
static double energy(const pw_sim *s)
{
    size_t n = s->pt.n;
    double *Jp = malloc((n ? n : 1) * sizeof *Jp);
    if (!Jp) return NAN;
    for (size_t p = 0; p < n; p++) Jp[p] = m3_det(s->pt.Fp[p]);
    pw_stats_particles ps = {n, s->pt.x, s->pt.v, s->pt.m, Jp, s->pt.xi, s->pt.Fe,
                             s->pt.V0, s->pt.mu0, s->pt.lambda0, s->pt.Jp_min, s->pt.Jp_max,
                             s->p.gravity, NULL, NULL, 0, NULL, NULL, NULL};
    pw_frame_stats st;
    pw_error err = {0};
    pw_status rc = pw_stats_compute(&ps, 0.7 * s->p.h, s->p.h, NULL, 0, 0.0, &st, &err);
    free(Jp);
    return rc == PW_OK ? st.kinetic_energy + st.potential_energy + st.elastic_energy : NAN;
}

/* Returns 1 if the run stayed finite and bounded, 0 if it blew up; *growth = max E / E0. */
static int run(double beta, double *growth, int *steps)
{
    pw_error err = {0};
    double h = 0.005;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.2, 0, -0.2), v3(0.2, 0.2, 0.2));
    p.gravity = v3(0, -9.81, 0);
    p.beta = beta;
    p.dt_max = 5e-4;
    /* the fixed dt under test: no elastic bound and no retakes (sim/docs/step-control.md),
     * which would shorten the steps of either beta */
    p.courant = 0;
    p.retake_limit = 0;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.015 : 0.02;
    fixture_default(&b, v3(-r, 0.02, -r), v3(r, 0.02 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(0, -4, 0);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    double E0 = energy(s), Emax = E0;
    int ok = 1;
    double t_end = fixture_sanitized() ? 0.03 : 0.05;
    for (double t = 0.005; t <= t_end + 1e-12; t += 0.005) {
        pw_status rc = pw_sim_advance_to(s, t, NULL, NULL, &err);
        if (rc != PW_OK) {
            printf("beta %g: stopped at t = %.3f: %s\n", beta, pw_sim_time(s), err.msg);
            CHECK(rc == PW_ENUMERIC, "beta %g: unexpected status %d", beta, (int)rc);
            ok = 0;
            break;
        }
        Emax = fmax(Emax, energy(s));
        double Jp_lo = 1, Jp_hi = 1;
        for (size_t q = 0; q < s->pt.n; q++) {
            double Jp = m3_det(s->pt.Fp[q]);
            Jp_lo = fmin(Jp_lo, Jp);
            Jp_hi = fmax(Jp_hi, Jp);
        }
        double mean_dt = pw_sim_time(s) / (double)s->steps;
        if (Emax > 10 * E0 || !(Jp_lo > 0) || !(Jp_hi < 1e3) || mean_dt < 0.5 * p.dt_max) {
            printf("beta %g: blew up by t = %.3f s: E/E0 %.3g, J_P in [%.3g, %.3g], mean dt %.3g s\n",
                   beta, pw_sim_time(s), Emax / E0, Jp_lo, Jp_hi, mean_dt);
            ok = 0;
            break;
        }
    }
    pw_sim_stats st;
    pw_sim_get_stats(s, &st);
    *growth = Emax / E0;
    *steps = (int)st.steps;
    printf("beta %g: %zu particles, %llu steps, t = %.3f s, max E/E0 = %.4g, "
           "mean CR iterations %.1f, not converged %llu\n",
           beta, st.particles, (unsigned long long)st.steps, st.time, *growth,
           st.cr_iterations_mean, (unsigned long long)st.cr_not_converged);
    pw_sim_destroy(s);
    return ok;
}

int main(void)
{
    double g1, g0;
    int n1, n0;
    int implicit_ok = run(1.0, &g1, &n1);
    CHECK(implicit_ok, "1. beta = 1 blew up");
    CHECK(g1 <= 1.01, "1. beta = 1 gained energy: max E/E0 = %.4g", g1);
    int explicit_ok = run(0.0, &g0, &n0);
    CHECK(!explicit_ok, "2. beta = 0 stayed stable at dt = 5e-4 (max E/E0 = %.4g)", g0);
    return check_done("mpm_semi_implicit_stability");
}
