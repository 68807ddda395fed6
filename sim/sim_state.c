/* sim_state.c — the full solver state as a frame cache (pw_cache.h): what pw_sim_save
 * writes is everything a step reads, so load + advance repeats an uninterrupted run
 * bit for bit. Particles are stored in the solver's current order (sorted by block),
 * since the next sort starts from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpm_internal.h"
#include "pw_cache.h"

/* A simulation that stopped with an error leaves no frame behind it. */
static pw_status refuse_failed(const char *path, pw_error *err)
{
    return pw_fail(err, PW_ENUMERIC, "%s: not written: the simulation stopped with an error",
                   path);
}

/* The header of a frame of s's current state, over the n attributes given. */
static pw_cache_frame frame_of(const pw_sim *s, int64_t frame, uint64_t sim_hash,
                               pw_cache_attr *attrs, int n)
{
    pw_cache_frame f;
    memset(&f, 0, sizeof f);
    f.count = s->pt.n;
    f.time = s->t;
    f.h = s->p.h;
    f.frame = frame;
    f.step = s->steps;
    f.sim_hash = sim_hash;
    f.n_attrs = n;
    f.attrs = attrs;
    return f;
}

pw_status pw_sim_save(const pw_sim *s, const char *path, int64_t frame, uint64_t sim_hash,
                      pw_error *err)
{
    const pw_particles *pt = &s->pt;
    if (s->failed) return refuse_failed(path, err);
    pw_cache_attr attrs[PW_PARTICLE_MAX_FIELDS + 1];
    double *Jp = malloc((pt->n ? pt->n : 1) * sizeof *Jp);
    if (!Jp) return pw_fail(err, PW_ENOMEM, "%s: cannot allocate Jp for %zu particles", path, pt->n);
    for (size_t p = 0; p < pt->n; p++) Jp[p] = m3_det(pt->Fp[p]);
    int na = 0;
    for (int k = 0; k < pw_particle_field_count; k++) {
        const pw_particle_field *fd = &pw_particle_fields[k];
        if (!pw_particle_field_held(pt, fd)) continue;
        memset(&attrs[na], 0, sizeof attrs[na]);
        snprintf(attrs[na].name, sizeof attrs[na].name, "%s", fd->name);
        attrs[na].type = fd->type;
        attrs[na].components = fd->components;
        attrs[na].data = *pw_particle_array((pw_particles *)pt, fd);
        na++;
    }
    memset(&attrs[na], 0, sizeof attrs[na]);
    snprintf(attrs[na].name, sizeof attrs[na].name, "Jp");
    attrs[na].type = PW_F64;
    attrs[na].components = 1;
    attrs[na].data = Jp;
    na++;

    pw_cache_frame f = frame_of(s, frame, sim_hash, attrs, na);
    /* counters are below 2^53, so doubles hold them exactly */
    pw_status rc = pw_cache_global_set(&f, "dt_last", s->dt_last, err);
    if (rc == PW_OK) rc = pw_cache_global_set(&f, "cr_iterations_last", s->cr_iterations_last, err);
    if (rc == PW_OK)
        rc = pw_cache_global_set(&f, "cr_iterations_total", (double)s->cr_iterations_total, err);
    if (rc == PW_OK) rc = pw_cache_global_set(&f, "cr_solves", (double)s->cr_solves, err);
    if (rc == PW_OK)
        rc = pw_cache_global_set(&f, "cr_not_converged", (double)s->cr_not_converged, err);
    /* resting snow: the stored order puts it last, and the next step updates the
     * counters of the particles before it only */
    if (rc == PW_OK && s->pt.rests)
        rc = pw_cache_global_set(&f, "stepped_particles", (double)s->n_step, err);
    if (rc == PW_OK) rc = pw_cache_write(path, &f, err);
    free(Jp);
    return rc;
}

pw_status pw_sim_save_slim(const pw_sim *s, const char *path, int64_t frame, uint64_t sim_hash,
                           pw_error *err)
{
    const pw_particles *pt = &s->pt;
    if (s->failed) return refuse_failed(path, err);
    size_t n = pt->n, cap = n ? n : 1;
    float *x = malloc(3 * cap * sizeof *x), *v = malloc(3 * cap * sizeof *v);
    float *m = malloc(cap * sizeof *m), *jp = malloc(cap * sizeof *jp);
    float *xi = malloc(cap * sizeof *xi), *rho = malloc(cap * sizeof *rho);
    pw_status rc = PW_OK;
    if (!x || !v || !m || !jp || !xi || !rho)
        rc = pw_fail(err, PW_ENOMEM, "%s: cannot allocate a slim frame of %zu particles", path, n);
    for (size_t p = 0; p < n && rc == PW_OK; p++) {
        double Jp = m3_det(pt->Fp[p]);
        /* rho_p = m_p / V_p, V_p = V0 det(F_E) J_P (what PLY and stats call density) */
        double V = pt->V0[p] * m3_det(pt->Fe[p]) * Jp;
        double vals[4] = {pt->m[p], Jp, pt->xi[p], pt->V0[p] > 0 ? pt->m[p] / V : 0};
        for (int a = 0; a < 3; a++) {
            x[3 * p + a] = (float)v3_get(pt->x[p], a);
            v[3 * p + a] = (float)v3_get(pt->v[p], a);
        }
        m[p] = (float)vals[0];
        jp[p] = (float)vals[1];
        xi[p] = (float)vals[2];
        rho[p] = (float)vals[3];
    }
    if (rc == PW_OK) {
        pw_cache_attr attrs[8] = {{"x", PW_F32, 3, x},     {"v", PW_F32, 3, v},
                                  {"m", PW_F32, 1, m},     {"Jp", PW_F32, 1, jp},
                                  {"xi", PW_F32, 1, xi},   {"density", PW_F32, 1, rho},
                                  {"id", PW_U32, 1, pt->id}, {"layer", PW_U32, 1, pt->layer}};
        /* the layers only where there are any, so other slim caches keep their bytes */
        pw_cache_frame f = frame_of(s, frame, sim_hash, attrs, pt->layered ? 8 : 7);
        rc = pw_cache_global_set(&f, PW_CACHE_SLIM, 1, err);
        if (rc == PW_OK) rc = pw_cache_write(path, &f, err);
    }
    free(x), free(v), free(m), free(jp), free(xi), free(rho);
    return rc;
}

