#!/usr/bin/env bash
# Builds the DocC documentation of the MSAL module (Sources/MSAL/MSAL.docc plus the doc comments
# of its public API) with warnings treated as errors: a broken symbol link, a documented parameter
# that does not exist or a parameter left undocumented fails the script.
#
# No package plugin is used: the symbol graph comes from SwiftPM's own `dump-symbol-graph` (which
# reuses the debug build, tests included, built first when missing) and the catalog is converted by
# the `docc` that ships with the toolchain. scripts/test.sh runs it after the tests.
#
#   bash scripts/docs.sh            # → .build/docs/MSAL.doccarchive
#   DOCC=/path/to/docc bash scripts/docs.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
docc="${DOCC:-$(command -v docc || echo "$swift_bin/docc")}"
if [ ! -x "$docc" ]; then
    echo "scripts/docs.sh: docc not found (looked on PATH and next to swift in $swift_bin); set DOCC" >&2
    exit 1
fi

# `dump-symbol-graph` extracts every module of the package, test modules included, from the debug
# build, and fails on any module that is not built: build them all first (nothing to do when the
# tests were built already, as in scripts/test.sh).
swift build --build-tests

# Public symbols only, as an app sees them.
dump_log="$(mktemp)"
trap 'rm -f "$dump_log"' EXIT
if ! swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members >"$dump_log" 2>&1; then
    cat "$dump_log" >&2
    exit 1
fi
graphs="$(sed -n 's/^Files written to //p' "$dump_log" | tail -1)"
if [ -z "$graphs" ] || [ ! -f "$graphs/MSAL.symbols.json" ]; then
    cat "$dump_log" >&2
    echo "scripts/docs.sh: no symbol graph for MSAL was written" >&2
    exit 1
fi

# Only the MSAL module's graphs (its own symbols and its extensions of other modules' types).
input="$root/.build/docs/symbol-graphs"
rm -rf "$input"
mkdir -p "$input"
cp "$graphs"/MSAL.symbols.json "$input"/
for extension in "$graphs"/MSAL@*.symbols.json; do
    [ -e "$extension" ] && cp "$extension" "$input"/
done

output="$root/.build/docs/MSAL.doccarchive"
rm -rf "$output"
"$docc" convert Sources/MSAL/MSAL.docc \
    --additional-symbol-graph-dir "$input" \
    --fallback-display-name MSAL \
    --fallback-bundle-identifier org.swift-msal.MSAL \
    --output-path "$output" \
    --warnings-as-errors
echo "Documentation: $output"
