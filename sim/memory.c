/* memory.c — what the solver holds, array group by array group, from the capacities it
 * has reserved (what it can touch, not a guess from the particle count): the benchmark
 * prints it per particle, to see where memory goes and what a change saves. */
#include "hessian.h"
#include "mpm_internal.h"

static void item(pw_mpm_memory *m, const char *name, size_t bytes, pw_mem_kind kind)
{
    if (m->count < PW_MPM_MEMORY_ITEMS) {
        m->item[m->count].name = name;
        m->item[m->count].bytes = bytes;
        m->item[m->count].kind = kind;
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
        item(m, f->name, pt->cap * pw_particle_field_bytes(f), PW_MEM_STATE);
    }
    size_t cs = s->cap_stepped;
    item(m, "stencil places", cs * sizeof *s->ps, PW_MEM_STEPPED);
    item(m, "stress", cs * sizeof *s->stress, PW_MEM_STEPPED);
    item(m, "K (and the sort's reorder)", cs * sizeof *s->K, PW_MEM_STEPPED);
    item(m, "home scratch", cs * sizeof *s->home_scratch, PW_MEM_STEPPED);
    item(m, "batch energies", (cs / PW_STRESS_LANES + 1) * sizeof *s->batch_psi, PW_MEM_STEPPED);
    item(m, "Fe SVD", s->cap_step * sizeof *s->fe_svd, PW_MEM_EVERY);
    item(m, "perm", s->cap_step * sizeof *s->perm, PW_MEM_EVERY);
    const pw_grid *g = &s->grid;
    item(m, "grid: sort keys", g->cap_particles * (2 * sizeof *g->pkey + sizeof *g->perm_tmp),
         PW_MEM_EVERY);
    item(m, "grid: blocks, homes", g->cap_blocks * 2 * sizeof *g->keys +
                                       g->cap_home * (sizeof *g->home_keys + sizeof *g->start +
                                                      sizeof *g->nbr + sizeof *g->colour_order),
         PW_MEM_NODES);
    item(m, "grid: nodes", g->cap_nodes * (sizeof *g->m + 4 * sizeof *g->v + sizeof *g->fixed),
         PW_MEM_NODES);
    item(m, "solver vectors", s->cap_solve * (sizeof *s->inv_sqrt_m + 5 * sizeof *s->cr[0] +
                                              2 * sizeof *s->u4 + sizeof *s->dinv +
                                              sizeof *s->hdiag) +
                                  s->cap_partial * sizeof *s->partial,
         PW_MEM_NODES);
    item(m, "warm start", (s->warm.cap + s->warm_old.cap + s->warm_new.cap) *
                              (sizeof *s->warm.keys + PW_BLOCK_NODES * sizeof *s->warm.dv +
                               sizeof *s->warm.map),
         PW_MEM_NODES);
}
