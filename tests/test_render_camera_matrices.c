/* Property: the EXR camera matrices agree with the rays the tracer shoots. A point on
 * the ray through continuous pixel position (px, py), mapped by world_to_ndc (OpenEXR
 * row-vector convention, divided by w), lands at NDC (px / width, py / height), and
 * world_to_camera maps the eye to the origin and the target to (0, 0, |target - eye|)
 * in a left-handed frame (x right, y up, z forward). Tolerance 2e-5: the matrices are
 * float (2^-24 relative) and entries reach ~|eye| / tan(fov/2). Edge cases: degenerate
 * cameras are refused with a message naming the field. */
#include <math.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "pw_render.h"
#include "sampling.h"

static void row_mul(const float m[16], const double p[4], double out[4])
{
    for (int j = 0; j < 4; j++) {
        out[j] = 0;
        for (int k = 0; k < 4; k++) out[j] += p[k] * m[4 * k + j];
    }
}

int main(void)
{
    pw_camera_desc desc = {v3(1.5, 0.7, -2.0), v3(0.1, 0.2, 0.3), v3(0, 1, 0), 35.0, 640, 360, 0, 0};
    float w2c[16], w2n[16];
    pw_error err = {0};
    CHECK(pw_camera_matrices(&desc, w2c, w2n, &err) == PW_OK, "matrices: %s", err.msg);
    pw_camera cam;
    CHECK(pw_camera_init(&cam, &desc, &err) == PW_OK, "init: %s", err.msg);

    /* 1. eye and target in camera space */
    double e[4] = {desc.eye.x, desc.eye.y, desc.eye.z, 1}, t[4] = {desc.target.x, desc.target.y,
                                                                  desc.target.z, 1}, q[4];
    row_mul(w2c, e, q);
    CHECK(fabs(q[0]) + fabs(q[1]) + fabs(q[2]) < 2e-5, "eye -> (%g, %g, %g)", q[0], q[1], q[2]);
    row_mul(w2c, t, q);
    double dist = v3_length(v3_sub(desc.target, desc.eye));
    CHECK(fabs(q[0]) < 2e-5 && fabs(q[1]) < 2e-5 && fabs(q[2] - dist) < 2e-5,
          "target -> (%g, %g, %g), expected (0, 0, %g)", q[0], q[1], q[2], dist);
    /* 2. up is +y: a point above the target has camera y > 0 */
    double above[4] = {desc.target.x, desc.target.y + 0.5, desc.target.z, 1};
    row_mul(w2c, above, q);
    CHECK(q[1] > 0, "a point above the target has camera y %g", q[1]);

    /* 3. rays through pixel positions land at the matching NDC */
    pw_rng rng = pw_rng_seed(1, 2, 3);
    double worst = 0;
    for (int k = 0; k < 1000; k++) {
        double px = 640 * pw_rng_next(&rng), py = 360 * pw_rng_next(&rng);
        double s = 0.5 + 10 * pw_rng_next(&rng);
        vec3 d = pw_camera_ray(&cam, px, py), p = v3_madd(desc.eye, d, s);
        double ph[4] = {p.x, p.y, p.z, 1}, n[4];
        row_mul(w2n, ph, n);
        double err_x = fabs(n[0] / n[3] - px / 640), err_y = fabs(n[1] / n[3] - py / 360);
        if (err_x > worst) worst = err_x;
        if (err_y > worst) worst = err_y;
    }
    CHECK(worst <= 2e-5, "NDC of ray points off by %.3g", worst);
    printf("3. worst NDC error %.3g over 1000 rays\n", worst);

    /* 4. degenerate cameras */
    pw_camera_desc bad = desc;
    bad.target = bad.eye;
    CHECK(pw_camera_matrices(&bad, w2c, w2n, &err) == PW_EINVAL, "4.1 eye == target accepted");
    printf("4.1 %s\n", err.msg);
    bad = desc;
    bad.up = v3_sub(desc.target, desc.eye);
    CHECK(pw_camera_matrices(&bad, w2c, w2n, &err) == PW_EINVAL, "4.2 up parallel accepted");
    bad = desc;
    bad.fov_deg = 0;
    CHECK(pw_camera_matrices(&bad, w2c, w2n, &err) == PW_EINVAL, "4.3 fov 0 accepted");
    bad = desc;
    bad.width_px = 0;
    CHECK(pw_camera_matrices(&bad, w2c, w2n, &err) == PW_EINVAL, "4.4 width 0 accepted");
    bad = desc;
    bad.eye.x = NAN;
    CHECK(pw_camera_matrices(&bad, w2c, w2n, &err) == PW_EINVAL, "4.5 NaN eye accepted");
    return check_done("render_camera_matrices");
}
