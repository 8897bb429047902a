//! Compiling a [`Bundle`] into the immutable, indexed [`CompiledPolicy`] that the service holds
//! behind `ArcSwap` and evaluates many times.

use crate::bundle::{Bundle, BundleErrors};

/// A bundle compiled for evaluation. Immutable; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct CompiledPolicy {
    name: String,
    sha256: String,
}

impl CompiledPolicy {
    /// Compiles a validated bundle. Errors name their location in the document.
    pub fn compile(bundle: &Bundle) -> Result<Self, BundleErrors> {
        Ok(Self {
            name: bundle.name.clone(),
            sha256: bundle.sha256(),
        })
    }

    /// The bundle's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bundle's sha256 (lowercase hex).
    pub fn sha256(&self) -> &str {
        &self.sha256
    }
}
