//! Calls whose callee the code looks up or builds rather than names: Python's module
//! dictionaries (`os.__dict__['system']`, `vars(os)['system']`, `globals()['system']`) and PHP's
//! callable strings (`("sys"."tem")(…)`, `$f = "system"; $f(…)`, `call_user_func("system", …)`,
//! `call_user_func_array("system", […])`).
//!
//! A name that is a literal (after [`super::decode`] has folded `'sys' + 'tem'`) becomes the
//! name it looks up, so that the call is read as any other; one known only at run time is
//! reported by [`computed_lookup`], as `getattr(os, name)(…)` is.

use std::collections::HashMap;

use super::{Lang, Token, closing, is_word_byte};

/// The literal text of a token, when it is a plain name (`system`, not `rm -rf ~`).
fn name_literal(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Str { text, runs: false })
            if !text.is_empty() && text.bytes().all(is_word_byte) =>
        {
            Some(text)
        }
        _ => None,
    }
}

/// Whether a word is one of Python's namespace mappings called for (`vars`, `globals`,
/// `locals`): `vars(os)` is `os`'s attributes, the other two the code's own names.
fn is_namespace_call(word: &str) -> bool {
    matches!(word, "vars" | "globals" | "locals")
}

/// Where a Python lookup of a name in a namespace mapping starts its subscript, and the
/// object whose attribute it names (`None` for the code's own names): `os.__dict__[` and
/// `vars(os)[` name `os`'s, `globals()[` the code's.
fn python_subscript(tokens: &[Token], at: usize) -> Option<(usize, Option<String>)> {
    let Some(Token::Word(word)) = tokens.get(at) else {
        return None;
    };
    if let Some(object) = word.strip_suffix(".__dict__") {
        return (tokens.get(at + 1) == Some(&Token::Punct(b'[')))
            .then(|| (at + 1, Some(object.to_owned())));
    }
    if !is_namespace_call(word) || tokens.get(at + 1) != Some(&Token::Punct(b'(')) {
        return None;
    }
    let close = closing(tokens, at + 1)?;
    if tokens.get(close + 1) != Some(&Token::Punct(b'[')) {
        return None;
    }
    let object = match tokens.get(at + 2..close)? {
        [] => None,
        [Token::Word(object)] if word == "vars" => Some(object.clone()),
        _ => return None,
    };
    Some((close + 1, object))
}

/// `tokens` with Python's literal lookups in a namespace mapping as the names they look up
/// (`os.__dict__['system']` and `vars(os)['system']` are `os.system`, `globals()['system']`
/// is `system`), and PHP's literal callables as the functions they name.
pub(super) fn resolved(tokens: Vec<Token>, lang: Lang) -> Vec<Token> {
    match lang {
        Lang::Python => python_lookups(tokens),
        Lang::Php => php_callables(tokens),
        _ => tokens,
    }
}

/// See [`resolved`]: Python's lookups.
fn python_lookups(tokens: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut at = 0;
    while let Some(token) = tokens.get(at) {
        if let Some((open, object)) = python_subscript(&tokens, at)
            && let Some(name) = name_literal(tokens.get(open + 1))
            && tokens.get(open + 2) == Some(&Token::Punct(b']'))
        {
            out.push(Token::Word(match object {
                Some(object) => format!("{object}.{name}"),
                None => name.to_owned(),
            }));
            at = open + 3;
            continue;
        }
        out.push(token.clone());
        at += 1;
    }
    out
}

/// PHP variables bound to a literal name (`$f = "system";`, the last binding winning) and
/// those bound to a closure (`$f = function (…) {…}`, `fn`, `static function`), whose calls
/// run code the command line shows.
#[derive(Default)]
struct PhpBindings {
    names: HashMap<String, String>,
    closures: Vec<String>,
}

