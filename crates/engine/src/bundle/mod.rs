//! The policy bundle: one JSON or YAML document (or several fragments merged in name order).
//!
//! Parsing walks the whole document and collects *every* error with its location
//! (`permissions.deny[3]: unbalanced parenthesis in `Bash(rm -rf``), never only the first.
//! Keys of a Claude Code settings file other than `permissions` are ignored with a warning, so a
//! `managed-settings.json` loads as it is.
//!
//! This module only describes and validates the document; compiling it into matchers is
//! `compile`'s job.

pub(crate) mod patterns;
mod validate;
mod yaml;

pub(crate) use validate::escape_parens;
pub(crate) use yaml::expands_past as yaml_expands_past;

use serde_json::Value;

use crate::decision::{Mode, Outcome};
pub use crate::rules::Severity;
use crate::rules::{PermissionRule, RuleKind};

/// Largest bundle document accepted, in bytes.
pub const MAX_BUNDLE_BYTES: usize = 4 * 1024 * 1024;
/// Deepest nesting accepted in a bundle document.
pub const MAX_BUNDLE_DEPTH: usize = 64;

/// A parsed, validated bundle document.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `permissions`: Claude Code's own rule lists.
    pub permissions: Permissions,
    /// `include`: built-in packs by name.
    pub include: Vec<String>,
    /// `rules`: extended rules.
    pub rules: Vec<RuleSpec>,
    /// `guidelines`: context delivered at session start and prompt submission.
    pub guidelines: Vec<Guideline>,
    /// `tests`: cases the bundle must pass before it can be stored.
    pub tests: Vec<TestCase>,
    /// `options`.
    pub options: Options,
    /// The document as canonical JSON (sorted keys): what is stored and hashed.
    pub document: Value,
    /// What the bundle loads with but its author should hear of: rules Claude Code would ignore
    /// or that look wrong, keys toolgate does not read.
    pub findings: Vec<Finding>,
    /// The regexes of `rules`, compiled by validation for the compilation to take.
    pub(crate) regexes: patterns::CompiledRegexes,
}

/// A finding about a bundle that loads: a rule that does nothing or looks wrong, an event name
/// no agent may send, a key toolgate does not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// How much it matters: `toolgate lint` exits 1 on an error, never on a note.
    #[serde(serialize_with = "severity_name")]
    pub severity: Severity,
    /// A stable code: a lint's (`write-rule-ignored`), or `unknown-event`,
    /// `unknown-permission-mode`, `ignored-key`, `ignored-setting`.
    pub code: &'static str,
    /// Where and what (`permissions.allow[0]: …`, ``` `hooks`: not a bundle key, ignored ```).
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn severity_name<S: serde::Serializer>(severity: &Severity, out: S) -> Result<S::Ok, S::Error> {
    out.serialize_str(severity.as_str())
}

impl Bundle {
    /// The findings of a severity, in document order.
    pub fn findings_of(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |finding| finding.severity == severity)
    }
}

/// Claude Code's `permissions` block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Permissions {
    /// `permissions.allow`.
    pub allow: Vec<RuleSource>,
    /// `permissions.ask`.
    pub ask: Vec<RuleSource>,
    /// `permissions.deny`.
    pub deny: Vec<RuleSource>,
    /// `permissions.additionalDirectories`.
    pub additional_directories: Vec<String>,
}

impl Permissions {
    /// The rules of one list.
    pub fn list(&self, kind: RuleKind) -> &[RuleSource] {
        match kind {
            RuleKind::Allow => &self.allow,
            RuleKind::Ask => &self.ask,
            RuleKind::Deny => &self.deny,
        }
    }
}

/// A permission rule with the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSource {
    /// The rule string as written in the bundle.
    pub text: String,
    /// The parsed rule.
    pub rule: PermissionRule,
}

/// One extended rule (`rules[i]`). Every matcher given must match (they are AND-ed).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RuleSpec {
    /// `id`: names the flagged pattern (`git-force-push-protected-branch`).
    pub id: String,
    /// `description`.
    pub description: Option<String>,
    /// `events` the rule applies to (default `PreToolUse` and `PermissionRequest`).
    pub events: Vec<String>,
    /// `tool`: a regex the whole tool name must match.
    pub tool: Option<String>,
    /// `command`: a Claude Code Bash pattern matched against each simple command.
    pub command: Option<String>,
    /// `program`: program basenames (`argv[0]`) that match.
    pub program: Vec<String>,
    /// `args`: a regex over a simple command's arguments joined by single spaces.
    pub args: Option<String>,
    /// `paths`: Claude Code path patterns matched against the paths the call touches.
    pub paths: Vec<String>,
    /// `domains`: `WebFetch` domain patterns matched against the URL's host.
    pub domains: Vec<String>,
    /// `content`: a regex over the text the call writes or sends.
    pub content: Option<String>,
    /// `secrets: true`: the secret scanner must find a credential in that text.
    pub secrets: bool,
    /// `fields`: JSON-pointer field regexes on `tool_input` (MCP tools).
    pub fields: Vec<FieldMatch>,
    /// `cwd`: a glob the event's working directory must match.
    pub cwd: Option<String>,
    /// `permission_mode`: the agent permission modes the rule applies in.
    pub permission_modes: Vec<String>,
    /// `decision`: `deny`, `ask` or `allow`.
    pub decision: Outcome,
    /// `reason`: shown to the agent (for deny) and the user.
    pub reason: String,
    /// `additional_context`: added to the agent's context when the rule matches.
    pub additional_context: Option<String>,
    /// `mode`: `enforce` (default) or `warn` (shadow).
    pub mode: Mode,
}

