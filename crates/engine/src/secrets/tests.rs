//! Tests for the secret scanner. Every realistic token is built at test time from a seeded
//! xorshift generator, so no literal credential is ever committed; assertion messages name rule
//! ids and recipes, never the generated token text.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::keywords::LANED_TEXT;
use super::*;

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

/// Tiny deterministic PRNG (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// `n` characters drawn from `alphabet`.
    fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(a[(self.next() % a.len() as u64) as usize]))
            .collect()
    }
}

fn alnum() -> String {
    [UPPER, LOWER, DIGITS].concat()
}

fn word() -> String {
    [UPPER, LOWER, DIGITS, "_"].concat()
}

fn base64(bytes: &[u8], url_safe: bool) -> String {
    let table: &[u8] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(table[((n >> (18 - 6 * i)) & 63) as usize]));
        }
        if !url_safe {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// (expected rule id, token, text embedding the token).
fn recipes(seed: u64) -> Vec<(&'static str, String, String)> {
    let mut r = Rng::new(seed);
    let mut v = Vec::new();
    let t = format!("ghp_{}", r.chars(36, &alnum()));
    v.push((
        "github-pat",
        t.clone(),
        format!("export GITHUB_TOKEN={t}\n"),
    ));
    let t = format!("github_pat_{}", r.chars(82, &word()));
    v.push((
        "github-fine-grained-pat",
        t.clone(),
        format!("git clone https://github.com/o/r.git && gh auth login --with-token {t}"),
    ));
    let t = format!("AKIA{}", r.chars(16, &[UPPER, "234567"].concat()));
    v.push((
        "aws-access-token",
        t.clone(),
        format!("[default]\naws_access_key_id = {t}\nregion = eu-west-1\n"),
    ));
    let t = format!(
        "xoxb-{}-{}-{}",
        r.chars(12, DIGITS),
        r.chars(13, DIGITS),
        r.chars(24, &alnum())
    );
    v.push((
        "slack-bot-token",
        t.clone(),
        format!("curl -d token={t} https://slack.com/api/chat.postMessage"),
    ));
    let t = format!("sk_live_{}", r.chars(24, &alnum()));
    v.push((
        "stripe-access-token",
        t.clone(),
        format!("const stripe = require('stripe')('{t}');"),
    ));
    let t = format!(
        "sk-proj-{}T3BlbkFJ{}",
        r.chars(74, &[&alnum(), "_-"].concat()),
        r.chars(74, &[&alnum(), "_-"].concat())
    );
    v.push((
        "openai-api-key",
        t.clone(),
        format!("OPENAI_API_KEY=\"{t}\""),
    ));
    let t = format!("sk-ant-api03-{}AA", r.chars(93, &[&alnum(), "_-"].concat()));
    v.push((
        "anthropic-api-key",
        t.clone(),
        format!("export ANTHROPIC_API_KEY={t}"),
    ));
    let t = format!("AIza{}", r.chars(35, &[&word(), "-"].concat()));
    v.push((
        "gcp-api-key",
        t.clone(),
        format!("fetch(`https://maps.googleapis.com/maps/api/js?key={t}`)"),
    ));
    let body: Vec<String> = (0..12)
        .map(|_| r.chars(64, &[&alnum(), "+/"].concat()))
        .collect();
    let t = format!(
        "-----BEGIN RSA {}-----\n{}\n-----END RSA {}-----",
        "PRIVATE KEY",
        body.join("\n"),
        "PRIVATE KEY"
    );
    v.push((
        "private-key",
        t.clone(),
        format!("cat > ~/.ssh/id_rsa <<'EOF'\n{t}\nEOF\n"),
    ));
    let header = base64(br#"{"alg":"HS256","typ":"JWT"}"#, true);
    let payload = base64(
        format!(
            r#"{{"sub":"{}","name":"{}","iat":{}}}"#,
            r.chars(10, DIGITS),
            r.chars(8, LOWER),
            r.chars(10, DIGITS)
        )
        .as_bytes(),
        true,
    );
    let t = format!(
        "{header}.{payload}.{}",
        r.chars(43, &[&alnum(), "_-"].concat())
    );
    v.push(("jwt", t.clone(), format!("session:\n  id_token: {t}\n")));
    let t = format!("npm_{}", r.chars(36, &alnum()));
    v.push((
        "npm-access-token",
        t.clone(),
        format!("//registry.npmjs.org/:_authToken={t}\n"),
    ));
    let t = format!("S3cr3t-{}", r.chars(4, &alnum()));
    v.push((
        "url-credentials",
        t.clone(),
        ["postgres://admin", ":", &t, "@db.internal:5432/app"].concat(),
    ));
    v
}

#[test]
fn every_builtin_rule_compiles() {
    let s = Scanner::builtin();
    let skipped: Vec<&str> = s.skipped_rules().collect();
    assert!(skipped.is_empty(), "rules failed to compile: {skipped:?}");
    assert_eq!(s.dropped_allow_patterns(), 0);
    let gitleaks = s
        .rules()
        .filter(|r| r.source == RuleSource::Gitleaks)
        .count();
    assert!(gitleaks >= 220, "only {gitleaks} gitleaks rules");
    assert_eq!(gitleaks, 221);
    assert!(s.rules().any(|r| r.id == "url-credentials"));
    assert!(s.rules().any(|r| r.id == "private-key-header"));
    let mut ids: Vec<&str> = s.rules().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), s.rules().count(), "duplicate rule ids");
}

