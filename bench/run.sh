#!/usr/bin/env bash
# Load benchmark: toolgate's /v1/evaluate (built-in packs + ~200 permission rules, a realistic event
# mix) against a no-op axum handler, side by side, with wrk at 32 connections. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${BENCH_DURATION:-10s}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
THREADS="${BENCH_THREADS:-2}"

command -v wrk >/dev/null || { echo "error: wrk not found (apt-get install -y wrk)" >&2; exit 1; }
# shellcheck source=scripts/pg.sh
source scripts/pg.sh

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    toolgate_pg_stop
    rm -rf "${WORK:-}"
}
trap cleanup EXIT
WORK="$(mktemp -d /tmp/toolgate-bench.XXXXXX)"

echo "==> building release binaries" >&2
cargo build --release --bin toolgate --example noop_server >&2
TOOLGATE=target/release/toolgate
NOOP=target/release/examples/noop_server

toolgate_pg_start
"$TOOLGATE" migrate >&2
AGENT_TOKEN="$("$TOOLGATE" token create --role agent --tenant bench | tail -n 1 | awk '{print $NF}')"
export TOOLGATE_BENCH_TOKEN="$AGENT_TOKEN"
ADMIN_TOKEN="tg_bench_admin_$RANDOM$RANDOM"

PORT="$(toolgate_pg_free_port)"
NOOP_PORT="$(toolgate_pg_free_port)"
echo "==> starting toolgate on 127.0.0.1:$PORT" >&2
TOOLGATE_ADMIN_TOKEN="$ADMIN_TOKEN" RUST_LOG=warn "$TOOLGATE" serve --listen "127.0.0.1:$PORT" \
    --cache-dir "$WORK/cache" >"$WORK/toolgate.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

python3 bench/make_bundle.py >"$WORK/bundle.json"
push() { # tenant file
    curl -fsS -X POST "http://127.0.0.1:$PORT/v1/tenants/$1/bundles" -H "authorization: Bearer $ADMIN_TOKEN" \
        -H 'content-type: application/json' --data-binary "@$2"
}
BUNDLE_ID="$(push bench "$WORK/bundle.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
curl -fsS -X POST "http://127.0.0.1:$PORT/v1/tenants/bench/bundles/$BUNDLE_ID/activate" \
    -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
echo '{"name":"org","permissions":{"deny":["Bash(shutdown:*)","Read(/etc/shadow)"]}}' >"$WORK/global.json"
GLOBAL_ID="$(push global "$WORK/global.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
curl -fsS -X POST "http://127.0.0.1:$PORT/v1/tenants/global/bundles/$GLOBAL_ID/activate" \
    -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
for _ in $(seq 100); do
    served="$(curl -fsS "http://127.0.0.1:$PORT/v1/tenants/bench/policy" -H "authorization: Bearer $ADMIN_TOKEN" \
        | python3 -c 'import json,sys; print((json.load(sys.stdin).get("served") or {}).get("bundle_id"))')"
    [ "$served" = "$BUNDLE_ID" ] && break
    sleep 0.1
done
echo "==> sample decision:" >&2
curl -fsS "http://127.0.0.1:$PORT/v1/evaluate" -H "authorization: Bearer $AGENT_TOKEN" \
    -d '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"},"cwd":"/tmp/p","session_id":"s"}' >&2
echo >&2

echo "==> starting the no-op server on 127.0.0.1:$NOOP_PORT" >&2
"$NOOP" "127.0.0.1:$NOOP_PORT" 2>"$WORK/noop.log" &
PIDS+=($!)
for _ in $(seq 100); do curl -fsS -X POST "http://127.0.0.1:$NOOP_PORT/v1/evaluate" -d '{}' >/dev/null 2>&1 && break; sleep 0.1; done

run_wrk() { # name port
    echo "==> wrk -t$THREADS -c$CONNECTIONS -d$DURATION against $1" >&2
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/events.lua "http://127.0.0.1:$2" | tee "$WORK/$1.txt" >&2
}
# Warm up both, then measure.
BENCH_DURATION_SAVED="$DURATION"; DURATION=2s
run_wrk warmup-toolgate "$PORT" >/dev/null 2>&1; run_wrk warmup-noop "$NOOP_PORT" >/dev/null 2>&1
DURATION="$BENCH_DURATION_SAVED"
run_wrk noop "$NOOP_PORT"
run_wrk toolgate "$PORT"

summary() { # file -> "rps p50 p99 non2xx"
    awk '
        /Requests\/sec/ {rps=$2}
        /^ +50%/ {p50=$2}
        /^ +99%/ {p99=$2}
        /Non-2xx/ {bad=$NF}
        END {printf "%s %s %s %s", rps, p50, p99, (bad==""?0:bad)}' "$1"
}
read -r NOOP_RPS NOOP_P50 NOOP_P99 NOOP_BAD <<<"$(summary "$WORK/noop.txt")"
read -r TG_RPS TG_P50 TG_P99 TG_BAD <<<"$(summary "$WORK/toolgate.txt")"
echo
echo "                     req/s        p50        p99   non-2xx"
printf "no-op axum     %11s %10s %10s %9s\n" "$NOOP_RPS" "$NOOP_P50" "$NOOP_P99" "$NOOP_BAD"
printf "toolgate       %11s %10s %10s %9s\n" "$TG_RPS" "$TG_P50" "$TG_P99" "$TG_BAD"
python3 -c "print(f'toolgate / no-op: {float(\"$TG_RPS\")/float(\"$NOOP_RPS\")*100:.1f} % of the requests per second')"
