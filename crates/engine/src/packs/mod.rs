//! Built-in rule packs (`baseline`, `secrets`) that bundles enable with `include`.
