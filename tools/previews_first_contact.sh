#!/usr/bin/env bash
# tools/previews_first_contact.sh — every shipped preview scene (scenes/*.json; not
# scenes/paper/) simulates its first frames with the default step control (the elastic
# bound, sim.courant, and retaken steps, sim.retake_limit: sim/docs/step-control.md),
# up to one frame past its first contact, and not to the end. For each scene it runs
# `powder sim scene.json --frames 0-F` and fails when
#   - powder sim exits non-zero (a step failed after its last retake, a divergence);
#   - the frame log has not one line for each of frames 1..F;
#   - the log names a capped solve: a retake for one ("capped solve N") or a solve
#     accepted at cr_max_iterations ("warning: ... stopped at cr_max_iterations");
#   - the last cache has no frame_steps global (`powder info`);
#   - a scene in scenes/ has no row in the table below (a new preview must get one), or
#     a scene's OBJ sequence (made by the full build) is missing: the check names the
#     cmake target that writes it.
# It prints, a scene a line: F, wall and CPU seconds, steps, retakes and the largest
# CR iterations a step of any frame (the frame log's mean over the frame's solves).
#
# usage: tools/previews_first_contact.sh [BUILD_DIR] [THREADS]
#        (defaults: build/ beside this script, nproc threads)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd) || exit 2
threads=${2:-$(nproc 2>/dev/null || echo 2)}
powder=$build/powder
[ -x "$powder" ] || { echo "previews_first_contact: no $powder (cmake --build $build)"; exit 2; }

