#!/bin/bash
# Runs a simulated study through a real single-node Slurm cluster and checks it against one machine
# (docs/SCALING.md, "Testing on a real Slurm"). Not part of `swift test`; .ci/run runs it small (PEOPLE=3 DAYS=2
# SHARDS=2, the debug build). Run it as root on a
# throwaway machine or container (it installs packages and starts daemons):
#
#   swift build -c release --product tripline
#   sudo scripts/slurm/test-on-slurm.sh            # PEOPLE=20 DAYS=30 SHARDS=4 by default
#
# 1. Installs Debian's slurm-wlm and munge when missing (apt-get).
# 2. Starts munged, slurmctld and slurmd with a minimal configuration in a temporary folder (no systemd).
# 3. Simulates a study, imports and rebuilds it on one machine, and exports it.
# 4. Submits the shard array and the merge job (scripts/slurm/submit.sh), waits for the merge, and checks that every
#    device's trips, visits and daily totals and every export equal the single-machine run, byte for byte.
# 5. Runs again with shard 0 killed (SIGKILL from scancel) in the middle of its import, re-runs the array, and
#    checks the merge is the same.
# Stops every daemon it started (trap), whatever happens. Exit 0 when every check passed.
#
# Environment: TRIPLINE (default: .build/release/tripline, else .build/debug/tripline), PEOPLE, DAYS, SHARDS,
# KEEP=1 (keep the temporary folder), TMPDIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PEOPLE="${PEOPLE:-20}" DAYS="${DAYS:-30}" SHARDS="${SHARDS:-4}"
if [ -z "${TRIPLINE:-}" ]; then
    for candidate in "$root/.build/release/tripline" "$root/.build/debug/tripline"; do
        [ -x "$candidate" ] && { TRIPLINE="$candidate"; break; }
    done
fi
: "${TRIPLINE:?build tripline first (swift build -c release --product tripline) or set TRIPLINE}"
[ "$(id -u)" = 0 ] || { echo "test-on-slurm.sh: run as root (it installs slurm-wlm and munge and starts their daemons)" >&2; exit 1; }
started=$(date +%s)
say() { echo "[$(( $(date +%s) - started ))s] $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null \
        || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null; }
fi

T="$(mktemp -d "${TMPDIR:-/tmp}/tripline-slurm.XXXXXX")"
chmod 700 "$T"
stop() {
    status=$?
    set +e
    if [ -f "$T/slurm.conf" ] && [ -f "$T/slurmctld.pid" ]; then
        SLURM_CONF="$T/slurm.conf" scancel --full --signal=KILL --partition=tripline >/dev/null 2>&1
    fi
    for pidfile in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munge/munged.pid"; do
        [ -f "$pidfile" ] || continue
        pid="$(cat "$pidfile")"
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    exec 9>&- 2>/dev/null
    if [ "${KEEP:-0}" = 1 ] || [ "$status" -ne 0 ]; then echo "left in $T (logs: $T/*.log, $T/run*/logs)"; else rm -rf "$T"; fi
    exit "$status"
}
trap stop EXIT INT TERM

say "starting munged, slurmctld and slurmd in $T"
mkdir -p "$T/munge" "$T/state" "$T/spool"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed"
host="$(hostname -s)"
cpus="$(nproc)"
cat > "$T/slurm.conf" <<CONF
ClusterName=tripline-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=tripline Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 120); do
    state="$(sinfo -h -o %T 2>/dev/null | head -1)"
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || fail "the node did not come up (state '$state'); see $T/slurmctld.log and $T/slurmd.log"
say "cluster up: node $host, $cpus CPUs"

