/* Property: the transfers and the step conserve what the paper says they conserve.
 *  1. P2G mass: sum_i m_i = sum_p m_p to 1e-12 relative (partition of unity of the
 *     B-spline weights; only rounding of ~64 n additions separates them).
 *  2. Linear momentum over several full explicit steps with elastic stress, no gravity
 *     and no walls or colliders in reach, for PIC (alpha 0), the PIC/FLIP blend
 *     (0.95), FLIP (1) and APIC: sum_p m_p v_p unchanged to 1e-10 relative. Forces sum
 *     to zero because the weight gradients do; the rest is rounding.
 *  3. The same with the semi-implicit solve (beta = 1) and cr_tolerance 1e-12: the
 *     Hessian action also sums to zero, so momentum moves only by the solver's
 *     residual; 1e-9 relative.
 *  4. APIC angular momentum over P2G then G2P for a spinning body: particle
 *     L = sum_p m_p (x_p x v_p + D eps : C_p^T) with D = h^2/3 (cubic) or h^2/4
 *     (quadratic), grid L = sum_i m_i x_i x v_i;
 *     both transfers preserve it exactly in exact arithmetic (Jiang et al. 2015), to
 *     1e-6 relative here (rounding is ~1e-14; the margin covers the x_i - x_p terms). */
#include "check.h"
#include "mpm_fixture.h"
#include "hessian.h"
#include "mpm_internal.h"
#include "solver.h"
#include "transfer.h"

static vec3 momentum(const pw_sim *s)
{
    vec3 P = v3_zero();
    for (size_t p = 0; p < s->pt.n; p++) P = v3_madd(P, s->pt.v[p], s->pt.m[p]);
    return P;
}

/* particle angular momentum including APIC's affine part: eps_abc C_cb D */
static vec3 angular_particles(const pw_sim *s)
{
    double D = s->p.h * s->p.h / (s->p.kernel == PW_KERNEL_QUADRATIC ? 4.0 : 3.0);
    vec3 L = v3_zero();
    for (size_t p = 0; p < s->pt.n; p++) {
        vec3 aff = v3_zero(); /* (PIC/FLIP holds no C) */
        if (s->pt.C) {
            const mat3 *C = &s->pt.C[p];
            aff = v3(C->m[2][1] - C->m[1][2], C->m[0][2] - C->m[2][0], C->m[1][0] - C->m[0][1]);
        }
        L = v3_madd(L, v3_add(v3_cross(s->pt.x[p], s->pt.v[p]), v3_scale(aff, D)), s->pt.m[p]);
    }
    return L;
}

static vec3 angular_grid(const pw_sim *s)
{
    vec3 L = v3_zero();
    for (size_t i = 0; i < pw_grid_node_count(&s->grid); i++)
        if (s->grid.m[i] > 0)
            L = v3_madd(L, v3_cross(pw_grid_node_position(&s->grid, i), s->grid.v[i]), s->grid.m[i]);
    return L;
}

static pw_sim *make_sim(pw_transfer transfer, double alpha, double beta, double tol)
{
    double h = 0.05;
    pw_sim_params p;
    fixture_params(&p, h, v3(-1, -1, -1), v3(1, 1, 1));
    p.transfer = transfer;
    p.flip_alpha = alpha;
    p.beta = beta;
    p.cr_tolerance = tol;
    p.cr_max_iterations = 2000;
    p.dt_max = beta > 0 ? 1e-3 : 1e-4;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    CHECK(s != NULL, "create: %s", err.msg);
    fixture_body b;
    double r = fixture_sanitized() ? 0.12 : 0.2;
    fixture_default(&b, v3(-r, -r, -r), v3(r, r, r), h);
    b.sphere = 1;
    b.v = v3(0.3, -0.2, 0.1);
    b.omega = v3(1.0, 4.0, -2.0);
    CHECK(fixture_add(s, &b, &err) == PW_OK, "add: %s", err.msg);
    return s;
}

