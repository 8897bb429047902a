//! The make variables a written makefile's recipes expand, where the walk can tell their value.
//!
//! `printf 'all:\n\t$(CC) -o $@ main.c\n' > Makefile; make` runs `cc -o all main.c`: a recipe
//! that expands a variable is read with the value when the makefile gives it one plain literal
//! (`CC = gcc`) or make's own default stands (`$(MAKE)`, `$(CC)`, `$(RM)`, empty `$(CFLAGS)`),
//! and with an automatic variable (`$@`, `$^`, `$<`) as a word only known at run time when the
//! rules' names are plain. Anything else (a function, a value that expands, a variable given
//! elsewhere: the command line's environment, `make CC=…`, `MAKEFLAGS`, an `include`d file)
//! leaves the recipe only known at run time.

/// What make defines itself, for a variable the makefile does not assign (GNU make's built-in
/// values; the flags are empty).
const DEFAULTS: &[(&str, &str)] = &[
    ("MAKE", "make"),
    ("CC", "cc"),
    ("CXX", "g++"),
    ("RM", "rm -f"),
    ("AR", "ar"),
    ("ARFLAGS", "rv"),
    ("CFLAGS", ""),
    ("CXXFLAGS", ""),
    ("CPPFLAGS", ""),
    ("LDFLAGS", ""),
    ("LDLIBS", ""),
];

/// The names of make's automatic variables (`$@`, `$(@D)`), whose values are the rule's target
/// and prerequisites.
const AUTOMATIC: &[char] = &['@', '<', '^', '?', '*', '+', '|', '%'];

/// What stands for an automatic variable's value in the recipe the walk reads: a shell
/// parameter the command line cannot set, so a word only known at run time.
const RUN_TIME_WORD: &str = "$!";

/// Most characters of a variable's value substituted into one recipe.
const MAX_EXPANDED: usize = 4096;

/// The variables of one makefile text.
pub(in crate::shell) struct MakeVariables<'a> {
    /// The makefile's text.
    text: &'a str,
    /// Whether the walk may read variables at all: not when the text includes another makefile,
    /// defines or evaluates text as makefile (`include`, `define`, `$(eval …)`), or the command
    /// line may have set `MAKEFLAGS`.
    readable: bool,
    /// Whether the rules' targets and prerequisites are plain names (no pattern, glob,
    /// expansion or shell character), so that automatic variables expand to words only.
    plain_rules: bool,
}

impl<'a> MakeVariables<'a> {
    /// The variables of `text`; `set_outside(NAME)` says whether the command line may have given
    /// NAME a value make sees (its environment, `make NAME=…`).
    pub(in crate::shell) fn read(text: &'a str, set_outside: &dyn Fn(&str) -> bool) -> Self {
        let directive = text.lines().any(|line| {
            let first = line.split_whitespace().next().unwrap_or_default();
            matches!(
                first,
                "include" | "-include" | "sinclude" | "define" | "undefine" | "override"
            ) || line.contains("$(eval")
                || line.contains("${eval")
                || line.contains(".SECONDEXPANSION")
        });
        let readable =
            !directive && !set_outside("MAKEFLAGS") && !set_outside("MFLAGS") && !set_outside("");
        Self {
            text,
            readable,
            plain_rules: rules_are_plain(text),
        }
    }

