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

/// `git config`'s options that take a separate value.
const GIT_CONFIG_SHORT_VALUE: &[char] = &['f'];
/// See [`GIT_CONFIG_SHORT_VALUE`].
const GIT_CONFIG_LONG_VALUE: &[&str] = &["file", "blob", "type", "default", "comment", "value"];

/// The arguments a Python interpreter hands to module `module` it runs (`python3 -u -m pip
/// install x` gives `install x` for `pip`): `None` when it runs another, or no module.
pub(crate) fn python_module_args<'a, T: AsRef<str>>(
    args: &'a [T],
    module: &str,
) -> Option<&'a [T]> {
    let at = args
        .iter()
        .take_while(|arg| arg.as_ref().starts_with('-'))
        .position(|arg| arg.as_ref() == "-m")?;
    match args.get(at + 1..)? {
        [name, rest @ ..] if name.as_ref() == module => Some(rest),
        _ => None,
    }
}

/// What `git config ARGS` (`args` after `config`) sets: its key and value (`None` for a
/// key alone, which sets a boolean or errs), as written after its options, or after those of
/// its `set` subcommand. git stops reading options at the first operand, so a value may begin
/// with a dash (`git config alias.x '-c core.pager=id log'`). `None` when it reads, removes or
/// edits instead (`--get`, `--list`, `--unset`, `get`, `edit`, …).
pub(crate) fn git_config_set<T: AsRef<str>>(args: &[T]) -> Option<(&T, Option<&T>)> {
    let (mut reading, mut operands) = config_words(args);
    match operands.first().map(AsRef::as_ref) {
        Some("set") => (reading, operands) = config_words(operands.get(1..).unwrap_or(&[])),
        Some("get" | "list" | "unset" | "edit" | "remove-section" | "rename-section") => {
            return None;
        }
        _ => {}
    }
    if reading {
        return None;
    }
    let (key, rest) = operands.split_first()?;
    Some((key, rest.first()))
}

/// `git config`'s leading options and the words after them: whether the options read, remove
/// or edit (`--get`, `-l`, `--unset`, …) rather than set, and the operands.
fn config_words<T: AsRef<str>>(args: &[T]) -> (bool, &[T]) {
    let (short_value, long_value) = (GIT_CONFIG_SHORT_VALUE, GIT_CONFIG_LONG_VALUE);
    let index = options_end(args, short_value, long_value);
    let head: Vec<String> = args
        .get(..index.min(args.len()))
        .unwrap_or(&[])
        .iter()
        .map(|arg| arg.as_ref().to_owned())
        .collect();
    let parsed = Parsed::new(&head, short_value, long_value);
    let reading = parsed.has(
        &['l'],
        &[
            "get",
            "get-all",
            "get-regexp",
            "get-urlmatch",
            "list",
            "unset",
            "unset-all",
            "remove-section",
            "rename-section",
            "edit",
        ],
    );
    (reading, args.get(index..).unwrap_or(&[]))
}

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
    "reference-if-able",
    "shallow-since",
    "shallow-exclude",
    "filter",
    "server-option",
    "bundle-uri",
    "ref-format",
];

/// curl's short options that take a value, which may end a cluster of flags (`-fsSLo FILE`).
const CURL_SHORT_VALUE: &[char] = &[
    'A', 'b', 'c', 'C', 'd', 'D', 'e', 'E', 'F', 'H', 'K', 'm', 'o', 'P', 'Q', 'r', 't', 'T', 'u',
    'U', 'w', 'x', 'X', 'y', 'Y', 'z',
];
/// curl's long options that take a value (all of them, as of 8.x), so that a value is never
/// read as a URL and an abbreviation (`--upload-fi FILE`) finds the option it begins.
const CURL_LONG_VALUE: &[&str] = &[
    "abstract-unix-socket",
    "alt-svc",
    "aws-sigv4",
    "cacert",
    "capath",
    "cert",
    "cert-type",
    "ciphers",
    "config",
    "connect-timeout",
    "connect-to",
    "continue-at",
    "cookie",
    "cookie-jar",
    "create-file-mode",
    "crlfile",
    "curves",
    "data",
    "data-ascii",
    "data-binary",
    "data-raw",
    "data-urlencode",
    "delegation",
    "dns-interface",
    "dns-ipv4-addr",
    "dns-ipv6-addr",
    "dns-servers",
    "doh-url",
    "dump-header",
    "ech",
    "egd-file",
    "engine",
    "etag-compare",
    "etag-save",
    "expect100-timeout",
    "form",
    "form-string",
    "ftp-account",
    "ftp-alternative-to-user",
    "ftp-method",
    "ftp-port",
    "ftp-ssl-ccc-mode",
    "happy-eyeballs-timeout-ms",
    "haproxy-clientip",
    "header",
    "hostpubmd5",
    "hostpubsha256",
    "hsts",
    "interface",
    "ip-tos",
    "json",
    "keepalive-cnt",
    "keepalive-time",
    "key",
    "key-type",
    "krb",
    "libcurl",
    "limit-rate",
    "local-port",
    "login-options",
    "mail-auth",
    "mail-from",
    "mail-rcpt",
    "max-filesize",
    "max-redirs",
    "max-time",
    "netrc-file",
    "noproxy",
    "oauth2-bearer",
    "output",
    "output-dir",
    "parallel-max",
    "pass",
    "pinnedpubkey",
    "preproxy",
    "proto",
    "proto-default",
    "proto-redir",
    "proxy",
    "proxy-cacert",
    "proxy-capath",
    "proxy-cert",
    "proxy-cert-type",
    "proxy-ciphers",
    "proxy-crlfile",
    "proxy-header",
    "proxy-key",
    "proxy-key-type",
    "proxy-pass",
    "proxy-pinnedpubkey",
    "proxy-service-name",
    "proxy-tls13-ciphers",
    "proxy-tlsauthtype",
    "proxy-tlspassword",
    "proxy-tlsuser",
    "proxy-user",
    "proxy1.0",
    "pubkey",
    "quote",
    "random-file",
    "range",
    "rate",
    "referer",
    "request",
    "request-target",
    "resolve",
    "retry",
    "retry-delay",
    "retry-max-time",
    "sasl-authzid",
    "service-name",
    "socks4",
    "socks4a",
    "socks5",
    "socks5-gssapi-service",
    "socks5-hostname",
    "speed-limit",
    "speed-time",
    "stderr",
    "telnet-option",
    "tftp-blksize",
    "time-cond",
    "tls-max",
    "tls13-ciphers",
    "tlsauthtype",
    "tlspassword",
    "tlsuser",
    "trace",
    "trace-ascii",
    "trace-config",
    "unix-socket",
    "upload-file",
    "url",
    "url-query",
    "user",
    "user-agent",
    "variable",
    "vlan-priority",
    "write-out",
];
/// curl's long options that take no value but begin the name of one that does (`--head`,
/// `--header`): given whole, they are themselves, not an abbreviation.
const CURL_LONG_FLAG_PREFIXES: &[&str] = &[
    "crlf",
    "ftp-ssl-ccc",
    "head",
    "netrc",
    "parallel",
    "socks5-gssapi",
];
/// wget's short options that take a value (`-qO FILE`).
const WGET_SHORT_VALUE: &[char] = &[
    'e', 'o', 'a', 'i', 'B', 't', 'O', 'T', 'w', 'Q', 'P', 'U', 'l', 'A', 'R', 'D', 'I', 'X',
];
/// wget's long options that take a value (all of them, as of 1.21). None of its options without a
/// value begins the name of one with.
const WGET_LONG_VALUE: &[&str] = &[
    "accept",
    "accept-regex",
    "append-output",
    "backups",
    "base",
    "bind-address",
    "body-data",
    "body-file",
    "ca-certificate",
    "ca-directory",
    "certificate",
    "certificate-type",
    "ciphers",
    "compression",
    "config",
    "connect-timeout",
    "crl-file",
    "cut-dirs",
    "default-page",
    "directory-prefix",
    "dns-timeout",
    "domains",
    "exclude-directories",
    "exclude-domains",
    "execute",
    "follow-tags",
    "ftp-password",
    "ftp-user",
    "header",
    "http-password",
    "http-user",
    "ignore-tags",
    "include-directories",
    "input-file",
    "level",
    "limit-rate",
    "load-cookies",
    "local-encoding",
    "method",
    "output-document",
    "output-file",
    "password",
    "pinnedpubkey",
    "post-data",
    "post-file",
    "prefer-family",
    "private-key",
    "private-key-type",
    "progress",
    "proxy-password",
    "proxy-user",
    "quota",
    "read-timeout",
    "referer",
    "regex-type",
    "reject",
    "reject-regex",
    "rejected-log",
    "remote-encoding",
    "report-speed",
    "restrict-file-names",
    "retry-on-http-error",
    "save-cookies",
    "secure-protocol",
    "start-pos",
    "timeout",
    "tries",
    "use-askpass",
    "user",
    "user-agent",
    "wait",
    "waitretry",
    "warc-dedup",
    "warc-file",
    "warc-header",
    "warc-max-size",
    "warc-tempdir",
];

