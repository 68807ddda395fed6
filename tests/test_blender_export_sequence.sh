#!/usr/bin/env bash
# Property: tools/blender_export_sequence.py, run in the Blender users have (Debian 12's
# 3.4), writes an animated object as the OBJ sequence the deforming mesh colliders read
# where Blender shows it, in Powder's Y-up coordinates:
#   1. a cube (vertices at +-1) with keyframed location (frame 1: 0, frame 11: (1, 2, 3),
#      linear) and a shape key lifting its top face by 0.5 (value 0 -> 1, linear), and a
#      Bevel-free, Triangulate-free quad mesh: at frames 1, 6 and 11 every written vertex
#      equals Blender's (x, y, z) + location, the top lifted by 0.5 x value, turned to
#      (x, z, -y) and scaled by --scale 2, to 1e-5 m (6 decimals are printed);
#   2. the faces are 12 triangles, the same f lines in every frame, and the volume they
#      enclose is positive and equal to 8 x (1 + 0.25 x value) x 2^3 (outward faces
#      survive the Z-up to Y-up turn: a mirror would make it negative);
#   3. an Armature modifier: a cube bound to one bone turned 90 degrees about Blender's
#      Z by frame 11 is written turned by 90 degrees about Powder's Y, vertex by vertex
#      (Blender (x, y, z) -> (-y, x, z), so written (X, Y, Z) -> (Z, Y, -X)), to 1e-5 m:
#      rig deformation is evaluated;
#   4. a Build modifier (faces appear over time) fails the export: exit 1, one line naming
#      the frame, nothing written; so do an unknown object, an object named twice and a
#      pattern without '#';
#   5. a cube whose top corner (+x, -y) slides across the top face's diagonal by frame 11
#      (the top quad turns concave, so Blender splits it the other way from frame 7 on):
#      exported, with the same f lines in frames 1, 6 and 11 (the first frame's split)
#      and the moved corner where Blender has it, to 1e-5 m;
#   6. several objects (a rig in parts): --object Cube --object Rigged writes one file per
#      frame holding Cube's vertices then Rigged's, exactly the lines of their exports
#      alone, Rigged's faces shifted by Cube's 8 vertices; the summary names both;
#   7. the summary ends with the scene's "sequence" with Blender's frame rate as "fps" (a
#      29.97 fps scene: fps 30 / fps_base 1.001, which Blender keeps in single precision:
#      29.970028...).
# SKIPPED (exit 77) when blender is not installed.
#
# usage: bash test_blender_export_sequence.sh <powder binary> <source dir> <scratch dir>
set -u
src=$(readlink -f "$2")
scratch=$3/blender_export_sequence
skip() { echo "SKIPPED: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
command -v blender >/dev/null || skip "blender is not installed (apt-get install blender)"
command -v python3 >/dev/null || skip "python3 is not installed"
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || die "scratch $scratch"

# the scene: Cube (location + shape key), Rigged (armature), Growing (Build modifier),
# Dented (a corner sliding across the top face's diagonal); 29.97 fps
cat >make_scene.py <<'PY'
import math
import os
import bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 11
scene.render.fps, scene.render.fps_base = 30, 1.001

def linear(action):
    for fc in action.fcurves:
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'

bpy.ops.mesh.primitive_cube_add(size=2, location=(0, 0, 0))
cube = bpy.context.active_object
cube.name = "Cube"
cube.keyframe_insert("location", frame=1)
cube.location = (1, 2, 3)
cube.keyframe_insert("location", frame=11)
linear(cube.animation_data.action)
cube.shape_key_add(name="Basis")
lift = cube.shape_key_add(name="Lift")
for v in lift.data:
    if v.co.z > 0:
        v.co.z += 0.5
lift.value = 0
lift.keyframe_insert("value", frame=1)
lift.value = 1
lift.keyframe_insert("value", frame=11)
linear(cube.data.shape_keys.animation_data.action)

bpy.ops.mesh.primitive_cube_add(size=2, location=(0, 0, 0))
rigged = bpy.context.active_object
rigged.name = "Rigged"
group = rigged.vertex_groups.new(name="Bone")
group.add(list(range(len(rigged.data.vertices))), 1.0, 'REPLACE')
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode='EDIT')
bone = arm_data.edit_bones.new("Bone")
bone.head, bone.tail = (0, 0, 0), (0, 0, 1)
bpy.ops.object.mode_set(mode='POSE')
pb = arm.pose.bones["Bone"]
pb.rotation_mode = 'XYZ'
pb.rotation_euler = (0, 0, 0)
pb.keyframe_insert("rotation_euler", frame=1)
pb.rotation_euler = (0, math.pi / 2, 0)  # the bone's Y is Blender's Z here
pb.keyframe_insert("rotation_euler", frame=11)
bpy.ops.object.mode_set(mode='OBJECT')
mod = rigged.modifiers.new("Armature", 'ARMATURE')
mod.object = arm

