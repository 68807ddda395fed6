#!/usr/bin/env bash
# Property: the optional material laws leave the 2013 law's caches as they were. The
# scene tests/data/scenes/bytes_2013.json (two snowballs of the 2013 law, one of Table 2
# and one of the chunky range with a compaction floor, dropped onto the ground: contact,
# the clamp, hardening and the floor) simulates frames 0-6 on 1 and on 2 threads, and
# every cache is byte for byte the one the solver wrote before the laws existed (the
# SHA-256 below, from the commit before them). A change to the 2013 step that moves
# these bytes must be deliberate: it changes this list and says why.
#
# usage: bash test_sim_2013_bytes_kept.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/sim_2013_bytes_kept
. "$src/tests/check.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
cat >expected.sum <<'SUMS'
38b4bcbb8c405e82d3aed22b8ef253c402841400a2bd71fbd4bab31f7cbd90de  bytes_2013.0000.pwc
3b9aa076d68d0fa927d787b7c5c779a82b46252ef527bdb5cc6898bd958e4d47  bytes_2013.0001.pwc
5a665304d093dffd4a5b8aa6b165d5b851b5c46f3532cf8fb28b2cdeebe07946  bytes_2013.0002.pwc
98028e2954129caa25f5489da1eaeea737ee085c9820b3e5161a2d2ede0441e7  bytes_2013.0003.pwc
fb6b520d75b81bfa90af231f6a334fbfd00d95d22826a5a03cacc7481ee7e8e8  bytes_2013.0004.pwc
cfa5d66e65085825405a0f7e5a727c6441601e798370a0a53bcab3ab12219478  bytes_2013.0005.pwc
0b1062be5a7113c24bb0789a0a1d9db1f2db367b3f588e3e9d423b7b108a2c08  bytes_2013.0006.pwc
SUMS
# (under the sanitizers, a minute a run: the 2-thread run alone)
threads_list="1 2"
[ -n "${POWDER_SANITIZED:-}" ] && threads_list=2
for threads in $threads_list; do
    check "sim on $threads thread(s) exits 0" \
        "$powder" sim "$src/tests/data/scenes/bytes_2013.json" --quiet --threads "$threads" \
        --output "t$threads"
    check "the caches of $threads thread(s) are the 2013 law's bytes" \
        bash -c "cd t$threads/cache && sha256sum --quiet -c ../../expected.sum"
done
check_done