/// curl's arguments, parsed with its grammar.
pub(crate) fn curl(args: &[String]) -> Parsed<'_> {
    Parsed::abbreviable(
        args,
        CURL_SHORT_VALUE,
        CURL_LONG_VALUE,
        CURL_LONG_FLAG_PREFIXES,
    )
}

/// wget's arguments, parsed with its grammar.
pub(crate) fn wget(args: &[String]) -> Parsed<'_> {
    Parsed::abbreviable(args, WGET_SHORT_VALUE, WGET_LONG_VALUE, &[])
}

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
        Self::parse(args, short_value, |long| long_value.contains(&long))
    }

    /// Parses `args` of a program that takes an unambiguous prefix of a long option for the
    /// option (GNU `getopt_long`, wget, curl 7): a long option given without `=` takes a value
    /// when it names one of `long_value` or begins one (`--upload-fi FILE`), unless it is one of
    /// `flags`, the program's options without a value that begin the name of one with (curl's
    /// `--head`, beside `--header`). `long_value` must then list all the options with a value.
    pub fn abbreviable(
        args: &'a [String],
        short_value: &[char],
        long_value: &[&str],
        flags: &[&str],
    ) -> Self {
        Self::parse(args, short_value, |long| {
            !flags.contains(&long)
                && long_value
                    .iter()
                    .any(|option| long_option_matches(long, option))
        })
    }

    /// Parses `args`; `takes_value` says whether a long option given without `=` takes the next
    /// argument as its value.
    fn parse(args: &'a [String], short_value: &[char], takes_value: impl Fn(&str) -> bool) -> Self {
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
                    None if takes_value(long) => {
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

/// The arguments of `chmod`, `chown`, `chgrp`, `chattr` or `chflags`: what it sets (the mode,
/// the owner or group, the attributes or flags) and the files it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attributes<'a> {
    /// The mode (`600`, `go-w`) or owner (`u:g`); `None` with `--reference=FILE`, where the
    /// setting is copied from a file.
    pub setting: Option<&'a str>,
    /// The files changed.
    pub files: Vec<&'a str>,
    /// Whether `-R` / `--recursive` was given.
    pub recursive: bool,
}

/// Letters of a symbolic chmod mode after its leading `-` (`-w`, `-x,o+w`).
const MODE_LETTERS: &str = "rwxXstugoa+-=,01234567";

/// Letters of chattr's attributes (`+i`, `-a`, `=e`); none is one of its options (`-R -V -f
/// -v -p`).
const CHATTR_LETTERS: &str = "aAcCdDeFijmPsStTux";

/// Parses `chmod`, `chown`, `chgrp`, `chattr` or `chflags` arguments. chmod's mode may be
/// spelled like an option (`chmod -w f`, `chmod -x,o+w f`): its own short options are `-c -f
/// -v -R`, none of which is a mode letter, so a dash word made only of mode letters is the mode.
/// chattr's modes (`+i`, `-a`) come before its files, the first of them the setting.
pub(crate) fn attributes<'a>(name: &str, args: &'a [String]) -> Attributes<'a> {
    let chattr = name == "chattr";
    let short_value: &[char] = if chattr { &['v', 'p'] } else { &[] };
    let parsed = Parsed::new(args, short_value, &["reference", "from"]);
    let recursive = parsed.has(&['R'], &["recursive"]);
    if chattr {
        let is_mode = |arg: &&String| {
            arg.strip_prefix(['+', '-', '=']).is_some_and(|letters| {
                !letters.is_empty() && letters.chars().all(|c| CHATTR_LETTERS.contains(c))
            })
        };
        let options = args.iter().take_while(|arg| *arg != "--");
        return Attributes {
            setting: options.clone().find(is_mode).map(String::as_str),
            files: parsed
                .operands
                .into_iter()
                .filter(|operand| !operand.starts_with(['+', '=']))
                .collect(),
            recursive,
        };
    }
    let by_reference = parsed.has(&[], &["reference"]);
    let dash_mode = (name == "chmod")
        .then(|| {
            args.iter().take_while(|arg| *arg != "--").find(|arg| {
                arg.strip_prefix('-').is_some_and(|letters| {
                    !letters.is_empty() && letters.chars().all(|c| MODE_LETTERS.contains(c))
                })
            })
        })
        .flatten();
    let mut operands = parsed.operands.into_iter();
    let setting = match dash_mode {
        Some(mode) => Some(mode.as_str()),
        None if by_reference => None,
        None => operands.next(),
    };
    Attributes {
        setting,
        files: operands.collect(),
        recursive,
    }
}

