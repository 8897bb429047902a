//! The AST walk: every simple command that may run becomes one [`SimpleCommand`].
//!
//! The walker visits lists, pipelines, compound commands, function bodies, coprocesses and `[[ ]]`,
//! collects each simple command's assignments, words and redirections, strips wrappers, and then
//! follows everything that runs more code: substitutions in any word, process substitutions,
//! `sh -c` / `eval` / here-doc payloads, `xargs` and `find -exec`. Nested scripts are re-parsed
//! through [`Walker::script`], which enforces the depth, size and command-count limits and keeps the
//! parser on a stack large enough for the input.
//!
//! This module must not judge commands; it only reports them, and reports what it cannot see.

use std::sync::Arc;

use brush_parser::ast;

use crate::argv::Parsed;

use super::exec::{self, Nested, PROCESS_SUBSTITUTION_READ, PROCESS_SUBSTITUTION_WRITE};
use super::interp;
use super::parse::{
    Budget, MAX_OPENERS, MAX_PAREN_DEPTH, STEP, StackBudget, nesting_budget, nesting_depth,
    parse_program, with_stack,
};
use super::views::{allow_view, deny_views, is_safe};
use super::words::{
    ARRAY_ELEMENTS, LITERAL_TILDE, NormWord, UNKNOWN_IFS, decode_ansi_c, heredoc_substitutions,
    join_fields, normalize, normalize_with, only_plain_parameters, plain_field, unmarked,
};
use super::wrappers::{Field, Payload, Reading, Segment, SegmentKind, Stripped, strip};
use super::{
    Analysis, Assignment, Origin, Redirect, RedirectKind, ShellLimits, SimpleCommand, Unresolved,
    basename,
};

mod defaults;
mod echo;
mod written;

use echo::echo_output;
use written::{Contents, UNKNOWN_CWD, WorkingDir, Written};

/// Deepest structural recursion of the walk itself (compound commands inside compound commands).
const MAX_NEST: usize = 1024;
/// Most distinct unresolved items kept.
const MAX_UNRESOLVED: usize = 64;
/// Longest text kept in an [`Unresolved`] item.
const MAX_UNRESOLVED_TEXT: usize = 200;

/// Where the walker is: origin and nesting depth of the commands it emits, and its own recursion.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    origin: Origin,
    depth: usize,
    nest: usize,
}

/// Most [`Walker::run`] calls (a command, or another reading of a wrapper's options) one analysis
/// makes. A wrapper whose options read two ways is walked both ways, so nested ones multiply: a
/// fuzzed line of 9 KiB chaining `systemd-run --user` and `pnpm exec` took 33 s, walking on
/// long after it had emitted [`ShellLimits::max_commands`] commands (the walk now stops there
/// too). Past this the analysis stops and asks (too many commands).
const MAX_RUNS: usize = 4096;

/// The fuel a byte of a script costs to parse: brush-parser takes from about a tenth of a
/// microsecond a byte on ordinary scripts to a third of one on text it fails on late (an
/// unterminated quote), and a payload in a function or a loop is parsed at every walk.
const PARSE: u64 = 16;

/// Walks parsed scripts and accumulates the analysis.
pub(super) struct Walker<'l> {
    limits: &'l ShellLimits,
    /// The analysis so far.
    pub out: Analysis,
    /// The walk has stopped: it emitted [`ShellLimits::max_commands`] commands, made
    /// [`MAX_RUNS`] runs, or burnt all its fuel ([`ShellLimits::max_fuel`]).
    full: bool,
    /// [`Walker::run`] calls so far.
    runs: usize,
    /// Redirections of the enclosing compound commands (`{ …; } > f`), applied to every command inside.
    inherited: Vec<Redirect>,
    /// The directories wrappers run the command in whose payload is being walked
    /// (`env -C / sh -c '…'`), applied to every command inside (see [`SimpleCommand::dirs`]).
    inherited_dirs: Vec<String>,
    /// How much of the current stack the parses in progress may use.
    stack: StackBudget,
    /// What the previous element of the pipeline being walked writes to its stdout, when that is
    /// known text (`echo '…' | sh`, `cat <<EOF | sh`): a shell reading stdin runs it.
    piped: Option<Piped>,
    /// The known output of the last simple command walked, for the pipeline to hand on.
    last_output: Option<Piped>,
    /// What the `>(…)` being entered reads: the command it belongs to and its known output.
    feed: Option<Feed>,
    /// For each command of [`Analysis::commands`], whether its arguments are all known: static,
    /// or given by values the command line assigned (see [`Field::is_known`]).
    known_args: Vec<bool>,
    /// What the analysis may still spend: the word parser's work, expansions, and the fuel every
    /// part of the analysis burns (see [`Budget::burn`]).
    budget: Budget,
    /// Names the command line binds for the commands after it (`hash -p`, `alias`).
    bindings: Vec<(String, Binding)>,
    /// Variables the command line gave a static value (`f=.env; cat "$f"`, a `for` loop's
    /// variable), newest last: later words are read with those values.
    variables: Vec<(String, String)>,
    /// How many more loop-body walks with a known value the analysis may spend (see
    /// [`MAX_LOOP_WALKS`]).
    loop_walks: usize,
    /// What the compound command about to be walked reads on its stdin, when the command line
    /// says it (a pipe from `find`, `< <(find …)`, a here-string): a `while read VAR` loop
    /// takes its lines (see [`Walker::read_loop_values`]).
    loop_input: Option<Piped>,
    /// How many enclosing constructs may not run what the walk is in (an `if`'s branches, a
    /// loop's body, what follows `&&` or `||`): an assignment there may not happen, so it makes
    /// its variable unknown rather than known.
    conditional: usize,
    /// Files the command line wrote through a redirection, `tee`, `cp` or `mv`, with their text
    /// when the command line says it (`echo 'make' > build.sh`), `None` when it does not (`>>`,
    /// a program's output): a later `bash build.sh`, `. build.sh`, `./build.sh`, `python3 x.py`
    /// or `make` runs that text (see the `written` module).
    written: Vec<Written>,
    /// Where the commands being walked run, and where `cd -` and `popd` go (see [`WorkingDir`]).
    dir: WorkingDir,
    /// How many directories only known at run time the walk has stood in.
    unknown_dirs: usize,
    /// The user's home the event names, for `~` in the paths of written files.
    home: Option<String>,
    /// Whether [`Walker::written`] forgot a file past [`MAX_WRITTEN_FILES`]: a script run from
    /// a file it does not hold may then be one the command line wrote.
    written_forgotten: bool,
    /// Every name the command line assigned, whatever its value (up to [`MAX_VARIABLES`]; past
    /// that, [`Walker::assigned_many`]): an exported one is in the environment of what runs
    /// after (see [`Walker::environment_may_set`]).
    assigned_names: Vec<String>,
    /// Whether the command line assigned more names than [`Walker::assigned_names`] holds.
    assigned_many: bool,
    /// Whether the command line declared a name reference (`declare -n r=c`): an assignment
    /// through it sets another variable, so every assignment after it makes all variables
    /// unknown (see [`Walker::bind_variable`]).
    name_references: bool,
    /// Functions the scripts being walked defined: a call walks the body with the call's
    /// arguments; a function never called is walked once when its script ends.
    functions: Vec<Function>,
    /// Which parsed script the walk is in (see [`Function::script_id`]).
    script_id: usize,
    /// How many scripts the walk has parsed.
    scripts: usize,
    /// The functions whose bodies are being walked for a call, innermost last: a function that
    /// calls itself is not walked again.
    calling: Vec<String>,
    /// The text of the scripts walked so far, up to [`defaults::MAX_WALKED_TEXT`]: a variable it
    /// never names but to read it is the environment's (see [`Walker::default_reading`]).
    walked: String,
    /// Whether [`Walker::walked`] left out a script past its limit.
    walked_overflow: bool,
}

/// What `~` and `$HOME` read as once HOME was given a value only known at run time, or one
/// that may not have been given (`HOME=$X`, `true && HOME=/etc`): an expansion, so the word is
/// dynamic, which the path code does not take for the event's home (as it does `$HOME`).
const UNKNOWN_HOME: &str = "${HOME:?}";

/// What `$PWD` reads as once PWD was given a value only known at run time, as
/// [`UNKNOWN_HOME`] is for HOME: the path code takes a plain `$PWD` for the working directory.
const UNKNOWN_PWD: &str = "${PWD:?}";

/// A function the command line defined (`f() { rm -rf "$@"; }`).
struct Function {
    /// Its name.
    name: String,
    /// Its body, shared with the calls being walked.
    body: Arc<ast::FunctionBody>,
    /// The script it is defined in: when that script's walk ends, the function is forgotten.
    script_id: usize,
    /// Where it is defined, for the walk of a function never called.
    ctx: Ctx,
    /// Whether a call walked it.
    called: bool,
}

/// Most functions one analysis remembers.
const MAX_FUNCTIONS: usize = 16;
/// Deepest chain of function calls walked (`f` calling `g` calling `h`).
const MAX_CALL_DEPTH: usize = 4;
/// Positional parameters a call binds (`$1` … `$9`).
const MAX_POSITIONAL: usize = 9;
/// Most elements of an array assignment whose values are kept (`a=(x y)`).
const MAX_ARRAY_ELEMENTS: usize = 16;

/// Most files one analysis remembers as written (see [`Walker::written`]).
const MAX_WRITTEN_FILES: usize = 16;
/// Longest text remembered for one written file; a longer one is remembered as unknown.
const MAX_WRITTEN_TEXT: usize = 16 * 1024;

/// Longest value a variable is followed with (`a=$a$a` doubles it each time); a longer one is
/// unknown, and more than the analysis follows.
const MAX_VALUE_LEN: usize = 4 * 1024;

/// Most variables one analysis follows.
const MAX_VARIABLES: usize = 32;
/// Most values of a loop whose body is walked once per value; a loop with more is reported as
/// more than the analysis follows.
const MAX_LOOP_VALUES: usize = 32;
/// Most loop-body walks with a known value in one analysis, loops inside loops included.
const MAX_LOOP_WALKS: usize = 256;

/// Most names one analysis follows through `hash -p` and `alias`.
const MAX_BINDINGS: usize = 16;

/// What a name was bound to earlier in the same command line.
#[derive(Clone)]
enum Binding {
    /// `hash -p PATH NAME`: `NAME` runs the program at `PATH`.
    Path(Field),
    /// `alias NAME=VALUE`: `NAME ARGS` runs the shell text `VALUE ARGS`.
    Alias(Field),
}

/// What of the command it belongs to a process substitution reads as its stdin.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fed {
    /// Nothing: a `<(…)` is read from.
    Nothing,
    /// Its output: a `>(…)` it is given as a file (`tee >(sh)`, `curl -o >(sh)`) or its stdout
    /// is redirected to (`curl … > >(sh)` is `curl … | sh`).
    Output,
    /// What it writes to another descriptor (`2> >(sh)`, `exec 3> >(sh)`): not known.
    Other,
}

/// What a `>(…)` a command writes to reads as its stdin (`curl … > >(sh)`, `… | tee >(sh)`):
/// the command's name and known output, for the substitution's first pipeline at `depth`.
struct Feed {
    depth: usize,
    producer: Option<String>,
    output: Option<Piped>,
}

/// Known text flowing through a pipe, and the depth of the pipeline it flows in.
#[derive(Clone)]
struct Piped {
    depth: usize,
    text: String,
    dynamic: bool,
    /// Whether a dynamic text is all given by values the command line assigned (`f=~/.ssh/id_rsa;
    /// echo $f`): what xargs hands on as arguments, which stay dynamic fields.
    valued: bool,
    /// An `echo` of known words with escapes (`echo 'a\nb'`): the text another shell's echo
    /// prints, where bash's prints `text`, which is dynamic (see [`echo_output`]).
    decoded: Option<String>,
}

impl Piped {
    /// What a file the text is written to holds, when it is known: in each shell, where its
    /// echo decides it (see [`Contents`]).
    fn contents(&self) -> Option<Contents> {
        match (&self.decoded, self.dynamic) {
            (Some(decoded), _) => Some(Contents::echoed(self.text.clone(), decoded.clone())),
            (None, false) => Some(Contents::from(self.text.clone())),
            (None, true) => None,
        }
    }
}

