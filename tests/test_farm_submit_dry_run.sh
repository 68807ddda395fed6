#!/usr/bin/env bash
# Property: `powder submit` writes the batch scripts a Slurm farm needs, exactly:
# a simulation job covering frame start..last pending frame; a render job array whose
# indices are the slices (--chunk frames each) that still lack a valid EXR, each task
# rendering its slice with --resume and logging to a file named after its frame range;
# the array submitted with --dependency=afterok:<sim job id parsed from sbatch
# --parsable>; with --render-only and --look no simulation job and no dependency. Every
# expectation is an exact line, so the tolerance is zero. No Slurm is needed: --dry-run
# prints the scripts, and a fake `sbatch` on PATH records how powder calls it.
#
# usage: bash test_farm_submit_dry_run.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$1
dir=$3/farm_submit_dry_run
fails=0 cases=0

check() { # check NAME CONDITION-RESULT(0 = pass) [detail]
    cases=$((cases + 1))
    if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1 ${3:-}"; fails=$((fails + 1)); fi
}
has_line() { grep -qxF -- "$2" <<<"$1"; }
has_text() { grep -qF -- "$2" <<<"$1"; }
not_has_text() { ! grep -qF -- "$2" <<<"$1"; }

rm -rf "$dir" && mkdir -p "$dir/fake" && cd "$dir" || exit 1
cat >tiny.json <<'EOF'
{
  "name": "tiny",
  "frames": {"start": 1, "end": 9, "fps": 24},
  "sim": {
    "h": 0.02,
    "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]},
    "materials": {"snow": {}},
    "bodies": [{"material": "snow", "particles_per_cell": 1,
                "shapes": [{"type": "sphere", "center": [0.2, 0.15, 0.2], "radius": 0.04}]}]
  },
  "render": {
    "resolution": [8, 6], "spp": 1,
    "camera": {"eye": [0.2, 0.2, 1.2], "target": [0.2, 0.12, 0.2]},
    "lights": {"sky": {"radiance": [1, 1, 1]}}
  }
}
EOF
printf '{"render": {"resolution": [8, 6], "spp": 2, "camera": {"eye": [0.2, 0.5, 1.0],
 "target": [0.2, 0.12, 0.2]}, "lights": {"sky": {"radiance": [0.5, 0.5, 1]}}}}\n' >dusk.json
abs=$(pwd)
exe=$(readlink -f "$powder")

# 1. full submission, frames 1-5 in slices of 2
out=$("$powder" submit tiny.json --frames 1-5 --chunk 2 --partition debug --threads 2 \
    --dry-run 2>&1)
check "1.1 exit 0" $?
check "1.2 sim job name and log" "$(has_line "$out" "#SBATCH --output=$abs/out/tiny/farm/logs/tiny.sim.0001-0005.%j.log"; echo $?)"
check "1.3 sim runs powder sim up to the last frame" "$(has_line "$out" "exec '$exe' sim '$abs/tiny.json' --frames 1-5 --threads \"\$threads\""; echo $?)"
check "1.4 array over 3 slices" "$(has_line "$out" "#SBATCH --array=0-2"; echo $?)"
check "1.5 slice 0" "$(has_line "$out" "0) frames=1-2 range=0001-0002 ;;"; echo $?)"
check "1.6 slice 1" "$(has_line "$out" "1) frames=3-4 range=0003-0004 ;;"; echo $?)"
check "1.7 short last slice" "$(has_line "$out" "2) frames=5 range=0005-0005 ;;"; echo $?)"
check "1.8 no slice 3" "$(not_has_text "$out" "3) frames="; echo $?)"
check "1.9 task log named after the frame range" "$(has_line "$out" "exec >'$abs/out/tiny/farm/logs'/tiny.render.\"\$range\".\"\$SLURM_ARRAY_JOB_ID\"_\"\$SLURM_ARRAY_TASK_ID\".log 2>&1"; echo $?)"
check "1.10 render task resumes" "$(has_line "$out" "exec '$exe' render '$abs/tiny.json' --frames \"\$frames\" --resume --threads \"\$threads\""; echo $?)"
check "1.11 dependency afterok on the sim job" "$(has_line "$out" "sbatch --parsable --dependency=afterok:\${sim%%;*} $abs/out/tiny/farm/tiny.render.sbatch"; echo $?)"
check "1.12 renders die with a failed sim" "$(has_line "$out" "#SBATCH --kill-on-invalid-dep=yes"; echo $?)"
check "1.13 partition" "$(test "$(grep -cxF '#SBATCH --partition=debug' <<<"$out")" = 2; echo $?)"
check "1.14 cpus per task" "$(test "$(grep -cxF '#SBATCH --cpus-per-task=2' <<<"$out")" = 2; echo $?)"
check "1.15 working directory" "$(test "$(grep -cxF "#SBATCH --chdir=$abs" <<<"$out")" = 2; echo $?)"
check "1.16 dry run writes nothing" "$(test ! -e out; echo $?)"

