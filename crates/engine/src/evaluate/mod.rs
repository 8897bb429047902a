//! Evaluation: a pure function of (policy, event) → [`Decision`].
//!
//! For a gating event (`PreToolUse`, `PermissionRequest`) every deny and ask source is consulted —
//! permission rules, extended rules, packs, the safety floor, and what the shell analysis could not
//! resolve — and the most restrictive enforced hit wins. `allow` is given only when allow rules
//! cover the whole call: for Bash, every simple command that may run. Nothing matched means no
//! opinion (or the bundle's `options.default`).
//!
//! This module must stay free of I/O and clocks; it allocates little and is bounded by the shell
//! analysis limits and the secret scanner's byte budget.

mod dirs;
mod effects;
mod floor;

use serde_json::Value;

use crate::compile::{CompiledPolicy, ExtendedRule, PermissionMatcher};
use crate::decision::{Decision, Mode, Outcome, RuleHit};
use crate::paths::{self, PathContext};
use crate::protocol::HookEvent;
use crate::rules::{PathProbe, RuleKind, Specifier};
use crate::shell::{self, ShellLimits, SimpleCommand};

pub(crate) use dirs::working_dirs;
pub(crate) use effects::{
    Effects, downloaded_files, file_effects, is_harmless_device, patch_file_writes, patch_input,
};
pub(crate) use floor::SHELL_INIT_FILES;

/// Rule id reported when a command cannot be analysed.
pub const UNRESOLVABLE: &str = "unresolvable-command";

/// Most bytes of tool input text scanned for content rules and secrets.
const MAX_CONTENT_BYTES: usize = 1024 * 1024;

/// Evaluates one event against one compiled policy.
pub fn evaluate(policy: &CompiledPolicy, event: &HookEvent) -> Decision {
    // A Windows agent's directories (`C:\Users\ann\proj`) in the POSIX form paths are compared in.
    let cwd = event.cwd.as_deref().and_then(paths::event_dir);
    let home = event.home.as_deref().and_then(paths::event_dir);
    let ctx = PathContext {
        cwd: cwd.as_deref().unwrap_or("/"),
        home: home.as_deref(),
    };
    let mut eval = Evaluation {
        policy,
        event,
        ctx,
        hits: Vec::new(),
        contexts: Vec::new(),
        warnings: Vec::new(),
        shell_paths: Vec::new(),
        shell_dir: None,
        shell_call: false,
    };
    let covered = if event.is_gate() {
        eval.gate()
    } else {
        eval.lifecycle()
    };
    eval.finish(covered)
}

/// Evaluates one event against several policies (the `global` bundle beside a tenant's own):
/// the most restrictive answer wins.
pub fn evaluate_all<'a>(
    policies: impl IntoIterator<Item = &'a CompiledPolicy>,
    event: &HookEvent,
) -> Decision {
    Decision::combine(policies.into_iter().map(|policy| evaluate(policy, event)))
}

/// The state of one evaluation.
pub(crate) struct Evaluation<'a> {
    pub policy: &'a CompiledPolicy,
    pub event: &'a HookEvent,
    pub ctx: PathContext<'a>,
    hits: Vec<RuleHit>,
    contexts: Vec<String>,
    warnings: Vec<String>,
    /// For a shell call: every path its commands read or write (canonical, recursive or not).
    shell_paths: Vec<(String, bool)>,
    /// Whether the call is judged as shell commands: an allow rule by `paths` then covers each
    /// command on its own (see [`Evaluation::extended_rules`]).
    shell_call: bool,
    /// For a shell call: the directory an earlier `cd` moved the command being judged to, when
    /// known (relative paths resolve there; the project stays the event's cwd).
    shell_dir: Option<String>,
}

/// Which kind of tool a shell command came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShellTool {
    /// Claude Code's Bash (and the tools that are Bash by another name).
    Bash,
    /// An MCP tool that runs commands, recognised by its name or its input (see
    /// [`mcp_command`]).
    Mcp,
    /// Claude Code's PowerShell, judged as the POSIX script it translates to: `Bash(…)` deny
    /// and ask rules apply to that script, but only `PowerShell(…)` rules allow.
    PowerShell,
}

/// What the file tools of Claude Code read and write.
enum FileAccess {
    Read { path: String, recursive: bool },
    Write { path: String },
}

impl<'a> Evaluation<'a> {
    /// Records a hit.
    pub fn hit(
        &mut self,
        rule_id: impl Into<String>,
        outcome: Outcome,
        mode: Mode,
        reason: impl Into<String>,
    ) {
        let rule_id = rule_id.into();
        if self
            .hits
            .iter()
            .any(|hit| hit.rule_id == rule_id && hit.outcome == outcome)
        {
            return;
        }
        self.hits.push(RuleHit {
            rule_id,
            outcome,
            mode,
            reason: reason.into(),
        });
    }

    /// Adds context for the agent.
    pub fn context(&mut self, text: &str) {
        if !self.contexts.iter().any(|existing| existing == text) {
            self.contexts.push(text.to_owned());
        }
    }

