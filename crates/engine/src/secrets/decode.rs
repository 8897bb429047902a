//! Encoded-token discovery: finds base64 (≥ 20 chars, standard or URL-safe alphabet) and hex
//! (≥ 32 chars) runs and decodes them, so the scanner can look for secrets inside.
//!
//! Only runs whose decoding is printable UTF-8 text are returned. Work is bounded by the caller's
//! [`Budget`]. Decoded bytes are handed back to the scanner and never logged or stored.

/// Shortest base64 run worth decoding.
const MIN_BASE64: usize = 20;
/// Shortest hex run worth decoding.
const MIN_HEX: usize = 32;
/// Longest prefix of one run that is decoded.
const MAX_RUN: usize = 64 * 1024;

/// Limits on decoding work for one top-level scan.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    /// Encoded bytes that may still be decoded.
    pub bytes: usize,
    /// Runs that may still be decoded.
    pub runs: usize,
}

/// One decoded run: its span in the scanned text and the decoded text.
pub(super) struct Decoded {
    pub start: usize,
    pub end: usize,
    pub text: Vec<u8>,
}

fn is_b64(b: u8) -> bool {
    B64.get(usize::from(b)) == Some(&true)
}

/// Which bytes are base64 (either alphabet): a table, since [`next_long_run`]'s probes cost
/// twice as much with the range tests.
static B64: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < table.len() {
        #[expect(
            clippy::indexing_slicing,
            reason = "`b` is below the length; `get_mut` is not const"
        )]
        {
            table[b] = matches!(b as u8, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'-' | b'_');
        }
        b += 1;
    }
    table
};

/// Whether a decoded byte can occur in text (rejects control bytes early, before UTF-8 checks).
fn textual(b: u8) -> bool {
    b >= 0x20 && b != 0x7f || matches!(b, b'\t' | b'\n' | b'\r')
}

/// Every encoded run in `hay` that decodes to text, skipping runs for which `skip(start, end)`
/// holds, until `budget` runs out.
pub(super) fn decoded_runs(
    hay: &[u8],
    budget: &mut Budget,
    skip: impl Fn(usize, usize) -> bool,
) -> Vec<Decoded> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(start) = next_long_run(hay, i) {
        i = hay
            .get(start..)
            .and_then(|rest| rest.iter().position(|&b| !is_b64(b)))
            .map_or(hay.len(), |len| start + len);
        let body_end = i;
        while i < body_end + 2 && hay.get(i) == Some(&b'=') {
            i += 1;
        }
        let end = i;
        let Some(body) = hay.get(start..body_end) else {
            break;
        };
        if skip(start, end) {
            continue;
        }
        if budget.runs == 0 || budget.bytes == 0 {
            break;
        }
        let body = body
            .get(..body.len().min(MAX_RUN).min(budget.bytes))
            .unwrap_or(body);
        budget.runs -= 1;
        budget.bytes = budget.bytes.saturating_sub(body.len());
        let decoded = if body.iter().all(u8::is_ascii_hexdigit) {
            if body.len() >= MIN_HEX {
                decode_hex(body)
            } else {
                None
            }
        } else {
            decode_base64(body)
        };
        if let Some(text) = decoded.filter(|t| is_text(t)) {
            out.push(Decoded { start, end, text });
        }
    }
    out
}

/// The start of the first run of at least [`MIN_BASE64`] base64 bytes at or after `i`, where
/// `i` is 0 or follows a non-base64 byte. Probes the last byte of each [`MIN_BASE64`]-byte
/// window first, so that text of short words costs about one look-up per window, not per byte.
fn next_long_run(hay: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let window = hay.get(i..i.checked_add(MIN_BASE64)?)?;
        match window.iter().rposition(|&b| !is_b64(b)) {
            // No run that starts in `i..=j` reaches past `j`.
            Some(j) => i += j + 1,
            None => return Some(i),
        }
    }
}

