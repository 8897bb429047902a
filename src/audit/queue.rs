//! What travels from the request path to the writer: a built [`Row`] and, in durable mode, the
//! sender of its acknowledgement; and the writer's bounded memory of recent repeat keys.

use std::collections::{HashSet, VecDeque};

use tokio::sync::oneshot;

use super::AuditError;
use super::record::Row;

/// One row waiting for the writer.
pub struct Pending {
    /// The row, without replica id, seq, hashes and repeat flag.
    pub row: Row,
    /// Told once the row is durable (durable mode), or why it could not be made durable.
    pub ack: Option<oneshot::Sender<Result<(), AuditError>>>,
}

/// How many (session_id, tool_use_id, event) keys a replica remembers to mark repeats.
pub const RECENT_KEYS: usize = 65_536;

/// The last [`RECENT_KEYS`] repeat keys, oldest forgotten first.
#[derive(Debug, Default)]
pub struct RecentKeys {
    seen: HashSet<(String, String, String)>,
    order: VecDeque<(String, String, String)>,
}

impl RecentKeys {
    /// Whether `key` was seen recently; remembers it.
    pub fn check(&mut self, key: (String, String, String)) -> bool {
        if self.seen.contains(&key) {
            return true;
        }
        if self.order.len() >= RECENT_KEYS
            && let Some(old) = self.order.pop_front()
        {
            self.seen.remove(&old);
        }
        self.order.push_back(key.clone());
        self.seen.insert(key);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: usize) -> (String, String, String) {
        ("s".into(), format!("t{n}"), "PreToolUse".into())
    }

    #[test]
    fn repeats_are_remembered_within_the_bound() {
        let mut recent = RecentKeys::default();
        assert!(!recent.check(key(1)));
        assert!(recent.check(key(1)));
        for n in 2..=RECENT_KEYS + 1 {
            recent.check(key(n));
        }
        assert!(!recent.check(key(1)), "the oldest key is forgotten");
        assert!(recent.seen.len() <= RECENT_KEYS);
    }
}
