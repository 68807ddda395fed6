"""Exports animated Blender objects as an OBJ sequence for Powder's deforming mesh
colliders: one file per frame, the same vertices and triangles in every file, only the
positions moving. Runs in Blender 3.4 (what Debian 12 ships) and 4.x.

    blender -b shot.blend --python-exit-code 1 --python tools/blender_export_sequence.py -- \\
        --object Character [--object Pick ...] --out 'assets/walk/walk.####.obj' \\
        [--frames 1 48] [--scale 0.01]

(--python-exit-code 1: without it Blender exits 0 after a Python traceback.)

- Each object is evaluated at each frame as Blender shows it: modifiers, armature
  deformation, shape keys, constraints, parenting and its own animation (the depsgraph's
  evaluated mesh), in world coordinates. Several --object options (a rig in parts: body,
  limbs, a tool) are written into one file each frame, in the order given, one OBJ 'o'
  group per object; Powder's collider is the union of the parts, which may overlap.
- Blender is Z up, Powder Y up: a point (x, y, z) is written as (x, z, -y), the inverse
  of the +90 degree turn about X that tools/blender_import.py applies; a proper rotation,
  so faces keep their winding (outward stays outward). --scale multiplies after that
  (0.01 for a rig built in centimetres).
- Faces are written as triangles: the first frame's triangulation of each polygon
  (Blender's own), reused in every frame. Blender triangulates n-gons and bent or concave
  quads from the current positions, so its split may change from frame to frame; the
  polygons are what must stay the same.
- '#' run in --out: the frame number, zero-padded to the run's length. Default frames:
  the scene's frame range.
- Topology must stay constant: every frame must have the first frame's vertex count and
  the very same polygons (vertex loops). A modifier that changes them (Remesh, Decimate, Build, a
  geometry-nodes setup that adds points...) fails the export with one line naming the
  frame; nothing is written, exit 1. All frames are evaluated before any is written.
- Open edges (edges not shared by exactly two triangles) are counted and reported as a
  warning: Powder's colliders need closed components.
- The last line is the scene's "sequence" object for these files, with the Blender
  scene's frame rate (render fps / fps_base) as its "fps".
"""
import os
import re
import sys

import bpy


def fail(msg):
    sys.stderr.write("blender_export_sequence.py: %s\n" % msg)
    sys.stderr.flush()
    sys.exit(1)


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    opt = {"object": [], "out": None, "frames": None, "scale": 1.0}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--frames":
            if i + 2 >= len(args):
                fail("--frames needs two numbers: first and last frame")
            try:
                opt["frames"] = (int(args[i + 1]), int(args[i + 2]))
            except ValueError:
                fail("--frames: %r %r are not whole numbers" % (args[i + 1], args[i + 2]))
            i += 3
            continue
        if a not in ("--object", "--out", "--scale") or i + 1 >= len(args):
            fail("unknown or incomplete option %r" % a)
        if a == "--object":
            opt["object"].append(args[i + 1])
        else:
            opt[a[2:]] = args[i + 1]
        i += 2
    if not opt["object"] or not opt["out"]:
        fail("needs --object NAME and --out 'dir/name.####.obj'")
    try:
        opt["scale"] = float(opt["scale"])
    except ValueError:
        fail("--scale: %r is not a number" % opt["scale"])
    if not (opt["scale"] > 0 and opt["scale"] < 1e6):
        fail("--scale: %r must be positive" % opt["scale"])
    runs = re.findall(r"#+", opt["out"])
    if len(runs) != 1:
        fail("--out: %r needs exactly one run of '#' for the frame number" % opt["out"])
    return opt


def frame_path(pattern, frame):
    run = re.search(r"#+", pattern)
    return pattern[:run.start()] + str(frame).zfill(len(run.group(0))) + pattern[run.end():]


def evaluate(objs, frame, scale):
    """Per object at a frame: world positions (Powder's Y up), polygons (vertex loops)
    and Blender's triangulation of them at this frame."""
    bpy.context.scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    parts = []
    for obj in objs:
        ev = obj.evaluated_get(depsgraph)
        mesh = ev.to_mesh()
        try:
            mesh.calc_loop_triangles()
            m = ev.matrix_world
            verts = []
            for v in mesh.vertices:
                w = m @ v.co
                verts.append((w.x * scale, w.z * scale, -w.y * scale))
            polys = [tuple(p.vertices) for p in mesh.polygons]
            tris = [tuple(t.vertices) for t in mesh.loop_triangles]
        finally:
            ev.to_mesh_clear()
        parts.append((verts, polys, tris))
    return parts


