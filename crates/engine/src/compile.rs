//! Compiling a [`Bundle`] into the immutable, indexed [`CompiledPolicy`] that the service holds
//! behind `ArcSwap` and evaluates many times.
//!
//! Everything that can be prepared is prepared here: permission rules are parsed into matchers and
//! indexed by the tool they name, regexes and globs are compiled, packs are resolved. Evaluation
//! then only walks the rules that concern the event's tool.

use std::collections::HashMap;

use crate::bundle::patterns::{Regex, RegexBudget};

use crate::bundle::{Bundle, BundleError, BundleErrors, Guideline, Options, RuleSpec, TestCase};
use crate::decision::{Mode, Outcome};
use crate::packs::Pack;
use crate::rules::{CompiledRule, PathProbe, PermissionRule, RuleKind, Specifier};

/// A bundle compiled for evaluation. Immutable; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct CompiledPolicy {
    name: String,
    sha256: String,
    pub(crate) permissions: PermissionIndex,
    pub(crate) rules: Vec<ExtendedRule>,
    pub(crate) packs: Vec<Pack>,
    pub(crate) guidelines: Vec<Guideline>,
    pub(crate) tests: Vec<TestCase>,
    pub(crate) options: Options,
}

/// One permission rule ready to match.
#[derive(Debug)]
pub(crate) struct PermissionMatcher {
    /// The rule as written, which is also its id in decisions.
    pub text: String,
    pub kind: RuleKind,
    pub specifier: Specifier,
    pub matcher: CompiledRule,
}

/// Permission rules of one list, indexed by the tool name they are written for.
#[derive(Debug, Default)]
pub(crate) struct RuleList {
    by_tool: HashMap<String, ToolRules>,
    /// Tool-name globs and MCP server-level rules: checked against every tool.
    patterned: Vec<PermissionMatcher>,
    /// The `Bash(…)` command rules by the first word their pattern requires.
    commands: CommandIndex,
}

/// The rules written for one tool, in list order.
#[derive(Debug, Default)]
struct ToolRules {
    rules: Vec<PermissionMatcher>,
    /// The indices of those that judge a call as a whole ([`is_tool_level`]).
    tool_level: Vec<usize>,
    /// For each rule, the index past the run of rules after it with the same path key
    /// ([`CompiledRule::path_key`]), which a path the first rejects by its key skips.
    path_runs: Vec<usize>,
}

impl ToolRules {
    fn index_path_runs(&mut self) {
        let mut runs = vec![0; self.rules.len()];
        for i in (0..self.rules.len()).rev() {
            let key = |i: usize| self.rules.get(i).and_then(|rule| rule.matcher.path_key());
            let same_as_next = key(i).is_some() && key(i) == key(i + 1);
            let end = match runs.get(i + 1) {
                Some(&next_end) if same_as_next => next_end,
                _ => i + 1,
            };
            if let Some(slot) = runs.get_mut(i) {
                *slot = end;
            }
        }
        self.path_runs = runs;
    }
}

/// Whether a rule judges a call as a whole (`Bash`, `Agent(Explore)`, `mcp__x__y(k:v)`), not a
/// command, path or domain in it.
fn is_tool_level(specifier: &Specifier) -> bool {
    matches!(
        specifier,
        Specifier::All | Specifier::Param { .. } | Specifier::Other(_)
    )
}

/// Indices into a list's `Bash` rules: those whose pattern starts with a literal word, by that
/// word, and the others (`Bash(*…)`, `Bash(ls*)`), which every command must be tried against.
#[derive(Debug, Default)]
struct CommandIndex {
    by_word: HashMap<String, Vec<usize>>,
    any_word: Vec<usize>,
}

impl CommandIndex {
    fn build(rules: &[PermissionMatcher]) -> Self {
        let mut index = Self::default();
        for (i, rule) in rules.iter().enumerate() {
            let Specifier::Command(content) = &rule.specifier else {
                continue;
            };
            let content = content.trim_start();
            let content = content.strip_suffix(":*").unwrap_or(content);
            let word = content.split([' ', '\t']).next().unwrap_or("");
            if word.is_empty() || word.contains(['*', '\\']) {
                index.any_word.push(i);
            } else {
                index.by_word.entry(word.to_owned()).or_default().push(i);
            }
        }
        index
    }

