#!/usr/bin/env python3
"""Writes the benchmark bundle: the built-in packs plus ~200 Claude Code permission rules."""
import json
import sys

deny, ask, allow = [], [], []
tools = ["git", "npm", "cargo", "docker", "kubectl", "terraform", "aws", "gcloud", "psql", "redis-cli"]
verbs = ["push --force", "reset --hard", "delete", "destroy", "rm", "drop", "apply", "publish", "login", "exec"]
for t in tools:
    for v in verbs:
        deny.append(f"Bash({t} {v}:*)")
for i in range(40):
    ask.append(f"Bash(deploy-{i}:*)")
    ask.append(f"Read(//srv/secret-{i}/**)")
for t in tools:
    allow.append(f"Bash({t} status:*)")
    allow.append(f"Bash({t} --version)")
deny += ["Read(~/.ssh/**)", "Read(**/.env)", "Edit(//etc/**)", "WebFetch(domain:evil.example)", "mcp__prod"]
bundle = {
    "name": "bench",
    "include": ["baseline", "secrets"],
    "permissions": {"deny": deny, "ask": ask, "allow": allow},
}
json.dump(bundle, sys.stdout)
print(f"rules: {len(deny) + len(ask) + len(allow)}", file=sys.stderr)