/// What a simple command's own words and redirections gave, before wrapper stripping.
#[derive(Default)]
struct Collected<'a> {
    assignments: Vec<Assignment>,
    segments: Vec<Segment>,
    fields: Vec<Field>,
    redirects: Vec<Redirect>,
    subs: Vec<String>,
    /// Its process substitutions, each with what of the command it reads (see [`Fed`]).
    process_subs: Vec<(&'a ast::SubshellCommand, Fed)>,
    /// What each `<(…)` argument lists (see [`listed_text`]), in order.
    listed_arguments: Vec<Option<String>>,
    stdin: Stdin<'a>,
    other_heredocs: Vec<&'a ast::IoHereDocument>,
    word_failed: bool,
    /// The variables the command's assignments set, with their value when it is static.
    variables: Vec<(String, Option<String>)>,
    /// The files its standard output is redirected to (`> f`, `>> f`, `&> f`), when their
    /// names are static, each with whether it is appended to.
    stdout_files: Vec<(String, bool)>,
    /// The fields, by index, of arguments written as an assignment whose value begins with a
    /// quote (`export x="~/.ssh/id_rsa"`; see [`quoted_first`]).
    quoted_values: Vec<usize>,
}

/// What the command's standard input is, as far as the command line says.
#[derive(Default)]
struct Stdin<'a> {
    heredoc: Option<&'a ast::IoHereDocument>,
    herestring: Option<NormWord>,
    process_substitution: bool,
    /// The file names the process substitution on stdin lists, one per line, when it is one
    /// listing command (`xargs cat < <(find . -name .env)`; see [`super::listed_names`]).
    listed: Option<String>,
    /// The file redirected to stdin (`bash < x.sh`), when its name is known.
    file: Option<String>,
}

/// What surrounds a command besides its argv: prefix assignments, redirects, the pipe feeding it.
#[derive(Default, Clone)]
struct Base {
    assignments: Vec<Assignment>,
    segments: Vec<Segment>,
    wrappers: Vec<String>,
    redirects: Vec<Redirect>,
    stdin_pipe_from: Option<String>,
    stdin_text: Option<String>,
    /// Whether `stdin_text` holds an expansion or escape, so that it is not the text itself.
    stdin_dynamic: bool,
    /// Whether a dynamic `stdin_text` is all given by known values (see [`Piped::valued`]).
    stdin_valued: bool,
    /// What each of the command's `<(…)` arguments lists, in order (`xargs -a <(…)`).
    listed_arguments: Vec<Option<String>>,
}

impl<'l> Walker<'l> {
    /// A walker with nothing found yet.
    pub(super) fn new(limits: &'l ShellLimits) -> Self {
        Self {
            limits,
            out: Analysis::default(),
            full: false,
            runs: 0,
            inherited: Vec::new(),
            inherited_dirs: Vec::new(),
            stack: StackBudget::default(),
            piped: None,
            last_output: None,
            feed: None,
            known_args: Vec::new(),
            budget: Budget::new(limits.max_fuel),
            bindings: Vec::new(),
            variables: Vec::new(),
            loop_walks: MAX_LOOP_WALKS,
            loop_input: None,
            conditional: 0,
            written: Vec::new(),
            dir: WorkingDir::new(UNKNOWN_CWD.to_owned()),
            unknown_dirs: 0,
            home: None,
            written_forgotten: false,
            assigned_names: Vec::new(),
            assigned_many: false,
            name_references: false,
            functions: Vec::new(),
            script_id: 0,
            scripts: 0,
            calling: Vec::new(),
            walked: String::new(),
            walked_overflow: false,
        }
    }

    /// The analysis the walk found; unresolved when the walk ran out of fuel, wherever it did
    /// (in a word, in interpreter code, in the walk itself).
    pub(super) fn into_analysis(mut self) -> Analysis {
        if self.budget.out_of_fuel() {
            self.unresolved(Unresolved::TooMuchWork);
        }
        self.out
    }

    /// What the analysis may still spend, for the analyses that run before the walk.
    pub(super) fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Burns `units` of fuel (see [`Budget::burn`]); once it is out, the walk stops.
    fn burn(&mut self, units: u64) -> bool {
        if self.budget.burn(units) {
            return true;
        }
        self.full = true;
        false
    }

    /// A copy of the variables with static values, to put back after code that runs in a shell
    /// of its own; copying their values burns fuel (they may be long, and copied at every
    /// call of a function).
    fn saved_variables(&self) -> Vec<(String, String)> {
        let bytes: usize = self.variables.iter().map(|(_, value)| value.len()).sum();
        self.budget.burn(bytes as u64);
        self.variables.clone()
    }

    /// Gives `name` a static value for the words after it, or forgets it (`None`). Where the
    /// assignment may not run, or the value is longer than [`MAX_VALUE_LEN`] (reported as more
    /// than the analysis follows), the variable is forgotten either way. HOME is not forgotten but
    /// made unknown ([`UNKNOWN_HOME`]): `~` and `$HOME` then no longer name the event's home; so is
    /// PWD ([`UNKNOWN_PWD`]).
    fn bind_variable(&mut self, name: &str, value: Option<String>) {
        if value
            .as_ref()
            .is_some_and(|value| value.len() > MAX_VALUE_LEN)
        {
            self.unresolved(Unresolved::TooDeep);
        }
        let value = value.filter(|value| {
            self.conditional == 0 && value.len() <= MAX_VALUE_LEN && !self.name_references
        });
        let value = match value {
            None if name == "HOME" => Some(UNKNOWN_HOME.to_owned()),
            None if name == "PWD" => Some(UNKNOWN_PWD.to_owned()),
            None if name == "IFS" => Some(UNKNOWN_IFS.to_owned()),
            value => value,
        };
        if self.name_references {
            // It may be a reference to any of them, HOME too.
            self.variables.clear();
            self.variables
                .push(("HOME".to_owned(), UNKNOWN_HOME.to_owned()));
            self.variables
                .push(("PWD".to_owned(), UNKNOWN_PWD.to_owned()));
            self.variables
                .push(("IFS".to_owned(), UNKNOWN_IFS.to_owned()));
        }
        self.forget_variable(name);
        self.note_assigned(name);
        if let Some(value) = value {
            if self.variables.len() >= MAX_VARIABLES {
                self.variables.remove(0);
            }
            self.variables.push((name.to_owned(), value));
        }
    }

    /// Notes that the command line assigned `name` (see [`Walker::assigned_names`]).
    fn note_assigned(&mut self, name: &str) {
        if self.assigned_names.iter().any(|known| known == name) {
            return;
        }
        if self.assigned_names.len() >= MAX_VARIABLES {
            self.assigned_many = true;
        } else {
            self.assigned_names.push(name.to_owned());
        }
    }

    /// The value the command line gave `name`, when it is known.
    fn variable(&self, name: &str) -> Option<String> {
        self.variables
            .iter()
            .rev()
            .find(|(known, _)| known == name)
            .map(|(_, value)| unmarked(value).to_owned())
    }

    /// Forgets what the command line gave `name` (`unset NAME`): an unset HOME is the user's
    /// home again, as `~` reads it from the password database. An array's name, element or
    /// elements (`a`, `a[1]`, `a[@]`) forget all that is known of the array.
    fn forget_variable(&mut self, name: &str) {
        let base = name.split('[').next().unwrap_or(name);
        self.variables.retain(|(known, _)| {
            let known_base = known.split('[').next().unwrap_or(known);
            known_base != base
        });
    }

    /// Walks `body` as code that may not run (see [`Walker::conditional`]). A `cd` there leaves
    /// the directory only known at run time after it.
    fn maybe(&mut self, body: impl FnOnce(&mut Self)) {
        let before = self.dir.clone();
        self.conditional += 1;
        body(self);
        self.conditional -= 1;
        self.unsure_of_dir_since(&before);
    }

    /// Makes what changed of where the walk is since `before` (the working directory, `cd -`'s,
    /// the directory stack) only known at run time: code that may not have run changed it.
    fn unsure_of_dir_since(&mut self, before: &WorkingDir) {
        if self.dir.cwd != before.cwd {
            self.dir.cwd = self.unknown_dir();
        }
        self.dir.unsure_since(before);
    }

    /// Walks `body` in a shell of its own (a subshell, a function's body, a nested script): the
    /// variables it assigns and the directory it moves to are gone after it.
    fn own_shell(&mut self, body: impl FnOnce(&mut Self)) {
        let outer = self.saved_variables();
        let dir = self.dir.clone();
        body(self);
        self.variables = outer;
        self.dir = dir;
    }

    /// What `export`, `declare`, `local`, `readonly` and `typeset` assign (`export F=.env`),
    /// what `unset` forgets, and the variables builtins set from their input or arguments
    /// (`read c`, `printf -v c rm`): known where the command line says what the builtin reads
    /// (`input`, its stdin when known; `prefix_ifs` the value the command's own `IFS=…` gives,
    /// when it has one, `None` inside where it is only known at run time) or prints, unknown
    /// otherwise. `quoted` are the fields whose assignment's value begins with a quote: a `~`
    /// they begin with is kept as text, as in a plain assignment (see [`LITERAL_TILDE`]).
    fn declare(
        &mut self,
        fields: &[Field],
        input: Option<&str>,
        prefix_ifs: Option<Option<&str>>,
        quoted: &[usize],
    ) {
        let Some((program, args)) = fields.split_first() else {
            return;
        };
        let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
        if let Some(names) = set_by_builtin(&program.text, &texts) {
            for name in names {
                self.bind_variable(&name, None);
            }
            let known = args
                .iter()
                .all(|arg| arg.is_known() || only_plain_parameters(&arg.text));
            let variable_ifs = self.variable("IFS");
            let ifs = Ifs::of(prefix_ifs.or(variable_ifs.as_deref().map(Some)));
            let values = match program.text.as_str() {
                "read" | "mapfile" | "readarray" => input
                    .filter(|_| known)
                    .map(|input| read_by_builtin(&program.text, &texts, input, &ifs))
                    .unwrap_or_default(),
                _ => printed_to_variable(&program.text, &texts, !known)
                    .into_iter()
                    .collect(),
            };
            for (name, value) in values {
                self.bind_variable(&name, Some(value));
            }
            return;
        }
        match program.text.as_str() {
            "export" | "declare" | "local" | "readonly" | "typeset" => {
                if is_name_reference(&program.text, args) {
                    self.name_references = true;
                }
                for (at, arg) in args.iter().enumerate() {
                    let Some((name, value)) = arg.text.split_once('=') else {
                        continue;
                    };
                    if is_variable_name(name) {
                        let bindable = !arg.dynamic || only_plain_parameters(value);
                        let literal_tilde = value.starts_with('~') && quoted.contains(&(at + 1));
                        let value = bindable.then(|| match literal_tilde {
                            true => format!("{LITERAL_TILDE}{value}"),
                            false => value.to_owned(),
                        });
                        self.bind_variable(name, value);
                    }
                }
            }
            "unset" => {
                for arg in args.iter().filter(|arg| !arg.text.starts_with('-')) {
                    self.forget_variable(&arg.text);
                }
            }
            "set" | "shift" => self.reposition(&program.text, args),
            _ => {}
        }
    }

    /// The values a `for` loop gives its variable, when the command line says them all
    /// (static words after brace expansion, or the names a listing command prints:
    /// `$(find . -name .env)` gives `./**/.env`).
    fn loop_values(&self, clause: &ast::ForClauseCommand) -> Option<Vec<String>> {
        let mut values = Vec::new();
        for word in clause.values.as_ref()? {
            // `for f in $(find . -name .env)`: the names the listing prints.
            let listed = super::substitution_body(&word.value)
                .filter(|body| self.budget.burn_text(body))
                .map(super::listed_names)
                .unwrap_or_default();
            if !listed.is_empty() {
                values.extend(listed);
                continue;
            }
            let mut subs = Vec::new();
            let word = normalize_with(&word.value, &mut subs, &self.budget, &self.variables);
            if !word.resolved || !subs.is_empty() {
                return None;
            }
            values.extend(word.fields);
        }
        (!values.is_empty()).then_some(values)
    }

    /// Walks a loop's body once per value of its variable, or once with the variable unknown
    /// when no value is known. A loop with more values than [`MAX_LOOP_VALUES`], or than the
    /// analysis has body walks left for ([`MAX_LOOP_WALKS`]), is reported as more than the
    /// analysis follows: a value it does not walk may be the one that matters. Numbers are
    /// alike (`for i in {1..100}`): the first of them stand for the rest.
    fn loop_body(
        &mut self,
        variable: &str,
        mut values: Vec<String>,
        body: &ast::CompoundList,
        ctx: Ctx,
    ) {
        if values.len() > MAX_LOOP_VALUES && values.iter().all(|value| is_number(value)) {
            values.truncate(MAX_LOOP_VALUES);
        }
        let affordable = values.len() <= MAX_LOOP_VALUES.min(self.loop_walks);
        if !affordable {
            self.unresolved(Unresolved::TooManyCommands);
        }
        if values.is_empty() || !affordable {
            self.bind_variable(variable, None);
            self.maybe(|w| w.compound_list(body, ctx));
        } else {
            self.loop_walks -= values.len();
            let before = self.dir.clone();
            // The body runs with the value, wherever the loop is (inside an `if`, another loop).
            let conditional = std::mem::take(&mut self.conditional);
            for value in values {
                self.bind_variable(variable, Some(value));
                self.conditional = conditional + 1;
                self.compound_list(body, ctx);
                self.conditional = 0;
            }
            self.conditional = conditional;
            self.unsure_of_dir_since(&before);
        }
        self.bind_variable(variable, None);
    }

