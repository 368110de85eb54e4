#!/bin/bash
# Measures the cost model of docs/SCALING.md: CPU seconds (user + system) per million points for each stage, on
# a simulated study, with a release build. Prints one line per stage.
#
#   swift build -c release --product tripline
#   PEOPLE=10 DAYS=30 SHARDS=2 scripts/slurm/cost.sh
#
# Environment: TRIPLINE (default .build/release/tripline), PEOPLE (10), DAYS (30), SHARDS (2), KEEP=1.
# Figures depend on the machine and its load: say both next to any figure you quote.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
TRIPLINE="${TRIPLINE:-$here/../../.build/release/tripline}"
PEOPLE="${PEOPLE:-10}" DAYS="${DAYS:-30}" SHARDS="${SHARDS:-2}"
T="$(mktemp -d "${TMPDIR:-/tmp}/tripline-cost.XXXXXX")"
trap '[ "${KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"' EXIT
"$TRIPLINE" simulate --people "$PEOPLE" --days "$DAYS" --seed 26 -o "$T/study" | tail -1
paths=("$T/study/overland" "$T/study/rec")
zone="$(grep -o '"time_zone" *: *"[^"]*"' "$T/study/truth.json" | head -1 | sed 's/.*: *"//; s/"$//')"
echo "SELECT count(*) FROM points_hot;" > "$T/count.sql"
declare -A cpu wall
measure() {  # measure STAGE COMMAND...: adds the command's CPU and wall seconds to the stage
    local stage="$1"; shift
    /usr/bin/time -f "%U %S %e" -o "$T/time" "$@" > /dev/null
    read -r user sys elapsed < "$T/time"
    cpu[$stage]="$(echo "${cpu[$stage]:-0} + $user + $sys" | bc)"
    wall[$stage]="$(echo "${wall[$stage]:-0} + $elapsed" | bc)"
}
measure "import (one machine)" "$TRIPLINE" import --quiet --db "$T/one.sqlite" "${paths[@]}"
measure "rebuild (one machine)" "$TRIPLINE" rebuild --quiet --db "$T/one.sqlite" --timezone "$zone"
for what in points trips visits places days; do
    measure "export geojson, 5 kinds" "$TRIPLINE" export --quiet --db "$T/one.sqlite" --what "$what" --format geojson -o "$T/$what.geojson"
done
measure "plan" "$TRIPLINE" plan --shards "$SHARDS" -o "$T/plan.json" "${paths[@]}"
for ((k = 0; k < SHARDS; k++)); do
    measure "import (all shards)" "$TRIPLINE" import --quiet --plan "$T/plan.json" --shard "$k" --db "$T/shard-$k.sqlite"
    measure "rebuild (all shards)" "$TRIPLINE" rebuild --quiet --db "$T/shard-$k.sqlite" --timezone "$zone"
done
shards=(); for ((k = 0; k < SHARDS; k++)); do shards+=("$T/shard-$k.sqlite"); done
measure "merge" "$TRIPLINE" merge --quiet --db "$T/study.sqlite" "${shards[@]}"
measure "merge --results-only" "$TRIPLINE" merge --quiet --results-only --db "$T/results.sqlite" "${shards[@]}"
points="$("$TRIPLINE" query --db "$T/one.sqlite" --format csv "$T/count.sql" | tail -1 | tr -d "\r")"
bytes="$(du -sb "$T/study" | cut -f1)"
echo "study: $PEOPLE people x $DAYS days, $points points, $((bytes / 1000000)) MB of archives, $SHARDS shards; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %10s %10s %18s\n' stage "CPU s" "wall s" "CPU s / M points"
for stage in "import (one machine)" "rebuild (one machine)" "export geojson, 5 kinds" "plan" "import (all shards)" \
    "rebuild (all shards)" "merge" "merge --results-only"; do
    printf '%-26s %10s %10s %18s\n' "$stage" "${cpu[$stage]}" "${wall[$stage]}" "$(echo "scale=2; ${cpu[$stage]} * 1000000 / $points" | bc)"
done
for db in one study results; do
    echo "$db.sqlite: $(( $(stat -c %s "$T/$db.sqlite") / 1000000 )) MB ($(echo "scale=1; $(stat -c %s "$T/$db.sqlite") / $points" | bc) bytes a point)"
done
