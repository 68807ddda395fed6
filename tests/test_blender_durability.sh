#!/usr/bin/env bash
# Property: the durability of snow of the optional laws reaches Blender (Debian 12's 3.4)
# through tools/blender_import.py as pipeline/docs/exports.md says. A snowball of
# Drucker-Prager snow (durability_rate 20) dropped on the ground, frames 0-2, exported
# as PLY and VDB and imported:
#   1. frame 1's point object has a point attribute "durability" holding exactly the
#      PLY file's durability property, vertex by vertex, and the snow is damaged in
#      part there (its smallest value below 0.5, its largest 1);
#   2. frame 1's volume, once loaded, holds the grids "density" and "durability".
# SKIPPED (exit 77) when blender is not installed.
#
# usage: bash test_blender_durability.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
scratch=$3/blender_durability
skip() { echo "SKIPPED: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
command -v blender >/dev/null || skip "blender is not installed (apt-get install blender)"
. "$src/tests/check.sh"

rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || die "scratch $scratch"
cp "$src/tests/data/scenes/durable_snowball_drop.json" dur.json || die "no durable_snowball_drop.json"
"$powder" sim dur.json --output out --threads 1 --quiet || die "powder sim failed"
"$powder" export ply dur.json --output out --quiet || die "powder export ply failed"
vdb=(--vdb 'out/dur.####.vdb')
"$powder" export vdb dur.json --output out --threads 1 --quiet 2>vdb.err || {
    grep -q "no OpenVDB support" vdb.err || die "powder export vdb failed: $(cat vdb.err)"
    vdb=()
}
timeout 300 blender -b --factory-startup --python-exit-code 1 -P "$src/tools/blender_import.py" \
    -- "${vdb[@]}" --ply 'out/dur.####.ply' --frames 0-2 --scene dur.json --save dur.blend \
    >import.log 2>&1 || die "blender_import.py failed: $(tail -n 20 import.log)"

cat >inspect.py <<'EOF'
import bpy, struct
mesh = bpy.data.objects["powder_points.0001"].data
attr = mesh.attributes.get("durability")
n = len(mesh.vertices)
got = [0.0] * n
if attr:
    attr.data.foreach_get("value", got)
data = open("out/dur.0001.ply", "rb").read()
end = data.find(b"end_header\n") + len(b"end_header\n")
stride = 4 * data[:end].count(b"property float")
want = [struct.unpack_from("<f", data, end + stride * i + stride - 4)[0] for i in range(n)]
print("RESULT attribute %d equal %d min %.6g max %.6g" %
      (attr is not None, got == want, min(got), max(got)))
bpy.context.scene.frame_set(1)
for obj in bpy.data.objects:
    if obj.type == "VOLUME":
        obj.data.grids.load()
        print("RESULT grids " + " ".join(g.name for g in obj.data.grids))
EOF
timeout 300 blender -b dur.blend --python-exit-code 1 -P inspect.py >inspect.log 2>&1 ||
    die "inspecting dur.blend failed: $(tail -n 20 inspect.log)"
grep RESULT inspect.log
check "1: the points carry the PLY's durability" grep -q "RESULT attribute 1 equal 1 " inspect.log
check "1: the snow is damaged in part" awk '/RESULT attribute/ { exit !($7 < 0.5 && $9 == 1) }' inspect.log
if [ ${#vdb[@]} -gt 0 ]; then
    check "2: the volume holds the durability grid" grep -q "RESULT grids density durability$" inspect.log
else
    echo "2: built without OpenVDB: SKIPPED"
fi
check_done
