/* bench_denoise — how close the denoised 16-spp frame of a shot comes to a converged
 * one, against the unfiltered frames of more samples, and what the denoiser costs.
 *
 *   bench_denoise scene.json --frame N [--caches DIR] [--size WxH] [--spp S]
 *                 [--ref-spp R] [--ref FILE] [--compare 64,128] [--threads T]
 *                 [--png PREFIX] [--time-only] [--split]
 *
 * Renders frame N of the scene as `powder render` does (its camera, lights, surfaces and
 * medium; --size replaces the resolution): the reference at R spp (4096) with the albedo
 * AOV and another seed, S spp (16) denoised (which also gives the unfiltered S spp: the same samples), and
 * each --compare count unfiltered. --ref FILE keeps the reference between runs (raw
 * floats with a header; rendered again when its size or spp differ).
 * It prints relMSE = mean over pixels and channels of (x - ref)^2 / (ref^2 + 0.01), on
 *   - the frame;
 *   - the snow: pixels whose reference albedo (the mean over the samples' first events)
 *     is within 0.02 of the medium's in every channel, i.e. every sample met snow first;
 *   - the outline: pixels within 2 px (8-neighbourhood, twice) of a pixel pair whose
 *     reference alpha differs by more than 0.5 or albedo by more than 0.1;
 * the snow's mean luminance against the reference's, each render's wall time and the
 * denoiser's, and the criteria (denoised S spp at most the last --compare
 * count's relMSE on frame and snow, at most the first's on the outline, mean within 1 %).
 * --split renders the denoised S-spp frame again with another seed and splits its relMSE
 * into noise (half the two frames' squared difference, over ref^2 + 0.01) and the rest,
 * the bias (detail smoothed away, colour moved).
 * --time-only renders only the S-spp denoised frame and prints its time and the
 * denoiser's share (the 1920x1080 budget is 10 %). --png PREFIX writes PREFIX_<S>spp.png,
 * PREFIX_<S>spp_denoised.png, PREFIX_<C>spp.png and PREFIX_<R>spp.png through the
 * scene's exposure and the default view. */
#include <errno.h>
#include <omp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "exr.h"
#include "png.h"
#include "pw_render.h"
#include "scene.h"
#include "shot.h"

#define MAX_COMPARE 8
#define REF_MAGIC "PWDNREF1"

typedef struct {
    const char *scene, *caches, *ref_file, *png;
    int frame, w, h, spp, ref_spp, threads, time_only, split;
    int compare[MAX_COMPARE], ncompare;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: bench_denoise scene.json --frame N [--caches DIR] [--size WxH] "
                    "[--spp S] [--ref-spp R] [--ref FILE] [--compare 64,128] [--threads T] "
                    "[--png PREFIX] [--time-only] [--split]\n");
    exit(2);
}

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->frame = -1, o->spp = 16, o->ref_spp = 4096;
    o->compare[0] = 64, o->compare[1] = 128, o->ncompare = 2;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(s, "--time-only")) o->time_only = 1;
        else if (!strcmp(s, "--split")) o->split = 1;
        else if (s[0] != '-' && !o->scene) o->scene = s;
        else if (!v) usage();
        else if (!strcmp(s, "--frame")) o->frame = atoi(v), a++;
        else if (!strcmp(s, "--caches")) o->caches = v, a++;
        else if (!strcmp(s, "--ref")) o->ref_file = v, a++;
        else if (!strcmp(s, "--png")) o->png = v, a++;
        else if (!strcmp(s, "--spp")) o->spp = atoi(v), a++;
        else if (!strcmp(s, "--ref-spp")) o->ref_spp = atoi(v), a++;
        else if (!strcmp(s, "--threads")) o->threads = atoi(v), a++;
        else if (!strcmp(s, "--size")) {
            if (sscanf(v, "%dx%d", &o->w, &o->h) != 2 || o->w < 1 || o->h < 1) usage();
            a++;
        } else if (!strcmp(s, "--compare")) {
            o->ncompare = 0;
            for (const char *p = v; *p && o->ncompare < MAX_COMPARE; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
                o->compare[o->ncompare++] = atoi(p);
            a++;
        } else usage();
    }
    if (!o->scene || o->frame < 0 || o->spp < 2 || o->ref_spp < 1 || o->ncompare < 1) usage();
    for (int k = 0; k < o->ncompare; k++)
        if (o->compare[k] < 1) usage();
    return 0;
}

