/* denoise.c — non-local means on the colour, cross-filtered halves, times feature
 * weights (denoise.h; the method and its measurements: render/docs/denoiser.md).
 *
 * The weight of neighbour q in pixel p's average is w_c(p, q) w_f(p, q):
 *   w_c = exp(-max(0, d^2)), d^2 the mean over a (2 patch + 1)^2 patch and the three
 *         channels of ((u_p - u_q)^2 - (V_p + min(V_p, V_q))) / (eps + k^2 (V_p + V_q))
 *         (Rousselle et al. 2012, eq. 5 with alpha = 1: the subtraction removes the
 *         difference's expected noise, so flat noisy regions get weights near 1);
 *   w_f = exp(-sum over features of max(0, D_f - (v_p + min(v_p, v_q))) / (s_f^2 + v_p + v_q)),
 *         D_f the feature's squared difference and s_f its scale: a feature that is
 *         itself noisy (v large) is trusted less (Rousselle et al. 2013 discount by the
 *         feature's variance in the same way).
 * With halves A and B, A is averaged with w_c from B's patches and B with w_c from A's,
 * and the result is their mean: the weights are independent of the noise they multiply.
 *
 * Determinism: threads take blocks of rows; within a block the loop runs over the
 * window's offsets in one order, and each pixel adds its term for an offset to its own
 * accumulators. A row's patch sums are computed the same way by whichever block needs
 * them, so every pixel's sums take the same values in the same order for any thread
 * count. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "denoise.h"

/* Guards the colour distance's denominator where both variances are 0 (a noiseless
 * region: any difference then counts as a real one). */
#define VAR_EPS 1e-12
/* A pair's colour term is capped here: one such pixel in a 7 x 7 patch (the largest
 * sensible; the default is 3 x 3) already puts the weight below e^-200, and the cap keeps the rows' running sums (which add a term and
 * later subtract it) free of the rounding a term of 1e20 would leave behind. */
#define TERM_CAP 1e4
/* Rows a thread filters at a time: each block recomputes the row sums of the patch's
 * reach (2 patch rows) above and below it, so taller blocks waste less. */
#define BLOCK_ROWS 32

typedef struct {
    int w, h, npass;
    const pw_denoise_input *in;
    const pw_denoise_params *p;
    unsigned char *valid; /* the pixel holds a finite estimate */
    float *rgb;           /* the colour, 3 per pixel */
    const float *guide[2], *value[2];
    float *var[2];        /* per-channel variance of guide[j] */
    float *alpha_var;     /* variance of the coverage */
} dn_ctx;

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* max(0, D - (vp + min(vp, vq))) / (s2 + vp + vq); a non-finite D is infinitely far. */
static double feature_term(double D, double vp, double vq, double s2)
{
    if (!isfinite(D)) return INFINITY;
    double x = D - (vp + fmin(vp, vq));
    return x > 0 ? x / (s2 + vp + vq) : 0.0;
}

static double var_at(const float *v, size_t q) { return v ? fmax(0.0, (double)v[q]) : 0.0; }

/* w_f(p, q): 0 when a feature differs without bound (one depth infinite, a NaN). */
static double feature_weight(const dn_ctx *c, size_t p, size_t q)
{
    const pw_denoise_input *in = c->in;
    const pw_denoise_params *pr = c->p;
    double phi = 0;
    if (in->albedo) {
        const float *a = in->albedo + 3 * p, *b = in->albedo + 3 * q;
        double D = ((a[0] - b[0]) * (double)(a[0] - b[0]) + (a[1] - b[1]) * (double)(a[1] - b[1]) +
                    (a[2] - b[2]) * (double)(a[2] - b[2])) / 3.0;
        phi += feature_term(D, var_at(in->albedo_var, p), var_at(in->albedo_var, q),
                            pr->sigma_albedo * pr->sigma_albedo);
    }
    if (in->normal) {
        const float *a = in->normal + 3 * p, *b = in->normal + 3 * q;
        double D = (a[0] - b[0]) * (double)(a[0] - b[0]) + (a[1] - b[1]) * (double)(a[1] - b[1]) +
                   (a[2] - b[2]) * (double)(a[2] - b[2]);
        /* the chord's variance is the sum over the components */
        phi += feature_term(D, 3 * var_at(in->normal_var, p), 3 * var_at(in->normal_var, q),
                            pr->sigma_normal * pr->sigma_normal);
    }
    if (in->depth) {
        double zp = in->depth[p], zq = in->depth[q];
        if (isnan(zp) || isnan(zq)) return 0.0;
        if (isinf(zp) || isinf(zq)) {
            if (zp != zq) return 0.0; /* something against nothing */
        } else {
            double s = pr->sigma_depth * fmax(fabs(zp), 1e-6);
            phi += feature_term((zp - zq) * (zp - zq), var_at(in->depth_var, p),
                                var_at(in->depth_var, q), s * s);
        }
    }
    if (in->color_stride == 4) {
        double ap = in->color[4 * p + 3], aq = in->color[4 * q + 3];
        phi += feature_term((ap - aq) * (ap - aq), c->alpha_var[p], c->alpha_var[q],
                            pr->sigma_alpha * pr->sigma_alpha);
    }
    return phi < INFINITY ? exp(-phi) : 0.0;
}

