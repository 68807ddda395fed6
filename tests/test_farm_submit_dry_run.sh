#!/usr/bin/env bash
# Property: `powder submit` writes the batch scripts a Slurm farm needs, exactly:
# a simulation job covering frame start..last pending frame, warned before its time
# limit; a render job array whose indices are the slices (--chunk frames each) that
# still lack a valid EXR, each task rendering its slice with --resume and logging to a
# file named after its frame range; the array submitted first and held, and its id
# (parsed from sbatch --parsable) given to the simulation job, which releases each
# slice by its last frame, and which its words say continues as a new job near its time
# limit (as it does), not requeued; with --render-only and --look no simulation job, no
# hold. Every expectation is an exact line, so the tolerance is zero. No Slurm is needed:
# --dry-run prints the scripts, and a fake `sbatch` on PATH records how powder calls it.
#
# usage: bash test_farm_submit_dry_run.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/farm_submit_dry_run
. "$src/tests/check.sh"
out=
line() { grep -qxF -- "$1" <<<"$out"; }
text() { grep -qF -- "$1" <<<"$out"; }
no_text() { ! grep -qF -- "$1" <<<"$out"; }
status() { [ "$st" = "$1" ]; }
lines() { [ "$(grep -cxF -- "$2" <<<"$out")" = "$1" ]; }

rm -rf "$dir" && mkdir -p "$dir/fake" && cd "$dir" || exit 1
cp "$src/tests/data/scenes/farm_submit_tiny.json" tiny.json || exit 1
cp "$src/tests/data/scenes/dusk_look.json" dusk.json || exit 1
abs=$(pwd)
exe=$(readlink -f "$powder")
farm=$abs/out/tiny/farm
task_log='/tiny.render."$range"."$SLURM_ARRAY_JOB_ID"_"$SLURM_ARRAY_TASK_ID".log 2>&1'
render_cmd="exec '$exe' render '$abs/tiny.json' --frames \"\$frames\" --resume"

# 1. full submission, frames 1-5 in slices of 2
out=$("$powder" submit tiny.json --frames 1-5 --chunk 2 --partition debug --threads 2 \
    --sbatch --time=0:30:00 --sbatch=--account=fx --dry-run 2>&1)
st=$?
check "1.1 exit 0" status 0
check "1.2 sim job log" line "#SBATCH --output=$farm/logs/tiny.sim.0001-0005.%j.log"
check "1.3 sim up to the last frame" \
    line "'$exe' sim '$abs/tiny.json' --frames 1-5 --threads \"\$threads\" &"
check "1.4 array over 3 slices" line "#SBATCH --array=0-2"
check "1.5 slice 0" line "0) frames=1-2 range=0001-0002 ;;"
check "1.6 slice 1" line "1) frames=3-4 range=0003-0004 ;;"
check "1.7 short last slice" line "2) frames=5 range=0005-0005 ;;"
check "1.8 no slice 3" no_text "3) frames="
check "1.9 task log named after the frame range" line "exec >'$farm/logs'$task_log"
check "1.10 render task resumes" line "$render_cmd --threads \"\$threads\""
check "1.11 render array submitted first" line "render=\$(sbatch --parsable $farm/tiny.render.sbatch)"
check "1.12 render array held" line "#SBATCH --hold"
check "1.12b sim job gets the array's id" line "sbatch --parsable $farm/tiny.sim.sbatch \${render%;*}"
check "1.12c sim warned before its limit" line "#SBATCH --signal=B:USR1@600"
check "1.12d slices released by their last frame" line "declare -A slice_last=( [0]=2 [1]=4 [2]=5 )"
check "1.13 partition" lines 2 "#SBATCH --partition=debug"
check "1.14 cpus per task" lines 2 "#SBATCH --cpus-per-task=2"
check "1.15 working directory" lines 2 "#SBATCH --chdir=$abs"
check "1.16 dry run writes nothing" test ! -e out
check "1.17 extra sbatch option, both jobs" lines 2 "#SBATCH --time=0:30:00"
check "1.18 second extra sbatch option" lines 2 "#SBATCH --account=fx"
# the simulation script's words say what its code does: near its time limit it hands the
# shot to a new job (sbatch --dependency), it is never requeued
check "1.19 sim script: continued by a new job" \
    line "# and submits a new job that continues from that checkpoint (run 2, 3, ...); it"
check "1.20 sim script: no requeue claimed" no_text "requeues itself"