#[test]
fn generated_tokens_are_detected_and_redacted() {
    let s = Scanner::builtin();
    for seed in [1, 2, 3, 0x5eed, 0xdead_beef] {
        for (rule, token, text) in recipes(seed) {
            let findings = s.scan(&text);
            assert!(
                findings.iter().any(|f| f.rule_id == rule),
                "seed {seed}: {rule} not detected; got {:?}",
                findings.iter().map(|f| f.rule_id).collect::<Vec<_>>()
            );
            let redacted = s.redact(&text);
            assert!(
                !redacted.contains(token.as_str()),
                "seed {seed}: {rule} token survives redaction"
            );
            assert!(
                redacted.contains(&format!("[REDACTED:{rule}]")),
                "seed {seed}: {rule} redaction marker missing"
            );
            // Spans are ordered and do not overlap.
            assert!(findings.windows(2).all(|w| w[0].end <= w[1].start));
        }
    }
}

#[test]
fn redaction_keeps_the_surrounding_text() {
    let s = Scanner::builtin();
    let mut r = Rng::new(9);
    let t = format!("ghp_{}", r.chars(36, &alnum()));
    let text = format!("echo {t} | gh auth login --with-token");
    assert_eq!(
        s.redact(&text),
        "echo [REDACTED:github-pat] | gh auth login --with-token"
    );
    assert_eq!(
        s.scan(&text),
        vec![Finding {
            rule_id: "github-pat",
            start: 5,
            end: 5 + t.len()
        }]
    );
    assert!(matches!(s.redact("ls -la"), Cow::Borrowed(_)));
}

#[test]
fn placeholders_are_not_flagged() {
    let s = Scanner::builtin();
    let aws_docs_example = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    let texts = [
        "export GITHUB_TOKEN=${GITHUB_TOKEN}".to_owned(),
        "export GITHUB_TOKEN=$GITHUB_TOKEN".to_owned(),
        "api_key = \"$API_KEY\"".to_owned(),
        "OPENAI_API_KEY=your-api-key-here".to_owned(),
        "api_key: your-api-key-here".to_owned(),
        "token = \"<token>\"".to_owned(),
        "password = \"xxxxxxxx\"".to_owned(),
        "secret_key = \"xxxxxxxxxxxxxxxxxxxxxxxxxxxx\"".to_owned(),
        "password: changeme".to_owned(),
        "client_secret = \"aaaaaaaaaaaaaaaaaaaaaaaa\"".to_owned(),
        "token: {{ .Values.token }}".to_owned(),
        "token: ${{ secrets.GITHUB_TOKEN }}".to_owned(),
        format!("aws_access_key_id = {aws_docs_example}"),
        format!("ghp_{}", "x".repeat(36)),
        format!("sk_live_{}", "X".repeat(24)),
        "postgres://user:${PASS}@db:5432/app".to_owned(),
        "mysql://root:$PASSWORD@localhost/db".to_owned(),
        "https://user:password@example.com/".to_owned(),
        "https://user:xxx@example.com/".to_owned(),
        "https://user:****@example.com/".to_owned(),
        "redis://default:<password>@cache:6379".to_owned(),
        "amqp://guest:your-password-here@mq:5672/".to_owned(),
        "git clone https://github.com/org/repo.git".to_owned(),
        "ssh://git@github.com:22/org/repo.git".to_owned(),
    ];
    for text in &texts {
        let ids: Vec<&str> = s.scan(text).iter().map(|f| f.rule_id).collect();
        assert!(ids.is_empty(), "flagged {text:?}: {ids:?}");
    }
}

#[test]
fn bare_private_key_header_is_flagged() {
    let s = Scanner::builtin();
    for header in [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    ] {
        let text = format!("printf '{header}' > key");
        let ids: Vec<&str> = s.scan(&text).iter().map(|f| f.rule_id).collect();
        assert_eq!(ids, ["private-key-header"], "{header}");
    }
    assert!(s.is_clean("-----BEGIN PUBLIC KEY-----"));
    assert!(s.is_clean("-----BEGIN CERTIFICATE-----"));
}

