//! The answer to one event: an [`Outcome`] on the lattice deny > ask > allow > none, the rule that
//! won, every rule that matched, and what the evaluation could not analyse.
//!
//! As a security gate toolgate fails closed: a rule that cannot be judged (unparseable shell,
//! limits exceeded) never yields `allow`; it yields the bundle's `options.unresolvable` outcome.

use serde::Serialize;

/// Where an answer sits on the lattice. `Ord` follows restrictiveness: `None < Allow < Ask < Deny`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// No opinion: the agent's own permission flow continues (the reply is `{}`).
    #[default]
    None,
    /// Approve the call without prompting.
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Outcome {
    /// The lowercase name (`deny`, `ask`, `allow`, `none`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    /// Parses a lowercase name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "none" => Some(Self::None),
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a rule's hit changes the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The hit counts toward the answer.
    #[default]
    Enforce,
    /// Shadow mode: the hit is reported and audited, never enforced.
    Warn,
}

impl Mode {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enforce => "enforce",
            Self::Warn => "warn",
        }
    }
}

/// One rule that matched the event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleHit {
    /// The rule's id: an extended rule's `id`, a pack rule's id, or for a permission rule its
    /// list and text (`permissions.deny[2]: Bash(rm:*)`).
    pub rule_id: String,
    /// What the rule says.
    pub outcome: Outcome,
    /// Enforced or shadow.
    pub mode: Mode,
    /// Why, in words meant for the agent and the user. Never contains a secret.
    pub reason: String,
}

/// The answer to one event.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Decision {
    /// The enforced answer.
    pub outcome: Outcome,
    /// The reason that goes to the agent: the winning rule's reason, or why nothing could be
    /// decided.
    pub reason: Option<String>,
    /// The id of the rule that decided, if a rule did.
    pub winner: Option<String>,
    /// Every rule that matched, enforced or shadow, most restrictive first.
    pub matched: Vec<RuleHit>,
    /// Context for the agent (`additionalContext`): rule context and guidelines.
    pub additional_context: Option<String>,
    /// What the evaluation could not analyse, and other notes for the trace.
    pub warnings: Vec<String>,
}

impl Decision {
    /// A decision with no opinion and nothing matched.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether any shadow-mode rule matched.
    pub fn has_shadow_hits(&self) -> bool {
        self.matched.iter().any(|hit| hit.mode == Mode::Warn)
    }

    /// Combines the decisions of several policies for one event (the `global` bundle beside a
    /// tenant's own): the most restrictive answer wins, everything matched is kept.
    pub fn combine(decisions: impl IntoIterator<Item = Decision>) -> Decision {
        Self::combine_sourced(decisions).0
    }

    /// [`Decision::combine`], and the position among `decisions` of the one whose answer won:
    /// the first of the most restrictive, `None` when none had an opinion. The audit names the
    /// winning rule's bundle by it, since two bundles can hold rules of one id.
    pub fn combine_sourced(
        decisions: impl IntoIterator<Item = Decision>,
    ) -> (Decision, Option<usize>) {
        let mut combined = Decision::none();
        let mut source = None;
        let mut contexts: Vec<String> = Vec::new();
        for (position, decision) in decisions.into_iter().enumerate() {
            if decision.outcome > combined.outcome {
                combined.outcome = decision.outcome;
                combined.reason = decision.reason.clone();
                combined.winner = decision.winner.clone();
                source = Some(position);
            }
            combined.matched.extend(decision.matched);
            combined.warnings.extend(decision.warnings);
            if let Some(context) = decision.additional_context
                && !contexts.contains(&context)
            {
                contexts.push(context);
            }
        }
        combined
            .matched
            .sort_by_key(|hit| std::cmp::Reverse(hit.outcome));
        if !contexts.is_empty() {
            combined.additional_context = Some(contexts.join("\n\n"));
        }
        (combined, source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_orders_by_restrictiveness() {
        assert!(Outcome::Deny > Outcome::Ask);
        assert!(Outcome::Ask > Outcome::Allow);
        assert!(Outcome::Allow > Outcome::None);
    }

    #[test]
    fn combine_keeps_the_most_restrictive() {
        let ask = Decision {
            outcome: Outcome::Ask,
            reason: Some("a".into()),
            ..Decision::none()
        };
        let deny = Decision {
            outcome: Outcome::Deny,
            reason: Some("d".into()),
            ..Decision::none()
        };
        let combined = Decision::combine([ask.clone(), deny, ask]);
        assert_eq!(combined.outcome, Outcome::Deny);
        assert_eq!(combined.reason.as_deref(), Some("d"));
    }

    #[test]
    fn combine_sourced_names_the_first_most_restrictive() {
        let answer = |outcome| Decision {
            outcome,
            ..Decision::none()
        };
        let source = |outcomes: &[Outcome]| {
            Decision::combine_sourced(outcomes.iter().copied().map(answer)).1
        };
        assert_eq!(source(&[Outcome::Ask, Outcome::Deny]), Some(1));
        assert_eq!(source(&[Outcome::Deny, Outcome::Deny]), Some(0));
        assert_eq!(source(&[Outcome::None, Outcome::Allow]), Some(1));
        assert_eq!(source(&[Outcome::None, Outcome::None]), None);
        assert_eq!(source(&[]), None);
    }
}
