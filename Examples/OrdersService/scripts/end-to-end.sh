#!/usr/bin/env bash
# The example service end to end, every part a real process on 127.0.0.1:
#   1. `msal emulator` (the local identity provider) with the service registered as a web API;
#   2. a PostgreSQL cluster of its own (initdb + pg_ctl on a free port) for the service's token cache;
#   3. the service (OrdersService);
#   4. `msal login` through headless Chromium for the service's scope, then `msal token`;
#   5. curl: the token gets 200 with what the downstream API (the emulator's protected resource)
#      says about the caller, fetched on the caller's behalf; again, from the token cache in
#      PostgreSQL; a token for another scope gets 403 insufficient_scope; none gets 401.
#
#   Examples/OrdersService/scripts/end-to-end.sh [BIN_DIR]
#
# BIN_DIR holds `msal` and `OrdersService` (default .build/debug of the repository, built with
# MSAL_EXAMPLES=1). Exits 0 when every step behaved as expected.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
bin="${1:-$root/.build/debug}"
api="1c3e5a7b-9d2f-4b6a-8c0e-2f4a6c8e0a1b"
public_client="9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c"

work="$(mktemp -d /tmp/msal-orders-XXXXXX)"
pids=()
pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_postgres=()
[ "$(id -u)" -ne 0 ] || as_postgres=(runuser -u postgres --)
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ ! -d "$work/data" ] || "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "end-to-end: $*" >&2
    for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
    exit 1
}
free_port() {
    python3 -c 'import socket,random
while True:
    p = random.randint(20000, 31999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass
    finally: s.close()'
}
wait_for() { # URL: until it answers (any status), at most 30 s
    for _ in $(seq 1 150); do
        if curl -s -o /dev/null "$1"; then return 0; fi
        sleep 0.2
    done
    fail "$1 did not answer"
}

# 1. The identity provider, with the service registered as a confidential web API.
printf 'orders-api-secret-%s' "$RANDOM$RANDOM" > "$work/api-secret"
chmod 600 "$work/api-secret"
"$bin/msal" emulator --auto-sign-in adele@contoso.example --web-api "$api" --web-api-secret-file "$work/api-secret" \
    --output json > "$work/emulator.json" 2> "$work/emulator.log" &
pids+=($!)
for _ in $(seq 1 150); do [ -s "$work/emulator.json" ] && break; sleep 0.2; done
[ -s "$work/emulator.json" ] || fail "the emulator did not start"
base="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base_url"])' "$work/emulator.json")"
base="${base%/}"
authority="$base/0b7e7b3c-6f3a-4c47-9a53-2f6a3d0c5e11"

# 2. PostgreSQL, in a directory of its own (as the postgres user when root: it refuses root).
chmod 755 "$work"
mkdir "$work/data"
[ "$(id -u)" -ne 0 ] || chown postgres "$work/data"
pg_port="$(free_port)"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/data" -U msal --auth=trust --no-instructions --no-sync > "$work/initdb.log" 2>&1 ||
    fail "initdb failed"
"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/data" -l "$work/data/server.log" -w -t 60 \
    -o "-p $pg_port -h 127.0.0.1 -k $work/data -F" start > "$work/pg_ctl.log" 2>&1 || fail "PostgreSQL did not start"

# 3. The service, its cache key and secret read from files.
head -c 32 /dev/urandom | base64 > "$work/cache-key"
service_port="$(free_port)"
"$bin/OrdersService" --port "$service_port" --authority "$authority" --allow-insecure-loopback \
    --client-id "$api" --client-secret-file "$work/api-secret" --downstream-url "$base/resource/me" \
    --postgres-port "$pg_port" --postgres-user msal --encryption-key-file "$work/cache-key" > "$work/service.log" 2>&1 &
pids+=($!)
service="http://127.0.0.1:$service_port"
wait_for "$service/health"

# 4. A user signs in for the service's scope, as an app would, then asks for the token.
token_for() { # SCOPE
    "$bin/msal" login --authority "$authority" --allow-http-loopback --client-id "$public_client" --scopes "$1" \
        --cache "$work/cache.json" --browser scripts/headless-chromium.sh > "$work/login.log" 2>&1 || fail "msal login failed"
    "$bin/msal" token --authority "$authority" --allow-http-loopback --client-id "$public_client" --scopes "$1" \
        --cache "$work/cache.json" --output json 2> "$work/token.log" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}
token="$(token_for "api://$api/Orders.Read")"
[ -n "$token" ] || fail "no access token"

# 5. The calls.
status="$(curl -s -o "$work/orders.json" -w '%{http_code}' -H "Authorization: Bearer $token" "$service/me/orders")"
[ "$status" = 200 ] || fail "GET /me/orders answered $status: $(cat "$work/orders.json")"
python3 - "$work/orders.json" <<'PY' || fail "unexpected answer: $(cat "$work/orders.json")"
import json, sys
answer = json.load(open(sys.argv[1]))
assert answer["downstream"]["userPrincipalName"] == "adele@contoso.example", answer
assert answer["tokenSource"] == "identityProvider", answer
PY
status="$(curl -s -o "$work/again.json" -w '%{http_code}' -H "Authorization: Bearer $token" "$service/me/orders")"
[ "$status" = 200 ] || fail "the second GET /me/orders answered $status"
python3 -c 'import json,sys; a = json.load(open(sys.argv[1])); assert a["tokenSource"] == "cache", a' "$work/again.json" ||
    fail "the second call did not use the token cached in PostgreSQL: $(cat "$work/again.json")"

other="$(token_for "api://$api/Orders.Write")"
status="$(curl -s -D "$work/forbidden.headers" -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $other" "$service/me/orders")"
[ "$status" = 403 ] || fail "a token without Orders.Read got $status"
grep -qi '^www-authenticate: Bearer.*insufficient_scope' "$work/forbidden.headers" ||
    fail "no insufficient_scope challenge: $(cat "$work/forbidden.headers")"
status="$(curl -s -o /dev/null -w '%{http_code}' "$service/me/orders")"
[ "$status" = 401 ] || fail "a request without a token got $status"

echo "end-to-end: GET /me/orders answered $(cat "$work/orders.json"), then $(cat "$work/again.json")"
echo "end-to-end: sign-in, 200 on behalf of the caller (then from the PostgreSQL cache), 403 insufficient_scope, 401: as expected"