/// The spellings of the caller's own account in a shell word, as `chown` is given it: the
/// variables the login sets, and the programs that print the caller's name or id.
const CALLER_USER: &[&str] = &[
    "$USER",
    "${USER}",
    "$LOGNAME",
    "${LOGNAME}",
    "$UID",
    "${UID}",
    "$(whoami)",
    "`whoami`",
    "$(id -un)",
    "$(id -nu)",
    "$(id -u -n)",
    "$(id -n -u)",
    "$(id -u)",
    "`id -un`",
    "`id -u`",
    "$(logname)",
];

/// The spellings of the caller's own group (`id -g` prints the login group).
const CALLER_GROUP: &[&str] = &[
    "$(id -gn)",
    "$(id -ng)",
    "$(id -g -n)",
    "$(id -n -g)",
    "$(id -g)",
    "`id -gn`",
    "`id -g`",
    "$GROUPS",
    "${GROUPS}",
];

/// Whether `chown`'s owner (`USER`, `USER:GROUP`, `USER:`, `USER.GROUP`) is the caller: the
/// user one of [`CALLER_USER`] or the name of the home the event says (`/home/ann` is `ann`),
/// and the group, when one is given, the caller's login group (empty after `:`), one of
/// [`CALLER_GROUP`], or the group of the user's own name that most systems make. Giving files
/// to yourself changes nothing another account could use.
pub(crate) fn owner_is_caller(owner: &str, home: Option<&str>) -> bool {
    let own_name = home
        .map(|home| home.trim_end_matches('/'))
        .and_then(|home| home.rsplit_once('/'))
        .map(|(_, name)| name)
        .filter(|name| !name.is_empty() && *name != "root");
    let is_user = |word: &str| CALLER_USER.contains(&word) || Some(word) == own_name;
    let (user, group) = match owner.split_once(':') {
        Some((user, group)) => (user, Some(group)),
        None => match owner.split_once('.').filter(|(user, _)| is_user(user)) {
            Some((user, group)) => (user, Some(group)),
            None => (owner, None),
        },
    };
    is_user(user)
        && group
            .is_none_or(|group| group.is_empty() || CALLER_GROUP.contains(&group) || is_user(group))
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

/// The destination a sync deletes from, as written: what is there and not in the source goes.
/// rsync's with one of its `--delete…` options (`--del`), rclone's `sync` (which deletes by
/// default). `None` when it deletes nothing.
pub(crate) fn sync_deleting<'a>(name: &str, args: &'a [String]) -> Option<&'a str> {
    match name {
        "rsync" => {
            let parsed = rsync(args);
            let deletes = parsed.has(
                &[],
                &[
                    "delete",
                    "delete-before",
                    "delete-during",
                    "delete-delay",
                    "delete-after",
                    "delete-excluded",
                    "del",
                ],
            );
            deletes.then(|| parsed.operands.last().copied()).flatten()
        }
        "rclone" => match Parsed::new(args, &[], &[]).operands.as_slice() {
            ["sync", _, destination, ..] => Some(destination),
            _ => None,
        },
        _ => None,
    }
}

/// The global options of `docker`, `podman` and `nerdctl` (before the subcommand) that take a
/// separate value: docker's `-c`/`--context`, `-H`/`--host`, `-l`/`--log-level`, podman's
/// `-c`/`--connection`, nerdctl's `-a`/`--address` and `-n`/`--namespace`, and their long ones.
const CONTAINER_GLOBAL_SHORT_VALUE: &[char] = &['a', 'c', 'H', 'l', 'n'];
/// See [`CONTAINER_GLOBAL_SHORT_VALUE`].
const CONTAINER_GLOBAL_LONG_VALUE: &[&str] = &[
    // docker
    "config",
    "context",
    "host",
    "log-level",
    "tlscacert",
    "tlscert",
    "tlskey",
    // podman
    "connection",
    "url",
    "identity",
    "root",
    "runroot",
    "storage-driver",
    "storage-opt",
    "cgroup-manager",
    "events-backend",
    "hooks-dir",
    "module",
    "network-cmd-path",
    "network-config-dir",
    "runtime",
    "runtime-flag",
    "ssh",
    "tmpdir",
    "volumepath",
    "imagestore",
    "db-backend",
    "conmon",
    "out",
    // nerdctl
    "address",
    "namespace",
    "snapshotter",
    "cni-path",
    "cni-netconfpath",
    "data-root",
    "host-gateway-ip",
    "hosts-dir",
    "bridge-ip",
];

/// `docker run`'s (and `create`'s, podman's, nerdctl's) short options that take a value.
const CONTAINER_RUN_SHORT_VALUE: &[char] = &['a', 'c', 'e', 'h', 'l', 'm', 'p', 'u', 'v', 'w'];

