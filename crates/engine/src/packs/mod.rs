//! Built-in rule packs (`baseline`, `secrets`) that bundles enable with `include`.
//!
//! A pack is native code, not a pile of regexes over the raw command: its rules judge the
//! analysed simple commands, canonical paths and scanned content that `evaluate` hands them.

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
}

use crate::evaluate::Evaluation;
use crate::shell::Analysis;

/// Pack rules that judge a gating event as a whole (file tools, web fetches, MCP calls).
pub(crate) fn check_gate(pack: Pack, eval: &mut Evaluation<'_>) {
    let _ = (pack, eval);
}

/// Pack rules that judge an analysed shell command.
pub(crate) fn check_shell(pack: Pack, eval: &mut Evaluation<'_>, analysis: &Analysis) {
    let _ = (pack, eval, analysis);
}

/// Pack rules for non-gating events (prompts, tool responses).
pub(crate) fn check_lifecycle(pack: Pack, eval: &mut Evaluation<'_>) {
    let _ = (pack, eval);
}
