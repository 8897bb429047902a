use serde_json::json;

use super::*;

fn errors(document: serde_json::Value) -> Vec<String> {
    Bundle::from_value(document)
        .expect_err("invalid")
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Every message of `expected` is among `found`.
fn assert_has(found: &[String], expected: &[&str]) {
    for message in expected {
        assert!(
            found.iter().any(|e| e == message),
            "missing `{message}` in {found:#?}"
        );
    }
}

#[test]
fn a_null_name_is_missing() {
    assert_eq!(errors(json!({ "name": null })), ["name: is required"]);
    assert_eq!(errors(json!({ "name": 5 })), ["name: must be a string"]);
}

#[test]
fn collects_every_error_with_its_location() {
    let found = errors(json!({
        "permissions": { "deny": ["Bash(rm -rf", "Read(.env)", 7], "allow": "Bash" },
        "include": ["baseline", "nope"],
        "rules": [{ "id": "x", "decision": "block", "command": "rm *" }, { "decision": "deny" }],
        "options": { "unresolvable": "allow", "colour": "red" },
        "tests": [{ "tool": "Bash", "input": { "command": "ls" }, "expect": "maybe" }]
    }));
    let expected = [
        "name: is required",
        "permissions.deny[0]: unbalanced parenthesis in `Bash(rm -rf`",
        "permissions.deny[2]: must be a string",
        "include[1]: unknown pack `nope` (known: baseline, secrets)",
        "rules[0].decision: must be `deny`, `ask` or `allow`, not `block`",
        "rules[1].id: is required",
        "options.colour: unknown option `colour` (known: unresolvable, default)",
        "options.unresolvable: must be `ask` or `deny`, not `allow`",
        "tests[0].expect: must be `deny`, `ask`, `allow` or `none`",
    ];
    assert_has(&found, &expected);
    assert!(
        found
            .iter()
            .any(|e| e.starts_with("rules[1]: needs at least one matcher")),
        "{found:#?}"
    );
}

#[test]
fn a_misspelt_key_is_named_with_the_key_it_misses() {
    let found = errors(json!({
        "name": "typos",
        "permisions": { "deny": ["Bash(rm:*)"] },
        "Options": { "defualt": "none" },
        "rules": [{ "id": "r", "programs": ["psql"], "decision": "deny" }],
        "tests": [{ "tool": "Bash", "inptu": "ls", "expect": "none" }]
    }));
    let expected = [
        "permisions: not a bundle key; did you mean `permissions`?",
        "Options: not a bundle key; did you mean `options`?",
        "rules[0].programs: unknown rule key `programs`; did you mean `program`?",
        "tests[0].inptu: unknown test key `inptu`; did you mean `input`?",
    ];
    assert_has(&found, &expected);
    // The misspelt key is the problem: no "`input` must be an object" beside it.
    assert!(
        !found.iter().any(|e| e.starts_with("tests[0].input")),
        "{found:#?}"
    );
    let found = errors(json!({
        "name": "typos",
        "permissions": { "dney": ["Bash(rm:*)"] },
        "options": { "defualt": "none" }
    }));
    assert_eq!(
        found,
        [
            "permissions.dney: not a permissions list; did you mean `deny`?",
            "options.defualt: unknown option `defualt`; did you mean `default`?",
        ]
    );
}

/// A rule whose `events` or `permission_mode` misspells a name would never apply.
#[test]
fn a_misspelt_event_or_permission_mode_is_named() {
    let found = errors(json!({
        "name": "names",
        "rules": [
            { "id": "a", "tool": "Bash", "decision": "deny", "events": ["PretoolUse", "Stop"] },
            { "id": "b", "tool": "Bash", "decision": "ask", "permission_mode": ["acceptedits"] }
        ],
        "guidelines": [{ "text": "hi", "events": ["sessionStart"] }]
    }));
    assert_eq!(
        found,
        [
            "rules[0].events[0]: unknown event `PretoolUse`; did you mean `PreToolUse`?",
            "rules[1].permission_mode[0]: unknown permission mode `acceptedits`; did you mean `acceptEdits`?",
            "guidelines[0].events[0]: unknown event `sessionStart`; did you mean `SessionStart`?",
        ]
    );
    // A name far from every known one may be another agent's own: a warning.
    let bundle = Bundle::from_value(json!({
        "name": "names",
        "rules": [{ "id": "a", "tool": ".*", "decision": "deny", "events": ["BeforeModel"] }]
    }))
    .expect("valid");
    assert_eq!(
        bundle.findings,
        [Finding {
            severity: Severity::Warning,
            code: "unknown-event",
            message: "rules[0].events[0]: `BeforeModel` is not a Claude Code event: it matches only where an agent sends exactly that name".to_owned()
        }]
    );
}

#[test]
fn a_regex_error_says_what_is_wrong_and_where() {
    let found = errors(json!({
        "name": "regexes",
        "rules": [
            { "id": "a", "program": ["psql"], "args": "(?i)(prod", "decision": "deny" },
            { "id": "t", "tool": "Edit|[Write", "decision": "ask" },
            // Wrapped in the anchors this would be a regex, one that escapes them.
            { "id": "e", "tool": "Edit)|(Write", "decision": "deny" }
        ]
    }));
    assert_eq!(
        found,
        [
            "rules[0].args: invalid regex `(?i)(prod`: unclosed group at character 5 (`(`)",
            "rules[1].tool: invalid regex `Edit|[Write`: unclosed character class at character 6 (`[`)",
            "rules[2].tool: invalid regex `Edit)|(Write`: unopened group at character 5 (`)`)",
        ]
    );
}

#[test]
fn a_managed_settings_file_loads_as_it_is() {
    let text = r#"{
        "permissions": { "deny": ["Bash(curl:*)"], "defaultMode": "acceptEdits", "disableBypassPermissionsMode": "disable" },
        "allowManagedHooksOnly": true,
        "env": { "FOO": "1" }
    }"#;
    let bundle = Bundle::parse_named(text, Format::Json, "managed-settings").expect("valid");
    assert_eq!(bundle.name, "managed-settings");
    assert_eq!(bundle.permissions.deny.len(), 1);
    // What toolgate does not read is a note, never a warning or an error.
    let notes: Vec<(&str, &str)> = bundle
        .findings
        .iter()
        .map(|finding| {
            assert_eq!(finding.severity, Severity::Note, "{finding:?}");
            (finding.code, finding.message.as_str())
        })
        .collect();
    assert_eq!(
        notes,
        [
            (
                "ignored-key",
                "`allowManagedHooksOnly`: not a bundle key, ignored"
            ),
            ("ignored-key", "`env`: not a bundle key, ignored"),
            (
                "ignored-setting",
                "`permissions.defaultMode`: a Claude Code setting toolgate does not enforce, ignored"
            ),
            (
                "ignored-setting",
                "`permissions.disableBypassPermissionsMode`: a Claude Code setting toolgate does not enforce, ignored"
            ),
        ]
    );
}