#[test]
fn encoded_tokens_are_detected_with_the_encoded_span() {
    let s = Scanner::builtin();
    for seed in [4, 5, 6] {
        let mut r = Rng::new(seed);
        let token = format!("ghp_{}", r.chars(36, &alnum()));
        for encoded in [
            base64(token.as_bytes(), false),
            base64(token.as_bytes(), true),
            hex::encode(&token),
            base64(
                base64(format!("GITHUB_TOKEN={token}").as_bytes(), false).as_bytes(),
                false,
            ),
        ] {
            let text = format!("echo {encoded} | base64 -d > .env");
            let findings = s.scan(&text);
            assert_eq!(
                findings,
                vec![Finding {
                    rule_id: "github-pat",
                    start: 5,
                    end: 5 + encoded.len()
                }],
                "seed {seed}"
            );
            assert!(!s.redact(&text).contains(&encoded));
        }
        let url = ["https://deploy:", &token, "@git.example.org/repo"].concat();
        let text = format!("echo {}", base64(url.as_bytes(), false));
        assert_eq!(s.scan(&text).len(), 1, "seed {seed}");
    }
    // Encoded text without secrets is clean.
    assert!(s.is_clean(&format!(
        "echo {} | base64 -d",
        base64(b"just an ordinary sentence, nothing to see here", false)
    )));
}

#[test]
fn path_restricted_rules_need_the_path() {
    let s = Scanner::builtin();
    let mut r = Rng::new(11);
    let pw = r.chars(16, &[LOWER, DIGITS].concat());
    let text = format!("resource \"x\" \"y\" {{\n  administrator_login_password = \"{pw}\"\n}}\n");
    let restricted = s.rules().filter(|r| r.path_restricted).count();
    assert_eq!(restricted, 4);
    let in_tf: Vec<&str> = s
        .scan_file("infra/main.tf", &text)
        .iter()
        .map(|f| f.rule_id)
        .collect();
    assert!(in_tf.contains(&"hashicorp-tf-password"), "{in_tf:?}");
    assert!(
        !s.scan(&text)
            .iter()
            .any(|f| f.rule_id == "hashicorp-tf-password")
    );
}

/// Roughly 64 KiB of ordinary Rust and JavaScript, full of secret-ish identifiers.
fn ordinary_source(target: usize) -> String {
    let lines = [
        "let token = get_token(&config)?;",
        "const api_key = get_key();",
        "let password_field = form.password_field.value();",
        "fn authenticate(user: &User, credentials: &Credentials) -> Result<Session, AuthError> {",
        "    if (accessToken === undefined) { throw new Error(\"missing access token\"); }",
        "    const secretName = \"db-password\";",
        "    self.key_length = 32;",
        "    let auth_header = format!(\"Bearer {}\", token);",
        "    headers.insert(\"Authorization\", auth_header.parse()?);",
        "    const apiKey = process.env.API_KEY;",
        "    let secret = vault.read_secret(&path).await?;",
        "    password: Option<String>,",
        "    if key == KeyCode::Enter { return Ok(()); }",
        "    export const TOKEN_TTL_SECONDS = 3600;",
        "    let access_key_id = std::env::var(\"AWS_ACCESS_KEY_ID\")?;",
        "    // The api token is rotated by the credential_provider every 24h.",
        "    map.insert(\"keyboard_layout\", layout.to_string());",
        "    const creds = await loadCredentials({ profile: opts.profile });",
        "    let public_key = PublicKey::from_bytes(&bytes)?;",
        "    const commitSha = \"3f2a9c1e0b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\";",
        "    let url = format!(\"https://{}/api/v1/items?page={}\", host, page);",
        "    assert_eq!(hash, \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\");",
        "}",
    ];
    let mut out = String::with_capacity(target + 256);
    let mut i = 0usize;
    while out.len() < target {
        let line = lines[i % lines.len()];
        out.push_str(&line.replace("token", &format!("token{}", i % 7)));
        out.push('\n');
        if i.is_multiple_of(5) {
            out.push_str(&format!(
                "let user_{i} = users.get({i}).cloned().unwrap_or_default();\n"
            ));
        }
        i += 1;
    }
    out
}

#[test]
fn ordinary_code_has_no_findings() {
    let s = Scanner::builtin();
    let src = ordinary_source(64 * 1024);
    let findings = s.scan(&src);
    let report: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f.rule_id, &src[f.start..f.end]))
        .collect();
    assert!(findings.is_empty(), "{report:?}");
    for cmd in [
        "cargo test -p toolgate-engine --lib secrets -- --nocapture",
        "git log --oneline | head -5 && git status --short",
        "find . -name '*.rs' -newer Cargo.toml -exec grep -l password_field {} +",
        "docker run --rm -e API_KEY=\"$API_KEY\" -v \"$PWD:/src\" node:22 npm test",
    ] {
        assert!(s.is_clean(cmd), "{cmd}");
    }
}

