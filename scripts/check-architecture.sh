#!/bin/sh
# Checks the claims of docs/ARCHITECTURE.md that grep can check (issue 24); run by ArchitectureTests
# (Tests/TriplineStoreTests) and by hand: scripts/check-architecture.sh [package root]. Prints every line that breaks a
# rule and exits 1, or exits 0 silently.
#
# 1. The store owns every read: no `SELECT` and no `prepare(` in Sources/ outside Sources/TriplineStore, but for
#    - the SQL the user owns: Reports/Reports.swift runs the `Queries/` reports and `tripline query` (with the
#      `visit_days` view they read), Generated/EmbeddedQueries.swift is `Queries/` compiled in;
#    - Writers/GeoPackageWriter.swift, which writes its own GeoPackage file, not the Tripline database;
#    - the files listed in PENDING below, whose reads have not moved yet (each is a known debt; empty it, never add
#      to it).
# 2. `import CSQLite` only in Sources/TriplineStore.
# 3. Each target imports only the targets Package.swift declares as its dependencies (LAYERS below, the same edges):
#    SwiftPM lets a target import any module already built before it, so the compiler alone does not keep the
#    arrows of docs/ARCHITECTURE.md; this does. The system's Glibc/Darwin are allowed everywhere, Foundation
#    everywhere but TriplineCore, where only Time/TimeZoneTable.swift reads the system's zone database with it.
# 4. No stage reaches the store's connection: no `.db` (`store.db`, `exporter.store.db`; `CommonOptions.db` is the
#    `--db` option) outside Sources/TriplineStore (`Store.db` is internal, so the compiler
#    keeps this too). The reports and `tripline query` run on `Store.queryConnection()`, read-only and restricted.
# 5. Package.swift declares exactly the edges of LAYERS for each of its targets in Sources/ (so 3 checks the
#    manifest's graph, and docs/ARCHITECTURE.md's pictures are checked against the same list).
# 6. docs/ARCHITECTURE.md is true about files and types (when the tree has it):
#    - every file or folder it names in backquotes (`Sources/…`, `Tables/PointTable.swift`, `Schema.swift`,
#      `docs/MAP.md`, …) exists, as a path from the root or as the end of a path in the tree (EXTERNAL lists the
#      names of other projects' files it cites);
#    - the store's tables it lists (`PointTable`, …) are the files `Sources/TriplineStore/Tables/*Table.swift`,
#      no more and no fewer;
#    - the error types it names (`DatabaseError`, …) are declared in Sources/, and every public or package error type
#      declared there is named (its section on errors lists them all).
# Comment lines (`//`, `///`) are not code and are not checked, nor is a line that ends with `// not a read: …` (a
# message that shows the user SQL to run).

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

PENDING="
"
ALLOWED="
Sources/TriplineExport/Reports/Reports.swift
Sources/TriplineExport/Generated/EmbeddedQueries.swift
Sources/TriplineExport/Writers/GeoPackageWriter.swift
$PENDING"

# target: the modules it may import (Package.swift's dependencies).
LAYERS="
TriplineCore:
TriplineGeography: CTriplineGeographyData TriplineCore
TriplineStore: TriplineCore CSQLite
TriplineImport: TriplineCore TriplineStore CZlib
TriplinePasses: TriplineCore TriplineStore TriplineGeography
TriplineExport: TriplineCore TriplineStore TriplineGeography
TriplineSimulator: TriplineCore TriplineStore TriplineGeography
TriplineEvaluation: TriplineCore TriplineStore TriplineImport TriplinePasses TriplineSimulator
TriplineCLI: TriplineCore TriplineStore TriplineImport TriplinePasses TriplineExport TriplineSimulator TriplineEvaluation TriplineGeography
tripline: TriplineCLI
tripline-bench: TriplineCore TriplineStore TriplineImport TriplinePasses TriplineExport TriplineSimulator TriplineGeography TriplineEvaluation
"

status=0
code() {  # file: its lines that are not comments, numbered
    grep -n '' "$1" | grep -v '^[0-9]*:[[:space:]]*//' | grep -v '// not a read: '
}
for file in $(find Sources -name '*.swift' | sort); do
    case $file in
    Sources/TriplineStore/*) continue ;;
    esac
    if ! printf '%s\n' "$ALLOWED" | grep -qx "$file"; then
        if code "$file" | grep -E 'SELECT|prepare\(' >/tmp/check-architecture.$$; then
            sed "s|^|$file:|; s|\$|  <- a read outside TriplineStore: add a typed read to Sources/TriplineStore/Tables/|" /tmp/check-architecture.$$
            status=1
        fi
    fi
    if code "$file" | grep -E '\.db([^A-Za-z_]|$)' | grep -v 'CommonOptions\.db' >/tmp/check-architecture.$$; then
        sed "s|^|$file:|; s|\$|  <- the store's connection outside TriplineStore: use a typed Store method (or Store.queryConnection() for user SQL)|" /tmp/check-architecture.$$
        status=1
    fi
    if ! printf '%s\n' "$PENDING" | grep -qx "$file"; then
        if code "$file" | grep -E '^[0-9]+:[[:space:]]*(@preconcurrency )?import CSQLite' >/tmp/check-architecture.$$; then
            sed "s|^|$file:|; s|\$|  <- import CSQLite outside TriplineStore|" /tmp/check-architecture.$$
            status=1
        fi
    fi
done
for file in $(find Sources -name '*.swift' | sort); do
    target=${file#Sources/}
    target=${target%%/*}
    allowed=$(printf '%s\n' "$LAYERS" | grep "^$target:" | cut -d: -f2)
    for module in $(code "$file" | sed -nE 's/^[0-9]+:[[:space:]]*(@preconcurrency )?import ([A-Za-z_]+).*/\2/p'); do
        case " $allowed Glibc Darwin Foundation " in *" $module "*) ;; *)
            echo "$file: import $module  <- $target does not depend on $module (Package.swift)"
            status=1 ;;
        esac
        if [ "$target" = TriplineCore ] && [ "$module" = Foundation ] && [ "$file" != Sources/TriplineCore/Time/TimeZoneTable.swift ]; then
            echo "$file: import Foundation  <- TriplineCore keeps Foundation to Time/TimeZoneTable.swift"
            status=1
        fi
    done
