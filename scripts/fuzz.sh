#!/usr/bin/env bash
# Builds the libFuzzer targets of FuzzTesting/ (release, AddressSanitizer) and runs one or all.
# FUZZ_CONFIG=debug builds them in debug instead: faster to build, slower to run.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options…]   one target, e.g. scripts/fuzz.sh FuzzJWS 300
#   scripts/fuzz.sh all SECONDS [libFuzzer options…]      every target, SECONDS each
#   scripts/fuzz.sh jws,jwks SECONDS …                    the targets listed, SECONDS each
#   scripts/fuzz.sh list                                  the target names
#
# TARGET is a name from `list`, with or without its `Fuzz` prefix, any case (`jws`, `CacheDocument`).
# The seed corpora are (re)written from the fixtures by scripts/fuzz-corpus.py into
# FuzzTesting/Corpus/<target>/, where libFuzzer also keeps the inputs it finds. A crash, a hang
# (-timeout), an out-of-memory or a failed invariant stops the target; its input is kept under
# FuzzTesting/Crashes/ and the script exits non-zero (after running the remaining targets, for `all`).
# Replay one input: FuzzTesting/.build/release/<target> (or debug/) FuzzTesting/Crashes/<file>
#
# Environment: FUZZ_SKIP_BUILD=1 uses the binaries already built; FUZZ_JOBS=N runs N targets at a
# time for `all` (default 1); FUZZ_LOG_DIR keeps each run's full libFuzzer output (default: a
# temporary folder, removed unless a target failed).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
package="$root/FuzzTesting"
# FUZZ_CONFIG=debug builds faster and runs slower (CI's smoke run); release is the default.
config="${FUZZ_CONFIG:-release}"
case "$config" in debug | release) ;; *) echo "FUZZ_CONFIG is debug or release" >&2; exit 2 ;; esac
bin="$package/.build/$config"
crashes="$package/Crashes"
corpus="$package/Corpus"

# Target name and the longest input libFuzzer generates for it (the seeds' sizes, with room).
targets=(
    "FuzzJWS 16384"
    "FuzzJWKS 8192"
    "FuzzJSON 4096"
    "FuzzAuthorityMetadata 8192"
    "FuzzAuthorityURL 512"
    "FuzzTokenResponse 8192"
    "FuzzCacheDocument 16384"
    "FuzzLoopbackRequest 2048"
    "FuzzDPoP 8192"
)

