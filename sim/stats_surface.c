/* stats_surface.c — how the snow's top surface changed against a reference frame: the
 * print a foot leaves, the pit a pick digs, the track and berm of a plough or a rolling
 * ball. See pw_stats.h (pw_surface_change). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw_cache.h"
#include "pw_stats.h"

/* Columns beyond this are a refusal, not an allocation: 10^8 doubles is 800 MB. */
#define SURFACE_MAX_COLUMNS 100000000.0

typedef struct {
    vec3 up, e1, e2;  /* the height axis and the two column axes */
    double cell;
    long i0, j0;      /* column index of map entry 0 */
    long ni, nj;
} column_grid;

static void column_of(const column_grid *g, vec3 x, long *i, long *j)
{
    *i = (long)floor(v3_dot(x, g->e1) / g->cell);
    *j = (long)floor(v3_dot(x, g->e2) / g->cell);
}

/* top[k] = the highest particle of column k, -INFINITY for an empty column */
static void fill_tops(const column_grid *g, const vec3 *x, size_t n, double *top)
{
    for (size_t c = 0; c < (size_t)(g->ni * g->nj); c++) top[c] = -INFINITY;
    for (size_t p = 0; p < n; p++) {
        long i, j;
        column_of(g, x[p], &i, &j);
        size_t c = (size_t)(j - g->j0) * (size_t)g->ni + (size_t)(i - g->i0);
        double y = v3_dot(x[p], g->up);
        if (y > top[c]) top[c] = y;
    }
}

/* The densities under the surface (pw_surface_change: rho_print, rho_field), summed in
 * particle order so the figures do not depend on anything but the frame. */
static void skin_densities(const column_grid *g, const vec3 *x, const double *m,
                           const double *rho, size_t n, const double *top_ref,
                           const double *top, pw_surface_change *out)
{
    double mass[2] = {0, 0}, volume[2] = {0, 0}; /* 0: under a print, 1: the field */
    for (size_t p = 0; p < n; p++) {
        long i, j;
        column_of(g, x[p], &i, &j);
        size_t c = (size_t)(j - g->j0) * (size_t)g->ni + (size_t)(i - g->i0);
        if (top_ref[c] == -INFINITY) continue; /* top[c] is finite: p is in it */
        if (top[c] - v3_dot(x[p], g->up) > PW_SURFACE_SKIN * g->cell) continue;
        double drop = top_ref[c] - top[c];
        int kind = drop > 0.5 * g->cell ? 0 : fabs(drop) < 0.5 * g->cell ? 1 : -1;
        if (kind < 0 || !(rho[p] > 0)) continue; /* heaped, or no density yet */
        mass[kind] += m[p];
        volume[kind] += m[p] / rho[p];
    }
    out->rho_print = volume[0] > 0 ? mass[0] / volume[0] : 0;
    out->rho_field = volume[1] > 0 ? mass[1] / volume[1] : 0;
    out->has_density = 1;
}