# F, the last frame simulated: the frame of the scene's first contact between moving snow
# and a collider or other snow, plus one. Measured once (2026-12-02) from the frame log,
# where the CR iterations a step and the elastic C jump at contact, and from the bodies'
# and colliders' positions. Snow resting on the ground from the start (castle, the
# banks, fields and roads) is not the contact looked for; a collider or body that reaches
# snow is.
# Two scenes are covered only partly, to keep the check's cost down (measured 2026-12-02,
# AMD EPYC, 2 logical CPUs, other runs beside; under that load the CPU seconds of a
# 2-thread run include its threads' waiting: 19 of the 25 scenes took 657 CPU s on 2
# threads, a wedge 32-86 s against 11 for frames 0-5 on 1). Run through their later contact,
# walking_character (frames 0-9: the crust's foot fall in frame 8, elastic C up to 15,
# CR up to 15.4 it/step, no retake) took 59 CPU s and character_digging (frames 0-9: the
# pick's first cut in frame 8, CR up to 3.0 it/step, no retake) 91 CPU s on 1 thread.
table=$(
    cat <<'EOF'
castle               8  the ball reaches the nearest tower in frame 7 (C 2.4 -> 3.2, CR 1.6 -> 7.3)
character_digging    1  PARTLY: the bank rests on the ground from frame 0 (the pick's cut, frame 8, not run)
double_smash         2  the balls (0.3 m apart, closing at 8 m/s) meet in frame 1, t = 0.035 s
powder_spill         1  the powder lies on the chute from frame 0
rolling_snowball     1  the ball rolls on the fresh snow from frame 0
siggraph             6  the letters land in frame 5, t = 0.19 s (C 1.2 -> 4.5)
snowball_drop        4  the ball lands in frame 3, t = 0.116 s (C 2.2 -> 5, then 8.1)
snowball_drop_chunky_durable 3 the ball (0.33 m up, 5 m/s down) lands in frame 2, t = 0.062 s (C 2.2 -> 3.5)
snowball_smash_slip  3  the ball hits the wall in frame 2, t = 0.067 s (max |v| 6.0 -> 0.8 m/s)
snowball_smash_sticky 3 the ball hits the wall in frame 2, t = 0.067 s (max |v| 6.0 -> 0.8 m/s)
snowplow             2  the blade (8 m/s) throws the road's snow in frame 1 (max |v| 7.7 m/s)
snowfall_street      18 the first flakes (born 1.41-1.49 m up, falling at 1 m/s) reach the car's roof (0.75 m) in frame 17
the_end              7  the slabs land on the log in frame 6, t = 0.21 s (C 1.2 -> 3.7)
walking_character    2  PARTLY: a toe pushes the field's edge in frame 1 (the foot fall, frame 8, not run)
wedge_higher_critical 4 as wedge_reference: the block strikes the wedge in frame 4
wedge_higher_critical_durable 4 as wedge_higher_critical
wedge_higher_hardening 4 as wedge_higher_critical
wedge_higher_hardening_durable 4 as wedge_higher_critical
wedge_lower_critical 4  as wedge_higher_critical
wedge_lower_critical_durable 4 as wedge_higher_critical
wedge_lower_hardening 4 as wedge_higher_critical
wedge_lower_hardening_durable 4 as wedge_higher_critical
wedge_lower_youngs   4  as wedge_higher_critical
wedge_lower_youngs_durable 4 as wedge_higher_critical
wedge_reference      4  the block nears the edge late in frame 3 (C 2.3 -> 2.8), strikes in frame 4 (C 5.5)
wedge_reference_durable 4 as wedge_higher_critical
EOF
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
TIMEFORMAT='%R %U %S'
total_cpu=0

for scene in "$root"/scenes/*.json; do
    name=$(basename "$scene" .json)
    F=$(awk -v n="$name" '$1 == n {print $2}' <<<"$table")
    if [ -z "$F" ]; then
        bad "$name: no row in the table of tools/previews_first_contact.sh (measure its first contact)"
        continue
    fi
    # an OBJ sequence the full build writes: "made_by": "cmake --build build --target T"
    missing=""
    target=$(grep -o '"made_by": *"[^"]*"' "$scene" | sed -n 's/.*--target \([^" ]*\).*/\1/p' | head -1)
    for path in $(grep -o '"path": *"[^"]*####[^"]*"' "$scene" | sed 's/.*: *"\(.*\)"/\1/'); do
        [ -e "$(dirname "$scene")/${path//####/0001}" ] || missing="$missing $path"
    done
    if [ -n "$missing" ]; then
        bad "$name: the OBJ sequence$missing is not built: cmake --build $build --target ${target:-all}"
        continue
    fi
    out=$tmp/$name
    mkdir -p "$out"
    { time "$powder" sim "$scene" --frames "0-$F" --threads "$threads" --output "$out" \
        >"$out/log" 2>&1; echo $? >"$out/rc"; } 2>"$out/time"
    rc=$(cat "$out/rc")
    read -r wall user sys <"$out/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}')
    total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN {printf "%.1f", a + b}')
    frames=$(grep -c '^sim: frame [0-9]*: [0-9]* steps' "$out/log")
    steps=$(sed -n 's/^sim: frame [0-9]*: \([0-9]*\) steps.*/\1/p' "$out/log" | awk '{s += $1} END {print s + 0}')
    retakes=$(sed -n 's/.*, \([0-9]*\) retaken.*/\1/p' "$out/log" | awk '{s += $1} END {print s + 0}')
    cr=$(sed -n 's/.*CR \([0-9.]*\) it\/step.*/\1/p' "$out/log" | sort -g | tail -1)
    summary="$name frames 0-$F: ${wall} s wall, $cpu s CPU, $steps steps, $retakes retaken, CR up to ${cr:-?} it/step"
    if [ "$rc" != 0 ]; then
        bad "$summary: powder sim exited $rc:"
        tail -5 "$out/log"
    elif [ "$frames" != "$F" ]; then
        bad "$summary: $frames frame lines in the log, not $F"
    elif grep -q 'capped solve\|stopped at cr_max_iterations' "$out/log"; then
        bad "$summary: a capped solve:"
        grep 'capped solve\|stopped at cr_max_iterations' "$out/log"
    elif ! "$powder" info "$(printf '%s/cache/%s.%04d.pwc' "$out" "$name" "$F")" 2>&1 |
        grep -q 'global *frame_steps'; then
        bad "$summary: the last cache has no frame_steps global"
    else
        echo "ok   $summary"
    fi
    rm -rf "$out/cache"
done
echo "previews_first_contact: $total_cpu s CPU in all, $threads threads"
if [ $fails -eq 0 ]; then
    echo "previews_first_contact: all passed"
else
    echo "previews_first_contact: $fails failed"
    exit 1
fi