    /// The variable a `while read VAR` loop's condition (walked from command `start` on) sets,
    /// and the lines it takes from `input`, the loop's stdin, when that is known text of at most
    /// [`MAX_LOOP_VALUES`] lines: the names `find` prints (`./**/.env`), a here-string. `read`
    /// without a name sets `REPLY`; several names, `-a` (an array) and `-u` (another file
    /// descriptor) are not followed.
    fn read_loop_values(
        &self,
        start: usize,
        input: Option<Piped>,
        ctx: Ctx,
    ) -> Option<(String, Vec<String>)> {
        let text = input.filter(|input| !input.dynamic)?.text;
        let emitted = self.out.commands.get(start..)?;
        let mut here = emitted.iter().filter(|c| c.depth == ctx.depth);
        let (Some(read), None) = (here.next(), here.next()) else {
            return None;
        };
        if read.name() != "read" || read.has_dynamic_args {
            return None;
        }
        let parsed = Parsed::new(read.args(), READ_VALUE_FLAGS, &[]);
        let variable = match read_names(&parsed)?.as_slice() {
            [name] => *name,
            _ => return None,
        };
        let lines: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect();
        (!lines.is_empty()).then(|| (variable.to_owned(), lines))
    }

    /// Records something unresolved, once.
    pub(super) fn unresolved(&mut self, item: Unresolved) {
        let item = match item {
            Unresolved::DynamicCommand(text) => Unresolved::DynamicCommand(clip(text)),
            Unresolved::DynamicScript(text) => Unresolved::DynamicScript(clip(text)),
            other => other,
        };
        if self.out.unresolved.len() < MAX_UNRESOLVED && !self.out.unresolved.contains(&item) {
            self.out.unresolved.push(item);
        }
    }

    /// Parses `text` and walks it; its commands get `origin` and `depth`.
    pub(super) fn script(&mut self, text: &str, origin: Origin, depth: usize) {
        // `eval` runs in this shell: what it assigns stays (`eval c=rm; $c -rf ~`).
        self.script_in(text, origin, depth, origin == Origin::Eval);
    }

    /// A script `.` or `source` runs: in this shell, so what it assigns stays.
    pub(super) fn script_in_this_shell(&mut self, text: &str, depth: usize) {
        self.script_in(text, Origin::ShellString, depth, true);
    }

    /// Walks `text`; the variables it assigns stay after it when it runs in this shell
    /// (`in_this_shell`), and are the ones before it again otherwise.
    fn script_in(&mut self, text: &str, origin: Origin, depth: usize, in_this_shell: bool) {
        if self.full {
            return;
        }
        if depth > self.limits.max_depth {
            self.unresolved(Unresolved::TooDeep);
            return;
        }
        let budget = nesting_budget(text);
        if !self.burn(parse_cost(text.len(), budget)) {
            return;
        }
        if budget > MAX_OPENERS
            || nesting_depth(text, b'(', b')') > MAX_PAREN_DEPTH
            || !self.budget.spend_assignments(text)
        {
            self.unresolved(Unresolved::TooDeep);
            return;
        }
        self.note_walked(text);
        let outer = self.stack;
        let variables = self.saved_variables();
        let dir = self.dir.clone();
        let script_id = self.script_id;
        self.scripts += 1;
        self.script_id = self.scripts;
        let done = with_stack(budget, outer, |inner| {
            self.stack = inner;
            self.parse_and_walk(text, origin, depth);
        });
        self.stack = outer;
        if !in_this_shell {
            self.variables = variables;
        }
        self.dir = dir;
        self.script_id = script_id;
        if done.is_none() {
            self.unresolved(Unresolved::Parse(
                "the parser failed on this input".to_owned(),
            ));
        }
    }

    fn parse_and_walk(&mut self, text: &str, origin: Origin, depth: usize) {
        match parse_program(text) {
            Ok(program) => {
                let ctx = Ctx {
                    origin,
                    depth,
                    nest: 0,
                };
                for list in &program.complete_commands {
                    self.compound_list(list, ctx);
                }
                self.forget_functions();
            }
            Err(message) => self.unresolved(Unresolved::Parse(message)),
        }
    }

    /// One level deeper in the walk's own recursion, or `None` (and `TooDeep`) past [`MAX_NEST`].
    fn enter(&mut self, ctx: Ctx) -> Option<Ctx> {
        if self.full || !self.burn(STEP) {
            return None;
        }
        if ctx.nest >= MAX_NEST {
            self.unresolved(Unresolved::TooDeep);
            return None;
        }
        Some(Ctx {
            nest: ctx.nest + 1,
            ..ctx
        })
    }

    /// The context for code nested one shell level deeper (substitutions, payloads), if allowed.
    fn deeper(&mut self, ctx: Ctx, origin: Origin) -> Option<Ctx> {
        if ctx.depth + 1 > self.limits.max_depth {
            self.unresolved(Unresolved::TooDeep);
            return None;
        }
        Some(Ctx {
            origin,
            depth: ctx.depth + 1,
            nest: ctx.nest,
        })
    }

