//! What a canonical path is, for the pack rules: inside the project, scratch space, a secret,
//! a persistence location. Paths arrive canonicalised (`paths::canonicalize`); globs and braces
//! that are still in them are matched against the places they could reach (`~/.ss?/id_*`,
//! `.en?`, `{.env,x}`), with bash's rule that `*` and `?` do not match a leading dot.
//!
//! This module must not read the file system or record hits; it only classifies strings.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::argv::Parsed;
use crate::paths::{self, PathContext};

/// System directories: recursive removal, ownership or mode changes there break the machine.
pub(crate) const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/snap",
    "/nix",
];

/// Scratch locations where removal and truncation are everyday clean-up.
pub(crate) const SCRATCH_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/var/folders",
    "/private/var/folders",
    "/dev/shm",
];

/// Scratch locations relative to a home directory (`AppData/Local/Temp` is Windows' `%TEMP%`).
const HOME_SCRATCH: &[&str] = &[".cache", "Library/Caches", "AppData/Local/Temp"];

/// Most alternatives a brace expansion is expanded into before matching.
const MAX_BRACE_EXPANSIONS: usize = 64;

/// The project root: the working directory, unless it is `/`, a top-level directory or the home
/// directory itself (then there is no project to be lenient about).
pub(crate) fn project_root<'a>(ctx: &PathContext<'a>) -> Option<&'a str> {
    let cwd = ctx.cwd.trim_end_matches('/');
    if cwd.is_empty() || cwd.bytes().filter(|byte| *byte == b'/').count() <= 1 {
        return None;
    }
    if ctx.home.is_some_and(|home| paths::is_within(home, cwd)) {
        return None;
    }
    if cwd.starts_with("/proc") {
        return None;
    }
    Some(cwd)
}

/// Whether a path is only known at run time (`$VAR`, `$(…)`, backticks, process substitution).
pub(crate) fn is_dynamic(path: &str) -> bool {
    path.contains('$') || path.contains('`') || path.contains("<(")
}

/// The path with each part only known at run time (`$USER`, `${DIR}`, `$(whoami)`, backticks)
/// as a `*`, so that it is classified by every place it could be (`/home/$USER/.ssh/id_rsa` is
/// an SSH key wherever `$USER` points). A leading `$HOME` / `${HOME}` stays for
/// [`paths::canonicalize`]; any other leading run-time part before a plain rest becomes `/**`.
/// `None` for a process substitution, which is no path at all.
pub(crate) fn resolvable(path: &str) -> Option<Cow<'_, str>> {
    // Most paths hold none of the bytes the tests below look for: one pass says so.
    if !path
        .bytes()
        .any(|byte| matches!(byte, b'$' | b'`' | b'<' | b'>'))
    {
        return Some(Cow::Borrowed(path));
    }
    if path.contains("<(") || path.contains(">(") {
        return None;
    }
    if !is_dynamic(path) {
        return Some(Cow::Borrowed(path));
    }
    if let Cow::Owned(located) = with_well_known_location(path) {
        return resolvable(&located).map(|path| Cow::Owned(path.into_owned()));
    }
    if let Some(relative) = from_working_dir(path) {
        return resolvable(&relative).map(|path| Cow::Owned(path.into_owned()));
    }
    let (kept, rest) = ["$HOME", "${HOME}"]
        .iter()
        .find_map(|home| {
            let rest = path.strip_prefix(home)?;
            (rest.is_empty() || rest.starts_with('/')).then(|| path.split_at(home.len()))
        })
        .unwrap_or(("", path));
    let bytes = rest.as_bytes();
    let mut out = String::with_capacity(path.len());
    out.push_str(kept);
    let mut at = 0;
    let mut literal_from = 0;
    while let Some(&byte) = bytes.get(at) {
        let end = match byte {
            b'$' => match bytes.get(at + 1) {
                Some(b'{') => closing(bytes, at + 2, b'{', b'}'),
                Some(b'(') => closing(bytes, at + 2, b'(', b')'),
                Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
                    let mut end = at + 1;
                    while bytes
                        .get(end)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    {
                        end += 1;
                    }
                    end
                }
                Some(_) => at + 2,
                None => at + 1,
            },
            b'`' => bytes
                .iter()
                .skip(at + 1)
                .position(|b| *b == b'`')
                .map_or(bytes.len(), |n| at + n + 2),
            _ => {
                at += 1;
                continue;
            }
        };
        out.push_str(rest.get(literal_from..at).unwrap_or(""));
        if !out.ends_with('*') {
            out.push('*');
        }
        at = end.min(bytes.len());
        literal_from = at;
    }
    out.push_str(rest.get(literal_from..).unwrap_or(""));
    // A run-time part in front (`$(echo ~)/.aws/credentials`, `${HOME:-/root}/…`, `$PWD/..`)
    // may be any directory, absolute or not: the literal rest is looked for anywhere. Only
    // when the rest is plain, or `$DIR/*` would stand for every file there is.
    if kept.is_empty()
        && let Some(tail) = out.strip_prefix("*/")
        && !tail.is_empty()
        && !has_glob(tail)
    {
        return Some(Cow::Owned(format!("/**/{tail}")));
    }
    Some(Cow::Owned(out))
}

/// Environment variables that name a file or directory of a known kind, each with its default
/// location. Wherever the variable points, it points at a file of that kind: `cat $KUBECONFIG` reads
/// a cluster's credentials, `echo … >> $ZDOTDIR/.zshrc` changes zsh's start-up, so the path is
/// judged as the default location is.
const WELL_KNOWN_VARIABLES: &[(&str, &str)] = &[
    ("HISTFILE", "$HOME/.bash_history"),
    ("PSQL_HISTORY", "$HOME/.psql_history"),
    ("MYSQL_HISTFILE", "$HOME/.mysql_history"),
    ("NODE_REPL_HISTORY", "$HOME/.node_repl_history"),
    ("PYTHON_HISTORY", "$HOME/.python_history"),
    ("KUBECONFIG", "$HOME/.kube/config"),
    ("AWS_SHARED_CREDENTIALS_FILE", "$HOME/.aws/credentials"),
    ("AWS_CONFIG_FILE", "$HOME/.aws/config"),
    (
        "GOOGLE_APPLICATION_CREDENTIALS",
        "$HOME/.config/gcloud/application_default_credentials.json",
    ),
    ("CLOUDSDK_CONFIG", "$HOME/.config/gcloud"),
    ("AZURE_CONFIG_DIR", "$HOME/.azure"),
    ("DOCKER_CONFIG", "$HOME/.docker"),
    ("GNUPGHOME", "$HOME/.gnupg"),
    ("NETRC", "$HOME/.netrc"),
    ("PGPASSFILE", "$HOME/.pgpass"),
    ("NPM_CONFIG_USERCONFIG", "$HOME/.npmrc"),
    ("CARGO_HOME", "$HOME/.cargo"),
    ("GH_CONFIG_DIR", "$HOME/.config/gh"),
    ("TF_CLI_CONFIG_FILE", "$HOME/.terraformrc"),
    ("GIT_CONFIG_GLOBAL", "$HOME/.gitconfig"),
    ("CLAUDE_CONFIG_DIR", "$HOME/.claude"),
    ("CODEX_HOME", "$HOME/.codex"),
    ("ZDOTDIR", "$HOME"),
    ("XDG_CONFIG_HOME", "$HOME/.config"),
    ("XDG_DATA_HOME", "$HOME/.local/share"),
    ("XDG_STATE_HOME", "$HOME/.local/state"),
    ("XDG_CACHE_HOME", "$HOME/.cache"),
    // The temporary directory: `rm -rf "$TMPDIR/cache"` is `rm -rf /tmp/cache` wherever it is.
    ("TMPDIR", "/tmp"),
];

/// The path with a leading well-known variable ([`WELL_KNOWN_VARIABLES`]) replaced by its default
/// location (`$KUBECONFIG` → `$HOME/.kube/config`); borrowed when it has none.
pub(crate) fn with_well_known_location(path: &str) -> Cow<'_, str> {
    match well_known_location(path) {
        Some((location, rest)) => Cow::Owned(format!("{location}{rest}")),
        None => Cow::Borrowed(path),
    }
}

/// A path that starts with the working directory (`$PWD`, `${PWD}`, `$(pwd)`, backticks),
/// followed by `/` or the end, written relative to it: `./x` for `$PWD/x`. `None` otherwise.
fn from_working_dir(path: &str) -> Option<String> {
    ["$PWD", "${PWD}", "$(pwd)", "`pwd`"]
        .iter()
        .find_map(|cwd| {
            let rest = path.strip_prefix(cwd)?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!(".{rest}"))
        })
}

/// Top-level directories that hold a system's or its users' files, beside [`SYSTEM_DIRS`]: what
/// `$CLAUDE_PROJECT_DIR/home` names where the variable is unset (see [`from_project_dir`]).
const HOSTS_USERS: &[&str] = &["/home", "/Users", "/mnt", "/media", "/Volumes", "/run"];

/// A path written below Claude Code's project directory (`$CLAUDE_PROJECT_DIR/build`,
/// `${CLAUDE_PROJECT_DIR}`, followed by `/` or the end) as the same path below the project,
/// the event's working directory ([`project_root`]). Claude Code sets the variable to the
/// directory it was started in; where an earlier `cd` moved the agent's shell since, the
/// project is still what toolgate takes it for. Where the variable is unset (a Claude Code bug,
/// another agent) the path is its rest from the root, so a rest that names the root, a system
/// directory or the users' homes (`$CLAUDE_PROJECT_DIR/home/ann`) stays unknown. `None` for
/// any other path.
pub(crate) fn from_project_dir(path: &str, ctx: &PathContext<'_>) -> Option<String> {
    let rest = ["$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"]
        .iter()
        .find_map(|dir| path.strip_prefix(dir))
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))?;
    let unset = paths::canonicalize(
        rest,
        &PathContext {
            cwd: "/",
            home: None,
        },
    );
    let system = unset == "/"
        || SYSTEM_DIRS
            .iter()
            .chain(HOSTS_USERS)
            .any(|dir| paths::is_within(&unset, dir));
    let root = project_root(ctx)?;
    (!system && !is_dynamic(rest)).then(|| format!("{root}{rest}"))
}

/// The canonical form of a path known before it runs: literal, under the home directory
/// (`$HOME/x`, `$XDG_CACHE_HOME/x`, resolved against `ctx`) or the working one (`$PWD/x`, as
/// `./x`). `None` when another part is only known at run time (`$DIR/x`, a substitution).
pub(crate) fn known_canonical(path: &str, ctx: &PathContext<'_>) -> Option<String> {
    let relative = from_working_dir(path);
    let path = relative.as_deref().unwrap_or(path);
    // Relative to a directory only known at run time (`cd "$D" && rm -rf build`).
    if ctx.cwd.starts_with("/**") && !path.starts_with(['/', '~', '$']) {
        return None;
    }
    let path = paths::canonicalize(&with_well_known_location(path), ctx);
    (!is_dynamic(&path)).then_some(path)
}

/// A path that starts with one of [`WELL_KNOWN_VARIABLES`] (`$NAME`, `${NAME}`, or with a default
/// value, `${NAME:-…}`), followed by `/` or the end: the variable's default location, and the rest.
fn well_known_location(path: &str) -> Option<(&'static str, &str)> {
    let after = path.strip_prefix('$')?;
    let (name, rest) = match after.strip_prefix('{') {
        Some(inner) => {
            let end = closing(inner.as_bytes(), 0, b'{', b'}');
            let braced = inner.get(..end.checked_sub(1)?)?;
            let name_end = braced
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(braced.len());
            let (name, operator) = braced.split_at(name_end);
            let plain =
                operator.is_empty() || operator.starts_with(":-") || operator.starts_with('-');
            (plain.then_some(name)?, inner.get(end..)?)
        }
        None => {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            after.split_at(end)
        }
    };
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    WELL_KNOWN_VARIABLES
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, location)| (*location, rest))
}

/// The index after the bracket closing the one opened just before `at`.
pub(crate) fn closing(bytes: &[u8], mut at: usize, open: u8, close: u8) -> usize {
    let mut depth = 1usize;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        if byte == open {
            depth += 1;
        } else if byte == close {
            depth -= 1;
            if depth == 0 {
                return at;
            }
        }
    }
    bytes.len()
}

/// Whether the path has glob or brace characters.
pub(crate) fn has_glob(path: &str) -> bool {
    path.contains(['*', '?', '[', '{'])
}

/// Whether the canonical path lies in scratch space (temp directories, caches).
pub(crate) fn is_scratch(path: &str, ctx: &PathContext<'_>) -> bool {
    let literal = paths::literal_prefix(path);
    let globbed = literal != path;
    let path = literal;
    // A glob inside a scratch directory (`/tmp/*`) removes only its contents.
    let strictly_under = |dir: &str| (path != dir || globbed) && paths::is_within(path, dir);
    if SCRATCH_DIRS.iter().any(|dir| strictly_under(dir)) {
        return true;
    }
    let Some(rel) = ctx
        .home
        .and_then(|home| path.strip_prefix(home.trim_end_matches('/')))
        .and_then(|rest| rest.strip_prefix('/'))
    else {
        return false;
    };
    HOME_SCRATCH.iter().any(|dir| paths::is_within(rel, dir))
}

/// Whether the canonical path (its literal part, for globs) lies inside the project.
pub(crate) fn is_in_project(path: &str, ctx: &PathContext<'_>) -> bool {
    project_root(ctx).is_some_and(|root| paths::is_within(paths::literal_prefix(path), root))
}

/// Whether the canonical path (its literal part, for globs) lies in the home the event says
/// or in the project: the caller's own files.
pub(crate) fn is_callers(path: &str, ctx: &PathContext<'_>) -> bool {
    let literal = paths::literal_prefix(path);
    ctx.home.is_some_and(|home| paths::is_within(literal, home)) || is_in_project(path, ctx)
}