    fn tool(&self) -> &'a str {
        self.event.tool_name.as_deref().unwrap_or("")
    }

    fn canonical(&self, path: &str) -> String {
        paths::canonicalize(path, &self.ctx)
    }

    /// Every canonical form of a shell command's path argument: against the event's cwd, and
    /// against the directory an earlier `cd` in the same call may have moved to (see
    /// [`working_dirs`]: the `cd` may have run in a subshell).
    fn shell_canonicals(&self, path: &str) -> Vec<String> {
        let here = self.canonical(path);
        let moved = self
            .working_ctx()
            .map(|ctx| paths::canonicalize(path, &ctx))
            .filter(|moved| *moved != here);
        std::iter::once(here).chain(moved).collect()
    }

    /// The path context of the command being judged when an earlier `cd` in the same shell call
    /// moved it: the event's, with that directory as the cwd.
    fn working_ctx(&self) -> Option<PathContext<'_>> {
        self.shell_dir.as_deref().map(|cwd| PathContext {
            cwd,
            home: self.ctx.home,
        })
    }

    /// A `PreToolUse` or `PermissionRequest`. Returns the allow that covers the whole call, if any.
    fn gate(&mut self) -> Option<RuleHit> {
        let tool = self.tool();
        let mut covered = self.tool_level_rules(tool);
        let specific = match tool {
            "Bash" | "Monitor" | "mcp__workspace__bash" => self.bash(),
            "PowerShell" => self.powershell(),
            "Read" | "Grep" | "Glob" | "LSP" | "NotebookRead" => {
                let access = self.read_access();
                self.file_access(&access)
            }
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                let access = self.write_access();
                self.file_access(&access)
            }
            "WebFetch" | "mcp__workspace__web_fetch" => self.web_fetch(),
            // An MCP server's shell is judged as the Bash tool is, but only the MCP tool's own
            // rules can allow it.
            _ => {
                if let Some(command) = mcp_command(tool, &self.event.tool_input) {
                    self.shell(&command, ShellTool::Mcp);
                }
                None
            }
        };
        covered = covered.or(specific);
        // Rules that do not look at commands judge the call as a whole (for Bash: every path any
        // of its commands touches, and the command text).
        covered = covered.or(self.extended_rules(None));
        for pack in self.policy.packs.clone() {
            crate::packs::check_gate(pack, self);
        }
        self.content_beyond_scan();
        covered
    }

    /// Tool-wide, parameter and other-specifier rules. Returns a covering allow.
    fn tool_level_rules(&mut self, tool: &str) -> Option<RuleHit> {
        let input = &self.event.tool_input;
        let primary = primary_field(tool, input);
        // A tool-wide rule of the tool's family counts too: a bare `Edit` deny also stops Write,
        // MultiEdit and NotebookEdit, a bare `Read` deny also stops Grep and Glob.
        let family = rule_family(tool);
        let applies = |rule: &&PermissionMatcher| match &rule.specifier {
            Specifier::All => true,
            Specifier::Param { .. } => rule.matcher.matches_param(input),
            Specifier::Other(_) => primary.is_some_and(|value| rule.matcher.matches_other(value)),
            _ => false,
        };
        let family_wide = |rule: &&PermissionMatcher| matches!(rule.specifier, Specifier::All);
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let list = self.policy.permissions.list(kind);
            let matched: Vec<&PermissionMatcher> = list
                .tool_level_for(tool)
                .filter(applies)
                .chain(
                    family
                        .iter()
                        .flat_map(|family| list.tool_level_for(family))
                        .filter(family_wide),
                )
                .collect();
            for rule in matched {
                self.permission_hit(rule);
            }
        }
        let allow = &self.policy.permissions.allow;
        allow
            .tool_level_for(tool)
            .find(|rule| !matches!(rule.specifier, Specifier::Param { .. }) && applies(rule))
            .or_else(|| {
                family
                    .iter()
                    .flat_map(|family| allow.tool_level_for(family))
                    .find(family_wide)
            })
            .map(allow_hit)
    }

    fn permission_hit(&mut self, rule: &PermissionMatcher) {
        let (outcome, verb) = match rule.kind {
            RuleKind::Deny => (Outcome::Deny, "denied"),
            RuleKind::Ask => (Outcome::Ask, "needs confirmation"),
            RuleKind::Allow => (Outcome::Allow, "allowed"),
        };
        self.hit(
            rule.text.clone(),
            outcome,
            Mode::Enforce,
            format!("{verb} by permission rule `{}`", rule.text),
        );
    }

    /// Records what the analysis of a shell command could not decide: the bundle's
    /// `unresolvable` answer, and a warning.
    fn unresolvable(&mut self, unresolved: &shell::Unresolved) {
        let outcome = self.policy.options.unresolvable;
        self.hit(
            UNRESOLVABLE,
            outcome,
            Mode::Enforce,
            format!("toolgate cannot analyse this command: {unresolved}"),
        );
        self.warnings.push(unresolved.to_string());
    }

    /// The Bash tool's command.
    fn bash(&mut self) -> Option<RuleHit> {
        self.shell(
            self.event.input_str("command").unwrap_or(""),
            ShellTool::Bash,
        )
    }

    /// The PowerShell tool's command, judged as the POSIX script it translates to (see
    /// [`shell::Fuel::analyze_powershell_at`]; code the translation cannot read is judged as Bash
    /// text).
    /// The bundle's `PowerShell(…)` command rules match the command as written: the whole text
    /// or any one command of it (see [`shell::powershell::command_texts`]) for deny and ask;
    /// allows must cover every command (`PowerShell(git *)` does not allow
    /// `git status; Remove-Item x`).
    fn powershell(&mut self) -> Option<RuleHit> {
        let command = self.event.input_str("command").unwrap_or("");
        let analysed = self.shell(command, ShellTool::PowerShell);
        let whole = command.trim();
        let parts = shell::powershell::command_texts(command)
            .filter(|parts| !parts.is_empty())
            .unwrap_or_else(|| vec![whole.to_owned()]);
        let is_command_rule =
            |rule: &&PermissionMatcher| matches!(rule.specifier, Specifier::Command(_));
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let matched: Vec<&PermissionMatcher> = self
                .policy
                .permissions
                .list(kind)
                .for_tool("PowerShell")
                .filter(is_command_rule)
                .filter(|rule| {
                    std::iter::once(whole)
                        .chain(parts.iter().map(String::as_str))
                        .any(|text| rule.matcher.matches_command(text))
                })
                .collect();
            for rule in matched {
                self.permission_hit(rule);
            }
        }
        let allows = || {
            self.policy
                .permissions
                .allow
                .for_tool("PowerShell")
                .filter(is_command_rule)
        };
        let covering = |text: &str| allows().find(|rule| rule.matcher.matches_command(text));
        let mut each = parts.iter().map(|part| covering(part));
        let first = each.next().flatten();
        let allowed = first.filter(|_| each.all(|rule| rule.is_some()));
        allowed.map(allow_hit).or(analysed)
    }

    /// A shell command: every simple command judged on its own. A PowerShell command is
    /// analysed as the POSIX script it translates to. The analysis and the packs' analyses of
    /// parts of its text again share one analysis's fuel: once that is burnt, the command is
    /// unresolved ([`shell::Unresolved::TooMuchWork`]).
    fn shell(&mut self, command: &str, tool: ShellTool) -> Option<RuleHit> {
        let limits = ShellLimits::default();
        let fuel = shell::Fuel::new(limits.max_fuel);
        let analysis = match tool {
            ShellTool::PowerShell => fuel.analyze_powershell_at(command, &limits, Some(&self.ctx)),
            _ => fuel.analyze_at(command, &limits, Some(&self.ctx)),
        };
        self.shell_call = true;
        let mut cover: Option<RuleHit> = None;
        let mut all_covered = !analysis.commands.is_empty();
        let dirs = working_dirs(&analysis, &self.ctx);
        for (index, (simple, dir)) in analysis.commands.iter().zip(dirs).enumerate() {
            self.shell_dir = dir;
            for kind in [RuleKind::Deny, RuleKind::Ask] {
                let matched = self
                    .policy
                    .permissions
                    .list(kind)
                    .command_matches(&simple.deny_views);
                for rule in matched {
                    self.permission_hit(rule);
                }
            }
            let effects = file_effects(simple);
            let reads: Vec<(String, bool)> = effects
                .reads
                .iter()
                .flat_map(|read| {
                    self.shell_canonicals(&read.path)
                        .into_iter()
                        .map(|path| (path, read.recursive))
                })
                .collect();
            let writes: Vec<String> = effects
                .writes
                .iter()
                .flat_map(|write| self.shell_canonicals(write))
                .collect();
            for (path, recursive) in &reads {
                self.check_path_rules(&FileAccess::Read {
                    path: path.clone(),
                    recursive: *recursive,
                });
            }
            // A directory filled with names the command does not choose, or one a single
            // source is copied, moved or linked to, is written below too (`cp -r a b .claude/`
            // lands `.claude/a` and `.claude/b`, `mv commands .claude/` `.claude/commands`).
            let filled: Vec<String> = effects
                .filled
                .iter()
                .chain(&effects.replaced)
                .flat_map(|dir| self.shell_canonicals(&format!("{}/*", dir.trim_end_matches('/'))))
                .collect();
            for path in &writes {
                self.check_path_rules(&FileAccess::Write { path: path.clone() });
            }
            for path in writes.iter().chain(&filled) {
                if let Some(what) = floor::protected_write(path) {
                    self.hit(
                        floor::PROTECTED_WRITE,
                        Outcome::Ask,
                        Mode::Enforce,
                        format!("writing into {what} always needs confirmation"),
                    );
                }
            }
            let find = (simple.origin == shell::Origin::FindExec)
                .then(|| shell::enclosing_find(&analysis.commands, index))
                .flatten();
            let critical = floor::critical_removal(simple, find, &self.ctx, &self.ctx).is_some()
                || self.working_ctx().is_some_and(|moved| {
                    floor::critical_removal(simple, find, &self.ctx, &moved).is_some()
                });
            if critical {
                self.hit(
                    floor::CRITICAL_REMOVAL,
                    Outcome::Ask,
                    Mode::Enforce,
                    "recursive removal of a critical path (the root, a system directory, the home directory or the project) always needs confirmation",
                );
            }
            self.shell_paths.extend(reads);
            self.shell_paths
                .extend(writes.into_iter().map(|path| (path, false)));
            let bash_allow = (tool != ShellTool::PowerShell)
                .then(|| {
                    self.policy
                        .permissions
                        .allow
                        .first_command_match(&simple.allow_view)
                })
                .flatten();
            // The command's extended rules are judged whatever allows it: their denies and
            // asks count beside a permission allow (`Bash(git push:*)` does not unsay a rule
            // denying `--force`).
            let extended = self.extended_rules(Some((simple, &effects)));
            let allowed = bash_allow.map(allow_hit).or(extended);
            match allowed {
                Some(hit) => {
                    cover.get_or_insert(hit);
                }
                None => all_covered = false,
            }
        }
        for unresolved in &analysis.unresolved {
            // An MCP tool's text that is no shell at all (an editor's or a database's command)
            // is not a command toolgate failed to read.
            if tool == ShellTool::Mcp && matches!(unresolved, shell::Unresolved::Parse(_)) {
                continue;
            }
            self.unresolvable(unresolved);
        }
        for pack in self.policy.packs.clone() {
            crate::packs::check_shell(pack, self, &analysis, &fuel);
        }
        let too_much_work = shell::Unresolved::TooMuchWork;
        let packs_ran_out = fuel.ran_out() && !analysis.unresolved.contains(&too_much_work);
        if packs_ran_out {
            self.unresolvable(&too_much_work);
        }
        if all_covered && analysis.unresolved.is_empty() && !packs_ran_out {
            cover
        } else {
            None
        }
    }

    fn read_access(&self) -> Vec<FileAccess> {
        let input = &self.event.tool_input;
        let field = |name: &str| input.get(name).and_then(Value::as_str);
        match self.tool() {
            "Grep" | "Glob" => {
                let mut accesses = vec![FileAccess::Read {
                    path: self.canonical(field("path").unwrap_or(".")),
                    recursive: true,
                }];
                if self.tool() == "Glob"
                    && let Some(pattern) =
                        field("pattern").filter(|p| p.starts_with('/') || p.starts_with('~'))
                {
                    accesses.push(FileAccess::Read {
                        path: self.canonical(glob_base(pattern)),
                        recursive: true,
                    });
                }
                accesses
            }
            _ => field("file_path")
                .or_else(|| field("notebook_path"))
                .or_else(|| field("path"))
                .map(|path| {
                    vec![FileAccess::Read {
                        path: self.canonical(path),
                        recursive: false,
                    }]
                })
                .unwrap_or_default(),
        }
    }

    fn write_access(&self) -> Vec<FileAccess> {
        let input = &self.event.tool_input;
        ["file_path", "notebook_path"]
            .iter()
            .filter_map(|field| input.get(*field).and_then(Value::as_str))
            .map(|path| FileAccess::Write {
                path: self.canonical(path),
            })
            .collect()
    }

    /// File tools: path rules, the safety floor, and the allow that covers the call.
    fn file_access(&mut self, accesses: &[FileAccess]) -> Option<RuleHit> {
        let mut cover: Option<RuleHit> = None;
        let mut all_covered = !accesses.is_empty();
        for access in accesses {
            self.check_path_rules(access);
            if let FileAccess::Write { path } = access
                && let Some(what) = floor::protected_write(path)
            {
                self.hit(
                    floor::PROTECTED_WRITE,
                    Outcome::Ask,
                    Mode::Enforce,
                    format!("writing into {what} always needs confirmation"),
                );
            }
            match self.path_allow(access) {
                Some(hit) => {
                    cover.get_or_insert(hit);
                }
                None => all_covered = false,
            }
        }
        if all_covered { cover } else { None }
    }

    /// Deny and ask path rules for one access. A `Read` deny also blocks writes; `Edit` rules
    /// cover every writing tool.
    fn check_path_rules(&mut self, access: &FileAccess) {
        let (path, recursive, families): (&str, bool, &[&str]) = match access {
            FileAccess::Read { path, recursive } => (path, *recursive, &["Read"]),
            FileAccess::Write { path } => (path, false, &["Edit", "Write", "Read"]),
        };
        let probe = PathProbe::new(path, &self.ctx);
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let list = self.policy.permissions.list(kind);
            let matches = |rule: &&PermissionMatcher| {
                matches!(rule.specifier, Specifier::Path(_))
                    && (rule.matcher.matches_path_probe(&probe)
                        || (recursive && rule.matcher.may_match_under(path, &self.ctx)))
            };
            // A recursive read may reach below a rule its path does not match: every rule.
            let matched: Vec<&PermissionMatcher> = if recursive {
                let rules = families.iter().flat_map(|family| list.for_tool(family));
                rules.filter(matches).collect()
            } else {
                let rules = families
                    .iter()
                    .flat_map(|family| list.for_tool_path(family, &probe));
                rules.filter(matches).collect()
            };
            for rule in matched {
                self.permission_hit(rule);
            }
        }
    }

    /// The allow rule covering one access: `Read` or `Edit` allows for reads (an Edit allow
    /// implies a Read allow), `Edit` allows for writes.
    fn path_allow(&self, access: &FileAccess) -> Option<RuleHit> {
        let (path, families): (&str, &[&str]) = match access {
            FileAccess::Read { path, .. } => (path, &["Read", "Edit"]),
            FileAccess::Write { path } => (path, &["Edit", "Write"]),
        };
        let probe = PathProbe::new(path, &self.ctx);
        families
            .iter()
            .flat_map(|family| self.policy.permissions.allow.for_tool_path(family, &probe))
            .find(|rule| {
                matches!(rule.specifier, Specifier::Path(_))
                    && rule.matcher.matches_path_probe(&probe)
            })
            .map(allow_hit)
    }

    fn web_fetch(&mut self) -> Option<RuleHit> {
        let host = self.event.input_str("url").and_then(url_host)?;
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let matched: Vec<&PermissionMatcher> = self
                .policy
                .permissions
                .list(kind)
                .for_tool("WebFetch")
                .filter(|rule| {
                    matches!(rule.specifier, Specifier::Domain(_))
                        && rule.matcher.matches_host(&host)
                })
                .collect();
            for rule in matched {
                self.permission_hit(rule);
            }
        }
        self.policy
            .permissions
            .allow
            .for_tool("WebFetch")
            .find(|rule| {
                matches!(rule.specifier, Specifier::Domain(_)) && rule.matcher.matches_host(&host)
            })
            .map(allow_hit)
    }

    /// Extended rules for the event, or for one simple command of a Bash call. Records deny and
    /// ask hits (and shadow hits); returns an enforced allow that matched.
    ///
    /// Rules with a command matcher judge each simple command; the rest judge the call whole,
    /// except an allow by `paths` of a shell call, which judges each command: every command
    /// must touch only paths it names, or `cat src/a; git push` would be allowed by `src/**`.
    fn extended_rules(&mut self, command: Option<(&SimpleCommand, &Effects)>) -> Option<RuleHit> {
        let mut allow = None;
        let rules = &self.policy.rules;
        for rule in rules {
            if !rule.events.contains(&self.event.event) {
                continue;
            }
            let allows_by_path = rule.decision == Outcome::Allow && !rule.paths.is_empty();
            let per_command = rule.is_command_rule() || (self.shell_call && allows_by_path);
            if per_command != command.is_some() {
                continue;
            }
            if !self.extended_rule_matches(rule, command) {
                continue;
            }
            // A shadow rule is recorded, never acted on: it adds no context either.
            if let Some(context) = rule
                .additional_context
                .as_ref()
                .filter(|_| rule.mode == Mode::Enforce)
            {
                self.context(context);
            }
            if rule.decision == Outcome::Allow && rule.mode == Mode::Enforce {
                allow.get_or_insert(RuleHit {
                    rule_id: rule.id.clone(),
                    outcome: Outcome::Allow,
                    mode: Mode::Enforce,
                    reason: rule.reason.clone(),
                });
            } else {
                self.hit(
                    rule.id.clone(),
                    rule.decision,
                    rule.mode,
                    rule.reason.clone(),
                );
            }
        }
        allow
    }

    fn extended_rule_matches(
        &self,
        rule: &ExtendedRule,
        command: Option<(&SimpleCommand, &Effects)>,
    ) -> bool {
        let event = self.event;
        if rule
            .tool
            .as_ref()
            .is_some_and(|tool| !tool.is_match(self.tool()))
            || rule
                .cwd
                .as_ref()
                .is_some_and(|cwd| !cwd.is_match(self.ctx.cwd))
        {
            return false;
        }
        if !rule.permission_modes.is_empty()
            && !event
                .permission_mode
                .as_deref()
                .is_some_and(|mode| rule.permission_modes.iter().any(|m| m == mode))
        {
            return false;
        }
        if let Some((simple, _)) = command {
            if let Some(pattern) = &rule.command {
                let matched = if rule.decision == Outcome::Allow {
                    pattern.matches_command(&simple.allow_view)
                } else {
                    simple
                        .deny_views
                        .iter()
                        .any(|view| pattern.matches_command(view))
                };
                if !matched {
                    return false;
                }
            }
            // An allow sees the program only where Claude Code's allow rules would: past the
            // safe wrappers and variables alone, and named bare (`./make` is no `make`).
            if rule.decision == Outcome::Allow
                && (!rule.program.is_empty() || rule.args.is_some())
                && (!simple.allow_sees_program || simple.program.contains('/'))
            {
                return false;
            }
            if !rule.program.is_empty()
                && !rule.program.iter().any(|program| program == simple.name())
            {
                return false;
            }
            if rule
                .args
                .as_ref()
                .is_some_and(|args| !args.is_match(&simple.args().join(" ")))
            {
                return false;
            }
        }
        if rule.decision == Outcome::Allow
            && !rule.paths.is_empty()
            && command.is_some_and(|(simple, _)| !paths_allow_may_cover(simple))
        {
            return false;
        }
        if !rule.paths.is_empty() {
            let touched = self.touched_paths(command);
            let named = |path: &str| {
                rule.paths
                    .iter()
                    .any(|pattern| pattern.matches_path(path, &self.ctx))
            };
            let matched = if rule.decision == Outcome::Allow {
                // An allow covers what it names, all of it: a tree read whole is named only
                // when its own path is (`Grep` of `/` is not covered by `src/**`).
                !touched.is_empty() && touched.iter().all(|(path, _)| named(path))
            } else {
                touched.iter().any(|(path, recursive)| {
                    named(path)
                        || (*recursive
                            && rule
                                .paths
                                .iter()
                                .any(|pattern| pattern.may_match_under(path, &self.ctx)))
                })
            };
            if !matched {
                return false;
            }
        }
        if !rule.domains.is_empty() {
            let host = self.event.input_str("url").and_then(url_host);
            if !host
                .is_some_and(|host| rule.domains.iter().any(|domain| domain.matches_host(&host)))
            {
                return false;
            }
        }
        if rule.content.is_some() || rule.secrets {
            let texts = self.content_texts(command.map(|(simple, _)| simple));
            if rule
                .content
                .as_ref()
                .is_some_and(|content| !texts.iter().any(|text| content.is_match(text)))
            {
                return false;
            }
            if rule.secrets
                && !texts
                    .iter()
                    .any(|text| !crate::secrets::Scanner::builtin().scan(text).is_empty())
            {
                return false;
            }
        }
        for (pointer, regex) in &rule.fields {
            let value = self.event.tool_input.pointer(pointer);
            let text = match value {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => return false,
                Some(other) => other.to_string(),
            };
            if !regex.is_match(&text) {
                return false;
            }
        }
        true
    }

    /// Paths the call touches (canonical), with whether they are read recursively.
    pub(crate) fn touched_paths(
        &self,
        command: Option<(&SimpleCommand, &Effects)>,
    ) -> Vec<(String, bool)> {
        match command {
            Some((_, effects)) => {
                let mut paths: Vec<(String, bool)> = effects
                    .reads
                    .iter()
                    .flat_map(|read| {
                        self.shell_canonicals(&read.path)
                            .into_iter()
                            .map(|path| (path, read.recursive))
                    })
                    .collect();
                paths.extend(
                    effects
                        .writes
                        .iter()
                        .flat_map(|write| self.shell_canonicals(write))
                        .map(|path| (path, false)),
                );
                paths
            }
            None if !self.shell_paths.is_empty() => self.shell_paths.clone(),
            None => {
                let accesses = match self.tool() {
                    "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => self.write_access(),
                    _ => self.read_access(),
                };
                accesses
                    .into_iter()
                    .map(|access| match access {
                        FileAccess::Read { path, recursive } => (path, recursive),
                        FileAccess::Write { path } => (path, false),
                    })
                    .collect()
            }
        }
    }

    /// The text the call writes or sends, bounded: the first [`MAX_CONTENT_BYTES`] of it, in
    /// total. [`Evaluation::content_beyond_scan`] answers a call that has more.
    pub(crate) fn content_texts(&self, command: Option<&SimpleCommand>) -> Vec<&'a str> {
        let _ = command;
        let mut budget = MAX_CONTENT_BYTES;
        self.whole_content_texts()
            .into_iter()
            .map(|text| {
                let take = floor_char_boundary(text, budget.min(text.len()));
                budget -= take;
                text.get(..take).unwrap_or("")
            })
            .filter(|text| !text.is_empty())
            .collect()
    }

    /// The text the call writes or sends, whole.
    fn whole_content_texts(&self) -> Vec<&'a str> {
        let event = self.event;
        let mut texts: Vec<&'a str> = Vec::new();
        match event.event.as_str() {
            "UserPromptSubmit" => texts.extend(event.prompt.as_deref()),
            "PostToolUse" | "PostToolUseFailure" => {
                if let Some(response) = &event.tool_response {
                    collect_strings(response, &mut texts);
                }
            }
            _ => match self.tool() {
                "Bash" | "Monitor" | "PowerShell" => texts.extend(event.input_str("command")),
                "Write" => texts.extend(event.input_str("content")),
                "Edit" => texts.extend(event.input_str("new_string")),
                "NotebookEdit" => texts.extend(event.input_str("new_source")),
                "MultiEdit" => {
                    if let Some(Value::Array(edits)) = event.tool_input.get("edits") {
                        texts.extend(
                            edits
                                .iter()
                                .filter_map(|edit| edit.get("new_string").and_then(Value::as_str)),
                        );
                    }
                }
                _ => collect_strings(&event.tool_input, &mut texts),
            },
        }
        texts
    }

    /// A call whose text is longer than the [`MAX_CONTENT_BYTES`] that secrets and
    /// content rules look at, under a policy that has such checks: the bundle's `unresolvable`
    /// answer, since a credential or a denied pattern past the cut would go unseen. (No model
    /// writes that much in one call; padding does.) A prompt or a tool's output is not answered
    /// so, only scanned up to the cut: the one is the user's own text, the other has happened.
    fn content_beyond_scan(&mut self) {
        // Shadow rules never change the answer, and a rule for other events does not judge
        // this one.
        let scans_content = self.policy.packs.contains(&crate::packs::Pack::Secrets)
            || self.policy.rules.iter().any(|rule| {
                (rule.content.is_some() || rule.secrets)
                    && rule.mode == Mode::Enforce
                    && rule.events.contains(&self.event.event)
            });
        if !scans_content {
            return;
        }
        let bytes: usize = self
            .whole_content_texts()
            .iter()
            .map(|text| text.len())
            .sum();
        if bytes <= MAX_CONTENT_BYTES {
            return;
        }
        let why = format!(
            "the call's text is {bytes} bytes, and toolgate checks only its first {} MiB for credentials and content rules",
            MAX_CONTENT_BYTES >> 20
        );
        let outcome = self.policy.options.unresolvable;
        self.hit(
            UNRESOLVABLE,
            outcome,
            Mode::Enforce,
            format!("toolgate cannot analyse this call: {why}"),
        );
        self.warnings.push(why);
    }

    /// An event that is not a tool gate: guidelines, and rules that name the event.
    fn lifecycle(&mut self) -> Option<RuleHit> {
        let name = self.event.event.clone();
        for guideline in &self.policy.guidelines {
            if guideline.events.contains(&name) {
                self.context(&guideline.text);
            }
        }
        let _ = self.extended_rules(None);
        for pack in self.policy.packs.clone() {
            crate::packs::check_lifecycle(pack, self);
        }
        None
    }

    fn finish(mut self, covered: Option<RuleHit>) -> Decision {
        self.hits
            .sort_by_key(|hit| std::cmp::Reverse((hit.mode == Mode::Enforce, hit.outcome)));
        let strongest = self
            .hits
            .iter()
            .find(|hit| hit.mode == Mode::Enforce)
            .cloned();
        let mut decision = Decision {
            warnings: self.warnings,
            ..Decision::none()
        };
        match (strongest, covered) {
            (Some(hit), _) if hit.outcome >= Outcome::Ask => {
                decision.outcome = hit.outcome;
                decision.reason = Some(hit.reason);
                decision.winner = Some(hit.rule_id);
            }
            (_, Some(allow)) => {
                decision.outcome = Outcome::Allow;
                decision.reason = Some(allow.reason.clone());
                decision.winner = Some(allow.rule_id.clone());
                self.hits.push(allow);
            }
            _ if self.event.is_gate() && self.policy.options.default != Outcome::None => {
                decision.outcome = self.policy.options.default;
                decision.reason = Some(format!(
                    "no rule matched; the bundle's default is {}",
                    decision.outcome
                ));
            }
            _ => {}
        }
        decision.matched = self.hits;
        if !self.contexts.is_empty() {
            decision.additional_context = Some(self.contexts.join("\n\n"));
        }
        decision
    }
}

