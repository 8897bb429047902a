//! Option parsing for the argv of one analysed simple command.
//!
//! Getopt-style: clustered short flags (`-fr`, `-xdf`), short flags with attached or separate
//! values (`-C dir`, `-Cdir`), long flags with `=` or separate values (`--git-dir=x`,
//! `--git-dir x`), and `--` ending the options. Which options take a value is the caller's
//! knowledge, passed in per command. This module must not judge anything; it only splits argv.

/// Git's global options (before the subcommand) that take a separate value.
pub(crate) const GIT_GLOBAL_SHORT_VALUE: &[char] = &['C', 'c'];
/// See [`GIT_GLOBAL_SHORT_VALUE`].
pub(crate) const GIT_GLOBAL_LONG_VALUE: &[&str] = &[
    "git-dir",
    "work-tree",
    "namespace",
    "config-env",
    "super-prefix",
    "list-cmds",
];

/// `git clone`'s short options that take a separate value.
pub(crate) const GIT_CLONE_SHORT_VALUE: &[char] = &['o', 'b', 'c', 'u', 'j'];
/// See [`GIT_CLONE_SHORT_VALUE`].
pub(crate) const GIT_CLONE_LONG_VALUE: &[&str] = &[
    "origin",
    "branch",
    "config",
    "upload-pack",
    "template",
    "reference",
    "separate-git-dir",
    "depth",
    "jobs",
];

/// curl's short options that take a value, which may end a cluster of flags (`-fsSLo FILE`).
pub(crate) const CURL_SHORT_VALUE: &[char] = &[
    'A', 'b', 'c', 'C', 'd', 'D', 'e', 'E', 'F', 'H', 'K', 'm', 'o', 'P', 'Q', 'r', 't', 'T', 'u',
    'U', 'w', 'x', 'X', 'y', 'Y', 'z',
];
/// curl's long options that take a value (those the rules read, and the common others).
pub(crate) const CURL_LONG_VALUE: &[&str] = &[
    "data",
    "data-binary",
    "data-raw",
    "data-urlencode",
    "data-ascii",
    "form",
    "form-string",
    "upload-file",
    "json",
    "header",
    "request",
    "output",
    "dump-header",
    "user",
    "proxy",
    "config",
    "referer",
    "user-agent",
    "cookie",
    "cookie-jar",
    "max-time",
    "write-out",
    "range",
    "cert",
    "cacert",
    "key",
    "url",
    "connect-timeout",
    "retry",
    "resolve",
    "connect-to",
    "proxy-user",
    "oauth2-bearer",
    "unix-socket",
];
/// wget's short options that take a value (`-qO FILE`).
pub(crate) const WGET_SHORT_VALUE: &[char] = &[
    'e', 'o', 'a', 'i', 'B', 't', 'O', 'T', 'w', 'Q', 'P', 'U', 'l', 'A', 'R', 'D', 'I', 'X',
];
/// wget's long options that take a value (those the rules read, and the common others).
pub(crate) const WGET_LONG_VALUE: &[&str] = &[
    "post-file",
    "body-file",
    "post-data",
    "body-data",
    "output-document",
    "output-file",
    "append-output",
    "header",
    "directory-prefix",
    "user-agent",
    "execute",
    "input-file",
];

/// Whether the long option given as `given` (without `--` and `=value`) names `option`: the whole
/// name, or any prefix of it, as GNU `getopt_long` and git accept unambiguous prefixes
/// (`rm --rec`, `git push --mirr`). A prefix the real tool finds ambiguous makes it fail, so
/// reading it as every option it could name only ever errs on the side of seeing more.
pub(crate) fn long_option_matches(given: &str, option: &str) -> bool {
    !given.is_empty() && option.starts_with(given)
}

/// The argv of one command, split into options and operands.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Parsed<'a> {
    /// Every short flag seen, in order (`-rf` gives `r`, `f`).
    pub shorts: Vec<char>,
    /// Short flags that took a value, with the value.
    pub short_values: Vec<(char, &'a str)>,
    /// Long flags seen (name without `--`), with their value if they took or carried one.
    pub longs: Vec<(&'a str, Option<&'a str>)>,
    /// Operands, in order (everything after `--` included).
    pub operands: Vec<&'a str>,
}

