//! Task runners other than make that run a project file's commands: just (a justfile's
//! recipes), Task (a Taskfile's `cmds`), and those whose file is code of a language the
//! interpreter scanner reads (rake's Rakefile, invoke's tasks.py, Fabric's fabfile.py, nox's
//! noxfile.py, gulp's and grunt's JavaScript). Where the command line wrote that file, the walk
//! runs what it holds, as it does a written Makefile for `make`.
//!
//! This module must not parse shell text; the walker does that.

use serde_norway::Value;

use super::super::Origin;
use super::super::exec::{Nested, script_or_dynamic};
use super::super::wrappers::Field;
use crate::argv::Parsed;

/// How a task runner's file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::shell) enum TaskFile {
    /// A justfile.
    Just,
    /// A Taskfile (YAML).
    Taskfile,
    /// Code this interpreter runs (`ruby` for a Rakefile), read after a preamble that says
    /// what the runner's own calls do: rake's `sh` runs shell text as `system` does, and
    /// invoke's and nox's `.run(…)` as `subprocess.run` does.
    Code(&'static str, &'static str),
}

/// What rake's own `sh` is: Ruby's `system`.
const RAKE: &str = "sh = system\n";

/// What invoke's `c.run` and nox's `session.run` are: `subprocess.run` (the scanner
/// counts a `run(…)` call where the code names the module).
const PYTHON_TASKS: &str = "import subprocess\n";