pw_status pw_surface_change_of(const vec3 *x_ref, size_t n_ref, const vec3 *x, const double *m,
                               const double *rho, size_t n, vec3 gravity, double cell,
                               pw_surface_change *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(cell > 0) || !isfinite(cell))
        return pw_fail(err, PW_EINVAL, "surface change: column size %g must be positive", cell);
    column_grid g = {.cell = cell};
    double gl = v3_length(gravity);
    g.up = gl > 0 ? v3_scale(gravity, -1 / gl) : v3(0, 1, 0);
    /* column axes: any orthonormal pair across up, fixed for a given up */
    vec3 a = fabs(g.up.x) < 0.9 ? v3(1, 0, 0) : v3(0, 0, 1);
    g.e2 = v3_normalize(v3_cross(g.up, a));
    g.e1 = v3_cross(g.e2, g.up);
    long ilo = 0, ihi = -1, jlo = 0, jhi = -1;
    for (int s = 0; s < 2; s++) {
        const vec3 *xs = s ? x : x_ref;
        size_t ns = s ? n : n_ref;
        for (size_t p = 0; p < ns; p++) {
            if (!(isfinite(xs[p].x) && isfinite(xs[p].y) && isfinite(xs[p].z)))
                return pw_fail(err, PW_EINVAL, "surface change: particle %zu of the %s frame "
                               "is not finite", p, s ? "measured" : "reference");
            long i, j;
            column_of(&g, xs[p], &i, &j);
            if (ihi < ilo) ilo = ihi = i, jlo = jhi = j;
            if (i < ilo) ilo = i;
            if (i > ihi) ihi = i;
            if (j < jlo) jlo = j;
            if (j > jhi) jhi = j;
        }
    }
    if (ihi < ilo) return PW_OK; /* no snow at all */
    g.i0 = ilo, g.j0 = jlo, g.ni = ihi - ilo + 1, g.nj = jhi - jlo + 1;
    if ((double)g.ni * (double)g.nj > SURFACE_MAX_COLUMNS)
        return pw_fail(err, PW_EINVAL, "surface change: %ld x %ld columns of %g m: snow spread "
                       "too wide for columns this small", g.ni, g.nj, cell);
    size_t nc = (size_t)g.ni * (size_t)g.nj;
    double *top_ref = malloc(nc * sizeof *top_ref), *top = malloc(nc * sizeof *top);
    if (!top_ref || !top) {
        free(top_ref), free(top);
        return pw_fail(err, PW_ENOMEM, "surface change: out of memory (%zu columns)", nc);
    }
    fill_tops(&g, x_ref, n_ref, top_ref);
    fill_tops(&g, x, n, top);
    const double area = cell * cell;
    out->deepest = 0;
    for (size_t c = 0; c < nc; c++) {
        if (top_ref[c] == -INFINITY) continue; /* no surface there to compare with */
        out->columns++;
        /* a column dug down to the ground has no surface left to measure from: counted
         * apart, since the ground's height is not the snow's to know */
        if (top[c] == -INFINITY) {
            out->emptied++;
            continue;
        }
        double now = top[c], drop = top_ref[c] - now;
        if (drop > 0) out->dug_volume += drop * area;
        else out->heaped_volume += -drop * area;
        if (drop > 0.5 * cell) out->lowered_area += area;
        if (drop > out->deepest) {
            out->deepest = drop;
            long i = (long)(c % (size_t)g.ni) + g.i0, j = (long)(c / (size_t)g.ni) + g.j0;
            out->deepest_at = v3_add(v3_add(v3_scale(g.e1, (i + 0.5) * cell),
                                            v3_scale(g.e2, (j + 0.5) * cell)),
                                     v3_scale(g.up, now));
        }
        if (-drop > out->highest) out->highest = -drop;
    }
    out->cell = cell;
    if (m && rho) skin_densities(&g, x, m, rho, n, top_ref, top, out);
    free(top_ref), free(top);
    return PW_OK;
}

/* positions of a frame cache, with its h */
static pw_status read_positions(const char *path, pw_cache_frame *cf, const vec3 **x,
                                pw_error *err)
{
    static const char *const names[1] = {"x"};
    pw_status rc = pw_cache_read_f64(path, names, 1, cf, err);
    if (rc != PW_OK) return rc;
    const pw_cache_attr *a = pw_cache_find(cf, "x");
    if (!a || a->type != PW_F64 || a->components != 3) {
        pw_cache_frame_free(cf);
        return pw_fail(err, PW_EFORMAT, "%s: attribute 'x' is missing or not float64 with 3 "
                       "components", path);
    }
    *x = a->data;
    return PW_OK;
}

pw_status pw_stats_cache_surface(const char *ref_path, const char *path, vec3 gravity,
                                 pw_surface_change *out, pw_error *err)
{
    pw_cache_frame ref, now;
    const vec3 *x_ref = NULL;
    pw_stats_particles p;
    pw_status rc = read_positions(ref_path, &ref, &x_ref, err);
    if (rc != PW_OK) return rc;
    if ((rc = pw_stats_cache_read_masses(path, 0, &now, &p, err)) != PW_OK) {
        pw_cache_frame_free(&ref);
        return rc;
    }
    double *rho = NULL;
    if (pw_stats_densities_known(&p) && !(rho = malloc((p.n ? p.n : 1) * sizeof *rho)))
        rc = pw_fail(err, PW_ENOMEM, "out of memory for %zu densities", p.n);
    for (size_t i = 0; rho && i < p.n; i++) rho[i] = pw_stats_density(&p, i);
    if (rc == PW_OK)
        rc = pw_surface_change_of(x_ref, (size_t)ref.count, p.x, rho ? p.m : NULL, rho, p.n,
                                  gravity, now.h, out, err);
    if (rc != PW_OK) pw_error_prefix(err, "%s", path);
    free(rho);
    pw_cache_frame_free(&ref);
    pw_cache_frame_free(&now);
    return rc;
}