/// A windowed rule's accepted secret spans in `hay` as the scanner finds them, and as the rule's
/// regex finds them over the whole text.
type Spans = Vec<(usize, usize)>;
fn windowed_and_whole_text(s: &Scanner, rule: &Rule, hay: &[u8]) -> (Spans, Spans) {
    let mut budget = Budget { bytes: 0, runs: 0 };
    let mut windowed = Vec::new();
    s.collect(
        hay,
        None,
        0,
        &mut budget,
        &mut Room::new(false),
        &mut windowed,
    );
    let windowed = windowed
        .iter()
        .filter(|c| c.rule_id == rule.id)
        .map(|c| (c.start, c.end))
        .collect();
    let reference = rule
        .regex
        .captures_iter(hay)
        .filter_map(|caps| {
            let whole = caps.get(0)?;
            let secret = caps.iter().skip(1).flatten().find(|m| !m.is_empty())?;
            s.accept(rule, hay, secret.as_bytes(), whole, None)
                .then_some((secret.start(), secret.end()))
        })
        .collect();
    (windowed, reference)
}

#[test]
fn windowed_generic_rule_equals_a_whole_text_scan() {
    let s = Scanner::builtin();
    let (order, rule) = s
        .rules
        .iter()
        .enumerate()
        .find(|(_, r)| r.id == "generic-api-key")
        .unwrap();
    assert!(rule.window.is_some());
    let mut r = Rng::new(21);
    let mut text = ordinary_source(8 * 1024);
    for i in 0..40 {
        let value = match i % 4 {
            0 => r.chars(24, &[UPPER, DIGITS].concat()),
            1 => r.chars(150, "0123456789QWXZ"),
            2 => r.chars(900, "0123456789qwxz+/"),
            _ => format!(
                "{}={}",
                r.chars(12, "0123456789QWXZ"),
                r.chars(30, "0123456789")
            ),
        };
        let key = ["secret", "api_key", "client_auth", "password", "access"][i % 5];
        text.push_str(&format!(
            "svc{i}_{key} = \"{value}\"\n{}",
            ordinary_source(300 + i * 37)
        ));
    }
    text.push_str(&format!(
        "token = {}",
        r.chars(600, &[LOWER, DIGITS].concat())
    ));
    let hay = text.as_bytes();
    let (windowed, reference) = windowed_and_whole_text(s, rule, hay);
    let raw = rule.regex.find_iter(hay).count();
    assert!(
        reference.len() >= 20,
        "{} reference hits of {raw}",
        reference.len()
    );
    assert_eq!(windowed, reference, "rule #{order}");
}

#[test]
fn the_vendored_rule_data_is_not_itself_flagged() {
    let ids: Vec<&str> = Scanner::builtin()
        .scan(rules::RULES_JSON)
        .iter()
        .map(|f| f.rule_id)
        .collect();
    // That rule's regex is a plain literal (a fixed prefix), so it matches its own definition.
    assert_eq!(ids, ["aws-amazon-bedrock-api-key-short-lived"]);
}

/// A scan stops collecting at MAX_CANDIDATES; a redaction must not, or a text packed with
/// decoys of one rule keeps a secret of another after them in clear. Both rule orders are tried,
/// so whichever rule runs first is the one whose decoys fill the scan's room.
#[test]
fn redaction_masks_a_secret_after_more_decoys_than_a_scan_collects() {
    let s = Scanner::builtin();
    let mut r = Rng::new(21);
    let mut token = |github: bool| {
        if github {
            format!("ghp_{}", r.chars(36, &alnum()))
        } else {
            format!("AKIA{}", r.chars(16, &[UPPER, "234567"].concat()))
        }
    };
    for decoys_are_github in [true, false] {
        let mut text: String = (0..MAX_CANDIDATES + 200)
            .map(|_| format!("{}\n", token(decoys_are_github)))
            .collect();
        let secret = token(!decoys_are_github);
        text.push_str(&secret);
        assert!(text.len() < MAX_SCAN_BYTES);
        let redacted = s.redact(&text);
        assert!(!redacted.contains(&secret), "the last secret is masked");
        assert_eq!(redacted.matches("[REDACTED:").count(), MAX_CANDIDATES + 201);
    }
}

