//! Strings a program decodes before it uses them: base64, base32 and hex, percent-encoding,
//! rot13, reversal, and character codes (`base64.b64decode('cm0gLXJmIH4=').decode()`,
//! `'~ fr- mr'[::-1]`, `Buffer.from('…', 'hex')`, `urllib.parse.unquote('rm%20-rf%20~')`,
//! `decodeURIComponent`, `urldecode`, `uri_unescape`, `CGI.unescape`,
//! `String.fromCharCode(114, 109)`, `scalar reverse '…'`, Lua's `string.char`), and code text
//! parsed to be evaluated (Julia's `Meta.parse`, R's `parse(text = …)`).
//!
//! A call whose input is a literal is decoded where it stands, so that the reader sees the text
//! the program will have (`os.system('rm -rf ~')`). A decoding of a run-time value cannot be
//! undone statically: [`runtime`] says that one is there, for the caller to report what it runs
//! as hidden. Literals joined with `+` (Perl's and PHP's `.`, Python's adjacent strings) are one
//! literal, so that a name or a payload split in pieces (`'sys' + 'tem'`) is read whole.
//!
//! The work is bounded: literals longer than [`MAX_LITERAL`] stay as they are, as does what
//! follows [`MAX_FOLDS`] decodings; each token is looked at a fixed number of times.

use super::{Lang, RUN_TIME, Token, opening};
use crate::secrets::{decode_base64, is_text};
use crate::shell::parse::Budget;

/// Longest literal decoded (and longest list of character codes read).
const MAX_LITERAL: usize = 16 * 1024;

/// Most decodings and joins in one program text.
const MAX_FOLDS: usize = 256;

/// How a literal is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoding {
    /// Standard or URL-safe base64, padded or not.
    Base64,
    /// RFC 4648 base32.
    Base32,
    /// Hex digits, blanks between bytes allowed (`bytes.fromhex`).
    Hex,
    /// rot13 (its own inverse).
    Rot13,
    /// The characters in reverse order.
    Reverse,
    /// As it is: a conversion between text and bytes (`.decode()`, `.toString('utf8')`).
    Plain,
    /// Percent-encoding, `%7e` a byte (`urllib.parse.unquote`, `decodeURIComponent`,
    /// `rawurldecode`, `uri_unescape`).
    Url,
    /// Percent-encoding of a form, `+` a blank (`unquote_plus`, PHP's `urldecode`,
    /// `URI.decode_www_form_component`, `CGI.unescape`).
    UrlPlus,
    /// JavaScript's `decodeURI`, which leaves the escapes of the characters that delimit a URI's
    /// parts (`;/?:@&=+$,#`) as they are.
    Uri,
    /// JavaScript's `unescape`: `%7e` a character (not a UTF-8 byte), `%u007e` one too.
    Unescape,
}

impl Decoding {
    /// The decoded text, when it is text; `None` for what does not decode, decodes to binary
    /// data, or is too long.
    fn apply(self, text: &str) -> Option<String> {
        if text.len() > MAX_LITERAL || text.contains(RUN_TIME) {
            return None;
        }
        let bytes = match self {
            Self::Base64 => base64(text)?,
            Self::Base32 => base32(text)?,
            Self::Hex => {
                let digits: String = text.split_whitespace().collect();
                hex::decode(digits).ok()?
            }
            Self::Rot13 => return Some(text.chars().map(rot13).collect()),
            Self::Reverse => return Some(text.chars().rev().collect()),
            Self::Plain => return Some(text.to_owned()),
            Self::Url | Self::UrlPlus | Self::Uri => percent(text, self),
            Self::Unescape => return unescape(text).filter(|text| is_text(text.as_bytes())),
        };
        textual(bytes)
    }

    /// The shell command that decodes a run-time value `value` the same way, for the encodings
    /// the shell side calls decoders (see `packs::baseline::exec`): `base64 -d <<< VALUE`,
    /// `base32 -d`, `xxd -r -p`, and for percent-encoding GridSite's `urlencode -d VALUE`
    /// (urlencode(1); it reads its arguments, not stdin, and also turns `+` into a blank). None
    /// for rot13 and reversal, which hide nothing a reader cannot undo at a glance.
    pub(super) fn shell_decoding(self, value: &str) -> Option<String> {
        let decoder = match self {
            Self::Base64 => "base64 -d",
            Self::Base32 => "base32 -d",
            Self::Hex => "xxd -r -p",
            Self::Url | Self::UrlPlus | Self::Uri | Self::Unescape => {
                return Some(format!("urlencode -d {value}"));
            }
            Self::Rot13 | Self::Reverse | Self::Plain => return None,
        };
        Some(format!("{decoder} <<< {value}"))
    }
}

/// Percent-decodes `text` as `decoding` (see [`Decoding::Url`]) into bytes; an escape without two
/// hex digits stays as it is.
fn percent(text: &str, decoding: Decoding) -> Vec<u8> {
    const URI_RESERVED: &[u8] = b";/?:@&=+$,#";
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let escaped = bytes
            .get(i + 1..i + 3)
            .filter(|_| byte == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(value) if !(decoding == Decoding::Uri && URI_RESERVED.contains(&value)) => {
                out.push(value);
                i += 3;
            }
            _ => {
                out.push(if byte == b'+' && decoding == Decoding::UrlPlus {
                    b' '
                } else {
                    byte
                });
                i += 1;
            }
        }
    }
    out
}

