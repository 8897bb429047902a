//! `WebFetch(domain:…)` host patterns.
//!
//! Matching is case-insensitive and ignores a trailing `.` on either side. `*` alone matches
//! every host; `*.example.com` matches any subdomain at any depth but not `example.com` itself;
//! any other `*` stays within one label (`example.*` matches `example.org`, not
//! `example.evil.com`; `api-*.example.com` matches `api-eu.example.com`).
//!
//! This module matches host names only. It must not parse URLs (the caller extracts the host),
//! and it does not resolve or compare IP addresses.

use std::borrow::Cow;

use super::wildcard::Wildcard;

/// A compiled host pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DomainPattern {
    /// `*`: every host.
    Any,
    /// `*.example.com`: stored as `.example.com`.
    Subdomains(String),
    /// Label by label; a `*` stays inside its label.
    Labels(Vec<Wildcard>),
}

impl DomainPattern {
    /// Compiles a host pattern (the text after `domain:`), or says what is wrong with it.
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        let lowered = pattern.trim().to_ascii_lowercase();
        let host = lowered.strip_suffix('.').unwrap_or(&lowered);
        if host.is_empty() {
            return Err("empty domain".to_owned());
        }
        if let Some(bad) = host
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '*')))
        {
            return Err(format!(
                "invalid character `{bad}` in domain `{pattern}`: write a host name such as `example.com` or `*.example.com`, without scheme, port or path"
            ));
        }
        if host == "*" {
            return Ok(Self::Any);
        }
        if host.split('.').any(str::is_empty) {
            return Err(format!("empty label in domain `{pattern}`"));
        }
        if let Some(parent) = host.strip_prefix("*.")
            && !parent.contains('*')
        {
            return Ok(Self::Subdomains(format!(".{parent}")));
        }
        Ok(Self::Labels(host.split('.').map(Wildcard::parse).collect()))
    }

    /// Whether the pattern matches a host name.
    pub(crate) fn is_match(&self, host: &str) -> bool {
        let host = host.strip_suffix('.').unwrap_or(host);
        if host.is_empty() {
            return false;
        }
        let host: Cow<'_, str> = if host.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(host.to_ascii_lowercase())
        } else {
            Cow::Borrowed(host)
        };
        match self {
            Self::Any => true,
            Self::Subdomains(suffix) => {
                host.len() > suffix.len()
                    && host.ends_with(suffix.as_str())
                    && !host.starts_with('.')
            }
            Self::Labels(labels) => {
                host.split('.').count() == labels.len()
                    && host
                        .split('.')
                        .zip(labels)
                        .all(|(label, pattern)| !label.is_empty() && pattern.is_match(label))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, host: &str) -> bool {
        DomainPattern::new(pattern)
            .map(|p| p.is_match(host))
            .unwrap_or(false)
    }

    #[test]
    fn exact_hosts_ignore_case_and_trailing_dots() {
        assert!(m("example.com", "example.com"));
        assert!(m("Example.COM", "example.com"));
        assert!(m("example.com", "EXAMPLE.com."));
        assert!(m("example.com.", "example.com"));
        assert!(!m("example.com", "www.example.com"));
        assert!(!m("example.com", "example.com.evil.net"));
        assert!(!m("example.com", ""));
    }

    #[test]
    fn star_dot_covers_every_subdomain_but_not_the_apex() {
        assert!(m("*.example.com", "api.example.com"));
        assert!(m("*.example.com", "a.b.c.example.com"));
        assert!(m("*.example.com", "API.Example.com."));
        assert!(!m("*.example.com", "example.com"));
        assert!(!m("*.example.com", "badexample.com"));
        assert!(!m("*.example.com", ".example.com"));
    }

    #[test]
    fn other_stars_stay_within_one_label() {
        assert!(m("example.*", "example.org"));
        assert!(!m("example.*", "example.evil.com"));
        assert!(!m("example.*", "example"));
        assert!(m("api-*.example.com", "api-eu.example.com"));
        assert!(!m("api-*.example.com", "api-eu.x.example.com"));
        assert!(m("*.*.example.com", "a.b.example.com"));
        assert!(!m("*.*.example.com", "b.example.com"));
    }

    #[test]
    fn bare_star_matches_everything() {
        assert!(m("*", "example.com"));
        assert!(m("*", "localhost"));
        assert!(m("*.", "x.y"));
        assert!(!m("*", ""));
    }

    #[test]
    fn invalid_domains_are_rejected() {
        assert!(DomainPattern::new("").is_err());
        assert!(DomainPattern::new(".").is_err());
        assert!(DomainPattern::new("https://example.com").is_err());
        assert!(DomainPattern::new("example.com:8080").is_err());
        assert!(DomainPattern::new("example.com/path").is_err());
        assert!(DomainPattern::new("a..b").is_err());
        assert_eq!(
            DomainPattern::new("exa mple.com"),
            Err("invalid character ` ` in domain `exa mple.com`: write a host name such as `example.com` or `*.example.com`, without scheme, port or path".to_owned())
        );
    }
}
