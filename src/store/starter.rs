//! The starter bundle (`starter.yaml`): `include: [baseline, secrets]` and two guidelines,
//! pushed and activated for the `global` tenant when an embedded store that has no bundle at
//! all starts (see `startup`). It is checked like any pushed bundle — parsed, compiled, its own
//! tests run — and a unit test keeps it passing.

use toolgate_engine::bundle::Format;
use toolgate_engine::{Bundle, CompiledPolicy};

/// The document, as shipped.
pub const DOCUMENT: &str = include_str!("starter.yaml");

/// The starter bundle, checked: parsed, compiled, and its tests passed.
pub fn bundle() -> Result<Bundle, String> {
    let bundle = Bundle::parse(DOCUMENT, Format::Yaml).map_err(|errors| errors.to_string())?;
    let compiled = CompiledPolicy::compile(&bundle).map_err(|errors| errors.to_string())?;
    let report = compiled.run_tests();
    match report.failures.first() {
        None => Ok(bundle),
        Some(failure) => Err(format!(
            "starter bundle test failed: {}: {}",
            failure.location, failure.message
        )),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_starter_bundle_loads_and_passes_its_tests() {
        let bundle = super::bundle().unwrap();
        assert_eq!(bundle.name, "starter");
        assert_eq!(
            bundle.document["include"],
            serde_json::json!(["baseline", "secrets"])
        );
    }
}
