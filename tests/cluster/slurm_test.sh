#!/usr/bin/env bash
# scripts/slurm/submit.sh on a real one-node Slurm cluster that this test starts and stops.
#   slurm_test.sh TAPEGRAD_DEPTH WORK_DIR REPO_DIR
# 1. munged, slurmctld and slurmd on localhost (slurm.conf generated for this machine's CPUs; keys,
#    state, logs and sockets in a scratch folder under /tmp), all stopped by pid at the end, also on failure.
# 2. A 16-run sweep in 4 shards through submit.sh, one task requeued (scontrol requeue) after some of its
#    runs finished: it resumes, and the merged CSVs are byte-identical to an unsharded sweep's.
# 3. The same sweep again; one array task is cancelled (scancel) after some of its runs finished: the merge
#    job must not run. The same submit.sh command again: identical CSVs, and no finished run was redone.
# Prints "SKIP: ..." (ctest: skipped) when not root or the Slurm/munge packages are missing.
set -uo pipefail
bin="$1"; work="$2"; repo="$3"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/common.sh"

[ "$(id -u)" -eq 0 ] || skip "the Slurm test starts munged, slurmctld and slurmd, which needs root"
missing=()
for c in mungekey munged munge unmunge slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
  command -v "$c" > /dev/null || missing+=("$c")
