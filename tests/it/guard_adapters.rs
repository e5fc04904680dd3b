//! The guard's answer to each runtime's hook JSON, from the real binary in a primary checkout
//! and a linked worktree; and the OpenCode plugin and the Pi extension that `git berth init`
//! installs, run under node with a stub of each runtime's API: they must let an allowed call
//! through and block the rest. The node cases are skipped (with a note) where node is missing.

use crate::node;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Setup {
    base: PathBuf,
    primary: PathBuf,
    linked: PathBuf,
    path_env: String,
}

impl Setup {
    fn new(tag: &str) -> Setup {
        let base = std::env::temp_dir().join(format!("berth-adapter-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).expect("temp dir");
        let base = base.canonicalize().expect("canonical");
        let git = |dir: &Path, args: &[&str]| {
            let ok = Command::new("git")
                .args(args)
                .current_dir(dir)
                .env("HOME", &base)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.com")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.com")
                .status()
                .expect("git")
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&base, &["init", "-q", "-b", "main", "primary"]);
        let primary = base.join("primary");
        git(&primary, &["commit", "-q", "--allow-empty", "-m", "init"]);
        git(
            &primary,
            &["worktree", "add", "-q", "-b", "side", "../linked"],
        );
        // `git berth` finds `git-berth` on PATH, as it will on a user's machine.
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_git-berth"))
            .parent()
            .expect("bin dir")
            .to_path_buf();
        let path_env = format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let ok = Command::new(env!("CARGO_BIN_EXE_git-berth"))
            .args(["init", "--runtime", "opencode,pi"])
            .current_dir(&primary)
            .status()
            .expect("init")
            .success();
        assert!(ok);
        Setup {
            linked: base.join("linked"),
            primary,
            base,
            path_env,
        }
    }

    /// The installed TypeScript with its type-only parts taken out, as an .mjs node can load.
    fn as_module(&self, rel: &str, name: &str) -> PathBuf {
        let ts = std::fs::read_to_string(self.primary.join(rel)).expect("installed adapter");
        let out = self.base.join(name);
        std::fs::write(&out, node::as_module(&ts)).expect("write module");
        out
    }

    fn node(&self, node: &Path, script: &str) -> String {
        let file = self.base.join("driver.mjs");
        std::fs::write(&file, script).expect("driver");
        let o = Command::new(node)
            .arg(&file)
            .env("PATH", &self.path_env)
            .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .output()
            .expect("node runs");
        assert!(
            o.status.success(),
            "node failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

/// Where the agent stands when the hook fires.
#[derive(Debug, Clone, Copy)]
enum Stand {
    Primary,
    Linked,
}

use Stand::{Linked, Primary};

impl Setup {
    /// `tests/fixtures/guard/<runtime>/<case>.json` with this setup's paths filled in.
    fn fixture(&self, runtime: &str, case: &str, stand: Stand) -> String {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/guard")
            .join(runtime)
            .join(format!("{case}.json"));
        let text = std::fs::read_to_string(&file).expect("fixture");
        let cwd = match stand {
            Primary => &self.primary,
            Linked => &self.linked,
        };
        text.replace("@CWD@", &cwd.display().to_string())
            .replace("@PRIMARY@", &self.primary.display().to_string())
            .replace("@LINKED@", &self.linked.display().to_string())
    }

    /// `git-berth guard --runtime <runtime>` with `json` on stdin, run where the agent stands.
    fn guard(&self, runtime: &str, json: &str, stand: Stand) -> Output {
        let dir = match stand {
            Primary => &self.primary,
            Linked => &self.linked,
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_git-berth"))
            .args(["guard", "--runtime", runtime])
            .current_dir(dir)
            .env("HOME", &self.base)
            .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("guard runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(json.as_bytes())
            .expect("write stdin");
        child.wait_with_output().expect("guard exits")
    }
}

/// Whether `o` is `runtime`'s block, in that runtime's own form: Copilot's deny JSON on a
/// successful exit, Cursor's deny JSON with exit 2, everyone else's exit 2 with the reason
/// on stderr and nothing on stdout. Panics on a reply that is neither a block nor an allow.
fn blocked(runtime: &str, o: &Output) -> bool {
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.code() == Some(0) && stdout.is_empty() && stderr.is_empty() {
        return false;
    }
    assert!(stderr.contains("git berth: "), "{runtime}: {stderr}");
    let deny = || serde_json::from_str::<serde_json::Value>(&stdout).expect("deny JSON");
    match runtime {
        "copilot" => {
            assert_eq!(o.status.code(), Some(0), "{stderr}");
            assert_eq!(deny()["permissionDecision"], "deny");
        }
        "cursor" => {
            assert_eq!(o.status.code(), Some(2), "{stderr}");
            assert_eq!(deny()["permission"], "deny");
        }
        _ => {
            assert_eq!(o.status.code(), Some(2), "{stderr}");
            assert!(stdout.is_empty(), "{stdout}");
        }
    }
    true
}

#[test]
fn tools_the_guard_once_did_not_know_are_judged_for_every_runtime() {
    // (runtime, fixture, where the agent stands, blocked)
    let cases = [
        ("claude", "mcp-write", Linked, true),
        ("claude", "mcp-write", Primary, true),
        ("claude", "mcp-write-linked", Primary, false),
        ("claude", "mcp-read", Primary, false),
        ("claude", "unknown-tool", Primary, true),
        ("claude", "unknown-tool", Linked, false),
        ("codex", "apply-patch-argv", Linked, true),
        ("codex", "apply-patch-heredoc", Primary, true),
        ("codex", "apply-patch-heredoc", Linked, false),
        ("codex", "write-stdin", Linked, true),
        ("codex", "mcp-move", Linked, true),
        ("gemini", "smart-edit", Linked, true),
        ("gemini", "shell-directory", Linked, true),
        ("gemini", "unknown-tool", Primary, true),
        ("gemini", "unknown-tool", Linked, false),
        ("cursor", "mcp-event", Linked, true),
        ("cursor", "mcp-read", Primary, false),
        ("cursor", "unknown-event", Primary, true),
        ("cursor", "unknown-event", Linked, false),
        ("copilot", "write-bash", Linked, true),
        ("copilot", "str-replace-editor", Linked, true),
        ("copilot", "str-replace-editor-view", Primary, false),
        ("opencode", "unknown-tool", Linked, true),
        ("opencode", "unknown-tool", Primary, true),
        ("pi", "unknown-tool", Primary, true),
        ("pi", "unknown-tool", Linked, false),
    ];
    let s = Setup::new("tools");
    let mut wrong = Vec::new();
    for (runtime, case, stand, block) in cases {
        let o = s.guard(runtime, &s.fixture(runtime, case, stand), stand);
        if blocked(runtime, &o) != block {
            wrong.push(format!(
                "{runtime}/{case} from {stand:?}: expected {}, got exit {:?} {}",
                if block { "block" } else { "allow" },
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

#[test]
fn the_opencode_plugin_allows_in_a_linked_worktree_and_throws_in_the_primary() {
    let Some(node) = node::node() else {
        return;
    };
    let s = Setup::new("opencode");
    let module = s.as_module(".opencode/plugins/berth-guard.ts", "opencode.mjs");
    let script = format!(
        r#"import {{ BerthGuard }} from {module:?};
const call = async (dir, tool, args) => {{
  const hooks = await BerthGuard({{ directory: dir, worktree: dir }});
  try {{ await hooks["tool.execute.before"]({{ tool, sessionID: "s", callID: "c" }}, {{ args }}); return "allowed"; }}
  catch (e) {{ return "blocked: " + e.message.split("\n")[0]; }}
}};
console.log(await call({linked:?}, "bash", {{ command: "touch x" }}));
console.log(await call({primary:?}, "bash", {{ command: "touch x" }}));
console.log(await call({linked:?}, "edit", {{ filePath: {primary_file:?} }}));
console.log(await call({primary:?}, "read", {{ filePath: "README" }}));
"#,
        module = module.display().to_string(),
        linked = s.linked.display().to_string(),
        primary = s.primary.display().to_string(),
        primary_file = s.primary.join("a.rs").display().to_string(),
    );
    let out = s.node(&node, &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "allowed", "{out}");
    assert!(
        lines[1].starts_with("blocked: git berth: ") && lines[1].contains("is protected"),
        "{out}"
    );
    assert!(lines[2].contains("is protected"), "{out}");
    assert_eq!(lines[3], "allowed", "{out}");
}

#[test]
fn the_pi_extension_allows_in_a_linked_worktree_and_blocks_in_the_primary() {
    let Some(node) = node::node() else {
        return;
    };
    let s = Setup::new("pi");
    let module = s.as_module(".pi/extensions/berth-guard.ts", "pi.mjs");
    let script = format!(
        r#"import ext from {module:?};
let handler;
ext({{ on: (event, fn) => {{ if (event === "tool_call") handler = fn; }} }});
const call = async (cwd, toolName, input) => {{
  const r = await handler({{ toolName, toolCallId: "t", input }}, {{ cwd, hasUI: false }});
  return r && r.block ? "blocked: " + r.reason.split("\n")[0] : "allowed";
}};
console.log(await call({linked:?}, "bash", {{ command: "touch x" }}));
console.log(await call({primary:?}, "bash", {{ command: "touch x" }}));
console.log(await call({linked:?}, "write", {{ path: "../primary/a.rs", content: "" }}));
console.log(await call({primary:?}, "read", {{ path: "README" }}));
"#,
        module = module.display().to_string(),
        linked = s.linked.display().to_string(),
        primary = s.primary.display().to_string(),
    );
    let out = s.node(&node, &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "allowed", "{out}");
    assert!(
        lines[1].starts_with("blocked: git berth: ") && lines[1].contains("is protected"),
        "{out}"
    );
    assert!(lines[2].contains("is protected"), "{out}");
    assert_eq!(lines[3], "allowed", "{out}");
}

#[test]
fn the_adapters_block_when_the_guard_cannot_run() {
    let Some(node) = node::node() else {
        return;
    };
    let mut s = Setup::new("missing");
    let module = s.as_module(".pi/extensions/berth-guard.ts", "pi.mjs");
    // No git on PATH at all: spawning fails, and that must block, not allow.
    s.path_env = "/nonexistent".into();
    let script = format!(
        r#"import ext from {module:?};
let handler;
ext({{ on: (event, fn) => {{ handler = fn; }} }});
const r = await handler({{ toolName: "bash", toolCallId: "t", input: {{ command: "ls" }} }}, {{ cwd: {linked:?} }});
console.log(r && r.block ? "blocked" : "allowed");
"#,
        module = module.display().to_string(),
        linked = s.linked.display().to_string(),
    );
    let file = s.base.join("driver.mjs");
    std::fs::write(&file, script).expect("driver");
    let o = Command::new(node)
        .arg(&file)
        .env("PATH", &s.path_env)
        .output()
        .expect("node");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "blocked",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
