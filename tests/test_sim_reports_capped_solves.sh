#!/usr/bin/env bash
# Property: with retakes off (sim.retake_limit 0, the 2013 rule), when a frame's
# implicit solves stop at sim.cr_max_iterations above cr_tolerance, `powder sim` says so
# in one line for that frame (how many of its solves, the cap and the tolerance, and what
# to change); a frame whose solves all converge prints no such line. The cache's
# cr_not_converged counter (`powder info`) agrees. With retakes on (the default), a step
# whose solve still stops at the cap after retake_limit retakes stops the simulation
# with one line naming the cap, the retakes and what to change (exit 1).
#
# usage: bash test_sim_reports_capped_solves.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/sim_reports_capped_solves
# shellcheck source=tests/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

# A ball pressed into the ground from the first step: the solve has real work (a rigid
# motion would converge in no iteration at all).
scene() { # scene NAME EXTRA-SIM-KEYS: tests/data/scenes/ball_pressed_into_ground.json, renamed
    sed -e "s/\"name\": \"press\"/\"name\": \"$1\"/" -e "s/\"h\": 0.02,/\"h\": 0.02, $2/" \
        "$src/tests/data/scenes/ball_pressed_into_ground.json" >"$1.json"
}
scene capped '"cr_max_iterations": 1, "cr_tolerance": 1e-9, "retake_limit": 0,'
scene retaken '"cr_max_iterations": 1, "cr_tolerance": 1e-9, "retake_limit": 2,'
scene free ''

"$powder" sim retaken.json --output retaken --threads 1 >retaken.log 2>&1
check "retaken: a solve capped after 2 retakes stops the run (exit 1)" test $? -eq 1
check "retaken: the message names the cap, the retakes and the keys to change" \
    grep -q 'the solve stopped at cr_max_iterations (1) above cr_tolerance (1e-09) after 2 retakes down to dt .*raise sim.cr_max_iterations or sim.retake_limit' retaken.log

"$powder" sim capped.json --output capped --threads 1 >capped.log 2>&1
check "capped run exits 0" test $? -eq 0
# frame 1 is the seeded state; frames 2 and 3 are stepped
check "capped: one warning line per stepped frame" test "$(grep -c '^sim: frame [23]: warning: [0-9]* of [0-9]* solves stopped at cr_max_iterations (1) above cr_tolerance (1e-09)' capped.log)" -eq 2
n_log=$(sed -n 's/^sim: frame 2: warning: \([0-9]*\) of .*/\1/p' capped.log)
n_cache=$("$powder" info capped/cache/capped.0002.pwc | awk '$2 == "cr_not_converged" {print $3}')
check "capped: frame 2's count is the cache's ($n_log, $n_cache)" test -n "$n_log" -a "$n_log" = "$n_cache" -a "${n_log:-0}" -gt 0

"$powder" sim free.json --output free --threads 1 >free.log 2>&1
check "default run exits 0" test $? -eq 0
check "default: solves converge, no warning" test "$(grep -c 'warning' free.log)" -eq 0
check "default: the cache counts none" test "$("$powder" info free/cache/free.0003.pwc | awk '$2 == "cr_not_converged" {print $3}')" = 0

check_done
