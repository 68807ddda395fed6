#!/usr/bin/env bash
# Property: a shot handed to Slurm with `powder submit` (a held render job array and
# one simulation job that releases its tasks as their frames are simulated) produces every EXR frame, and each is identical
# to the frame of a local `powder run` of the same shot: every byte of every file equal
# except the 8-byte value of the header attribute powder:renderSeconds, the only
# wall-clock quantity Powder writes (rendering is deterministic for any thread count,
# so the tolerance is zero). Caches must be byte-identical too. Then, with one EXR
# deleted, one truncated (what a non-atomic writer killed mid-write would leave) and a
# stale temporary file beside them, resubmission must plan only the damaged slice, no
# simulation job, and complete the shot to the same frames.
#
# The cluster is real: slurmctld, slurmd and munged (Debian 12's slurm-wlm 22.05, which
# tools/check installs; the test itself installs nothing), run in the foreground from a scratch directory
# with a minimal slurm.conf (one node, this machine, 2 CPUs; no systemd), and stopped
# by the process ids this script started. SKIPPED (exit 77) when not root, when the
# packages are not installed, or when the machine cannot run slurmd (no cgroup
# filesystem: containers, chroots). Every wait is bounded.
#
# usage: bash test_farm_slurm_cluster.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
scratch=$3/farm_slurm_cluster
t_test=$SECONDS

