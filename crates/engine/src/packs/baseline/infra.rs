//! Production database and cloud/cluster destruction rules.
//!
//! Database clients (psql, mysql, sqlite3, mongosh, redis-cli, …) are judged on their target
//! (host, database, URI, file, and `PG*`/`MYSQL*`/`DATABASE_URL` assignments: a name token
//! `prod`/`production`/`prd`) and on the statements they run: `-c`/`-e`/`--eval` values, sqlite's
//! SQL operand, and — when the client reads its script from stdin (here-doc, here-string, pipe) —
//! the statements in the command text. Cloud CLIs are judged on their subcommand words.
//!
//! This module must not flag reads (`SELECT`, `describe`, `list`) or destructive SQL on
//! non-production targets.

use super::Cmd;
use crate::argv::{
    AWS_GLOBAL_LONG_VALUE, GSUTIL_GLOBAL_SHORT_VALUE, Parsed, RCLONE_GLOBAL_LONG_VALUE, has_flag,
    kubectl_subcommand, leading_options,
};
use crate::packs::Findings;

/// Whether a host, database or URI names production.
fn names_production(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .any(|token| {
            token == "prod"
                || token == "production"
                || token == "prd"
                || token.strip_prefix("prod").is_some_and(|rest| {
                    !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit())
                })
        })
}

/// The destructive statement in SQL (or Mongo / Redis) text, if any.
pub(super) fn destructive_statement(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("dropdatabase(") || lower.contains(".drop(") {
        return Some("a collection or database drop");
    }
    if lower.contains("deletemany({})") || lower.contains("remove({})") {
        return Some("a delete of every document");
    }
    let upper = text.to_ascii_uppercase();
    let mut tokens = upper
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ';'))
        .flat_map(|word| {
            // Keep `;` as its own token.
            word.split_inclusive(';')
                .flat_map(|part| match part.strip_suffix(';') {
                    Some(head) => vec![head, ";"],
                    None => vec![part],
                })
        })
        .filter(|token| !token.is_empty())
        .peekable();
    while let Some(token) = tokens.next() {
        match token {
            "FLUSHALL" | "FLUSHDB" => return Some("a flush of every key"),
            "DROP"
                if tokens.peek().is_some_and(|next| {
                    matches!(
                        *next,
                        "TABLE"
                            | "DATABASE"
                            | "SCHEMA"
                            | "VIEW"
                            | "INDEX"
                            | "USER"
                            | "ROLE"
                            | "COLLECTION"
                            | "KEYSPACE"
                            | "OWNED"
                            | "SEQUENCE"
                            | "FUNCTION"
                            | "MATERIALIZED"
                            | "TABLESPACE"
                    )
                }) =>
            {
                return Some("a DROP statement");
            }
            "TRUNCATE" => return Some("a TRUNCATE statement"),
            "DELETE" if tokens.peek() == Some(&"FROM") => {
                let mut has_where = false;
                for next in tokens.by_ref() {
                    if next == ";" {
                        break;
                    }
                    if next == "WHERE" {
                        has_where = true;
                    }
                }
                if !has_where {
                    return Some("a DELETE without WHERE");
                }
            }
            _ => {}
        }
    }
    None
}

