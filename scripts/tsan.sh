#!/usr/bin/env bash
# Builds the package and its tests with ThreadSanitizer and runs the tests under it.
#
#   scripts/tsan.sh                  every test
#   scripts/tsan.sh --filter REGEX   only the tests matching REGEX (passed on to `swift test`)
#
# The build lives in .build/tsan, apart from the normal one, and is built with -DMSAL_TSAN: in it
# `Mutex` is `ThreadSanitizerMutex`, a lock ThreadSanitizer can see (Synchronization.Mutex locks
# inside the uninstrumented standard library on Linux, so every value behind one would be reported;
# see docs/reliability.md, "ThreadSanitizer"). A data race reported anywhere — in the test process
# or in a worker process it starts — fails the run: ThreadSanitizer makes the process exit with 66.
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(--sanitize=thread -Xswiftc -DMSAL_TSAN --scratch-path .build/tsan)

echo "== Building with ThreadSanitizer"
start=$SECONDS
swift build --build-tests "${flags[@]}"
echo "== Built in $((SECONDS - start)) s"

# halt_on_error=0: report every race of the run, then exit 66. second_deadlock_stack: both stacks of
# a lock-order inversion. The Swift runtime's backtracer would only repeat what the report says.
# suppressions: the toolchain's known false positives, each with its evidence (top frame only).
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:exitcode=66:suppressions=$PWD/scripts/tsan-suppressions.txt}"
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
start=$SECONDS
status=0
swift test --skip-build "${flags[@]}" "$@" || status=$?
echo "== Tests under ThreadSanitizer ran in $((SECONDS - start)) s (exit $status)"
exit "$status"
