/* camera_rig.h — the shot's camera over time: keyframed eye, target, up and field of
 * view, a thin lens given by f-number or aperture radius, and the shutter whose instants
 * the renderer blurs over (scenes/FORMAT.md, "render.camera"). */
#ifndef PW_CAMERA_RIG_H
#define PW_CAMERA_RIG_H

#include "pw_math.h"
#include "pw_render.h"

#define PW_CAMERA_MAX_KEYS 64

/* One key: the camera at time t [s] (the scene's static values where the key is silent). */
typedef struct {
    double t;
    vec3 eye, target, up;
    double fov_deg;
} pw_camera_key;

typedef struct {
    int n_keys;                         /* 0 = the static camera */
    pw_camera_key keys[PW_CAMERA_MAX_KEYS]; /* strictly increasing t */
    double f_number;                    /* > 0: lens radius = focal length / (2 N) */
    double aperture_radius;             /* [m] used when f_number is 0; 0 = pinhole */
    double sensor_height;               /* [m] the film's height, for the focal length */
    double focus_distance;              /* [m] along the view axis; 0 = |target - eye| */
    double shutter_open, shutter_close; /* [frames] relative to the frame's time;
                                           close <= open: no motion blur */
    int shutter_samples;                /* instants over the shutter (1..PW_MAX_INSTANTS) */
} pw_camera_rig;

/* The camera at time t [s]: base's image size, eye/target/up/fov from the keys (a
 * Catmull-Rom spline through them over their times, each key's value exactly at its
 * time, held before the first and after the last) or from base when there are none,
 * and the lens resolved for that fov and distance. */
void pw_camera_rig_at(const pw_camera_rig *rig, const pw_camera_desc *base, double t,
                      pw_camera_desc *out);

/* The instants [s] a frame at time t_frame is rendered at: the midpoints of
 * shutter_samples equal parts of the shutter, or t_frame alone when the shutter is off.
 * Returns their count (<= PW_MAX_INSTANTS). */
int pw_camera_rig_instants(const pw_camera_rig *rig, double t_frame, double fps,
                           double times[PW_MAX_INSTANTS]);

#endif
