//! Written files a program runs by convention, not by a name on its command line.
//!
//! `echo '{"scripts":{"test":"rm -rf ~"}}' > package.json; npm test` runs the text of the
//! `test` script: package managers run package.json's scripts (`npm test`, `npm run x`, `yarn
//! x`, `pnpm x`, `bun run x`, with their `pre`/`post` scripts; an install its lifecycle
//! scripts); pytest imports `conftest.py` and the test files it collects; pip runs a local
//! project's `setup.py`; git runs its hooks (`.git/hooks`, `core.hooksPath` from `-c`, `git
//! config`, a written `.git/config` or `GIT_CONFIG_KEY_n`); `python3 -c CODE` and `python3 -m
//! x` import modules from the working directory and a PYTHONPATH the line set, and every Python
//! run its start-up files (`sitecustomize.py`, the `import` lines of a `.pth` in
//! site-packages); node preloads modules (`-r`, `--require`, `--import`, NODE_OPTIONS); a bare
//! program name is looked up on a PATH the command line set (`PATH=.:$PATH x`). `npm pkg set
//! scripts.x=…` writes a script into package.json. Where the walk cannot read the file's text,
//! or cannot tell whether a written file is the one loaded, the script is only known at run
//! time (an ask, never a deny on a guess).

use serde_json::{Map, Value};

use super::super::super::{SimpleCommand, Unresolved, basename, interp};
use super::super::{Ctx, Field, Walker};
use super::{Contents, Found, Runner, in_unknown_dir, last_component};
use crate::packs::places;
use crate::paths;

/// Most scripts of one package.json a command runs.
const MAX_PACKAGE_SCRIPTS: usize = 8;

/// Most written files one program loads by convention that the walk runs.
const MAX_LOADED: usize = 8;

/// What `npm install` and its kin run of the project's own package.json.
const LIFECYCLE: &[&str] = &[
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "preprepare",
    "prepare",
    "postprepare",
];

/// Package managers' subcommands that install (and run the lifecycle scripts).
const INSTALLS: &[&str] = &[
    "install",
    "i",
    "in",
    "ins",
    "inst",
    "insta",
    "instal",
    "isnt",
    "isnta",
    "isntal",
    "add",
    "ci",
    "clean-install",
    "install-test",
    "it",
    "rebuild",
    "rb",
    "link",
    "ln",
    "pack",
    "publish",
];

/// Subcommands of yarn, pnpm and bun that are theirs, not a script's name (`yarn why`).
const BUILTINS: &[&str] = &[
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "c",
    "create",
    "dlx",
    "exec",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "licenses",
    "list",
    "ls",
    "login",
    "logout",
    "node",
    "outdated",
    "owner",
    "policy",
    "remove",
    "rm",
    "tag",
    "team",
    "unlink",
    "unplug",
    "upgrade",
    "upgrade-interactive",
    "up",
    "update",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
    "set",
    "plugin",
    "npm",
    "explain",
    "constraints",
    "patch",
    "stage",
    "search",
    "dedupe",
    "prune",
    "fetch",
    "store",
    "env",
    "setup",
    "server",
    "root",
    "deploy",
    "doctor",
    "self-update",
    "catalog",
    "build",
    "test",
    "pm",
    "upgrade",
    "outdated",
];

/// Programs that run on node, and so load the modules NODE_OPTIONS preloads.
const NODE_PROGRAMS: &[&str] = &[
    "node", "nodejs", "npm", "npx", "yarn", "pnpm", "pnpx", "corepack", "tsx", "ts-node", "jest",
    "vitest", "eslint", "prettier", "tsc", "next", "vite", "webpack",
];

/// Options of package managers that take a value: the project's directory (`--prefix DIR`,
/// `-C DIR`, `--cwd DIR`, `--dir DIR`) and others whose value is no subcommand.
const DIR_OPTIONS: &[&str] = &["--prefix", "-C", "--cwd", "--dir"];

/// The git hooks' names, for a written file whose directory the walk cannot tell.
const HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "reference-transaction",
    "post-receive",
    "post-update",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "post-index-change",
];