    fn compound_list(&mut self, list: &ast::CompoundList, ctx: Ctx) {
        let Some(ctx) = self.enter(ctx) else { return };
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first, ctx);
            self.maybe(|w| {
                for next in &and_or.additional {
                    let (ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline)) = next;
                    w.pipeline(pipeline, ctx);
                }
            });
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, ctx: Ctx) {
        // A `>(…)`'s first pipeline reads what the command it belongs to writes.
        let feed = self.feed.take().filter(|feed| feed.depth == ctx.depth);
        let (mut producer, mut output) = feed
            .map(|feed| (feed.producer, feed.output))
            .unwrap_or_default();
        for (index, command) in pipeline.seq.iter().enumerate() {
            let start = self.out.commands.len();
            let timed = index == 0 && pipeline.timed.is_some();
            self.piped = output.take();
            self.last_output = None;
            self.command(command, ctx, producer.clone(), timed);
            self.piped = None;
            output = self
                .last_output
                .take()
                .filter(|piped| piped.depth == ctx.depth);
            let emitted = self.out.commands.get_mut(start..).unwrap_or_default();
            if let Some(first) = emitted.iter_mut().find(|c| c.depth == ctx.depth)
                && first.stdin_pipe_from.is_none()
            {
                first.stdin_pipe_from.clone_from(&producer);
            }
            producer = emitted
                .iter()
                .rev()
                .find(|c| c.depth == ctx.depth)
                .map(|c| c.name().to_owned())
                .or_else(|| written_name(command));
        }
    }

    fn command(&mut self, command: &ast::Command, ctx: Ctx, pipe: Option<String>, timed: bool) {
        let Some(ctx) = self.enter(ctx) else { return };
        match command {
            ast::Command::Simple(simple) => self.simple(simple, ctx, pipe, timed),
            ast::Command::Compound(compound, redirects) => {
                self.with_redirects(redirects.as_ref(), ctx, |w| w.compound(compound, ctx));
            }
            ast::Command::Function(function) => {
                self.define(&function.fname.value, &function.body, ctx);
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.with_redirects(redirects.as_ref(), ctx, |w| w.test(&test.expr, ctx));
            }
        }
    }

    /// Walks `body` with a compound command's redirections applied to every command inside.
    fn with_redirects(
        &mut self,
        redirects: Option<&ast::RedirectList>,
        ctx: Ctx,
        body: impl FnOnce(&mut Self),
    ) {
        let Some(redirects) = redirects else {
            self.loop_input = self.stdin_text(&Stdin::default(), ctx);
            body(self);
            self.loop_input = None;
            return;
        };
        let mut collected = Collected::default();
        for redirect in &redirects.0 {
            self.redirect(redirect, &mut collected);
        }
        let mark = self.inherited.len();
        self.inherited.extend(collected.redirects.iter().cloned());
        self.loop_input = self.stdin_text(&collected.stdin, ctx);
        body(self);
        self.loop_input = None;
        self.inherited.truncate(mark);
        // What a compound command prints is not followed (`{ echo a; echo b; } > f`).
        for (file, _) in std::mem::take(&mut collected.stdout_files) {
            self.remember_written(&file, None);
        }
        if let Some(heredoc) = collected.stdin.heredoc {
            collected.other_heredocs.push(heredoc);
        }
        self.finish(collected, ctx, None);
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, ctx: Ctx) {
        let input = self.loop_input.take();
        let Some(ctx) = self.enter(ctx) else { return };
        match compound {
            ast::CompoundCommand::Arithmetic(arith) => {
                let expr = &arith.expr.value;
                let arithmetic = arithmetic_affordable(expr)
                    && self.burn(parse_cost(expr.len(), nesting_budget(expr)))
                    && brush_parser::arithmetic::parse(expr).is_ok();
                if !arithmetic && looks_like_commands(expr) {
                    // brush reads `( (cd x && rm y) )` as `((…))`; bash, finding no valid
                    // arithmetic there, runs it as nested subshells. So do we.
                    self.script(expr, ctx.origin, ctx.depth);
                } else {
                    self.text_subs(expr, ctx);
                }
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.text_subs(&expr.value, ctx);
                }
                self.maybe(|w| w.compound_list(&clause.body.list, ctx));
            }
            ast::CompoundCommand::BraceGroup(group) => self.compound_list(&group.list, ctx),
            ast::CompoundCommand::Subshell(subshell) => {
                self.own_shell(|w| w.compound_list(&subshell.list, ctx));
            }
            ast::CompoundCommand::ForClause(clause) => {
                for word in clause.values.iter().flatten() {
                    self.word_subs(&word.value, ctx);
                }
                // `for f in .env .env.local; do cat "$f"; done`: the body once per value.
                let values = self.loop_values(clause).unwrap_or_default();
                self.loop_body(&clause.variable_name, values, &clause.body.list, ctx);
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.word_subs(&clause.value.value, ctx);
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.word_subs(&pattern.value, ctx);
                    }
                    if let Some(list) = &item.cmd {
                        self.maybe(|w| w.compound_list(list, ctx));
                    }
                }
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.compound_list(&clause.condition, ctx);
                self.maybe(|w| {
                    w.compound_list(&clause.then, ctx);
                    for branch in clause.elses.iter().flatten() {
                        if let Some(condition) = &branch.condition {
                            w.compound_list(condition, ctx);
                        }
                        w.compound_list(&branch.body, ctx);
                    }
                });
            }
            ast::CompoundCommand::WhileClause(clause) => {
                let start = self.out.commands.len();
                self.compound_list(&clause.0, ctx);
                // `find . -name .env | while read f; do cat "$f"; done`: the body once per line.
                match self.read_loop_values(start, input, ctx) {
                    Some((variable, values)) => {
                        self.loop_body(&variable, values, &clause.1.list, ctx);
                    }
                    None => self.maybe(|w| w.compound_list(&clause.1.list, ctx)),
                }
            }
            ast::CompoundCommand::UntilClause(clause) => {
                self.compound_list(&clause.0, ctx);
                self.maybe(|w| w.compound_list(&clause.1.list, ctx));
            }
            ast::CompoundCommand::Coprocess(coproc) => {
                self.command(&coproc.body, ctx, None, false);
            }
        }
    }

    fn test(&mut self, expr: &ast::ExtendedTestExpr, ctx: Ctx) {
        let Some(ctx) = self.enter(ctx) else { return };
        match expr {
            ast::ExtendedTestExpr::And(left, right) | ast::ExtendedTestExpr::Or(left, right) => {
                self.test(left, ctx);
                self.test(right, ctx);
            }
            ast::ExtendedTestExpr::Not(inner) | ast::ExtendedTestExpr::Parenthesized(inner) => {
                self.test(inner, ctx);
            }
            ast::ExtendedTestExpr::UnaryTest(_, word) => self.word_subs(&word.value, ctx),
            ast::ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.word_subs(&left.value, ctx);
                self.word_subs(&right.value, ctx);
            }
        }
    }

    /// Analyses the substitutions in a word that is not part of a simple command.
    fn word_subs(&mut self, raw: &str, ctx: Ctx) {
        let mut subs = Vec::new();
        let word = normalize(raw, &mut subs, &self.budget);
        if word.failed {
            self.word_failed();
        }
        self.substitutions(subs, ctx);
    }

    /// Analyses the substitutions in arithmetic text.
    fn text_subs(&mut self, text: &str, ctx: Ctx) {
        let mut subs = Vec::new();
        if !heredoc_substitutions(text, &mut subs, &self.budget) {
            self.word_failed();
        }
        self.substitutions(subs, ctx);
    }

    /// Records a word that could not be parsed: as nesting past the limit when the word parser's
    /// budget refused it (or an earlier word), as a parse failure otherwise.
    fn word_failed(&mut self) {
        if self.budget.refused() {
            self.unresolved(Unresolved::TooDeep);
        } else {
            self.unresolved(Unresolved::Parse("a word could not be parsed".to_owned()));
        }
    }

    fn substitutions(&mut self, subs: Vec<String>, ctx: Ctx) {
        for body in subs {
            self.script(&body, Origin::CommandSubstitution, ctx.depth + 1);
        }
    }

    fn simple(
        &mut self,
        command: &ast::SimpleCommand,
        ctx: Ctx,
        pipe: Option<String>,
        timed: bool,
    ) {
        let start = self.out.commands.len();
        let mut collected = Collected::default();
        for item in command.prefix.iter().flat_map(|p| p.0.iter()) {
            self.item(item, true, &mut collected);
        }
        if let Some(word) = &command.word_or_name {
            push_word(&word.value, &mut collected, &self.budget, &self.variables);
        }
        for item in command.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, false, &mut collected);
        }
        let fields = std::mem::take(&mut collected.fields);
        let default_fields = self.default_reading(command, &fields);
        let assigned = std::mem::take(&mut collected.variables);
        let stdin = std::mem::take(&mut collected.stdin);
        let fed = self.stdin_text(&stdin, ctx);
        if fields.is_empty() {
            // `f=.env; cat "$f"`; an assignment in front of a command is that command's alone.
            for (name, value) in assigned {
                self.bind_variable(&name, value);
            }
        } else {
            // `read p <<< ~/.ssh/id_rsa`: what it reads is known when its input is.
            let input = fed
                .as_ref()
                .filter(|fed| !fed.dynamic || fed.valued || only_plain_parameters(&fed.text))
                .map(|fed| fed.text.as_str());
            let prefix_ifs = assigned.iter().rev().find(|(name, _)| name == "IFS");
            let prefix_ifs = prefix_ifs.map(|(_, value)| value.as_deref());
            let quoted = std::mem::take(&mut collected.quoted_values);
            self.declare(&fields, input, prefix_ifs, &quoted);
        }
        let mut base = Base {
            assignments: std::mem::take(&mut collected.assignments),
            segments: std::mem::take(&mut collected.segments),
            wrappers: Vec::new(),
            redirects: std::mem::take(&mut collected.redirects),
            stdin_pipe_from: pipe,
            stdin_text: None,
            stdin_dynamic: false,
            stdin_valued: false,
            listed_arguments: std::mem::take(&mut collected.listed_arguments),
        };
        if timed {
            base.wrappers.push("time".to_owned());
            base.segments.insert(
                0,
                Segment {
                    kind: SegmentKind::Wrapper { safe: true },
                    tokens: vec!["time".to_owned()],
                    dynamic: false,
                },
            );
        }
        if let Some(fed) = fed {
            base.stdin_text = Some(fed.text);
            base.stdin_dynamic = fed.dynamic;
            base.stdin_valued = fed.valued;
        }
        let consumed = if fields.is_empty() {
            if !base.redirects.is_empty() {
                let noop = vec![Field {
                    text: ":".to_owned(),
                    dynamic: false,
                    valued: false,
                }];
                self.run(noop, base, ctx, &Stdin::default());
            }
            false
        } else {
            let default_base = default_fields.as_ref().map(|_| base.clone());
            let consumed = self.run(fields, base, ctx, &stdin);
            if let Some((fields, base)) = default_fields.zip(default_base) {
                self.run_default_reading(fields, base, ctx, &stdin);
            }
            consumed
        };
        self.last_output = self.known_output(start, &stdin, ctx);
        self.remember_writes(start, &collected.stdout_files, ctx);
        if !consumed && let Some(heredoc) = stdin.heredoc {
            collected.other_heredocs.push(heredoc);
        }
        let producer = self
            .out
            .commands
            .get(start..)
            .and_then(|emitted| emitted.iter().find(|c| c.depth == ctx.depth))
            .map(|c| c.name().to_owned());
        self.finish(collected, ctx, Some((producer, self.last_output.clone())));
    }

    /// The text the command line feeds to a command's stdin (see [`SimpleCommand::stdin_text`]),
    /// and whether it holds a run-time expansion.
    fn stdin_text(&self, stdin: &Stdin<'_>, ctx: Ctx) -> Option<Piped> {
        let fed = |text: String, dynamic: bool, valued: bool| Piped {
            depth: ctx.depth,
            text,
            dynamic,
            valued: dynamic && valued,
            decoded: None,
        };
        if let Some(heredoc) = stdin.heredoc {
            let text = &heredoc.doc.value;
            let dynamic = heredoc.requires_expansion && text.contains(['$', '`', '\\']);
            return Some(fed(text.clone(), dynamic, false));
        }
        if let Some(herestring) = &stdin.herestring {
            let text = herestring.text.clone();
            return Some(fed(text, herestring.dynamic, herestring.resolved));
        }
        if stdin.process_substitution {
            return stdin.listed.clone().map(|names| fed(names, false, false));
        }
        // `python3 < x.py` after the line wrote x.py: its text.
        if let Some(file) = &stdin.file {
            let text = self.written_text(file)?;
            return Some(fed(text.to_owned(), false, false));
        }
        self.piped
            .as_ref()
            .filter(|piped| piped.depth == ctx.depth)
            .map(|piped| fed(piped.text.clone(), piped.dynamic, piped.valued))
    }

    /// The text a just-walked command writes to stdout, when the command line says what it is:
    /// `echo`/`printf` arguments, or the here-doc or here-string `cat` copies through.
    fn known_output(&self, start: usize, stdin: &Stdin<'_>, ctx: Ctx) -> Option<Piped> {
        let (at, emitted) = self
            .out
            .commands
            .iter()
            .enumerate()
            .skip(start)
            .find(|(_, c)| c.depth == ctx.depth)?;
        let mut valued = false;
        let mut decoded = None;
        let (text, dynamic) = match emitted.name() {
            "echo" => {
                let (text, dynamic, other) = echo_output(emitted.args(), emitted.has_dynamic_args);
                // What is printed of escapes depends on the shell: no value xargs hands on.
                valued = other.is_none()
                    && !text.contains('\\')
                    && self.known_args.get(at).copied().unwrap_or(false);
                decoded = other;
                (text, dynamic)
            }
            "printf" => printf_output(emitted.args(), emitted.has_dynamic_args),
            // The names `find` (or another listing) prints, as patterns (`./**/.env`), one per
            // line: `xargs` hands them on, and a shell reading them finds no plain command.
            "find" | "git" | "fd" | "fdfind" | "rg" | "ripgrep" => {
                let names = super::printed_paths(emitted.name(), emitted.args());
                if names.is_empty() {
                    return None;
                }
                (names.join("\n"), false)
            }
            "cat" if emitted.args().iter().all(|arg| arg.starts_with('-')) => {
                match (stdin.heredoc, &stdin.herestring) {
                    (Some(heredoc), _) => (heredoc.doc.value.clone(), false),
                    (None, Some(herestring)) => (herestring.text.clone(), herestring.dynamic),
                    (None, None) => return None,
                }
            }
            // `cat x.sh | sh` after the line wrote x.sh: its text.
            "cat" if !emitted.has_dynamic_args => match emitted.args() {
                [file] => (self.written_text(file)?.to_owned(), false),
                _ => return None,
            },
            _ => return None,
        };
        Some(Piped {
            depth: ctx.depth,
            text,
            dynamic,
            valued: dynamic && valued,
            decoded,
        })
    }

    /// Walks what a command's words and redirections hold besides the command itself. `feed` is
    /// the command's name and its known output, which a `>(…)` it writes to reads as its stdin.
    fn finish(
        &mut self,
        collected: Collected<'_>,
        ctx: Ctx,
        feed: Option<(Option<String>, Option<Piped>)>,
    ) {
        if collected.word_failed {
            self.word_failed();
        }
        let mut subs = collected.subs;
        for heredoc in collected.other_heredocs {
            if heredoc.requires_expansion
                && !heredoc_substitutions(&heredoc.doc.value, &mut subs, &self.budget)
            {
                self.word_failed();
            }
        }
        self.substitutions(subs, ctx);
        for (subshell, fed) in collected.process_subs {
            if let Some(inner) = self.deeper(ctx, Origin::ProcessSubstitution) {
                self.feed =
                    feed.as_ref()
                        .filter(|_| fed != Fed::Nothing)
                        .map(|(producer, output)| Feed {
                            depth: inner.depth,
                            // Another descriptor's text is not the output a rule knows by name.
                            producer: match fed {
                                Fed::Output => producer.clone(),
                                _ => producer.as_ref().map(|name| format!("{name}'s descriptor")),
                            },
                            output: output.clone().filter(|_| fed == Fed::Output).map(|output| {
                                Piped {
                                    depth: inner.depth,
                                    ..output
                                }
                            }),
                        });
                self.compound_list(&subshell.list, inner);
                self.feed = None;
            }
        }
    }

    fn item<'a>(
        &mut self,
        item: &'a ast::CommandPrefixOrSuffixItem,
        prefix: bool,
        collected: &mut Collected<'a>,
    ) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                self.redirect(redirect, collected);
            }
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                push_word(&word.value, collected, &self.budget, &self.variables);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                if prefix && collected.fields.is_empty() {
                    push_assignment(assignment, collected, &self.budget, &self.variables);
                } else {
                    if let ast::AssignmentValue::Scalar(value) = &assignment.value
                        && quoted_first(&value.value)
                    {
                        collected.quoted_values.push(collected.fields.len());
                    }
                    push_word(&word.value, collected, &self.budget, &self.variables);
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let fed = match kind {
                    ast::ProcessSubstitutionKind::Write => Fed::Output,
                    ast::ProcessSubstitutionKind::Read => Fed::Nothing,
                };
                collected.process_subs.push((subshell, fed));
                if matches!(kind, ast::ProcessSubstitutionKind::Read) {
                    let listed = listed_text(subshell, &self.budget);
                    collected.listed_arguments.push(listed);
                }
                collected.fields.push(Field {
                    text: process_substitution_text(kind).to_owned(),
                    dynamic: true,
                    valued: false,
                });
            }
        }
    }

    fn redirect<'a>(&mut self, redirect: &'a ast::IoRedirect, collected: &mut Collected<'a>) {
        let budget = &self.budget;
        let variables = &self.variables;
        let normalize = |raw: &str, subs: &mut Vec<String>, budget: &Budget| {
            normalize_with(raw, subs, budget, variables)
        };
        match redirect {
            ast::IoRedirect::File(fd, kind, target) => {
                let reads_stdin = matches!(fd, None | Some(0));
                match target {
                    ast::IoFileRedirectTarget::Filename(word) => {
                        let target = normalize(&word.value, &mut collected.subs, budget);
                        collected.word_failed |= target.failed;
                        let writes_stdout = matches!(fd, None | Some(1))
                            && !matches!(
                                kind,
                                ast::IoFileRedirectKind::Read
                                    | ast::IoFileRedirectKind::DuplicateInput
                                    | ast::IoFileRedirectKind::DuplicateOutput
                            );
                        // A name only known at run time is remembered where the walk can
                        // resolve it (`> "$PWD/x.sh"`), see `Walker::remember_written`.
                        if writes_stdout && !target.failed {
                            let append = matches!(kind, ast::IoFileRedirectKind::Append);
                            collected.stdout_files.push((target.text.clone(), append));
                        }
                        if reads_stdin
                            && matches!(kind, ast::IoFileRedirectKind::Read)
                            && target.resolved
                        {
                            collected.stdin.file = Some(target.text.clone());
                        }
                        for kind in redirect_kinds(kind) {
                            collected.redirects.push(Redirect {
                                kind: *kind,
                                target: target.text.clone(),
                            });
                        }
                    }
                    ast::IoFileRedirectTarget::Duplicate(word) => {
                        let target = normalize(&word.value, &mut collected.subs, budget);
                        collected.word_failed |= target.failed;
                        let is_fd = target.text == "-"
                            || target
                                .text
                                .trim_end_matches('-')
                                .bytes()
                                .all(|b| b.is_ascii_digit());
                        if matches!(kind, ast::IoFileRedirectKind::DuplicateOutput) && !is_fd {
                            collected.redirects.push(Redirect {
                                kind: RedirectKind::Write,
                                target: target.text,
                            });
                        }
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                        let fed = match kind {
                            ast::IoFileRedirectKind::Read
                            | ast::IoFileRedirectKind::DuplicateInput => Fed::Nothing,
                            _ if matches!(fd, None | Some(1)) => Fed::Output,
                            _ => Fed::Other,
                        };
                        collected.process_subs.push((subshell, fed));
                        if reads_stdin && matches!(kind, ast::IoFileRedirectKind::Read) {
                            collected.stdin.process_substitution = true;
                            collected.stdin.listed = listed_text(subshell, budget);
                        }
                    }
                    ast::IoFileRedirectTarget::Fd(_) => {}
                }
            }
            ast::IoRedirect::HereDocument(fd, heredoc) => {
                if matches!(fd, None | Some(0)) {
                    if let Some(previous) = collected.stdin.heredoc.replace(heredoc) {
                        collected.other_heredocs.push(previous);
                    }
                    collected.stdin.herestring = None;
                } else {
                    collected.other_heredocs.push(heredoc);
                }
            }
            ast::IoRedirect::HereString(fd, word) => {
                let text = normalize(&word.value, &mut collected.subs, budget);
                collected.word_failed |= text.failed;
                if matches!(fd, None | Some(0)) {
                    if let Some(previous) = collected.stdin.heredoc.take() {
                        collected.other_heredocs.push(previous);
                    }
                    collected.stdin.herestring = Some(text);
                }
            }
            ast::IoRedirect::OutputAndError(word, append) => {
                let target = normalize(&word.value, &mut collected.subs, budget);
                collected.word_failed |= target.failed;
                if !target.failed {
                    collected.stdout_files.push((target.text.clone(), *append));
                }
                collected.redirects.push(Redirect {
                    kind: if *append {
                        RedirectKind::Append
                    } else {
                        RedirectKind::Write
                    },
                    target: target.text,
                });
            }
        }
    }

    /// Strips wrappers, emits the command and follows what it runs. Returns whether the command
    /// consumed its here-doc or here-string as a script.
    fn run(&mut self, fields: Vec<Field>, base: Base, ctx: Ctx, stdin: &Stdin<'_>) -> bool {
        if self.full {
            return false;
        }
        self.runs += 1;
        if self.runs > MAX_RUNS {
            self.full = true;
            self.unresolved(Unresolved::TooManyCommands);
            return false;
        }
        if !self.burn(run_cost(&fields, &base)) {
            return false;
        }
        let mut stripped = strip(&fields);
        let readings = std::mem::take(&mut stripped.readings);
        let other_base = (!readings.is_empty()).then(|| base.clone());
        let mut consumed = self.run_stripped(fields, stripped, base, ctx, stdin);
        for (reading, base) in readings.into_iter().zip(other_base.iter().cycle()) {
            consumed |= self.other_reading(reading, base, ctx, stdin);
        }
        consumed
    }

    /// [`Self::run`] once the wrappers are stripped.
    fn run_stripped(
        &mut self,
        fields: Vec<Field>,
        mut stripped: Stripped,
        base: Base,
        ctx: Ctx,
        stdin: &Stdin<'_>,
    ) -> bool {
        // A wrapper that rewrote the command word (`hatch run test:pytest`): the allow view keeps
        // the word as written.
        let mut written = stripped
            .fields
            .as_ref()
            .and_then(|_| fields.get(stripped.start))
            .map(|f| f.text.clone());
        let fields = stripped.fields.take().unwrap_or(fields);
        let mut inner = fields.get(stripped.start..).unwrap_or(&[]);
        let Some(mut program) = inner.first() else {
            return false;
        };
        let binding = self.binding(program);
        let rebound: Vec<Field>;
        if let Some(Binding::Path(path)) = &binding {
            rebound = std::iter::once(path.clone())
                .chain(inner.iter().skip(1).cloned())
                .collect();
            inner = &rebound;
            program = path;
            written = None;
        }
        // `HOME=/etc; cd` goes to /etc: the value stands as the operand.
        let homed: Vec<Field>;
        if let Some(home) = self.bare_cd_home(inner) {
            homed = inner.iter().cloned().chain(std::iter::once(home)).collect();
            inner = &homed;
        }
        // `CC=gcc; $CC -o app`: a name whose text the command line's known values give is judged
        // as that program; one with an expansion left (`$X -rf ~`) is not known.
        // A value that is itself an expansion (`c=$SHELL; $c -c …`) is not known.
        let named_by_value = program.dynamic && program.valued && program.is_known();
        let mut dirs = self.inherited_dirs.clone();
        dirs.extend(stripped.dirs.iter().map(|dir| dir.text.clone()));
        // `./*.sh` runs what the pattern matches: the scripts the line wrote, where it knows them.
        let by_pattern = !program.dynamic && names_by_pattern(&program.text);
        if by_pattern && self.run_matching_program(&program.text, &dirs, ctx) {
            return false;
        }
        if (program.dynamic && !named_by_value) || by_pattern {
            self.unresolved(Unresolved::DynamicCommand(program.text.clone()));
            return false;
        }
        // An allow rule does not take a name from a value for plain text: it may be another at
        // run time. The allow view shows it as the expansion it is (`${gcc} -o app`).
        let allow_program = if named_by_value {
            Some(format!("${{{}}}", program.text))
        } else {
            written
        };
        let mut segments = base.segments;
        segments.extend(stripped.segments);
        let mut assignments = base.assignments;
        assignments.extend(stripped.assignments);
        // `CDPATH=~ cd .ssh` goes to `~/.ssh`: the directory the search finds stands as the
        // operand.
        let searched: Vec<Field>;
        if let Some(fields) = self.cdpath_operand(inner, &assignments) {
            searched = fields;
            inner = &searched;
        }
        // What the command's nested scripts see of them: a value only known at run time makes
        // the variable unknown there.
        let environment: Vec<(String, Option<String>)> = assignments
            .iter()
            .filter(|assignment| is_variable_name(&assignment.name))
            .map(|assignment| {
                let value = &assignment.value;
                let known = only_plain_parameters(value);
                (assignment.name.clone(), known.then(|| value.clone()))
            })
            .collect();
        let mut wrappers = base.wrappers;
        wrappers.extend(stripped.wrappers);
        let mut redirects = base.redirects;
        redirects.extend(self.inherited.iter().cloned());
        let args: Vec<String> = inner.iter().skip(1).map(|f| f.text.clone()).collect();
        let mut argv = Vec::with_capacity(inner.len());
        argv.push(basename(&program.text).to_owned());
        argv.extend(args.iter().cloned());
        let stdin_text = base.stdin_text.as_deref();
        // xargs hands what it reads on as dynamic fields: values the command line gave stand
        // there as they are (`f=~/.ssh/id_rsa; echo $f | xargs cat`).
        let xargs = basename(&program.text) == "xargs";
        let valued_input = base.stdin_valued && xargs;
        let mut known_stdin = stdin_text.filter(|_| !base.stdin_dynamic || valued_input);
        // `xargs -a FILE` reads FILE instead, `sftp -b FILE` its commands and `git apply FILE`
        // its patch: a `<(…)` listing names, a file the line wrote.
        let arg_file = exec::input_file(basename(&program.text), inner.get(1..).unwrap_or(&[]));
        if let Some((file, substitution)) = &arg_file {
            known_stdin = match substitution {
                // Counted from the command's first `<(…)`, wrappers' included.
                Some(which) => {
                    let before = fields.iter().take(stripped.start);
                    let before = before
                        .filter(|f| f.text == PROCESS_SUBSTITUTION_READ)
                        .count();
                    let listed = base.listed_arguments.get(before + which);
                    listed.and_then(Option::as_deref)
                }
                None => self.written_text(file),
            };
        }
        // sftp's batch in an unquoted here-document with expansions (`put $HOME/.ssh/id_rsa`):
        // the shell expands them, and the walk reads the batch with them live.
        let expanded_batch = stdin_text
            .filter(|_| {
                basename(&program.text) == "sftp" && base.stdin_dynamic && arg_file.is_none()
            })
            .map(|text| super::runners::sftp_expanded(inner.get(1..).unwrap_or(&[]), text));
        let nested: Vec<Nested> = exec::nested(inner, known_stdin, &self.budget)
            .into_iter()
            .chain(expanded_batch.into_iter().flatten())
            .chain(interp::nested(
                basename(&program.text),
                &args,
                stdin_text,
                &self.budget,
            ))
            .chain(interp::substituted_program(
                basename(&program.text),
                &args,
                stdin.process_substitution,
            ))
            .collect();
        let command = SimpleCommand {
            deny_views: deny_views(&segments, &argv),
            allow_view: allow_view(
                &segments,
                allow_program.as_deref().unwrap_or(&program.text),
                &args,
            ),
            allow_sees_program: segments.iter().all(is_safe),
            argv,
            program: program.text.clone(),
            assignments,
            env_files: super::wrappers::loaded_env_files(&segments),
            wrappers,
            dirs: dirs.clone(),
            redirects,
            origin: ctx.origin,
            depth: ctx.depth,
            has_dynamic_args: inner.iter().skip(1).any(|f| f.dynamic),
            stdin_pipe_from: base.stdin_pipe_from.clone(),
            stdin_text: base.stdin_text,
        };
        let in_shell = command.runs_in_the_shell();
        if !self.emit(command, inner.iter().skip(1).all(Field::is_known)) {
            return false;
        }
        self.change_dir(inner, in_shell, ctx.origin);
        self.run_written_script(inner, &dirs, ctx);
        self.call(inner, ctx);
        if let Some(Binding::Alias(value)) = &binding {
            self.expand_alias(&program.text, value, inner, ctx);
        }
        let outer_dirs = std::mem::replace(&mut self.inherited_dirs, dirs);
        // The command's own assignments (`HOME=~/.ssh bash -c 'cat ~/id_rsa'`, `env X=.env sh
        // -c 'cat $X'`) are in the environment of what it runs, not in its own words.
        // Only those: what an `eval` it runs assigns stays (`X=1 eval c=rm`).
        let outer_values: Vec<(String, Option<String>)> = environment
            .iter()
            .map(|(name, _)| (name.clone(), self.variable(name)))
            .collect();
        for (name, value) in environment {
            self.bind_variable(&name, value);
        }
        let consumed = self.follow(
            stripped.payloads,
            nested,
            base.stdin_pipe_from.as_deref(),
            ctx,
            stdin,
        );
        for (name, value) in outer_values {
            self.forget_variable(&name);
            if let Some(value) = value {
                self.variables.push((name, value));
            }
        }
        self.inherited_dirs = outer_dirs;
        // After its own nested scripts, so that an alias value is not expanded inside itself.
        self.bind(inner);
        consumed
    }

    /// Walks what a command runs besides itself: the shell strings its wrappers run, and its
    /// nested scripts and commands. Returns whether it consumed its here-doc as a script.
    fn follow(
        &mut self,
        payloads: Vec<Payload>,
        nested: Vec<Nested>,
        piped_from: Option<&str>,
        ctx: Ctx,
        stdin: &Stdin<'_>,
    ) -> bool {
        for payload in payloads {
            self.payload(payload.text, payload.dynamic, Origin::Wrapper, ctx);
        }
        let mut consumed = false;
        for nested in nested {
            match nested {
                Nested::Script { text, origin } => self.payload(text, false, origin, ctx),
                Nested::Dynamic(text) => self.unresolved(Unresolved::DynamicScript(text)),
                Nested::Stdin => {
                    consumed |= self.stdin_script(stdin, piped_from, ctx);
                }
                Nested::InDir { dir, nested } => {
                    let outer = self.inherited_dirs.len();
                    self.inherited_dirs.push(dir);
                    consumed |= self.follow(Vec::new(), vec![*nested], piped_from, ctx, stdin);
                    self.inherited_dirs.truncate(outer);
                }
                Nested::Command { fields, origin } => {
                    if let Some(inner_ctx) = self.deeper(ctx, origin) {
                        let base = Base {
                            stdin_pipe_from: piped_from.map(str::to_owned),
                            ..Base::default()
                        };
                        self.run(fields, base, inner_ctx, &Stdin::default());
                    }
                }
            }
        }
        consumed
    }

    /// Follows another reading of a wrapper's options (see [`Reading`]) one level deeper, in the
    /// same surroundings. Returns whether its command consumed the here-doc as a script.
    fn other_reading(
        &mut self,
        reading: Reading,
        base: &Base,
        ctx: Ctx,
        stdin: &Stdin<'_>,
    ) -> bool {
        let Some(inner_ctx) = self.deeper(ctx, ctx.origin) else {
            return false;
        };
        let outer_dirs = self.inherited_dirs.clone();
        self.inherited_dirs
            .extend(reading.dirs.into_iter().map(|dir| dir.text));
        if let Some(payload) = reading.payload {
            self.payload(payload.text, payload.dynamic, Origin::Wrapper, ctx);
        }
        let mut consumed = false;
        if !reading.fields.is_empty() {
            let mut base = base.clone();
            base.segments.extend(reading.segments);
            base.wrappers.extend(reading.wrappers);
            base.assignments.extend(reading.assignments);
            consumed = self.run(reading.fields, base, inner_ctx, stdin);
        }
        self.inherited_dirs = outer_dirs;
        consumed
    }

    /// What the program name was bound to earlier in the command line, if anything.
    fn binding(&self, program: &Field) -> Option<Binding> {
        if program.dynamic {
            return None;
        }
        self.bindings
            .iter()
            .rev()
            .find(|(name, _)| *name == program.text)
            .map(|(_, binding)| binding.clone())
    }

    /// Records the names `hash -p PATH NAME…` and `alias NAME=VALUE…` bind.
    fn bind(&mut self, argv: &[Field]) {
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let mut bound: Vec<(String, Binding)> = Vec::new();
        match basename(&program.text) {
            "hash" => {
                let Some(at) = args.iter().position(|arg| arg.text == "-p") else {
                    return;
                };
                let Some(path) = args.get(at + 1) else { return };
                for name in args
                    .iter()
                    .skip(at + 2)
                    .filter(|arg| !arg.text.starts_with('-'))
                {
                    bound.push((name.text.clone(), Binding::Path(path.clone())));
                }
            }
            "alias" => bound.extend(
                exec::alias_definitions(args)
                    .map(|(name, value)| (name.to_owned(), Binding::Alias(value))),
            ),
            _ => return,
        }
        for binding in bound {
            if self.bindings.len() >= MAX_BINDINGS {
                break;
            }
            self.bindings.push(binding);
        }
    }

    /// `NAME ARGS` where `alias NAME=VALUE` came before: `VALUE ARGS` runs. As in bash, the alias
    /// is not expanded again inside its own value (`alias ls='ls -l'`).
    fn expand_alias(&mut self, name: &str, value: &Field, argv: &[Field], ctx: Ctx) {
        let mut text = value.text.clone();
        for arg in argv.iter().skip(1) {
            text.push(' ');
            text.push_str(&arg.text);
        }
        let dynamic = argv.iter().any(|field| field.dynamic) || value.dynamic;
        let saved = std::mem::take(&mut self.bindings);
        self.bindings = saved
            .iter()
            .filter(|(bound, _)| bound != name)
            .cloned()
            .collect();
        self.payload(text, dynamic, Origin::ShellString, ctx);
        self.bindings = saved;
    }

    /// Walks a function's body with its redirections, on a stack large enough for it (a call
    /// may come from deeper in the walk than the definition). A function runs in its caller's
    /// shell: a `cd` in it leaves the caller in a directory the walk cannot say (the `cd` may not
    /// be reached), and for a `call` the variables it assigns stay; the walk of a body no call
    /// ran keeps none.
    fn function_body(&mut self, body: &ast::FunctionBody, ctx: Ctx, call: bool) {
        let text = body.to_string();
        let budget = nesting_budget(&text);
        // The stack it may need, as a parse of that nesting would; the walk burns the rest.
        if !self.burn(parse_cost(0, budget)) {
            return;
        }
        let outer = self.stack;
        let before = self.dir.clone();
        let mut after = None;
        let variables = (!call).then(|| self.saved_variables());
        let done = with_stack(budget, outer, |stack| {
            self.stack = stack;
            let ast::FunctionBody(body, redirects) = body;
            self.with_redirects(redirects.as_ref(), ctx, |w| w.compound(body, ctx));
            after = Some(self.dir.clone());
        });
        if let Some(variables) = variables {
            self.variables = variables;
        }
        self.dir = before.clone();
        if let Some(after) = after {
            self.dir = after;
            self.unsure_of_dir_since(&before);
        }
        self.stack = outer;
        if done.is_none() {
            self.unresolved(Unresolved::Parse(
                "the parser failed on this input".to_owned(),
            ));
        }
    }

    /// Remembers a function's definition for its calls (see [`Walker::functions`]). The one it
    /// replaces, or pushes out past [`MAX_FUNCTIONS`], is walked now if no call walked it.
    fn define(&mut self, name: &str, body: &ast::FunctionBody, ctx: Ctx) {
        if let Some(at) = self.functions.iter().position(|f| f.name == name) {
            let replaced = self.functions.remove(at);
            self.walk_uncalled(replaced);
        }
        if self.functions.len() >= MAX_FUNCTIONS {
            let oldest = self.functions.remove(0);
            self.walk_uncalled(oldest);
        }
        self.functions.push(Function {
            name: name.to_owned(),
            body: Arc::new(body.clone()),
            script_id: self.script_id,
            ctx,
            called: false,
        });
    }

    /// Forgets the functions of the script whose walk ends, walking those never called once.
    fn forget_functions(&mut self) {
        let script_id = self.script_id;
        let (ending, kept) = std::mem::take(&mut self.functions)
            .into_iter()
            .partition(|f| f.script_id == script_id);
        self.functions = kept;
        for function in ending {
            self.walk_uncalled(function);
        }
    }

    /// Walks a function no call walked, once, with its parameters unknown.
    fn walk_uncalled(&mut self, function: Function) {
        if !function.called {
            self.function_body(&function.body, function.ctx, false);
        }
    }

    /// A call of a function the command line defined (`f ~`): walks its body one level deeper
    /// with `$1`…`$9`, `$#`, `$@` and `$*` bound to the call's arguments when they are all known.
    /// `"$@"` gives each argument as a field of its own (`rm -rf "$@"` removes each, `"$@"` as a
    /// command runs the arguments). A function is not walked again inside its own call.
    fn call(&mut self, argv: &[Field], ctx: Ctx) {
        let Some((name, args)) = argv.split_first() else {
            return;
        };
        if name.dynamic || self.calling.len() >= MAX_CALL_DEPTH || self.calling.contains(&name.text)
        {
            return;
        }
        let Some(function) = self
            .functions
            .iter_mut()
            .rev()
            .find(|f| f.name == name.text)
        else {
            return;
        };
        function.called = true;
        let body = Arc::clone(&function.body);
        let Some(inner) = self.deeper(ctx, ctx.origin) else {
            return;
        };
        let known = args.iter().all(Field::is_known);
        let texts: Vec<&str> = args.iter().map(|arg| arg.text.as_str()).collect();
        self.calling.push(name.text.clone());
        let outer = self.saved_variables();
        self.set_positional(known.then_some(texts.as_slice()));
        self.function_body(&body, inner, true);
        // The body runs in this shell: what it assigns stays, but the parameters are the
        // caller's again.
        self.variables.retain(|(known, _)| !is_positional(known));
        self.variables
            .extend(outer.into_iter().filter(|(known, _)| is_positional(known)));
        self.calling.pop();
    }

    /// Binds `$1`…`$9`, `$#`, `$@` and `$*` to `args` (a call's arguments, `set -- a b`), or
    /// forgets them: when `args` is `None` (not all known) or there are more than
    /// [`MAX_POSITIONAL`].
    fn set_positional(&mut self, args: Option<&[&str]>) {
        self.variables.retain(|(known, _)| !is_positional(known));
        let Some(args) = args.filter(|args| args.len() <= MAX_POSITIONAL) else {
            return;
        };
        for (index, arg) in args.iter().enumerate() {
            self.variables
                .push(((index + 1).to_string(), (*arg).to_owned()));
        }
        self.variables
            .push(("#".to_owned(), args.len().to_string()));
        if !args.is_empty() {
            self.variables.push(("@".to_owned(), join_fields(args)));
            self.variables.push(("*".to_owned(), args.join(" ")));
        }
    }

    /// The positional parameters when all are known (see [`Walker::set_positional`]): `$#` and
    /// each of `$1`…`$N`.
    fn positional(&self) -> Option<Vec<String>> {
        let count: usize = self.variable("#")?.parse().ok()?;
        (1..=count.min(MAX_POSITIONAL))
            .map(|index| self.variable(&index.to_string()))
            .collect()
    }

    /// What `set` and `shift` do to the positional parameters: `set -- a b` (or `set a b`)
    /// gives them, `shift N` drops the first N. Options come first (`-o NAME` and `+o NAME`
    /// take a name, `-` and `--` end them), and the first word after them begins the new
    /// parameters as bash reads it: `set -e ~` sets `$1` to `~`. Options alone (`set -e`,
    /// `set -o pipefail`) leave the parameters as they are, and `set --` alone clears them.
    /// Where the command may not run, or an option is only known at run time, they are
    /// forgotten.
    fn reposition(&mut self, program: &str, args: &[Field]) {
        if self.conditional > 0 && matches!(program, "set" | "shift") {
            self.set_positional(None);
            return;
        }
        match program {
            "set" => {
                let mut rest = args;
                let given = loop {
                    let Some((arg, tail)) = rest.split_first() else {
                        return;
                    };
                    let text = arg.text.as_str();
                    if !arg.is_known() {
                        self.set_positional(None);
                        return;
                    }
                    match text {
                        "--" => break tail,
                        "-" if tail.is_empty() => return,
                        "-" => break tail,
                        _ if text.starts_with(['-', '+']) => {
                            rest = tail;
                            // `-o` lists the options when no name follows it.
                            if text[1..].contains('o')
                                && let Some((name, after)) = rest.split_first()
                                && !name.text.starts_with(['-', '+'])
                            {
                                rest = after;
                            }
                        }
                        _ => break rest,
                    }
                };
                let known = given.iter().all(Field::is_known);
                let texts: Vec<&str> = given.iter().map(|arg| arg.text.as_str()).collect();
                self.set_positional(known.then_some(texts.as_slice()));
            }
            "shift" => {
                let count = match args {
                    [] => Some(1),
                    [count] if !count.dynamic => count.text.parse::<usize>().ok(),
                    _ => None,
                };
                // A shift past the last parameter fails and changes nothing.
                let kept = count.zip(self.positional()).map(|(count, values)| {
                    if count > values.len() {
                        values
                    } else {
                        values.into_iter().skip(count).collect()
                    }
                });
                let texts: Option<Vec<&str>> = kept
                    .as_ref()
                    .map(|kept| kept.iter().map(String::as_str).collect());
                self.set_positional(texts.as_deref());
            }
            _ => {}
        }
    }

    /// Remembers the files a just-walked command wrote (see [`Walker::written`]): its
    /// redirected standard output, and `tee`'s files. The text is known when the command's
    /// output is ([`Walker::known_output`]) and it replaces the file rather than appends to it.
    fn remember_writes(&mut self, start: usize, stdout_files: &[(String, bool)], ctx: Ctx) {
        // Whether it edits, copies or moves a file written before.
        if let Some(command) = self
            .out
            .commands
            .get(start)
            .filter(|c| c.depth == ctx.depth && !self.written.is_empty())
        {
            let command = command.clone();
            self.edit_written(&command);
            self.copy_written(&command.argv);
        }
        if let Some(command) = self
            .out
            .commands
            .get(start)
            .filter(|c| c.depth == ctx.depth && matches!(c.name(), "npm" | "pnpm"))
        {
            let command = command.clone();
            self.set_package_scripts(&command);
        }
        if let Some(command) = self
            .out
            .commands
            .get(start)
            .filter(|c| c.depth == ctx.depth && written::compiles(c.name(), c.args()))
        {
            let command = command.clone();
            self.compile_written(&command);
        }
        let output = self.last_output.as_ref().and_then(Piped::contents);
        for (file, append) in stdout_files {
            let text = if *append {
                self.appended(file, output.as_ref())
            } else {
                output.clone()
            };
            self.remember_written(file, text);
        }
        let Some(tee) = self
            .out
            .commands
            .get(start..)
            .and_then(|emitted| emitted.iter().find(|c| c.depth == ctx.depth))
            .filter(|c| c.name() == "tee")
        else {
            return;
        };
        let append = tee.args().iter().any(|arg| {
            arg == "--append"
                || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('a'))
        });
        // What a pipe feeds it: an echo's text in each shell, nothing known of a dynamic one.
        let piped = self.piped.as_ref().filter(|piped| piped.depth == ctx.depth);
        let text = match piped {
            Some(piped) => piped.contents(),
            None => tee.stdin_text.clone().map(Contents::from),
        }
        .filter(|_| !tee.has_dynamic_args);
        let files: Vec<String> = tee
            .args()
            .iter()
            .filter(|arg| !arg.starts_with('-'))
            .cloned()
            .collect();
        for file in files {
            let text = if append {
                self.appended(&file, text.as_ref())
            } else {
                text.clone()
            };
            self.remember_written(&file, text);
        }
    }

    /// The text of `file` once `text` is appended to it: known when the command line wrote the
    /// file's text before (`echo '#!/bin/sh' > b.sh; echo 'make' >> b.sh`), unknown otherwise.
    fn appended(&self, file: &str, text: Option<&Contents>) -> Option<Contents> {
        Some(self.written_contents(file)?.joined(text?))
    }

    fn payload(&mut self, text: String, dynamic: bool, origin: Origin, ctx: Ctx) {
        if dynamic {
            self.unresolved(Unresolved::DynamicScript(text));
        } else {
            self.script(&text, origin, ctx.depth + 1);
        }
    }

    /// A shell reads its script from stdin: analyse the here-doc, here-string or literal pipe
    /// feeding it. What another command makes of its input and pipes into it (`rev`, `gzip -dc`,
    /// `curl`) is only known at run time.
    fn stdin_script(&mut self, stdin: &Stdin<'_>, piped_from: Option<&str>, ctx: Ctx) -> bool {
        if stdin.heredoc.is_none()
            && stdin.herestring.is_none()
            && !stdin.process_substitution
            && let Some(piped) = self.piped.take().filter(|piped| piped.depth == ctx.depth)
        {
            match piped.decoded {
                // Each shell's echo: both texts run.
                Some(decoded) => {
                    self.script(&piped.text, Origin::HereDoc, ctx.depth + 1);
                    self.script(&decoded, Origin::HereDoc, ctx.depth + 1);
                }
                None => self.payload(piped.text, piped.dynamic, Origin::HereDoc, ctx),
            }
            return false;
        }
        if let Some(heredoc) = stdin.heredoc {
            self.script(&heredoc.doc.value, Origin::HereDoc, ctx.depth + 1);
            return true;
        }
        if let Some(herestring) = &stdin.herestring {
            self.payload(
                herestring.text.clone(),
                herestring.dynamic,
                Origin::HereDoc,
                ctx,
            );
            return true;
        }
        if let Some(file) = &stdin.file {
            // `bash < x.sh` runs the file as `bash x.sh` does.
            self.run_written_shell_script(file, ctx);
            return false;
        }
        if stdin.process_substitution {
            self.unresolved(Unresolved::DynamicScript(
                PROCESS_SUBSTITUTION_READ.to_owned(),
            ));
        } else if let Some(producer) = piped_from.filter(|producer| *producer != "cat") {
            // `cat file | sh` runs a file like `sh file`, which is not looked into either.
            self.unresolved(Unresolved::DynamicScript(format!("<output of {producer}>")));
        }
        false
    }

    /// Adds a command to the analysis, with whether its arguments are all known (see
    /// [`Walker::known_args`]).
    fn emit(&mut self, command: SimpleCommand, args_known: bool) -> bool {
        if self.full {
            return false;
        }
        if self.out.commands.len() >= self.limits.max_commands {
            self.full = true;
            self.unresolved(Unresolved::TooManyCommands);
            return false;
        }
        if self.out.commands.capacity() == 0 {
            // Most lines hold one or two commands. Left to itself the vector would take room
            // for four (1,120 bytes), which glibc serves from its large bins, after
            // consolidating its fast bins: about ten times what a small allocation costs.
            self.out.commands.reserve_exact(2);
        }
        self.out.commands.push(command);
        self.known_args.push(args_known);
        true
    }
}