/* The colour distance's term of one pixel pair (p, q) for pass j, before the patch. */
static double color_term(const dn_ctx *c, int j, size_t p, size_t q, double k2)
{
    const float *u = c->guide[j], *v = c->var[j];
    double t = 0;
    for (int ch = 0; ch < 3; ch++) {
        double vp = v[3 * p + ch], vq = v[3 * q + ch];
        double du = (double)u[3 * p + ch] - u[3 * q + ch];
        t += (du * du - (vp + fmin(vp, vq))) / (VAR_EPS + k2 * (vp + vq));
    }
    t /= 3.0;
    return t < TERM_CAP ? t : TERM_CAP;
}

/* ---- set-up -------------------------------------------------------------------- */

static pw_status check_args(const pw_denoise_input *in, const pw_denoise_params *p,
                            const float *out, pw_error *err)
{
    if (!in || !p || !out || !in->color)
        return pw_fail(err, PW_EINVAL, "denoise: NULL input, parameters, colour or output");
    if (in->width < 1 || in->height < 1 || (double)in->width * in->height > (double)(1 << 28))
        return pw_fail(err, PW_EINVAL, "denoise: image size %d x %d out of range", in->width,
                       in->height);
    if (in->color_stride != 3 && in->color_stride != 4)
        return pw_fail(err, PW_EINVAL, "denoise: colour stride must be 3 or 4 (%d)",
                       in->color_stride);
    if (!in->half_a != !in->half_b)
        return pw_fail(err, PW_EINVAL, "denoise: one half-buffer without the other");
    if (!in->color_var && !in->half_a)
        return pw_fail(err, PW_EINVAL, "denoise: needs the colour's variance or two halves");
    if (p->radius < 0 || p->radius > 64 || p->patch < 0 || p->patch > 16)
        return pw_fail(err, PW_EINVAL, "denoise: radius in [0, 64] and patch in [0, 16] "
                       "(%d, %d)", p->radius, p->patch);
    double s[5] = {p->k_color, p->sigma_albedo, p->sigma_normal, p->sigma_depth, p->sigma_alpha};
    for (int k = 0; k < 5; k++)
        if (!(s[k] > 0 && s[k] < 1e6))
            return pw_fail(err, PW_EINVAL, "denoise: tolerance %d must be in (0, 1e6) (%g)", k,
                           s[k]);
    if (p->threads < 0 || p->threads > 4096)
        return pw_fail(err, PW_EINVAL, "denoise: threads must be in [0, 4096] (%d)", p->threads);
    return PW_OK;
}

/* The variance of one half's mean, per channel: twice the colour's when given, else the
 * halves' squared difference (an estimate from one pair, E (A - B)^2 = 2 V_half),
 * averaged over the valid pixels of a 3 x 3 box to tame it. */
static void half_variance(const dn_ctx *c, float *vh)
{
    const pw_denoise_input *in = c->in;
    int w = c->w, h = c->h;
    if (in->color_var) {
        for (size_t q = 0; q < 3 * (size_t)w * h; q++) vh[q] = 2.0f * in->color_var[q];
        return;
    }
#pragma omp parallel for schedule(static) num_threads(c->p->threads > 0 ? c->p->threads : omp_get_max_threads())
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < 3; ch++) {
                double s = 0;
                int n = 0;
                for (int yy = y - 1; yy <= y + 1; yy++)
                    for (int xx = x - 1; xx <= x + 1; xx++) {
                        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
                        size_t q = (size_t)yy * w + xx;
                        if (!c->valid[q]) continue;
                        double d = (double)in->half_a[3 * q + ch] - in->half_b[3 * q + ch];
                        s += 0.5 * d * d;
                        n++;
                    }
                vh[3 * ((size_t)y * w + x) + ch] = n ? (float)(s / n) : 0.0f;
            }
}

/* ---- the filter ----------------------------------------------------------------- */

