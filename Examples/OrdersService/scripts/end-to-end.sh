#!/usr/bin/env bash
# The example service end to end, every part a real process on 127.0.0.1:
#   1. `msal emulator` (the local identity provider) with the service registered as a web API;
#   2. a PostgreSQL cluster of its own (initdb + pg_ctl on a free port) for the service's token cache;
#   3. the service (OrdersService);
#   4. `msal login` through headless Chromium for the service's scope, then `msal token`;
#   5. curl: the token gets 200 with what the downstream API (the emulator's protected resource)
#      says about the caller, fetched on the caller's behalf; again, from the token cache in
#      PostgreSQL; a token for another scope gets 403 insufficient_scope; none gets 401;
#   6. DPoP (RFC 9449): `msal token --auth-scheme dpop --url` gives a DPoP-bound token and its
#      proof for the call, which gets 200; the same proof again, and the token as Bearer, get 401.
#
#   Examples/OrdersService/scripts/end-to-end.sh [BIN_DIR]
#
# BIN_DIR holds `msal` and `OrdersService` (default .build/debug of the repository, built with
# MSAL_EXAMPLES=1). Exits 0 when every step behaved as expected.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
bin="${1:-$root/.build/debug}"
# shellcheck source=environment.sh
source "$root/Examples/OrdersService/scripts/environment.sh"

# 3. The service.
start_service service
service="$service_url"

# 4. A user signs in for the service's scope, as an app would, then asks for the token.
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

# 6. DPoP: a token bound to the client's key, and the proof for this one call.
"$bin/msal" token --authority "$authority" --allow-http-loopback --client-id "$public_client" --scopes "api://$api/Orders.Read" \
    --cache "$work/cache.json" --auth-scheme dpop --url "$service/me/orders" > "$work/dpop.txt" 2> "$work/dpop.log" ||
    fail "msal token --auth-scheme dpop failed: $(cat "$work/dpop.log")"
dpop_header="$(sed -n 1p "$work/dpop.txt")"
dpop_proof="$(sed -n 2p "$work/dpop.txt")"
case "$dpop_header" in "DPoP "*) ;; *) fail "not a DPoP header: ${dpop_header:0:20}" ;; esac
status="$(curl -s -o "$work/dpop.json" -w '%{http_code}' -H "Authorization: $dpop_header" -H "DPoP: $dpop_proof" "$service/me/orders")"
[ "$status" = 200 ] || fail "GET /me/orders with a DPoP token answered $status: $(cat "$work/dpop.json")"
status="$(curl -s -D "$work/replay.headers" -o /dev/null -w '%{http_code}' -H "Authorization: $dpop_header" -H "DPoP: $dpop_proof" \
    "$service/me/orders")"
[ "$status" = 401 ] || fail "a replayed DPoP proof got $status"
grep -qi '^www-authenticate: DPoP.*invalid_dpop_proof' "$work/replay.headers" ||
    fail "no invalid_dpop_proof challenge: $(cat "$work/replay.headers")"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${dpop_header#DPoP }" "$service/me/orders")"
[ "$status" = 401 ] || fail "a DPoP-bound token presented as Bearer got $status"

echo "end-to-end: GET /me/orders answered $(cat "$work/orders.json"), then $(cat "$work/again.json")"
echo "end-to-end: sign-in, 200 on behalf of the caller (then from the PostgreSQL cache), 403 insufficient_scope, 401; DPoP: 200 with its proof, 401 replayed or as Bearer: as expected"
