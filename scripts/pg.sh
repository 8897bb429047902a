# shellcheck shell=bash
# Throwaway PostgreSQL from the machine's own binaries. Source this file, then call
# `toolgate_pg_start` (exports DATABASE_URL and TOOLGATE_TEST_PG_BIN) and `toolgate_pg_stop`.
# TOOLGATE_PG_EXTRA_OPTIONS adds server options (`-c fsync=on -c synchronous_commit=on`);
# TOOLGATE_PG_PARENT is where its directory is made (default /tmp).
# initdb refuses to run as root, so as root the server runs as the `postgres` user.

toolgate_pg_bin() {
    if command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"
        return
    fi
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        if [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return
        fi
    done
    return 1
}

toolgate_pg_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
        || echo $(( 20000 + RANDOM % 20000 ))
}

toolgate_pg_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# Makes toolgate_pg_start keep the data in memory (/dev/shm) when 4 GiB are free there, for the
# benchmarks: the server runs with fsync off, so the disk is not what they measure, but on a slow
# disk the kernel's writeback of its dirty pages still stalled its writes for 10–70 ms now and then.
toolgate_pg_prefer_memory() {
    if [ -w /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -gt $((4 * 1024 * 1024)) ]; then
        export TOOLGATE_PG_PARENT=/dev/shm
    fi
}

toolgate_pg_start() {
    local bin
    if ! bin="$(toolgate_pg_bin)"; then
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "==> PostgreSQL not found; installing it with apt-get" >&2
            apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
            bin="$(toolgate_pg_bin)" || { echo "error: no pg_ctl after installing postgresql" >&2; return 1; }
        else
            echo "error: PostgreSQL binaries (initdb, pg_ctl) not found; install PostgreSQL or set DATABASE_URL" >&2
            return 1
        fi
    fi
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "==> creating the system user \`postgres\` to run the throwaway server" >&2
        useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres >&2
    fi
    TOOLGATE_PG_DIR="$(mktemp -d "${TOOLGATE_PG_PARENT:-/tmp}/toolgate-pg.XXXXXX")"
    chmod 755 "$TOOLGATE_PG_DIR"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$TOOLGATE_PG_DIR"; fi
    TOOLGATE_PG_PORT="$(toolgate_pg_free_port)"
    export TOOLGATE_PG_DIR TOOLGATE_PG_PORT
    export TOOLGATE_PG_BIN_DIR="$bin"
    echo "==> starting a throwaway PostgreSQL ($bin) in $TOOLGATE_PG_DIR on 127.0.0.1:$TOOLGATE_PG_PORT" >&2
    toolgate_pg_as_owner "$bin/initdb" -D "$TOOLGATE_PG_DIR/data" -U postgres --auth=trust \
        --no-sync -E UTF8 --locale=C >"$TOOLGATE_PG_DIR/initdb.log" 2>&1 \
        || { cat "$TOOLGATE_PG_DIR/initdb.log" >&2; return 1; }
    toolgate_pg_as_owner "$bin/pg_ctl" -D "$TOOLGATE_PG_DIR/data" -l "$TOOLGATE_PG_DIR/server.log" -w \
        -o "-p $TOOLGATE_PG_PORT -k $TOOLGATE_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400 ${TOOLGATE_PG_EXTRA_OPTIONS:-}" \
        start >/dev/null \
        || { cat "$TOOLGATE_PG_DIR/server.log" >&2; return 1; }
    export DATABASE_URL="postgres://postgres@127.0.0.1:$TOOLGATE_PG_PORT/postgres"
    export TOOLGATE_TEST_PG_BIN="$bin"
    echo "==> DATABASE_URL=$DATABASE_URL" >&2
}

toolgate_pg_stop() {
    if [ -n "${TOOLGATE_PG_DIR:-}" ] && [ -d "$TOOLGATE_PG_DIR" ]; then
        echo "==> stopping the throwaway PostgreSQL and removing $TOOLGATE_PG_DIR" >&2
        toolgate_pg_as_owner "$TOOLGATE_PG_BIN_DIR/pg_ctl" -D "$TOOLGATE_PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$TOOLGATE_PG_DIR"
    fi
}
