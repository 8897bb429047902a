#!/usr/bin/env bash
# Offline checks of the deployment files: hadolint on the Dockerfile, the compose file against
# the Compose specification's schema (check-jsonschema's vendored copy), the Kubernetes manifests
# against the Kubernetes API schemas (kubernetes-validate, strict: unknown fields fail), the
# Grafana provisioning and dashboard files parse. No Docker engine or cluster is needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/ci/lib.sh
source deploy/ci/lib.sh
ci_init
ci_venv

echo "==> hadolint Dockerfile" >&2
hadolint Dockerfile
echo "==> compose file against the Compose specification" >&2
check-jsonschema --builtin-schema vendor.compose-spec deploy/docker-compose.yml
echo "==> Kubernetes manifests against the Kubernetes schemas" >&2
manifests=()
for file in deploy/kubernetes/*.yaml; do
    # The kustomization is kustomize's own format, not an API resource.
    [ "$(basename "$file")" = kustomization.yaml ] || manifests+=("$file")
done
kubernetes-validate --strict "${manifests[@]}"
python3 - <<'PY'
# Every file the kustomization lists exists, and every manifest is listed.
import pathlib, sys, yaml
root = pathlib.Path("deploy/kubernetes")
listed = set(yaml.safe_load((root / "kustomization.yaml").read_text())["resources"])
present = {p.name for p in root.glob("*.yaml")} - {"kustomization.yaml"}
if listed != present:
    sys.exit(f"kustomization.yaml lists {sorted(listed)}, the folder has {sorted(present)}")
# A workload an HPA scales has no `replicas`: every `kubectl apply` would set it back, and
# stop at once the replicas the autoscaler added.
docs = [d for p in sorted(present) for d in yaml.safe_load_all((root / p).read_text()) if d]
for hpa in (d for d in docs if d["kind"] == "HorizontalPodAutoscaler"):
    target = hpa["spec"]["scaleTargetRef"]
    for workload in docs:
        if (workload["kind"], workload["metadata"]["name"]) == (target["kind"], target["name"]):
            if "replicas" in workload["spec"]:
                sys.exit(f"{target['kind']} {target['name']} sets replicas, which HPA {hpa['metadata']['name']} owns")
PY
echo "==> Grafana provisioning and dashboard" >&2
python3 - <<'PY'
import json, pathlib, yaml
for path in pathlib.Path("deploy/grafana/provisioning").rglob("*.yml"):
    yaml.safe_load(path.read_text())
dashboard = json.loads(pathlib.Path("deploy/grafana/dashboards/toolgate.json").read_text())
ids = [panel["id"] for panel in dashboard["panels"]]
assert len(ids) == len(set(ids)), "panel ids are unique"
assert dashboard["uid"] == "toolgate"
PY
echo "static checks passed" >&2
