#!/usr/bin/env bash
# bench_farm_overlap.sh — how much sooner a shot finishes on a farm when its render tasks
# start as their frames land, against a powder whose render array waited for the whole
# simulation (afterok). Starts the one-node test cluster of the farm tests (2 CPUs; needs
# root and Debian's slurmctld, slurmd, munge), then runs the same small shot through
# `powder submit` with each binary in turn, alternating, and prints per run the time from
# submission to the last job's end, when the first render task started and when the last
# cache was written. Prints figures; asserts nothing.
#
# usage: bash tools/bench/bench_farm_overlap.sh POWDER [--vs OLD_POWDER] [--runs N]
#        [--frames N] [--chunk N]
set -u
powder=$(readlink -f "${1:?usage: bench_farm_overlap.sh POWDER [--vs OLD_POWDER] [--runs N]}")
shift
old="" runs=2 frames=24 chunk=4
while [ $# -gt 0 ]; do
    case $1 in
    --vs) old=$(readlink -f "$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --chunk) chunk=$2; shift 2 ;;
    *) echo "bench_farm_overlap: unknown option $1" >&2; exit 2 ;;
    esac
done
src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${TMPDIR:-/tmp}/bench_farm_overlap.$$
t_test=$SECONDS
skip() { echo "bench_farm_overlap: cannot run here: $*"; exit 77; }
die() { echo "bench_farm_overlap: $*" >&2; exit 1; }
source "$src/tests/farm_cluster.sh"
trap 'stop_daemons; rm -rf "$scratch"' EXIT
export POWDER_FARM_POLL=1

cd "$scratch/shot" || die "cd $scratch/shot"
# A ball dropped on the ground: about 2 s a frame to simulate and 2.5 s to render on
# one thread, so neither half of the shot hides the other.
cat >shot.json <<EOF
{
  "name": "shot",
  "frames": {"start": 1, "end": $frames, "fps": 24},
  "sim": {
    "h": 0.01,
    "domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]},
    "materials": {"snow": {}},
    "bodies": [{"material": "snow", "velocity": [0, -2, 0],
                "shapes": [{"type": "sphere", "center": [0.3, 0.2, 0.3], "radius": 0.1}]}]
  },
  "render": {
    "resolution": [256, 144], "spp": 128,
    "camera": {"eye": [0.3, 0.3, 1.5], "target": [0.3, 0.12, 0.3]},
    "lights": {"sky": {"radiance": [1, 1, 1]}}
  }
}
EOF
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# run BINARY LABEL: one shot from nothing to its last frame rendered
run() {
    local bin=$1 label=$2 t0 t_end first="" t_cache
    rm -rf out
    t0=$(now)
    "$bin" submit shot.json --output out --chunk "$chunk" --threads 1 --quiet >/dev/null ||
        die "$label: powder submit failed"
    # the first render task's start, seen by polling (both versions name their jobs so)
    for ((k = 0; k < 6000; k++)); do
        q=$(timeout 5 squeue -h -o '%T %j')
        [ -z "$first" ] && grep -q '^RUNNING powder-render' <<<"$q" && first=$(now)
        [ -z "$q" ] && break
        sleep 0.1
    done
    t_end=$(now)
    local n_exr
    n_exr=$(ls out/shot.*.exr 2>/dev/null | wc -l)
    [ "$n_exr" = "$frames" ] || die "$label: $n_exr of $frames frames rendered"
    t_cache=$(stat -c %.9Y "out/cache/shot.$(printf %04d "$frames").pwc")
    if [ -n "${BENCH_TIMELINE:-}" ]; then
        for l in out/farm/logs/shot.render.*.log; do
            case $l in *.slurm.log) continue ;; esac
            ts=$(sed -n 's/^powder: render task .* at \([0-9.]*\)$/\1/p' "$l")
            echo "  ${l##*/}: $([ -n "$ts" ] && sub "$t0" "$ts") - $(sub "$t0" "$(stat -c %.9Y "$l")") s"
        done
        grep -h '^powder: released' out/farm/logs/shot.sim.*.log | while read -r line; do
            echo "  $(sub "$t0" "${line##* at }") s ${line% at *}"; done
    fi
    printf '%-4s shot done %6.1f s after submission; last cache %6.1f s; first render task %6.1f s\n' \
        "$label" "$(sub "$t0" "$t_end")" "$(sub "$t0" "$t_cache")" "$(sub "$t0" "$first")"
}

echo "shot: $frames frames, chunk $chunk, 1 CPU a job, one node of 2 CPUs; CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for ((r = 1; r <= runs; r++)); do
    [ -n "$old" ] && run "$old" old
    run "$powder" new
done
