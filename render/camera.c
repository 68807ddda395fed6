/* camera.c — look-at camera (pinhole or thin lens) and its matrices for EXR metadata. */
#include <math.h>
#include <string.h>

#include "camera.h"
#include "sampling.h"

pw_status pw_camera_init(pw_camera *cam, const pw_camera_desc *c, pw_error *err)
{
    memset(cam, 0, sizeof *cam);
    if (c->width_px < 1 || c->height_px < 1 || c->width_px > 65536 || c->height_px > 65536)
        return pw_fail(err, PW_EINVAL, "camera: image size must be in [1, 65536] (%d x %d)",
                       c->width_px, c->height_px);
    if (!(c->fov_deg > 0 && c->fov_deg < 180))
        return pw_fail(err, PW_EINVAL, "camera: fov_deg must be in (0, 180) (%g)", c->fov_deg);
    if (!v3_isfinite(c->eye) || !v3_isfinite(c->target) || !v3_isfinite(c->up))
        return pw_fail(err, PW_EINVAL, "camera: eye, target and up must be finite");
    vec3 f = v3_sub(c->target, c->eye);
    if (!(v3_length(f) > 0))
        return pw_fail(err, PW_EINVAL, "camera: eye equals target (%g, %g, %g)", c->eye.x,
                       c->eye.y, c->eye.z);
    if (!(c->lens_radius >= 0) || !isfinite(c->lens_radius))
        return pw_fail(err, PW_EINVAL, "camera: lens radius must be finite and >= 0 (%g m)",
                       c->lens_radius);
    if (c->lens_radius > 0 && (!(c->focus_distance > 0) || !isfinite(c->focus_distance)))
        return pw_fail(err, PW_EINVAL, "camera: focus distance must be finite and > 0 with a "
                       "lens (%g m)", c->focus_distance);
    f = v3_normalize(f);
    vec3 r = v3_cross(f, c->up);
    if (!(v3_length(r) > 1e-9 * v3_length(c->up)) || !(v3_length(c->up) > 0))
        return pw_fail(err, PW_EINVAL, "camera: up (%g, %g, %g) is zero or parallel to the "
                       "view direction", c->up.x, c->up.y, c->up.z);
    r = v3_normalize(r);
    cam->eye = c->eye;
    cam->forward = f;
    cam->right = r;
    cam->up = v3_cross(r, f);
    cam->tan_half_fov = tan(0.5 * c->fov_deg * PW_PI / 180.0);
    cam->width_px = c->width_px;
    cam->height_px = c->height_px;
    cam->aspect = (double)c->width_px / (double)c->height_px;
    cam->lens_radius = c->lens_radius;
    cam->focus_distance = c->focus_distance;
    return PW_OK;
}

vec3 pw_camera_ray(const pw_camera *cam, double px, double py)
{
    double sx = (2.0 * px / cam->width_px - 1.0) * cam->tan_half_fov * cam->aspect;
    double sy = (1.0 - 2.0 * py / cam->height_px) * cam->tan_half_fov;
    vec3 d = v3_madd(v3_madd(cam->forward, cam->right, sx), cam->up, sy);
    return v3_normalize(d);
}

vec3 pw_camera_lens_ray(const pw_camera *cam, double px, double py, double u1, double u2,
                        vec3 *origin)
{
    if (!(cam->lens_radius > 0)) {
        *origin = cam->eye;
        return pw_camera_ray(cam, px, py);
    }
    double sx = (2.0 * px / cam->width_px - 1.0) * cam->tan_half_fov * cam->aspect;
    double sy = (1.0 - 2.0 * py / cam->height_px) * cam->tan_half_fov;
    /* the pinhole ray, scaled to reach the plane in focus (its forward component is 1) */
    vec3 d = v3_madd(v3_madd(cam->forward, cam->right, sx), cam->up, sy);
    vec3 focus = v3_madd(cam->eye, d, cam->focus_distance);
    double lx, ly;
    pw_sample_disk(u1, u2, &lx, &ly);
    *origin = v3_madd(v3_madd(cam->eye, cam->right, cam->lens_radius * lx), cam->up,
                      cam->lens_radius * ly);
    return v3_normalize(v3_sub(focus, *origin));
}

/* Row-vector product a b of 4x4 row-major matrices. */
static void m44_mul(const double a[16], const double b[16], double out[16])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[4 * i + k] * b[4 * k + j];
            out[4 * i + j] = s;
        }
}

pw_status pw_camera_matrices(const pw_camera_desc *c, float world_to_camera[16],
                             float world_to_ndc[16], pw_error *err)
{
    pw_camera cam;
    if (pw_camera_init(&cam, c, err) != PW_OK) return err ? err->code : PW_EINVAL;
    /* p_cam = (p - eye) [right up forward]: column j holds the j-th camera axis */
    vec3 ax[3] = {cam.right, cam.up, cam.forward};
    double cam_from_world[16] = {0};
    for (int j = 0; j < 3; j++) {
        cam_from_world[0 * 4 + j] = ax[j].x;
        cam_from_world[1 * 4 + j] = ax[j].y;
        cam_from_world[2 * 4 + j] = ax[j].z;
        cam_from_world[3 * 4 + j] = -v3_dot(cam.eye, ax[j]);
    }
    cam_from_world[15] = 1.0;
    /* perspective: X = x sx + z/2, Y = -y sy + z/2, Z = 1, W = z, so that X/W, Y/W run over
     * [0, 1] left to right and top to bottom */
    double sx = 0.5 / (cam.tan_half_fov * cam.aspect), sy = 0.5 / cam.tan_half_fov;
    double ndc_from_cam[16] = {sx, 0, 0, 0, 0, -sy, 0, 0, 0.5, 0.5, 0, 1, 0, 0, 1, 0};
    double ndc_from_world[16];
    m44_mul(cam_from_world, ndc_from_cam, ndc_from_world);
    for (int i = 0; i < 16; i++) {
        world_to_camera[i] = (float)cam_from_world[i];
        world_to_ndc[i] = (float)ndc_from_world[i];
    }
    return PW_OK;
}
