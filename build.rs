//! Links the `toolgate` executable at a fixed address (not position-independent).
//!
//! A position-independent executable of this size carries ~33 000 relative relocations that the
//! dynamic loader applies at every start, copying every page they touch: about a millisecond of
//! each `toolgate hook` process, which agents run around every tool call (issue 7's budget is
//! 5 ms from process start to reply). Shared libraries, the stack and the heap stay randomised;
//! only the executable's own image is not, as with Go's default builds. `TOOLGATE_PIE=1` at
//! build time keeps the default position-independent link. See `docs/architecture.md`
//! (Command-hook client).

fn main() {
    let pie = std::env::var("TOOLGATE_PIE").is_ok_and(|value| value == "1");
    if !pie && std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TOOLGATE_PIE");
}