# 2. frame lists: strides and gaps become specs the frames parser reads back
out=$("$powder" submit tiny.json --frames 1-9x2 --chunk 3 --dry-run 2>&1)
check "2.1 even stride" line "0) frames=1-5x2 range=0001-0005 ;;"
check "2.2 two frames" line "1) frames=7,9 range=0007-0009 ;;"
out=$("$powder" submit tiny.json --frames 1,2,5,7-8 --chunk 5 --dry-run 2>&1)
check "2.3 runs and gaps" line "0) frames=1-2,5,7-8 range=0001-0008 ;;"
check "2.4 sim up to the last frame" text " sim '$abs/tiny.json' --frames 1-8 "

# 3. --render-only with --look: caches must exist; then no sim job, no dependency
out=$("$powder" submit tiny.json --frames 1-4 --render-only --look dusk.json --dry-run 2>&1)
st=$?
check "3.1 missing caches refused with exit 2" status 2
check "3.2 the message names the frame" text "frame 1: no valid cache"
out=$("$powder" sim tiny.json --frames 1-4 --quiet 2>&1)
st=$?
check "3.3 powder sim" status 0
out=$("$powder" submit tiny.json --frames 1-4 --chunk 2 --render-only --look dusk.json \
    --dry-run 2>&1)
st=$?
look_farm=$abs/out/tiny/dusk/farm
check "3.4 exit 0" status 0
check "3.5 no simulation job" no_text "simulation job"
check "3.6 no dependency" no_text "dependency"
check "3.7 submitted plainly" line "sbatch --parsable $look_farm/tiny.render.sbatch"
check "3.8 look passed on" line "$render_cmd --threads \"\$threads\" --look '$abs/dusk.json'"
check "3.9 logs beside the look's frames" \
    line "#SBATCH --output=$look_farm/logs/tiny.render.%A_%a.slurm.log"

# 4. valid EXRs are skipped, slice by slice; caches valid -> no sim job
out=$("$powder" render tiny.json --frames 1-2,4 --quiet 2>&1)
st=$?
check "4.0 powder render" status 0
out=$("$powder" submit tiny.json --frames 1-6 --chunk 2 --dry-run 2>&1)
check "4.1 slice 0 done, 1 half done, 2 to do" line "#SBATCH --array=1-2"
check "4.2 caches 5-6 missing: sim up to 6" text " sim '$abs/tiny.json' --frames 1-6 "
out=$("$powder" submit tiny.json --frames 1-4 --chunk 1 --dry-run 2>&1)
check "4.3 only frame 3's slice" line "#SBATCH --array=2"
check "4.4 every cache valid: no sim job" no_text "simulation job"
printf 'not an exr' >out/tiny/tiny.0002.exr
out=$("$powder" submit tiny.json --frames 1-4 --chunk 1 --dry-run 2>&1)
check "4.5 a damaged EXR is redone" line "#SBATCH --array=1-2"
out=$("$powder" render tiny.json --frames 2-3 --resume --quiet 2>&1)
st=$?
check "4.6 powder render" status 0
out=$("$powder" submit tiny.json --frames 1-4 --dry-run 2>&1)
st=$?
check "4.7 all done: exit 0" status 0
check "4.8 all done: nothing to submit" text "nothing to submit"
check "4.9 all done: no script" no_text "#SBATCH"

# 5. real submission through a fake sbatch that records its arguments
cat >fake/sbatch <<'SH'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
n=$(wc -l <"$FAKE_LOG")
case "${FAKE_MODE:-ok}" in
ok) [ "$n" = 1 ] && echo "4711;powdertest" || echo "4712" ;;
fail) [ "$n" = 1 ] && echo "4711" && exit 0
    echo "sbatch: error: invalid partition specified: nope" >&2; exit 1 ;;
garbage) echo "Submitted batch job 12" ;;
esac
SH
chmod +x fake/sbatch
export FAKE_LOG=$dir/sbatch.log
rm -rf out/tiny/farm
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 --chunk 2 --quiet 2>&1)
st=$?
check "5.1 exit 0" status 0
check "5.2 quiet prints both ids, sim first" test "$out" = $'4712\n4711'
out=$(cat "$FAKE_LOG")
check "5.3 render array submitted first" \
    test "$(sed -n 1p <<<"$out")" = "--parsable $farm/tiny.render.sbatch"