    /// The value make gives the variable `name` in a recipe, when the walk can tell.
    fn value(&self, name: &str, set_outside: &dyn Fn(&str) -> bool) -> Option<String> {
        if !self.readable || set_outside(name) {
            return None;
        }
        let mut assignments = self
            .text
            .lines()
            .filter(|line| !line.starts_with('\t'))
            .filter(|line| assigns(line, name));
        match (assignments.next(), assignments.next()) {
            (None, _) => DEFAULTS
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, value)| (*value).to_owned()),
            (Some(line), None) => literal_value(line, name),
            _ => None,
        }
    }

    /// `recipe` as the shell gets it (`$$` → `$`, variables the walk can tell replaced by their
    /// values, automatic ones by a word only known at run time), and whether it still expands
    /// something of make's that the walk cannot tell.
    pub(in crate::shell) fn expand(
        &self,
        recipe: &str,
        set_outside: &dyn Fn(&str) -> bool,
    ) -> (String, bool) {
        let mut script = String::with_capacity(recipe.len());
        let mut unknown = false;
        let mut rest = recipe;
        while let Some(at) = rest.find('$') {
            script.push_str(rest.get(..at).unwrap_or_default());
            let after = rest.get(at + 1..).unwrap_or_default();
            let (reference, len) = reference(after);
            let replacement = match reference {
                Reference::Dollar => Some("$".to_owned()),
                Reference::Automatic if self.plain_rules => Some(RUN_TIME_WORD.to_owned()),
                Reference::Variable(name) => self.value(name, set_outside),
                _ => None,
            };
            let replacement =
                replacement.filter(|value| script.len() + value.len() <= MAX_EXPANDED);
            match replacement {
                Some(value) => script.push_str(&value),
                None => {
                    unknown = true;
                    script.push('$');
                    script.push_str(after.get(..len).unwrap_or_default());
                }
            }
            rest = after.get(len..).unwrap_or_default();
        }
        script.push_str(rest);
        (script, unknown)
    }
}

/// What follows a `$` in makefile text.
#[derive(Debug, PartialEq)]
enum Reference<'a> {
    /// `$$`: a `$`.
    Dollar,
    /// `$@`, `$(@D)`: an automatic variable.
    Automatic,
    /// `$X`, `$(NAME)`, `${NAME}`: a variable.
    Variable(&'a str),
    /// A function call (`$(wildcard *.c)`), a substitution reference (`$(SRC:.c=.o)`) or text
    /// make cannot read.
    Other,
}

/// The reference `after` a `$` starts with, and how many bytes of `after` it takes.
fn reference(after: &str) -> (Reference<'_>, usize) {
    let mut chars = after.chars();
    let Some(first) = chars.next() else {
        return (Reference::Other, 0);
    };
    let close = match first {
        '$' => return (Reference::Dollar, 1),
        '(' => ')',
        '{' => '}',
        c if AUTOMATIC.contains(&c) => return (Reference::Automatic, c.len_utf8()),
        c if c.is_ascii_alphanumeric() || c == '_' => {
            return (Reference::Variable(after.get(..1).unwrap_or_default()), 1);
        }
        c => return (Reference::Other, c.len_utf8()),
    };
    let Some(end) = after.find(close) else {
        return (Reference::Other, after.len());
    };
    let inner = after.get(1..end).unwrap_or_default();
    let len = end + 1;
    let mut inner_chars = inner.chars();
    let automatic = match (inner_chars.next(), inner_chars.next(), inner_chars.next()) {
        (Some(a), None, _) => AUTOMATIC.contains(&a),
        (Some(a), Some('D' | 'F'), None) => AUTOMATIC.contains(&a),
        _ => false,
    };
    if automatic {
        (Reference::Automatic, len)
    } else if !inner.is_empty() && inner.chars().all(is_name_char) && !inner.contains('$') {
        (Reference::Variable(inner), len)
    } else {
        (Reference::Other, len)
    }
}

/// Whether `c` may be in a variable name the walk reads (`CFLAGS`, `build.dir`).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Whether the makefile line assigns `name` in any way (`NAME = v`, `NAME += v`, `t: NAME :=
/// v`, `export NAME ?= v`).
fn assigns(line: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(at) = line.get(from..).and_then(|rest| rest.find(name)) {
        let start = from + at;
        let end = start + name.len();
        let before = line.get(..start).and_then(|b| b.chars().last());
        let whole = before.is_none_or(|c| !is_name_char(c));
        let after = line.get(end..).unwrap_or_default().trim_start();
        let operator = ["=", ":=", "::=", ":::=", "?=", "+=", "!="]
            .iter()
            .any(|op| after.starts_with(op));
        if whole && operator {
            return true;
        }
        from = end;
    }
    false
}

