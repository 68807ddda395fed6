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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "denoise.h"

/* Guards the colour distance's denominator where both variances are 0 (a noiseless
 * region: any difference then counts as a real one). */
#define VAR_EPS 1e-12
/* A pair's colour term is capped here: one such pixel in a 7 x 7 patch (the largest
 * sensible; the default is 3 x 3) already puts the weight below e^-200, and the cap keeps
 * the float sums over a patch finite where a term divides by VAR_EPS alone. */
#define TERM_CAP 1e4
/* Rows a thread filters at a time: each block recomputes the row sums of the patch's
 * reach (2 patch rows) above and below it, so taller blocks waste less. (Blocks narrower
 * than the image, to keep an offset's reads in a core's cache, did not pay: 1920x1080 in
 * 3.5 s as rows of 32, 4.0-4.2 s as 16 x 128 or 8 x 256 tiles.) */
#define BLOCK_ROWS 32
/* The sums a pixel keeps per pass: its weighted colour and the weights. */
enum { ACC_W = 3, NACC = 4 };

/* The image as planes of floats (one per channel or feature, npix each), so that the
 * loops over a row's pixels are straight lines the compiler turns into vector code. A
 * pixel that holds no estimate, or whose features are not finite, has its planes zeroed
 * and use 0: it is nobody's neighbour. */
typedef struct {
    int w, h, npass;
    const pw_denoise_input *in;
    const pw_denoise_params *p;
    unsigned char *valid;   /* the pixel holds a finite estimate (keeps its input if not) */
    float *use;             /* 1: the pixel takes part (valid, features finite), else 0 */
    float *guide[2][3];     /* pass j's weights come from these (the other half)          */
    float *value[2][3];     /* pass j averages these                                      */
    float *var[3];          /* variance of a half's mean (of the colour's, one pass)      */
    /* features, zero when absent; *_var already in the units of their term */
    float *albedo[3], *albedo_var, *normal[3], *normal_var, *depth, *depth_var, *depth_s2;
    float *depth_class;     /* 0 finite, 1 +inf (nothing met), 2 -inf: a pair of two
                               classes has weight 0 */
    float *alpha, *alpha_var, *sun, *sun_var;
    float *planes;          /* the one allocation all of the above point into */
} dn_ctx;

/* e^-x for x >= 0 (NaN and anything past 87 give e^-87), to about 2e-6 relative: 2^t as
 * 2^n times a polynomial of the fraction, in float lanes the compiler vectorises (the C
 * library's exp is a call per value). The weights are heuristics; this is ample. */
static inline float exp_neg(float x)
{
    x = x < 87.0f ? x : 87.0f;
    float t = -1.44269504f * x; /* in (-125.6, 0] */
    int n = (int)t - 1;         /* truncation: f = t - n in (0, 1] */
    float f = (t - (float)n) * 0.69314718f;
    float p = 1.0f + f * (1.0f + f * (0.5f + f * (1.0f / 6 + f * (1.0f / 24 + f * (1.0f / 120 +
              f * (1.0f / 720 + f * (1.0f / 5040)))))));
    union { uint32_t u; float f; } scale = {.u = (uint32_t)(n + 127) << 23};
    return p * scale.f;
}

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

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
    double s[6] = {p->k_color, p->sigma_albedo, p->sigma_normal, p->sigma_depth, p->sigma_alpha,
                   p->sigma_sun};
    for (int k = 0; k < 6; k++)
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
static void half_variance(const dn_ctx *c, int nthreads)
{
    const pw_denoise_input *in = c->in;
    int w = c->w, h = c->h;
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t p = (size_t)y * w + x;
            for (int ch = 0; ch < 3; ch++) {
                double v = 0;
                if (!c->valid[p]) {
                    v = 0;
                } else if (in->color_var) { /* a half's mean, or with one pass the pixel's */
                    v = (c->npass == 2 ? 2.0 : 1.0) * in->color_var[3 * p + ch];
                } else {
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
                    v = n ? s / n : 0.0;
                }
                c->var[ch][p] = isfinite(v) && v > 0 ? (float)v : 0.0f;
            }
        }
}