/// What a program that removes whole trees with no flag to say so removes: every operand of
/// `rimraf`, del-cli's `del`, the trash commands (`trash`, `trash-put`, `rmtrash`), and of `gio
/// trash` / `gio remove`. `None` for any other command. (`rm` says so with `-r`; its callers
/// judge it themselves.)
pub(crate) fn tree_removal<'a>(name: &str, args: &'a [String]) -> Option<Vec<&'a str>> {
    let args = match name {
        "rimraf" | "del" | "del-cli" | "trash" | "trash-put" | "rmtrash" => args,
        "gio" => match args.split_first() {
            Some((sub, rest)) if matches!(sub.as_str(), "trash" | "remove" | "rm") => rest,
            _ => return None,
        },
        _ => return None,
    };
    Some(Parsed::new(args, &[], &[]).operands)
}

/// The last segment of a path.
pub(crate) fn basename(path: &str) -> &str {
    // Byte by byte, as `shell::basename`: cheaper than `str::rsplit` on short names.
    let path = path.trim_end_matches('/');
    match path.bytes().rposition(|byte| byte == b'/') {
        Some(slash) => path.get(slash + 1..).unwrap_or(path),
        None => path,
    }
}

/// A class of secret file, with the rule that protects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Secret {
    /// The baseline rule id.
    pub rule: &'static str,
    /// What the file is, for the reason.
    pub what: &'static str,
}

const SSH_KEY: Secret = Secret {
    rule: "read-ssh-private-key",
    what: "an SSH private key",
};
const CREDENTIALS: Secret = Secret {
    rule: "read-credential-file",
    what: "a credential file",
};
const HISTORY: Secret = Secret {
    rule: "read-credential-file",
    what: "a shell or REPL history, where typed passwords and exported tokens stay",
};
const DOTENV: Secret = Secret {
    rule: "read-dotenv-file",
    what: "a dotenv file",
};
const ENVIRON: Secret = Secret {
    rule: "read-process-environment",
    what: "a process environment",
};
const SYSTEM: Secret = Secret {
    rule: "read-system-secret",
    what: "a system secret store (password database, host key or keychain)",
};
const MACHINE_KEY: Secret = Secret {
    rule: "read-system-secret",
    what: "the machine's own keys (a TLS private key, a Kerberos keytab, a VPN or Wi-Fi secret)",
};
const TERRAFORM_STATE: Secret = Secret {
    rule: "read-credential-file",
    what: "a Terraform state file, which keeps every resource's secrets in plain text",
};
const SERVICE_ACCOUNT_KEY: Secret = Secret {
    rule: "read-credential-file",
    what: "a service account's key file",
};

/// Credential files relative to a home directory (exact files, or `dir/` for a whole tree; a `*`
/// stands for part of a name, as in a glob).
static HOME_CREDENTIALS: Places = Places::new(&[
    ".aws/credentials",
    ".aws/sso/cache/",
    ".aws/cli/cache/",
    ".config/gcloud/",
    // Every kubeconfig kept there (`config`, `config-prod`, `clusters/x.yaml`); not its caches,
    // see `HOME_NOT_CREDENTIALS`.
    ".kube/",
    ".minikube/profiles/*/client.key",
    ".minikube/*.key",
    ".oci/",
    ".docker/config.json",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh/hosts.yml",
    ".vault-token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".claude/.credentials.json",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".config/rclone/rclone.conf",
    ".gem/credentials",
    ".m2/settings.xml",
    ".config/hub",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".azure/",
    ".gnupg/private-keys-v1.d/",
    ".gnupg/secring.gpg",
    ".password-store/",
    // AI agents' and code hosts' logins.
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot/hosts.json",
    ".config/github-copilot/apps.json",
    ".config/glab-cli/config.yml",
    ".circleci/cli.yml",
    // Clouds', hosting platforms' and services' CLIs.
    ".config/doctl/config.yaml",
    ".fly/config.yml",
    ".config/netlify/config.json",
    ".local/share/com.vercel.cli/auth.json",
    "Library/Application Support/com.vercel.cli/auth.json",
    ".supabase/access-token",
    ".wrangler/config/default.toml",
    ".config/.wrangler/config/default.toml",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".databrickscfg",
    ".terraformrc",
    ".pulumi/credentials.json",
    ".config/ngrok/ngrok.yml",
    "Library/Application Support/ngrok/ngrok.yml",
    ".ngrok2/ngrok.yml",
    ".config/stripe/config.toml",
    ".sentryclirc",
    ".config/configstore/firebase-tools.json",
    ".snowflake/connections.toml",
    ".snowflake/config.toml",
    // Secret managers' keys and sessions.
    ".config/sops/age/keys.txt",
    "Library/Application Support/sops/age/keys.txt",
    ".config/op/config",
    ".op/config",
    ".ansible/vault_pass*",
    ".vault_pass*",
    // Package registries' tokens kept in the build tools' user configuration.
    ".gradle/gradle.properties",
    ".bundle/config",
    ".nuget/NuGet/NuGet.Config",
    ".config/NuGet/NuGet.Config",
]);

/// What lies under a [`HOME_CREDENTIALS`] tree and holds no secret: kubectl's discovery caches.
static HOME_NOT_CREDENTIALS: Places = Places::new(&[".kube/cache/", ".kube/http-cache/"]);

/// Shell and REPL histories relative to a home directory: `mysql -pSECRET`, `export
/// GITHUB_TOKEN=…` and a password typed at the wrong prompt stay there.
static HOME_HISTORIES: Places = Places::new(&[
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".history",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".local/share/atuin/history.db",
    ".python_history",
    ".node_repl_history",
    ".irb_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".dbshell",
    ".mongosh/mongosh_repl_history",
    ".config/zsh/.zsh_history",
    ".zsh_sessions/",
    ".ipython/profile_default/history.sqlite",
]);

/// Browser profile roots relative to a home directory (Firefox, and Chromium's family).
const BROWSER_PROFILES: &[&str] = &[
    ".mozilla/firefox/",
    "Library/Application Support/Firefox/Profiles/",
    ".config/google-chrome/",
    ".config/chromium/",
    ".config/BraveSoftware/",
    ".config/microsoft-edge/",
    "Library/Application Support/Google/Chrome/",
    "Library/Application Support/Chromium/",
    "Library/Application Support/BraveSoftware/",
    "Library/Application Support/Microsoft Edge/",
    "Library/Cookies/",
];

/// The files in a browser profile that hold the user's sessions and saved passwords.
const BROWSER_SECRETS: &[&str] = &[
    "cookies.sqlite",
    "logins.json",
    "key4.db",
    "key3.db",
    "Cookies",
    "Login Data",
    "Login Data For Account",
    "Local State",
    "Cookies.binarycookies",
];

/// Whether the home-relative `rel` is a browser's cookie jar or password store (any profile).
fn is_browser_secret(rel: &str) -> bool {
    // The file's name first: one comparison per name, where the profiles are each a walk.
    BROWSER_SECRETS.contains(&basename(rel))
        && BROWSER_PROFILES
            .iter()
            .any(|root| strictly_under_ignoring_case(rel, root.trim_end_matches('/')))
}

/// Keychains relative to a home directory.
static HOME_KEYCHAINS: Places = Places::new(&["Library/Keychains/", ".local/share/keyrings/"]);

/// Absolute system secrets (exact files, or `dir/` for a whole tree).
static SYSTEM_SECRETS: Places = Places::new(&[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/master.passwd",
    "/etc/security/opasswd",
    "/Library/Keychains/",
    "/private/etc/master.passwd",
]);

/// The machine's own keys: TLS private keys (the certificates beside them are public), Kerberos
/// keytabs, WireGuard's and NetworkManager's connection secrets (exact files, `dir/`, or a `*`
/// for part of a name).
static SYSTEM_KEYS: Places = Places::new(&[
    "/etc/ssl/private/",
    "/etc/pki/tls/private/",
    "/etc/letsencrypt/live/*/privkey.pem",
    "/etc/letsencrypt/archive/*/privkey*.pem",
    "/etc/letsencrypt/keys/",
    "/etc/letsencrypt/accounts/",
    "/etc/krb5.keytab",
    "/etc/wireguard/",
    "/etc/NetworkManager/system-connections/",
]);

/// Absolute credential stores: the secrets a container runtime mounts (Kubernetes service
/// account tokens, Docker's and Compose's secrets).
/// Kerberos's ticket caches (`/tmp/krb5cc_UID`) are a user's login to every kerberised service.
static SYSTEM_CREDENTIALS: Places =
    Places::new(&["/var/run/secrets/", "/run/secrets/", "/tmp/krb5cc_*"]);

/// Concrete paths probed when a glob or a recursive read might reach a secret (home-relative
/// ones are prefixed with each home-like root).
const HOME_PROBES: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".ssh/id_ecdsa",
    ".ssh/id_dsa",
    ".aws/credentials",
    ".config/gcloud/credentials.db",
    ".config/gcloud/application_default_credentials.json",
    ".kube/config",
    ".docker/config.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".azure/accessTokens.json",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".gemini/oauth_creds.json",
    ".config/gh/hosts.yml",
    ".gnupg/private-keys-v1.d/key.key",
    ".oci/config",
    ".config/sops/age/keys.txt",
    "Library/Keychains/login.keychain-db",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".local/share/fish/fish_history",
];
const SYSTEM_PROBES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/ssh/ssh_host_ed25519_key",
    "/proc/self/environ",
    "/proc/1/environ",
    "/var/run/secrets/kubernetes.io/serviceaccount/token",
];
const DOTENV_PROBES: &[&str] = &[".env", ".env.local", ".env.production"];

/// The home-relative part of a path under the user's home or any home-like root
/// (`/root`, `/home/<user>`, `/Users/<user>`).
fn home_relative<'p>(path: &'p str, ctx: &PathContext<'_>) -> Option<&'p str> {
    if let Some(home) = ctx.home.map(|home| home.trim_end_matches('/'))
        && !home.is_empty()
        && let Some(rest) = path
            .strip_prefix(home)
            .and_then(|rest| rest.strip_prefix('/'))
    {
        return Some(rest);
    }
    // The home is unknown (no transcript path): `~/…` stays symbolic.
    if let Some(rest) = path.strip_prefix("~/") {
        return Some(rest);
    }
    if let Some(rest) = path.strip_prefix("/root/") {
        return Some(rest);
    }
    for base in ["/home/", "/Users/", "/var/root/"] {
        if let Some(rest) = path.strip_prefix(base) {
            return if base == "/var/root/" {
                Some(rest)
            } else {
                rest.split_once('/').map(|(_, rel)| rel)
            };
        }
    }
    None
}

/// Whether `dir` is a home-like root itself (`/root`, `/var/root`, `/home/<user>`,
/// `/Users/<user>`), as [`home_relative`] reads the paths below one.
fn is_home_like(dir: &str) -> bool {
    matches!(dir, "/root" | "/var/root")
        || ["/home/", "/Users/"].iter().any(|base| {
            dir.strip_prefix(base)
                .is_some_and(|user| !user.is_empty() && !user.contains('/'))
        })
}

/// A list of places [`listed`] looks paths up in: file entries (`.aws/credentials`), directory
/// entries ending in `/` (`.kube/`), either with `*` segments or globs (`/tmp/krb5cc_*`).
///
/// The lists are long (eighty credential files) and every path an evaluation classifies is
/// looked up in a dozen of them, so each is indexed on first use: the entries' common prefix
/// (`/etc/` in a list of files under `/etc`) is skipped, and they are sorted by the byte that
/// follows it. A path is then compared only with the entries whose byte there is its own.
pub(crate) struct Places {
    entries: &'static [&'static str],
    index: OnceLock<PlacesIndex>,
}

/// See [`Places`].
struct PlacesIndex {
    /// The length of the entries' common prefix (ASCII case aside), `*`s excluded.
    at: usize,
    /// The entries with a byte at `at` and no `*` up to it, by that byte (ASCII-lowercased).
    keyed: Vec<(u8, &'static str)>,
    /// The other entries (a `*` at or before `at`, or no byte there): tried for every path.
    always: Vec<&'static str>,
}

impl Places {
    const fn new(entries: &'static [&'static str]) -> Self {
        Self {
            entries,
            index: OnceLock::new(),
        }
    }

    /// The entries `rel` may be listed under: every other entry differs from `rel` before its
    /// first `*`, at the byte the index is keyed on. An entry with no `*` before that byte
    /// needs `rel` to hold the same byte there, whether it is a file (the whole entry is
    /// compared), a directory (`rel` goes on past it) or a glob (compared up to its `*`).
    fn candidates<'a>(&'a self, rel: &str) -> impl Iterator<Item = &'static str> + 'a {
        let index = self.index.get_or_init(|| PlacesIndex::new(self.entries));
        let keyed = match rel.as_bytes().get(index.at) {
            Some(byte) => {
                let byte = byte.to_ascii_lowercase();
                let from = index.keyed.partition_point(|(key, _)| *key < byte);
                let to = index.keyed.partition_point(|(key, _)| *key <= byte);
                index.keyed.get(from..to).unwrap_or_default()
            }
            None => &[],
        };
        index
            .always
            .iter()
            .copied()
            .chain(keyed.iter().map(|(_, entry)| *entry))
    }

    /// The entries that may lie below the directory `dir` (see [`secret_listed_below`]): one
    /// inside it goes on from `dir`, so where `dir` reaches past the keyed byte with no `*`
    /// up to it, they are [`Self::candidates`]; for a shorter `dir` (`/`, `/etc`) every entry.
    fn below<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'static str> + 'a {
        let at = self.index.get_or_init(|| PlacesIndex::new(self.entries)).at;
        let keyed = dir
            .as_bytes()
            .get(..=at)
            .is_some_and(|head| !head.contains(&b'*'));
        let (some, all) = if keyed {
            (Some(self.candidates(dir)), None)
        } else {
            (None, Some(self.entries.iter().copied()))
        };
        some.into_iter().flatten().chain(all.into_iter().flatten())
    }
}