/// Decodes an even-length prefix of hex digits; `None` at the first non-text byte.
fn decode_hex(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() / 2);
    for pair in body.chunks_exact(2) {
        let (&hi, &lo) = (pair.first()?, pair.get(1)?);
        let b = hex_val(hi)? << 4 | hex_val(lo)?;
        if !textual(b) {
            return None;
        }
        out.push(b);
    }
    Some(out)
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes unpadded base64 in the standard or the URL-safe alphabet (not both mixed); `None` at
/// the first non-text byte. The interpreter reader decodes a program's literals with it too.
pub(crate) fn decode_base64(body: &[u8]) -> Option<Vec<u8>> {
    decode_base64_where(body, textual)
}

/// [`decode_base64`] of any bytes, text or not (PowerShell's `-EncodedCommand` is UTF-16).
pub(crate) fn decode_base64_bytes(body: &[u8]) -> Option<Vec<u8>> {
    decode_base64_where(body, |_| true)
}

/// Decodes base64 as [`decode_base64`] does; `None` at the first byte `accept` refuses.
fn decode_base64_where(body: &[u8], accept: impl Fn(u8) -> bool) -> Option<Vec<u8>> {
    let standard = body.iter().any(|b| matches!(b, b'+' | b'/'));
    let url_safe = body.iter().any(|b| matches!(b, b'-' | b'_'));
    if standard && url_safe {
        return None;
    }
    let val = |b: u8| -> Option<u32> {
        Some(u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &b in body {
        acc = (acc << 6) | val(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            let byte = ((acc >> bits) & 0xff) as u8;
            if !accept(byte) {
                return None;
            }
            out.push(byte);
        }
        acc &= (1 << bits) - 1;
    }
    Some(out)
}

/// Whether `bytes` is UTF-8 text without control characters other than tab, CR and LF.
pub(crate) fn is_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && std::str::from_utf8(bytes).is_ok_and(|s| {
            !s.chars()
                .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_alphabets_and_hex() {
        assert_eq!(
            decode_base64(b"aGVsbG8gd29ybGQ").as_deref(),
            Some(&b"hello world"[..])
        );
        assert_eq!(decode_base64(b"Pz8_Pw").as_deref(), Some(&b"????"[..]));
        assert_eq!(decode_hex(b"68656c6c6f").as_deref(), Some(&b"hello"[..]));
        assert!(decode_base64(b"ab+c-d").is_none());
    }

    /// Every maximal run of at least [`MIN_BASE64`] base64 bytes, the obvious way.
    fn long_runs_naive(hay: &[u8]) -> Vec<(usize, usize)> {
        let mut runs = Vec::new();
        let mut i = 0;
        while i < hay.len() {
            if !is_b64(hay[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < hay.len() && is_b64(hay[i]) {
                i += 1;
            }
            if i - start >= MIN_BASE64 {
                runs.push((start, i));
            }
        }
        runs
    }

    #[test]
    fn long_runs_are_found_exactly() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let alphabet = b"aZ09+/-_ .=\n\"";
        for len in [0, 1, 19, 20, 21, 39, 40, 41, 500, 5000] {
            for _ in 0..50 {
                let hay: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        // Mostly base64 bytes, so runs of every length occur.
                        let k = (state % 64) as usize;
                        alphabet[if k < 56 { k % 8 } else { k % alphabet.len() }]
                    })
                    .collect();
                let mut found = Vec::new();
                let mut i = 0;
                while let Some(start) = next_long_run(&hay, i) {
                    let end = start
                        + hay[start..]
                            .iter()
                            .position(|&b| !is_b64(b))
                            .unwrap_or(hay.len() - start);
                    found.push((start, end));
                    i = end;
                }
                assert_eq!(found, long_runs_naive(&hay), "{hay:?}");
            }
        }
    }

    #[test]
    fn only_text_runs_are_returned() {
        let mut budget = Budget {
            bytes: 1 << 20,
            runs: 100,
        };
        let text = b"x aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ= some_long_identifier_name_here y";
        let runs = decoded_runs(text, &mut budget, |_, _| false);
        assert_eq!(runs.len(), 1);
        assert!(runs.iter().all(|r| r.text == b"hello world hello world"));
        assert!(runs.iter().all(|r| r.start == 2 && r.end == 34));
    }
}