/* One render of the frame; exits on failure (a benchmark has nothing to salvage). */
static void render_seed(const pw_scene *sc, const options *o, int spp, int denoise, int albedo,
                        unsigned seed_add, pw_image *img, pw_render_stats *st)
{
    pw_render_settings rs = sc->render;
    rs.seed += seed_add;
    if (albedo) rs.seed += 7919; /* the reference's noise is independent of the others' */
    rs.spp = spp;
    rs.denoise = denoise;
    rs.aov_albedo = albedo;
    rs.noise_target = 0;
    if (o->threads) rs.threads = o->threads;
    pw_error err = {0};
    fprintf(stderr, "  rendering %d spp%s ...\n", spp, denoise ? ", denoised" : "");
    if (pw_shot_render_image(sc, o->frame, &rs, img, st, &err) != PW_OK) {
        fprintf(stderr, "bench_denoise: %s\n", err.msg);
        exit(1);
    }
}

static void render(const pw_scene *sc, const options *o, int spp, int denoise, int albedo,
                   pw_image *img, pw_render_stats *st)
{
    render_seed(sc, o, spp, denoise, albedo, 0, img, st);
}

/* The reference: read from o->ref_file when it holds this size and spp, else rendered
 * (and kept there). rgba and albedo are malloc'ed. */
static void reference(const pw_scene *sc, const options *o, int w, int h, float **rgba,
                      float **albedo, double *seconds)
{
    size_t npix = (size_t)w * h;
    *rgba = malloc(4 * npix * sizeof **rgba);
    *albedo = malloc(3 * npix * sizeof **albedo);
    if (!*rgba || !*albedo) {
        fprintf(stderr, "bench_denoise: out of memory\n");
        exit(1);
    }
    *seconds = 0;
    FILE *f = o->ref_file ? fopen(o->ref_file, "rb") : NULL;
    if (f) {
        char magic[8];
        int32_t head[4];
        int ok = fread(magic, 1, 8, f) == 8 && !memcmp(magic, REF_MAGIC, 8) &&
                 fread(head, sizeof head, 1, f) == 1 && head[0] == w && head[1] == h &&
                 head[2] == o->ref_spp && head[3] == o->frame &&
                 fread(*rgba, sizeof **rgba, 4 * npix, f) == 4 * npix &&
                 fread(*albedo, sizeof **albedo, 3 * npix, f) == 3 * npix;
        fclose(f);
        if (ok) {
            fprintf(stderr, "  reference: %s (%d spp)\n", o->ref_file, o->ref_spp);
            return;
        }
        fprintf(stderr, "  %s: not this frame's %dx%d x %d spp reference: rendering it\n",
                o->ref_file, w, h, o->ref_spp);
    }
    pw_image img;
    pw_render_stats st;
    render(sc, o, o->ref_spp, 0, 1, &img, &st);
    memcpy(*rgba, img.rgba, 4 * npix * sizeof **rgba);
    memcpy(*albedo, img.albedo, 3 * npix * sizeof **albedo);
    *seconds = st.seconds;
    pw_image_free(&img);
    if (!o->ref_file) return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", o->ref_file);
    int32_t head[4] = {w, h, o->ref_spp, o->frame};
    f = fopen(tmp, "wb");
    int ok = f && fwrite(REF_MAGIC, 1, 8, f) == 8 && fwrite(head, sizeof head, 1, f) == 1 &&
             fwrite(*rgba, sizeof **rgba, 4 * npix, f) == 4 * npix &&
             fwrite(*albedo, sizeof **albedo, 3 * npix, f) == 3 * npix;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, o->ref_file) != 0) {
        fprintf(stderr, "bench_denoise: %s: cannot keep the reference (%s)\n", o->ref_file,
                strerror(errno));
        remove(tmp);
    }
}

typedef struct {
    int w, h;
    const float *ref;
    unsigned char *snow, *outline;
} masks;

static void make_masks(masks *m, const float *ref, const float *albedo, vec3 medium)
{
    int w = m->w, h = m->h;
    size_t npix = (size_t)w * h;
    m->ref = ref;
    m->snow = calloc(npix, 1);
    m->outline = calloc(npix, 1);
    unsigned char *edge = calloc(npix, 1), *tmp = calloc(npix, 1);
    if (!m->snow || !m->outline || !edge || !tmp) {
        fprintf(stderr, "bench_denoise: out of memory\n");
        exit(1);
    }
    double med[3] = {medium.x, medium.y, medium.z};
    for (size_t q = 0; q < npix; q++) {
        int s = 1;
        for (int ch = 0; ch < 3; ch++) s = s && fabs(albedo[3 * q + ch] - med[ch]) <= 0.02;
        m->snow[q] = (unsigned char)s;
    }
    /* pairs of 4-neighbours across a step: both pixels are on the edge */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t p = (size_t)y * w + x;
            size_t nb[2] = {x + 1 < w ? p + 1 : p, y + 1 < h ? p + (size_t)w : p};
            for (int k = 0; k < 2; k++) {
                size_t q = nb[k];
                if (q == p) continue;
                int step = fabs(ref[4 * p + 3] - ref[4 * q + 3]) > 0.5;
                for (int ch = 0; ch < 3; ch++)
                    step = step || fabs(albedo[3 * p + ch] - albedo[3 * q + ch]) > 0.1;
                if (step) edge[p] = edge[q] = 1;
            }
        }
    /* dilated twice by the 8-neighbourhood: within 2 px */
    for (int pass = 0; pass < 2; pass++) {
        const unsigned char *src = pass ? tmp : edge;
        unsigned char *dst = pass ? m->outline : tmp;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int any = 0;
                for (int dy = -1; dy <= 1 && !any; dy++)
                    for (int dx = -1; dx <= 1 && !any; dx++) {
                        int xx = x + dx, yy = y + dy;
                        any = xx >= 0 && yy >= 0 && xx < w && yy < h && src[(size_t)yy * w + xx];
                    }
                dst[(size_t)y * w + x] = (unsigned char)any;
            }
    }
    free(edge), free(tmp);
}

