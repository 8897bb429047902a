//! The offline CLI, run as the built binary: `toolgate eval`, `lint` and `test`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn toolgate(args: &[&str], stdin: &str) -> Output {
    toolgate_with(&[], args, stdin)
}

/// [`toolgate`] with `env` added to its environment.
fn toolgate_with(env: &[(&str, &str)], args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .envs(env.iter().copied())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolgate runs");
    let written = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    // A command that refuses its arguments exits without reading its input, and may be gone
    // before it is written.
    if let Err(error) = written {
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::BrokenPipe,
            "write stdin: {error}"
        );
    }
    child.wait_with_output().expect("toolgate exits")
}

fn bundle_file(contents: &str, extension: &str) -> tempfile::TempPath {
    let mut file = tempfile::Builder::new()
        .suffix(extension)
        .tempfile()
        .expect("temp file");
    file.write_all(contents.as_bytes()).expect("write bundle");
    file.into_temp_path()
}

fn pre_tool_use(command: &str) -> Value {
    json!({
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/p/t.jsonl",
        "cwd": "/home/user/my-project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command, "description": "push", "timeout": 120000 },
        "tool_use_id": "toolu_01ABC123"
    })
}

#[test]
fn eval_denies_a_force_push_in_claude_codes_exact_shape() {
    let bundle = bundle_file(
        r#"{"name":"cli","permissions":{"deny":["Bash(git push --force:*)"]}}"#,
        ".json",
    );
    let output = toolgate(
        &["eval", "--bundle", bundle.to_str().expect("utf-8")],
        &pre_tool_use("git push --force origin main").to_string(),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(
        stdout.lines().count(),
        1,
        "exactly one reply line: {stdout}"
    );
    let reply: Value = serde_json::from_str(stdout.trim()).expect("JSON reply");
    // hook-protocols.md §4.2: only hookSpecificOutput, with exactly these three keys.
    assert_eq!(reply.as_object().expect("object").len(), 1);
    let specific = reply["hookSpecificOutput"]
        .as_object()
        .expect("hookSpecificOutput");
    let mut keys: Vec<&str> = specific.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason"
        ]
    );
    assert_eq!(specific["hookEventName"], "PreToolUse");
    assert_eq!(specific["permissionDecision"], "deny");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .expect("reason")
            .contains("git push --force")
    );
}