/// `docker run`'s long options that take a separate value when none is attached with `=`
/// (docker's reference, podman's and nerdctl's own additions).
const CONTAINER_RUN_LONG_VALUE: &[&str] = &[
    "add-host",
    "annotation",
    "arch",
    "attach",
    "authfile",
    "blkio-weight",
    "blkio-weight-device",
    "cap-add",
    "cap-drop",
    "cert-dir",
    "cgroup-conf",
    "cgroup-parent",
    "cgroupns",
    "cgroups",
    "chrootdirs",
    "cidfile",
    "conmon-pidfile",
    "cpu-count",
    "cpu-percent",
    "cpu-period",
    "cpu-quota",
    "cpu-rt-period",
    "cpu-rt-runtime",
    "cpu-shares",
    "cpus",
    "cpuset-cpus",
    "cpuset-mems",
    "creds",
    "decryption-key",
    "detach-keys",
    "device",
    "device-cgroup-rule",
    "device-read-bps",
    "device-read-iops",
    "device-write-bps",
    "device-write-iops",
    "dns",
    "dns-option",
    "dns-opt",
    "dns-search",
    "domainname",
    "entrypoint",
    "env",
    "env-file",
    "env-from-file",
    "env-merge",
    "expose",
    "gidmap",
    "gpus",
    "group-add",
    "group-entry",
    "health-cmd",
    "health-interval",
    "health-log-destination",
    "health-max-log-count",
    "health-max-log-size",
    "health-on-failure",
    "health-retries",
    "health-start-interval",
    "health-start-period",
    "health-startup-cmd",
    "health-startup-interval",
    "health-startup-retries",
    "health-startup-success",
    "health-startup-timeout",
    "health-timeout",
    "hostname",
    "hostuser",
    "image-volume",
    "init-path",
    "io-maxbandwidth",
    "io-maxiops",
    "ip",
    "ip6",
    "ipc",
    "isolation",
    "kernel-memory",
    "label",
    "label-file",
    "link",
    "link-local-ip",
    "log-driver",
    "log-opt",
    "mac-address",
    "memory",
    "memory-reservation",
    "memory-swap",
    "memory-swappiness",
    "mount",
    "name",
    "net",
    "net-alias",
    "network",
    "network-alias",
    "oom-score-adj",
    "os",
    "passwd-entry",
    "personality",
    "pid",
    "pidfile",
    "pids-limit",
    "platform",
    "pod",
    "pod-id-file",
    "preserve-fd",
    "preserve-fds",
    "publish",
    "pull",
    "rdt-class",
    "requires",
    "restart",
    "retry",
    "retry-delay",
    "runtime",
    "sdnotify",
    "seccomp-policy",
    "secret",
    "security-opt",
    "shm-size",
    "shm-size-systemd",
    "stop-signal",
    "stop-timeout",
    "storage-opt",
    "subgidname",
    "subuidname",
    "sysctl",
    "systemd",
    "timeout",
    "tmpfs",
    "tz",
    "uidmap",
    "ulimit",
    "umask",
    "unsetenv",
    "user",
    "userns",
    "uts",
    "variant",
    "volume",
    "volume-driver",
    "volumes-from",
    "workdir",
];

/// `docker run`'s long options known to take no separate value.
const CONTAINER_RUN_LONG_FLAG: &[&str] = &[
    "detach",
    "disable-content-trust",
    "env-host",
    "help",
    "http-proxy",
    "init",
    "interactive",
    "no-healthcheck",
    "no-hosts",
    "oom-kill-disable",
    "passwd",
    "privileged",
    "publish-all",
    "quiet",
    "read-only",
    "read-only-tmpfs",
    "replace",
    "rm",
    "rootfs",
    "sig-proxy",
    "tls-verify",
    "tty",
    "use-api-socket",
    // docker service create's own
    "no-resolve-image",
    "with-registry-auth",
    // compose run's own
    "build",
    "no-deps",
    "no-TTY",
    "quiet-build",
    "quiet-pull",
    "remove-orphans",
    "service-ports",
    "use-aliases",
];

/// What follows one of `subcommands` of `docker`, `podman` or `nerdctl`, past the global options,
/// also in the management form (`docker container exec`); `None` for any other subcommand.
pub(crate) fn container_subcommand<'a, T: AsRef<str>>(
    args: &'a [T],
    subcommands: &[&str],
) -> Option<&'a [T]> {
    let start = options_end(
        args,
        CONTAINER_GLOBAL_SHORT_VALUE,
        CONTAINER_GLOBAL_LONG_VALUE,
    );
    let rest = args.get(start..).unwrap_or_default();
    match rest {
        [container, sub, rest @ ..]
            if container.as_ref() == "container" && subcommands.contains(&sub.as_ref()) =>
        {
            Some(rest)
        }
        [sub, rest @ ..] if subcommands.contains(&sub.as_ref()) => Some(rest),
        _ => None,
    }
}

/// A copy between local files and a bucket, a remote or a container: `aws s3 cp|mv|sync`,
/// `gsutil cp|mv|rsync`, `gcloud storage cp|mv|rsync`, `rclone copy|copyto|move|moveto|sync`,
/// `docker|podman|nerdctl cp` and compose's `cp`, `kubectl|oc cp`. Its sources and, last, its destination; see
/// [`is_local_operand`] for which are local files. `None` for any other command.
pub(crate) fn storage_copy<'a>(name: &str, args: &'a [String]) -> Option<(Vec<&'a str>, &'a str)> {
    // Past the global options in front of the subcommand (`aws --profile p s3 cp`, `gsutil -m
    // cp`, `rclone --config f copy`).
    let (short, long): (&[char], &[&str]) = match name {
        "aws" => (&[], AWS_GLOBAL_LONG_VALUE),
        "gsutil" => (GSUTIL_GLOBAL_SHORT_VALUE, &[]),
        "gcloud" => (&[], &["project", "configuration", "account", "format"]),
        "rclone" => (&[], RCLONE_GLOBAL_LONG_VALUE),
        _ => (&[], &[]),
    };
    let rest = args
        .get(options_end(args, short, long)..)
        .unwrap_or_default();
    let words: Vec<&str> = rest.iter().take(2).map(String::as_str).collect();
    let parsed = match (name, words.as_slice()) {
        ("aws", ["s3", "cp" | "mv" | "sync", ..]) => Parsed::new(
            rest.get(2..).unwrap_or_default(),
            &[],
            &[
                "exclude",
                "include",
                "acl",
                "storage-class",
                "profile",
                "region",
                "endpoint-url",
                "sse",
                "content-type",
                "cache-control",
                "expected-size",
            ],
        ),
        ("gsutil", ["cp" | "mv" | "rsync", ..]) => {
            Parsed::new(rest.get(1..).unwrap_or_default(), &['x', 'h'], &[])
        }
        ("gcloud", ["storage", "cp" | "mv" | "rsync", ..]) => {
            Parsed::new(rest.get(2..).unwrap_or_default(), &['x', 'h'], &[])
        }
        ("rclone", ["copy" | "copyto" | "move" | "moveto" | "sync", ..]) => Parsed::new(
            rest.get(1..).unwrap_or_default(),
            &[],
            &[
                "config",
                "include",
                "exclude",
                "filter",
                "transfers",
                "bwlimit",
            ],
        ),
        // `docker compose cp web:/x ~/.bashrc` too.
        ("docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose", _) => {
            match container_subcommand(args, &["cp"]) {
                Some(rest) => Parsed::new(rest, &[], &[]),
                None => Parsed::new(compose_subcommand(name, args, "cp")?, &[], &["index"]),
            }
        }
        ("kubectl" | "oc", _) => match kubectl_subcommand(args)? {
            ("cp", rest) => Parsed::new(rest, &['c'], &["container", "retries"]),
            _ => return None,
        },
        _ => return None,
    };
    let (target, sources) = parsed.operands.split_last()?;
    Some((sources.to_vec(), *target))
}