usage() {
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

resolve() {
    local wanted
    wanted="$(echo "$1" | tr '[:upper:]' '[:lower:]')"
    wanted="${wanted#fuzz}"
    for entry in "${targets[@]}"; do
        local name="${entry%% *}"
        local short
        short="$(echo "${name#Fuzz}" | tr '[:upper:]' '[:lower:]')"
        if [ "$wanted" = "$short" ]; then
            echo "$entry"
            return 0
        fi
    done
    return 1
}

build() {
    if [ "${FUZZ_SKIP_BUILD:-0}" = "1" ]; then
        return 0
    fi
    echo "== Building the fuzz targets ($config, -sanitize=fuzzer,address)"
    local start=$SECONDS
    # `--sanitize=fuzzer` makes SwiftPM link with libFuzzer's `main` (without it, SwiftPM renames each
    # executable's entry point to `<Target>_main`, which a libFuzzer target does not define); the
    # `-Xswiftc` flag comes last so swiftc instruments the Swift code for both coverage and ASan.
    # MSAL_CORE_ONLY: the fuzz targets use no server-side product, so their dependencies
    # (AsyncHTTPClient and its graph) are not even resolved (Package.swift).
    MSAL_CORE_ONLY=1 swift build --package-path "$package" -c "$config" \
        --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
    echo "== Built in $((SECONDS - start)) s"
}

# run NAME MAX_LEN SECONDS LOG [options…]: runs one target; returns libFuzzer's status.
run() {
    local name="$1" max_len="$2" seconds="$3" log="$4"
    shift 4
    mkdir -p "$corpus/$name" "$crashes"
    local status=0
    # The Swift runtime's backtracer would handle the fatal signal before libFuzzer saves the input.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}" \
        "$bin/$name" "$corpus/$name" \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="$crashes/$name-" -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
    local done_line runs
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)"
    [ -n "$done_line" ] || done_line="$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 || true)"
    runs="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)"
    local cov ft corp
    cov="$(echo "$done_line" | grep -oE 'cov: [0-9]+' | awk '{print $2}' || true)"
    ft="$(echo "$done_line" | grep -oE 'ft: [0-9]+' | awk '{print $2}' || true)"
    corp="$(echo "$done_line" | grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' | awk '{print $2}' || true)"
    if [ "$status" -eq 0 ]; then
        printf '%-24s OK     %12s execs in %5s s  cov: %-6s ft: %-7s corpus: %s\n' \
            "$name" "${runs:-?}" "$seconds" "${cov:-?}" "${ft:-?}" "${corp:-?}"
    else
        printf '%-24s FAILED (exit %s) after %s execs; input kept under %s\n' "$name" "$status" "${runs:-?}" "$crashes"
        grep -E 'Fuzz invariant failed|ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
        echo "    full output: $log"
        # The input itself, so that a run on a machine that is thrown away (CI) can be replayed:
        # echo '…' | base64 -d > input && FuzzTesting/.build/release/<target> input
        local input
        input="$(grep -oE 'Test unit written to .*' "$log" | tail -1 | sed 's/^Test unit written to //' || true)"
        if [ -n "$input" ] && [ -f "$input" ] && [ "$(stat -c %s "$input")" -le 65536 ]; then
            echo "    input (base64): $(base64 -w0 "$input")"
        fi
    fi
    return "$status"
}

[ $# -ge 1 ] || usage
if [ "$1" = "list" ]; then
    for entry in "${targets[@]}"; do echo "${entry%% *}"; done
    exit 0
fi
[ $# -ge 2 ] || usage
target="$1"
seconds="$2"
shift 2
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "SECONDS must be a positive integer" >&2; exit 2; }

selected=()
if [ "$target" = "all" ]; then
    selected=("${targets[@]}")
else
    IFS=',' read -ra names <<<"$target"
    for name in "${names[@]}"; do
        entry="$(resolve "$name")" || { echo "Unknown target $name (see scripts/fuzz.sh list)" >&2; exit 2; }
        selected+=("$entry")
    done
fi

build
python3 "$root/scripts/fuzz-corpus.py" --out "$corpus" >/dev/null

# The corpus comes from the repository alone (issue 39, finding 10): written again from a copy of
# scripts/ and Fixtures/ in a folder with nothing beside it, it has the same seeds as the one just
# written here, where a checkout may have other folders (such as ../shared) next to it.
alone="$(mktemp -d)"
mkdir -p "$alone/repo"
cp -r "$root/scripts" "$root/Fixtures" "$alone/repo/"
env -u MSAL_REFERENCE_DIR python3 "$alone/repo/scripts/fuzz-corpus.py" --out "$alone/corpus" >/dev/null
env -u MSAL_REFERENCE_DIR python3 "$root/scripts/fuzz-corpus.py" --out "$alone/here" >/dev/null
if ! diff <(cd "$alone/corpus" && find . -type f | sort) <(cd "$alone/here" && find . -type f | sort) >/dev/null; then
    echo "scripts/fuzz.sh: the seed corpus depends on files outside the repository" >&2
    rm -rf "$alone"
    exit 1
fi
echo "== The seed corpus comes from the repository alone ($(cd "$alone/corpus" && find . -type f | wc -l) seeds)"
rm -rf "$alone"

keep_logs=0
if [ -n "${FUZZ_LOG_DIR:-}" ]; then
    logs="$FUZZ_LOG_DIR"
    mkdir -p "$logs"
    keep_logs=1
else
    logs="$(mktemp -d)"
fi

failed=0
jobs="${FUZZ_JOBS:-1}"
if [ "$jobs" -le 1 ] || [ ${#selected[@]} -eq 1 ]; then
    for entry in "${selected[@]}"; do
        run "${entry%% *}" "${entry##* }" "$seconds" "$logs/${entry%% *}.log" "$@" || failed=1
    done
else
    # Several at a time: each prints its one-line summary when it ends and leaves its status in a file.
    for entry in "${selected[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
        (
            status=0
            run "${entry%% *}" "${entry##* }" "$seconds" "$logs/${entry%% *}.log" "$@" || status=$?
            echo "$status" >"$logs/${entry%% *}.status"
        ) &
    done
    wait
    for entry in "${selected[@]}"; do
        [ "$(cat "$logs/${entry%% *}.status" 2>/dev/null || echo 1)" = "0" ] || failed=1
    done
fi

if [ "$failed" -ne 0 ]; then
    echo "== Fuzzing found a problem; logs in $logs, inputs in $crashes"
    exit 1
fi
[ "$keep_logs" -eq 1 ] || rm -rf "$logs"
echo "== No crash, hang or failed invariant"