impl<'a> Parsed<'a> {
    /// Parses `args`. `short_value` lists the short flags that take a value; `long_value` the long
    /// flags that take a value when none is attached with `=`.
    pub fn new(args: &'a [String], short_value: &[char], long_value: &[&str]) -> Self {
        let mut parsed = Parsed::default();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let arg = arg.as_str();
            if arg == "--" {
                parsed.operands.extend(iter.by_ref().map(String::as_str));
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) => parsed.longs.push((name, Some(value))),
                    None if long_value.contains(&long) => {
                        parsed.longs.push((long, iter.next().map(String::as_str)));
                    }
                    None => parsed.longs.push((long, None)),
                }
                continue;
            }
            match arg.strip_prefix('-') {
                Some(cluster) if !cluster.is_empty() => {
                    for (at, flag) in cluster.char_indices() {
                        if short_value.contains(&flag) {
                            let rest = cluster.get(at + flag.len_utf8()..).unwrap_or("");
                            let value = if rest.is_empty() {
                                iter.next().map(String::as_str)
                            } else {
                                Some(rest)
                            };
                            parsed.shorts.push(flag);
                            if let Some(value) = value {
                                parsed.short_values.push((flag, value));
                            }
                            break;
                        }
                        parsed.shorts.push(flag);
                    }
                }
                _ => parsed.operands.push(arg),
            }
        }
        parsed
    }

    /// Whether any of the short flags or long flags (or a prefix of one) was given.
    pub fn has(&self, short: &[char], long: &[&str]) -> bool {
        self.shorts.iter().any(|flag| short.contains(flag))
            || self
                .longs
                .iter()
                .any(|(name, _)| long.iter().any(|option| long_option_matches(name, option)))
    }

    /// Whether a long flag starting with `prefix`, or a prefix of it, was given
    /// (`--force-with-lease=…`, `--force-w`).
    pub fn has_long_prefix(&self, prefix: &str) -> bool {
        self.longs
            .iter()
            .any(|(name, _)| name.starts_with(prefix) || long_option_matches(name, prefix))
    }

    /// Every value given to one of these options.
    pub fn values(&self, short: &[char], long: &[&str]) -> Vec<&'a str> {
        let mut values: Vec<&'a str> = self
            .short_values
            .iter()
            .filter(|(flag, _)| short.contains(flag))
            .map(|(_, value)| *value)
            .collect();
        values.extend(
            self.longs
                .iter()
                .filter(|(name, _)| long.iter().any(|option| long_option_matches(name, option)))
                .filter_map(|(_, value)| *value),
        );
        values
    }
}

/// Splits `args` at the first operand, consuming options (and the values of `short_value` /
/// `long_value` options) in front of it: git's and kubectl's global options before the
/// subcommand. Returns the options part parsed and the index of the subcommand in `args`.
pub(crate) fn leading_options<'a>(
    args: &'a [String],
    short_value: &[char],
    long_value: &[&str],
) -> (Parsed<'a>, Option<usize>) {
    let index = options_end(args, short_value, long_value);
    let head = args.get(..index.min(args.len())).unwrap_or(&[]);
    let parsed = Parsed::new(head, short_value, long_value);
    let sub = (index < args.len()).then_some(index);
    (parsed, sub)
}

/// Index of the first operand: past the leading options, the values of those that take one
/// (`short_value`, `long_value`), and a `--` ending them.
pub(crate) fn options_end<T: AsRef<str>>(
    args: &[T],
    short_value: &[char],
    long_value: &[&str],
) -> usize {
    let mut index = 0;
    while let Some(arg) = args.get(index).map(AsRef::as_ref) {
        if arg == "--" {
            return index + 1;
        }
        if let Some(long) = arg.strip_prefix("--") {
            index += if !long.contains('=') && long_value.contains(&long) {
                2
            } else {
                1
            };
            continue;
        }
        match arg.strip_prefix('-') {
            Some(cluster) if !cluster.is_empty() => {
                let takes_value = cluster
                    .char_indices()
                    .find(|(_, flag)| short_value.contains(flag))
                    .is_some_and(|(at, flag)| cluster.len() == at + flag.len_utf8());
                index += if takes_value { 2 } else { 1 };
            }
            _ => break,
        }
    }
    index
}

