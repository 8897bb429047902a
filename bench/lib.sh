# Shared set-up of the benchmarks (bench/run.sh, bench/per_event.sh, bench/hook.sh): source it
# from the repository root. It builds the release binaries, starts a throwaway PostgreSQL, and offers
# helpers to start servers and load the benchmark's bundles. Everything started is stopped at exit.

# The tools the sourcing script named in BENCH_NEEDS, checked before anything is built.
for tool in ${BENCH_NEEDS:-}; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install -y $tool)" >&2; exit 1; }
done
# shellcheck source=scripts/pg.sh
source scripts/pg.sh

PIDS=()
bench_cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    toolgate_pg_stop
    rm -rf "${WORK:-}"
}
trap bench_cleanup EXIT
WORK="$(mktemp -d /tmp/toolgate-bench.XXXXXX)"

echo "==> building release binaries" >&2
# The server's build, as the container image has it (see Dockerfile), kept aside: a default
# build (bench/hook.sh's client) writes the same path.
cargo build --release --features mimalloc --bin toolgate --example noop_server --example loadgen >&2
cp target/release/toolgate "$WORK/toolgate"
TOOLGATE="$WORK/toolgate"
NOOP="$PWD/target/release/examples/noop_server"
LOADGEN="$PWD/target/release/examples/loadgen"

# The throwaway PostgreSQL keeps its data in memory when there is room
# (toolgate_pg_prefer_memory); BENCH_PG_ON_DISK=1 keeps it under /tmp.
[ "${BENCH_PG_ON_DISK:-0}" = 1 ] || toolgate_pg_prefer_memory
toolgate_pg_start
# BENCH_SPLIT=1: PostgreSQL gets CPU 1 to itself, and the servers and wrk share CPU 0, as they
# would with PostgreSQL on a host of its own (the audit's cost to toolgate alone). Backends
# started later inherit the postmaster's CPU.
# BENCH_SPLIT=load: the load generator (wrk, loadgen) gets CPU 0 to itself, and the servers and
# PostgreSQL share CPU 1, as they would with the agents on other hosts (what a server does with
# one core, undisturbed by the load it is measured with).
ON_SERVER_CPU=()
ON_LOAD_CPU=()
pin_postgres() { # cpu
    local pid postmaster
    postmaster="$(head -n 1 "$TOOLGATE_PG_DIR/data/postmaster.pid")"
    for pid in "$postmaster" $(pgrep -P "$postmaster"); do taskset -apc "$1" "$pid" >/dev/null; done
}
case "${BENCH_SPLIT:-0}" in
    0) ;;
    1 | load)
        [ "$(nproc)" -ge 2 ] || { echo "error: BENCH_SPLIT needs two CPUs" >&2; exit 1; }
        if [ "$BENCH_SPLIT" = 1 ]; then
            ON_SERVER_CPU=(taskset -c 0); ON_LOAD_CPU=(taskset -c 0); pin_postgres 1
        else
            ON_SERVER_CPU=(taskset -c 1); ON_LOAD_CPU=(taskset -c 0); pin_postgres 1
        fi
        ;;
    *) echo "error: BENCH_SPLIT is 0, 1 or load" >&2; exit 1 ;;
esac
"$TOOLGATE" migrate >&2
TOOLGATE_BENCH_TOKEN="$("$TOOLGATE" token create --role agent --tenant bench | tail -n 1 | awk '{print $NF}')"
export TOOLGATE_BENCH_TOKEN
ADMIN_TOKEN="tg_bench_admin_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"

declare -A PORTS MODE_PID

# Starts `toolgate serve --audit-mode MODE` on a free port; sets PORTS[MODE] and MODE_PID[MODE].
bench_start_toolgate() {
    local mode="$1" port
    port="$(toolgate_pg_free_port)"
    echo "==> starting toolgate --audit-mode $mode on 127.0.0.1:$port" >&2
    TOOLGATE_ADMIN_TOKEN="$ADMIN_TOKEN" RUST_LOG=warn "${ON_SERVER_CPU[@]}" "$TOOLGATE" serve --listen "127.0.0.1:$port" \
        --cache-dir "$WORK/cache-$mode" --audit-spool-dir "$WORK/spool-$mode" --audit-mode "$mode" \
        --replica-id "bench-$mode" >"$WORK/toolgate-$mode.log" 2>&1 &
    PIDS+=($!)
    MODE_PID[$mode]=$!
    PORTS[$mode]="$port"
    for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
}

# Pushes and activates, through the server on port $1, bench/make_bundle.py's bundle for tenant
# `bench` (`include: [baseline, secrets]` plus 205 permission rules) and a small `global`
# bundle; then waits until every started server serves them.
bench_load_bundles() {
    local port="$1" bundle_id global_id mode served
    python3 bench/make_bundle.py >"$WORK/bundle.json"
    push() { # tenant file
        curl -fsS -X POST "http://127.0.0.1:$port/v1/tenants/$1/bundles" -H "authorization: Bearer $ADMIN_TOKEN" \
            -H 'content-type: application/json' --data-binary "@$2" \
            | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
    }
    activate() { # tenant id
        curl -fsS -X POST "http://127.0.0.1:$port/v1/tenants/$1/bundles/$2/activate" \
            -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
    }
    bundle_id="$(push bench "$WORK/bundle.json")"
    activate bench "$bundle_id"
    echo '{"name":"org","permissions":{"deny":["Bash(shutdown:*)","Read(/etc/shadow)"]}}' >"$WORK/global.json"
    global_id="$(push global "$WORK/global.json")"
    activate global "$global_id"
    for mode in "${!PORTS[@]}"; do
        for _ in $(seq 100); do
            served="$(curl -fsS "http://127.0.0.1:${PORTS[$mode]}/v1/tenants/bench/policy" -H "authorization: Bearer $ADMIN_TOKEN" \
                | python3 -c 'import json,sys; print((json.load(sys.stdin).get("served") or {}).get("bundle_id"))')"
            [ "$served" = "$bundle_id" ] && break
            sleep 0.1
        done
    done
}

# Starts the no-op server on a free port; sets NOOP_PORT and NOOP_PID.
bench_start_noop() {
    NOOP_PORT="$(toolgate_pg_free_port)"
    echo "==> starting the no-op server on 127.0.0.1:$NOOP_PORT" >&2
    "${ON_SERVER_CPU[@]}" "$NOOP" "127.0.0.1:$NOOP_PORT" 2>"$WORK/noop.log" &
    PIDS+=($!)
    NOOP_PID=$!
    for _ in $(seq 100); do curl -fsS -X POST "http://127.0.0.1:$NOOP_PORT/v1/evaluate" -d '{}' >/dev/null 2>&1 && break; sleep 0.1; done
}

# CPU time (clock ticks) of a process.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
