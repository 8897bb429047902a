#!/usr/bin/env python3
"""A short, bounded load on a live toolgate, so that every metric the dashboard and the alerts
use has series: bundles pushed and activated for `global`, `team-a` and `team-b` (one of them
twice, so a replica changes bundles), one bundle that fails its tests, then rounds of
evaluations covering deny, ask, allow and no opinion, several tools (Bash, Write, Read,
WebFetch, MCP), several agents (Claude Code, Cursor, Gemini CLI) and a shadow rule.

Environment: CI_URL, CI_ADMIN_TOKEN, CI_AGENT_TOKEN (team-a), CI_AGENT_TOKEN_B (team-b).
Stdlib only; talks to loopback only; stops after ROUNDS rounds.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

URL = os.environ["CI_URL"]
ADMIN = os.environ["CI_ADMIN_TOKEN"]
AGENTS = {"team-a": os.environ["CI_AGENT_TOKEN"], "team-b": os.environ["CI_AGENT_TOKEN_B"]}
ROUNDS = int(os.environ.get("CI_LOAD_ROUNDS", "20"))


def call(method, path, token, body=None, expect=(200, 201)):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, data=data, method=method)
    request.add_header("authorization", f"Bearer {token}")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    if status not in expect:
        sys.exit(f"{method} {path}: {status} {text[:300]!r}")
    return json.loads(text) if text else {}


def activate(tenant, bundle):
    pushed = call("POST", f"/v1/tenants/{tenant}/bundles", ADMIN, bundle)
    activation = call("POST", f"/v1/tenants/{tenant}/bundles/{pushed['id']}/activate", ADMIN)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        served = call("GET", f"/v1/tenants/{tenant}/policy", ADMIN).get("served") or {}
        if served.get("activation_id") == activation["id"]:
            return
        time.sleep(0.1)
    sys.exit(f"activation {activation['id']} of {tenant} was not served in time")


def event(tool, tool_input, name="PreToolUse"):
    return {
        "hook_event_name": name,
        "session_id": "ci-session",
        "cwd": "/home/dev/project",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_ci",
    }


def main():
    activate("global", {"name": "org", "include": ["baseline", "secrets"],
                        "permissions": {"deny": ["Read(~/.ssh/**)"]}})
    activate("team-a", {"name": "team-a-v1", "permissions": {"deny": ["WebFetch"]}})
    activate("team-a", {
        "name": "team-a-v2",
        "permissions": {
            "deny": ["Bash(git push --force:*)", "mcp__prod-db__drop_table"],
            "ask": ["Bash(terraform apply:*)"],
            "allow": ["Bash(cargo test:*)", "Read(//home/dev/project/**)", "WebFetch"],
        },
        "rules": [{"id": "curl-anywhere", "program": ["curl"], "decision": "ask",
                   "reason": "shadow: measuring curl use", "mode": "warn"}],
    })
    activate("team-b", {"name": "team-b", "permissions": {"deny": ["Write(//etc/**)"],
                                                           "allow": ["Bash(ls:*)"]}})
    failing = {"name": "broken", "permissions": {"allow": ["Bash(rm:*)"]},
               "tests": [{"name": "rm is denied", "tool": "Bash", "input": "rm -rf build",
                          "expect": "deny"}]}
    call("POST", "/v1/tenants/team-b/bundles", ADMIN, failing, expect=(422,))

    claude = [
        ("team-a", event("Bash", {"command": "git push --force origin main"}), "deny"),
        ("team-a", event("Bash", {"command": "terraform apply -auto-approve"}), "ask"),
        ("team-a", event("Bash", {"command": "cargo test --workspace"}), "allow"),
        ("team-a", event("Bash", {"command": "curl -s https://example.com"}), "none"),
        ("team-a", event("Bash", {"command": "rm -rf ~"}), "deny"),
        ("team-a", event("Read", {"file_path": "/home/dev/project/src/main.rs"}), "allow"),
        ("team-a", event("Read", {"file_path": "/home/dev/.ssh/id_ed25519"}), "deny"),
        ("team-a", event("WebFetch", {"url": "https://docs.rs/", "prompt": "read"}), "allow"),
        ("team-a", event("mcp__prod-db__drop_table", {"table": "users"}), "deny"),
        ("team-a", event("mcp__github__create_issue", {"title": "flaky"}), "none"),
        ("team-b", event("Write", {"file_path": "/etc/hosts", "content": "x"}), "deny"),
        ("team-b", event("Bash", {"command": "ls -la"}), "allow"),
        ("team-b", event("Bash", {"command": "make build"}), "none"),
        ("team-b", {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi"}, None),
        ("team-b", {"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": False}, None),
    ]
    others = [
        ("cursor", {"hook_event_name": "beforeShellExecution", "conversation_id": "c",
                    "command": "git push --force origin main", "cwd": "/home/dev/project"}),
        ("gemini", {"hook_event_name": "BeforeTool", "session_id": "g", "cwd": "/home/dev/project",
                    "tool_name": "run_shell_command", "tool_input": {"command": "cargo test"}}),
    ]
    count = 0
    for _ in range(ROUNDS):
        for tenant, body, expected in claude:
            reply = call("POST", "/v1/evaluate", AGENTS[tenant], body)
            decision = reply.get("hookSpecificOutput", {}).get("permissionDecision", "none")
            if expected is not None and decision != expected:
                sys.exit(f"{tenant} {body}: expected {expected}, got {reply}")
            count += 1
        for agent, body in others:
            call("POST", f"/v1/evaluate/{agent}", AGENTS["team-a"], body)
            count += 1
    print(f"load: {count} evaluations", file=sys.stderr)


if __name__ == "__main__":
    main()
