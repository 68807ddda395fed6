"""Imports Powder's exports into Blender (3.4 as Debian 12 ships it, and 4.x).

    blender -b --factory-startup --python-exit-code 1 -P tools/blender_import.py -- \\
        --vdb 'out/shot/shot.####.vdb' --ply 'out/shot/shot.####.ply' --frames 0-24 \\
        [--scene shot.json] [--bounces 128] [--save shot.blend] [--report]

(--python-exit-code 1: without it Blender exits 0 after a Python traceback.)

What it does, each step a user would otherwise do by hand:
- Inputs first: every file the frame range names (each frame's .vdb and .ply, the
  scene) must exist, or the script exits 1 with one line naming the missing ones
  (Blender would otherwise show a missing .vdb frame as an empty frame, silently).
- VDB (`powder export vdb`): one volume object holding the numbered sequence, with its
  Start set so that Blender frame N shows Powder frame N (Blender plays a sequence from
  frame 1 by default: frame 8 would show file 0007), rotated +90 degrees about X
  (Powder is Y up, Blender Z up), and a Principled Volume material with Powder's
  medium: density factor sigma_t / rho_ref (724 / 400 = 1.81 per kg/m^3), colour = the
  single-scattering albedo (0.9, 0.95, 1.0), anisotropy = the HG g (0.5); read from
  the scene's render.medium with --scene. Cycles with --bounces volume bounces (128:
  Blender's default of 0 renders packed snow dark grey). The saved .blend refers to
  the .vdb files relative to itself (//out/shot/shot.0000.vdb for a .blend beside
  out/), computed by Blender's save from the absolute path the script imports.
- Cycles denoising is turned off when this Blender's Cycles has no OpenImageDenoise
  (Debian 12's 3.4 has none, and its renders stop with "Build without
  OpenImageDenoiser"); where it has it, denoising stays as Blender sets it.
- PLY (`powder export ply`): one point mesh per frame, shown only on its own frame,
  same rotation. The file is read here (Powder's binary little-endian PLY: x y z vx vy
  vz density jp, and durability for snow that has one, as float32), because Blender
  3.4's importer (bpy.ops.import_mesh.ply) drops the extra properties; vx, vy, vz,
  density, jp and durability become point attributes.
- --report prints, per frame, the file each object shows and its bounding box back in
  Powder's coordinates (Y up), as lines the test parses (the volume's from a Volume to
  Mesh surface at density 1e-6 kg/m^3, i.e. around every active voxel):
      frame N vdb FILE min x y z max x y z      (Powder coordinates)
      frame N ply FILE min x y z max x y z
"""
import json
import math
import os
import re
import struct
import sys

import bpy
from mathutils import Matrix, Vector


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    opt = {"vdb": None, "ply": None, "frames": None, "scene": None, "bounces": 128,
           "save": None, "report": False}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--report":
            opt["report"] = True
            i += 1
            continue
        if a not in ("--vdb", "--ply", "--frames", "--scene", "--bounces", "--save") or \
                i + 1 >= len(args):
            sys.exit("blender_import.py: unknown or incomplete option %r" % a)
        opt[a[2:]] = args[i + 1]
        i += 2
    if not opt["frames"] or not (opt["vdb"] or opt["ply"]):
        sys.exit("blender_import.py: needs --frames A-B and --vdb and/or --ply patterns")
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", opt["frames"])
    if not m:
        sys.exit("blender_import.py: --frames must be N or A-B, not %r" % opt["frames"])
    opt["first"] = int(m.group(1))
    opt["last"] = int(m.group(2) or m.group(1))
    opt["bounces"] = int(opt["bounces"])
    return opt


def missing_inputs(opt):
    """The files the options name that do not exist, in frame order."""
    want = [opt["scene"]] if opt["scene"] else []
    for f in range(opt["first"], opt["last"] + 1):
        want += [frame_path(opt[k], f) for k in ("vdb", "ply") if opt[k]]
    return [p for p in want if not os.path.isfile(p)]


def frame_path(pattern, frame):
    """Powder's #### patterns: the run of '#' is the zero-padded frame number."""
    m = re.search(r"#+", pattern)
    if not m:
        sys.exit("blender_import.py: pattern %r has no run of '#'" % pattern)
    return pattern[:m.start()] + str(frame).zfill(len(m.group(0))) + pattern[m.end():]


# Powder (Y up) to Blender (Z up): +90 degrees about X maps (x, y, z) to (x, -z, y).
Y_UP_TO_Z_UP = Matrix.Rotation(math.radians(90), 4, "X")