static void check_linear(pw_transfer transfer, double alpha, double beta, double tol, double rel,
                         const char *what)
{
    pw_sim *s = make_sim(transfer, alpha, beta, tol);
    pw_error err = {0};
    vec3 P0 = momentum(s);
    CHECK(pw_sim_advance_to(s, 10 * s->p.dt_max, NULL, NULL, &err) == PW_OK, "advance: %s", err.msg);
    vec3 P1 = momentum(s);
    double scale = v3_length(P0);
    double e = v3_length(v3_sub(P1, P0)) / scale;
    printf("%s: |dP|/|P| = %.3g after %llu steps\n", what, e, (unsigned long long)s->steps);
    CHECK(e <= rel, "%s: momentum drift %.3g > %.3g", what, e, rel);
    /* the body must actually be stressed, or the case proves little */
    double dFmax = 0;
    for (size_t p = 0; p < s->pt.n; p++)
        dFmax = fmax(dFmax, m3_norm_frobenius(m3_sub(s->pt.Fe[p], m3_identity())));
    CHECK(dFmax > 1e-6, "%s: body not deformed (|Fe - I| %.3g)", what, dFmax);
    pw_sim_destroy(s);
}

int main(void)
{
    pw_error err = {0};
    /* 1. mass in P2G */
    {
        pw_sim *s = make_sim(PW_TRANSFER_PIC_FLIP, 0.95, 1, 1e-6);
        CHECK(pw_mpm_begin_step(s, &err) == PW_OK, "begin: %s", err.msg);
        pw_mpm_p2g(s);
        double mp = 0, mi = 0;
        for (size_t p = 0; p < s->pt.n; p++) mp += s->pt.m[p];
        for (size_t i = 0; i < pw_grid_node_count(&s->grid); i++) mi += s->grid.m[i];
        printf("1. mass: particles %.15g kg, grid %.15g kg, rel %.3g\n", mp, mi, fabs(mi - mp) / mp);
        CHECK_NEAR(mi / mp, 1.0, 1e-12, "1. grid mass / particle mass");
        pw_sim_destroy(s);
    }
    /* 2. linear momentum, explicit */
    check_linear(PW_TRANSFER_PIC_FLIP, 0.0, 0, 1e-6, 1e-10, "2.1 PIC explicit");
    check_linear(PW_TRANSFER_PIC_FLIP, 0.95, 0, 1e-6, 1e-10, "2.2 PIC/FLIP 0.95 explicit");
    check_linear(PW_TRANSFER_PIC_FLIP, 1.0, 0, 1e-6, 1e-10, "2.3 FLIP explicit");
    check_linear(PW_TRANSFER_APIC, 0, 0, 1e-6, 1e-10, "2.4 APIC explicit");
    /* 3. linear momentum, semi-implicit */
    check_linear(PW_TRANSFER_PIC_FLIP, 0.95, 1, 1e-12, 1e-9, "3.1 PIC/FLIP implicit");
    check_linear(PW_TRANSFER_APIC, 0, 1, 1e-12, 1e-9, "3.2 APIC implicit");
    /* 4. APIC angular momentum over the transfers */
    {
        pw_sim *s = make_sim(PW_TRANSFER_APIC, 0, 1, 1e-6);
        vec3 L0 = angular_particles(s);
        double scale = v3_length(L0);
        for (int round = 0; round < 2; round++) {
            CHECK(pw_mpm_begin_step(s, &err) == PW_OK, "begin: %s", err.msg);
            pw_mpm_p2g(s);
            vec3 Lg = angular_grid(s);
            pw_mpm_g2p(s);
            vec3 L1 = angular_particles(s);
            double eg = v3_length(v3_sub(Lg, L0)) / scale, ep = v3_length(v3_sub(L1, L0)) / scale;
            printf("4.%d APIC angular momentum: P2G rel %.3g, G2P rel %.3g\n", round + 1, eg, ep);
            CHECK(eg <= 1e-6, "4.%d grid L off by %.3g", round + 1, eg);
            CHECK(ep <= 1e-6, "4.%d particle L off by %.3g", round + 1, ep);
        }
        /* and the affine part matters: without it the second round would lose L */
        double Cmax = 0;
        for (size_t p = 0; p < s->pt.n; p++) Cmax = fmax(Cmax, m3_norm_frobenius(s->pt.C[p]));
        CHECK(Cmax > 1.0, "4. APIC C stayed ~0 (%.3g) on a spinning body", Cmax);
        pw_sim_destroy(s);
    }
    return check_done("mpm_conserves_mass_and_momentum");
}
