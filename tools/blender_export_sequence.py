"""Exports an animated Blender object as an OBJ sequence for Powder's deforming mesh
colliders (issue 38): one file per frame, the same vertices and triangles in every file,
only the positions moving. Runs in Blender 3.4 (what Debian 12 ships) and 4.x.

    blender -b shot.blend --python-exit-code 1 --python tools/blender_export_sequence.py -- \\
        --object Character --out 'assets/walk/walk.####.obj' [--frames 1 48] [--scale 0.01]

(--python-exit-code 1: without it Blender exits 0 after a Python traceback.)

- The object is evaluated at each frame as Blender shows it: modifiers, armature
  deformation, shape keys, constraints, parenting and its own animation (the depsgraph's
  evaluated mesh), in world coordinates.
- Blender is Z up, Powder Y up: a point (x, y, z) is written as (x, z, -y), the inverse
  of the +90 degree turn about X that tools/blender_import.py applies; a proper rotation,
  so faces keep their winding (outward stays outward). --scale multiplies after that
  (0.01 for a rig built in centimetres).
- Faces are written as triangles (Blender's own triangulation of each polygon).
- '#' run in --out: the frame number, zero-padded to the run's length. Default frames:
  the scene's frame range.
- Topology must stay constant: every frame must have the first frame's vertex count and
  the very same triangles. A modifier that changes them (Remesh, Decimate, Build, a
  geometry-nodes setup that adds points...) fails the export with one line naming the
  frame; nothing is written, exit 1. All frames are evaluated before any is written.
- Open edges (edges not shared by exactly two triangles) are counted and reported as a
  warning: Powder's colliders need closed components.
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
    opt = {"object": None, "out": None, "frames": None, "scale": 1.0}
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


def evaluate(obj, frame, scale):
    """World positions (Powder's Y up) and triangles of the object at a frame."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    try:
        mesh.calc_loop_triangles()
        m = ev.matrix_world
        verts = []
        for v in mesh.vertices:
            w = m @ v.co
            verts.append((w.x * scale, w.z * scale, -w.y * scale))
        tris = [tuple(t.vertices) for t in mesh.loop_triangles]
    finally:
        ev.to_mesh_clear()
    return verts, tris


def open_edges(tris):
    count = {}
    for t in tris:
        for i in range(3):
            a, b = t[i], t[(i + 1) % 3]
            key = (a, b) if a < b else (b, a)
            count[key] = count.get(key, 0) + 1
    return sum(1 for c in count.values() if c != 2)


def write_obj(path, name, frame, verts, tris):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("# %s, Blender frame %d, exported by blender_export_sequence.py (Y up)\n"
                % (name, frame))
        f.write("o %s\n" % re.sub(r"\s", "_", name))
        for x, y, z in verts:
            f.write("v %.6f %.6f %.6f\n" % (x + 0.0, y + 0.0, z + 0.0))
        for a, b, c in tris:
            f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))
    os.replace(tmp, path)


def main():
    opt = parse_args(sys.argv)
    obj = bpy.data.objects.get(opt["object"])
    if obj is None:
        names = ", ".join(sorted(o.name for o in bpy.data.objects))
        fail("--object: no object named %r in this file (objects: %s)" % (opt["object"], names))
    if obj.type not in ("MESH", "CURVE", "SURFACE", "META", "FONT"):
        fail("--object: %r is a %s, not something with a surface" % (obj.name, obj.type))
    scene = bpy.context.scene
    first, last = opt["frames"] or (scene.frame_start, scene.frame_end)
    if last < first:
        fail("--frames: last frame %d is before the first %d" % (last, first))

    frames = []
    for f in range(first, last + 1):
        verts, tris = evaluate(obj, f, opt["scale"])
        if not tris:
            fail("frame %d: object %r has no faces" % (f, obj.name))
        if frames:
            v0, t0 = frames[0][1], frames[0][2]
            if len(verts) != len(v0) or len(tris) != len(t0):
                fail("frame %d: object %r has %d vertices and %d triangles, frame %d had %d and "
                     "%d; a deforming collider needs the same mesh every frame (a modifier such "
                     "as Remesh, Decimate or Build changes it)"
                     % (f, obj.name, len(verts), len(tris), first, len(v0), len(t0)))
            if tris != t0:
                k = next(i for i in range(len(tris)) if tris[i] != t0[i])
                fail("frame %d: object %r's triangle %d is %s, frame %d had %s; a deforming "
                     "collider needs the same faces every frame"
                     % (f, obj.name, k + 1, tris[k], first, t0[k]))
        bad = [i for i, p in enumerate(verts) for c in p if c != c or abs(c) > 1e7]
        if bad:
            fail("frame %d: vertex %d has a non-finite or huge coordinate" % (f, bad[0] + 1))
        frames.append((f, verts, tris))

    os.makedirs(os.path.dirname(os.path.abspath(frame_path(opt["out"], first))), exist_ok=True)
    for f, verts, tris in frames:
        write_obj(frame_path(opt["out"], f), obj.name, f, verts, tris)
    n_open = open_edges(frames[0][2])
    if n_open:
        print("blender_export_sequence.py: warning: %d edges of %r are open (not shared by "
              "exactly two triangles); Powder's colliders need closed components"
              % (n_open, obj.name))
    print("blender_export_sequence.py: %s: frames %d-%d, %d vertices, %d triangles -> %s"
          % (obj.name, first, last, len(frames[0][1]), len(frames[0][2]), opt["out"]))


main()