# 2. frame lists: strides and gaps become specs the frames parser reads back
out=$("$powder" submit tiny.json --frames 1-9x2 --chunk 3 --dry-run 2>&1)
check "2.1 even stride" "$(has_line "$out" "0) frames=1-5x2 range=0001-0005 ;;"; echo $?)"
check "2.2 two frames" "$(has_line "$out" "1) frames=7,9 range=0007-0009 ;;"; echo $?)"
out=$("$powder" submit tiny.json --frames 1,2,5,7-8 --chunk 5 --dry-run 2>&1)
check "2.3 runs and gaps" "$(has_line "$out" "0) frames=1-2,5,7-8 range=0001-0008 ;;"; echo $?)"
check "2.4 sim up to the last frame" "$(has_text "$out" " sim '$abs/tiny.json' --frames 1-8 "; echo $?)"

# 3. --render-only with --look: caches must exist; then no sim job, no dependency
out=$("$powder" submit tiny.json --frames 1-4 --render-only --look dusk.json --dry-run 2>&1)
check "3.1 missing caches refused with exit 2" "$(test $? = 2; echo $?)" "$out"
check "3.2 the message names the frame" "$(has_text "$out" "frame 1: no valid cache"; echo $?)" "$out"
"$powder" sim tiny.json --frames 1-4 --quiet || check "3.3 powder sim" 1
out=$("$powder" submit tiny.json --frames 1-4 --chunk 2 --render-only --look dusk.json \
    --dry-run 2>&1)
check "3.4 exit 0" $? "$out"
check "3.5 no simulation job" "$(not_has_text "$out" "simulation job"; echo $?)"
check "3.6 no dependency" "$(not_has_text "$out" "dependency"; echo $?)"
check "3.7 submitted plainly" "$(has_line "$out" "sbatch --parsable $abs/out/tiny/dusk/farm/tiny.render.sbatch"; echo $?)" "$out"
check "3.8 look passed on" "$(has_line "$out" "exec '$exe' render '$abs/tiny.json' --frames \"\$frames\" --resume --threads \"\$threads\" --look '$abs/dusk.json'"; echo $?)"
check "3.9 logs beside the look's frames" "$(has_text "$out" "--output=$abs/out/tiny/dusk/farm/logs/tiny.render.%A_%a.slurm.log"; echo $?)"

# 4. valid EXRs are skipped, slice by slice; caches valid -> no sim job
"$powder" render tiny.json --frames 1-2,4 --quiet || check "4.0 powder render" 1
out=$("$powder" submit tiny.json --frames 1-6 --chunk 2 --dry-run 2>&1)
check "4.1 slice 0 done, 1 half done, 2 to do" "$(has_line "$out" "#SBATCH --array=1-2"; echo $?)" "$out"
check "4.2 caches 5-6 missing -> sim up to 6" "$(has_text "$out" " sim '$abs/tiny.json' --frames 1-6 "; echo $?)"
out=$("$powder" submit tiny.json --frames 1-4 --chunk 1 --dry-run 2>&1)
check "4.3 only frame 3's slice" "$(has_line "$out" "#SBATCH --array=2"; echo $?)" "$out"
check "4.4 every cache valid: no sim job" "$(not_has_text "$out" "simulation job"; echo $?)"
printf 'not an exr' >out/tiny/tiny.0002.exr
out=$("$powder" submit tiny.json --frames 1-4 --chunk 1 --dry-run 2>&1)
check "4.5 a damaged EXR is redone" "$(has_line "$out" "#SBATCH --array=1-2"; echo $?)" "$out"
"$powder" render tiny.json --frames 2-3 --resume --quiet || check "4.6 powder render" 1
out=$("$powder" submit tiny.json --frames 1-4 --dry-run 2>&1)
check "4.7 all done: exit 0" $?
check "4.8 all done: nothing to submit" "$(has_text "$out" "nothing to submit"; echo $?)" "$out"
check "4.9 all done: no script" "$(not_has_text "$out" "#SBATCH"; echo $?)"