impl PlacesIndex {
    fn new(entries: &'static [&'static str]) -> Self {
        let stars = |entry: &str| entry.find('*').unwrap_or(entry.len());
        let at = entries
            .iter()
            .map(|entry| stars(entry))
            .min()
            .map_or(0, |shortest| {
                (0..shortest)
                    .take_while(|&i| {
                        let byte =
                            |entry: &str| entry.as_bytes().get(i).map(u8::to_ascii_lowercase);
                        let first = entries.first().and_then(|entry| byte(entry));
                        entries.iter().all(|entry| byte(entry) == first)
                    })
                    .count()
            });
        let mut keyed = Vec::with_capacity(entries.len());
        let mut always = Vec::new();
        for entry in entries {
            match entry.as_bytes().get(at) {
                Some(byte) if stars(entry) > at => keyed.push((byte.to_ascii_lowercase(), *entry)),
                _ => always.push(*entry),
            }
        }
        keyed.sort_unstable_by_key(|(byte, _)| *byte);
        Self { at, keyed, always }
    }
}

/// Whether `rel` is an entry of `list` (a file, or anything under a `dir/` entry), ignoring ASCII
/// case: macOS and Windows file systems do (`~/.SSH/id_rsa` is `~/.ssh/id_rsa` there), and on
/// the others such a spelling is no one's real file. A file entry with a `*` is a glob, segment
/// by segment (`.minikube/profiles/*/client.key`, `/tmp/krb5cc_*`).
fn listed(rel: &str, list: &Places) -> bool {
    list.candidates(rel).any(|entry| listed_as(rel, entry))
}

/// Whether `rel` is listed in `list` or is one of its listed directories itself (`.kube/cache`
/// for `.kube/cache/`).
fn listed_or_listed_dir(rel: &str, list: &Places) -> bool {
    list.candidates(rel).any(|entry| {
        listed_as(rel, entry)
            || entry
                .strip_suffix('/')
                .is_some_and(|dir| same_dir_ignoring_case(rel.trim_end_matches('/'), dir))
    })
}

/// Whether `rel` is the one entry `entry`, as [`listed`] compares them.
fn listed_as(rel: &str, entry: &str) -> bool {
    match entry.strip_suffix('/') {
        Some(dir) => strictly_under_ignoring_case(rel, dir),
        None => match start(rel, entry) {
            Start::Whole => rel.len() == entry.len(),
            Start::Wildcard => glob_ignoring_case(rel, entry),
            Start::Differs => false,
        },
    }
}

/// How `rel` begins against a listed entry, ASCII case aside (see [`start`]).
enum Start {
    /// The whole entry is a prefix of `rel`.
    Whole,
    /// They agree up to a `*` of the entry: only a segment-by-segment match can tell.
    Wildcard,
    /// They differ before any `*`: no match.
    Differs,
}

/// Compares `rel` with `entry` from the start, once: most entries differ in their first bytes,
/// and only those with a `*` where they stop agreeing need the segment-by-segment match (the
/// lists are walked for every path an evaluation classifies).
fn start(rel: &str, entry: &str) -> Start {
    let (rel, entry) = (rel.as_bytes(), entry.as_bytes());
    let common = rel
        .iter()
        .zip(entry)
        .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
        .count();
    if common == entry.len() {
        Start::Whole
    } else if entry.get(common) == Some(&b'*')
        || entry.get(..common).is_some_and(|e| e.contains(&b'*'))
    {
        Start::Wildcard
    } else {
        Start::Differs
    }
}

/// Whether `rel` matches the glob `entry` segment by segment, ASCII case aside (see [`listed`]).
fn glob_ignoring_case(rel: &str, entry: &str) -> bool {
    let mut segments = rel.split('/');
    entry.split('/').all(|pattern| {
        segments.next().is_some_and(|segment| {
            segment_match(
                segment.to_ascii_lowercase().as_bytes(),
                pattern.to_ascii_lowercase().as_bytes(),
            )
        })
    }) && segments.next().is_none()
}

/// `rel` lies under `dir` (not `dir` itself), comparing ASCII case-insensitively. A `*` segment
/// of `dir` stands for any one segment (`.nvm/versions/node/*/bin`).
fn strictly_under_ignoring_case(rel: &str, dir: &str) -> bool {
    match start(rel, dir) {
        Start::Whole => rel.len() > dir.len() + 1 && rel.as_bytes().get(dir.len()) == Some(&b'/'),
        Start::Wildcard => {
            let mut segments = rel.split('/');
            dir.split('/')
                .all(|pattern| segments.next().is_some_and(|s| segment_matches(s, pattern)))
                && segments.next().is_some_and(|s| !s.is_empty())
        }
        Start::Differs => false,
    }
}

/// `rel` is `dir` itself, comparing as [`strictly_under_ignoring_case`] does.
fn same_dir_ignoring_case(rel: &str, dir: &str) -> bool {
    match start(rel, dir) {
        Start::Whole => rel.len() == dir.len(),
        Start::Wildcard => {
            let mut segments = rel.split('/');
            dir.split('/')
                .all(|pattern| segments.next().is_some_and(|s| segment_matches(s, pattern)))
                && segments.next().is_none()
        }
        Start::Differs => false,
    }
}

/// One path segment against one segment of a listed directory (`*`: any, not empty).
fn segment_matches(segment: &str, pattern: &str) -> bool {
    if pattern == "*" {
        !segment.is_empty()
    } else {
        segment.eq_ignore_ascii_case(pattern)
    }
}

/// Whether a file name is a dotenv file holding real values (`.env`, `.env.local`, `prod.env`,
/// an editor's backup `.env~`, wrangler's `.dev.vars` and `.dev.vars.staging`), not a template
/// (`.env.example`, `.env.sample`, `.env.template`).
pub(crate) fn is_dotenv_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let lower = lower.trim_end_matches('~');
    let dotenv = lower == ".env"
        || lower.starts_with(".env.")
        || (lower.ends_with(".env") && lower.len() > 4)
        || lower == ".dev.vars"
        || lower.starts_with(".dev.vars.");
    dotenv
        && ![
            "example", "sample", "template", "dist", "defaults", "schema",
        ]
        .iter()
        .any(|word| lower.contains(word))
}

/// The secret class of a file found by its name wherever it lies, in a project most often:
/// Terraform's state (`terraform.tfstate`, its `.backup`, any `*.tfstate`) and a cloud service
/// account's key (`service-account.json`, `service_account_key.json`). Variable files
/// (`*.tfvars`) stay readable: they are the everyday input of every plan, and sensitive values
/// usually come from the environment or a secret manager instead.
fn project_secret(name: &str) -> Option<Secret> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".tfstate") || lower.ends_with(".tfstate.backup") {
        return Some(TERRAFORM_STATE);
    }
    let service_account =
        lower.starts_with("service-account") || lower.starts_with("service_account");
    (service_account && lower.ends_with(".json")).then_some(SERVICE_ACCOUNT_KEY)
}

/// The secret class of a concrete (glob-free) canonical path.
fn secret_of_concrete(path: &str, ctx: &PathContext<'_>) -> Option<Secret> {
    if let Some(rest) = path.strip_prefix("/proc/") {
        let mut parts = rest.splitn(3, '/');
        let _pid = parts.next();
        match (parts.next(), parts.next()) {
            (Some("environ"), None) => return Some(ENVIRON),
            (Some("root"), Some(inner)) => return secret_of_concrete(&format!("/{inner}"), ctx),
            (Some("root"), None) => return None,
            (Some("cwd"), Some(inner)) => {
                return secret_of_concrete(&format!("{}/{inner}", ctx.cwd), ctx);
            }
            (Some("task"), Some(inner)) if inner.ends_with("/environ") => return Some(ENVIRON),
            _ => {}
        }
    }
    if is_dotenv_name(basename(path)) {
        return Some(DOTENV);
    }
    if let Some(secret) = project_secret(basename(path)) {
        return Some(secret);
    }
    if listed(path, &SYSTEM_SECRETS) {
        return Some(SYSTEM);
    }
    if listed(path, &SYSTEM_KEYS) {
        return Some(MACHINE_KEY);
    }
    if listed(path, &SYSTEM_CREDENTIALS) {
        return Some(CREDENTIALS);
    }
    if let Some(name) = path.strip_prefix("/etc/ssh/")
        && name.starts_with("ssh_host_")
        && name.ends_with("_key")
    {
        return Some(SYSTEM);
    }
    let rel = home_relative(path, ctx)?;
    if strictly_under_ignoring_case(rel, ".ssh") {
        let name = rel.get(5..).unwrap_or_default();
        let base = basename(name).to_ascii_lowercase();
        let public = base.ends_with(".pub")
            || base.starts_with("known_hosts")
            || base.starts_with("authorized_keys")
            || base == "config"
            || base == "environment"
            || base == "rc";
        return (!public && !name.is_empty()).then_some(SSH_KEY);
    }
    if listed(rel, &HOME_CREDENTIALS) && !listed_or_listed_dir(rel, &HOME_NOT_CREDENTIALS) {
        return Some(CREDENTIALS);
    }
    if listed(rel, &HOME_HISTORIES) {
        return Some(HISTORY);
    }
    if listed(rel, &HOME_KEYCHAINS) {
        return Some(SYSTEM);
    }
    if is_browser_secret(rel) {
        return Some(CREDENTIALS);
    }
    None
}

/// Home-like roots whose probes are tried for globs and recursive reads.
fn probe_roots<'c>(ctx: &PathContext<'c>) -> Vec<&'c str> {
    // With the home unknown, `~/…` stays as it is written (see `paths::canonicalize`).
    let mut roots = vec![ctx.home.unwrap_or("~")];
    for root in ["/root", "/home/user"] {
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    roots
}

/// Calls `visit` with every concrete secret location probed, in order (each home-like root's
/// [`HOME_PROBES`], then [`SYSTEM_PROBES`]), until it answers `Some`. A root `keep_root`
/// refuses is skipped without building its paths; the others' are built in one buffer, not a
/// string each.
fn find_probe<T>(
    ctx: &PathContext<'_>,
    keep_root: impl Fn(&str) -> bool,
    mut visit: impl FnMut(&str) -> Option<T>,
) -> Option<T> {
    let mut probe = String::new();
    for root in probe_roots(ctx).into_iter().filter(|root| keep_root(root)) {
        for rel in HOME_PROBES {
            probe.clear();
            probe.push_str(root);
            probe.push('/');
            probe.push_str(rel);
            if let Some(found) = visit(&probe) {
                return Some(found);
            }
        }
    }
    SYSTEM_PROBES.iter().find_map(|path| visit(path))
}

/// Every concrete secret location probed, with its class.
fn probes(ctx: &PathContext<'_>) -> Vec<(String, Secret)> {
    let mut found = Vec::new();
    find_probe(
        ctx,
        |_| true,
        |path| {
            if let Some(secret) = secret_of_concrete(path, ctx) {
                found.push((path.to_owned(), secret));
            }
            None::<()>
        },
    );
    found
}

/// The secret class of a canonical path that is read as one file (globs expanded against the
/// secret locations it could reach).
pub(crate) fn secret_file(path: &str, ctx: &PathContext<'_>) -> Option<Secret> {
    if !has_glob(path) {
        return secret_of_concrete(path, ctx);
    }
    // Every file below a directory (`~/.gnupg/**`, what `find ~/.gnupg` lists): what a
    // recursive read of the directory reaches.
    if let Some(dir) = path.strip_suffix("/**").filter(|dir| !has_glob(dir)) {
        return secret_tree(dir, ctx);
    }
    for alternative in expand_braces(path) {
        if !alternative.contains(['*', '?', '[']) {
            if let Some(secret) = secret_of_concrete(&alternative, ctx) {
                return Some(secret);
            }
            continue;
        }
        // Wildcards before the last segment (`/Users/*/.aws/credentials`): what the file is
        // does not depend on them.
        if !basename(&alternative).contains(['*', '?', '['])
            && let Some(secret) = secret_of_concrete(&alternative, ctx)
        {
            return Some(secret);
        }
        let last = basename(&alternative);
        if DOTENV_PROBES
            .iter()
            .any(|probe| segment_match(probe.as_bytes(), last.as_bytes()))
            || last.to_ascii_lowercase().ends_with(".env")
        {
            return Some(DOTENV);
        }
        if let Some((_, secret)) = probes(ctx)
            .into_iter()
            .find(|(probe, _)| glob_match(&alternative, probe))
        {
            return Some(secret);
        }
    }
    None
}

/// The secret class of what a recursive read of the canonical directory `dir` reaches: the
/// directory is a secret location or an ancestor of one (`~`, `~/.ssh`, `/etc`, `/`).
pub(crate) fn secret_tree(dir: &str, ctx: &PathContext<'_>) -> Option<Secret> {
    if let Some(secret) = secret_file(dir, ctx) {
        return Some(secret);
    }
    // A directory somewhere (`/**/src`, from `"$ROOT"/src`): a secret under one of that name.
    if dir.starts_with("/**/") {
        let pattern = format!("{}/**", dir.trim_end_matches('/'));
        return probes(ctx)
            .into_iter()
            .find(|(probe, _)| glob_match(&pattern, probe))
            .map(|(_, secret)| secret);
    }
    let dir = paths::literal_prefix(dir);
    if has_glob(dir) {
        return None;
    }
    // The first of `probes(ctx)` under `dir`, found without classifying them all: the cheap
    // test goes first, and a root's probes are skipped when neither the root nor `dir` contains
    // the other (then nothing under the root is under `dir`).
    find_probe(
        ctx,
        |root| paths::is_within(root, dir) || paths::is_within(dir, root),
        |probe| {
            (probe != dir && paths::is_within(probe, dir))
                .then(|| secret_of_concrete(probe, ctx))
                .flatten()
        },
    )
    .or_else(|| secret_listed_below(dir, ctx))
}

