//! PowerShell front end: reads a PowerShell command line and writes the POSIX shell script that
//! does the same to files and the network, which the shell analysis and every baseline rule
//! then judge (`Remove-Item -Recurse -Force ~` is `rm -r -f -- "$HOME"`, `iwr URL | iex` is
//! `curl URL | sh`).
//!
//! - Cmdlets and their aliases (case-insensitive, parameters by unambiguous prefix, positional
//!   ones) become the POSIX program with the same effect (see [`CMDLETS`]); other commands pass
//!   through with their arguments quoted.
//! - The home and the usual folders (`~`, `$HOME`, `$env:USERPROFILE`, `$env:APPDATA`,
//!   `$PROFILE`, `$env:TEMP`, …) become paths under `$HOME`; other variables stay run-time
//!   values (`"$NAME"`).
//! - Backslashes in literal text become slashes: Windows reads both as a path separator.
//! - Script blocks (`ForEach-Object { … }`, `Invoke-Command { … }`, `if (…) { … }`) and
//!   subexpressions are judged as code that runs.
//!
//! - Static .NET calls of the common types (`[IO.File]::ReadAllText(P)`,
//!   `[IO.Directory]::Delete(P, $true)`, `[Environment]::GetEnvironmentVariables()`) become the
//!   POSIX command with the same effect (`cat`, `rm -r`, `env`; see [`dotnet`]).
//!
//! What the reader cannot read (a static member of another type, `[Reflection.Assembly]::Load(…)`,
//! `<`) gives `None`: the caller falls back.

mod cmdlets;
mod dotnet;
mod read;
mod variables;

use super::parse::{Budget, STEP};
use cmdlets::{CMDLETS, Cmdlet, Effect, KEYWORDS, Param, find_param};
use dotnet::Call;
use read::{Command, Join, Part, Pipeline, Script, Static, Word, read};

/// The fuel a part of a word costs each time it is copied or written: it is allocated, quoted
/// and freed (see [`Budget::burn`]).
const PART: u64 = 32;

/// Deepest nesting of PowerShell in PowerShell (`pwsh -c`, `iex '…'`, `cmd /c`) followed.
const MAX_NESTING: usize = 4;

/// The POSIX shell script equivalent to PowerShell `code`, or `None` when it cannot be read.
/// Reading and writing burn `budget`'s fuel; once that is out, what comes out is not to be
/// trusted (the caller asks [`Budget::out_of_fuel`]).
///
/// ```text
/// Remove-Item -Recurse -Force ~      →  rm -r -f -- "$HOME"
/// iwr https://x/a.ps1 | iex          →  curl -- https://x/a.ps1 | sh
/// ```
pub(super) fn to_posix(code: &str, budget: &Budget) -> Option<String> {
    translate(code, 0, budget)
}

/// The POSIX script of what `program` (`pwsh`, `powershell`, `cmd`, by base name, `.exe` or
/// not) runs when given these arguments (`-Command CODE`, `-EncodedCommand BASE64`, `/c LINE`),
/// or `None` when that is not inline code this front end reads; for `reg`, `schtasks` and `sc`,
/// what [`windows_native`] makes of them.
///
/// ```text
/// pwsh ["-NoProfile", "-c", "Get-Content ~/.ssh/id_rsa"]  →  { cat -- "$HOME"/.ssh/id_rsa }
/// cmd ["/c", "rd /s /q build"]                             →  { rm -r -f -- build }
/// ```
pub(super) fn invocation_to_posix(program: &str, args: &[&str], budget: &Budget) -> Option<String> {
    let words: Vec<Word> = args.iter().map(|arg| Word::text(arg)).collect();
    let writer = Writer { nesting: 0, budget };
    match windows_program(program).as_str() {
        "cmd" => writer.cmd(&words),
        "pwsh" | "powershell" => writer.nested_powershell(&words),
        program => windows_native(program, &words),
    }
}

/// What a Windows program that makes something run outside the session does, in POSIX terms
/// (`crontab -`): `schtasks /create`, `sc create|config` and `reg add|delete` of a Run key. The
/// PowerShell front end and a Bash command line (Git Bash) both judge them so.
fn windows_native(program: &str, rest: &[Word]) -> Option<String> {
    let persists = match program {
        "schtasks" => has_word(rest, "/create"),
        // sc.exe installs or changes a service (PowerShell 5's `sc` alias would write a
        // file named `create`; the intent is the service).
        "sc" => has_word(rest, "create") || has_word(rest, "config"),
        // A Run value set or deleted (`reg add|delete …\Run /v x`).
        "reg" => (has_word(rest, "add") || has_word(rest, "delete")) && rest.iter().any(is_run_key),
        _ => false,
    };
    persists.then(|| "crontab -".to_owned())
}

/// A program's base name in lowercase without `.exe` (`C:\Windows\System32\cmd.exe` → `cmd`).
fn windows_program(program: &str) -> String {
    let base = program.rsplit(['\\', '/']).next().unwrap_or(program);
    let lower = base.to_ascii_lowercase();
    lower.strip_suffix(".exe").unwrap_or(&lower).to_owned()
}

/// Every command of PowerShell `code` as written, those in script blocks and subexpressions
/// too (what a `PowerShell(…)` permission rule is matched against), or `None` when it cannot be
/// read.
///
/// ```text
/// git add .; ls | % { Remove-Item $_ }  →  [git add ., ls, % { Remove-Item $_ }, Remove-Item $_]
/// ```
pub(crate) fn command_texts(code: &str) -> Option<Vec<String>> {
    let script = read(code)?;
    let mut texts = Vec::new();
    collect_sources(&script, &mut texts);
    Some(texts)
}

/// Pushes the source of each command of `script` and of the code nested in it (as deep as the
/// reader read, which bounds it).
fn collect_sources(script: &Script, texts: &mut Vec<String>) {
    for (pipeline, _) in &script.statements {
        for command in &pipeline.commands {
            if !command.source.is_empty() {
                texts.push(command.source.clone());
            }
            for part in command.words.iter().flat_map(|word| &word.parts) {
                if let Part::Sub(nested) | Part::Block(nested) = part {
                    collect_sources(nested, texts);
                }
            }
        }
    }
}

/// [`to_posix`] of code `nesting` levels of PowerShell-in-PowerShell down.
fn translate(code: &str, nesting: usize, budget: &Budget) -> Option<String> {
    if nesting > MAX_NESTING || !budget.burn_text(code) {
        return None;
    }
    let mut script = read(code)?;
    variables::substitute(&mut script, budget);
    Some(Writer { nesting, budget }.script(&script))
}