/// A task runner: its name, the files it looks for (the first found is read), its options
/// naming the file and the directory it runs in (`\0` and `""`: none), and how the file is read.
struct TaskRunner {
    name: &'static str,
    files: &'static [&'static str],
    file_option: (char, &'static str),
    dir_option: (char, &'static str),
    kind: TaskFile,
}

/// The task runners the walk follows into a written file.
const RUNNERS: &[TaskRunner] = &[
    TaskRunner {
        name: "just",
        files: &["justfile", "Justfile", ".justfile", "JUSTFILE"],
        file_option: ('f', "justfile"),
        dir_option: ('d', "working-directory"),
        kind: TaskFile::Just,
    },
    TaskRunner {
        name: "task",
        files: &[
            "Taskfile.yml",
            "taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yaml",
            "Taskfile.dist.yml",
            "taskfile.dist.yml",
            "Taskfile.dist.yaml",
            "taskfile.dist.yaml",
        ],
        file_option: ('t', "taskfile"),
        dir_option: ('d', "dir"),
        kind: TaskFile::Taskfile,
    },
    TaskRunner {
        name: "go-task",
        files: &[
            "Taskfile.yml",
            "taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yaml",
        ],
        file_option: ('t', "taskfile"),
        dir_option: ('d', "dir"),
        kind: TaskFile::Taskfile,
    },
    TaskRunner {
        name: "rake",
        files: &["rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"],
        file_option: ('f', "rakefile"),
        dir_option: ('C', "directory"),
        kind: TaskFile::Code("ruby", RAKE),
    },
    TaskRunner {
        name: "invoke",
        files: &["tasks.py"],
        file_option: ('c', "collection"),
        dir_option: ('\0', ""),
        kind: TaskFile::Code("python3", PYTHON_TASKS),
    },
    TaskRunner {
        name: "inv",
        files: &["tasks.py"],
        file_option: ('c', "collection"),
        dir_option: ('\0', ""),
        kind: TaskFile::Code("python3", PYTHON_TASKS),
    },
    TaskRunner {
        name: "fab",
        files: &["fabfile.py"],
        file_option: ('f', "fabfile"),
        dir_option: ('\0', ""),
        kind: TaskFile::Code("python3", PYTHON_TASKS),
    },
    TaskRunner {
        name: "nox",
        files: &["noxfile.py"],
        file_option: ('f', "noxfile"),
        dir_option: ('\0', ""),
        kind: TaskFile::Code("python3", PYTHON_TASKS),
    },
    TaskRunner {
        name: "gulp",
        files: &["gulpfile.js", "gulpfile.cjs", "gulpfile.mjs"],
        file_option: ('\0', "gulpfile"),
        dir_option: ('\0', "cwd"),
        kind: TaskFile::Code("node", ""),
    },
    TaskRunner {
        name: "grunt",
        files: &["Gruntfile.js", "gruntfile.js"],
        file_option: ('\0', "gruntfile"),
        dir_option: ('\0', "base"),
        kind: TaskFile::Code("node", ""),
    },
];

/// The file `name ARGS` reads its tasks from, when `name` is a task runner of [`RUNNERS`]: how
/// it is read, the directories it changes to first, and the files it looks for (the one its
/// option names, else each name it looks for; the first found is read).
pub(in crate::shell) fn task_files(
    name: &str,
    args: &[Field],
) -> Option<(TaskFile, Vec<String>, Vec<String>)> {
    let runner = RUNNERS.iter().find(|runner| runner.name == name)?;
    let (names, kind) = (runner.files, &runner.kind);
    let ((file_short, file_long), (dir_short, dir_long)) =
        (&runner.file_option, &runner.dir_option);
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let shorts: Vec<char> = [*file_short, *dir_short]
        .into_iter()
        .filter(|c| *c != '\0')
        .collect();
    let longs: Vec<&str> = [*file_long, *dir_long]
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect();
    let parsed = Parsed::new(&strings, &shorts, &longs);
    let pick = |short: char, long: &str| -> Vec<String> {
        let shorts: Vec<char> = [short].into_iter().filter(|c| *c != '\0').collect();
        let longs: Vec<&str> = [long].into_iter().filter(|l| !l.is_empty()).collect();
        parsed
            .values(&shorts, &longs)
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    let dirs = pick(*dir_short, dir_long);
    let mut files = pick(*file_short, file_long);
    if files.is_empty() {
        files = names.iter().map(|name| (*name).to_owned()).collect();
    } else if matches!(kind, TaskFile::Code("python3", _))
        && !files.iter().any(|f| f.ends_with(".py"))
    {
        // invoke's `-c NAME` names a module.
        files = files.iter().map(|module| format!("{module}.py")).collect();
    }
    Some((*kind, dirs, files))
}

/// The shell commands of justfile text: each recipe line (indented under a recipe's header;
/// `@` and `-` prefixes dropped, a line ending in `\` continued) and each backquoted command,
/// which just runs as it evaluates the file. A line with an interpolation (`{{…}}`), a recipe
/// run by another interpreter (a `#!` line, `[script(…)]`) and every recipe of a file that sets
/// another shell are only known at run time.
pub(in crate::shell) fn justfile_commands(text: &str) -> Vec<Nested> {
    let other_shell = text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("set shell") || line.starts_with("set windows-shell")
    });
    let mut found = Vec::new();
    let mut in_recipe = false;
    // Whether the recipe being read runs under another interpreter than the shell.
    let mut script = false;
    // Whether the next recipe line is its recipe's first.
    let mut first = false;
    // A recipe line continued on the next (it ended in `\`).
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if !line.starts_with([' ', '\t']) {
            pending = None;
            if trimmed.starts_with("[script") {
                script = trimmed != "[script]" && !trimmed.starts_with("[script()");
            }
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('[') {
                continue;
            }
            in_recipe = is_recipe_header(trimmed);
            first = true;
            if !in_recipe {
                script = false;
            }
            found.extend(backquoted(trimmed));
            continue;
        }
        if !in_recipe || trimmed.is_empty() {
            continue;
        }
        if first && trimmed.starts_with("#!") {
            script = true;
        }
        first = false;
        let command = match pending.take() {
            Some(mut before) => {
                before.push('\n');
                before.push_str(trimmed);
                before
            }
            None => trimmed.trim_start_matches(['@', '-']).to_owned(),
        };
        if command.ends_with('\\') {
            pending = Some(command);
        } else if other_shell || script {
            found.push(Nested::Dynamic(format!("<a just recipe: {command}>")));
        } else {
            let dynamic = command.contains("{{");
            found.push(script_or_dynamic(command, dynamic, Origin::ShellString));
        }
    }
    found
}

/// Whether a justfile line starts a recipe: a name (with `@` to be quiet), its parameters,
/// then a `:` that is no `:=` assignment.
fn is_recipe_header(line: &str) -> bool {
    let line = line.trim_start_matches('@');
    let Some(colon) = line.find(':') else {
        return false;
    };
    let head = line.get(..colon).unwrap_or_default();
    let after = line.get(colon + 1..).unwrap_or_default();
    let name = head.split_whitespace().next().unwrap_or_default();
    !after.starts_with('=')
        && !matches!(
            name,
            "set" | "alias" | "export" | "import" | "mod" | "unexport"
        )
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// The backquoted commands of a justfile line outside recipes (`` x := `cmd` ``).
fn backquoted(line: &str) -> Vec<Nested> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|command| !command.trim().is_empty())
        .map(|command| {
            script_or_dynamic(
                command.to_owned(),
                command.contains("{{"),
                Origin::ShellString,
            )
        })
        .collect()
}

/// Most bytes a Taskfile's YAML may stand for with its aliases expanded.
const MAX_TASKFILE_BYTES: usize = 64 * 1024;