skip() { echo "SKIPPED: $*"; exit 77; } # ctest: SKIP_RETURN_CODE 77
die() {
    echo "FAIL: $*"
    for f in "$scratch"/log/*.log "$scratch"/shot/farm/farm/logs/*; do
        [ -f "$f" ] && { echo "---- $f"; tail -n 20 "$f"; }
    done
    exit 1
}

source "$2/tests/farm_cluster.sh"
# the simulation job looks for newly simulated frames to release every second
export POWDER_FARM_POLL=1

# ---- 4. the tiny shot: local reference --------------------------------------------------
cd "$scratch/shot" || die "cd"
cp "$src/tests/data/scenes/farm_cluster_tiny.json" tiny.json || die "no farm_cluster_tiny.json"
t0=$(date +%s.%N)
"$powder" run tiny.json --output local --quiet || die "local powder run failed"
t_local=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

# ---- 5. the same shot on the cluster ---------------------------------------------------
# Waits until every job given is out of the queue, then requires each (every array
# task) to have completed.
wait_jobs() { # wait_jobs SECONDS JOB...
    local limit=$1 k left
    shift
    for ((k = 0; k < limit * 5; k++)); do
        left=$(timeout 5 squeue -h -j "$(IFS=,; echo "$*")" -o %i 2>/dev/null | wc -l)
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    [ "$left" = 0 ] || die "jobs $* still queued after $limit s"
    local j states
    for j in "$@"; do
        states=$(scontrol -o show job "$j" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c)
        echo "job $j: $states"
        echo "$states" | grep -v -q 'JobState=COMPLETED' && die "job $j did not complete: $states"
    done
    return 0
}

t0=$(date +%s.%N)
ids=$("$powder" submit tiny.json --output farm --chunk 2 --quiet) || die "powder submit failed"
read -r -d '' sim_job render_job <<<"$ids"
[ -n "$sim_job" ] && [ -n "$render_job" ] || die "expected two job ids, got '$ids'"
echo "sim job $sim_job, render array $render_job (held, released by the sim job)"
wait_jobs 150 "$sim_job" "$render_job"
for k in 0 1; do
    grep -q "^powder: released render task ${render_job}_$k " \
        "farm/farm/logs/tiny.sim.0001-0004.$sim_job.log" ||
        die "the simulation job did not release render task ${render_job}_$k"
done
t_farm=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

# Compares frame f of two directories: every byte except renderSeconds' value.
masked() { # masked EXR OUT
    cp "$1" "$2" || return 1
    local name="powder:renderSeconds" at
    at=$(grep -obUaF "$name" "$2" | head -n 1 | cut -d: -f1)
    [ -n "$at" ] || return 1
    # name NUL "double" NUL int32 size, then the 8-byte value
    dd if=/dev/zero of="$2" bs=1 seek=$((at + ${#name} + 1 + 7 + 4)) count=8 conv=notrunc \
        status=none
}
check_frames() { # check_frames WHAT
    local f a b
    for f in 1 2 3 4; do
        a=local/tiny.000$f.exr b=farm/tiny.000$f.exr
        [ -f "$b" ] || die "$1: $b missing"
        masked "$a" "$scratch/a.exr" && masked "$b" "$scratch/b.exr" || die "$1: cannot mask $b"
        cmp -s "$scratch/a.exr" "$scratch/b.exr" || die "$1: $b differs from $a"
        cmp -s local/cache/tiny.000$f.pwc farm/cache/tiny.000$f.pwc ||
            die "$1: cache of frame $f differs"
    done
    echo "$1: 4 EXRs and 4 caches identical to the local run"
}
check_frames "first submission"
logs=$(ls farm/farm/logs)
for want in "tiny.sim.0001-0004.$sim_job.log" "tiny.render.0001-0002.${render_job}_0.log" \
    "tiny.render.0003-0004.${render_job}_1.log"; do
    echo "$logs" | grep -qxF "$want" || die "log $want missing (have: $logs)"
done
grep -q '^PROGRESS 100%$' "farm/farm/logs/tiny.render.0003-0004.${render_job}_1.log" ||
    die "render task log has no plain 'PROGRESS 100%' line"

# ---- 6. damage and resubmit ------------------------------------------------------------
rm farm/tiny.0004.exr
head -c 300 farm/tiny.0003.exr >farm/cut.exr && mv farm/cut.exr farm/tiny.0003.exr
echo junk >farm/tiny.0004.exr.tmp.99999
plan=$("$powder" submit tiny.json --output farm --chunk 2 --dry-run) || die "dry run failed"
echo "$plan" | grep -qx '#SBATCH --array=1' || die "resubmission should run slice 1 only"
echo "$plan" | grep -q 'simulation job' && die "resubmission should need no simulation job"
render2=$("$powder" submit tiny.json --output farm --chunk 2 --quiet) || die "resubmit failed"
wait_jobs 120 "$render2"
check_frames "after resubmission"


# ---- 7. --render-only with a slow look, cancelled by the scheduler mid-frame ---------
# A frame of this look takes a few seconds, so scancel right after task 0's first frame
# lands hits its second frame while it renders (slices of 3 frames: 1-3 and 4). powder
# takes the SIGTERM as a request to stop after that frame (or Slurm's SIGKILL ends it
# KillWait = 5 s later), so frame 3 is never begun. Every EXR under a final name must
# then be complete (identical to the local reference), and resubmitting must finish
# the rest.
spp=4096
[ -n "${POWDER_SANITIZED:-}" ] && spp=1024
printf '{"render": {"resolution": [32, 18], "spp": %d, "camera": {"eye": [0.2, 0.2, 1.2],
 "target": [0.2, 0.12, 0.2]}, "lights": {"sky": {"radiance": [1, 1, 1]}}}}\n' $spp >slow.json
# a look's frames (and the farm's scripts and logs beside them) go to <output>/slow/
mkdir -p local_slow farm_slow && cp -r local/cache local_slow/ && cp -r farm/cache farm_slow/
"$powder" render tiny.json --output local_slow --look slow.json --quiet ||
    die "local render of the slow look failed"
ids=$("$powder" submit tiny.json --output farm_slow --look slow.json --render-only --chunk 3 \
    --quiet) || die "render-only submit failed"
[ "$(echo "$ids" | wc -l)" = 1 ] || die "render-only submitted more than one job: $ids"
slow_job=$ids
log0=farm_slow/slow/farm/logs/tiny.render.0001-0003.${slow_job}_0.log
for ((k = 0; k < 600; k++)); do
    grep -q '^render: frame 1:' "$log0" 2>/dev/null && break
    sleep 0.1
done
grep -q '^render: frame 1:' "$log0" || die "slow task 0 did not finish frame 1 within 60 s"
scancel "$slow_job" || die "scancel $slow_job failed"
for ((k = 0; k < 300; k++)); do
    [ "$(timeout 5 squeue -h -j "$slow_job" | wc -l)" = 0 ] && break
    sleep 0.2
done
grep -q 'CANCELLED' farm_slow/slow/farm/logs/tiny.render."${slow_job}"_0.slurm.log ||
    die "the task's .slurm.log does not report the cancellation"
grep -q "interrupted by SIGTERM before frame 3" "$log0" &&
    echo "task 0 finished frame 2 after the SIGTERM and stopped before frame 3"
# --status names the cancellation for every frame left without its EXR
status=$("$powder" submit tiny.json --output farm_slow --look slow.json --status) ||
    die "submit --status failed"
for f in 1 2 3 4; do
    [ -e farm_slow/slow/tiny.000$f.exr ] && continue
    awk -v f=$f '$1 == f' <<<"$status" | grep -q 'failed: .*CANCELLED' ||
        die "submit --status does not report frame $f as cancelled: $status"
done
echo "submit --status after the cancellation: $(tail -n 1 <<<"$status")"
n_final=0
for f in 1 2 3 4; do
    b=farm_slow/slow/tiny.000$f.exr
    [ -e "$b" ] || continue
    n_final=$((n_final + 1))
    masked local_slow/slow/tiny.000$f.exr "$scratch/a.exr" && masked "$b" "$scratch/b.exr" &&
        cmp -s "$scratch/a.exr" "$scratch/b.exr" || die "cancelled task left a damaged $b"
done
plan=$("$powder" submit tiny.json --output farm_slow --look slow.json --render-only --chunk 3 \
    --dry-run) || die "dry run after the cancellation failed"
echo "$plan" | grep -q '^#SBATCH --array=' ||
    die "the cancellation interrupted nothing (tasks too fast for this test)"
n_tmp=$(find farm_slow/slow -maxdepth 1 -name '*.tmp.*' | wc -l)
echo "cancelled mid-frame: $n_final of 4 EXRs complete, $n_tmp temporary files"
slow2=$("$powder" submit tiny.json --output farm_slow --look slow.json --render-only --chunk 3 \
    --quiet) || die "resubmission after the cancellation failed"
wait_jobs 150 "$slow2"
for f in 1 2 3 4; do
    masked local_slow/slow/tiny.000$f.exr "$scratch/a.exr" &&
        masked farm_slow/slow/tiny.000$f.exr "$scratch/b.exr" &&
        cmp -s "$scratch/a.exr" "$scratch/b.exr" ||
        die "after resubmission, farm_slow/slow/tiny.000$f.exr differs from the local render"
done
echo "after resubmission: 4 EXRs of the slow look identical to the local render"

printf 'tiny shot (4 frames, 32x18, 4 spp): local powder run %.2f s, one-node Slurm %.2f s\n' \
    "$t_local" "$t_farm"
echo "farm_slurm_cluster: passed in $((SECONDS - t_test)) s"