/// Whether an allow by `paths` may cover a shell command at all: one whose effect is to read
/// or write the paths it names, past only the wrappers and variables Claude Code's allow view
/// strips. Not one that runs code (a shell or interpreter, `source`, a program named by its
/// path, or behind `sudo`, `env` or `LD_PRELOAD=…`), nor one that may reach another host
/// (`curl -d @src/x`, `scp src/x h:`, `nc h 80 < src/x`): what it does is not the paths.
fn paths_allow_may_cover(simple: &SimpleCommand) -> bool {
    let name = simple.name();
    simple.allow_sees_program
        && !simple.program.contains('/')
        && !shell::is_interpreter(name)
        && !matches!(name, "source" | "." | "exec" | "eval")
        && !shell::reaches_network(name, simple.args())
}

fn allow_hit(rule: &PermissionMatcher) -> RuleHit {
    RuleHit {
        rule_id: rule.text.clone(),
        outcome: Outcome::Allow,
        mode: Mode::Enforce,
        reason: format!("allowed by permission rule `{}`", rule.text),
    }
}

/// The tool whose rules also govern `tool`: Edit rules cover every writing tool, Read rules
/// every searching tool.
fn rule_family(tool: &str) -> &'static [&'static str] {
    match tool {
        "Write" | "MultiEdit" | "NotebookEdit" => &["Edit"],
        "Grep" | "Glob" | "LSP" | "NotebookRead" => &["Read"],
        _ => &[],
    }
}