impl Walker<'_> {
    /// Runs the written files that `argv`, in the directories `dirs`, loads by convention (see
    /// the module documentation).
    pub(in crate::shell::walk) fn run_convention_files(
        &mut self,
        argv: &[Field],
        dirs: &[String],
        ctx: Ctx,
    ) {
        let Some((program, args)) = argv.split_first() else {
            return;
        };
        let name = basename(&program.text);
        let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
        if NODE_PROGRAMS.contains(&name) || name == "bun" {
            self.run_node_preloads(name, &texts, dirs, ctx);
        }
        if runs_python(name) {
            self.run_python_startup(&texts, dirs, ctx);
        }
        match name {
            "npm" | "yarn" | "pnpm" | "bun" => self.run_package_scripts(name, &texts, dirs, ctx),
            "pytest" | "py.test" => self.run_pytest_files(&texts, dirs, ctx),
            "pip" | "pip3" => self.run_setup_py(&texts, dirs, ctx),
            "uv" if texts.first().is_some_and(|sub| sub == "pip") => {
                self.run_setup_py(texts.get(1..).unwrap_or_default(), dirs, ctx);
            }
            "git" => self.run_git_hooks(&texts, dirs, ctx),
            _ if is_python(name) => self.run_python_conventions(&texts, dirs, ctx),
            _ => {}
        }
        if !program.text.contains('/') && !program.dynamic {
            self.run_from_path(&program.text, dirs, ctx);
        }
    }

    /// `npm pkg set scripts.NAME=VALUE…` (pnpm's too): package.json in the project's directory
    /// holds those scripts from now on. Where the line wrote it, the rest of its text stays;
    /// otherwise only they are known of it (the project's own scripts are the project's). A
    /// value only known at run time, `--json`, or a package.json whose text the walk does not
    /// know makes its text unknown.
    pub(in crate::shell::walk) fn set_package_scripts(&mut self, command: &SimpleCommand) {
        if !matches!(command.name(), "npm" | "pnpm") {
            return;
        }
        let parsed = package_operands(command.name(), command.args());
        let [sub, set, settings @ ..] = parsed.operands.as_slice() else {
            return;
        };
        if *sub != "pkg" || *set != "set" {
            return;
        }
        let scripts: Vec<(&str, &str)> = settings
            .iter()
            .filter_map(|setting| setting.split_once('='))
            .filter_map(|(key, value)| Some((key.strip_prefix("scripts.")?, value)))
            .collect();
        if scripts.is_empty() {
            return;
        }
        let mut dirs = command.dirs.clone();
        dirs.extend(parsed.project);
        let Some(file) = self.resolve("package.json", &dirs) else {
            self.remember_written("package.json", None);
            return;
        };
        let known = !command.args().iter().any(|arg| arg == "--json")
            && scripts.iter().all(|(_, value)| !places::is_dynamic(value));
        let before = match self.find_written(&file, &[]) {
            Found::Nothing => Some(Value::Object(Map::new())),
            Found::One(at) => self
                .written
                .get(at)
                .and_then(|written| written.text.as_ref())
                .and_then(Contents::single)
                .and_then(|text| serde_json::from_str(text).ok()),
            Found::Unsure | Found::Each(_) => None,
        };
        let text = before
            .filter(|_| known)
            .and_then(|package| with_scripts(package, &scripts))
            .map(Contents::from);
        self.remember_written(&file, text);
    }

    /// `node -r ./x.js app.js`, `--require`, `--import`, `--loader`, bun's `--preload`, and the
    /// same options in NODE_OPTIONS for a program that runs on node (`NODE_OPTIONS='-r ./x.js'
    /// npm test`): the written modules node loads first, run as its code. A bare module name
    /// (`-r ts-node/register`) is a package's, not a written file.
    fn run_node_preloads(&mut self, name: &str, args: &[String], dirs: &[String], ctx: Ctx) {
        let mut preloads = match name {
            "node" | "nodejs" | "bun" => interp::node_preloads(name, args),
            _ => Vec::new(),
        };
        if name != "bun"
            && let Some(options) = self.environment_value("NODE_OPTIONS")
        {
            let options: Vec<String> = options.split_whitespace().map(str::to_owned).collect();
            preloads.extend(interp::node_preloads("node", &options));
        }
        let files: Vec<String> = preloads
            .iter()
            .filter(|module| module.starts_with(['.', '/', '~', '$']))
            .flat_map(|module| module_candidates(module))
            .take(MAX_LOADED)
            .collect();
        for file in files {
            self.load(&file, Runner::Interpreter("node"), dirs, ctx);
        }
    }

    /// Any Python run (`python3`, `pip`, `pytest`): the start-up files it imports, written by
    /// the command line: `sitecustomize.py` and `usercustomize.py` in the working directory, a
    /// directory of PYTHONPATH, the script's or a site-packages directory, and the `import`
    /// lines of a `.pth` file in a site-packages directory. Which interpreter's site-packages
    /// the walk cannot tell: any one counts.
    fn run_python_startup(&mut self, args: &[String], dirs: &[String], ctx: Ctx) {
        let here = self.command_dir(dirs);
        let script_dir = args
            .iter()
            .find(|arg| !arg.starts_with('-'))
            .filter(|arg| arg.ends_with(".py"))
            .and_then(|script| script.rsplit_once('/'))
            .map(|(dir, _)| dir.to_owned());
        let search: Vec<String> = std::iter::once(".".to_owned())
            .chain(script_dir)
            .chain(self.python_path())
            .filter_map(|dir| self.resolve_in(&dir, here.as_deref()))
            .collect();
        let mut customize = Vec::new();
        let mut pth = Vec::new();
        for written in &self.written {
            let Some((parent, name)) = written.path.as_deref().and_then(|p| p.rsplit_once('/'))
            else {
                continue;
            };
            let in_site = is_site_packages(parent);
            if matches!(name, "sitecustomize.py" | "usercustomize.py")
                && (in_site || search.iter().any(|dir| dir == parent))
            {
                customize.extend(written.path.clone());
            } else if name.ends_with(".pth") && in_site {
                pth.extend(written.path.clone());
            }
        }
        for file in customize.into_iter().take(MAX_LOADED) {
            self.load(&file, Runner::Interpreter("python3"), &[], ctx);
        }
        for file in pth.into_iter().take(MAX_LOADED) {
            self.load(&file, Runner::PthFile, &[], ctx);
        }
    }

    /// The directories of PYTHONPATH as the command line set it for the command just emitted.
    fn python_path(&self) -> Vec<String> {
        self.environment_value("PYTHONPATH")
            .map(|value| {
                value
                    .split(':')
                    .filter(|dir| {
                        !dir.is_empty() && !matches!(*dir, "$PYTHONPATH" | "${PYTHONPATH}")
                    })
                    .map(str::to_owned)
                    .take(MAX_LOADED)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `npm test`, `npm run x`, `yarn x`, `pnpm x`, `bun run x`, an install: the scripts of a
    /// written package.json in the project's directory.
    fn run_package_scripts(&mut self, manager: &str, args: &[String], dirs: &[String], ctx: Ctx) {
        let parsed = package_operands(manager, args);
        let scripts = package_scripts(manager, &parsed.operands);
        if scripts.is_empty() {
            return;
        }
        let mut dirs = dirs.to_vec();
        dirs.extend(parsed.project);
        let runner = Runner::PackageScripts(&scripts);
        self.load("package.json", runner, &dirs, ctx);
        if parsed.workspaces {
            // Any package.json under the project may be a workspace's.
            let here = self.command_dir(&dirs);
            let loaded = |path: &str| {
                last_component(path) == Some("package.json")
                    && here
                        .as_deref()
                        .is_some_and(|here| paths::is_within(path, here))
                    && here
                        .as_deref()
                        .is_none_or(|here| path != format!("{here}/package.json"))
            };
            let here_known = here.as_deref().is_some_and(|here| !in_unknown_dir(here));
            self.load_conventional(here_known, is_package_json, loaded, runner, ctx);
        }
    }

    /// `pytest [PATH…]`: the written `conftest.py` files it imports (in the directory it runs
    /// in, above it or under it) and the test files it collects there or under its operands.
    fn run_pytest_files(&mut self, args: &[String], dirs: &[String], ctx: Ctx) {
        let here = self.command_dir(dirs);
        let roots: Vec<String> = args
            .iter()
            .filter(|arg| !arg.starts_with('-'))
            .filter_map(|arg| {
                let path = arg.split("::").next().unwrap_or(arg);
                self.resolve_in(path, here.as_deref())
            })
            .chain(here.clone())
            .collect();
        let loaded = |path: &str| {
            let name = last_component(path).unwrap_or_default();
            let under = roots.iter().any(|root| paths::is_within(path, root));
            let above = name == "conftest.py"
                && here.as_deref().is_some_and(|here| {
                    path.rsplit_once('/').is_some_and(|(dir, _)| {
                        paths::is_within(here, if dir.is_empty() { "/" } else { dir })
                    })
                });
            is_test_module(name) && (under || above)
        };
        let here_known = here.as_deref().is_some_and(|here| !in_unknown_dir(here));
        self.load_conventional(
            here_known,
            is_test_module,
            loaded,
            Runner::Interpreter("python3"),
            ctx,
        );
    }

    /// Runs with `runner` the written files at the paths `loaded` accepts (up to
    /// [`MAX_LOADED`]). One named as `named` accepts whose place the walk cannot tell (its path,
    /// or the directory the program runs in, `here_known` false, only known at run time) may be
    /// loaded too: the script is then only known at run time.
    fn load_conventional(
        &mut self,
        here_known: bool,
        named: fn(&str) -> bool,
        loaded: impl Fn(&str) -> bool,
        runner: Runner<'_>,
        ctx: Ctx,
    ) {
        let mut files = Vec::new();
        let mut unsure = None;
        for written in &self.written {
            match written.path.as_deref() {
                Some(path) if loaded(path) => files.push(path.to_owned()),
                Some(path) if here_known && !in_unknown_dir(path) => {}
                _ if named(&written.name) => unsure = Some(written.name.clone()),
                _ => {}
            }
        }
        if let Some(name) = unsure {
            self.unresolved(Unresolved::DynamicScript(format!(
                "<{name} as this command line may have written it>"
            )));
        }
        for file in files.into_iter().take(MAX_LOADED) {
            self.load(&file, runner, &[], ctx);
        }
    }

    /// `pip install .`, `pip install -e DIR`, `pip wheel DIR`: a written `setup.py` in a local
    /// project it builds.
    fn run_setup_py(&mut self, args: &[String], dirs: &[String], ctx: Ctx) {
        let Some(at) = args.iter().position(|arg| !arg.starts_with('-')) else {
            return;
        };
        let builds = args
            .get(at)
            .is_some_and(|sub| matches!(sub.as_str(), "install" | "wheel" | "download"));
        if !builds {
            return;
        }
        let rest = args.get(at + 1..).unwrap_or_default();
        let mut projects: Vec<&str> = Vec::new();
        let mut previous = "";
        for arg in rest {
            if matches!(previous, "-e" | "--editable") || !arg.starts_with('-') {
                let local = arg.starts_with(['.', '/', '~', '$']) || arg.contains('/');
                if local && !matches!(previous, "-r" | "--requirement" | "-c" | "--constraint") {
                    projects.push(arg.trim_end_matches('/'));
                }
            } else if let Some(value) = arg.strip_prefix("--editable=") {
                projects.push(value);
            }
            previous = arg;
        }
        for project in projects.into_iter().take(MAX_LOADED) {
            let setup = format!("{project}/setup.py");
            self.load(&setup, Runner::Interpreter("python3"), dirs, ctx);
        }
    }

    /// A git command: the written hooks in the repository's hooks directory (`.git/hooks`, or
    /// `core.hooksPath` given by `-c` or an earlier `git config`), as their `#!` lines say.
    fn run_git_hooks(&mut self, args: &[String], dirs: &[String], ctx: Ctx) {
        let mut dirs = dirs.to_vec();
        let mut hook_dirs: Vec<String> = self.configured_hooks_paths();
        hook_dirs.extend(self.environment_hooks_path());
        let mut words = args.iter();
        while let Some(arg) = words.next() {
            match arg.as_str() {
                "-C" => dirs.extend(words.next().cloned()),
                "-c" => {
                    if let Some(path) = words.next().and_then(|setting| hooks_path(setting)) {
                        hook_dirs.push(path.to_owned());
                    }
                }
                _ if arg.starts_with('-') => {}
                _ => break,
            }
        }
        hook_dirs.push(".git/hooks".to_owned());
        let here = self.command_dir(&dirs);
        // A hooks path the repository's written `.git/config` sets.
        if let Some(config) = self
            .resolve_in(".git/config", here.as_deref())
            .and_then(|config| self.written_text(&config))
            .and_then(config_hooks_path)
        {
            hook_dirs.push(config);
        }
        let places: Vec<String> = hook_dirs
            .iter()
            .filter_map(|dir| self.resolve_in(dir, here.as_deref()))
            .collect();
        let loaded = |path: &str| {
            path.rsplit_once('/').is_some_and(|(parent, name)| {
                HOOKS.contains(&name) && places.iter().any(|dir| dir == parent)
            })
        };
        let here_known = here.as_deref().is_some_and(|here| !in_unknown_dir(here));
        self.load_conventional(here_known, is_hook, loaded, Runner::Path, ctx);
    }

    /// The hooks directories earlier `git config core.hooksPath DIR` commands of the command
    /// line set.
    fn configured_hooks_paths(&self) -> Vec<String> {
        let configured = |command: &SimpleCommand| -> Option<String> {
            if command.name() != "git" {
                return None;
            }
            let args = command.args();
            let key = args
                .iter()
                .position(|arg| arg.eq_ignore_ascii_case("core.hookspath"))?;
            args.get(key + 1).cloned()
        };
        self.out.commands.iter().filter_map(configured).collect()
    }

    /// `core.hooksPath` given in git's environment (`GIT_CONFIG_KEY_0=core.hooksPath
    /// GIT_CONFIG_VALUE_0=DIR git commit`).
    fn environment_hooks_path(&self) -> Option<String> {
        let command = self.out.commands.last()?;
        let value = |name: &str| {
            command
                .assignments
                .iter()
                .rev()
                .find(|assignment| assignment.name == name)
                .map(|assignment| assignment.value.clone())
        };
        (0..MAX_LOADED).find_map(|index| {
            let key = value(&format!("GIT_CONFIG_KEY_{index}"))?;
            key.eq_ignore_ascii_case("core.hookspath")
                .then(|| value(&format!("GIT_CONFIG_VALUE_{index}")))?
        })
    }

    /// `python3 -m pytest`, `python3 -m pip`: as pytest and pip; `python3 -m x`, `python3 -c
    /// CODE`: the written modules in the working directory or a directory of PYTHONPATH that it
    /// runs or the code names (`import x`, `from x import f`, `__import__('x')`).
    fn run_python_conventions(&mut self, args: &[String], dirs: &[String], ctx: Ctx) {
        match python_mode(args) {
            PythonMode::Module("pytest", rest) => {
                self.run_pytest_files(rest, dirs, ctx);
            }
            PythonMode::Module("pip", rest) => {
                self.run_setup_py(rest, dirs, ctx);
            }
            PythonMode::Module(module, _) => {
                let file = format!("{}.py", module.replace('.', "/"));
                let on_path: Vec<String> = self
                    .python_path()
                    .iter()
                    .map(|dir| format!("{}/{file}", dir.trim_end_matches('/')))
                    .collect();
                for file in on_path {
                    self.load(&file, Runner::Interpreter("python3"), dirs, ctx);
                }
            }
            PythonMode::Code(code) => {
                let names = identifiers(code);
                let search: Vec<String> = std::iter::once(".".to_owned())
                    .chain(self.python_path())
                    .collect();
                let modules: Vec<String> = self
                    .written
                    .iter()
                    .filter_map(|written| module_file(written, &names))
                    .flat_map(|file| {
                        search
                            .iter()
                            .map(move |dir| format!("{}/{file}", dir.trim_end_matches('/')))
                    })
                    .take(MAX_LOADED)
                    .collect();
                for file in modules {
                    self.load(&file, Runner::Interpreter("python3"), dirs, ctx);
                }
            }
            _ => {}
        }
    }

    /// A bare program name run where the command line set PATH (`PATH=.:$PATH x`, `export
    /// PATH="$PWD/bin:$PATH"; x`): a written file of that name in one of the directories it
    /// put there is what runs, as its `#!` line says. Where PATH holds a directory the walk
    /// cannot tell, or was given a value only known at run time, a written file of that name
    /// may be it.
    fn run_from_path(&mut self, name: &str, dirs: &[String], ctx: Ctx) {
        if !self
            .written
            .iter()
            .any(|written| written.may_be_named(name))
        {
            return;
        }
        let Some(path) = self.path_value() else {
            if self.environment_may_set("PATH") {
                self.unresolved(Unresolved::DynamicScript(format!(
                    "<{name} on a PATH only known at run time>"
                )));
            }
            return;
        };
        let components: Vec<String> = path
            .split(':')
            .filter(|dir| !matches!(*dir, "$PATH" | "${PATH}"))
            .map(|dir| if dir.is_empty() { "." } else { dir })
            .map(|dir| format!("{}/{name}", dir.trim_end_matches('/')))
            .take(MAX_LOADED)
            .collect();
        for file in components {
            self.load(&file, Runner::Path, dirs, ctx);
        }
    }

    /// PATH as the command line set it for the command just emitted: its own assignment
    /// (`PATH=.:$PATH x`), else the value the line gave the variable; `None` when it set none
    /// the walk knows.
    fn path_value(&self) -> Option<String> {
        self.environment_value("PATH")
    }

    /// The variable `name` as the command line set it for the command just emitted: its own
    /// assignment (`PATH=.:$PATH x`), else the value the line gave the variable; `None` when it
    /// set none the walk knows.
    fn environment_value(&self, name: &str) -> Option<String> {
        let own = self
            .out
            .commands
            .last()
            .and_then(|command| command.assignments.iter().rev().find(|a| a.name == name))
            .map(|assignment| assignment.value.clone());
        own.or_else(|| self.variable(name))
    }
}

/// Whether pytest imports a file of this name: `conftest.py`, `test_*.py`, `*_test.py`.
fn is_test_module(name: &str) -> bool {
    name == "conftest.py"
        || (name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py")))
}

/// Whether a file of this name is a package's manifest.
fn is_package_json(name: &str) -> bool {
    name == "package.json"
}

/// Whether a file of this name may be a git hook.
fn is_hook(name: &str) -> bool {
    HOOKS.contains(&name)
}

/// Whether a program runs Python, and so its start-up files: an interpreter, pip, pytest.
fn runs_python(name: &str) -> bool {
    is_python(name) || matches!(name, "pip" | "pip3" | "pytest" | "py.test")
}

/// Whether a directory is a Python installation's site-packages (`…/site-packages`,
/// Debian's `…/dist-packages`), whose `.pth` files every run reads.
fn is_site_packages(dir: &str) -> bool {
    matches!(
        dir.rsplit('/').next(),
        Some("site-packages" | "dist-packages")
    )
}

/// The files node may load for a preloaded module path: the path itself, and where it has no
/// extension, with node's (`./x` is `./x.js`, `./x.cjs`, `./x.mjs`, `./x/index.js`).
fn module_candidates(module: &str) -> Vec<String> {
    let named = last_component(module).is_some_and(|name| name.contains('.'));
    if named {
        return vec![module.to_owned()];
    }
    let module = module.trim_end_matches('/');
    ["", ".js", ".cjs", ".mjs", "/index.js"]
        .iter()
        .map(|suffix| format!("{module}{suffix}"))
        .collect()
}

/// The value of `hooksPath` in the `[core]` section of git config text.
fn config_hooks_path(text: &str) -> Option<String> {
    let mut section = String::new();
    let mut found = None;
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.split(']').next()) {
            section = name.trim().to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if section == "core" && key.trim().eq_ignore_ascii_case("hookspath") {
            found = Some(value.trim().trim_matches('"').to_owned());
        }
    }
    found
}

/// A package's manifest with these scripts set (`scripts.NAME` to its value); `None` when it
/// is no JSON object.
fn with_scripts(mut package: Value, scripts: &[(&str, &str)]) -> Option<String> {
    let object = package.as_object_mut()?;
    let entry = object
        .entry("scripts")
        .or_insert_with(|| Value::Object(Map::new()));
    let table = entry.as_object_mut()?;
    for (name, value) in scripts {
        table.insert((*name).to_owned(), Value::String((*value).to_owned()));
    }
    serde_json::to_string(&package).ok()
}

/// Whether a program is a Python interpreter (`python`, `python3`, `python3.12`, `pypy3`).
fn is_python(name: &str) -> bool {
    name.starts_with("python") || name.starts_with("pypy")
}

/// The value of a `-c core.hooksPath=DIR` setting.
fn hooks_path(setting: &str) -> Option<&str> {
    let (key, value) = setting.split_once('=')?;
    key.eq_ignore_ascii_case("core.hookspath").then_some(value)
}

/// A package manager's arguments: the project directories its options give (`--prefix DIR`,
/// `-C DIR`, `--cwd=DIR`), its operands (`run`, `x`) and whether it runs workspaces' scripts.
fn package_operands<'a>(manager: &str, args: &'a [String]) -> PackageArgs<'a> {
    let mut parsed = PackageArgs::default();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if arg == "--" {
            break;
        }
        let (option, inline) = match arg.split_once('=') {
            Some((option, value)) if option.starts_with('-') => (option, Some(value)),
            _ => (arg.as_str(), None),
        };
        if DIR_OPTIONS.contains(&option) {
            let value = inline.map(str::to_owned).or_else(|| words.next().cloned());
            parsed.project.extend(value);
        } else if WORKSPACE_OPTIONS.contains(&option) {
            parsed.workspaces = true;
            // pnpm's `-w` is `--workspace-root`.
            let valued =
                WORKSPACE_VALUED.contains(&option) && !(manager == "pnpm" && option == "-w");
            if inline.is_none() && valued {
                words.next();
            }
        } else if !arg.starts_with('-') {
            parsed.operands.push(arg.as_str());
        }
    }
    parsed
}

