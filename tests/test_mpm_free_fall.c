/* Property: an unstressed body in free fall moves as a rigid body under gravity.
 * The paper's step is symplectic Euler on the grid (v^{n+1} = v^n + dt g, then
 * x^{n+1} = x^n + dt v^{n+1}), so after steps dt_1..dt_n the centre of mass has fallen
 * exactly sum_k dt_k (v0 + g sum_{j<=k} dt_j), which tends to 1/2 g t^2 with the
 * O(dt) offset 1/2 g t dt for constant dt. We check:
 *  1. the centre of mass against that exact discrete sum to 1e-6 relative (rounding
 *     in the transfers is ~1e-14; stresses stay zero because Fe stays I);
 *  2. against 1/2 g t^2 within the stated offset 1/2 g t dt_max (+1e-6 relative);
 *  3. for PIC/FLIP and for APIC;
 *  4. every particle's velocity equals v0 + g t to 1e-9 m/s (no spurious spread).
 * The body starts at rest high in the domain and stops before the floor band. */
#include "check.h"
#include "mpm_fixture.h"
#include "mpm_internal.h"

static vec3 centre(const pw_sim *s)
{
    vec3 c = v3_zero();
    double M = 0;
    for (size_t p = 0; p < s->pt.n; p++) {
        c = v3_madd(c, s->pt.x[p], s->pt.m[p]);
        M += s->pt.m[p];
    }
    return v3_scale(c, 1.0 / M);
}

static void run(pw_transfer transfer, const char *what)
{
    pw_error err = {0};
    double h = 0.05;
    pw_sim_params p;
    fixture_params(&p, h, v3(-1, -2, -1), v3(1, 1, 1));
    p.gravity = v3(0, -9.81, 0);
    p.transfer = transfer;
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    fixture_default(&b, v3(-0.15, 0.4, -0.15), v3(0.15, 0.7, 0.15), h);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);

    vec3 c0 = centre(s);
    double v = 0, drop = 0, t = 0; /* exact discrete free fall, tracked alongside */
    int steps = fixture_sanitized() ? 100 : 400;   /* up to 0.2 s: 0.2 m of fall */
    for (int k = 0; k < steps; k++) {
        double t_next = t + p.dt_max;
        CHECK(pw_sim_advance_to(s, t_next, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
        double dt = pw_sim_time(s) - t;
        v += p.gravity.y * dt;
        drop += v * dt;
        t = pw_sim_time(s);
    }
    vec3 c1 = centre(s);
    double fell = c1.y - c0.y;
    double e1 = fabs(fell - drop) / fabs(drop);
    double analytic = 0.5 * p.gravity.y * t * t;
    double offset = 0.5 * fabs(p.gravity.y) * t * p.dt_max;
    printf("%s: t = %.4f s, fell %.12f m, discrete %.12f m (rel %.3g), 1/2 g t^2 = %.12f m "
           "(offset %.3g, allowed %.3g)\n",
           what, t, fell, drop, e1, analytic, fabs(fell - analytic), offset);
    CHECK(e1 <= 1e-6, "%s: 1. centre of mass vs discrete free fall rel %.3g", what, e1);
    CHECK(fabs(fell - analytic) <= offset + 1e-6 * fabs(analytic),
          "%s: 2. |fall - 1/2 g t^2| = %.3g > %.3g", what, fabs(fell - analytic), offset);
    CHECK(fabs(c1.x - c0.x) < 1e-12 && fabs(c1.z - c0.z) < 1e-12, "%s: sideways drift", what);
    double vmax_err = 0;
    for (size_t q = 0; q < s->pt.n; q++)
        vmax_err = fmax(vmax_err, v3_length(v3_sub(s->pt.v[q], v3(0, v, 0))));
    printf("%s: max |v_p - g t| = %.3g m/s\n", what, vmax_err);
    CHECK(vmax_err <= 1e-9, "%s: 4. particle velocity spread %.3g", what, vmax_err);
    pw_sim_stats st;
    pw_sim_get_stats(s, &st);
    printf("%s: %zu particles, %llu steps, mean CR iterations %.2f\n", what, st.particles,
           (unsigned long long)st.steps, st.cr_iterations_mean);
    pw_sim_destroy(s);
}

int main(void)
{
    run(PW_TRANSFER_PIC_FLIP, "3.1 PIC/FLIP");
    run(PW_TRANSFER_APIC, "3.2 APIC");
    return check_done("mpm_free_fall");
}