/// aws's global options (before the service) that take a separate value.
pub(crate) const AWS_GLOBAL_LONG_VALUE: &[&str] = &[
    "region",
    "profile",
    "output",
    "endpoint-url",
    "query",
    "color",
    "ca-bundle",
    "cli-read-timeout",
    "cli-connect-timeout",
];
/// gsutil's global options (before the command) that take a separate value.
pub(crate) const GSUTIL_GLOBAL_SHORT_VALUE: &[char] = &['o', 'h', 'u', 'p'];
/// rclone's global options (before the command) that take a separate value.
pub(crate) const RCLONE_GLOBAL_LONG_VALUE: &[&str] = &["config", "log-file", "log-level"];

/// Whether an operand of a [`storage_copy`] is a local file: not a URL (`s3://b/k`, `gs://b`)
/// nor a remote's, a container's or a pod's path (`remote:dir`, `c:/etc`, `ns/pod:/x`), nor
/// `-` (standard input or output).
pub(crate) fn is_local_operand(operand: &str) -> bool {
    operand != "-"
        && !operand.contains("://")
        && (operand.starts_with(['/', '.', '~']) || !operand.contains(':'))
}

/// The options of a container started by `docker`, `podman` or `nerdctl` with `run` or `create`
/// (also `container run`/`container create`), after the global options, read with
/// [`pflag`] up to the image, which is the first operand; the image and its command are the
/// operands. `None` for any other subcommand.
pub(crate) fn container_run(args: &[String]) -> Option<Parsed<'_>> {
    let words = container_subcommand(args, &["run", "create"])?;
    Some(pflag(
        words,
        CONTAINER_RUN_SHORT_VALUE,
        CONTAINER_RUN_LONG_VALUE,
        CONTAINER_RUN_LONG_FLAG,
    ))
}

/// The global options of compose (before its subcommand) that take a separate value: docker
/// compose's `-f`/`--file`, `-p`/`--project-name`, `docker-compose`'s `-c`/`--context`,
/// `-H`/`--host`, podman-compose's `--podman-*-args`, and the long ones of all three.
const COMPOSE_GLOBAL_SHORT_VALUE: &[char] = &['f', 'p', 'c', 'H'];
/// See [`COMPOSE_GLOBAL_SHORT_VALUE`].
const COMPOSE_GLOBAL_LONG_VALUE: &[&str] = &[
    "file",
    "project-name",
    "profile",
    "env-file",
    "project-directory",
    "ansi",
    "parallel",
    "progress",
    "context",
    "host",
    "log-level",
    "tlscacert",
    "tlscert",
    "tlskey",
    "in-pod",
    "pod-args",
    "podman-path",
    "podman-args",
    "podman-pull-args",
    "podman-push-args",
    "podman-build-args",
    "podman-inspect-args",
    "podman-run-args",
    "podman-start-args",
    "podman-stop-args",
    "podman-rm-args",
    "podman-volume-args",
];

/// The options of a one-off container `compose run` starts (`docker compose run`, `podman
/// compose run`, `nerdctl compose run`; `command` is `docker`, `podman` or `nerdctl`;
/// `docker-compose run`, `podman-compose run`): past the global options, read with `docker
/// run`'s grammar up to the service, which is the first operand. Compose's `run` takes a subset
/// of `docker run`'s options (`-v`, `--cap-add`, `-u`, `-e`, …) with the same meaning. `None`
/// for any other command or subcommand (`up` and `exec` read the compose file or an existing
/// container).
pub(crate) fn compose_run<'a>(command: &str, args: &'a [String]) -> Option<Parsed<'a>> {
    Some(pflag(
        compose_subcommand(command, args, "run")?,
        CONTAINER_RUN_SHORT_VALUE,
        CONTAINER_RUN_LONG_VALUE,
        CONTAINER_RUN_LONG_FLAG,
    ))
}

/// What follows compose's `subcommand` past its global options, in each of its forms (`docker
/// compose`, `podman compose`, `nerdctl compose`, `docker-compose`, `podman-compose`; `command`
/// is the program); `None` for any other command or subcommand.
fn compose_subcommand<'a>(
    command: &str,
    args: &'a [String],
    subcommand: &str,
) -> Option<&'a [String]> {
    let compose: &'a [String] = match command {
        "docker-compose" | "podman-compose" => args,
        "docker" | "podman" | "nerdctl" => container_subcommand(args, &["compose"])?,
        _ => return None,
    };
    let at = options_end(
        compose,
        COMPOSE_GLOBAL_SHORT_VALUE,
        COMPOSE_GLOBAL_LONG_VALUE,
    );
    if compose.get(at).map(String::as_str) != Some(subcommand) {
        return None;
    }
    Some(compose.get(at + 1..).unwrap_or_default())
}

/// The options of a swarm service `docker service create` starts (`--mount`, `--cap-add`, …),
/// read with `docker run`'s grammar up to the image (an option it does not know takes the word
/// after it, so none is hidden). `None` for any other subcommand.
pub(crate) fn service_create(args: &[String]) -> Option<Parsed<'_>> {
    match container_subcommand(args, &["service"])? {
        [create, rest @ ..] if create == "create" => Some(run_options(rest)),
        _ => None,
    }
}

/// Options given to `podman run` by podman-compose's `--podman-run-args='--privileged -v …'`,
/// for every container it starts (`up`, `run`), as the words of each value.
pub(crate) fn podman_compose_run_args(command: &str, args: &[String]) -> Vec<Vec<String>> {
    if command != "podman-compose" {
        return Vec::new();
    }
    let at = options_end(args, COMPOSE_GLOBAL_SHORT_VALUE, COMPOSE_GLOBAL_LONG_VALUE);
    let globals = args.get(..at).unwrap_or_default();
    Parsed::new(
        globals,
        COMPOSE_GLOBAL_SHORT_VALUE,
        COMPOSE_GLOBAL_LONG_VALUE,
    )
    .values(&[], &["podman-run-args"])
    .into_iter()
    .map(|value| value.split_whitespace().map(str::to_owned).collect())
    .collect()
}