/// The fuel parsing `len` bytes burns, given their nesting budget (see [`nesting_budget`]): a
/// step, [`PARSE`] a byte, and four times that for every level the parser may recurse into
/// (each touches more of the stack, on a thread of its own past a few dozen).
fn parse_cost(len: usize, nesting: usize) -> u64 {
    let bytes = len.saturating_add(nesting.saturating_mul(4)) as u64;
    STEP.saturating_add(PARSE.saturating_mul(bytes))
}

/// The fuel a run of `fields` in `base` burns: a step, the text of its words and wrappers once
/// for each view built of them (three deny views and the allow view) and once for the
/// wrappers' grammars, and the text fed to its standard input, which the nested analyses read.
fn run_cost(fields: &[Field], base: &Base) -> u64 {
    let words: usize = fields.iter().map(|field| field.text.len()).sum();
    let wrappers: usize = base
        .segments
        .iter()
        .flat_map(|segment| &segment.tokens)
        .map(String::len)
        .sum();
    let fed = base.stdin_text.as_ref().map_or(0, String::len);
    STEP.saturating_add(5 * (words + wrappers) as u64 + fed as u64)
}

/// The first word of a simple command as written, for a pipeline element the walk emitted nothing
/// for (a dynamic command name such as `$CMD`).
fn written_name(command: &ast::Command) -> Option<String> {
    match command {
        ast::Command::Simple(simple) => simple.word_or_name.as_ref().map(|w| w.value.clone()),
        _ => None,
    }
}

