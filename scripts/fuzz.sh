#!/usr/bin/env bash
# Fuzzes Tripline's parsers with libFuzzer (+ AddressSanitizer, whose LeakSanitizer finds leaks).
#
#   scripts/fuzz.sh [TARGET...] [--seconds N]
#   scripts/fuzz.sh [TARGET...] --minimise [--keep N]
#
# TARGETs: overland owntracks rec gpx timestamp parameters (default: these; containers on request), each run for N seconds (default 60), one after
# the other. The library sources and Fuzz/*.swift are compiled into ONE module (never part of the SwiftPM build)
# into fuzz-output/bin/tripline-fuzz; the target is chosen with TRIPLINE_FUZZ_TARGET. Each target's corpus
# (fuzz-output/corpus/TARGET) starts from Fuzz/corpus/TARGET (committed, minimised), Fuzz/seeds/TARGET,
# SampleData/ and ../shared/corpus/ files of the matching kind. Crashes, leaks, timeouts and out-of-memory inputs
# go to fuzz-output/findings/TARGET/; logs to fuzz-output/logs/TARGET.log; a summary line per target
# (executions, corpus size, result) to fuzz-output/summary.txt. Exit status: non-zero when any target found
# anything (or the build failed).
# --minimise: instead of fuzzing, reduce fuzz-output/corpus/TARGET to a set covering the same code
# (libFuzzer -set_cover_merge) and replace Fuzz/corpus/TARGET with at most N (default 120) of its smallest inputs of
# at most 4 KiB, the subset committed to the repository and replayed by FuzzCorpusTests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=60
minimise=0
keep=120
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; shift ;;
        --minimise) minimise=1; shift ;;
        --keep) keep="$2"; shift 2 ;;
        -h|--help) sed -n 2,13p "$0"; exit 0 ;;
        overland|owntracks|rec|gpx|timestamp|containers|parameters) targets+=("$1"); shift ;;
        *) echo "fuzz.sh: unknown argument '$1' (targets: overland owntracks rec gpx timestamp containers parameters; --seconds N)" >&2; exit 64 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(overland owntracks rec gpx timestamp parameters)

out="$root/fuzz-output"
bin="$out/bin/tripline-fuzz"
mkdir -p "$out/bin" "$out/logs"