check "5.4 sim job gets the parsed array id" test "$(sed -n 2p <<<"$out")" = \
    "--parsable $farm/tiny.sim.sbatch 4711"
check "5.5 scripts written, executable" test -x "$farm/tiny.sim.sbatch" -a \
    -x "$farm/tiny.render.sbatch"
check "5.6 log directory made" test -d "$farm/logs"
out=$("$powder" submit tiny.json --frames 1-6 --chunk 2 --dry-run)
check "5.7 written script = dry-run script" text "$(cat "$farm/tiny.render.sbatch")"
rm -f "$FAKE_LOG"
out=$(FAKE_MODE=fail PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 2>&1)
st=$?
check "5.8 sbatch failure: exit 1" status 1
check "5.9 sbatch's message quoted" text "invalid partition specified: nope"
check "5.10 the queued render array named" text "render job array 4711 is queued already, held"
rm -f "$FAKE_LOG"
out=$(FAKE_MODE=garbage PATH="$dir/fake:$PATH" "$powder" submit tiny.json --frames 1-6 2>&1)
st=$?
check "5.11 unparsable output: exit 1" status 1
check "5.12 output quoted" text "no job id in its output ('Submitted batch job 12"
out=$(PATH="$dir/none" "$exe" submit tiny.json --frames 1-6 2>&1)
st=$?
check "5.13 no sbatch: exit 1" status 1
check "5.14 no sbatch: said so" text "sbatch: not found on PATH"

# 6. bad usage and paths Slurm cannot take: exit 2, nothing submitted
rm -f "$FAKE_LOG"
bad_cases=("" "tiny.json --chunk 0" "tiny.json --chunk x" "tiny.json --bogus"
    "tiny.json --frames 0-3" "tiny.json --partition a;b" "tiny.json --output a b"
    "tiny.json --look" "tiny.json other.json" "tiny.json --sbatch --chdir=/x"
    "tiny.json --sbatch -t" "tiny.json --sbatch --output=x")
for args in "${bad_cases[@]}"; do
    # Split at spaces only, except that "a b" after --output stays one path.
    case "$args" in
    *"--output a b") set -- tiny.json --output "a b" ;;
    *) read -r -a words <<<"$args" && set -- "${words[@]}" ;;
    esac
    out=$(PATH="$dir/fake:$PATH" "$powder" submit "$@" 2>&1)
    st=$?
    check "6 bad input '$args': exit 2" status 2
done
check "6.7 nothing submitted" test ! -e "$FAKE_LOG"
out=$(PATH="$dir/fake:$PATH" "$powder" submit missing.json 2>&1)
st=$?
"$powder" render missing.json >/dev/null 2>&1
check "6.8 missing scene: the status of powder render" status $?
check "6.9 missing scene named" text "missing.json: cannot open"
out=$("$powder" submit tiny.json --frames 1-2 --output 'o%1' --dry-run 2>&1)
check "6.10 '%' doubled in Slurm patterns" \
    line "#SBATCH --output=$abs/o%%1/farm/logs/tiny.sim.0001-0002.%j.log"
# A time limit no longer than the warning would warn every run as it starts; Slurm's
# forms: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes].
for case in 10=600 5:00=300 0:10:00=600 0-0:10=600; do
    lim=${case%=*}
    out=$("$powder" submit tiny.json --sbatch --time=$lim --dry-run 2>&1)
    st=$?
    check "6.12 --time=$lim refused with exit 2" status 2
    check "6.13 --time=$lim: its ${case#*=} s and the warning named" \
        text "the time limit (${case#*=} s) must be longer than the simulation's warning"
done
for lim in 11 0:10:01 1-0 UNLIMITED; do
    out=$("$powder" submit tiny.json --sbatch --time=$lim --dry-run 2>&1)
    st=$?
    check "6.14 --time=$lim accepted" status 0
done
out=$("$powder" submit tiny.json --sbatch --time=2 --sim-warning 60 --dry-run 2>&1)
st=$?
check "6.15 --time=2 with --sim-warning 60 accepted" status 0
out=$("$powder" submit tiny.json --frames 1-4 --render-only --sbatch --time=5 --dry-run 2>&1)
st=$?
check "6.16 --time=5 with --render-only (no simulation job) accepted" status 0
out=$("$powder" submit --help)
check "6.11 help" text "usage: powder submit scene.json"
check "6.12 help: continued by a new job" text "submits a new simulation job that continues"
check "6.13 help: no requeue claimed" no_text "requeues itself"

check_done