#[test]
fn eval_answers_json_lines_one_reply_per_line_and_survives_bad_lines() {
    let bundle = bundle_file(
        "name: lines\npermissions:\n  deny: ['Bash(rm:*)']\n",
        ".yaml",
    );
    let input = format!(
        "{}\nnot json\n{}\n{{\"tool_name\":\"Bash\"}}\n",
        pre_tool_use("rm -rf build"),
        pre_tool_use("cargo test")
    );
    let output = toolgate(
        &[
            "eval",
            "--bundle",
            bundle.to_str().expect("utf-8"),
            "--explain",
        ],
        &input,
    );
    assert!(output.status.success());
    let replies: Vec<Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(replies.len(), 4);
    assert_eq!(
        replies[0]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert_eq!(replies[1]["error"]["code"], "invalid_event");
    assert_eq!(replies[2], json!({}));
    assert_eq!(replies[3]["error"]["field"], "hook_event_name");
    let trace = String::from_utf8(output.stderr).expect("utf-8");
    assert!(trace.contains("matched Bash(rm:*)"), "{trace}");
}

#[test]
fn eval_rejects_a_bad_bundle_with_every_error_and_exit_2() {
    let bundle = bundle_file(
        r#"{"permissions":{"deny":["Bash(rm -rf"]},"include":["nope"]}"#,
        ".json",
    );
    let output = toolgate(&["eval", "--bundle", bundle.to_str().expect("utf-8")], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains("include[0]: unknown pack `nope`"),
        "{stderr}"
    );
    assert!(stderr.contains("permissions.deny[0]"), "{stderr}");
}

/// `toolgate test` on a YAML bundle: its exit code, stdout and stderr.
fn run_test(yaml: &str) -> (Option<i32>, String, String) {
    let bundle = bundle_file(yaml, ".yaml");
    let output = toolgate(&["test", bundle.to_str().expect("utf-8")], "");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (
        output.status.code(),
        text(output.stdout),
        text(output.stderr),
    )
}

/// A failing case is shown with its trace; one that expects a warn-mode rule to decide is
/// told that such a rule never does.
#[test]
fn test_subcommand_fails_with_the_trace_of_a_failing_case() {
    let (code, stdout, _) = run_test(
        "name: t\npermissions:\n  deny: ['Bash(rm:*)']\nrules:\n  - {id: curl-seen, program: [curl], decision: deny, mode: warn}\ntests:\n  - name: rm denied\n    tool: Bash\n    input: rm -rf x\n    expect: deny\n  - name: wrong on purpose\n    tool: Bash\n    input: ls\n    expect: deny\n  - {name: curl, tool: Bash, input: curl x, expect: deny, rule: curl-seen}\n",
    );
    assert_eq!(code, Some(1));
    for failure in [
        "FAIL tests[1] (wrong on purpose): expected deny, got none (no rule decided)\n",
        "FAIL tests[2] (curl): expected deny by `curl-seen`, got none (no rule decided); \
         `curl-seen` matched in warn mode (deny), which is audited, never enforced\n",
        "  decision: none (no rule decided)\n",
        "1 passed, 2 failed",
    ] {
        assert!(stdout.contains(failure), "{failure} in {stdout}");
    }
}

/// Exit 1 means failed tests or lint findings; a bundle that is not there, or cannot be read,
/// exits 2 as an invalid one does, so that a CI step can tell them apart.
#[test]
fn a_bundle_that_cannot_be_read_exits_2_from_every_offline_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("nope.yaml");
    let missing = missing.to_str().expect("utf-8");
    for args in [
        vec!["test", missing],
        vec!["lint", missing],
        vec!["eval", "--bundle", missing],
    ] {
        let output = toolgate(&args, &pre_tool_use("ls").to_string());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert!(
            stderr.starts_with("error: failed to read `") && stderr.contains("nope.yaml"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Stack backtrace"), "{stderr}");
    }
}

/// `test` and `eval` say what the bundle loads without: a key they ignore is not passed over
/// in silence by a green test run.
#[test]
fn test_and_eval_print_the_bundles_warnings() {
    let bundle = bundle_file(
        "name: w\nhooks: {}\npermissions:\n  deny: ['Bash(rm:*)']\ntests:\n  - tool: Bash\n    input: rm x\n    expect: deny\n",
        ".yaml",
    );
    let path = bundle.to_str().expect("utf-8");
    let output = toolgate(&["test", path], "");
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains(&format!("note: {path}: `hooks`: not a bundle key, ignored")),
        "{stderr}"
    );
    let output = toolgate(&["eval", "--bundle", path], &pre_tool_use("ls").to_string());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "{}");
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(stderr.contains("`hooks`: not a bundle key"), "{stderr}");
}

/// A misspelt bundle key is an error naming the key it misses, not a warning the deny list
/// it holds is dropped with; a bad regex says what is wrong with it.
#[test]
fn a_misspelt_key_and_a_bad_regex_are_errors_that_name_the_fix() {
    let (code, _, stderr) = run_test(
        "name: t\npermisions:\n  deny: ['Bash(rm:*)']\nrules:\n  - id: p\n    programs: [psql]\n    args: '(?i)(prod'\n    decision: deny\n",
    );
    assert_eq!(code, Some(2));
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    assert_eq!(
        lines[1..],
        [
            "permisions: not a bundle key; did you mean `permissions`?",
            "rules[0].programs: unknown rule key `programs`; did you mean `program`?",
            "rules[0].args: invalid regex `(?i)(prod`: unclosed group at character 5 (`(`)",
        ],
        "{stderr}"
    );
    assert!(lines[0].ends_with("is invalid (3 errors)"), "{stderr}");
}

/// A directory without fragments is said to be one, by every offline command, not read as an
/// empty bundle that lacks a name.
#[test]
fn a_directory_without_fragments_is_named_as_such() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("README.md"), "not a fragment").expect("write");
    let path = dir.path().to_str().expect("utf-8");
    for args in [
        vec!["test", path],
        vec!["lint", path],
        vec!["eval", "--bundle", path],
    ] {
        let output = toolgate(&args, "");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(
            stderr.trim(),
            format!(
                "error: directory `{path}` holds no bundle fragments (`*.json`, `*.yaml`, `*.yml`)"
            ),
            "{args:?}"
        );
    }
}

