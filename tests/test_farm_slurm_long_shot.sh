#!/usr/bin/env bash
# Property: on a real (one-node) Slurm cluster, a shot whose simulation outlives its job
# completes through requeues, with caches byte-identical to a local `powder sim`
# (tolerance zero), and its render tasks start while the simulation still runs.
#
# The time limit is mimicked, and that is the one thing not real here: Slurm's shortest
# limit is a minute and its --signal warning may come up to a minute early, which would
# make the test take minutes. The simulation job asks for --signal=B:USR1@600 (what a
# real limit would trigger); this test sends that very signal to the job's batch shell
# itself (`scancel --signal=USR1 --batch`, exactly whom B: signals) once each run of the
# job has written 3 frames: an effective limit of about 3-4 frames for a 12-frame shot,
# so the simulation must go through at least 3 runs. Everything after the signal is the
# product's: powder finishes its frame and checkpoints, the job submits its continuation
# (afterany on itself), which resumes. The jobs' real limit (--time=30, minutes) puts
# Slurm's own warning 20 minutes in, long after the test; a limit within the warning
# would signal each run as it starts (powder submit refuses one).
#
# Overlap: the render array is submitted held and the simulation job releases each
# task (slices of 3 frames) once its frames are simulated; the first render task must
# start (its log's timestamp) before the last cache is written (the file's mtime).
# Then, with the last frames' caches and EXRs removed, resubmission must plan the
# simulation from the newest checkpoint and only the missing slice, and complete.
#
# usage: bash test_farm_slurm_long_shot.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
scratch=$3/farm_slurm_long_shot
t_test=$SECONDS

