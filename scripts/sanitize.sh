#!/usr/bin/env bash
# Builds the package and its tests with a sanitizer and runs the tests under it.
#
#   scripts/sanitize.sh address [SWIFT TEST ARGUMENTS…]   AddressSanitizer, build in .build/asan
#   scripts/sanitize.sh thread  [SWIFT TEST ARGUMENTS…]   ThreadSanitizer, build in .build/tsan
#
# e.g. `scripts/sanitize.sh thread --filter SilentFlowTests` or `scripts/sanitize.sh address
# --no-parallel`. Each build lives apart from the normal one. A report anywhere — in the test
# process or in a worker process it starts — fails the run.
# The run's output is kept in .build/SANITIZER-test.log, and every report in it is repeated at the
# end, after the name of the last test that had started before it.
#
# address: a buffer overflow, use after free or double free, in Swift code or in the OpenSSL calls
#   made from it, aborts the process that made it. Leak detection is off: the Swift runtime keeps
#   metadata and caches for the life of the process, which LeakSanitizer would report.
# thread: a data race makes the process exit with 66 after the run. The build has -DMSAL_TSAN: in
#   it `Mutex` and checked continuations are versions whose ordering ThreadSanitizer can see (the
#   standard library's order their threads inside the uninstrumented runtime; see
#   docs/reliability.md, "ThreadSanitizer"). scripts/tsan-suppressions.txt holds the toolchain's
#   remaining false positives, each with its evidence.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
shift || true
case "$sanitizer" in
address)
    name=AddressSanitizer
    flags=(--sanitize=address --scratch-path .build/asan)
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1}"
    ;;
thread)
    name=ThreadSanitizer
    flags=(--sanitize=thread -Xswiftc -DMSAL_TSAN --scratch-path .build/tsan)
    # halt_on_error=0: report every race of the run, then exit 66. second_deadlock_stack: both
    # stacks of a lock-order inversion. suppressions: matched on the top frame only.
    export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:exitcode=66:suppressions=$PWD/scripts/tsan-suppressions.txt}"
    ;;
*)
    echo "usage: scripts/sanitize.sh address|thread [swift test arguments…]" >&2
    exit 64
    ;;
esac
# The Swift runtime's backtracer would only repeat what the sanitizer's report says.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

echo "== Building with $name"
start=$SECONDS
swift build --build-tests "${flags[@]}"
echo "== Built in $((SECONDS - start)) s"

start=$SECONDS
# The run is also kept in a log, from which the reports are repeated at the end (a CI summary
# shows the last lines of a run, where they would otherwise be lost among the passing tests).
log=.build/$sanitizer-test.log
set +e
swift test --skip-build "${flags[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "== Tests under $name ran in $((SECONDS - start)) s (exit $status)"
reports=$(grep -c -E '^(WARNING: ThreadSanitizer|ERROR: AddressSanitizer)' "$log" || true)
if [ "$reports" -gt 0 ]; then
    echo "== $reports $name report(s) in this run, each after the last test that had started before it:"
    # At most 40 lines of each report: the kind, both stacks' top frames and the summary line.
    awk '
        /^◇ Test / && / started\.$/ { test = $0 }
        /^(WARNING: ThreadSanitizer|ERROR: AddressSanitizer)/ { inside = 1; lines = 0; print "-- during: " test }
        inside {
            if (lines < 40 || /^SUMMARY: /) print
            lines++
            if (/^SUMMARY: /) { inside = 0; if (lines > 41) print "   (" lines - 41 " lines left out; the whole report is in '"$log"')" }
        }' "$log"
    [ "$status" -ne 0 ] || status=66
fi
exit "$status"