/// The secret class of a listed secret location inside the canonical directory `dir`, beyond
/// the probed few: `~/.gnupg` holds `private-keys-v1.d/`, `~/.claude` its `.credentials.json`,
/// `/etc/letsencrypt` the machine's keys. A listed tree (`dir/`, `dir/*/…`) is inside its own
/// directory too; files listed by a part of their name (`/tmp/krb5cc_*`) only make the
/// directories above theirs hold a secret, not a shared one they lie in (`grep -r x /tmp`).
fn secret_listed_below(dir: &str, ctx: &PathContext<'_>) -> Option<Secret> {
    let dir = dir.trim_end_matches('/');
    let holds = |rel: &str, list: &Places| list.below(rel).any(|entry| lies_below(entry, rel));
    for (list, secret) in [
        (&SYSTEM_SECRETS, SYSTEM),
        (&SYSTEM_KEYS, MACHINE_KEY),
        (&SYSTEM_CREDENTIALS, CREDENTIALS),
    ] {
        if holds(dir, list) {
            return Some(secret);
        }
    }
    // Inside a home, or the home itself (`/home/bob`): any home holds what the probed ones do.
    let rel = match home_relative(dir, ctx) {
        Some(rel) => rel,
        None if is_home_like(dir) => "",
        None => return None,
    };
    // The probed secrets of every home, not only of the probed roots: `/home/bob/.ssh` holds
    // bob's keys as `~/.ssh` holds the user's.
    if let Some(probe) = HOME_PROBES
        .iter()
        .find(|probe| rel.is_empty() || strictly_under_ignoring_case(probe, rel))
    {
        let below = probe
            .get(rel.len()..)
            .unwrap_or_default()
            .trim_start_matches('/');
        return secret_of_concrete(&format!("{dir}/{below}"), ctx);
    }
    for (list, secret) in [
        (&HOME_CREDENTIALS, CREDENTIALS),
        (&HOME_HISTORIES, HISTORY),
        (&HOME_KEYCHAINS, SYSTEM),
    ] {
        if holds(rel, list) {
            return Some(secret);
        }
    }
    BROWSER_PROFILES
        .iter()
        .any(|entry| lies_below(entry, rel))
        .then_some(CREDENTIALS)
}

/// Whether the listed `entry` lies inside the directory `dir` (ASCII case aside): a listed tree
/// (`dir/`, `dir/*/…`) is inside its own directory too, and a file listed by a part of its name
/// (`/tmp/krb5cc_*`) only inside the directories above the one it lies in.
fn lies_below(entry: &str, dir: &str) -> bool {
    let (literal, tree) = match entry.find('*') {
        None => (entry, entry.ends_with('/')),
        Some(star) => {
            let head = entry.get(..star).unwrap_or(entry);
            let whole_names = head.is_empty() || head.ends_with('/');
            (
                head.get(..head.rfind('/').unwrap_or(0)).unwrap_or(""),
                whole_names,
            )
        }
    };
    let literal = literal.trim_end_matches('/');
    strictly_under_ignoring_case(literal, dir) || (tree && same_dir_ignoring_case(literal, dir))
}

/// The secret class of what the canonical directory `dir` holds when it is a store of secrets
/// inside the home (`~/.ssh`, `~/.aws`, `~/.gnupg`): [`secret_tree`] of a directory below the
/// home, outside the project and holding no project. Not the home itself or anything above it,
/// whose trees hold everything (`code ~`): a program given one of those is not judged by what
/// lies deep below.
pub(crate) fn secret_store(dir: &str, ctx: &PathContext<'_>) -> Option<Secret> {
    let home = ctx.home?;
    let project = project_root(ctx).unwrap_or(ctx.cwd);
    let below_home =
        paths::is_within(dir, home) && dir.trim_end_matches('/') != home.trim_end_matches('/');
    if !below_home || paths::is_within(dir, project) || paths::is_within(project, dir) {
        return None;
    }
    secret_tree(dir, ctx)
}

/// A persistence or self-tampering location, with the rule that protects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Persistence {
    /// The baseline rule id.
    pub rule: &'static str,
    /// What the location is, for the reason.
    pub what: &'static str,
    /// Whether an empty file or directory, or a mode no other account may write by, puts
    /// nothing there (`touch ~/.bashrc`, `mkdir -p ~/.ssh`, `chmod 600 ~/.ssh/config`). False
    /// for the agent's own settings and hooks, where any change is self-tampering, and for the
    /// files saying who may act as whom.
    pub empty_plants_nothing: bool,
    /// Whether an execute bit arms a file there: a git hook, cron's `run-parts` directories and
    /// init scripts run only executable files (`chmod +x .git/hooks/pre-commit`).
    pub armed_by_execute: bool,
}

const SHELL_INIT: Persistence = Persistence {
    rule: "write-shell-init",
    what: "a shell start-up file",
    empty_plants_nothing: true,
    armed_by_execute: false,
};
const SSH_ACCESS: Persistence = Persistence {
    rule: "write-ssh-authorized-keys",
    what: "SSH access configuration (`authorized_keys`, `rc`, `config`, `sshd_config`)",
    empty_plants_nothing: true,
    armed_by_execute: false,
};
const SCHEDULED: Persistence = Persistence {
    rule: "write-scheduled-task",
    what: "a scheduled task, service unit or event hook (cron, systemd, launchd, autostart, udev, \
           motd, logrotate)",
    empty_plants_nothing: true,
    armed_by_execute: true,
};
const PRIVILEGE: Persistence = Persistence {
    rule: "write-privilege-config",
    what: "who may log in or act as whom on this machine (sudoers, accounts, PAM, preloaded libraries)",
    empty_plants_nothing: false,
    armed_by_execute: false,
};
const GIT_HOOKS: Persistence = Persistence {
    rule: "write-git-hooks",
    what: "a git hook",
    empty_plants_nothing: true,
    armed_by_execute: true,
};
const AGENT_SETTINGS: Persistence = Persistence {
    rule: "write-agent-settings",
    what: "the agent's own settings or hooks",
    empty_plants_nothing: false,
    armed_by_execute: false,
};
/// An agent's settings directory itself: removed or moved away (`rm -rf .claude`, `mv .codex
/// /tmp`, `find .claude -delete`), its settings and hooks go with it; replaced by what is moved,
/// copied, linked or mounted in its place (`mv evil .claude`, `cp -r evil .claude` where there
/// is none yet, `ln -sfn /tmp/x .claude`, `mount --bind /tmp/x .claude`), they are that
/// source's; handed to another owner, or opened to other accounts' writes (`chmod 777
/// .claude`), they may be changed by them. Only those change them: what is written, copied or
/// linked into it lands inside (`echo x > .claude/notes.md`, `cp a.md b.md .claude/`, `ln -s
/// ../x .claude/`), and `mkdir .claude` sets nothing.
pub(crate) const AGENT_DIR: Persistence = Persistence {
    empty_plants_nothing: true,
    ..AGENT_SETTINGS
};
pub(crate) const PATH_EXECUTABLE: Persistence = Persistence {
    rule: "write-path-executable",
    what: "a program on the shell's `PATH`, which runs whenever a command names it",
    empty_plants_nothing: true,
    armed_by_execute: false,
};
const GIT_PROGRAM: Persistence = Persistence {
    rule: "write-path-executable",
    what: "one of git's own programs, which runs whenever a git command names it",
    empty_plants_nothing: true,
    armed_by_execute: false,
};
const AUTO_RUN: Persistence = Persistence {
    rule: "write-auto-run-config",
    what: "a file that runs code automatically or says where installs come from (direnv, CI \
           workflow, editor task, MCP server list, package sources)",
    empty_plants_nothing: true,
    armed_by_execute: false,
};
/// The git hooks a repository keeps in its tree, which a hook manager runs on the next commit
/// or push: husky's `.husky/`, lefthook's configuration and `.lefthook/` scripts, pre-commit's
/// `.pre-commit-config.yaml`. Unlike `.git/hooks`, they are tracked and shown in a diff: asked
/// about, as a CI workflow is.
const REPOSITORY_HOOKS: Persistence = Persistence {
    what: "a git hook the repository keeps (husky, lefthook, pre-commit), which runs on the \
           next commit",
    ..AUTO_RUN
};

static SYSTEM_SHELL_INIT: Places = Places::new(&[
    "/etc/profile",
    "/etc/profile.d/",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zshrc",
    "/etc/zshenv",
    "/etc/zprofile",
    "/etc/zsh/",
    "/etc/environment",
    "/etc/inputrc",
    "/etc/bash_completion",
    "/etc/bash_completion.d/",
    "/usr/share/bash-completion/completions/",
    "/etc/fish/",
    "/usr/share/fish/vendor_conf.d/",
    "/usr/share/fish/vendor_functions.d/",
    "/usr/share/fish/vendor_completions.d/",
    // PowerShell's own directory (`$PSHOME`): its `profile.ps1` runs in every session and its
    // `powershell.config.json` holds the machine's execution policy.
    "/c/Program Files/PowerShell/",
    "/c/Windows/System32/WindowsPowerShell/v1.0/",
]);
/// The files that decide who may log in or act as whom (exact files, or `dir/`).
static SYSTEM_PRIVILEGE: Places = Places::new(&[
    "/etc/sudoers",
    "/etc/sudoers.d/",
    "/etc/doas.conf",
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/gshadow",
    "/etc/pam.d/",
    "/etc/security/",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d/",
    "/etc/polkit-1/",
    "/usr/share/polkit-1/rules.d/",
    "/etc/sudo.conf",
    "/private/etc/sudoers",
    "/private/etc/sudoers.d/",
    "/private/etc/pam.d/",
]);
/// The kernel's knobs that name a program it runs as root: on a crash (`core_pattern` with a
/// `|`), to load a module, on a device event; and the interpreters it runs for every file of a
/// given kind (binfmt_misc's `register`, and `/etc/binfmt.d/`, which registers them at boot).
static KERNEL_HELPERS: Places = Places::new(&[
    "/proc/sys/kernel/core_pattern",
    "/proc/sys/kernel/modprobe",
    "/sys/kernel/uevent_helper",
    "/proc/sys/fs/binfmt_misc/",
    "/etc/binfmt.d/",
    "/usr/lib/binfmt.d/",
]);
/// The SSH server's configuration, and the script it runs at every login (`/etc/ssh/sshrc`).
static SYSTEM_SSH_ACCESS: Places = Places::new(&[
    "/etc/ssh/sshd_config",
    "/etc/ssh/sshd_config.d/",
    "/etc/ssh/sshrc",
]);
/// The directories of the programs git runs for its subcommands (`git foo` runs `git-foo`).
static GIT_PROGRAM_DIRS: Places = Places::new(&["/usr/lib/git-core/", "/usr/libexec/git-core/"]);
/// Shell start-up files and the folders they source, relative to a home directory, beside
/// the names in `SHELL_INIT_FILES` (which count anywhere outside the project): fish's, nushell's,
/// elvish's, xonsh's and PowerShell's; `~/.bashrc.d/`, `~/.zshrc.d/` and oh-my-zsh, which
/// common start-up files source; the login and X session scripts.
static HOME_SHELL_INIT: Places = Places::new(&[
    ".config/fish/config.fish",
    ".config/fish/conf.d/",
    ".config/fish/functions/",
    ".config/fish/completions/",
    ".config/environment.d/",
    ".oh-my-zsh/",
    ".bashrc.d/",
    ".zshrc.d/",
    ".bash_completion",
    ".local/share/bash-completion/completions/",
    ".login",
    ".mkshrc",
    ".xonshrc",
    ".config/xonsh/",
    ".config/nushell/config.nu",
    ".config/nushell/env.nu",
    ".config/nushell/autoload/",
    "Library/Application Support/nushell/config.nu",
    "Library/Application Support/nushell/env.nu",
    ".config/elvish/rc.elv",
    ".elvish/rc.elv",
    ".config/powershell/",
    "Documents/PowerShell/",
    "Documents/WindowsPowerShell/",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".xsessionrc",
    ".pam_environment",
]);
static SYSTEM_SCHEDULED: Places = Places::new(&[
    "/etc/crontab",
    "/etc/anacrontab",
    "/etc/cron.d/",
    "/etc/cron.hourly/",
    "/etc/cron.daily/",
    "/etc/cron.weekly/",
    "/etc/cron.monthly/",
    "/var/spool/cron/",
    "/var/at/tabs/",
    "/usr/lib/cron/tabs/",
    "/etc/systemd/",
    "/lib/systemd/system/",
    "/usr/lib/systemd/",
    "/etc/init.d/",
    "/etc/rc.local",
    "/Library/LaunchAgents/",
    "/Library/LaunchDaemons/",
    "/etc/xdg/autostart/",
    // Hooks run as root on an event: a login (motd), a device (udev), a module loading
    // (modprobe's `install`), a network change, a log rotation; upstart's jobs.
    "/etc/update-motd.d/",
    "/etc/udev/rules.d/",
    "/lib/udev/rules.d/",
    "/usr/lib/udev/rules.d/",
    "/etc/modprobe.d/",
    "/etc/NetworkManager/dispatcher.d/",
    "/etc/logrotate.conf",
    "/etc/logrotate.d/",
    "/etc/init/",
]);
/// The system's files that decide what runs as root later: the package managers' sources (where
/// every later install comes from, and the keys trusted to sign it), APT's hooks
/// (`DPkg::Pre-Invoke`), and the system-wide configuration of git, pip and npm.
static SYSTEM_AUTO_RUN: Places = Places::new(&[
    "/etc/apt/sources.list",
    "/etc/apt/sources.list.d/",
    "/etc/apt/apt.conf",
    "/etc/apt/apt.conf.d/",
    "/etc/apt/trusted.gpg",
    "/etc/apt/trusted.gpg.d/",
    "/etc/yum.repos.d/",
    "/etc/dnf/",
    "/etc/zypp/repos.d/",
    "/etc/pacman.conf",
    "/etc/pacman.d/",
    "/etc/apk/repositories",
    "/etc/gitconfig",
    "/etc/pip.conf",
    "/etc/npmrc",
    "/etc/vim/",
    "/etc/vimrc",
]);
/// Files under a home directory that run code automatically: git's global configuration
/// (`core.pager`, `core.sshCommand`, aliases), editors' and REPLs' start-up files and plugin
/// folders (vim's, neovim's, Emacs', VS Code's user settings, tasks and extensions), debuggers'
/// and database shells' (`~/.gdbinit`, `~/.psqlrc`), direnv's library, sbt's global plugins,
/// cargo's (`build.rustc-wrapper`, a target's `runner`) and kubectl's (a user's `exec`
/// credential plugin); and the package managers' user configuration, which says where every
/// later install comes from (pip's `index-url`, npm's and yarn's registry, yarn's `yarnPath`,
/// Gradle's init scripts, Maven's mirrors).
static HOME_AUTO_RUN: Places = Places::new(&[
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    "Library/Application Support/pip/pip.conf",
    ".config/uv/uv.toml",
    ".yarnrc",
    ".yarnrc.yml",
    ".bunfig.toml",
    ".condarc",
    ".gemrc",
    ".m2/settings.xml",
    ".gradle/init.gradle",
    ".gradle/init.gradle.kts",
    ".gradle/init.d/",
    ".gitconfig",
    ".config/git/config",
    ".vimrc",
    ".exrc",
    ".vim/",
    ".config/nvim/",
    ".local/share/nvim/site/",
    ".local/share/nvim/lazy/",
    ".emacs",
    ".emacs.d/",
    ".config/emacs/",
    ".doom.d/",
    ".config/doom/",
    ".spacemacs",
    ".spacemacs.d/",
    ".config/Code/User/settings.json",
    ".config/Code/User/tasks.json",
    "Library/Application Support/Code/User/settings.json",
    "Library/Application Support/Code/User/tasks.json",
    // Installed extensions, whose code VS Code and its forks load at every start.
    ".vscode/extensions/",
    ".vscode-insiders/extensions/",
    ".vscode-oss/extensions/",
    ".vscode-server/extensions/",
    ".cursor/extensions/",
    ".windsurf/extensions/",
    ".direnvrc",
    ".config/direnv/",
    ".sbt/",
    ".Rprofile",
    ".julia/config/startup.jl",
    ".gdbinit",
    ".config/gdb/gdbinit",
    ".lldbinit",
    ".psqlrc",
    ".sqliterc",
    ".ghci",
    ".ghc/ghci.conf",
    ".octaverc",
    ".screenrc",
    ".tmux.conf",
    ".config/tmux/tmux.conf",
    ".ipython/profile_default/startup/",
    ".pythonrc",
    ".pythonrc.py",
    ".irbrc",
    ".pryrc",
    ".npmrc",
    ".cargo/config.toml",
    ".cargo/config",
    ".kube/config",
]);
/// The directories on a usual `PATH`: a file there runs whenever a command names it, ahead of
/// the system's own program of that name when the directory comes first.
static SYSTEM_PATH_DIRS: Places = Places::new(&[
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/bin/",
    "/sbin/",
    "/opt/homebrew/bin/",
    "/opt/homebrew/sbin/",
]);
/// See [`SYSTEM_PATH_DIRS`]: the per-user ones, which installers put first, and the version
/// managers' shims and installed versions' `bin` directories (`*` is one segment: a version).
static HOME_PATH_DIRS: Places = Places::new(&[
    ".local/bin/",
    "bin/",
    ".cargo/bin/",
    "go/bin/",
    ".bun/bin/",
    ".deno/bin/",
    ".npm-global/bin/",
    ".volta/bin/",
    ".pyenv/shims/",
    ".pyenv/bin/",
    ".pyenv/versions/*/bin/",
    ".rbenv/shims/",
    ".rbenv/bin/",
    ".rbenv/versions/*/bin/",
    ".nodenv/shims/",
    ".goenv/shims/",
    ".jenv/shims/",
    ".asdf/shims/",
    ".local/share/mise/shims/",
    ".local/share/rtx/shims/",
    ".nvm/versions/node/*/bin/",
    ".local/share/fnm/aliases/*/bin/",
    ".sdkman/candidates/*/current/bin/",
    ".local/share/pnpm/",
    "Library/pnpm/",
    ".yarn/bin/",
    ".dotnet/tools/",
    ".krew/bin/",
    ".nix-profile/bin/",
    ".pixi/bin/",
    ".ghcup/bin/",
    ".elan/bin/",
    ".juliaup/bin/",
    ".foundry/bin/",
    ".opam/*/bin/",
]);
static HOME_SCHEDULED: Places = Places::new(&[
    ".config/systemd/user/",
    ".local/share/systemd/user/",
    ".config/autostart/",
    "Library/LaunchAgents/",
    // Windows' per-user Startup folder (`shell:startup`).
    "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/",
]);