/// A managed-settings hook that calls toolgate on a gating event without `onFailure: "block"`
/// fails open: a warning. Without `timeout`: a note. Other hooks, and other events, are not
/// toolgate's to judge.
#[test]
fn a_toolgate_hook_that_fails_open_is_a_warning() {
    let document = json!({
        "name": "m",
        "hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "http", "url": "https://tg.internal/v1/evaluate", "timeout": 5},
                {"type": "http", "url": "https://tg.internal/v1/evaluate",
                 "timeout": 5, "onFailure": "block"},
                {"type": "command", "command": "toolgate hook --agent claude-code"},
                {"type": "command", "command": "./format.sh"},
            ]}],
            "UserPromptSubmit": [{"hooks": [
                {"type": "http", "url": "https://tg.internal/v1/evaluate", "timeout": 5},
            ]}],
        },
    });
    let bundle = Bundle::from_value(document).expect("valid");
    let found: Vec<(Severity, &str, &str)> = bundle
        .findings
        .iter()
        .filter(|finding| finding.code != "ignored-key")
        .map(|finding| {
            let at = finding.message.split(':').next().unwrap_or_default();
            (finding.severity, finding.code, at)
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                Severity::Warning,
                "hook-fails-open",
                "hooks.PreToolUse[0].hooks[0]"
            ),
            (
                Severity::Warning,
                "hook-fails-open",
                "hooks.PreToolUse[0].hooks[2]"
            ),
            (
                Severity::Note,
                "hook-default-timeout",
                "hooks.PreToolUse[0].hooks[2]"
            ),
        ],
        "{:#?}",
        bundle.findings
    );
}

#[test]
fn yaml_and_json_of_the_same_document_hash_alike() {
    let yaml = Bundle::parse(
        "name: a\npermissions:\n  deny: [\"Bash(rm:*)\"]\n",
        Format::Yaml,
    )
    .expect("yaml");
    let json = Bundle::parse(
        r#"{"permissions":{"deny":["Bash(rm:*)"]},"name":"a"}"#,
        Format::Json,
    )
    .expect("json");
    assert_eq!(yaml.sha256(), json.sha256());
    assert_eq!(yaml.sha256().len(), 64);
}

#[test]
fn fragments_merge_in_name_order() {
    let bundle = Bundle::from_fragments(vec![
        ("20-team.json".into(), json!({ "permissions": { "deny": ["Bash(rm:*)", "WebSearch"] }, "options": { "unresolvable": "deny" } })),
        ("10-base.json".into(), json!({ "name": "merged", "permissions": { "deny": ["WebSearch"] }, "options": { "unresolvable": "ask" } })),
    ])
    .expect("valid");
    let denies: Vec<&str> = bundle
        .permissions
        .deny
        .iter()
        .map(|rule| rule.text.as_str())
        .collect();
    assert_eq!(denies, ["WebSearch", "Bash(rm:*)"]);
    assert_eq!(
        bundle.options.unresolvable,
        Outcome::Deny,
        "a later scalar replaces an earlier one"
    );
}