    /// The indices of the rules that may match `view`, in list order.
    fn candidates<'a>(&'a self, view: &str) -> impl Iterator<Item = usize> + 'a {
        let first = view.split(' ').next().unwrap_or("");
        let mut word = self
            .by_word
            .get(first)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .peekable();
        let mut any = self.any_word.iter().copied().peekable();
        std::iter::from_fn(move || match (word.peek(), any.peek()) {
            (Some(a), Some(b)) if a < b => word.next(),
            (Some(_), Some(_)) | (None, Some(_)) => any.next(),
            (Some(_), None) => word.next(),
            (None, None) => None,
        })
    }
}

impl RuleList {
    /// The `Bash` command rules that match any of `views`, in list order, each once.
    pub fn command_matches<'a>(&'a self, views: &[String]) -> Vec<&'a PermissionMatcher> {
        let Some(bash) = self.by_tool.get("Bash").map(|bash| &bash.rules) else {
            return Vec::new();
        };
        let mut matched: Vec<usize> = Vec::new();
        for view in views {
            for i in self.commands.candidates(view) {
                if !matched.contains(&i)
                    && bash
                        .get(i)
                        .is_some_and(|rule| rule.matcher.matches_command(view))
                {
                    matched.push(i);
                }
            }
        }
        matched.sort_unstable();
        matched.into_iter().filter_map(|i| bash.get(i)).collect()
    }

    /// The first `Bash` command rule that matches `view`.
    pub fn first_command_match(&self, view: &str) -> Option<&PermissionMatcher> {
        let bash = &self.by_tool.get("Bash")?.rules;
        self.commands
            .candidates(view)
            .filter_map(|i| bash.get(i))
            .find(|rule| rule.matcher.matches_command(view))
    }

    /// The rules of [`Self::for_tool`] that judge a call as a whole ([`is_tool_level`]), and its
    /// patterned ones, in the same order: a `Bash` call need not walk past every command rule.
    pub fn tool_level_for<'a>(
        &'a self,
        tool: &'a str,
    ) -> impl Iterator<Item = &'a PermissionMatcher> + 'a {
        let (rules, indices) = match self.by_tool.get(tool) {
            Some(own) => (own.rules.as_slice(), own.tool_level.as_slice()),
            None => (&[][..], &[][..]),
        };
        indices.iter().filter_map(move |&i| rules.get(i)).chain(
            self.patterned
                .iter()
                .filter(move |rule| rule.matcher.matches_tool(tool)),
        )
    }

    /// The rules of [`Self::for_tool`], less rules that cannot match the path `probe` locates:
    /// a run of rules with the same path key (`Read(//srv/a/**)`, `Read(//srv/b/**)`, …) is
    /// passed over at once when the first is rejected by its key
    /// ([`CompiledRule::path_rejected_by_key`]). For [`CompiledRule::matches_path_probe`] only:
    /// a rule the key rejects may still hold for a recursive read below it.
    pub fn for_tool_path<'a>(
        &'a self,
        tool: &'a str,
        probe: &'a PathProbe<'a>,
    ) -> impl Iterator<Item = &'a PermissionMatcher> + 'a {
        let (rules, runs) = match self.by_tool.get(tool) {
            Some(own) => (own.rules.as_slice(), own.path_runs.as_slice()),
            None => (&[][..], &[][..]),
        };
        let mut next = 0;
        let own = std::iter::from_fn(move || {
            while let Some(rule) = rules.get(next) {
                if rule.matcher.path_rejected_by_key(probe) {
                    next = runs.get(next).copied().unwrap_or(next + 1).max(next + 1);
                    continue;
                }
                next += 1;
                return Some(rule);
            }
            None
        });
        own.chain(
            self.patterned
                .iter()
                .filter(move |rule| rule.matcher.matches_tool(tool)),
        )
    }

    /// The rules that concern `tool`: those written for it and the patterned ones that match it.
    pub fn for_tool<'a>(
        &'a self,
        tool: &'a str,
    ) -> impl Iterator<Item = &'a PermissionMatcher> + 'a {
        let own = self
            .by_tool
            .get(tool)
            .map_or(&[][..], |own| own.rules.as_slice());
        own.iter().chain(
            self.patterned
                .iter()
                .filter(move |rule| rule.matcher.matches_tool(tool)),
        )
    }
}

