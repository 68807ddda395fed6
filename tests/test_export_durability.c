/* Property: the durability of snow of the optional laws (seed.h) reaches every output,
 * and the outputs of other snow keep their bytes. The tiny snowball (pipeline_fixture.h)
 * of Drucker-Prager snow after the clamp (friction 35 deg, cohesion 500 Pa,
 * durability_rate 20) is dropped on the ground, frames 0-2, twice: A with every frame a
 * full checkpoint, B with frame 1 a slim render cache (the same simulation); and the
 * tiny snowball of Table 2 snow (P, no durability) with frame 1 slim.
 *   1. B's slim frame 1 holds a float32 "durability" equal to A's (the solver's float64
 *      particles) rounded, particle by particle; the ball is damaged in part (some
 *      durability below 0.5, some 1). P's slim frame holds the attributes it held before,
 *      x v m Jp xi density id, no more.
 *   2. A's full checkpoint of frame 2 (laws held) loads into a fresh solver and saves to
 *      the same bytes; so does P's frame 0, a checkpoint without "law" (as written
 *      before the laws), which loads without them.
 *   3. `powder export ply`: A's and B's frame 1 carry a ninth property "durability" equal
 *      to A's particles' float32 durability, vertex by vertex, a header comment saying
 *      what it is, 36 bytes a vertex, and Powder's PLY reader gives them back; P's
 *      file has the 8 properties and 32 bytes a vertex of before, and no word of
 *      durability.
 *   4. `powder export vdb` (the scene's raster: the B-spline at sim.h): A's and B's frame 1
 *      hold a grid "durability" on exactly the density's voxels, each the particles'
 *      mass-weighted mean durability sum m d w / sum m w computed here from the cache's
 *      particles with the cubic B-spline, within 1e-6, and B's within 1e-4 of A's
 *      particles' (float32 positions). P's file has no such grid.
 *   5. `powder stats --json`: the damaged share (mass share below 0.5) and the mean
 *      durability of A's and B's frame 1 equal those computed here from A's particles
 *      (1e-6: six printed digits); P's report has "durability": null, and its table no
 *      damage columns while A's has them. */
#include <math.h>

#include "check.h"
#include "export.h"
#include "pipeline_fixture.h"
#include "pw_cache.h"
#include "pw_kernel.h"
#include "pw_sim.h"
#include "scene.h"
#ifdef POWDER_HAVE_VDB
#include "export_vdb.h"
#endif

enum { LAST = 2 };

static const char law_material[] =
    "\"snow\": {\"plasticity\": \"clamp+drucker_prager\", \"friction_angle\": 35, "
    "\"cohesion\": 500, \"durability_rate\": 20}";

/* The tiny scene, of the laws' snow (law) or not, with checkpoint_every and the
 * B-spline raster at sim.h (so that the durability grid can be recomputed here). */
static void write_scene(const char *path, int law, int every)
{
    char text[sizeof tiny_scene_json + 512], *at;
    snprintf(text, sizeof text, tiny_scene_json, LAST);
    if (law && (at = strstr(text, "\"snow\": {}"))) {
        char tail[sizeof text];
        snprintf(tail, sizeof tail, "%s", at + strlen("\"snow\": {}"));
        snprintf(at, sizeof text - (size_t)(at - text), "%s%s", law_material, tail);
    }
    if ((at = strstr(text, "\"draw_colliders\": false"))) {
        char tail[sizeof text];
        snprintf(tail, sizeof tail, "%s", at);
        snprintf(at, sizeof text - (size_t)(at - text), "\"raster\": \"bspline\", "
                 "\"subdiv\": 1,\n    %s", tail);
    }
    at = strrchr(text, '}');
    snprintf(at, sizeof text - (size_t)(at - text), ",\n  \"output\": {\"checkpoint_every\": "
             "%d}\n}\n", every);
    fixture_write(path, text);
}

static void path_of(char *out, size_t n, const char *dir, int f, const char *ext)
{
    if (!strcmp(ext, "pwc")) snprintf(out, n, "%s/cache/tiny.%04d.pwc", dir, f);
    else snprintf(out, n, "%s/tiny.%04d.%s", dir, f, ext);
}

