/* sim.c — the solver handle: parameters, creation, colliders and particles.
 * The time step itself is in mpm.c. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "loops.h"
#include "mpm_internal.h"

#define PAD_BLOCKS 1  /* blocks of nodes below domain_min, so stencils stay at >= 0 */

/* ---- parameters ------------------------------------------------------------------ */

void pw_sim_params_default(pw_sim_params *p)
{
    memset(p, 0, sizeof *p);
    p->h = 0.01;
    p->domain_min = v3(-3, 0, -3);
    p->domain_max = v3(3, 3, 3);
    p->gravity = v3(0, -9.81, 0);
    p->dt_max = 5e-4;
    p->cfl = 0.5;
    /* C is the stiffest particle's: the shipped previews run at C up to 8-17 with 2-21
     * CR iterations a step, so the bound leaves them as they were, and acts where
     * hardening multiplies c in crushed snow (sim/docs/step-control.md) */
    p->courant = 20.0;
    p->retake_limit = 8;
    p->beta = 1.0;
    p->transfer = PW_TRANSFER_PIC_FLIP;
    p->flip_alpha = 0.95;
    p->kernel = PW_KERNEL_CUBIC;
    /* relative residual in the mass-weighted norm: on the snowball drop it keeps
     * positions a small fraction of h from a 1e-6 solve's, for far fewer iterations
     * (sim/docs/cr-tolerance.md) */
    p->cr_tolerance = 1e-4;
    p->cr_max_iterations = 200;
    p->threads = 0;
    p->rest_speed = 0;
    p->sleep_steps = 50;
    p->wake_speed = 0;
    p->has_region = 0;
    p->region_freezes = 0;
}

pw_status pw_sim_params_check(const pw_sim_params *p, pw_error *err)
{
    if (!(p->h > 0) || !isfinite(p->h))
        return pw_fail(err, PW_EINVAL, "sim params: h must be > 0 [m] (%g)", p->h);
    const char *axis = "xyz";
    for (int a = 0; a < 3; a++) {
        double lo = v3_get(p->domain_min, a), hi = v3_get(p->domain_max, a);
        if (!isfinite(lo) || !isfinite(hi) || !(hi - lo >= 8 * p->h))
            return pw_fail(err, PW_EINVAL,
                           "sim params: domain %c extent must be finite and >= 8 h (%g to %g)",
                           axis[a], lo, hi);
        double nodes = (hi - lo) / p->h;
        if (nodes > (double)(PW_BLOCK << PW_BLOCK_COORD_BITS) - 64)
            return pw_fail(err, PW_EINVAL,
                           "sim params: domain %c spans too many cells for the grid (%.0f)",
                           axis[a], nodes);
    }
    if (!v3_isfinite(p->gravity))
        return pw_fail(err, PW_EINVAL, "sim params: gravity must be finite (%g, %g, %g)",
                       p->gravity.x, p->gravity.y, p->gravity.z);
    if (!(p->dt_max > 0 && p->dt_max <= 1))
        return pw_fail(err, PW_EINVAL, "sim params: dt_max must be in (0, 1] [s] (%g)", p->dt_max);
    if (!(p->cfl > 0 && p->cfl <= 1))
        return pw_fail(err, PW_EINVAL, "sim params: cfl must be in (0, 1] (%g)", p->cfl);
    if (!(p->courant >= 0 && p->courant <= PW_COURANT_MAX))
        return pw_fail(err, PW_EINVAL, "sim params: courant must be in [0, %g] (%g)",
                       PW_COURANT_MAX, p->courant);
    if (p->retake_limit < 0 || p->retake_limit > PW_RETAKE_LIMIT_MAX)
        return pw_fail(err, PW_EINVAL, "sim params: retake_limit must be in [0, %d] (%d)",
                       PW_RETAKE_LIMIT_MAX, p->retake_limit);
    if (!(p->beta >= 0 && p->beta <= 1))
        return pw_fail(err, PW_EINVAL, "sim params: beta must be in [0, 1] (%g)", p->beta);
    if (p->transfer != PW_TRANSFER_PIC_FLIP && p->transfer != PW_TRANSFER_APIC)
        return pw_fail(err, PW_EINVAL, "sim params: unknown transfer (%d)", (int)p->transfer);
    if (p->kernel != PW_KERNEL_CUBIC && p->kernel != PW_KERNEL_QUADRATIC)
        return pw_fail(err, PW_EINVAL, "sim params: unknown kernel (%d)", (int)p->kernel);
    if (!(p->flip_alpha >= 0 && p->flip_alpha <= 1))
        return pw_fail(err, PW_EINVAL, "sim params: flip_alpha must be in [0, 1] (%g)",
                       p->flip_alpha);
    if (!(p->rest_speed >= 0) || !isfinite(p->rest_speed))
        return pw_fail(err, PW_EINVAL, "sim params: rest_speed must be >= 0 [m/s] (%g)",
                       p->rest_speed);
    if (p->kernel_width < 0 || p->kernel_width > 2 || p->steal_first < 0 || p->steal_first > 1)
        return pw_fail(err, PW_EINVAL, "sim params: kernel_width must be 0-2 and steal_first "
                                       "0 or 1 (%d, %d)", p->kernel_width, p->steal_first);
    if (!(p->wake_speed >= 0) || !isfinite(p->wake_speed))
        return pw_fail(err, PW_EINVAL, "sim params: wake_speed must be >= 0 [m/s] (%g)",
                       p->wake_speed);
    if (p->rest_speed > 0 && (p->sleep_steps < 1 || p->sleep_steps > 1000000))
        return pw_fail(err, PW_EINVAL, "sim params: sleep_steps must be in [1, 1e6] (%d)",
                       p->sleep_steps);
    if (p->has_region && (p->region.kind != PW_SHAPE_BOX || !(p->rest_speed > 0)))
        return pw_fail(err, PW_EINVAL, "sim params: the active region must be a box, and needs "
                                       "rest_speed > 0 to tell resting snow");
    if (!(p->cr_tolerance > 0 && p->cr_tolerance < 1))
        return pw_fail(err, PW_EINVAL, "sim params: cr_tolerance must be in (0, 1) (%g)",
                       p->cr_tolerance);
    if (p->cr_max_iterations < 1 || p->cr_max_iterations > 100000)
        return pw_fail(err, PW_EINVAL, "sim params: cr_max_iterations must be in [1, 100000] (%d)",
                       p->cr_max_iterations);
    if (p->threads < 0 || p->threads > 4096)
        return pw_fail(err, PW_EINVAL, "sim params: threads must be in [0, 4096] (%d)", p->threads);
    return PW_OK;
}