/// The three permission lists.
#[derive(Debug, Default)]
pub(crate) struct PermissionIndex {
    pub deny: RuleList,
    pub ask: RuleList,
    pub allow: RuleList,
}

impl PermissionIndex {
    pub fn list(&self, kind: RuleKind) -> &RuleList {
        match kind {
            RuleKind::Deny => &self.deny,
            RuleKind::Ask => &self.ask,
            RuleKind::Allow => &self.allow,
        }
    }
}

/// An extended rule with its matchers compiled.
#[derive(Debug)]
pub(crate) struct ExtendedRule {
    pub id: String,
    pub events: Vec<String>,
    pub tool: Option<Regex>,
    pub command: Option<CompiledRule>,
    pub program: Vec<String>,
    pub args: Option<Regex>,
    pub paths: Vec<CompiledRule>,
    pub domains: Vec<CompiledRule>,
    pub content: Option<Regex>,
    pub secrets: bool,
    pub fields: Vec<(String, Regex)>,
    pub cwd: Option<globset::GlobMatcher>,
    pub permission_modes: Vec<String>,
    pub decision: Outcome,
    pub reason: String,
    pub additional_context: Option<String>,
    pub mode: Mode,
}

impl ExtendedRule {
    /// Whether the rule looks at shell commands (and so is judged per simple command).
    pub fn is_command_rule(&self) -> bool {
        self.command.is_some() || !self.program.is_empty() || self.args.is_some()
    }
}

impl CompiledPolicy {
    /// Compiles a validated bundle. Errors name their location in the document.
    pub fn compile(bundle: &Bundle) -> Result<Self, BundleErrors> {
        let mut errors = Vec::new();
        let mut permissions = PermissionIndex::default();
        for kind in [RuleKind::Deny, RuleKind::Ask, RuleKind::Allow] {
            let key = kind_key(kind);
            let list = match kind {
                RuleKind::Deny => &mut permissions.deny,
                RuleKind::Ask => &mut permissions.ask,
                RuleKind::Allow => &mut permissions.allow,
            };
            for (i, source) in bundle.permissions.list(kind).iter().enumerate() {
                match CompiledRule::new(&source.rule, kind) {
                    Ok(matcher) => {
                        let entry = PermissionMatcher {
                            text: source.text.clone(),
                            kind,
                            specifier: source.rule.specifier.clone(),
                            matcher,
                        };
                        let tool = source.rule.tool.as_str();
                        if tool.starts_with("mcp__") || tool.contains('*') {
                            list.patterned.push(entry);
                        } else {
                            let own = list.by_tool.entry(tool.to_owned()).or_default();
                            if is_tool_level(&entry.specifier) {
                                own.tool_level.push(own.rules.len());
                            }
                            own.rules.push(entry);
                        }
                    }
                    Err(e) => errors.push(BundleError {
                        location: format!("permissions.{key}[{i}]"),
                        message: e.message().to_owned(),
                    }),
                }
            }
        }
        let mut regexes = RegexBudget::with_compiled(&bundle.regexes);
        let rules = bundle
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, spec)| match compile_rule(spec, &mut regexes) {
                Ok(rule) => Some(rule),
                Err(message) => {
                    errors.push(BundleError {
                        location: format!("rules[{i}]"),
                        message,
                    });
                    None
                }
            })
            .collect();
        if !errors.is_empty() {
            return Err(BundleErrors { errors });
        }
        for list in [
            &mut permissions.deny,
            &mut permissions.ask,
            &mut permissions.allow,
        ] {
            list.commands = list
                .by_tool
                .get("Bash")
                .map(|bash| CommandIndex::build(&bash.rules))
                .unwrap_or_default();
            list.by_tool
                .values_mut()
                .for_each(ToolRules::index_path_runs);
        }
        Ok(Self {
            name: bundle.name.clone(),
            sha256: bundle.sha256(),
            permissions,
            rules,
            packs: bundle
                .include
                .iter()
                .filter_map(|name| Pack::by_name(name))
                .collect(),
            guidelines: bundle.guidelines.clone(),
            tests: bundle.tests.clone(),
            options: bundle.options,
        })
    }

    /// The bundle's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bundle's sha256 (lowercase hex).
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The bundle's options.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Compiles a bundle text in one step: parse, validate, compile.
    pub fn from_text(text: &str, format: crate::bundle::Format) -> Result<Self, BundleErrors> {
        Self::compile(&Bundle::parse(text, format)?)
    }
}