/// Writes the POSIX form of what was read.
struct Writer<'b> {
    nesting: usize,
    /// Every command and word written burns its fuel: a command's arguments may be written
    /// several times (bound for its own effect and for the listing it feeds a pipeline), and
    /// the code nested in them with them.
    budget: &'b Budget,
}

/// The arguments of a cmdlet call, bound to its parameters.
#[derive(Default)]
struct Bound {
    switches: Vec<&'static str>,
    /// The values, written for POSIX.
    values: Vec<(&'static str, Vec<String>)>,
    /// Which literal text each bound value had (for Start-Process's argument string).
    literals: Vec<(&'static str, Vec<Option<String>>)>,
    /// The words as read (a piped `Remove-Item` removes what `Get-ChildItem` lists).
    words: Vec<(&'static str, Vec<Word>)>,
}

impl Bound {
    /// Binds `words` to the parameter `name`.
    fn push(&mut self, writer: &Writer<'_>, name: &'static str, words: Vec<Word>) {
        self.values
            .push((name, words.iter().map(|w| writer.word(w)).collect()));
        self.literals
            .push((name, words.iter().map(Word::literal).collect()));
        self.words.push((name, words));
    }

    /// Whether the switch was given (and not `:$false`).
    fn has(&self, switch: &str) -> bool {
        self.switches.contains(&switch)
    }

    /// Every value bound to any of the parameters, in POSIX quoting.
    fn values(&self, names: &[&str]) -> Vec<String> {
        bound_to(&self.values, names)
    }

    /// Every word bound to any of the parameters, as read.
    fn words(&self, names: &[&str]) -> Vec<Word> {
        bound_to(&self.words, names)
    }

    /// The first value bound to the parameter.
    fn value(&self, name: &str) -> Option<String> {
        self.values(&[name]).into_iter().next()
    }

    /// The literal text of each value bound to the parameter (`None` for a run-time value).
    fn literals(&self, name: &str) -> Vec<Option<String>> {
        bound_to(&self.literals, &[name])
    }
}

/// Every item bound to any of the parameters `names`, in their order: one lookup for the values,
/// words and literals [`Bound`] keeps side by side.
fn bound_to<T: Clone>(bound: &[(&'static str, Vec<T>)], names: &[&str]) -> Vec<T> {
    names
        .iter()
        .flat_map(|name| {
            bound
                .iter()
                .filter(move |(parameter, _)| parameter == name)
                .flat_map(|(_, items)| items.iter().cloned())
        })
        .collect()
}

impl Writer<'_> {
    /// Statements, one a line or joined by `&&` / `||`.
    fn script(&self, script: &Script) -> String {
        let mut out = String::new();
        for (pipeline, join) in &script.statements {
            out.push_str(&self.pipeline(pipeline));
            out.push_str(match join {
                Join::Then => "\n",
                Join::And => " && ",
                Join::Or => " || ",
            });
        }
        out
    }

    /// Commands joined by `|`; a `Remove-Item`, `Get-Content`, … fed by a `Get-ChildItem` acts
    /// on what it lists.
    fn pipeline(&self, pipeline: &Pipeline) -> String {
        let mut texts = Vec::with_capacity(pipeline.commands.len());
        let mut listed: Option<Vec<Word>> = None;
        for command in &pipeline.commands {
            let fed = listed
                .take()
                .and_then(|paths| self.fed_paths(command, paths));
            let command = fed.as_ref().unwrap_or(command);
            texts.push(self.command(command));
            listed = self.listing(command);
        }
        texts.join(" | ")
    }

    /// What a `Get-ChildItem` command lists, as path patterns (`~/*`, `src/*.log`) for a
    /// cmdlet it feeds.
    fn listing(&self, command: &Command) -> Option<Vec<Word>> {
        let (cmdlet, args) = cmdlet_call(command)?;
        if cmdlet.effect != Effect::List {
            return None;
        }
        let bound = self.bind(cmdlet, args);
        let pattern = bound
            .literals("Filter")
            .into_iter()
            .chain(bound.literals("Include"))
            .flatten()
            .next()
            .unwrap_or_else(|| "*".to_owned());
        let mut dirs = bound.words(&["Path", "LiteralPath"]);
        if dirs.is_empty() {
            dirs.push(Word::text("."));
        }
        let listed = dirs.into_iter().map(|mut dir| {
            dir.parts.push(Part::Text(format!("/{pattern}")));
            dir.comma_after = false;
            dir
        });
        Some(listed.collect())
    }

    /// A cmdlet that takes the paths piped to it (`Remove-Item`, `Get-Content`, `Copy-Item`,
    /// `Select-String`, `Compress-Archive`, …) with no path of its own, fed a listing: the same
    /// command given the listed paths (`gci ~ | Remove-Item -Recurse` is `Remove-Item -Recurse
    /// ~/*`, `gci ~/.ssh | gc` is `gc ~/.ssh/*`).
    fn fed_paths(&self, command: &Command, listed: Vec<Word>) -> Option<Command> {
        let (cmdlet, args) = cmdlet_call(command)?;
        let takes_paths = matches!(
            cmdlet.effect,
            Effect::Remove
                | Effect::Read
                | Effect::Copy
                | Effect::Move
                | Effect::Rename
                | Effect::Search
                | Effect::Compress
                | Effect::Truncate
                | Effect::SetContent
                | Effect::AddContent
        );
        if !takes_paths {
            return None;
        }
        let bound = self.bind(cmdlet, args);
        if !bound.words(&["Path", "LiteralPath"]).is_empty() {
            return None;
        }
        // By name: the first position may be another parameter's (`Select-String PATTERN`).
        let mut fed = command.clone();
        fed.words.push(Word::text("-Path"));
        let last = listed.len().saturating_sub(1);
        fed.words
            .extend(listed.into_iter().enumerate().map(|(at, mut word)| {
                word.comma_after = at < last;
                word
            }));
        Some(fed)
    }

    /// One command with its script blocks (run first, in a group) and redirections; nothing
    /// once the fuel is out.
    fn command(&self, command: &Command) -> String {
        if !self.budget.burn(STEP) {
            return String::new();
        }
        let blocks: Vec<String> = command
            .words
            .iter()
            .flat_map(|word| &word.parts)
            .filter_map(|part| match part {
                Part::Block(script) => Some(self.script(script)),
                _ => None,
            })
            .collect();
        let mut text = match (&command.assigns, command.words.first()) {
            // `$HOME = …`: PowerShell refuses most of these (read-only), and the front end keeps
            // their known values; what the value runs still runs.
            (Some(name), first) if known_variable(name).is_some() => match first {
                Some(first) if is_command_name(first, command) => self.argv(command),
                _ => self.echo_values(&command.words),
            },
            // `$x = 'value'`, `$x = $y`: the value, its subexpressions run.
            (Some(name), Some(first)) if !is_command_name(first, command) => {
                let values: Vec<String> = command.words.iter().map(|w| self.word(w)).collect();
                format!("{}={}", var_name(name), values.join(""))
            }
            // `$x = Get-Content a`: the command's output.
            (Some(name), _) => format!("{}=\"$({})\"", var_name(name), self.argv(command)),
            (None, _) => self.argv(command),
        };
        if !blocks.is_empty() {
            let mut group = String::from("{ ");
            for block in &blocks {
                group.push_str(block.trim_end());
                group.push('\n');
            }
            if !text.is_empty() {
                group.push_str(&text);
                group.push('\n');
            }
            group.push('}');
            text = group;
        }
        if text.is_empty() {
            text.push(':');
        }
        for redirect in &command.redirects {
            text.push(' ');
            text.push_str(&redirect.op);
            if let Some(target) = &redirect.target {
                text.push(' ');
                text.push_str(&self.redirect_target(target));
            }
        }
        text
    }

    /// A redirection's file (`$null` is the null device).
    fn redirect_target(&self, word: &Word) -> String {
        match word.parts.as_slice() {
            [Part::Var(name)] if name.eq_ignore_ascii_case("null") => "/dev/null".to_owned(),
            _ => self.word(word),
        }
    }

    /// The POSIX command line of one command's words (empty when it runs nothing itself).
    fn argv(&self, command: &Command) -> String {
        let Some((first, rest)) = command.words.split_first() else {
            return String::new();
        };
        let name = match first.literal() {
            Some(name) if is_command_name(first, command) => name,
            // A value on its own is output: `"text"`, `$x`, `(Get-Content x)`.
            _ if !command.called => return self.echo_values(&command.words),
            _ => return self.passthrough(&command.words),
        };
        let lower = name.to_ascii_lowercase();
        if KEYWORDS.contains(&lower.as_str()) {
            return self.echo_values(rest);
        }
        // Dot-sourcing runs a script here, as POSIX `.` does; `. { … }` runs its block.
        if lower == "." {
            return match rest.first() {
                Some(script) if script.literal().is_some() => self.passthrough(&command.words),
                _ => self.echo_values(rest),
            };
        }
        match windows_program(&lower).as_str() {
            "cmd" => {
                return self
                    .cmd(rest)
                    .unwrap_or_else(|| self.passthrough(&command.words));
            }
            "powershell" | "pwsh" => {
                return self
                    .nested_powershell(rest)
                    .unwrap_or_else(|| self.passthrough(&command.words));
            }
            // Disks and volumes formatted or wiped (cmd's `format D:`).
            "format-volume" | "clear-disk" | "remove-partition" | "initialize-disk" => {
                return format!("wipefs -a {}", self.passthrough(rest))
                    .trim_end()
                    .to_owned();
            }
            "format" if rest.iter().any(is_drive) => {
                return format!("wipefs -a {}", self.passthrough(rest));
            }
            program => {
                if let Some(line) = windows_native(program, rest) {
                    return line;
                }
            }
        }
        // `curl.exe` is the real curl, not the alias.
        cmdlet_call(command)
            .and_then(|(cmdlet, args)| self.cmdlet(cmdlet, args))
            .unwrap_or_else(|| self.passthrough(&command.words))
    }

    /// Words that are values, not a program and its arguments (`"text"`, `(Get-Content x)`,
    /// `foreach ($f in $x)`): an `echo` of those with commands in them, so that the commands
    /// run and no value is taken for a program; empty when none has.
    fn echo_values(&self, words: &[Word]) -> String {
        // A statement that is one .NET call: the call's command (`[IO.File]::Delete(P)`).
        if let [word] = words
            && let Some((member, args)) = sole_call(word)
            && let DotnetValue::Output(line) = self.dotnet_call(member, args)
        {
            return line;
        }
        // `$HOME + '\.ssh'` is one value, written out whole.
        let joined = join_plus(words);
        let concatenated = joined.len() < words.len();
        let values: Vec<String> = joined
            .iter()
            .filter(|w| concatenated || runs_code(w))
            .map(|w| self.word(w))
            .collect();
        if values.is_empty() {
            String::new()
        } else {
            format!("echo {}", values.join(" "))
        }
    }

    /// An unknown command: its name and arguments as they are.
    fn passthrough(&self, words: &[Word]) -> String {
        let words: Vec<String> = words.iter().map(|w| self.word(w)).collect();
        words.join(" ")
    }

    /// One word in POSIX quoting.
    fn word(&self, word: &Word) -> String {
        self.budget.burn(PART * word.parts.len() as u64);
        let mut out = String::new();
        let mut download = None;
        let mut parts = word.parts.iter().enumerate().peekable();
        while let Some((i, part)) = parts.next() {
            match part {
                Part::Static(member) => {
                    let args = match parts.peek() {
                        Some((_, Part::Sub(args))) => {
                            parts.next();
                            Some(args)
                        }
                        _ => None,
                    };
                    out.push_str(&self.dotnet_call(member, args).as_word());
                }
                Part::Sub(args) if download.is_some() => {
                    out.push_str(&self.download(download.take().unwrap_or_default(), args));
                }
                Part::Text(text) if web_client_call(text).is_some() => {
                    let (before, method) = web_client_call(text).unwrap_or_default();
                    out.push_str(&quote(&before.replace('\\', "/")));
                    download = Some(method);
                }
                Part::Text(text) if i == 0 && registry_path(text).is_some() => {
                    out.push_str(&registry_path(text).unwrap_or_default());
                }
                Part::Text(text) => {
                    let text = text.replace('\\', "/");
                    match text.strip_prefix('~') {
                        Some(rest) if i == 0 && (rest.is_empty() || rest.starts_with('/')) => {
                            out.push_str("\"$HOME\"");
                            out.push_str(&quote(rest));
                        }
                        _ => out.push_str(&quote(&text)),
                    }
                }
                Part::Var(name) => out.push_str(&variable(name)),
                // `($HOME + '\.ssh')`: a value and nothing that runs, written as that value.
                Part::Sub(script) if let Some(value) = plain_value(script) => {
                    out.push_str(&self.word(&value));
                }
                Part::Sub(script) => {
                    out.push_str("\"$(");
                    out.push_str(self.script(script).trim_end());
                    out.push_str(")\"");
                }
                Part::Block(_) => out.push_str("'{}'"),
                Part::Hash(_) => out.push_str("'@{}'"),
            }
        }
        if out.is_empty() {
            out.push_str("''");
        }
        out
    }

    /// A WebClient download (`(New-Object Net.WebClient).DownloadString(URL)`,
    /// `.DownloadFile(URL, PATH)`) as the `curl` it amounts to, its output the value.
    fn download(&self, method: &str, args: &Script) -> String {
        let values: Vec<String> = args
            .statements
            .first()
            .and_then(|(pipeline, _)| pipeline.commands.first())
            .map(|command| command.words.iter().map(|w| self.word(w)).collect())
            .unwrap_or_default();
        let mut line = vec!["curl".to_owned()];
        if method == "downloadfile"
            && let Some(path) = values.get(1)
        {
            line.push(format!("-o {path}"));
        }
        line.push("--".to_owned());
        line.extend(values.into_iter().take(1));
        format!("\"$({})\"", line.join(" "))
    }

    /// A static .NET call (see [`dotnet`]) with its arguments `(…)`, if written: the command
    /// whose output is its value, or a value.
    fn dotnet_call(&self, member: &Static, args: Option<&Script>) -> DotnetValue {
        let args = args.map(call_arguments).unwrap_or_default();
        let arg = |index: usize| args.get(index).map(|w| self.word(w));
        let path = || arg(0).unwrap_or_else(|| "\"$PATH\"".to_owned());
        let line = match member.call {
            Call::Read => format!("cat -- {}", path()),
            Call::Write | Call::Append => write_file(
                vec![path()],
                arg(1).into_iter().collect(),
                member.call == Call::Append,
            ),
            Call::Create => format!(": > {}", path()),
            Call::DeleteFile => format!("rm -- {}", path()),
            Call::DeleteDir if args.get(1).is_some_and(is_true) => {
                format!("rm -r -- {}", path())
            }
            Call::DeleteDir => format!("rmdir -- {}", path()),
            Call::Copy | Call::Move => {
                let program = if member.call == Call::Copy {
                    "cp"
                } else {
                    "mv"
                };
                let to = arg(1).unwrap_or_else(|| ".".to_owned());
                format!("{program} -- {} {to}", path())
            }
            Call::MakeDir => format!("mkdir -p -- {}", path()),
            Call::List => format!("ls -- {}", path()),
            Call::Environment => "env".to_owned(),
            Call::EnvironmentVariable => {
                let name = args.first().and_then(Word::literal).unwrap_or_default();
                if let Some(known) = known_variable(&format!("env:{name}")) {
                    return DotnetValue::Value(known.to_owned());
                }
                format!("printenv -- {}", path())
            }
            Call::FolderPath => {
                let place = args
                    .first()
                    .and_then(folder_name)
                    .and_then(|name| dotnet::folder_path(&name));
                return DotnetValue::Value(place.unwrap_or("\"$FOLDER\"").to_owned());
            }
            Call::Combine if !args.is_empty() => {
                let parts: Vec<String> = args.iter().map(|w| self.word(w)).collect();
                return DotnetValue::Value(parts.join("/"));
            }
            Call::StartProcess => {
                let mut bound = Bound::default();
                bound.push(self, "FilePath", args.iter().take(1).cloned().collect());
                bound.push(self, "ArgumentList", args.iter().skip(1).cloned().collect());
                self.start_process(&bound)
            }
            Call::Combine | Call::Value => {
                // The value's own subexpressions still run.
                if !args.iter().any(runs_code) {
                    return DotnetValue::Value("\"$VALUE\"".to_owned());
                }
                let values: Vec<String> = args.iter().map(|w| self.word(w)).collect();
                format!("echo {}", values.join(" "))
            }
        };
        DotnetValue::Output(line)
    }

    /// Binds a cmdlet's arguments and writes its effect; `None` when it has none to write
    /// (the command passes through).
    fn cmdlet(&self, cmdlet: &Cmdlet, args: &[Word]) -> Option<String> {
        let bound = self.bind(cmdlet, args);
        let paths = |names: &[&str]| bound.values(names);
        let argv = |program: &str, flags: &[&str], operands: Vec<String>| {
            let mut line = vec![program.to_owned()];
            line.extend(flags.iter().map(|f| (*f).to_owned()));
            line.push("--".to_owned());
            line.extend(operands);
            line.join(" ")
        };
        let line = match cmdlet.effect {
            Effect::Remove => {
                let mut flags = Vec::new();
                if bound.has("Recurse") {
                    flags.push("-r");
                }
                if bound.has("Force") {
                    flags.push("-f");
                }
                argv("rm", &flags, paths(&["Path", "LiteralPath"]))
            }
            Effect::Read => argv("cat", &[], paths(&["Path", "LiteralPath"])),
            Effect::Filter => "cat".to_owned(),
            Effect::Truncate => argv("truncate -s 0", &[], paths(&["Path", "LiteralPath"])),
            Effect::ChangeDir => {
                let mut line = vec!["cd".to_owned()];
                line.extend(paths(&["Path", "LiteralPath"]).into_iter().take(1));
                line.join(" ")
            }
            Effect::SetContent | Effect::AddContent => write_file(
                paths(&["Path", "LiteralPath"]),
                bound.values(&["Value"]),
                cmdlet.effect == Effect::AddContent,
            ),
            Effect::OutFile => write_file(
                paths(&["FilePath", "LiteralPath"]),
                bound.values(&["InputObject"]),
                bound.has("Append"),
            ),
            Effect::Tee => {
                let flags: &[&str] = if bound.has("Append") { &["-a"] } else { &[] };
                argv("tee", flags, paths(&["FilePath", "LiteralPath"]))
            }
            Effect::Copy | Effect::Move => {
                let mut flags = Vec::new();
                if bound.has("Recurse") {
                    flags.push("-r");
                }
                if bound.has("Force") {
                    flags.push("-f");
                }
                let mut operands = paths(&["Path", "LiteralPath"]);
                operands.push(bound.value("Destination").unwrap_or_else(|| ".".to_owned()));
                let program = if cmdlet.effect == Effect::Copy {
                    "cp"
                } else {
                    "mv"
                };
                argv(program, &flags, operands)
            }
            Effect::Web => web(&bound),
            Effect::Bits => {
                let upload = bound
                    .literals("TransferType")
                    .into_iter()
                    .flatten()
                    .any(|kind| kind.eq_ignore_ascii_case("upload"));
                let source = bound.values(&["Source"]).join(" ");
                let dest = bound.value("Destination").unwrap_or_else(|| ".".to_owned());
                if upload {
                    format!("curl -T {source} -- {dest}")
                } else {
                    format!("curl -o {dest} -- {source}")
                }
            }
            Effect::Expression => self.expression(&bound),
            Effect::StartProcess => self.start_process(&bound),
            Effect::RunBlocks => String::new(),
            // The environment provider's drive (`Get-ChildItem Env:`) lists the environment.
            Effect::List
                if bound
                    .literals("Path")
                    .iter()
                    .flatten()
                    .any(|p| is_env_drive(p)) =>
            {
                "env".to_owned()
            }
            Effect::List => {
                let flags: &[&str] = if bound.has("Recurse") { &["-R"] } else { &[] };
                argv("ls", flags, paths(&["Path", "LiteralPath"]))
            }
            Effect::Search => {
                let pattern = bound.value("Pattern").unwrap_or_else(|| "''".to_owned());
                argv(
                    &format!("grep -e {pattern}"),
                    &[],
                    paths(&["Path", "LiteralPath"]),
                )
            }
            Effect::Compress => {
                let mut operands = vec![bound.value("DestinationPath").unwrap_or_default()];
                operands.extend(paths(&["Path", "LiteralPath"]));
                argv("zip", &["-r"], operands)
            }
            Effect::Expand => {
                let archive = paths(&["Path", "LiteralPath"]).join(" ");
                let dest = bound
                    .value("DestinationPath")
                    .unwrap_or_else(|| ".".to_owned());
                format!("unzip -o {archive} -d {dest}")
            }
            Effect::NewItem if is_run_key_bound(&bound) => "crontab -".to_owned(),
            Effect::NewItem => new_item(&bound),
            Effect::Schedule => "crontab -".to_owned(),
            Effect::SetProperty => {
                if !is_run_key_bound(&bound) {
                    return None;
                }
                "crontab -".to_owned()
            }
            Effect::Rename => {
                let from = paths(&["Path", "LiteralPath"]);
                let to = bound.value("NewName")?;
                let to = match from.first().and_then(|path| parent_dir(path)) {
                    Some(dir) if !to.contains('/') => format!("{dir}/{to}"),
                    _ => to,
                };
                argv("mv", &[], from.into_iter().chain([to]).collect())
            }
            Effect::ExecutionPolicy => execution_policy(&bound)?,
        };
        Some(line)
    }

    /// Binds arguments: `-Name value`, `-Name:value`, switches, then positional values in order
    /// (extra ones join the first positional parameter). A `,` joins values into one array.
    fn bind(&self, cmdlet: &Cmdlet, args: &[Word]) -> Bound {
        let mut bound = Bound::default();
        let mut positional = cmdlet.positional.iter();
        let mut words = args.iter().peekable();
        while let Some(word) = words.next() {
            if cmdlet.effect == Effect::Remove
                && let Some(flag) = word.literal().and_then(|t| cmd_switch(&t))
            {
                bound.switches.push(flag);
                continue;
            }
            let target = match parameter(word) {
                Some((name, inline)) => {
                    let Some(param) = find_param(cmdlet, &name) else {
                        continue;
                    };
                    if let Param::Switch(switch) = param {
                        let off = inline.as_ref().is_some_and(|value| {
                            matches!(value.parts.as_slice(), [Part::Var(v)] if v.eq_ignore_ascii_case("false"))
                                || value.literal().as_deref() == Some("0")
                        });
                        if !off {
                            bound.switches.push(switch);
                        }
                        continue;
                    }
                    let value = match param {
                        Param::Value(value) => value,
                        Param::CommonValue => {
                            if inline.is_none() {
                                words.next();
                            }
                            continue;
                        }
                        Param::Switch(_) | Param::CommonSwitch => continue,
                    };
                    if let Some(inline) = inline.filter(|w| !w.parts.is_empty()) {
                        bound.push(self, value, vec![inline]);
                        continue;
                    }
                    match words.next() {
                        Some(word) => (value, word),
                        None => continue,
                    }
                }
                None => {
                    let name = positional.next().or(cmdlet.positional.first());
                    match name {
                        Some(name) => (*name, word),
                        None => continue,
                    }
                }
            };
            let (name, mut word) = target;
            let mut values = Vec::new();
            loop {
                values.push(word.clone());
                if !word.comma_after {
                    break;
                }
                match words.next() {
                    Some(next) => word = next,
                    None => break,
                }
            }
            bound.push(self, name, values);
        }
        bound
    }

    /// `iex CODE`: code written out (`iex 'Remove-Item x'`, `iex "Remove-Item $HOME"`) is
    /// PowerShell read in turn; a run-time value (`iex (iwr URL)`) runs as a shell's script;
    /// with no argument, what the pipeline sends runs.
    fn expression(&self, bound: &Bound) -> String {
        let code = bound.words(&["Command"]).first().and_then(code_text);
        if let Some(code) = code
            && let Some(posix) = translate(&code, self.nesting + 1, self.budget)
        {
            return format!("{{ {}\n}}", posix.trim_end());
        }
        match bound.value("Command") {
            Some(value) => format!("sh -c {value}"),
            None => "sh".to_owned(),
        }
    }

    /// `Start-Process PROGRAM -ArgumentList …`: the program run with its arguments (a string of
    /// arguments split at blanks), judged as that command line.
    fn start_process(&self, bound: &Bound) -> String {
        let line = self.started_program(bound);
        // `-Verb RunAs` runs it elevated, as `sudo` does.
        let elevated = bound
            .literals("Verb")
            .into_iter()
            .flatten()
            .any(|verb| verb.eq_ignore_ascii_case("runas"));
        match (elevated, line.starts_with('{')) {
            (false, _) => line,
            // Code read in turn (`pwsh -c …`, `cmd /c …`) runs elevated as a script.
            (true, true) => format!("sudo sh -c {}", quote(&line)),
            (true, false) => format!("sudo {line}"),
        }
    }

    /// The command line `Start-Process` runs (see [`Self::start_process`]).
    fn started_program(&self, bound: &Bound) -> String {
        let Some(program) = bound.literals("FilePath").into_iter().next().flatten() else {
            let mut line = vec!["\"$PROGRAM\"".to_owned()];
            line.extend(bound.values(&["ArgumentList"]));
            return line.join(" ");
        };
        let mut words = vec![Word::text(&program)];
        for literal in bound.literals("ArgumentList") {
            match literal {
                Some(text) => words.extend(text.split_whitespace().map(Word::text)),
                // An argument only known at run time.
                None => words.push(Word {
                    parts: vec![Part::Var("ARGS".to_owned())],
                    ..Word::default()
                }),
            }
        }
        let command = Command {
            words,
            ..Command::default()
        };
        // Bounded as nested code is: `Start-Process` may start `Start-Process`.
        if self.nesting >= MAX_NESTING {
            return self.passthrough(&command.words);
        }
        Writer {
            nesting: self.nesting + 1,
            budget: self.budget,
        }
        .argv(&command)
    }

    /// `cmd /c …` and `cmd /k …` (`//c` from Git Bash): the rest of the line, read as commands
    /// (cmd's own built-ins share PowerShell's aliases: `del`, `rd`, `copy`, `type`).
    fn cmd(&self, args: &[Word]) -> Option<String> {
        let at = args.iter().position(|w| {
            w.literal().is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                matches!(t.as_str(), "/c" | "/k" | "//c" | "//k")
            })
        })?;
        let line = self.literal_line(args.get(at + 1..)?)?;
        let posix = translate(&cmd_variables(&line), self.nesting + 1, self.budget)?;
        Some(format!("{{ {}\n}}", posix.trim_end()))
    }

    /// `powershell -Command CODE`, `pwsh -c CODE`, `-EncodedCommand BASE64`: the code read in
    /// turn. `-File x.ps1` and an operand (pwsh's script file) give `None`.
    fn nested_powershell(&self, args: &[Word]) -> Option<String> {
        let mut rest = args.iter();
        while let Some(word) = rest.next() {
            let text = word.literal()?;
            let option = text.strip_prefix(['-', '/'])?.to_ascii_lowercase();
            let code = match pwsh_option(&option) {
                PwshOption::Encoded => decode_utf16_base64(&rest.next()?.literal()?)?,
                PwshOption::Command => {
                    let remaining: Vec<Word> = rest
                        .map(|w| Word::text(&w.literal().unwrap_or_default()))
                        .collect();
                    self.literal_line(&remaining)?
                }
                PwshOption::File => return None,
                PwshOption::Value => {
                    rest.next();
                    continue;
                }
                PwshOption::Flag => continue,
            };
            let posix = translate(&code, self.nesting + 1, self.budget)?;
            return Some(format!("{{ {}\n}}", posix.trim_end()));
        }
        None
    }

    /// Literal words joined into one line of code (`None` when one is a run-time value).
    fn literal_line(&self, words: &[Word]) -> Option<String> {
        let texts: Option<Vec<String>> = words.iter().map(Word::literal).collect();
        Some(texts?.join(" "))
    }
}

/// cmd's `%NAME%` variables in PowerShell's spelling (`$env:NAME`), so that `%USERPROFILE%` is
/// the home as `$env:USERPROFILE` is. A `%` that opens no name is kept.
fn cmd_variables(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('%') {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let after = after.get(1..).unwrap_or("");
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        match after.get(name_len..) {
            Some(tail) if name_len > 0 && tail.starts_with('%') => {
                out.push_str("${env:");
                out.push_str(after.get(..name_len).unwrap_or(""));
                out.push('}');
                rest = tail.get(1..).unwrap_or("");
            }
            _ => {
                out.push('%');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// An option of `pwsh`/`powershell`, written without its `-` or `/`.
enum PwshOption {
    /// `-EncodedCommand` (`-e`, `-ec`, `-enc`): base64 code follows.
    Encoded,
    /// `-Command` (`-c`): the rest of the line is code.
    Command,
    /// `-File` (`-f`): a script file.
    File,
    /// An option that takes a value (`-ExecutionPolicy Bypass`).
    Value,
    /// A flag (`-NoProfile`).
    Flag,
}

/// pwsh's options that take a value.
const PWSH_VALUE_OPTIONS: &[&str] = &[
    "executionpolicy",
    "ep",
    "windowstyle",
    "inputformat",
    "outputformat",
    "configurationname",
    "workingdirectory",
    "wd",
    "settingsfile",
    "version",
    "psconsolefile",
    "custompipename",
];

/// Which option `option` (lowercase) is, by name or prefix as pwsh reads them (`-e` is
/// `-EncodedCommand`, `-ex` `-ExecutionPolicy`).
fn pwsh_option(option: &str) -> PwshOption {
    let is = |long: &str| !option.is_empty() && long.starts_with(option);
    if option == "ec" || is("encodedcommand") {
        PwshOption::Encoded
    } else if is("command") {
        PwshOption::Command
    } else if is("file") {
        PwshOption::File
    } else if PWSH_VALUE_OPTIONS.iter().any(|long| is(long)) {
        PwshOption::Value
    } else {
        PwshOption::Flag
    }
}

/// Text that ends in a call of WebClient's download methods (`.DownloadString`,
/// `.DownloadData`, `.DownloadFile`): the text before it and the method, in lowercase.
fn web_client_call(text: &str) -> Option<(&str, &'static str)> {
    let (before, method) = text.rsplit_once('.')?;
    let method = ["downloadstring", "downloaddata", "downloadfile"]
        .into_iter()
        .find(|known| method.eq_ignore_ascii_case(known))?;
    Some((before, method))
}

/// The cmdlet a command calls (by name or alias), with its arguments.
fn cmdlet_call(command: &Command) -> Option<(&'static Cmdlet, &[Word])> {
    let (first, rest) = command.words.split_first()?;
    if !is_command_name(first, command) {
        return None;
    }
    let name = first.literal()?.to_ascii_lowercase();
    let cmdlet = CMDLETS.iter().find(|c| c.names.contains(&name.as_str()))?;
    Some((cmdlet, rest))
}

/// Whether a command's first word names a program: bare literal text, or anything after `&`.
fn is_command_name(first: &Word, command: &Command) -> bool {
    command.called || (first.bare && first.literal().is_some())
}

/// What a bare `-Name` or `-Name:value` word names, with the value written after the colon.
fn parameter(word: &Word) -> Option<(String, Option<Word>)> {
    if !word.bare {
        return None;
    }
    let Some(Part::Text(text)) = word.parts.first() else {
        return None;
    };
    let body = text.strip_prefix('-')?;
    if !body.chars().next()?.is_ascii_alphabetic() {
        return None;
    }
    let Some((name, value)) = body.split_once(':') else {
        return Some((body.to_owned(), None));
    };
    let mut parts = Vec::new();
    if !value.is_empty() {
        parts.push(Part::Text(value.to_owned()));
    }
    parts.extend(word.parts.get(1..).unwrap_or_default().iter().cloned());
    let inline = Word {
        parts,
        bare: true,
        comma_after: word.comma_after,
    };
    Some((name.to_owned(), Some(inline)))
}

/// cmd's switches of `del` and `rd` (`/s` recursive, `/q` and `/f` forced), which agents also
/// write in PowerShell.
fn cmd_switch(text: &str) -> Option<&'static str> {
    match text.to_ascii_lowercase().as_str() {
        "/s" => Some("Recurse"),
        "/q" | "/f" => Some("Force"),
        _ => None,
    }
}

/// A write of `values` (or of the pipeline's output) to the files: `printf '%s\n' V > P`.
fn write_file(paths: Vec<String>, values: Vec<String>, append: bool) -> String {
    let source = if values.is_empty() {
        "cat".to_owned()
    } else {
        format!("printf '%s\\n' {}", values.join(" "))
    };
    match paths.as_slice() {
        [path] => format!("{source} {} {path}", if append { ">>" } else { ">" }),
        _ => {
            let append = if append { " -a" } else { "" };
            format!("{source} | tee{append} -- {} > /dev/null", paths.join(" "))
        }
    }
}

/// `Invoke-WebRequest`: `curl` with the upload (`-InFile`, `-Body`, a sending method) and the
/// download file (`-OutFile`).
fn web(bound: &Bound) -> String {
    let mut line = vec!["curl".to_owned()];
    let method = bound
        .literals("Method")
        .into_iter()
        .flatten()
        .next()
        .map(|m| m.to_ascii_uppercase());
    if let Some(method) = &method
        && method != "GET"
    {
        line.push(format!("-X {method}"));
    }
    match bound.value("Body").or_else(|| bound.value("Form")) {
        Some(body) => line.push(format!("-d {body}")),
        // The body is what the pipeline sends, if anything.
        None if matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH")) => {
            line.push("-d @-".to_owned());
        }
        None => {}
    }
    if let Some(file) = bound.value("InFile") {
        line.push(format!("-T {file}"));
    }
    if let Some(file) = bound.value("OutFile") {
        line.push(format!("-o {file}"));
    }
    line.push("--".to_owned());
    line.extend(bound.values(&["Uri"]));
    line.join(" ")
}

/// The directory part of a path in POSIX quoting (`"$HOME"/a/b` → `"$HOME"/a`, `b` → `.`);
/// `None` when the name is not plain text (`"$p"`).
fn parent_dir(path: &str) -> Option<String> {
    let plain = |text: &str| !text.contains(['"', '\'', '$']);
    match path.rsplit_once('/') {
        Some((dir, name)) if plain(name) && !dir.is_empty() => Some(dir.to_owned()),
        None if plain(path) => Some(".".to_owned()),
        _ => None,
    }
}

/// `Set-ExecutionPolicy`: a policy that runs any script (`Bypass`, `Unrestricted`) for the
/// user or the machine is a write of the scope's `powershell.config.json`, PowerShell's own
/// start-up configuration; a stricter one (`RemoteSigned`) or the process's scope writes
/// nothing lasting (`None`: the command passes through).
fn execution_policy(bound: &Bound) -> Option<String> {
    let policy = bound
        .literals("ExecutionPolicy")
        .into_iter()
        .flatten()
        .next()?;
    let lax = ["bypass", "unrestricted"].contains(&policy.to_ascii_lowercase().as_str());
    let scope = bound.literals("Scope").into_iter().flatten().next();
    let config = match scope.map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("currentuser") => "\"$HOME\"/Documents/PowerShell/powershell.config.json",
        Some("localmachine") | None => "'C:/Program Files/PowerShell/7/powershell.config.json'",
        Some(_) => return None,
    };
    lax.then(|| format!("printf '%s\\n' {policy} > {config}"))
}

/// `New-Item`: a directory, a link, or a file with its `-Value`.
fn new_item(bound: &Bound) -> String {
    let kind = bound
        .literals("ItemType")
        .into_iter()
        .flatten()
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut paths = bound.values(&["Path"]);
    if let Some(name) = bound.value("Name") {
        paths = match paths.as_slice() {
            [] => vec![name],
            _ => paths.iter().map(|dir| format!("{dir}/{name}")).collect(),
        };
    }
    let paths = paths.join(" ");
    match kind.as_str() {
        "directory" | "dir" | "d" => format!("mkdir -p -- {paths}"),
        "symboliclink" | "hardlink" | "junction" => {
            let target = bound.value("Value").unwrap_or_default();
            format!("ln -s -- {target} {paths}")
        }
        _ => match bound.value("Value") {
            Some(value) => format!("printf '%s\\n' {value} > {paths}"),
            None => format!("touch -- {paths}"),
        },
    }
}

/// The code a word holds when it is written out: its text, with its variables as PowerShell
/// reads them in the code (`"Remove-Item $HOME"` is the code `Remove-Item ${HOME}`). `None`
/// when a part is only known by running something (`$(…)`).
fn code_text(word: &Word) -> Option<String> {
    let mut code = String::new();
    for part in &word.parts {
        match part {
            Part::Text(text) => code.push_str(text),
            Part::Var(name) => {
                code.push_str("${");
                code.push_str(name);
                code.push('}');
            }
            Part::Sub(_) | Part::Block(_) | Part::Static(_) | Part::Hash(_) => return None,
        }
    }
    Some(code)
}

/// Whether a path is the environment drive (`Env:`, `env:\`).
fn is_env_drive(path: &str) -> bool {
    path.trim_end_matches(['\\', '/'])
        .eq_ignore_ascii_case("env:")
}

/// Whether a word is a drive (`D:`).
fn is_drive(word: &Word) -> bool {
    word.literal().is_some_and(|text| {
        let mut chars = text.chars();
        matches!(
            (chars.next(), chars.next(), chars.next()),
            (Some(letter), Some(':'), None) if letter.is_ascii_alphabetic()
        )
    })
}

/// Whether a word names a registry key whose values Windows runs by itself: at logon
/// (`…\CurrentVersion\Run`, `RunOnce`, `Winlogon`, the policies' `Run`), in place of a program
/// (`Image File Execution Options`) or to open a kind of file or link (`…\shell\open\command`).
fn is_run_key(word: &Word) -> bool {
    word.literal().is_some_and(|text| is_run_key_text(&text))
}

/// [`is_run_key`] of text.
fn is_run_key_text(text: &str) -> bool {
    let lower = text.to_ascii_lowercase().replace('/', "\\");
    [
        "\\currentversion\\run",
        "\\currentversion\\winlogon",
        "\\currentversion\\policies\\explorer\\run",
        "\\image file execution options\\",
        "\\shell\\open\\command",
    ]
    .iter()
    .any(|key| lower.contains(key))
}

/// Whether a cmdlet's `-Path` or `-LiteralPath` is such a key (see [`is_run_key`]).
fn is_run_key_bound(bound: &Bound) -> bool {
    bound
        .literals("Path")
        .into_iter()
        .chain(bound.literals("LiteralPath"))
        .flatten()
        .any(|path| is_run_key_text(&path))
}

/// A registry path (`HKCU:\Software\x`, `Registry::HKEY_LOCAL_MACHINE\…`) as the file that
/// holds the hive, in POSIX quoting: the user's keys are in `NTUSER.DAT` in the home, the
/// machine's in `C:\Windows\System32\config`. Removing a key is then removing part of that
/// file, outside the project. `None` for other text.
fn registry_path(text: &str) -> Option<String> {
    const HIVES: &[(&str, &str)] = &[
        ("hkcu:", "\"$HOME\"/NTUSER.DAT"),
        ("registry::hkey_current_user", "\"$HOME\"/NTUSER.DAT"),
        ("registry::hkcu", "\"$HOME\"/NTUSER.DAT"),
        ("hklm:", "C:/Windows/System32/config"),
        ("registry::hkey_local_machine", "C:/Windows/System32/config"),
        ("registry::hklm", "C:/Windows/System32/config"),
    ];
    let lower = text.to_ascii_lowercase();
    let (prefix, hive) = HIVES.iter().find(|(prefix, _)| {
        lower.starts_with(prefix)
            && matches!(
                lower.as_bytes().get(prefix.len()),
                None | Some(b'\\' | b'/')
            )
    })?;
    let rest = text.get(prefix.len()..)?.replace('\\', "/");
    Some(format!("{hive}{}", quote(&rest)))
}

/// Whether one of the words is literally `wanted` (any case).
fn has_word(words: &[Word], wanted: &str) -> bool {
    words
        .iter()
        .any(|w| w.literal().is_some_and(|t| t.eq_ignore_ascii_case(wanted)))
}

/// A PowerShell variable in POSIX terms: the home and its folders (the temp directory too) as
/// paths under `$HOME`, the rest as run-time values.
fn variable(name: &str) -> String {
    match known_variable(name) {
        Some(known) => known.to_owned(),
        None => format!("\"${}\"", var_name(name)),
    }
}

/// The POSIX value of a variable whose value is known before it runs (`$HOME`,
/// `$env:APPDATA`, `$true`), by name in any case.
fn known_variable(name: &str) -> Option<&'static str> {
    let known = match name.to_ascii_lowercase().as_str() {
        "home" | "env:userprofile" | "env:homepath" => "\"$HOME\"",
        "env:homedrive" | "null" => "''",
        "env:appdata" => "\"$HOME\"/AppData/Roaming",
        "env:localappdata" => "\"$HOME\"/AppData/Local",
        "env:temp" | "env:tmp" => "\"$HOME\"/AppData/Local/Temp",
        "profile" => "\"$HOME\"/Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
        "env:systemroot" | "env:windir" => "C:/Windows",
        "env:programfiles" => "'C:/Program Files'",
        "true" => "true",
        "false" => "false",
        "pwd" => "\"$PWD\"",
        _ => return None,
    };
    Some(known)
}

/// A PowerShell variable's name as a POSIX one (`env:` and other scopes dropped).
fn var_name(name: &str) -> String {
    let bare = name.rsplit(':').next().unwrap_or(name);
    let clean: String = bare
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match clean.chars().next() {
        Some(c) if c.is_ascii_digit() => format!("_{clean}"),
        Some(_) => clean,
        None => "_".to_owned(),
    }
}

/// Text in POSIX quoting: plain words as they are (globs kept), the rest single-quoted.
fn quote(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%*?".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// `-EncodedCommand`'s argument: base64 of UTF-16LE text.
fn decode_utf16_base64(text: &str) -> Option<String> {
    let bytes = crate::secrets::decode_base64_bytes(text.trim_end_matches('=').as_bytes())?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| match pair {
            [lo, hi] => u16::from_le_bytes([*lo, *hi]),
            _ => 0,
        })
        .collect();
    String::from_utf16(&units).ok()
}

/// What a static .NET call amounts to.
enum DotnetValue {
    /// A command whose output is the value (`cat -- P` for `ReadAllText(P)`).
    Output(String),
    /// A value written as a POSIX word (`"$HOME"/.ssh` for `Combine($HOME, '.ssh')`).
    Value(String),
}

impl DotnetValue {
    /// The value as a POSIX word: a command's output is its substitution.
    fn as_word(&self) -> String {
        match self {
            Self::Output(line) => format!("\"$({line})\""),
            Self::Value(word) => word.clone(),
        }
    }
}

/// A word that is a .NET call and nothing more (`[IO.File]::Delete(P)`): its member and
/// arguments.
fn sole_call(word: &Word) -> Option<(&Static, Option<&Script>)> {
    match word.parts.as_slice() {
        [Part::Static(member)] => Some((member, None)),
        [Part::Static(member), Part::Sub(args)] => Some((member, Some(args))),
        _ => None,
    }
}

/// The arguments of a .NET call `(A, B + C)`: words joined by `,` are separate arguments,
/// words joined by a `+` one argument (`$HOME + '\.ssh'`); the first statement only.
fn call_arguments(args: &Script) -> Vec<Word> {
    args.statements
        .first()
        .and_then(|(pipeline, _)| pipeline.commands.first())
        .map(|command| join_plus(&command.words))
        .unwrap_or_default()
}

/// Values with the words joined by a bare `+` made one (`$HOME + '\.ssh'` is the word
/// `$HOME\.ssh`): string concatenation, as far as a path is concerned.
fn join_plus(words: &[Word]) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut joined = false;
    for word in words {
        if word.bare && word.literal().as_deref() == Some("+") {
            joined = true;
            continue;
        }
        match out.last_mut() {
            Some(last) if joined => {
                last.parts.extend(word.parts.iter().cloned());
                last.comma_after = word.comma_after;
            }
            _ => out.push(word.clone()),
        }
        joined = false;
    }
    out
}

/// The one value a subexpression is when it runs nothing (`($HOME + '\.ssh')`, `("a")`).
fn plain_value(script: &Script) -> Option<Word> {
    let [(pipeline, Join::Then)] = script.statements.as_slice() else {
        return None;
    };
    let [command] = pipeline.commands.as_slice() else {
        return None;
    };
    let first = command.words.first()?;
    if is_command_name(first, command) || command.assigns.is_some() {
        return None;
    }
    if !command.redirects.is_empty() {
        return None;
    }
    match join_plus(&command.words).as_slice() {
        [value] if !runs_code(value) && !value.comma_after => Some(value.clone()),
        _ => None,
    }
}

/// Whether a word holds code that runs when its value is taken (`$(…)`, a .NET call).
fn runs_code(word: &Word) -> bool {
    word.parts
        .iter()
        .any(|part| matches!(part, Part::Sub(_) | Part::Static(_)))
}

/// Whether a word is `$true`.
fn is_true(word: &Word) -> bool {
    matches!(word.parts.as_slice(), [Part::Var(name)] if name.eq_ignore_ascii_case("true"))
}

/// A special folder's name: `'UserProfile'` or `[Environment+SpecialFolder]::UserProfile`.
fn folder_name(word: &Word) -> Option<String> {
    match word.parts.as_slice() {
        [Part::Static(member)] => Some(member.member.clone()),
        _ => word.literal(),
    }
}

#[cfg(test)]
mod tests;