/* ---- the filter ----------------------------------------------------------------- */

/* max(0, D - (vp + min(vp, vq))) / (s2 + vp + vq) */
static inline float feature_term(float D, float vp, float vq, float s2)
{
    float x = D - (vp + (vp < vq ? vp : vq));
    return x > 0 ? x / (s2 + vp + vq) : 0.0f;
}

/* Scratch of one block: per pass the colour distances of a row before the patch (with
 * F zeros each side), the patch's row sums of the rows [r0, r1), and a row's patch sums
 * down the columns. */
typedef struct {
    float *term[2], *count;  /* w + 2F each */
    float *row_t[2], *row_n; /* (r1 - r0) w each */
    float *col_t[2], *col_n; /* w each */
} block_scratch;

/* The colour distances of row y's pixels to their neighbours at
 * (ox, yq - y), summed along the row over the patch, into rt[j] (and the valid pairs into
 * rn); a pixel x in [xa, xb) has a neighbour. */
static void row_distances(const dn_ctx *c, int y, int yq, int ox, int xa, int xb,
                          float k2, block_scratch *b, float *const rt[2],
                          float *restrict rn)
{
    const int w = c->w, F = c->p->patch;
    const size_t P = (size_t)y * w, Q = (size_t)yq * w + ox;
    const float *restrict vp0 = c->var[0] + P, *restrict vp1 = c->var[1] + P,
                          *restrict vp2 = c->var[2] + P;
    const float *restrict vq0 = c->var[0] + Q, *restrict vq1 = c->var[1] + Q,
                          *restrict vq2 = c->var[2] + Q;
    const float *restrict up = c->use + P, *restrict uq = c->use + Q;
    float *restrict cnt = b->count + F;
    const size_t nline = (size_t)w + 2 * F;
    memset(b->count, 0, nline * sizeof *b->count);
#pragma omp simd
    for (int x = xa; x < xb; x++) cnt[x] = up[x] * uq[x];
    for (int j = 0; j < c->npass; j++) {
        const float *restrict gp0 = c->guide[j][0] + P, *restrict gp1 = c->guide[j][1] + P,
                              *restrict gp2 = c->guide[j][2] + P;
        const float *restrict gq0 = c->guide[j][0] + Q, *restrict gq1 = c->guide[j][1] + Q,
                              *restrict gq2 = c->guide[j][2] + Q;
        float *restrict t = b->term[j] + F;
        memset(b->term[j], 0, nline * sizeof *b->term[j]);
#pragma omp simd
        for (int x = xa; x < xb; x++) {
            float d0 = gp0[x] - gq0[x], d1 = gp1[x] - gq1[x], d2 = gp2[x] - gq2[x];
            float a0 = vp0[x], a1 = vp1[x], a2 = vp2[x], b0 = vq0[x], b1 = vq1[x], b2 = vq2[x];
            float s = (d0 * d0 - (a0 + (a0 < b0 ? a0 : b0))) / (VAR_EPS + k2 * (a0 + b0)) +
                      (d1 * d1 - (a1 + (a1 < b1 ? a1 : b1))) / (VAR_EPS + k2 * (a1 + b1)) +
                      (d2 * d2 - (a2 + (a2 < b2 ? a2 : b2))) / (VAR_EPS + k2 * (a2 + b2));
            s *= 1.0f / 3.0f;
            s = s < TERM_CAP ? s : TERM_CAP;
            t[x] = cnt[x] > 0 ? s : 0.0f;
        }
        float *restrict out = rt[j];
#pragma omp simd
        for (int x = 0; x < w; x++) {
            float sum = 0;
            for (int d = -F; d <= F; d++) sum += t[x + d];
            out[x] = sum;
        }
    }
#pragma omp simd
    for (int x = 0; x < w; x++) {
        float sum = 0;
        for (int d = -F; d <= F; d++) sum += cnt[x + d];
        rn[x] = sum;
    }
}

