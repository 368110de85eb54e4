#!/bin/bash
# Plans a study and submits it to Slurm: a job array (one task per shard: import, rebuild, export) and a merge job
# that runs when every task succeeded (docs/SCALING.md).
#
#   TRIPLINE=/shared/bin/tripline WORK=/shared/run1 SHARDS=64 scripts/slurm/submit.sh /shared/study
#
# Environment:
#   TRIPLINE   the tripline executable (default: tripline on PATH), reachable from every node
#   WORK       the run's folder on a shared file system (created): plan.json, shards/, exports/, logs/, study.sqlite
#   SHARDS     how many shards (default 8)
#   BY         device (default) or folder: see `tripline plan --help`
#   PLAN       an existing plan to use instead of planning (its shard count wins over SHARDS)
#   TIMEZONE, SHARD_EXPORTS, RESULTS_ONLY, STUDY_EXPORTS, STUDY_FORMATS, TRIPLINE_ALLOW_UNREADABLE: passed to the jobs
#   SBATCH_OPTIONS  extra sbatch options for both jobs (e.g. "--partition=short --account=lab --time=02:00:00")
#   MAX_PARALLEL    at most this many shard tasks at once (sbatch --array=…%N)
#   WAIT=1          wait for the merge job and exit with its status (sbatch --wait)
# Prints the array and merge job ids. Logs: $WORK/logs/shard-K.out and .err, merge.out and .err.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
TRIPLINE="${TRIPLINE:-$(command -v tripline || true)}"
: "${TRIPLINE:?set TRIPLINE to the tripline executable}" "${WORK:?set WORK to the run folder}"
[ "$#" -gt 0 ] || [ -n "${PLAN:-}" ] || { echo "usage: WORK=dir SHARDS=N $0 PATH... (or PLAN=plan.json $0)" >&2; exit 64; }
mkdir -p "$WORK/logs"
WORK="$(cd "$WORK" && pwd)"
if [ -z "${PLAN:-}" ]; then
    PLAN="$WORK/plan.json"
    "$TRIPLINE" plan --shards "${SHARDS:-8}" --by "${BY:-device}" -o "$PLAN" "$@"
fi
# The plan's shard count: one "overflow_first_device_id" line per shard (the plan is written one key a line).
SHARDS="$(grep -c '"overflow_first_device_id"' "$PLAN")"
export TRIPLINE WORK PLAN SHARDS
read -r -a extra <<< "${SBATCH_OPTIONS:-}"
array="0-$((SHARDS - 1))${MAX_PARALLEL:+%$MAX_PARALLEL}"
array_id="$(sbatch --parsable "${extra[@]}" --array="$array" --export=ALL \
    --output="$WORK/logs/shard-%a.out" --error="$WORK/logs/shard-%a.err" "$here/shard-task.sbatch")"
array_id="${array_id%%;*}"
echo "array job $array_id: $SHARDS shard tasks"
wait_option=()
[ "${WAIT:-0}" = 1 ] && wait_option=(--wait)
merge_id="$(sbatch --parsable "${extra[@]}" "${wait_option[@]}" --dependency="afterok:$array_id" --kill-on-invalid-dep=yes \
    --export=ALL --output="$WORK/logs/merge.out" --error="$WORK/logs/merge.err" "$here/merge.sbatch")"
echo "merge job ${merge_id%%;*}"