/// JavaScript's `unescape`: `%XX` and `%uXXXX` are characters.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at)?);
        let after = rest.get(at + 1..)?;
        let (digits, len) = match after.strip_prefix('u') {
            Some(unicode) => (unicode.get(..4), 5),
            None => (after.get(..2), 2),
        };
        match digits
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => {
                out.push(c);
                rest = after.get(len..)?;
            }
            None => {
                out.push('%');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// Bytes as text: UTF-8 without control characters other than line breaks and tabs (a
/// compressed or binary payload is no command to read).
fn textual(bytes: Vec<u8>) -> Option<String> {
    if !is_text(&bytes) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

fn rot13(c: char) -> char {
    let rotate = |base: u8| char::from((c as u8 - base + 13) % 26 + base);
    match c {
        'a'..='z' => rotate(b'a'),
        'A'..='Z' => rotate(b'A'),
        _ => c,
    }
}

/// Decodes base64, standard or URL-safe, blanks ignored, padding optional (with the secret
/// scanner's decoder, which stops at a byte that is no text).
fn base64(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text
        .trim_end_matches(|c: char| c == '=' || c.is_ascii_whitespace())
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    // A single digit left over is no byte.
    if digits.len() % 4 == 1 {
        return None;
    }
    decode_base64(&digits)
}

/// Decodes RFC 4648 base32, either case, padding optional.
fn base32(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(digits.len() * 5 / 8);
    let (mut acc, mut held) = (0u32, 0u32);
    for &digit in digits {
        let value = match digit.to_ascii_uppercase() {
            upper @ b'A'..=b'Z' => upper - b'A',
            digit @ b'2'..=b'7' => digit - b'2' + 26,
            _ => return None,
        };
        acc = ((acc << 5) | u32::from(value)) & 0xffff;
        held += 5;
        if held >= 8 {
            held -= 8;
            out.push(u8::try_from((acc >> held) & 0xff).ok()?);
        }
    }
    // Leftover bits are padding; a whole digit left over is not.
    (held < 5).then_some(out)
}

/// A codec or encoding named in a call (`codecs.decode(s, 'rot13')`, `Buffer.from(s, 'hex')`,
/// `.decode('utf-8')`).
fn codec(name: &str) -> Option<Decoding> {
    let name = name.to_ascii_lowercase().replace('-', "_");
    Some(match name.as_str() {
        "base64" | "base_64" | "base64_codec" | "base64url" => Decoding::Base64,
        "hex" | "hex_codec" => Decoding::Hex,
        "rot13" | "rot_13" => Decoding::Rot13,
        "utf8" | "utf_8" | "ascii" | "latin1" | "latin_1" | "binary" | "utf8mb4" => Decoding::Plain,
        _ => return None,
    })
}

/// A `pack`/`unpack` template that decodes: Ruby's `m` (base64) and `H*` (hex).
fn directive(template: &str) -> Option<Decoding> {
    match template {
        "m" | "m0" | "m*" => Some(Decoding::Base64),
        "H*" => Some(Decoding::Hex),
        _ => None,
    }
}

/// Functions that decode their first argument: by their whole name where the last segment is
/// ambiguous (`unescape`, `URLdecode`), else by their last name segment, lowercase.
fn function_decoding(word: &str) -> Option<Decoding> {
    match word {
        // JavaScript's global `unescape`; Ruby's `CGI.unescape` decodes a form; Python's
        // `html.unescape` is no percent-decoding.
        "unescape" => return Some(Decoding::Unescape),
        "CGI.unescape" | "CGI::unescape" => return Some(Decoding::UrlPlus),
        "URI.unescape" | "URI::unescape" | "URI.decode" | "URI::Escape.unescape" => {
            return Some(Decoding::Url);
        }
        // R's `URLdecode` leaves `+` as it is.
        "URLdecode" | "utils::URLdecode" => return Some(Decoding::Url),
        _ => {}
    }
    let last = last_lower(word);
    Some(match last.as_str() {
        "unquote"
        | "unquote_to_bytes"
        | "decodeuricomponent"
        | "rawurldecode"
        | "uri_unescape"
        | "decode_uri_component"
        | "unescapeuri" => Decoding::Url,
        "unquote_plus" | "urldecode" | "decode_www_form_component" => Decoding::UrlPlus,
        "decodeuri" => Decoding::Uri,
        "b64decode" | "standard_b64decode" | "urlsafe_b64decode" | "decodebytes"
        | "decodestring" | "a2b_base64" | "decode64" | "strict_decode64" | "urlsafe_decode64"
        | "atob" | "base64_decode" | "decode_base64" | "decode_base64url" | "base64decode" => {
            Decoding::Base64
        }
        "b32decode" => Decoding::Base32,
        "b16decode" | "unhexlify" | "a2b_hex" | "fromhex" | "hex2bin" => Decoding::Hex,
        "str_rot13" => Decoding::Rot13,
        "strrev" | "reversed" => Decoding::Reverse,
        _ => return None,
    })
}

/// The last segment of a name, lowercase.
fn last_lower(word: &str) -> String {
    word.rsplit(['.', ':'])
        .next()
        .unwrap_or(word)
        .to_ascii_lowercase()
}

/// Calls that take the data first and the codec second.
fn codec_call(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.ends_with("codecs.decode") || lower.ends_with("codecs.encode") || word == "Buffer.from"
}

/// `tokens` with the literals the program decodes decoded (see the module documentation).
pub(super) fn decoded(tokens: Vec<Token>, lang: Lang) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut opens: Vec<usize> = Vec::new();
    let mut folds = 0usize;
    for token in tokens {
        if folds >= MAX_FOLDS {
            out.push(token);
            continue;
        }
        if token != Token::Punct(b'(') && parenless_method(&mut out, lang) {
            folds += 1;
        }
        let closes = matches!(token, Token::Punct(b')' | b']' | b'}'));
        if matches!(token, Token::Punct(b'(' | b'[' | b'{')) {
            opens.push(out.len());
        }
        let string = matches!(token, Token::Str { runs: false, .. });
        out.push(token);
        let folded = if closes {
            opens
                .pop()
                .is_some_and(|open| fold_call(&mut out, open, lang))
        } else {
            string && parenless_call(&mut out, lang)
        };
        if folded || string {
            folds += usize::from(folded) + usize::from(join_literals(&mut out, lang));
        }
    }
    if folds < MAX_FOLDS {
        parenless_method(&mut out, lang);
    }
    out
}

/// The literal text of a token.
fn literal(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Str { text, runs: false }) => Some(text),
        _ => None,
    }
}

