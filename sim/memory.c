/* memory.c — what the solver holds, array group by array group, from the capacities it
 * has reserved (what it can touch, not a guess from the particle count): the benchmark
 * prints it per particle, to see where memory goes and what a change saves. */
#include "mpm_internal.h"

static void item(pw_mpm_memory *m, const char *name, size_t bytes)
{
    if (m->count < PW_MPM_MEMORY_ITEMS) {
        m->item[m->count].name = name;
        m->item[m->count].bytes = bytes;
        m->count++;
    }
    m->total += bytes;
}

void pw_mpm_memory_report(const pw_sim *s, pw_mpm_memory *m)
{
    m->count = 0;
    m->total = 0;
    const pw_particles *pt = &s->pt;
    for (int k = 0; k < pw_particle_field_count; k++) {
        const pw_particle_field *f = &pw_particle_fields[k];
        if (!pw_particle_field_held(pt, f)) continue;
        item(m, f->name, pt->cap * pw_particle_field_bytes(f));
    }
    size_t cs = s->cap_step;
    item(m, "stencil places", cs * sizeof *s->ps);
    item(m, "stress", cs * sizeof *s->stress);
    item(m, "K (and the sort's reorder)", cs * sizeof *s->K);
    item(m, "Fe SVD", cs * sizeof *s->fe_svd);
    item(m, "perm, home scratch", cs * (sizeof *s->perm + sizeof *s->home_scratch));
    const pw_grid *g = &s->grid;
    item(m, "grid: sort keys", g->cap_particles * (2 * sizeof *g->pkey + sizeof *g->perm_tmp));
    item(m, "grid: blocks, homes", g->cap_blocks * 2 * sizeof *g->keys +
                                       g->cap_home * (sizeof *g->home_keys + sizeof *g->start +
                                                      sizeof *g->nbr + sizeof *g->colour_order));
    item(m, "grid: nodes", g->cap_nodes * (sizeof *g->m + 4 * sizeof *g->v + sizeof *g->fixed));
    item(m, "solver vectors", s->cap_solve * (sizeof *s->inv_sqrt_m + 5 * sizeof *s->cr[0] +
                                              2 * sizeof *s->u4 + sizeof *s->dinv +
                                              sizeof *s->hdiag) +
                                  s->cap_partial * sizeof *s->partial);
    item(m, "warm start", (s->warm.cap + s->warm_old.cap) *
                              (sizeof *s->warm.keys + PW_BLOCK_NODES * sizeof *s->warm.dv +
                               sizeof *s->warm.map));
}