/// The system's lists of persistence places (see [`holds_persistence`]).
const SYSTEM_PERSISTENCE: [&Places; 8] = [
    &SYSTEM_SHELL_INIT,
    &SYSTEM_SCHEDULED,
    &SYSTEM_PRIVILEGE,
    &KERNEL_HELPERS,
    &SYSTEM_SSH_ACCESS,
    &SYSTEM_PATH_DIRS,
    &GIT_PROGRAM_DIRS,
    &SYSTEM_AUTO_RUN,
];

/// The home's lists of persistence places, relative to it (see [`holds_persistence`]).
const HOME_PERSISTENCE: [&Places; 4] = [
    &HOME_SHELL_INIT,
    &HOME_SCHEDULED,
    &HOME_AUTO_RUN,
    &HOME_PATH_DIRS,
];

/// Whether a canonical directory holds persistence places below it: the home (its shell
/// start-up files), `~/.config`, `~/.local`, `/etc`, `/usr/local`, `/` — a command that fills it
/// with names it does not choose (an archive unpacked there) may overwrite any of them. The
/// listed places count by their literal part (`~/.nvm/versions/node/*/bin/` by
/// `~/.nvm/versions/node`); the project and what lies in it hold none.
pub(crate) fn holds_persistence(dir: &str, ctx: &PathContext<'_>) -> bool {
    let dir = dir.trim_end_matches('/');
    if is_in_project(dir, ctx) {
        return false;
    }
    let literal = |place: &str| -> String {
        let end = place.find('*').unwrap_or(place.len());
        place
            .get(..end)
            .unwrap_or(place)
            .trim_end_matches('/')
            .to_owned()
    };
    let below = |place: &str| strictly_under_ignoring_case(&literal(place), dir);
    if SYSTEM_PERSISTENCE
        .iter()
        .any(|list| list.entries.iter().any(|place| below(place)))
    {
        return true;
    }
    let home = ctx.home.unwrap_or("~").trim_end_matches('/');
    // The home holds the shell start-up files (`SHELL_INIT_FILES`) and `.ssh` itself.
    if same_dir_ignoring_case(home, dir) || strictly_under_ignoring_case(home, dir) {
        return true;
    }
    HOME_PERSISTENCE.iter().any(|list| {
        list.entries
            .iter()
            .any(|rel| below(&format!("{home}/{rel}")))
    })
}

/// Whether a canonical path is one of the directories on a usual `PATH` (a write of the
/// directory itself, `cp -r dist/. ~/.local/bin`, fills it).
pub(crate) fn is_path_dir(path: &str, ctx: &PathContext<'_>) -> bool {
    let path = path.trim_end_matches('/');
    let is = |rel: &str, list: &Places| {
        list.entries
            .iter()
            .any(|dir| same_dir_ignoring_case(rel, dir.trim_end_matches('/')))
    };
    is(path, &SYSTEM_PATH_DIRS)
        || home_relative(path, ctx).is_some_and(|rel| is(rel, &HOME_PATH_DIRS))
}

/// The persistence class of a write to the canonical path (globs: their literal part).
pub(crate) fn persistence(path: &str, ctx: &PathContext<'_>) -> Option<Persistence> {
    let path = path.trim_end_matches('/');
    let base = basename(path);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // Self-tampering: where an agent reads its hooks and settings; MCP servers it starts.
    if may_name_agent_dir(path, ctx) {
        return Some(AGENT_DIR);
    }
    for (at, segment) in segments.iter().enumerate() {
        let rest = segments.get(at + 1..).unwrap_or(&[]);
        if let Some(found) = agent_config(segment, rest) {
            return Some(found);
        }
        if segment.eq_ignore_ascii_case(".git")
            && segments
                .get(at + 1)
                .is_some_and(|next| next.eq_ignore_ascii_case("hooks"))
        {
            return Some(GIT_HOOKS);
        }
        if matches!(*segment, ".husky" | ".lefthook") && !rest.is_empty() {
            return Some(REPOSITORY_HOOKS);
        }
    }
    if matches!(
        base,
        "lefthook.yml"
            | "lefthook.yaml"
            | ".lefthook.yml"
            | ".lefthook.yaml"
            | "lefthook-local.yml"
            | "lefthook-local.yaml"
            | ".lefthook-local.yml"
            | ".lefthook-local.yaml"
            | ".pre-commit-config.yaml"
    ) {
        return Some(REPOSITORY_HOOKS);
    }
    if base == "managed-settings.json" || base == "managed-mcp.json" || base == ".claude.json" {
        return Some(AGENT_SETTINGS);
    }
    if base == ".mcp.json" {
        return Some(AUTO_RUN);
    }
    let in_project = is_in_project(path, ctx);
    if crate::evaluate::SHELL_INIT_FILES
        .iter()
        .any(|file| base.eq_ignore_ascii_case(file))
        && !in_project
    {
        return Some(SHELL_INIT);
    }
    if listed(path, &SYSTEM_SHELL_INIT) {
        return Some(SHELL_INIT);
    }
    if listed(path, &SYSTEM_SCHEDULED) {
        return Some(SCHEDULED);
    }
    if listed(path, &SYSTEM_PRIVILEGE) || listed(path, &KERNEL_HELPERS) {
        return Some(PRIVILEGE);
    }
    if listed(path, &SYSTEM_SSH_ACCESS) {
        return Some(SSH_ACCESS);
    }
    if listed(path, &SYSTEM_PATH_DIRS) {
        return Some(PATH_EXECUTABLE);
    }
    if listed(path, &GIT_PROGRAM_DIRS) {
        return Some(GIT_PROGRAM);
    }
    if listed(path, &SYSTEM_AUTO_RUN) {
        return Some(AUTO_RUN);
    }
    if let Some(rel) = home_relative(path, ctx) {
        if listed(rel, &HOME_SHELL_INIT) {
            return Some(SHELL_INIT);
        }
        if listed(rel, &HOME_SCHEDULED) {
            return Some(SCHEDULED);
        }
        if listed(rel, &HOME_AUTO_RUN) {
            return Some(AUTO_RUN);
        }
        if listed(rel, &HOME_PATH_DIRS) {
            return Some(PATH_EXECUTABLE);
        }
        if rel == ".ssh" {
            return Some(SSH_ACCESS);
        }
        if let Some(name) = rel.strip_prefix(".ssh/")
            && (name.starts_with("authorized_keys")
                || name == "rc"
                || name == "config"
                || name == "environment")
        {
            return Some(SSH_ACCESS);
        }
    }
    // direnv; Python's start-up hooks (a `.pth` file's `import` lines run at every start).
    let python_hook = matches!(base, "sitecustomize.py" | "usercustomize.py")
        || (base.ends_with(".pth")
            && segments
                .iter()
                .any(|s| matches!(*s, "site-packages" | "dist-packages")));
    if base == ".envrc" || python_hook {
        return Some(AUTO_RUN);
    }
    for (at, segment) in segments.iter().enumerate() {
        let next = segments.get(at + 1);
        if *segment == ".github"
            && next.is_some_and(|n| *n == "workflows")
            && segments.len() > at + 2
        {
            return Some(AUTO_RUN);
        }
        if *segment == ".vscode" && next.is_some_and(|n| *n == "tasks.json") {
            return Some(AUTO_RUN);
        }
    }
    None
}

/// An agent's own configuration below the directory `dir` (a path segment), `rest` being the
/// segments after it: the files every supported agent reads its hooks from (a write there can
/// remove toolgate's hook) and the MCP server lists it starts commands from. Claude Code's
/// `.claude/settings*.json` and `.claude/hooks/`; Codex's `.codex/hooks.json` and
/// `config.toml`; Gemini CLI's `.gemini/settings.json`; Cursor's `.cursor/hooks.json` and
/// `/etc/cursor/hooks.json`, and the allowlists and permissions of Cursor and its CLI
/// (`.cursor/permissions.json`, `.cursor/cli.json`, `~/.cursor/cli-config.json`); Copilot's `.github/hooks/`, `.github/copilot/settings*.json` and
/// `~/.copilot/`; Windsurf's `.windsurf/hooks.json` and `~/.codeium/windsurf/hooks.json`;
/// Cline's `.clinerules/hooks/` and `Documents/Cline/Hooks/`.
/// The folders of an agent's directory that hold prompts, not settings or hooks: Claude
/// Code's slash commands, subagents, skills and output styles, Codex's prompts.
const PROMPT_FOLDERS: &[&str] = &["commands", "agents", "skills", "output-styles", "prompts"];

/// Whether a copy's source is named as one of [`PROMPT_FOLDERS`] (`templates/commands`,
/// `../other/.claude/agents/`).
pub(crate) fn is_prompt_folder(source: &str) -> bool {
    PROMPT_FOLDERS.contains(&basename(source.trim_end_matches('/')))
}

/// The directories the agents read their settings and hooks from.
const AGENT_DIRS: &[&str] = &[".claude", ".codex", ".gemini", ".copilot", ".clinerules"];

/// Whether `path` is a pattern that may name an agent's settings directory in the project or
/// the home (`rm -rf .cla*`, find's `-path './.claude*'` and `-path '*.claude*'`, which reaches
/// any depth below): its last segment, whose leading dot is written (a shell's `*` does not
/// match one), matches one. Below other directories a `.*` would name every hidden one; there
/// the name alone counts.
fn may_name_agent_dir(path: &str, ctx: &PathContext<'_>) -> bool {
    let Some((parent, name)) = path.rsplit_once('/') else {
        return false;
    };
    let parent = parent.strip_suffix("/**").unwrap_or(parent);
    let home = ctx.home.unwrap_or("~").trim_end_matches('/');
    name.starts_with('.')
        && name.contains(['*', '?', '['])
        && (project_root(ctx) == Some(parent) || parent == home)
        && AGENT_DIRS
            .iter()
            .any(|dir| find_name_match(dir, name, true))
}

