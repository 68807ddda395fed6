#!/usr/bin/env python3
"""Writes the snowplow scenes (Stomakhin et al. 2013, Fig. 10) and the blade.

A plow clears a lane of a snow-covered road: a curved blade (a moldboard, a closed solid)
set 40 degrees across the travel, driven along the road at a constant speed on `motion`
keys. The concave face lifts the snow it meets; at the plow's speed the snow rides up
the face and along it, and rolls over beside the lane ("the characteristic cylindrical
tube spray", Fig. 10). The road is long and wide against what the blade stirs, and the
shot runs as the paper's did, "on a translating grid": the active region rides on the
blade and freezes the snow that leaves it, and the road ahead sleeps (sim.rest), so a
frame costs the snow near the blade, not the road (sim/docs/snowplow-road.md).

usage: tools/snowplow_scene.py preview|paper [key=value ...] > scene.json
       tools/snowplow_scene.py blade > scenes/props/plow_blade.obj
"""
import math
import sys

from scene_presets import write_scene

PRESETS = {
    # preview: minutes on 2 cores
    "preview": dict(name="snowplow", h=0.03, ppc=6, spp=48, blade="props/plow_blade.obj"),
    # Table 3: 3.9e6 particles (grid 150x50x300 in the paper, translating)
    # dt_max: the 0.8 m road at h 0.0104 diverged at 5e-4 s (frame 16, a particle at
    # 1,612 m/s) and ran at 2.5e-4 s; scaled with h
    "paper": dict(name="snowplow_paper", h=0.015, ppc=6, spp=64, dt_max=3.5e-4,
                  blade="../props/plow_blade.obj",
                  dt_max_reason="dt_max 3.5e-4 s, kept from before the step's elastic bound "
                  "and retakes: the 0.8 m road at h 0.0104 diverged at 5e-4 s (frame 16, a "
                  "particle at 1,612 m/s) and ran at 2.5e-4 s, scaled here with h; the shot "
                  "has not been rerun at the default since (docs/shots/snowplow.md)."),
}

DEFAULTS = dict(
    road_length=9.0,     # [m] the snow along x, centred at 0
    road_width=2.4,      # [m] the snow across, z in [-w/2, w/2]: the blade clears a
                         # quarter of it and throws onto the rest, as a plow on a road
    depth=0.1,           # [m] the snow's depth
    speed=8.0,           # [m/s] the plow's: a truck's; slower, the blade drives a heap
    start=-4.8,          # [m] the blade's centre at t = 0 (the road starts at -4.5)
    lane=0.1,            # [m] the blade's centre across the road (z)
    angle_deg=40.0,      # the blade's angle across the travel
    end_frame=26,
    # fresh snow that packs before it pushes on (sim/docs/snowplow-road.md)
    # fresh snow that packs little before it flows (sim/docs/snowplow-road.md): soft,
    # hardly hardening, with Powder's compaction limit standing in for the hardening
    E0=2.0e4, theta_c=0.025, theta_s=0.0075, rho0=200.0, xi=1.0,
    rho_max=500.0,       # [kg/m^3] compaction limit (0: none, as in the 2013 model)
    ground_friction=0.8, blade_friction=0.2,
    # the active region, riding on the blade: from region_behind behind its centre to
    # region_ahead ahead, across the whole road, and freezing what leaves it (the
    # paper's translating grid): 2.5 m behind, the thrown snow has landed
    region_behind=2.5, region_ahead=0.8, freeze=1,
    dt_max=5e-4,         # [s] the largest substep (the paper's)
    comment="",
    dt_max_reason="",    # said in the comment when dt_max is not the default
)

# the blade: a circular arc of radius R swept along its length (local z), concave side
# forward (+x), a closed solid `thickness` thick behind the face; the arc runs from 30
# degrees below the horizontal through the centre's level to 30 degrees above it, so the
# face rises from a scoop at the ground to a lip that leans forward over the snow
BLADE = dict(radius=0.1, length=0.8, arc_from=30.0, arc_to=150.0, segments=24, strips=16,
             thickness=0.012)


