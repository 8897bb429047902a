#!/usr/bin/env bash
# hyperfine benchmark of `toolgate hook`, from process start to reply: against a local server, and
# offline with `--bundle` (include: [baseline, secrets]). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${BENCH_RUNS:-200}"
BENCH_NEEDS=hyperfine
# shellcheck source=bench/lib.sh
source bench/lib.sh
export TOOLGATE_TOKEN="$TOOLGATE_BENCH_TOKEN"
MODE="${BENCH_AUDIT_MODE:-durable}"
bench_start_toolgate "$MODE"
# The client as a developer installs it: the default build, with glibc's allocator (README).
cargo build --release --bin toolgate >&2
HOOK="$PWD/target/release/toolgate"
PORT="${PORTS[$MODE]}"

printf 'name: hook-bench\ninclude: [baseline, secrets]\n' >"$WORK/bundle.yaml"
python3 -c 'import json,yaml,sys; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$WORK/bundle.yaml" >"$WORK/bundle.json" 2>/dev/null \
    || echo '{"name":"hook-bench","include":["baseline","secrets"]}' >"$WORK/bundle.json"
ID="$(curl -fsS -X POST "http://127.0.0.1:$PORT/v1/tenants/global/bundles" -H "authorization: Bearer $ADMIN_TOKEN" \
    -H 'content-type: application/json' --data-binary "@$WORK/bundle.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
curl -fsS -X POST "http://127.0.0.1:$PORT/v1/tenants/global/bundles/$ID/activate" -H "authorization: Bearer $ADMIN_TOKEN" >/dev/null
echo '{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/user/project","transcript_path":"/home/user/.claude/projects/p/s.jsonl","tool_name":"Bash","tool_input":{"command":"git status && cargo test 2>&1 | tail -5"}}' >"$WORK/event.json"
for _ in $(seq 100); do
    "$HOOK" hook --agent claude-code --url "http://127.0.0.1:$PORT" <"$WORK/event.json" >/dev/null 2>&1 && break
    sleep 0.1
done
echo "==> sample replies (server, offline):" >&2
"$HOOK" hook --agent claude-code --url "http://127.0.0.1:$PORT" <"$WORK/event.json" >&2
"$HOOK" hook --agent claude-code --bundle "$WORK/bundle.yaml" <"$WORK/event.json" >&2

# hyperfine runs each command through a shell and subtracts the shell's own start-up time.
hyperfine --warmup 20 --runs "$RUNS" --export-markdown "$WORK/hook.md" --export-json "$WORK/hook.json" \
    -n server "$HOOK hook --agent claude-code --url http://127.0.0.1:$PORT < $WORK/event.json" \
    -n offline "$HOOK hook --agent claude-code --bundle $WORK/bundle.yaml < $WORK/event.json" >&2
cat "$WORK/hook.md"
# The budgets are medians, which the markdown table does not show.
python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%s: median %.1f ms (user %.1f ms, system %.1f ms)" % (r["command"], r["median"] * 1e3, r["user"] * 1e3, r["system"] * 1e3))' "$WORK/hook.json"
echo "Budget (issue 7): median ≤ 5 ms against a server, ≤ 20 ms offline." >&2
