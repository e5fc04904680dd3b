//! `git berth init` end to end on real repositories: atomic, idempotent, fail-closed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

struct Repo {
    base: PathBuf,
    root: PathBuf,
}

impl Repo {
    fn new(tag: &str) -> Repo {
        let base = std::env::temp_dir().join(format!("berth-init-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).expect("temp dir");
        let base = base.canonicalize().expect("canonical");
        let ok = Command::new("git")
            .args(["init", "-q", "repo"])
            .current_dir(&base)
            .env("HOME", &base)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git")
            .success();
        assert!(ok);
        Repo {
            root: base.join("repo"),
            base,
        }
    }

    fn init(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_git-berth"))
            .arg("init")
            .args(args)
            .current_dir(&self.root)
            .env("HOME", &self.base)
            .env("XDG_DATA_HOME", &self.base)
            .output()
            .expect("init runs")
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_default()
    }

    fn json(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(rel)).expect("json")
    }

    /// Uninstalls `runtime` and checks that `rel` is left holding exactly `expected`.
    fn uninstall_leaves(&self, runtime: &str, rel: &str, expected: serde_json::Value) {
        let o = self.init(&["--runtime", runtime, "--uninstall"]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(self.json(rel), expected);
    }

    fn mtime(&self, rel: &str) -> SystemTime {
        std::fs::metadata(self.root.join(rel))
            .and_then(|m| m.modified())
            .expect("mtime")
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FILES: [&str; 7] = [
    ".claude/settings.json",
    ".codex/hooks.json",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".github/hooks/berth-guard.json",
    ".opencode/plugins/berth-guard.ts",
    ".pi/extensions/berth-guard.ts",
];

#[test]
fn init_installs_the_seeds_three_runtimes_by_default_and_names_the_trust_steps() {
    let r = Repo::new("default");
    let o = r.init(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        r.read(".claude/settings.json")
            .contains("git berth guard --runtime claude")
    );
    assert!(
        r.read(".opencode/plugins/berth-guard.ts")
            .contains(r#"["git","berth","guard","--runtime","opencode"]"#)
    );
    assert!(
        r.read(".pi/extensions/berth-guard.ts")
            .contains(r#"["git","berth","guard","--runtime","pi"]"#)
    );
    assert!(!r.root.join(".codex").exists());
    assert!(err(&o).contains("trust dialog"), "{}", err(&o));
}

#[test]
fn a_second_run_writes_nothing_and_says_already_installed() {
    let r = Repo::new("idempotent");
    assert_eq!(
        r.init(&[
            "--runtime",
            "claude,codex,gemini,cursor,copilot,opencode,pi"
        ])
        .status
        .code(),
        Some(0)
    );
    let before: Vec<SystemTime> = FILES.iter().map(|f| r.mtime(f)).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = r.init(&[
        "--runtime",
        "claude,codex,gemini,cursor,copilot,opencode,pi",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(err(&o).contains("already installed"), "{}", err(&o));
    let after: Vec<SystemTime> = FILES.iter().map(|f| r.mtime(f)).collect();
    assert_eq!(before, after);
}

#[test]
fn settings_are_merged_keeping_foreign_hooks_and_permissions_and_uninstall_restores_them() {
    let r = Repo::new("merge");
    std::fs::create_dir_all(r.root.join(".claude")).expect("dir");
    let foreign = r#"{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"herdr report"}]}]}}"#;
    std::fs::write(r.root.join(".claude/settings.json"), foreign).expect("write");
    assert_eq!(r.init(&["--runtime", "claude"]).status.code(), Some(0));
    let merged = r.read(".claude/settings.json");
    assert!(
        merged.contains("herdr report")
            && merged.contains("Bash(npm test)")
            && merged.contains("PreToolUse")
    );
    r.uninstall_leaves(
        "claude",
        ".claude/settings.json",
        serde_json::from_str(foreign).expect("json"),
    );
}

#[test]
fn uninstall_removes_every_file_init_created() {
    let r = Repo::new("uninstall");
    let all = "claude,codex,gemini,cursor,copilot,opencode,pi";
    assert_eq!(
        r.init(&["--runtime", all, "--worktrees"]).status.code(),
        Some(0)
    );
    assert_eq!(
        r.init(&["--runtime", all, "--uninstall"]).status.code(),
        Some(0)
    );
    for f in FILES {
        assert!(!r.root.join(f).exists(), "{f}");
    }
    let left: Vec<_> = std::fs::read_dir(&r.root)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from(".git")]);
}

#[test]
fn an_unforced_overwrite_is_refused_and_nothing_is_written() {
    let r = Repo::new("conflict");
    std::fs::create_dir_all(r.root.join(".pi/extensions")).expect("dir");
    std::fs::write(r.root.join(".pi/extensions/berth-guard.ts"), "// mine\n").expect("write");
    let o = r.init(&["--runtime", "claude,pi"]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(e.starts_with("git berth: "), "{e}");
    assert!(
        e.contains("\nhint: git berth init --runtime pi --force"),
        "{e}"
    );
    assert!(
        !r.root.join(".claude").exists(),
        "claude's settings were written despite the refusal"
    );
    assert_eq!(r.read(".pi/extensions/berth-guard.ts"), "// mine\n");
    assert_eq!(
        r.init(&["--runtime", "claude,pi", "--force"]).status.code(),
        Some(0)
    );
    assert!(
        r.read(".pi/extensions/berth-guard.ts")
            .contains("tool_call")
    );
}

#[test]
fn a_settings_file_that_does_not_parse_is_a_configuration_error_and_left_as_it_is() {
    let r = Repo::new("badsettings");
    std::fs::create_dir_all(r.root.join(".claude")).expect("dir");
    std::fs::write(r.root.join(".claude/settings.json"), "{ nope").expect("write");
    let o = r.init(&["--runtime", "claude"]);
    assert_eq!(o.status.code(), Some(78), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.starts_with("git berth: .claude/settings.json does not parse ("),
        "{e}"
    );
    assert_eq!(r.read(".claude/settings.json"), "{ nope");
}

#[test]
fn a_target_outside_any_repository_is_refused() {
    let r = Repo::new("nongit");
    let outside = r.base.join("plain");
    std::fs::create_dir_all(&outside).expect("dir");
    let o = r.init(&[outside.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("is not in a git repository"),
        "{}",
        err(&o)
    );
    assert_eq!(std::fs::read_dir(&outside).expect("dir").count(), 0);
}

#[test]
fn an_unknown_runtime_is_refused_by_name() {
    let r = Repo::new("unknown");
    let o = r.init(&["--runtime", "claude,emacs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("'emacs'"));
    assert!(!r.root.join(".claude").exists());
}

#[test]
fn init_from_a_subdirectory_installs_at_the_checkout_root() {
    let r = Repo::new("subdir");
    std::fs::create_dir_all(r.root.join("src/deep")).expect("dir");
    let o = r.init(&["src/deep", "--runtime", "claude"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(Path::new(&r.root.join(".claude/settings.json")).exists());
}

#[test]
fn a_rerun_upgrades_an_install_that_sent_only_some_tools_to_the_guard() {
    let r = Repo::new("upgrade");
    std::fs::create_dir_all(r.root.join(".claude")).expect("dir");
    let earlier = r#"{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"PreToolUse":[{"matcher":"Bash|PowerShell|Monitor|Edit|Write|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"git berth guard --runtime claude","timeout":10,"onFailure":"block"}]}]}}"#;
    std::fs::write(r.root.join(".claude/settings.json"), earlier).expect("write");
    let o = r.init(&["--runtime", "claude"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).starts_with("updated "), "{}", err(&o));
    let doc = r.json(".claude/settings.json");
    assert_eq!(doc["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["hooks"]["PreToolUse"][0]["matcher"], "*");
    assert_eq!(doc["permissions"]["allow"][0], "Bash(npm test)");
    let again = r.init(&["--runtime", "claude"]);
    assert!(err(&again).contains("already installed"), "{}", err(&again));
    r.uninstall_leaves(
        "claude",
        ".claude/settings.json",
        serde_json::json!({"permissions":{"allow":["Bash(npm test)"]}}),
    );
}

#[test]
fn uninstall_takes_out_an_install_that_sent_only_some_tools_to_the_guard() {
    let r = Repo::new("uninstall-earlier");
    std::fs::create_dir_all(r.root.join(".cursor")).expect("dir");
    let earlier = r#"{"version":1,"hooks":{"beforeShellExecution":[{"command":"git berth guard --runtime cursor","timeout":10,"failClosed":true}],"preToolUse":[{"command":"git berth guard --runtime cursor","matcher":"Write|Edit|StrReplace|Delete","timeout":10,"failClosed":true}]}}"#;
    std::fs::write(r.root.join(".cursor/hooks.json"), earlier).expect("write");
    let o = r.init(&["--runtime", "cursor", "--uninstall"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!r.root.join(".cursor").exists(), "{}", err(&o));
}

#[test]
fn a_plain_uninstall_takes_berth_out_of_every_runtime_it_finds_and_lists_what_it_removed() {
    let r = Repo::new("uninstall-everywhere");
    assert_eq!(
        r.init(&["--runtime", "claude,codex", "--worktrees"])
            .status
            .code(),
        Some(0)
    );
    let o = r.init(&["--uninstall"]);
    assert_eq!(o.status.code(), Some(0));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!r.root.join(".codex/hooks.json").exists(), "{said}");
    assert!(!r.root.join(".claude/settings.json").exists(), "{said}");
    assert!(said.contains(".codex/hooks.json"), "{said}");
    assert!(said.contains(".claude/settings.json"), "{said}");
    let again = r.init(&["--uninstall"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("not installed (any runtime)"));
}

#[test]
fn init_in_a_linked_worktree_says_which_checkout_it_writes_into() {
    let r = Repo::new("linked-init");
    let linked = r.root.parent().unwrap().join("linked-init-wt");
    let ok = Command::new("git")
        .args(["worktree", "add", "-q", "-b", "side"])
        .arg(&linked)
        .current_dir(&r.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let o = Command::new(env!("CARGO_BIN_EXE_git-berth"))
        .args(["init", "--runtime", "claude"])
        .current_dir(&linked)
        .env("HOME", r.root.parent().unwrap())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(
        said.contains("note: writing into the linked worktree"),
        "{said}"
    );
    assert!(
        !said.contains("git berth:"),
        "a notice, not an error: {said}"
    );
    assert!(said.contains(&r.root.display().to_string()), "{said}");
    assert!(linked.join(".claude/settings.json").exists());
    assert!(!r.root.join(".claude/settings.json").exists());
    let _ = std::fs::remove_dir_all(&linked);
}

const MASTERS: [&str; 3] = [
    ".claude/agents/master.md",
    ".opencode/agent/master.md",
    ".pi/prompts/master.md",
];

/// The YAML frontmatter of a master definition, between its first two `---` lines.
fn frontmatter(text: &str) -> String {
    let rest = text.strip_prefix("---\n").expect("starts with frontmatter");
    rest[..rest.find("\n---\n").expect("frontmatter ends")].to_string()
}

#[test]
fn with_orchestrator_writes_the_masters_definitions_beside_the_guard() {
    let r = Repo::new("orch");
    let o = r.init(&["--with-orchestrator"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    for m in MASTERS {
        assert!(err(&o).contains(&format!("created {}", r.root.join(m).display())));
        assert!(r.read(m).contains("git berth layer1"), "{m}");
    }
    assert!(err(&o).contains("claude --agent master"), "{}", err(&o));

    let claude = frontmatter(&r.read(MASTERS[0]));
    assert!(claude.lines().any(|l| l == "name: master"), "{claude}");
    let tools = claude
        .lines()
        .find_map(|l| l.strip_prefix("tools: "))
        .expect("a tools allow-list");
    let tools: Vec<&str> = tools.split(", ").collect();
    assert!(
        tools.contains(&"Bash") && tools.contains(&"Read"),
        "{tools:?}"
    );
    for editing in ["Write", "Edit", "MultiEdit", "NotebookEdit"] {
        assert!(!tools.contains(&editing), "{editing} in {tools:?}");
    }

    let opencode = frontmatter(&r.read(MASTERS[1]));
    assert!(opencode.lines().any(|l| l == "mode: primary"), "{opencode}");
    assert!(
        opencode.contains("permission:\n  edit: deny\n  write: deny"),
        "{opencode}"
    );

    let pi = r.read(MASTERS[2]);
    assert!(frontmatter(&pi).starts_with("description: "), "{pi}");
    assert!(pi.contains("never call `edit` or `write`"), "{pi}");

    // The guard files are what plain init writes.
    assert!(
        r.read(".opencode/plugins/berth-guard.ts")
            .contains("MASTER_AGENT")
    );
}

#[test]
fn with_orchestrator_writes_masters_only_for_the_runtimes_named() {
    let r = Repo::new("orch-some");
    let o = r.init(&["--with-orchestrator", "--runtime", "opencode,codex"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(r.root.join(MASTERS[1]).exists());
    assert!(!r.root.join(MASTERS[0]).exists());
    assert!(!r.root.join(MASTERS[2]).exists());
    assert!(
        err(&o).contains("codex: no master definition"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_second_run_with_orchestrator_writes_nothing_and_says_so() {
    let r = Repo::new("orch-again");
    assert_eq!(r.init(&["--with-orchestrator"]).status.code(), Some(0));
    let before: Vec<SystemTime> = MASTERS.iter().map(|f| r.mtime(f)).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = r.init(&["--with-orchestrator"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        err(&o).trim(),
        format!(
            "git berth: already installed (claude, opencode, pi, with the master agent) in {}",
            r.root.display()
        )
    );
    let after: Vec<SystemTime> = MASTERS.iter().map(|f| r.mtime(f)).collect();
    assert_eq!(before, after);
}

#[test]
fn uninstall_removes_the_masters_and_everything_else_init_wrote() {
    let r = Repo::new("orch-uninstall");
    let all = "claude,codex,gemini,cursor,copilot,opencode,pi";
    let o = r.init(&["--runtime", all, "--worktrees", "--with-orchestrator"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = r.init(&["--uninstall"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    for m in MASTERS {
        assert!(err(&o).contains(&format!("removed {}", r.root.join(m).display())));
    }
    let left: Vec<_> = std::fs::read_dir(&r.root)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from(".git")]);
}

#[test]
fn a_master_the_user_edited_is_not_overwritten_without_force_nor_removed_by_uninstall() {
    let r = Repo::new("orch-edited");
    assert_eq!(r.init(&["--with-orchestrator"]).status.code(), Some(0));
    let edited = format!("{}\nAlways answer in French.\n", r.read(MASTERS[0]));
    std::fs::write(r.root.join(MASTERS[0]), &edited).expect("edit");
    std::fs::remove_file(r.root.join(MASTERS[1])).expect("rm");

    let o = r.init(&["--with-orchestrator"]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(
        e.starts_with("git berth: .claude/agents/master.md exists and is not the one"),
        "{e}"
    );
    assert!(
        e.contains("\nhint: git berth init --with-orchestrator --runtime claude --force"),
        "{e}"
    );
    assert_eq!(r.read(MASTERS[0]), edited);
    assert!(
        !r.root.join(MASTERS[1]).exists(),
        "the plan was carried out in part"
    );

    let o = r.init(&["--uninstall"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains(&format!(
            "warning: kept {}: it was changed since init wrote it",
            r.root.join(MASTERS[0]).display()
        )),
        "{}",
        err(&o)
    );
    assert_eq!(r.read(MASTERS[0]), edited);
    assert!(!r.root.join(MASTERS[2]).exists());
    assert!(!r.root.join(".claude/settings.json").exists());

    let o = r.init(&["--with-orchestrator", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!r.read(MASTERS[0]).contains("French"));
}

/// The files init writes berth's MCP server into, one per runtime that takes MCP servers.
const MCP_FILES: [&str; 5] = [
    ".mcp.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/mcp.json",
    "opencode.json",
];

const ALL: &str = "claude,codex,gemini,cursor,copilot,opencode,pi";

#[test]
fn init_registers_the_mcp_server_for_each_runtime_and_says_pi_is_skipped() {
    let r = Repo::new("mcp");
    let o = r.init(&["--runtime", ALL]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let plain = serde_json::json!({"command": "git", "args": ["berth", "mcp"]});
    assert_eq!(r.json(".mcp.json")["mcpServers"]["git-berth"], plain);
    assert_eq!(r.json(".cursor/mcp.json")["mcpServers"]["git-berth"], plain);
    assert_eq!(
        r.json(".gemini/settings.json")["mcpServers"]["git-berth"],
        plain
    );
    assert_eq!(
        r.json("opencode.json")["mcp"]["git-berth"],
        serde_json::json!({"type": "local", "command": ["git", "berth", "mcp"], "enabled": true})
    );
    assert!(
        r.read(".codex/config.toml")
            .contains("[mcp_servers.git-berth]\ncommand = \"git\"\nargs = [\"berth\",\"mcp\"]\n")
    );
    let allow = &r.json(".claude/settings.json")["permissions"]["allow"];
    assert_eq!(allow, &serde_json::json!(["mcp__git-berth__worktree_list"]));
    assert!(
        err(&o).contains("pi: MCP server skipped: this runtime takes no MCP servers"),
        "{}",
        err(&o)
    );
    for f in MCP_FILES {
        assert!(err(&o).contains(f), "{f}: {}", err(&o));
    }
}

#[test]
fn a_second_init_leaves_the_mcp_files_alone() {
    let r = Repo::new("mcp-again");
    assert_eq!(r.init(&["--runtime", ALL]).status.code(), Some(0));
    let before: Vec<SystemTime> = MCP_FILES.iter().map(|f| r.mtime(f)).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = r.init(&["--runtime", ALL]);
    assert!(err(&o).contains("already installed"), "{}", err(&o));
    let after: Vec<SystemTime> = MCP_FILES.iter().map(|f| r.mtime(f)).collect();
    assert_eq!(before, after);
}

#[test]
fn uninstall_leaves_the_users_own_servers_and_settings_as_they_were() {
    let r = Repo::new("mcp-theirs");
    let theirs = r#"{"mcpServers":{"docs":{"command":"docs-mcp","args":["--stdio"]}}}"#;
    let opencode = r#"{"$schema":"https://opencode.ai/config.json","mcp":{"docs":{"type":"local","command":["docs-mcp"]}}}"#;
    let codex = "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    std::fs::create_dir_all(r.root.join(".codex")).expect("dir");
    std::fs::write(r.root.join(".mcp.json"), theirs).expect("write");
    std::fs::write(r.root.join("opencode.json"), opencode).expect("write");
    std::fs::write(r.root.join(".codex/config.toml"), codex).expect("write");
    let o = r.init(&["--runtime", ALL]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        r.json(".mcp.json")["mcpServers"]["docs"]["command"],
        "docs-mcp"
    );
    assert!(r.read(".codex/config.toml").starts_with(codex));
    let o = r.init(&["--runtime", ALL, "--uninstall"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        r.json(".mcp.json"),
        serde_json::from_str::<serde_json::Value>(theirs).expect("json")
    );
    assert_eq!(
        r.json("opencode.json"),
        serde_json::from_str::<serde_json::Value>(opencode).expect("json")
    );
    assert_eq!(r.read(".codex/config.toml"), codex);
    for f in [
        ".cursor/mcp.json",
        ".gemini/settings.json",
        ".claude/settings.json",
    ] {
        assert!(!r.root.join(f).exists(), "{f}");
    }
}

#[test]
fn no_mcp_writes_no_mcp_file_nor_allow_rule() {
    let r = Repo::new("no-mcp");
    let o = r.init(&["--runtime", ALL, "--no-mcp"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    for f in [
        ".mcp.json",
        ".codex/config.toml",
        ".cursor/mcp.json",
        "opencode.json",
    ] {
        assert!(!r.root.join(f).exists(), "{f}");
    }
    assert!(r.json(".gemini/settings.json").get("mcpServers").is_none());
    assert!(!r.read(".claude/settings.json").contains("mcp__"));
    assert!(!err(&o).contains("MCP"), "{}", err(&o));
}