/// Redaction masks the union of what its rules found. Merging part-way (past the candidate
/// limit) must not change that: here y's candidate, overlapped by x's when the decoys force a
/// merge, would be lost by a selection that a later z then frees, leaving y's secret in clear.
#[test]
fn redaction_masks_every_overlapping_candidate_whatever_the_decoys() {
    let s = small_scanner(
        r#"{"id": "d", "description": "d", "regex": "dk_[0-9]{6}"},
           {"id": "x", "description": "d", "regex": "Lm4Nk2HfRp7W"},
           {"id": "y", "description": "d", "regex": "Rp7Ws5Gt"},
           {"id": "z", "description": "d", "regex": "Zx3Vq8JdLm4N"}"#,
    );
    let secret = "Zx3Vq8JdLm4Nk2HfRp7Ws5Gt"; // z = [0, 12), x = [8, 20), y = [16, 24)
    assert_eq!(s.redact(secret), "[REDACTED:x]");
    let mut r = Rng::new(5);
    let mut text: String = (0..2046)
        .map(|_| format!("dk_{} ", r.chars(6, DIGITS)))
        .collect();
    text.push_str(secret);
    let redacted = s.redact(&text);
    let tail = &redacted[redacted.rfind("[REDACTED:d]").unwrap()..];
    assert_eq!(tail, "[REDACTED:d] [REDACTED:x]");
}

#[test]
fn bounds_hold() {
    let s = Scanner::builtin();
    let mut r = Rng::new(12);
    let mut text = String::new();
    for _ in 0..(MAX_FINDINGS + 10) {
        text.push_str(&format!("ghp_{}\n", r.chars(36, &alnum())));
    }
    assert_eq!(s.scan(&text).len(), MAX_FINDINGS);
    // Redaction masks every one, not only the first MAX_FINDINGS.
    let redacted = s.redact(&text);
    assert_eq!(
        redacted.matches("[REDACTED:github-pat]").count(),
        MAX_FINDINGS + 10
    );
    assert!(!redacted.contains("ghp_"));
    // Past the byte budget nothing is scanned.
    let mut big = "a ".repeat(MAX_SCAN_BYTES / 2);
    big.push_str(&format!("ghp_{}", r.chars(36, &alnum())));
    assert!(s.is_clean(&big));
    // Multi-byte text around a secret keeps spans on char boundaries.
    let t = format!("ghp_{}", r.chars(36, &alnum()));
    let text = format!("é token→{t}←ü");
    let redacted = s.redact(&text);
    assert!(redacted.contains("[REDACTED:github-pat]") && !redacted.contains(&t));
}

#[test]
fn literal_braces_are_escaped_like_go_re2() {
    assert_eq!(
        rules::escape_literal_braces(r"^\${(?:[A-Z_]+|[a-z_]+)}$"),
        r"^\$\{(?:[A-Z_]+|[a-z_]+)\}$"
    );
    assert_eq!(
        rules::escape_literal_braces(r"a{2,3}[{}]\{x{1}"),
        r"a{2,3}[{}]\{x{1}"
    );
    assert!(rules::compile_regex(r"import[ \t]+{[ \t\w,]+}[ \t]+from").is_some());
}

#[test]
fn entropy_matches_gitleaks() {
    assert_eq!(rules::shannon_entropy(b""), 0.0);
    assert_eq!(rules::shannon_entropy(b"aaaa"), 0.0);
    assert!((rules::shannon_entropy(b"abcd") - 2.0).abs() < 1e-9);
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), immune to waiting for a core.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Timing figures; run with
/// `cargo test --release -p toolgate-engine --lib secrets::tests::timing -- --ignored --nocapture
/// --test-threads=1`.
#[test]
#[ignore = "timing print, not an assertion"]
fn timing() {
    use std::hint::black_box;
    use std::time::Instant;
    let (t, cpu) = (Instant::now(), cpu_ns());
    let scanner = Scanner::compile_builtin();
    println!(
        "compile all rules: wall {:?}, on-CPU {:?}",
        t.elapsed(),
        std::time::Duration::from_nanos(cpu_ns() - cpu)
    );
    let s = Scanner::builtin();
    let cmd = "cd /work/app && ls -la src/ && grep -rn 'fn main' --include='*.rs' . | head -20 && cargo build --release 2>&1 | tail -5";
    let time = |label: &str, text: &str, iters: u32| {
        black_box(s.scan(text));
        let (t, cpu) = (Instant::now(), cpu_ns());
        for _ in 0..iters {
            black_box(s.scan(black_box(text)));
        }
        println!(
            "{label} ({} B): wall {:?}/scan, on-CPU {:?}/scan",
            text.len(),
            t.elapsed() / iters,
            std::time::Duration::from_nanos((cpu_ns() - cpu) / u64::from(iters))
        );
    };
    time("shell command, no keyword", cmd, 20_000);
    time(
        "shell command with keyword",
        "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.org/v1/items?limit=10",
        20_000,
    );
    let src = ordinary_source(64 * 1024);
    time("64 KiB source, no secrets", &src, 200);
    let mut r = Rng::new(77);
    let secret_text = format!(
        "{}\nexport GITHUB_TOKEN=ghp_{}\n",
        src,
        r.chars(36, &alnum())
    );
    time("64 KiB source, one secret", &secret_text, 200);
    drop(scanner);
}

