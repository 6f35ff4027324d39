# A PostgreSQL cluster of its own in a directory, on 127.0.0.1 and a free port, with the user
# `msal` trusted: for the example service's scripts and the PostgreSQL cache benchmark. Sourced:
#
#   source scripts/postgres-cluster.sh
#   postgres_cluster_start DIR      # sets postgres_port; DIR is made (and left to the caller)
#   postgres_cluster_stop DIR
#
# As root it runs the server as the postgres user (PostgreSQL refuses root). The test suites have
# their own Swift helper (Tests/MSALPostgresTokenCacheTests/PostgresServer.swift) doing the same.

postgres_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
postgres_as_owner=()
[ "$(id -u)" -ne 0 ] || postgres_as_owner=(runuser -u postgres --)

# A free TCP port on 127.0.0.1 in 20000–31999 (outside the ephemeral range).
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

postgres_cluster_start() { # DIR
    local dir="$1"
    [ -n "$postgres_bin" ] || { echo "postgres-cluster: no PostgreSQL (apt install postgresql, or scripts/setup.sh)" >&2; return 1; }
    mkdir -p "$dir"
    chmod 755 "$(dirname "$dir")"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir"
    postgres_port="$(free_port)"
    "${postgres_as_owner[@]}" "$postgres_bin/initdb" -D "$dir" -U msal --auth=trust --no-instructions --no-sync \
        > "$dir.initdb.log" 2>&1 || { echo "postgres-cluster: initdb failed:" >&2; tail -5 "$dir.initdb.log" >&2; return 1; }
    "${postgres_as_owner[@]}" "$postgres_bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
        -o "-p $postgres_port -h 127.0.0.1 -k $dir -F" start > "$dir.pg_ctl.log" 2>&1 ||
        { echo "postgres-cluster: PostgreSQL did not start:" >&2; tail -5 "$dir/server.log" >&2; return 1; }
}

postgres_cluster_stop() { # DIR
    [ ! -d "$1" ] || "${postgres_as_owner[@]}" "$postgres_bin/pg_ctl" -D "$1" -m immediate stop >/dev/null 2>&1 || true
}
