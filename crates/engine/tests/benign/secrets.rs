//! The `secrets` pack against realistic credentials (agent-guards.md §3 and §O families), built
//! at run time from a seeded xorshift generator so that no token is ever committed. Every family
//! is sent through every channel the pack scans — Write `content`, Edit `new_string`, MultiEdit
//! edits, NotebookEdit `new_source`, the Bash command, an MCP tool input, the user prompt (block)
//! and a PostToolUse response (context only) — and placeholders must pass. Assertion messages
//! name families and channels, never the generated token; no reason may contain it either.

use serde_json::{Value, json};
use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::{HookEvent, render_claude};
use toolgate_engine::{Bundle, CompiledPolicy, Decision, Outcome, evaluate};

const CWD: &str = "/home/user/project";
const TRANSCRIPT: &str = "/home/user/.claude/projects/-home-user-project/session.jsonl";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";

/// xorshift64* — deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(bytes[(self.next() % bytes.len() as u64) as usize]))
            .collect()
    }
}

fn alnum() -> String {
    [UPPER, LOWER, DIGITS].concat()
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(TABLE[((n >> (18 - 6 * i)) & 63) as usize]));
        }
        for _ in chunk.len()..3 {
            out.push('=');
        }
    }
    out
}

/// (family, text embedding a freshly generated credential, the credential itself).
fn families(seed: u64) -> Vec<(&'static str, String, String)> {
    let mut r = Rng(seed);
    let mut v = Vec::new();
    let mut add = |family: &'static str, token: String, text: String| v.push((family, text, token));
    let t = format!("AKIA{}", r.chars(16, &[UPPER, "234567"].concat()));
    add(
        "aws-access-token",
        t.clone(),
        format!("aws_access_key_id = {t}\n"),
    );
    let t = format!("ghp_{}", r.chars(36, &alnum()));
    add(
        "github-pat",
        t.clone(),
        format!("export GITHUB_TOKEN={t}\n"),
    );
    let t = format!("gho_{}", r.chars(36, &alnum()));
    add("github-oauth", t.clone(), format!("token: {t}\n"));
    let t = format!("github_pat_{}", r.chars(82, &[&alnum(), "_"].concat()));
    add(
        "github-fine-grained-pat",
        t.clone(),
        format!("GH_TOKEN={t}"),
    );
    let t = format!("glpat-{}", r.chars(20, &[&alnum(), "_-"].concat()));
    add("gitlab-pat", t.clone(), format!("GITLAB_TOKEN={t}"));
    let t = format!(
        "xoxb-{}-{}-{}",
        r.chars(12, DIGITS),
        r.chars(13, DIGITS),
        r.chars(24, &alnum())
    );
    add("slack-bot-token", t.clone(), format!("SLACK_BOT_TOKEN={t}"));
    let t = format!(
        "hooks.slack.com/services/T{}/B{}/{}",
        r.chars(8, &[UPPER, DIGITS].concat()),
        r.chars(8, &[UPPER, DIGITS].concat()),
        r.chars(24, &alnum())
    );
    add(
        "slack-webhook-url",
        t.clone(),
        format!("curl -X POST https://{t} -d '{{}}'"),
    );
    let t = format!("sk_live_{}", r.chars(24, &alnum()));
    add(
        "stripe-access-token",
        t.clone(),
        format!("stripe.api_key = '{t}'"),
    );
    let t = format!(
        "sk-proj-{}T3BlbkFJ{}",
        r.chars(74, &[&alnum(), "_-"].concat()),
        r.chars(74, &[&alnum(), "_-"].concat())
    );
    add(
        "openai-api-key",
        t.clone(),
        format!("OPENAI_API_KEY=\"{t}\""),
    );
    let t = format!("sk-ant-api03-{}AA", r.chars(93, &[&alnum(), "_-"].concat()));
    add(
        "anthropic-api-key",
        t.clone(),
        format!("export ANTHROPIC_API_KEY={t}"),
    );
    let t = format!("AIza{}", r.chars(35, &[&alnum(), "_-"].concat()));
    add("gcp-api-key", t.clone(), format!("const key = \"{t}\";"));
    let t = format!("npm_{}", r.chars(36, &alnum()));
    add(
        "npm-access-token",
        t.clone(),
        format!("//registry.npmjs.org/:_authToken={t}"),
    );
    let t = format!(
        "SG.{}.{}",
        r.chars(22, &[&alnum(), "_-"].concat()),
        r.chars(43, &[&alnum(), "_-"].concat())
    );
    add(
        "sendgrid-api-token",
        t.clone(),
        format!("SENDGRID_API_KEY={t}"),
    );
    let t = format!("dop_v1_{}", r.chars(64, HEX));
    add(
        "digitalocean-pat",
        t.clone(),
        format!("DIGITALOCEAN_TOKEN={t}"),
    );
    let body: Vec<String> = (0..10)
        .map(|_| r.chars(64, &[&alnum(), "+/"].concat()))
        .collect();
    let t = format!(
        "-----BEGIN OPENSSH {k}-----\n{}\n-----END OPENSSH {k}-----",
        body.join("\n"),
        k = "PRIVATE KEY"
    );
    add(
        "private-key",
        t.clone(),
        format!("cat > deploy_key <<'EOF'\n{t}\nEOF\n"),
    );
    let t = format!(
        "{}{}",
        r.chars(12, &alnum()),
        r.chars(20, &[LOWER, DIGITS].concat())
    );
    add(
        "generic-api-key",
        t.clone(),
        format!("api_secret = \"{t}\"\n"),
    );
    let t = format!("Pw-{}{}", r.chars(6, &alnum()), r.chars(4, DIGITS));
    add(
        "url-credentials",
        t.clone(),
        [
            "DATABASE_URL=postgres://app",
            ":",
            &t,
            "@db.internal:5432/app",
        ]
        .concat(),
    );
    let inner = format!("ghp_{}", r.chars(36, &alnum()));
    let t = base64(inner.as_bytes());
    add("base64-encoded-token", t.clone(), format!("data: {t}\n"));
    v
}

