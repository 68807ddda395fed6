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

/* The steps of the frame's pw_sim_advance_to call (pw_sim_step_log), for `powder info`:
 * what a frame cost and why, read back from the caches; a loaded checkpoint keeps them,
 * so that its slim form written again (a resume's demotion) has the same bytes. */
static const char *const retake_globals[PW_RETAKE_COUNT] = {
    "frame_retakes_capped", "frame_retakes_nonfinite", "frame_retakes_speed",
    "frame_retakes_energy", "frame_retakes_test"};
static const char *const set_by_globals[PW_DT_BY_COUNT] = {
    "frame_dt_by_speed", "frame_dt_by_elastic", "frame_dt_by_dt_max", "frame_dt_by_retake",
    "frame_dt_by_frame"};

static void get_step_log(pw_sim *s, const pw_cache_frame *f)
{
    pw_sim_step_log *l = &s->step_log;
    memset(l, 0, sizeof *l);
    l->steps = (uint64_t)pw_cache_global_get(f, "frame_steps", 0);
    for (int r = 0; r < PW_RETAKE_COUNT; r++)
        l->retakes[r] = (uint64_t)pw_cache_global_get(f, retake_globals[r], 0);
    for (int b = 0; b < PW_DT_BY_COUNT; b++)
        l->set_by[b] = (uint64_t)pw_cache_global_get(f, set_by_globals[b], 0);
    l->dt_min = pw_cache_global_get(f, "frame_dt_min", INFINITY);
    l->dt_max = pw_cache_global_get(f, "frame_dt_max", 0);
    l->courant_max = pw_cache_global_get(f, "frame_courant_max", 0);
    l->cr_iterations = (uint64_t)pw_cache_global_get(f, "frame_cr_iterations", 0);
}

static pw_status set_step_log(const pw_sim *s, pw_cache_frame *f, pw_error *err)
{
    const pw_sim_step_log *l = &s->step_log;
    if (!l->steps) return PW_OK; /* (a seeded frame: no step) */
    pw_status rc = pw_cache_global_set(f, "frame_steps", (double)l->steps, err);
    for (int r = 0; r < PW_RETAKE_COUNT && rc == PW_OK; r++)
        if (l->retakes[r])
            rc = pw_cache_global_set(f, retake_globals[r], (double)l->retakes[r], err);
    for (int b = 0; b < PW_DT_BY_COUNT && rc == PW_OK; b++)
        if (l->set_by[b]) rc = pw_cache_global_set(f, set_by_globals[b], (double)l->set_by[b], err);
    if (rc == PW_OK) rc = pw_cache_global_set(f, "frame_dt_min", l->dt_min, err);
    if (rc == PW_OK) rc = pw_cache_global_set(f, "frame_dt_max", l->dt_max, err);
    if (rc == PW_OK) rc = pw_cache_global_set(f, "frame_courant_max", l->courant_max, err);
    if (rc == PW_OK)
        rc = pw_cache_global_set(f, "frame_cr_iterations", (double)l->cr_iterations, err);
    return rc;
}

/* What the sources have emitted (only where there are sources, so other caches keep
 * their bytes): the mass, for measures, and in a checkpoint each source's count, which
 * a resumed run emits on from. */
static pw_status set_emitted(const pw_sim *s, pw_cache_frame *f, int counts, pw_error *err)
{
    if (!s->n_sources) return PW_OK;
    pw_status rc = pw_cache_global_set(f, PW_CACHE_MASS_EMITTED, pw_emit_mass(s), err);
    for (int i = 0; i < s->n_sources && counts && rc == PW_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "emitted_%d", i);
        rc = pw_cache_global_set(f, name, (double)s->emitted[i], err);
    }
    return rc;
}

/* Which body each particle is of (by id: pw_particles.body_start), kept in a checkpoint
 * while a rest volume is still to be estimated (a first frame, before any step) and
 * bodies may touch: a resume needs it to count only each body's own mass in its V0. In
 * *out (NULL when not needed, so that other checkpoints keep their bytes). Bodies may
 * touch when their bounding boxes, widened by the kernel's reach of 2 h, overlap. */
