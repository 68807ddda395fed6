/* Property: a frame written by pw_exr_write carries, as read back through OpenEXRCore's
 * own attribute API, what compositors (Nuke, Houdini COPs, Blender's compositor) look
 * for:
 *   - "worldToCamera" and "worldToNDC" as m44f attributes equal to pw_camera_matrices'
 *     float matrices (tolerance 0: m44f stores exactly those floats), and meaning what
 *     they say: in the row-vector convention the eye maps to the camera origin, the
 *     target to (0, 0, |target - eye|), and the target and the image corners to NDC
 *     (0.5, 0.5), (0, 0) top left and (1, 1) bottom right, within 1e-5 (float matrices
 *     of entries ~1, points ~1 m away: float rounding is ~1e-7, a wrong convention is
 *     off by ~0.5);
 *   - the field of view ("powder:fovDeg", double, exact), the frame number
 *     ("powder:frame", int) and the scene name ("powder:scene", string);
 *   - channels A B G R (half by default, float with float_beauty), AOVs named
 *     layer.channel (albedo.R/G/B half, depth.Z always float);
 *   - beauty values: float beauty reads back exactly, half beauty within half's
 *     relative precision 2^-11 (round to nearest: at most 2^-11 of the value).
 * Edge case: without a camera (has_camera = 0) neither matrix is written. */
#include <math.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exr.h"
#include "pw_render.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { W = 64, H = 36 };

static void fill_image(pw_image *img)
{
    memset(img, 0, sizeof *img);
    img->width = W, img->height = H;
    img->rgba = malloc(sizeof(float) * 4 * W * H);
    img->depth = malloc(sizeof(float) * W * H);
    img->albedo = malloc(sizeof(float) * 3 * W * H);
    for (int i = 0; i < W * H; i++) {
        for (int c = 0; c < 4; c++) img->rgba[4 * i + c] = 0.001f * (float)(i % 997) + 0.1f * c;
        img->depth[i] = i % 5 ? 1.5f + 0.01f * (float)i : INFINITY;
        for (int c = 0; c < 3; c++) img->albedo[3 * i + c] = 0.9f + 0.05f * c;
    }
}

/* p' = p M for the row vector (p, 1); returns the homogeneous result. */
static void row_times(const float M[16], const double p[3], double out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = p[0] * M[0 * 4 + k] + p[1] * M[1 * 4 + k] + p[2] * M[2 * 4 + k] + M[3 * 4 + k];
}

static void normalize(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] /= l;
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The meaning of the matrices, with the camera frame built here from eye/target/up. */
static void check_meaning(const pw_camera_desc *cam, const float w2c[16], const float w2n[16])
{
    double eye[3] = {cam->eye.x, cam->eye.y, cam->eye.z};
    double tgt[3] = {cam->target.x, cam->target.y, cam->target.z};
    double up[3] = {cam->up.x, cam->up.y, cam->up.z}, f[3], r[3], u[3], o[4];
    for (int k = 0; k < 3; k++) f[k] = tgt[k] - eye[k];
    double dist = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    normalize(f);
    cross(f, up, r);
    normalize(r);
    cross(r, f, u);
    row_times(w2c, eye, o);
    CHECK(fabs(o[0]) < 1e-5 && fabs(o[1]) < 1e-5 && fabs(o[2]) < 1e-5 && o[3] == 1,
          "worldToCamera: eye -> (%g, %g, %g, %g), expected the origin", o[0], o[1], o[2], o[3]);
    row_times(w2c, tgt, o);
    CHECK(fabs(o[0]) < 1e-5 && fabs(o[1]) < 1e-5 && fabs(o[2] - dist) < 1e-5,
          "worldToCamera: target -> (%g, %g, %g), expected (0, 0, %g)", o[0], o[1], o[2], dist);
    double t = tan(0.5 * cam->fov_deg * M_PI / 180.0), a = (double)cam->width_px / cam->height_px;
    struct { double sx, sy, ndc_x, ndc_y; const char *what; } pts[3] = {
        {0, 0, 0.5, 0.5, "target"}, {-1, 1, 0, 0, "top-left corner"},
        {1, -1, 1, 1, "bottom-right corner"}};
    for (int k = 0; k < 3; k++) {
        double p[3];
        for (int c = 0; c < 3; c++)
            p[c] = eye[c] + f[c] + pts[k].sx * t * a * r[c] + pts[k].sy * t * u[c];
        row_times(w2n, p, o);
        CHECK(fabs(o[0] / o[3] - pts[k].ndc_x) < 1e-5 && fabs(o[1] / o[3] - pts[k].ndc_y) < 1e-5,
              "worldToNDC: %s -> (%g, %g), expected (%g, %g)", pts[k].what, o[0] / o[3],
              o[1] / o[3], pts[k].ndc_x, pts[k].ndc_y);
    }
}

typedef struct {
    const char *name;
    exr_pixel_type_t type;
} want_channel;

