//! toolgate's own rules (gaps in gitleaks for agent traffic) and its placeholder filter.
//!
//! - `url-credentials`: `scheme://user:password@host`, unless the password is a placeholder.
//! - `private-key-header`: a bare `-----BEGIN … PRIVATE KEY-----` line, even without a body.
//! - [`is_placeholder`]: values that are obviously not secrets (`${VAR}`, `<token>`, `xxxx`,
//!   `…EXAMPLE`, `changeme`, one repeated character), applied to every rule's secret.
//!
//! Functions here only inspect the candidate bytes they are given and never keep or print them.

/// A built-in rule that is not from gitleaks.
pub(super) struct ExtraRule {
    pub id: &'static str,
    pub description: &'static str,
    pub regex: &'static str,
    pub keywords: &'static [&'static str],
    pub secret_group: Option<usize>,
    /// Extra acceptance check on the secret; `false` drops the candidate.
    pub check: Option<fn(&[u8]) -> bool>,
}

/// toolgate's own rules, compiled after the gitleaks ones (so gitleaks wins ties).
pub(super) const EXTRA_RULES: &[ExtraRule] = &[
    ExtraRule {
        id: "url-credentials",
        description: "A URL with an embedded password (scheme://user:password@host).",
        regex: r#"(?i)\b[a-z][a-z0-9+.-]{1,31}://([^\s:@/?#'"\x60<>\[\]{}|\\]{1,128}):([^\s@/?#'"\x60]{1,256})@[a-z0-9\[_-]"#,
        keywords: &["://"],
        secret_group: Some(2),
        check: Some(url_password_is_real),
    },
    ExtraRule {
        id: "private-key-header",
        description: "A PEM private key header, with whatever key body follows it.",
        regex: r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*(?:\r?\n|\\r?\\n)[ \t]*[A-Z0-9+/=]{8,})*(?:[ \t]*(?:\r?\n|\\r?\\n)[ \t]*-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)?",
        keywords: &["-----begin"],
        secret_group: None,
        check: None,
    },
];

/// Substrings (lower case) that mark a value as a placeholder rather than a credential.
const PLACEHOLDER_MARKERS: &[&str] = &[
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "xxxxxx",
    "******",
    "your-",
    "your_",
    "-here",
    "_here",
    "${",
    "{{",
    "<",
    ">",
];

/// Whether `secret` is obviously a placeholder: one repeated character, or containing a marker
/// such as `example`, `your-`, `-here`, `changeme`, `xxxxxx`, `${`, `{{` or `<…>`.
pub(super) fn is_placeholder(secret: &[u8]) -> bool {
    let Some((&first, rest)) = secret.split_first() else {
        return true;
    };
    if rest.iter().all(|&b| b == first) {
        return true;
    }
    PLACEHOLDER_MARKERS.iter().any(|marker| {
        secret
            .windows(marker.len())
            .any(|w| w.eq_ignore_ascii_case(marker.as_bytes()))
    })
}

/// Passwords in URLs that are words for "the password goes here".
const URL_PASSWORD_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "pw",
    "secret",
    "token",
    "apikey",
    "api_key",
    "mypassword",
    "yourpassword",
    "db_password",
    "dbpassword",
];

/// `url-credentials` check: the password is not `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `<…>`,
/// `[…]`, `{…}`, a placeholder word, or a placeholder per [`is_placeholder`].
fn url_password_is_real(password: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (password.first(), password.last()) else {
        return false;
    };
    let wrapped = matches!(
        (first, last),
        (b'<', b'>') | (b'[', b']') | (b'{', b'}') | (b'%', b'%')
    ) && password.len() > 2;
    let word = URL_PASSWORD_WORDS
        .iter()
        .any(|w| password.eq_ignore_ascii_case(w.as_bytes()));
    !(first == b'$' || wrapped || word || is_placeholder(password))
}