fn kind_key(kind: RuleKind) -> &'static str {
    match kind {
        RuleKind::Deny => "deny",
        RuleKind::Ask => "ask",
        RuleKind::Allow => "allow",
    }
}

/// Builds a permission rule of `tool` around `content` and compiles it with deny-side semantics.
fn embedded_rule(tool: &str, content: &str) -> Result<CompiledRule, String> {
    let text = format!("{tool}({})", crate::bundle::escape_parens(content));
    let rule = PermissionRule::parse(&text).map_err(|e| e.message().to_owned())?;
    CompiledRule::new(&rule, RuleKind::Deny).map_err(|e| e.message().to_owned())
}

fn compile_rule(spec: &RuleSpec, regexes: &mut RegexBudget) -> Result<ExtendedRule, String> {
    let mut regex = |pattern: &str| regexes.compile(pattern);
    Ok(ExtendedRule {
        id: spec.id.clone(),
        events: spec.events.clone(),
        tool: spec.tool.as_deref().map(&mut regex).transpose()?,
        command: spec
            .command
            .as_deref()
            .map(|command| embedded_rule("Bash", command))
            .transpose()?,
        program: spec.program.clone(),
        args: spec.args.as_deref().map(&mut regex).transpose()?,
        paths: spec
            .paths
            .iter()
            .map(|path| embedded_rule("Read", path))
            .collect::<Result<_, _>>()?,
        domains: spec
            .domains
            .iter()
            .map(|domain| embedded_rule("WebFetch", &format!("domain:{domain}")))
            .collect::<Result<_, _>>()?,
        content: spec.content.as_deref().map(&mut regex).transpose()?,
        secrets: spec.secrets,
        fields: spec
            .fields
            .iter()
            .map(|field| Ok((field.pointer.clone(), regex(&field.regex)?)))
            .collect::<Result<_, String>>()?,
        cwd: spec
            .cwd
            .as_deref()
            .map(|glob| {
                globset::Glob::new(glob)
                    .map(|glob| glob.compile_matcher())
                    .map_err(|e| e.to_string())
            })
            .transpose()?,
        permission_modes: spec.permission_modes.clone(),
        decision: spec.decision,
        reason: spec.reason.clone(),
        additional_context: spec.additional_context.clone(),
        mode: spec.mode,
    })
}

/// The result of running a bundle's own `tests`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TestReport {
    /// How many cases passed.
    pub passed: usize,
    /// The cases that failed.
    pub failures: Vec<TestFailure>,
}

/// One failed bundle test case.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TestFailure {
    /// `tests[i]` and the case's name.
    pub location: String,
    /// What went wrong (`expected deny, got ask (rule …)`).
    pub message: String,
}

