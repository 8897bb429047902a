#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes a running toolgate under a short load, loads the
# alert rules, and every PromQL expression of the Grafana dashboard and of the alert rules is
# evaluated through its HTTP API (deploy/ci/promql.py). Also `promtool check config`, `promtool
# check rules` and the alerts' unit tests (`promtool test rules`).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/ci/lib.sh
source deploy/ci/lib.sh
ci_init
ci_prometheus
ci_venv

echo "==> promtool check config / rules / test rules" >&2
promtool check config deploy/prometheus/prometheus.yml >&2
# Not `promtool check config` on kubernetes.yml: Debian's build leaves Kubernetes service
# discovery out and refuses the file. scrape-jobs.py checks its job's name and that it finds the
# StatefulSet's pods.
python3 deploy/ci/scrape-jobs.py deploy/prometheus/prometheus.yml deploy/prometheus/kubernetes.yml \
    deploy/grafana/dashboards/toolgate.json deploy/prometheus/alerts.yml deploy/kubernetes/statefulset.yaml >&2
promtool check rules deploy/prometheus/alerts.yml >&2
(cd deploy/prometheus && promtool test rules alerts.test.yml) >&2

ci_start_toolgate

PROM_PORT="$(toolgate_pg_free_port)"
PROM_URL="http://127.0.0.1:$PROM_PORT"
cat >"$CI_WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PWD/deploy/prometheus/alerts.yml
scrape_configs:
  - job_name: toolgate
    static_configs:
      - targets: ['${CI_METRICS_URL#http://}']
YAML
promtool check config "$CI_WORK/prometheus.yml" >&2
echo "==> starting Prometheus on $PROM_URL" >&2
prometheus --config.file="$CI_WORK/prometheus.yml" --storage.tsdb.path="$CI_WORK/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$CI_WORK/prometheus.log" 2>&1 &
CI_PIDS+=($!)
if ! ci_wait 60 "Prometheus to be ready" curl -fsS "$PROM_URL/-/ready"; then
    cat "$CI_WORK/prometheus.log" >&2
    exit 1
fi

query() { # PromQL -> the number of series in the result
    curl -fsS "$PROM_URL/api/v1/query" --data-urlencode "query=$1" \
        | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))'
}
scraped_after() { # unix time: a successful scrape of toolgate happened after it
    [ "$(query "up{job=\"toolgate\"} == 1 and timestamp(up{job=\"toolgate\"}) > $1")" -ge 1 ]
}
ci_wait 60 "a first scrape of toolgate" scraped_after 0

echo "==> load" >&2
python3 deploy/ci/load.py
LOADED="$(date +%s)"
# rate() over the dashboard's 1m windows needs two scrapes of a series, and a short load may
# see none; the rules need one evaluation after that. LOADED is truncated to the second, so the
# load ended before LOADED + 1: a scrape after LOADED + 2 is at least a scrape interval (1 s)
# after it, and so the second since it ended. (Waiting for LOADED + 1 let a load ending just
# before it be scraped once, and the decision panels came back empty.)
ci_wait 60 "two scrapes after the load" scraped_after "$((LOADED + 2))"

echo "==> evaluating the dashboard's and the alert rules' PromQL against $PROM_URL" >&2
python3 deploy/ci/promql.py "$PROM_URL" deploy/grafana/dashboards/toolgate.json deploy/prometheus/alerts.yml
