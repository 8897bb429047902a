#!/usr/bin/env python3
"""Checks that the Prometheus configurations scrape toolgate under the job the dashboard and the
alert rules select, and that the Kubernetes job finds the StatefulSet's pods.

- Every `job="…"` in the dashboard's and the alert rules' PromQL names a job of each
  configuration: a job under another name leaves `up{job="toolgate"}` empty, so that
  ToolgateInstanceDown never fires and the dashboard lists no replica.
- The Kubernetes configuration keeps the pods by a label the StatefulSet's pods carry and by a
  container port name they declare.
- The pod template has no `prometheus.io/scrape` annotation: an annotation-driven job would
  scrape the pods a second time under another name, doubling every sum on the dashboard.

Usage: scrape-jobs.py PROMETHEUS_YML KUBERNETES_YML DASHBOARD_JSON ALERT_RULES_YAML STATEFULSET_YAML
"""

import json
import re
import sys

import yaml

JOB = re.compile(r'\bjob\s*=\s*"([^"]*)"')


def expressions(dashboard, rules):
    found = []

    def walk(panels):
        for panel in panels:
            found.extend(t["expr"] for t in panel.get("targets", []) if t.get("expr"))
            walk(panel.get("panels", []))

    walk(dashboard.get("panels", []))
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        if isinstance(query, str):
            found.append(query)
    found.extend(r["expr"] for g in rules["groups"] for r in g["rules"])
    return found


def kubernetes_keeps(job):
    """(label name, value) and container port names the job's `keep` relabellings require."""
    labels, ports = [], []
    for rule in job.get("relabel_configs", []):
        if rule.get("action") != "keep":
            continue
        for source in rule.get("source_labels", []):
            prefix = "__meta_kubernetes_pod_label_"
            if source.startswith(prefix):
                labels.append((source[len(prefix):], rule["regex"]))
            elif source == "__meta_kubernetes_pod_container_port_name":
                ports.append(rule["regex"])
    return labels, ports


def sanitized(label):
    return re.sub(r"[^a-zA-Z0-9_]", "_", label)


def main():
    prometheus_path, kubernetes_path, dashboard_path, rules_path, statefulset_path = sys.argv[1:6]
    configs = {}
    for path in (prometheus_path, kubernetes_path):
        with open(path) as file:
            configs[path] = yaml.safe_load(file)
    with open(dashboard_path) as file:
        dashboard = json.load(file)
    with open(rules_path) as file:
        rules = yaml.safe_load(file)
    with open(statefulset_path) as file:
        statefulset = yaml.safe_load(file)

    errors = []
    selected = {job for expr in expressions(dashboard, rules) for job in JOB.findall(expr)}
    for path, config in configs.items():
        jobs = {job["job_name"] for job in config.get("scrape_configs", [])}
        for job in sorted(selected - jobs):
            errors.append(f'{path}: no scrape job `{job}`, which `job="{job}"` selects')

    template = statefulset["spec"]["template"]
    pod_labels = template["metadata"].get("labels", {})
    annotations = template["metadata"].get("annotations", {}) or {}
    if "prometheus.io/scrape" in annotations:
        errors.append(
            f"{statefulset_path}: the pod template has a prometheus.io/scrape annotation; "
            f"the pods are scraped by the `toolgate` job of {kubernetes_path}"
        )
    port_names = {
        port.get("name")
        for container in template["spec"]["containers"]
        for port in container.get("ports", [])
    }
    for job in configs[kubernetes_path]["scrape_configs"]:
        labels, ports = kubernetes_keeps(job)
        if not labels or not ports:
            errors.append(f"{kubernetes_path}: job `{job['job_name']}` keeps pods by no label or port")
        for label, regex in labels:
            values = [v for k, v in pod_labels.items() if sanitized(k) == label]
            if not any(re.fullmatch(regex, value) for value in values):
                errors.append(
                    f"{kubernetes_path}: job `{job['job_name']}` keeps pods whose label `{label}` "
                    f"matches `{regex}`; the StatefulSet's pods have {pod_labels}"
                )
        for regex in ports:
            if not any(name and re.fullmatch(regex, name) for name in port_names):
                errors.append(
                    f"{kubernetes_path}: job `{job['job_name']}` keeps the port named `{regex}`; "
                    f"the StatefulSet's container ports are {sorted(n for n in port_names if n)}"
                )

    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"scrape jobs: {sorted(selected)} in both configurations; the pods are found")


if __name__ == "__main__":
    main()
