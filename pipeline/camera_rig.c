/* camera_rig.c — keyframed camera, lens and shutter instants; see camera_rig.h. */
#include "camera_rig.h"

#include <math.h>

/* Cubic Hermite on [t0, t1] with Catmull-Rom tangents from the neighbouring keys (one-
 * sided at the ends), for uneven key times: the tangent at key k is the slope of the
 * chord from key k - 1 to key k + 1. */
static double spline(const double *t, const double *v, int n, int k, double time)
{
    double dt = t[k + 1] - t[k], s = (time - t[k]) / dt;
    double m0 = k > 0 ? (v[k + 1] - v[k - 1]) / (t[k + 1] - t[k - 1]) : (v[k + 1] - v[k]) / dt;
    double m1 = k + 2 < n ? (v[k + 2] - v[k]) / (t[k + 2] - t[k]) : (v[k + 1] - v[k]) / dt;
    double s2 = s * s, s3 = s2 * s;
    double h01 = 3 * s2 - 2 * s3, h10 = s3 - 2 * s2 + s, h11 = s3 - s2;
    return v[k] + h01 * (v[k + 1] - v[k]) + dt * (h10 * m0 + h11 * m1);
}

/* The 10 animated numbers of key k: eye, target, up, fov. */
static void key_values(const pw_camera_key *key, double out[10])
{
    const vec3 *vs[3] = {&key->eye, &key->target, &key->up};
    for (int j = 0; j < 3; j++) {
        out[3 * j + 0] = vs[j]->x;
        out[3 * j + 1] = vs[j]->y;
        out[3 * j + 2] = vs[j]->z;
    }
    out[9] = key->fov_deg;
}

void pw_camera_rig_at(const pw_camera_rig *rig, const pw_camera_desc *base, double t,
                      pw_camera_desc *out)
{
    *out = *base;
    int n = rig->n_keys;
    if (n > 0) {
        double vals[10];
        int k = 0;
        while (k + 1 < n && rig->keys[k + 1].t <= t) k++;
        if (t <= rig->keys[0].t || k == n - 1 || t == rig->keys[k].t) {
            /* held outside the keys, and each key's own values exactly at its time */
            key_values(&rig->keys[t <= rig->keys[0].t ? 0 : k], vals);
        } else {
            double times[PW_CAMERA_MAX_KEYS], v[PW_CAMERA_MAX_KEYS];
            for (int j = 0; j < n; j++) times[j] = rig->keys[j].t;
            for (int c = 0; c < 10; c++) {
                for (int j = 0; j < n; j++) {
                    double kv[10];
                    key_values(&rig->keys[j], kv);
                    v[j] = kv[c];
                }
                vals[c] = spline(times, v, n, k, t);
            }
        }
        out->eye = v3(vals[0], vals[1], vals[2]);
        out->target = v3(vals[3], vals[4], vals[5]);
        out->up = v3(vals[6], vals[7], vals[8]);
        out->fov_deg = vals[9];
    }
    double focus = rig->focus_distance > 0 ? rig->focus_distance
                                           : v3_length(v3_sub(out->target, out->eye));
    double radius = rig->aperture_radius;
    if (rig->f_number > 0) {
        /* the focal length that gives this fov on the film: f = (height / 2) / tan(fov / 2) */
        double f = 0.5 * rig->sensor_height / tan(0.5 * out->fov_deg * (3.14159265358979323846 / 180.0));
        radius = f / (2 * rig->f_number);
    }
    out->lens_radius = radius;
    out->focus_distance = radius > 0 ? focus : 0;
}

int pw_camera_rig_instants(const pw_camera_rig *rig, double t_frame, double fps,
                           double times[PW_MAX_INSTANTS])
{
    int n = rig->shutter_samples;
    if (!(rig->shutter_close > rig->shutter_open) || n < 1) {
        times[0] = t_frame;
        return 1;
    }
    if (n > PW_MAX_INSTANTS) n = PW_MAX_INSTANTS;
    double len = rig->shutter_close - rig->shutter_open;
    for (int j = 0; j < n; j++)
        times[j] = t_frame + (rig->shutter_open + (j + 0.5) / n * len) / fps;
    return n;
}