/* Writes a frame, then checks its header through OpenEXRCore. */
static void check_frame(int id, int float_beauty, int has_camera)
{
    pw_camera_desc cam = {{0.9, 0.45, 1.3}, {0, 0.1, 0}, {0, 1, 0}, 35, W, H, 0, 0};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.float_beauty = float_beauty;
    o.frame = 17;
    o.scene_name = "snowball_drop";
    o.spp = 4;
    pw_error err = {0};
    if (has_camera) {
        o.has_camera = 1;
        CHECK(pw_camera_matrices(&cam, o.world_to_camera, o.world_to_ndc, &err) == PW_OK,
              "%d: camera matrices: %s", id, err.msg);
        o.fov_deg = cam.fov_deg;
    }
    pw_image img;
    fill_image(&img);
    char path[512];
    snprintf(path, sizeof path, "%s/exr_meta_%d.exr", POWDER_TEST_TMP, id);
    CHECK(pw_exr_write(path, &img, &o, &err) == PW_OK, "%d: write: %s", id, err.msg);

    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    CHECK(exr_start_read(&ctx, path, &init) == EXR_ERR_SUCCESS, "%d: OpenEXRCore cannot open",
          id);
    if (!ctx) goto done;

    /* camera matrices and field of view */
    const char *mats[2] = {"worldToCamera", "worldToNDC"};
    const float *ours[2] = {o.world_to_camera, o.world_to_ndc};
    float got[2][16];
    for (int k = 0; k < 2; k++) {
        const exr_attribute_t *attr = NULL;
        exr_result_t rv = exr_get_attribute_by_name(ctx, 0, mats[k], &attr);
        if (!has_camera) {
            CHECK(rv != EXR_ERR_SUCCESS, "%d: %s written without a camera", id, mats[k]);
            continue;
        }
        CHECK(rv == EXR_ERR_SUCCESS && attr && attr->type == EXR_ATTR_M44F,
              "%d: %s missing or not m44f", id, mats[k]);
        exr_attr_m44f_t m;
        CHECK(exr_attr_get_m44f(ctx, 0, mats[k], &m) == EXR_ERR_SUCCESS, "%d: get %s", id,
              mats[k]);
        memcpy(got[k], m.m, sizeof got[k]);
        CHECK(!memcmp(got[k], ours[k], sizeof got[k]), "%d: %s differs from "
              "pw_camera_matrices'", id, mats[k]);
    }
    if (has_camera) {
        check_meaning(&cam, got[0], got[1]);
        double fov = 0;
        CHECK(exr_attr_get_double(ctx, 0, "powder:fovDeg", &fov) == EXR_ERR_SUCCESS &&
                  fov == cam.fov_deg, "%d: powder:fovDeg %g, camera %g", id, fov, cam.fov_deg);
    }

    /* frame number and scene name */
    int32_t frame = -1;
    CHECK(exr_attr_get_int(ctx, 0, "powder:frame", &frame) == EXR_ERR_SUCCESS && frame == 17,
          "%d: powder:frame %d", id, frame);
    int32_t len = 0;
    const char *scene = NULL;
    CHECK(exr_attr_get_string(ctx, 0, "powder:scene", &len, &scene) == EXR_ERR_SUCCESS &&
              scene && len == 13 && !strncmp(scene, "snowball_drop", 13),
          "%d: powder:scene '%.*s'", id, scene ? len : 0, scene ? scene : "");

    /* channels: names and pixel types */
    exr_pixel_type_t beauty = float_beauty ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF;
    const want_channel want[8] = {{"A", beauty},           {"B", beauty},
                                  {"G", beauty},           {"R", beauty},
                                  {"albedo.B", EXR_PIXEL_HALF}, {"albedo.G", EXR_PIXEL_HALF},
                                  {"albedo.R", EXR_PIXEL_HALF}, {"depth.Z", EXR_PIXEL_FLOAT}};
    const exr_attr_chlist_t *cl = NULL;
    CHECK(exr_get_channels(ctx, 0, &cl) == EXR_ERR_SUCCESS && cl, "%d: no channel list", id);
    CHECK(cl && cl->num_channels == 8, "%d: %d channels, expected 8", id,
          cl ? cl->num_channels : -1);
    for (int k = 0; cl && k < cl->num_channels && k < 8; k++)
        CHECK(!strcmp(cl->entries[k].name.str, want[k].name) &&
                  cl->entries[k].pixel_type == want[k].type,
              "%d: channel %d is '%s' type %d, expected '%s' type %d", id, k,
              cl->entries[k].name.str, (int)cl->entries[k].pixel_type, want[k].name,
              (int)want[k].type);
    exr_finish(&ctx);

    /* beauty values: exact as float, within half's precision as half */
    int w = 0, h = 0;
    float *rgba = NULL;
    CHECK(pw_exr_read_rgba(path, &w, &h, &rgba, &err) == PW_OK && w == W && h == H,
          "%d: read back: %s", id, err.msg);
    double worst = 0;
    for (int i = 0; rgba && i < 4 * W * H; i++) {
        double d = fabs(rgba[i] - img.rgba[i]) / fmax(fabs(img.rgba[i]), 1e-30);
        if (d > worst) worst = d;
    }
    double tol = float_beauty ? 0 : ldexp(1, -11);
    CHECK(rgba && worst <= tol, "%d: beauty differs by %.3g relative (tolerance %.3g)", id,
          worst, tol);
    printf("%d: %s beauty, camera %s: header as expected, beauty error %.3g relative\n", id,
           float_beauty ? "float" : "half", has_camera ? "yes" : "no", worst);
    free(rgba);
done:
    free(img.rgba), free(img.depth), free(img.albedo);
}

int main(void)
{
    check_frame(1, 0, 1); /* half beauty, the default */
    check_frame(2, 1, 1); /* float beauty (--float) */
    check_frame(3, 0, 0); /* no camera: no matrices */
    return check_done("exr_compositing_metadata");
}
