//! Evaluation: a pure function of (policy, event) → [`Decision`].

use crate::compile::CompiledPolicy;
use crate::decision::Decision;
use crate::protocol::HookEvent;

/// Evaluates one event against one compiled policy.
pub fn evaluate(policy: &CompiledPolicy, event: &HookEvent) -> Decision {
    let _ = (policy, event);
    Decision::none()
}