say "simulating $PEOPLE people x $DAYS days"
"$TRIPLINE" simulate --people "$PEOPLE" --days "$DAYS" --seed 26 -o "$T/study" | tail -1
paths=("$T/study/overland" "$T/study/rec")
zone="$(grep -o '"time_zone" *: *"[^"]*"' "$T/study/truth.json" | head -1 | sed 's/.*: *"//; s/"$//')"
zone="${zone:-UTC}"

say "one machine: import, rebuild ($zone), export"
one="$T/single"
mkdir -p "$one/exports"
t0=$(date +%s)
"$TRIPLINE" import --quiet --db "$one/study.sqlite" "${paths[@]}"
"$TRIPLINE" rebuild --quiet --db "$one/study.sqlite" --timezone "$zone"
for what in points trips visits places days; do
    for format in geojson csv; do
        "$TRIPLINE" export --quiet --db "$one/study.sqlite" --what "$what" --format "$format" -o "$one/exports/$what.$format"
    done
done
say "one machine took $(( $(date +%s) - t0 )) s"

# Per device, by name: trips (count, distance, moving time), visits (count, dwell) and daily totals.
cat > "$T/totals.sql" <<'SQL'
SELECT d.name, count(t.id), round(total(t.distance_m), 3), round(total(t.moving_s), 3)
  FROM devices d LEFT JOIN trips t ON t.device_id = d.id GROUP BY d.name ORDER BY d.name;
SELECT d.name, count(v.id), total(v.end_ms - v.start_ms)
  FROM devices d LEFT JOIN visits v ON v.device_id = d.id GROUP BY d.name ORDER BY d.name;
SELECT d.name, y.date, round(y.distance_m, 3), round(y.moving_s, 3), y.trips, y.visits, y.places
  FROM days y JOIN devices d ON d.id = y.device_id ORDER BY d.name, y.date;
SQL
"$TRIPLINE" query --db "$one/study.sqlite" --format csv "$T/totals.sql" > "$one/totals.csv"

check() {  # check RUN: the run's merged study equals the single-machine one
    local run="$1"
    "$TRIPLINE" query --db "$run/study.sqlite" --format csv "$T/totals.sql" > "$run/totals.csv"
    cmp -s "$one/totals.csv" "$run/totals.csv" || { diff "$one/totals.csv" "$run/totals.csv" | head; fail "$run: per-device totals differ"; }
    for f in "$one"/exports/*; do
        cmp "$f" "$run/exports/study/$(basename "$f")" || fail "$run: $(basename "$f") differs from the single-machine export"
    done
    local devices
    devices="$(grep -c . "$one/totals.csv")"
    say "$(basename "$run"): per-device trips, visits and daily totals ($devices lines) and $(ls "$one/exports" | wc -l) exports byte-identical to one machine"
}

say "Slurm: $SHARDS shards, array + merge"
t0=$(date +%s)
WORK="$T/run1" SHARDS="$SHARDS" TIMEZONE="$zone" WAIT=1 TRIPLINE="$TRIPLINE" "$here/submit.sh" "${paths[@]}" \
    || { tail -n 20 "$T"/run1/logs/*.err; fail "the Slurm run failed"; }
say "array + merge took $(( $(date +%s) - t0 )) s"
check "$T/run1"

say "Slurm again, shard 0 killed in the middle of its import, then the array re-run"
mkdir -p "$T/run2/logs"
mkfifo "$T/hold"
exec 9<>"$T/hold"  # the paused import reads this and waits: nothing is ever written to it
job="$(TRIPLINE="$TRIPLINE" PLAN="$T/run1/plan.json" WORK="$T/run2" TIMEZONE="$zone" TRIPLINE_STDIN="$T/hold" \
    TRIPLINE_PAUSE_AT=import.file.3.written sbatch --parsable --array=0 --export=ALL \
    --output="$T/run2/logs/killed-%a.out" --error="$T/run2/logs/killed-%a.err" "$here/shard-task.sbatch")"
job="${job%%;*}"
for _ in $(seq 600); do
    grep -q "paused at import.file.3.written" "$T/run2/logs/killed-0.err" 2>/dev/null && break
    sleep 0.2
done
grep -q "paused at import.file.3.written" "$T/run2/logs/killed-0.err" || fail "shard 0 never reached its third file"
scancel --full --signal=KILL "$job"
for _ in $(seq 300); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.2; done
committed="$("$TRIPLINE" info --db "$T/run2/shards/shard-0.sqlite" --json | grep -o '"done"[^0-9]*[0-9]*' | grep -o '[0-9]*$' || echo 0)"
say "shard 0 killed with its third file's transaction open (files committed: ${committed:-0})"
WORK="$T/run2" PLAN="$T/run1/plan.json" TIMEZONE="$zone" WAIT=1 TRIPLINE="$TRIPLINE" "$here/submit.sh" \
    || { tail -n 20 "$T"/run2/logs/*.err; fail "the re-run failed"; }
check "$T/run2"
for f in "$T"/run1/exports/study/*; do cmp "$f" "$T/run2/exports/study/$(basename "$f")" || fail "run2's $(basename "$f") differs from run1's"; done
say "every check passed"