/// Replaces `out[start..]` with the literal `text`.
fn replace_tail(out: &mut Vec<Token>, start: usize, text: String) -> bool {
    out.truncate(start);
    out.push(Token::Str { text, runs: false });
    true
}

/// `'a' + 'b'` (Perl's and PHP's `'a' . 'b'`, Python's `'a' 'b'`) at the end of `out` as one
/// literal; not the right operand of `*` or `%`, which binds tighter.
fn join_literals(out: &mut Vec<Token>, lang: Lang) -> bool {
    let len = out.len();
    let Some(right) = literal(out.last()) else {
        return false;
    };
    let left_at = match len.checked_sub(2).and_then(|i| out.get(i)) {
        // Lua's `..`.
        Some(Token::Punct(b'.'))
            if lang == Lang::Lua
                && len.checked_sub(3).and_then(|i| out.get(i)) == Some(&Token::Punct(b'.')) =>
        {
            len.checked_sub(4)
        }
        Some(Token::Punct(b'+')) if !matches!(lang, Lang::Perl | Lang::Php | Lang::Lua) => {
            len.checked_sub(3)
        }
        Some(Token::Punct(b'.')) if matches!(lang, Lang::Perl | Lang::Php) => len.checked_sub(3),
        Some(Token::Str { runs: false, .. }) if lang == Lang::Python => len.checked_sub(2),
        _ => None,
    };
    let Some((left_at, left)) = left_at.and_then(|at| Some((at, literal(out.get(at))?))) else {
        return false;
    };
    let binds_tighter = left_at
        .checked_sub(1)
        .is_some_and(|i| matches!(out.get(i), Some(Token::Punct(b'*' | b'%'))));
    if binds_tighter || left.len() + right.len() > MAX_LITERAL {
        return false;
    }
    let text = format!("{left}{right}");
    replace_tail(out, left_at, text)
}

/// Ruby's methods called without parentheses on a literal (`'~ fr- mr'.reverse`), when the
/// token after them is no `(`.
fn parenless_method(out: &mut Vec<Token>, lang: Lang) -> bool {
    if lang != Lang::Ruby {
        return false;
    }
    let Some(start) = out.len().checked_sub(3) else {
        return false;
    };
    let decoding = match out.get(start..) {
        Some(
            [
                Token::Str { runs: false, .. },
                Token::Punct(b'.'),
                Token::Word(method),
            ],
        ) => match method.as_str() {
            "reverse" => Decoding::Reverse,
            "to_s" | "b" | "to_str" => Decoding::Plain,
            _ => return false,
        },
        _ => return false,
    };
    let Some(text) = literal(out.get(start)).and_then(|text| decoding.apply(text)) else {
        return false;
    };
    replace_tail(out, start, text)
}

/// Perl's and Ruby's calls without parentheses on the literal just pushed
/// (`decode_base64 '…'`, `Base64.decode64 '…'`, `scalar reverse '…'`).
fn parenless_call(out: &mut Vec<Token>, lang: Lang) -> bool {
    if !matches!(lang, Lang::Perl | Lang::Ruby) {
        return false;
    }
    let len = out.len();
    let Some(text) = literal(out.last()) else {
        return false;
    };
    let name_at = |back: usize| match len.checked_sub(back).and_then(|i| out.get(i)) {
        Some(Token::Word(word)) => Some(word.as_str()),
        _ => None,
    };
    let (start, decoding) = match (name_at(3), name_at(2)) {
        (Some("scalar"), Some("reverse")) if lang == Lang::Perl => (len - 3, Decoding::Reverse),
        (_, Some(word)) => match function_decoding(word) {
            Some(decoding) => (len - 2, decoding),
            None => return false,
        },
        _ => return false,
    };
    match decoding.apply(text) {
        Some(text) => replace_tail(out, start, text),
        None => false,
    }
}

/// One argument of a call, as far as decoding cares.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    Str(String),
    Int(u32),
    /// A list of integers (`[114, 109]`, `(114, 109)`, `...[114, 109]`).
    Ints(Vec<u32>),
    /// A list of literals.
    Strs(Vec<String>),
    Word(String),
    Other,
}

/// The comma-separated arguments in `inner`, line breaks left out.
fn args(inner: &[Token]) -> Vec<Arg> {
    let mut pieces = super::split_commas(inner);
    // A trailing comma leaves no argument after it.
    if pieces
        .last()
        .is_some_and(|last| last.iter().all(|t| *t == Token::Punct(b'\n')))
    {
        pieces.pop();
    }
    pieces.into_iter().map(arg).collect()
}