/* The named attribute of a cache, read as stored (free cf). */
static const pw_cache_attr *read_attr(const char *path, const char *name, pw_cache_frame *cf)
{
    pw_error err = {0};
    const char *names[1] = {name};
    if (pw_cache_read(path, names, 1, cf, &err) != PW_OK) {
        fprintf(stderr, "%s\n", err.msg);
        memset(cf, 0, sizeof *cf);
        return NULL;
    }
    return pw_cache_find(cf, name);
}

/* x, m and durability of a cache, widened to float64 (free cf). */
static int read_particles(const char *path, pw_cache_frame *cf, const double **x,
                          const double **m, const double **d)
{
    static const char *const names[] = {"x", "m", "durability"};
    pw_error err = {0};
    if (pw_cache_read_f64(path, names, 3, cf, &err) != PW_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 0;
    }
    *x = cf->attrs[0].data, *m = cf->attrs[1].data, *d = cf->attrs[2].data;
    return 1;
}

/* 1: the slim caches. */
static void slim_caches(const char *a, const char *b, const char *p)
{
    char pa[4096], pb[4096];
    path_of(pa, sizeof pa, a, 1, "pwc");
    path_of(pb, sizeof pb, b, 1, "pwc");
    pw_cache_frame fa, fb;
    const pw_cache_attr *da = read_attr(pa, "durability", &fa);
    const pw_cache_attr *db = read_attr(pb, "durability", &fb);
    CHECK(da && da->type == PW_F64 && db && db->type == PW_F32 && fa.count == fb.count,
          "1: durability float64 in the checkpoint, float32 in the slim cache");
    if (da && db && da->type == PW_F64 && db->type == PW_F32 && fa.count == fb.count) {
        const double *sim = da->data;
        const float *slim = db->data;
        size_t differ = 0, damaged = 0, intact = 0;
        for (size_t i = 0; i < fa.count; i++) {
            differ += slim[i] != (float)sim[i];
            damaged += sim[i] < 0.5;
            intact += sim[i] == 1;
        }
        CHECK(differ == 0, "1: %zu of %llu slim durabilities differ from the particles'",
              differ, (unsigned long long)fa.count);
        CHECK(damaged > 0 && intact > 0, "1: damaged %zu, intact %zu", damaged, intact);
        printf("1: frame 1: %llu particles, %zu damaged (< 0.5), %zu intact\n",
               (unsigned long long)fa.count, damaged, intact);
    }
    pw_cache_frame_free(&fa);
    pw_cache_frame_free(&fb);
    char pp[4096];
    path_of(pp, sizeof pp, p, 1, "pwc");
    pw_cache_info info;
    pw_error err = {0};
    CHECK(pw_cache_table(pp, &info, &err) == PW_OK, "1: %s", err.msg);
    static const char *const before[] = {"x", "v", "m", "Jp", "xi", "density", "id"};
    int same = info.n_attrs == 7 && pw_cache_info_global(&info, PW_CACHE_SLIM, 0) == 1;
    for (int k = 0; same && k < 7; k++) same = !strcmp(info.attrs[k].name, before[k]);
    CHECK(same, "1: P's slim frame holds %d attributes, not those of before", info.n_attrs);
}

/* 2: a checkpoint through a fresh solver. */
static void resave(const char *scene, const char *cache, int frame, int laws)
{
    pw_scene *sc = calloc(1, sizeof *sc);
    pw_error err = {0};
    CHECK(sc && pw_scene_load(scene, sc, &err) == PW_OK, "2: %s", err.msg);
    pw_sim *s = sc ? pw_sim_create(&sc->sim, &err) : NULL;
    char again[4096];
    snprintf(again, sizeof again, "%s.again", cache);
    CHECK(s && pw_sim_load(s, cache, &err) == PW_OK, "2: load %s: %s", cache, err.msg);
    CHECK(s && pw_sim_save(s, again, frame, sc->sim_hash, &err) == PW_OK, "2: save: %s",
          err.msg);
    CHECK(same_bytes(cache, again), "2: %s saved again differs", cache);
    pw_cache_info info;
    CHECK(pw_cache_table(again, &info, &err) == PW_OK, "2: %s", err.msg);
    CHECK(!pw_cache_info_attr(&info, "law") == !laws &&
              !pw_cache_info_attr(&info, "durability") == !laws,
          "2: %s: the laws' fields %s", cache, laws ? "lost" : "appeared");
    pw_sim_destroy(s);
    free(sc);
}

