//! brush-parser's own panics (an fd number that overflows `i32`, …) are caught by the engine
//! (`shell::parse::guarded`) and make the input unparseable: not findings. Every other panic
//! still goes to libFuzzer's hook, which aborts.

/// Installs the hook that lets brush-parser's panics through; call from `init`.
pub fn ignore_brush_parser_panics() {
    let libfuzzer_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_parser = info
            .location()
            .is_some_and(|location| location.file().contains("brush-parser"));
        if !in_parser {
            libfuzzer_hook(info);
        }
    }));
}
