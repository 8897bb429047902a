//! Walks a bundle document and collects every error with its location.
//!
//! Nothing here stops at the first problem: each field is checked on its own so that a security
//! team sees the whole list of what to fix in one round trip.

use serde_json::{Map, Value};

use super::patterns::RegexBudget;
use super::{
    Bundle, BundleError, BundleErrors, FieldMatch, Finding, Guideline, Options, Permissions,
    RuleSource, RuleSpec, Severity, TestCase,
};
use crate::decision::{Mode, Outcome};
use crate::protocol::EVENTS;
use crate::rules::{PermissionRule, RuleKind};

/// Top-level keys toolgate reads.
const BUNDLE_KEYS: &[&str] = &[
    "name",
    "description",
    "permissions",
    "include",
    "rules",
    "guidelines",
    "tests",
    "options",
    "$schema",
];

/// Keys an extended rule may have.
const RULE_KEYS: &[&str] = &[
    "id",
    "description",
    "events",
    "tool",
    "command",
    "program",
    "args",
    "paths",
    "domains",
    "content",
    "secrets",
    "fields",
    "cwd",
    "permission_mode",
    "decision",
    "reason",
    "additional_context",
    "mode",
];

/// Claude Code's permission modes (`permission_mode` of an event).
const PERMISSION_MODES: &[&str] = &[
    "default",
    "plan",
    "acceptEdits",
    "auto",
    "dontAsk",
    "bypassPermissions",
];

/// Keys of `permissions` toolgate reads (Claude Code's others are ignored with a warning).
const PERMISSION_KEYS: &[&str] = &["allow", "ask", "deny", "additionalDirectories"];

/// Keys of `options`.
const OPTION_KEYS: &[&str] = &["unresolvable", "default"];

/// Keys a bundle test may have.
const TEST_KEYS: &[&str] = &["name", "tool", "input", "event", "expect", "rule", "cwd"];

/// What a rule's `tool` regex is wrapped in: it must match the whole tool name.
const TOOL_PREFIX: &str = "^(?:";
const TOOL_SUFFIX: &str = ")$";

/// Names of the built-in packs.
pub(crate) const PACKS: &[&str] = &["baseline", "secrets"];

/// Default `cwd` of a bundle test event.
pub(crate) const TEST_CWD: &str = "/home/user/project";

/// A set of known names (`events`, `permission_mode`): what they are called in a message, and
/// the code of the finding for one far from all of them.
#[derive(Clone, Copy)]
struct KnownNames {
    known: &'static [&'static str],
    what: &'static str,
    code: &'static str,
}

const EVENT_NAMES: KnownNames = KnownNames {
    known: EVENTS,
    what: "event",
    code: "unknown-event",
};

const PERMISSION_MODE_NAMES: KnownNames = KnownNames {
    known: PERMISSION_MODES,
    what: "permission mode",
    code: "unknown-permission-mode",
};

struct Walker {
    errors: Vec<BundleError>,
    findings: Vec<Finding>,
    /// The bundle's regexes are compiled against one budget, as `compile` compiles them.
    regexes: RegexBudget,
}

impl Walker {
    fn finding(&mut self, severity: Severity, code: &'static str, message: String) {
        self.findings.push(Finding {
            severity,
            code,
            message,
        });
    }

    fn error(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.errors.push(BundleError {
            location: location.into(),
            message: message.into(),
        });
    }