bpy.ops.mesh.primitive_cube_add(size=2, location=(5, 0, 0))
growing = bpy.context.active_object
growing.name = "Growing"
build = growing.modifiers.new("Build", 'BUILD')
build.frame_start, build.frame_duration = 1, 10

bpy.ops.mesh.primitive_cube_add(size=2, location=(0, 0, 0))
dented = bpy.context.active_object
dented.name = "Dented"
dented.shape_key_add(name="Basis")
dent = dented.shape_key_add(name="Dent")
for v in dent.data:
    if v.co.x > 0 and v.co.y < 0 and v.co.z > 0:
        v.co.x, v.co.y = -0.5, 0.5
dent.value = 0
dent.keyframe_insert("value", frame=1)
dent.value = 1
dent.keyframe_insert("value", frame=11)
linear(dented.data.shape_keys.animation_data.action)
bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath("scene.blend"))
PY
blender -b --factory-startup --python-exit-code 1 --python make_scene.py >make.log 2>&1 \
    || { tail -20 make.log; die "could not build the test scene"; }

export_seq() { # object pattern [extra...]
    local obj=$1 out=$2; shift 2
    blender -b scene.blend --python-exit-code 1 --python "$src/tools/blender_export_sequence.py" \
        -- --object "$obj" --out "$out" "$@"
}
export_seq Cube 'cube/cube.####.obj' --frames 1 11 --scale 2 >cube.log 2>&1 \
    || { cat cube.log; die "export of Cube failed"; }
grep -q "blender_export_sequence.py: Cube: frames 1-11, 8 vertices, 12 triangles" cube.log \
    || { cat cube.log; die "no summary line"; }
export_seq Rigged 'rig/rig.##.obj' --frames 1 11 >rig.log 2>&1 \
    || { cat rig.log; die "export of Rigged failed"; }
# 5. a quad Blender splits differently as it turns concave
export_seq Dented 'dent/dent.####.obj' --frames 1 11 >dent.log 2>&1 \
    || { cat dent.log; die "5. export of Dented failed"; }
for f in 0006 0011; do
    cmp -s <(grep '^f ' dent/dent.0001.obj) <(grep '^f ' dent/dent.$f.obj) \
        || die "5. frame $f's faces differ from frame 1's"
done
# 6. several objects in one file; 7. the frame rate
export_seq Cube 'cube1/cube.####.obj' --frames 1 11 >cube1.log 2>&1 \
    || { cat cube1.log; die "export of Cube at scale 1 failed"; }
blender -b scene.blend --python-exit-code 1 --python "$src/tools/blender_export_sequence.py" \
    -- --object Cube --object Rigged --out 'both/both.####.obj' --frames 1 11 >both.log 2>&1 \
    || { cat both.log; die "6. export of Cube and Rigged failed"; }
grep -q "blender_export_sequence.py: Cube, Rigged: frames 1-11, 16 vertices, 24 triangles" \
    both.log || { cat both.log; die "6. no summary line naming both objects"; }
for f in 01 06 11; do
    both=both/both.00$f.obj cube=cube1/cube.00$f.obj rig=rig/rig.$f.obj
    cmp -s <(grep '^v ' "$both") <(grep -h '^v ' "$cube" "$rig") \
        || die "6. frame $f: the vertices are not Cube's then Rigged's"
    cmp -s <(grep '^f ' "$both") <(grep '^f ' "$cube"; grep '^f ' "$rig" |
        awk '{print "f", $2 + 8, $3 + 8, $4 + 8}') \
        || die "6. frame $f: the faces are not Cube's then Rigged's shifted by 8"
    [ "$(grep -c '^o ' "$both")" = 2 ] || die "6. frame $f: not one 'o' group per object"
done
grep -qE '"sequence": \{"first": 1, "last": 11, "fps": 29\.970028[0-9]*\}$' both.log \
    || { cat both.log; die "7. no line giving the sequence with the scene's fps"; }
grep -F '"sequence"' both.log

python3 - <<'PY' || die "vertex positions"
import itertools, sys
def read(path):
    V, F = [], []
    for line in open(path):
        t = line.split()
        if t and t[0] == 'v': V.append(tuple(map(float, t[1:4])))
        if t and t[0] == 'f': F.append(tuple(int(x) - 1 for x in t[1:]))
    return V, F
