/* stats_layer.c — the snow that fell on a region: its depth, its density by depth, and
 * the mass balance of the sources (pw_stats.h, pw_layer_stats). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw_stats.h"

pw_status pw_layer_stats_of(const pw_stats_particles *p, const double *drag,
                            const pw_layer_region *r, double cell, pw_layer_stats *out,
                            pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(cell > 0) || !(r->x1 > r->x0) || !(r->z1 > r->z0))
        return pw_fail(err, PW_EINVAL, "layer: the region and the cell must have positive size");
    double cols_x = ceil((r->x1 - r->x0) / cell), cols_z = ceil((r->z1 - r->z0) / cell);
    if (!(cols_x * cols_z <= 1e8))
        return pw_fail(err, PW_EINVAL, "layer: %.3g columns, at most 1e8", cols_x * cols_z);
    size_t nx = (size_t)cols_x, nz = (size_t)cols_z, nc = nx * nz;
    double *top = malloc(nc * sizeof *top);
    int32_t *col = malloc((p->n ? p->n : 1) * sizeof *col);
    if (!top || !col) {
        free(top), free(col);
        return pw_fail(err, PW_ENOMEM, "layer: cannot allocate %zu columns", nc);
    }
    out->has_density = pw_stats_densities_known(p);
    for (size_t c = 0; c < nc; c++) top[c] = r->y0;
    /* 1. each column's top: its highest landed particle, plus half the particle's own
     * size (its centre sits that far below the surface it makes) */
    for (size_t i = 0; i < p->n; i++) {
        out->mass_present += p->m[i];
        col[i] = -1;
        if (drag && drag[i] > 0) {
            out->mass_in_air += p->m[i];
            continue;
        }
        vec3 x = p->x[i];
        if (x.x < r->x0 || x.x >= r->x1 || x.z < r->z0 || x.z >= r->z1 || x.y < r->y0) continue;
        size_t cx = (size_t)((x.x - r->x0) / cell), cz = (size_t)((x.z - r->z0) / cell);
        if (cx >= nx || cz >= nz) continue;
        col[i] = (int32_t)(cz * nx + cx);
        double half = out->has_density ? 0.5 * cbrt(p->m[i] / pw_stats_density(p, i)) : 0;
        if (x.y + half > top[col[i]]) top[col[i]] = x.y + half;
    }
    /* 2. the depths over every column of the region, snow or none */
    double sum = 0, covered = 0;
    for (size_t c = 0; c < nc; c++) {
        double d = top[c] - r->y0;
        sum += d;
        covered += d > 0;
        if (d > out->depth_max) out->depth_max = d;
    }
    out->columns = nc;
    out->cell = cell;
    out->area = (double)nc * cell * cell;
    out->depth_mean = sum / (double)nc;
    out->covered = covered / (double)nc;
    /* 3. the mass and the particles' own density, over the layer and by depth below
     * each column's top (PW_LAYER_BINS equal parts of the column's depth, top first) */
    double volume = 0, bin_m[PW_LAYER_BINS] = {0}, bin_v[PW_LAYER_BINS] = {0};
    double core_m = 0, core_v = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (col[i] < 0) continue;
        out->mass += p->m[i];
        if (!out->has_density) continue;
        double rho = pw_stats_density(p, i), V = p->m[i] / rho;
        volume += V;
        double depth = top[col[i]] - r->y0, below = top[col[i]] - p->x[i].y;
        int b = depth > 0 ? (int)(PW_LAYER_BINS * below / depth) : 0;
        b = b < 0 ? 0 : b >= PW_LAYER_BINS ? PW_LAYER_BINS - 1 : b;
        bin_m[b] += p->m[i];
        bin_v[b] += V;
        /* the core: below the reach of the grid's kernel from the top (2 cells), where a
         * density measured on the grid (density hardening's) is not read half in the air */
        if (below >= 2 * cell) core_m += p->m[i], core_v += V;
    }
    /* (mass over the particles' volume: the density the layer would have if they tiled it) */
    if (out->has_density && volume > 0) out->rho_mean = out->mass / volume;
    for (int b = 0; b < PW_LAYER_BINS; b++) out->rho_bin[b] = bin_v[b] > 0 ? bin_m[b] / bin_v[b] : 0;
    if (core_v > 0) out->rho_core = core_m / core_v;
    double rho_layer = out->rho_core > 0 ? out->rho_core : out->rho_mean;
    if (rho_layer > 0) out->depth_of_mass = out->mass / (out->area * rho_layer);
    free(top);
    free(col);
    return PW_OK;
}

pw_status pw_stats_cache_layer(const char *path, const pw_layer_region *r, pw_layer_stats *out,
                               pw_error *err)
{
    pw_cache_frame cf;
    pw_stats_particles p;
    pw_status rc = pw_stats_cache_read_masses(path, 0, &cf, &p, err);
    if (rc != PW_OK) return rc;
    double mass_emitted = pw_cache_global_get(&cf, PW_CACHE_MASS_EMITTED, -1);
    /* which snow is still in the air: the drag of a flake in flight (sim/emit.h) */
    pw_cache_frame df;
    const double *drag = NULL;
    int have_drag = 0;
    pw_cache_info info;
    if ((rc = pw_cache_table(path, &info, err)) == PW_OK && pw_cache_info_attr(&info, "drag")) {
        static const char *const names[] = {"drag"};
        if ((rc = pw_cache_read_f64(path, names, 1, &df, err)) == PW_OK) {
            have_drag = 1;
            drag = pw_cache_find(&df, "drag")->data;
        }
    }
    if (rc == PW_OK) rc = pw_layer_stats_of(&p, drag, r, cf.h, out, err);
    if (rc == PW_OK) out->mass_emitted = mass_emitted;
    if (rc != PW_OK) pw_error_prefix(err, "%s", path);
    if (have_drag) pw_cache_frame_free(&df);
    pw_cache_frame_free(&cf);
    return rc;
}
