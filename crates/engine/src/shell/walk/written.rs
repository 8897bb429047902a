//! Files the command line writes and then runs, and the directory the walk is in.
//!
//! `echo 'rm -rf ~' > x.sh; bash x.sh` runs the text written. The file may be run under another
//! spelling of its path (`./x.sh`, `"$PWD/x.sh"`, `/home/u/proj/x.sh`, `../x.sh` after `cd
//! sub`), after `mv` or `cp`, through `find -exec` or `xargs`, by an interpreter (`python3
//! x.py`), by `make` (a written `Makefile`) or another task runner (`just`, `task`, `rake`), or by its
//! `#!` line (`./x`). Paths are compared
//! canonical, from the directory the walk knows the command runs in: the event's, moved by `cd`,
//! `pushd`, back by `cd -` and `popd`, and by wrappers (`env -C DIR`). Where the walk cannot tell which file runs and a
//! written one may be it, the script is reported as only known at run time.

use crate::argv::Parsed;
use crate::packs::places;
use crate::paths::{self, PathContext};

use super::super::exec::{self, SHELLS};
use super::super::{Assignment, Origin, SimpleCommand, Unresolved, basename, interp, runners};
use super::{
    Base, Ctx, Field, MAX_WRITTEN_FILES, MAX_WRITTEN_TEXT, STEP, Stdin, UNKNOWN_HOME, Walker,
    only_plain_parameters, set_by_builtin,
};
use crate::evaluate::file_effects;

mod conventions;

/// The working directory the walk stands for when the analysis is given no place
/// ([`super::super::analyze`]): relative paths are compared under it.
pub(super) const UNKNOWN_CWD: &str = "/.cwd";

/// Where the directories only known at run time that the walk stands in are (see
/// [`Walker::unknown_dir`]).
const UNKNOWN_DIR: &str = "/.unknown-dir-";

/// Whether a canonical path is in a directory only known at run time.
fn in_unknown_dir(path: &str) -> bool {
    path.starts_with(UNKNOWN_DIR)
}

/// A canonical path, unless it is in a directory only known at run time.
fn placed(path: Option<&str>) -> Option<&str> {
    path.filter(|path| !in_unknown_dir(path))
}

/// Most directories the walk holds on the directory stack (see [`WorkingDir::stack`]).
const MAX_DIR_STACK: usize = 16;

/// Where the walk is: its working directory, and where `cd -` and `popd` go, all canonical.
#[derive(Clone)]
pub(super) struct WorkingDir {
    /// The directory the commands being walked run in: the event's (or [`UNKNOWN_CWD`]), then
    /// where `cd` moved it; once it is only known at run time (`cd "$D"`, a `cd` that may not
    /// have run), a directory of its own that stands for it (see [`Walker::unknown_dir`]).
    pub(super) cwd: String,
    /// OLDPWD, where `cd -` goes: the directory before the line's last `cd`, `pushd` or `popd`;
    /// `None` while only known at run time (before the first, the event's own).
    previous: Option<String>,
    /// The directory stack below the working directory, as the line's `pushd` built it, top
    /// last (up to [`MAX_DIR_STACK`]); a `popd` past it goes where only the run knows.
    stack: Vec<String>,
}

impl WorkingDir {
    /// The walk in `cwd`, with nothing known of OLDPWD and the directory stack.
    pub(super) fn new(cwd: String) -> Self {
        Self {
            cwd,
            previous: None,
            stack: Vec::new(),
        }
    }

    /// Puts `dir` on top of the directory stack, forgetting the bottom past [`MAX_DIR_STACK`].
    fn push(&mut self, dir: String) {
        if self.stack.len() >= MAX_DIR_STACK {
            self.stack.remove(0);
        }
        self.stack.push(dir);
    }

    /// Forgets OLDPWD and the directory stack where they changed since `before`: code that may
    /// not have run changed them. (The working directory is [`Walker::unsure_of_dir_since`]'s.)
    pub(super) fn unsure_since(&mut self, before: &WorkingDir) {
        if self.previous != before.previous {
            self.previous = None;
        }
        if self.stack != before.stack {
            self.stack.clear();
        }
    }
}

/// Whether a `pushd` or `popd` argument names an entry of the stack (`+1`, `-0`).
fn is_stack_index(arg: &str) -> bool {
    arg.strip_prefix(['+', '-'])
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Most files one `find -exec` runs as written scripts.
const MAX_FOUND_SCRIPTS: usize = 4;

/// A file the command line wrote.
pub(super) struct Written {
    /// Its canonical path; `None` where the walk could not tell where it is (`cd "$D"; echo … >
    /// x.sh`, `mv x.sh "$D"`).
    path: Option<String>,
    /// Its last component as written (`x.sh`), to compare with a path the walk cannot resolve;
    /// empty when that is only known at run time.
    name: String,
    /// Its text, when the command line says it.
    text: Option<Contents>,
}

/// What a written file holds: its text, or where the shell that runs the command line decides it,
/// each text it may hold.
#[derive(Clone)]
pub(super) struct Contents {
    /// Its text (as bash's `echo` writes it).
    text: String,
    /// Where an `echo` wrote escapes (`echo 'a\nb' > f`): the text another shell's `echo`
    /// writes (sh's and zsh's decode `\n`, bash's writes it as it is; see `echo_output`).
    decoded: Option<String>,
}

impl From<String> for Contents {
    fn from(text: String) -> Self {
        Self {
            text,
            decoded: None,
        }
    }
}

impl Contents {
    /// What an `echo` with escapes writes: `text` in one shell, `decoded` in another.
    pub(super) fn echoed(text: String, decoded: String) -> Self {
        Self {
            text,
            decoded: Some(decoded),
        }
    }

    /// The text, when it is the same whichever shell runs the command line.
    pub(super) fn single(&self) -> Option<&str> {
        self.decoded.is_none().then_some(self.text.as_str())
    }

    /// Each text the file may hold.
    fn readings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.text.as_str()).chain(self.decoded.as_deref())
    }

    /// These contents with `added` appended: in each shell, its own reading of both.
    pub(super) fn joined(&self, added: &Contents) -> Contents {
        let decoded = match (&self.decoded, &added.decoded) {
            (None, None) => None,
            (mine, theirs) => Some(format!(
                "{}{}",
                mine.as_deref().unwrap_or(&self.text),
                theirs.as_deref().unwrap_or(&added.text)
            )),
        };
        Contents {
            text: format!("{}{}", self.text, added.text),
            decoded,
        }
    }

    /// Whether every text fits in `limit` bytes.
    fn fits(&self, limit: usize) -> bool {
        self.readings().all(|text| text.len() <= limit)
    }
}

impl Written {
    /// Whether a file named `name` (a pattern: `*.sh`) may be this one.
    fn may_be_named(&self, name: &str) -> bool {
        self.name.is_empty() || places::find_name_match(&self.name, name, false)
    }
}

/// Which written file a path names.
enum Found {
    /// None: the path names a file the command line did not write.
    Nothing,
    /// This one (an index in [`Walker::written`]).
    One(usize),
    /// The walk cannot tell, and a written file may be the one.
    Unsure,
    /// A pattern (`*.sh`) that matches these written files (their canonical paths), and no
    /// other the command line wrote.
    Each(Vec<String>),
}

/// Whether programs of the system's or the user's may sit in the canonical directory `dir`,
/// which a pattern there may match before a written script (`/bin/rm*`, `~/.local/bin/r?`): one
/// under a system directory (`/usr`, `/bin`, `/opt`), or one named as the directories on a
/// `PATH` are (`bin`, `sbin`, `shims`).
fn holds_programs(dir: &str) -> bool {
    let dir = dir.to_ascii_lowercase();
    let system = places::SYSTEM_DIRS.iter().any(|system| {
        let system = system.to_ascii_lowercase();
        dir == system || dir.starts_with(&format!("{system}/"))
    });
    let name = dir.rsplit('/').next().unwrap_or_default();
    dir.is_empty() || system || matches!(name, "bin" | "sbin" | "shims")
}

