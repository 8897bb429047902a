#!/usr/bin/env bash
# One evaluation's cost with warm and with cold caches, event by event: bench/events.lua's mix
# against bench/make_bundle.py's bundle, in process (no HTTP). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d /tmp/toolgate-cold.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
python3 bench/make_bundle.py >"$WORK/bundle.json" 2>/dev/null
# The bodies of bench/events.lua, one per line, as wrk sends them.
python3 - "$WORK/events.jsonl" <<'PY'
import re, sys
src = open("bench/events.lua").read()
block = src[src.index("local bodies = {"):]
block = block[:block.index("\n}\n")]
head = re.search(r"return '(.*?)'\n", src).group(1)
tail = re.search(r"\.\. '(,\"tool_use_id\":[^']*)'", src).group(1)
out = []
for line in block.splitlines()[1:]:
    line = line.strip().rstrip(",")
    m = re.match(r"pre\(\"([^\"]+)\", '(.*)'\)$", line)
    if m:
        out.append(head + m.group(1) + "\",\"tool_input\":" + m.group(2) + tail)
    elif line.startswith("'"):
        out.append(line[1:-1])
open(sys.argv[1], "w").write("\n".join(body.replace("\\\\", "\\") for body in out) + "\n")
PY
cargo run -q --release -p toolgate-engine --example cold_caches -- "$WORK/bundle.json" "$WORK/events.jsonl"
