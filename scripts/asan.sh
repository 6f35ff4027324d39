#!/usr/bin/env bash
# Builds the package and its tests with AddressSanitizer and runs the tests under it.
#
#   scripts/asan.sh                  every test
#   scripts/asan.sh --filter REGEX   only the tests matching REGEX (passed on to `swift test`)
#
# The build lives in .build/asan, apart from the normal one. Any report — a buffer overflow, a
# use after free, a double free, in Swift code or in OpenSSL calls made from it — aborts the
# process that made it and fails the run. Leak detection is off: the Swift runtime keeps metadata
# and caches for the life of the process, which LeakSanitizer would report.
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(--sanitize=address --scratch-path .build/asan)

echo "== Building with AddressSanitizer"
start=$SECONDS
swift build --build-tests "${flags[@]}"
echo "== Built in $((SECONDS - start)) s"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1}"
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
start=$SECONDS
status=0
swift test --skip-build "${flags[@]}" "$@" || status=$?
echo "== Tests under AddressSanitizer ran in $((SECONDS - start)) s (exit $status)"
exit "$status"
