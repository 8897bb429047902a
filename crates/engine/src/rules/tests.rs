//! Tests of rule parsing, display, linting and the compiled matchers, end to end from rule text.
//! Pattern-level edge cases live beside each matcher module; these tests must not depend on the
//! evaluator or the shell analyser.

use proptest::prelude::*;
use serde_json::json;

use super::*;

const CTX: PathContext<'static> = PathContext {
    cwd: "/work/proj",
    home: Some("/home/ann"),
};

fn parse(text: &str) -> PermissionRule {
    match PermissionRule::parse(text) {
        Ok(rule) => rule,
        Err(e) => unreachable!("`{text}` should parse: {e}"),
    }
}

fn error(text: &str) -> String {
    match PermissionRule::parse(text) {
        Ok(rule) => unreachable!("`{text}` should not parse, got {rule:?}"),
        Err(e) => e.message().to_owned(),
    }
}

fn compiled(text: &str, kind: RuleKind) -> CompiledRule {
    match CompiledRule::new(&parse(text), kind) {
        Ok(rule) => rule,
        Err(e) => unreachable!("`{text}` should compile: {e}"),
    }
}

fn deny(text: &str) -> CompiledRule {
    compiled(text, RuleKind::Deny)
}

fn allow(text: &str) -> CompiledRule {
    compiled(text, RuleKind::Allow)
}

fn rule(tool: &str, specifier: Specifier) -> PermissionRule {
    PermissionRule {
        tool: tool.to_owned(),
        specifier,
    }
}

fn first_message(text: &str, kind: RuleKind) -> String {
    lint(&parse(text), kind)
        .first()
        .map(|l| l.message.clone())
        .unwrap_or_default()
}

fn codes(text: &str, kind: RuleKind) -> Vec<&'static str> {
    lint(&parse(text), kind).iter().map(|l| l.code).collect()
}

mod parsing {
    use super::*;

    #[test]
    fn bare_names_and_tool_wide_forms() {
        for text in [
            "Bash",
            "Bash()",
            "Bash(*)",
            " Bash ",
            "Bash( * )",
            "Bash(\t*)",
        ] {
            assert_eq!(parse(text), rule("Bash", Specifier::All), "{text}");
        }
        assert_eq!(parse("WebSearch"), rule("WebSearch", Specifier::All));
    }

    #[test]
    fn legacy_aliases_are_resolved() {
        assert_eq!(
            parse("Task(Explore)"),
            rule("Agent", Specifier::Other("Explore".into()))
        );
        assert_eq!(parse("KillShell").tool, "TaskStop");
        assert_eq!(parse("BashOutput").tool, "TaskOutput");
        assert_eq!(parse("AgentOutputTool").tool, "TaskOutput");
    }

