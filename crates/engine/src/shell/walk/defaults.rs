//! Default values of variables the command line does not set: `${GEN:-gen.sh}`.
//!
//! `bash ${GEN:-gen.sh}` runs `gen.sh` unless the environment sets GEN. Such a command has two
//! readings: with the environment's value (the words as they are, only known at run time) and
//! with the default (`bash gen.sh`); both are judged, so `rm -rf "${X:-/}"` is judged as `rm -rf
//! /` too. A path whose every expansion is such a default of a variable the command line never
//! sets names, under the environment's value, a file of the user's and not one the line wrote:
//! the line's own is found in the default reading.

use brush_parser::ast;

use super::super::words::{defaulted_names, known_default, normalize_unset};
use super::{
    Base, Ctx, Field, MAX_VARIABLES, Stdin, Walker, is_variable_name, process_substitution_text,
};
use crate::packs::places;

/// Longest text of the scripts walked that [`Walker::mentions`] searches; past it every name
/// counts as mentioned.
pub(super) const MAX_WALKED_TEXT: usize = 1024 * 1024;

/// A word of a simple command that becomes fields (see [`field_words`]).
enum FieldWord<'a> {
    /// A word as written.
    Raw(&'a str),
    /// A process substitution, which stands as this text.
    Process(&'static str),
}

/// The words of `command` that become its fields, in order, as [`Walker::item`] takes them: its
/// words, and the assignments after the first word; not its leading assignments or redirections.
fn field_words(command: &ast::SimpleCommand) -> Vec<FieldWord<'_>> {
    let mut words = Vec::new();
    for prefix in command.prefix.iter().flat_map(|p| p.0.iter()) {
        push_field_word(prefix, true, &mut words);
    }
    if let Some(word) = &command.word_or_name {
        words.push(FieldWord::Raw(&word.value));
    }
    for suffix in command.suffix.iter().flat_map(|s| s.0.iter()) {
        push_field_word(suffix, false, &mut words);
    }
    words
}

/// Pushes what `item` gives of a command's fields (see [`field_words`]).
fn push_field_word<'a>(
    item: &'a ast::CommandPrefixOrSuffixItem,
    prefix: bool,
    words: &mut Vec<FieldWord<'a>>,
) {
    match item {
        ast::CommandPrefixOrSuffixItem::Word(word) => words.push(FieldWord::Raw(&word.value)),
        ast::CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
            if !(prefix && words.is_empty()) {
                words.push(FieldWord::Raw(&word.value));
            }
        }
        ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, _) => {
            words.push(FieldWord::Process(process_substitution_text(kind)));
        }
        ast::CommandPrefixOrSuffixItem::IoRedirect(_) => {}
    }
}