    fn string(&mut self, map: &Map<String, Value>, key: &str, at: &str) -> Option<String> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.clone()),
            Some(_) => {
                self.error(join(at, key), "must be a string");
                None
            }
        }
    }

    fn strings(&mut self, map: &Map<String, Value>, key: &str, at: &str) -> Vec<String> {
        let location = join(at, key);
        match map.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(text)) => vec![text.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::String(text) => Some(text.clone()),
                    _ => {
                        self.error(format!("{location}[{i}]"), "must be a string");
                        None
                    }
                })
                .collect(),
            Some(_) => {
                self.error(location, "must be a list of strings");
                Vec::new()
            }
        }
    }

    fn regex(&mut self, pattern: Option<String>, location: String) -> Option<String> {
        let pattern = pattern?;
        if let Err(message) = self.regexes.compile(&pattern) {
            self.error(location, message);
        }
        Some(pattern)
    }

    /// A list of names from a known set (`events`, `permission_mode`). A name a letter or two
    /// from a known one, or another case of it, is an error naming it: the rule would never
    /// apply. Another unknown name is a warning, as agents add events of their own.
    fn known_names(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        at: &str,
        names_of: &KnownNames,
    ) -> Vec<String> {
        let KnownNames { known, what, code } = *names_of;
        let names = self.strings(map, key, at);
        for (i, name) in names.iter().enumerate() {
            if known.contains(&name.as_str()) {
                continue;
            }
            let location = format!("{}[{i}]", join(at, key));
            match near_miss(name, known) {
                Some(known) => self.error(
                    location,
                    format!("unknown {what} `{name}`; did you mean `{known}`?"),
                ),
                None => self.finding(
                    Severity::Warning,
                    code,
                    format!(
                        "{location}: `{name}` is not a Claude Code {what}: it matches only where \
                         an agent sends exactly that name"
                    ),
                ),
            }
        }
        names
    }

    /// A rule's `tool`: a regex the whole tool name must match, so anchored around what was
    /// written; an error names what was written.
    fn tool_regex(&mut self, written: Option<String>, location: String) -> Option<String> {
        let written = written?;
        let pattern = format!("{TOOL_PREFIX}{written}{TOOL_SUFFIX}");
        // Parsed alone first: `Edit)|(Write` is no regex, but wrapped it would be one that
        // escapes the anchors (`^(?:Edit)|(Write)$`: any name that starts with `Edit`).
        if let Err(error) = regex_syntax::ast::parse::Parser::new().parse(&written) {
            let message = format!(
                "invalid regex `{written}`: {}",
                super::patterns::syntax_problem(
                    &regex_syntax::Error::Parse(error),
                    &written,
                    &written,
                    0
                )
            );
            self.error(location, message);
            return Some(pattern);
        }
        if let Err(message) = self
            .regexes
            .compile_written(&pattern, &written, TOOL_PREFIX.len())
        {
            self.error(location, message);
        }
        Some(pattern)
    }
}

/// The events whose hook gates a call: a failed hook there lets the call through unless it says
/// `onFailure: "block"`.
const GATING_EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// A `managed-settings.json`'s hooks that call toolgate (an HTTP hook at `/v1/evaluate`, or a
/// command running `toolgate hook`) on a gating event: one without `onFailure: "block"` fails
/// open (Claude Code takes a hook that cannot connect, times out or gets an error status as no
/// hook at all), and one without `timeout` may hold the agent for Claude Code's default 600 s.
fn toolgate_hooks(walker: &mut Walker, hooks: &Value) {
    let Value::Object(events) = hooks else {
        return;
    };
    for event in GATING_EVENTS {
        let Some(groups) = events.get(event).and_then(Value::as_array) else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (h, hook) in entries.iter().enumerate() {
                let text = |key: &str| hook.get(key).and_then(Value::as_str).unwrap_or_default();
                let calls_toolgate = match text("type") {
                    "http" => text("url").contains("/v1/evaluate"),
                    "command" => text("command").contains("toolgate hook"),
                    _ => false,
                };
                if !calls_toolgate {
                    continue;
                }
                let at = format!("hooks.{event}[{g}].hooks[{h}]");
                if text("onFailure") != "block" {
                    walker.finding(
                        Severity::Warning,
                        "hook-fails-open",
                        format!(
                            "{at}: a toolgate hook without `\"onFailure\": \"block\"` lets the \
                             call through whenever toolgate cannot answer (down, unreachable, \
                             slower than the timeout); Claude Code 2.1.295 and later block it \
                             instead"
                        ),
                    );
                }
                if hook.get("timeout").is_none() {
                    walker.finding(
                        Severity::Note,
                        "hook-default-timeout",
                        format!(
                            "{at}: no `timeout`: Claude Code waits up to 600 s for a toolgate \
                             that does not answer; a few seconds is plenty (`\"timeout\": 5`)"
                        ),
                    );
                }
            }
        }
    }
}