/* ---- storage ----------------------------------------------------------------------- */

static pw_status reserve_particles(pw_sim *s, size_t n, pw_error *err)
{
    pw_particles *pt = &s->pt;
    if (n <= pt->cap) return PW_OK;
    /* exact for the usual one batch a body; half again over the last size when
     * batches keep coming, so that adding stays linear in the particles added */
    size_t c = pt->cap + pt->cap / 2;
    return pw_particles_reserve(pt, n > c ? n : c, err);
}

/* ---- handle -------------------------------------------------------------------------- */

pw_sim *pw_sim_create(const pw_sim_params *p, pw_error *err)
{
    if (pw_sim_params_check(p, err) != PW_OK) return NULL;
    pw_sim *s = calloc(1, sizeof *s);
    if (!s) {
        pw_fail(err, PW_ENOMEM, "sim: cannot allocate the solver");
        return NULL;
    }
    s->p = *p;
    s->pt.apic = p->transfer == PW_TRANSFER_APIC;
    s->wide = box_wide_for(p->kernel_width);
    s->pt.rests = p->rest_speed > 0;
    if (!(s->p.wake_speed > 0)) s->p.wake_speed = 10 * s->p.rest_speed; /* the default */
    s->threads_max = p->threads > 0 ? p->threads : omp_get_max_threads();
    s->threads = s->threads_max;
    s->particles_per_thread = 16384; /* below this, another thread costs more than it saves */
    s->dt_retake_cap = INFINITY;
    s->test_retake_step = UINT64_MAX;
    s->step_log.dt_min = INFINITY;
    s->home_runs = pw_mpm_home_runs_create(s->threads_max);
    if (!s->home_runs) {
        pw_fail(err, PW_ENOMEM, "sim: cannot allocate the work sharing of %d threads",
                s->threads_max);
        free(s);
        return NULL;
    }
    s->colliders = pw_colliders_create(p->h, err);
    if (!s->colliders) {
        free(s->home_runs);
        free(s);
        return NULL;
    }
    /* node 0 sits PAD_BLOCKS blocks below domain_min, aligned to blocks */
    double pad = PAD_BLOCKS * PW_BLOCK * p->h;
    vec3 origin = v3_sub(p->domain_min, v3(pad, pad, pad));
    double ext = fmax(fmax(p->domain_max.x - p->domain_min.x, p->domain_max.y - p->domain_min.y),
                      p->domain_max.z - p->domain_min.z);
    pw_grid_init(&s->grid, p->h, origin, (int64_t)ceil(ext / p->h) + 2 * PAD_BLOCKS * PW_BLOCK + 8);
    s->grid.stencil = p->kernel == PW_KERNEL_QUADRATIC ? PW_STENCIL_QUADRATIC : PW_STENCIL_CUBIC;
    return s;
}

