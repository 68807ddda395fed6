#!/usr/bin/env python3
"""Writes the rolling snowball scenes (Stomakhin et al. 2013, Fig. 1).

The ball is a snow sphere around a rigid, sticky core that rolls down a snowy hill on
`motion` keys: its centre runs parallel to the hill at a fixed height and accelerates
uniformly (s = v0 t + a t^2 / 2; the ball's snow starts with the core's motion), and it turns about the axis n x u (n the hill's
normal, u the direction down the slope) by angle = distance / rolling radius, so the
ball's initial snow surface rolls without slipping. The keys are exact samples of that
motion; between keys the solver interpolates translation linearly and rotation by slerp
(each key step stays far below 180 degrees). Why keys and not gravity:
sim/docs/rolling-snowball.md.

usage: tools/rolling_snowball_scene.py preview|paper|test [key=value ...] > scene.json
"""
import math
import sys

from scene_presets import write_scene

# Said in the scene's comment, beside the key it explains.
DT_MAX_REASON = ("dt_max 1e-3 s, twice the default: the slow roll stays under the step's "
                 "elastic bound with it, and the longer steps halve the steps a frame for 15-38 "
                 "solve iterations a step instead of 8-17 (at paper scale 5e-4 s made a frame "
                 "1.127x as long: sim/docs/cr-at-paper-scale.md).")

PRESETS = {
    # preview: minutes on 2 cores
    "preview": dict(name="rolling_snowball", h=0.0125, ppc=8, field_half_width=0.1,
                    field_length=0.9, end_frame=29,
                    comment="Rolling snowball (Stomakhin et al. 2013, Fig. 1): a snowball "
                    "around a sticky core rolled down a 20 deg hill by motion keys packs the "
                    "fresh snow it presses and grows (powder stats --gathered 1). 45021 "
                    "particles. Measured 218 CPU-s for 29 frames on 1 thread (7.5 a frame; AMD "
                    "EPYC, the other core busy); rendering about 90 s a frame at 640x360, "
                    "32 spp (2 threads). Written by tools/rolling_snowball_scene.py."),
    # Table 3: 7.2e6 particles (grid 200x240x470 in the paper)
    # resting snow waking at 0.03 m/s: the preview's gathered mass within 0.9 % of the
    # awake run's (sim/docs/rolling-snowball.md)
    "paper": dict(name="rolling_snowball", h=0.003, ppc=8, field_half_width=0.25,
                  field_length=0.9, end_frame=29, rest=1, rest_wake=0.03, settled=1,
                  comment="Rolling snowball (Stomakhin et al. 2013, Fig. 1) at Table 3's count "
                  "(7.2e6): 7256476 particles, h 0.003 m, grid 351x219x233, the field seeded "
                  "settled and resting (waking at 0.03 m/s). Its runs: "
                  "docs/shots/rolling-snowball.md. Written by tools/rolling_snowball_scene.py."),
    # the test's: coarse and narrow
    "test": dict(name="roll", h=0.015, ppc=8, field_half_width=0.08,
                 field_length=0.9, end_frame=29),
}

DEFAULTS = dict(
    slope_deg=20.0,        # the hill's tilt
    field_depth=0.05,      # [m] the snow layer on the hill
    core_radius=0.06,      # [m] the rigid core
    ball_radius=0.09,      # [m] the snowball's initial snow
    sink=0.025,            # [m] how deep the ball's snow reaches into the field
    start=-0.3,            # [m] ball centre along the slope at t = 0 (field centred at 0)
    roll=0.55,             # [m] distance rolled: the ball ends 0.2 m short of the field's end
    duration=1.25,         # [s] time to roll it (uniform acceleration from v0)
    dt_max=1e-3,           # [s] largest substep (why: DT_MAX_REASON)
    v0=0.3,                # [m/s] speed at t = 0: the ball was rolling already
    keys=40,               # motion keys over the roll
    rise=0.0,              # [m] the centre's rise above the hill over the roll
    field_rho0=250.0, field_E0=4.8e4, ball_rho0=400.0, ball_E0=5.6e5,
    theta_s=7.5e-3, theta_c=2.5e-2, xi=10.0,  # the field's (Table 2)
    ball_theta_s=0.05, ball_theta_c=0.05,  # the ball's: packed, stronger snow
    rho_max=600.0,         # [kg/m^3] compaction limit of both snows
    hill_friction=1.0,
    hill_sticky=0,         # 1: the field's base is frozen to the hill
    rest=0,                # 1: resting snow sleeps (sim.rest, the shipped snowplow's values);
                           # off in the shipped scenes: sim/docs/rolling-snowball.md
    rest_wake=0.1,         # [m/s] sim.rest.wake_speed when rest=1
    settled=0,             # 1: the field is seeded settled under its weight, asleep at once
    comment="",            # the scene's comment; empty: the particle estimate
)


def rot_z(v, ang):
    c, s = math.cos(ang), math.sin(ang)
    return [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]]


def v_add(a, b):
    return [x + y for x, y in zip(a, b)]


def r6(v):
    return [round(a, 6) for a in v] if isinstance(v, list) else round(v, 6)


