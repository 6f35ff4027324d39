#!/usr/bin/env bash
# Builds the package and its tests with a sanitizer and runs the tests under it.
#
#   scripts/sanitize.sh address [SWIFT TEST ARGUMENTS…]   AddressSanitizer, build in .build/asan
#                                                         (or MSAL_ASAN_SCRATCH_PATH)
#   scripts/sanitize.sh thread  [SWIFT TEST ARGUMENTS…]   ThreadSanitizer, build in .build/tsan
#
# e.g. `scripts/sanitize.sh thread --filter SilentFlowTests` or `scripts/sanitize.sh address
# --no-parallel`. Each build lives apart from the normal one. A report anywhere — in the test
# process or in a worker process it starts — fails the run.
# The run's output is kept in .build/SANITIZER-test.log and each process's reports in
# .build/SANITIZER-reports; scripts/recap.sh repeats the reports and the failed tests at the end.
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
# Line tables only, not full debug info: the reports still name each frame's function, file and
# line, and the build takes less time (123 s against 106 s for the MSAL target and its dependencies
# under AddressSanitizer here). The index store stays: `swift test` finds the tests through it.
lean=(-Xswiftc -gline-tables-only)
case "$sanitizer" in
address)
    name=AddressSanitizer
    # Only this package's own targets are instrumented (Package.swift reads the variable below): the
    # dependencies keep the plain build's flags, so with MSAL_ASAN_SCRATCH_PATH=.build (CI, after
    # the plain build) their objects are reused rather than rebuilt: 381 s against 507 s in CI.
    # AddressSanitizer needs no instrumentation in code it does not check; its malloc serves the
    # whole process. Reusing .build means the next plain `swift build` recompiles this package's
    # targets, so a developer's default is a build of its own in .build/asan.
    export MSAL_ADDRESS_SANITIZER_OWN_TARGETS=1
    flags=(--scratch-path "${MSAL_ASAN_SCRATCH_PATH:-.build/asan}")
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1}"
    ;;
thread)
    name=ThreadSanitizer
    # Without the server-side products (Package.swift, MSAL_CORE_ONLY): their dependencies
    # (BoringSSL twice, HTTP/2, AsyncHTTPClient, postgres-nio) would be instrumented and built for
    # minutes, for adapters whose shared state is the core's: the transport exchange, which this
    # stage runs under the other transports, and the partitioned cache, which it runs with an
    # in-memory store (PartitionedStoreTests).
    export MSAL_CORE_ONLY=1
    flags=(--sanitize=thread -Xswiftc -DMSAL_TSAN --scratch-path .build/tsan "${lean[@]}")
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
if [ "$sanitizer" = address ]; then
    # The instrumentation comes from the manifest (MSAL_ADDRESS_SANITIZER_OWN_TARGETS), so check
    # that it is there: a manifest evaluated without the variable would build, and run, uninstrumented.
    # (A count, not `grep -q`: with pipefail, grep leaving early fails nm's side of the pipe.)
    instrumented="$(nm "${MSAL_ASAN_SCRATCH_PATH:-.build/asan}"/debug/MSALJSON.build/*.o 2>/dev/null | grep -c '__asan_init' || true)"
    if [ "${instrumented:-0}" -eq 0 ]; then
        echo "scripts/sanitize.sh: the build is not instrumented for AddressSanitizer" >&2
        exit 1
    fi
fi

start=$SECONDS
# Every instrumented process of the run — the test process and each worker it starts — writes its
# reports to a file of its own in $reports (log_path), so a report cannot be lost in a worker's
# captured standard error; scripts/recap.sh repeats them, and the issues the run recorded, at the
# end, where a CI summary shows them.
reports=.build/$sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
if [ "$sanitizer" = address ]; then
    export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$PWD/$reports/report"
else
    export TSAN_OPTIONS="$TSAN_OPTIONS:log_path=$PWD/$reports/report"
fi
log=.build/$sanitizer-test.log
set +e
swift test --skip-build "${flags[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "== Tests under $name ran in $((SECONDS - start)) s (exit $status)"
bash scripts/recap.sh "$log" "$reports"
if compgen -G "$reports/report.*" > /dev/null && [ "$status" -eq 0 ]; then
    status=66
fi
exit "$status"