pub(super) fn validate(document: Value) -> Result<Bundle, BundleErrors> {
    let mut walker = Walker {
        errors: Vec::new(),
        findings: Vec::new(),
        regexes: RegexBudget::default(),
    };
    let Value::Object(map) = &document else {
        return Err(BundleErrors::one("document", "must be an object"));
    };
    for key in map.keys() {
        if BUNDLE_KEYS.contains(&key.as_str()) {
            continue;
        }
        // Other keys are ignored, so that a whole `managed-settings.json` loads; one a letter
        // or two from a bundle key is a typo that would drop that part of the policy unseen.
        match near_miss(key, BUNDLE_KEYS) {
            Some(known) => walker.error(
                key.as_str(),
                format!("not a bundle key; did you mean `{known}`?"),
            ),
            None => walker.finding(
                Severity::Note,
                "ignored-key",
                format!("`{key}`: not a bundle key, ignored"),
            ),
        }
    }
    if let Some(hooks) = map.get("hooks") {
        toolgate_hooks(&mut walker, hooks);
    }
    let name = walker.string(map, "name", "");
    match &name {
        // Missing or null; a name of another type was reported by `string`.
        None if map.get("name").is_none_or(Value::is_null) => walker.error("name", "is required"),
        Some(name) if name.trim().is_empty() => walker.error("name", "must not be empty"),
        _ => {}
    }
    let description = walker.string(map, "description", "");
    let permissions = permissions(&mut walker, map.get("permissions"));
    let include = walker.strings(map, "include", "");
    for (i, pack) in include.iter().enumerate() {
        if !PACKS.contains(&pack.as_str()) {
            walker.error(
                format!("include[{i}]"),
                format!("unknown pack `{pack}` (known: {})", PACKS.join(", ")),
            );
        }
    }
    let rules = list(&mut walker, map.get("rules"), "rules", rule);
    let mut seen = std::collections::HashSet::new();
    for (i, rule) in rules.iter().enumerate() {
        if !rule.id.is_empty() && !seen.insert(rule.id.as_str()) {
            walker.error(
                format!("rules[{i}].id"),
                format!("duplicate rule id `{}`", rule.id),
            );
        }
    }
    let guidelines = list(&mut walker, map.get("guidelines"), "guidelines", guideline);
    let tests = list(&mut walker, map.get("tests"), "tests", test_case);
    let options = options(&mut walker, map.get("options"));
    if !walker.errors.is_empty() {
        return Err(BundleErrors {
            errors: walker.errors,
        });
    }
    Ok(Bundle {
        name: name.unwrap_or_default(),
        description,
        permissions,
        include,
        rules,
        guidelines,
        tests,
        options,
        document,
        findings: walker.findings,
        regexes: walker.regexes.into_compiled(),
    })
}

fn permissions(walker: &mut Walker, value: Option<&Value>) -> Permissions {
    let mut permissions = Permissions::default();
    let map = match value {
        None | Some(Value::Null) => return permissions,
        Some(Value::Object(map)) => map,
        Some(_) => {
            walker.error("permissions", "must be an object");
            return permissions;
        }
    };
    for (kind, key) in [
        (RuleKind::Allow, "allow"),
        (RuleKind::Ask, "ask"),
        (RuleKind::Deny, "deny"),
    ] {
        let texts = walker.strings(map, key, "permissions");
        let mut parsed = Vec::with_capacity(texts.len());
        for (i, text) in texts.into_iter().enumerate() {
            let location = format!("permissions.{key}[{i}]");
            match PermissionRule::parse(&text) {
                Ok(rule) => {
                    for lint in crate::rules::lint(&rule, kind) {
                        let message = format!("{location}: {}", lint.message);
                        walker.finding(lint.severity, lint.code, message);
                    }
                    parsed.push(RuleSource { text, rule });
                }
                Err(e) => walker.error(location, e.message().to_owned()),
            }
        }
        match kind {
            RuleKind::Allow => permissions.allow = parsed,
            RuleKind::Ask => permissions.ask = parsed,
            RuleKind::Deny => permissions.deny = parsed,
        }
    }
    permissions.additional_directories =
        walker.strings(map, "additionalDirectories", "permissions");
    for key in map.keys() {
        if PERMISSION_KEYS.contains(&key.as_str()) {
            continue;
        }
        match near_miss(key, PERMISSION_KEYS) {
            Some(known) => walker.error(
                join("permissions", key),
                format!("not a permissions list; did you mean `{known}`?"),
            ),
            None => walker.finding(
                Severity::Note,
                "ignored-setting",
                format!(
                    "`permissions.{key}`: a Claude Code setting toolgate does not enforce, ignored"
                ),
            ),
        }
    }
    permissions
}

