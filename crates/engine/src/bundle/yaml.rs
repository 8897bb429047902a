//! The size of a YAML document with its aliases expanded, measured before it is built.
//!
//! An alias (`*a`) stands for a copy of its anchor's node, so a small text can stand for a huge
//! document: `x: &a [1, 1, …]` with ten thousand items and `y: [*a, *a, …]` with ten thousand
//! aliases is 50 KB of YAML and a hundred million values once built (serde_norway bounds alias
//! jumps at a hundred per event, which this stays well within). [`expands_past`] walks the
//! document without building it and stops as soon as its JSON form (what the store keeps) would
//! pass the limit.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Whether `text`, a YAML document, would be more than `limit` bytes as JSON once its aliases are
/// expanded. `false` for a text that does not parse: building it reports that.
pub(crate) fn expands_past(text: &str, limit: usize) -> bool {
    let left = Cell::new(limit);
    let exceeded = Cell::new(false);
    let walk = Expanded {
        left: &left,
        exceeded: &exceeded,
    };
    let _ = walk.deserialize(serde_norway::Deserializer::from_str(text));
    exceeded.get()
}

/// One node of the walk: what it may still spend, and whether the budget ran out.
#[derive(Clone, Copy)]
struct Expanded<'a> {
    left: &'a Cell<usize>,
    exceeded: &'a Cell<bool>,
}

impl Expanded<'_> {
    /// Spends `bytes` of the budget: about what the node adds to the JSON text (a scalar and
    /// its separator, a string's quotes, a container's brackets).
    fn spend<E: serde::de::Error>(self, bytes: usize) -> Result<(), E> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.exceeded.set(true);
                Err(E::custom("the document expands past the size limit"))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Expanded<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Expanded<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML node")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.spend(6)
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.spend(2)
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.spend(2)
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.spend(2)
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<(), E> {
        self.spend(text.len().saturating_add(3))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend(5)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend(5)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.spend(2)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.spend(2)?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_count_once_per_use() {
        let small = "name: x\nlist: &a [1, 2, 3]\nagain: *a\n";
        assert!(!expands_past(small, 1000));
        let items = vec!["1"; 1000].join(", ");
        let aliases = vec!["*a"; 1000].join(", ");
        let bomb = format!("name: bomb\nx: &a [{items}]\ny: [{aliases}]\n");
        assert!(bomb.len() < 10_000);
        assert!(expands_past(&bomb, 1_000_000), "a million values");
        assert!(!expands_past(&bomb, 10_000_000));
    }

    #[test]
    fn long_strings_count_their_bytes() {
        let text = format!("name: x\ns: &s {}\nt: [*s, *s, *s]\n", "a".repeat(1000));
        assert!(expands_past(&text, 3000));
        assert!(!expands_past(&text, 5000));
    }

    #[test]
    fn text_that_does_not_parse_is_left_to_the_parser() {
        assert!(!expands_past("a: [unclosed", 1000));
        assert!(!expands_past("{{{", 1000));
    }
}
