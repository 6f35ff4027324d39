#!/usr/bin/env bash
# What validating callers' tokens costs the example service: requests per second at 64 concurrent
# connections (wrk) on
#   GET /health                      no check at all (the same Authorization header sent, unread);
#   GET /health/authorized           the caller's token validated and its scope required, with the
#                                    validator's validated-token cache (the default): the same
#                                    token, as a caller sends it with each request, checked once;
#   GET /health/authorized, uncached the same on a second instance started with
#                                    --validated-token-cache-size 0: every request verifies the
#                                    signature (RS256);
# in rounds that alternate the three, in one run. The service instances are pinned to one CPU and
# wrk (one thread) to another, so that each measures the service alone on its CPU rather than how
# the two share the machine. Prints each round and the median ratios (target: validation costs
# at most 15 %), and beside them the service's CPU time per request (user and system, read from
# /proc before and after each run), which a busy VM disturbs less than the throughput.
#
#   Examples/OrdersService/scripts/benchmark.sh [BIN_DIR]
#
# BIN_DIR holds release builds of `msal` and `OrdersService` (default .build/release of the
# repository):
#   MSAL_EXAMPLES=1 swift build -c release --product OrdersService
#   MSAL_EXAMPLES=1 swift build -c release --product msal
# Needs wrk (Debian: apt install wrk). ROUNDS (default 5) and SECONDS_PER_RUN (default 10) may
# be set in the environment, and SERVICE_OPTIONS: more options for both service instances (for
# example --event-loop-executor).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
bin="${1:-$root/.build/release}"
rounds="${ROUNDS:-5}"
duration="${SECONDS_PER_RUN:-10}"
command -v wrk >/dev/null || { echo "benchmark: needs wrk (apt install wrk)" >&2; exit 2; }
# shellcheck source=environment.sh
source "$root/Examples/OrdersService/scripts/environment.sh"

# The last CPU for the service, the first for wrk (on a single CPU both share it).
service_cpu=$(($(nproc) - 1))
wrk_cpu=0
service_launcher=(taskset -c "$service_cpu")
read -r -a service_options <<< "${SERVICE_OPTIONS:-}"
start_service cached "${service_options[@]}"
cached="$service_url"
cached_pid="${pids[-1]}"
start_service uncached --validated-token-cache-size 0 "${service_options[@]}"
uncached="$service_url"
uncached_pid="${pids[-1]}"
ticks_per_second="$(getconf CLK_TCK)"
token="$(token_for "api://$api/Orders.Read")"
[ -n "$token" ] || fail "no access token"
for url in "$cached" "$uncached"; do
    status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$url/health/authorized")"
    [ "$status" = 200 ] || fail "GET /health/authorized answered $status"
done

cpu_ticks() { # PID: the user and system CPU time the process has used, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

run() { # NAME URL PID HEADER: one wrk run; its requests per second appended to $work/NAME.rps and
    # the service's CPU time per request (µs; user and system, from /proc) to $work/NAME.cpu
    local out="$work/wrk-$1.txt" before after
    before="$(cpu_ticks "$3")"
    taskset -c "$wrk_cpu" wrk -t1 -c64 -d"${duration}s" --latency -H "$4" "$2" > "$out"
    after="$(cpu_ticks "$3")"
    grep -q "Non-2xx" "$out" && fail "$1: some answers were not 2xx: $(cat "$out")"
    awk '/^Requests\/sec:/ { print $2 }' "$out" >> "$work/$1.rps"
    awk -v ticks="$((after - before))" -v hz="$ticks_per_second" \
        '/ requests in / { printf "%.2f\n", ticks / hz * 1e6 / $1 }' "$out" >> "$work/$1.cpu"
    printf '  %-22s %10s req/s   p50 %-8s  service CPU %s µs/request\n' "$1" "$(tail -1 "$work/$1.rps")" \
        "$(awk '$1 == "50%" { print $2 }' "$out")" "$(tail -1 "$work/$1.cpu")"
}

echo "benchmark: warming up"
warm=2
taskset -c "$wrk_cpu" wrk -t1 -c64 -d${warm}s -H "Authorization: Bearer $token" "$cached/health" > /dev/null
taskset -c "$wrk_cpu" wrk -t1 -c64 -d${warm}s -H "Authorization: Bearer $token" "$cached/health/authorized" > /dev/null
taskset -c "$wrk_cpu" wrk -t1 -c64 -d${warm}s -H "Authorization: Bearer $token" "$uncached/health/authorized" > /dev/null
rm -f "$work"/*.rps "$work"/*.cpu
for round in $(seq 1 "$rounds"); do
    echo "round $round of $rounds ($duration s each, 64 connections, wrk -t1 on CPU $wrk_cpu, the service on CPU $service_cpu)"
    run plain "$cached/health" "$cached_pid" "Authorization: Bearer $token"
    run validated "$cached/health/authorized" "$cached_pid" "Authorization: Bearer $token"
    run validated-uncached "$uncached/health/authorized" "$uncached_pid" "Authorization: Bearer $token"
done
python3 - "$work" <<'PY'
import statistics, sys
folder = sys.argv[1]
names = ("plain", "validated", "validated-uncached")
runs = {name: [float(v) for v in open(f"{folder}/{name}.rps").read().split()] for name in names}
cpu = {name: [float(v) for v in open(f"{folder}/{name}.cpu").read().split()] for name in names}
for name in names:
    print(f"{name:<20} median {statistics.median(runs[name]):>10,.0f} req/s  (rounds: {', '.join(f'{v:,.0f}' for v in runs[name])}); "
          f"service CPU median {statistics.median(cpu[name]):.1f} µs/request")
for name in ("validated", "validated-uncached"):
    # Each round's ratio: the runs of a round are back to back, so a slower spell of the machine
    # weighs on both sides of it.
    ratios = [v / p for v, p in zip(runs[name], runs["plain"])]
    median = statistics.median(ratios)
    cpu_ratios = [p / v for v, p in zip(cpu[name], cpu["plain"])]
    print(f"{name} / plain: median {median:.3f} (rounds {min(ratios):.3f}-{max(ratios):.3f}); "
          f"validation costs {100 * (1 - median):.1f} % of throughput (target <= 15 %); "
          f"by the service's CPU per request {statistics.median(cpu_ratios):.3f} "
          f"(rounds {min(cpu_ratios):.3f}-{max(cpu_ratios):.3f})")
PY
