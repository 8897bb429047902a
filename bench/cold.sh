#!/usr/bin/env bash
# One evaluation's cost with warm and with cold caches, event by event: the load benchmark's mix
# (bench/events.jsonl) against bench/make_bundle.py's bundle, in process (no HTTP). Extra
# arguments go to the example (`--warm-only N`: see bench/README.md). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d /tmp/toolgate-cold.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
python3 bench/make_bundle.py >"$WORK/bundle.json" 2>/dev/null
cargo run -q --release -p toolgate-engine --example cold_caches -- "$WORK/bundle.json" bench/events.jsonl "$@"