/* Validates what a step relies on: types, finite in-domain positions, positive mass. */
static pw_status check_loaded(const pw_sim *s, const char *path, const pw_cache_frame *f,
                              pw_error *err)
{
    if (f->h != s->p.h)
        return pw_fail(err, PW_EINVAL, "%s: grid spacing %g m differs from the scene's %g m", path,
                       f->h, s->p.h);
    if (f->count > UINT32_MAX)
        return pw_fail(err, PW_EFORMAT, "%s: too many particles (%llu)", path,
                       (unsigned long long)f->count);
    for (int k = 0; k < pw_particle_field_count; k++) {
        if (!pw_particle_field_held(&s->pt, &pw_particle_fields[k])) continue; /* (older caches
                                                                                  carry C zeroed) */
        const pw_cache_attr *a = pw_cache_find(f, pw_particle_fields[k].name);
        if (!a && pw_particle_fields[k].optional) continue; /* an older checkpoint: zero */
        if (!a || a->type != pw_particle_fields[k].type || a->components != pw_particle_fields[k].components)
            return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' missing or of the wrong type", path,
                           pw_particle_fields[k].name);
    }
    const vec3 *x = pw_cache_find(f, "x")->data;
    const double *m = pw_cache_find(f, "m")->data;
    for (size_t p = 0; p < f->count; p++) {
        if (!v3_isfinite(x[p]) || x[p].x < s->p.domain_min.x || x[p].y < s->p.domain_min.y ||
            x[p].z < s->p.domain_min.z || x[p].x > s->p.domain_max.x ||
            x[p].y > s->p.domain_max.y || x[p].z > s->p.domain_max.z)
            return pw_fail(err, PW_EFORMAT, "%s: particle %zu: position outside the domain (%g, %g, %g)",
                           path, p, x[p].x, x[p].y, x[p].z);
        if (!(m[p] > 0))
            return pw_fail(err, PW_EFORMAT, "%s: particle %zu: mass must be > 0 (%g)", path, p, m[p]);
    }
    return PW_OK;
}

pw_status pw_sim_load(pw_sim *s, const char *path, pw_error *err)
{
    pw_cache_frame f;
    pw_status rc = pw_cache_read(path, NULL, 0, &f, err);
    if (rc != PW_OK) return rc;
    if (pw_cache_global_get(&f, PW_CACHE_SLIM, 0) != 0)
        rc = pw_fail(err, PW_EINVAL, "%s: a slim render cache, not a checkpoint: a simulation "
                     "resumes only from a full one", path);
    /* a checkpoint of layered snow keeps its layers */
    if (rc == PW_OK && pw_cache_find(&f, "layer")) rc = pw_particles_hold_layers(&s->pt, err);
    if (rc == PW_OK) rc = check_loaded(s, path, &f, err);
    if (rc == PW_OK && (rc = pw_particles_reserve(&s->pt, f.count ? (size_t)f.count : 1, err)) ==
                          PW_OK)
        s->cap_step = 0; /* step scratch follows the particle capacity */
    if (rc != PW_OK) {
        pw_cache_frame_free(&f);
        return rc;
    }
    pw_particles *pt = &s->pt;
    for (int k = 0; k < pw_particle_field_count; k++) {
        const pw_particle_field *fd = &pw_particle_fields[k];
        if (!pw_particle_field_held(pt, fd)) continue;
        const pw_cache_attr *a = pw_cache_find(&f, fd->name);
        if (a) memcpy(*pw_particle_array(pt, fd), a->data, f.count * pw_particle_field_bytes(fd));
        else memset(*pw_particle_array(pt, fd), 0, f.count * pw_particle_field_bytes(fd));
    }
    pt->n = (size_t)f.count;
    s->failed = 0;
    s->t = f.time;
    s->steps = f.step;
    pw_mpm_forget_kept_state(s); /* Fe comes from the cache */
    s->dt_last = pw_cache_global_get(&f, "dt_last", 0);
    double stepped = pw_cache_global_get(&f, "stepped_particles", (double)pt->n);
    s->n_step = stepped >= 0 && stepped <= (double)pt->n ? (size_t)stepped : pt->n;
    /* the stored order has the resting particles last, as the last sort left them: key
     * them as it did, so the next sort keeps them where an uninterrupted run does */
    s->rest_tail = SIZE_MAX;
    if (pt->rests && s->n_step < pt->n) {
        pw_status krc = pw_grid_key_resting(&s->grid, pt->n, pt->x, s->n_step, err);
        if (krc != PW_OK) {
            pw_cache_frame_free(&f);
            return krc;
        }
        s->rest_tail = s->n_step;
    }
    s->cr_iterations_last = (int)pw_cache_global_get(&f, "cr_iterations_last", 0);
    s->cr_iterations_total = (uint64_t)pw_cache_global_get(&f, "cr_iterations_total", 0);
    s->cr_solves = (uint64_t)pw_cache_global_get(&f, "cr_solves", 0);
    s->cr_not_converged = (uint64_t)pw_cache_global_get(&f, "cr_not_converged", 0);
    pw_cache_frame_free(&f);
    return PW_OK;
}