def medium(scene_path):
    """sigma_t / rho_ref, albedo and g from the scene (Powder's defaults without one)."""
    m = {"sigma_t": 724.0, "rho_ref": 400.0, "albedo": [0.9, 0.95, 1.0], "g": 0.5}
    if scene_path:
        with open(scene_path) as f:
            m.update(json.load(f).get("render", {}).get("medium", {}))
    return m["sigma_t"] / m["rho_ref"], m["albedo"], m["g"]


def import_vdb(opt):
    # absolute here; the save (relative_remap) makes it relative to the .blend. A path
    # relative to the working directory would be made relative on save as if it
    # started at / (the .blend then pointed at //../../../out/...).
    first = os.path.abspath(frame_path(opt["vdb"], opt["first"]))
    files = [os.path.basename(frame_path(opt["vdb"], f))
             for f in range(opt["first"], opt["last"] + 1)]
    bpy.ops.object.volume_import(filepath=first, directory=os.path.dirname(first) + os.sep,
                                 files=[{"name": n} for n in files], relative_path=False)
    obj = bpy.context.selected_objects[0]
    vol = obj.data
    # Blender plays file (frame - Start + Offset + 1) of the sequence, counting files
    # from the first one's number: Start = first and Offset = first - 1 show file N on
    # frame N (the importer's Start 1, Offset -1 would show file N - 1).
    vol.is_sequence = len(files) > 1
    vol.frame_start = opt["first"]
    vol.frame_offset = opt["first"] - 1
    vol.frame_duration = len(files)
    vol.sequence_mode = "CLIP"
    obj.matrix_world = Y_UP_TO_Z_UP
    factor, albedo, g = medium(opt["scene"])
    mat = bpy.data.materials.new("powder_snow")
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    for n in list(nodes):
        nodes.remove(n)
    out = nodes.new("ShaderNodeOutputMaterial")
    pv = nodes.new("ShaderNodeVolumePrincipled")
    pv.inputs["Color"].default_value = (albedo[0], albedo[1], albedo[2], 1.0)
    pv.inputs["Density"].default_value = factor
    pv.inputs["Anisotropy"].default_value = g
    pv.inputs["Density Attribute"].default_value = "density"
    mat.node_tree.links.new(pv.outputs["Volume"], out.inputs["Volume"])
    vol.materials.append(mat)
    return obj


def read_powder_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.find(b"end_header\n")
    if end < 0:
        sys.exit("%s: no end_header" % path)
    header = data[:end].decode("ascii", "replace").splitlines()
    if "format binary_little_endian 1.0" not in header:
        sys.exit("%s: not a binary little-endian PLY" % path)
    count = next(int(l.split()[2]) for l in header if l.startswith("element vertex"))
    names = [l.split()[2] for l in header if l.startswith("property float")]
    body = data[end + len("end_header\n"):]
    stride = 4 * len(names)
    if len(body) < count * stride:
        sys.exit("%s: %d vertices announced, %d bytes of data" % (path, count, len(body)))
    values = struct.unpack("<%df" % (count * len(names)), body[:count * stride])
    columns = {n: values[k::len(names)] for k, n in enumerate(names)}
    return count, columns