/* The PLY file's header (NUL-terminated copy) and its size. */
static char *ply_header(const char *path, size_t *size, size_t *hlen)
{
    char *data = slurp(path, size);
    char *end = data ? strstr(data, "end_header\n") : NULL;
    if (!end) {
        free(data);
        return NULL;
    }
    *hlen = (size_t)(end - data) + strlen("end_header\n");
    data[*hlen] = '\0';
    return data;
}

static float f32_at(const char *bytes)
{
    float f;
    memcpy(&f, bytes, 4); /* (little-endian, as the machines we run on) */
    return f;
}

/* 3: the PLY files. */
static void ply_files(const char *a, const char *b, const char *p)
{
    char pa[4096];
    path_of(pa, sizeof pa, a, 1, "pwc");
    pw_cache_frame fa;
    const pw_cache_attr *da = read_attr(pa, "durability", &fa);
    for (int k = 0; k < 2 && da; k++) {
        char ply[4096];
        path_of(ply, sizeof ply, k ? b : a, 1, "ply");
        size_t size = 0, hlen = 0;
        char *h = ply_header(ply, &size, &hlen);
        CHECK(h && strstr(h, "comment durability [-]: 1 intact") &&
                  strstr(h, "property float jp\nproperty float durability\nend_header\n"),
              "3: %s: header without durability", ply);
        CHECK(size == hlen + 36 * fa.count, "3: %s: %zu bytes, expected %zu + 36 x %llu", ply,
              size, hlen, (unsigned long long)fa.count);
        size_t differ = 0;
        const double *d = da->data;
        for (size_t i = 0; h && size == hlen + 36 * fa.count && i < fa.count; i++)
            differ += f32_at(h + hlen + 36 * i + 32) != (float)d[i];
        CHECK(differ == 0, "3: %s: %zu vertices' durability differ from the particles'", ply,
              differ);
        free(h);
        /* and through Powder's own reader */
        pw_ply_particles r;
        pw_error err = {0};
        CHECK(pw_ply_read(ply, &r, &err) == PW_OK && r.count == fa.count && r.durability,
              "3: %s: read: %s", ply, err.msg);
        differ = 0;
        for (size_t i = 0; r.durability && i < r.count; i++)
            differ += r.durability[i] != (float)d[i];
        CHECK(differ == 0, "3: %s: %zu durabilities read differ", ply, differ);
        pw_ply_particles_free(&r);
    }
    pw_cache_frame_free(&fa);
    char ply[4096];
    path_of(ply, sizeof ply, p, 1, "ply");
    size_t size = 0, hlen = 0;
    char *h = ply_header(ply, &size, &hlen);
    char cache[4096];
    path_of(cache, sizeof cache, p, 1, "pwc");
    pw_cache_info info;
    pw_error err = {0};
    CHECK(h && pw_cache_table(cache, &info, &err) == PW_OK, "3: %s", ply);
    CHECK(h && !strstr(h, "durability") &&
              strstr(h, "property float density\nproperty float jp\nend_header\n") &&
              size == hlen + 32 * info.count,
          "3: P's PLY is not as before (%zu bytes, header %zu)", size, hlen);
    free(h);
    pw_ply_particles r;
    CHECK(pw_ply_read(ply, &r, &err) == PW_OK && !r.durability, "3: P: read: %s", err.msg);
    pw_ply_particles_free(&r);
}