/* Offset (ox, oy) for the rows [y0, y1): the colour distance of every pixel of rows
 * [r0, r1) (the block and the patch's reach) to its neighbour at the offset, summed along
 * the row over the patch (a running sum), into row_t (npass planes, then the count of
 * valid pairs); then down the patch's columns, the weights, and each pixel's sums. */
static void block_offset(const dn_ctx *c, int y0, int y1, int r0, int r1, int ox, int oy,
                         double k2, float *row_t, double *acc)
{
    const int w = c->w, h = c->h, F = c->p->patch, np = c->npass;
    const size_t npix = (size_t)w * h, nrow = (size_t)(r1 - r0) * w;
    float *row_n = row_t + (size_t)np * nrow;
    for (int y = r0; y < r1; y++) {
        int yq = y + oy;
        double s[2] = {0, 0}, sn = 0;
        /* term(x) for x in [x - F, x + F]: add x + F, drop x - F - 1 */
        for (int x = -F; x < w; x++) {
            int xa = x + F, xd = x - F - 1;
            for (int sign = 1; sign >= -1; sign -= 2) {
                int xx = sign > 0 ? xa : xd, xq = xx + ox;
                if (xx < 0 || xx >= w || xq < 0 || xq >= w || yq < 0 || yq >= h) continue;
                size_t pp = (size_t)y * w + xx, qq = (size_t)yq * w + xq;
                if (!c->valid[pp] || !c->valid[qq]) continue;
                for (int j = 0; j < np; j++) s[j] += sign * color_term(c, j, pp, qq, k2);
                sn += sign;
            }
            if (x < 0) continue;
            size_t r = (size_t)(y - r0) * w + x;
            for (int j = 0; j < np; j++) row_t[j * nrow + r] = (float)s[j];
            row_n[r] = (float)sn;
        }
    }
    for (int y = y0; y < y1; y++) {
        int yq = y + oy;
        if (yq < 0 || yq >= h) continue;
        for (int x = 0; x < w; x++) {
            int xq = x + ox;
            size_t pp = (size_t)y * w + x, qq = (size_t)yq * w + xq;
            if (xq < 0 || xq >= w || !c->valid[pp] || !c->valid[qq]) continue;
            double wf = feature_weight(c, pp, qq);
            if (wf <= 0) continue;
            double t[2] = {0, 0}, n = 0;
            for (int yy = y - F; yy <= y + F; yy++) {
                if (yy < r0 || yy >= r1) continue;
                size_t r = (size_t)(yy - r0) * w + x;
                for (int j = 0; j < np; j++) t[j] += row_t[j * nrow + r];
                n += row_n[r];
            }
            for (int j = 0; j < np; j++) {
                double d2 = t[j] / fmax(n, 1.0);
                double wt = wf * exp(-fmax(0.0, d2));
                double *a = acc + 4 * ((size_t)j * npix + pp);
                const float *v = c->value[j] + 3 * qq;
                a[0] += wt * v[0], a[1] += wt * v[1], a[2] += wt * v[2], a[3] += wt;
            }
        }
    }
}

/* ---- public -------------------------------------------------------------------- */

void pw_denoise_params_default(pw_denoise_params *p)
{
    p->radius = 6;
    p->patch = 1;
    p->k_color = 0.5;
    p->sigma_albedo = 0.05;
    p->sigma_normal = 0.5;
    p->sigma_depth = 0.1;
    p->sigma_alpha = 0.2;
    p->threads = 0;
}

