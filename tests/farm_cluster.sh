# farm_cluster.sh — sourced by the farm tests: starts a one-node Slurm cluster (this
# machine, 2 CPUs) from $scratch, in the foreground from a scratch directory with a
# minimal slurm.conf (no systemd), and stops it on exit by the process ids it started.
# Needs: $scratch (made afresh), functions skip and die. Skips (exit 77) when not root,
# when the packages are not installed, or when the machine cannot run slurmd. Every
# wait is bounded. Sets SLURM_CONF, host, pids.
[ "$(id -u)" = 0 ] || skip "not root (running the Slurm daemons needs root)"

# ---- 1. packages (tools/check installs them: tools/deps.sh, POWDER_TEST_PACKAGES) --------
for p in slurmctld slurmd slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        skip "Debian package $p is not installed (tools/check installs it)"
done
for b in slurmctld slurmd munged sbatch squeue scontrol sinfo; do
    command -v $b >/dev/null || skip "$b not found although the Slurm packages are installed"
done

# slurmd 22.05 initialises its cgroup plugin whatever the proctrack and task plugins
# (cgroup.conf's CgroupPlugin=disabled arrived in later releases), so a machine without
# a cgroup filesystem (containers, chroots) cannot run a Slurm node at all.
grep -qs ' /sys/fs/cgroup' /proc/mounts ||
    skip "/sys/fs/cgroup is not mounted here (a container or chroot?): slurmd cannot start"

# ---- 2. scratch state, munge key, ports ----------------------------------------------
rm -rf "$scratch"
mkdir -p "$scratch"/{munge,state,spool,log,run,shot} || die "cannot create $scratch"
chmod 700 "$scratch/munge"
host=$(hostname -s)
dd if=/dev/urandom of="$scratch/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$scratch/munge/munge.key"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=$((20000 + ($$ % 2000) * 4))
for _ in 1 2 3 4 5 6 7 8; do
    port_free $port && port_free $((port + 1)) && break
    port=$((port + 4))
done

export SLURM_CONF=$scratch/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=powdertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$scratch/munge/munge.socket
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/run/slurmctld.pid
SlurmdPidFile=$scratch/run/slurmd.pid
SlurmctldLogFile=$scratch/log/slurmctld.log
SlurmdLogFile=$scratch/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
KillWait=5
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=powder Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

# ---- 3. daemons, stopped on every exit by the pids started here ----------------------
pids=()
stop_daemons() {
    local pid k
    # Jobs still running (a failed check) go first, so no task outlives its cluster. The
    # cluster is this script's own, so every job on it is one this script submitted.
    if [ ${#pids[@]} = 3 ] && timeout 5 scancel -u "$(id -un)" 2>/dev/null; then
        for ((k = 0; k < 50; k++)); do
            [ "$(timeout 5 squeue -h 2>/dev/null | wc -l)" = 0 ] && break
            sleep 0.2
        done
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do
        for ((k = 0; k < 50; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
}
trap stop_daemons EXIT
trap 'exit 1' INT TERM

munged --foreground --force --socket="$scratch/munge/munge.socket" \
    --key-file="$scratch/munge/munge.key" --pid-file="$scratch/run/munged.pid" \
    --log-file="$scratch/log/munged.log" --seed-file="$scratch/munge/munged.seed" \
    >"$scratch/log/munged.out" 2>&1 &
pids+=($!)
for ((k = 0; k < 50; k++)); do [ -S "$scratch/munge/munge.socket" ] && break; sleep 0.2; done
[ -S "$scratch/munge/munge.socket" ] || die "munged did not create its socket in 10 s"

slurmctld -D -i -f "$SLURM_CONF" >"$scratch/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$scratch/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for ((k = 0; k < 120; k++)); do
    state=$(timeout 5 sinfo -h -n "$host" -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && continue
        # a missing kernel feature is the machine's, not Powder's: say so and skip
        why=$(grep -h -i -m1 'cgroup' "$scratch"/log/slurmd.log "$scratch"/log/slurmd.out \
            2>/dev/null)
        [ -n "$why" ] && skip "slurmd cannot run on this machine: $why"
        die "daemon $pid exited"
    done
    sleep 0.5
done
[ "$state" = idle ] || die "node $host not idle within 60 s (state '$state')"
echo "cluster up: $host, ports $port/$((port + 1)), after $((SECONDS - t_test)) s"
