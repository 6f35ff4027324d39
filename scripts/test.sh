#!/usr/bin/env bash
# Runs every test of swift-msal: the README's test command, and exactly what CI runs (.ci/run).
#
#   1. scripts/setup.sh               installs what is missing (OpenSSL headers, Chromium, MSAL for
#                                     Python, the real OpenID providers, a Secret Service)
#   2. scripts/lint.sh                swift format lint --strict on every tracked Swift file; then
#      scripts/sanitize.sh address    the build with swift-msal's own targets instrumented for
#                                     AddressSanitizer, and every unit, conformance, interop and
#                                     end-to-end test, at most 4 at a time (a memory error fails
#                                     them); then scripts/docs.sh (DocC, warnings as errors)
#                                     and the example service end to end
#                                     (Examples/OrdersService/scripts/end-to-end.sh)
#   3. scripts/sanitize.sh thread     the tests again, at most 4 at a time, built with
#                                     ThreadSanitizer (a data race fails them)
#   4. scripts/fuzz.sh all 20         each libFuzzer target for 20 s from the seed corpora, two at a
#                                     time (a debug build)
#
# Stops at the first stage that fails. While working on the code, run a stage alone instead, or:
#
#   bash scripts/test.sh quick         build and run the test suite once, uninstrumented (a few
#                                      minutes), no setup, no sanitizers, no fuzzing. Suites whose
#                                      tools scripts/setup.sh installs (the real OpenID providers,
#                                      MSAL for Python, Chromium) are skipped when those are
#                                      missing, each with the reason printed; with CI=true nothing
#                                      is skipped and a missing tool fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "quick" ]; then
    skip=()
    reasons=()
    if [ ! -x .build/oidc-venv/bin/python ] || [ ! -x /usr/bin/glewlwyd ]; then
        skip+=('OIDCProviderLibraryTests|OIDCProviderCommandTests|CrossProcessRefreshTests|ProviderClientCredentialsTests')
        reasons+=("the real OpenID providers (.build/oidc-venv with Django OAuth Toolkit, Debian's glewlwyd)")
    fi
    if [ ! -x .build/interop-venv/bin/python ]; then
        skip+=('PythonInteropTests|PythonRoundTripTests|PythonSelfCheckTests|ExtensionsLockInteropTests|ClientAssertionPythonInteropTests|PythonConfidentialClientInteropTests|PythonManagedIdentityInteropTests')
        reasons+=("MSAL for Python and msal-extensions (.build/interop-venv)")
    fi
    if [ ! -x .build/keyring-venv/bin/python ] || ! command -v gnome-keyring-daemon >/dev/null 2>&1 ||
        ! command -v dbus-daemon >/dev/null 2>&1; then
        skip+=('SecretServiceStorageTests')
        reasons+=("a Secret Service (gnome-keyring, dbus, .build/keyring-venv with msal-extensions)")
    fi
    if [ ! -x .build/broker-venv/bin/python ] || [ ! -x .build/keyring-venv/bin/python ] ||
        ! command -v dbus-daemon >/dev/null 2>&1 || ! command -v gdbus >/dev/null 2>&1; then
        skip+=('MSALBrokerTests')
        reasons+=("D-Bus and Microsoft's broker runtime (dbus, gdbus, .build/broker-venv with pymsalruntime, .build/keyring-venv)")
    fi
    if ! compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null; then
        skip+=('PostgresTokenCacheTests|PostgresReplicaTests')
        reasons+=("PostgreSQL (initdb and pg_ctl from Debian's postgresql)")
    fi
    if [ ! -x /usr/bin/python3 ]; then
        # Their local TLS server and the tutorial's stand-in browser are Python scripts.
        skip+=('TLSVerificationTests|TutorialTests')
        reasons+=("Python 3 (/usr/bin/python3)")
    fi
    if ! command -v chromium >/dev/null 2>&1; then
        skip+=('ChromiumSignInTests')
        reasons+=("Chromium")
    fi
    if [ "${#skip[@]}" -gt 0 ] && [ "${CI:-}" = "true" ]; then
        echo "scripts/test.sh quick: under CI=true nothing is skipped, and these are missing: ${reasons[*]}. Run bash scripts/setup.sh." >&2
        exit 1
    fi
    swift build --build-tests
    if [ "${#skip[@]}" -gt 0 ]; then
        pattern="$(IFS='|'; echo "${skip[*]}")"
        swift test --skip-build --skip "$pattern"
        echo
        for reason in "${reasons[@]}"; do
            echo "Skipped the suites that need $reason: not installed; bash scripts/setup.sh installs it."
        done
    else
        swift test --skip-build
    fi
    exit 0
fi

start=$SECONDS
stage_start=$SECONDS
stage() {
    if [ -n "${stage_name:-}" ]; then
        echo "== $stage_name took $(((SECONDS - stage_start) / 60)) min $(((SECONDS - stage_start) % 60)) s"
    fi
    stage_name="${1%% *}"
    stage_start=$SECONDS
    echo
    echo "==== $1"
}

stage "1/4 Setup"
bash scripts/setup.sh

