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
TriplineSimulator: TriplineCore TriplineStore
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
rm -f /tmp/check-architecture.$$
exit $status