/// Whether one of the flags is among the options, for a command whose options that take a
/// value are not known: a long one by its name or a prefix of it (`--rec`), a short one in a
/// cluster up to the first character that cannot be a flag, where an attached value begins
/// (`sed -i.bak`, `-Ei~`).
pub(crate) fn has_flag(args: &[String], short: &[char], long: &[&str]) -> bool {
    args.iter().take_while(|arg| *arg != "--").any(|arg| {
        if let Some(name) = arg.strip_prefix("--") {
            let given = name.split_once('=').map_or(name, |(given, _)| given);
            long.iter().any(|flag| long_option_matches(given, flag))
        } else if let Some(cluster) = arg.strip_prefix('-') {
            cluster
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .any(|c| short.contains(&c))
        } else {
            false
        }
    })
}

/// rsync's short options that take a value (`-e ssh`, `-f 'merge x'`, `-T dir`, `-B n`).
pub(crate) const RSYNC_SHORT_VALUES: &[char] = &['e', 'f', 'T', 'B', 'M', '@'];

/// rsync's long options that take a value when none is attached with `=`: read as operands,
/// `--exclude .git` after the destination would pass for it.
const RSYNC_LONG_VALUES: &[&str] = &[
    "exclude",
    "include",
    "filter",
    "exclude-from",
    "include-from",
    "files-from",
    "rsh",
    "rsync-path",
    "backup-dir",
    "suffix",
    "temp-dir",
    "compare-dest",
    "copy-dest",
    "link-dest",
    "partial-dir",
    "log-file",
    "log-file-format",
    "out-format",
    "password-file",
    "chmod",
    "chown",
    "usermap",
    "groupmap",
    "max-size",
    "min-size",
    "max-delete",
    "timeout",
    "contimeout",
    "port",
    "bwlimit",
    "block-size",
    "modify-window",
    "checksum-choice",
    "compress-choice",
    "compress-level",
    "skip-compress",
    "info",
    "debug",
    "iconv",
    "remote-option",
    "sockopts",
    "outbuf",
    "max-alloc",
    "write-batch",
    "read-batch",
    "only-write-batch",
    "protocol",
    "address",
    "stop-after",
    "stop-at",
];

/// An rsync command line: its options (the valued ones with their values) and its operands, the
/// sources and, last, the destination.
pub(crate) fn rsync(args: &[String]) -> Parsed<'_> {
    Parsed::new(args, RSYNC_SHORT_VALUES, RSYNC_LONG_VALUES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn clusters_values_and_double_dash() {
        let args = argv(&["-rf", "--no-preserve-root", "-Cdir", "x", "--", "-y"]);
        let parsed = Parsed::new(&args, &['C'], &[]);
        assert_eq!(parsed.shorts, vec!['r', 'f', 'C']);
        assert_eq!(parsed.short_values, vec![('C', "dir")]);
        assert_eq!(parsed.operands, vec!["x", "-y"]);
        assert!(parsed.has(&['f'], &["force"]));
        assert!(parsed.has(&[], &["no-preserve-root"]));
    }

    #[test]
    fn long_options_match_by_prefix() {
        let args = argv(&["--rec", "--mirr", "--force-w=origin"]);
        let parsed = Parsed::new(&args, &[], &[]);
        assert!(parsed.has(&[], &["recursive"]));
        assert!(parsed.has(&[], &["mirror"]));
        assert!(parsed.has_long_prefix("force-with-lease"));
        assert!(
            !parsed.has(&[], &["force"]),
            "--force-w is not a prefix of force"
        );
        assert_eq!(parsed.values(&[], &["force-with-lease"]), vec!["origin"]);
        assert!(!Parsed::new(&argv(&["--recursively"]), &[], &[]).has(&[], &["recursive"]));
    }

    #[test]
    fn long_values() {
        let args = argv(&["--git-dir", "/x", "--work-tree=/y", "push"]);
        let (parsed, sub) = leading_options(&args, &['C', 'c'], &["git-dir", "work-tree"]);
        assert_eq!(sub, Some(3));
        assert_eq!(parsed.values(&[], &["git-dir"]), vec!["/x"]);
        assert_eq!(parsed.values(&[], &["work-tree"]), vec!["/y"]);
    }

    #[test]
    fn leading_short_with_value() {
        let args = argv(&["-C", "/repo", "-c", "core.pager=x", "push", "-f"]);
        let (parsed, sub) = leading_options(&args, &['C', 'c'], &[]);
        assert_eq!(sub, Some(4));
        assert_eq!(parsed.values(&['c'], &[]), vec!["core.pager=x"]);
    }
}