fn agent_config(dir: &str, rest: &[&str]) -> Option<Persistence> {
    let is = |name: &str| dir.eq_ignore_ascii_case(name);
    // `*`: any name, as a directory filled whole is written (`tar -x -C ~/.claude`).
    let settings =
        |file: &str| file == "*" || (file.starts_with("settings") && file.ends_with(".json"));
    let hooks = |name: &str| name.eq_ignore_ascii_case("hooks");
    match rest {
        [] if AGENT_DIRS.iter().any(|name| is(name)) => Some(AGENT_DIR),
        [file] if is(".claude") && settings(file) => Some(AGENT_SETTINGS),
        [first, ..] if (is(".claude") || is(".clinerules") || is(".copilot")) && hooks(first) => {
            Some(AGENT_SETTINGS)
        }
        [first, ..] if is(".github") && hooks(first) => Some(AGENT_SETTINGS),
        [first, ..] if is("Cline") && hooks(first) => Some(AGENT_SETTINGS),
        [copilot, file] if is(".github") && *copilot == "copilot" && settings(file) => {
            Some(AGENT_SETTINGS)
        }
        [file] if is(".copilot") && settings(file) => Some(AGENT_SETTINGS),
        [file] if is(".codex") && matches!(*file, "*" | "hooks.json" | "config.toml") => {
            Some(AGENT_SETTINGS)
        }
        [file] if is(".gemini") && matches!(*file, "*" | "settings.json") => Some(AGENT_SETTINGS),
        [file]
            if (is(".cursor") || is("cursor") || is(".windsurf") || is("windsurf"))
                && matches!(*file, "*" | "hooks.json") =>
        {
            Some(AGENT_SETTINGS)
        }
        // Cursor's allowlists of what runs without approval (`permissions.json`, in the home
        // and the workspace) and its CLI's permissions (`cli-config.json` in the home or
        // `$XDG_CONFIG_HOME/cursor/`, the project's `cli.json`).
        [file]
            if (is(".cursor") || is("cursor"))
                && matches!(*file, "permissions.json" | "cli.json" | "cli-config.json") =>
        {
            Some(AGENT_SETTINGS)
        }
        [file] if (is(".cursor") || is(".vscode")) && *file == "mcp.json" => Some(AUTO_RUN),
        _ => None,
    }
}

/// Expands `{a,b}` alternatives (nested, bounded); the text itself when it has none.
pub(crate) fn expand_braces(text: &str) -> Vec<String> {
    let mut done = Vec::new();
    let mut work = vec![text.to_owned()];
    while let Some(item) = work.pop() {
        if done.len() + work.len() >= MAX_BRACE_EXPANSIONS {
            // Past the limit, each brace group left stands for anything it could give.
            done.push(braces_as_wildcards(&item));
            continue;
        }
        match brace_span(&item) {
            None => done.push(item),
            Some((open, close, commas)) => {
                let head = item.get(..open).unwrap_or("");
                let tail = item.get(close + 1..).unwrap_or("");
                let mut start = open + 1;
                for cut in commas.into_iter().chain(std::iter::once(close)) {
                    let part = item.get(start..cut).unwrap_or("");
                    work.push(format!("{head}{part}{tail}"));
                    start = cut + 1;
                }
            }
        }
    }
    done
}

/// `text` with every outermost `{…}` group as a `*` (`~/.a{w,x}s/c{,}` → `~/.a*s/c*`).
fn braces_as_wildcards(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    out.push('*');
                }
                depth += 1;
            }
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The first top-level `{…,…}` group: its braces and the top-level commas inside.
fn brace_span(text: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(open) = bytes
        .get(start..)?
        .iter()
        .position(|b| *b == b'{')
        .map(|at| at + start)
    {
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (at, byte) in bytes.iter().enumerate().skip(open) {
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if !commas.is_empty() {
                            return Some((open, at, commas));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(at),
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

/// Whether the glob `pattern` matches the path `path`, segment by segment (`**` spans segments).
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match_segments(&pattern, &path)
}

fn match_segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => {
            (0..=path.len()).any(|skip| match_segments(rest, path.get(skip..).unwrap_or(&[])))
        }
        Some((first, rest)) => match path.split_first() {
            Some((segment, path_rest)) => {
                segment_match(segment.as_bytes(), first.as_bytes())
                    && match_segments(rest, path_rest)
            }
            None => false,
        },
    }
}

/// Whether one path segment matches one glob segment (`*`, `?`, `[…]`); a leading dot must be
/// matched literally, as in bash without `dotglob`.
pub(crate) fn segment_match(text: &[u8], pattern: &[u8]) -> bool {
    if text.first() == Some(&b'.') && pattern.first() != Some(&b'.') {
        return false;
    }
    wildcard(text, pattern)
}

/// Whether a file name matches `find -name PATTERN` (`-iname` with `fold_case`): fnmatch without
/// `FNM_PERIOD`, so `*` matches `.` and `.git` too.
pub(crate) fn find_name_match(name: &str, pattern: &str, fold_case: bool) -> bool {
    if fold_case {
        wildcard(
            name.to_ascii_lowercase().as_bytes(),
            pattern.to_ascii_lowercase().as_bytes(),
        )
    } else {
        wildcard(name.as_bytes(), pattern.as_bytes())
    }
}

/// Whether a `find -name` pattern narrows the names it matches down: it has a literal character
/// outside `*`, `?` and `[…]` (`__pycache__`, `*.pyc`; not `*` or `?*`, which match any name).
pub(crate) fn find_pattern_narrows(pattern: &str) -> bool {
    let mut in_class = false;
    pattern.chars().any(|c| match c {
        '[' => {
            in_class = true;
            false
        }
        ']' => {
            in_class = false;
            false
        }
        '*' | '?' => false,
        _ => !in_class,
    })
}

/// The shell globs (where `*`, `?` and `[…]` do not match a leading dot) that together match
/// the names `find -name PATTERN` matches (`-iname` with `fold_case`): the pattern, and for the
/// names with a leading dot, the pattern with that dot taken out of the wildcard that matches it
/// (`*.json`: `.*.json` and `.json`; `?env`: `.env`). Case is folded by classes (`*.[pP][eE][mM]`).
pub(crate) fn find_name_globs(pattern: &str, fold_case: bool) -> Vec<String> {
    let pattern = match fold_case {
        true => fold_case_classes(pattern),
        false => pattern.to_owned(),
    };
    let rest = pattern.trim_start_matches('*');
    let starred = rest.len() < pattern.len();
    let mut globs = vec![pattern.clone()];
    // A leading `*` matching the dot and more, or nothing before a literal dot (`*.json`).
    if starred {
        globs.push(format!(".*{rest}"));
    }
    let dot_first = match rest.as_bytes().first() {
        Some(b'.') if starred => Some(rest.to_owned()),
        // The first wildcard after the stars matching the dot.
        Some(b'?') => rest.get(1..).map(|after| format!(".{after}")),
        Some(b'[') => match class_match(rest.as_bytes(), Some(b'.')) {
            Some((true, len)) => rest.get(len..).map(|after| format!(".{after}")),
            _ => None,
        },
        _ => None,
    };
    globs.extend(dot_first);
    globs
}

/// The shell globs (see [`find_name_globs`]) that together match the paths `find ROOT -path
/// PATTERN` matches (`-ipath` with `fold_case`; `-wholename` is the same test). find matches
/// the pattern against the whole path as it prints it, `ROOT/…`, with a `*` that matches `/`
/// and a leading dot: a pattern that starts with ROOT is read below it, one that starts with `*`
/// below ROOT at any depth (`*/.claude/*`: `ROOT/**/.claude/…`), an absolute one as it is (ROOT
/// may be another spelling of it); one that can match no path under ROOT gives none. Inside,
/// a segment of stars is any depth (`**`); the last segment gives `-name`'s globs, and where it
/// ends in a `*`, all below each of them too (`./.claude*`: `./.claude*` and `./.claude*/**`).
pub(crate) fn find_path_globs(root: &str, pattern: &str, fold_case: bool) -> Vec<String> {
    let base = root.trim_end_matches('/');
    let after_root = pattern.get(..base.len()).and_then(|head| {
        let same = head == base || (fold_case && head.eq_ignore_ascii_case(base));
        same.then(|| pattern.get(base.len()..)).flatten()
    });
    let below = match after_root {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_owned(),
        _ if pattern.starts_with('*') => {
            let rest = pattern.trim_start_matches('*');
            match rest.starts_with('/') {
                true => format!("/**{rest}"),
                false => format!("/**/*{rest}"),
            }
        }
        _ if pattern.starts_with('/') => return find_path_globs("/", pattern, fold_case),
        _ => return Vec::new(),
    };
    let Some((dirs, last)) = below.rsplit_once('/') else {
        return vec![root.to_owned()];
    };
    let stars = |segment: &str| !segment.is_empty() && segment.bytes().all(|b| b == b'*');
    // Case ignored, the pattern is read with each letter a class of both cases, and in lower
    // case as it is (`-ipath './.CLAUDE'` matches `./.claude`, which a place names).
    let spellings: &[Spelling] = match fold_case {
        true => &[Spelling::Folded, Spelling::Lower],
        false => &[Spelling::AsIs],
    };
    let mut globs = Vec::new();
    for spelling in spellings {
        let spelled = |segment: &str| match spelling {
            _ if stars(segment) => "**".to_owned(),
            Spelling::AsIs => segment.to_owned(),
            Spelling::Folded => fold_case_classes(segment),
            Spelling::Lower => segment.to_ascii_lowercase(),
        };
        let dirs: Vec<String> = dirs.split('/').map(spelled).collect();
        let prefix = format!("{base}{}", dirs.join("/"));
        let last = match stars(last) {
            true => "*".to_owned(),
            false if *spelling == Spelling::Lower => last.to_ascii_lowercase(),
            false => last.to_owned(),
        };
        let named = find_name_globs(&last, *spelling == Spelling::Folded);
        globs.extend(named.iter().map(|glob| format!("{prefix}/{glob}")));
        // Each spelling, the leading-dot ones too (`*.ssh*` reaches `.ssh/id_rsa`).
        if last.ends_with('*') {
            globs.extend(named.iter().map(|glob| format!("{prefix}/{glob}/**")));
        }
    }
    globs
}

/// Most `-path` patterns a `find -regex` is read as, and most nested groups read.
const MAX_REGEX_PATTERNS: usize = 16;
const MAX_REGEX_NESTING: usize = 8;

/// `-path` patterns (see [`find_path_globs`]) that together match at least every path `find
/// -regex REGEX` matches, which is the whole path as find prints it: `.` is `?`, a bracket
/// class a class, an escaped character itself, anchors nothing, and an atom or group with a
/// quantifier (`*`, `+`, `?`, `{m,n}`) is `*`, which matches more (`.*/\.claude/.*`:
/// `*/.claude/*`); each alternative of a group (`\(a\|b\)` in find's default syntax, `(a|b)`
/// in the extended ones) gives patterns of its own. `None` for a regex read no further: a
/// back-reference, an unclosed group or class, more than [`MAX_REGEX_PATTERNS`] patterns.
pub(crate) fn find_regex_paths(regex: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = regex.chars().collect();
    let mut at = 0;
    let patterns = regex_alternatives(&chars, &mut at, 0)?;
    let collapsed = |pattern: String| {
        let mut out = String::with_capacity(pattern.len());
        for c in pattern.chars() {
            if !(c == '*' && out.ends_with('*') && !out.ends_with("[*")) {
                out.push(c);
            }
        }
        out
    };
    (at == chars.len()).then(|| patterns.into_iter().map(collapsed).collect())
}

/// The alternatives of a regex from `at` to the `)` (or `\)`) that ends its group.
fn regex_alternatives(chars: &[char], at: &mut usize, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_REGEX_NESTING {
        return None;
    }
    let mut patterns = Vec::new();
    loop {
        patterns.extend(regex_sequence(chars, at, depth)?);
        if patterns.len() > MAX_REGEX_PATTERNS {
            return None;
        }
        match (chars.get(*at), chars.get(*at + 1)) {
            (Some('|'), _) => *at += 1,
            (Some('\\'), Some('|')) => *at += 2,
            _ => return Some(patterns),
        }
    }
}

/// One alternative of a regex from `at` to the `|` or `)` that ends it, as patterns.
fn regex_sequence(chars: &[char], at: &mut usize, depth: usize) -> Option<Vec<String>> {
    let mut patterns = vec![String::new()];
    loop {
        let atom: Vec<String> = match (chars.get(*at), chars.get(*at + 1)) {
            (None | Some('|' | ')'), _) | (Some('\\'), Some('|' | ')')) => return Some(patterns),
            (Some('('), _) | (Some('\\'), Some('(')) => {
                *at += if chars.get(*at) == Some(&'(') { 1 } else { 2 };
                let inner = regex_alternatives(chars, at, depth + 1)?;
                match (chars.get(*at), chars.get(*at + 1)) {
                    (Some(')'), _) => *at += 1,
                    (Some('\\'), Some(')')) => *at += 2,
                    _ => return None,
                }
                inner
            }
            (Some('\\'), Some(c)) => {
                *at += 2;
                match c {
                    _ if c.is_ascii_digit() => return None,
                    'w' | 'W' | 's' | 'S' | 'd' | 'D' => vec!["?".to_owned()],
                    'b' | 'B' | '<' | '>' | '`' | '\'' => vec![String::new()],
                    _ => vec![glob_literal(*c)],
                }
            }
            (Some('\\'), None) => return None,
            (Some('['), _) => {
                let len = regex_class_len(chars.get(*at..).unwrap_or_default())?;
                let class: String = chars.get(*at..*at + len)?.iter().collect();
                *at += len;
                vec![class.replacen("[^", "[!", 1)]
            }
            (Some('.'), _) => {
                *at += 1;
                vec!["?".to_owned()]
            }
            (Some('^' | '$'), _) => {
                *at += 1;
                vec![String::new()]
            }
            // A quantifier with nothing before it: any text is more than it matches.
            (Some('*' | '+' | '?'), _) => {
                *at += 1;
                vec!["*".to_owned()]
            }
            (Some(c), _) => {
                *at += 1;
                vec![glob_literal(*c)]
            }
        };
        let atom = match regex_quantifier(chars, at) {
            true => vec!["*".to_owned()],
            false => atom,
        };
        let mut joined = Vec::with_capacity(patterns.len() * atom.len());
        for pattern in &patterns {
            for part in &atom {
                joined.push(format!("{pattern}{part}"));
            }
        }
        if joined.len() > MAX_REGEX_PATTERNS {
            return None;
        }
        patterns = joined;
    }
}

/// Whether quantifiers follow at `at` (`*`, `+`, `?`, `{m,n}`, `\{m,n\}`), which it skips.
fn regex_quantifier(chars: &[char], at: &mut usize) -> bool {
    let mut any = false;
    loop {
        match (chars.get(*at), chars.get(*at + 1)) {
            (Some('*' | '+' | '?'), _) => *at += 1,
            (Some('{'), Some(c)) if c.is_ascii_digit() || *c == ',' => {
                let Some(len) = chars
                    .get(*at..)
                    .and_then(|rest| rest.iter().position(|c| *c == '}'))
                else {
                    return any;
                };
                *at += len + 1;
            }
            (Some('\\'), Some('{')) => {
                let rest = chars.get(*at..).unwrap_or_default();
                let Some(len) = rest.windows(2).position(|pair| pair == ['\\', '}']) else {
                    return any;
                };
                *at += len + 2;
            }
            _ => return any,
        }
        any = true;
    }
}

/// The length of the bracket class `class` begins with (a `]` first, or after `^`, is in it).
fn regex_class_len(class: &[char]) -> Option<usize> {
    let mut at = 1;
    if class.get(at) == Some(&'^') {
        at += 1;
    }
    if class.get(at) == Some(&']') {
        at += 1;
    }
    let close = class.get(at..)?.iter().position(|c| *c == ']')?;
    Some(at + close + 1)
}

/// `c` as a glob matches it.
fn glob_literal(c: char) -> String {
    match c {
        '*' | '?' | '[' | ']' | '\\' => format!("[{c}]"),
        _ => c.to_string(),
    }
}

/// How [`find_path_globs`] spells a pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spelling {
    AsIs,
    Folded,
    Lower,
}