# Two process-heavy suites spawn many processes: `msal` against the real providers
# (OIDCProviderCommandTests) and 4 processes × 50 refreshes (CrossProcessRefreshTests: the lock also
# runs in this process, under ThreadSanitizer, in RefreshLockTests). ExtensionsLockInteropTests
# races MSAL for Python for the lock file: msal-extensions polls for it every 0.25 s and gives up
# after 5 s (then writes without it); fully instrumented, swift-msal's saves once held it long
# enough that a Python process gave up. The suites against peers nobody here wrote that take
# longest — the real OpenID providers (OIDCProviderLibraryTests, ProviderClientCredentialsTests)
# and MSAL for Python's confidential client and managed identity
# (PythonConfidentialClientInteropTests, PythonManagedIdentityInteropTests) — prove wire formats;
# the Swift paths they run (generic OIDC flows, client credentials, managed identity, the cache) run
# in GenericOIDCFlowTests and the local provider's suites. All of them run in stage 2 (under
# AddressSanitizer, only swift-msal's own code instrumented) and not under ThreadSanitizer, where
# they were the longest tests (170–200 s each) and bound the stage's length.
process_heavy_suites='OIDCProviderCommandTests|CrossProcessRefreshTests|ExtensionsLockInteropTests|OIDCProviderLibraryTests|ProviderClientCredentialsTests|PythonConfidentialClientInteropTests|PythonManagedIdentityInteropTests'
# At most 4 tests at a time under each sanitizer (Swift Testing's parallelization width).
# Instrumented code is slower, and with every test of the suite in flight at once two cores delayed
# healthy requests past the short timeouts some tests set on purpose (1 s in the fault-injection
# tests, 2 s connect timeouts). Four at a time keeps both cores busy (the stages took as long as
# with no limit: 197 s and 257 s here, against 433 s and 651 s one test at a time) and the local
# servers answer within those timeouts. The local provider answers on its own event loop threads,
# not the cooperative pool the tests share (EmulatorTaskExecutor).
sanitizer_width=(--experimental-maximum-parallelization-width 4)

stage "2/4 Lint, build with AddressSanitizer and run every test"
bash scripts/lint.sh
# The committed flow fixtures are what their generator writes from Fixtures/Reference (it needs the
# `cryptography` package, which the MSAL for Python environment has).
.build/interop-venv/bin/python scripts/make-flow-fixtures.py --check-only
# One build, in .build, serves the tests, the checks below and the documentation: swift-msal's own
# targets instrumented for AddressSanitizer, its dependencies plain (scripts/sanitize.sh). An
# uninstrumented run of the same tests would only repeat this one (`bash scripts/test.sh quick` is
# that run, for development); it cost 530 s of CI (its build of our targets and its run).
export MSAL_ADDRESS_SANITIZER_OWN_TARGETS=1
# The example service (Examples/OrdersService) is compiled in the same build (Package.swift,
# MSAL_EXAMPLES): its own package would build SwiftNIO, AsyncHTTPClient, postgres-nio and
# swift-msal a second time. That its own manifest still loads is checked below.
export MSAL_EXAMPLES=1
MSAL_ASAN_SCRATCH_PATH=.build bash scripts/sanitize.sh address "${sanitizer_width[@]}"
# The fuzzing and benchmark entry points are compiled only with the package trait TestEntryPoints
# (FuzzTesting/ and Benchmarks/ enable it): a normal build must not contain them. (A count, not
# `grep -q`: with pipefail, grep leaving at the first match fails nm's side of the pipe, which would
# pass the check.)
entry_points="$(nm -j -C .build/debug/MSAL.build/*.o .build/debug/MSALJOSE.build/*.o |
    grep -cE 'MSALFuzzingSupport|JOSEFuzzingSupport|MSALCacheBenchmarkSupport' || true)"
if [ "${entry_points:-0}" -ne 0 ]; then
    echo "scripts/test.sh: a normal build contains the TestEntryPoints entry points" >&2
    exit 1
fi
# The DocC documentation, warnings as errors (a broken symbol link or an undocumented parameter
# fails it); it reuses the build above (same manifest variable, so nothing is rebuilt).
bash scripts/docs.sh
# The example service end to end: msal emulator, PostgreSQL, the service, msal login through
# headless Chromium, curl (Examples/OrdersService/scripts/end-to-end.sh says each step).
swift package --package-path Examples/OrdersService dump-package > /dev/null
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 bash Examples/OrdersService/scripts/end-to-end.sh
unset MSAL_ADDRESS_SANITIZER_OWN_TARGETS MSAL_EXAMPLES

stage "3/4 The tests under ThreadSanitizer, at most 4 at a time"
# ThreadSanitizer reports races between threads, so it also skips tests that run on one thread:
# the JSON and JOSE parsers' and vectors' tests (but the concurrent VerifyTemplateTests), the cache
# document reader's, and `msal` tests that only check text (the help of every verb, escaping,
# `jwt decode`). AddressSanitizer runs them all: they are where unsafe buffer code lives.
thread_skip=(--skip "$process_heavy_suites"'|MSALJSONTests\.|MSALJOSETests\.(?!VerifyTemplateTests)|CacheDocumentReaderTests|MSALFixtureJSONTests|ReadmeCLITests|TerminalInjectionTests|JWTCommandTests')
bash scripts/sanitize.sh thread "${sanitizer_width[@]}" "${thread_skip[@]}"

stage "4/4 Fuzzing, 20 s per target"
# A debug build: 172 s against 378 s for the release build in CI, for 0.2–0.85× the executions per second
# (a smoke run from the seed corpora; long runs use the default release build).
FUZZ_CONFIG=debug FUZZ_JOBS="${FUZZ_JOBS:-2}" bash scripts/fuzz.sh all 20

echo "== $stage_name took $(((SECONDS - stage_start) / 60)) min $(((SECONDS - stage_start) % 60)) s"
echo
echo "==== Every stage passed in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