/// What [`package_operands`] reads of a package manager's arguments.
#[derive(Default)]
struct PackageArgs<'a> {
    /// The project directories its options give (`--prefix DIR`).
    project: Vec<String>,
    /// Its operands (`run`, `x`).
    operands: Vec<&'a str>,
    /// Whether it runs the scripts of the workspace's packages (`-w PKG`, `-r`, `--filter X`).
    workspaces: bool,
}

/// Options that run the scripts of other packages of a workspace.
const WORKSPACE_OPTIONS: &[&str] = &[
    "-w",
    "--workspace",
    "-ws",
    "--workspaces",
    "-r",
    "--recursive",
    "--filter",
    "-F",
    "--filter-prod",
];

/// Of those, the ones that take a value.
const WORKSPACE_VALUED: &[&str] = &["-w", "--workspace", "--filter", "-F", "--filter-prod"];

/// The package.json scripts `manager OPERANDS` runs (`npm test`: `pretest`, `test`,
/// `posttest`; an install: the lifecycle scripts).
fn package_scripts(manager: &str, operands: &[&str]) -> Vec<String> {
    let named = |script: &str| -> Vec<String> {
        vec![
            format!("pre{script}"),
            script.to_owned(),
            format!("post{script}"),
        ]
    };
    let Some((sub, rest)) = operands.split_first() else {
        // A bare `yarn` or `pnpm` installs; a bare `npm` or `bun` prints its help.
        return match manager {
            "yarn" | "pnpm" => LIFECYCLE.iter().map(|s| (*s).to_owned()).collect(),
            _ => Vec::new(),
        };
    };
    let mut scripts: Vec<String> = match *sub {
        "run" | "run-script" | "rum" | "urn" => rest.first().map(|s| named(s)).unwrap_or_default(),
        "test" | "t" | "tst" if manager != "bun" => named("test"),
        "start" | "stop" | "restart" => named(sub),
        _ if INSTALLS.contains(sub) => LIFECYCLE.iter().map(|s| (*s).to_owned()).collect(),
        // `bun x` is bunx.
        "x" if manager == "bun" => Vec::new(),
        _ if manager != "npm" && !BUILTINS.contains(sub) => named(sub),
        _ => Vec::new(),
    };
    if matches!(*sub, "install-test" | "it") {
        scripts.extend(named("test"));
    }
    scripts.truncate(MAX_PACKAGE_SCRIPTS.max(LIFECYCLE.len() + 3));
    scripts
}