fn process_substitution_text(kind: &ast::ProcessSubstitutionKind) -> &'static str {
    match kind {
        ast::ProcessSubstitutionKind::Read => PROCESS_SUBSTITUTION_READ,
        ast::ProcessSubstitutionKind::Write => PROCESS_SUBSTITUTION_WRITE,
    }
}

/// What `printf` prints, and whether that is only known at run time: a format without
/// conversions (`printf '#!/bin/sh\nnpm test\n'`) is printed with its escapes decoded, as is
/// `%s` and a separator repeated for each argument (`printf '%s\n' ~/.ssh/*`); one with another
/// `%`, `\c` (stop printing) or an option (`-v VAR` prints nothing) is not followed.
fn printf_output(args: &[String], dynamic: bool) -> (String, bool) {
    let args = match args.split_first() {
        Some((first, rest)) if first == "--" => rest,
        _ => args,
    };
    let format = args.first().map(String::as_str).unwrap_or_default();
    // `printf '%s\n' a b`: the format again for each argument, each printed as it is.
    let separator = format
        .strip_prefix("%s")
        .filter(|sep| !sep.contains('%') && !sep.contains("\\c"));
    if let (Some(separator), Some((_, printed)), false) = (separator, args.split_first(), dynamic)
        && !printed.is_empty()
    {
        let mut after = String::new();
        decode_ansi_c(separator, &mut after);
        // NUL-separated names (for `xargs -0`) are one a line to what reads them here.
        let after = after.replace('\0', "\n");
        let text = printed.iter().map(|arg| format!("{arg}{after}")).collect();
        return (text, false);
    }
    if dynamic || format.starts_with('-') || format.contains('%') || format.contains("\\c") {
        return (args.join(" "), true);
    }
    let mut text = String::new();
    decode_ansi_c(format, &mut text);
    (text, false)
}