/// A `fields[i]` matcher: the string at `pointer` in `tool_input` must match `regex`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldMatch {
    /// A JSON pointer into `tool_input` (`/query`).
    pub pointer: String,
    /// The regex.
    pub regex: String,
}

/// One `guidelines[i]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guideline {
    /// The text given to the agent.
    pub text: String,
    /// Events it is delivered at (default `SessionStart` and `UserPromptSubmit`).
    pub events: Vec<String>,
}

/// One `tests[i]` case.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// `name`.
    pub name: String,
    /// The hook event, completed with defaults (`hook_event_name`, `cwd`, `session_id`).
    pub event: Value,
    /// `expect`: the expected outcome.
    pub expect: Outcome,
    /// `rule`: the expected winning rule, if given.
    pub rule: Option<String>,
}

/// `options`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `unresolvable`: the answer for what cannot be analysed (`ask` or `deny`; default `ask`).
    pub unresolvable: Outcome,
    /// `default`: the answer when nothing matches (default `none`).
    pub default: Outcome,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            unresolvable: Outcome::Ask,
            default: Outcome::None,
        }
    }
}

/// One validation error with its location in the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{location}: {message}")]
pub struct BundleError {
    /// Where: a dotted path with indices (`permissions.deny[3]`, `rules[0].decision`), or `document`.
    pub location: String,
    /// What is wrong, lowercase, offending text in backticks or quotes.
    pub message: String,
}

/// Every error found in a bundle. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct BundleErrors {
    /// The errors, in document order.
    pub errors: Vec<BundleError>,
}

impl BundleErrors {
    /// A single error.
    pub fn one(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            errors: vec![BundleError {
                location: location.into(),
                message: message.into(),
            }],
        }
    }
}

/// The format of a bundle text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML (a superset of JSON).
    Yaml,
}

impl Format {
    /// Guesses the format from a file name: `.json` is JSON, anything else YAML.
    pub fn from_path(path: &str) -> Self {
        if path.ends_with(".json") {
            Self::Json
        } else {
            Self::Yaml
        }
    }
}

impl Bundle {
    /// Parses and validates a bundle text.
    pub fn parse(text: &str, format: Format) -> Result<Self, BundleErrors> {
        Self::from_value(parse_document(text, format)?)
    }

    /// Parses a text like [`Bundle::parse`], but a document without `name` takes `default_name`
    /// (a `managed-settings.json` has none).
    pub fn parse_named(
        text: &str,
        format: Format,
        default_name: &str,
    ) -> Result<Self, BundleErrors> {
        let mut document = parse_document(text, format)?;
        if let Value::Object(map) = &mut document {
            map.entry("name")
                .or_insert_with(|| Value::String(default_name.to_owned()));
        }
        Self::from_value(document)
    }

    /// Merges fragments in name order — lists are concatenated without duplicates, objects merged
    /// key by key, and a later scalar replaces an earlier one — then validates the result.
    ///
    /// Errors and findings name the fragment and the place in it they come from
    /// (`20-team.yaml: rules[0].args`), not the place in the merged document (`rules[3].args`).
    pub fn from_fragments(mut fragments: Vec<(String, Value)>) -> Result<Self, BundleErrors> {
        fragments.sort_by(|a, b| a.0.cmp(&b.0));
        let mut merged = Value::Object(serde_json::Map::new());
        let mut origins = Origins::default();
        for (name, fragment) in fragments {
            origins.fragment = name;
            merge_into(&mut merged, fragment, "", &mut origins);
        }
        match Self::from_value(merged) {
            Ok(mut bundle) => {
                for finding in &mut bundle.findings {
                    finding.message = origins.locate_warning(&finding.message);
                }
                Ok(bundle)
            }
            Err(mut errors) => {
                for error in &mut errors.errors {
                    error.location = origins.locate(&error.location);
                }
                Err(errors)
            }
        }
    }

    /// Validates an already parsed JSON document.
    pub fn from_value(document: Value) -> Result<Self, BundleErrors> {
        if json_depth_exceeds(&document, MAX_BUNDLE_DEPTH) {
            return Err(BundleErrors::one(
                "document",
                format!("nests deeper than {MAX_BUNDLE_DEPTH} levels"),
            ));
        }
        validate::validate(document)
    }