#[test]
#[ignore = "timing breakdown"]
fn timing_breakdown() {
    use std::time::Instant;
    let s = Scanner::builtin();
    let src = ordinary_source(64 * 1024);
    let hay = src.as_bytes();
    let t = Instant::now();
    let mut enabled = vec![false; s.rules.len()];
    for _ in 0..100 {
        for (pattern, _, _) in s.keywords.hits(hay).unwrap() {
            for &i in &s.keyword_rules[pattern] {
                enabled[i] = true;
            }
        }
    }
    println!("keywords: {:?}", t.elapsed() / 100);
    for (rule, on) in s.rules.iter().zip(&enabled) {
        if *on {
            let t = Instant::now();
            let mut n = 0;
            for _ in 0..20 {
                n += rule.regex.captures_iter(hay).count();
            }
            println!("{}: {:?} ({} matches)", rule.id, t.elapsed() / 20, n / 20);
        }
    }
    let t = Instant::now();
    for _ in 0..20 {
        let mut b = Budget {
            bytes: MAX_DECODE_BYTES,
            runs: MAX_DECODE_RUNS,
        };
        std::hint::black_box(decode::decoded_runs(hay, &mut b, |_, _| false));
    }
    println!("decode: {:?}", t.elapsed() / 20);
}

#[test]
#[ignore = "timing breakdown"]
fn timing_stages() {
    use std::hint::black_box;
    use std::time::Instant;
    let s = Scanner::builtin();
    let src = ordinary_source(64 * 1024);
    let hay = src.as_bytes();
    let rule = s.rules.iter().find(|r| r.id == "generic-api-key").unwrap();
    let matches: Vec<_> = rule.regex.captures_iter(hay).collect();
    let mut totals = [0u128; 3];
    for _ in 0..50 {
        let t = Instant::now();
        let mut b = Budget { bytes: 0, runs: 0 };
        let mut out = Vec::new();
        s.collect(hay, None, 0, &mut b, &mut Room::new(false), &mut out);
        black_box(out);
        totals[0] += t.elapsed().as_nanos();
        let t = Instant::now();
        for caps in &matches {
            let whole = caps.get(0).unwrap();
            let secret = caps
                .iter()
                .skip(1)
                .flatten()
                .find(|m| !m.is_empty())
                .unwrap();
            black_box(s.accept(rule, hay, secret.as_bytes(), whole, None));
        }
        totals[1] += t.elapsed().as_nanos();
        let t = Instant::now();
        black_box(s.scan(&src));
        totals[2] += t.elapsed().as_nanos();
    }
    println!(
        "collect(depth 0): {} µs, accept x{}: {} µs, scan: {} µs",
        totals[0] / 50_000,
        matches.len(),
        totals[1] / 50_000,
        totals[2] / 50_000
    );
}

