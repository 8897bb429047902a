//! The reader: PowerShell's command syntax as a small tree of statements, pipelines, commands
//! and words. Backslashes are ordinary characters; what it cannot read gives `None`.

use super::dotnet::{self, Call};

/// Most characters of PowerShell code read.
const MAX_LEN: usize = 64 * 1024;
/// Deepest nesting of `( )`, `$( )`, `{ }` and `@{ }` read.
const MAX_DEPTH: usize = 16;
/// Most words, commands and statements read in one piece of code.
const MAX_ITEMS: usize = 4096;

/// Statements, each with how it joins the next (`;` or a newline, `&&`, `||`).
#[derive(Debug, Clone, Default)]
pub(super) struct Script {
    pub statements: Vec<(Pipeline, Join)>,
}

/// How a statement joins the one after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Join {
    /// `;`, a newline or the end.
    Then,
    /// PowerShell 7's `&&`.
    And,
    /// PowerShell 7's `||`.
    Or,
}

/// Commands joined by `|`.
#[derive(Debug, Clone, Default)]
pub(super) struct Pipeline {
    pub commands: Vec<Command>,
}

/// One command: its words (the call operator `&` dropped) and its redirections.
#[derive(Debug, Clone, Default)]
pub(super) struct Command {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Whether the command was written `& program …` (the program may be a value).
    pub called: bool,
    /// `$name = …`: the variable the command's output is assigned to.
    pub assigns: Option<String>,
    /// Whether the assignment is compound (`+=`, `-=`): its value is not the right side alone.
    pub compound: bool,
    /// The command as written (script blocks and subexpressions included).
    pub source: String,
}

/// A redirection: the POSIX operator (`>`, `>>`, `2>`, `2>&1`) and its target.
#[derive(Debug, Clone)]
pub(super) struct Redirect {
    pub op: String,
    pub target: Option<Word>,
}

/// One word of a command: its parts, whether it was written bare (a bare `-Name` is a
/// parameter) and whether a `,` joins it to the next word (an array argument).
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    pub parts: Vec<Part>,
    pub bare: bool,
    pub comma_after: bool,
}

/// A piece of a word.
#[derive(Debug, Clone)]
pub(super) enum Part {
    /// Literal text.
    Text(String),
    /// A variable: `HOME`, `env:USERPROFILE`, `_`.
    Var(String),
    /// Commands whose output is the value: `$( … )`, `@( … )`, `( … )`.
    Sub(Script),
    /// A script block `{ … }`: code a command may run.
    Block(Script),
    /// A static .NET member (`[IO.File]::ReadAllText`); its arguments, if any, are the `Sub`
    /// that follows.
    Static(Static),
    /// A hash table literal `@{Path='~'; Recurse=$true}`: its keys and values.
    Hash(Vec<(String, Vec<Word>)>),
}

/// A static .NET member the front end knows (see [`dotnet::find`]).
#[derive(Debug, Clone)]
pub(super) struct Static {
    /// The member's name as written (`ReadAllText`, `UserProfile`).
    pub member: String,
    /// What it does.
    pub call: Call,
}

impl Word {
    /// The word's text when it is all literal.
    pub fn literal(&self) -> Option<String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => text.push_str(t),
                _ => return None,
            }
        }
        Some(text)
    }

    /// A literal word (for argument lists built from text: `cmd /c …`).
    pub fn text(text: &str) -> Self {
        Self {
            parts: vec![Part::Text(text.to_owned())],
            bare: true,
            comma_after: false,
        }
    }
}

/// Reads PowerShell code. `None` when it is not the command syntax this reader knows.
pub(super) fn read(code: &str) -> Option<Script> {
    if code.len() > MAX_LEN {
        return None;
    }
    let mut reader = Reader {
        chars: code.chars().collect(),
        at: 0,
        depth: 0,
        items: 0,
    };
    let script = reader.script(None)?;
    (reader.at >= reader.chars.len()).then_some(script)
}

/// The reader's state: the code, where it is, how deep and how much it has read.
struct Reader {
    chars: Vec<char>,
    at: usize,
    depth: usize,
    items: usize,
}

/// Characters that end a bare word.
fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, ';' | '|' | '&' | ')' | '}' | ',' | '>' | '<')
}

impl Reader {
    /// The character at the reading position.
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The character `ahead` places past the reading position.
    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Whether the code continues with `text` here.
    fn starts(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }

    /// Counts one more item read; `None` past the limit.
    fn count(&mut self) -> Option<()> {
        self.items += 1;
        (self.items <= MAX_ITEMS).then_some(())
    }

    /// Enters a nested construct; `None` past the depth limit.
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let out = read(self);
        self.depth -= 1;
        out
    }

    /// Skips blanks, line continuations (a backtick before a newline) and `<# … #>` comments;
    /// with `newlines`, newlines and `#` comments too.
    fn skip_blank(&mut self, newlines: bool) -> Option<()> {
        loop {
            match self.peek() {
                Some(' ' | '\t') => self.at += 1,
                Some('\r' | '\n') if newlines => self.at += 1,
                Some('`') if matches!(self.peek_at(1), Some('\n' | '\r')) => self.at += 2,
                Some('<') if self.peek_at(1) == Some('#') => {
                    let end = (self.at..self.chars.len())
                        .find(|&i| self.chars.get(i..i + 2) == Some(&['#', '>'][..]))?;
                    self.at = end + 2;
                }
                Some('#') if newlines => self.skip_line(),
                _ => return Some(()),
            }
        }
    }

    /// Skips to the end of the line (a `#` comment).
    fn skip_line(&mut self) {
        while !matches!(self.peek(), None | Some('\n')) {
            self.at += 1;
        }
    }

    /// Statements until `close` (consumed) or the end of the code.
    fn script(&mut self, close: Option<char>) -> Option<Script> {
        let mut script = Script::default();
        loop {
            self.skip_blank(true)?;
            match self.peek() {
                None if close.is_none() => return Some(script),
                None => return None,
                Some(c) if Some(c) == close => {
                    self.at += 1;
                    return Some(script);
                }
                Some(';') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            self.count()?;
            let before = self.at;
            let pipeline = self.pipeline()?;
            // A closer that closes nothing (`gc a }`): not code this reader knows.
            if self.at == before {
                return None;
            }
            self.skip_blank(false)?;
            let join = if self.starts("&&") {
                self.at += 2;
                Join::And
            } else if self.starts("||") {
                self.at += 2;
                Join::Or
            } else {
                Join::Then
            };
            if pipeline
                .commands
                .iter()
                .any(|c| !c.words.is_empty() || !c.redirects.is_empty())
            {
                script.statements.push((pipeline, join));
            }
        }
    }

    /// Commands joined by `|` (a newline may follow the `|`).
    fn pipeline(&mut self) -> Option<Pipeline> {
        let mut pipeline = Pipeline::default();
        loop {
            pipeline.commands.push(self.command()?);
            self.skip_blank(false)?;
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.at += 1;
                self.skip_blank(true)?;
            } else {
                return Some(pipeline);
            }
        }
    }

    /// One command with its source text.
    fn command(&mut self) -> Option<Command> {
        let start = self.at;
        let mut command = self.command_parts()?;
        let source: String = self.chars.get(start..self.at)?.iter().collect();
        command.source = source.trim().to_owned();
        Some(command)
    }

    /// One command: words and redirections until the end of the statement or pipeline element.
    fn command_parts(&mut self) -> Option<Command> {
        let mut command = Command::default();
        loop {
            self.skip_blank(false)?;
            let Some(c) = self.peek() else {
                return Some(command);
            };
            match c {
                '\r' | '\n' | ';' | ')' | '}' => return Some(command),
                '|' => return Some(command),
                '&' if self.peek_at(1) == Some('&') => return Some(command),
                '&' if command.words.is_empty() && !command.called => {
                    self.at += 1;
                    command.called = true;
                }
                // A trailing `&` runs the pipeline as a background job: it still runs.
                '&' => {
                    self.at += 1;
                    return Some(command);
                }
                // A comment ends the command (the statement reader skips it).
                '#' => return Some(command),
                '<' => return None,
                '[' if command.words.is_empty() && !command.called => {
                    if let Some(member) = self.type_literal()? {
                        self.count()?;
                        let word = self.word_from(vec![Part::Static(member)])?;
                        command.words.push(word);
                        self.assignment(&mut command)?;
                    }
                }
                ',' => {
                    self.at += 1;
                    let last = command.words.last_mut()?;
                    last.comma_after = true;
                }
                _ if self.redirect_ahead() => {
                    let redirect = self.redirect()?;
                    command.redirects.push(redirect);
                }
                _ => {
                    self.count()?;
                    let word = self.word()?;
                    command.words.push(word);
                    if command.words.len() == 1 && command.assigns.is_none() {
                        self.assignment(&mut command)?;
                    }
                }
            }
        }
    }

    /// A type literal at the start of a statement: a cast (`[int]$x`) is skipped (`None`); a
    /// static member (`[IO.File]::ReadAllText`) is read when [`dotnet::find`] knows it, and
    /// is .NET code this reader does not follow otherwise (`None` from the reader).
    fn type_literal(&mut self) -> Option<Option<Static>> {
        let start = self.at;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                '[' => depth += 1,
                ']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        break;
                    }
                }
                '\n' => return None,
                _ => {}
            }
            self.at += 1;
        }
        let type_name: String = self.chars.get(start + 1..self.at)?.iter().collect();
        self.at += 1;
        if !self.starts("::") {
            return Some(None);
        }
        self.at += 2;
        let mut member = String::new();
        while let Some(c) = self.peek().filter(|c| is_name_char(*c)) {
            member.push(c);
            self.at += 1;
        }
        let call = dotnet::find(&type_name, &member)?;
        Some(Some(Static { member, call }))
    }

    /// After a statement's first word: `$name = …` (also `+=`, `-=`) makes the rest the
    /// assigned value; so does a static property's (`[Net.ServicePointManager]::SecurityProtocol
    /// = …`, assigned to a variable of the property's name).
    fn assignment(&mut self, command: &mut Command) -> Option<()> {
        let name = match command.words.first()?.parts.as_slice() {
            [Part::Var(name)] => name.clone(),
            [Part::Static(member)] => member.member.clone(),
            _ => return Some(()),
        };
        self.skip_blank(false)?;
        let op_len = if self.peek() == Some('=') && self.peek_at(1) != Some('=') {
            1
        } else if matches!(self.peek(), Some('+' | '-' | '*' | '/')) && self.peek_at(1) == Some('=')
        {
            2
        } else {
            return Some(());
        };
        self.at += op_len;
        command.words.clear();
        command.assigns = Some(name);
        command.compound = op_len > 1;
        Some(())
    }

    /// Whether a redirection starts here: `>`, `>>`, `2>`, `*>`, `2>&1`.
    fn redirect_ahead(&self) -> bool {
        match self.peek() {
            Some('>') => true,
            Some('*' | '1'..='6') => self.peek_at(1) == Some('>'),
            _ => false,
        }
    }

    /// A redirection (see [`Self::redirect_ahead`]), in POSIX form.
    fn redirect(&mut self) -> Option<Redirect> {
        let stream = match self.peek()? {
            '>' => None,
            c => {
                self.at += 1;
                Some(c)
            }
        };
        self.at += 1;
        let append = self.peek() == Some('>');
        if append {
            self.at += 1;
        }
        let arrow = if append { ">>" } else { ">" };
        if self.peek() == Some('&') {
            let target = self.peek_at(1)?;
            self.at += 2;
            return Some(Redirect {
                op: format!("{}>&{target}", stream.unwrap_or('1')),
                target: None,
            });
        }
        let op = match stream {
            None | Some('1') => arrow.to_owned(),
            // `*>` sends every stream: the file gets the output and the errors.
            Some('*') => format!("&{arrow}"),
            Some(n) => format!("{n}{arrow}"),
        };
        self.skip_blank(false)?;
        let target = self.word()?;
        Some(Redirect {
            op,
            target: Some(target),
        })
    }

    /// One word: bare text, quoted strings, variables, subexpressions and script blocks.
    fn word(&mut self) -> Option<Word> {
        self.word_from(Vec::new())
    }

    /// A word that starts with `parts` already read (a static member: `[IO.File]::ReadAllText`)
    /// and goes on here (its arguments `(…)`, a member of the result).
    fn word_from(&mut self, parts: Vec<Part>) -> Option<Word> {
        let mut word = Word {
            bare: !matches!(self.peek(), Some('\'' | '"')),
            parts,
            ..Word::default()
        };
        let mut text = String::new();
        let start = if word.parts.is_empty() {
            self.at
        } else {
            usize::MAX
        };
        // Braces opened inside the word (`--format={x}`) are text, and so are their closers.
        let mut braces = 0usize;
        while let Some(c) = self.peek() {
            if c == '}' && braces > 0 {
                braces -= 1;
                text.push(c);
                self.at += 1;
                continue;
            }
            if ends_word(c) || (text.is_empty() && self.assignment_ahead(&word)) {
                break;
            }
            let at_start = self.at == start;
            match c {
                '\'' => {
                    flush(&mut text, &mut word);
                    word.parts.push(Part::Text(self.single_quoted()?));
                }
                '"' => {
                    flush(&mut text, &mut word);
                    self.at += 1;
                    self.double_quoted(&mut word, '"')?;
                }
                '@' if at_start && matches!(self.peek_at(1), Some('\'' | '"')) => {
                    flush(&mut text, &mut word);
                    self.here_string(&mut word)?;
                }
                '@' if at_start && self.peek_at(1) == Some('(') => {
                    flush(&mut text, &mut word);
                    self.at += 2;
                    let script = self.nested(|r| r.script(Some(')')))?;
                    word.parts.push(Part::Sub(script));
                }
                // A hash table literal: its `key = value` entries, or, when they are not
                // that simple, read (and dropped) as code.
                '@' if at_start && self.peek_at(1) == Some('{') => {
                    self.at += 2;
                    let open = self.at;
                    if let Some(entries) = self.nested(Self::hash_entries) {
                        flush(&mut text, &mut word);
                        word.parts.push(Part::Hash(entries));
                    } else {
                        self.at = open;
                        let _entries = self.nested(|r| r.script(Some('}')))?;
                        text.push_str("@{}");
                    }
                }
                '{' if at_start => {
                    self.at += 1;
                    let script = self.nested(|r| r.script(Some('}')))?;
                    word.parts.push(Part::Block(script));
                }
                '{' => {
                    braces += 1;
                    text.push(c);
                    self.at += 1;
                }
                '(' => {
                    flush(&mut text, &mut word);
                    self.at += 1;
                    let script = self.nested(|r| r.script(Some(')')))?;
                    word.parts.push(Part::Sub(script));
                }
                '$' => {
                    flush(&mut text, &mut word);
                    self.dollar(&mut word)?;
                }
                '`' => {
                    self.at += 1;
                    text.push(escaped(self.peek()?));
                    self.at += 1;
                }
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        flush(&mut text, &mut word);
        Some(word)
    }

    /// A hash table's entries after `@{`, up to its `}` (consumed): `key = value` (a value
    /// may be an array: `a, b`), separated by `;` or newlines. `None` when an entry is not of
    /// that form.
    fn hash_entries(&mut self) -> Option<Vec<(String, Vec<Word>)>> {
        let mut entries = Vec::new();
        loop {
            self.skip_blank(true)?;
            match self.peek()? {
                '}' => {
                    self.at += 1;
                    return Some(entries);
                }
                ';' => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            self.count()?;
            let key = match self.peek()? {
                '\'' => self.single_quoted()?,
                _ => {
                    let mut key = String::new();
                    while let Some(c) = self.peek().filter(|c| is_name_char(*c) || *c == '-') {
                        key.push(c);
                        self.at += 1;
                    }
                    key
                }
            };
            self.skip_blank(false)?;
            if key.is_empty() || self.peek()? != '=' {
                return None;
            }
            self.at += 1;
            self.skip_blank(false)?;
            let mut values = Vec::new();
            loop {
                self.count()?;
                let mut value = self.word()?;
                if value.parts.is_empty() {
                    return None;
                }
                self.skip_blank(false)?;
                let more = self.peek() == Some(',');
                if more {
                    self.at += 1;
                    self.skip_blank(true)?;
                }
                value.comma_after = more;
                values.push(value);
                if !more {
                    break;
                }
            }
            entries.push((key, values));
        }
    }

    /// Whether an assignment operator follows a word that is only a variable or a static
    /// property (`$x=1`, `$x+=1`, `[X]::P=1`: the operator ends the word).
    fn assignment_ahead(&self, word: &Word) -> bool {
        let assignable = matches!(word.parts.as_slice(), [Part::Var(_) | Part::Static(_)]);
        let operator = match self.peek() {
            Some('=') => self.peek_at(1) != Some('='),
            Some('+' | '-' | '*' | '/') => self.peek_at(1) == Some('='),
            _ => false,
        };
        assignable && operator
    }

    /// `'…'` with `''` for a quote.
    fn single_quoted(&mut self) -> Option<String> {
        self.at += 1;
        let mut text = String::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            if c == '\'' {
                if self.peek() == Some('\'') {
                    self.at += 1;
                    text.push('\'');
                } else {
                    return Some(text);
                }
            } else {
                text.push(c);
            }
        }
    }

    /// The inside of `"…"` (after the opening quote) up to `close`: backtick escapes, `""`,
    /// `$var` and `$( … )`.
    fn double_quoted(&mut self, word: &mut Word, close: char) -> Option<()> {
        let mut text = String::new();
        loop {
            let c = self.peek()?;
            match c {
                '"' if close == '"' => {
                    self.at += 1;
                    if self.peek() == Some('"') {
                        self.at += 1;
                        text.push('"');
                    } else {
                        break;
                    }
                }
                '"' if self.starts("\"@") && self.line_start() => break,
                '`' => {
                    self.at += 1;
                    text.push(escaped(self.peek()?));
                    self.at += 1;
                }
                '$' => {
                    flush(&mut text, word);
                    self.dollar(word)?;
                }
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        flush(&mut text, word);
        Some(())
    }

    /// Whether the reader is at the start of a line (a here-string's end must be).
    fn line_start(&self) -> bool {
        self.at == 0 || matches!(self.chars.get(self.at - 1), Some('\n'))
    }

    /// `@'…'@` (literal) and `@"…"@` (expanding): the text between the lines that open and
    /// close it.
    fn here_string(&mut self, word: &mut Word) -> Option<()> {
        let quote = self.peek_at(1)?;
        self.at += 2;
        self.skip_blank(false)?;
        match self.peek()? {
            '\r' if self.peek_at(1) == Some('\n') => self.at += 2,
            '\n' => self.at += 1,
            _ => return None,
        }
        if quote == '"' {
            self.double_quoted(word, '@')?;
        } else {
            let mut text = String::new();
            while !(self.starts("'@") && self.line_start()) {
                text.push(self.peek()?);
                self.at += 1;
            }
            word.parts.push(Part::Text(text));
        }
        // The newline before the closing `'@` or `"@` is not part of the text.
        if let Some(Part::Text(text)) = word.parts.last_mut() {
            let trimmed = text.trim_end_matches('\n').trim_end_matches('\r').len();
            text.truncate(trimmed);
        }
        self.at += 2;
        Some(())
    }

    /// After `$`: `$( … )`, `${name}`, `$name`, `$env:NAME`, `$_`, `$?`; a lone `$` is text.
    /// A member after the variable (`$x.Name`, `$x.Trim()`) is read on as the word's text and
    /// arguments (a method's effect is not followed).
    fn dollar(&mut self, word: &mut Word) -> Option<()> {
        self.at += 1;
        match self.peek() {
            Some('(') => {
                self.at += 1;
                let script = self.nested(|r| r.script(Some(')')))?;
                word.parts.push(Part::Sub(script));
            }
            Some('{') => {
                self.at += 1;
                let mut name = String::new();
                while self.peek()? != '}' {
                    name.push(self.peek()?);
                    self.at += 1;
                }
                self.at += 1;
                word.parts.push(Part::Var(name));
            }
            Some(c @ ('_' | '?' | '$' | '^')) if !self.peek_at(1).is_some_and(is_name_char) => {
                self.at += 1;
                word.parts.push(Part::Var(c.to_string()));
            }
            Some(c) if is_name_char(c) => {
                let mut name = String::new();
                while let Some(c) = self.peek() {
                    let scope = c == ':'
                        && self.peek_at(1).is_some_and(is_name_char)
                        && !name.contains(':');
                    if !(is_name_char(c) || scope) {
                        break;
                    }
                    name.push(c);
                    self.at += 1;
                }
                word.parts.push(Part::Var(name));
            }
            _ => word.parts.push(Part::Text("$".to_owned())),
        }
        Some(())
    }
}

/// Whether `c` may be part of a variable's name.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The character a backtick escape stands for.
fn escaped(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' => '\u{1b}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        other => other,
    }
}

/// Moves pending literal text into the word.
fn flush(text: &mut String, word: &mut Word) {
    if !text.is_empty() {
        word.parts.push(Part::Text(std::mem::take(text)));
    }
}