def import_ply_frame(path, frame, first, last):
    count, col = read_powder_ply(path)
    mesh = bpy.data.meshes.new("powder_points.%04d" % frame)
    mesh.vertices.add(count)
    co = [0.0] * (3 * count)
    co[0::3], co[1::3], co[2::3] = col["x"], col["y"], col["z"]
    mesh.vertices.foreach_set("co", co)
    for name in ("vx", "vy", "vz", "density", "jp", "durability"):
        if name in col:
            mesh.attributes.new(name, "FLOAT", "POINT").data.foreach_set("value", col[name])
    mesh.update()
    obj = bpy.data.objects.new("powder_points.%04d" % frame, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.matrix_world = Y_UP_TO_Z_UP
    # shown on its own frame only
    for f, hidden in ((frame - 1, True), (frame, False), (frame + 1, True)):
        if first <= f <= last or f == frame:
            obj.hide_render = obj.hide_viewport = hidden
            obj.keyframe_insert("hide_render", frame=f)
            obj.keyframe_insert("hide_viewport", frame=f)
    return obj


def world_bounds(obj):
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    lo = [min(c[k] for c in corners) for k in range(3)]
    hi = [max(c[k] for c in corners) for k in range(3)]
    return lo, hi


def volume_bounds(vol_obj, threshold):
    """Bounds of the voxels above threshold. A volume's own bound_box is that of its
    8^3 leaf nodes, up to 7 voxels too wide, so a Volume to Mesh surface at the grid's
    resolution measures it instead."""
    me = bpy.data.meshes.new("powder_bounds")
    probe = bpy.data.objects.new("powder_bounds", me)
    bpy.context.scene.collection.objects.link(probe)
    probe.matrix_world = vol_obj.matrix_world
    mod = probe.modifiers.new("bounds", "VOLUME_TO_MESH")
    mod.object = vol_obj
    mod.threshold = threshold
    mod.resolution_mode = "GRID"
    evaluated = probe.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    pts = [probe.matrix_world @ v.co for v in mesh.vertices]
    evaluated.to_mesh_clear()
    bpy.data.objects.remove(probe)
    bpy.data.meshes.remove(me)
    if not pts:
        return [0.0] * 3, [0.0] * 3
    return ([min(p[k] for p in pts) for k in range(3)],
            [max(p[k] for p in pts) for k in range(3)])


def to_powder(lo, hi):
    """Blender (x, y, z) back to Powder (x, z, -y): a box's corners, re-sorted."""
    a = (lo[0], lo[2], -lo[1])
    b = (hi[0], hi[2], -hi[1])
    return [min(a[k], b[k]) for k in range(3)], [max(a[k], b[k]) for k in range(3)]


def fmt(v):
    return " ".join("%.6f" % x for x in v)


def cycles_has_oidn():
    """Whether this Blender's Cycles was built with OpenImageDenoise (its CPU denoiser).
    _cycles is Cycles' own module (3.x and 4.x); when it cannot tell, assume it has."""
    try:
        import _cycles
    except ImportError:
        return True
    return bool(getattr(_cycles, "with_openimagedenoise", True))


def main():
    opt = parse_args(sys.argv)
    missing = missing_inputs(opt)
    if missing:
        shown = ", ".join(missing[:8]) + (" and %d more" % (len(missing) - 8)
                                          if len(missing) > 8 else "")
        sys.exit("blender_import.py: missing input file%s: %s"
                 % ("s" if len(missing) > 1 else "", shown))
    scene = bpy.context.scene
    for obj in list(scene.objects):  # the factory startup's cube, camera and light stay
        if obj.type == "MESH" and obj.name == "Cube":
            bpy.data.objects.remove(obj)
    scene.frame_start, scene.frame_end = opt["first"], opt["last"]
    scene.render.engine = "CYCLES"
    scene.cycles.volume_bounces = opt["bounces"]
    scene.cycles.max_bounces = max(scene.cycles.max_bounces, opt["bounces"])
    if scene.cycles.use_denoising and not cycles_has_oidn():
        scene.cycles.use_denoising = False
        print("blender_import.py: this Blender's Cycles has no OpenImageDenoise: "
              "render denoising turned off")
    fps = None
    if opt["scene"]:
        with open(opt["scene"]) as f:
            fps = json.load(f).get("frames", {}).get("fps")
    if fps:
        scene.render.fps = int(round(fps))
    vdb = import_vdb(opt) if opt["vdb"] else None
    plys = {}
    if opt["ply"]:
        for f in range(opt["first"], opt["last"] + 1):
            plys[f] = import_ply_frame(frame_path(opt["ply"], f), f, opt["first"], opt["last"])
    if opt["report"]:
        for f in range(opt["first"], opt["last"] + 1):
            scene.frame_set(f)
            if vdb:
                grids = vdb.data.grids
                grids.load()
                lo, hi = to_powder(*volume_bounds(vdb, 1e-6))
                print("frame %d vdb %s min %s max %s" % (f, os.path.basename(grids.frame_filepath),
                                                          fmt(lo), fmt(hi)))
                if len(grids):
                    # index -> Powder space: a pure scale by the voxel size means voxel
                    # (i, j, k) sits at (i h, j h, k h), as Powder wrote it
                    g = grids[0].matrix_object
                    print("frame %d grid %s voxel %s offset %s" % (
                        f, grids[0].name, fmt([g[k][k] for k in range(3)]),
                        fmt([g[k][3] for k in range(3)])))
            if f in plys:
                obj = plys[f]
                lo, hi = to_powder(*world_bounds(obj))
                shown = [o.name for o in plys.values() if not o.hide_render]
                print("frame %d ply %s min %s max %s shown %s" % (f, obj.name, fmt(lo), fmt(hi),
                                                                  ",".join(shown)))
    if opt["save"]:
        # relative_remap (the default): paths become relative to the .blend
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(opt["save"]), relative_remap=True)


main()