def volume(V, F):
    s = 0
    for a, b, c in F:
        A, B, C = V[a], V[b], V[c]
        s += (A[0] * (B[1] * C[2] - B[2] * C[1]) - A[1] * (B[0] * C[2] - B[2] * C[0])
              + A[2] * (B[0] * C[1] - B[1] * C[0])) / 6
    return s
bad = 0
def near(got, want, what):
    global bad
    g, w = sorted(got), sorted(want)
    err = max(abs(a - b) for p, q in zip(g, w) for a, b in zip(p, q)) if len(g) == len(w) else 1e9
    print("%s: max error %.2g m" % (what, err))
    if err > 1e-5:
        bad += 1
        print("FAIL %s: got %s want %s" % (what, g, w))
faces0 = None
for f in (1, 6, 11):
    V, F = read("cube/cube.%04d.obj" % f)
    s = (f - 1) / 10.0
    loc = (1 * s, 2 * s, 3 * s)
    want = []
    for x, y, z in itertools.product((-1, 1), repeat=3):
        zz = z + (0.5 * s if z > 0 else 0)
        bx, by, bz = x + loc[0], y + loc[1], zz + loc[2]
        want.append((2 * bx, 2 * bz, -2 * by))
    near(V, want, "cube frame %d" % f)
    vol, want_vol = volume(V, F), 8 * (1 + 0.25 * s) * 8
    print("cube frame %d: %d triangles, volume %.6f (want %.6f)" % (f, len(F), vol, want_vol))
    if len(F) != 12 or abs(vol - want_vol) > 1e-4: bad += 1
    if faces0 is None: faces0 = F
    elif F != faces0:
        bad += 1; print("FAIL frame %d: faces differ" % f)
# 5. the dented cube: the moved corner where Blender has it, the first frame's faces
D1, G1 = read("dent/dent.0001.obj")
D11, G11 = read("dent/dent.0011.obj")
want = [(x, z, -y) for x, y, z in itertools.product((-1, 1), repeat=3)]
want11 = [(-0.5, 1, -0.5) if (X, Y, Z) == (1, 1, 1) else (X, Y, Z) for X, Y, Z in want]
near(D1, want, "dented cube frame 1")
near(D11, want11, "dented cube frame 11")
if G11 != G1 or len(G1) != 12:
    bad += 1
    print("FAIL dented cube: frame 11's %d faces differ from frame 1's %d" % (len(G11), len(G1)))
V1, F1 = read("rig/rig.01.obj")
want = [(x, z, -y) for x, y, z in itertools.product((-1, 1), repeat=3)]
near(V1, want, "rigged cube frame 1")
# vertex by vertex (a cube's corner set is the same turned by 90 degrees): Blender
# (x, y, z) -> (-y, x, z), i.e. Powder (X, Y, Z) -> (Z, Y, -X)
V11, F11 = read("rig/rig.11.obj")
err = max(abs(a - b) for p, q in zip(V11, V1) for a, b in zip(p, (q[2], q[1], -q[0])))
moved = max(abs(a - b) for p, q in zip(V11, V1) for a, b in zip(p, q))
print("rigged cube frame 11: max error %.2g m against the bone's turn (vertices moved up to %.3g m)"
      % (err, moved))
if err > 1e-5 or moved < 1 or volume(V11, F11) <= 0 or F11 != F1:
    bad += 1
    print("FAIL rigged cube frame 11")
sys.exit(1 if bad else 0)
PY

# 4. refusals: exit 1, one line naming the problem, nothing written
export_seq Growing 'grow/grow.####.obj' --frames 3 11 >grow.log 2>&1 && die "Build modifier accepted"
grep -q "^blender_export_sequence.py: frame [4-9]: object 'Growing' has .* frame 3 had" grow.log \
    || { cat grow.log; die "no message naming the frame"; }
[ -e grow ] && die "a refused export wrote files"
export_seq Nobody 'x/x.####.obj' >nobody.log 2>&1 && die "missing object accepted"
grep -q "no object named 'Nobody'" nobody.log || { cat nobody.log; die "missing object message"; }
blender -b scene.blend --python-exit-code 1 --python "$src/tools/blender_export_sequence.py" \
    -- --object Cube --object Cube --out 'x/x.####.obj' >twice.log 2>&1 \
    && die "an object named twice accepted"
grep -q "'Cube' is named twice" twice.log || { cat twice.log; die "object named twice message"; }
export_seq Cube 'x/x.obj' >nohash.log 2>&1 && die "pattern without # accepted"
grep -q "needs exactly one run of '#'" nohash.log || { cat nohash.log; die "pattern message"; }
[ -e x ] && die "a refused export wrote files"
echo "blender_export_sequence: all checks passed"