#ifdef POWDER_HAVE_VDB
/* 4: the durability grid against sum m d w / sum m w over the cache's particles. */
static void vdb_file(const char *vdb, const char *cache, const char *sim_cache)
{
    pw_vdb_grid g, u;
    pw_error err = {0};
    CHECK(pw_vdb_read(vdb, "density", &g, &err) == PW_OK, "4: %s", err.msg);
    CHECK(pw_vdb_read(vdb, "durability", &u, &err) == PW_OK, "4: %s", err.msg);
    CHECK(g.n == u.n && g.n > 0 && !memcmp(g.ijk, u.ijk, 3 * g.n * sizeof *g.ijk),
          "4: %s: %zu density, %zu durability voxels", vdb, g.n, u.n);
    double worst[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        pw_cache_frame cf;
        const double *x, *m, *d;
        if (!read_particles(k ? sim_cache : cache, &cf, &x, &m, &d)) {
            CHECK(0, "4: cannot read %s", k ? sim_cache : cache);
            continue;
        }
        /* the nodes any particle reaches, as a dense box */
        double inv_h = 1 / cf.h;
        int lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
        for (size_t p = 0; p < cf.count; p++)
            for (int a = 0; a < 3; a++) {
                int base = (int)floor(x[3 * p + a] * inv_h) - 1;
                lo[a] = base < lo[a] ? base : lo[a];
                hi[a] = base + 3 > hi[a] ? base + 3 : hi[a];
            }
        int dim[3] = {hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1};
        size_t nn = (size_t)dim[0] * dim[1] * dim[2];
        double *mw = calloc(nn, sizeof *mw), *mdw = calloc(nn, sizeof *mdw);
        for (size_t p = 0; p < cf.count; p++) {
            double w[3][4];
            int base[3];
            for (int a = 0; a < 3; a++)
                base[a] = pw_bspline_weights(x[3 * p + a] * inv_h, inv_h, w[a], NULL);
            for (int c = 0; c < 4; c++)
                for (int bb = 0; bb < 4; bb++)
                    for (int aa = 0; aa < 4; aa++) {
                        size_t at = ((size_t)(base[2] + c - lo[2]) * dim[1] +
                                     (size_t)(base[1] + bb - lo[1])) * dim[0] +
                                    (size_t)(base[0] + aa - lo[0]);
                        double ww = m[p] * w[0][aa] * w[1][bb] * w[2][c];
                        mw[at] += ww;
                        mdw[at] += ww * d[p];
                    }
        }
        size_t outside = 0;
        for (size_t v = 0; v < u.n; v++) {
            const int32_t *ijk = &u.ijk[3 * v];
            int in = 1;
            for (int a = 0; a < 3; a++) in &= ijk[a] >= lo[a] && ijk[a] <= hi[a];
            if (!in) {
                outside++;
                continue;
            }
            size_t at = ((size_t)(ijk[2] - lo[2]) * dim[1] + (size_t)(ijk[1] - lo[1])) * dim[0] +
                        (size_t)(ijk[0] - lo[0]);
            worst[k] = fmax(worst[k], fabs(u.value[v] - mdw[at] / mw[at]));
        }
        CHECK(outside == 0, "4: %zu voxels where no particle reaches", outside);
        free(mw), free(mdw);
        pw_cache_frame_free(&cf);
    }
    CHECK(worst[0] <= 1e-6, "4: %s: durability off the cache's particles' by %.3g", vdb,
          worst[0]);
    CHECK(worst[1] <= 1e-4, "4: %s: durability off the solver's particles' by %.3g", vdb,
          worst[1]);
    printf("4: %s: %zu voxels, durability within %.3g of its cache's particles', %.3g of the "
           "solver's\n", vdb, u.n, worst[0], worst[1]);
    pw_vdb_grid_free(&g);
    pw_vdb_grid_free(&u);
}
#endif

/* The number after "key": in text, NAN when absent or null. */
static double json_number(const char *text, const char *key)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\": ", key);
    const char *at = text ? strstr(text, needle) : NULL;
    if (!at) return NAN;
    char *end;
    double v = strtod(at + strlen(needle), &end);
    return end == at + strlen(needle) ? NAN : v;
}

/* 5: the stats of frame 1 (the JSON file holds frame 1 only). */
static void stats(const char *a_json, const char *b_json, const char *p_json, const char *a)
{
    char pa[4096];
    path_of(pa, sizeof pa, a, 1, "pwc");
    pw_cache_frame cf;
    const double *x, *m, *d;
    double mass = 0, damaged = 0, sum = 0;
    if (read_particles(pa, &cf, &x, &m, &d)) {
        for (size_t p = 0; p < cf.count; p++) {
            mass += m[p];
            sum += m[p] * d[p];
            damaged += d[p] < 0.5 ? m[p] : 0;
        }
        pw_cache_frame_free(&cf);
    }
    for (int k = 0; k < 2; k++) {
        char *text = slurp(k ? b_json : a_json, NULL);
        double share = json_number(text, "damaged_share"), mean = json_number(text, "mean");
        CHECK_NEAR(share, damaged / mass, 1e-6, k ? "5: B: damaged share" : "5: A: damaged share");
        CHECK_NEAR(mean, sum / mass, 1e-6, k ? "5: B: mean durability" : "5: A: mean durability");
        if (!k) printf("5: frame 1: damaged %.6f of the mass (by hand %.6f), mean %.6f (%.6f)\n",
                       share, damaged / mass, mean, sum / mass);
        free(text);
    }
    char *text = slurp(p_json, NULL);
    CHECK(text && strstr(text, "\"durability\": null"), "5: P: durability reported");
    free(text);
}