fn list<T>(
    walker: &mut Walker,
    value: Option<&Value>,
    key: &str,
    item: fn(&mut Walker, &Value, &str) -> Option<T>,
) -> Vec<T> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, value)| item(walker, value, &format!("{key}[{i}]")))
            .collect(),
        Some(_) => {
            walker.error(key, "must be a list");
            Vec::new()
        }
    }
}

fn rule(walker: &mut Walker, value: &Value, at: &str) -> Option<RuleSpec> {
    let Value::Object(map) = value else {
        walker.error(at, "must be an object");
        return None;
    };
    for key in map.keys() {
        if !RULE_KEYS.contains(&key.as_str()) {
            walker.error(join(at, key), unknown_key("rule key", key, RULE_KEYS));
        }
    }
    let id = walker.string(map, "id", at).unwrap_or_default();
    if id.is_empty() {
        walker.error(join(at, "id"), "is required");
    } else if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
    {
        walker.error(
            join(at, "id"),
            format!("`{id}` may hold only letters, digits, `-`, `_`, `.` and `/`"),
        );
    }
    let decision = match walker.string(map, "decision", at).as_deref() {
        Some("deny") => Outcome::Deny,
        Some("ask") => Outcome::Ask,
        Some("allow") => Outcome::Allow,
        Some(other) => {
            walker.error(
                join(at, "decision"),
                format!("must be `deny`, `ask` or `allow`, not `{other}`"),
            );
            Outcome::Deny
        }
        None => {
            walker.error(join(at, "decision"), "is required");
            Outcome::Deny
        }
    };
    let mode = match walker.string(map, "mode", at).as_deref() {
        None | Some("enforce") => Mode::Enforce,
        Some("warn") => Mode::Warn,
        Some(other) => {
            walker.error(
                join(at, "mode"),
                format!("must be `enforce` or `warn`, not `{other}`"),
            );
            Mode::Enforce
        }
    };
    let mut events = walker.known_names(map, "events", at, &EVENT_NAMES);
    if events.is_empty() {
        events = vec!["PreToolUse".to_owned(), "PermissionRequest".to_owned()];
    }
    let tool = walker.string(map, "tool", at);
    let tool = walker.tool_regex(tool, join(at, "tool"));
    let command = walker.string(map, "command", at);
    if let Some(command) = &command
        && let Err(e) = PermissionRule::parse(&format!("Bash({})", escape_parens(command)))
    {
        walker.error(join(at, "command"), e.message().to_owned());
    }
    let program = walker.strings(map, "program", at);
    let args = walker.string(map, "args", at);
    let args = walker.regex(args, join(at, "args"));
    let paths = walker.strings(map, "paths", at);
    for (i, path) in paths.iter().enumerate() {
        if let Err(e) = PermissionRule::parse(&format!("Read({})", escape_parens(path))) {
            walker.error(
                format!("{}[{i}]", join(at, "paths")),
                e.message().to_owned(),
            );
        }
    }
    let domains = walker.strings(map, "domains", at);
    for (i, domain) in domains.iter().enumerate() {
        if let Err(e) =
            PermissionRule::parse(&format!("WebFetch(domain:{})", escape_parens(domain)))
        {
            walker.error(
                format!("{}[{i}]", join(at, "domains")),
                e.message().to_owned(),
            );
        }
    }
    let content = walker.string(map, "content", at);
    let content = walker.regex(content, join(at, "content"));
    let secrets = match map.get("secrets") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => {
            walker.error(join(at, "secrets"), "must be true or false");
            false
        }
    };
    let fields = field_matches(walker, map.get("fields"), &join(at, "fields"));
    let cwd = walker.string(map, "cwd", at);
    if let Some(cwd) = &cwd
        && let Err(e) = globset::Glob::new(cwd)
    {
        walker.error(join(at, "cwd"), format!("invalid glob `{cwd}`: {e}"));
    }
    let permission_modes = walker.known_names(map, "permission_mode", at, &PERMISSION_MODE_NAMES);
    let reason = walker
        .string(map, "reason", at)
        .unwrap_or_else(|| format!("matched rule `{id}`"));
    let has_matcher = tool.is_some()
        || command.is_some()
        || !program.is_empty()
        || args.is_some()
        || !paths.is_empty()
        || !domains.is_empty()
        || content.is_some()
        || secrets
        || !fields.is_empty();
    if !has_matcher {
        walker.error(at.to_owned(), "needs at least one matcher (`tool`, `command`, `program`, `args`, `paths`, `domains`, `content`, `secrets` or `fields`)");
    }
    Some(RuleSpec {
        description: walker.string(map, "description", at),
        additional_context: walker.string(map, "additional_context", at),
        id,
        events,
        tool,
        command,
        program,
        args,
        paths,
        domains,
        content,
        secrets,
        fields,
        cwd,
        permission_modes,
        decision,
        reason,
        mode,
    })
}