def blade_obj():
    """The blade as a closed solid: the arc swept along z, `thickness` thick behind its
    face (outward normals, so every solver since rigid OBJ colliders reads it)."""
    R, L, t = BLADE["radius"], BLADE["length"], BLADE["thickness"]
    a0, a1, n, m = BLADE["arc_from"], BLADE["arc_to"], BLADE["segments"], BLADE["strips"]
    lift = R * (1 - math.cos(math.radians(a0)))  # the face's lowest point sits on y = 0
    out = ["# snowplow blade (moldboard), written by tools/snowplow_scene.py blade",
           "# face radius %.3f m, length %.3f m, arc %g-%g deg, %.3f m thick"
           % (R, L, a0, a1, t)]
    for r in (R, R + t):             # face, then back
        for j in range(m + 1):
            z = -L / 2 + L * j / m
            for i in range(n + 1):
                phi = math.radians(a0 + (a1 - a0) * i / n)
                x = -r * math.sin(phi) + 0.75 * R
                y = R - r * math.cos(phi) - lift
                out.append("v %.6f %.6f %.6f" % (x, y, z))

    def face(j, i):
        return j * (n + 1) + i + 1

    def back(j, i):
        return (m + 1) * (n + 1) + face(j, i)

    tris = []
    for j in range(m):
        for i in range(n):
            tris += [(face(j, i), face(j, i + 1), face(j + 1, i)),
                     (face(j, i + 1), face(j + 1, i + 1), face(j + 1, i)),
                     (back(j, i), back(j + 1, i), back(j, i + 1)),
                     (back(j, i + 1), back(j + 1, i), back(j + 1, i + 1))]
    for i in range(n):               # the two ends
        tris += [(face(0, i), back(0, i), face(0, i + 1)),
                 (face(0, i + 1), back(0, i), back(0, i + 1)),
                 (face(m, i), face(m, i + 1), back(m, i)),
                 (face(m, i + 1), back(m, i + 1), back(m, i))]
    for j in range(m):               # the bottom and top edges
        tris += [(face(j, 0), face(j + 1, 0), back(j, 0)),
                 (back(j, 0), face(j + 1, 0), back(j + 1, 0)),
                 (face(j, n), back(j, n), face(j + 1, n)),
                 (back(j, n), back(j + 1, n), face(j + 1, n))]
    out += ["f %d %d %d" % tri for tri in tris]
    return "\n".join(out) + "\n"


def r6(v):
    return [round(a, 6) for a in v] if isinstance(v, list) else round(v, 6)


def build(p):
    L, W, d, h = p["road_length"], p["road_width"], p["depth"], p["h"]
    T = p["end_frame"] / 24.0
    x0, x1 = p["start"], p["start"] + p["speed"] * T
    rot = {"axis": [0, 1, 0], "angle_deg": p["angle_deg"]}
    ground = {"type": "halfspace", "center": [0, 0, 0], "normal": [0, 1, 0]}
    n_est = L * W * d / h ** 3 * p["ppc"]
    blade = {"type": "mesh", "path": p["blade"], "rotation": rot,
             "motion": [{"t": 0.0, "translation": r6([x0, 0.0, p["lane"]])},
                        {"t": r6(T), "translation": r6([x1, 0.0, p["lane"]])}]}
    rb, ra = p["region_behind"], p["region_ahead"]
    region_z = (-W / 2 - 0.2 - p["lane"], W / 2 + 0.2 - p["lane"])  # in the blade's frame
    comment = p["comment"] or (
        "Snowplow (Stomakhin et al. 2013, Fig. 10): a curved blade set %g deg across the "
        "road clears a lane of %g m deep snow at %g m/s; the snow it throws rises along the "
        "blade and curls over. About %d particles. The road sleeps (sim.rest) and the active "
        "region rides on the blade, the paper's translating grid. Written by "
        "tools/snowplow_scene.py." % (p["angle_deg"], d, p["speed"], n_est))
    if p["dt_max_reason"]:
        comment += " " + p["dt_max_reason"]
    scene = {
        "name": p["name"],
        "comment": comment,
        "frames": {"start": 0, "end": p["end_frame"], "fps": 24},
        "sim": {
            "h": h,
            "dt_max": p["dt_max"],
            "domain": {"min": r6([-L / 2 - 0.7, -0.05, -W / 2 - 0.6]),
                       "max": r6([L / 2 + 0.3, 0.7, W / 2 + 0.2])},
            "max_particles": 1e7,
            "materials": {"snow": {"E0": p["E0"], "theta_c": p["theta_c"],
                                   "theta_s": p["theta_s"], "rho0": p["rho0"], "xi": p["xi"],
                                   **({"rho_max": p["rho_max"]} if p["rho_max"] > 0 else {})}},
            "bodies": [{"material": "snow", "particles_per_cell": p["ppc"], "seed": 9,
                        "shapes": [{"type": "box", "center": [0, r6(d / 2), 0],
                                    "half_extents": r6([L / 2, d / 2, W / 2])}]}],
            "colliders": [
                {"shape": ground, "friction": p["ground_friction"]},
                {"shape": blade, "friction": p["blade_friction"]},
            ],
            "rest": {"speed": 0.02, "sleep_steps": 50, "wake_speed": 0.1},
            "active_region": {"follow_collider": 1,
                              "freeze_outside": bool(p["freeze"]),
                              "shape": {"type": "box",
                                        "center": r6([(ra - rb) / 2, 0.35, sum(region_z) / 2]),
                                        "half_extents": r6([(ra + rb) / 2, 0.4,
                                                            (region_z[1] - region_z[0]) / 2])}},
        },
        "render": {
            "camera": {"eye": [2.6, 1.1, 0.9], "target": [0.0, 0.1, -0.15], "fov_deg": 40},
            "resolution": [640, 360],
            "spp": p["spp"],
            "png_exposure": -5.4,
            "lights": {"daylight": {"sun_elevation_deg": 35.0, "sun_azimuth_deg": 131.6,
                                    "turbidity": 3}},
            "surfaces": [{"shape": ground, "size": 6, "color": [0.35, 0.33, 0.3]}],
            "collider_color": [0.7, 0.3, 0.15],
        },
    }
    return scene


def main():
    if sys.argv[1:] == ["blade"]:
        sys.stdout.write(blade_obj())
        return
    write_scene(__doc__, PRESETS, DEFAULTS, build)


if __name__ == "__main__":
    main()
