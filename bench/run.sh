#!/usr/bin/env bash
# Load benchmark: toolgate's /v1/evaluate (built-in packs + ~200 permission rules, a realistic event
# mix) against a no-op axum handler, side by side, with wrk at 32 connections. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${BENCH_DURATION:-10s}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
# wrk's threads: two on shared cores; one where BENCH_SPLIT=load gives it a core of its own, as a
# second thread there only preempts the first.
if [ "${BENCH_SPLIT:-0}" = load ]; then THREADS="${BENCH_THREADS:-1}"; else THREADS="${BENCH_THREADS:-2}"; fi

BENCH_NEEDS=wrk
# shellcheck source=bench/lib.sh
source bench/lib.sh

# One server per audit mode, side by side on the same database (distinct replica ids and spools).
MODES=(off async durable)
declare -A CPU_TG CPU_PG
for mode in "${MODES[@]}"; do bench_start_toolgate "$mode"; done
PORT="${PORTS[durable]}"
bench_load_bundles "$PORT"
echo "==> sample decision:" >&2
curl -fsS "http://127.0.0.1:$PORT/v1/evaluate" -H "authorization: Bearer $TOOLGATE_BENCH_TOKEN" \
    -d '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"},"cwd":"/tmp/p","session_id":"s"}' >&2
echo >&2
bench_start_noop

run_wrk() { # name port
    echo "==> wrk -t$THREADS -c$CONNECTIONS -d$DURATION against $1" >&2
    "${ON_LOAD_CPU[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/events.lua "http://127.0.0.1:$2" \
        | tee "$WORK/$1.txt" >&2
}
# Warm up, then measure each server in turn.
BENCH_DURATION_SAVED="$DURATION"; DURATION=2s
run_wrk warmup-noop "$NOOP_PORT" >/dev/null 2>&1
for mode in "${MODES[@]}"; do run_wrk "warmup-$mode" "${PORTS[$mode]}" >/dev/null 2>&1; done
DURATION="$BENCH_DURATION_SAVED"
run_wrk noop "$NOOP_PORT"
# CPU time (clock ticks) of every PostgreSQL backend.
PG_PID="$(head -n 1 "$TOOLGATE_PG_DIR/data/postmaster.pid")"
pg_ticks() { local t=0 p; for p in $(pgrep -P "$PG_PID"); do t=$((t + $(ticks "$p"))); done; echo "$t"; }
for mode in "${MODES[@]}"; do
    t0="$(ticks "${MODE_PID[$mode]}")"; p0="$(pg_ticks)"
    run_wrk "audit-$mode" "${PORTS[$mode]}"
    CPU_TG[$mode]=$(( $(ticks "${MODE_PID[$mode]}") - t0 )); CPU_PG[$mode]=$(( $(pg_ticks) - p0 ))
done
# The mix repeats its 17 calls, so after the warm-up toolgate answers them from its remembered
# decisions. `new` runs the audit-off server once more with a nonce in every call
# (BENCH_UNIQUE=1): each is evaluated afresh, the cost of a call never seen before.
t0="$(ticks "${MODE_PID[off]}")"
BENCH_UNIQUE=1 run_wrk audit-new "${PORTS[off]}"
CPU_TG[new]=$(( $(ticks "${MODE_PID[off]}") - t0 )); CPU_PG[new]=0

summary() { # file -> "rps p50 p99 non2xx"
    awk '
        /Requests\/sec/ {rps=$2}
        /^ +50%/ {p50=$2}
        /^ +99%/ {p99=$2}
        /Non-2xx/ {bad=$NF}
        END {printf "%s %s %s %s", rps, p50, p99, (bad==""?0:bad)}' "$1"
}
read -r NOOP_RPS NOOP_P50 NOOP_P99 NOOP_BAD <<<"$(summary "$WORK/noop.txt")"
read -r OFF_RPS _ _ _ <<<"$(summary "$WORK/audit-off.txt")"
echo
HZ="$(getconf CLK_TCK)"
SECONDS_RUN="$(python3 -c "d='$DURATION'; print(float(d[:-1]) * (60 if d.endswith('m') else 1))")"
echo "                         req/s        p50        p99   non-2xx   vs no-op   vs audit off   CPU µs/req toolgate + postgres"
printf "no-op axum         %11s %10s %10s %9s\n" "$NOOP_RPS" "$NOOP_P50" "$NOOP_P99" "$NOOP_BAD"
for mode in "${MODES[@]}" new; do
    read -r RPS P50 P99 BAD <<<"$(summary "$WORK/audit-$mode.txt")"
    printf "toolgate %-9s %11s %10s %10s %9s %9s %13s   %s\n" "$mode" "$RPS" "$P50" "$P99" "$BAD" \
        "$(python3 -c "print(f'{float(\"$RPS\")/float(\"$NOOP_RPS\")*100:.1f} %')")" \
        "$(python3 -c "print(f'{float(\"$RPS\")/float(\"$OFF_RPS\")*100:.1f} %')")" \
        "$(python3 -c "n=float('$RPS')*$SECONDS_RUN; print(f'{${CPU_TG[$mode]}/$HZ*1e6/n:.0f} + {${CPU_PG[$mode]}/$HZ*1e6/n:.0f}')")"
done

# Fixed rates (bench/loadgen.rs): the latency below saturation, where wrk's rows above show it
# at saturation. A server that cannot keep up with a rate (answers fewer than 99 % of the requests
# in time, or a median over 10 ms: a backlog) is not run at the higher ones.
RATES=(${BENCH_RATES:-5000 10000 20000 30000})
loadgen_field() { echo "$1" | awk "{ for (i = 1; i < NF; i += 2) v[\$i] = \$(i + 1); $2 }"; }
kept_up() { loadgen_field "$1" 'exit (v["achieved"] < 0.99 * v["rate"] || v["p50_us"] > 10000 || v["errors"] > 0)'; }
RATE_SECONDS="${BENCH_RATE_SECONDS:-5}"
echo
echo "fixed rates, $CONNECTIONS connections, ${RATE_SECONDS} s each: p50 / p99 / p99.9 in ms"
printf "%-18s" ""; for rate in "${RATES[@]}"; do printf "%24s" "$rate req/s"; done; echo
for name in noop off async durable; do
    if [ "$name" = noop ]; then port="$NOOP_PORT"; label="no-op axum"; else port="${PORTS[$name]}"; label="toolgate $name"; fi
    printf "%-18s" "$label"
    saturated=""
    for rate in "${RATES[@]}"; do
        if [ -n "$saturated" ]; then printf "%24s" "—"; continue; fi
        line="$("${ON_LOAD_CPU[@]}" "$LOADGEN" --url "http://127.0.0.1:$port/v1/evaluate" --rate "$rate" \
            --connections "$CONNECTIONS" --duration "$RATE_SECONDS" --warmup 1)"
        if kept_up "$line"; then
            printf "%24s" "$(loadgen_field "$line" 'printf "%.2f / %.2f / %.2f", v["p50_us"] / 1000, v["p99_us"] / 1000, v["p999_us"] / 1000')"
        else
            printf "%24s" "saturated ($(loadgen_field "$line" 'printf "%d/s", v["achieved"]'))"
            saturated=1
        fi
    done
    echo
done
ROWS="$(psql "$DATABASE_URL" -At -F ' ' -c "SELECT replica_id, count(*) FROM audit GROUP BY replica_id ORDER BY 1" 2>&1 || true)"
echo "audit rows per replica: $(echo "$ROWS" | tr '\n' ';')"