/// Texts that look like credentials but are placeholders or references.
fn placeholders() -> Vec<String> {
    vec![
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE".to_owned(),
        "export GITHUB_TOKEN=${GITHUB_TOKEN}".to_owned(),
        "OPENAI_API_KEY=your-api-key-here".to_owned(),
        "api_key = os.environ[\"API_KEY\"]".to_owned(),
        "token: {{ secrets.DEPLOY_TOKEN }}".to_owned(),
        "password = \"<password>\"".to_owned(),
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app".to_owned(),
        format!("ghp_{}", "x".repeat(36)),
    ]
}

fn policy() -> CompiledPolicy {
    let bundle =
        Bundle::parse("name: s\ninclude: [baseline, secrets]\n", Format::Yaml).expect("bundle");
    CompiledPolicy::compile(&bundle).expect("compile")
}

fn event(mut value: Value) -> HookEvent {
    let map = value.as_object_mut().expect("object");
    map.entry("hook_event_name").or_insert(json!("PreToolUse"));
    map.entry("session_id").or_insert(json!("secrets"));
    map.entry("cwd").or_insert(json!(CWD));
    map.entry("transcript_path").or_insert(json!(TRANSCRIPT));
    HookEvent::from_value(value).expect("event")
}

/// Every channel the pack scans, carrying `text`.
fn channels(text: &str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "Write",
            json!({ "tool_name": "Write", "tool_input": { "file_path": "src/config.py", "content": format!("# settings\n{text}\n") } }),
        ),
        (
            "Edit",
            json!({ "tool_name": "Edit", "tool_input": { "file_path": "src/config.py", "old_string": "KEY = None", "new_string": text } }),
        ),
        (
            "MultiEdit",
            json!({ "tool_name": "MultiEdit", "tool_input": { "file_path": "app.env.ts", "edits": [{ "old_string": "a", "new_string": "b" }, { "old_string": "c", "new_string": text }] } }),
        ),
        (
            "NotebookEdit",
            json!({ "tool_name": "NotebookEdit", "tool_input": { "notebook_path": "nb.ipynb", "new_source": text } }),
        ),
        (
            "Bash",
            json!({ "tool_name": "Bash", "tool_input": { "command": format!("printf '%s\\n' '{}' >> notes.txt", text.replace('\'', "")) } }),
        ),
        (
            "MCP",
            json!({ "tool_name": "mcp__notion__create_page", "tool_input": { "title": "setup", "body": { "text": text } } }),
        ),
    ]
}

fn leaks(decision: &Decision, secret: &str) -> bool {
    let probe = secret.get(..secret.len().min(24)).unwrap_or(secret);
    decision
        .reason
        .as_deref()
        .is_some_and(|r| r.contains(probe))
        || decision
            .additional_context
            .as_deref()
            .is_some_and(|c| c.contains(probe))
        || decision
            .matched
            .iter()
            .any(|hit| hit.reason.contains(probe))
}

