#!/bin/sh
# Checks the Swift lines changed since BASE against `.swift-format` (swift-format, shipped with the toolchain as
# `swift format`): scripts/check-format.sh [BASE] (default origin/main). Only the changed lines are checked, and only
# for what the tree already follows (docs/ARCHITECTURE.md, "Formatting"): the lint rules the configuration turns on
# and lines of at most 160 columns. swift-format's own layout findings (`Indentation`, `AddLines`, `RemoveLine`,
# `TrailingComma`) are left out: its pretty-printer breaks a call that does not fit after `(` with one argument per
# line, where the code continues the arguments after `(` and wraps them (2,811 such findings in the tree), so they
# would ask every changed line of a wrapped call to be laid out unlike the lines around it. `TrailingComma` is the
# printer's too: it asks for a comma where the printer would break a collection, and it reports the line of the
# printer's output, not of the file (a literal the printer would split lands its finding lines further down, on
# whatever line of the file has that number).
# Prints each finding on a changed line and exits 1, or exits 0 silently; exits 2 when `swift format` or BASE is
# missing.
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
base=${1:-origin/main}
if ! swift format --version >/dev/null 2>&1; then
    echo "check-format: this toolchain has no 'swift format'" >&2
    exit 2
fi
if ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
    echo "check-format: no commit '$base' to compare with" >&2
    exit 2
fi
status=0
findings=$(mktemp)
for file in $(git diff --name-only --diff-filter=AM "$base" -- '*.swift' | grep -v '/Generated/'); do
    [ -f "$file" ] || continue
    # The changed lines of the file as "first last" pairs, from the hunk headers `@@ -a,b +c,d @@`.
    ranges=$(git diff -U0 "$base" -- "$file" | sed -nE 's/^@@ -[0-9,]+ \+([0-9]+)(,([0-9]+))? @@.*/\1 \3/p' |
        awk '{ n = ($2 == "") ? 1 : $2; if (n > 0) print $1, $1 + n - 1 }')
    [ -n "$ranges" ] || continue
    swift format lint --configuration .swift-format "$file" 2>&1 | grep -v -E 'warning: \[(Indentation|AddLines|RemoveLine|TrailingComma)\]' | awk -v ranges="$ranges" '
        BEGIN { n = split(ranges, r, /[ \n]/); for (i = 1; i < n; i += 2) { lo[++k] = r[i]; hi[k] = r[i + 1] } }
        {
            split($0, part, ":"); line = part[2] + 0
            for (i = 1; i <= k; i++) if (line >= lo[i] && line <= hi[i]) { print; next }
        }' >"$findings"
    if [ -s "$findings" ]; then
        cat "$findings"
        status=1
    fi
done
rm -f "$findings"
exit $status