/// Whether a program name is a pattern the shell expands to whatever file matches at run time
/// (`/bin/r? -rf ~`, `/???/?m`, `/bin/[r]m`, extglob `@(rm)`). `[` alone is the test command.
/// A quoted pattern character in a program name is taken for one too: no real program's name
/// holds one.
fn names_by_pattern(program: &str) -> bool {
    program.contains(['*', '?', '('])
        || program
            .find('[')
            .is_some_and(|open| program[open + 1..].contains(']'))
}

/// The variables a builtin sets from its input or its arguments, which the command line does
/// not say the values of: `read` (`REPLY` without a name; `-a NAME`), `mapfile` and
/// `readarray` (`MAPFILE`), `printf -v NAME`, `getopts SPEC NAME` (and `OPTARG`), `let`'s and
/// `wait -p`'s names. `None` for any other command.
pub(super) fn set_by_builtin(program: &str, texts: &[String]) -> Option<Vec<String>> {
    let names: Vec<String> = match program {
        "read" => {
            let parsed = Parsed::new(texts, READ_VALUE_FLAGS, &[]);
            let mut names: Vec<String> = parsed.operands.iter().map(|n| (*n).to_owned()).collect();
            names.extend(parsed.values(&['a'], &[]).into_iter().map(str::to_owned));
            if names.is_empty() {
                names.push("REPLY".to_owned());
            }
            names
        }
        "mapfile" | "readarray" => {
            let parsed = Parsed::new(texts, &['d', 'n', 'O', 's', 'u', 'C', 'c'], &[]);
            let name = parsed.operands.first().copied().unwrap_or("MAPFILE");
            vec![name.to_owned()]
        }
        "printf" => Parsed::new(texts, &['v'], &[])
            .values(&['v'], &[])
            .into_iter()
            .map(str::to_owned)
            .collect(),
        "getopts" => texts
            .get(1)
            .into_iter()
            .cloned()
            .chain(["OPTARG".to_owned(), "OPTIND".to_owned()])
            .collect(),
        "let" => texts
            .iter()
            .filter_map(|arg| arg.split_once('=').map(|(name, _)| name.to_owned()))
            .collect(),
        "wait" => Parsed::new(texts, &['p'], &[])
            .values(&['p'], &[])
            .into_iter()
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    Some(
        names
            .into_iter()
            .filter(|name| is_variable_name(name))
            .collect(),
    )
}

/// `read`'s options that take a value.
const READ_VALUE_FLAGS: &[char] = &['d', 'p', 'n', 'N', 't', 'u', 'a', 'i'];

/// The names `read` gives a line's fields to, in order (`REPLY` without one); `None` where it
/// fills an array (`-a`), reads another file descriptor (`-u`) or a name is not a variable's.
fn read_names<'a>(parsed: &Parsed<'a>) -> Option<Vec<&'a str>> {
    if parsed.has(&['a', 'u'], &[]) {
        return None;
    }
    let names = match parsed.operands.as_slice() {
        [] => vec!["REPLY"],
        names => names.to_vec(),
    };
    names
        .iter()
        .all(|name| is_variable_name(name))
        .then_some(names)
}

/// The IFS `read` splits its line with.
enum Ifs<'a> {
    /// The command line gave it a value (unset, the blanks and the newline).
    Known(&'a str),
    /// It is only known at run time (`IFS=$(…)`, `read IFS`, `IFS=$OLD`).
    Unknown,
}

impl<'a> Ifs<'a> {
    /// IFS as the command line left it: `None` where it gave none, `Some(None)` where it gave
    /// one only known at run time.
    fn of(value: Option<Option<&'a str>>) -> Self {
        match value {
            None => Ifs::Known(" \t\n"),
            Some(Some(value)) if value != UNKNOWN_IFS && !value.contains('$') => Ifs::Known(value),
            Some(_) => Ifs::Unknown,
        }
    }
}