fn field_matches(walker: &mut Walker, value: Option<&Value>, at: &str) -> Vec<FieldMatch> {
    let items = match value {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            walker.error(at, "must be a list of `{pointer, regex}` objects");
            return Vec::new();
        }
    };
    let mut fields = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let location = format!("{at}[{i}]");
        let Value::Object(map) = item else {
            walker.error(location, "must be an object with `pointer` and `regex`");
            continue;
        };
        let pointer = walker.string(map, "pointer", &location).unwrap_or_default();
        if !pointer.starts_with('/') {
            walker.error(
                join(&location, "pointer"),
                format!("`{pointer}` is not a JSON pointer (it starts with `/`)"),
            );
        }
        let regex = walker.string(map, "regex", &location);
        if regex.is_none() {
            walker.error(join(&location, "regex"), "is required");
        }
        if let Some(regex) = walker.regex(regex, join(&location, "regex")) {
            fields.push(FieldMatch { pointer, regex });
        }
    }
    fields
}

fn guideline(walker: &mut Walker, value: &Value, at: &str) -> Option<Guideline> {
    let default_events = || vec!["SessionStart".to_owned(), "UserPromptSubmit".to_owned()];
    match value {
        Value::String(text) => Some(Guideline {
            text: text.clone(),
            events: default_events(),
        }),
        Value::Object(map) => {
            let Some(text) = walker.string(map, "text", at) else {
                walker.error(join(at, "text"), "is required");
                return None;
            };
            let mut events = walker.known_names(map, "events", at, &EVENT_NAMES);
            if events.is_empty() {
                events = default_events();
            }
            Some(Guideline { text, events })
        }
        _ => {
            walker.error(at, "must be a string or an object with `text`");
            None
        }
    }
}

