#!/usr/bin/env bash
# Renders a Tripline map page to a PNG with headless Chromium and reports how long the browser took.
#
#   scripts/render-map.sh map.html [out.png] [WIDTHxHEIGHT]
#
# Needs Debian's `chromium` (apt-get install -y chromium). The page is opened from a file:// URL with the network
# unused (the page's Content-Security-Policy forbids any request anyway). The time reported is the wall time of the
# whole headless run (browser start, load, layout, script, paint, screenshot), and, for comparison, the same for an
# empty page, so the difference is what the map itself costs; and the time the page's own script reports it was
# ready (parsed, styled, script run), from a --dump-dom run.
set -euo pipefail

html=${1:?usage: render-map.sh map.html [out.png] [WIDTHxHEIGHT]}
png=${2:-${html%.html}.png}
size=${3:-1400x900}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "render-map.sh: no chromium found; install it with: apt-get install -y chromium" >&2
    exit 1
fi
html_abs=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
profile=$(mktemp -d)
empty=$(mktemp --suffix=.html)
trap 'rm -rf "$profile" "$empty"' EXIT
echo '<!DOCTYPE html><title>empty</title>' > "$empty"

shot() {  # shot FILE PNG -> prints seconds
    local start end
    start=$(date +%s.%N)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
        --no-first-run --no-default-browser-check --disable-extensions --disable-background-networking \
        --window-size="${size/x/,}" --screenshot="$2" "file://$1" >/dev/null 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

shot "$empty" "$profile/empty.png" >/dev/null   # warm the disk cache
baseline=$(shot "$empty" "$profile/empty.png")
total=$(shot "$html_abs" "$png")
bytes=$(stat -c %s "$html")
# The page's script stamps <html data-ready="ms since navigation start"> when it has finished setting up.
ready=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --no-first-run \
    --window-size="${size/x/,}" --dump-dom "file://$html_abs" 2>/dev/null | grep -o 'data-ready="[0-9]*"' | grep -o '[0-9]*' || true)
printf 'rendered %s -> %s (%s)\n' "$html" "$png" "$size"
awk -v n="$bytes" 'BEGIN { printf "  file size        %d bytes (%.2f MiB)\n", n, n / 1048576 }'
awk -v t="$total" -v b="$baseline" 'BEGIN { printf "  headless run     %.2f s (empty page: %.2f s; map cost: %.2f s)\n", t, b, t - b }'
printf '  page ready       %s ms after navigation start (parsed, laid out, script done)\n' "${ready:-?}"