/// How a written file is run.
#[derive(Clone, Copy)]
enum Runner<'a> {
    /// By a shell (`bash x.sh`): a shell script, unless its `#!` line names another program,
    /// which the walk does not take for the shell's.
    Shell,
    /// By this shell (`. x.sh`, `source x.sh`): a shell script whatever its `#!` line, whose
    /// assignments stay for the commands after it.
    Source,
    /// By its path (`./x`): as its `#!` line says; a shell script without one.
    Path,
    /// By an interpreter (`python3 x.py`): that interpreter's program.
    Interpreter(&'a str),
    /// By a package manager: the package.json scripts of these names (`pretest`, `test`), each
    /// by `sh -c`.
    PackageScripts(&'a [String]),
    /// By Python at start-up, as a `.pth` file: its `import` lines are Python code.
    PthFile,
    /// By make: a makefile, with the names make's arguments assign (`make CC=clang`; an empty
    /// one for an argument only known at run time).
    Make(&'a [String]),
    /// By just: a justfile's recipes.
    Just,
    /// By Task: a Taskfile's commands.
    Taskfile,
    /// By a task runner whose file is code: this interpreter's program, read after this
    /// preamble (see [`runners::TaskFile::Code`]).
    TaskCode(&'static str, &'static str),
}

impl Walker<'_> {
    /// Places the walk in the event's working directory and home.
    pub(in crate::shell) fn place(&mut self, place: &PathContext<'_>) {
        let root = PathContext {
            cwd: "/",
            home: place.home,
        };
        self.dir = WorkingDir::new(paths::canonicalize(place.cwd, &root));
        self.home = place.home.map(str::to_owned);
    }

    /// A directory of its own for the walk to stand in where the working directory is only
    /// known at run time: files written there and run from there with the same relative path
    /// are the same (`cd "$D" && echo … > x.sh && bash x.sh`); any other path may name one of
    /// them.
    pub(super) fn unknown_dir(&mut self) -> String {
        self.unknown_dirs += 1;
        format!("{UNKNOWN_DIR}{}", self.unknown_dirs)
    }

    /// The canonical path `path` names from the directory `here` (`None`: only known at run
    /// time), when the walk can tell: `$PWD` is `here`, `~` and an unassigned `$HOME` the
    /// event's home; any other expansion makes it unknown, as does `..` from a directory only
    /// known at run time.
    fn resolve_in(&self, path: &str, here: Option<&str>) -> Option<String> {
        let path = match (pwd_rest(path), here) {
            (Some(rest), Some(here)) => format!("{here}{rest}"),
            (Some(_), None) => return None,
            (None, _) => path.to_owned(),
        };
        let climbs = path.split('/').any(|component| component == "..");
        if climbs && here.is_some_and(in_unknown_dir) {
            return None;
        }
        let home_relative = ["~", "$HOME", "${HOME}"]
            .iter()
            .any(|prefix| starts_with_component(&path, prefix));
        let plain = path.strip_prefix("$HOME").or(path.strip_prefix("${HOME}"));
        if places::is_dynamic(plain.filter(|_| home_relative).unwrap_or(&path)) {
            return None;
        }
        let relative = !path.starts_with('/') && !home_relative;
        let cwd = match here {
            Some(here) => here,
            None if relative => return None,
            None => "/",
        };
        let ctx = PathContext {
            cwd,
            home: self.home.as_deref(),
        };
        Some(paths::canonicalize(&path, &ctx))
    }

    /// The directory a command runs in: where the walk is, moved by the directories its wrappers
    /// give (`env -C DIR`, see [`super::super::SimpleCommand::dirs`]).
    fn command_dir(&self, dirs: &[String]) -> Option<String> {
        let mut here = self.dir.cwd.clone();
        for dir in dirs {
            here = self.resolve_in(dir, Some(&here))?;
        }
        Some(here)
    }

    /// The canonical path `path` names for a command run in `dirs`, when the walk can tell.
    fn resolve(&self, path: &str, dirs: &[String]) -> Option<String> {
        self.resolve_in(path, self.command_dir(dirs).as_deref())
    }

    /// Which written file `path` names for a command run in `dirs`: the one at its canonical
    /// path; where the walk cannot resolve it, or it is a pattern (`./**/x.sh`), any written file
    /// it may name makes it unsure, as does a file the walk forgot.
    fn find_written(&self, path: &str, dirs: &[String]) -> Found {
        self.budget.burn(self.written.len() as u64 * STEP);
        let resolved = self.resolve(path, dirs);
        let exact = resolved.as_deref().filter(|path| !places::has_glob(path));
        if let Some(at) = exact.and_then(|exact| {
            self.written
                .iter()
                .position(|written| written.path.as_deref() == Some(exact))
        }) {
            return Found::One(at);
        }
        let may = self.may_name(path, resolved.as_deref());
        if self.written.iter().any(may) || self.written_forgotten {
            Found::Unsure
        } else {
            Found::Nothing
        }
    }

    /// Whether `path` (canonical: `resolved`, when the walk can tell) may name a written file:
    /// a pattern that matches its path where both places are known, else one that matches its
    /// name, or a path whose name is only known at run time.
    fn may_name<'a>(
        &self,
        path: &'a str,
        resolved: Option<&'a str>,
    ) -> impl Fn(&Written) -> bool + 'a {
        // The last component of `${GEN:-$DIR/gen.sh}` is no name of its own (`gen.sh}`).
        let inside_expansion = |name: &str| path.contains("${") && name.contains('}');
        let name = last_component(path)
            .filter(|name| !places::is_dynamic(name) && !inside_expansion(name));
        move |written: &Written| match (placed(resolved), placed(written.path.as_deref())) {
            (Some(pattern), Some(known)) => places::glob_match(pattern, known),
            _ => name.is_none_or(|name| written.may_be_named(name)),
        }
    }

    /// Which written files a pattern a command runs matches (`bash *.sh`, `for f in *.sh; do
    /// bash "$f"; done`, `find … | xargs sh`): each, up to [`MAX_FOUND_SCRIPTS`], when the walk
    /// knows where the pattern and they are; unsure when another written file whose place it
    /// cannot tell may match too, or one it forgot.
    fn find_matching(&self, pattern: &str, resolved: &str) -> Found {
        let matched: Vec<String> = self
            .written
            .iter()
            .filter_map(|written| written.path.clone())
            .filter(|path| places::glob_match(resolved, path))
            .collect();
        let may = self.may_name(pattern, Some(resolved));
        let unmatched_may = self.written.iter().any(|written| {
            written
                .path
                .as_ref()
                .is_none_or(|path| !matched.contains(path))
                && may(written)
        });
        if unmatched_may || self.written_forgotten || matched.len() > MAX_FOUND_SCRIPTS {
            return Found::Unsure;
        }
        match matched.is_empty() {
            true => Found::Nothing,
            false => Found::Each(matched),
        }
    }

    /// Which written file a command running `path` runs: as [`Walker::find_written`], but
    /// none where every expansion in the path is a default of a variable the command line never
    /// sets (`bash ${GEN:-gen.sh}`): the environment's value names a file of the user's, and
    /// the command's reading with the default finds the line's (see the `defaults` module).
    fn find_run(&self, path: &str, dirs: &[String]) -> Found {
        if self.named_by_the_environment(path) {
            return Found::Nothing;
        }
        match self.resolve(path, dirs) {
            Some(resolved) if places::has_glob(&resolved) => self.find_matching(path, &resolved),
            _ => self.find_written(path, dirs),
        }
    }

    /// Remembers that `file` now holds `text` (`None`: something the command line does not say).
    /// A file whose name is only known at run time (`> "$LOG"`) is not remembered: a script run
    /// later is not taken for it.
    pub(super) fn remember_written(&mut self, file: &str, text: Option<Contents>) {
        if self.resolve(file, &[]).is_some() || !places::is_dynamic(file) {
            self.remember_copy(file, text);
        }
    }

    /// Remembers that `file` now holds `text`, wherever it is: a copy moved to a directory only
    /// known at run time (`mv x.sh "$D"`) may be what a later `bash "$D/x.sh"` runs.
    fn remember_copy(&mut self, file: &str, text: Option<Contents>) {
        let path = self.resolve(file, &[]);
        if let Some(path) = &path {
            self.written
                .retain(|written| written.path.as_ref() != Some(path));
        }
        if self.written.len() >= MAX_WRITTEN_FILES {
            self.written.remove(0);
            self.written_forgotten = true;
        }
        let name = last_component(file)
            .filter(|name| !places::is_dynamic(name))
            .unwrap_or_default()
            .to_owned();
        let text = text.filter(|text| text.fits(MAX_WRITTEN_TEXT));
        self.written.push(Written { path, name, text });
    }

    /// Forgets what the command line wrote at `file`: another file was put there.
    fn forget_written(&mut self, file: &str) {
        if let Some(path) = self.resolve(file, &[]) {
            self.written
                .retain(|written| written.path.as_ref() != Some(&path));
        }
    }

    /// The text the command line wrote to `file` earlier, when it says what it is, the same in
    /// every shell.
    pub(super) fn written_text(&self, file: &str) -> Option<&str> {
        self.written_contents(file)?.single()
    }

    /// What the command line wrote to `file` earlier, when it says what it is.
    pub(super) fn written_contents(&self, file: &str) -> Option<&Contents> {
        let Found::One(at) = self.find_written(file, &[]) else {
            return None;
        };
        self.written.get(at)?.text.as_ref()
    }

    /// A command that changes files in place (`sed -i`, `perl -pi`, `truncate`, `tar -x`) where
    /// the command line wrote them: their text is no longer known; so is that of what a command
    /// reading a written file writes (`dd if=x.sh of=y.sh`, `rsync x.sh y.sh`). `mv`, `cp`, `ln`
    /// and `install` are [`Walker::copy_written`]'s, `chmod` and `touch` leave the text; what a
    /// redirection or `tee` writes is remembered after this.
    pub(super) fn edit_written(&mut self, command: &SimpleCommand) {
        // Their own, or what changes no file's text.
        const NOT_EDITS: &[&str] = &[
            "mv", "cp", "ln", "install", "tee", "chmod", "chown", "chgrp", "touch", "chattr",
        ];
        if NOT_EDITS.contains(&command.name()) {
            return;
        }
        let effects = file_effects(command);
        let reads_written = effects
            .reads
            .iter()
            .any(|read| !matches!(self.find_written(&read.path, &command.dirs), Found::Nothing));
        let redirected = |file: &String| command.redirects.iter().any(|r| r.target == *file);
        for file in effects.writes.iter().filter(|file| !redirected(file)) {
            match self.find_written(file, &command.dirs) {
                Found::One(at) => {
                    if let Some(written) = self.written.get_mut(at) {
                        written.text = None;
                    }
                }
                _ if reads_written => self.remember_written(file, None),
                _ => {}
            }
        }
        let filled: Vec<String> = effects
            .filled
            .iter()
            .filter_map(|dir| self.resolve(dir, &command.dirs))
            .collect();
        for written in &mut self.written {
            let inside = |path: &String| filled.iter().any(|dir| paths::is_within(path, dir));
            if written.path.as_ref().is_some_and(inside) {
                written.text = None;
            }
        }
    }

    /// A program compiled from code the command line gave on stdin (`echo … | cc -x c -`) or
    /// wrote (`cat > x.c …; gcc x.c -o x`, `go build -o x x.go`): running the binary runs that
    /// code, so the output is remembered as a script of an interpreter of the language (`#!`
    /// tcc's `-run` for C, yaegi for Go), whose code the walk reads when it runs. Code the line
    /// gave but whose text it does not say makes the binary's unknown. A compiler given only
    /// the project's own files is left alone, as any program of the project is.
    pub(super) fn compile_written(&mut self, command: &SimpleCommand) {
        let Some((interpreter, sources, output)) = compiled(command.name(), command.args()) else {
            return;
        };
        let mut code = Vec::new();
        let mut given = false;
        let mut known = true;
        for source in &sources {
            if source == "-" {
                given = true;
                match &command.stdin_text {
                    Some(text) => code.push(text.clone()),
                    None => known = false,
                }
                continue;
            }
            match self.find_written(source, &command.dirs) {
                Found::Nothing => {}
                Found::One(_) => {
                    given = true;
                    match self.written_text(source) {
                        Some(text) => code.push(text.to_owned()),
                        None => known = false,
                    }
                }
                Found::Unsure | Found::Each(_) => {
                    given = true;
                    known = false;
                }
            }
        }
        if !given {
            return;
        }
        let text = known.then(|| Contents::from(format!("#!{interpreter}\n{}", code.join("\n"))));
        self.remember_written(&output, text);
    }

    /// `mv`, `cp`, `ln` and `install` of a written file (`mv x.sh y.sh`, `cp x.sh bin/`, `ln -s
    /// x.sh y`): the copy holds its text. A destination that may be a directory gets the file
    /// under its own name too. A file the command line did not write, put over a written one,
    /// makes that one forgotten.
    pub(super) fn copy_written(&mut self, argv: &[String]) {
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let (moving, valued): (bool, &[char]) = match program.as_str() {
            "mv" => (true, &['t', 'S']),
            "cp" | "ln" => (false, &['t', 'S']),
            "install" => (false, &['t', 'S', 'm', 'o', 'g']),
            _ => return,
        };
        let long = ["target-directory", "suffix", "mode", "owner", "group"];
        let parsed = Parsed::new(args, valued, &long);
        // `install -d` makes directories.
        if program == "install" && parsed.has(&['d'], &["directory"]) {
            return;
        }
        let directory = parsed.values(&['t'], &["target-directory"]).pop();
        let (sources, destination, into) = match (directory, parsed.operands.split_last()) {
            (Some(directory), _) => (parsed.operands.as_slice(), directory, true),
            (None, Some((last, sources))) if !sources.is_empty() => {
                (sources, *last, sources.len() > 1 || last.ends_with('/'))
            }
            _ => return,
        };
        for source in sources {
            let name = last_component(source).unwrap_or_default();
            let under = format!("{}/{name}", destination.trim_end_matches('/'));
            let targets = match into {
                true => vec![under],
                false => vec![destination.to_owned(), under],
            };
            let text = match self.find_written(source, &[]) {
                Found::Nothing => {
                    targets
                        .iter()
                        .for_each(|target| self.forget_written(target));
                    continue;
                }
                Found::Unsure | Found::Each(_) => None,
                Found::One(at) if moving => self.written.remove(at).text,
                Found::One(at) => self.written.get(at).and_then(|w| w.text.clone()),
            };
            for target in targets {
                self.remember_copy(&target, text.clone());
            }
        }
    }

    /// `cd`, `pushd` and `popd` run in the shell (`in_shell`) move the walk: to the directory
    /// named when it is known (a bare `cd` to the event's home: the walk gives it HOME's value
    /// as its operand when the command line set HOME), back to the one before (`cd -`), to the
    /// one a `pushd` left (`popd`, a bare `pushd`), elsewhere to a directory only known at run
    /// time (`cd "$D"`, `popd` past what the line pushed, `pushd +1`). See [`WorkingDir`].
    pub(super) fn change_dir(&mut self, argv: &[Field], in_shell: bool, origin: Origin) {
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let name = basename(&program.text);
        let elsewhere = matches!(origin, Origin::Xargs | Origin::FindExec | Origin::Wrapper);
        if !matches!(name, "cd" | "pushd" | "popd" | "chdir") || !in_shell || elsewhere {
            return;
        }
        let operand = args
            .iter()
            .find(|arg| !arg.text.starts_with('-') || arg.text == "-")
            .map(|arg| arg.text.as_str());
        let rotates = operand.is_some_and(|dir| dir.starts_with('+'))
            || args.iter().any(|arg| is_stack_index(&arg.text));
        let keeps_dir = args.iter().any(|arg| arg.text == "-n") && name != "cd";
        let before = self.dir.cwd.clone();
        let known = match (name, operand) {
            // `pushd +N`, `popd -N`: another entry of a stack the walk may not hold.
            ("pushd" | "popd", _) if rotates => {
                self.dir.stack.clear();
                None
            }
            // `pushd -n DIR` puts DIR on the stack, `popd -n` takes it off; neither moves.
            ("pushd", Some(dir)) if keeps_dir => {
                let dir = self.resolve(dir, &[]).unwrap_or_else(|| self.unknown_dir());
                self.dir.push(dir);
                return;
            }
            ("popd", _) if keeps_dir => {
                self.dir.stack.pop();
                return;
            }
            ("pushd", None) => {
                let top = self.dir.stack.pop();
                self.dir.push(before.clone());
                top
            }
            ("pushd", Some(dir)) => {
                self.dir.push(before.clone());
                self.resolve(dir, &[])
            }
            ("popd", _) => self.dir.stack.pop(),
            (_, None) => self
                .home
                .as_deref()
                .and_then(|home| self.resolve_in(home, None)),
            (_, Some("-")) => self.dir.previous.clone(),
            (_, Some(dir)) if dir.starts_with('+') => None,
            (_, Some(dir)) => self.resolve(dir, &[]),
        };
        self.dir.cwd = known.unwrap_or_else(|| self.unknown_dir());
        self.dir.previous = Some(before);
    }

    /// Whether the command line may have put `name` in the environment of what runs after it
    /// (`""`: some name it cannot tell): it assigned it (`CC=x`, `export CC=$(…)`, `env CC=x
    /// make`), named it to a command that may set it (`read CC`, `printf -v CC`, `export CC`),
    /// or exported a name only known at run time (`export "$N=x"`); a name reference
    /// (`declare -n r=…`) may set any.
    pub(super) fn environment_may_set(&self, name: &str) -> bool {
        const DECLARES: &[&str] = &["export", "declare", "typeset", "readonly", "local"];
        let names_it = |command: &SimpleCommand| {
            let program = command.name();
            let args = command.args();
            let reference = matches!(program, "declare" | "typeset" | "local")
                && args
                    .iter()
                    .any(|arg| arg.starts_with('-') && arg.contains('n'));
            if reference {
                return true;
            }
            if set_by_builtin(program, args).is_some_and(|names| names.iter().any(|n| n == name)) {
                return true;
            }
            let sets = DECLARES.contains(&program);
            let named = |arg: &String| {
                let assigned = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
                match name.is_empty() {
                    true => DECLARES.contains(&program) && places::is_dynamic(assigned),
                    false => assigned == name,
                }
            };
            command.assignments.iter().any(|a| a.name == name) || (sets && args.iter().any(named))
        };
        self.budget.burn(self.out.commands.len() as u64 * STEP);
        self.assigned_many
            || self.assigned_names.iter().any(|known| known == name)
            || self.out.commands.iter().any(names_it)
    }

    /// A bare `cd` (`cd`, `cd -P`) after the command line gave HOME a value: the operand it
    /// stands for, that value (`HOME=/etc; cd` is `cd /etc`), which is only known at run time
    /// where HOME was given an unknown value.
    pub(super) fn bare_cd_home(&self, argv: &[Field]) -> Option<Field> {
        let (program, args) = argv.split_first()?;
        let bare = basename(&program.text) == "cd"
            && args
                .iter()
                .all(|arg| arg.text.starts_with('-') && arg.text != "-");
        if !bare {
            return None;
        }
        let (_, home) = self
            .variables
            .iter()
            .rev()
            .find(|(name, _)| name == "HOME")?;
        Some(Field {
            text: home.clone(),
            dynamic: true,
            valued: home != UNKNOWN_HOME,
        })
    }

    /// A `cd` or `pushd` to a relative directory after the command line set CDPATH (in the
    /// command's own assignments, `assigned`, or before it): the shell looks the directory up in
    /// CDPATH's entries first (`CDPATH=~ cd .ssh` goes to `~/.ssh`). The argument list with the
    /// operand as the first entry that is not the working directory gives it, or as a directory
    /// only known at run time where CDPATH's value is. `None` where CDPATH plays no part: no
    /// operand, or one that starts with `/`, `.` or `..`, or a CDPATH the line did not set.
    pub(super) fn cdpath_operand(
        &self,
        argv: &[Field],
        assigned: &[Assignment],
    ) -> Option<Vec<Field>> {
        let (program, args) = argv.split_first()?;
        if !matches!(basename(&program.text), "cd" | "pushd") {
            return None;
        }
        let at = args
            .iter()
            .position(|arg| !arg.text.starts_with('-') || arg.text == "-")?;
        let dir = args.get(at)?;
        let searched = !dir.text.is_empty()
            && !dir.text.starts_with(['/', '~', '+', '-'])
            && dir.text != "."
            && dir.text != ".."
            && !dir.text.starts_with("./")
            && !dir.text.starts_with("../");
        if !searched {
            return None;
        }
        let value = match assigned.iter().rev().find(|a| a.name == "CDPATH") {
            Some(assignment) => {
                only_plain_parameters(&assignment.value).then(|| assignment.value.clone())
            }
            None if self.assigned_names.iter().any(|name| name == "CDPATH") => {
                self.variable("CDPATH")
            }
            None if self.assigned_many => None,
            None => return None,
        };
        let entry = value.as_deref().map(|value| {
            value
                .split(':')
                .find(|entry| !entry.is_empty() && *entry != ".")
        });
        let operand = match entry {
            // Only the working directory is searched, as without CDPATH.
            Some(None) => return None,
            Some(Some(entry)) => Field {
                text: format!("{}/{}", entry.trim_end_matches('/'), dir.text),
                dynamic: true,
                valued: !entry.contains(['$', '`']),
            },
            None => Field {
                text: format!("${{CDPATH}}/{}", dir.text),
                dynamic: true,
                valued: false,
            },
        };
        let mut searched: Vec<Field> = argv.to_vec();
        *searched.get_mut(at + 1)? = operand;
        Some(searched)
    }

    /// A command that runs a file the command line wrote earlier (`bash x.sh`, `. x.sh`, `./x`,
    /// `python3 x.py`, `make`), in the directories `dirs` its wrappers give: see
    /// [`Walker::run_file`]; or one it loads by convention (`npm test`, `pytest`, see
    /// [`conventions`]).
    pub(super) fn run_written_script(&mut self, argv: &[Field], dirs: &[String], ctx: Ctx) {
        // Most command lines write nothing before they run something: nothing to look for.
        if self.written.is_empty() {
            return;
        }
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let name = basename(&program.text);
        if let Some(file) = exec::script_file(argv) {
            let runner = if std::ptr::eq(file, program) {
                Runner::Path
            } else if matches!(name, "." | "source") {
                Runner::Source
            } else {
                Runner::Shell
            };
            self.run_file(&file.text, runner, dirs, ctx);
        } else if matches!(name, "make" | "gmake") {
            self.run_makefiles(args, dirs, ctx);
        } else if let Some((kind, task_dirs, files)) = runners::task_files(name, args) {
            let runner = match kind {
                runners::TaskFile::Just => Runner::Just,
                runners::TaskFile::Taskfile => Runner::Taskfile,
                runners::TaskFile::Code(interpreter, preamble) => {
                    Runner::TaskCode(interpreter, preamble)
                }
            };
            let mut dirs = dirs.to_vec();
            dirs.extend(task_dirs);
            self.run_first_found(&files, runner, &dirs, ctx);
        } else if name == "go" && args.first().is_some_and(|run| run.text == "run") {
            // `go run x.go`: the written Go files it compiles and runs, read as yaegi runs Go.
            let sources: Vec<String> = args
                .iter()
                .skip(1)
                .take_while(|arg| arg.text != "--")
                .filter(|arg| arg.text.ends_with(".go"))
                .map(|arg| arg.text.clone())
                .collect();
            for source in sources {
                self.run_file(&source, Runner::Interpreter("yaegi"), dirs, ctx);
            }
        } else {
            let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
            if let Some(operand) = interp::script_operand(name, &texts) {
                self.run_file(&operand, Runner::Interpreter(name), dirs, ctx);
            }
        }
        self.run_convention_files(argv, dirs, ctx);
    }

    /// A command named by a pattern of a path (`./*.sh`, `scripts/*.sh`), run in the directories
    /// `dirs` its wrappers give: the shell runs the first file it matches, with the others as
    /// its arguments. Where the walk knows each written file it matches and where (see
    /// [`Walker::find_matching`]), each is run as `./x.sh` runs it, and `true` is returned; a
    /// file of the user's it may match is the user's to run. `false` where it matches no written
    /// file, the walk cannot tell which, the pattern holds no `/` (`*.sh` is looked up on the
    /// PATH), its directory is a pattern too, or programs live there (see [`holds_programs`]:
    /// `/bin/rm*` may run `rm`): the name is then only known at run time.
    pub(super) fn run_matching_program(
        &mut self,
        pattern: &str,
        dirs: &[String],
        ctx: Ctx,
    ) -> bool {
        if !pattern.contains('/') {
            return false;
        }
        let Some(resolved) = self.resolve(pattern, dirs) else {
            return false;
        };
        let Some((dir, _)) = resolved.rsplit_once('/') else {
            return false;
        };
        if places::has_glob(dir) || holds_programs(dir) {
            return false;
        }
        match self.find_matching(pattern, &resolved) {
            Found::Each(paths) => {
                self.run_each(paths, Runner::Path, ctx);
                true
            }
            Found::Nothing | Found::Unsure | Found::One(_) => false,
        }
    }

    /// A shell reads `file` as its script (`bash < x.sh`): see [`Walker::run_file`].
    pub(super) fn run_written_shell_script(&mut self, file: &str, ctx: Ctx) {
        self.run_file(file, Runner::Shell, &[], ctx);
    }

    /// Runs `file` with `runner` when the command line wrote it: walks its text one level deeper,
    /// or reports a script only known at run time when the text is not known or the walk cannot
    /// tell which file runs. `{}` in a command `find -exec` runs is each written file the
    /// `find` lists.
    fn run_file(&mut self, file: &str, runner: Runner<'_>, dirs: &[String], ctx: Ctx) {
        if ctx.origin == Origin::FindExec && file == "{}" {
            self.run_found(runner, ctx);
            return;
        }
        self.load(file, runner, dirs, ctx);
    }

    /// Runs the written file at `file` with `runner`, or reports it as only known at run time
    /// when the walk cannot tell whether it is the one loaded.
    fn load(&mut self, file: &str, runner: Runner<'_>, dirs: &[String], ctx: Ctx) {
        match self.find_run(file, dirs) {
            Found::Nothing => {}
            Found::Unsure => self.unresolved(Unresolved::DynamicScript(format!(
                "<{file} as this command line may have written it>"
            ))),
            Found::One(at) => self.run_text(at, runner, file, ctx),
            Found::Each(paths) => self.run_each(paths, runner, ctx),
        }
    }

    /// The written files the nearest `find` before a command it runs lists (`find . -name
    /// x.sh -exec sh {} \;`): each one is run, up to [`MAX_FOUND_SCRIPTS`].
    fn run_found(&mut self, runner: Runner<'_>, ctx: Ctx) {
        let Some(find) = self.out.commands.iter().rev().find(|c| c.name() == "find") else {
            return;
        };
        let here = self.dir.cwd.clone();
        let patterns: Vec<String> = exec::find_selected(find.args(), exec::FindOutput::Executed)
            .iter()
            .filter_map(|pattern| self.resolve_in(pattern, Some(&here)))
            .collect();
        let listed = |path: &str| {
            patterns
                .iter()
                .any(|pattern| places::glob_match(pattern, path))
        };
        let found: Vec<String> = self
            .written
            .iter()
            .filter_map(|written| written.path.clone())
            .filter(|path| listed(path))
            .take(MAX_FOUND_SCRIPTS)
            .collect();
        let unsure = patterns.is_empty() || self.written.iter().any(|w| w.path.is_none());
        if unsure && !self.written.is_empty() {
            self.unresolved(Unresolved::DynamicScript(
                "<{} as this command line may have written it>".to_owned(),
            ));
        }
        self.run_each(found, runner, ctx);
    }

    /// Runs with `runner` the written files at these canonical paths.
    fn run_each(&mut self, paths: Vec<String>, runner: Runner<'_>, ctx: Ctx) {
        for path in paths {
            if let Found::One(at) = self.find_written(&path, &[]) {
                self.run_text(at, runner, &path, ctx);
            }
        }
    }

    /// The makefiles `make ARGS` reads (see [`runners::makefiles`]) that the command line wrote:
    /// their recipes run.
    fn run_makefiles(&mut self, args: &[Field], dirs: &[String], ctx: Ctx) {
        let (make_dirs, files) = runners::makefiles(args);
        let assigned = make_assignments(args);
        let mut dirs = dirs.to_vec();
        dirs.extend(make_dirs);
        self.run_first_found(&files, Runner::Make(&assigned), &dirs, ctx);
    }

    /// Runs with `runner` the first of `files` (the names a task runner looks for, in order)
    /// that the command line wrote, in the directories `dirs`: a task runner reads the first it
    /// finds.
    fn run_first_found(&mut self, files: &[String], runner: Runner<'_>, dirs: &[String], ctx: Ctx) {
        for file in files {
            match self.find_run(file, dirs) {
                Found::Nothing => continue,
                Found::Unsure => self.unresolved(Unresolved::DynamicScript(format!(
                    "<{file} as this command line may have written it>"
                ))),
                Found::One(at) => self.run_text(at, runner, file, ctx),
                Found::Each(paths) => self.run_each(paths, runner, ctx),
            }
            break;
        }
    }

    /// Walks the text of written file `at` as `runner` runs it (each text, where the shell
    /// decides it: see [`Contents`]). While its text is walked the file is forgotten, so that a
    /// script that runs itself is walked once.
    fn run_text(&mut self, at: usize, runner: Runner<'_>, file: &str, ctx: Ctx) {
        if at >= self.written.len() {
            return;
        }
        let written = self.written.remove(at);
        match &written.text {
            None => self.unknown_text(file),
            Some(contents) => {
                for text in contents.readings() {
                    self.budget.burn(text.len() as u64);
                    self.run_reading(text, runner, file, ctx);
                }
            }
        }
        if self.written.len() < MAX_WRITTEN_FILES {
            self.written.push(written);
        }
    }

    /// Reports written file `file` as only known at run time.
    fn unknown_text(&mut self, file: &str) {
        self.unresolved(Unresolved::DynamicScript(format!(
            "<{file} as this command line wrote it>"
        )));
    }

    /// Walks `text`, what written file `file` holds, as `runner` runs it.
    fn run_reading(&mut self, text: &str, runner: Runner<'_>, file: &str, ctx: Ctx) {
        match runner {
            Runner::Interpreter(name) => self.run_code(name, text, ctx),
            Runner::TaskCode(name, preamble) => {
                self.run_code(name, &format!("{preamble}{text}"), ctx)
            }
            Runner::PthFile => {
                let code: Vec<&str> = text
                    .lines()
                    .filter(|line| line.starts_with("import ") || line.starts_with("import\t"))
                    .collect();
                if !code.is_empty() {
                    self.run_code("python3", &code.join("\n"), ctx);
                }
            }
            Runner::PackageScripts(names) => match conventions::package_json_scripts(text, names) {
                None => self.unknown_text(file),
                Some(scripts) => {
                    for script in scripts {
                        self.script(&script, Origin::ShellString, ctx.depth + 1);
                    }
                }
            },
            Runner::Make(assigned) => {
                let set_outside = |name: &str| {
                    assigned
                        .iter()
                        .any(|known| known == name || known.is_empty())
                        || self.environment_may_set(name)
                };
                let nested = runners::makefile_commands(text, &set_outside);
                self.follow(Vec::new(), nested, None, ctx, &Stdin::default());
            }
            Runner::Just => {
                let nested = runners::justfile_commands(text);
                self.follow(Vec::new(), nested, None, ctx, &Stdin::default());
            }
            Runner::Taskfile => match runners::taskfile_commands(text) {
                None => self.unknown_text(file),
                Some(nested) => {
                    self.follow(Vec::new(), nested, None, ctx, &Stdin::default());
                }
            },
            Runner::Source => self.script_in_this_shell(text, ctx.depth + 1),
            Runner::Shell | Runner::Path => match shebang_program(text) {
                None => self.script(text, Origin::ShellString, ctx.depth + 1),
                // A `#!` line with a backslash in its program (`#!/bin/sh\\nls`, as bash's echo
                // writes it) names none that exists: the shell reads the line as a comment.
                Some(program) if SHELLS.contains(&program) || program.contains('\\') => {
                    self.script(text, Origin::ShellString, ctx.depth + 1);
                }
                Some(program)
                    if matches!(runner, Runner::Path) && interp::is_interpreter(program) =>
                {
                    self.run_code(program, text, ctx);
                }
                Some(_) => self.unknown_text(file),
            },
        }
    }

    /// Walks `text` as the program interpreter `name` runs, as if fed to its standard input
    /// (`python3 - <<'EOF'`): the interpreter's code analysis reads it.
    fn run_code(&mut self, name: &str, text: &str, ctx: Ctx) {
        let Some(inner) = self.deeper(ctx, Origin::Interpreter) else {
            return;
        };
        let program = Field {
            text: name.to_owned(),
            dynamic: false,
            valued: false,
        };
        let base = Base {
            stdin_text: Some(text.to_owned()),
            ..Base::default()
        };
        self.run(vec![program], base, inner, &Stdin::default());
    }
}