/// `words` read as `docker run`'s options up to the image (see [`container_run`]).
pub(crate) fn run_options(words: &[String]) -> Parsed<'_> {
    pflag(
        words,
        CONTAINER_RUN_SHORT_VALUE,
        CONTAINER_RUN_LONG_VALUE,
        CONTAINER_RUN_LONG_FLAG,
    )
}

/// `docker volume create`'s (and podman's, nerdctl's) short options that take a value:
/// `-d`/`--driver`, `-o`/`--opt`, `-l`/`--label`.
const VOLUME_CREATE_SHORT_VALUE: &[char] = &['d', 'o', 'l'];
/// `docker volume create`'s long options that take a separate value (with the cluster
/// volumes' ones).
const VOLUME_CREATE_LONG_VALUE: &[&str] = &[
    "driver",
    "opt",
    "label",
    "availability",
    "group",
    "limit-bytes",
    "required-bytes",
    "scope",
    "secret",
    "sharing",
    "topology-preferred",
    "topology-required",
    "type",
];

/// The options of `docker volume create` (`podman`, `nerdctl`), past the global options: the
/// driver's options are the values of `-o`/`--opt` (`-o device=/srv`, `--opt=o=bind`). `None`
/// for any other subcommand.
pub(crate) fn volume_create(args: &[String]) -> Option<Parsed<'_>> {
    let volume = container_subcommand(args, &["volume"])?;
    let (create, rest) = volume.split_first()?;
    (create == "create").then(|| {
        pflag(
            rest,
            VOLUME_CREATE_SHORT_VALUE,
            VOLUME_CREATE_LONG_VALUE,
            &[],
        )
    })
}

/// Reads `words` as Go's pflag does (`docker`, `podman`, `nerdctl`, `kubectl`): `--flag=value`,
/// `--flag value`, `-v value`, `-v=value`, `-itv value`, up to the first operand, which with
/// everything after it is the operands.
///
/// `short_value` and `long_value` list the options that take a value, `long_flag` the long ones
/// known to take none. A long option in neither list may take the word after it: that word is
/// read as its value, so the options a later word gives are still seen (reading one word too
/// far can only mistake the first operand for a value, never hide an option).
pub(crate) fn pflag<'a>(
    words: &'a [String],
    short_value: &[char],
    long_value: &[&str],
    long_flag: &[&str],
) -> Parsed<'a> {
    let mut parsed = Parsed::default();
    let mut at = 0;
    while let Some(arg) = words.get(at).map(String::as_str) {
        at += 1;
        if arg == "--" {
            parsed.operands.extend(
                words
                    .get(at..)
                    .unwrap_or_default()
                    .iter()
                    .map(String::as_str),
            );
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some((name, value)) = long.split_once('=') {
                parsed.longs.push((name, Some(value)));
                continue;
            }
            let next = words.get(at).map(String::as_str);
            let takes = long_value.contains(&long)
                || (!long_flag.contains(&long) && next.is_some_and(|next| !next.starts_with('-')));
            if takes {
                at += 1;
                parsed.longs.push((long, next));
            } else {
                parsed.longs.push((long, None));
            }
            continue;
        }
        match arg.strip_prefix('-') {
            Some(cluster) if !cluster.is_empty() => {
                for (index, flag) in cluster.char_indices() {
                    parsed.shorts.push(flag);
                    if short_value.contains(&flag) {
                        let attached = cluster.get(index + flag.len_utf8()..).unwrap_or("");
                        let value = if attached.is_empty() {
                            let next = words.get(at).map(String::as_str);
                            at += 1;
                            next
                        } else {
                            Some(attached.strip_prefix('=').unwrap_or(attached))
                        };
                        if let Some(value) = value {
                            parsed.short_values.push((flag, value));
                        }
                        break;
                    }
                }
            }
            _ => {
                parsed.operands.extend(
                    words
                        .get(at - 1..)
                        .unwrap_or_default()
                        .iter()
                        .map(String::as_str),
                );
                break;
            }
        }
    }
    parsed
}

/// The global options of `kubectl` (and `oc`) that take a separate value: `-n`/`--namespace`,
/// `-s`/`--server`, `-v` (the log level), `--context`, `--kubeconfig`, …
pub(crate) const KUBECTL_GLOBAL_SHORT_VALUE: &[char] = &['n', 's', 'v'];
/// See [`KUBECTL_GLOBAL_SHORT_VALUE`].
pub(crate) const KUBECTL_GLOBAL_LONG_VALUE: &[&str] = &[
    "namespace",
    "context",
    "cluster",
    "kubeconfig",
    "user",
    "server",
    "token",
    "as",
    "as-group",
    "as-uid",
    "request-timeout",
    "certificate-authority",
    "client-certificate",
    "client-key",
    "tls-server-name",
    "cache-dir",
    "profile",
    "profile-output",
];

/// The subcommand of `kubectl` (`oc`) past the global options in front of it, and the words
/// after it (`kubectl -n prod delete pod x` gives `delete` and `pod x`).
pub(crate) fn kubectl_subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let (_, sub) = leading_options(args, KUBECTL_GLOBAL_SHORT_VALUE, KUBECTL_GLOBAL_LONG_VALUE);
    let sub = sub?;
    Some((
        args.get(sub)?.as_str(),
        args.get(sub + 1..).unwrap_or_default(),
    ))
}

/// Whether a container option that takes no value was given and not turned off
/// (`--privileged`, `--privileged=true`; not `--privileged=false`).
pub(crate) fn container_flag(parsed: &Parsed<'_>, long: &str) -> bool {
    parsed.longs.iter().any(|(name, value)| {
        *name == long
            && value
                .is_none_or(|value| !matches!(value, "false" | "False" | "FALSE" | "f" | "F" | "0"))
    })
}