/* The weights of row y's pixels for their neighbours in row yq (offset ox), from the
 * patch distances in b->col_t and b->col_n, and their terms in the sums. */
static void row_weights(const dn_ctx *c, int y, int yq, int ox, int xa, int xb,
                        const block_scratch *b, float *const acc[2][NACC])
{
    const int w = c->w;
    const size_t P = (size_t)y * w, Q = (size_t)yq * w + ox;
    const pw_denoise_params *pr = c->p;
    const float s2_albedo = (float)(pr->sigma_albedo * pr->sigma_albedo);
    const float s2_normal = (float)(pr->sigma_normal * pr->sigma_normal);
    const float s2_alpha = (float)(pr->sigma_alpha * pr->sigma_alpha);
    const float *restrict up = c->use + P, *restrict uq = c->use + Q;
    const float *restrict kp = c->depth_class + P, *restrict kq = c->depth_class + Q;
    const float *restrict ap0 = c->albedo[0] + P, *restrict ap1 = c->albedo[1] + P,
                          *restrict ap2 = c->albedo[2] + P;
    const float *restrict aq0 = c->albedo[0] + Q, *restrict aq1 = c->albedo[1] + Q,
                          *restrict aq2 = c->albedo[2] + Q;
    const float *restrict np0 = c->normal[0] + P, *restrict np1 = c->normal[1] + P,
                          *restrict np2 = c->normal[2] + P;
    const float *restrict nq0 = c->normal[0] + Q, *restrict nq1 = c->normal[1] + Q,
                          *restrict nq2 = c->normal[2] + Q;
    const float *restrict avp = c->albedo_var + P, *restrict avq = c->albedo_var + Q;
    const float *restrict nvp = c->normal_var + P, *restrict nvq = c->normal_var + Q;
    const float *restrict zp = c->depth + P, *restrict zq = c->depth + Q;
    const float *restrict zvp = c->depth_var + P, *restrict zvq = c->depth_var + Q;
    const float *restrict zs2 = c->depth_s2 + P;
    const float *restrict alp = c->alpha + P, *restrict alq = c->alpha + Q;
    const float *restrict alvp = c->alpha_var + P, *restrict alvq = c->alpha_var + Q;
    const float *restrict sp = c->sun + P, *restrict sq = c->sun + Q;
    const float *restrict svp = c->sun_var + P, *restrict svq = c->sun_var + Q;
    const float s2_sun = (float)(pr->sigma_sun * pr->sigma_sun);
    const float *restrict ct0 = b->col_t[0], *restrict ct1 = b->col_t[1],
                          *restrict cn = b->col_n;
    float *restrict phi_row = b->term[0]; /* free here: the features' sum, then the gate */
    float *restrict gate_row = b->term[1] ? b->term[1] : b->count;
#pragma omp simd
    for (int x = xa; x < xb; x++) {
        float da0 = ap0[x] - aq0[x], da1 = ap1[x] - aq1[x], da2 = ap2[x] - aq2[x];
        float phi = feature_term((da0 * da0 + da1 * da1 + da2 * da2) * (1.0f / 3.0f), avp[x],
                                 avq[x], s2_albedo);
        float dn0 = np0[x] - nq0[x], dn1 = np1[x] - nq1[x], dn2 = np2[x] - nq2[x];
        phi += feature_term(dn0 * dn0 + dn1 * dn1 + dn2 * dn2, nvp[x], nvq[x], s2_normal);
        float dz = zp[x] - zq[x];
        phi += feature_term(dz * dz, zvp[x], zvq[x], zs2[x]);
        float dal = alp[x] - alq[x];
        phi += feature_term(dal * dal, alvp[x], alvq[x], s2_alpha);
        float ds = sp[x] - sq[x];
        phi += feature_term(ds * ds, svp[x], svq[x], s2_sun);
        phi_row[x] = phi;
        gate_row[x] = up[x] * uq[x] * (kp[x] == kq[x] ? 1.0f : 0.0f);
    }
    for (int j = 0; j < c->npass; j++) {
        const float *restrict ct = j ? ct1 : ct0;
        const float *restrict v0 = c->value[j][0] + Q, *restrict v1 = c->value[j][1] + Q,
                              *restrict v2 = c->value[j][2] + Q;
        float *restrict s0 = acc[j][0] + P, *restrict s1 = acc[j][1] + P,
                        *restrict s2 = acc[j][2] + P, *restrict sw = acc[j][ACC_W] + P;
#pragma omp simd
        for (int x = xa; x < xb; x++) {
            float d2 = ct[x] / (cn[x] > 1.0f ? cn[x] : 1.0f);
            float wt = gate_row[x] * exp_neg(phi_row[x] + (d2 > 0 ? d2 : 0.0f));
            s0[x] += wt * v0[x];
            s1[x] += wt * v1[x];
            s2[x] += wt * v2[x];
            sw[x] += wt;
        }
    }
}

