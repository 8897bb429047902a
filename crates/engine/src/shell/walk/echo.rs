//! What `echo` prints in each shell that may run the command line.
//!
//! The shells' `echo`s differ on backslash escapes: bash's prints them as they are unless given
//! `-e`; sh's (dash's) always decodes them and takes no option but a first `-n`; zsh's decodes
//! them unless given `-E`. They also differ on which escapes they know: `\x72` is a byte to bash
//! (`-e`) and zsh, text to dash. [`echo_output`] computes each shell's text and reports them as
//! one text, two, or (where they are three, or an escape is read in ways this module does not
//! model) only known at run time.

use super::super::words::{Escape, decode_escapes, escape_digits};

/// A shell whose `echo` prints a text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shell {
    /// bash, whose `echo` decodes escapes only with `-e`.
    Bash,
    /// sh as dash, whose `echo` always decodes escapes and takes only a first `-n`.
    Dash,
    /// zsh, whose `echo` decodes escapes unless given `-E`.
    Zsh,
}

/// The options bash's and zsh's `echo` take from leading words such as `-n`, `-e`, `-ne`.
#[derive(Default)]
struct Options {
    /// How many leading words are options.
    count: usize,
    /// `-n`: no trailing newline.
    no_newline: bool,
    /// The last of `-e` (`Some(true)`) and `-E` (`Some(false)`), if any.
    escapes: Option<bool>,
}

/// The leading option words of bash's and zsh's `echo`: `-` followed only by `n`, `e` and `E`.
/// `None` where a leading word starting with `-` is none of them (`-x`, `--`, `-`), which the
/// shells read in different ways.
fn options(args: &[String]) -> Option<Options> {
    let mut options = Options::default();
    for arg in args.iter().take_while(|arg| arg.starts_with('-')) {
        let letters = arg.strip_prefix('-').unwrap_or_default();
        if letters.is_empty() || !letters.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            return None;
        }
        for letter in letters.chars() {
            match letter {
                'n' => options.no_newline = true,
                'e' => options.escapes = Some(true),
                _ => options.escapes = Some(false),
            }
        }
        options.count += 1;
    }
    Some(options)
}

/// What `echo ARGS` prints, whether that is only known at run time, and, where the shell
/// decides it, a second text: escapes (`echo 'a\nb'`) are printed as they are by bash's echo and
/// decoded by sh's (dash's) and zsh's; with `-e` bash's decodes them too, and dash's prints `-e`
/// as a word. `\x72` is decoded by bash's `-e` and zsh's but not dash's, `\0101` by each, and
/// `\c` stops the output (with its trailing newline) in each that decodes it. Where the shells
/// print three texts, or one reads an escape in a way not modelled here (`\e`, `\u`, `\1`, a
/// byte that is not ASCII), the text is only known at run time.
pub(super) fn echo_output(args: &[String], dynamic: bool) -> (String, bool, Option<String>) {
    let leading = args.iter().take_while(|arg| arg.starts_with('-')).count();
    let bash_words = args.get(leading..).unwrap_or_default().join(" ");
    let bash_newline = !args.iter().take(leading).any(|option| option.contains('n'));
    let literal = with_newline(bash_words, bash_newline);
    if !literal.contains('\\') {
        return (literal, dynamic, None);
    }
    let unsure = || (literal.clone(), true, None);
    if dynamic {
        return unsure();
    }
    let (Some(bash), Some(dash), Some(zsh)) = (
        printed(args, Shell::Bash),
        printed(args, Shell::Dash),
        printed(args, Shell::Zsh),
    ) else {
        return unsure();
    };
    let mut texts: Vec<String> = Vec::with_capacity(3);
    for text in [bash, dash, zsh] {
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    let mut texts = texts.into_iter();
    match (texts.next(), texts.next(), texts.next()) {
        (Some(only), None, _) => (only, false, None),
        (Some(first), Some(second), None) => (first, true, Some(second)),
        _ => unsure(),
    }
}

/// `words` followed by a newline unless `-n` dropped it.
fn with_newline(mut words: String, newline: bool) -> String {
    if newline {
        words.push('\n');
    }
    words
}

/// What `shell`'s `echo ARGS` prints; `None` where it is not modelled (see [`decoded`]).
fn printed(args: &[String], shell: Shell) -> Option<String> {
    let (words, newline, decodes) = match shell {
        Shell::Dash => {
            let no_newline = args.first().is_some_and(|first| first == "-n");
            let words = args.get(usize::from(no_newline)..).unwrap_or_default();
            (words, !no_newline, true)
        }
        Shell::Bash | Shell::Zsh => {
            let options = options(args)?;
            let words = args.get(options.count..).unwrap_or_default();
            let decodes = options.escapes.unwrap_or(shell == Shell::Zsh);
            (words, !options.no_newline, decodes)
        }
    };
    let text = with_newline(words.join(" "), newline);
    match decodes {
        true => decoded(&text, shell),
        false => Some(text),
    }
}

/// What `shell`'s `echo` prints of `text` with its escapes decoded: `\n`, `\t`, `\r`, `\a`,
/// `\b`, `\f`, `\v` and `\\` in each; `\0NNN` the byte of up to three octal digits; `\xHH` of
/// up to two hex digits in bash and zsh (dash prints it as it is); `\c` ends the output there.
/// An escape none of them knows (`\q`, `\$`) is printed as it is. `None` where `text` holds an
/// escape the shells read in ways not modelled here (`\e`, `\u`, `\1`, `\x` without digits, zsh's
/// `\C` and `\M`), or decodes to a byte that is NUL or not ASCII.
fn decoded(text: &str, shell: Shell) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let known = decode_escapes(text, &mut out, |letter, chars, out| {
        let byte = match letter {
            '\\' => Some('\\'),
            'c' => return Escape::Stop,
            '0' => ascii(escape_digits(chars, 8, 3)),
            'x' if shell == Shell::Dash => {
                out.push('\\');
                Some('x')
            }
            'x' => match escape_digits(chars, 16, 2) {
                (_, 0) => None,
                code => ascii(code),
            },
            'e' | 'E' | 'u' | 'U' | '1'..='9' => None,
            'C' | 'M' if shell == Shell::Zsh => None,
            other => {
                out.push('\\');
                Some(other)
            }
        };
        match byte {
            Some(byte) => {
                out.push(byte);
                Escape::Next
            }
            None => Escape::Unknown,
        }
    });
    known.then_some(out)
}