fn test_case(walker: &mut Walker, value: &Value, at: &str) -> Option<TestCase> {
    let Value::Object(map) = value else {
        walker.error(at, "must be an object");
        return None;
    };
    // A misspelt key would otherwise surface as a missing one (`inptu` as "`input` must be
    // an object"), or not at all (`rlue`).
    let unknown: Vec<&String> = map
        .keys()
        .filter(|key| !TEST_KEYS.contains(&key.as_str()))
        .collect();
    if !unknown.is_empty() {
        for key in unknown {
            walker.error(join(at, key), unknown_key("test key", key, TEST_KEYS));
        }
        return None;
    }
    let name = walker
        .string(map, "name", at)
        .unwrap_or_else(|| at.to_owned());
    let expect = match walker
        .string(map, "expect", at)
        .as_deref()
        .map(Outcome::parse)
    {
        Some(Some(outcome)) => outcome,
        Some(None) => {
            walker.error(
                join(at, "expect"),
                "must be `deny`, `ask`, `allow` or `none`",
            );
            return None;
        }
        None => {
            walker.error(join(at, "expect"), "is required");
            return None;
        }
    };
    let rule = walker.string(map, "rule", at);
    let event = match (map.get("event"), map.get("tool")) {
        (Some(Value::Object(event)), None) => {
            let mut event = event.clone();
            event
                .entry("hook_event_name")
                .or_insert_with(|| Value::String("PreToolUse".into()));
            Value::Object(event)
        }
        (None, Some(Value::String(tool))) => {
            let input = match map.get("input") {
                Some(Value::Object(input)) => Value::Object(input.clone()),
                Some(Value::String(command)) => serde_json::json!({ "command": command }),
                _ => {
                    walker.error(
                        join(at, "input"),
                        "must be an object (or a command string for Bash)",
                    );
                    return None;
                }
            };
            serde_json::json!({ "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input })
        }
        _ => {
            walker.error(
                at,
                "needs either `event` (a hook event object) or `tool` with `input`",
            );
            return None;
        }
    };
    let mut event = event;
    if let Value::Object(event) = &mut event {
        event
            .entry("session_id")
            .or_insert_with(|| Value::String("bundle-test".into()));
        let cwd = walker
            .string(map, "cwd", at)
            .unwrap_or_else(|| TEST_CWD.to_owned());
        event.entry("cwd").or_insert(Value::String(cwd));
        event.entry("transcript_path").or_insert_with(|| {
            Value::String("/home/user/.claude/projects/project/session.jsonl".into())
        });
    }
    if let Err(e) = crate::protocol::HookEvent::from_value(event.clone()) {
        walker.error(join(at, "event"), e.to_string());
        return None;
    }
    Some(TestCase {
        name,
        event,
        expect,
        rule,
    })
}

fn options(walker: &mut Walker, value: Option<&Value>) -> Options {
    let mut options = Options::default();
    let map = match value {
        None | Some(Value::Null) => return options,
        Some(Value::Object(map)) => map,
        Some(_) => {
            walker.error("options", "must be an object");
            return options;
        }
    };
    for key in map.keys() {
        if !OPTION_KEYS.contains(&key.as_str()) {
            walker.error(
                join("options", key),
                unknown_key("option", key, OPTION_KEYS),
            );
        }
    }
    match walker.string(map, "unresolvable", "options").as_deref() {
        None => {}
        Some("ask") => options.unresolvable = Outcome::Ask,
        Some("deny") => options.unresolvable = Outcome::Deny,
        Some(other) => walker.error(
            "options.unresolvable",
            format!("must be `ask` or `deny`, not `{other}`"),
        ),
    }
    match walker
        .string(map, "default", "options")
        .as_deref()
        .map(|text| (text, Outcome::parse(text)))
    {
        None => {}
        Some((_, Some(outcome))) => options.default = outcome,
        Some((other, None)) => {
            walker.error(
                "options.default",
                format!("must be `none`, `allow`, `ask` or `deny`, not `{other}`"),
            );
        }
    }
    options
}

/// "unknown rule key `programs`; did you mean `program`?", or the keys there are.
fn unknown_key(what: &str, key: &str, known: &[&str]) -> String {
    match near_miss(key, known) {
        Some(known) => format!("unknown {what} `{key}`; did you mean `{known}`?"),
        None => format!("unknown {what} `{key}` (known: {})", known.join(", ")),
    }
}

/// The known key `key` is a typo of: one edit away (two for keys of six or more letters),
/// letter case aside, a swap of neighbours counting as one edit.
fn near_miss<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key: Vec<char> = key.to_lowercase().chars().collect();
    known
        .iter()
        .filter(|known| !known.starts_with('$'))
        .map(|known| {
            let candidate: Vec<char> = known.to_lowercase().chars().collect();
            (typo_distance(&key, &candidate), candidate.len(), *known)
        })
        .filter(|(distance, len, _)| *distance <= if *len >= 6 { 2 } else { 1 })
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, _, known)| known)
}

/// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: the optimal string
/// alignment distance.
pub(super) fn typo_distance(a: &[char], b: &[char]) -> usize {
    // Three rows of the table at a time: the one before the previous (for swaps), the
    // previous and the current.
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, &y) in b.iter().enumerate() {
            let deleted = previous.get(j + 1).map_or(usize::MAX, |d| d + 1);
            let inserted = current.last().map_or(usize::MAX, |d| d + 1);
            let replaced = previous
                .get(j)
                .map_or(usize::MAX, |d| d + usize::from(x != y));
            let mut best = deleted.min(inserted).min(replaced);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(&y) && b.get(j - 1) == Some(&x);
            if let Some(d) = before.get(j.wrapping_sub(1)).filter(|_| swapped) {
                best = best.min(d + 1);
            }
            current.push(best);
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous.last().copied().unwrap_or(a.len())
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    }
}

/// Escapes parentheses and backslashes the way Claude Code writes rule content.
pub(crate) fn escape_parens(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}
