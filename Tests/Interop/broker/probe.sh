#!/usr/bin/env bash
# probe.sh SCENARIO STEP: on a private session bus, starts recording_broker.py with make_answers.py's
# SCENARIO, runs runtime_client.py STEP against it, and prints the client's results and the calls
# the broker received (a test tool; docs/broker.md). PYTHON: the interpreter with pymsalruntime and
# msal; GI_PYTHON: one with PyGObject (default: .build/keyring-venv's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
scenario=$1
step=$2
PYTHON=${PYTHON:-python3}
GI_PYTHON=${GI_PYTHON:-$root/.build/keyring-venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$here/make_answers.py" "$scenario" "$work/answers.json"
export here work step PYTHON GI_PYTHON
dbus-run-session -- bash -c '
    "$GI_PYTHON" "$here/recording_broker.py" --record "$work/calls.jsonl" --answers "$work/answers.json" > "$work/broker.out" 2>&1 &
    for _ in $(seq 100); do grep -q READY "$work/broker.out" && break; sleep 0.1; done
    grep -q READY "$work/broker.out" || { cat "$work/broker.out" >&2; exit 1; }
    timeout 60 "$PYTHON" "$here/runtime_client.py" "$step"
' 2> >(grep -v "Failed to set fd limit" >&2)
echo "--- calls the broker received:"
cat "$work/calls.jsonl"