# 5. real submission through a fake sbatch that records its arguments
cat >fake/sbatch <<'EOF'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
n=$(wc -l <"$FAKE_LOG")
case "${FAKE_MODE:-ok}" in
ok) [ "$n" = 1 ] && echo "4711;powdertest" || echo "4712" ;;
fail) echo "sbatch: error: invalid partition specified: nope" >&2; exit 1 ;;
garbage) echo "Submitted batch job 12" ;;
esac
EOF
chmod +x fake/sbatch
export FAKE_LOG=$dir/sbatch.log
rm -rf out/tiny/farm
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 --chunk 2 --quiet 2>&1)
check "5.1 exit 0" $? "$out"
check "5.2 quiet prints both ids" "$(test "$out" = $'4711\n4712'; echo $?)" "$out"
check "5.3 sim submitted first" "$(test "$(sed -n 1p "$FAKE_LOG")" = "--parsable $abs/out/tiny/farm/tiny.sim.sbatch"; echo $?)" "$(cat "$FAKE_LOG")"
check "5.4 render after the parsed id" "$(test "$(sed -n 2p "$FAKE_LOG")" = "--parsable --dependency=afterok:4711 $abs/out/tiny/farm/tiny.render.sbatch"; echo $?)" "$(cat "$FAKE_LOG")"
check "5.5 scripts written, executable" "$(test -x out/tiny/farm/tiny.sim.sbatch -a -x out/tiny/farm/tiny.render.sbatch; echo $?)"
check "5.6 log directory made" "$(test -d out/tiny/farm/logs; echo $?)"
check "5.7 written script = dry-run script" "$(has_text "$("$powder" submit tiny.json --frames 1-6 --chunk 2 --dry-run)" "$(cat out/tiny/farm/tiny.render.sbatch)"; echo $?)"
rm -f "$FAKE_LOG"
out=$(FAKE_MODE=fail PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 2>&1)
check "5.8 sbatch failure: exit 1" "$(test $? = 1; echo $?)" "$out"
check "5.9 sbatch's message quoted" "$(has_text "$out" "invalid partition specified: nope"; echo $?)" "$out"
out=$(FAKE_MODE=garbage PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 2>&1)
check "5.10 unparsable output: exit 1" "$(test $? = 1; echo $?)" "$out"
check "5.11 output quoted" "$(has_text "$out" "no job id in its output ('Submitted batch job 12"; echo $?)" "$out"
out=$(PATH="$dir/none" "$exe" submit tiny.json --frames 1-6 2>&1)
check "5.12 no sbatch: exit 1" "$(test $? = 1; echo $?)" "$out"
check "5.13 no sbatch: said so" "$(has_text "$out" "sbatch: not found on PATH"; echo $?)" "$out"

# 6. bad usage and paths Slurm cannot take: exit 2, nothing submitted
rm -f "$FAKE_LOG"
bad_cases=("" "tiny.json --chunk 0" "tiny.json --chunk x" "tiny.json --bogus"
    "tiny.json --frames 0-3" "tiny.json --partition a;b" "tiny.json --output a b"
    "tiny.json --look" "tiny.json other.json")
for args in "${bad_cases[@]}"; do
    # Split at spaces only, except that "a b" after --output stays one path.
    case "$args" in
    *"--output a b") set -- tiny.json --output "a b" ;;
    *) read -r -a words <<<"$args" && set -- "${words[@]}" ;;
    esac
    out=$(PATH="$dir/fake:$PATH" "$powder" submit "$@" 2>&1)
    check "6 bad input '$args': exit 2" "$(test $? = 2; echo $?)" "$out"
done
out=$(PATH="$dir/fake:$PATH" "$powder" submit missing.json 2>&1)
st=$?
"$powder" render missing.json >/dev/null 2>&1
check "6.8 missing scene: the status of powder render" "$(test $st = $?; echo $?)" "$out"
check "6.8 missing scene named" "$(has_text "$out" "missing.json: cannot open"; echo $?)" "$out"
check "6 nothing submitted" "$(test ! -e "$FAKE_LOG"; echo $?)"
out=$("$powder" submit tiny.json --frames 1-2 --output 'o%1' --dry-run 2>&1)
check "6.9 '%' doubled in Slurm patterns" "$(has_line "$out" "#SBATCH --output=$abs/o%%1/farm/logs/tiny.sim.0001-0002.%j.log"; echo $?)" "$out"
out=$("$powder" submit --help)
check "6.10 help" "$(has_text "$out" "usage: powder submit scene.json"; echo $?)"

echo "$((cases - fails)) passed, $fails failed"
[ "$fails" = 0 ]