impl Walker<'_> {
    /// The fields of `command` read with the variables its words give a default value
    /// (`${GEN:-gen.sh}`) unset, where the command line gave them no known value: `bash gen.sh`.
    /// `None` when no word gives one, a word fails, or the reading is `fields` again.
    pub(super) fn default_reading(
        &self,
        command: &ast::SimpleCommand,
        fields: &[Field],
    ) -> Option<Vec<Field>> {
        let words = field_words(command);
        let known = |name: &&str| self.variables.iter().any(|(known, _)| known == name);
        let mut unset: Vec<String> = words
            .iter()
            .filter_map(|word| match word {
                FieldWord::Raw(raw) => Some(defaulted_names(raw)),
                FieldWord::Process(_) => None,
            })
            .flatten()
            .filter(|name| !known(name) && !matches!(*name, "HOME" | "PWD"))
            .map(str::to_owned)
            .collect();
        unset.sort_unstable();
        unset.dedup();
        unset.truncate(MAX_VARIABLES);
        if unset.is_empty() {
            return None;
        }
        let mut read = Vec::with_capacity(fields.len());
        for word in words {
            match word {
                FieldWord::Raw(raw) => {
                    let word = normalize_unset(raw, &self.budget, &self.variables, &unset);
                    if word.failed {
                        return None;
                    }
                    let dynamic = word.dynamic;
                    let valued = dynamic && word.resolved;
                    read.extend(word.fields.into_iter().map(|text| Field {
                        text,
                        dynamic,
                        valued,
                    }));
                }
                FieldWord::Process(text) => read.push(Field {
                    text: text.to_owned(),
                    dynamic: true,
                    valued: false,
                }),
            }
        }
        let same = read.len() == fields.len()
            && read
                .iter()
                .zip(fields)
                .all(|(read, field)| read.text == field.text);
        (!same).then_some(read)
    }

    /// Judges the command's reading with its defaults (see [`Walker::default_reading`]): what it
    /// runs is walked, but it moves the walk to no other directory.
    pub(super) fn run_default_reading(
        &mut self,
        fields: Vec<Field>,
        base: Base,
        ctx: Ctx,
        stdin: &Stdin<'_>,
    ) {
        let dir = self.dir.clone();
        self.run(fields, base, ctx, stdin);
        self.dir = dir;
    }

    /// Notes the text of a script the walk parses, for [`Walker::mentions`].
    pub(super) fn note_walked(&mut self, text: &str) {
        if self.walked.len() + text.len() > MAX_WALKED_TEXT {
            self.walked_overflow = true;
            return;
        }
        self.walked.push_str(text);
        self.walked.push('\n');
    }

    /// Whether the scripts walked name `name` other than to read it (`$NAME`, `${NAME}`,
    /// `${NAME:-WORD}`): an assignment (`NAME=x`, `read NAME`, `((NAME=5))`, `${NAME:=x}`,
    /// `declare -n r=NAME`) may set it.
    fn mentions(&self, name: &str) -> bool {
        if self.walked_overflow {
            return true;
        }
        let text = self.walked.as_str();
        let identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
        text.match_indices(name).any(|(at, _)| {
            let before = text.get(..at).unwrap_or_default();
            let after = text.get(at + name.len()..).unwrap_or_default();
            if before.ends_with(identifier) || after.starts_with(identifier) {
                return false;
            }
            let read = before.ends_with('$')
                || (before.ends_with("${") && !after.starts_with('=') && !after.starts_with(":="));
            !read
        })
    }

    /// Whether the command line never sets `name` (see [`Walker::mentions`] and
    /// [`Walker::environment_may_set`]), so that its value is the environment's.
    fn never_sets(&self, name: &str) -> bool {
        is_variable_name(name)
            && !self.variables.iter().any(|(known, _)| known == name)
            && !self.environment_may_set(name)
            && !self.mentions(name)
    }

    /// Whether every expansion in `path` is a default of a variable the command line never sets
    /// (`${GEN:-gen.sh}`, `${DIR-.}/x.sh`): under the environment's value it names a file of the
    /// user's, not one the line wrote.
    pub(super) fn named_by_the_environment(&self, path: &str) -> bool {
        if path.contains('`') {
            return false;
        }
        let mut rest = path;
        let mut any = false;
        while let Some(at) = rest.find('$') {
            let Some(inner) = rest.get(at + 1..).and_then(|after| after.strip_prefix('{')) else {
                return false;
            };
            let end = places::closing(inner.as_bytes(), 0, b'{', b'}');
            let Some(braced) = inner.get(..end).and_then(|b| b.strip_suffix('}')) else {
                return false;
            };
            let name_end = braced
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(braced.len());
            let (name, operator) = braced.split_at(name_end);
            let default = ["-", ":-", "=", ":="]
                .iter()
                .find_map(|prefix| operator.strip_prefix(prefix));
            // The default reading names the file only when the default is known.
            let known = default.is_some_and(|word| self.default_is_known(word));
            if !known || !self.never_sets(name) {
                return false;
            }
            any = true;
            rest = inner.get(end..).unwrap_or_default();
        }
        any
    }

    /// Whether the WORD of a `${NAME:-WORD}` is known (see [`known_default`]): plain text, or
    /// expansions of variables with known values (`$D.sh`), of `$HOME` and `$PWD`, and defaults
    /// of variables the command line never sets (`${ALT:-gen.sh}`), as the command's default
    /// reading expands them.
    fn default_is_known(&self, word: &str) -> bool {
        if !word.contains(['$', '`']) {
            return true;
        }
        let known = |name: &&str| {
            self.variables.iter().any(|(known, _)| known == name) || matches!(*name, "HOME" | "PWD")
        };
        let mut unset = Vec::new();
        for name in defaulted_names(word)
            .into_iter()
            .filter(|name| !known(name))
        {
            if !self.never_sets(name) {
                return false;
            }
            unset.push(name.to_owned());
        }
        unset.truncate(MAX_VARIABLES);
        known_default(word, &self.budget, &self.variables, &unset).is_some()
    }
}
