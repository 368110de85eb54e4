#!/usr/bin/env bash
# Scale run (issue 6): a synthetic year of one person at 1 Hz while moving, seen by three devices (Overland phone,
# OwnTracks work phone, GPX watch; scripts/scale-generate.py), through import, rebuild, every export and the map,
# recording wall time and peak memory (/usr/bin/time -v "Maximum resident set size") of each stage, for half the
# days and for all of them (the doubling check).
#
#   scripts/scale-run.sh [--days N] [--dir DIR] [--binary PATH]
#
# --days: the full run's days (default 365; the half run uses N/2). --dir: working folder (default
# scale-output/, gitignored; archives and databases are large: ~450 MB + ~400 MB for a year). --binary: a tripline
# to use (default: build release). Writes DIR/scale.md (a Markdown table) and prints it. Stages that do not exist
# in this build (e.g. `rebuild` before it lands) are listed as missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
days=365
dir="$root/scale-output"
binary=""
while [ $# -gt 0 ]; do
    case "$1" in
        --days) days="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        -h|--help) sed -n 2,13p "$0"; exit 0 ;;
        *) echo "scale-run.sh: unknown argument '$1'" >&2; exit 64 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "scale-run.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ -z "$binary" ]; then
    swift build -c release --product tripline >&2
    binary="$root/.build/release/tripline"
fi
mkdir -p "$dir"
table="$dir/scale.md"
has_command() { "$binary" help "$1" >/dev/null 2>&1; }

# measure LABEL DAYS POINTS COMMAND...: runs it under /usr/bin/time -v and appends a table row.
measure() {
    local label=$1 n=$2 points=$3; shift 3
    local log="$dir/time-$n-${label//[^a-z0-9]/_}.log"
    local status=0
    /usr/bin/time -v "$@" >"$log.out" 2>"$log" || status=$?
    local wall rss
    wall=$(grep 'Elapsed (wall clock)' "$log" | sed 's/.*): //')
    rss=$(grep 'Maximum resident set size' "$log" | grep -o '[0-9]*$')
    local seconds
    seconds=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    local note=""
    [ $status -eq 0 ] || note="exit $status: $(grep -v '^\s' "$log" | grep -m1 -i 'error' || true)"
    printf '| %s | %s | %s | %.2f | %d | %s |\n' "$n" "$label" "$points" "$seconds" $((rss / 1024)) "$note" | tee -a "$table"
}

{
    echo "Scale run $(date -u +%FT%TZ) on $(nproc) cores, $(uname -r); binary $binary"
    echo
    echo "| days | stage | points | wall s | peak RSS MiB | note |"
    echo "|---:|---|---:|---:|---:|---|"
} >"$table"
cat "$table"

for n in $((days / 2)) "$days"; do
    archive="$dir/archive-$n"
    db="$dir/year-$n.sqlite"
    rm -rf "$archive" "$db" "$db-wal" "$db-shm" "$dir/out-$n"
    mkdir -p "$dir/out-$n"
    python3 "$root/scripts/scale-generate.py" "$archive" "$n" 1 >&2
    measure import "$n" "-" "$binary" import --db "$db" --quiet "$archive"
    points=$(sqlite3 "$db" 'SELECT count(*) FROM points' 2>/dev/null || echo "?")
    if has_command rebuild; then
        measure rebuild "$n" "$points" "$binary" rebuild --db "$db" --quiet --timezone Europe/Berlin
    else
        echo "| $n | rebuild | $points | - | - | missing: no 'rebuild' command in this build |" | tee -a "$table"
    fi
    if has_command export; then
        for what in points trips legs visits places days; do
            for format in geojson gpx csv; do
                [ "$what/$format" = days/gpx ] && continue  # days have no location: refused by design
                measure "export $what $format" "$n" "$points" "$binary" export --db "$db" --quiet --what "$what" --format "$format" \
                    -o "$dir/out-$n/$what.$format"
            done
        done
    else
        echo "| $n | export | $points | - | - | missing: no 'export' command in this build |" | tee -a "$table"
    fi
    if has_command map; then
        measure map "$n" "$points" "$binary" map --db "$db" --quiet -o "$dir/out-$n/map.html"
    else
        echo "| $n | map | $points | - | - | missing: no 'map' command in this build |" | tee -a "$table"
    fi
    du -sh "$archive" "$db" | sed 's/^/  size: /' >&2
done
echo >>"$table"
echo "Archive and database sizes: $(du -sh "$dir"/archive-* "$dir"/year-*.sqlite | awk '{printf "%s %s; ", $2, $1}')" >>"$table"