fn arg(tokens: &[Token]) -> Arg {
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| **t != Token::Punct(b'\n'))
        .collect();
    let elements = match tokens.as_slice() {
        [Token::Str { text, runs: false }] => return Arg::Str(text.clone()),
        [Token::Word(word)] => return Arg::Word(word.clone()),
        [
            Token::Punct(b'.'),
            Token::Punct(b'.'),
            Token::Punct(b'.'),
            list @ ..,
        ] => list,
        list => list,
    };
    if let Some(value) = int(elements) {
        return Arg::Int(value);
    }
    match (elements.first(), elements.last()) {
        (Some(Token::Punct(b'[' | b'(')), Some(Token::Punct(b']' | b')'))) => {}
        _ => return Arg::Other,
    }
    let inner: Vec<Token> = elements
        .get(1..elements.len().saturating_sub(1))
        .unwrap_or(&[])
        .iter()
        .map(|t| (*t).clone())
        .collect();
    // Lists of plain elements only: nested lists are no text.
    if inner
        .iter()
        .any(|t| matches!(t, Token::Punct(b'(' | b'[' | b'{' | b')' | b']' | b'}')))
    {
        return Arg::Other;
    }
    let items = args(&inner);
    if items.len() > MAX_LITERAL {
        return Arg::Other;
    }
    if let Some(ints) = items
        .iter()
        .map(|item| match item {
            Arg::Int(value) => Some(*value),
            _ => None,
        })
        .collect::<Option<Vec<u32>>>()
    {
        return Arg::Ints(ints);
    }
    items
        .into_iter()
        .map(|item| match item {
            Arg::Str(text) => Some(text),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()
        .map_or(Arg::Other, Arg::Strs)
}

/// An integer literal: decimal digits (each a token of its own), or `0x…`.
fn int(tokens: &[&Token]) -> Option<u32> {
    if let [Token::Punct(b'0'), Token::Word(hex)] = tokens {
        return u32::from_str_radix(hex.strip_prefix(['x', 'X'])?, 16).ok();
    }
    if tokens.is_empty() || tokens.len() > 10 {
        return None;
    }
    tokens.iter().try_fold(0u32, |value, token| match token {
        Token::Punct(digit @ b'0'..=b'9') => {
            value.checked_mul(10)?.checked_add(u32::from(digit - b'0'))
        }
        _ => None,
    })
}

/// Character codes as text.
fn chars(codes: &[u32]) -> Option<String> {
    codes.iter().map(|&code| char::from_u32(code)).collect()
}

/// Decodes the call or bracket that ends `out`, opened at `open`: replaces it (with its callee
/// or receiver) by the literal it makes.
fn fold_call(out: &mut Vec<Token>, open: usize, lang: Lang) -> bool {
    let Some(close) = out.len().checked_sub(1) else {
        return false;
    };
    let inner = out.get(open + 1..close).unwrap_or(&[]);
    let before = |back: usize| open.checked_sub(back).and_then(|i| out.get(i));
    let folded = match (out.get(open), before(1)) {
        // Python's `'…'[::-1]`.
        (Some(Token::Punct(b'[')), Some(Token::Str { text, runs: false }))
            if matches!(
                inner,
                [
                    Token::Punct(b':'),
                    Token::Punct(b':'),
                    Token::Punct(b'-'),
                    Token::Punct(b'1')
                ]
            ) =>
        {
            Decoding::Reverse.apply(text).map(|text| (open - 1, text))
        }
        // JavaScript's `[...'…']`.
        (Some(Token::Punct(b'[')), _) => match inner {
            [
                Token::Punct(b'.'),
                Token::Punct(b'.'),
                Token::Punct(b'.'),
                Token::Str { text, runs: false },
            ] if lang == Lang::JavaScript => Some((open, text.clone())),
            _ => None,
        },
        (Some(Token::Punct(b'(')), Some(Token::Word(name))) => {
            // Perl's and PHP's `.` joins strings; their methods follow `->`.
            let called_on = (before(2) == Some(&Token::Punct(b'.'))
                && !matches!(lang, Lang::Perl | Lang::Php))
                || (lang == Lang::Lua && before(2) == Some(&Token::Punct(b':')));
            let receiver = called_on.then(|| before(3));
            match receiver.flatten() {
                Some(Token::Str { text, runs: false }) => {
                    method(text, &last_lower(name), inner, lang).map(|text| (open - 3, text))
                }
                Some(Token::Punct(b']')) if name == "pack" => {
                    let list_close = open - 3;
                    opening(out, list_close).and_then(|list_open| {
                        let list = out.get(list_open..=list_close).unwrap_or(&[]);
                        let list: Vec<&Token> = list.iter().collect();
                        pack(&[Arg::Str(single_str(inner)?), arg_of(&list)])
                            .map(|text| (list_open, text))
                    })
                }
                Some(_) => None,
                None => function(out, open, name, inner, lang),
            }
        }
        // A literal in parentheses after an operator, not a call's: `(('rm -r' + 'f ~')[::-1])`.
        (
            Some(Token::Punct(b'(')),
            None | Some(Token::Punct(b'(' | b'[' | b'{' | b',' | b'=' | b'+' | b':' | b';')),
        ) => literal(inner.first())
            .filter(|_| inner.len() == 1)
            .map(|text| (open, text.to_owned())),
        _ => None,
    };
    match folded {
        Some((start, text)) => replace_tail(out, start, text),
        None => false,
    }
}

fn single_str(inner: &[Token]) -> Option<String> {
    match args(inner).as_slice() {
        [Arg::Str(text)] => Some(text.clone()),
        _ => None,
    }
}

fn arg_of(tokens: &[&Token]) -> Arg {
    let owned: Vec<Token> = tokens.iter().map(|t| (*t).clone()).collect();
    arg(&owned)
}

/// A function call `name(inner)` on literals, opened at `open`: where its replacement starts,
/// and the text it makes.
fn function(
    out: &[Token],
    open: usize,
    name: &str,
    inner: &[Token],
    lang: Lang,
) -> Option<(usize, String)> {
    let last = last_lower(name);
    // The names worth reading the arguments of.
    if let Some(folded) = language_function(name, inner, lang) {
        return folded.map(|text| (open - 1, text));
    }
    let known = function_decoding(name).is_some()
        || codec_call(name)
        || name == "Array.from"
        || matches!(
            last.as_str(),
            "chr"
                | "bytes"
                | "bytearray"
                | "map"
                | "pack"
                | "reverse"
                | "scalar"
                | "fromcharcode"
                | "fromcodepoint"
        );
    if !known {
        return None;
    }
    let args = args(inner);
    let start = open - 1;
    let first = args.first();
    // Perl's `scalar reverse('…')` and `scalar(reverse '…')`.
    if lang == Lang::Perl {
        let scalar = start
            .checked_sub(1)
            .is_some_and(|i| out.get(i) == Some(&Token::Word("scalar".to_owned())));
        match (name, inner) {
            ("reverse", _) if scalar => {
                let Some(Arg::Str(text)) = first else {
                    return None;
                };
                return Decoding::Reverse.apply(text).map(|text| (start - 1, text));
            }
            ("reverse", _) => return None,
            ("scalar", [Token::Word(reverse), rest @ ..]) if reverse == "reverse" => {
                let text = match rest {
                    [
                        Token::Punct(b'('),
                        Token::Str { text, runs: false },
                        Token::Punct(b')'),
                    ]
                    | [Token::Str { text, runs: false }] => text,
                    _ => return None,
                };
                return Decoding::Reverse.apply(text).map(|text| (start, text));
            }
            _ => {}
        }
    }
    let text = if let Some(decoding) = function_decoding(name) {
        let Some(Arg::Str(text)) = first else {
            return None;
        };
        decoding.apply(text)?
    } else if codec_call(name) {
        let decoding = match (args.get(1), last.as_str()) {
            (None, _) if name == "Buffer.from" => Decoding::Plain,
            (Some(Arg::Str(codec_name)), "decode" | "from") => codec(codec_name)?,
            (Some(Arg::Str(codec_name)), _) => {
                codec(codec_name).filter(|d| matches!(d, Decoding::Rot13 | Decoding::Plain))?
            }
            _ => return None,
        };
        match first? {
            Arg::Str(text) if !(name == "Buffer.from" && decoding == Decoding::Rot13) => {
                decoding.apply(text)?
            }
            Arg::Ints(codes) if name == "Buffer.from" => chars(codes)?,
            _ => return None,
        }
    } else {
        match (name, last.as_str(), args.as_slice()) {
            ("Array.from", _, [Arg::Str(text)]) => text.clone(),
            (_, "chr", [Arg::Int(code)]) if lang != Lang::JavaScript => chars(&[*code])?,
            (_, "bytes" | "bytearray", [Arg::Ints(codes)]) if lang == Lang::Python => chars(codes)?,
            (_, "map", [Arg::Word(chr), Arg::Ints(codes)])
                if lang == Lang::Python && chr == "chr" =>
            {
                chars(codes)?
            }
            ("String.fromCharCode" | "String.fromCodePoint", _, [Arg::Ints(codes)]) => {
                chars(codes)?
            }
            ("String.fromCharCode" | "String.fromCodePoint", _, codes) => chars(
                &codes
                    .iter()
                    .map(|code| match code {
                        Arg::Int(code) => Some(*code),
                        _ => None,
                    })
                    .collect::<Option<Vec<u32>>>()?,
            )?,
            (_, "pack", args) if matches!(lang, Lang::Perl | Lang::Php) => pack(args)?,
            _ => return None,
        }
    };
    Some((start, text))
}

/// The calls on literals that Lua, Julia and R spell their own way: `Some` when `name` is one
/// of them (with the text it makes, when it makes one).
fn language_function(name: &str, inner: &[Token], lang: Lang) -> Option<Option<String>> {
    let args = || args(inner);
    let codes = |args: &[Arg]| {
        args.iter()
            .map(|code| match code {
                Arg::Int(code) => Some(*code),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()
    };
    Some(match (lang, name) {
        (Lang::Lua, "string.char") => codes(&args()).and_then(|codes| chars(&codes)),
        (Lang::Lua | Lang::Julia, "string.reverse" | "reverse") => match args().as_slice() {
            [Arg::Str(text)] => Decoding::Reverse.apply(text),
            _ => None,
        },
        // Code parsed to be evaluated is its text: `eval(Meta.parse("…"))`,
        // `eval(parse(text = "…"))`.
        (Lang::Julia, "String" | "Meta.parse" | "Base.Meta.parse")
        | (Lang::R, "str2lang" | "str2expression" | "as.character") => match args().as_slice() {
            [Arg::Str(text)] => Some(text.clone()),
            _ => None,
        },
        (Lang::R, "parse" | "base::parse") => match inner {
            [
                Token::Word(key),
                Token::Punct(b'='),
                Token::Str { text, runs: false },
            ] if key == "text" => Some(text.clone()),
            _ => None,
        },
        // R's `paste(…)` (blanks between) and `paste0(…)` of literals and run-time parts.
        (Lang::R, "paste" | "paste0") => r_paste(name == "paste", inner),
        _ => return None,
    })
}

/// R's `paste`/`paste0` of literals and run-time parts, joined with `sep` (a blank unless
/// given, for `paste`; nothing for `paste0`, which takes no `sep` and pastes one given as a
/// part); `None` when no argument is literal or one is a vector.
fn r_paste(blank: bool, inner: &[Token]) -> Option<String> {
    let mut separator = if blank { " " } else { "" }.to_owned();
    let mut parts: Vec<String> = Vec::new();
    let mut literal = false;
    for piece in super::split_commas(inner) {
        let piece: Vec<&Token> = piece
            .iter()
            .filter(|t| **t != Token::Punct(b'\n'))
            .collect();
        match piece.as_slice() {
            [] => {}
            [
                Token::Word(key),
                Token::Punct(b'='),
                Token::Str { text, runs: false },
            ] if key == "sep" && blank => {
                separator.clone_from(text);
            }
            [Token::Word(key), Token::Punct(b'='), ..] if key == "collapse" => return None,
            [Token::Str { text, runs: false }]
            | [
                Token::Word(_),
                Token::Punct(b'='),
                Token::Str { text, runs: false },
            ] => {
                literal = true;
                parts.push(text.clone());
            }
            [Token::Word(c), Token::Punct(b'('), ..] if c == "c" => return None,
            _ => parts.push(RUN_TIME.to_owned()),
        }
    }
    let text = parts.join(&separator);
    (literal && text.len() <= MAX_LITERAL).then_some(text)
}

/// `pack(TEMPLATE, …)`: `H*` of a hex literal, `C*`/`c*`/`U*`/`W*` of character codes.
fn pack(args: &[Arg]) -> Option<String> {
    let (Arg::Str(template), rest) = args.split_first()? else {
        return None;
    };
    match (template.as_str(), rest) {
        ("H*", [Arg::Str(hex)]) => Decoding::Hex.apply(hex),
        ("H*", [Arg::Strs(hexes)]) => match hexes.as_slice() {
            [hex] => Decoding::Hex.apply(hex),
            _ => None,
        },
        ("C*" | "c*" | "U*" | "W*", [Arg::Ints(codes)]) => chars(codes),
        ("C*" | "c*" | "U*" | "W*", codes) => chars(
            &codes
                .iter()
                .map(|code| match code {
                    Arg::Int(code) => Some(*code),
                    _ => None,
                })
                .collect::<Option<Vec<u32>>>()?,
        ),
        _ => None,
    }
}

/// A method `name(inner)` called on the literal `receiver`: the text it makes.
fn method(receiver: &str, name: &str, inner: &[Token], lang: Lang) -> Option<String> {
    const METHODS: &[&str] = &[
        "decode",
        "encode",
        "tostring",
        "to_s",
        "force_encoding",
        "b",
        "to_str",
        "unpack1",
        "reverse",
        "split",
        "join",
    ];
    if !METHODS.contains(&name) {
        return None;
    }
    let args = args(inner);
    let named = || match args.first() {
        Some(Arg::Str(name)) => codec(name),
        _ => Some(Decoding::Plain),
    };
    let decoding = match name {
        "decode" => named()?,
        "encode" => named().filter(|d| matches!(d, Decoding::Rot13 | Decoding::Plain))?,
        "tostring" => named().filter(|d| *d == Decoding::Plain)?,
        "to_s" | "force_encoding" | "b" | "to_str" => Decoding::Plain,
        "unpack1" => match args.first() {
            Some(Arg::Str(template)) => directive(template)?,
            _ => return None,
        },
        "reverse" => Decoding::Reverse,
        "split" | "join" if lang == Lang::JavaScript => match args.as_slice() {
            [Arg::Str(empty)] if empty.is_empty() => Decoding::Plain,
            _ => return None,
        },
        "join" if lang == Lang::Python => return python_join(receiver, inner, &args),
        _ => return None,
    };
    decoding.apply(receiver)
}

/// Python's `SEP.join(…)` of a literal, of literals, of `reversed('…')` (already decoded) or of
/// character codes (`chr(c) for c in [114, 109]`, `map(chr, […])`).
fn python_join(separator: &str, inner: &[Token], args: &[Arg]) -> Option<String> {
    let pieces: Vec<String> = match args {
        [Arg::Str(text)] => text.chars().map(String::from).collect(),
        [Arg::Strs(texts)] => texts.clone(),
        _ => match inner {
            [
                Token::Word(chr),
                Token::Punct(b'('),
                Token::Word(var),
                Token::Punct(b')'),
                Token::Word(keyword),
                Token::Word(var2),
                Token::Word(in_),
                list @ ..,
            ] if chr == "chr" && var == var2 && keyword == "for" && in_ == "in" => {
                let list: Vec<&Token> = list.iter().collect();
                match arg_of(&list) {
                    Arg::Ints(codes) => chars(&codes)?.chars().map(String::from).collect(),
                    _ => return None,
                }
            }
            _ => return None,
        },
    };
    let text = pieces.join(separator);
    (text.len() <= MAX_LITERAL).then_some(text)
}

/// The decoding of a run-time value in `tokens` (an argument of a call): a decoding function
/// (`base64.b64decode(data)`, `atob(x)`, `decode_base64($x)`), a codec call
/// (`Buffer.from(x, 'base64')`, `codecs.decode(x, 'hex')`, `x.decode('base64')`,
/// `x.unpack1('m')`, `pack('H*', $x)`), or a name `decoded` lists as bound to one. Only the
/// encodings the shell side calls decoders count (not rot13 or reversal).
pub(super) fn runtime(tokens: &[&Token], decoded: &[(String, Decoding)]) -> Option<Decoding> {
    for (at, token) in tokens.iter().enumerate() {
        let Token::Word(word) = token else {
            continue;
        };
        if let Some((_, decoding)) = decoded.iter().find(|(name, _)| name == word) {
            return Some(*decoding);
        }
        let last = last_lower(word);
        let found = function_decoding(word).or_else(|| {
            let named = codec_call(word)
                || matches!(last.as_str(), "decode" | "unpack" | "unpack1" | "pack");
            if !named {
                return None;
            }
            // The literals among the call's arguments, up to its end.
            let mut depth = 0usize;
            tokens
                .iter()
                .skip(at + 1)
                .take_while(|t| {
                    match t {
                        Token::Punct(b'(' | b'[' | b'{') => depth += 1,
                        Token::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    depth > 0 || matches!(t, Token::Str { .. })
                })
                .find_map(|t| literal(Some(t)).and_then(|s| codec(s).or_else(|| directive(s))))
        });
        if let Some(decoding) = found.filter(|d| d.shell_decoding("").is_some()) {
            return Some(decoding);
        }
    }
    None
}

/// The names the code binds to a decoded run-time value (`p = base64.b64decode(sys.argv[1])`,
/// `my $p = decode_base64($x);`). Each assignment's value is read to the statement's end
/// (`a = b = c = …` reads the same tokens again and again): that burns `budget`'s fuel; once it
/// is out, the names found so far.
pub(super) fn decoded_names(tokens: &[Token], budget: &Budget) -> Vec<(String, Decoding)> {
    let mut names = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        if *token != Token::Punct(b'=') || tokens.get(at + 1) == Some(&Token::Punct(b'=')) {
            continue;
        }
        let Some(Token::Word(name)) = at.checked_sub(1).and_then(|i| tokens.get(i)) else {
            continue;
        };
        let value: Vec<&Token> = tokens
            .get(at + 1..)
            .unwrap_or(&[])
            .iter()
            .take_while(|t| !matches!(t, Token::Punct(b';' | b'\n')))
            .take(super::MAX_BRACKET_SCAN)
            .collect();
        if !budget.burn(super::TOKEN * value.len() as u64) {
            break;
        }
        if let Some(decoding) = runtime(&value, &names) {
            names.push((name.clone(), decoding));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::super::{Code, tokens};
    use super::*;

    fn folded(lang: Lang, text: &str) -> Vec<Token> {
        decoded(
            tokens(&Code {
                lang,
                text,
                from_stdin: false,
            }),
            lang,
        )
    }

    fn strings(lang: Lang, text: &str) -> Vec<String> {
        folded(lang, text)
            .into_iter()
            .filter_map(|t| match t {
                Token::Str { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn decoders() {
        assert_eq!(base64("cm0gLXJmIH4=").as_deref(), Some(&b"rm -rf ~"[..]));
        assert_eq!(base64("cm0gLXJmIH4").as_deref(), Some(&b"rm -rf ~"[..]));
        assert_eq!(base64("fi8+").as_deref(), Some(&b"~/>"[..]));
        assert_eq!(base64("Pz8_").as_deref(), Some(&b"???"[..]));
        assert_eq!(base64("Pz8/").as_deref(), Some(&b"???"[..]));
        assert_eq!(base64("aGk=\n").as_deref(), Some(&b"hi"[..]));
        assert!(base64("a").is_none());
        assert!(base64("a$b=").is_none());
        assert_eq!(
            base32("OJWSALLSMYQH4===").as_deref(),
            Some(&b"rm -rf ~"[..])
        );
        assert_eq!(Decoding::Hex.apply("72 6d").as_deref(), Some("rm"));
        assert_eq!(
            Decoding::Rot13.apply("ez -es ~").as_deref(),
            Some("rm -rf ~")
        );
        // Binary data is no text to read.
        assert!(
            Decoding::Base64
                .apply("eJzLSM3JyVcozy/KSQEAGgQEXQ==")
                .is_none()
        );
        assert!(
            Decoding::Base64
                .apply(&"QUFB".repeat(MAX_LITERAL))
                .is_none()
        );
    }

    #[test]
    fn literal_decodings() {
        // (language, code, the literals left after decoding). Not decoded: run-time input, the
        // operand of `*`, an encoding.
        let cases: &[(Lang, &str, &[&str])] = &[
            (
                Lang::Python,
                "base64.b64decode('cm0gLXJmIH4=').decode()",
                &["rm -rf ~"],
            ),
            (
                Lang::Python,
                "base64.urlsafe_b64decode(b'cm0gLXJmIH4=')",
                &["rm -rf ~"],
            ),
            (
                Lang::Python,
                "bytes.fromhex('726d202d7266207e').decode('utf-8')",
                &["rm -rf ~"],
            ),
            (
                Lang::Python,
                "codecs.decode('ez -es ~', 'rot_13')",
                &["rm -rf ~"],
            ),
            (Lang::Python, "binascii.unhexlify('726d')", &["rm"]),
            (Lang::Python, "'~ fr- mr'[::-1]", &["rm -rf ~"]),
            (Lang::Python, "''.join(reversed('~ fr- mr'))", &["rm -rf ~"]),
            (Lang::Python, "''.join(chr(c) for c in [114, 109])", &["rm"]),
            (Lang::Python, "''.join(map(chr, [114, 109]))", &["rm"]),
            (Lang::Python, "chr(114) + chr(0x6d)", &["rm"]),
            (Lang::Python, "bytes([114, 109]).decode()", &["rm"]),
            (Lang::Python, "'sys' + 'tem'", &["system"]),
            (Lang::Python, "'rm -r' 'f ~'", &["rm -rf ~"]),
            (Lang::Python, "(('~ fr-' + ' mr'))[::-1]", &["rm -rf ~"]),
            (
                Lang::Python,
                "base64.b64decode(codecs.decode('pz0tYKWzVU4=', 'rot13'))",
                &["rm -rf ~"],
            ),
            (Lang::Python, "base64.b64decode(x)", &[]),
            (Lang::Python, "'-' * 'a' + 'b'", &["-", "a", "b"]),
            (Lang::Python, "base64.b64encode(b'x')", &["x"]),
            (
                Lang::JavaScript,
                "Buffer.from('cm0gLXJmIH4=','base64').toString()",
                &["rm -rf ~"],
            ),
            (
                Lang::JavaScript,
                "Buffer.from('726d', 'hex').toString('utf8')",
                &["rm"],
            ),
            (Lang::JavaScript, "atob('cm0gLXJmIH4=')", &["rm -rf ~"]),
            (Lang::JavaScript, "String.fromCharCode(114, 109)", &["rm"]),
            (
                Lang::JavaScript,
                "String.fromCharCode(...[114, 109])",
                &["rm"],
            ),
            (
                Lang::JavaScript,
                "'~ fr- mr'.split('').reverse().join('')",
                &["rm -rf ~"],
            ),
            (
                Lang::JavaScript,
                "[...'~ fr- mr'].reverse().join('')",
                &["rm -rf ~"],
            ),
            (
                Lang::JavaScript,
                "Buffer.from('rm').toString('base64')",
                &["rm", "base64"],
            ),
            (Lang::Ruby, "Base64.decode64('cm0gLXJmIH4=')", &["rm -rf ~"]),
            (Lang::Ruby, "Base64.decode64 'cm0gLXJmIH4='", &["rm -rf ~"]),
            (Lang::Ruby, "'cm0gLXJmIH4='.unpack1('m')", &["rm -rf ~"]),
            (Lang::Ruby, "system('~ fr- mr'.reverse)", &["rm -rf ~"]),
            (Lang::Ruby, "['726d'].pack('H*')", &["rm"]),
            (Lang::Ruby, "[114, 109].pack('c*')", &["rm"]),
            (Lang::Perl, "decode_base64('cm0gLXJmIH4=')", &["rm -rf ~"]),
            (
                Lang::Perl,
                "system scalar reverse '~ fr- mr';",
                &["rm -rf ~"],
            ),
            (
                Lang::Perl,
                "system(scalar(reverse('~ fr- mr')))",
                &["rm -rf ~"],
            ),
            (Lang::Perl, "print reverse('ab')", &["ab"]),
            (Lang::Perl, "pack('H*', '726d') . chr(32)", &["rm "]),
            (Lang::Php, "base64_decode('cm0gLXJmIH4=')", &["rm -rf ~"]),
            (Lang::Php, "strrev('~ fr- mr')", &["rm -rf ~"]),
            (Lang::Php, "hex2bin('726d') . ' -rf ~'", &["rm -rf ~"]),
            (Lang::Php, "str_rot13('ez -es ~')", &["rm -rf ~"]),
            // Percent-encoding, per function: `+` a blank only in forms; `decodeURI` keeps the
            // escapes of a URI's delimiters; JavaScript's `unescape` reads `%uXXXX`; Python's
            // `html.unescape` is no percent-decoding.
            (
                Lang::Python,
                "urllib.parse.unquote('rm%20-rf%20%7e')",
                &["rm -rf ~"],
            ),
            (Lang::Python, "unquote_plus('a+b%2B')", &["a b+"]),
            (Lang::Python, "unquote('a+b%ZZ%4')", &["a+b%ZZ%4"]),
            (Lang::Python, "html.unescape('a%20b')", &["a%20b"]),
            (Lang::JavaScript, "decodeURIComponent('a%2Fb')", &["a/b"]),
            (Lang::JavaScript, "decodeURI('a%20b%2Fc')", &["a b%2Fc"]),
            (Lang::JavaScript, "unescape('%u007e%7E')", &["~~"]),
            (Lang::Php, "rawurldecode('a+b%20c')", &["a+b c"]),
            (Lang::Php, "urldecode('a+b%20c')", &["a b c"]),
            (Lang::Perl, "uri_unescape 'a%20b'", &["a b"]),
            (Lang::Ruby, "URI.decode_www_form_component('a+b')", &["a b"]),
            (Lang::Ruby, "CGI.unescape('a+b')", &["a b"]),
            // Lua's, Julia's and R's own spellings.
            (Lang::Lua, "'rm' .. ' -r' .. 'f'", &["rm -rf"]),
            (Lang::Lua, "string.char(114, 109)", &["rm"]),
            (
                Lang::Julia,
                "String(base64decode(\"cm0gLXJmIH4=\"))",
                &["rm -rf ~"],
            ),
            (Lang::R, "paste('rm', '-rf', x)", &["rm -rf $X"]),
            (Lang::R, "paste('rm', x, sep = '/')", &["rm/$X"]),
            (Lang::R, "paste0('rm', x, sep = '-')", &["rm$X-"]),
            (Lang::R, "paste(x, y)", &[]),
        ];
        for (lang, code, want) in cases {
            assert_eq!(strings(*lang, code), *want, "{code}");
        }
    }

    #[test]
    fn run_time_decodings() {
        let found = |lang, text| {
            let tokens = folded(lang, text);
            let refs: Vec<&Token> = tokens.iter().collect();
            runtime(&refs, &decoded_names(&tokens, &Budget::default()))
        };
        assert_eq!(
            found(Lang::Python, "base64.b64decode(sys.argv[1])"),
            Some(Decoding::Base64)
        );
        assert_eq!(
            found(Lang::Python, "codecs.decode(x, 'hex')"),
            Some(Decoding::Hex)
        );
        assert_eq!(
            found(Lang::JavaScript, "Buffer.from(x, 'base64').toString()"),
            Some(Decoding::Base64)
        );
        assert_eq!(found(Lang::Ruby, "x.unpack1('m')"), Some(Decoding::Base64));
        assert_eq!(
            found(Lang::Perl, "decode_base64($x)"),
            Some(Decoding::Base64)
        );
        assert_eq!(
            found(Lang::JavaScript, "decodeURIComponent(process.argv[2])"),
            Some(Decoding::Url)
        );
        assert_eq!(
            found(Lang::Php, "urldecode($argv[1])"),
            Some(Decoding::UrlPlus)
        );
        assert_eq!(found(Lang::Python, "x.decode('utf-8')"), None);
        assert_eq!(found(Lang::Python, "codecs.decode(x, 'rot13')"), None);
        assert_eq!(found(Lang::Python, "base64.b64encode(x)"), None);
        assert_eq!(
            decoded_names(
                &folded(Lang::Python, "p = base64.b64decode(x); q = 1"),
                &Budget::default()
            ),
            [("p".to_owned(), Decoding::Base64)]
        );
    }

    #[test]
    fn bounded() {
        // Deep nesting and long lists neither panic nor take long.
        let deep = format!("{}'cm0='{}", "b64decode(".repeat(500), ")".repeat(500));
        let _ = folded(Lang::Python, &deep);
        let codes = format!("String.fromCharCode({})", "114,".repeat(20_000));
        let _ = folded(Lang::JavaScript, &codes);
        let _ = folded(Lang::Python, "(((((");
        let _ = folded(Lang::Python, ")))[::-1]");
    }
}