pw_status pw_denoise(const pw_denoise_input *in, const pw_denoise_params *p, float *out,
                     pw_error *err)
{
    pw_status rc = check_args(in, p, out, err);
    if (rc != PW_OK) return rc;
    int w = in->width, h = in->height, st = in->color_stride;
    size_t npix = (size_t)w * h;
    int nthreads = p->threads > 0 ? p->threads : omp_get_max_threads();
    memcpy(out, in->color, (size_t)st * npix * sizeof *out);
    if (p->radius == 0) return PW_OK;

    dn_ctx c = {0};
    c.w = w, c.h = h, c.in = in, c.p = p;
    c.npass = in->half_a ? 2 : 1;
    c.valid = malloc(npix);
    c.rgb = malloc(3 * npix * sizeof *c.rgb);
    c.var[0] = malloc(3 * npix * sizeof *c.var[0]);
    c.var[1] = c.npass == 2 ? malloc(3 * npix * sizeof *c.var[1]) : NULL;
    c.alpha_var = malloc(npix * sizeof *c.alpha_var);
    /* per pass and pixel: the weighted sums of R, G, B and the weights */
    double *acc = calloc((size_t)c.npass * 4 * npix, sizeof *acc);
    if (!c.valid || !c.rgb || !c.var[0] || (c.npass == 2 && !c.var[1]) || !c.alpha_var || !acc) {
        free(c.valid), free(c.rgb), free(c.var[0]), free(c.var[1]), free(c.alpha_var);
        free(acc);
        return pw_fail(err, PW_ENOMEM, "denoise: out of memory (%d x %d image)", w, h);
    }

    /* which pixels hold an estimate; the colour packed to RGB; the coverage's variance
     * as a binomial proportion's over the pixel's samples */
    for (size_t q = 0; q < npix; q++) {
        const float *col = in->color + (size_t)st * q;
        int ok = finite3(col) && (!in->samples || in->samples[q] > 0);
        if (in->color_var) ok = ok && finite3(in->color_var + 3 * q);
        if (in->half_a) ok = ok && finite3(in->half_a + 3 * q) && finite3(in->half_b + 3 * q);
        if (st == 4) ok = ok && isfinite(col[3]);
        c.valid[q] = (unsigned char)ok;
        for (int ch = 0; ch < 3; ch++) c.rgb[3 * q + ch] = ok ? col[ch] : 0.0f;
        double a = st == 4 && ok ? fmin(1.0, fmax(0.0, (double)col[3])) : 0.0;
        double n = in->samples && in->samples[q] > 0 ? in->samples[q] : 1.0;
        c.alpha_var[q] = (float)(a * (1 - a) / n);
    }
    if (c.npass == 2) {
        half_variance(&c, c.var[0]);
        memcpy(c.var[1], c.var[0], 3 * npix * sizeof *c.var[0]);
        c.guide[0] = in->half_b, c.value[0] = in->half_a;
        c.guide[1] = in->half_a, c.value[1] = in->half_b;
    } else {
        memcpy(c.var[0], in->color_var, 3 * npix * sizeof *c.var[0]);
        c.guide[0] = c.rgb, c.value[0] = c.rgb;
    }
    /* an invalid pixel's values are never read, but keep NaN out of the sums anyway */
    for (size_t q = 0; q < 3 * npix; q++)
        for (int j = 0; j < c.npass; j++)
            if (!isfinite(c.var[j][q]) || !c.valid[q / 3]) c.var[j][q] = 0.0f;

    const int R = p->radius, F = p->patch;
    const double k2 = p->k_color * p->k_color;
    int nblocks = (h + BLOCK_ROWS - 1) / BLOCK_ROWS, failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (int b = 0; b < nblocks; b++) {
        int y0 = b * BLOCK_ROWS, y1 = y0 + BLOCK_ROWS < h ? y0 + BLOCK_ROWS : h;
        int r0 = y0 - F > 0 ? y0 - F : 0, r1 = y1 + F < h ? y1 + F : h;
        size_t nrow = (size_t)(r1 - r0) * w;
        float *row_t = malloc(((size_t)c.npass + 1) * nrow * sizeof *row_t);
        if (!row_t) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        for (int oy = -R; oy <= R; oy++)
            for (int ox = -R; ox <= R; ox++)
                block_offset(&c, y0, y1, r0, r1, ox, oy, k2, row_t, acc);
        free(row_t);
    }
    if (failed) {
        free(c.valid), free(c.rgb), free(c.var[0]), free(c.var[1]), free(c.alpha_var), free(acc);
        return pw_fail(err, PW_ENOMEM, "denoise: out of memory (%d x %d image)", w, h);
    }

    /* the halves' filtered means, weighted by their samples (the even half takes the
     * extra one when the count is odd) */
    for (size_t q = 0; q < npix; q++) {
        if (!c.valid[q]) continue;
        double sum[3] = {0, 0, 0}, ok = 1;
        double share_a = 1.0;
        if (c.npass == 2) {
            double n = in->samples ? in->samples[q] : 2.0;
            share_a = n >= 2 ? ceil(n / 2) / n : 0.5;
        }
        for (int j = 0; j < c.npass; j++) {
            const double *a = acc + 4 * ((size_t)j * npix + q);
            double share = j == 0 ? share_a : 1.0 - share_a;
            if (!(a[3] > 0)) ok = 0;
            else
                for (int ch = 0; ch < 3; ch++) sum[ch] += share * a[ch] / a[3];
        }
        if (ok)
            for (int ch = 0; ch < 3; ch++) out[(size_t)st * q + ch] = (float)sum[ch];
    }
    free(c.valid), free(c.rgb), free(c.var[0]), free(c.var[1]), free(c.alpha_var);
    free(acc);
    return PW_OK;
}