/* relMSE of x (RGBA) against the reference over the pixels of mask (NULL: all) */
static double rel_mse(const masks *m, const float *x, const unsigned char *mask, size_t *count)
{
    double s = 0;
    size_t n = 0;
    for (size_t q = 0; q < (size_t)m->w * m->h; q++) {
        if (mask && !mask[q]) continue;
        for (int ch = 0; ch < 3; ch++) {
            double r = m->ref[4 * q + ch], e = x[4 * q + ch] - r;
            s += e * e / (r * r + 0.01);
        }
        n++;
    }
    if (count) *count = n;
    return n ? s / (3.0 * n) : 0.0;
}

static double snow_mean(const masks *m, const float *x)
{
    double s = 0;
    size_t n = 0;
    for (size_t q = 0; q < (size_t)m->w * m->h; q++)
        if (m->snow[q]) s += 0.2126 * x[4 * q] + 0.7152 * x[4 * q + 1] + 0.0722 * x[4 * q + 2], n++;
    return n ? s / n : 0.0;
}

typedef struct {
    char name[48];
    double frame, snow, outline, mean, seconds;
} row;

static row measure(const masks *m, const char *name, const float *x, double seconds)
{
    row r;
    snprintf(r.name, sizeof r.name, "%s", name);
    r.frame = rel_mse(m, x, NULL, NULL);
    r.snow = rel_mse(m, x, m->snow, NULL);
    r.outline = rel_mse(m, x, m->outline, NULL);
    r.mean = snow_mean(m, x);
    r.seconds = seconds;
    return r;
}

static void png(const options *o, const pw_scene *sc, const char *what, const float *rgba, int w,
                int h)
{
    if (!o->png) return;
    char path[4096];
    snprintf(path, sizeof path, "%s_%s.png", o->png, what);
    size_t npix = (size_t)w * h;
    float *px = malloc(4 * npix * sizeof *px);
    if (!px) return;
    memcpy(px, rgba, 4 * npix * sizeof *px);
    for (size_t q = 0; q < npix; q++) px[4 * q + 3] = 1.0f; /* viewed, not composited */
    pw_error err = {0};
    if (pw_png_write(path, px, w, h, sc->png_exposure, &err) != PW_OK)
        fprintf(stderr, "bench_denoise: %s\n", err.msg);
    else
        fprintf(stderr, "  wrote %s\n", path);
    free(px);
}