/// The client's inline statements (flags and operands that carry SQL), the other words (which
/// name the target), and whether it reads a script file.
fn client_parts<'a>(cmd: &Cmd<'a>) -> Option<(Vec<&'a str>, Vec<&'a str>, bool)> {
    let args = cmd.args();
    let (short, long, sql_short, sql_long): (&[char], &[&str], &[char], &[&str]) = match cmd.name()
    {
        "psql" | "pgcli" => (
            &[
                'c', 'h', 'd', 'U', 'p', 'f', 'v', 'o', 'P', 'F', 'R', 'T', 'L',
            ],
            &[
                "command", "host", "dbname", "username", "port", "file", "set", "variable",
                "output", "log-file",
            ],
            &['c'],
            &["command"],
        ),
        "mysql" | "mariadb" | "mycli" => (
            &['e', 'h', 'D', 'u', 'P', 'p', 'S'],
            &[
                "execute",
                "host",
                "database",
                "user",
                "port",
                "socket",
                "defaults-file",
            ],
            &['e'],
            &["execute"],
        ),
        "mongosh" | "mongo" => (
            &['u', 'p', 'f'],
            &[
                "eval",
                "host",
                "port",
                "username",
                "password",
                "file",
                "authenticationDatabase",
            ],
            &[],
            &["eval"],
        ),
        "sqlcmd" => (&['Q', 'q', 'S', 'd', 'U', 'P', 'i'], &[], &['Q', 'q'], &[]),
        "clickhouse-client" => (
            &['q', 'h', 'd', 'u', 'p'],
            &["query", "host", "database", "user", "password", "port"],
            &['q'],
            &["query"],
        ),
        "sqlite3" | "litecli" | "duckdb" | "redis-cli" | "usql" => {
            (&['h', 'p', 'a', 'n', 'u', 'c'], &["cmd"], &['c'], &["cmd"])
        }
        _ => return None,
    };
    let parsed = Parsed::new(args, short, long);
    let mut sql = parsed.values(sql_short, sql_long);
    let mut target: Vec<&str> = parsed
        .short_values
        .iter()
        .filter(|(flag, _)| !sql_short.contains(flag))
        .map(|(_, value)| *value)
        .collect();
    target.extend(
        parsed
            .longs
            .iter()
            .filter(|(name, _)| !sql_long.contains(name))
            .filter_map(|(_, value)| *value),
    );
    match cmd.name() {
        "sqlite3" | "litecli" | "duckdb" | "usql" => {
            let mut operands = parsed.operands.iter();
            target.extend(operands.next());
            sql.extend(operands);
        }
        "redis-cli" => sql.extend(parsed.operands.iter()),
        _ => target.extend(parsed.operands.iter()),
    }
    let script_file = parsed.has(&['f', 'i'], &["file"]);
    Some((sql, target, script_file))
}