def open_edges(tris):
    count = {}
    for t in tris:
        for i in range(3):
            a, b = t[i], t[(i + 1) % 3]
            key = (a, b) if a < b else (b, a)
            count[key] = count.get(key, 0) + 1
    return sum(1 for c in count.values() if c != 2)


def write_obj(path, names, frame, parts, tris):
    """parts: each object's positions; tris: each object's triangles (its own indices)."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("# %s, Blender frame %d, exported by blender_export_sequence.py (Y up)\n"
                % (", ".join(names), frame))
        base = 1  # OBJ indices count from 1 across the whole file
        for name, verts, obj_tris in zip(names, parts, tris):
            f.write("o %s\n" % re.sub(r"\s", "_", name))
            for x, y, z in verts:
                f.write("v %.6f %.6f %.6f\n" % (x + 0.0, y + 0.0, z + 0.0))
            for a, b, c in obj_tris:
                f.write("f %d %d %d\n" % (a + base, b + base, c + base))
            base += len(verts)
    os.replace(tmp, path)


def main():
    opt = parse_args(sys.argv)
    objs = []
    for name in opt["object"]:
        obj = bpy.data.objects.get(name)
        if obj is None:
            names = ", ".join(sorted(o.name for o in bpy.data.objects))
            fail("--object: no object named %r in this file (objects: %s)" % (name, names))
        if obj.type not in ("MESH", "CURVE", "SURFACE", "META", "FONT"):
            fail("--object: %r is a %s, not something with a surface" % (obj.name, obj.type))
        if obj in objs:
            fail("--object: %r is named twice" % obj.name)
        objs.append(obj)
    scene = bpy.context.scene
    first, last = opt["frames"] or (scene.frame_start, scene.frame_end)
    if last < first:
        fail("--frames: last frame %d is before the first %d" % (last, first))

    frames = []  # (frame, [positions per object])
    tris0 = None  # the first frame's triangles per object, written in every frame
    for f in range(first, last + 1):
        parts = evaluate(objs, f, opt["scale"])
        if tris0 is None:
            tris0 = [tris for _, _, tris in parts]
            polys0 = [polys for _, polys, _ in parts]
            counts0 = [len(verts) for verts, _, _ in parts]
        for obj, (verts, polys, tris), n0, p0 in zip(objs, parts, counts0, polys0):
            if not tris:
                fail("frame %d: object %r has no faces" % (f, obj.name))
            if len(verts) != n0 or len(polys) != len(p0):
                fail("frame %d: object %r has %d vertices and %d polygons, frame %d had %d and "
                     "%d; a deforming collider needs the same mesh every frame (a modifier such "
                     "as Remesh, Decimate or Build changes it)"
                     % (f, obj.name, len(verts), len(polys), first, n0, len(p0)))
            if polys != p0:
                k = next(i for i in range(len(polys)) if polys[i] != p0[i])
                fail("frame %d: object %r's polygon %d has the vertices %s, frame %d had %s; a "
                     "deforming collider needs the same faces every frame"
                     % (f, obj.name, k + 1, polys[k], first, p0[k]))
            bad = [i for i, p in enumerate(verts) for c in p if c != c or abs(c) > 1e7]
            if bad:
                fail("frame %d: object %r's vertex %d has a non-finite or huge coordinate"
                     % (f, obj.name, bad[0] + 1))
        frames.append((f, [verts for verts, _, _ in parts]))

    names = [o.name for o in objs]
    os.makedirs(os.path.dirname(os.path.abspath(frame_path(opt["out"], first))), exist_ok=True)
    for f, parts in frames:
        write_obj(frame_path(opt["out"], f), names, f, parts, tris0)
    n_verts = sum(counts0)
    n_tris = sum(len(t) for t in tris0)
    for obj, tris in zip(objs, tris0):
        n_open = open_edges(tris)
        if n_open:
            print("blender_export_sequence.py: warning: %d edges of %r are open (not shared by "
                  "exactly two triangles); Powder's colliders need closed components"
                  % (n_open, obj.name))
    print("blender_export_sequence.py: %s: frames %d-%d, %d vertices, %d triangles -> %s"
          % (", ".join(names), first, last, n_verts, n_tris, opt["out"]))
    fps = scene.render.fps / scene.render.fps_base
    print('blender_export_sequence.py: the scene\'s frame rate is %.10g fps; in Powder\'s '
          'scene: "sequence": {"first": %d, "last": %d, "fps": %.10g}' % (fps, first, last, fps))


main()