int main(int argc, char **argv)
{
    options o;
    parse(argc, argv, &o);
    pw_scene *sc = malloc(sizeof *sc);
    pw_error err = {0};
    if (!sc || pw_scene_load(o.scene, sc, &err) != PW_OK ||
        pw_shot_apply_read_paths(sc, NULL, o.caches, &err) != PW_OK) {
        fprintf(stderr, "bench_denoise: %s\n", sc ? err.msg : "out of memory");
        return 2;
    }
    if (o.w) sc->camera.width_px = o.w, sc->camera.height_px = o.h;
    int w = sc->camera.width_px, h = sc->camera.height_px;
    printf("bench_denoise: %s frame %d, %dx%d, %d threads\n", sc->name, o.frame, w, h,
           o.threads ? o.threads : omp_get_max_threads());
    bench_print_cpu();

    pw_image den;
    pw_render_stats dst;
    if (o.time_only) {
        render(sc, &o, o.spp, 1, 0, &den, &dst);
        printf("%d spp denoised: render %.2f s, of which the denoiser %.2f s (%.1f %%)\n", o.spp,
               dst.seconds, dst.denoise_seconds, 100.0 * dst.denoise_seconds / dst.seconds);
        printf("without the denoiser: %.2f s; the denoiser is %.1f %% of it\n",
               dst.seconds - dst.denoise_seconds,
               100.0 * dst.denoise_seconds / (dst.seconds - dst.denoise_seconds));
        png(&o, sc, "denoised", den.rgba, w, h);
        pw_image_free(&den);
        free(sc);
        return 0;
    }

    float *ref, *albedo;
    double ref_seconds;
    reference(sc, &o, w, h, &ref, &albedo, &ref_seconds);
    masks m = {w, h, NULL, NULL, NULL};
    make_masks(&m, ref, albedo, sc->medium.albedo);

    row rows[2 + MAX_COMPARE];
    int nrows = 0;
    char name[48];
    render(sc, &o, o.spp, 1, 0, &den, &dst);
    snprintf(name, sizeof name, "%d spp", o.spp);
    rows[nrows++] = measure(&m, name, den.noisy, dst.seconds - dst.denoise_seconds);
    snprintf(name, sizeof name, "%d spp denoised", o.spp);
    rows[nrows++] = measure(&m, name, den.rgba, dst.seconds);
    if (o.split) {
        pw_image two;
        pw_render_stats st2;
        render_seed(sc, &o, o.spp, 1, 0, 1, &two, &st2);
        const unsigned char *mk[3] = {NULL, m.snow, m.outline};
        double noise[3];
        for (int k = 0; k < 3; k++) {
            double acc = 0;
            size_t n = 0;
            for (size_t q = 0; q < (size_t)w * h; q++) {
                if (mk[k] && !mk[k][q]) continue;
                for (int ch = 0; ch < 3; ch++) {
                    double r = ref[4 * q + ch], e = den.rgba[4 * q + ch] - two.rgba[4 * q + ch];
                    acc += 0.5 * e * e / (r * r + 0.01);
                }
                n++;
            }
            noise[k] = n ? acc / (3.0 * n) : 0.0;
        }
        printf("denoised %d spp, noise part of relMSE: frame %.5f, snow %.5f, outline %.5f "
               "(the rest is bias)\n", o.spp, noise[0], noise[1], noise[2]);
        pw_image_free(&two);
    }
    snprintf(name, sizeof name, "%dspp", o.spp);
    png(&o, sc, name, den.noisy, w, h);
    snprintf(name, sizeof name, "%dspp_denoised", o.spp);
    png(&o, sc, name, den.rgba, w, h);
    pw_image_free(&den);
    for (int k = 0; k < o.ncompare; k++) {
        pw_image img;
        pw_render_stats st;
        render(sc, &o, o.compare[k], 0, 0, &img, &st);
        snprintf(name, sizeof name, "%d spp", o.compare[k]);
        rows[nrows++] = measure(&m, name, img.rgba, st.seconds);
        snprintf(name, sizeof name, "%dspp", o.compare[k]);
        png(&o, sc, name, img.rgba, w, h);
        pw_image_free(&img);
    }
    snprintf(name, sizeof name, "%dspp", o.ref_spp);
    png(&o, sc, name, ref, w, h);

    size_t n_snow, n_outline;
    rel_mse(&m, ref, m.snow, &n_snow);
    rel_mse(&m, ref, m.outline, &n_outline);
    double ref_mean = snow_mean(&m, ref);
    printf("reference %d spp%s; snow %zu pixels, outline %zu; snow's mean luminance %.5g\n",
           o.ref_spp, ref_seconds > 0 ? "" : " (kept)", n_snow, n_outline, ref_mean);
    if (ref_seconds > 0) printf("reference render: %.1f s\n", ref_seconds);
    printf("%-20s %10s %10s %10s %10s %9s\n", "relMSE", "frame", "snow", "outline",
           "snow mean", "seconds");
    for (int k = 0; k < nrows; k++)
        printf("%-20s %10.5f %10.5f %10.5f %+9.2f%% %9.2f\n", rows[k].name, rows[k].frame,
               rows[k].snow, rows[k].outline, 100.0 * (rows[k].mean / ref_mean - 1.0),
               rows[k].seconds);
    printf("denoiser: %.2f s of the %d-spp frame's %.2f s\n", dst.denoise_seconds, o.spp,
           dst.seconds);
    const row *d = &rows[1], *hi = &rows[nrows - 1], *lo = &rows[2];
    printf("criteria: frame %s (%.5f vs %s %.5f), snow %s (%.5f vs %.5f), outline %s (%.5f vs "
           "%s %.5f), snow mean %s (%+.2f %%)\n",
           d->frame <= hi->frame ? "met" : "NOT met", d->frame, hi->name, hi->frame,
           d->snow <= hi->snow ? "met" : "NOT met", d->snow, hi->snow,
           d->outline <= lo->outline ? "met" : "NOT met", d->outline, lo->name, lo->outline,
           fabs(d->mean / ref_mean - 1.0) <= 0.01 ? "met" : "NOT met",
           100.0 * (d->mean / ref_mean - 1.0));
    free(ref), free(albedo), free(m.snow), free(m.outline), free(sc);
    return 0;
}
