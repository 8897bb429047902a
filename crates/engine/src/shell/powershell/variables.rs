//! Variables with a value known before the code runs: `$p = "$HOME\.ssh\id_rsa"; Get-Content $p`
//! reads the key, `$a = @{Path='~'; Recurse=$true}; Remove-Item @a` removes the home. The
//! statements are followed in order; a later use of the variable (or a splat of a hash table)
//! is replaced by its value, before the script is written out.
//!
//! A value is known when it is one word of text and variables (no subexpression, no .NET call,
//! no array) or a hash table of such words, assigned by a statement that surely runs (not after
//! `&&` or `||`, not inside a block). Any other assignment forgets the variable, and so does one
//! inside a block or subexpression, a `foreach` loop's variable, and a cmdlet that sets variables
//! by name (`Set-Variable`). Variables whose value the front end already knows (`$HOME`,
//! `$PROFILE`, `$env:USERPROFILE`) are never rebound: PowerShell refuses to change most of them.

use super::read::{Command, Join, Part, Script, Word};
use super::{PART, known_variable};
use crate::shell::parse::Budget;

/// Most variables followed at once (the oldest is forgotten first).
const MAX_KNOWN: usize = 32;

/// Cmdlets that set variables by name: after one, no value is known.
const VARIABLE_SETTERS: &[&str] = &[
    "set-variable",
    "sv",
    "set",
    "new-variable",
    "nv",
    "clear-variable",
    "clv",
    "remove-variable",
    "rv",
];

/// Variables and their known values, newest last (names in lowercase, without a scope).
type Known = Vec<(String, Word)>;

/// Replaces the uses of variables with a known value in `script` by that value. Every part
/// copied burns `budget`'s fuel (a value built of another twice, `$a = "$a$a"`, doubles at each
/// assignment); once that is out, the uses stay variables.
pub(super) fn substitute(script: &mut Script, budget: &Budget) {
    walk(script, Vec::new(), budget);
}

/// Follows `script`'s statements in order from the values `known` before it.
fn walk(script: &mut Script, mut known: Known, budget: &Budget) {
    let mut conditional = false;
    for (pipeline, join) in &mut script.statements {
        // What the statement's own code may assign (in a block, a loop's head, by name) has no
        // known value anywhere in it, nor after it.
        let mut assigned = Vec::new();
        for command in &pipeline.commands {
            command_assignments(command, &mut assigned);
        }
        for name in &assigned {
            forget(&mut known, name);
        }
        for command in &mut pipeline.commands {
            for word in &mut command.words {
                replace_in_word(word, &known, budget);
            }
            for target in command
                .redirects
                .iter_mut()
                .filter_map(|r| r.target.as_mut())
            {
                replace_in_word(target, &known, budget);
            }
            command.words = expand_splats(std::mem::take(&mut command.words), &known, budget);
        }
        if let [command] = pipeline.commands.as_slice()
            && let Some(name) = &command.assigns
        {
            let value = static_value(&command.words).filter(|_| !command.compound && !conditional);
            bind(&mut known, name, value);
        } else {
            for name in pipeline.commands.iter().filter_map(|c| c.assigns.as_ref()) {
                forget(&mut known, name);
            }
        }
        conditional = *join != Join::Then;
    }
}

/// Replaces the known variables in a word, and in the code nested in it (which starts from the
/// same values and binds its own).
fn replace_in_word(word: &mut Word, known: &Known, budget: &Budget) {
    let mut parts = Vec::with_capacity(word.parts.len());
    for part in std::mem::take(&mut word.parts) {
        match part {
            Part::Var(name) => match lookup(known, &name) {
                Some(value) if budget.burn(size(value)) => {
                    parts.extend(value.parts.iter().cloned());
                }
                _ => parts.push(Part::Var(name)),
            },
            Part::Sub(mut nested) => {
                walk(&mut nested, copied(known, budget), budget);
                parts.push(Part::Sub(nested));
            }
            Part::Block(mut nested) => {
                walk(&mut nested, copied(known, budget), budget);
                parts.push(Part::Block(nested));
            }
            Part::Hash(mut entries) => {
                for value in entries.iter_mut().flat_map(|(_, values)| values.iter_mut()) {
                    replace_in_word(value, known, budget);
                }
                parts.push(Part::Hash(entries));
            }
            other => parts.push(other),
        }
    }
    word.parts = parts;
}

/// The names a command's nested code assigns, a `foreach` loop's variable, and `*` for a cmdlet
/// that sets variables by name.
fn command_assignments(command: &Command, names: &mut Vec<String>) {
    let name = command.words.first().and_then(Word::literal);
    let name = name.map(|n| n.to_ascii_lowercase()).unwrap_or_default();
    if command.assigns.is_none() && VARIABLE_SETTERS.contains(&name.as_str()) {
        names.push(String::from("*"));
    }
    if name == "foreach"
        && let Some(Part::Sub(head)) = command.words.get(1).and_then(|w| w.parts.first())
    {
        names.extend(first_variable(head));
    }
    for part in command.words.iter().flat_map(|w| &w.parts) {
        if let Part::Sub(inner) | Part::Block(inner) = part {
            assignments(inner, names);
        }
    }
}

