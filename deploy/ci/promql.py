#!/usr/bin/env python3
"""Evaluates every PromQL expression of the Grafana dashboard and of the alert rules against a
live Prometheus, through its HTTP API, and fails on any error.

- Every expression must be accepted and evaluated (`status: success`); one that refers to
  metrics nothing has produced yet (the audit's, failures) may return an empty result.
- Dashboard expressions over metrics the CI load produces must return data: a typo in a metric
  or label name would otherwise pass as "no data".
- Template variables (`label_values(...)`) must list values.
- Alert expressions must return nothing: the CI server is healthy, so an alert that fires on it
  is one that would page someone for nothing (the latency alert excepted: the CI server is a
  debug build on a shared machine).

Usage: promql.py PROMETHEUS_URL DASHBOARD_JSON ALERT_RULES_YAML
"""

import json
import re
import sys
import urllib.parse
import urllib.request

import yaml

# Grafana's variables, as a dashboard with every replica and tenant selected sends them.
GRAFANA_VARIABLES = {
    "$__rate_interval": "1m",
    "$__interval": "5s",
    "$__range": "5m",
    "${instance}": ".*",
    "$instance": ".*",
    "${tenant}": ".*",
    "$tenant": ".*",
}

# Metrics that a short CI run does not produce: expressions over them may be empty.
MAY_BE_EMPTY = re.compile(
    r"toolgate_audit_|toolgate_evaluation_failures_total|compile_error|database_error"
)


def api(base, path, params):
    url = f"{base}{path}?{urllib.parse.urlencode(params, doseq=True)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)


def substitute(expr):
    for name, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


def dashboard_expressions(dashboard):
    """(where, expression, must have data) of every panel target, annotation and variable
    query. Annotations mark events (an activation during the run) and may be empty."""
    found = []

    def walk(panels):
        for panel in panels:
            for target in panel.get("targets", []):
                if target.get("expr"):
                    where = f"panel `{panel['title']}` {target['refId']}"
                    found.append((where, target["expr"], True))
            walk(panel.get("panels", []))

    walk(dashboard.get("panels", []))
    for annotation in dashboard.get("annotations", {}).get("list", []):
        if annotation.get("expr"):
            found.append((f"annotation `{annotation['name']}`", annotation["expr"], False))
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        if variable.get("type") == "query" and query:
            found.append((f"variable `{variable['name']}`", query, True))
    return found


# Alerts that may fire on the CI server under load.
MAY_FIRE_IN_CI = {"ToolgateEvaluateLatencyOverBudget"}


def rule_expressions(rules):
    return [
        (
            f"alert `{rule.get('alert') or rule.get('record')}`",
            rule["expr"],
            "alert" in rule and rule["alert"] not in MAY_FIRE_IN_CI,
        )
        for group in rules["groups"]
        for rule in group["rules"]
    ]


def evaluate(base, where, expr, must_have_data, must_be_silent=False):
    """Returns an error message, or None."""
    label_values = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", expr)
    if label_values:
        selector, label = label_values.groups()
        answer = api(base, f"/api/v1/label/{label}/values", {"match[]": substitute(selector)})
        count = len(answer.get("data") or [])
    else:
        answer = api(base, "/api/v1/query", {"query": substitute(expr)})
        count = len((answer.get("data") or {}).get("result") or [])
    if answer.get("status") != "success":
        return f"{where}: {answer.get('errorType')}: {answer.get('error')}\n    {expr}"
    print(f"  {count:4} series  {where}")
    if must_have_data and count == 0 and not MAY_BE_EMPTY.search(expr):
        return f"{where}: no data, though the load produces its metrics\n    {expr}"
    if must_be_silent and count > 0:
        return f"{where}: fires on a healthy server\n    {expr}"
    return None


def main():
    base, dashboard_path, rules_path = sys.argv[1:4]
    with open(dashboard_path) as file:
        dashboard = json.load(file)
    with open(rules_path) as file:
        rules = yaml.safe_load(file)
    checks = dashboard_expressions(dashboard)
    checks += [(where, expr, False, silent) for where, expr, silent in rule_expressions(rules)]
    errors = [error for check in checks if (error := evaluate(base, *check))]
    print(f"{len(checks) - len(errors)} passed, {len(errors)} failed")
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
