#!/usr/bin/env bash
# The PostgresCache benchmark with a PostgreSQL cluster of its own (initdb + pg_ctl on a free port
# in a temporary directory, removed afterwards), then its ratios:
#
#   scripts/postgres_bench.sh [OUTPUT]     (from Benchmarks/; OUTPUT default .build/postgres-bench.txt)
#
# Needs PostgreSQL's programs (apt install postgresql, or scripts/setup.sh at the repository root).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
output="${1:-$here/.build/postgres-bench.txt}"
# shellcheck source=../../scripts/postgres-cluster.sh
source "$root/scripts/postgres-cluster.sh"
work="$(mktemp -d /tmp/msal-pg-bench-XXXXXX)"
trap 'postgres_cluster_stop "$work/data"; rm -rf "$work"' EXIT
postgres_cluster_start "$work/data"
cd "$here"
MSAL_BENCH_POSTGRES_PORT="$postgres_port" swift package --disable-sandbox benchmark --target PostgresCache --no-progress | tee "$output"
python3 "$here/scripts/postgres_ratios.py" "$output"
