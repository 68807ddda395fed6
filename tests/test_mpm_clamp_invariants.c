/* Property: the deformation update of eqs. 11-12 keeps the plastic split consistent.
 *  1. After real steps of a snowball hitting the floor (plastic flow in compression
 *     and stretch), every singular value of every Fe lies in [1 - theta_c,
 *     1 + theta_s] to 1e-9 (the clamp is exact; only the SVD's reconstruction
 *     rounding, ~1e-15, separates Fe's singular values from the clamped ones).
 *  2. In one update with the grid velocities of that impact and a large dt (so most
 *     particles clamp): Fe^{n+1} Fp^{n+1} equals the unclamped (I + dt grad v) Fe^n Fp^n
 *     to 1e-9 relative (Frobenius); the unclamped product is obtained from the same
 *     update with theta_c, theta_s opened wide.
 *  3. At least a quarter of the particles were clamped in 2 (else 2 proves little),
 *     and J_P moved away from 1 somewhere in 1 (plasticity happened). */
#include "check.h"
#include "mpm_fixture.h"
#include "hessian.h"
#include "mpm_internal.h"
#include "solver.h"
#include "transfer.h"

int main(void)
{
    pw_error err = {0};
    double h = 0.04;
    pw_sim_params p;
    fixture_params(&p, h, v3(-0.6, 0, -0.6), v3(0.6, 0.8, 0.6));
    p.gravity = v3(0, -9.81, 0);
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.12 : 0.18;
    fixture_default(&b, v3(-r, 0.1, -r), v3(r, 0.1 + 2 * r, r), h);
    b.sphere = 1;
    b.v = v3(0.5, -3, 0);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    CHECK(pw_sim_advance_to(s, 0.03, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);

    /* 1. singular values inside the clamp after real steps */
    double worst = 0, Jp_dev = 0;
    for (size_t q = 0; q < s->pt.n; q++) {
        mat3 U, V;
        vec3 sig;
        m3_svd(s->pt.Fe[q], &U, &sig, &V);
        double lo = 1 - s->pt.theta_c[q], hi = 1 + s->pt.theta_s[q];
        for (int a = 0; a < 3; a++) {
            double x = v3_get(sig, a);
            worst = fmax(worst, fmax(lo - x, x - hi));
        }
        Jp_dev = fmax(Jp_dev, fabs(m3_det(s->pt.Fp[q]) - 1));
    }
    printf("1. %zu particles after %llu steps: worst excursion outside the clamp %.3g, max |J_P - 1| %.3g\n",
           s->pt.n, (unsigned long long)s->steps, worst, Jp_dev);
    CHECK(worst <= 1e-9, "1. singular value outside [1-theta_c, 1+theta_s] by %.3g", worst);
    CHECK(Jp_dev > 1e-3, "3. no plastic flow (max |J_P - 1| = %.3g)", Jp_dev);

    /* 2. Fe Fp = unclamped F, for one update with a large dt */
    CHECK(pw_mpm_begin_step(s, &err) == PW_OK, "begin: %s", err.msg);
    pw_mpm_p2g(s);
    size_t n = s->pt.n;
    mat3 *Fe0 = malloc(n * sizeof *Fe0), *Fp0 = malloc(n * sizeof *Fp0), *Fhat = malloc(n * sizeof *Fhat);
    double *tc = malloc(n * sizeof *tc), *ts = malloc(n * sizeof *ts);
    memcpy(Fe0, s->pt.Fe, n * sizeof *Fe0);
    memcpy(Fp0, s->pt.Fp, n * sizeof *Fp0);
    memcpy(tc, s->pt.theta_c, n * sizeof *tc);
    memcpy(ts, s->pt.theta_s, n * sizeof *ts);
    double dt = 1e-2;
    for (size_t q = 0; q < n; q++) {
        s->pt.theta_c[q] = 0.999;
        s->pt.theta_s[q] = 1e6;
    }
    CHECK(pw_mpm_update_deformation(s, dt) == n, "unclamped update failed");
    for (size_t q = 0; q < n; q++) Fhat[q] = m3_mul(s->pt.Fe[q], s->pt.Fp[q]);
    memcpy(s->pt.Fe, Fe0, n * sizeof *Fe0);
    memcpy(s->pt.Fp, Fp0, n * sizeof *Fp0);
    memcpy(s->pt.theta_c, tc, n * sizeof *tc);
    memcpy(s->pt.theta_s, ts, n * sizeof *ts);
    CHECK(pw_mpm_update_deformation(s, dt) == n, "update failed");
    double rel = 0;
    size_t clamped = 0;
    for (size_t q = 0; q < n; q++) {
        mat3 F = m3_mul(s->pt.Fe[q], s->pt.Fp[q]);
        rel = fmax(rel, m3_norm_frobenius(m3_sub(F, Fhat[q])) / m3_norm_frobenius(Fhat[q]));
        if (m3_norm_frobenius(m3_sub(s->pt.Fp[q], Fp0[q])) > 1e-12) clamped++;
    }
    printf("2. max |Fe Fp - F| / |F| = %.3g; %zu of %zu particles clamped\n", rel, clamped, n);
    CHECK(rel <= 1e-9, "2. Fe Fp differs from the unclamped F by %.3g", rel);
    CHECK(clamped * 4 >= n, "3. only %zu of %zu particles clamped", clamped, n);
    free(Fe0); free(Fp0); free(Fhat); free(tc); free(ts);
    pw_sim_destroy(s);
    return check_done("mpm_clamp_invariants");
}