def build(p):
    alpha = math.radians(p["slope_deg"])
    n = [math.sin(alpha), math.cos(alpha), 0.0]        # hill normal
    u = [math.cos(alpha), -math.sin(alpha), 0.0]       # down the slope
    d, half_w, L = p["field_depth"], p["field_half_width"], p["field_length"]

    def at(s, q):  # point s along the slope, q above the hill (z = 0)
        return [s * u[0] + q * n[0], s * u[1] + q * n[1], 0.0]

    height = p["ball_radius"] + (d - p["sink"])   # centre above the hill
    r_roll = p["ball_radius"]
    T, roll = p["duration"], p["roll"]
    v0 = p["v0"]
    a = 2 * (roll - v0 * T) / (T * T)
    motion = []
    # one key before t = 0, so the core already moves at frame 0 as the ball's snow does
    for k in range(-1, p["keys"] + 1):
        t = T * k / p["keys"]
        s = v0 * t + 0.5 * a * t * t
        c = at(p["start"] + s, height + p["rise"] * s / roll)
        # rolling down +u about n x u = -z: a negative angle about +z
        motion.append({"t": r6(t), "translation": r6(c), "axis": [0, 0, 1],
                       "angle_deg": r6(-math.degrees(s / r_roll))})
    ball_c = at(p["start"], height)

    # domain: the field and the ball's path with a margin, boxed in world axes
    pts = []
    for s in (-L / 2 - 0.05, L / 2 + 0.05, p["start"] - 0.15, p["start"] + roll + 0.15):
        for q in (-0.02, height + 0.2):
            pts.append(at(s, q))
    lo = [min(q[i] for q in pts) for i in range(2)]
    hi = [max(q[i] for q in pts) for i in range(2)]
    domain = {"min": r6([lo[0], lo[1], -half_w - 0.1]), "max": r6([hi[0], hi[1], half_w + 0.1])}

    tilt = {"axis": [0, 0, 1], "angle_deg": r6(-p["slope_deg"])}
    hill = {"type": "halfspace", "center": [0, 0, 0], "normal": r6(n)}
    field = {"type": "box", "center": r6(at(0, d / 2)), "half_extents": r6([L / 2, d / 2, half_w]),
             "rotation": tilt}
    ball = {"type": "sphere", "center": r6(ball_c), "radius": p["ball_radius"]}
    core = {"type": "sphere", "center": r6(ball_c), "radius": p["core_radius"]}
    n_field = 2 * L / 2 * d * 2 * half_w / p["h"] ** 3 * p["ppc"]
    n_ball = 4 / 3 * math.pi * (p["ball_radius"] ** 3 - p["core_radius"] ** 3) / p["h"] ** 3 * p["ppc"]
    frames = p["end_frame"]
    scene = {
        "name": p["name"],
        "comment": (p["comment"] or ("Rolling snowball (Stomakhin et al. 2013, Fig. 1): about %d "
                                     "particles (field %d, ball %d)." % (n_field + n_ball, n_field,
                                                                         n_ball)))
                   + (" " + DT_MAX_REASON if p["dt_max"] == 1e-3 else ""),
        "frames": {"start": 0, "end": frames, "fps": 24},
        "sim": {
            "h": p["h"],
            "dt_max": p["dt_max"],
            "domain": domain,
            "max_particles": 1e7,
            **({"rest": {"speed": 0.02, "sleep_steps": 50, "wake_speed": p["rest_wake"]}}
               if p["rest"] else {}),
            "materials": {
                "fresh": {"rho0": p["field_rho0"], "E0": p["field_E0"], "rho_max": p["rho_max"],
                          "theta_c": p["theta_c"], "theta_s": p["theta_s"], "xi": p["xi"]},
                "packed": {"rho0": p["ball_rho0"], "E0": p["ball_E0"], "rho_max": p["rho_max"],
                           "theta_c": p["ball_theta_c"], "theta_s": p["ball_theta_s"],
                           "xi": p["xi"]},
            },
            "bodies": [
                {"material": "packed", "particles_per_cell": p["ppc"], "seed": 1,
                 "shapes": [ball], "subtract": [dict(core)],
                 "velocity": r6([v0 * u[0], v0 * u[1], 0.0]),
                 "angular_velocity": [0, 0, r6(-v0 / r_roll)]},
                {"material": "fresh", "particles_per_cell": p["ppc"], "seed": 2,
                 "shapes": [field], "subtract": [dict(ball)],
                 **({"settled": True} if p["settled"] else {})},
            ],
            "colliders": [
                {"shape": hill, "friction": p["hill_friction"], "sticky": bool(p["hill_sticky"])},
                {"shape": {"type": "sphere", "center": [0, 0, 0], "radius": p["core_radius"],
                           "motion": motion}, "sticky": True},
            ],
        },
        "render": {
            "camera": {"eye": r6(v_add(at(0.3, 0.3), [0, 0, 0.85])), "target": r6(at(0.0, 0.06)),
                       "fov_deg": 40},
            "resolution": [640, 360],
            "spp": 32,
            "medium": {"grain_radius_um": 500},
            "lights": {"daylight": {"sun_elevation_deg": 35, "sun_azimuth_deg": 60,
                                    "turbidity": 3, "intensity": 0.03}},
            "surfaces": [{"shape": hill, "size": 1.2, "color": [0.3, 0.28, 0.25]}],
            "collider_color": [0.45, 0.3, 0.2],
        },
    }
    return scene


def main():
    write_scene(__doc__, PRESETS, DEFAULTS, build)


if __name__ == "__main__":
    main()