done
[ ${#missing[@]} -eq 0 ] || skip "missing ${missing[*]} (scripts/deps.sh test installs munge slurmctld slurmd slurm-client)"

rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
deadline=$((SECONDS + 160))  # everything below is bounded; ctest's TIMEOUT is a last resort only
# Unix sockets allow ~107 bytes of path, so the cluster lives in a short scratch folder.
scratch=$(mktemp -d /tmp/tapegrad-slurm.XXXXXX) || fail "mktemp"
export TAPEGRAD_SLURM_TEST="$scratch"  # in the environment of every process this test starts (see stop_all)
export SLURM_CONF="$scratch/slurm.conf"
pids=() passed=0

# The processes this test started, found by pid: the daemons and the jobs' programs carry our marker in their
# environment; job steps (slurmstepd) get a clean environment but hold slurmd's log in $scratch open.
# The environment is read with bash builtins, so the scan starts no process that it could find itself.
strays() {  # the pids of such processes, other than the daemons in pids[]
  local p kv comm
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    [[ " ${pids[*]} " == *" $p "* ]] && continue
    while IFS= read -r -d '' kv; do
      [ "$kv" = "TAPEGRAD_SLURM_TEST=$scratch" ] && { echo "$p"; continue 2; }
    done 2> /dev/null < "/proc/$p/environ"
    read -r comm 2> /dev/null < "/proc/$p/comm" || continue
    [ "$comm" = slurmstepd ] && [ -n "$(find "/proc/$p/fd" -lname "$scratch/*" 2> /dev/null)" ] && echo "$p"
  done
}
stop_all() {
  local p i left
  if [ ${#pids[@]} -ge 2 ]; then  # slurmctld started: cancel every job of this cluster and let the steps end
    scancel --quiet --user=root 2> /dev/null
    for _ in $(seq 1 100); do [ -z "$(squeue -h 2> /dev/null)" ] && [ -z "$(strays)" ] && break; sleep 0.2; done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; --i)); do kill -TERM "${pids[i]}" 2> /dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2> /dev/null && echo "note: daemon $p did not stop on SIGTERM, killed"
    wait "$p" 2> /dev/null
  done
  left=$(strays)
  if [ -n "$left" ]; then echo "note: killing leftover processes" $left; kill -KILL $left 2> /dev/null; fi
  if [ "$passed" = 1 ]; then rm -rf "$scratch"
  else
    for f in slurmctld.log slurmd.log munged.log; do echo "--- $scratch/$f"; tail -n 15 "$scratch/$f" 2> /dev/null; done
    echo "the cluster's files are kept in $scratch"
  fi
}
trap stop_all EXIT
trap 'exit 1' INT TERM HUP

wait_for() {  # wait_for SECONDS WHAT COMMAND...: poll until COMMAND succeeds, within the overall deadline
  local limit=$((SECONDS + $1)) what="$2"; shift 2
  [ $limit -le $deadline ] || limit=$deadline
  until "$@"; do
    [ $SECONDS -lt $limit ] || fail "timed out waiting for $what"
    sleep 0.1
  done
}

# --- the cluster
read -r ctld_port slurmd_port < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p')
[ -n "$cpus" ] || cpus=$(nproc)
node=tapegrad-test
mkdir -p "$scratch/state" "$scratch/spool"
cat > "$SLURM_CONF" << EOF
# One node on localhost, everything in $scratch. No cgroups: processes are tracked through /proc
# (proctrack/linuxproc) and tasks are not bound (task/none), which works in containers.
# cred_expire=5: a requeued job waits cred_expire + 1 s before it starts again (default 120).
ClusterName=tapegrad-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$scratch/munge.sock,cred_expire=5
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/slurmctld.log
SlurmdLogFile=$scratch/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

mungekey -c -k "$scratch/munge.key" || fail "mungekey could not create a key"
munged -F -f --key-file="$scratch/munge.key" --socket="$scratch/munge.sock" --pid-file="$scratch/munged.pid" \
  --log-file="$scratch/munged.log" --seed-file="$scratch/munged.seed" > "$scratch/munged.out" 2>&1 &
pids+=($!)
munge_ok() { munge -n -S "$scratch/munge.sock" 2> /dev/null | unmunge -S "$scratch/munge.sock" > /dev/null 2>&1; }
wait_for 10 "munged" munge_ok
slurmctld -D -i -f "$SLURM_CONF" > "$scratch/slurmctld.out" 2>&1 &
pids+=($!)
ctld_up() { scontrol ping 2> /dev/null | grep -q UP; }
wait_for 20 "slurmctld (see $scratch/slurmctld.log)" ctld_up
slurmd -D -N "$node" -f "$SLURM_CONF" > "$scratch/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n "$node" -o %T 2> /dev/null)" = idle ]; }
wait_for 30 "node $node to be idle (see $scratch/slurmd.log)" node_idle
echo "cluster up: $cpus CPUs, slurmctld port $ctld_port, daemons ${pids[*]} ($((SECONDS)) s)"

# --- the sweep: 16 runs, 4 per shard, long enough (~0.5 s each) to cancel a shard between two runs
sweep=(--no-plots --placements post,pre --depths 1,2,3,4 --lrs 0.01 --warmups 0,5 --widths 16 --steps $((3000 / ${TAPEGRAD_STEPS_DIVISOR:-1})) --batch 16 --seeds 0
       --train-size 64 --eval-size 32 --eval-every 500)
"$bin" "${sweep[@]}" --out ref -j 2 > ref.log || fail "the unsharded sweep failed: $(cat ref.log)"
echo "unsharded sweep done ($SECONDS s)"
# Shard 1 is held after its first run (held_depth.sh): the requeue and the cancel below hit a shard with
# some, not all, of its runs finished, whatever the build's speed. HOLD_MARK is set per submission.
victim=1
submit=(env TAPEGRAD_DEPTH="$here/held_depth.sh" HOLD_REAL="$bin" HOLD_SHARD="$victim/4" HOLD_THEN=wait
        "$repo/scripts/slurm/submit.sh")
job_state() { scontrol show job -o "$1" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }

job_ids() {  # job_ids LOG: sets array and merge from submit.sh's output
  array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' "$1")
  merge=$(sed -n 's/^merge job \([0-9]*\):.*/\1/p' "$1")
  [ -n "$array" ] && [ -n "$merge" ] || fail "submit.sh did not print the job ids: $(cat "$1")"
}
held() {  # held MARK: the held shard has saved its first run and waits, its job still RUNNING
  [ -e "$1/held" ] && [ "$(job_state "${array}_$victim")" = RUNNING ]
}
merge_completed() {
  case "$(job_state "$merge")" in
    COMPLETED) return 0 ;;
    PENDING|CONFIGURING|RUNNING|COMPLETING) return 1 ;;
    *) fail "merge job $merge ended $(job_state "$merge"): $(cat "$1")" ;;
  esac
}

