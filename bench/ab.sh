#!/usr/bin/env bash
# A/B of two toolgate binaries: server (and PostgreSQL) CPU per request, req/s and p99 with wrk, alternating runs
# against one database. bench/ab.sh BIN_A BIN_B [ROUNDS=6] [SECS=3] [AUDIT_MODE=off]; LUA= picks
# the event mix (bench/events.lua); BENCH_SPLIT=1 puts PostgreSQL on CPU 1 and the servers and
# wrk on CPU 0, as bench/run.sh does. BENCH_RATE=N measures at a fixed rate with bench/loadgen.rs
# (built by bench/run.sh) instead of wrk's saturation, and prints p50/p99 too. Needs wrk; see
# bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
A="$1"; B="$2"; ROUNDS="${3:-6}"; SECS="${4:-3}"; MODE="${5:-off}"
LUA="${LUA:-bench/events.lua}"
source scripts/pg.sh
WORK="$(mktemp -d /tmp/toolgate-ab.XXXX)"
cleanup() { kill "${PA:-}" "${PB:-}" 2>/dev/null || true; toolgate_pg_stop >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
[ "${BENCH_PG_ON_DISK:-0}" = 1 ] || toolgate_pg_prefer_memory
toolgate_pg_start >/dev/null 2>&1
ON_SERVER_CPU=()
if [ "${BENCH_SPLIT:-0}" = 1 ]; then
  ON_SERVER_CPU=(taskset -c 0)
  main="$(head -n 1 "$TOOLGATE_PG_DIR/data/postmaster.pid")"
  for pid in "$main" $(pgrep -P "$main"); do taskset -apc 1 "$pid" >/dev/null; done
fi
"$A" migrate >/dev/null 2>&1
export TOOLGATE_BENCH_TOKEN="$("$A" token create --role agent --tenant bench | tail -n 1 | awk '{print $NF}')"
ADMIN_TOKEN="tg_bench_admin_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
start() { # bin name -> port
  local port; port="$(toolgate_pg_free_port)"
  TOOLGATE_ADMIN_TOKEN="$ADMIN_TOKEN" RUST_LOG=warn "${ON_SERVER_CPU[@]}" "$1" serve --listen "127.0.0.1:$port" --no-migrate \
    --cache-dir "$WORK/cache-$2" --audit-spool-dir "$WORK/spool-$2" --audit-mode "$MODE" --replica-id "$2" >"$WORK/$2.log" 2>&1 &
  echo "$! $port"
}
read -r PA PORTA < <(start "$A" a)
read -r PB PORTB < <(start "$B" b)
for p in $PORTA $PORTB; do for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1 && break; sleep 0.1; done; done
python3 bench/make_bundle.py >"$WORK/bundle.json" 2>/dev/null
push() { curl -fsS -X POST "http://127.0.0.1:$PORTA/v1/tenants/$1/bundles" -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' --data-binary "@$2"; }
ID="$(push bench "$WORK/bundle.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
curl -fsS -X POST "http://127.0.0.1:$PORTA/v1/tenants/bench/bundles/$ID/activate" -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
echo '{"name":"org","permissions":{"deny":["Bash(shutdown:*)","Read(/etc/shadow)"]}}' >"$WORK/global.json"
GID="$(push global "$WORK/global.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
curl -fsS -X POST "http://127.0.0.1:$PORTA/v1/tenants/global/bundles/$GID/activate" -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
for p in $PORTA $PORTB; do for _ in $(seq 100); do
  s="$(curl -fsS "http://127.0.0.1:$p/v1/tenants/bench/policy" -H "authorization: Bearer $ADMIN_TOKEN" | python3 -c 'import json,sys; print((json.load(sys.stdin).get("served") or {}).get("bundle_id"))')"
  [ "$s" = "$ID" ] && break; sleep 0.2; done; done
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
# CPU ticks of the throwaway PostgreSQL: its postmaster and every child process.
pg_ticks() {
  local main t=0 p; main="$(head -n 1 "$TOOLGATE_PG_DIR/data/postmaster.pid")"
  for p in "$main" $(pgrep -P "$main"); do t=$((t + $(ticks "$p" 2>/dev/null || echo 0))); done; echo "$t"
}
run() { # pid port -> "rps cpu_us p99 pg_cpu_us"
  local b a pb pa out; b=$(ticks $1); pb=$(pg_ticks)
  if [ -n "${BENCH_RATE:-}" ]; then
    out="$("${ON_SERVER_CPU[@]}" target/release/examples/loadgen --url "http://127.0.0.1:$2/v1/evaluate" \
      --rate "$BENCH_RATE" --duration "$SECS" --warmup 1 --bodies "${LUA%.lua}.jsonl")"; a=$(ticks $1); pa=$(pg_ticks)
    echo "$out" | awk -v t=$((a-b)) -v pt=$((pa-pb)) -v secs="$SECS" '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
      n = v["requests"] * (secs + 1) / secs; printf "%.0f %.1f %.2fms %.1f p50 %.2fms p99.9 %.2fms\n", v["achieved"], t*1e4/n, v["p99_us"]/1000, pt*1e4/n, v["p50_us"]/1000, v["p999_us"]/1000 }'
    return
  fi
  out="$("${ON_SERVER_CPU[@]}" wrk -t2 -c32 -d"${SECS}s" --latency -s "$LUA" "http://127.0.0.1:$2")"; a=$(ticks $1); pa=$(pg_ticks)
  echo "$out" | awk -v t=$((a-b)) -v pt=$((pa-pb)) '/requests in/ {n=$1} /Requests\/sec/ {r=$2} $1=="99%" {p=$2} END {printf "%.0f %.1f %s %.1f\n", r, t*1e4/n, p, pt*1e4/n}'
}
wrk -t2 -c32 -d2s -s "$LUA" "http://127.0.0.1:$PORTA" >/dev/null; wrk -t2 -c32 -d2s -s "$LUA" "http://127.0.0.1:$PORTB" >/dev/null
for i in $(seq "$ROUNDS"); do
  echo "A $(run $PA $PORTA)"; echo "B $(run $PB $PORTB)"
done | tee "$WORK/res" >&2
python3 - "$WORK/res" <<'PY'
import sys, statistics as st
rows = {}
def ms(text):
    for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
for line in open(sys.argv[1]):
    k, rps, cpu, p99, pg = line.split()[:5]; rows.setdefault(k, []).append((float(rps), float(cpu), float(pg), ms(p99)))
for k, v in rows.items():
    print(f"{k}: median rps {st.median(r for r,_,_,_ in v):.0f}  median CPU {st.median(c for _,c,_,_ in v):.1f} µs/req  (min {min(c for _,c,_,_ in v):.1f})"
          f"  PostgreSQL {st.median(p for _,_,p,_ in v):.1f} µs/req  median p99 {st.median(p for _,_,_,p in v):.2f} ms")
PY
