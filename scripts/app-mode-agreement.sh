#!/bin/sh
# Agreement of the rebuilt trips' modes with Google's own activity types (issue 22, item 6; docs/PASSES.md,
# "Modes against Google's own activity types"). Each input is imported into its own scratch database, rebuilt, and
# scripts/app-mode-agreement.sql counts its matched trips; one line per input, then the sums.
#
# usage: scripts/app-mode-agreement.sh [--set pass.key=value ...] INPUT...
#   INPUT: a file or folder to import, or sim:LAYOUT:SEED:PROFILE:DAYS — `tripline simulate --google` with that
#   seed, profile and days (2 people), imported in one of Google's layouts: takeout (Records.json and Semantic
#   Location History), timeline (the phone's Timeline.json) or ios (the iOS location-history.json).
# TRIPLINE names the binary (default .build/release/tripline); SCRATCH the scratch folder (default a new one in /tmp).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRIPLINE:-$here/.build/release/tripline}
sets=""
while [ $# -gt 0 ] && [ "$1" = "--set" ]; do sets="$sets --set $2"; shift 2; done
scratch=${SCRATCH:-$(mktemp -d /tmp/app-mode-agreement.XXXXXX)}
total="0 0 0 0 0 0 0 0 0"
fmt='%-60s %7s %6s %6s %7s %13s %7s %10s %11s %11s\n'
# shellcheck disable=SC2059
printf "$fmt" input matched exact class app_car train_for_car vehicle vehicle_ok named_right named_wrong
n=0
for input in "$@"; do
    n=$((n + 1))
    db="$scratch/$n.sqlite"
    rm -f "$db" "$db-wal" "$db-shm"
    case "$input" in
        sim:*)
            layout=$(echo "$input" | cut -d: -f2); seed=$(echo "$input" | cut -d: -f3)
            profile=$(echo "$input" | cut -d: -f4); days=$(echo "$input" | cut -d: -f5)
            out="$scratch/sim-$n"
            rm -rf "$out"
            "$bin" simulate --google --seed "$seed" --profile "$profile" --days "$days" --out "$out" >/dev/null
            paths=""
            for dev in "$out"/google/*; do
                case "$layout" in
                    takeout) paths="$paths $dev/Takeout" ;;
                    timeline) paths="$paths $dev/Timeline.json" ;;
                    ios) paths="$paths $dev/location-history.json" ;;
                    *) echo "unknown layout $layout" >&2; exit 2 ;;
                esac
            done
            # shellcheck disable=SC2086
            "$bin" import --db "$db" $paths >/dev/null
            rm -rf "$out" ;;
        *) "$bin" import --db "$db" "$input" >/dev/null ;;
    esac
    # shellcheck disable=SC2086
    "$bin" rebuild --db "$db" $sets >/dev/null
    row=$("$bin" query --db "$db" --format csv "$here/scripts/app-mode-agreement.sql" | tail -n 1 | tr ',' ' ')
    # shellcheck disable=SC2059,SC2086
    printf "$fmt" "$(echo "$input" | tail -c 60)" $row
    total=$(echo "$total $row" | awk '{ for (i = 1; i <= 9; i++) printf "%d ", $i + $(i + 9) }')
    rm -f "$db" "$db-wal" "$db-shm"
done
# shellcheck disable=SC2059,SC2086
printf "$fmt" "all ($n inputs)" $total
echo "$total" | awk '$1 > 0 { printf "exact %.3f, 3-class %.3f, train for a passenger vehicle %d of %d (%.3f), vehicle %d (%.3f of matched; %d where the app says car, bus or train); car/bus/train named right %d, wrong %d\n", $2 / $1, $3 / $1, $5, $4, ($4 > 0 ? $5 / $4 : 0), $6, $6 / $1, $7, $8, $9 }'
[ -n "${SCRATCH:-}" ] || rm -rf "$scratch"