/// `pattern` with each ASCII letter outside a class made a class of both its cases (`*.Pem`:
/// `*.[pP][eE][mM]`).
fn fold_case_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_class = false;
    for c in pattern.chars() {
        match c {
            '[' => in_class = true,
            ']' => in_class = false,
            _ => {}
        }
        if c.is_ascii_alphabetic() && !in_class {
            out.extend(['[', c.to_ascii_lowercase(), c.to_ascii_uppercase(), ']']);
        } else {
            out.push(c);
        }
    }
    out
}

fn wildcard(text: &[u8], pattern: &[u8]) -> bool {
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let byte = text.get(t).copied();
        match pattern.get(p).copied() {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some(b'?') => {
                t += 1;
                p += 1;
                continue;
            }
            Some(b'[') => {
                if let Some((matched, len)) = class_match(pattern.get(p..).unwrap_or(&[]), byte)
                    && matched
                {
                    t += 1;
                    p += len;
                    continue;
                }
            }
            Some(literal) if Some(literal) == byte => {
                t += 1;
                p += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((star_p, star_t)) => {
                p = star_p + 1;
                t = star_t + 1;
                star = Some((star_p, star_t + 1));
            }
            None => return false,
        }
    }
    pattern.get(p..).unwrap_or(&[]).iter().all(|b| *b == b'*')
}

