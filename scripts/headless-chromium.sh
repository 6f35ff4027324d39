#!/bin/sh
# Opens one URL in headless Chromium and waits for it to finish: a browser command for
#   swift run msal demo --browser scripts/headless-chromium.sh
#   msal login --browser scripts/headless-chromium.sh …
# and for the end-to-end sign-in tests (Tests/MSALEmulatorTests/PublicClient/ChromiumSignInTests.swift,
# Tests/MSALCommandLineTests/DemoCommandTests.swift).
#
#   scripts/headless-chromium.sh [--pid-file FILE] [--dom FILE] [--time-limit SECONDS] URL
#
# Chromium loads URL, runs its scripts and follows redirects (such as an identity provider's page
# that submits itself, then the redirect to an app's loopback listener), writes the final page's
# DOM (--dump-dom) to --dom FILE (default: discarded; written once Chromium has exited) and exits.
# It runs in a process group of its own, whose id is appended to --pid-file FILE so a caller can
# end Chromium and every process it started with `kill -KILL -- -PGID`, and it is ended after
# --time-limit seconds (default 60) whatever happens. Each run has a new profile in a temporary directory, removed afterwards.
# --no-sandbox is added when running as root, where Chromium's sandbox cannot start. Background
# networking (updates, sync, pings) is off, and every host name but localhost resolves to nothing
# without a DNS query: Chromium reaches this machine only (the URL must be a loopback or data: URL).
set -eu

pid_file=""
dom="/dev/null"
limit=60
while [ $# -gt 1 ]; do
    case "$1" in
        --pid-file) pid_file="$2"; shift 2 ;;
        --dom) dom="$2"; shift 2 ;;
        --time-limit) limit="$2"; shift 2 ;;
        *) break ;;
    esac
done
if [ $# -ne 1 ]; then
    echo "usage: $0 [--pid-file FILE] [--dom FILE] [--time-limit SECONDS] URL" >&2
    exit 64
fi
url="$1"

browser=""
for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then
        browser="$(command -v "$name")"
        break
    fi
done
if [ -z "$browser" ]; then
    echo "$0: Chromium is not installed (bash scripts/setup.sh installs it)" >&2
    exit 127
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/msal-chromium.XXXXXX")"
trap 'rm -rf "$work"' EXIT

sandbox=""
[ "$(id -u)" -ne 0 ] || sandbox="--no-sandbox"

# setsid: Chromium's shell becomes the leader of a new session and process group, records that
# group's id, then becomes `timeout`, which ends the whole group after the limit.
status=0
setsid sh -c '
    pid_file="$1"; shift
    [ -z "$pid_file" ] || echo "$$" >> "$pid_file"
    exec "$@"
' sh "$pid_file" timeout --kill-after=5 "$limit" "$browser" --headless=new $sandbox --disable-gpu --no-first-run \
    --no-default-browser-check --disable-dev-shm-usage --disable-extensions --disable-background-networking \
    --disable-component-update --disable-sync --disable-domain-reliability --no-pings --disable-breakpad \
    --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1" \
    --user-data-dir="$work/profile" --dump-dom "$url" \
    >"$work/dom.html" 2>/dev/null || status=$?
# The DOM appears at --dom only once Chromium has exited, all at once.
if [ "$dom" != "/dev/null" ]; then
    cp "$work/dom.html" "$dom.partial" && mv -f "$dom.partial" "$dom"
fi
exit "$status"
