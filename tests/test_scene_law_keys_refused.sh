#!/usr/bin/env bash
# Property: a material's optional-law keys out of range or given to the wrong law are
# refused by `powder sim` before anything is written: exit 2, one line naming the scene
# file, the key's path and the rule, and no cache folder. The cases: a friction angle of
# 95 and of 0 deg with a cone, a negative cohesion, a durability rate past 1e4, a law
# name Powder does not have (plasticity and hardening), a cone's key on the 2013 clamp,
# the clamp's key on the cone alone, and a cone without its angle.
#
# usage: bash test_scene_law_keys_refused.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/scene_law_keys_refused
. "$src/tests/check.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

refused() { # refused NAME 'MATERIAL MEMBERS' EXPECTED-TEXT
    local name=$1 members=$2 want=$3
    sed "s|\"snow\": {}|\"snow\": {$members}|" "$src/tests/data/scenes/minimal.json" >"$name.json"
    "$powder" sim "$name.json" --output "out_$name" --quiet 2>"$name.err"
    local rc=$?
    check "$name: exit 2" test "$rc" -eq 2
    check "$name: one line naming the file and the key" \
        bash -c "[ \$(wc -l <'$name.err') -eq 1 ] && grep -qF '$name.json: sim.materials.snow.' '$name.err'"
    check "$name: says '$want'" grep -qF -- "$want" "$name.err"
    check "$name: nothing written" test ! -e "out_$name"
}

refused angle95 '"plasticity": "drucker_prager", "friction_angle": 95' 'friction_angle = 95: the friction angle [deg] must be in [0, 90)'
refused angle0 '"plasticity": "drucker_prager", "friction_angle": 0' 'must be in (0, 90) with plasticity "drucker_prager"'
refused cohesion '"plasticity": "clamp+drucker_prager", "friction_angle": 30, "cohesion": -1' 'cohesion = -1: the cohesion [Pa] must be >= 0'
refused rate '"plasticity": "drucker_prager", "friction_angle": 30, "durability_rate": 2e4' 'durability_rate = 20000'
refused law '"plasticity": "mohr"' '"mohr" is not one of "clamp", "drucker_prager", "clamp+drucker_prager", "mohr_coulomb", "clamp+mohr_coulomb"'
refused hardening '"hardening": "volume"' '"volume" is not one of "plastic", "density"'
refused cone_key '"cohesion": 100' 'cohesion: belongs to a plasticity with friction ("drucker_prager", "mohr_coulomb", or either after "clamp+")'
refused clamp_key '"plasticity": "drucker_prager", "friction_angle": 30, "theta_c": 0.1' 'theta_c: belongs to plasticity "clamp" or one that begins with "clamp+" (this material'"'"'s is "drucker_prager")'
refused clamp_key_mc '"plasticity": "mohr_coulomb", "friction_angle": 30, "rho_max": 600' 'rho_max: belongs to plasticity "clamp" or one that begins with "clamp+" (this material'"'"'s is "mohr_coulomb")'
refused no_angle_mc '"plasticity": "mohr_coulomb"' 'friction_angle: is required by plasticity "mohr_coulomb"'
refused no_angle '"plasticity": "clamp+drucker_prager"' 'friction_angle: is required by plasticity "clamp+drucker_prager"'
check_done