/// In a directory of fragments, an error names the file it is in and its place there.
#[test]
fn an_error_in_a_fragment_directory_names_the_fragment() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).expect("write fragment");
    };
    write(
        "10-base.yaml",
        "name: f\nrules:\n  - {id: a, program: [rm], decision: deny}\n",
    );
    write(
        "20-team.yaml",
        "rules:\n  - {id: b, program: [psql], args: '(', decision: deny}\n",
    );
    let path = dir.path().to_str().expect("utf-8");
    let output = toolgate(&["eval", "--bundle", path], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains("\n  20-team.yaml: rules[0].args: invalid regex `(`"),
        "{stderr}"
    );
}

/// A `managed-settings.json` whose rules are fine lints clean: what toolgate does not read is a
/// note, and only an error makes the exit code 1 (a warning too with `--strict`).
#[test]
fn lint_exits_by_errors_and_a_managed_settings_files_other_keys_are_notes() {
    let lint = |text: &str, strict: bool| {
        let file = bundle_file(text, ".json");
        let path = file.to_str().expect("utf-8").to_owned();
        let mut args = vec!["lint", path.as_str()];
        if strict {
            args.push("--strict");
        }
        let output = toolgate(&args, "");
        let stdout = String::from_utf8(output.stdout).expect("utf-8");
        (output.status.code(), stdout.replace(&path, "FILE"))
    };
    let settings = r#"{"permissions": {"deny": ["Bash(curl:*)"], "defaultMode": "acceptEdits"},
        "env": {"FOO": "1"}, "hooks": {}, "model": "opus"}"#;
    let (code, stdout) = lint(settings, true);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(
        stdout,
        "FILE: note[ignored-key]: `env`: not a bundle key, ignored\n\
         FILE: note[ignored-key]: `hooks`: not a bundle key, ignored\n\
         FILE: note[ignored-key]: `model`: not a bundle key, ignored\n\
         FILE: note[ignored-setting]: `permissions.defaultMode`: a Claude Code setting toolgate \
         does not enforce, ignored\n\
         FILE: 0 errors, 0 warnings, 4 notes\n"
    );
    // A warning alone: printed, exit 0; `--strict` makes it 1.
    let risky = r#"{"permissions": {"allow": ["Bash(python:*)"]}, "hooks": {}}"#;
    let (code, stdout) = lint(risky, false);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("FILE: warning[interpreter-allow]: permissions.allow[0]: `Bash(python:*)`"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("FILE: 0 errors, 1 warning, 1 note\n"),
        "{stdout}"
    );
    assert_eq!(lint(risky, true).0, Some(1));
    // An error: exit 1.
    let (code, stdout) = lint(r#"{"permissions": {"deny": ["Write(.env)"]}}"#, false);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("FILE: error[write-rule-ignored]: permissions.deny[0]: "),
        "{stdout}"
    );
    let (code, stdout) = lint(
        r#"{"name": "clean", "permissions": {"deny": ["Read(.env)"]}}"#,
        false,
    );
    assert_eq!((code, stdout.as_str()), (Some(0), "FILE: no findings\n"));
}

#[test]
fn lint_reports_rules_claude_code_would_ignore() {
    let bundle = bundle_file(
        r#"{"name":"l","permissions":{"allow":["Write(src/**)","Bash(python:*)"],"deny":["Read(/Users/me/.ssh/**)"]}}"#,
        ".json",
    );
    let output = toolgate(&["lint", bundle.to_str().expect("utf-8")], "");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    for location in [
        "permissions.allow[0]",
        "permissions.allow[1]",
        "permissions.deny[0]",
    ] {
        assert!(stdout.contains(location), "missing {location} in {stdout}");
    }
}