/// The values of a container option by its exact name (pflag takes no abbreviations): the long
/// one and, when it has one, the short one.
pub(crate) fn container_values<'a>(
    parsed: &Parsed<'a>,
    short: Option<char>,
    long: &str,
) -> Vec<&'a str> {
    let mut values: Vec<&'a str> = parsed
        .short_values
        .iter()
        .filter(|(flag, _)| Some(*flag) == short)
        .map(|(_, value)| *value)
        .collect();
    values.extend(
        parsed
            .longs
            .iter()
            .filter(|(name, _)| *name == long)
            .filter_map(|(_, value)| *value),
    );
    values
}

/// A bind mount of a host path into a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContainerBind<'a> {
    /// The host path, as written.
    pub source: &'a str,
    /// Where the container sees it, when the command line says (`-v SRC:DST`, `--mount …,dst=DST`).
    pub target: Option<&'a str>,
    /// Mounted read-only (`:ro`, `readonly`).
    pub read_only: bool,
}

/// The bind mounts of host paths among a container's options ([`container_run`],
/// [`compose_run`]): `-v SRC:DST[:opts]` (a path, not a named volume; a lone path is an
/// anonymous volume), `--mount type=bind,source=SRC,target=DST,…`, and a `--mount` of a volume
/// the local driver makes a bind mount of a host path ([`VolumeOptions::host_bind`]).
pub(crate) fn container_binds<'a>(parsed: &Parsed<'a>) -> Vec<ContainerBind<'a>> {
    let mut binds = Vec::new();
    for volume in container_values(parsed, Some('v'), "volume") {
        // A Windows drive (`C:\src:/src`) keeps its colon.
        let drive = matches!(
            volume.as_bytes(),
            [letter, b':', b'\\' | b'/', ..] if letter.is_ascii_alphabetic()
        );
        let split_from = if drive { 2 } else { 0 };
        let Some(colon) = volume
            .get(split_from..)
            .and_then(|rest| rest.find(':'))
            .map(|at| at + split_from)
        else {
            continue;
        };
        let source = volume.get(..colon).unwrap_or(volume);
        let mut after = volume.get(colon + 1..).unwrap_or("").split(':');
        let target = after.next().filter(|target| !target.is_empty());
        let options = after.next().unwrap_or("");
        let read_only = options.split(',').any(|o| o == "ro" || o == "readonly");
        if drive || is_host_path(source) {
            binds.push(ContainerBind {
                source,
                target,
                read_only,
            });
        }
    }
    for mount in container_values(parsed, None, "mount") {
        let mut kind = None;
        let mut source = None;
        let mut target = None;
        let mut read_only = false;
        let mut volume_options = Vec::new();
        for field in mount.split(',') {
            let field = field.trim_matches(['"', '\'']);
            let (key, value) = field.split_once('=').unwrap_or((field, ""));
            match key.to_ascii_lowercase().as_str() {
                "type" => kind = Some(value),
                "source" | "src" => source = Some(value),
                "target" | "destination" | "dst" => target = Some(value),
                "readonly" | "ro" => read_only = !matches!(value, "false" | "0"),
                "volume-opt" => volume_options.push(value),
                _ => {}
            }
        }
        let bind = kind.is_none_or(|kind| kind.eq_ignore_ascii_case("bind"));
        if let Some(source) = source
            && bind
        {
            binds.push(ContainerBind {
                source,
                target,
                read_only,
            });
        } else if let Some(mut volume) = VolumeOptions::read(volume_options).host_bind() {
            volume.read_only |= read_only;
            volume.target = target;
            binds.push(volume);
        }
    }
    binds
}

/// Whether a mount source names a host path rather than a named volume: absolute, in the
/// home, relative to the working directory or through a variable.
fn is_host_path(source: &str) -> bool {
    source.starts_with(['/', '~', '.', '$'])
}

/// The local volume driver's mount options, given to `docker volume create -o KEY=VALUE` or
/// `--mount type=volume,volume-opt=KEY=VALUE`: what it mounts (`device`), as what file system
/// (`type`), with which mount options (`o`). `type=none,o=bind,device=/srv` makes the volume a
/// bind mount of the host's `/srv`; `type=ext4,device=/dev/sdb1` mounts a disk.
#[derive(Debug, Default)]
pub(crate) struct VolumeOptions<'a> {
    /// `type`: the file system.
    kind: Option<&'a str>,
    /// `o`: the mount options, split at commas.
    options: Vec<&'a str>,
    /// `device`: the host path or device mounted.
    pub device: Option<&'a str>,
}

impl<'a> VolumeOptions<'a> {
    /// Reads `KEY=VALUE` options; the last of a key wins, as in the driver.
    pub(crate) fn read(options: impl IntoIterator<Item = &'a str>) -> Self {
        let mut read = Self::default();
        for option in options {
            let option = option.trim_matches(['"', '\'']);
            let Some((key, value)) = option.split_once('=') else {
                continue;
            };
            match key.trim().to_ascii_lowercase().as_str() {
                "type" => read.kind = Some(value),
                "o" => read.options = value.split(',').map(str::trim).collect(),
                "device" => read.device = Some(value),
                _ => {}
            }
        }
        read
    }