/// The input field an other-specifier rule (`Agent(Explore)`, `Skill(deploy *)`) is matched on.
/// Words of an MCP tool's name (server and tool, split at `_` and `-`) that say it runs shell
/// commands: `desktop-commander__execute_command`, `shell__run`, `ssh__exec`, `ssh__ssh`,
/// `iterm__write_to_terminal`, `server__sh`. A word starting with `exec` counts (`execute`).
const MCP_COMMAND_WORDS: &[&str] = &[
    "exec", "command", "commands", "cmd", "shell", "terminal", "console", "bash", "sh", "zsh",
    "ssh", "process", "run",
];

/// Words of an MCP tool's name that say its `command` is not shell text (an editor's, a
/// database's) or runs in a new container (whose own files a command may wreck; a command run
/// in an existing container or pod, `exec`, is judged as `docker exec` is).
const MCP_OTHER_WORDS: &[&str] = &[
    "sql", "query", "db", "database", "redis", "mongo", "vim", "nvim", "neovim", "emacs",
];
const MCP_CONTAINER_WORDS: &[&str] = &[
    "docker",
    "podman",
    "container",
    "containers",
    "pod",
    "pods",
    "kubernetes",
    "k8s",
    "kubectl",
];

/// Words of an MCP tool's name that say its `input` is typed into a running shell or process.
const MCP_SESSION_WORDS: &[&str] = &["process", "terminal", "shell", "bash", "repl", "interact"];