/// An error in a directory of fragments names the file and the place in it, not the place in
/// the merged document, which no one can see.
#[test]
fn errors_in_fragments_name_the_fragment_and_the_place_in_it() {
    let errors = Bundle::from_fragments(vec![
        (
            "10-base.yaml".into(),
            json!({ "name": "m", "rules": [
            { "id": "a", "program": ["rm"], "decision": "deny" },
            { "id": "b", "program": ["mv"], "decision": "ask" }
        ], "permissions": { "deny": ["WebSearch"] } }),
        ),
        (
            "20-team.yaml".into(),
            json!({
                "rules": [{ "id": "c", "programs": ["psql"], "args": "(", "decision": "deny" }],
                "permissions": { "deny": ["Bash(rm"] },
                "optons": {}
            }),
        ),
    ])
    .expect_err("invalid");
    let found: Vec<String> = errors.errors.iter().map(ToString::to_string).collect();
    assert_has(
        &found,
        &[
            "20-team.yaml: optons: not a bundle key; did you mean `options`?",
            "20-team.yaml: permissions.deny[0]: unbalanced parenthesis in `Bash(rm`",
            "20-team.yaml: rules[0].programs: unknown rule key `programs`; did you mean `program`?",
            "20-team.yaml: rules[0].args: invalid regex `(`: unclosed group at character 1 (`(`)",
        ],
    );
    let bundle = Bundle::from_fragments(vec![
        ("a.json".into(), json!({ "name": "m", "hooks": {} })),
        (
            "b.json".into(),
            json!({ "permissions": { "allow": ["Bash(python:*)"] } }),
        ),
    ])
    .expect("valid");
    let mut warnings: Vec<String> = bundle
        .findings
        .iter()
        .map(|finding| finding.message.clone())
        .collect();
    warnings.sort();
    let [hooks, allow] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert_eq!(hooks, "a.json: `hooks`: not a bundle key, ignored");
    assert!(
        allow.starts_with("b.json: permissions.allow[0]: `Bash(python:*)`"),
        "{allow}"
    );
}

#[test]
fn rejects_hostile_documents_without_recursing() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let error = Bundle::parse(&deep, Format::Json).expect_err("too deep");
    assert_eq!(error.errors[0].location, "document");
    assert!(Bundle::parse("name: [unclosed", Format::Yaml).is_err());
    assert!(Bundle::parse("[]", Format::Json).is_err());
}

#[test]
fn duplicate_rule_ids_are_rejected() {
    let found = errors(json!({
        "name": "d",
        "rules": [
            { "id": "same", "program": ["rm"], "decision": "deny" },
            { "id": "same", "program": ["mv"], "decision": "ask" }
        ]
    }));
    assert_eq!(found, ["rules[1].id: duplicate rule id `same`"]);
}

#[test]
fn test_cases_get_default_event_fields() {
    let bundle = Bundle::from_value(json!({
        "name": "t",
        "tests": [{ "name": "shorthand", "tool": "Bash", "input": "ls", "expect": "none" }]
    }))
    .expect("valid");
    let event = &bundle.tests[0].event;
    assert_eq!(event["hook_event_name"], "PreToolUse");
    assert_eq!(event["tool_input"]["command"], "ls");
    assert_eq!(event["cwd"], validate::TEST_CWD);
}

/// A bundle's regexes share one budget: a thousand rules of `\w{20}` (a megabyte each,
/// compiled) are refused from the rule past it, each naming the budget, before the rest are
/// compiled; the same rules with ASCII classes fit.
#[test]
fn a_bundle_of_large_regexes_is_refused_at_the_budget() {
    let rules = |class: &str| {
        (0..1000)
            .map(|i| json!({ "id": format!("r{i}"), "decision": "deny", "args": format!("{class}{{20}}") }))
            .collect::<Vec<_>>()
    };
    let found = errors(json!({ "name": "large", "rules": rules(r"\w") }));
    assert!(found.len() > 900, "{} errors", found.len());
    let first = &found[0];
    assert!(
        first.contains(".args: regex `\\w{20}` does not fit"),
        "{first}"
    );
    assert!(first.contains("16 MiB"), "{first}");
    Bundle::from_value(json!({ "name": "small", "rules": rules(r"(?-u:\w)") }))
        .expect("ASCII classes fit");
}

#[test]
fn typo_distance_counts_edits_and_swaps() {
    let distance = |a: &str, b: &str| {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        validate::typo_distance(&a, &b)
    };
    assert_eq!(distance("deny", "deny"), 0);
    assert_eq!(distance("dney", "deny"), 1);
    assert_eq!(distance("permisions", "permissions"), 1);
    assert_eq!(distance("rule", "rules"), 1);
    assert_eq!(distance("", "ask"), 3);
    assert_eq!(distance("hooks", "tests"), 4);
}
