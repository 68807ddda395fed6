/* denoise.h — a feature-guided denoiser for rendered frames.
 *
 * Non-local means on the colour (Rousselle, Knaus and Zwicker 2012) with the two halves
 * of the samples cross-filtered (Rousselle, Manzi and Zwicker 2013): each half is averaged
 * with weights from the other half's patches, so a weight never favours the noise of the
 * value it multiplies. Every weight is multiplied by feature weights from the first thing
 * each pixel's camera rays met: albedo, a normal (for the snow: the direction of the
 * density's gradient there), depth and coverage (alpha), each discounted by its own
 * noise. The colour weights smooth where the image is flat; the feature weights keep
 * the snow's outline where the colour alone is too noisy to show it.
 * The method, its settings and the measured errors: render/docs/denoiser.md. */
#ifndef PW_DENOISE_H
#define PW_DENOISE_H

#include "pw_error.h"

/* What the denoiser reads, all rows top to bottom, w x h pixels. Optional buffers are
 * NULL when absent. A "variance" is that of the pixel's mean (the sample variance over
 * the samples, divided by their number), per channel unless said otherwise. */
typedef struct {
    int width, height;
    const float *color;        /* colour_stride floats per pixel, RGB first (required) */
    int color_stride;          /* 3 (RGB) or 4 (RGBA: alpha, the coverage, is then also a
                                  feature) */
    const float *color_var;    /* 3 per pixel, or NULL */
    const float *half_a;       /* 3 per pixel: the mean of the even samples, or NULL */
    const float *half_b;       /* 3 per pixel: the mean of the odd samples (both or neither) */
    const float *samples;      /* 1 per pixel: samples taken; 0 = none (the pixel holds no
                                  estimate); NULL = every pixel has some */
    const float *albedo;       /* 3 per pixel, or NULL */
    const float *albedo_var;   /* 1 per pixel: mean over the channels, or NULL (0) */
    const float *normal;       /* 3 per pixel: mean unit normal, or NULL */
    const float *normal_var;   /* 1 per pixel: mean over the components, or NULL (0) */
    const float *depth;        /* 1 per pixel [m]; INFINITY where nothing was met, or NULL */
    const float *depth_var;    /* 1 per pixel [m^2], or NULL (0) */
    const float *sun;          /* 1 per pixel: the sun's mean transmittance from where the
                                  pixel's rays enter the snow (what shades its relief), or
                                  NULL */
    const float *sun_var;      /* 1 per pixel, or NULL (0) */
} pw_denoise_input;

typedef struct {
    int radius;          /* search window half-width [px] (6); 0 returns the input */
    int patch;           /* patch half-width [px] (1) */
    double k_color;      /* colour weight's tolerance in standard deviations (0.7) */
    double sigma_albedo; /* albedo difference [-] at which a weight falls to 1/e (0.05) */
    double sigma_normal; /* normal difference (chord length) for 1/e (0.5) */
    double sigma_depth;  /* relative depth difference for 1/e (0.1) */
    double sigma_alpha;  /* coverage difference for 1/e (0.2) */
    double sigma_sun;    /* sun transmittance difference for 1/e (0.1) */
    int threads;         /* 0 = OpenMP default */
} pw_denoise_params;

void pw_denoise_params_default(pw_denoise_params *p);

/* Filters in->color into out (color_stride floats per pixel, alpha copied as it is;
 * out must not alias any input). The colour's variance comes from color_var when given,
 * else from the halves' difference (averaged over 3 x 3 pixels); with halves the filter
 * cross-filters them, without it filters the colour by its own patches. A pixel with no
 * samples, or whose colour or variance is not finite, is never a neighbour and keeps its
 * input value; a neighbour whose feature is not finite (depth INFINITY) is a neighbour
 * only of pixels with the same. The result is the same bytes for any thread count: each
 * pixel sums its neighbours in one fixed order.
 * @return PW_OK; PW_EINVAL naming the first bad argument (no variance and no halves,
 * a stride other than 3 or 4, out of range parameters); PW_ENOMEM. */
pw_status pw_denoise(const pw_denoise_input *in, const pw_denoise_params *p, float *out,
                     pw_error *err);

#endif