/// The scripts of package.json text that `names` names, in order; `None` when the text is not
/// JSON the walk can read.
pub(super) fn package_json_scripts(text: &str, names: &[String]) -> Option<Vec<String>> {
    let package: Value = serde_json::from_str(text).ok()?;
    let scripts = package.get("scripts").and_then(Value::as_object);
    Some(
        names
            .iter()
            .filter_map(|name| scripts?.get(name)?.as_str().map(str::to_owned))
            .collect(),
    )
}

/// How `python3 ARGS` runs: a module with its arguments (`-m pytest -q`), code (`-c CODE`), or
/// otherwise.
enum PythonMode<'a> {
    Module(&'a str, &'a [String]),
    Code(&'a str),
    Other,
}

/// How `python3 ARGS` runs (see [`PythonMode`]), from its leading options.
fn python_mode(args: &[String]) -> PythonMode<'_> {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let Some(option) = arg.strip_prefix('-').filter(|o| !o.is_empty() && *o != "-") else {
            break;
        };
        let value = |inline: &'static str| -> Option<&String> {
            match option.strip_prefix(inline) {
                Some("") => args.get(at + 1),
                _ => None,
            }
        };
        if let Some(module) = option.strip_prefix('m') {
            return match module {
                "" => args.get(at + 1).map_or(PythonMode::Other, |module| {
                    PythonMode::Module(module, args.get(at + 2..).unwrap_or_default())
                }),
                module => PythonMode::Module(module, args.get(at + 1..).unwrap_or_default()),
            };
        }
        if let Some(code) = option.strip_prefix('c') {
            return match code {
                "" => value("c").map_or(PythonMode::Other, |code| PythonMode::Code(code)),
                code => PythonMode::Code(code),
            };
        }
        at += if matches!(option, "W" | "X") { 2 } else { 1 };
    }
    PythonMode::Other
}

