#!/usr/bin/env bash
# schemathesis (PyPI) against a live toolgate with openapi.yaml: no 5xx, every response conforms
# to the spec (status, content type, headers, body schema), invalid input is rejected. The spec
# itself is validated first (openapi-spec-validator). Each group of operations runs with the
# token of the role it needs, given as a header.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/ci/lib.sh
source deploy/ci/lib.sh
ci_init
ci_venv

echo "==> openapi-spec-validator openapi.yaml" >&2
openapi-spec-validator openapi.yaml >&2

ci_start_toolgate
# A live policy for the agent's tenant, so evaluations run the engine.
curl -fsS -X POST "$CI_URL/v1/tenants/team-a/bundles" -H "authorization: Bearer $CI_ADMIN_TOKEN" \
    -H 'content-type: application/json' \
    --data '{"name":"ci","include":["baseline","secrets"],"permissions":{"deny":["Bash(git push --force:*)"]}}' \
    >"$CI_WORK/bundle.json"
BUNDLE_ID="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$CI_WORK/bundle.json")"
curl -fsS -X POST "$CI_URL/v1/tenants/team-a/bundles/$BUNDLE_ID/activate" \
    -H "authorization: Bearer $CI_ADMIN_TOKEN" >/dev/null

# One worker: Python 3.11 before 3.11.8 can fail ast.parse from several threads ("AST
# constructor recursion depth mismatch"), which hypothesis calls to describe strategies.
EXAMPLES="${CI_SCHEMATHESIS_EXAMPLES:-50}"
ROOT="$PWD"
st_run() { # base URL, token, then schemathesis options
    local url="$1" token="$2"
    shift 2
    # Run from the CI directory, so that schemathesis' crash cache (.schemathesis/) lands there.
    (cd "$CI_DIR" && st --config-file "$ROOT/deploy/ci/schemathesis.toml" --no-color \
        run "$ROOT/openapi.yaml" --url "$url" \
        --max-examples "$EXAMPLES" --seed 1 --workers 1 \
        ${token:+--header "Authorization: Bearer $token"} "$@")
}
echo "==> schemathesis: evaluate (agent token)" >&2
st_run "$CI_URL" "$CI_AGENT_TOKEN" --include-path-regex '^/v1/evaluate'
echo "==> schemathesis: bundles and replays (admin token)" >&2
st_run "$CI_URL" "$CI_ADMIN_TOKEN" --include-path-regex '^/v1/tenants/'
echo "==> schemathesis: audit (admin token)" >&2
st_run "$CI_URL" "$CI_ADMIN_TOKEN" --include-path-regex '^/v1/audit$'
echo "==> schemathesis: health (no token)" >&2
st_run "$CI_URL" "" --include-path-regex '^/(healthz|readyz)$'
echo "==> schemathesis: metrics, on the --metrics-listen listener (no token)" >&2
st_run "$CI_METRICS_URL" "" --include-path-regex '^/metrics$'