/// The character of a decoded byte, when it is ASCII and not NUL (which a script's text cannot
/// be said to hold in every shell).
fn ascii((value, _): (u32, usize)) -> Option<char> {
    let byte = u8::try_from(value & 0xff).ok()?;
    (byte != 0 && byte.is_ascii()).then_some(char::from(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(args: &[&str]) -> (String, bool, Option<String>) {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        echo_output(&args, false)
    }

    fn known(text: &str) -> (String, bool, Option<String>) {
        (text.to_owned(), false, None)
    }

    fn two(first: &str, second: &str) -> (String, bool, Option<String>) {
        (first.to_owned(), true, Some(second.to_owned()))
    }

    #[test]
    fn plain_words_are_known() {
        assert_eq!(echo(&["rm", "-rf", "~"]), known("rm -rf ~\n"));
        assert_eq!(echo(&["-n", "ls"]), known("ls"));
    }

    #[test]
    fn newline_escapes_have_two_readings() {
        assert_eq!(echo(&["a\\nb"]), two("a\\nb\n", "a\nb\n"));
        assert_eq!(echo(&["-e", "a\\nb"]), two("a\nb\n", "-e a\nb\n"));
    }

    #[test]
    fn hex_escapes_are_bytes_in_bash_and_zsh() {
        // bash's -e and zsh's decode `\x`; dash prints `-e` and the escapes as they are.
        assert_eq!(
            echo(&["-e", "\\x72\\x6d -rf ~"]),
            two("rm -rf ~\n", "-e \\x72\\x6d -rf ~\n")
        );
        // Without -e, bash's and dash's print it as it is, zsh's decodes it.
        assert_eq!(echo(&["ls\\x0arm"]), two("ls\\x0arm\n", "ls\nrm\n"));
        // One hex digit is a byte too.
        assert_eq!(echo(&["-e", "a\\x9z"]), two("a\tz\n", "-e a\\x9z\n"));
    }

    #[test]
    fn octal_escapes_take_a_leading_zero() {
        assert_eq!(echo(&["-e", "\\0162m"]), two("rm\n", "-e rm\n"));
        assert_eq!(echo(&["\\0162m"]), two("\\0162m\n", "rm\n"));
        // Three digits at most: `\01011` is `A` and `1`.
        assert_eq!(echo(&["-e", "\\01011"]), two("A1\n", "-e A1\n"));
    }

    #[test]
    fn backslash_c_stops_the_output() {
        assert_eq!(echo(&["-e", "ls\\c; rm -rf ~"]), two("ls", "-e ls"));
        assert_eq!(echo(&["ls\\c; rm"]), two("ls\\c; rm\n", "ls"));
        assert_eq!(echo(&["-n", "-e", "x\\cy"]), two("x", "-e x"));
    }

    #[test]
    fn unknown_escapes_are_kept() {
        assert_eq!(
            echo(&["-e", "a\\qb\\$"]),
            two("a\\qb\\$\n", "-e a\\qb\\$\n")
        );
        assert_eq!(echo(&["a\\qb"]), known("a\\qb\n"));
        assert_eq!(echo(&["-e", "a\\\\q"]), two("a\\q\n", "-e a\\q\n"));
    }

    #[test]
    fn three_texts_or_unmodelled_escapes_are_unknown() {
        let unknown = |text: &str| (text.to_owned(), true, None);
        // bash prints it as it is, dash decodes `\n` but not `\x`, zsh both.
        assert_eq!(echo(&["\\x41\\n"]), unknown("\\x41\\n\n"));
        for escape in ["\\e", "\\u263a", "\\101", "\\x", "\\0", "\\xff", "\\0377"] {
            assert_eq!(echo(&["-e", escape]), unknown(&format!("{escape}\n")));
        }
        assert_eq!(echo(&["\\C-a"]), unknown("\\C-a\n"));
        assert_eq!(echo(&["-x", "a\\nb"]), unknown("a\\nb\n"));
        let args = vec!["a\\nb".to_owned()];
        assert_eq!(echo_output(&args, true), unknown("a\\nb\n"));
    }
}
