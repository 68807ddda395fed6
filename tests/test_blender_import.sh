#!/usr/bin/env bash
# Property: the Blender recipe of pipeline/docs/exports.md ("## Blender, step by
# step"), run as written there in the Blender users have (Debian 12's 3.4), brings
# Powder's exports into Blender where Powder put them, frame for frame, saves a .blend
# that still holds them when reopened, and renders:
#   1. Blender frame N shows Powder's file N, for the volume sequence and the points;
#   2. the points' bounding box, back in Powder's Y-up coordinates, equals the particle
#      bounds `powder stats` reports, to 1e-5 m (float32);
#   3. the volume grid maps voxel (i, j, k) to (i h, j h, k h): voxel size h = sim.h /
#      subdiv and no offset; and the volume's extent (a Volume to Mesh surface around
#      every active voxel) lies within 2 voxels of the active-voxel box vdb_print
#      reports (the marching-cubes surface reaches half a voxel past the last active
#      centre on one side and 1.5 on the other), when vdb_print is installed;
#   4. the point attributes vx vy vz density jp arrive (Blender 3.4's own PLY importer
#      drops them; the script reads the file itself) and survive the save;
#   5. the saved .blend refers to the .vdb files relative to itself (//...), and,
#      copied with out/ to another directory (the original out/ moved away) and
#      reopened by a fresh Blender started in a third directory, loads a density grid
#      with a non-empty bounding box on every frame (a relative --vdb pattern was
#      saved as //../../../out/..., pointing nowhere);
#   6. the README's render command writes an image with snow in it: at least 20 of
#      its 48x27 pixels differ from the background (Debian's 3.4 has no
#      OpenImageDenoise; with Cycles denoising on, the render stops: "Build without
#      OpenImageDenoiser", exit 1, no image); denoising is off exactly where Cycles
#      lacks it;
#   7. a missing input frame makes the import command exit nonzero with one line that
#      names the missing files, and no traceback: a missing .ply (a traceback before)
#      and a missing .vdb alone (an empty frame and exit 0 before); and the README's
#      import command passes --python-exit-code 1 before -P (else a traceback exits 0).
# The commands are read from exports.md; substituted are only the shot's name (tiny
# for snowball_drop), the frame range (0-4), [--report] and the rendered frame (2).
# SKIPPED (exit 77) when blender is not installed. In a build without OpenVDB, --vdb
# is dropped from the command and the volume checks (1, 3, 5, 6's snow) are not run.
#
# usage: bash test_blender_import.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
scratch=$3/blender_import
skip() { echo "SKIPPED: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
command -v blender >/dev/null || skip "blender is not installed (apt-get install blender)"

rm -rf "$scratch" && mkdir -p "$scratch/scenes" && cd "$scratch" || die "scratch $scratch"
scratch=$PWD
ln -s "$src/tools" tools  # the README's commands name tools/blender_import.py
cp "$src/tests/data/scenes/tiny_snowball_drop.json" scenes/tiny.json || die "no tiny_snowball_drop.json"
# files land in out/tiny/, as the README's commands expect for a shot
"$powder" sim scenes/tiny.json --quiet || die "powder sim failed"
"$powder" export ply scenes/tiny.json --quiet || die "powder export ply failed"
have_vdb=1
"$powder" export vdb scenes/tiny.json --quiet 2>vdb.err || {
    grep -q "no OpenVDB support" vdb.err || die "powder export vdb failed: $(cat vdb.err)"
    have_vdb=0
}
"$powder" stats scenes/tiny.json --json >stats.jsonl || die "powder stats failed"

# ---- the README's commands, one NUL-separated argument list per file -------------
python3 - "$src/pipeline/docs/exports.md" "$have_vdb" <<'EOF' || die "cannot read the recipe from pipeline/docs/exports.md"
import re, shlex, sys
text = open(sys.argv[1]).read()
at = text.find("## Blender, step by step\n")
if at < 0: sys.exit("exports.md: no '## Blender, step by step' section")
section = re.split(r"\n#{1,3} ", text[at + 3:])[0]
m = re.search(r"```sh\n(.*?)```", section, re.S)
if not m: sys.exit("exports.md: no sh block in the Blender section")
block = m.group(1)
for old, new in (("snowball_drop", "tiny"), ("--frames 0-36", "--frames 0-4"),
                 ("[--report]", "--report"), ("-f 12", "-f 2")):
    if old not in block: sys.exit("exports.md: the Blender recipe no longer has %r" % old)
    block = block.replace(old, new)
# as bash reads them: a comment starts at a word's beginning (not in //drop.####)
cmds = [shlex.split(re.sub(r"(^|\s)#.*", "", l)) for l in block.replace("\\\n", " ").splitlines()]
cmds = [c for c in cmds if c]
if len(cmds) != 2 or not all(c[0] == "blender" for c in cmds) or \
        "tools/blender_import.py" not in cmds[0] or "-f" not in cmds[1]:
    sys.exit("exports.md: expected an import and a render command, got %r" % cmds)
# Blender exits 0 after a script's traceback unless told otherwise, before -P
c = cmds[0]
if "--python-exit-code" not in c or c[c.index("--python-exit-code") + 1] != "1" or \
        c.index("--python-exit-code") > c.index("-P"):
    sys.exit("exports.md: the import command needs --python-exit-code 1 before -P")
if sys.argv[2] != "1":  # no OpenVDB in this build: import the points only
    k = cmds[0].index("--vdb")
    del cmds[0][k:k + 2]
for name, c in zip(("import", "render"), cmds):
    open(name + ".args", "w").write("".join(a + "\0" for a in c))
    print("README %s command: %s" % (name, " ".join(map(shlex.quote, c))))
EOF
mapfile -d '' import_cmd <import.args
mapfile -d '' render_cmd <render.args

timeout 300 "${import_cmd[@]}" >blender.log 2>&1 || die "blender failed: $(tail -n 20 blender.log)"
[ -f drop.blend ] || die "the import command saved no drop.blend"

# ---- 1-3: where each frame landed, from --report ------------------------------------
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
            out = subprocess.run(["vdb_print", "-l", "out/tiny/tiny.%04d.vdb" % f],
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

# ---- 4, 5: the saved file, moved with out/ and reopened by a fresh Blender ---------
cat >reopen.py <<'EOF'
import bpy
me = bpy.data.objects["powder_points.0002"].data
names = sorted(a.name for a in me.attributes if a.name in ("vx", "vy", "vz", "density", "jp"))
d = me.attributes["density"].data
print("ATTRS", ",".join(names), "density0 %.3f" % d[0].value, "n %d" % len(d))
scene = bpy.context.scene
try:
    import _cycles
    oidn = bool(_cycles.with_openimagedenoise)
except (ImportError, AttributeError):
    oidn = None
print("DENOISE use %d oidn %s" % (scene.cycles.use_denoising, oidn))
for obj in (o for o in scene.objects if o.type == "VOLUME"):
    print("VOLUME", obj.name, "filepath", obj.data.filepath)
    for f in range(0, 5):
        scene.frame_set(f)
        grids = obj.data.grids
        grids.load()
        ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        box = [list(c) for c in ev.bound_box]
        size = [max(c[k] for c in box) - min(c[k] for c in box) for k in range(3)]
        print("REOPEN frame %d grids %d density %d size %s error %r" % (
            f, len(grids), "density" in [g.name for g in grids],
            " ".join("%.4f" % s for s in size), grids.error_message))
EOF
mkdir -p moved/cwd && cp -r out drop.blend moved/ && mv out out.away || die "moving the shot"
(cd moved/cwd && timeout 300 blender -b ../drop.blend --factory-startup --python-exit-code 1 \
    -P "$scratch/reopen.py") >reopen.log 2>&1
rc=$?
mv out.away out || die "mv out.away out"
[ $rc = 0 ] || die "blender could not reopen drop.blend: $(tail -n 20 reopen.log)"
grep -q "ATTRS density,jp,vx,vy,vz density0 [1-9]" reopen.log ||
    die "point attributes missing: $(grep ATTRS reopen.log)"
grep -q "^DENOISE use 0 oidn False$\|^DENOISE use 1 oidn True$" reopen.log ||
    die "denoising should be on exactly where Cycles has OpenImageDenoise:" \
        "$(grep DENOISE reopen.log)"
if [ $have_vdb = 1 ]; then
    grep "^VOLUME\|^REOPEN" reopen.log
    grep -q "^VOLUME .* filepath //" reopen.log || die "the .vdb path is not relative to the .blend"
    python3 - <<'EOF' || die "the reopened .blend does not load the volume (see above)"
import re, sys
got = {}
for line in open("reopen.log"):
    m = re.match(r"REOPEN frame (\d+) grids (\d+) density (\d) size (\S+) (\S+) (\S+) error", line)
    if m:
        got[int(m.group(1))] = (int(m.group(2)), int(m.group(3)),
                                [float(m.group(k)) for k in (4, 5, 6)])
bad = [f for f in range(5) if f not in got or got[f][0] < 1 or not got[f][1] or min(got[f][2]) <= 0]
sys.exit("frames without a loaded, non-empty density grid: %s" % bad if bad else 0)
EOF
fi

# ---- 6: the README's render command, once the camera frames the snow --------------
# the camera where tiny.json has it (Powder eye (0, 0.15, 0.6) -> Blender (0, -0.6, 0.15))
cat >aim.py <<'EOF'
import bpy
from mathutils import Vector
scene = bpy.context.scene
cam = scene.camera
cam.location = Vector((0.0, -0.6, 0.15))
cam.rotation_mode = "QUATERNION"
cam.rotation_quaternion = (Vector((0.0, 0.0, 0.08)) - cam.location).to_track_quat("-Z", "Y")
scene.render.resolution_x, scene.render.resolution_y = 48, 27
scene.render.resolution_percentage = 100
scene.cycles.samples = 4
bpy.ops.wm.save_mainfile()
EOF
timeout 300 blender -b drop.blend --factory-startup --python-exit-code 1 -P aim.py \
    >aim.log 2>&1 || die "blender could not aim the camera: $(tail -n 20 aim.log)"
rm -f drop.0002.png
timeout 300 "${render_cmd[@]}" >render.log 2>&1 || die "render failed: $(tail -n 20 render.log)"
[ -f drop.0002.png ] ||
    die "the render wrote no drop.0002.png: $(grep -i 'error' render.log | head -n 5)"
cat >pixels.py <<'EOF'
import bpy
img = bpy.data.images.load(bpy.path.abspath("//drop.0002.png"))
w, h = img.size
px = list(img.pixels)
bg = px[0:3]  # a corner: the world colour
n = sum(1 for i in range(w * h) if max(abs(px[4 * i + k] - bg[k]) for k in range(3)) > 0.02)
print("PIXELS %dx%d differ %d" % (w, h, n))
EOF
timeout 300 blender -b drop.blend --factory-startup --python-exit-code 1 -P pixels.py \
    >pixels.log 2>&1 || die "blender could not read drop.0002.png: $(tail -n 20 pixels.log)"
grep "^PIXELS" pixels.log
if [ $have_vdb = 1 ]; then
    n=$(sed -n 's/^PIXELS 48x27 differ \([0-9]*\)$/\1/p' pixels.log)
    [ -n "$n" ] && [ "$n" -ge 20 ] || die "the render is blank: $(grep PIXELS pixels.log)"
fi

# ---- 7: a missing input frame stops the import with one line naming it -------------
# one shot directory per case, its files linked except the missing ones
missing_case() {  # $1 case name, $2 expected line, rest: files to leave out
    local dir=missing_$1 want=$2
    shift 2
    mkdir -p "$dir/out/tiny" && ln -s "$src/tools" "$dir/tools" &&
        ln -s ../scenes "$dir/scenes" || die "mkdir $dir"
    for f in out/tiny/*.ply out/tiny/*.vdb; do
        [ -f "$f" ] && ln -s "$scratch/$f" "$dir/$f"
    done
    rm -f "${@/#/$dir/}"
    (cd "$dir" && timeout 300 "${import_cmd[@]}") >"$dir.log" 2>&1
    rc=$?
    [ $rc != 0 ] || die "missing $*: the import exited 0"
    [ ! -e "$dir/drop.blend" ] || die "missing $*: the import saved drop.blend anyway"
    ! grep -q Traceback "$dir.log" ||
        die "missing $*: a traceback: $(grep -A 20 Traceback "$dir.log")"
    [ "$(grep -c 'blender_import.py' "$dir.log")" = 1 ] && grep -qxF "$want" "$dir.log" ||
        die "missing $*: expected the one line '$want', got:" \
            "$(grep -v '^Blender\|^Read' "$dir.log" | tail -n 5)"
    echo "missing $*: exit $rc, '$want'"
}
missing_case ply "blender_import.py: missing input file: out/tiny/tiny.0001.ply" \
    out/tiny/tiny.0001.ply
if [ $have_vdb = 1 ]; then
    missing_case vdb "blender_import.py: missing input file: out/tiny/tiny.0003.vdb" \
        out/tiny/tiny.0003.vdb
    missing_case both "blender_import.py: missing input files: out/tiny/tiny.0001.ply,\
 out/tiny/tiny.0003.vdb, out/tiny/tiny.0004.vdb" \
        out/tiny/tiny.0001.ply out/tiny/tiny.0003.vdb out/tiny/tiny.0004.vdb
fi
echo "blender_import: passed ($(blender --version | head -n 1))"