/// The names `script` assigns, nested code included (the reader bounds its depth).
fn assignments(script: &Script, names: &mut Vec<String>) {
    for (pipeline, _) in &script.statements {
        for command in &pipeline.commands {
            names.extend(command.assigns.as_deref().map(normal_name));
            command_assignments(command, names);
        }
    }
}

/// `@name` arguments whose variable holds a known hash table, as the parameters it names
/// (`-Path ~ -Recurse`); other words as they are.
fn expand_splats(words: Vec<Word>, known: &Known, budget: &Budget) -> Vec<Word> {
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let splatted = word
            .literal()
            .filter(|_| word.bare)
            .and_then(|text| text.strip_prefix('@').map(str::to_owned))
            .and_then(|name| lookup(known, &name));
        let Some([Part::Hash(entries)]) = splatted.map(|w| w.parts.as_slice()) else {
            out.push(word);
            continue;
        };
        budget.burn(PART * entries.len() as u64);
        for (key, values) in entries {
            match values.as_slice() {
                [switch] if is_var(switch, "true") => out.push(Word::text(&format!("-{key}"))),
                [switch] if is_var(switch, "false") => {
                    let mut off = Word::text(&format!("-{key}:"));
                    off.parts.push(Part::Var("false".to_owned()));
                    out.push(off);
                }
                _ => {
                    out.push(Word::text(&format!("-{key}")));
                    out.extend(values.iter().cloned());
                }
            }
        }
    }
    out
}

/// The value of an assignment's right side when it is known: one word of text and variables,
/// or a hash table of such words.
fn static_value(words: &[Word]) -> Option<Word> {
    let [word] = words else {
        return None;
    };
    let static_part = |part: &Part| match part {
        Part::Text(_) | Part::Var(_) => true,
        Part::Hash(entries) => entries.iter().flat_map(|(_, values)| values).all(|value| {
            value
                .parts
                .iter()
                .all(|p| matches!(p, Part::Text(_) | Part::Var(_)))
        }),
        _ => false,
    };
    // A bare literal is a command (`$x = git`), an array's first word not the whole value.
    let command = word.bare && word.literal().is_some();
    let known = !command && !word.comma_after && word.parts.iter().all(static_part);
    known.then(|| word.clone())
}

/// Gives `name` its value, or forgets it (`None`, or a name whose value is known already).
fn bind(known: &mut Known, name: &str, value: Option<Word>) {
    let name = normal_name(name);
    forget(known, &name);
    let Some(value) = value else {
        return;
    };
    if known_variable(&name).is_some() {
        return;
    }
    if known.len() >= MAX_KNOWN {
        known.remove(0);
    }
    known.push((name, value));
}

/// Forgets `name` (`*`: every name).
fn forget(known: &mut Known, name: &str) {
    if name == "*" {
        known.clear();
    } else {
        let name = normal_name(name);
        known.retain(|(bound, _)| *bound != name);
    }
}

/// The fuel a known value costs where it is copied: its parts, and its hash table's values'.
fn size(value: &Word) -> u64 {
    let hashed: usize = value
        .parts
        .iter()
        .map(|part| match part {
            Part::Hash(entries) => entries
                .iter()
                .flat_map(|(_, values)| values)
                .map(|value| value.parts.len())
                .sum(),
            _ => 0,
        })
        .sum();
    PART * (value.parts.len() + hashed) as u64
}

/// A copy of the known values for nested code, which burns fuel for every part copied.
fn copied(known: &Known, budget: &Budget) -> Known {
    budget.burn(known.iter().map(|(_, value)| size(value)).sum());
    known.clone()
}

/// The value `name` is known to have.
fn lookup<'k>(known: &'k Known, name: &str) -> Option<&'k Word> {
    let name = normal_name(name);
    known
        .iter()
        .rev()
        .find(|(bound, _)| *bound == name)
        .map(|(_, value)| value)
}

/// A variable's name in lowercase, without the scope that names the same variable here
/// (`$script:p` is `$p`); `env:` is kept.
fn normal_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    ["script:", "global:", "local:", "private:"]
        .iter()
        .find_map(|scope| lower.strip_prefix(scope))
        .map_or_else(|| lower.clone(), str::to_owned)
}

/// The loop variable of a `foreach ($f in …)` head.
fn first_variable(head: &Script) -> Option<String> {
    let (pipeline, _) = head.statements.first()?;
    let word = pipeline.commands.first()?.words.first()?;
    match word.parts.as_slice() {
        [Part::Var(name)] => Some(normal_name(name)),
        _ => None,
    }
}

/// Whether a word is the variable `$name`.
fn is_var(word: &Word, name: &str) -> bool {
    matches!(word.parts.as_slice(), [Part::Var(var)] if var.eq_ignore_ascii_case(name))
}
