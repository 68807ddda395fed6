/* stats_gather.c — the snow a collider carries (pw_stats.h, "Gathered snow"): particles
 * moving with the collider's rigid motion, linked into pieces, the pieces that touch it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw_stats.h"

#define GATHER_PI 3.14159265358979323846

/* The collider's own volume [m^3] for the analytic solids, 0 for the others. */
static double collider_volume(const pw_shape *s)
{
    switch (s->kind) {
    case PW_SHAPE_SPHERE: return 4.0 / 3.0 * GATHER_PI * s->radius * s->radius * s->radius;
    case PW_SHAPE_BOX: return 8.0 * s->half_extents.x * s->half_extents.y * s->half_extents.z;
    case PW_SHAPE_CYLINDER: return GATHER_PI * s->radius * s->radius * 2.0 * s->half_height;
    default: return 0;
    }
}

/* Marks touching particles (2) and those moving with the collider (1) in mark[], and
 * returns U, the RMS rigid speed over the touching ones (0 when none touches). */
static double mark_particles(const pw_stats_particles *p, const pw_colliders *c,
                             const pw_shape *shape, double h, double t, uint8_t *mark)
{
    double sum = 0;
    size_t touching = 0;
    for (size_t i = 0; i < p->n; i++) {
        mark[i] = 0;
        if (pw_colliders_phi(c, t, p->x[i]) < PW_GATHER_TOUCH_H * h) {
            mark[i] = 2;
            sum += v3_length2(pw_shape_velocity(shape, t, p->x[i]));
            touching++;
        }
    }
    if (!touching) return 0;
    double U = sqrt(sum / (double)touching), tol2 = PW_GATHER_SLIP * U * PW_GATHER_SLIP * U;
    for (size_t i = 0; i < p->n; i++) {
        double slip2 = v3_length2(v3_sub(p->v[i], pw_shape_velocity(shape, t, p->x[i])));
        if (slip2 <= tol2) mark[i] = mark[i] ? 2 : 1;
        else mark[i] = 0; /* touching but sliding past: not carried */
    }
    return U;
}

/* Links the moving particles into pieces and keeps those holding a touching one:
 * mark[i] becomes 1 for gathered particles, 0 for the others. */
static pw_status keep_touching_pieces(const pw_stats_particles *p, double link, uint8_t *mark,
                                      pw_error *err)
{
    size_t nm = 0;
    for (size_t i = 0; i < p->n; i++) nm += mark[i] != 0;
    vec3 *x = malloc((nm ? nm : 1) * sizeof *x);
    uint32_t *index = malloc((nm ? nm : 1) * sizeof *index);
    uint32_t *label = malloc((nm ? nm : 1) * sizeof *label);
    uint8_t *touches = NULL;
    size_t nf = 0;
    pw_status rc = x && index && label ? PW_OK
                                       : pw_fail(err, PW_ENOMEM, "stats: cannot allocate for "
                                                 "%zu particles", nm);
    if (rc == PW_OK) {
        size_t k = 0;
        for (size_t i = 0; i < p->n; i++)
            if (mark[i]) {
                x[k] = p->x[i];
                index[k++] = (uint32_t)i;
            }
        rc = pw_stats_fragments(x, nm, link, label, &nf, err);
    }
    if (rc == PW_OK && !(touches = calloc(nf ? nf : 1, 1)))
        rc = pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu pieces", nf);
    if (rc == PW_OK) {
        for (size_t k = 0; k < nm; k++)
            if (mark[index[k]] == 2) touches[label[k]] = 1;
        memset(mark, 0, p->n);
        for (size_t k = 0; k < nm; k++) mark[index[k]] = touches[label[k]];
    }
    free(touches);
    free(label);
    free(index);
    free(x);
    return rc;
}

pw_status pw_stats_gathered(const pw_stats_particles *p, double link, double h,
                            const pw_collider_desc *collider, double t, pw_gathered *g,
                            uint8_t *gathered, pw_error *err)
{
    memset(g, 0, sizeof *g);
    if (!p->x || !p->v || !p->m)
        return pw_fail(err, PW_EINVAL, "stats: the gathered snow needs positions, velocities "
                       "and masses");
    uint8_t *mark = gathered ? gathered : malloc(p->n ? p->n : 1);
    if (!mark) return pw_fail(err, PW_ENOMEM, "stats: cannot allocate for %zu particles", p->n);
    pw_colliders *c = pw_colliders_create(h, err);
    pw_status rc = c ? pw_colliders_add(c, collider, err) : (err ? err->code : PW_ENOMEM);
    if (rc == PW_OK) {
        pw_colliders_pose_at(c, t);
        g->speed = mark_particles(p, c, &collider->shape, h, t, mark);
        rc = keep_touching_pieces(p, link, mark, err);
    }
    pw_colliders_destroy(c);
    if (rc != PW_OK) {
        if (!gathered) free(mark);
        return rc;
    }
    /* sums in particle order: the same bits for any thread count */
    g->has_density = pw_stats_densities_known(p);
    double mass_rest = 0, volume_rest = 0, jp_in = 0, jp_out = 0;
    for (size_t i = 0; i < p->n; i++) {
        double m = p->m[i], jp = p->Jp ? p->Jp[i] : 1;
        double V = g->has_density ? m / pw_stats_density(p, i) : 0;
        if (mark[i]) {
            g->particles++;
            g->mass += m;
            g->volume += V;
            jp_in += m * jp;
        } else {
            mass_rest += m;
            volume_rest += V;
            jp_out += m * jp;
        }
    }
    g->jp_mean = g->mass > 0 ? jp_in / g->mass : 1;
    g->jp_rest = mass_rest > 0 ? jp_out / mass_rest : 1;
    if (g->has_density) {
        g->rho = g->volume > 0 ? g->mass / g->volume : 0;
        g->rho_rest = volume_rest > 0 ? mass_rest / volume_rest : 0;
        g->radius = cbrt(3.0 / (4.0 * GATHER_PI) * (g->volume + collider_volume(&collider->shape)));
    }
    if (!gathered) free(mark);
    return PW_OK;
}

pw_status pw_stats_cache_gathered(const char *path, double link_h,
                                  const pw_collider_desc *collider, pw_gathered *g,
                                  pw_error *err)
{
    pw_cache_frame cf;
    pw_stats_particles p;
    pw_status rc = pw_stats_cache_read_masses(path, 1, &cf, &p, err);
    if (rc != PW_OK) return rc;
    rc = pw_stats_gathered(&p, link_h * cf.h, cf.h, collider, cf.time, g, NULL, err);
    if (rc != PW_OK) pw_error_prefix(err, "%s", path);
    pw_cache_frame_free(&cf);
    return rc;
}