int main(void)
{
    const char *dir = fixture_dir("export_durability");
    char scene_a[4096], scene_b[4096], scene_p[4096], a[4096], b[4096], p[4096], log[4096];
    snprintf(scene_a, sizeof scene_a, "%s/a.json", dir);
    snprintf(scene_b, sizeof scene_b, "%s/b.json", dir);
    snprintf(scene_p, sizeof scene_p, "%s/p.json", dir);
    write_scene(scene_a, 1, 1);
    write_scene(scene_b, 1, 100);
    write_scene(scene_p, 0, 100);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(p, sizeof p, "%s/p", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    const char *scenes[3] = {scene_a, scene_b, scene_p}, *outs[3] = {a, b, p};
    char json[3][4096], table[3][4096];
    int vdb = 1;
    for (int k = 0; k < 3; k++) {
        const char *sim[] = {"sim", scenes[k], "--output", outs[k], "--threads", "1", "--quiet",
                             NULL};
        const char *ply[] = {"export", "ply", scenes[k], "--output", outs[k], "--quiet", NULL};
        const char *vol[] = {"export", "vdb", scenes[k], "--output", outs[k], "--threads", "1",
                             "--quiet", NULL};
        snprintf(json[k], sizeof json[k], "%s/stats.json", outs[k]);
        snprintf(table[k], sizeof table[k], "%s/stats.txt", outs[k]);
        const char *st[] = {"stats", scenes[k], "--output", outs[k], "--frames", "1", "--json",
                            NULL};
        const char *tab[] = {"stats", scenes[k], "--output", outs[k], "--frames", "1", NULL};
        CHECK(powder_run(log, sim) == 0, "sim %s failed (see %s)", scenes[k], log);
        CHECK(powder_run(log, ply) == 0, "export ply %s failed (see %s)", scenes[k], log);
        CHECK(powder_run(json[k], st) == 0, "stats %s failed (see %s)", scenes[k], json[k]);
        CHECK(powder_run(table[k], tab) == 0, "stats %s failed (see %s)", scenes[k], table[k]);
#ifdef POWDER_HAVE_VDB
        CHECK(powder_run(log, vol) == 0, "export vdb %s failed (see %s)", scenes[k], log);
#else
        (void)vol;
        vdb = 0;
#endif
    }
    if (check_failures) return check_done("export_durability");
    slim_caches(a, b, p);
    char cache[4096];
    path_of(cache, sizeof cache, a, 2, "pwc");
    resave(scene_a, cache, 2, 1);
    path_of(cache, sizeof cache, p, 0, "pwc");
    resave(scene_p, cache, 0, 0);
    ply_files(a, b, p);
#ifdef POWDER_HAVE_VDB
    char va[4096], vb[4096], vp[4096], ca[4096], cb[4096];
    path_of(va, sizeof va, a, 1, "vdb");
    path_of(vb, sizeof vb, b, 1, "vdb");
    path_of(vp, sizeof vp, p, 1, "vdb");
    path_of(ca, sizeof ca, a, 1, "pwc");
    path_of(cb, sizeof cb, b, 1, "pwc");
    vdb_file(va, ca, ca);
    vdb_file(vb, cb, ca);
    pw_vdb_grid g;
    pw_error err = {0};
    CHECK(pw_vdb_read(vp, "density", &g, &err) == PW_OK, "4: P: %s", err.msg);
    pw_vdb_grid_free(&g);
    CHECK(pw_vdb_read(vp, "durability", &g, &err) == PW_EFORMAT, "4: P has a durability grid");
#endif
    if (!vdb) printf("4: built without OpenVDB: the VDB checks SKIPPED\n");
    stats(json[0], json[1], json[2], a);
    CHECK(file_contains(table[0], "damaged") && !file_contains(table[2], "damaged"),
          "5: the damage columns: in A's table %d, in P's %d", file_contains(table[0], "damaged"),
          file_contains(table[2], "damaged"));
    return check_done("export_durability");
}
