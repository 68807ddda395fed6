#!/usr/bin/env bash
# Property: `powder submit --status` says, per frame of a submitted shot, what is
# simulated, rendered, rendering, waiting or failed, and why, from the files, the jobs'
# logs and squeue, exactly as they stand. A fake `sbatch` gives the job ids and a fake
# `squeue` answers from a file, so every state (held, running, ended without its EXR,
# cancelled by Slurm, a simulation that died, a continued simulation, a damaged cache,
# no squeue at all) is set up on purpose and each expected line is checked whole. The
# real cluster tests check it against Slurm itself.
#
# usage: bash test_farm_submit_status.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/farm_submit_status
. "$src/tests/check.sh"
out=
# row FRAME CACHE EXR TASK STATE-PREFIX: the status line of a frame, cells compared whole
row() {
    local got
    got=$(awk -v f="$1" '$1 == f && NF >= 5' <<<"$out")
    read -r _ c e t s <<<"$got"
    [ "$c" = "$2" ] && [ "$e" = "$3" ] && [ "$t" = "$4" ] && [[ "$s" == "$5"* ]]
}
text() { grep -qF -- "$1" <<<"$out"; }

rm -rf "$dir" && mkdir -p "$dir/fake" && cd "$dir" || exit 1
# the dry run's shot, ended at frame 6
sed 's/"end": 9,/"end": 6,/' "$src/tests/data/scenes/farm_submit_tiny.json" >tiny.json || exit 1
"$powder" sim tiny.json --quiet || exit 1
"$powder" render tiny.json --frames 1-2 --quiet || exit 1
rm out/tiny/cache/tiny.0006.pwc out/tiny/cache/tiny.0005.pwc

cat >fake/sbatch <<'SH'
#!/bin/bash
n=$(($(cat "$FAKE_DIR/next_id" 2>/dev/null || echo 100)))
echo $((n + 1)) >"$FAKE_DIR/next_id"
echo "$n"
SH
cat >fake/squeue <<'SH'
#!/bin/bash
echo "$*" >"$FAKE_DIR/squeue.args"
cat "$FAKE_DIR/squeue.answer"
SH
chmod +x fake/sbatch fake/squeue
export FAKE_DIR=$dir/fake
logs=out/tiny/farm/logs

out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --chunk 2 --quiet 2>&1)
check "1.1 submitted: sim 101, render array 100" test "$out" = $'101\n100'
out=$(cat out/tiny/farm/tiny.jobs)
check "1.2 record: render tasks of the pending slices, then the simulation" test \
    "$(cut -d' ' -f1-3 <<<"$out")" = $'render 100_1 3-4\nrender 100_2 5-6\nsim 101 1-6'

# 2. running: the simulation continued once (101 -> 105) and runs; task 1 renders; task
#    2 is held until frames 5-6 are simulated
mkdir -p $logs
printf 'powder: simulation job 101 (run 1), frames 1-6, on n at 1.0\nsim: frame 4: 10 steps\n%s\n' \
    "powder: time limit near: continuing as job 105 (run 2) from the checkpoint at 2.0" \
    >$logs/tiny.sim.0001-0006.101.log
printf 'powder: simulation job 105 (run 2), frames 1-6, on n at 3.0\n' \
    >$logs/tiny.sim.0001-0006.105.log
printf '100_1|RUNNING|None\n100_2|PENDING|JobHeldUser\n105|RUNNING|None\n101|COMPLETED|None\n' \
    >fake/squeue.answer
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --status 2>&1)
st=$?
check "2.1 exit 0" test $st = 0
check "2.2 squeue asked once, for the array and the whole chain, every state" \
    test "$(cat fake/squeue.args)" = "-h -r -t all -o %i|%T|%r -j 100,101,105"
check "2.3 the chain and its state" text "simulation: frames 1-6, jobs 101 -> 105 (run 2): RUNNING"
check "2.4 frame 1 done" row 1 simulated rendered - done
check "2.5 frame 3 rendering" row 3 simulated - 100_1 rendering
check "2.6 frame 5 held" row 5 - - 100_2 "waiting: held until its frames are simulated"
check "2.7 summary" text "6 frames: 4 simulated, 2 rendered, 2 rendering, 2 waiting, 0 failed, 0 not submitted"

# 3. ended badly: Slurm cancelled task 1 at its time limit before its EXRs; the
#    simulation died; frame 4's cache is damaged; squeue no longer knows anything
printf 'powder: render task 100_1, frames 3-4, on n at 4.0\nPROGRESS 10%%\n' \
    >$logs/tiny.render.0003-0004.100_1.log
echo 'slurmstepd: error: *** JOB 103 ON n CANCELLED AT 2026-11-26T20:00:00 DUE TO TIME LIMIT ***' \
    >$logs/tiny.render.100_1.slurm.log
printf 'powder: out/tiny/cache/tiny.0005.pwc: frame 5 diverged (a particle at 7810 m/s)\n%s\n' \
    "powder: simulation ended with status 1; held render tasks cancelled: 2" \
    >>$logs/tiny.sim.0001-0006.105.log
head -c 300 out/tiny/cache/tiny.0004.pwc >t && mv t out/tiny/cache/tiny.0004.pwc
: >fake/squeue.answer
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --status 2>&1)
check "3.1 the simulation ended" text "jobs 101 -> 105 (run 2): ended"
check "3.2 frame 3: failed with Slurm's word" row 3 simulated - 100_1 \
    "failed: slurmstepd: error: *** JOB 103 ON n CANCELLED AT 2026-11-26T20:00:00 DUE TO TIME LIMIT ***"
check "3.3 frame 4: the damaged cache named" row 4 bad - 100_1 "failed: $dir/out/tiny/cache/tiny.0004.pwc"
check "3.4 frame 5: the simulation's last word" row 5 - - 100_2 \
    "failed: the simulation ended before it: powder: out/tiny/cache/tiny.0005.pwc: frame 5 diverged"
check "3.5 summary" text "6 frames: 3 simulated, 2 rendered, 0 rendering, 0 waiting, 4 failed, 0 not submitted"

# 4. a task that ended with no word from Slurm: powder's own last line
rm $logs/tiny.render.100_1.slurm.log
printf 'powder: render: out of memory\n' >>$logs/tiny.render.0003-0004.100_1.log
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --status 2>&1)
check "4.1 powder's last line" row 3 simulated - 100_1 "failed: powder: render: out of memory"

# 5. no squeue: the logs only, said so; a damaged record line reported, the rest read
echo "render garbage" >>out/tiny/farm/tiny.jobs
mkdir -p nosq && for b in sbatch; do ln -sf "$dir/fake/$b" nosq/; done
out=$(PATH="$dir/nosq" "$powder" submit tiny.json --status 2>&1)
check "5.1 no squeue said" text "job states from the logs only: squeue not found on PATH"
check "5.2 bad record line named" text "out/tiny/farm/tiny.jobs:4: not a record line; ignored"
check "5.3 still per frame" row 3 simulated - 100_1 "failed: powder: render: out of memory"

# 6. never submitted: the files only
rm out/tiny/farm/tiny.jobs
out=$(PATH="$dir/fake:$PATH" "$powder" submit tiny.json --status --frames 1-3 2>&1)
check "6.1 no record said" text "no submission recorded in $dir/out/tiny/farm/tiny.jobs"
check "6.2 frame 3 not submitted" row 3 simulated - - "not submitted"
check "6.3 only the frames asked" text "3 frames: 3 simulated, 2 rendered"

check_done
