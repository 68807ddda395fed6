/* camera.h — pinhole look-at camera of stage 3 (internal to render/). */
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
} pw_camera;

/* Builds the camera frame; PW_EINVAL names the bad field (size, fov, eye == target,
 * up parallel to the view direction, non-finite values). */
pw_status pw_camera_init(pw_camera *cam, const pw_camera_desc *desc, pw_error *err);

/* Unit direction of the ray through continuous pixel position (px, py), measured from
 * the top-left corner of the image in pixels (pixel centres at +0.5). */
vec3 pw_camera_ray(const pw_camera *cam, double px, double py);

#endif