impl PhpBindings {
    fn of(tokens: &[Token]) -> Self {
        let mut bindings = Self::default();
        for window in tokens.windows(4) {
            let [Token::Word(variable), Token::Punct(b'='), value, after] = window else {
                continue;
            };
            if !variable.starts_with('$') {
                continue;
            }
            match (value, after) {
                (Token::Str { text, runs: false }, Token::Punct(b';' | b'\n' | b')')) => {
                    bindings.names.insert(variable.clone(), text.clone());
                }
                (Token::Word(word), _) if matches!(word.as_str(), "function" | "fn" | "static") => {
                    bindings.closures.push(variable.clone());
                }
                _ => {}
            }
        }
        bindings
    }
}

/// See [`resolved`]: PHP's callables (`"system"(…)`, `("system")(…)`, `$f(…)` with `$f = "system"`,
/// `call_user_func("system", …)`, `call_user_func_array("system", […])`).
fn php_callables(tokens: Vec<Token>) -> Vec<Token> {
    let bindings = PhpBindings::of(&tokens);
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut at = 0;
    while let Some(token) = tokens.get(at) {
        let next = |offset: usize| tokens.get(at + offset);
        let name_at = |offset: usize| name_literal(next(offset)).map(str::to_owned);
        match token {
            // `"system"(…)`; `("sys"."tem")(…)` is one after `decode` has folded it.
            Token::Str { .. }
                if next(1) == Some(&Token::Punct(b'('))
                    && let Some(name) = name_at(0) =>
            {
                out.push(Token::Word(name));
                at += 1;
            }
            Token::Word(variable)
                if next(1) == Some(&Token::Punct(b'('))
                    && let Some(name) = bindings.names.get(variable)
                    && name.bytes().all(is_word_byte) =>
            {
                out.push(Token::Word(name.clone()));
                at += 1;
            }
            Token::Word(call)
                if call == "call_user_func"
                    && next(1) == Some(&Token::Punct(b'('))
                    && let Some(name) = name_at(2) =>
            {
                out.push(Token::Word(name));
                out.push(Token::Punct(b'('));
                // The name's comma goes with it: `call_user_func("f", a)` is `f(a)`.
                at += if next(3) == Some(&Token::Punct(b',')) {
                    4
                } else {
                    3
                };
            }
            Token::Word(call)
                if call == "call_user_func_array"
                    && next(1) == Some(&Token::Punct(b'('))
                    && next(3) == Some(&Token::Punct(b','))
                    && next(4) == Some(&Token::Punct(b'['))
                    && let Some(name) = name_at(2)
                    && let Some(close) = closing(&tokens, at + 4)
                    && tokens.get(close + 1) == Some(&Token::Punct(b')')) =>
            {
                out.push(Token::Word(name));
                out.push(Token::Punct(b'('));
                out.extend(tokens.get(at + 5..close).unwrap_or(&[]).iter().cloned());
                out.push(Token::Punct(b')'));
                at = close + 2;
            }
            _ => {
                out.push(token.clone());
                at += 1;
            }
        }
    }
    out
}