/// brush-parser panics on a few inputs (an fd number past `i32`); the analysis catches that and
/// asks. The panic stays out of stderr, and no backtrace is captured for it even with
/// `RUST_BACKTRACE` set.
#[test]
fn a_parser_panic_is_caught_quietly() {
    let bundle = bundle_file(r#"{"name":"cli","include":["baseline"]}"#, ".json");
    let output = toolgate_with(
        &[("RUST_BACKTRACE", "1")],
        &["eval", "--bundle", bundle.to_str().expect("utf-8")],
        &pre_tool_use("echo 99999999999>x").to_string(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr, "", "nothing on stderr");
    let reply: Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "ask");
}

/// A Copilot camelCase event, which says nothing of which event it is.
fn copilot_event(command: &str) -> Value {
    json!({"sessionId": "s", "timestamp": 1767225600000_u64, "cwd": "/home/user/project",
           "toolName": "bash", "toolArgs": json!({"command": command}).to_string()})
}

/// `toolgate eval --agent copilot --event NAME` reads Copilot's camelCase events as the event
/// the hook is configured for and answers in Copilot's schema, as `toolgate hook --event` does;
/// without `--event` they are read as a preToolUse. A name toolgate does not know, or `--event`
/// with another agent, exits 2 with the error text of `toolgate hook --event`.
#[test]
fn eval_reads_copilot_events_as_the_event_given() {
    let bundle = bundle_file(
        r#"{"name":"cli","permissions":{"deny":["Bash(rm:*)"]}}"#,
        ".json",
    );
    let bundle = bundle.to_str().expect("utf-8");
    let input = format!("{}\n{}\n", copilot_event("rm -rf x"), copilot_event("ls"));
    let replies = |args: &[&str]| -> Vec<Value> {
        let output = toolgate(&[&["eval", "--bundle", bundle], args].concat(), &input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        String::from_utf8(output.stdout)
            .expect("utf-8")
            .lines()
            .map(|line| serde_json::from_str(line).expect("each line is JSON"))
            .collect()
    };
    let named = replies(&["--agent", "copilot", "--event", "permissionRequest"]);
    assert_eq!(named.len(), 2);
    assert_eq!(named[0]["behavior"], "deny", "{named:?}");
    assert!(named[0].get("permissionDecision").is_none(), "{named:?}");
    assert_eq!(named[1], json!({}));
    let unnamed = replies(&["--agent", "copilot"]);
    assert_eq!(unnamed[0]["permissionDecision"], "deny", "{unnamed:?}");
    assert_eq!(unnamed[1], json!({}));
    let after = replies(&["--agent", "copilot", "--event", "postToolUse"]);
    assert_eq!(after, [json!({}), json!({})]);
    // Claude Code's events are answered as before, and `--agent claude-code` is the default.
    let claude = pre_tool_use("rm -rf build").to_string();
    for args in [&[][..], &["--agent", "claude-code"]] {
        let output = toolgate(&[&["eval", "--bundle", bundle], args].concat(), &claude);
        let reply: Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
        assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    }
    // An agent that reads only the exit code is told it.
    let windsurf = json!({"agent_action_name": "pre_run_command", "trajectory_id": "t",
        "tool_info": {"command_line": "rm -rf x", "cwd": "/home/user/project"}});
    let output = toolgate(
        &["eval", "--bundle", bundle, "--agent", "windsurf"],
        &windsurf.to_string(),
    );
    let reply: Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    assert_eq!(reply["exit_code"], 2, "{reply}");
    assert!(
        reply["stderr"]
            .as_str()
            .expect("stderr")
            .contains("Bash(rm:*)"),
        "{reply}"
    );

    for (agent, event, why) in [
        (
            "copilot",
            "permission",
            "unknown copilot event `permission` (known: sessionStart",
        ),
        (
            "claude-code",
            "permissionRequest",
            "only copilot's events are named by the hook's configuration, not claude-code's",
        ),
    ] {
        let output = toolgate(
            &[
                "eval", "--bundle", bundle, "--agent", agent, "--event", event,
            ],
            &input,
        );
        assert_eq!(output.status.code(), Some(2), "{agent} {event}");
        assert!(output.stdout.is_empty());
        let eval = String::from_utf8(output.stderr).expect("utf-8");
        assert!(
            eval.starts_with(&format!("error: --event: {why}")),
            "{eval}"
        );
        // The same words as the hook's.
        let output = toolgate(
            &[
                "hook", "--bundle", bundle, "--agent", agent, "--event", event,
            ],
            &input,
        );
        assert_eq!(output.status.code(), Some(2));
        let hook = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(
            hook.strip_prefix("toolgate hook: "),
            eval.strip_prefix("error: "),
            "{hook}"
        );
    }
}