static pw_status bodies_to_save(const pw_sim *s, uint32_t **out, pw_error *err)
{
    const pw_particles *pt = &s->pt;
    *out = NULL;
    int pending = 0;
    for (size_t p = 0; p < pt->n && !pending; p++) pending = !(pt->V0[p] > 0);
    if (pt->n_bodies < 2 || !pending) return PW_OK;
    size_t nb = pt->n_bodies;
    vec3 *lo = malloc(nb * sizeof *lo), *hi = malloc(nb * sizeof *hi);
    uint32_t *body = malloc(pt->n * sizeof *body);
    if (!lo || !hi || !body) {
        free(lo), free(hi), free(body);
        return pw_fail(err, PW_ENOMEM, "sim: cannot allocate the bodies of %zu particles", pt->n);
    }
    for (size_t b = 0; b < nb; b++) {
        lo[b] = v3(INFINITY, INFINITY, INFINITY);
        hi[b] = v3(-INFINITY, -INFINITY, -INFINITY);
    }
    for (size_t p = 0; p < pt->n; p++) {
        uint32_t b = body[p] = pw_particles_body_of(pt, pt->id[p]);
        lo[b] = v3_min(lo[b], pt->x[p]);
        hi[b] = v3_max(hi[b], pt->x[p]);
    }
    double reach = 2 * s->p.h;
    int touch = 0;
    for (size_t a = 0; a < nb && !touch; a++)
        for (size_t b = a + 1; b < nb && !touch; b++)
            touch = lo[a].x - reach <= hi[b].x + reach && lo[b].x - reach <= hi[a].x + reach &&
                    lo[a].y - reach <= hi[b].y + reach && lo[b].y - reach <= hi[a].y + reach &&
                    lo[a].z - reach <= hi[b].z + reach && lo[b].z - reach <= hi[a].z + reach;
    free(lo), free(hi);
    if (touch) *out = body;
    else free(body);
    return PW_OK;
}

