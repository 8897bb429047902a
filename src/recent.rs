//! A bounded memory of recently seen keys, the oldest forgotten first.

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// The last `capacity` distinct keys seen.
#[derive(Debug)]
pub struct Recent<K> {
    capacity: usize,
    seen: HashSet<K>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Clone> Recent<K> {
    /// Remembers at most `capacity` keys (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            seen: HashSet::new(),
            order: VecDeque::new(),
        }
    }

    /// Whether `key` is remembered.
    pub fn contains(&self, key: &K) -> bool {
        self.seen.contains(key)
    }

    /// Whether `key` was seen recently; remembers it.
    pub fn check(&mut self, key: K) -> bool {
        if self.seen.contains(&key) {
            return true;
        }
        if self.order.len() >= self.capacity
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

    #[test]
    fn keys_are_remembered_within_the_bound() {
        let mut recent = Recent::new(100);
        assert!(!recent.check(1));
        assert!(recent.check(1));
        assert!(recent.contains(&1));
        for n in 2..=101 {
            recent.check(n);
        }
        assert!(!recent.contains(&1), "the oldest key is forgotten");
        assert!(!recent.check(1));
        assert!(recent.seen.len() <= 100);
    }
}
