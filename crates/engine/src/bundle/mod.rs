//! The policy bundle: one JSON or YAML document (or several fragments merged in name order).
//!
//! Parsing walks the whole document and collects *every* error with its location
//! (`permissions.deny[3]: unbalanced parenthesis in "Bash(rm -rf"`), never only the first.
//! Keys of a Claude Code settings file other than `permissions` are ignored with a warning, so a
//! `managed-settings.json` loads as it is.

use serde_json::Value;

use crate::decision::Outcome;

/// A parsed, validated bundle document.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// `name`.
    pub name: String,
    /// The document as canonical JSON (sorted keys): what is stored and hashed.
    pub document: Value,
    /// Non-fatal findings (ignored keys, rules Claude Code would ignore).
    pub warnings: Vec<String>,
}

/// One validation error with its location in the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{location}: {message}")]
pub struct BundleError {
    /// Where: a dotted path with indices (`permissions.deny[3]`, `rules[0].decision`), or `document`.
    pub location: String,
    /// What is wrong, lowercase, offending text in backticks or quotes.
    pub message: String,
}

/// Every error found in a bundle. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct BundleErrors {
    /// The errors, in document order.
    pub errors: Vec<BundleError>,
}

/// The format of a bundle text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML (a superset of JSON).
    Yaml,
}

impl Bundle {
    /// Parses and validates a bundle text.
    pub fn parse(text: &str, format: Format) -> Result<Self, BundleErrors> {
        let _ = (text, format);
        Err(BundleErrors {
            errors: vec![BundleError {
                location: "document".into(),
                message: "todo".into(),
            }],
        })
    }

    /// Validates an already parsed JSON document.
    pub fn from_value(document: Value) -> Result<Self, BundleErrors> {
        let _ = document;
        Err(BundleErrors {
            errors: vec![BundleError {
                location: "document".into(),
                message: "todo".into(),
            }],
        })
    }

    /// The sha256 of the canonical JSON document, lowercase hex.
    pub fn sha256(&self) -> String {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(self.document.to_string().as_bytes()))
    }

    /// What to answer when nothing matches.
    pub fn default_outcome(&self) -> Outcome {
        Outcome::None
    }
}
