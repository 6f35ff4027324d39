# What the example service's scripts (end-to-end.sh, benchmark.sh) run it in, every part a real
# process on 127.0.0.1. Sourced, with `root` (the repository) and `bin` (the folder holding `msal`
# and `OrdersService`) set:
#   1. `msal emulator` (the local identity provider) with the service registered as a web API;
#   2. a PostgreSQL cluster of its own (initdb + pg_ctl on a free port) for the service's token cache;
# and the functions `start_service NAME [OPTION…]` (the service on a free port, its URL in
# `service_url`), `token_for SCOPE` (`msal login` through headless Chromium, then `msal token`),
# `fail` and `wait_for`. Everything is stopped and removed when the script exits.

# shellcheck source=../../../scripts/postgres-cluster.sh
source "$root/scripts/postgres-cluster.sh"
api="1c3e5a7b-9d2f-4b6a-8c0e-2f4a6c8e0a1b"
public_client="9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c"

work="$(mktemp -d /tmp/msal-orders-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    postgres_cluster_stop "$work/data"
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "$(basename "$0"): $*" >&2
    for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
    exit 1
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
postgres_cluster_start "$work/data" || fail "PostgreSQL did not start"
head -c 32 /dev/urandom | base64 > "$work/cache-key"

service_launcher=()  # a command the service runs under (benchmark.sh pins it to a CPU)
start_service() { # NAME [OPTION…]: the service, its key and secret read from files
    local name="$1" port
    shift
    port="$(free_port)"
    "${service_launcher[@]}" "$bin/OrdersService" --port "$port" --authority "$authority" --allow-insecure-loopback \
        --client-id "$api" --client-secret-file "$work/api-secret" --downstream-url "$base/resource/me" \
        --postgres-port "$postgres_port" --postgres-user msal --encryption-key-file "$work/cache-key" "$@" \
        > "$work/$name.log" 2>&1 &
    pids+=($!)
    service_url="http://127.0.0.1:$port"
    wait_for "$service_url/health"
}

token_for() { # SCOPE: a user signs in for it, as an app would, then asks for the token
    "$bin/msal" login --authority "$authority" --allow-http-loopback --client-id "$public_client" --scopes "$1" \
        --cache "$work/cache.json" --browser "$root/scripts/headless-chromium.sh" > "$work/login.log" 2>&1 ||
        fail "msal login failed"
    "$bin/msal" token --authority "$authority" --allow-http-loopback --client-id "$public_client" --scopes "$1" \
        --cache "$work/cache.json" --output json 2> "$work/token.log" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}