fn database(cmd: &Cmd<'_>, out: &mut Findings) {
    let Some((sql, target, script_file)) = client_parts(cmd) else {
        return;
    };
    let env_target = cmd.simple.assignments.iter().any(|a| {
        (a.name.starts_with("PG")
            || a.name.starts_with("MYSQL")
            || a.name.contains("DATABASE")
            || a.name.contains("DB_")
            || a.name.ends_with("_URL")
            || a.name.starts_with("MONGO")
            || a.name.starts_with("REDIS"))
            && names_production(&a.value)
    });
    if !env_target && !target.iter().any(|word| names_production(word)) {
        return;
    }
    let statement = if sql.is_empty() && !script_file {
        // The client reads its script from stdin: a here-doc, here-string or pipe.
        destructive_statement(cmd.raw)
    } else {
        sql.iter().find_map(|text| destructive_statement(text))
    };
    if let Some(statement) = statement {
        out.add(
            "production-database-destructive-sql",
            format!(
                "`{}` would run {statement} against a production database",
                cmd.name()
            ),
        );
    }
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    database(cmd, out);
    let args = cmd.args();
    let name = cmd.name();
    // A sync down to a local directory deletes local files, not cloud ones (`aws s3 sync
    // s3://b/assets ./assets --delete`); the write and fill checks judge it.
    let to_cloud = crate::argv::storage_copy(name, args)
        .is_none_or(|(_, target)| !crate::argv::is_local_operand(target));
    match name {
        "aws" => {
            let (_, sub) = leading_options(args, &[], AWS_GLOBAL_LONG_VALUE);
            let Some(sub) = sub else { return };
            let service = args.get(sub).map(String::as_str).unwrap_or("");
            let operation = args.get(sub + 1).map(String::as_str).unwrap_or("");
            let rest = Parsed::new(args.get(sub + 2..).unwrap_or(&[]), &[], &[]);
            let destructive = operation.starts_with("delete-")
                || operation.starts_with("terminate-")
                || operation == "remove-role-from-instance-profile"
                || (service == "s3" && operation == "rb" && rest.has(&[], &["force"]))
                || (service == "s3" && operation == "rm" && rest.has(&[], &["recursive"]))
                // The destination loses what the source does not have.
                || (service == "s3"
                    && operation == "sync"
                    && rest.has(&[], &["delete"])
                    && to_cloud);
            if destructive {
                out.add(
                    "cloud-resource-delete",
                    format!("`aws {service} {operation}` deletes cloud resources"),
                );
            }
        }
        "gcloud" | "az" => {
            let parsed = Parsed::new(
                args,
                &[],
                &[
                    "project",
                    "name",
                    "resource-group",
                    "zone",
                    "region",
                    "format",
                    "subscription",
                    "configuration",
                ],
            );
            let words = &parsed.operands;
            let recursive = parsed.has(&['r', 'R'], &["recursive"]);
            // `gcloud [alpha|beta] storage rm|rsync …`
            let storage = |verb: &str| words.windows(2).any(|pair| pair == ["storage", verb]);
            if words
                .iter()
                .any(|word| matches!(*word, "delete" | "purge") || word.starts_with("delete-"))
                || (storage("rm") && (recursive || words.iter().any(|w| is_wildcard_url(w))))
                || (storage("rsync") && parsed.has_long_prefix("delete-unmatched") && to_cloud)
            {
                out.add(
                    "cloud-resource-delete",
                    format!("`{name}` deletes cloud resources"),
                );
            }
        }
        "gsutil" => {
            let (_, at) = leading_options(args, GSUTIL_GLOBAL_SHORT_VALUE, &[]);
            let Some(sub) = at.and_then(|at| args.get(at)) else {
                return;
            };
            let rest = at.and_then(|at| args.get(at + 1..)).unwrap_or(&[]);
            let rest = Parsed::new(rest, &['x', 'p', 'c'], &[]);
            let destructive = sub == "rb"
                || (sub == "rm"
                    && (rest.has(&['r', 'R', 'a'], &[])
                        || rest.operands.iter().any(|w| is_wildcard_url(w))))
                || (sub == "rsync" && rest.has(&['d'], &[]) && to_cloud);
            if destructive {
                out.add(
                    "cloud-resource-delete",
                    format!("`gsutil {sub}` deletes cloud storage"),
                );
            }
        }
        // `azcopy sync SRC DST --delete-destination=true|prompt` removes what SRC lacks.
        "azcopy" => {
            let parsed = Parsed::new(args, &[], &[]);
            let deletes = parsed
                .longs
                .iter()
                .any(|(name, value)| *name == "delete-destination" && *value != Some("false"));
            if deletes
                || parsed
                    .operands
                    .first()
                    .is_some_and(|sub| *sub == "remove" || *sub == "rm")
            {
                out.add("cloud-resource-delete", "`azcopy` deletes cloud storage");
            }
        }
        // rclone's commands that delete on a remote: `sync` makes the destination a copy of
        // the source (what it lacks goes), `purge`, `delete`, `deletefile`, `rmdirs`.
        "rclone" => {
            let (_, at) = leading_options(args, &[], RCLONE_GLOBAL_LONG_VALUE);
            if at.and_then(|at| args.get(at)).is_some_and(|sub| {
                matches!(
                    sub.as_str(),
                    "sync" | "purge" | "delete" | "deletefile" | "rmdirs" | "bisync"
                )
            }) && !has_flag(args, &['n'], &["dry-run"])
                && to_cloud
            {
                out.add(
                    "cloud-resource-delete",
                    "`rclone` deletes files on a remote",
                );
            }
        }
        "kubectl" | "oc" => {
            let Some(("delete", rest)) = kubectl_subcommand(args) else {
                return;
            };
            let parsed = Parsed::new(
                rest,
                &['n', 'l', 'f', 'o', 'k'],
                &[
                    "namespace",
                    "selector",
                    "filename",
                    "output",
                    "grace-period",
                    "timeout",
                    "field-selector",
                    "context",
                    "kustomize",
                    "cascade",
                ],
            );
            let everything = parsed.has(&['A'], &["all", "all-namespaces"]);
            let wide_kind = parsed.operands.first().is_some_and(|kinds| {
                kinds.split(',').any(|kind| {
                    let kind = kind.split('/').next().unwrap_or(kind).to_ascii_lowercase();
                    let kind = kind.split('.').next().unwrap_or("");
                    matches!(
                        kind,
                        "ns" | "namespace"
                            | "namespaces"
                            | "no"
                            | "node"
                            | "nodes"
                            | "pv"
                            | "persistentvolume"
                            | "persistentvolumes"
                            | "crd"
                            | "crds"
                            | "customresourcedefinition"
                            | "customresourcedefinitions"
                            | "all"
                    )
                })
            });
            if everything || wide_kind {
                out.add(
                    "kubernetes-delete",
                    "`kubectl delete` of namespaces, nodes, volumes or everything of a kind takes down whole workloads",
                );
            }
        }
        "terraform" | "tofu" | "terragrunt" | "pulumi" | "cdk" | "cdktf" => {
            let words: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|arg| !arg.starts_with('-'))
                .collect();
            let flags: Vec<&str> = args.iter().map(|arg| arg.trim_start_matches('-')).collect();
            let destroy = words
                .iter()
                .take(2)
                .any(|word| matches!(*word, "destroy" | "down"));
            let apply = words
                .iter()
                .take(2)
                .any(|word| matches!(*word, "apply" | "up" | "deploy"));
            let unattended = flags.iter().any(|flag| {
                matches!(
                    *flag,
                    "auto-approve"
                        | "auto-approve=true"
                        | "destroy"
                        | "yes"
                        | "y"
                        | "skip-preview"
                        | "require-approval=never"
                )
            });
            if destroy
                || (apply && unattended && name != "cdk" && name != "cdktf")
                || (apply && flags.contains(&"destroy"))
            {
                out.add(
                    "iac-destroy",
                    format!(
                        "`{name}` would destroy or change infrastructure without a reviewed plan"
                    ),
                );
            }
        }
        "gh" => {
            let parsed = Parsed::new(
                args,
                &['R', 'X', 'f', 'F', 'H', 'q', 't'],
                &[
                    "repo",
                    "method",
                    "field",
                    "raw-field",
                    "header",
                    "jq",
                    "template",
                    "input",
                    "hostname",
                ],
            );
            let words: Vec<&str> = parsed.operands.iter().take(2).copied().collect();
            let deletes = matches!(words.as_slice(), ["repo" | "release", "delete", ..])
                || (words.first() == Some(&"api")
                    && parsed
                        .values(&['X'], &["method"])
                        .iter()
                        .any(|method| method.eq_ignore_ascii_case("delete")));
            if deletes {
                out.add(
                    "cloud-resource-delete",
                    "`gh … delete` deletes a GitHub repository, release or resource",
                );
            }
        }
        "helm" => {
            let (_, sub) =
                leading_options(args, &['n'], &["namespace", "kube-context", "kubeconfig"]);
            if sub
                .and_then(|sub| args.get(sub))
                .is_some_and(|word| matches!(word.as_str(), "uninstall" | "delete" | "del" | "un"))
            {
                out.add(
                    "helm-uninstall",
                    "`helm uninstall` deletes a release's workloads and often its data",
                );
            }
        }
        _ => {}
    }
}

/// A storage URL with an object wildcard (`gs://b/**`, `gs://b/*`): every object it matches.
fn is_wildcard_url(word: &str) -> bool {
    word.contains("://") && word.contains('*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql() {
        assert!(destructive_statement("DROP TABLE users").is_some());
        assert!(destructive_statement("delete from sessions;").is_some());
        assert!(destructive_statement("DELETE FROM s WHERE x < 1; SELECT 1").is_none());
        assert!(destructive_statement("SELECT count(*) FROM users").is_none());
        assert!(
            destructive_statement("psql -h x <<'EOF'\nDROP SCHEMA public CASCADE;\nEOF").is_some()
        );
        assert!(names_production("db.prod.example.com"));
        assert!(names_production("myapp_production"));
        assert!(!names_production("products"));
    }
}