    /// The host path this volume is a bind mount of (`o=bind` or `rbind`, or `type=none`
    /// with a path for `device`): judged as a bind mount's source.
    pub(crate) fn host_bind(&self) -> Option<ContainerBind<'a>> {
        let device = self.device.filter(|device| is_host_path(device))?;
        let bind = self
            .options
            .iter()
            .any(|option| matches!(*option, "bind" | "rbind"))
            || self
                .kind
                .is_some_and(|kind| matches!(kind.to_ascii_lowercase().as_str(), "none" | "bind"));
        let read_only = self.options.contains(&"ro");
        bind.then_some(ContainerBind {
            source: device,
            target: None,
            read_only,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn owners_that_are_the_caller() {
        let home = Some("/home/ann");
        for owner in [
            "$USER",
            "${USER}:",
            "$(whoami)",
            "$(id -u):$(id -g)",
            "$(id -un):$(id -gn)",
            "ann",
            "ann:ann",
            "ann.ann",
            "$USER:$USER",
        ] {
            assert!(owner_is_caller(owner, home), "{owner}");
        }
        for owner in [
            "bob",
            "root",
            "$USER:www-data",
            "nobody:$USER",
            "ann:staff",
            "$X",
        ] {
            assert!(!owner_is_caller(owner, home), "{owner}");
        }
        assert!(!owner_is_caller("root", Some("/root")));
        assert!(!owner_is_caller("ann", None));
    }

    #[test]
    fn mode_and_owner_arguments() {
        let args = argv(&["-R", "go-w", "a", "b"]);
        let change = attributes("chmod", &args);
        assert_eq!(change.setting, Some("go-w"));
        assert_eq!(change.files, vec!["a", "b"]);
        assert!(change.recursive);
        let args = argv(&["-x,o+w", "-v", "f"]);
        let change = attributes("chmod", &args);
        assert_eq!(change.setting, Some("-x,o+w"));
        assert_eq!(change.files, vec!["f"]);
        let args = argv(&["--reference=r", "f"]);
        let change = attributes("chmod", &args);
        assert_eq!(change.setting, None);
        assert_eq!(change.files, vec!["f"]);
        let args = argv(&["-R", "u:g", "dir"]);
        let change = attributes("chown", &args);
        assert_eq!(change.setting, Some("u:g"));
        assert_eq!(change.files, vec!["dir"]);
        let args = argv(&["-R", "-v", "1", "-i", "+a", "dir", "f"]);
        let change = attributes("chattr", &args);
        assert_eq!(change.setting, Some("-i"));
        assert_eq!(change.files, vec!["dir", "f"]);
        assert!(change.recursive);
        let args = argv(&["=e", "f"]);
        assert_eq!(attributes("chattr", &args).files, vec!["f"]);
        let args = argv(&["-R", "uchg", "dir"]);
        let change = attributes("chflags", &args);
        assert_eq!(change.setting, Some("uchg"));
        assert_eq!(change.files, vec!["dir"]);
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
    fn abbreviated_long_options_take_their_value() {
        let args = argv(&["--upload-fi", "secret", "--outp", "out", "https://x"]);
        let parsed = curl(&args);
        assert_eq!(parsed.values(&['T'], &["upload-file"]), vec!["secret"]);
        assert_eq!(parsed.values(&['o'], &["output"]), vec!["out"]);
        assert_eq!(parsed.operands, vec!["https://x"]);
        // Whole names of options without a value stay themselves.
        let args = argv(&["--head", "https://x", "--netrc", "--interface", "eth0"]);
        let parsed = curl(&args);
        assert!(parsed.has(&['I'], &["head"]));
        assert_eq!(parsed.operands, vec!["https://x"]);
        let args = argv(&["--output-doc", "f", "-qO-", "https://x"]);
        let parsed = wget(&args);
        assert_eq!(parsed.values(&['O'], &["output-document"]), vec!["-", "f"]);
        assert_eq!(parsed.operands, vec!["https://x"]);
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
    fn container_run_options_end_at_the_image() {
        let args = argv(&[
            "--context",
            "prod",
            "container",
            "run",
            "-itv=/a:/b",
            "--pid",
            "host",
            "--privileged=false",
            "--new-option",
            "value",
            "-e",
            "X=1",
            "--rm",
            "alpine",
            "sh",
            "-v",
            "/:/x",
        ]);
        let parsed = container_run(&args).unwrap_or_default();
        assert_eq!(
            container_values(&parsed, Some('v'), "volume"),
            vec!["/a:/b"]
        );
        assert_eq!(container_values(&parsed, None, "pid"), vec!["host"]);
        assert_eq!(container_values(&parsed, None, "new-option"), vec!["value"]);
        assert!(!container_flag(&parsed, "privileged"));
        assert!(container_flag(&parsed, "rm"));
        assert_eq!(parsed.operands, vec!["alpine", "sh", "-v", "/:/x"]);
        assert!(container_run(&argv(&["build", "."])).is_none());
        assert!(container_run(&argv(&["exec", "-it", "web", "sh"])).is_none());
    }

    #[test]
    fn compose_run_options_end_at_the_service() {
        let args = argv(&[
            "compose",
            "-f",
            "dev.yml",
            "-p",
            "proj",
            "run",
            "--rm",
            "--no-deps",
            "-v=/a:/b",
            "--volume",
            "/c:/d",
            "app",
            "sh",
            "-v",
            "/:/x",
        ]);
        let parsed = compose_run("docker", &args).unwrap_or_default();
        assert_eq!(
            container_values(&parsed, Some('v'), "volume"),
            vec!["/a:/b", "/c:/d"]
        );
        assert_eq!(parsed.operands, vec!["app", "sh", "-v", "/:/x"]);
        let standalone = argv(&["--project-name", "p", "run", "--build", "app", "-v", "/:/x"]);
        let parsed = compose_run("docker-compose", &standalone).unwrap_or_default();
        assert!(container_values(&parsed, Some('v'), "volume").is_empty());
        assert_eq!(parsed.operands, vec!["app", "-v", "/:/x"]);
        assert!(compose_run("docker", &argv(&["compose", "up", "-d"])).is_none());
        assert!(compose_run("docker", &argv(&["run", "alpine"])).is_none());
        assert!(compose_run("kubectl", &argv(&["run", "x"])).is_none());
    }

    #[test]
    fn volume_create_options() {
        let args = argv(&[
            "-H",
            "tcp://h:2375",
            "volume",
            "create",
            "-d",
            "local",
            "--opt",
            "type=none",
            "-o=o=bind",
            "--opt=device=/",
            "-odevice=/srv",
            "name",
        ]);
        let parsed = volume_create(&args).unwrap_or_default();
        assert_eq!(
            container_values(&parsed, Some('o'), "opt"),
            vec!["o=bind", "device=/srv", "type=none", "device=/"]
        );
        assert_eq!(parsed.operands, vec!["name"]);
        assert!(volume_create(&argv(&["volume", "rm", "name"])).is_none());
        assert!(volume_create(&argv(&["run", "alpine"])).is_none());
    }

    #[test]
    fn kubectl_subcommands() {
        let args = argv(&[
            "-n",
            "kube-system",
            "--context=prod",
            "-v",
            "6",
            "debug",
            "node/n1",
        ]);
        let (sub, rest) = kubectl_subcommand(&args).unwrap_or_default();
        assert_eq!(sub, "debug");
        assert_eq!(rest, argv(&["node/n1"]));
        assert!(kubectl_subcommand(&argv(&["--namespace", "x"])).is_none());
    }

    #[test]
    fn leading_short_with_value() {
        let args = argv(&["-C", "/repo", "-c", "core.pager=x", "push", "-f"]);
        let (parsed, sub) = leading_options(&args, &['C', 'c'], &[]);
        assert_eq!(sub, Some(4));
        assert_eq!(parsed.values(&['c'], &[]), vec!["core.pager=x"]);
    }
}