/// Fields that hold the command an MCP tool runs.
const MCP_COMMAND_FIELDS: &[&str] = &["command", "cmd", "cmdline", "shell_command", "commands"];

/// Fields that, beside a command, say an MCP tool starts a process whatever its name
/// (`mcp__x__do {command, cwd}`): the directory it runs in, the shell that runs it.
const MCP_PROCESS_FIELDS: &[&str] = &[
    "cwd",
    "workdir",
    "working_dir",
    "working_directory",
    "workingDirectory",
    "shell",
];

/// The shell text an MCP tool runs: a tool whose name says it runs commands (see
/// [`MCP_COMMAND_WORDS`]), or whose input gives a command string with a working directory or a
/// shell (see [`MCP_PROCESS_FIELDS`]; a `command` alone may be an editor's or a chat's), and
/// whose input holds the command in one of
/// [`MCP_COMMAND_FIELDS`] (at the top or one object down: `{action_json: {command}}`), as text,
/// as an argv (quoted as a shell would need it) or as a list of commands, with any `args` after
/// it. Other fields that hold code (`script`) are often another language (a browser's
/// JavaScript) and are left to the secrets pack.
fn mcp_command(tool: &str, input: &Value) -> Option<String> {
    let name = name_words(tool.strip_prefix("mcp__")?);
    let words: Vec<&str> = name.split(['_', '-']).filter(|w| !w.is_empty()).collect();
    let has = |list: &[&str]| words.iter().any(|word| list.contains(word));
    let execs = words.iter().any(|word| word.starts_with("exec"));
    if !(execs || has(MCP_COMMAND_WORDS) || starts_process(input))
        || has(MCP_OTHER_WORDS)
        || (has(MCP_CONTAINER_WORDS) && !execs)
    {
        return None;
    }
    // What is typed into a running shell or process (Desktop Commander's
    // `interact_with_process {pid, input}` after `start_process {command: "bash"}`).
    let fields: &[&str] = if has(MCP_SESSION_WORDS) {
        &[
            "command",
            "cmd",
            "cmdline",
            "shell_command",
            "commands",
            "input",
        ]
    } else {
        MCP_COMMAND_FIELDS
    };
    let holder = std::iter::once(input)
        .chain(input.as_object().into_iter().flat_map(|o| o.values()))
        .find(|value| fields.iter().any(|f| value.get(*f).is_some()))?;
    let command = fields.iter().find_map(|f| holder.get(*f))?;
    let mut text = match command {
        Value::String(text) => text.clone(),
        Value::Array(items) if holder.get("commands").is_some() => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Array(words) => shell_words(words)?,
        _ => return None,
    };
    match holder.get("args") {
        Some(Value::Array(args)) => {
            text.push(' ');
            text.push_str(&shell_words(args)?);
        }
        Some(Value::String(args)) => {
            text.push(' ');
            text.push_str(args);
        }
        _ => {}
    }
    Some(text)
}