#[test]
fn generated_credentials_are_denied_on_every_channel() {
    let policy = policy();
    let mut failures = Vec::new();
    let mut cases = 0;
    for seed in [0x5eed_0001_u64, 0x0bad_cafe_f00d] {
        for (family, text, token) in families(seed) {
            for (channel, value) in channels(&text) {
                cases += 1;
                let decision = evaluate(&policy, &event(value));
                let by_pack = decision
                    .matched
                    .iter()
                    .any(|hit| hit.rule_id == "secret-in-tool-input");
                if decision.outcome != Outcome::Deny || !by_pack {
                    failures.push(format!(
                        "{family} via {channel}: got {} by {:?}",
                        decision.outcome, decision.winner
                    ));
                }
                if leaks(&decision, &token) {
                    failures.push(format!(
                        "{family} via {channel}: the reason repeats the credential"
                    ));
                }
            }
            // The prompt is blocked with a reason.
            cases += 1;
            let prompt = event(
                json!({ "hook_event_name": "UserPromptSubmit", "prompt": format!("please deploy with {text}") }),
            );
            let decision = evaluate(&policy, &prompt);
            let reply = render_claude(&prompt, &decision);
            if decision.winner.as_deref() != Some("secret-in-prompt")
                || reply["decision"] != "block"
            {
                failures.push(format!(
                    "{family} via prompt: got {} / {reply}",
                    decision.outcome
                ));
            }
            if leaks(&decision, &token)
                || reply
                    .to_string()
                    .contains(token.get(..20).unwrap_or(&token))
            {
                failures.push(format!(
                    "{family} via prompt: the reply repeats the credential"
                ));
            }
            // A tool response warns the agent without blocking.
            cases += 1;
            let response = event(json!({
                "hook_event_name": "PostToolUse", "tool_name": "Bash",
                "tool_input": { "command": "cat config/settings.yml" },
                "tool_response": { "stdout": format!("loaded:\n{text}\n"), "stderr": "", "interrupted": false },
            }));
            let decision = evaluate(&policy, &response);
            let reply = render_claude(&response, &decision);
            let warned = reply["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .is_some_and(|c| c.contains("credential"));
            if decision.outcome != Outcome::None || reply.get("decision").is_some() || !warned {
                failures.push(format!(
                    "{family} via tool response: got {} / {reply}",
                    decision.outcome
                ));
            }
            if leaks(&decision, &token) {
                failures.push(format!(
                    "{family} via tool response: the context repeats the credential"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} secret cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{cases} generated secret cases passed");
}

#[test]
fn reasons_name_the_detector() {
    let policy = policy();
    for (family, text, _) in families(7) {
        let decision = evaluate(
            &policy,
            &event(
                json!({ "tool_name": "Write", "tool_input": { "file_path": "x.txt", "content": text } }),
            ),
        );
        let reason = decision.reason.unwrap_or_default();
        assert!(reason.contains("detector `"), "{family}: {reason}");
        assert!(
            reason.contains("secret-in-tool-input"),
            "{family}: {reason}"
        );
    }
}

#[test]
fn placeholders_pass_on_every_channel() {
    let policy = policy();
    let mut failures = Vec::new();
    for text in placeholders() {
        for (channel, value) in channels(&text) {
            let decision = evaluate(&policy, &event(value));
            if decision
                .matched
                .iter()
                .any(|hit| hit.rule_id.starts_with("secret-in-"))
            {
                failures.push(format!(
                    "placeholder {text:?} via {channel} was flagged: {:?}",
                    decision.reason
                ));
            }
        }
        let prompt = event(json!({ "hook_event_name": "UserPromptSubmit", "prompt": text }));
        if evaluate(&policy, &prompt).outcome != Outcome::None {
            failures.push(format!("placeholder {text:?} in a prompt was blocked"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn without_the_pack_nothing_is_flagged() {
    let bundle = Bundle::parse("name: s\ninclude: [baseline]\n", Format::Yaml).expect("bundle");
    let policy = CompiledPolicy::compile(&bundle).expect("compile");
    for (family, text, _) in families(3) {
        let decision = evaluate(
            &policy,
            &event(
                json!({ "tool_name": "Write", "tool_input": { "file_path": "x.txt", "content": text } }),
            ),
        );
        assert_eq!(decision.outcome, Outcome::None, "{family}");
    }
}