/// Matches a `[…]` class at the start of `pattern`; returns whether it matched and its length.
fn class_match(pattern: &[u8], byte: Option<u8>) -> Option<(bool, usize)> {
    let byte = byte?;
    let close = pattern.iter().skip(2).position(|b| *b == b']')? + 2;
    let body = pattern.get(1..close)?;
    let (negate, body) = match body.first() {
        Some(b'!' | b'^') => (true, body.get(1..)?),
        _ => (false, body),
    };
    let mut matched = false;
    let mut at = 0;
    while let Some(&start) = body.get(at) {
        if body.get(at + 1) == Some(&b'-')
            && let Some(&end) = body.get(at + 2)
        {
            matched |= (start..=end).contains(&byte);
            at += 3;
        } else {
            matched |= start == byte;
            at += 1;
        }
    }
    Some((matched != negate, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: PathContext<'static> = PathContext {
        cwd: "/home/user/project",
        home: Some("/home/user"),
    };

    #[test]
    fn basenames() {
        for (path, name) in [
            ("/home/ann/.env", ".env"),
            ("/home/ann/.ssh/", ".ssh"),
            ("id_rsa", "id_rsa"),
            ("/", ""),
            ("", ""),
        ] {
            assert_eq!(basename(path), name, "{path}");
        }
    }

    #[test]
    fn directories_above_persistence_places() {
        for dir in [
            "/",
            "/etc",
            "/etc/",
            "/usr",
            "/usr/local",
            "/home",
            "/home/user",
            "/home/user/.config",
            "/home/user/.local",
            "/home/user/.nvm",
            "/var/spool",
        ] {
            assert!(holds_persistence(dir, &CTX), "{dir}");
        }
        for dir in [
            "/tmp",
            "/srv/app",
            "/home/user/project",
            "/home/user/project/vendor",
            "/home/user/src",
            "/home/user/.cache",
            "/home/user/.config/autostart",
            "/etc/cron.d",
            "/var/www",
        ] {
            assert!(!holds_persistence(dir, &CTX), "{dir}");
        }
        let unknown = PathContext {
            cwd: "/work/project",
            home: None,
        };
        assert!(holds_persistence("~", &unknown));
        assert!(holds_persistence("~/.config", &unknown));
        assert!(!holds_persistence("~/src", &unknown));
    }

    #[test]
    fn secret_trees_in_an_unknown_home() {
        let ctx = PathContext {
            cwd: "/work/project",
            home: None,
        };
        let tree = |dir: &str| secret_tree(&paths::canonicalize(dir, &ctx), &ctx).map(|s| s.rule);
        assert_eq!(tree("~/.ssh"), Some("read-ssh-private-key"));
        assert_eq!(tree("~"), Some("read-ssh-private-key"));
        assert_eq!(tree("~/.aws"), Some("read-credential-file"));
        assert_eq!(tree("~/src"), None);
    }

    #[test]
    fn brace_expansions_past_the_limit_are_wildcards() {
        let many = format!("~/.a{{w,x}}s/credentials{}", "{,}".repeat(8));
        let path = paths::canonicalize(&many, &CTX);
        assert_eq!(
            secret_file(&path, &CTX).map(|secret| secret.rule),
            Some("read-credential-file")
        );
        assert_eq!(braces_as_wildcards("a{b,{c,d}}e{f}"), "a*e*");
    }

    /// `path` with its run-time parts resolved for classifying.
    fn resolved(path: &str) -> Option<String> {
        resolvable(path).map(Cow::into_owned)
    }

    /// The secret-file rule `path` falls under once resolved.
    fn secret(path: &str) -> Option<&'static str> {
        let path = resolvable(path).expect("a path");
        secret_file(&paths::canonicalize(&path, &CTX), &CTX).map(|s| s.rule)
    }

    #[test]
    fn run_time_parts_become_wildcards() {
        assert_eq!(resolved("/etc/hosts").as_deref(), Some("/etc/hosts"));
        assert_eq!(
            resolved("/home/$USER/.ssh/id_rsa").as_deref(),
            Some("/home/*/.ssh/id_rsa")
        );
        assert_eq!(
            resolved("$HOME/${PROJECT}/.env").as_deref(),
            Some("$HOME/*/.env")
        );
        assert_eq!(resolved("$HOME_DIR/.env").as_deref(), Some("/**/.env"));
        assert_eq!(resolved("$DIR/*").as_deref(), Some("*/*"));
        assert_eq!(
            resolved("/home/$(whoami)/.aws/`echo cred`entials").as_deref(),
            Some("/home/*/.aws/*entials")
        );
        assert_eq!(resolved("${A:-${B}}$C/x").as_deref(), Some("/**/x"));
        assert_eq!(
            resolved("/proc/$$/environ").as_deref(),
            Some("/proc/*/environ")
        );
        assert_eq!(resolved("<(…)"), None);
        assert_eq!(
            secret("/home/$USER/.ssh/id_rsa"),
            Some("read-ssh-private-key")
        );
        assert_eq!(secret("$DIR/.env"), Some("read-dotenv-file"));
        assert_eq!(
            secret("/proc/$PID/environ"),
            Some("read-process-environment")
        );
        assert_eq!(secret("$FILE"), None);
        assert_eq!(secret("$OUT/report.txt"), None);
        assert_eq!(secret("$DIR/*"), None);
        let tree = |path: &str| {
            let path = resolvable(path).expect("a path");
            secret_tree(&paths::canonicalize(&path, &CTX), &CTX).map(|s| s.rule)
        };
        assert_eq!(tree("$ROOT/src"), None);
        assert_eq!(tree("$X/.ssh"), Some("read-ssh-private-key"));
        assert_eq!(
            secret("$(echo ~)/.aws/credentials"),
            Some("read-credential-file")
        );
        assert_eq!(
            secret("${HOME:-/root}/.ssh/id_rsa"),
            Some("read-ssh-private-key")
        );
        assert_eq!(
            secret("$PWD/../.aws/credentials"),
            Some("read-credential-file")
        );
    }

    #[test]
    fn well_known_variables_stand_for_their_default_locations() {
        for (path, location) in [
            ("$KUBECONFIG", "$HOME/.kube/config"),
            ("${ZDOTDIR}/.zshrc", "$HOME/.zshrc"),
            (
                "${XDG_CONFIG_HOME:-$HOME/.config}/autostart/x.desktop",
                "$HOME/.config/autostart/x.desktop",
            ),
            ("$DOCKER_CONFIG/config.json", "$HOME/.docker/config.json"),
            // Only the whole name, at the start, followed by a separator.
            ("$KUBECONFIG_DIR/x", "/**/x"),
            ("$HISTFILE.bak", "*.bak"),
            ("/x/$HISTFILE", "/x/*"),
            ("${HISTFILE:+x}", "*"),
        ] {
            assert_eq!(resolved(path).as_deref(), Some(location), "{path}");
        }
        for (path, rule) in [
            ("$HISTFILE", Some("read-credential-file")),
            ("${KUBECONFIG}", Some("read-credential-file")),
            (
                "$GOOGLE_APPLICATION_CREDENTIALS",
                Some("read-credential-file"),
            ),
            ("$XDG_CACHE_HOME/pip/x", None),
        ] {
            assert_eq!(secret(path), rule, "{path}");
        }
    }

    #[test]
    fn find_path_patterns_as_globs() {
        let globs = |root: &str, pattern: &str| find_path_globs(root, pattern, false);
        assert_eq!(globs(".", "./.claude"), ["./.claude"]);
        assert_eq!(globs(".", "."), ["."]);
        assert_eq!(globs("./", "./a/*/b"), ["./a/**/b"]);
        assert_eq!(globs(".", "*/.env"), ["./**/.env"]);
        assert_eq!(
            globs(".", "*.env"),
            ["./**/*.env", "./**/.*.env", "./**/.env"]
        );
        assert_eq!(
            globs("~", "~/.ssh/*"),
            ["~/.ssh/*", "~/.ssh/.*", "~/.ssh/*/**", "~/.ssh/.*/**"]
        );
        assert_eq!(
            globs("~", "*.ssh*"),
            [
                "~/**/*.ssh*",
                "~/**/.*.ssh*",
                "~/**/.ssh*",
                "~/**/*.ssh*/**",
                "~/**/.*.ssh*/**",
                "~/**/.ssh*/**"
            ]
        );
        assert_eq!(globs("~", "/etc/x"), ["/etc/x"]);
        assert!(globs("src", "./src/x").is_empty());
        assert!(globs("src", "srcx/y").is_empty());
    }

    #[test]
    fn find_regexes_as_path_patterns() {
        let paths = |regex: &str| find_regex_paths(regex);
        assert_eq!(paths(r".*/\.claude/.*").unwrap(), ["*/.claude/*"]);
        assert_eq!(paths(r".*id_rsa$").unwrap(), ["*id_rsa"]);
        assert_eq!(paths(r"^\./\.c.aude").unwrap(), ["./.c?aude"]);
        assert_eq!(paths(r".*\.\(env\|pem\)").unwrap(), ["*.env", "*.pem"]);
        assert_eq!(
            paths(r".*/(id_[a-z]+|\.ssh/.*)").unwrap(),
            ["*/id_*", "*/.ssh/*"]
        );
        assert_eq!(paths(r"[^/]*/\.clau+de").unwrap(), ["*/.cla*de"]);
        assert_eq!(
            paths(r"\./\.git/hooks/.\{1,\}").unwrap(),
            ["./.git/hooks/*"]
        );
        assert_eq!(paths(r"x\*\[").unwrap(), ["x[*][[]"]);
        for regex in [
            r"\(a\)\1",
            r"\(a",
            r"a\)",
            "[ab",
            r"(a|b)(c|d)(e|f)(g|h)(i|j)",
        ] {
            assert_eq!(paths(regex), None, "{regex}");
        }
    }

    #[test]
    fn patterns_that_may_name_an_agents_directory() {
        let ctx = PathContext {
            cwd: "/home/user/project",
            home: Some("/home/user"),
        };
        let rule = |path: &str| persistence(path, &ctx).map(|place| place.rule);
        for path in [
            "/home/user/project/.claude*",
            "/home/user/project/.c?aude",
            "/home/user/project/**/.cl*",
            "/home/user/project/.*",
            "/home/user/.co*",
        ] {
            assert_eq!(rule(path), Some("write-agent-settings"), "{path}");
        }
        for path in [
            "/home/user/project/node_modules/.*",
            "/home/user/project/*",
            "/home/user/project/.cache*",
            "/tmp/.c*",
        ] {
            assert_eq!(rule(path), None, "{path}");
        }
    }

    #[test]
    fn find_names_match_dots() {
        assert!(find_name_match(".", "*", false));
        assert!(find_name_match(".git", "*", false));
        assert!(!find_name_match(".", "__pycache__", false));
        assert!(find_name_match("README.MD", "*.md", true));
        assert!(!find_name_match("README.MD", "*.md", false));
    }

    #[test]
    fn find_name_globs_match_what_find_matches() {
        let patterns = [
            "*.json", "**.json", "*", "?env", "[.]env", "[!a]bc", "*?x", "?.x", "id_*", ".env",
            "*.Pem", "Id_*", "x*y",
        ];
        let names = [
            ".json",
            "..json",
            ".credentials.json",
            "a.json",
            ".env",
            "env",
            "xenv",
            ".bc",
            "abc",
            ".x",
            "..x",
            ".Ax",
            "id_rsa",
            ".id_rsa",
            "ID_RSA",
            "key.pem",
            "KEY.PEM",
            ".key.PEM",
            "a",
            ".",
            "..",
            "xy",
            ".xy",
        ];
        for pattern in patterns {
            for fold_case in [false, true] {
                let globs = find_name_globs(pattern, fold_case);
                for name in names {
                    assert_eq!(
                        globs
                            .iter()
                            .any(|glob| segment_match(name.as_bytes(), glob.as_bytes())),
                        find_name_match(name, pattern, fold_case),
                        "{name:?} against {pattern:?} (fold case: {fold_case}) as {globs:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn globs() {
        assert!(glob_match("/home/user/.ss?/id_*", "/home/user/.ssh/id_rsa"));
        assert!(!glob_match("/home/user/*/id_rsa", "/home/user/.ssh/id_rsa"));
        assert!(glob_match("/home/**/id_rsa", "/home/user/.ssh/id_rsa"));
        assert!(segment_match(b".env", b".en[v]"));
        assert!(!segment_match(b".env", b"*"));
        assert_eq!(expand_braces("a{b,c}d").len(), 2);
    }

    /// `secret_tree` finds the first of the probes under a directory without building them
    /// all; its answer is the one the whole list gives (then the listed places below it).
    #[test]
    fn a_tree_holds_the_first_probe_under_it() {
        let contexts = [
            CTX,
            PathContext {
                cwd: "/w",
                home: None,
            },
            PathContext {
                cwd: "/w",
                home: Some("/Users/ann"),
            },
        ];
        let dirs = [
            "/",
            "/home",
            "/home/user",
            "/home/user/.ssh",
            "/home/user/.ssh/id_rsa",
            "/home/user/project",
            "/home/use",
            "/root",
            "/root/.aws",
            "/etc",
            "/proc",
            "/proc/self",
            "/Users",
            "/Users/ann/.kube",
            "/srv",
            "/home/user/.config",
            "/var",
        ];
        for ctx in contexts {
            for dir in dirs {
                let whole_list = secret_file(dir, &ctx).or_else(|| {
                    probes(&ctx)
                        .into_iter()
                        .find(|(probe, _)| probe != dir && paths::is_within(probe, dir))
                        .map(|(_, secret)| secret)
                        .or_else(|| secret_listed_below(dir, &ctx))
                });
                assert_eq!(
                    secret_tree(dir, &ctx).map(|s| s.rule),
                    whole_list.map(|s| s.rule),
                    "{dir} with home {:?}",
                    ctx.home
                );
            }
        }
    }

    #[test]
    fn secrets() {
        let secret = |p: &str| secret_file(p, &CTX).map(|s| s.rule);
        assert_eq!(
            secret("/home/user/.ssh/id_rsa"),
            Some("read-ssh-private-key")
        );
        assert_eq!(secret("/home/user/.ssh/id_rsa.pub"), None);
        assert_eq!(secret("/home/user/.ssh/known_hosts"), None);
        assert_eq!(secret("/home/user/project/.env"), Some("read-dotenv-file"));
        assert_eq!(secret("/home/user/project/.env.example"), None);
        assert_eq!(secret("/home/user/project/.en?"), Some("read-dotenv-file"));
        assert_eq!(secret("/home/user/project/*"), None);
        assert_eq!(secret("/home/user/.ss?/*"), Some("read-ssh-private-key"));
        assert_eq!(
            secret("/proc/self/environ"),
            Some("read-process-environment")
        );
        assert_eq!(
            secret("/proc/self/root/etc/shadow"),
            Some("read-system-secret")
        );
        assert_eq!(
            secret("/home/user/{.aws/credentials,x}"),
            Some("read-credential-file")
        );
        let tree = |p: &str| secret_tree(p, &CTX).map(|s| s.rule);
        assert_eq!(tree("/home/user/.ssh"), Some("read-ssh-private-key"));
        assert!(tree("/home/user").is_some());
        assert!(tree("/home/user/project").is_none());
        assert!(tree("/").is_some());
        // Another user's home holds what the probed homes do.
        for other in [
            "/home/bob/.ssh",
            "/Users/bob/.SSH",
            "/home/bob",
            "/var/root/.ssh",
        ] {
            assert_eq!(tree(other), Some("read-ssh-private-key"), "{other}");
        }
        assert_eq!(tree("/home/bob/.kube"), Some("read-credential-file"));
        assert!(tree("/home/bob/src").is_none());
        assert!(tree("/home/bob/.ssh/known_hosts").is_none());
        // Listed secrets below a directory, beyond the probes; not a shared directory that
        // holds files listed by a part of their name (`/tmp/krb5cc_*`).
        let holding = [
            "/home/user/.gnupg",
            "/home/user/.gnupg/private-keys-v1.d",
            "/home/user/.claude",
            "/home/user/.config/gh",
            "/home/user/.mozilla",
            "/home/user/.local/share",
            "/etc/letsencrypt",
            "/run",
        ];
        let not_holding = [
            "/home/user/.config/nvim",
            "/home/user/.claude/agents",
            "/home/user/.local/bin",
            "/etc/nginx",
            "/usr",
            "/tmp",
        ];
        for (dirs, holds) in [(&holding[..], true), (&not_holding[..], false)] {
            for dir in dirs {
                assert_eq!(tree(dir).is_some(), holds, "{dir}");
            }
        }
    }

    /// The lists of secrets, for [`the_index_finds_what_a_scan_of_every_entry_finds`] beside
    /// the persistence lists.
    const SECRET_PLACES: [&Places; 7] = [
        &SYSTEM_SECRETS,
        &SYSTEM_KEYS,
        &SYSTEM_CREDENTIALS,
        &HOME_CREDENTIALS,
        &HOME_NOT_CREDENTIALS,
        &HOME_HISTORIES,
        &HOME_KEYCHAINS,
    ];

    #[test]
    fn the_index_finds_what_a_scan_of_every_entry_finds() {
        // Paths near every entry of every list: the entry, its case changed, a path under it,
        // one a byte longer or shorter, its parents, and ordinary paths listed nowhere.
        let mut paths: Vec<String> = ["", "/", "/etc", "project/src/main.rs", "/home/u/p/.env"]
            .map(str::to_owned)
            .to_vec();
        let lists = || {
            SECRET_PLACES
                .iter()
                .chain(&SYSTEM_PERSISTENCE)
                .chain(&HOME_PERSISTENCE)
        };
        for entry in lists().flat_map(|list| list.entries) {
            let base = entry.trim_end_matches('/').replace('*', "dev");
            let mut shorter = base.clone();
            shorter.pop();
            paths.extend([
                base.to_uppercase(),
                format!("{base}/x"),
                format!("{base}x"),
                shorter,
            ]);
            paths.extend(base.match_indices('/').map(|(at, _)| base[..at].to_owned()));
            paths.push(base);
        }
        // Directories a recursive read may name, patterns among them.
        paths.extend(["/*", "/e*", "/etc/*", "~/.*", ".*", "*"].map(str::to_owned));
        for list in lists() {
            for path in &paths {
                let scanned = list.entries.iter().any(|entry| listed_as(path, entry));
                assert_eq!(listed(path, list), scanned, "{path} in {:?}", list.entries);
                let dir = path.trim_end_matches('/');
                let below = list.entries.iter().any(|entry| lies_below(entry, dir));
                assert_eq!(
                    list.below(dir).any(|entry| lies_below(entry, dir)),
                    below,
                    "below {dir} in {:?}",
                    list.entries
                );
            }
        }
        assert!(paths.iter().any(|path| listed(path, &HOME_CREDENTIALS)));
    }

    #[test]
    fn listed_entries_with_a_star_are_globs() {
        let list = &Places::new(&[".minikube/profiles/*/client.key", "/tmp/krb5cc_*", ".kube/"]);
        assert!(listed(".minikube/profiles/dev/client.key", list));
        assert!(listed(".MINIKUBE/profiles/dev/Client.key", list));
        assert!(!listed(".minikube/profiles/dev/x/client.key", list));
        assert!(!listed(".minikube/profiles/client.key", list));
        assert!(listed("/tmp/krb5cc_1000", list));
        assert!(!listed("/tmp/krb5cc_1000/x", list));
        assert!(listed(".kube/config-prod", list));
        assert!(!listed(".kube", list));
    }

    #[test]
    fn secrets_named_by_their_file_name() {
        let secret = |p: &str| secret_file(p, &CTX).map(|s| s.what);
        assert_eq!(
            secret("/home/user/project/terraform.tfstate"),
            Some(TERRAFORM_STATE.what)
        );
        assert_eq!(
            secret("/srv/x/Service-Account-Key.json"),
            Some(SERVICE_ACCOUNT_KEY.what)
        );
        assert_eq!(secret("/home/user/project/prod.tfvars"), None);
        assert_eq!(secret("/home/user/project/service-account.yaml"), None);
        assert_eq!(secret("/home/user/.kube/cache/x.json"), None);
        assert_eq!(
            secret("/home/user/.kube/config.d/prod"),
            Some(CREDENTIALS.what)
        );
        assert!(is_dotenv_name(".env~"));
        assert!(is_dotenv_name(".dev.vars"));
        assert!(!is_dotenv_name(".dev.vars.example"));
        assert!(!is_dotenv_name(".env.example~"));
    }

    #[test]
    fn persistence_places() {
        let rule = |p: &str| persistence(p, &CTX).map(|s| s.rule);
        assert_eq!(rule("/home/user/.bashrc"), Some("write-shell-init"));
        assert_eq!(
            rule("/home/user/project/.git/hooks/pre-commit"),
            Some("write-git-hooks")
        );
        assert_eq!(
            rule("/home/user/project/.claude/settings.local.json"),
            Some("write-agent-settings")
        );
        assert_eq!(
            rule("/home/user/project/.github/workflows/ci.yml"),
            Some("write-auto-run-config")
        );
        for hook in [
            "/p/.husky/pre-commit",
            "/p/.husky/_/husky.sh",
            "/p/.lefthook/pre-commit/lint.sh",
            "/p/lefthook.yml",
            "/p/.pre-commit-config.yaml",
        ] {
            assert_eq!(rule(hook), Some("write-auto-run-config"), "{hook}");
        }
        assert_eq!(rule("/p/.husky"), None);
        assert_eq!(rule("/p/docs/lefthook.md"), None);
        assert_eq!(
            rule("/home/user/.oh-my-zsh/lib/git.zsh"),
            Some("write-shell-init")
        );
        assert_eq!(
            rule("/home/user/.vim/autoload/x.vim"),
            Some("write-auto-run-config")
        );
        assert_eq!(
            rule("/etc/udev/rules.d/99-x.rules"),
            Some("write-scheduled-task")
        );
        assert_eq!(
            rule("/proc/sys/kernel/core_pattern"),
            Some("write-privilege-config")
        );
        assert_eq!(
            rule("/proc/sys/fs/binfmt_misc/register"),
            Some("write-privilege-config")
        );
        assert_eq!(
            rule("/usr/lib/git-core/git-x"),
            Some("write-path-executable")
        );
        assert_eq!(rule("/home/user/Documents/report.ps1"), None);
        assert_eq!(rule("/proc/sys/kernel/hostname"), None);
        assert_eq!(rule("/home/user/project/src/main.rs"), None);
        assert_eq!(rule("/home/user/project/.claude/agents/x.md"), None);
        for on_path in [
            "/home/user/.local/bin/git",
            "/usr/local/bin/ls",
            "/home/user/bin/x",
            "/home/user/.pyenv/shims/python",
            "/home/user/.NVM/versions/node/v20.1.0/bin/node",
            "/home/user/.sdkman/candidates/java/current/bin/java",
        ] {
            assert_eq!(rule(on_path), Some("write-path-executable"), "{on_path}");
        }
        for off_path in [
            "/home/user/project/bin/x",
            "/home/user/.local/bin",
            "/usr/lib/x",
            "/home/user/.nvm/versions/node/bin/x",
            "/home/user/.nvm/versions/node/v20.1.0/bin",
            "/home/user/.nvm/versions/node/v20.1.0/lib/x",
        ] {
            assert_eq!(rule(off_path), None, "{off_path}");
        }
        let dir = |p: &str| is_path_dir(p, &CTX);
        assert!(dir("/home/user/.nvm/versions/node/v20.1.0/bin/"));
        assert!(dir("/home/user/.asdf/shims"));
        assert!(!dir("/home/user/.nvm/versions/node//bin"));
        assert!(!dir("/home/user/.nvm/versions/node/v20.1.0/bin/x"));
    }
}
