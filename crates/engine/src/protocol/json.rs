//! JSON text as the agents write it.
//!
//! The agents are JavaScript programs, and `JSON.stringify` writes a lone surrogate in a string
//! (one half of a UTF-16 pair, which a model can put in a tool's input) as an escape such as
//! `\ud800`. No Rust string can hold it, so serde_json refuses the whole event. When the agent
//! hands that string to the system (a command to bash, a path to `open`), Node encodes it as
//! UTF-8 with U+FFFD in its place; [`parse`] reads it the same way, so that the event is
//! evaluated as what will run.

use serde::de::DeserializeOwned;

use super::{EventError, MAX_EVENT_DEPTH, nesting_exceeds};

/// An event's text, parsed as [`parse`] does once its nesting is known to stay within
/// [`MAX_EVENT_DEPTH`].
pub(crate) fn parse_event<T: DeserializeOwned>(body: &[u8]) -> Result<T, EventError> {
    if nesting_exceeds(body, MAX_EVENT_DEPTH) {
        return Err(EventError::TooDeep);
    }
    parse(body).map_err(|error| EventError::Json(error.to_string()))
}

/// Parses JSON text, reading each lone surrogate escape as U+FFFD. The text is rewritten only
/// when a first parse fails and it holds such an escape.
///
/// The whole text is checked to be UTF-8 first (JSON text is), so that strings are not checked
/// again one by one, and so that text a reader skips unbuilt (a member no one reads) is checked
/// too.
pub(crate) fn parse<T: DeserializeOwned>(text: &[u8]) -> Result<T, serde_json::Error> {
    let text = std::str::from_utf8(text).map_err(|error| {
        serde::de::Error::custom(format_args!(
            "the text is not UTF-8 past byte {}",
            error.valid_up_to()
        ))
    })?;
    serde_json::from_str(text).or_else(|error| match replace_lone_surrogates(text.as_bytes()) {
        Some(fixed) => serde_json::from_slice(&fixed).map_err(|_| error),
        None => Err(error),
    })
}

/// The text with every lone surrogate escape (`\uD800`–`\uDFFF` not in a high-low pair)
/// rewritten as `\ufffd`, or `None` when it holds none. Escapes are the same length, so the
/// rest of the text keeps its offsets.
fn replace_lone_surrogates(text: &[u8]) -> Option<Vec<u8>> {
    let mut fixed: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        match byte {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let Some(unit) = text.get(at + 1..at + 6).and_then(utf16_escape) else {
                    at += 2; // `\\`, `\"`, `\n`, …: the escaped byte is no quote or escape.
                    continue;
                };
                let paired = match unit {
                    0xD800..=0xDBFF => text
                        .get(at + 6..at + 12)
                        .filter(|next| next.first() == Some(&b'\\'))
                        .and_then(|next| next.get(1..).and_then(utf16_escape))
                        .is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)),
                    _ => false,
                };
                if paired {
                    at += 12;
                    continue;
                }
                if (0xD800..=0xDFFF).contains(&unit) {
                    let fixed = fixed.get_or_insert_with(|| text.to_vec());
                    if let Some(digits) = fixed.get_mut(at + 2..at + 6) {
                        digits.copy_from_slice(b"fffd");
                    }
                }
                at += 6;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    fixed
}

/// The code unit of `uXXXX` (an escape without its backslash).
fn utf16_escape(escape: &[u8]) -> Option<u16> {
    let digits = escape.strip_prefix(b"u")?;
    if digits.len() != 4 {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn a_lone_surrogate_reads_as_the_replacement_character() {
        let parsed =
            parse::<Value>(br#"{"command":"rm -rf ~ \ud800","x":"\uDC00a\udbff"}"#).unwrap();
        assert_eq!(
            parsed,
            json!({"command": "rm -rf ~ \u{fffd}", "x": "\u{fffd}a\u{fffd}"})
        );
    }

    #[test]
    fn pairs_and_other_escapes_are_kept() {
        let text = br#"{"a":"\ud83d\ude00 \\ud800 \" \u0041","\\":"\n"}"#;
        assert_eq!(replace_lone_surrogates(text), None);
        assert_eq!(
            parse::<Value>(text).unwrap(),
            json!({"a": "\u{1f600} \\ud800 \" A", "\\": "\n"})
        );
        // A high half followed by another high half: the first is lone, the second too.
        assert_eq!(
            parse::<Value>(br#"["\ud800\ud800\udc00"]"#).unwrap(),
            json!(["\u{fffd}\u{10000}"])
        );
    }

    /// Every string of up to five pieces (halves, pairs, escapes, quotes, a lone backslash, cut
    /// escapes): no panic; text serde_json reads is read the same; a lone half is the only
    /// change.
    #[test]
    fn every_short_sequence_of_escapes() {
        const PIECES: [&str; 8] = [
            r"\ud800", r"\udc00", r"\\", "\"", "a", r"\u0041", "\\", r"\ud8",
        ];
        let mut indices = [0usize; 5];
        for len in 0..=indices.len() {
            let total = PIECES.len().pow(u32::try_from(len).unwrap());
            for mut n in 0..total {
                for slot in indices.iter_mut().take(len) {
                    *slot = n % PIECES.len();
                    n /= PIECES.len();
                }
                let inner: String = indices.iter().take(len).map(|&i| PIECES[i]).collect();
                let text = format!("[\"{inner}\"]");
                let parsed = parse::<Value>(text.as_bytes());
                if let Ok(value) = serde_json::from_slice::<Value>(text.as_bytes()) {
                    assert_eq!(parsed.ok(), Some(value), "{text}");
                } else if let Ok(value) = parsed {
                    assert!(value.to_string().contains('\u{fffd}'), "{text} -> {value}");
                }
            }
        }
    }

    #[test]
    fn other_faults_keep_the_first_parse_error() {
        let text = br#"{"a":"\ud800"#;
        let first = serde_json::from_slice::<Value>(text).unwrap_err();
        assert_eq!(
            parse::<Value>(text).unwrap_err().to_string(),
            first.to_string()
        );
        assert!(parse::<Value>(b"{not json").is_err());
        assert!(parse::<Value>(br#"{"a":"\u12"}"#).is_err());
    }
}