skip() { echo "SKIPPED: $*"; exit 77; } # ctest: SKIP_RETURN_CODE 77
die() {
    echo "FAIL: $*"
    for f in "$scratch"/log/slurmctld.log "$scratch"/shot/farm/farm/logs/*; do
        [ -f "$f" ] && { echo "---- $f"; grep -v '^PROGRESS' "$f" | tail -n 25; }
    done
    exit 1
}
source "$2/tests/farm_cluster.sh"
export POWDER_FARM_POLL=1 # the simulation job looks for frames to release every second

cd "$scratch/shot" || die "cd"
# about 3,000 particles: a few tenths of a second a frame on one thread
cp "$src/tests/data/scenes/farm_long_shot_drop.json" drop.json || die "no farm_long_shot_drop.json"
"$powder" sim drop.json --output local --threads 1 --quiet || die "local powder sim failed"

t0=$(date +%s.%N)
ids=$("$powder" submit drop.json --output farm --chunk 3 --threads 1 --sbatch --time=30 \
    --quiet) || die "powder submit failed"
read -r -d '' sim_job render_job <<<"$ids"
[ -n "$sim_job" ] && [ -n "$render_job" ] || die "expected two job ids, got '$ids'"
echo "sim job $sim_job, render array $render_job"
sim_log() { echo "farm/farm/logs/drop.sim.0001-0012.$1.log"; }

# The mimicked time limit: USR1 to the batch shell once the current run wrote 3 frames;
# each run continues as a new job, followed here through its log.
cur=$sim_job chain=$sim_job warned=""
for ((k = 0; k < 1800; k++)); do
    next=$(sed -n 's/^powder: time limit near: continuing as job \([0-9]*\) .*/\1/p' \
        "$(sim_log "$cur")" 2>/dev/null)
    if [ -n "$next" ]; then
        cur=$next chain="$chain $next"
        continue
    fi
    state=$(timeout 5 squeue -h -j "$cur" -o %T 2>/dev/null)
    if [ -z "$state" ]; then
        # the job may have written its continuation line and ended between the look at
        # its log above and this squeue: look once more now that the log is whole
        next=$(sed -n 's/^powder: time limit near: continuing as job \([0-9]*\) .*/\1/p' \
            "$(sim_log "$cur")" 2>/dev/null)
        [ -z "$next" ] && break
        cur=$next chain="$chain $next" state=pending
        continue
    fi
    new=$(grep -c '^sim: frame [0-9]*: [0-9]* steps' "$(sim_log "$cur")" 2>/dev/null)
    if [ "$state" = RUNNING ] && [ "$warned" != "$cur" ] && [ "${new:-0}" -ge 3 ]; then
        scancel --signal=USR1 --batch "$cur" || die "scancel --signal failed"
        warned=$cur
    fi
    sleep 0.1
done
[ -z "$state" ] || die "simulation job $cur still queued after 180 s"
for ((k = 0; k < 600; k++)); do
    [ "$(timeout 5 squeue -h -j "$render_job" | wc -l)" = 0 ] && break
    sleep 0.2
done
t_farm=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
for j in $chain; do
    scontrol -o show job "$j" | grep -q 'JobState=COMPLETED' ||
        die "simulation job $j did not complete: $(scontrol -o show job "$j" | grep -o 'JobState=[A-Z_]*')"
done
all_logs=$(for j in $chain; do cat "$(sim_log "$j")"; done)
runs=$(grep -c '^powder: simulation job' <<<"$all_logs")
continued=$(grep -c '^powder: time limit near: continuing as job' <<<"$all_logs")
echo "simulation: jobs $chain: $runs runs, $continued continuations"
[ "$runs" -ge 3 ] || die "expected at least 3 runs of the simulation, got $runs"
[ "$continued" = $((runs - 1)) ] || die "$runs runs but $continued continuations"
[ "$(grep -c 'interrupted by SIGTERM after frame' <<<"$all_logs")" = "$continued" ] ||
    die "every continuation must follow powder's checkpoint at a frame boundary"
for f in $(seq -w 1 12); do
    cmp -s local/cache/drop.00$f.pwc farm/cache/drop.00$f.pwc ||
        die "cache of frame $f differs from the local powder sim"
done
echo "12 caches byte-identical to the local run"
for f in $(seq -w 1 12); do
    [ -s farm/drop.00$f.exr ] || die "frame $f not rendered"
done

# ---- overlap: timestamps relative to the submission ------------------------------------
rel() { awk -v a="$t0" -v b="$1" 'BEGIN { printf "%.1f", b - a }'; }
t_last_cache=$(stat -c %.9Y farm/cache/drop.0012.pwc)
first_start=""
for k in 0 1 2 3; do
    tl=$(ls farm/farm/logs/drop.render.*."${render_job}_$k".log 2>/dev/null | head -n 1)
    [ -n "$tl" ] || die "no log of render task ${render_job}_$k"
    ts=$(sed -n 's/^powder: render task .* at \([0-9.]*\)$/\1/p' "$tl")
    te=$(stat -c %.9Y "$tl")
    echo "render task $k (${tl##*drop.render.}): started $(rel "$ts") s, ended $(rel "$te") s"
    [ -z "$first_start" ] && first_start=$ts
done
grep '^powder: \(simulation job\|time limit\|released\)' <<<"$all_logs" |
    while read -r line; do echo "  $(rel "${line##* at }") s  ${line% at *}"; done
echo "last cache written $(rel "$t_last_cache") s; shot done $t_farm s after submission"
awk -v a="$first_start" -v b="$t_last_cache" 'BEGIN { exit !(a < b) }' ||
    die "the first render task started after the last frame was simulated"
echo "first render task started $(awk -v a="$first_start" -v b="$t_last_cache" \
    'BEGIN { printf "%.1f", b - a }') s before the last cache was written"

status=$("$powder" submit drop.json --output farm --status) || die "submit --status failed"
grep -qx '12 frames: 12 simulated, 12 rendered, 0 rendering, 0 waiting, 0 failed, 0 not submitted' \
    <<<"$status" || die "submit --status after the shot: $status"
grep -q "^simulation: frames 1-12, jobs ${chain// / -> } (run $runs): " <<<"$status" ||
    die "submit --status does not follow the simulation's chain ($chain): $status"
echo "submit --status: $(grep '^simulation' <<<"$status")"

# ---- a half-finished shot: only what is missing ---------------------------------------
rm farm/cache/drop.0012.pwc farm/cache/drop.0011.pwc farm/drop.0012.exr farm/drop.0011.exr
plan=$("$powder" submit drop.json --output farm --chunk 3 --threads 1 --dry-run) ||
    die "dry run failed"
echo "$plan" | grep -qx '#SBATCH --array=3' || die "resubmission should render slice 3 only"
echo "$plan" | grep -q "resumes after frame 10" ||
    die "resubmission should say the simulation resumes after frame 10: $(echo "$plan" | head -n 1)"
ids=$("$powder" submit drop.json --output farm --chunk 3 --threads 1 --quiet) ||
    die "resubmission failed"
read -r -d '' sim2 render2 <<<"$ids"
for ((k = 0; k < 600; k++)); do
    [ "$(timeout 5 squeue -h -j "$sim2,$render2" | wc -l)" = 0 ] && break
    sleep 0.2
done
grep -q '^sim: resuming after frame 10 ' farm/farm/logs/drop.sim.0001-0012."$sim2".log ||
    die "the resubmitted simulation did not resume after frame 10"
for f in 11 12; do
    cmp -s local/cache/drop.00$f.pwc farm/cache/drop.00$f.pwc ||
        die "after resubmission, cache of frame $f differs"
    [ -s farm/drop.00$f.exr ] || die "after resubmission, frame $f not rendered"
done
echo "resubmission: simulated 11-12 from the checkpoint of frame 10, rendered slice 3"
echo "farm_slurm_long_shot: passed in $((SECONDS - t_test)) s"
