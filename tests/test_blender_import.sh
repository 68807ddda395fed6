#!/usr/bin/env bash
# Property: tools/blender_import.py brings Powder's exports into the Blender users have
# (Debian 12's 3.4) where Powder put them, frame for frame (issues 17.3 and 18):
#   1. Blender frame N shows Powder's file N, for the volume sequence and the points;
#   2. the points' bounding box, back in Powder's Y-up coordinates, equals the particle
#      bounds `powder stats` reports, to 1e-5 m (float32);
#   3. the volume grid maps voxel (i, j, k) to (i h, j h, k h): voxel size h = sim.h /
#      subdiv and no offset; and the volume's extent (a Volume to Mesh surface around
#      every active voxel) lies within 2 voxels of the active-voxel box vdb_print
#      reports (the marching-cubes surface reaches half a voxel past the last active
#      centre on one side and 1.5 on the other), when vdb_print is installed;
#   4. the point attributes vx vy vz density jp arrive (Blender 3.4's own PLY importer
#      drops them; the script reads the file itself).
# SKIPPED (exit 77) when blender is not installed.
#
# usage: bash test_blender_import.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$2
scratch=$3/blender_import
skip() { echo "SKIPPED: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
command -v blender >/dev/null || skip "blender is not installed (apt-get install blender)"

rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || die "scratch $scratch"
cat >tiny.json <<'EOF'
{
  "name": "tiny",
  "frames": {"start": 0, "end": 4, "fps": 24},
  "sim": {
    "h": 0.02,
    "domain": {"min": [-0.3, -0.1, -0.3], "max": [0.3, 0.5, 0.3]},
    "materials": {"snow": {}},
    "bodies": [{"material": "snow", "particles_per_cell": 8, "seed": 1,
                "shapes": [{"type": "sphere", "center": [0.05, 0.12, -0.03], "radius": 0.06}],
                "velocity": [0.5, -1.5, 0]}],
    "colliders": [{"shape": {"type": "halfspace", "center": [0, 0, 0], "normal": [0, 1, 0]},
                   "friction": 0.5}]
  },
  "render": {"camera": {"eye": [0, 0.15, 0.6], "target": [0, 0.08, 0]},
             "resolution": [48, 27], "spp": 4, "lights": {"sky": {"radiance": [1, 1, 1]}}}
}
EOF
"$powder" sim tiny.json --output o --quiet || die "powder sim failed"
"$powder" export ply tiny.json --output o --quiet || die "powder export ply failed"
have_vdb=1
"$powder" export vdb tiny.json --output o --quiet 2>vdb.err || {
    grep -q "no OpenVDB support" vdb.err || die "powder export vdb failed: $(cat vdb.err)"
    have_vdb=0
}
vdb_args=()
[ $have_vdb = 1 ] && vdb_args=(--vdb 'o/tiny.####.vdb')
timeout 600 blender -b --factory-startup -P "$src/tools/blender_import.py" -- \
    "${vdb_args[@]}" --ply 'o/tiny.####.ply' --frames 0-4 --scene tiny.json --report \
    --save tiny.blend >blender.log 2>&1 || die "blender failed: $(tail -n 20 blender.log)"
"$powder" stats tiny.json --output o --json >stats.jsonl || die "powder stats failed"

python3 - "$have_vdb" <<'EOF' || die "see above"
import json, re, subprocess, sys
have_vdb = sys.argv[1] == "1"
log = open("blender.log").read().splitlines()
stats = {j["frame"]: j for j in map(json.loads, open("stats.jsonl"))}
bad = 0
def fail(msg):
    global bad
    bad += 1
    print("FAIL:", msg)
vals = lambda s: [float(x) for x in s.split()]
seen = {"ply": set(), "vdb": set(), "grid": set()}
for line in log:
    m = re.match(r"frame (\d+) ply (\S+) min (.+) max (.+) shown (\S+)$", line)
    if m:
        f = int(m.group(1)); seen["ply"].add(f)
        if m.group(2) != "powder_points.%04d" % f or m.group(5) != m.group(2):
            fail("frame %d shows points %s (visible: %s)" % (f, m.group(2), m.group(5)))
        lo, hi = vals(m.group(3)), vals(m.group(4))
        want_lo, want_hi = stats[f]["bounds"]
        err = max(abs(a - b) for a, b in zip(lo + hi, want_lo + want_hi))
        print("frame %d points: bounds within %.2g m of powder stats" % (f, err))
        if err > 1e-5: fail("frame %d point bounds off by %g m" % (f, err))
        continue
    m = re.match(r"frame (\d+) vdb (\S*) min (.+) max (.+)$", line)
    if m:
        f = int(m.group(1)); seen["vdb"].add(f)
        if m.group(2) != "tiny.%04d.vdb" % f:
            fail("Blender frame %d shows %r, not tiny.%04d.vdb" % (f, m.group(2), f))
        lo, hi = vals(m.group(3)), vals(m.group(4))
        try:
            out = subprocess.run(["vdb_print", "-l", "o/tiny.%04d.vdb" % f],
                                 capture_output=True, text=True).stdout
        except FileNotFoundError:
            out = ""
        b = re.search(r"Bounding box of active voxels: \[(.+?)\] -> \[(.+?)\]", out)
        if b:
            h = 0.02 / 4
            ilo = [int(x) * h for x in b.group(1).split(",")]
            ihi = [int(x) * h for x in b.group(2).split(",")]
            err = max(abs(a - c) for a, c in zip(lo + hi, ilo + ihi)) / h
            print("frame %d volume: extent within %.2f voxels of vdb_print's active box" % (f, err))
            if err > 2.0 + 1e-6: fail("frame %d volume extent off by %.2f voxels" % (f, err))
        continue
    m = re.match(r"frame (\d+) grid density voxel (.+) offset (.+)$", line)
    if m:
        f = int(m.group(1)); seen["grid"].add(f)
        voxel, offset = vals(m.group(2)), vals(m.group(3))
        if max(abs(v - 0.005) for v in voxel) > 1e-9 or max(map(abs, offset)) > 1e-9:
            fail("frame %d grid transform: voxel %s offset %s" % (f, voxel, offset))
frames = set(range(5))
if seen["ply"] != frames: fail("point frames reported: %s" % sorted(seen["ply"]))
if have_vdb and (seen["vdb"] != frames or seen["grid"] != frames):
    fail("volume frames reported: %s / %s" % (sorted(seen["vdb"]), sorted(seen["grid"])))
sys.exit(1 if bad else 0)
EOF

# 4. the saved file keeps the point attributes
cat >attrs.py <<'EOF'
import bpy
me = bpy.data.objects["powder_points.0002"].data
names = sorted(a.name for a in me.attributes if a.name in ("vx", "vy", "vz", "density", "jp"))
d = me.attributes["density"].data
print("ATTRS", ",".join(names), "density0 %.3f" % d[0].value, "n %d" % len(d))
EOF
timeout 300 blender -b tiny.blend --factory-startup -P attrs.py >attrs.log 2>&1 ||
    die "blender could not reopen tiny.blend"
grep -q "ATTRS density,jp,vx,vy,vz density0 [1-9]" attrs.log ||
    die "point attributes missing: $(grep ATTRS attrs.log)"
echo "blender_import: passed ($(blender --version | head -n 1))"