# --- 1. the whole sweep through submit.sh; one task is requeued mid-run (as Slurm does when a node fails)
c=$((cpus < 2 ? cpus : 2))
HOLD_MARK="$work/held-clean" "${submit[@]}" -n 4 -c "$c" -o "$work/clean" -- "${sweep[@]}" > clean.log 2>&1 || fail "submit.sh failed: $(cat clean.log)"
job_ids clean.log
wait_for 60 "shard $victim to hold after its first run" held "$work/held-clean"
scontrol requeue "${array}_$victim" || fail "scontrol requeue ${array}_$victim failed"
wait_for 90 "the merge job" merge_completed clean.shards/logs/merge.out
same_results ref clean
log="clean.shards/logs/shard-$victim.out"
grep -q "restart 1" "$log" && grep -q "([1-3] finished before, skipped)" "$log" \
  || fail "requeued shard $victim did not resume: $(cat "$log")"
grep -q "on $c threads" clean.shards/logs/shard-0.out || fail "shard 0 did not run on -c $c threads: $(cat clean.shards/logs/shard-0.out)"
[ -z "$(ls clean/*.gp 2> /dev/null)" ] || fail "--no-plots did not reach the merge job"
echo "sharded sweep through Slurm, shard $victim requeued mid-run and resumed: identical CSVs ($SECONDS s)"

# --- 2. one array task cancelled mid-run, then the same command again
HOLD_MARK="$work/held-cut" "${submit[@]}" -n 4 -c 1 -o "$work/cut" -- "${sweep[@]}" > cut.log 2>&1 || fail "submit.sh failed: $(cat cut.log)"
job_ids cut.log
wait_for 60 "shard $victim to hold after its first run" held "$work/held-cut"
scancel "${array}_$victim" || fail "scancel ${array}_$victim failed"
array_done() { [ -z "$(squeue -h -j "$array" 2> /dev/null)" ]; }
wait_for 60 "the array's other tasks" array_done
[ "$(job_state "${array}_$victim")" = CANCELLED ] || fail "task ${array}_$victim ended $(job_state "${array}_$victim"), not CANCELLED"
kept=$(count_finished "cut.shards/shard-$victim")
[ "$kept" -lt 4 ] || fail "shard $victim finished all its runs before the cancel took effect"
merge_gone() { [ -z "$(squeue -h -j "$merge" 2> /dev/null)" ]; }
wait_for 30 "the merge job to be cancelled" merge_gone
[ "$(job_state "$merge")" = CANCELLED ] || fail "merge job $merge ended $(job_state "$merge"), not CANCELLED (afterok)"
[ ! -e cut/runs.csv ] || fail "the merge ran although a shard was cancelled"
echo "cancelled shard $victim with $kept of 4 runs finished; the merge job was cancelled ($SECONDS s)"

finished_runs cut.shards > before.txt
timeout $((deadline - SECONDS)) env HOLD_MARK="$work/held-cut" "${submit[@]}" -n 4 -c 1 -o "$work/cut" --wait -- "${sweep[@]}" > again.log 2>&1 || fail "the second submit.sh --wait failed: $(cat again.log)"
same_results ref cut
finished_runs cut.shards > after.txt
not_redone before.txt after.txt
[ "$(wc -l < before.txt)" -eq $((12 + kept)) ] || fail "expected $((12 + kept)) finished runs before resubmitting: $(cat before.txt)"
log="cut.shards/logs/shard-$victim.out"
grep -q "4 runs (shard $victim/4 of 16), $((4 - kept)) to do ($kept finished before, skipped)" "$log" \
  || fail "shard $victim did not resume: $(cat "$log")"
grep -q "4 runs (shard $victim/4 of 16), 4 to do, on" "$log" || fail "the log of the first try was overwritten: $(cat "$log")"
for i in 0 1 2 3; do
  [ "$i" = "$victim" ] || grep -q "0 to do (4 finished before, skipped)" "cut.shards/logs/shard-$i.out" \
    || fail "finished shard $i ran again: $(cat "cut.shards/logs/shard-$i.out")"
done
echo "resubmitted: identical CSVs, shard $victim resumed with $((4 - kept)) runs, no finished run redone ($SECONDS s)"
passed=1
echo "PASS: slurm"