/* Offset (ox, oy) for the rows [y0, y1): the colour
 * distance of every pixel of rows [r0, r1) (the block and the patch's reach) to its
 * neighbour at the offset, summed along the row over the patch; then down the patch's
 * columns, the weights, and each pixel's sums. Every sum is taken directly, in one order,
 * so a pixel's result does not depend on which block or thread computed it. */
static void block_offset(const dn_ctx *c, int y0, int y1, int r0, int r1, int ox, int oy,
                         float k2, block_scratch *b, float *const acc[2][NACC])
{
    const int w = c->w, h = c->h, F = c->p->patch, np = c->npass;
    const int xa = ox < 0 ? -ox : 0, xb = ox > 0 ? w - ox : w; /* x + ox in [0, w) */
    if (xb <= xa) return;
    for (int y = r0; y < r1; y++) {
        int yq = y + oy;
        float *rt[2] = {b->row_t[0] + (size_t)(y - r0) * w,
                        np == 2 ? b->row_t[1] + (size_t)(y - r0) * w : NULL};
        float *rn = b->row_n + (size_t)(y - r0) * w;
        if (yq >= 0 && yq < h) {
            row_distances(c, y, yq, ox, xa, xb, k2, b, rt, rn);
            continue;
        }
        for (int j = 0; j < np; j++) memset(rt[j], 0, (size_t)w * sizeof *rt[j]);
        memset(rn, 0, (size_t)w * sizeof *rn);
    }
    for (int y = y0; y < y1; y++) {
        int yq = y + oy;
        if (yq < 0 || yq >= h) continue;
        int lo = y - F > r0 ? y - F : r0, hi = y + F < r1 - 1 ? y + F : r1 - 1;
        for (int j = 0; j < np; j++) {
            float *restrict ct = b->col_t[j];
            for (int yy = lo; yy <= hi; yy++) {
                const float *restrict r = b->row_t[j] + (size_t)(yy - r0) * w;
#pragma omp simd
                for (int x = xa; x < xb; x++) ct[x] = (yy == lo ? 0.0f : ct[x]) + r[x];
            }
        }
        float *restrict cn = b->col_n;
        for (int yy = lo; yy <= hi; yy++) {
            const float *restrict r = b->row_n + (size_t)(yy - r0) * w;
#pragma omp simd
            for (int x = xa; x < xb; x++) cn[x] = (yy == lo ? 0.0f : cn[x]) + r[x];
        }
        row_weights(c, y, yq, ox, xa, xb, b, acc);
    }
}

/* One stage of the filter over the whole image, with colour tolerance k2, into acc
 * (zero on entry). Returns 1 when out of memory. */