/// The names `make ARGS` assigns on its command line (`CC` of `make CC=clang all`); an empty
/// name for an argument only known at run time, which may be one.
fn make_assignments(args: &[Field]) -> Vec<String> {
    args.iter()
        .filter(|arg| !arg.text.starts_with('-'))
        .filter_map(|arg| match arg.text.split_once('=') {
            Some((name, _)) if !places::is_dynamic(name) => Some(name.to_owned()),
            _ if arg.dynamic => Some(String::new()),
            _ => None,
        })
        .collect()
}

/// C and C++ compilers' options whose value is a separate word.
const COMPILER_VALUED: &[&str] = &[
    "-o",
    "-x",
    "-I",
    "-L",
    "-l",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-MF",
    "-MT",
    "-MQ",
    "-T",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-target",
    "--target",
];

/// Whether `name ARGS` compiles a program whose code the walk may know (see [`compiled`]).
pub(super) fn compiles(name: &str, args: &[String]) -> bool {
    compiled(name, args).is_some()
}

/// Options after which a C compiler makes no program (`-c` an object, `-E` preprocessed text).
const COMPILE_ONLY: &[&str] = &["-c", "-E", "-S", "-M", "-MM", "-fsyntax-only", "--version"];

/// What `name ARGS` compiles into a program (see [`Walker::compile_written`]): the `#!` program
/// that runs its code as an interpreter would, its source files (`-` for stdin), and the
/// program it writes (`-o FILE`, by default `a.out`; `go build`'s first file without `.go`).
fn compiled(name: &str, args: &[String]) -> Option<(&'static str, Vec<String>, String)> {
    if name == "go" {
        let (build, rest) = args.split_first()?;
        if build != "build" {
            return None;
        }
        let parsed = Parsed::new(rest, &['o', 'C'], &["o", "C", "tags", "ldflags", "gcflags"]);
        let sources: Vec<String> = parsed
            .operands
            .iter()
            .filter(|source| source.ends_with(".go"))
            .map(|source| (*source).to_owned())
            .collect();
        let output = parsed
            .values(&['o'], &["o"])
            .last()
            .map(|output| (*output).to_owned())
            .or_else(|| {
                let first = sources.first()?;
                let name = last_component(first)?;
                Some(name.strip_suffix(".go").unwrap_or(name).to_owned())
            })?;
        return Some(("/usr/bin/env yaegi", sources, output));
    }
    let compiler = ["cc", "gcc", "clang", "c++", "g++", "clang++", "tcc"]
        .iter()
        .any(|compiler| {
            name == *compiler
                || name
                    .strip_prefix(compiler)
                    .and_then(|version| version.strip_prefix('-'))
                    .is_some_and(|version| version.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        });
    if !compiler || args.iter().any(|arg| COMPILE_ONLY.contains(&arg.as_str())) {
        return None;
    }
    let mut sources = Vec::new();
    let mut output = "a.out".to_owned();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if arg == "-o" {
            output = words.next()?.clone();
        } else if COMPILER_VALUED.contains(&arg.as_str()) {
            words.next();
        } else if let Some(glued) = arg.strip_prefix("-o").filter(|o| !o.is_empty()) {
            output = glued.to_owned();
        } else if arg == "-" || !arg.starts_with('-') {
            sources.push(arg.clone());
        }
    }
    Some(("/usr/bin/tcc -run", sources, output))
}

