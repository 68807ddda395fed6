#!/usr/bin/env bash
# Property: SIGTERM or SIGINT (what Slurm sends before a time limit, preemption or
# scancel; Ctrl-C) stops `powder sim` within one frame: the frame in flight is finished
# and written as a full checkpoint, one line says so and how to resume, and the exit
# status is 3. Running the same command again resumes there and the caches end byte
# for byte as an uninterrupted run's (tolerance zero), also with checkpoint_every = 3,
# where the stop frame is off the schedule and must end up slim again. A second signal
# stops at once (exit 3, the frame in flight lost) and the rerun still ends identical.
# `powder render` stops between frames: the EXRs it wrote read back, and --resume
# renders only the rest.
#
# "Within one frame" is checked against the log, which powder flushes after every frame:
# n = frames logged just after the signal was sent; the run must end with frame n + 1
# at most (the frame in flight), and with a full checkpoint there.
#
# usage: bash test_pipeline_interrupt_resume.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/pipeline_interrupt_resume
# shellcheck source=tests/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

# About 900 particles: a frame is a few tenths of a second on one thread, long enough
# for a signal to land inside one.
cp "$src/tests/data/scenes/interrupt_drop.json" drop.json || exit 1
"$powder" sim drop.json --output ref --threads 1 --quiet || { echo "FAIL reference run"; exit 1; }

frames_logged() { grep -c "^$2: frame [0-9]*:" "$1" 2>/dev/null; }
last_logged() { grep -o "^$2: frame [0-9]*:" "$1" 2>/dev/null | tail -n 1 | tr -dc 0-9; }

# interrupt OUT SIGNALS WHAT AFTER: starts `powder WHAT` into OUT, sends each signal of
# SIGNALS once the log holds a line for frame AFTER, waits; sets st, n_after (frames
# logged just after the signals), out (stdout + stderr).
interrupt() {
    local out_dir=$1 sigs=$2 what=$3 after=$4 k pid
    local args=(sim drop.json --output "$out_dir" --threads 1)
    [ "$what" = render ] && args=(render drop.json --output "$out_dir" --threads 1 --resume)
    "$powder" "${args[@]}" >"$out_dir.log" 2>&1 &
    pid=$!
    for ((k = 0; k < 600; k++)); do
        grep -q "^$what: frame $after:" "$out_dir.log" 2>/dev/null && break
        sleep 0.05
    done
    local nth=0
    for s in $sigs; do
        # a second signal sent before the first is taken would merge with it
        for ((k = 0; nth > 0 && k < 200; k++)); do
            grep -q "stopping after the frame in flight" "$out_dir.log" && break
            sleep 0.01
        done
        kill -"$s" "$pid"
        nth=$((nth + 1))
    done
    n_after=$(last_logged "$out_dir.log" "$what")
    wait "$pid"
    st=$?
    out=$(grep -v '^PROGRESS' "$out_dir.log")
}
same_caches() { # same_caches DIR: every cache of ref/ and DIR identical, none more
    local f
    [ "$(ls ref/cache | wc -l)" = "$(ls "$1"/cache | grep -c '\.pwc$')" ] || return 1
    for f in ref/cache/*.pwc; do cmp -s "$f" "$1/cache/${f##*/}" || return 1; done
}

# 1. SIGTERM after frame 4 has been written (frame 5 in flight, a slim frame)
interrupt a TERM sim 4
echo "$out" | tail -n 2
check "1.1 exit status 3" test "$st" = 3
stop=$(echo "$out" | sed -n 's/.*interrupted by SIGTERM after frame \([0-9]*\), a full checkpoint.*/\1/p')
check "1.2 one line: interrupted, where, how to resume" \
    grep -q "interrupted by SIGTERM after frame $stop, a full checkpoint (a/cache/drop.000$stop.pwc); frames $((stop + 1))-9 are left: run the same command again to resume from it" <<<"$out"
check "1.3 stopped within one frame (signal after frame $n_after, stopped after $stop)" \
    test -n "$stop" -a "$stop" -le $((n_after + 1)) -a "$stop" -ge 4
check "1.4 no cache after the stop frame" test "$(ls a/cache | grep -c '\.pwc$')" = "$stop"
check "1.5 the stop frame is a full checkpoint" \
    bash -c "'$powder' info a/cache/drop.000$stop.pwc | grep -q ' Fe '"
"$powder" sim drop.json --output a --threads 1 >a2.log 2>&1
st=$?
check "1.6 rerun: exit 0" test "$st" = 0
check "1.7 rerun resumes after frame $stop" grep -q "^sim: resuming after frame $stop " a2.log
check "1.8 caches byte-identical to the uninterrupted run" same_caches a

# 2. two signals: stop at once, frame in flight lost
interrupt b "INT INT" sim 3
echo "$out" | tail -n 1
check "2.1 exit status 3" test "$st" = 3
check "2.2 says it stopped at once" grep -q "interrupted again: stopping at once" <<<"$out"
"$powder" sim drop.json --output b --threads 1 --quiet
st=$?
check "2.3 rerun: exit 0" test "$st" = 0
check "2.4 caches byte-identical to the uninterrupted run" same_caches b

# 3. render: stops between frames, the rest with --resume
cp -r ref c
interrupt c TERM render 2
echo "$out" | tail -n 1
n_exr=$(ls c/*.exr 2>/dev/null | wc -l)
check "3.1 exit status 3" test "$st" = 3
check "3.2 one line: interrupted before which frame, how to go on" \
    grep -q "interrupted by SIGTERM before frame $((n_exr + 1)) ($((9 - n_exr)) of 9 frames left); the frames written are whole: \`powder render --resume\`" <<<"$out"
check "3.3 stopped within one frame ($n_exr EXRs after a signal after frame $n_after)" \
    test "$n_exr" -le $((n_after + 1)) -a "$n_exr" -lt 9
check "3.4 no temporary file left" test -z "$(ls c | grep '\.tmp\.')"
"$powder" render drop.json --output c --threads 1 --resume >c2.log 2>&1
st=$?
check "3.5 rerun: exit 0" test "$st" = 0
check "3.6 the EXRs written before read back and are kept" \
    test "$(grep -c '^render: frame [0-9]* already done' c2.log)" = "$n_exr"
check "3.7 every frame rendered" test "$(ls c/*.exr | wc -l)" = 9

check_done
