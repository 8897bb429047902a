//! Case corpus runner.