void pw_sim_destroy(pw_sim *s)
{
    if (!s) return;
    pw_colliders_destroy(s->colliders);
    free(s->home_runs);
    pw_particles_free(&s->pt);
    void *arrays[] = {s->ps, s->stress, s->K, s->home_scratch, s->batch_psi, s->fe_svd, s->perm,
                      s->inv_sqrt_m, s->partial};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) free(arrays[k]);
    for (int k = 0; k < 5; k++) free(s->cr[k]);
    pw_warm_step *w[3] = {&s->warm, &s->warm_old, &s->warm_new};
    for (int k = 0; k < 3; k++) {
        free(w[k]->keys);
        free(w[k]->dv);
        free(w[k]->map);
    }
    free(s->u4);
    free(s->Hu4);
    free(s->dinv);
    free(s->hdiag);
    free(s->resting);
    free(s->held);
    free(s->reorder_tasks);
    free(s->wake_keys);
    free(s->flight_near);
    pw_grid_free(&s->grid);
    free(s);
}

pw_status pw_sim_add_collider(pw_sim *s, const pw_collider_desc *c, pw_error *err)
{
    return pw_colliders_add(s->colliders, c, err);
}

/* Material and state checks of seeded particle k (global index g). */
static pw_status check_seeded(const pw_sim *s, const pw_seeded *in, size_t k, size_t g,
                              pw_error *err)
{
    vec3 x = in->x[k];
    if (!v3_isfinite(x) || x.x < s->p.domain_min.x || x.y < s->p.domain_min.y ||
        x.z < s->p.domain_min.z || x.x > s->p.domain_max.x || x.y > s->p.domain_max.y ||
        x.z > s->p.domain_max.z)
        return pw_fail(err, PW_EINVAL, "sim: particle %zu: position outside the domain (%g, %g, %g)",
                       g, x.x, x.y, x.z);
    if (!(in->m[k] > 0) || !isfinite(in->m[k]))
        return pw_fail(err, PW_EINVAL, "sim: particle %zu: mass must be > 0 [kg] (%g)", g, in->m[k]);
    if (!(in->mu0[k] >= 0) || !isfinite(in->mu0[k]) || !(in->lambda0[k] >= 0) ||
        !isfinite(in->lambda0[k]))
        return pw_fail(err, PW_EINVAL, "sim: particle %zu: Lame parameters must be >= 0 [Pa] (%g, %g)",
                       g, in->mu0[k], in->lambda0[k]);
    /* the material's own ranges (pw_material_ranges), one particle at a time */
    static const char *const keys[] = {"xi", "theta_c", "theta_s", "Jp_min", "Jp_max"};
    const double vals[] = {in->xi[k], in->theta_c[k], in->theta_s[k], in->Jp_min[k],
                           in->Jp_max[k]};
    for (int q = 0; q < 5; q++) {
        const pw_material_range *r = pw_material_range_of(keys[q]);
        if (!pw_material_range_holds(r, vals[q]))
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: %s = %g: %s must be in %c%g, %g%c",
                           g, keys[q], vals[q], r->what, r->lo_open ? '(' : '[', r->lo, r->hi,
                           r->hi_open ? ')' : ']');
    }
    /* a particle's floor also holds the density limit's, which reaches 1 for a shell
     * seeded above rho_max: [0, 1], where a material's own Jp_floor is below 1 */
    if (in->Jp_floor && !(in->Jp_floor[k] >= 0 && in->Jp_floor[k] <= 1))
        return pw_fail(err, PW_EINVAL, "sim: particle %zu: the compaction floor of J_P must be in [0, 1] (%g)",
                       g, in->Jp_floor[k]);
    if (in->laws) {
        uint32_t law = in->law[k];
        double phi = in->friction_angle[k], c = in->cohesion[k], r = in->durability_rate[k];
        if (law == 0 || (law & ~PW_LAW_ALL) ||
            (law & PW_LAW_FRICTION) == PW_LAW_FRICTION)
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: law %u is not a law Powder has",
                           g, law);
        if ((law & PW_LAW_FRICTION) && !(phi > 0 && phi < 1.5707963267948966))
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: friction angle %g rad must be in "
                           "(0, pi/2)", g, phi);
        if (!(c >= 0) || !isfinite(c))
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: cohesion must be >= 0 [Pa] (%g)",
                           g, c);
        if (!(r >= 0 && r <= PW_DURABILITY_RATE_MAX))
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: durability_rate must be in [0, "
                           "%g] (%g)", g, PW_DURABILITY_RATE_MAX, r);
        if (!(in->durability[k] >= 0 && in->durability[k] <= 1))
            return pw_fail(err, PW_EINVAL, "sim: particle %zu: durability must be in [0, 1] (%g)",
                           g, in->durability[k]);
    }
    return PW_OK;
}