/// Whether the code calls something whose name is only known at run time, left after
/// [`resolved`]: Python's `os.__dict__[name](…)`, `vars(os)[name](…)`, `globals()[name](…)`;
/// PHP's `$f(…)` (not a closure), `$table[k](…)`, `call_user_func($f, …)` and
/// `call_user_func_array`.
pub(super) fn computed_lookup(tokens: &[Token], lang: Lang) -> bool {
    match lang {
        Lang::Python => (0..tokens.len()).any(|at| {
            python_subscript(tokens, at).is_some_and(|(open, _)| {
                closing(tokens, open)
                    .is_some_and(|close| tokens.get(close + 1) == Some(&Token::Punct(b'(')))
            })
        }),
        Lang::Php => {
            let bindings = PhpBindings::of(tokens);
            tokens.windows(2).any(|pair| match pair {
                [Token::Word(word), Token::Punct(b'(')] => {
                    (word.starts_with('$') && word != "$" && !bindings.closures.contains(word))
                        || matches!(word.as_str(), "call_user_func" | "call_user_func_array")
                }
                [Token::Punct(b']'), Token::Punct(b'(')] => true,
                _ => false,
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str) -> Token {
        Token::Word(text.to_owned())
    }

    fn string(text: &str) -> Token {
        Token::Str {
            text: text.to_owned(),
            runs: false,
        }
    }

    fn punct(byte: u8) -> Token {
        Token::Punct(byte)
    }

    #[test]
    fn python_lookups_of_a_literal_name_are_that_name() {
        let dict = vec![
            word("os.__dict__"),
            punct(b'['),
            string("system"),
            punct(b']'),
            punct(b'('),
        ];
        assert_eq!(
            resolved(dict, Lang::Python),
            [word("os.system"), punct(b'(')]
        );
        let vars = vec![
            word("vars"),
            punct(b'('),
            word("os"),
            punct(b')'),
            punct(b'['),
            string("system"),
            punct(b']'),
        ];
        assert_eq!(resolved(vars, Lang::Python), [word("os.system")]);
        let builtins = vec![
            word("__builtins__.__dict__"),
            punct(b'['),
            string("exec"),
            punct(b']'),
        ];
        assert_eq!(
            resolved(builtins, Lang::Python),
            [word("__builtins__.exec")]
        );
        let globals = vec![
            word("globals"),
            punct(b'('),
            punct(b')'),
            punct(b'['),
            string("system"),
            punct(b']'),
        ];
        assert_eq!(resolved(globals, Lang::Python), [word("system")]);
    }

    #[test]
    fn python_lookups_of_a_run_time_name_called_are_computed() {
        let called = [
            word("vars"),
            punct(b'('),
            word("os"),
            punct(b')'),
            punct(b'['),
            word("n"),
            punct(b']'),
            punct(b'('),
        ];
        assert!(computed_lookup(&called, Lang::Python));
        let read = [word("os.__dict__"), punct(b'['), word("n"), punct(b']')];
        assert!(!computed_lookup(&read, Lang::Python));
    }

    #[test]
    fn php_callables_of_a_literal_name_are_that_function() {
        let parenthesised = vec![string("system"), punct(b'('), string("id"), punct(b')')];
        assert_eq!(
            resolved(parenthesised, Lang::Php),
            [word("system"), punct(b'('), string("id"), punct(b')')]
        );
        let variable = vec![
            word("$f"),
            punct(b'='),
            string("system"),
            punct(b';'),
            word("$f"),
            punct(b'('),
        ];
        assert_eq!(
            resolved(variable, Lang::Php).get(4..),
            Some(&[word("system"), punct(b'(')][..])
        );
        let user_func = vec![
            word("call_user_func"),
            punct(b'('),
            string("system"),
            punct(b','),
            string("id"),
            punct(b')'),
        ];
        assert_eq!(
            resolved(user_func, Lang::Php),
            [word("system"), punct(b'('), string("id"), punct(b')')]
        );
        let user_func_array = vec![
            word("call_user_func_array"),
            punct(b'('),
            string("system"),
            punct(b','),
            punct(b'['),
            string("id"),
            punct(b']'),
            punct(b')'),
        ];
        assert_eq!(
            resolved(user_func_array, Lang::Php),
            [word("system"), punct(b'('), string("id"), punct(b')')]
        );
    }

    #[test]
    fn php_calls_of_run_time_names_are_computed_but_closures_are_not() {
        let variable = [word("$f"), punct(b'('), punct(b')')];
        assert!(computed_lookup(&variable, Lang::Php));
        let closure = [
            word("$f"),
            punct(b'='),
            word("function"),
            punct(b'('),
            punct(b')'),
            punct(b'{'),
            punct(b'}'),
            punct(b';'),
            word("$f"),
            punct(b'('),
            punct(b')'),
        ];
        assert!(!computed_lookup(&closure, Lang::Php));
        let user_func = [word("call_user_func"), punct(b'('), word("$f")];
        assert!(computed_lookup(&user_func, Lang::Php));
    }
}