/// The value of a plain assignment of `name` on its own line (`CC = gcc`, `CC := gcc # note`,
/// `export CC ?= gcc`), when it is a literal: no expansion, escape or continuation.
fn literal_value(line: &str, name: &str) -> Option<String> {
    let line = line.trim_start();
    let line = line.strip_prefix("export ").map_or(line, str::trim_start);
    let after = line.strip_prefix(name)?.trim_start();
    let value = ["::=", ":=", "?=", "="]
        .iter()
        .find_map(|op| after.strip_prefix(op))?;
    let value = value.split('#').next().unwrap_or_default().trim();
    let literal = !value.contains(['$', '\\']);
    literal.then(|| value.to_owned())
}

/// Whether every rule line of the makefile names plain targets and prerequisites: no pattern
/// (`%`), glob, expansion, quote or shell character, so that `$@` and `$^` are words of such
/// names (a file the command line makes may not smuggle shell text into a recipe).
fn rules_are_plain(text: &str) -> bool {
    text.lines()
        .filter(|line| !line.starts_with('\t') && !line.trim_start().starts_with('#'))
        .filter(|line| is_rule_line(line))
        .all(|line| {
            let names = line.split(';').next().unwrap_or_default();
            !names.contains([
                '%', '*', '?', '[', '$', '&', '|', '<', '>', '`', '\'', '"', '\\', '(', ')', '{',
                '}', '~',
            ])
        })
}

/// Whether a makefile line is a rule (`all: main.o`), not a variable assignment.
fn is_rule_line(line: &str) -> bool {
    let Some(colon) = line.find(':') else {
        return false;
    };
    let assignment_first = line.get(..colon).is_some_and(|before| before.contains('='));
    let assigned = line.get(colon..).is_some_and(|rest| {
        rest.starts_with(":=") || rest.starts_with("::=") || rest.starts_with(":::=")
    });
    !assignment_first && !assigned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing(_: &str) -> bool {
        false
    }

    fn expand(text: &str, recipe: &str) -> (String, bool) {
        MakeVariables::read(text, &nothing).expand(recipe, &nothing)
    }

    #[test]
    fn literal_and_default_values_are_read() {
        let text = "CC = gcc # the compiler\nOUT := build\nall: main.o\n\t$(CC) -o $@ $^\n";
        assert_eq!(
            expand(text, "$(CC) -o $@ $^ && rm -rf ${OUT}"),
            ("gcc -o $! $! && rm -rf build".to_owned(), false)
        );
        assert_eq!(
            expand("all:\n", "$(MAKE) -C sub $(CFLAGS)"),
            ("make -C sub ".to_owned(), false)
        );
        assert!(!expand("all:\n", "for f in *; do echo $$f; done").1);
    }

    #[test]
    fn what_the_walk_cannot_tell_stays_unknown() {
        for (text, recipe) in [
            ("X = $(Y)\nall:\n", "$(X)"),
            ("X = a\nX += b\nall:\n", "$(X)"),
            ("all:\n", "$(UNSET)"),
            ("all:\n", "$(wildcard *.c)"),
            ("include config.mk\nall:\n", "$(CC)"),
            ("all: CC = rm\nCC = gcc\n", "$(CC)"),
            ("%.o: %.c\n", "$(CC) $<"),
            ("$(eval X = rm)\nall:\n", "$(X)"),
            ("all:\n", "$(SRC:.c=.o)"),
        ] {
            assert!(expand(text, recipe).1, "{text} {recipe}");
        }
        let outside = |name: &str| name == "CC";
        let vars = MakeVariables::read("CC = gcc\nall:\n", &outside);
        assert!(vars.expand("$(CC)", &outside).1);
        let makeflags = |name: &str| name == "MAKEFLAGS";
        let vars = MakeVariables::read("CC = gcc\nall:\n", &makeflags);
        assert!(vars.expand("$(CC)", &makeflags).1);
    }

    #[test]
    fn references() {
        assert_eq!(reference("(CC) x"), (Reference::Variable("CC"), 4));
        assert_eq!(reference("{@D}/x"), (Reference::Automatic, 4));
        assert_eq!(reference("@ x"), (Reference::Automatic, 1));
        assert_eq!(reference("$x"), (Reference::Dollar, 1));
        assert_eq!(reference("(shell ls)"), (Reference::Other, 10));
        assert_eq!(reference("(CC"), (Reference::Other, 3));
        assert_eq!(reference(""), (Reference::Other, 0));
    }
}