pw_status pw_sim_save(const pw_sim *s, const char *path, int64_t frame, uint64_t sim_hash,
                      pw_error *err)
{
    const pw_particles *pt = &s->pt;
    if (s->failed) return refuse_failed(path, err);
    pw_cache_attr attrs[PW_PARTICLE_MAX_FIELDS + 2];
    uint32_t *body;
    pw_status brc = bodies_to_save(s, &body, err);
    if (brc != PW_OK) return brc;
    double *Jp = malloc((pt->n ? pt->n : 1) * sizeof *Jp);
    if (!Jp) {
        free(body);
        return pw_fail(err, PW_ENOMEM, "%s: cannot allocate Jp for %zu particles", path, pt->n);
    }
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
    if (body) {
        memset(&attrs[na], 0, sizeof attrs[na]);
        snprintf(attrs[na].name, sizeof attrs[na].name, "body");
        attrs[na].type = PW_U32;
        attrs[na].components = 1;
        attrs[na].data = body;
        na++;
    }

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
    if (rc == PW_OK) rc = set_step_log(s, &f, err);
    if (rc == PW_OK) rc = set_emitted(s, &f, 1, err);
    if (rc == PW_OK) rc = pw_cache_write(path, &f, err);
    free(Jp);
    free(body);
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
    /* the durability only where the optional laws hold it, so other slim caches keep
     * their bytes: what the damage looks like, for PLY, VDB and stats */
    float *dur = pt->laws ? malloc(cap * sizeof *dur) : NULL;
    /* and the flakes in flight where there are sources: what is still falling */
    float *drag = pt->emits ? malloc(cap * sizeof *drag) : NULL;
    pw_status rc = PW_OK;
    if (!x || !v || !m || !jp || !xi || !rho || (pt->laws && !dur) || (pt->emits && !drag))
        rc = pw_fail(err, PW_ENOMEM, "%s: cannot allocate a slim frame of %zu particles", path, n);
    for (size_t p = 0; p < n && rc == PW_OK; p++) {
        double Jp = m3_det(pt->Fp[p]);
        /* what PLY and stats call density (pw_law_density) */
        double rho_p = pw_law_density(pt->laws ? pt->law[p] : PW_LAW_CLAMP, pt->m[p], pt->V0[p],
                                      m3_det(pt->Fe[p]), Jp, pt->laws ? pt->rho_rest[p] : 0);
        double vals[4] = {pt->m[p], Jp, pt->xi[p], rho_p};
        for (int a = 0; a < 3; a++) {
            x[3 * p + a] = (float)v3_get(pt->x[p], a);
            v[3 * p + a] = (float)v3_get(pt->v[p], a);
        }
        m[p] = (float)vals[0];
        jp[p] = (float)vals[1];
        xi[p] = (float)vals[2];
        rho[p] = (float)vals[3];
        if (dur) dur[p] = (float)pt->durability[p];
        if (drag) drag[p] = (float)pt->drag[p];
    }
    if (rc == PW_OK) {
        pw_cache_attr attrs[10] = {{"x", PW_F32, 3, x},     {"v", PW_F32, 3, v},
                                  {"m", PW_F32, 1, m},     {"Jp", PW_F32, 1, jp},
                                  {"xi", PW_F32, 1, xi},   {"density", PW_F32, 1, rho},
                                  {"id", PW_U32, 1, pt->id}};
        int na = 7;
        /* the layers only where there are any, so other slim caches keep their bytes */
        if (pt->layered) attrs[na++] = (pw_cache_attr){"layer", PW_U32, 1, pt->layer};
        if (dur) attrs[na++] = (pw_cache_attr){"durability", PW_F32, 1, dur};
        if (drag) attrs[na++] = (pw_cache_attr){"drag", PW_F32, 1, drag};
        pw_cache_frame f = frame_of(s, frame, sim_hash, attrs, na);
        rc = pw_cache_global_set(&f, PW_CACHE_SLIM, 1, err);
        if (rc == PW_OK) rc = set_step_log(s, &f, err);
        if (rc == PW_OK) rc = set_emitted(s, &f, 0, err);
        if (rc == PW_OK) rc = pw_cache_write(path, &f, err);
    }
    free(x), free(v), free(m), free(jp), free(xi), free(rho), free(dur), free(drag);
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

/* The bodies of a checkpoint into pt: from its "body" attribute (bodies_to_save), which
 * must split the ids into ranges, one a body in order; else one body. */
static pw_status load_bodies(pw_particles *pt, const char *path, const pw_cache_frame *f,
                             pw_error *err)
{
    pt->n_bodies = 0;
    const pw_cache_attr *a = pw_cache_find(f, "body");
    const uint32_t *id = pw_cache_find(f, "id")->data; /* (check_loaded: present) */
    if (!a) return f->count ? pw_particles_add_body(pt, 0, err) : PW_OK;
    if (a->type != PW_U32 || a->components != 1)
        return pw_fail(err, PW_EFORMAT, "%s: attribute 'body' of the wrong type", path);
    const uint32_t *body = a->data;
    size_t n = (size_t)f->count, nb = 0;
    for (size_t p = 0; p < n; p++)
        if (body[p] >= nb) nb = (size_t)body[p] + 1;
    if (nb > n)
        return pw_fail(err, PW_EFORMAT, "%s: attribute 'body': body %zu of %zu particles", path,
                       nb - 1, n);
    uint32_t *first = malloc((nb ? nb : 1) * sizeof *first);
    if (!first) return pw_fail(err, PW_ENOMEM, "%s: cannot allocate %zu bodies", path, nb);
    for (size_t b = 0; b < nb; b++) first[b] = UINT32_MAX;
    for (size_t p = 0; p < n; p++)
        if (id[p] < first[body[p]]) first[body[p]] = id[p];
    pw_status rc = PW_OK;
    for (size_t b = 0; b < nb && rc == PW_OK; b++) {
        if (first[b] == UINT32_MAX || (b > 0 && first[b] <= first[b - 1]))
            rc = pw_fail(err, PW_EFORMAT, "%s: attribute 'body': body %zu does not follow "
                         "body %zu in the ids", path, b, b ? b - 1 : 0);
        else
            rc = pw_particles_add_body(pt, first[b], err);
    }
    free(first);
    for (size_t p = 0; p < n && rc == PW_OK; p++)
        if (pw_particles_body_of(pt, id[p]) != body[p])
            rc = pw_fail(err, PW_EFORMAT, "%s: particle %zu: attribute 'body' (%u) does not "
                         "match its id (%u)", path, p, body[p], id[p]);
    return rc;
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
    /* and one of the optional laws its laws' fields */
    if (rc == PW_OK && pw_cache_find(&f, "law")) rc = pw_particles_hold_laws(&s->pt, err);
    if (rc == PW_OK) rc = check_loaded(s, path, &f, err);
    if (rc == PW_OK) rc = load_bodies(&s->pt, path, &f, err);
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
    get_step_log(s, &f);
    for (int i = 0; i < s->n_sources; i++) {
        char name[32];
        snprintf(name, sizeof name, "emitted_%d", i);
        double e = pw_cache_global_get(&f, name, -1);
        if (!(e >= 0 && e <= (double)pw_source_total(&s->sources[i], s->p.h) && e == floor(e))) {
            pw_cache_frame_free(&f);
            return pw_fail(err, PW_EFORMAT, "%s: global '%s' missing or out of range: not a "
                           "checkpoint of this scene's sources", path, name);
        }
        s->emitted[i] = (uint64_t)e;
    }
    pw_cache_frame_free(&f);
    return PW_OK;
}