static int filter(const dn_ctx *c, float k2, int nthreads, float *const acc[2][NACC])
{
    const int w = c->w, h = c->h, R = c->p->radius, F = c->p->patch;
    const int nblocks = (h + BLOCK_ROWS - 1) / BLOCK_ROWS;
    int failed = 0;
#pragma omp parallel num_threads(nthreads)
    {
        size_t nrow = (size_t)(BLOCK_ROWS + 2 * F) * w, nline = (size_t)w + 2 * F;
        float *mem = calloc(3 * nrow + 6 * nline, sizeof *mem);
        block_scratch b;
        memset(&b, 0, sizeof b);
        if (mem) {
            float *m = mem;
            for (int j = 0; j < 2; j++) b.term[j] = m, m += nline;
            b.count = m, m += nline;
            for (int j = 0; j < 2; j++) b.col_t[j] = m, m += nline;
            b.col_n = m, m += nline;
            for (int j = 0; j < 2; j++) b.row_t[j] = m, m += nrow;
            b.row_n = m;
        } else {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int bk = 0; bk < nblocks; bk++) {
            if (!mem) continue;
            int y0 = bk * BLOCK_ROWS, y1 = y0 + BLOCK_ROWS < h ? y0 + BLOCK_ROWS : h;
            int r0 = y0 - F > 0 ? y0 - F : 0, r1 = y1 + F < h ? y1 + F : h;
            for (int oy = -R; oy <= R; oy++)
                for (int ox = -R; ox <= R; ox++)
                    block_offset(c, y0, y1, r0, r1, ox, oy, k2, &b, acc);
        }
        free(mem);
    }
    return failed;
}

/* ---- public -------------------------------------------------------------------- */

void pw_denoise_params_default(pw_denoise_params *p)
{
    p->radius = 6;
    p->patch = 1;
    p->k_color = 0.7;
    p->sigma_albedo = 0.05;
    p->sigma_normal = 0.5;
    p->sigma_depth = 0.1;
    p->sigma_alpha = 0.2;
    p->sigma_sun = 0.1;
    p->threads = 0;
}

