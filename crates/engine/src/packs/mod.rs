//! Built-in rule packs (`baseline`, `secrets`) that bundles enable with `include`.
//!
//! A pack is native code, not a pile of regexes over the raw command: its rules judge the
//! analysed simple commands, canonical paths and scanned content that `evaluate` hands them.
//! Every rule is listed with its rationale and examples in [`catalog()`]; a hit carries the rule's
//! id and a reason naming the rule and what it protects, never a secret or the raw command.
//!
//! This module must stay pure (no I/O, no clock) and must not decide the final outcome: it only
//! records hits on the [`Evaluation`], which combines them with every other source.

mod baseline;
mod catalog;
pub(crate) mod places;
mod secrets;
#[cfg(test)]
mod tests;

pub use catalog::{RuleInfo, catalog};

use crate::decision::Mode;
use crate::evaluate::Evaluation;
use crate::shell::{Analysis, Fuel};

/// A built-in pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pack {
    /// Destructive commands, secret reads, persistence, exfiltration, remote code execution.
    Baseline,
    /// Credentials in what the agent writes or sends.
    Secrets,
}

impl Pack {
    /// The pack with this name.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "baseline" => Some(Self::Baseline),
            "secrets" => Some(Self::Secrets),
            _ => None,
        }
    }

    /// The pack's name as written in `include`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Secrets => "secrets",
        }
    }
}

/// Pack rules that judge a gating event as a whole (file tools, web fetches, MCP calls).
pub(crate) fn check_gate(pack: Pack, eval: &mut Evaluation<'_>) {
    match pack {
        Pack::Baseline => baseline::check_gate(eval),
        Pack::Secrets => secrets::check_gate(eval),
    }
}

/// Pack rules that judge an analysed shell command. Their analyses of parts of its text again
/// burn the evaluation's `fuel`.
pub(crate) fn check_shell(pack: Pack, eval: &mut Evaluation<'_>, analysis: &Analysis, fuel: &Fuel) {
    match pack {
        Pack::Baseline => baseline::check_shell(eval, analysis, fuel),
        // The command text is scanned with every other tool input in `check_gate`.
        Pack::Secrets => {}
    }
}

/// Pack rules for non-gating events (prompts, tool responses).
pub(crate) fn check_lifecycle(pack: Pack, eval: &mut Evaluation<'_>) {
    match pack {
        Pack::Baseline => {}
        Pack::Secrets => secrets::check_lifecycle(eval),
    }
}

/// What the rules of one event found: rule ids with a detail sentence, reported together.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    found: Vec<(&'static str, String)>,
}

impl Findings {
    /// Records that rule `id` matched; `detail` says what was flagged and what it protects.
    pub fn add(&mut self, id: &'static str, detail: impl Into<String>) {
        if !self.found.iter().any(|(seen, _)| *seen == id) {
            self.found.push((id, detail.into()));
        }
    }

    /// Whether no rule matched.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// Records every finding as an enforced hit with the rule's catalogue decision.
    pub fn report(self, eval: &mut Evaluation<'_>) {
        for (id, detail) in self.found {
            let Some(rule) = catalog::info(id) else {
                continue;
            };
            let reason = format!("{detail} (toolgate {} rule `{id}`)", rule.pack.name());
            eval.hit(id, rule.decision, Mode::Enforce, reason);
        }
    }
}