/// A scanner over a small rule file (no extra rules), for the prefilter's edge cases.
fn small_scanner(rules: &str) -> Scanner {
    let json: &'static str =
        Box::leak(format!(r#"{{"allowlist": {{}}, "rules": [{rules}]}}"#).into_boxed_str());
    Scanner::from_parts(json, &[])
}

#[test]
fn a_rule_without_keywords_still_runs() {
    let s = small_scanner(
        r#"{"id": "no-keywords", "description": "d", "regex": "zq_[0-9]{12}"},
           {"id": "keyworded", "description": "d", "regex": "kw_[0-9]{12}", "keywords": ["kw_"]}"#,
    );
    assert_eq!(s.skipped_rules().count(), 0);
    let ids = |text: &str| s.scan(text).iter().map(|f| f.rule_id).collect::<Vec<_>>();
    assert_eq!(ids("x zq_123456789012 y"), ["no-keywords"]);
    assert_eq!(
        ids("kw_123456789012 zq_123456789012"),
        ["keyworded", "no-keywords"]
    );
    // The same in a text long enough to be walked in interleaved parts.
    let long = format!("{}zq_123456789012", "filler ".repeat(LANED_TEXT / 7 + 1));
    assert!(long.len() > LANED_TEXT);
    assert_eq!(ids(&long), ["no-keywords"]);
}

#[test]
fn keywords_match_in_any_ascii_case_and_the_regex_decides_case() {
    // gitleaks lower-cases the keywords and the text before the keyword test; the regex keeps
    // its own case rules.
    let s = small_scanner(
        r#"{"id": "upper-kw", "description": "d", "regex": "(?i)abc_[0-9]{12}", "keywords": ["ABC_"]},
           {"id": "exact-case", "description": "d", "regex": "def_[0-9]{12}", "keywords": ["def_"]}"#,
    );
    let ids = |text: &str| s.scan(text).iter().map(|f| f.rule_id).collect::<Vec<_>>();
    assert_eq!(ids("abc_123456789012"), ["upper-kw"]);
    assert_eq!(ids("AbC_123456789012"), ["upper-kw"]);
    assert_eq!(ids("DEF_123456789012"), Vec::<&str>::new());
    assert_eq!(ids("dEf_123456789012 def_123456789012"), ["exact-case"]);
    // Built-in rules: an upper-case generic key name is found; an upper-case GitHub prefix is
    // a keyword hit but not a token.
    let b = Scanner::builtin();
    let mut r = Rng::new(31);
    let value = r.chars(32, &alnum());
    let text = format!("export SERVICE_API_KEY=\"{value}\"\n");
    assert!(b.scan(&text).iter().any(|f| f.rule_id == "generic-api-key"));
    let text = format!("GHP_{}", r.chars(36, &alnum()));
    assert!(!b.scan(&text).iter().any(|f| f.rule_id == "github-pat"));
}

#[test]
fn keywords_are_found_across_every_boundary() {
    let s = Scanner::builtin();
    let mut r = Rng::new(41);
    let token = format!("ghp_{}", r.chars(36, &alnum()));
    // The token (and its keyword) at the start, the end, straddling the size from which the
    // keyword pass walks the text in interleaved parts, and in texts just below and above it.
    for pad in [
        0,
        1,
        LANED_TEXT - 20,
        LANED_TEXT - 4,
        LANED_TEXT - 2,
        LANED_TEXT + 7,
    ] {
        for suffix in ["", "\n", &"y".repeat(LANED_TEXT)] {
            let text = format!("{}{token}{suffix}", "x".repeat(pad));
            let findings = s.scan(&text);
            assert_eq!(findings.len(), 1, "pad {pad}, suffix {}", suffix.len());
            assert_eq!(
                (findings[0].rule_id, findings[0].start, findings[0].end),
                ("github-pat", pad, pad + token.len()),
                "pad {pad}, suffix {}",
                suffix.len()
            );
        }
    }
    // The keyword pass (one walk for short texts, interleaved parts for long ones) reports the
    // same overlapping keyword hits as `aho_corasick`, also for keywords across the start of
    // every part.
    let nfa = aho_corasick::AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(aho_corasick::MatchKind::Standard)
        .build(s.keywords.words())
        .unwrap();
    let keywords = "apikey=x s.ey ghp_ghp_ TOKEN credentials PASSWORD -----BEGIN ";
    let suffix = base64(b"client_secret", false);
    for len in [
        0,
        1,
        100,
        2000,
        LANED_TEXT - 1,
        LANED_TEXT,
        LANED_TEXT + 1,
        9000,
    ] {
        let mut text = ordinary_source(len);
        text.truncate(len.min(text.len()));
        let total = text.len() + keywords.len() + suffix.len();
        for boundary in (1..4).map(|k| k * total.div_ceil(4)) {
            for cut in 0..keywords.len() {
                // A keyword string whose `cut`-th byte is at `boundary` of the final text.
                let split = boundary.saturating_sub(cut).min(text.len());
                let text = format!("{}{keywords}{}{suffix}", &text[..split], &text[split..]);
                let mut hits = s.keywords.hits(text.as_bytes()).unwrap();
                let mut reference: Vec<(usize, usize, usize)> = nfa
                    .find_overlapping_iter(text.as_bytes())
                    .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                    .collect();
                assert!(reference.len() > 10);
                hits.sort_unstable();
                reference.sort_unstable();
                assert_eq!(hits, reference, "len {len}, boundary {boundary}, cut {cut}");
            }
        }
    }
    // A keyword cut by the scan limit is not a hit: only the first MAX_SCAN_BYTES are scanned.
    let cut = format!("{}{token}", "a".repeat(MAX_SCAN_BYTES - 2));
    assert!(s.is_clean(&cut));
    // A keyword that only appears once decoded: the encoded span is reported.
    let encoded = base64(format!("GITHUB_TOKEN={token}").as_bytes(), false);
    let text = format!("echo {encoded} | base64 -d");
    let findings = s.scan(&text);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].rule_id, "github-pat");
    assert_eq!(&text[findings[0].start..findings[0].end], encoded);
}