/// The fields bash's `read` splits `line` into with IFS `ifs` (bash(1), Word Splitting): IFS
/// whitespace at either end is dropped, a run of it is one delimiter, and each other IFS
/// character with the whitespace around it is one, so two in a row leave an empty field. With
/// `names`, that many, the last the rest of the line less a last delimiter after a single field
/// (`IFS=/ read a b <<< x/y/z/` gives `y/z/`, `<<< x/y/` gives `y`); without, every field (`read
/// -a`). An empty IFS splits nothing.
fn ifs_fields(line: &str, ifs: &str, names: Option<usize>) -> Vec<String> {
    let white = |c: char| matches!(c, ' ' | '\t' | '\n') && ifs.contains(c);
    let other = |c: char| ifs.contains(c) && !white(c);
    let mut rest = line.trim_matches(white);
    let mut fields = Vec::new();
    while !rest.is_empty() && names.is_none_or(|names| fields.len() + 1 < names) {
        let end = rest.find(|c: char| ifs.contains(c)).unwrap_or(rest.len());
        let (field, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
        fields.push(field.to_owned());
        let after = after.trim_start_matches(white);
        rest = match after.strip_prefix(other) {
            Some(after) => after.trim_start_matches(white),
            None => after,
        };
    }
    let Some(names) = names else {
        return fields;
    };
    let mut chars = rest.chars();
    if chars.next_back().is_some_and(other) {
        let single = chars.as_str().trim_end_matches(white);
        if !single.contains(|c: char| ifs.contains(c)) {
            rest = single;
        }
    }
    fields.resize(names.saturating_sub(1), String::new());
    fields.push(rest.to_owned());
    fields
}

/// The values `read`, `mapfile` or `readarray` (`program`, with arguments `texts`) give their
/// variables from `input`, their stdin's known text: `read p <<< ~/.ssh/id_rsa` sets `p` to
/// `~/.ssh/id_rsa` (bash expands a here-string's tilde), `read a b` the first field and the rest
/// of the line, split where `ifs` says (`IFS=/ read -r a b c <<< x/y/z`), `read -a a` and
/// `mapfile -t a` an array's elements (see [`ARRAY_ELEMENTS`]). Without `-r`, a backslash
/// escapes the next character and joins a line to the next. Nothing where the line is cut
/// otherwise (`-d`, `-n`, `-N`), or where IFS is only known at run time and may split it into
/// several variables.
fn read_by_builtin(
    program: &str,
    texts: &[String],
    input: &str,
    ifs: &Ifs<'_>,
) -> Vec<(String, String)> {
    if program != "read" {
        let parsed = Parsed::new(texts, &['d', 'n', 'O', 's', 'u', 'C', 'c'], &[]);
        let lines: Vec<&str> = input.lines().collect();
        if parsed.shorts.iter().any(|&flag| flag != 't') || lines.len() > MAX_ARRAY_ELEMENTS {
            return Vec::new();
        }
        let name = parsed.operands.first().copied().unwrap_or("MAPFILE");
        // Without -t, each element keeps its newline.
        let newline = if parsed.has(&['t'], &[]) { "" } else { "\n" };
        let elements: Vec<String> = lines
            .iter()
            .map(|line| format!("{line}{newline}"))
            .collect();
        let elements: Vec<&str> = elements.iter().map(String::as_str).collect();
        return vec![(format!("{name}{ARRAY_ELEMENTS}"), join_fields(&elements))];
    }
    let parsed = Parsed::new(texts, READ_VALUE_FLAGS, &[]);
    if parsed.has(&['d', 'n', 'N', 'u'], &[]) {
        return Vec::new();
    }
    let raw = parsed.has(&['r'], &[]);
    let mut line = String::new();
    let mut chars = input.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !raw => match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => line.push(escaped),
            },
            '\n' => break,
            c => line.push(c),
        }
    }
    // One name takes the line less IFS whitespace at its ends, which an unknown IFS leaves
    // to the blanks.
    let (ifs, known) = match ifs {
        Ifs::Known(ifs) => (*ifs, true),
        Ifs::Unknown => (" \t", false),
    };
    if let Some(array) = parsed.values(&['a'], &[]).first() {
        let words = ifs_fields(&line, ifs, None);
        if !known || !is_variable_name(array) || words.len() > MAX_ARRAY_ELEMENTS {
            return Vec::new();
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        return vec![(format!("{array}{ARRAY_ELEMENTS}"), join_fields(&words))];
    }
    let Some(names) = read_names(&parsed) else {
        return Vec::new();
    };
    if !known && names.len() > 1 {
        return Vec::new();
    }
    let values = ifs_fields(&line, ifs, Some(names.len()));
    names
        .iter()
        .map(|name| (*name).to_owned())
        .zip(values)
        .collect()
}

/// The value `printf -v NAME FORMAT ARGS` gives NAME, when what it prints is known (see
/// [`printf_output`]; `dynamic` where an argument is only known at run time).
fn printed_to_variable(program: &str, texts: &[String], dynamic: bool) -> Option<(String, String)> {
    if program != "printf" {
        return None;
    }
    let (name, rest) = match texts {
        [flag, name, rest @ ..] if flag == "-v" => (name.as_str(), rest),
        [flag, rest @ ..] => (flag.strip_prefix("-v").filter(|n| !n.is_empty())?, rest),
        [] => return None,
    };
    let (text, dynamic) = printf_output(rest, dynamic);
    (!dynamic && is_variable_name(name)).then(|| (name.to_owned(), text))
}

/// Whether a declaration makes a name reference: `declare -n`, `typeset -n`, `local -n`
/// (alone or among other flags: `-gn`).
fn is_name_reference(program: &str, args: &[Field]) -> bool {
    matches!(program, "declare" | "typeset" | "local")
        && args.iter().any(|arg| {
            arg.text
                .strip_prefix('-')
                .is_some_and(|flags| !flags.starts_with('-') && flags.contains('n'))
        })
}

/// Whether `name` is a positional or special parameter a function call sets (`1`, `#`, `@`).
fn is_positional(name: &str) -> bool {
    matches!(name, "#" | "@" | "*") || name.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a loop value is a decimal number (`for i in {1..100}`).
fn is_number(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` is a shell variable's name.
fn is_variable_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The names a process substitution's body lists, one a line (see [`super::listed_names`]).
fn listed_text(subshell: &ast::SubshellCommand, budget: &Budget) -> Option<String> {
    let body = subshell.list.to_string();
    if !budget.burn_text(&body) {
        return None;
    }
    let names = super::listed_names(&body);
    (!names.is_empty()).then(|| names.join("\n"))
}

/// The words `echo` or `printf` print for static arguments (`echo a b`, `printf '%s\n' a b`),
/// as a reader splitting at blanks takes them; empty where what is printed is only known at run
/// time or depends on the shell's echo.
pub(super) fn printed_words(program: &str, args: &[String]) -> Vec<String> {
    let text = match program {
        "echo" => match echo_output(args, false) {
            (text, false, None) => text,
            _ => return Vec::new(),
        },
        "printf" => match printf_output(args, false) {
            (text, false) => text,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    text.split_whitespace().map(str::to_owned).collect()
}

fn push_word(
    raw: &str,
    collected: &mut Collected<'_>,
    budget: &Budget,
    variables: &[(String, String)],
) {
    if let Some(text) = plain_field(raw, budget) {
        collected.fields.push(Field {
            text,
            dynamic: false,
            valued: false,
        });
        return;
    }
    let word = normalize_with(raw, &mut collected.subs, budget, variables);
    collected.word_failed |= word.failed;
    let dynamic = word.dynamic;
    let valued = dynamic && word.resolved;
    collected
        .fields
        .extend(word.fields.into_iter().map(|text| Field {
            text,
            dynamic,
            valued,
        }));
}

/// Whether an assignment's raw value begins with a quote or a backslash, so that a `~` its
/// text begins with is not expanded (`x="~/.ssh/id_rsa"`, `export x=\\~/…`).
fn quoted_first(raw: &str) -> bool {
    raw.starts_with(['"', '\'', '\\']) || raw.starts_with("$'") || raw.starts_with("$\"")
}

fn push_assignment(
    assignment: &ast::Assignment,
    collected: &mut Collected<'_>,
    budget: &Budget,
    variables: &[(String, String)],
) {
    let name = match &assignment.name {
        ast::AssignmentName::VariableName(name) => name.clone(),
        ast::AssignmentName::ArrayElementName(name, index) => {
            let index = normalize(index, &mut collected.subs, budget);
            collected.word_failed |= index.failed;
            format!("{name}[{}]", index.text)
        }
    };
    let mut dynamic = false;
    let mut known = None;
    let mut key = name.clone();
    let value = match &assignment.value {
        ast::AssignmentValue::Scalar(word) => {
            let value = normalize_with(&word.value, &mut collected.subs, budget, variables);
            collected.word_failed |= value.failed;
            dynamic |= value.dynamic;
            // `p=$HOME/.ssh/id_rsa` stands for its text too: reading `$p` is reading that.
            let bindable = value.resolved || (!value.failed && only_plain_parameters(&value.text));
            // `p="~/.ssh/id_rsa"` keeps its `~`, which no later read expands.
            let quoted_tilde = value.text.starts_with('~') && quoted_first(&word.value);
            if bindable && !assignment.append {
                known = Some(match quoted_tilde {
                    true => format!("{LITERAL_TILDE}{}", value.text),
                    false => value.text.clone(),
                });
            }
            value.text
        }
        ast::AssignmentValue::Array(items) => {
            let mut parts = Vec::with_capacity(items.len());
            // `a=(x y)`: its elements, when all are known (see `ARRAY_ELEMENTS`).
            let mut elements: Option<Vec<String>> = (!assignment.append).then(Vec::new);
            for (key, word) in items {
                let value = normalize_with(&word.value, &mut collected.subs, budget, variables);
                collected.word_failed |= value.failed;
                dynamic |= value.dynamic;
                let bindable =
                    value.resolved || (!value.failed && only_plain_parameters(&value.text));
                elements = elements.filter(|_| key.is_none() && bindable);
                if let Some(elements) = elements.as_mut() {
                    elements.extend(value.fields.iter().cloned());
                }
                match key {
                    Some(key) => {
                        let key = normalize(&key.value, &mut collected.subs, budget);
                        collected.word_failed |= key.failed;
                        parts.push(format!("[{}]={}", key.text, value.text));
                    }
                    None => parts.push(value.text),
                }
            }
            if let Some(elements) = elements.filter(|e| e.len() <= MAX_ARRAY_ELEMENTS) {
                let texts: Vec<&str> = elements.iter().map(String::as_str).collect();
                key = format!("{name}{ARRAY_ELEMENTS}");
                known = Some(join_fields(&texts));
            }
            format!("({})", parts.join(" "))
        }
    };
    let operator = if assignment.append { "+=" } else { "=" };
    collected.segments.push(Segment {
        kind: SegmentKind::Assignment,
        tokens: vec![format!("{name}{operator}{value}")],
        dynamic,
    });
    collected.variables.push((key, known));
    collected.assignments.push(Assignment { name, value });
}

fn redirect_kinds(kind: &ast::IoFileRedirectKind) -> &'static [RedirectKind] {
    match kind {
        ast::IoFileRedirectKind::Read => &[RedirectKind::Read],
        ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => &[RedirectKind::Write],
        ast::IoFileRedirectKind::Append => &[RedirectKind::Append],
        ast::IoFileRedirectKind::ReadAndWrite => &[RedirectKind::Read, RedirectKind::Write],
        ast::IoFileRedirectKind::DuplicateInput | ast::IoFileRedirectKind::DuplicateOutput => &[],
    }
}

fn clip(mut text: String) -> String {
    if text.len() > MAX_UNRESOLVED_TEXT {
        let mut end = MAX_UNRESOLVED_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// Whether an expression that is not valid arithmetic reads like commands: two bare words in a
/// row (`cd sub`, `rm -f`), which arithmetic never has.
/// Most `[` brush-parser's arithmetic grammar is given unclosed. It tries every `name[` as a
/// subscript and, when that fails, again as plain text, with no memoisation: each unclosed `[`
/// multiplies the time by ~15 (four take ~0.1 s, six ~20 s in a release build; found by
/// fuzzing). Closed subscripts cost little (`a[b]+` twelve times: ~1 ms).
const MAX_UNCLOSED_SUBSCRIPTS: usize = 2;

/// Whether `expr` can be handed to brush-parser's arithmetic grammar without it backtracking for
/// long; if not, it is not read as arithmetic (it is still analysed as text, or as commands).
fn arithmetic_affordable(expr: &str) -> bool {
    let mut open = 0usize;
    let mut unclosed = 0usize;
    for byte in expr.bytes() {
        match byte {
            b'[' => open += 1,
            b']' if open > 0 => open -= 1,
            _ => {}
        }
        unclosed = unclosed.max(open);
    }
    unclosed.max(open) <= MAX_UNCLOSED_SUBSCRIPTS
}

fn looks_like_commands(expr: &str) -> bool {
    let is_word = |token: &str| {
        token
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '/'))
            && token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
    };
    let words: Vec<&str> = expr.split_whitespace().collect();
    words.windows(2).any(|pair| match pair {
        [first, second] => is_word(first) && (is_word(second) || second.starts_with('-')),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::ifs_fields;

    #[test]
    fn read_splits_its_line_as_bash_does() {
        // Each row checked against bash 5: `IFS=IFS read -r NAMES… <<< LINE`.
        let names = |ifs: &str, line: &str, count: usize| ifs_fields(line, ifs, Some(count));
        assert_eq!(names("/", "x/y/z/w", 3), ["x", "y", "z/w"]);
        assert_eq!(names("/", "x/y/", 2), ["x", "y"]);
        assert_eq!(names("/", "x/y//", 2), ["x", "y//"]);
        assert_eq!(names("/", "x/y/z/", 2), ["x", "y/z/"]);
        assert_eq!(names("/", "/x/y", 3), ["", "x", "y"]);
        assert_eq!(names("/", "x", 3), ["x", "", ""]);
        assert_eq!(names("/", "x/", 1), ["x"]);
        assert_eq!(names(": ", "  k :: v w  ", 3), ["k", "", "v w"]);
        assert_eq!(names(" /", "  x  y / ", 2), ["x", "y"]);
        assert_eq!(names(", ", "a,b , c ,  ", 3), ["a", "b", "c"]);
        assert_eq!(names(", ", "a,b , c ,  d,", 3), ["a", "b", "c ,  d,"]);
        assert_eq!(names("", "x y", 2), ["x y", ""]);
        assert_eq!(names(" \t\n", "  a  b c ", 2), ["a", "b c"]);
        // `read -a`: every field, a last delimiter ending the last one.
        assert_eq!(ifs_fields("a//b/", "/", None), ["a", "", "b"]);
        assert_eq!(ifs_fields(" a / b  c/", " /", None), ["a", "b", "c"]);
        assert!(ifs_fields("", "/", None).is_empty());
    }
}