    /// The sha256 of the canonical JSON document, lowercase hex.
    pub fn sha256(&self) -> String {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(self.canonical_json().as_bytes()))
    }

    /// The canonical JSON text: sorted keys, no insignificant white space.
    pub fn canonical_json(&self) -> String {
        self.document.to_string()
    }
}

/// Parses a bundle text into JSON without validating it.
pub fn parse_document(text: &str, format: Format) -> Result<Value, BundleErrors> {
    if text.len() > MAX_BUNDLE_BYTES {
        return Err(BundleErrors::one(
            "document",
            format!("is larger than {MAX_BUNDLE_BYTES} bytes"),
        ));
    }
    if crate::protocol::nesting_exceeds(text.as_bytes(), MAX_BUNDLE_DEPTH) {
        return Err(BundleErrors::one(
            "document",
            format!("nests deeper than {MAX_BUNDLE_DEPTH} levels"),
        ));
    }
    match format {
        Format::Json => serde_json::from_str(text)
            .map_err(|e| BundleErrors::one("document", format!("is not valid JSON: {e}"))),
        // Aliases can make a small text a huge document: measured before it is built.
        Format::Yaml if yaml::expands_past(text, MAX_BUNDLE_BYTES) => Err(BundleErrors::one(
            "document",
            format!("is larger than {MAX_BUNDLE_BYTES} bytes once its YAML aliases are expanded"),
        )),
        Format::Yaml => serde_norway::from_str::<Value>(text)
            .map_err(|e| BundleErrors::one("document", format!("is not valid YAML: {e}"))),
    }
}

/// Where the parts of a merged document came from: a path in it (`rules[3]`) → the fragment and
/// the path the part had there (`rules[0]`). A part is an object key or list item one fragment
/// brought, whole; what lies under it came from the same place.
#[derive(Debug, Default)]
struct Origins {
    /// The fragment being merged.
    fragment: String,
    parts: std::collections::HashMap<String, (String, String)>,
}

impl Origins {
    fn record(&mut self, merged: String, original: String) {
        self.parts.insert(merged, (self.fragment.clone(), original));
    }

    /// `location` in the merged document as `fragment: location in it`, by the longest path
    /// before it that a fragment brought; unchanged when none did (a missing `name`).
    fn locate(&self, location: &str) -> String {
        let ends = location
            .char_indices()
            .filter(|(_, c)| matches!(c, '.' | '['))
            .map(|(at, _)| at)
            .chain([location.len()]);
        let mut found = None;
        for end in ends {
            if let Some((fragment, original)) =
                location.get(..end).and_then(|path| self.parts.get(path))
            {
                found = Some((fragment, original, location.get(end..).unwrap_or("")));
            }
        }
        match found {
            Some((fragment, original, rest)) => format!("{fragment}: {original}{rest}"),
            None => location.to_owned(),
        }
    }

    /// A warning that starts with its location (`permissions.allow[0]: …`, or `` `key`: … ``),
    /// with the location as [`Origins::locate`] gives it.
    fn locate_warning(&self, warning: &str) -> String {
        let quoted = warning
            .strip_prefix('`')
            .and_then(|rest| rest.split_once("`: "))
            .map(|(location, rest)| (location, rest, true));
        let plain = || {
            warning
                .split_once(": ")
                .map(|(location, rest)| (location, rest, false))
        };
        match quoted.or_else(plain) {
            Some((location, rest, quoted)) => {
                let located = self.locate(location);
                match located.split_once(": ") {
                    Some((fragment, path)) if quoted => format!("{fragment}: `{path}`: {rest}"),
                    _ => format!("{located}: {rest}"),
                }
            }
            None => warning.to_owned(),
        }
    }
}

fn merge_into(target: &mut Value, fragment: Value, path: &str, origins: &mut Origins) {
    match (target, fragment) {
        (Value::Object(target), Value::Object(fragment)) => {
            for (key, value) in fragment {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match target.get_mut(&key) {
                    Some(existing) => merge_into(existing, value, &at, origins),
                    None => {
                        origins.record(at.clone(), at);
                        target.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(target), Value::Array(fragment)) => {
            for (i, item) in fragment.into_iter().enumerate() {
                if !target.contains(&item) {
                    origins.record(format!("{path}[{}]", target.len()), format!("{path}[{i}]"));
                    target.push(item);
                }
            }
        }
        (target, fragment) => {
            origins.record(path.to_owned(), path.to_owned());
            *target = fragment;
        }
    }
}

fn json_depth_exceeds(value: &Value, limit: usize) -> bool {
    if limit == 0 {
        return matches!(value, Value::Array(_) | Value::Object(_));
    }
    match value {
        Value::Array(items) => items.iter().any(|item| json_depth_exceeds(item, limit - 1)),
        Value::Object(map) => map.values().any(|item| json_depth_exceeds(item, limit - 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
