//! kubectl's (and `oc`'s) pods with the node's keys: `kubectl debug node/NAME` (the node's root
//! file system at `/host`, its namespaces), `kubectl debug --profile=sysadmin` (a privileged
//! container), `kubectl run --privileged`, and `kubectl run --overrides=JSON` whose pod spec
//! asks for the host's namespaces, a privileged container, dangerous capabilities, confinement
//! switched off or a system directory as a `hostPath` volume.
//!
//! The pod spec is judged with the same judgements as `docker run`'s options. The node's
//! network (`hostNetwork`) is left alone, as `docker run --network host` is. Pods from a file
//! (`kubectl apply -f`, `kubectl debug --custom=FILE`) are not read.

use serde_json::Value;

use super::{
    Cmd, Findings, PRIVILEGED, RULE, dangerous_capability, mounted, shared_namespace, unconfined,
};
use crate::argv::{KUBECTL_GLOBAL_LONG_VALUE, Parsed, container_flag, container_values};

/// `kubectl debug`'s short options that take a value (`-c CONTAINER`, `-f FILE`), with the
/// global ones, which may follow the subcommand.
const DEBUG_SHORT_VALUE: &[char] = &['c', 'f', 'n', 's', 'v'];
/// `kubectl debug`'s long options that take a separate value.
const DEBUG_LONG_VALUE: &[&str] = &[
    "container",
    "copy-to",
    "custom",
    "env",
    "filename",
    "image",
    "image-pull-policy",
    "profile",
    "set-image",
    "target",
];

/// `kubectl run`'s short options that take a value (`-l LABELS`, `-o FORMAT`), with the
/// global ones.
const RUN_SHORT_VALUE: &[char] = &['l', 'o', 'f', 'n', 's', 'v'];
/// `kubectl run`'s long options that take a separate value.
const RUN_LONG_VALUE: &[&str] = &[
    "annotations",
    "detach-keys",
    "env",
    "field-manager",
    "filename",
    "grace-period",
    "image",
    "image-pull-policy",
    "labels",
    "output",
    "override-type",
    "overrides",
    "pod-running-timeout",
    "port",
    "restart",
    "template",
    "timeout",
];

/// `kubectl debug`'s profiles that give a pod on a node nothing of it (the default, `general`,
/// and `legacy`, `netadmin`, `sysadmin` share its namespaces; all but `netadmin` mount its `/`).
const CONFINED_NODE_PROFILES: &[&str] = &["baseline", "restricted"];

/// Deepest nesting of an `--overrides` document walked.
const MAX_DEPTH: usize = 32;
/// Most values of an `--overrides` document walked.
const MAX_VALUES: usize = 10_000;

/// Judges `kubectl debug` and `kubectl run` (and `oc`'s), up to the `--` before the
/// container's command.
pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    let Some((sub, rest)) = crate::argv::kubectl_subcommand(cmd.args()) else {
        return;
    };
    // The container's command follows `--`.
    let options = rest.split(|word| word == "--").next().unwrap_or_default();
    match sub {
        "debug" => {
            let parsed = parse(options, DEBUG_SHORT_VALUE, DEBUG_LONG_VALUE);
            if let Some(what) = debug_reach(&parsed) {
                out.add(RULE, format!("`{name} debug` would start {what}"));
            }
        }
        "run" => {
            let parsed = parse(options, RUN_SHORT_VALUE, RUN_LONG_VALUE);
            for what in run_reach(&parsed, cmd) {
                out.add(
                    RULE,
                    format!("`{name} run` would start a pod that reaches the node: {what}"),
                );
            }
        }
        _ => {}
    }
}

/// The options and operands of a kubectl subcommand, its own options and the global ones
/// given anywhere (cobra takes options between operands).
fn parse<'a>(words: &'a [String], short_value: &[char], long_value: &[&str]) -> Parsed<'a> {
    let long_value = [long_value, KUBECTL_GLOBAL_LONG_VALUE].concat();
    Parsed::new(words, short_value, &long_value)
}

