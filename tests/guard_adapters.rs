//! The OpenCode plugin and the Pi extension that `git berth init` installs, run under node
//! with a stub of each runtime's API: they must let an allowed call through and block the
//! rest. Skipped (with a note) where node is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

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
        let js: String = ts
            .lines()
            .filter(|l| !l.starts_with("import type"))
            .collect::<Vec<_>>()
            .join("\n")
            .replace(": Plugin", "")
            .replace(": ExtensionAPI", "")
            .replace(": string[]", "");
        let out = self.base.join(name);
        std::fs::write(&out, js).expect("write module");
        out
    }

    fn node(&self, script: &str) -> String {
        let file = self.base.join("driver.mjs");
        std::fs::write(&file, script).expect("driver");
        let o = Command::new("node")
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

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

#[test]
fn the_opencode_plugin_allows_in_a_linked_worktree_and_throws_in_the_primary() {
    if !node_available() {
        eprintln!("node not found: skipping the OpenCode adapter test");
        return;
    }
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
    let out = s.node(&script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "allowed", "{out}");
    assert!(
        lines[1].starts_with("blocked: git berth: the primary checkout"),
        "{out}"
    );
    assert!(lines[2].contains("is protected"), "{out}");
    assert_eq!(lines[3], "allowed", "{out}");
}

#[test]
fn the_pi_extension_allows_in_a_linked_worktree_and_blocks_in_the_primary() {
    if !node_available() {
        eprintln!("node not found: skipping the Pi adapter test");
        return;
    }
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
    let out = s.node(&script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "allowed", "{out}");
    assert!(
        lines[1].starts_with("blocked: git berth: the primary checkout"),
        "{out}"
    );
    assert!(lines[2].contains("is protected"), "{out}");
    assert_eq!(lines[3], "allowed", "{out}");
}

#[test]
fn the_adapters_block_when_the_guard_cannot_run() {
    if !node_available() {
        eprintln!("node not found: skipping");
        return;
    }
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
    let node = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .expect("sh");
    let node = String::from_utf8_lossy(&node.stdout).trim().to_string();
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
