/* camera.h — look-at camera of stage 3, pinhole or thin lens (internal to render/). */
#ifndef PW_CAMERA_H
#define PW_CAMERA_H

#include "pw_error.h"
#include "pw_math.h"
#include "pw_render.h"

typedef struct {
    vec3 eye;                 /* [m] */
    vec3 forward, right, up;  /* orthonormal, left-handed screen frame (x right, y up) */
    double tan_half_fov;      /* tan(vertical fov / 2) */
    double aspect;            /* width / height */
    int width_px, height_px;
    double lens_radius;       /* [m] 0 = pinhole */
    double focus_distance;    /* [m] along forward */
} pw_camera;

/* Builds the camera frame; PW_EINVAL names the bad field (size, fov, eye == target,
 * up parallel to the view direction, non-finite values). */
pw_status pw_camera_init(pw_camera *cam, const pw_camera_desc *desc, pw_error *err);

/* Unit direction of the ray through continuous pixel position (px, py), measured from
 * the top-left corner of the image in pixels (pixel centres at +0.5). */
vec3 pw_camera_ray(const pw_camera *cam, double px, double py);

/* The ray of a thin lens through pixel position (px, py) and lens sample (u1, u2) in
 * [0, 1)^2: it starts at a point of the lens disk (*origin) and passes through the
 * point the pinhole ray meets on the plane in focus, so that plane is sharp and a point
 * at depth z blurs over a disk of radius lens_radius |1/z - 1/focus_distance| in units
 * of the image plane at distance 1. With lens_radius 0: the pinhole ray from the eye. */
vec3 pw_camera_lens_ray(const pw_camera *cam, double px, double py, double u1, double u2,
                        vec3 *origin);

#endif