/// The shell commands of a Taskfile: each task's `cmds` (a string, or a `cmd:` mapping),
/// `defer`, `status` and `preconditions` (a string, or an `sh:` mapping), and the `sh:` of a
/// dynamic variable; one with a template (`{{.X}}`) is only known at run time. `None` for text
/// the analysis cannot read as YAML.
pub(in crate::shell) fn taskfile_commands(text: &str) -> Option<Vec<Nested>> {
    if crate::bundle::yaml_expands_past(text, MAX_TASKFILE_BYTES) {
        return None;
    }
    let document: Value = serde_norway::from_str(text).ok()?;
    let mut found = Vec::new();
    collect_task_commands(&document, false, &mut found);
    Some(found)
}

/// Keys whose string values (or the strings in whose lists) Task runs through its shell.
const TASK_COMMAND_KEYS: &[&str] = &["cmds", "cmd", "sh", "defer", "status", "preconditions"];

/// Adds the commands under `value` to `found`; `commands` says whether a string here is one.
fn collect_task_commands(value: &Value, commands: bool, found: &mut Vec<Nested>) {
    if found.len() > 64 {
        return;
    }
    match value {
        Value::String(text) if commands => {
            found.push(script_or_dynamic(
                text.clone(),
                text.contains("{{"),
                Origin::ShellString,
            ));
        }
        Value::Sequence(items) => {
            for item in items {
                collect_task_commands(item, commands, found);
            }
        }
        Value::Mapping(map) => {
            for (key, item) in map {
                let runs = key
                    .as_str()
                    .is_some_and(|key| TASK_COMMAND_KEYS.contains(&key));
                collect_task_commands(item, runs, found);
            }
        }
        Value::Tagged(tagged) => collect_task_commands(&tagged.value, commands, found),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::texts;
    use super::*;
    use crate::shell::wrappers::tests::fields;

    #[test]
    fn justfile_recipes() {
        let text = "set dotenv-load\nv := `git describe`\n\n# build it\n[private]\nbuild arg='x': dep\n    @cargo build\n    -rm -rf ~ \\\n      /tmp\n\nrun:\n  echo {{arg}}\n";
        let found = texts(justfile_commands(text));
        assert_eq!(found.first().map(String::as_str), Some("git describe"));
        assert!(found.contains(&"cargo build".to_owned()));
        assert!(found.contains(&"rm -rf ~ \\\n/tmp".to_owned()));
        assert!(found.iter().any(|f| f.starts_with("dynamic: echo {{arg}}")));
        let shebang = texts(justfile_commands(
            "x:\n  #!/usr/bin/env python3\n  import os\n",
        ));
        assert!(shebang.iter().all(|f| f.starts_with("dynamic")));
        assert!(!is_recipe_header("x := 'a:b'"));
        assert!(is_recipe_header("@test *args:"));
    }

    #[test]
    fn taskfile_cmds() {
        let text = "version: '3'\nvars:\n  V:\n    sh: git rev-parse HEAD\ntasks:\n  b:\n    deps: [a]\n    cmds:\n      - go build\n      - cmd: rm -rf ~\n      - task: a\n      - echo {{.V}}\n    desc: rm -rf not-run\n";
        let found = texts(taskfile_commands(text).unwrap_or_default());
        assert_eq!(
            found.get(..3),
            Some(
                &[
                    "git rev-parse HEAD".to_owned(),
                    "go build".to_owned(),
                    "rm -rf ~".to_owned()
                ][..]
            )
        );
        assert!(found.iter().any(|f| f.starts_with("dynamic: echo {{.V}}")));
        assert!(!found.iter().any(|f| f.contains("not-run")));
        assert!(taskfile_commands("tasks: [").is_none());
    }

    #[test]
    fn task_runner_files() {
        let (kind, dirs, files) = task_files("just", &fields(&["-f", "x.just", "b"])).unwrap_or((
            TaskFile::Just,
            vec![],
            vec![],
        ));
        assert_eq!(
            (kind, dirs, files),
            (TaskFile::Just, vec![], vec!["x.just".to_owned()])
        );
        let found = task_files("task", &fields(&["-d", "sub", "b"]));
        assert!(
            found.is_some_and(|(kind, dirs, files)| kind == TaskFile::Taskfile
                && dirs == ["sub"]
                && files.first().is_some_and(|f| f == "Taskfile.yml"))
        );
        let found = task_files("invoke", &fields(&["-c", "mytasks", "b"]));
        assert!(found.is_some_and(|(_, _, files)| files == ["mytasks.py"]));
        assert!(task_files("make", &fields(&[])).is_none());
    }
}