    #[test]
    fn content_is_unescaped() {
        assert_eq!(
            parse(r#"Bash(python -c "print\(1\)")"#).specifier,
            Specifier::Command(r#"python -c "print(1)""#.into())
        );
        assert_eq!(
            parse(r"Bash(echo \\)").specifier,
            Specifier::Command(r"echo \".into())
        );
        // `\*` is not a rule-level escape: it reaches the command matcher.
        assert_eq!(
            parse(r"Bash(echo \*)").specifier,
            Specifier::Command(r"echo \*".into())
        );
        // Unescaped inner parentheses are content too (first `(`, last `)`).
        assert_eq!(
            parse("Bash(echo (a) b)").specifier,
            Specifier::Command("echo (a) b".into())
        );
    }

    #[test]
    fn specifier_sort_depends_on_the_tool() {
        assert_eq!(
            parse("Bash(npm run *)").specifier,
            Specifier::Command("npm run *".into())
        );
        assert_eq!(
            parse("PowerShell(Get-ChildItem *)").specifier,
            Specifier::Command("Get-ChildItem *".into())
        );
        assert_eq!(
            parse("Monitor(tail *)").specifier,
            Specifier::Command("tail *".into())
        );
        for tool in [
            "Read",
            "Edit",
            "Write",
            "MultiEdit",
            "NotebookEdit",
            "Grep",
            "Glob",
            "LSP",
        ] {
            assert_eq!(
                parse(&format!("{tool}(~/secrets/**)")).specifier,
                Specifier::Path("~/secrets/**".into()),
                "{tool}"
            );
        }
        assert_eq!(
            parse("WebFetch(domain:*.example.com)").specifier,
            Specifier::Domain("*.example.com".into())
        );
        assert_eq!(
            parse("WebFetch(domain: example.com )").specifier,
            Specifier::Domain("example.com".into())
        );
        assert_eq!(
            parse("Skill(deploy *)").specifier,
            Specifier::Other("deploy *".into())
        );
        assert_eq!(
            parse("Agent(my-plugin:reviewer)").specifier,
            Specifier::Other("my-plugin:reviewer".into())
        );
        assert_eq!(
            parse("Agent(myplugin:reviewer)").specifier,
            Specifier::Other("myplugin:reviewer".into())
        );
    }

    #[test]
    fn parameter_rules() {
        let param = |name: &str, value: &str| Specifier::Param {
            name: name.into(),
            value: value.into(),
        };
        assert_eq!(parse("Agent(model:opus)").specifier, param("model", "opus"));
        assert_eq!(
            parse("Agent(isolation : worktree)").specifier,
            param("isolation", "worktree")
        );
        assert_eq!(
            parse("Bash(run_in_background:true)").specifier,
            param("run_in_background", "true")
        );
        assert_eq!(parse("Bash(timeout:*)").specifier, param("timeout", "*"));
        assert_eq!(parse("Read(limit:*)").specifier, param("limit", "*"));
        assert_eq!(
            parse("WebFetch(prompt:*secret*)").specifier,
            param("prompt", "*secret*")
        );
        // Unknown tools: any identifier is a parameter.
        assert_eq!(parse("ExitPlanMode(plan:*)").specifier, param("plan", "*"));
        assert_eq!(
            parse("mcp__github__create_issue(repo:acme/*)").specifier,
            param("repo", "acme/*")
        );
        // A name that is not a field of a command tool is ordinary command content.
        assert_eq!(
            parse("Bash(npm:*)").specifier,
            Specifier::Command("npm:*".into())
        );
        assert_eq!(
            parse("Bash(git commit:*)").specifier,
            Specifier::Command("git commit:*".into())
        );
        assert_eq!(
            parse("Read(notes:draft)").specifier,
            Specifier::Path("notes:draft".into())
        );
    }

    #[test]
    fn malformed_rules_are_errors_not_dead_tool_names() {
        assert_eq!(
            error("Bash(rm -rf"),
            "unbalanced parenthesis in `Bash(rm -rf`"
        );
        assert_eq!(error("Bash)"), "unbalanced parenthesis in `Bash)`");
        assert_eq!(error("Bash)ls("), "unbalanced parenthesis in `Bash)ls(`");
        assert_eq!(
            error(r"Bash(ls\)"),
            r"unbalanced parenthesis in `Bash(ls\)`"
        );
        assert_eq!(
            error("Bash(ls) x"),
            "text after the closing parenthesis in `Bash(ls) x`"
        );
        assert_eq!(error("(foo)"), "missing tool name in `(foo)`");
        assert_eq!(
            error("Bash( )"),
            "empty pattern in `Bash( )`: write `Bash` for the whole tool"
        );
        assert_eq!(error(""), "empty rule");
        assert_eq!(error("   "), "empty rule");
        assert_eq!(
            error("Stop Task"),
            "invalid character ` ` in tool name `Stop Task` of `Stop Task`: tool names are letters, digits, `_`, `-` and `*`"
        );
        assert!(error("Bash.exe(ls)").starts_with("invalid character `.`"));
        assert!(error("mcp__").starts_with("missing mcp server name"));
        assert!(error("mcp____tool").starts_with("missing mcp server name"));
    }

    #[test]
    fn primary_fields_cannot_be_parameters() {
        assert_eq!(
            error("Bash(command:rm *)"),
            "`command` is what `Bash` rules match already, not a parameter: write `Bash(rm *)` instead of `Bash(command:rm *)`"
        );
        assert!(error("Read(file_path:/etc/passwd)").starts_with("`file_path` is what `Read`"));
        assert!(error("Grep(path:src)").starts_with("`path` is what `Grep`"));
        assert!(error("NotebookEdit(notebook_path:*)").starts_with("`notebook_path`"));
        assert!(error("WebFetch(url:https://x)").starts_with("`url` is what `WebFetch`"));
    }

    #[test]
    fn content_errors() {
        assert_eq!(
            error("WebFetch(https://example.com)"),
            "webfetch rules take `domain:<host>`, got `https://example.com` in `WebFetch(https://example.com)`"
        );
        assert!(error("WebFetch(domain:)").starts_with("empty domain"));
        assert!(error("WebFetch(domain:example.com/x)").starts_with("invalid character `/`"));
        assert_eq!(
            error("Agent(model:)"),
            "empty value in parameter rule `Agent(model:)`: write `model:*` to match any value"
        );
        assert!(error("Read(/a/[b)").starts_with("invalid path pattern `/a/[b`"));
        assert!(error("Read(../x)").contains("contains `..`"));
        assert!(error("Edit(!x)").contains("negation or a comment"));
        assert!(
            error("mcp__github__get_issue(foo)")
                .starts_with("`mcp__github__get_issue` rules take no specifier")
        );
        assert!(error("*(ls)").starts_with("`*` rules take no specifier"));
    }

    #[test]
    fn tool_name_globs_and_mcp_names_parse() {
        for text in [
            "*",
            "mcp__*",
            "mcp__github__get_*",
            "mcp__puppeteer",
            "mcp__puppeteer__*",
        ] {
            assert_eq!(parse(text), rule(text, Specifier::All), "{text}");
        }
        assert_eq!(parse("mcp__my-server__do_it").tool, "mcp__my-server__do_it");
    }
}

mod display {
    use super::*;

    #[test]
    fn canonical_forms() {
        let cases = [
            ("Bash", "Bash"),
            ("Bash(*)", "Bash"),
            ("Task(Explore)", "Agent(Explore)"),
            (
                r#"Bash(python -c "print\(1\)")"#,
                r#"Bash(python -c "print\(1\)")"#,
            ),
            (r"Bash(echo \\)", r"Bash(echo \\)"),
            (
                "WebFetch(domain:  example.com)",
                "WebFetch(domain:example.com)",
            ),
            ("Agent( model : opus )", "Agent(model:opus)"),
            ("Read( ~/.ssh/** )", "Read(~/.ssh/**)"),
            ("Bash(echo (a))", r"Bash(echo \(a\))"),
        ];
        for (input, shown) in cases {
            assert_eq!(parse(input).to_string(), shown, "{input}");
            assert_eq!(parse(shown), parse(input), "{input}");
        }
    }

    #[test]
    fn escaping_is_backslashes_first() {
        let rule = rule("Bash", Specifier::Command(r"a\(b".into()));
        assert_eq!(rule.to_string(), r"Bash(a\\\(b)");
        assert_eq!(parse(&rule.to_string()), rule);
    }

    fn rule_text() -> impl Strategy<Value = String> {
        let tool = prop_oneof![
            Just("Bash"),
            Just("PowerShell"),
            Just("Read"),
            Just("Edit"),
            Just("Write"),
            Just("Grep"),
            Just("WebFetch"),
            Just("Agent"),
            Just("Task"),
            Just("Skill"),
            Just("ExitPlanMode"),
            Just("mcp__srv__tool"),
            Just("mcp__srv__*"),
            Just("*"),
        ];
        let content = prop_oneof![
            "[a-z \\\\()*:~/.!#\\[\\]-]{0,16}",
            "domain:[a-z*.]{1,10}",
            "(model|timeout|run_in_background|command|file_path) ?: ?[a-z*]{0,5}",
            "[a-z]{1,6}:\\*",
        ];
        (tool, prop::option::of(content)).prop_map(|(tool, content)| match content {
            None => tool.to_owned(),
            Some(content) => format!("{tool}({content})"),
        })
    }

    proptest! {
        #[test]
        fn parse_display_parse_round_trips(text in rule_text()) {
            if let Ok(rule) = PermissionRule::parse(&text) {
                let shown = rule.to_string();
                let again = PermissionRule::parse(&shown);
                prop_assert_eq!(again.as_ref(), Ok(&rule), "{} → {}", text, shown);
                prop_assert_eq!(again.map(|r| r.to_string()), Ok(shown));
            }
        }

        #[test]
        fn display_round_trips_arbitrary_command_content(content in "\\PC{1,24}") {
            let content = content.trim().to_owned();
            prop_assume!(!content.is_empty() && content != "*");
            prop_assume!(split_param(&content).is_none_or(|(name, _)| tool_fields("Bash").is_none_or(|(p, o)| name != p && !o.contains(&name))));
            let rule = rule("Bash", Specifier::Command(content));
            prop_assert_eq!(PermissionRule::parse(&rule.to_string()), Ok(rule));
        }

        #[test]
        fn parse_never_panics(text in any::<String>()) {
            if let Ok(rule) = PermissionRule::parse(&text) {
                for kind in [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny] {
                    let _ = lint(&rule, kind);
                    if let Ok(compiled) = CompiledRule::new(&rule, kind) {
                        let _ = compiled.matches_tool(&text);
                        let _ = compiled.matches_command(&text);
                        let _ = compiled.matches_path(&text, &CTX);
                        let _ = compiled.may_match_under(&text, &CTX);
                        let _ = compiled.matches_host(&text);
                        let _ = compiled.matches_other(&text);
                    }
                }
            }
        }

        #[test]
        fn parse_never_panics_on_rule_shaped_text(text in "[A-Za-z_*]{0,6}\\([ -~]{0,20}\\)?[ -~]{0,3}") {
            let _ = PermissionRule::parse(&text);
        }
    }
}

mod matching {
    use super::*;

    #[test]
    fn tools() {
        assert!(deny("Bash(ls)").matches_tool("Bash"));
        assert!(deny("Bash(ls)").matches_tool("mcp__workspace__bash"));
        assert!(!deny("Bash(ls)").matches_tool("bash"));
        assert!(deny("Task(Explore)").matches_tool("Agent"));
        assert!(deny("Agent").matches_tool("Task"));
        assert!(deny("mcp__puppeteer").matches_tool("mcp__puppeteer__navigate"));
        assert!(allow("mcp__puppeteer__*").matches_tool("mcp__puppeteer__navigate"));
        assert!(allow("mcp__github__get_*").matches_tool("mcp__github__get_issue"));
        assert!(!allow("mcp__*").matches_tool("mcp__github__get_issue"));
        assert!(!allow("*").matches_tool("Read"));
        assert!(deny("*").matches_tool("Read"));
        assert!(compiled("mcp__*", RuleKind::Ask).matches_tool("mcp__github__get_issue"));
    }

    #[test]
    fn commands_from_the_reference() {
        assert!(!deny("Bash(npm run test:*)").matches_command("npm run test:unit"));
        assert!(deny("Bash(npm run test:*)").matches_command("npm run test"));
        assert!(!deny("Bash(* --help *)").matches_command("npm --help"));
        assert!(!deny("Bash(git log * main)").matches_command("git log main"));
        assert!(deny("Bash(ls*)").matches_command("lsof"));
        assert!(deny("Bash(ls *)").matches_command("ls"));
        assert!(!deny("Bash(ls *)").matches_command("lsof"));
        assert!(!deny("Bash(npm run build)").matches_command("npm run build --watch"));
        assert!(deny("Bash(git * main)").matches_command("git push origin main"));
        assert!(deny("Bash(rm *)").matches_command("rm   -rf\ttmp/"));
        assert!(deny(r"Bash(echo \*)").matches_command("echo *"));
        assert!(!deny(r"Bash(echo \*)").matches_command("echo x"));
        assert!(deny(r#"Bash(python -c "print\(1\)")"#).matches_command(r#"python -c "print(1)""#));
        assert!(!deny("Bash(Rm *)").matches_command("rm -rf /"));
        assert!(deny("Bash").matches_command("anything"));
        assert!(!deny("Read(x)").matches_command("x"));
    }

    #[test]
    fn paths_from_the_reference() {
        let env = deny("Read(.env)");
        assert!(env.matches_path("/work/proj/.env", &CTX));
        assert!(env.matches_path("/work/proj/deep/down/.env", &CTX));
        assert!(!env.matches_path("/home/ann/.env", &CTX));
        assert!(deny("Read(//**/.env)").matches_path("/home/ann/.env", &CTX));
        assert!(deny("Read(//**/.env)").matches_path("/work/proj/x/.env", &CTX));
        let ts = deny("Edit(/src/**/*.ts)");
        assert!(ts.matches_path("/work/proj/src/a/b.ts", &CTX));
        assert!(!ts.matches_path("/work/proj/lib/src/b.ts", &CTX));
        assert!(deny("Read(secrets)").matches_path("/work/proj/secrets/a/b", &CTX));
        assert!(deny("Read(src/**)").matches_path("/work/proj/pkg/src/a", &CTX));
        assert!(!allow("Read(src/**)").matches_path("/work/proj/pkg/src/a", &CTX));
        assert!(allow("Read(src/**)").matches_path("/work/proj/src/a", &CTX));
        assert!(deny("Read(~/.ssh/**)").matches_path("/home/ann/.ssh/id_rsa", &CTX));
        let no_home = PathContext {
            cwd: "/work/proj",
            home: None,
        };
        assert!(!deny("Read(~/.ssh/**)").matches_path("/home/ann/.ssh/id_rsa", &no_home));
        assert!(deny("Read").matches_path("/anything", &CTX));
        assert!(!deny("Bash(cat *)").matches_path("/work/proj/.env", &CTX));
    }

    #[test]
    fn recursive_reads() {
        assert!(deny("Read(~/.ssh/**)").may_match_under("/home/ann", &CTX));
        assert!(deny("Read(~/.ssh/**)").may_match_under("/", &CTX));
        assert!(!deny("Read(**/.env)").may_match_under("/work/proj", &CTX));
        assert!(!deny("Read(~/.ssh/**)").may_match_under("/work/proj", &CTX));
        assert!(!deny("WebFetch(domain:x.com)").may_match_under("/", &CTX));
    }

    #[test]
    fn hosts_from_the_reference() {
        let sub = deny("WebFetch(domain:*.example.com)");
        assert!(sub.matches_host("api.example.com"));
        assert!(sub.matches_host("a.b.example.com"));
        assert!(!sub.matches_host("example.com"));
        let apex = deny("WebFetch(domain:example.com)");
        assert!(apex.matches_host("Example.COM."));
        assert!(!apex.matches_host("api.example.com"));
        let tld = deny("WebFetch(domain:example.*)");
        assert!(tld.matches_host("example.org"));
        assert!(!tld.matches_host("example.evil.com"));
        assert!(deny("WebFetch(domain:*)").matches_host("anything.at.all"));
        assert!(deny("WebFetch").matches_host("x.y"));
    }

    #[test]
    fn params() {
        let model = deny("Agent(model:opus)");
        assert!(model.matches_param(&json!({"model": "opus"})));
        assert!(!model.matches_param(&json!({"model": "claude-opus-4"})));
        assert!(!model.matches_param(&json!({"model": "Opus"})));
        assert!(!model.matches_param(&json!({})));
        assert!(!model.matches_param(&json!(null)));
        let any_model = deny("Agent(model:*)");
        assert!(any_model.matches_param(&json!({"model": "haiku"})));
        assert!(!any_model.matches_param(&json!({"prompt": "x"})));
        assert!(!any_model.matches_param(&json!({"model": null})));
        assert!(!any_model.matches_param(&json!({"model": ["a"]})));
        assert!(!any_model.matches_param(&json!({"model": {"a": 1}})));
        let bg = deny("Bash(run_in_background:true)");
        assert!(bg.matches_param(&json!({"command": "x", "run_in_background": true})));
        assert!(!bg.matches_param(&json!({"command": "x", "run_in_background": false})));
        assert!(!bg.matches_param(&json!({"command": "x", "run_in_background": "yes"})));
        let timeout = deny("Bash(timeout:6000*)");
        assert!(timeout.matches_param(&json!({"timeout": 600000})));
        assert!(!timeout.matches_param(&json!({"timeout": 1000})));
        let spaced = deny("Agent( isolation : worktree )");
        assert!(spaced.matches_param(&json!({"isolation": "worktree"})));
        let repo = deny("mcp__github__create_issue(repo:acme/*)");
        assert!(repo.matches_param(&json!({"repo": "acme/secret"})));
        assert!(!repo.matches_param(&json!({"repo": "other/acme"})));
        assert!(!deny("Agent(Explore)").matches_param(&json!({"subagent_type": "Explore"})));
    }

    #[test]
    fn other_content() {
        let explore = deny("Task(Explore)");
        assert!(explore.matches_tool("Agent"));
        assert!(explore.matches_other("Explore"));
        assert!(!explore.matches_other("Explorer"));
        assert!(!explore.matches_other("explore"));
        let deploy = deny("Skill(deploy *)");
        assert!(deploy.matches_other("deploy"));
        assert!(deploy.matches_other("deploy prod"));
        assert!(!deploy.matches_other("deployer"));
        assert!(deny("Skill(deploy:*)").matches_other("deploy staging"));
        // `name:*` is the legacy prefix form even here: a word boundary, not a namespace.
        assert!(!deny("Agent(my-plugin:*)").matches_other("my-plugin:reviewer"));
        assert!(deny("Agent(my-plugin:rev*)").matches_other("my-plugin:reviewer"));
        assert!(!deny("Bash(ls)").matches_other("ls"));
    }

    #[test]
    fn compile_reports_invalid_hand_built_rules() {
        let bad_path = rule("Read", Specifier::Path("/a/[".into()));
        assert!(CompiledRule::new(&bad_path, RuleKind::Deny).is_err());
        let bad_host = rule("WebFetch", Specifier::Domain("a b".into()));
        assert!(CompiledRule::new(&bad_host, RuleKind::Deny).is_err());
        let ok = allow("Read(src/**)");
        assert_eq!(ok.kind(), RuleKind::Allow);
        assert_eq!(ok.rule().to_string(), "Read(src/**)");
    }
}

mod lints {
    use super::*;

    #[test]
    fn ignored_path_rule_tools() {
        assert_eq!(
            codes("Write(src/**)", RuleKind::Deny),
            ["write-rule-ignored"]
        );
        assert_eq!(
            codes("Glob(src/**)", RuleKind::Deny),
            ["write-rule-ignored"]
        );
        assert_eq!(
            codes("NotebookEdit(*.ipynb)", RuleKind::Allow),
            ["write-rule-ignored"]
        );
        assert_eq!(codes("MultiEdit(x)", RuleKind::Ask), ["write-rule-ignored"]);
        assert!(codes("Write", RuleKind::Deny).is_empty());
        assert!(codes("Edit(src/**)", RuleKind::Deny).is_empty());
        let message = &first_message("Write(src/**)", RuleKind::Deny);
        assert_eq!(
            message,
            "Claude Code never consults `Write(…)` path rules: write `Edit(src/**)`, which covers Edit, Write and NotebookEdit"
        );
    }

    #[test]
    fn mid_pattern_prefix() {
        assert_eq!(
            codes("Bash(git:* push)", RuleKind::Deny),
            ["mid-pattern-prefix"]
        );
        assert!(codes("Bash(git push:*)", RuleKind::Deny).is_empty());
    }

    #[test]
    fn lowercase_tool() {
        assert_eq!(codes("bash(ls)", RuleKind::Deny), ["lowercase-tool"]);
        let message = &first_message("bash(ls)", RuleKind::Deny);
        assert!(message.ends_with("did you mean `Bash`?"), "{message}");
        assert_eq!(codes("webfetch", RuleKind::Deny), ["lowercase-tool"]);
        assert!(codes("mcp__srv__tool", RuleKind::Deny).is_empty());
    }

    #[test]
    fn single_slash_paths() {
        for text in [
            "Read(/Users/alice/x)",
            "Edit(/home/ann/**)",
            "Read(/etc/passwd)",
        ] {
            assert_eq!(codes(text, RuleKind::Deny), ["single-slash-path"], "{text}");
        }
        assert!(codes("Read(//etc/passwd)", RuleKind::Deny).is_empty());
        assert!(codes("Edit(/src/**)", RuleKind::Deny).is_empty());
        let message = &first_message("Read(/etc/passwd)", RuleKind::Deny);
        assert!(message.contains("write `Read(//etc/passwd)`"), "{message}");
    }

    #[test]
    fn dangerous_allow_rules() {
        for text in [
            "Bash(python:*)",
            "Bash(*)",
            "Bash",
            "Bash(npx *)",
            "Bash(python3*)",
            "Bash(node -e *)",
            "Bash(npm run *)",
            "Bash(* *)",
            "Bash(SUDO *)",
            "PowerShell(iex *)",
            "PowerShell(python.exe *)",
            "Monitor(bash *)",
        ] {
            assert!(
                codes(text, RuleKind::Allow).contains(&"interpreter-allow"),
                "{text}"
            );
            assert!(
                !codes(text, RuleKind::Deny).contains(&"interpreter-allow"),
                "{text}"
            );
        }
        for text in [
            "Bash(python script.py)",
            "Bash(npm test)",
            "Bash(npm run build)",
        ] {
            assert!(codes(text, RuleKind::Allow).is_empty(), "{text}");
        }
        assert_eq!(codes("Agent(Explore)", RuleKind::Allow), ["agent-allow"]);
        assert!(codes("Agent(Explore)", RuleKind::Deny).is_empty());
    }

    #[test]
    fn allow_globs_and_wildcards() {
        for text in ["*", "mcp__*", "B*"] {
            assert_eq!(
                codes(text, RuleKind::Allow),
                ["unanchored-allow-glob"],
                "{text}"
            );
            assert!(codes(text, RuleKind::Deny).is_empty(), "{text}");
        }
        assert!(codes("mcp__github__get_*", RuleKind::Allow).is_empty());
        assert_eq!(
            codes("Bash(git * main)", RuleKind::Allow),
            ["mid-pattern-wildcard"]
        );
        assert!(codes("Bash(git * main)", RuleKind::Deny).is_empty());
        assert!(codes("Bash(git log *)", RuleKind::Allow).is_empty());
        assert!(codes(r"Bash(echo \* x)", RuleKind::Allow).is_empty());
    }

    #[test]
    fn content_for_tools_without_content() {
        assert_eq!(
            codes("WebSearch(cats)", RuleKind::Deny),
            ["content-ignored"]
        );
        assert_eq!(codes("ExitPlanMode(x)", RuleKind::Ask), ["content-ignored"]);
        assert!(codes("Skill(deploy *)", RuleKind::Deny).is_empty());
        assert!(codes("ExitPlanMode(plan:*)", RuleKind::Deny).is_empty());
    }

    #[test]
    fn params_and_mcp_specifiers() {
        assert_eq!(
            codes("Agent(model:opus)", RuleKind::Allow),
            ["param-allow-ignored", "agent-allow"]
        );
        assert!(codes("Agent(model:opus)", RuleKind::Deny).is_empty());
        assert_eq!(
            codes("mcp__github__create_issue(repo:x)", RuleKind::Deny),
            ["mcp-specifier-ignored"]
        );
    }
}