/// Whether an MCP tool's input is a process to start: a command string (in one of
/// [`MCP_COMMAND_FIELDS`]) beside a working directory or a shell ([`MCP_PROCESS_FIELDS`]).
fn starts_process(input: &Value) -> bool {
    let has_command = MCP_COMMAND_FIELDS
        .iter()
        .any(|field| input.get(*field).is_some_and(Value::is_string));
    has_command
        && MCP_PROCESS_FIELDS
            .iter()
            .any(|field| input.get(*field).is_some())
}

/// A tool's name in lowercase, its camel-case words split with `_` (`BashCommand` is
/// `bash_command`).
fn name_words(name: &str) -> String {
    let mut words = String::with_capacity(name.len() + 4);
    let mut lower_before = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && lower_before {
            words.push('_');
        }
        lower_before = c.is_ascii_lowercase() || c.is_ascii_digit();
        words.push(c.to_ascii_lowercase());
    }
    words
}

/// An argv of JSON strings as shell words, each quoted where it needs to be.
fn shell_words(words: &[Value]) -> Option<String> {
    let quoted: Option<Vec<String>> = words
        .iter()
        .map(|word| {
            let word = word.as_str()?;
            let plain = !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
            Some(if plain {
                word.to_owned()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            })
        })
        .collect();
    Some(quoted?.join(" "))
}

