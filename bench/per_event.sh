#!/usr/bin/env bash
# Server CPU per request, event by event: each of bench/events.lua's 17 events alone, and the
# floor under them (the no-op handler, toolgate's GET /healthz, and a Stop event that no rule
# looks at), with wrk at 32 connections and the audit off. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${BENCH_DURATION:-3s}"
# Every call new, so that each is evaluated rather than answered from the remembered decisions;
# BENCH_UNIQUE=0 measures the remembered answers instead.
export BENCH_UNIQUE="${BENCH_UNIQUE:-1}"

BENCH_NEEDS=wrk
# shellcheck source=bench/lib.sh
source bench/lib.sh

bench_start_toolgate off
bench_load_bundles "${PORTS[off]}"
bench_start_noop

cat >"$WORK/healthz.lua" <<'LUA'
wrk.method = "GET"
wrk.path = "/healthz"
LUA
cat >"$WORK/stop.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/v1/evaluate"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("TOOLGATE_BENCH_TOKEN") or "")
wrk.body = '{"session_id":"bench","cwd":"/home/dev/project","hook_event_name":"Stop"}'
LUA

measure() { # label pid port script
    wrk -t2 -c32 -d1s -s "$4" "http://127.0.0.1:$3" >/dev/null
    local before after out
    before="$(ticks "$2")"
    out="$(wrk -t2 -c32 -d"$DURATION" -s "$4" "http://127.0.0.1:$3")"
    after="$(ticks "$2")"
    echo "$out" | awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v label="$1" '
        /requests in/ {n = $1}
        /Requests\/sec/ {rps = $2}
        END {printf "%-46s %9.0f %10.1f\n", label, rps, ticks / hz * 1e6 / n}'
}

printf "%-46s %9s %10s\n" "request" "req/s" "CPU µs/req"
measure "no-op handler (Stop event)" "$NOOP_PID" "$NOOP_PORT" "$WORK/stop.lua"
measure "toolgate GET /healthz" "${MODE_PID[off]}" "${PORTS[off]}" "$WORK/healthz.lua"
measure "toolgate Stop (no rule looks at it)" "${MODE_PID[off]}" "${PORTS[off]}" "$WORK/stop.lua"
bodies="$(sed -n '/^local bodies = {/,/^}/p' bench/events.lua | grep -c '^  ')"
for n in $(seq "$bodies"); do
    label="$(sed -n '/^local bodies = {/,/^}/p' bench/events.lua | grep '^  ' | sed -n "${n}p" \
        | grep -oE '"(command|file_path|url|pattern|title|prompt)":"[^"]{0,30}|pre\("[A-Za-z_]+|hook_event_name":"[A-Za-z]+' \
        | head -n 2 | sed -E 's/^pre\("//; s/^"?[a-z_]+":"//' | paste -sd ' ')"
    BENCH_EVENT="$n" measure "$n $label" "${MODE_PID[off]}" "${PORTS[off]}" bench/events.lua
done