/// The file, relative to the working directory, that `import NAME` of a written module loads
/// (`x.py`, `pkg/__init__.py`), when the code names it; a file whose name is only known at run
/// time may be any of them.
fn module_file(written: &super::Written, names: &[&str]) -> Option<String> {
    let named = |module: &str| names.contains(&module);
    if written.name.is_empty() {
        return names.first().map(|name| format!("{name}.py"));
    }
    if let Some(module) = written.name.strip_suffix(".py").filter(|m| named(m)) {
        return Some(format!("{module}.py"));
    }
    let package = written
        .path
        .as_deref()
        .filter(|_| written.name == "__init__.py")
        .and_then(|path| path.rsplit('/').nth(1))
        .filter(|package| named(package))?;
    Some(format!("{package}/__init__.py"))
}

/// The names a piece of code mentions (`import a.b, c` gives `import`, `a`, `b`, `c`).
fn identifiers(code: &str) -> Vec<&str> {
    let mut names: Vec<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| word.chars().next().is_some_and(|c| !c.is_ascii_digit()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn scripts_package_managers_run() {
        let scripts = |manager: &str, words: &[&str]| {
            let args = strings(words);
            package_scripts(manager, &package_operands(manager, &args).operands)
        };
        assert_eq!(scripts("npm", &["test"]), ["pretest", "test", "posttest"]);
        assert_eq!(
            scripts("npm", &["run", "x", "--", "-w"]),
            ["prex", "x", "postx"]
        );
        assert_eq!(
            scripts("yarn", &["--cwd", "app", "x"]),
            ["prex", "x", "postx"]
        );
        assert_eq!(scripts("pnpm", &["x"]), ["prex", "x", "postx"]);
        assert!(scripts("npm", &["install"]).contains(&"postinstall".to_owned()));
        assert!(scripts("yarn", &[]).contains(&"prepare".to_owned()));
        assert!(scripts("npm", &["ls"]).is_empty());
        assert!(scripts("yarn", &["why", "x"]).is_empty());
        assert!(scripts("bun", &["test"]).is_empty());
        assert!(scripts("bun", &["x", "prettier"]).is_empty());
        assert_eq!(scripts("yarn", &["x"]), ["prex", "x", "postx"]);
        let args = strings(&["--prefix", "app", "test"]);
        assert_eq!(package_operands("npm", &args).project, ["app"]);
        let args = strings(&["-w", "pkg", "test"]);
        let parsed = package_operands("npm", &args);
        assert!(parsed.workspaces);
        assert_eq!(parsed.operands, ["test"]);
    }

    #[test]
    fn package_json_text() {
        let names = strings(&["pretest", "test"]);
        assert_eq!(
            package_json_scripts(r#"{"scripts":{"test":"jest","build":"tsc"}}"#, &names),
            Some(strings(&["jest"]))
        );
        assert_eq!(
            package_json_scripts(r#"{"name":"x"}"#, &names),
            Some(vec![])
        );
        assert_eq!(package_json_scripts("{", &names), None);
    }

    #[test]
    fn python_modes() {
        let args = strings(&["-u", "-m", "pytest", "-q"]);
        assert!(matches!(python_mode(&args), PythonMode::Module("pytest", [q]) if q == "-q"));
        let args = strings(&["-c", "import x"]);
        assert!(matches!(python_mode(&args), PythonMode::Code("import x")));
        let args = strings(&["-W", "ignore", "-mpip", "install"]);
        assert!(matches!(python_mode(&args), PythonMode::Module("pip", _)));
        assert!(matches!(
            python_mode(&strings(&["x.py"])),
            PythonMode::Other
        ));
        assert_eq!(
            identifiers("import a.b, c; x = 1"),
            ["a", "b", "c", "import", "x"]
        );
    }

    #[test]
    fn start_up_files_and_preloads() {
        assert_eq!(
            config_hooks_path("[core]\n\tbare = false\n\thooksPath = \"h\"\n[user]\n"),
            Some("h".to_owned())
        );
        assert_eq!(config_hooks_path("[user]\n\thooksPath = h\n"), None);
        assert_eq!(module_candidates("./x.mjs"), ["./x.mjs"]);
        assert!(module_candidates("./lib/x").contains(&"./lib/x.js".to_owned()));
        assert!(is_site_packages("/p/.venv/lib/python3.12/site-packages"));
        assert!(!is_site_packages("/p/src"));
        let args = strings(&["-r", "./a.js", "--import=./b.mjs", "app.js"]);
        assert_eq!(interp::node_preloads("node", &args), ["./a.js", "./b.mjs"]);
        assert!(interp::node_preloads("python3", &args).is_empty());
    }

    #[test]
    fn scripts_npm_pkg_sets() {
        let package = serde_json::json!({"name": "x", "scripts": {"test": "jest"}});
        let text = with_scripts(package, &[("test", "rm -rf ~"), ("lint", "eslint .")]);
        let names = strings(&["test", "lint"]);
        assert_eq!(
            package_json_scripts(&text.unwrap_or_default(), &names),
            Some(strings(&["rm -rf ~", "eslint ."]))
        );
        assert_eq!(with_scripts(Value::Null, &[("test", "x")]), None);
    }

    #[test]
    fn pytest_modules_and_hooks_paths() {
        assert!(is_test_module("conftest.py"));
        assert!(is_test_module("test_api.py"));
        assert!(is_test_module("api_test.py"));
        assert!(!is_test_module("api.py"));
        assert_eq!(hooks_path("core.hooksPath=.githooks"), Some(".githooks"));
        assert_eq!(hooks_path("user.name=x"), None);
    }
}