/// What `kubectl debug` would start that reaches the node: a pod on a node (`node/NAME`) under
/// a profile that shares its namespaces, or a privileged container (`--profile=sysadmin`).
fn debug_reach(parsed: &Parsed<'_>) -> Option<&'static str> {
    let profile = container_values(parsed, None, "profile")
        .last()
        .map(|profile| profile.to_ascii_lowercase())
        .unwrap_or_default();
    let on_node = parsed.operands.iter().any(|target| names_node(target));
    match profile.as_str() {
        _ if !on_node => {
            (profile == "sysadmin").then_some("a privileged container (`--profile=sysadmin`)")
        }
        confined if CONFINED_NODE_PROFILES.contains(&confined) => None,
        "netadmin" => Some("a pod in the node's namespaces"),
        _ => Some("a pod in the node's namespaces with its root file system at `/host`"),
    }
}

/// Whether a `kubectl debug` target names a node (`node/n1`, `nodes/n1`, `no/n1`).
fn names_node(target: &str) -> bool {
    let Some((kind, _)) = target.split_once('/') else {
        return false;
    };
    let kind = kind.split('.').next().unwrap_or(kind).to_ascii_lowercase();
    matches!(kind.as_str(), "node" | "nodes" | "no")
}

/// What a pod `kubectl run` starts reaches of the node: `--privileged`, and what its
/// `--overrides` ask for.
fn run_reach(parsed: &Parsed<'_>, cmd: &Cmd<'_>) -> Vec<String> {
    let mut found = Vec::new();
    if container_flag(parsed, "privileged") {
        found.push(PRIVILEGED.to_owned());
    }
    for overrides in container_values(parsed, None, "overrides") {
        let Ok(document) = serde_json::from_str::<Value>(overrides) else {
            continue;
        };
        let mut spec = Spec {
            cmd,
            found: &mut found,
            budget: MAX_VALUES,
        };
        spec.document(&document);
    }
    found.dedup();
    found
}

/// A walk over a pod's `--overrides`, judging the fields that hand a pod the node.
struct Spec<'w, 'c> {
    /// The command, for canonicalising `hostPath` paths.
    cmd: &'w Cmd<'c>,
    /// What was found, as findings.
    found: &'w mut Vec<String>,
    /// Values still to be walked.
    budget: usize,
}

impl Spec<'_, '_> {
    /// Walks an override: a merge patch (the object itself), or a JSON patch
    /// (`--override-type=json`: a list of `{op, path, value}`), each value under the field its
    /// `path` names.
    fn document(&mut self, document: &Value) {
        let patches = document.as_array().filter(|operations| {
            operations
                .iter()
                .all(|operation| operation.get("path").is_some_and(Value::is_string))
        });
        let Some(patches) = patches else {
            self.value("", "", document, 0);
            return;
        };
        for operation in patches {
            let (Some(path), Some(value)) = (
                operation.get("path").and_then(Value::as_str),
                operation.get("value"),
            ) else {
                continue;
            };
            // `/spec/containers/0/securityContext/capabilities/add/-`: the field is `add`.
            let mut fields = path
                .split('/')
                .filter(|field| !field.is_empty() && *field != "-")
                .filter(|field| !field.bytes().all(|byte| byte.is_ascii_digit()))
                .rev();
            let key = fields.next().unwrap_or("");
            let parent = fields.next().unwrap_or("");
            self.value(parent, key, value, 0);
        }
    }

    /// Judges `value`, the field `key` of an object that is the field `parent` of its own, and
    /// walks what it holds.
    fn value(&mut self, parent: &str, key: &str, value: &Value, depth: usize) {
        if depth > MAX_DEPTH || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        self.judge(parent, key, value);
        match value {
            Value::Object(fields) => {
                for (child, value) in fields {
                    self.value(key, child, value, depth + 1);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.value(parent, key, item, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// Judges one field: `hostPID`/`hostIPC`, `privileged`, `capabilities.add`,
    /// `hostPath.path`, an `Unconfined` seccomp or AppArmor profile, `procMount: Unmasked`.
    fn judge(&mut self, parent: &str, key: &str, value: &Value) {
        let is_true = value.as_bool() == Some(true);
        let text = value.as_str().unwrap_or("");
        let finding = match (parent, key) {
            (_, "hostPID") if is_true => Some(shared_namespace("pid")),
            (_, "hostIPC") if is_true => Some(shared_namespace("ipc")),
            (_, "privileged") if is_true => Some(PRIVILEGED.to_owned()),
            ("capabilities", "add") => dangerous_capability(value.as_str()),
            ("hostPath", "path") if text.starts_with('/') => mounted(text, false, self.cmd),
            ("seccompProfile", "type") if text.eq_ignore_ascii_case("unconfined") => {
                unconfined("seccomp=unconfined")
            }
            ("appArmorProfile", "type") if text.eq_ignore_ascii_case("unconfined") => {
                unconfined("apparmor=unconfined")
            }
            (_, "procMount") if text.eq_ignore_ascii_case("unmasked") => {
                unconfined("systempaths=unconfined")
            }
            _ => None,
        };
        if let Some(finding) = finding
            && !self.found.contains(&finding)
        {
            self.found.push(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_targets() {
        for target in [
            "node/n1",
            "nodes/worker-2",
            "no/x",
            "Node/n1",
            "node.v1./n1",
        ] {
            assert!(names_node(target), "{target}");
        }
        for target in ["mypod", "pod/node", "deploy/web", "nodes"] {
            assert!(!names_node(target), "{target}");
        }
    }
}