/* Appends the seeded particles; a new body unless `emitted` (a source's particles carry
 * their own V0, so no body's mass is counted for them), and then the step's kept state
 * stays: emission repeats alike in a resumed run. */
static pw_status append(pw_sim *s, const pw_seeded *in, int emitted, double drag, pw_error *err)
{
    pw_particles *pt = &s->pt;
    if (pt->n + in->n > UINT32_MAX)
        return pw_fail(err, PW_EINVAL, "sim: too many particles (%zu)", pt->n + in->n);
    for (size_t k = 0; k < in->n; k++) {
        pw_status rc = check_seeded(s, in, k, pt->n + k, err);
        if (rc != PW_OK) return rc;
    }
    pw_status rc = in->layered ? pw_particles_hold_layers(pt, err) : PW_OK;
    if (rc == PW_OK && in->laws) rc = pw_particles_hold_laws(pt, err);
    if (rc == PW_OK) rc = reserve_particles(s, pt->n + in->n, err);
    if (rc == PW_OK && in->n && (!emitted || pt->n_bodies == 0))
        rc = pw_particles_add_body(pt, (uint32_t)pt->n, err); /* its own */
    if (rc != PW_OK) return rc;
    for (size_t k = 0; k < in->n; k++) {
        size_t p = pt->n + k;
        /* the seeder's fields are copied below; velocities are checked with all state
         * at the next step */
        pt->V0[p] = 0; /* set from the grid at the particle's first step (step 2) */
        pt->Fe[p] = m3_identity();
        pt->Fp[p] = m3_identity();
        if (pt->apic) pt->C[p] = m3_zero();
        if (pt->rests) pt->rest[p] = 0;
        if (pt->emits) pt->drag[p] = drag;
        pt->id[p] = (uint32_t)p;
    }
    for (int f = 0; f < pw_particle_field_count; f++) {
        const pw_particle_field *fd = &pw_particle_fields[f];
        void **from = pw_seeded_array((pw_seeded *)in, fd);
        if (!from || !pw_particle_field_held(pt, fd)) continue;
        size_t bytes = pw_particle_field_bytes(fd);
        char *to = (char *)*pw_particle_array(pt, fd) + pt->n * bytes;
        if (*from) memcpy(to, *from, in->n * bytes);
        else if (fd->optional || fd->apic_only == 4) memset(to, 0, in->n * bytes);
        else return pw_fail(err, PW_EINVAL, "sim: the seeded particles lack '%s'", fd->name);
    }
    if (pt->laws && !in->laws) /* (a seeded set of the 2013 law may lack their arrays) */
        for (size_t k = 0; k < in->n; k++) {
            pt->law[pt->n + k] = PW_LAW_CLAMP;
            pt->durability[pt->n + k] = 1;
        }
    size_t first = pt->n;
    pt->n += in->n;
    if (emitted && s->fe_svd_valid) { /* Fe = I: the SVD the next step starts from */
        if ((rc = pw_mpm_reserve_step(s, err)) != PW_OK) return rc;
        for (size_t p = first; p < pt->n; p++)
            pw_svd3_pack(&(pw_svd3){m3_identity(), m3_identity(), v3(1, 1, 1)}, &s->fe_svd[p]);
    }
    /* every particle is stepped until the next step decides; emitted ones are left past
     * the stepped count, where the next step's rest decision takes them for woken snow
     * and factors their Fe afresh: the particles that rested keep their place there and
     * no kept SVD is read that was never made */
    if (!emitted) s->n_step = pt->n;
    s->rest_tail = SIZE_MAX; /* and the sort keys them all afresh */
    if (!emitted) pw_mpm_forget_kept_state(s);
    return PW_OK;
}

pw_status pw_sim_add_particles(pw_sim *s, const pw_seeded *in, pw_error *err)
{
    return append(s, in, 0, 0, err);
}

pw_status pw_sim_append_emitted(pw_sim *s, const pw_seeded *in, double drag, pw_error *err)
{
    return append(s, in, 1, drag, err);
}

pw_status pw_sim_add_source(pw_sim *s, const pw_source_desc *d, pw_error *err)
{
    return pw_emit_add_source(s, d, err);
}

double pw_sim_mass_emitted(const pw_sim *s) { return pw_emit_mass(s); }