/// What follows a leading `$PWD`, `${PWD}`, `$(pwd)` or `` `pwd` `` in `path` (`/x.sh`), if it
/// starts with one.
fn pwd_rest(path: &str) -> Option<&str> {
    ["$PWD", "${PWD}", "$(pwd)", "`pwd`"]
        .iter()
        .filter(|prefix| starts_with_component(path, prefix))
        .find_map(|prefix| path.strip_prefix(prefix))
}

/// Whether `path` starts with the whole component `prefix` (`$HOME/x`, not `$HOMEDIR/x`).
fn starts_with_component(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The last component of a path (`x.sh` of `../bin/x.sh`), `None` for one ending in `/`.
fn last_component(path: &str) -> Option<&str> {
    path.rsplit('/').next().filter(|name| !name.is_empty())
}

/// The program a text's `#!` line names (`sh` of `#!/bin/sh`, `python3` of `#!/usr/bin/env
/// python3`), `None` without one.
fn shebang_program(text: &str) -> Option<&str> {
    let shebang = text.strip_prefix("#!")?;
    let line = shebang.lines().next().unwrap_or_default();
    let mut words = line.split_whitespace();
    let program = words.next().map(basename).unwrap_or_default();
    if program == "env" {
        return Some(
            words
                .find(|word| !word.starts_with('-'))
                .unwrap_or_default(),
        );
    }
    Some(program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{ShellLimits, analyze_at};

    /// The commands `command` runs, each as its argv joined, in `/home/u/proj`.
    fn lines(command: &str) -> Vec<String> {
        let place = PathContext {
            cwd: "/home/u/proj",
            home: Some("/home/u"),
        };
        analyze_at(command, &ShellLimits::default(), Some(&place))
            .commands
            .iter()
            .map(|c| c.argv.join(" "))
            .collect()
    }

    /// Whether the analysis of `command` reports a script only known at run time.
    fn unsure(command: &str) -> bool {
        let analysis = analyze_at(command, &ShellLimits::default(), None);
        analysis
            .unresolved
            .iter()
            .any(|item| matches!(item, Unresolved::DynamicScript(_)))
    }

    #[test]
    fn a_written_script_is_found_under_any_spelling_of_its_path() {
        for run in [
            "bash $PWD/x.sh",
            "bash \"$(pwd)/x.sh\"",
            "/home/u/proj/x.sh",
            "cd sub; bash ../x.sh",
            "cd /tmp && bash ~/proj/x.sh",
            "mv x.sh y.sh && sh y.sh",
            "cp x.sh bin/ && bin/x.sh",
            "ln -s x.sh y && ./y",
            "install -m 755 x.sh bin/y && bin/y",
            "cat x.sh > y.sh && bash y.sh",
            "env -C .. bash proj/x.sh",
            "find . -name '*.sh' -exec sh {} \\;",
            "echo x.sh | xargs sh",
        ] {
            let command = format!("echo 'rm -rf ~' > x.sh; {run}");
            assert!(
                lines(&command).contains(&"rm -rf ~".to_owned()),
                "{command}"
            );
        }
        for run in [
            "cd sub && bash x.sh",
            "bash /tmp/x.sh",
            "mv x.sh y.sh; bash x.sh",
        ] {
            let command = format!("echo 'rm -rf ~' > x.sh; {run}");
            assert!(
                !lines(&command).contains(&"rm -rf ~".to_owned()),
                "{command}"
            );
        }
    }

    #[test]
    fn written_code_runs_as_its_interpreter_or_make_reads_it() {
        for command in [
            "echo 'import os; os.system(\"rm -rf ~\")' > x.py; python3 -u x.py",
            "echo 'import os; os.system(\"rm -rf ~\")' > x.py; python3 < x.py",
            "echo '#!/usr/bin/env python3' > x; echo 'import os; os.system(\"rm -rf ~\")' >> x; ./x",
            "printf 'a:\\n\\trm -rf ~\\n' > Makefile; make a",
            "printf 'a:\\n\\trm -rf ~\\n' > sub/GNUmakefile; make -C sub",
        ] {
            assert!(lines(command).contains(&"rm -rf ~".to_owned()), "{command}");
        }
        assert!(
            lines("echo 'import os; os.system(\"rm -rf ~\")' > x.py; python3 -m x")
                .contains(&"rm -rf ~".to_owned())
        );
    }

    #[test]
    fn where_the_walk_cannot_tell_which_file_runs_it_reports_it() {
        for command in [
            "echo 'rm -rf ~' > x.sh; bash \"$S\"",
            "echo 'rm -rf ~' > x.sh; cd \"$D\"; bash ../x.sh",
            "echo 'rm -rf ~' > /tmp/x.sh; cd \"$D\"; bash x.sh",
            "echo 'rm -rf ~' > x.sh; if true; then cd sub; fi; bash x.sh",
            "echo 'rm -rf ~' > x.sh; sed -i 1d x.sh; bash x.sh",
            "echo 'rm -rf ~' > x.sh; dd if=x.sh of=y.sh; bash y.sh",
        ] {
            assert!(unsure(command), "{command}");
        }
        // The same relative path in the same unknown directory is the same file.
        assert!(!unsure("cd \"$D\" && echo 'rm -rf ~' > x.sh && bash x.sh"));
        assert!(!unsure("echo 'ls' > x.sh; chmod +x x.sh; ./x.sh"));
        assert!(!unsure("echo 'ls' > x.sh; bash y.sh"));
        assert!(!unsure("make > \"$LOG\"; ./build.sh"));
    }

    #[test]
    fn an_echo_with_escapes_writes_each_shells_text() {
        for command in [
            "echo 'ls\\nrm -rf ~' > f; bash f",
            "echo 'rm -rf ~\\nls' > f; ./f",
            "echo -e '#!/bin/sh\\nrm -rf ~' > f; ./f",
            "echo '#!/bin/sh\\nls' > f; echo 'rm -rf ~' >> f; sh f",
            "echo 'ls\\nrm -rf ~' | tee f; sh f",
            "echo 'ls\\nrm -rf ~' | sh",
        ] {
            assert!(lines(command).contains(&"rm -rf ~".to_owned()), "{command}");
        }
        // Bash's text is one line: a comment, or one command.
        assert!(!unsure("echo '#!/bin/sh\\nls' > f; ./f"));
        assert!(lines("echo 'ls\\npwd' > f; bash f").contains(&"lsnpwd".to_owned()));
        // `\x0a` is a new line to zsh's echo, text to bash's and dash's.
        assert!(lines("echo 'ls\\x0arm -rf ~' > f; bash f").contains(&"rm -rf ~".to_owned()));
        // Three texts, or an escape read in ways not modelled, are not followed.
        assert!(unsure("echo 'ls\\x0a\\npwd' > f; bash f"));
        assert!(unsure("echo -e 'ls\\e[0mpwd' > f; bash f"));
    }

    #[test]
    fn a_default_of_a_variable_the_line_never_sets_names_the_file() {
        assert!(
            lines("echo 'rm -rf ~' > g.sh; bash ${GEN:-g.sh}").contains(&"rm -rf ~".to_owned())
        );
        assert!(!unsure("echo 'ls' > g.sh; bash ${GEN:-g.sh}"));
        assert!(!unsure("echo 'ls' > x.txt; sh \"${GEN-gen.sh}\""));
        for command in [
            "echo 'ls' > g.sh; GEN=$(cat f); bash ${GEN:-g.sh}",
            "echo 'ls' > g.sh; read GEN; bash ${GEN:-g.sh}",
            "echo 'ls' > g.sh; ((GEN=1)); bash ${GEN:-g.sh}",
            "echo 'ls' > g.sh; declare -n r=$'\\x47EN'; bash ${GEN:-g.sh}",
            "echo 'ls' > g.sh; bash ${GEN:-$DIR/g.sh}",
            "echo 'ls' > g.sh; mv ${GEN:-g.sh} h.sh; bash h.sh",
        ] {
            assert!(unsure(command), "{command}");
        }
    }

    #[test]
    fn a_pattern_runs_each_written_file_it_matches() {
        for command in [
            "echo 'rm -rf ~' > a.sh; bash *.sh",
            "echo 'rm -rf ~' > a.sh; echo ls > b.sh; for f in *.sh; do sh \"$f\"; done",
            "echo 'rm -rf ~' > s/a.sh; for f in s/*; do bash \"$f\"; done",
            "echo 'rm -rf ~' > s/a.sh; find . -name '*.sh' | xargs -n1 sh",
            "echo 'rm -rf ~' > a.sh; find . -name '*.sh' | while read f; do sh \"$f\"; done",
        ] {
            assert!(lines(command).contains(&"rm -rf ~".to_owned()), "{command}");
            assert!(!unsure(command), "{command}");
        }
        assert!(!unsure(
            "echo 'rm -rf ~' > a.sh; for f in *.py; do python3 \"$f\"; done"
        ));
        // A written file whose place the walk cannot tell may match too.
        assert!(unsure(
            "cd \"$D\"; echo 'ls' > a.sh; cd /tmp; for f in *.sh; do bash \"$f\"; done"
        ));
        assert!(unsure("echo 'ls' > a.sh; mv a.sh \"$D\"; bash \"$D\"/*.sh"));
    }

    #[test]
    fn a_pattern_naming_the_program_runs_the_written_files_it_matches() {
        let dynamic_name = |command: &str| {
            analyze_at(command, &ShellLimits::default(), None)
                .unresolved
                .iter()
                .any(|item| matches!(item, Unresolved::DynamicCommand(_)))
        };
        for command in [
            "echo 'rm -rf ~' > a.sh; ./*.sh",
            "echo 'rm -rf ~' > s/a.sh; s/*.sh -x",
            "cd /tmp; echo 'rm -rf ~' > a.sh; sudo ./a*",
            "echo 'rm -rf ~' > a.sh; echo ls > b.sh; ./[ab].sh",
        ] {
            assert!(lines(command).contains(&"rm -rf ~".to_owned()), "{command}");
            assert!(!dynamic_name(command), "{command}");
        }
        for command in [
            // It matches no written file, the walk cannot tell where, no `/` (a PATH lookup),
            // a pattern of directories, a place where programs live.
            "echo 'rm -rf ~' > a.sh; ./*.py",
            "echo 'rm -rf ~' > a.sh; mv a.sh \"$D\"; ./*.sh",
            "echo 'rm -rf ~' > a.sh; *.sh",
            "echo 'rm -rf ~' > s/a.sh; ./*/a.sh",
            "echo x > /usr/local/bin/rmz; /usr/local/bin/rm* -rf ~",
            "echo x > ~/.local/bin/rmz; ~/.local/bin/rm* -rf ~",
            "echo x > /rmz; /rm* -rf ~",
        ] {
            assert!(dynamic_name(command), "{command}");
        }
    }

    #[test]
    fn cd_minus_and_popd_go_back() {
        let runs = |moves: &str| {
            let command = format!("echo 'rm -rf ~' > /home/u/proj/x.sh; {moves}; bash x.sh");
            lines(&command).contains(&"rm -rf ~".to_owned())
        };
        for moves in [
            "cd /tmp; cd -",
            "cd /tmp; cd -; cd -; cd -",
            "cd /tmp; cd /var; cd -; cd -; cd -; cd ~/proj",
            "pushd /tmp; popd",
            "pushd a; pushd b; popd; popd",
            "pushd /tmp; pushd",
            "pushd -n /tmp; popd -n; pushd /var; popd",
            "pushd /tmp; (cd /var); popd",
        ] {
            assert!(runs(moves), "{moves}");
        }
        for moves in ["cd /tmp; cd -; cd -", "pushd /tmp; pushd /var; popd"] {
            assert!(!runs(moves), "{moves}");
        }
        for moves in [
            "cd -",
            "popd",
            "pushd /tmp; popd; popd",
            "pushd /tmp; pushd +1",
            "cd /tmp; true && cd /var; cd -",
            "pushd /tmp; f() { pushd /var; }; f; popd",
        ] {
            let command = format!("echo 'rm -rf ~' > x.sh; {moves}; bash x.sh");
            assert!(unsure(&command), "{moves}");
        }
        assert!(is_stack_index("+1") && is_stack_index("-0"));
        assert!(!is_stack_index("-n") && !is_stack_index("-"));
    }

    #[test]
    fn a_bare_cd_goes_to_home_as_the_line_set_it() {
        assert_eq!(lines("HOME=/etc; cd"), ["cd /etc"]);
        assert_eq!(lines("cd"), ["cd"]);
        assert!(!unsure(
            "echo 'rm -rf ~' > /etc/x.sh; HOME=/etc; cd; bash x.sh"
        ));
        assert!(
            lines("echo 'rm -rf /' > /etc/x.sh; HOME=/etc; cd; bash x.sh")
                .contains(&"rm -rf /".to_owned())
        );
    }

    #[test]
    fn cd_searches_cdpath_as_the_line_set_it() {
        assert_eq!(lines("CDPATH=~ cd .ssh")[0], "cd ~/.ssh");
        assert_eq!(lines("CDPATH=/; cd etc"), ["cd /etc"]);
        assert_eq!(
            lines("export CDPATH=.:/srv; pushd app")[1],
            "pushd /srv/app"
        );
        assert_eq!(lines("CDPATH=$X cd etc")[0], "cd $X/etc");
        assert_eq!(lines("read CDPATH; cd etc")[1], "cd ${CDPATH}/etc");
        for (line, cd) in [
            ("cd etc", "cd etc"),
            ("CDPATH=/ cd ./etc", "cd ./etc"),
            ("CDPATH=/ cd /etc", "cd /etc"),
            ("CDPATH=/ cd ..", "cd .."),
            ("CDPATH=.: cd etc", "cd etc"),
            ("CDPATH=/ cd -", "cd -"),
        ] {
            assert_eq!(lines(line), [cd], "{line}");
        }
    }

    #[test]
    fn interpreter_script_operands() {
        let operand = |name: &str, words: &[&str]| {
            let args: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            interp::script_operand(name, &args)
        };
        assert_eq!(
            operand("python3", &["-u", "x.py", "a"]),
            Some("x.py".to_owned())
        );
        assert_eq!(
            operand("node", &["--require", "r", "x.js"]),
            Some("x.js".to_owned())
        );
        assert_eq!(
            operand("python3", &["-m", "a.b"]),
            Some("a/b.py".to_owned())
        );
        assert_eq!(operand("python3", &["-c", "print(1)", "x.py"]), None);
        assert_eq!(operand("python3", &[]), None);
        assert_eq!(operand("bash", &["x.sh"]), None);
        // Deno's program follows `run` or `serve` and their options, or stands first.
        assert_eq!(
            operand("deno", &["run", "-c", "deno.json", "-A", "x.ts", "a"]),
            Some("x.ts".to_owned())
        );
        assert_eq!(operand("deno", &["./x.ts"]), Some("./x.ts".to_owned()));
        assert_eq!(operand("deno", &["run", "-"]), None);
        assert_eq!(operand("deno", &["task", "dev"]), None);
        assert_eq!(operand("deno", &["eval", "x.y"]), None);
    }

    #[test]
    fn shebang_lines() {
        assert_eq!(shebang_program("rm -rf ~\n"), None);
        assert_eq!(shebang_program("#!/bin/sh\nls\n"), Some("sh"));
        assert_eq!(
            shebang_program("#!/usr/bin/env -S python3 -u\n"),
            Some("python3")
        );
        assert_eq!(shebang_program("#!/usr/bin/python3\n"), Some("python3"));
    }

    #[test]
    fn working_directory_references() {
        assert_eq!(pwd_rest("$PWD/x.sh"), Some("/x.sh"));
        assert_eq!(pwd_rest("${PWD}"), Some(""));
        assert_eq!(pwd_rest("$(pwd)/a/b"), Some("/a/b"));
        assert_eq!(pwd_rest("$PWDX/x.sh"), None);
        assert_eq!(last_component("../bin/x.sh"), Some("x.sh"));
        assert_eq!(last_component("bin/"), None);
    }
}