# Build when missing or older than any source.
# The readers and what they stand on (TriplineCore, TriplineStore, TriplineImport) are compiled with the fuzz targets
# into one module, so their `import Tripline…` lines are dropped from copies in fuzz-output/src.
layers=(Sources/TriplineCore Sources/TriplineStore Sources/TriplineImport)
newest=$(find "${layers[@]}" Fuzz -name '*.swift' -newer "$bin" 2>/dev/null | head -1 || true)
if [ ! -x "$bin" ] || [ -n "$newest" ]; then
    echo "fuzz.sh: building $bin" >&2
    rm -rf "$out/src" && mkdir -p "$out/src"
    while IFS= read -r f; do
        sed '/^import Tripline[A-Za-z]*$/d' "$f" >"$out/src/$(echo "${f#Sources/}" | tr / _)"
    done < <(find "${layers[@]}" -name '*.swift' | sort)
    # shellcheck disable=SC2046
    swiftc -parse-as-library -sanitize=fuzzer,address -O -g -module-name Tripline -package-name Tripline \
        $(find "$out/src" -name '*.swift' | sort) Fuzz/*.swift \
        -I Sources/CSQLite -I Sources/CZlib -lsqlite3 -lz -suppress-warnings -o "$bin.tmp" >"$out/logs/build.log" 2>&1 \
        || { grep -v 'Cannot export local symbol' "$out/logs/build.log" >&2; echo "fuzz.sh: build failed" >&2; exit 2; }
    mv "$bin.tmp" "$bin"
fi

# Seeds of the matching kind from SampleData/ and the shared corpus (read in place, never copied into the repo).
seed_dirs() {
    local t=$1
    local dirs=()
    [ -d "Fuzz/corpus/$t" ] && dirs+=("Fuzz/corpus/$t")
    [ -d "Fuzz/seeds/$t" ] && dirs+=("Fuzz/seeds/$t")
    local pattern
    case "$t" in
        overland|owntracks) pattern='*.json' ;;
        rec) pattern='*.rec' ;;
        gpx) pattern='*.gpx' ;;
        timestamp|containers|parameters) pattern='' ;;
    esac
    if [ -n "$pattern" ]; then
        local staged="$out/seeds/$t"
        rm -rf "$staged"; mkdir -p "$staged"
        for src in SampleData ../shared/corpus; do
            [ -d "$src" ] || continue
            # Small files only (libFuzzer's -max_len applies anyway); symlinks keep the repo free of copies.
            find "$src" -type f -name "$pattern" -size -64k | while read -r f; do
                ln -sf "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$staged/$(echo "$f" | tr '/' '_')"
            done
        done
        dirs+=("$staged")
    fi
    printf '%s\n' "${dirs[@]}"
}

if [ $minimise -eq 1 ]; then
    for t in "${targets[@]}"; do
        [ -d "$out/corpus/$t" ] || { echo "fuzz.sh: no fuzz-output/corpus/$t to minimise" >&2; continue; }
        merged="$out/merged/$t"
        rm -rf "$merged"; mkdir -p "$merged"
        TRIPLINE_FUZZ_TARGET=$t "$bin" -set_cover_merge=1 "$merged" "$out/corpus/$t" >"$out/logs/$t-merge.log" 2>&1
        rm -rf "Fuzz/corpus/$t"; mkdir -p "Fuzz/corpus/$t"
        { find "$merged" -type f -size -4097c -printf '%s %p\n' | sort -n | head -"$keep" || true; } | while read -r _ f; do
            cp "$f" "Fuzz/corpus/$t/"
        done
        if [ "$t" = overland ] || [ "$t" = owntracks ]; then
            # Most small fuzz inputs are broken JSON; add up to 40 covering inputs that ARE valid JSON (as a whole
            # or line by line), so the differential test against Foundation compares accepted values too.
            python3 - "$merged" "Fuzz/corpus/$t" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
def strict(b):
    try:
        json.loads(b, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        return True
    except Exception:
        return False
picked = 0
for name in sorted(os.listdir(src), key=lambda n: os.path.getsize(os.path.join(src, n))):
    data = open(os.path.join(src, name), "rb").read()
    if len(data) > 4096 or os.path.exists(os.path.join(dst, name)):
        continue
    lines = [l for l in data.split(b"\n") if l.strip()]
    if lines and (strict(data) or all(strict(l) for l in lines)):
        open(os.path.join(dst, name), "wb").write(data)
        picked += 1
        if picked == 40:
            break
PY
        fi
        echo "fuzz.sh: $t: $(ls "$out/corpus/$t" | wc -l) inputs -> $(ls "$merged" | wc -l) covering -> $(ls "Fuzz/corpus/$t" | wc -l) kept in Fuzz/corpus/$t" >&2
    done
    exit 0
fi

status=0
for t in "${targets[@]}"; do
    corpus="$out/corpus/$t"
    findings="$out/findings/$t"
    mkdir -p "$corpus" "$findings"
    mapfile -t seeds < <(seed_dirs "$t")
    log="$out/logs/$t.log"
    echo "fuzz.sh: $t for ${seconds}s (seeds: ${seeds[*]:-none})" >&2
    set +e
    TRIPLINE_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        "$bin" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    size=$(ls "$corpus" | wc -l)
    if [ $rc -eq 0 ]; then result=ok; else result="FOUND (exit $rc): $(ls "$findings" | tr '\n' ' ')"; status=1; fi
    line="$(date -u +%FT%TZ) $t seconds=$seconds executions=${execs:-?} corpus=$size result=$result"
    echo "$line" | tee -a "$out/summary.txt"
    if [ $rc -ne 0 ]; then grep -A25 -m1 'ERROR\|==ERROR\|fuzz invariant\|Fatal error\|deadly signal' "$log" >&2 || tail -30 "$log" >&2; fi
done
exit $status