/* The planes of the context from the input (see dn_ctx). */
static void fill_planes(dn_ctx *c)
{
    const pw_denoise_input *in = c->in;
    const pw_denoise_params *pr = c->p;
    const int st = in->color_stride;
    const size_t npix = (size_t)c->w * c->h;
    for (size_t q = 0; q < npix; q++) {
        const float *col = in->color + (size_t)st * q;
        int ok = finite3(col) && (!in->samples || in->samples[q] > 0);
        if (in->color_var) ok = ok && finite3(in->color_var + 3 * q);
        if (in->half_a) ok = ok && finite3(in->half_a + 3 * q) && finite3(in->half_b + 3 * q);
        if (st == 4) ok = ok && isfinite(col[3]);
        c->valid[q] = (unsigned char)ok;
        /* the features: a non-finite one keeps the pixel out (it is nobody's neighbour) */
        int use = ok;
        double z = in->depth ? in->depth[q] : 0.0;
        if (isnan(z)) use = 0;
        c->depth_class[q] = isinf(z) ? (z > 0 ? 1.0f : 2.0f) : 0.0f;
        double zf = isfinite(z) ? z : 0.0, s = pr->sigma_depth * fmax(fabs(zf), 1e-6);
        c->depth[q] = (float)zf;
        c->depth_var[q] = in->depth_var && isfinite(z) ? (float)fmax(0.0, in->depth_var[q]) : 0.0f;
        c->depth_s2[q] = (float)(s * s);
        for (int ch = 0; ch < 3; ch++) {
            float a = in->albedo ? in->albedo[3 * q + ch] : 0.0f;
            float nrm = in->normal ? in->normal[3 * q + ch] : 0.0f;
            if (!isfinite(a) || !isfinite(nrm)) use = 0;
            c->albedo[ch][q] = a, c->normal[ch][q] = nrm;
        }
        float av = in->albedo_var ? in->albedo_var[q] : 0.0f;
        float nv = in->normal_var ? 3.0f * in->normal_var[q] : 0.0f; /* the chord's: summed */
        c->albedo_var[q] = isfinite(av) && av > 0 ? av : 0.0f;
        c->normal_var[q] = isfinite(nv) && nv > 0 ? nv : 0.0f;
        /* the coverage's variance as a binomial proportion's over the pixel's samples */
        double al = st == 4 && ok ? fmin(1.0, fmax(0.0, (double)col[3])) : 0.0;
        double ns = in->samples && in->samples[q] > 0 ? in->samples[q] : 1.0;
        c->alpha[q] = st == 4 && ok ? col[3] : 0.0f;
        c->alpha_var[q] = (float)(al * (1 - al) / ns);
        float sun = in->sun ? in->sun[q] : 0.0f, sv = in->sun_var ? in->sun_var[q] : 0.0f;
        if (!isfinite(sun)) use = 0;
        c->sun[q] = isfinite(sun) ? sun : 0.0f;
        c->sun_var[q] = isfinite(sv) && sv > 0 ? sv : 0.0f;
        c->use[q] = use ? 1.0f : 0.0f;
        for (int ch = 0; ch < 3; ch++) {
            if (c->npass == 2) {
                c->guide[0][ch][q] = ok ? in->half_b[3 * q + ch] : 0.0f;
                c->guide[1][ch][q] = ok ? in->half_a[3 * q + ch] : 0.0f;
                c->value[0][ch][q] = c->guide[1][ch][q];
                c->value[1][ch][q] = c->guide[0][ch][q];
            } else {
                c->guide[0][ch][q] = c->value[0][ch][q] = ok ? col[ch] : 0.0f;
            }
        }
    }
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
    /* planes: use, guide and value (3 each per pass; one pass shares them), var 3,
     * albedo 3 + 1, normal 3 + 1, depth 4, alpha 2, sun 2; then the sums, NACC per pass */
    const int nguide = c.npass == 2 ? 12 : 3, nplanes = 1 + nguide + 3 + 4 + 4 + 4 + 2 + 2;
    const int nacc = NACC * c.npass;
    c.valid = malloc(npix);
    c.planes = calloc((size_t)(nplanes + nacc) * npix, sizeof *c.planes);
    if (!c.valid || !c.planes) {
        free(c.valid), free(c.planes);
        return pw_fail(err, PW_ENOMEM, "denoise: out of memory (%d x %d image)", w, h);
    }
    float *next = c.planes;
#define PLANE() (next += npix, next - npix)
    c.use = PLANE();
    for (int ch = 0; ch < 3; ch++) {
        c.guide[0][ch] = PLANE();
        c.value[0][ch] = c.npass == 2 ? PLANE() : c.guide[0][ch];
        if (c.npass == 2) c.guide[1][ch] = PLANE(), c.value[1][ch] = PLANE();
        c.var[ch] = PLANE();
        c.albedo[ch] = PLANE();
        c.normal[ch] = PLANE();
    }
    c.albedo_var = PLANE(), c.normal_var = PLANE();
    c.depth = PLANE(), c.depth_var = PLANE(), c.depth_s2 = PLANE(), c.depth_class = PLANE();
    c.alpha = PLANE(), c.alpha_var = PLANE(), c.sun = PLANE(), c.sun_var = PLANE();
    float *acc[2][NACC] = {{NULL}};
    for (int j = 0; j < c.npass; j++)
        for (int k = 0; k < NACC; k++) acc[j][k] = PLANE();
#undef PLANE
    fill_planes(&c);
    half_variance(&c, nthreads);

    int failed = filter(&c, (float)(p->k_color * p->k_color), nthreads, acc);
    if (failed) {
        free(c.valid), free(c.planes);
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
            double wsum = acc[j][ACC_W][q];
            double share = j == 0 ? share_a : 1.0 - share_a;
            if (!(wsum > 0)) ok = 0;
            else
                for (int ch = 0; ch < 3; ch++) sum[ch] += share * acc[j][ch][q] / wsum;
        }
        if (ok)
            for (int ch = 0; ch < 3; ch++) out[(size_t)st * q + ch] = (float)sum[ch];
    }
    free(c.valid), free(c.planes);
    return PW_OK;
}