fn primary_field<'v>(tool: &str, input: &'v Value) -> Option<&'v str> {
    let field = match tool {
        "Agent" => "subagent_type",
        "Skill" => "skill",
        _ => return None,
    };
    input.get(field).and_then(Value::as_str)
}

/// The directory part of an absolute glob pattern before its first wildcard.
fn glob_base(pattern: &str) -> &str {
    let head = pattern
        .split(['*', '?', '[', '{'])
        .next()
        .unwrap_or(pattern);
    match head.rfind('/') {
        Some(0) => "/",
        Some(slash) => head.get(..slash).unwrap_or(head),
        None => head,
    }
}

/// The lowercase host of an http(s) URL, without port or credentials.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if host_port.starts_with('[') {
        host_port
            .split(']')
            .next()
            .map(|h| h.trim_start_matches('['))?
    } else {
        host_port.split(':').next()?
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

fn collect_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => out.push(text),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
        if out.len() > 4096 {
            break;
        }
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::mcp_command;
    use serde_json::json;

    #[test]
    fn an_mcp_tool_is_a_shell_by_its_name_or_by_a_process_in_its_input() {
        let command = |tool: &str, input| mcp_command(tool, &input);
        assert_eq!(
            command("mcp__x__do", json!({"command": "ls", "cwd": "/tmp"})).as_deref(),
            Some("ls")
        );
        assert_eq!(
            command("mcp__x__do", json!({"cmd": "ls", "shell": "bash"})).as_deref(),
            Some("ls")
        );
        assert_eq!(command("mcp__x__do", json!({"command": "ls"})), None);
        assert_eq!(
            command("mcp__x__do", json!({"command": ["ls"], "cwd": "/"})),
            None
        );
        assert_eq!(
            command("mcp__x__do", json!({"path": "ls", "cwd": "/"})),
            None
        );
        assert_eq!(
            command("mcp__db__query", json!({"command": "SELECT 1", "cwd": "/"})),
            None
        );
        assert_eq!(
            command(
                "mcp__docker__create_container",
                json!({"command": "ls", "workdir": "/"})
            ),
            None
        );
        assert_eq!(
            command("mcp__shell__run", json!({"command": "ls"})).as_deref(),
            Some("ls")
        );
    }
}