#[test]
fn rules_compile_on_first_use_only() {
    let s = Scanner::compile_builtin();
    let compiled = |s: &Scanner| {
        s.rules
            .iter()
            .filter(|r| r.regex.compiled.get().is_some())
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    assert!(compiled(&s).is_empty());
    assert!(s.is_clean("cargo build --release"));
    let mut r = Rng::new(51);
    let text = format!("gh auth login --with-token ghp_{}", r.chars(36, &alnum()));
    assert_eq!(s.scan(&text)[0].rule_id, "github-pat");
    let now = compiled(&s);
    assert!(now.contains(&"github-pat"), "{now:?}");
    assert!(now.len() < 20, "{now:?}");
    s.compile_all();
    assert_eq!(compiled(&s).len(), s.rules.len());
}

#[test]
fn a_rule_that_does_not_compile_finds_nothing() {
    let s = small_scanner(
        r#"{"id": "broken", "description": "d", "regex": "(unclosed", "keywords": ["unclosed"]},
           {"id": "fine", "description": "d", "regex": "ok_[0-9]{12}", "keywords": ["ok_"]}"#,
    );
    assert_eq!(s.skipped_rules().collect::<Vec<_>>(), ["broken"]);
    let findings = s.scan("(unclosed ok_123456789012");
    assert_eq!(
        findings.iter().map(|f| f.rule_id).collect::<Vec<_>>(),
        ["fine"]
    );
}

/// Random key/operator/value soup for `generic-api-key`: 60 assignments of every shape around
/// its keywords.
fn generic_soup(r: &mut Rng) -> String {
    let keys = [
        "token",
        "API",
        "api",
        "Auth",
        "passwd",
        "password",
        "secret",
        "creds",
        "KEY",
        "access",
        "credential",
        "monkey",
        "x",
    ];
    let gaps = [
        "",
        " ",
        "\t",
        "  \t ",
        "\"",
        "' ",
        " \n",
        "                    \"",
        "\u{b}",
    ];
    let ops = [
        "=", ":", ":=", "::=", ":::=", "=>", "||", "?=", ",", ">", "-", "(", " is ",
    ];
    let mut text = String::new();
    for _ in 0..60 {
        let pick =
            |r: &mut Rng, list: &[&'static str]| list[(r.next() % list.len() as u64) as usize];
        let len = (r.next() % 40) as usize;
        let value = match r.next() % 4 {
            0 => r.chars(len, &alnum()),
            1 => r.chars(len, "abcdef0123456789+/="),
            2 => r.chars(len, "xyz_.-"),
            _ => format!("${{{}}}", r.chars(len, UPPER)),
        };
        text.push_str(&format!(
            "{}{}{}{}{}{}{}",
            pick(r, &["", "my_", "svc.", "DB_"]),
            pick(r, &keys),
            pick(r, &gaps),
            pick(r, &ops),
            pick(r, &["", " ", "\"", "`", "= ", "= \t`'", "= \t`'\""]),
            value,
            pick(r, &["\n", "\"", " ", ";", "\\n", ")", ""]),
        ));
    }
    text
}

#[test]
fn generic_tail_prefilter_is_exact() {
    let s = Scanner::builtin();
    let rule = s.rules.iter().find(|r| r.id == "generic-api-key").unwrap();
    assert!(
        rule.tail.is_some(),
        "the vendored regex no longer ends with GENERIC_TAIL"
    );
    // Compared with the rule's regex over the whole text.
    let mut r = Rng::new(61);
    let mut found = 0;
    for round in 0..40 {
        let text = generic_soup(&mut r);
        let (windowed, reference) = windowed_and_whole_text(s, rule, text.as_bytes());
        found += reference.len();
        assert_eq!(windowed, reference, "round {round}");
    }
    assert!(found >= 100, "only {found} reference hits");
}

#[test]
fn the_tail_byte_tests_only_skip_what_the_tail_regex_rejects() {
    let s = Scanner::builtin();
    let rule = s.rules.iter().find(|r| r.id == "generic-api-key").unwrap();
    let tail = rule.tail.as_ref().unwrap();
    let mut r = Rng::new(67);
    let (mut matched, mut tested) = (0, 0);
    let long = "a".repeat(GENERIC_RUN_CHECK + 50);
    let crafted = [
        format!("token = {long}\n"),
        format!("token = {long}("),
        format!("token = {long}"),
        format!("token := `{}`", &long[..150]),
        format!("token := `{}`", &long[..151]),
        format!("token: {}==;", "ab+/".repeat(70)),
        "key=key=key=key=key=key=key=key=key=key=key=\\n".to_owned(),
    ];
    for round in 0..20 + crafted.len() {
        let text = match crafted.get(round) {
            Some(text) => text.clone(),
            None => generic_soup(&mut r),
        };
        let hay = text.as_bytes();
        for at in 0..=hay.len() {
            let expected = tail.is_match(&hay[at..]);
            assert_eq!(follows(tail, hay, at), expected, "at {at} of {text:?}");
            matched += usize::from(expected);
            tested += 1;
        }
    }
    assert!(matched >= 200, "only {matched} of {tested} positions match");
}