impl CompiledPolicy {
    /// Runs the bundle's own `tests` against this policy.
    pub fn run_tests(&self) -> TestReport {
        let mut report = TestReport::default();
        for (i, case) in self.tests.iter().enumerate() {
            let location = format!("tests[{i}] ({})", case.name);
            let event = match crate::protocol::HookEvent::from_value(case.event.clone()) {
                Ok(event) => event,
                Err(e) => {
                    report.failures.push(TestFailure {
                        location,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let decision = crate::evaluate(self, &event);
            let rule_ok = case
                .rule
                .as_deref()
                .is_none_or(|rule| Some(rule) == decision.winner.as_deref());
            if decision.outcome == case.expect && rule_ok {
                report.passed += 1;
            } else {
                let expected = match &case.rule {
                    Some(rule) => format!("{} by `{rule}`", case.expect),
                    None => case.expect.to_string(),
                };
                let got = match decision.winner.as_deref() {
                    Some(winner) => format!("{} by `{winner}`", decision.outcome),
                    None => format!("{} (no rule decided)", decision.outcome),
                };
                // A warn-mode rule that matched never decides: say so, rather than leave the
                // author to wonder why the rule the trace shows matching did not win.
                let shadow = case.rule.as_deref().and_then(|rule| {
                    decision
                        .matched
                        .iter()
                        .find(|hit| hit.rule_id == rule && hit.mode == crate::decision::Mode::Warn)
                });
                let note = match shadow {
                    Some(hit) => format!(
                        "; `{}` matched in warn mode ({}), which is audited, never enforced",
                        hit.rule_id, hit.outcome
                    ),
                    None => String::new(),
                };
                report.failures.push(TestFailure {
                    location,
                    message: format!("expected {expected}, got {got}{note}"),
                });
            }
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Format;
    use crate::paths::PathContext;

    /// Passing over runs of rules with one path key finds the rules trying every one finds.
    #[test]
    fn path_runs_skip_only_rules_that_cannot_match() {
        let bundle = Bundle::parse(
            r#"{"name": "t", "permissions": {
                "deny": ["Read(//srv/a/**)", "Read(//srv/b/**)", "Read(//SRV/c)", "Read(//srv/*/d)",
                         "Read(//srv/e/**)", "Read", "Read(~/.ssh/**)", "Read(~/.SSH/x)",
                         "Read(**/.env)", "Read(/src/**)", "Read(src/x)", "Read(//etc/**)"],
                "ask": ["Read(//srv/a/**)", "Edit(//srv/a/**)", "Read(//srv/b/**)"],
                "allow": ["Read(//srv/a/**)", "Read(//srv/B/**)", "Read(//srv/b/**)", "Read(/src/**)"]
            }}"#,
            Format::Json,
        )
        .unwrap();
        let policy = CompiledPolicy::compile(&bundle).unwrap();
        let ctx = PathContext {
            cwd: "/work/proj",
            home: Some("/home/ann"),
        };
        for path in [
            "/srv/a/k",
            "/srv/b",
            "/SRV/c",
            "/srv/x/d",
            "/srv",
            "/",
            "/home/ann/.ssh/id_rsa",
            "/home/ann/.ssh/x",
            "/work/proj/.env",
            "/work/proj/src/main.rs",
            "/work/proj/src/x",
            "/etc/passwd",
            "/srv/B/x",
            "/srv/e",
        ] {
            let probe = PathProbe::new(path, &ctx);
            for kind in [RuleKind::Deny, RuleKind::Ask, RuleKind::Allow] {
                let list = policy.permissions.list(kind);
                let texts = |rules: Vec<&PermissionMatcher>| -> Vec<String> {
                    rules.iter().map(|rule| rule.text.clone()).collect()
                };
                let every: Vec<&PermissionMatcher> = list
                    .for_tool("Read")
                    .filter(|rule| rule.matcher.matches_path_probe(&probe))
                    .collect();
                let skipping: Vec<&PermissionMatcher> = list
                    .for_tool_path("Read", &probe)
                    .filter(|rule| rule.matcher.matches_path_probe(&probe))
                    .collect();
                assert_eq!(texts(skipping), texts(every), "{kind:?} {path}");
            }
        }
    }
}