done

# 5. The manifest's edges: each `.target(`/`.executableTarget(` up to its first `)` holds its name and dependencies.
if [ -f Package.swift ]; then
    tr '\n' ' ' <Package.swift | awk '{
        n = split($0, parts, /\.(target|executableTarget)\(/)
        for (i = 2; i <= n; i++) {
            head = parts[i]; sub(/\).*/, "", head)
            if (!match(head, /name:[[:space:]]*"[^"]+"/)) continue
            name = substr(head, RSTART, RLENGTH); sub(/^name:[[:space:]]*"/, "", name); sub(/"$/, "", name)
            deps = ""
            if (match(head, /dependencies:[[:space:]]*\[[^]]*\]/)) {
                list = substr(head, RSTART, RLENGTH); sub(/^dependencies:[[:space:]]*\[/, "", list)
                while (match(list, /"[^"]+"/)) { deps = deps " " substr(list, RSTART + 1, RLENGTH - 2); list = substr(list, RSTART + RLENGTH) }
            }
            print name ":" deps
        }
    }' >/tmp/check-architecture.$$
    while IFS=: read -r target deps; do
        find "Sources/$target" -name '*.swift' 2>/dev/null | grep -q . || continue  # C targets, test support
        declared=$(printf '%s\n' $deps | sort | tr '\n' ' ')
        listed=$(printf '%s\n' $(printf '%s\n' "$LAYERS" | grep "^$target:" | cut -d: -f2) | sort | tr '\n' ' ')
        if ! printf '%s\n' "$LAYERS" | grep -q "^$target:"; then
            echo "Package.swift: $target  <- a target of Sources/ that LAYERS (scripts/check-architecture.sh) does not list"
            status=1
        elif [ "$declared" != "$listed" ]; then
            echo "Package.swift: $target depends on: $declared <- LAYERS says: $listed"
            status=1
        fi
    done </tmp/check-architecture.$$
fi

# 6. docs/ARCHITECTURE.md: the files, tables and error types it names.
EXTERNAL="
SQLite.swift
"
doc=docs/ARCHITECTURE.md
if [ -f "$doc" ]; then
    tree=$(find Sources Tests scripts docs Fuzz Queries SampleData Package.swift -print 2>/dev/null)
    for name in $(grep -o '`[^`]*`' "$doc" | tr -d '`' | grep -E '\.(swift|md|sh|py|sql|S|c|h|modulemap)$|^(Sources|Tests|scripts|docs|Queries|SampleData|Fuzz)/' \
        | grep -v '[*<> ]' | sort -u); do
        path=${name%/}
        [ -e "$path" ] && continue
        printf '%s\n' "$EXTERNAL" | grep -qx "$path" && continue
        printf '%s\n' "$tree" | grep -q "/$path\$" && continue
        echo "$doc: \`$name\`  <- no such file or folder"
        status=1
    done
    named=$(grep -o '`[A-Za-z]*Table`' "$doc" | tr -d '`' | grep -v '^TimeZoneTable$' | sort -u)
    files=$(ls Sources/TriplineStore/Tables/*Table.swift 2>/dev/null | sed 's|.*/||; s|\.swift$||' | sort -u)
    for table in $named; do
        printf '%s\n' "$files" | grep -qx "$table" || { echo "$doc: \`$table\`  <- no Sources/TriplineStore/Tables/$table.swift"; status=1; }
    done
    for table in $files; do
        printf '%s\n' "$named" | grep -qx "$table" || { echo "Sources/TriplineStore/Tables/$table.swift  <- a table $doc does not list"; status=1; }
    done
    declared=$(find Sources -name '*.swift' -exec sed -nE 's/^[[:space:]]*(public |package )?(struct|enum|final class|class) ([A-Za-z]+)[^{]*:[^{]*[ ,:]Error([ ,{].*)?$/\3/p' {} + 2>/dev/null | sort -u)
    exported=$(find Sources -name '*.swift' -exec sed -nE 's/^[[:space:]]*(public|package) (struct|enum|final class|class) ([A-Za-z]+)[^{]*:[^{]*[ ,:]Error([ ,{].*)?$/\3/p' {} + 2>/dev/null | sort -u)
    for error in $(grep -oE '`[A-Z][A-Za-z]*(Error|Failure)(\.[a-zA-Z]+)?`' "$doc" | tr -d '`' | sed 's/\..*//' | sort -u); do
        printf '%s\n' "$declared" | grep -qx "$error" || { echo "$doc: \`$error\`  <- no such error type in Sources/"; status=1; }
    done
    for error in $exported; do
        grep -q "\`$error[\`.]" "$doc" || { echo "Sources: $error  <- an error type $doc does not name"; status=1; }
    done
fi

rm -f /tmp/check-architecture.$$
exit $status
