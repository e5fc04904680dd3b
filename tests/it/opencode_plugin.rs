//! The OpenCode plugin `git berth init` installs, run under node with a stub of OpenCode's plugin
//! API: it must tell agents apart per session, give the master agent's guard calls the master
//! hatch, and take both hatches out of every other agent's guard calls, even when OpenCode was
//! started with them. Skipped, with the reason printed, where node is missing.

use crate::common;
use crate::node;

use common::Sandbox;
use std::path::{Path, PathBuf};
use std::process::Command;

const ALLOW: &str = "BERTH_ALLOW_MAIN_WORKTREE";
const MASTER: &str = "BERTH_MASTER_SESSION";

/// A repository with the OpenCode plugin installed, the plugin as a module node can load, and
/// a node driver that feeds it a script of OpenCode's hook calls.
struct Plugin {
    node: PathBuf,
    sandbox: Sandbox,
    primary: PathBuf,
    module: PathBuf,
}

impl Plugin {
    /// `None` where node is missing: the test is then skipped, saying so.
    fn new() -> Option<Plugin> {
        let node = node::node()?;
        let sandbox = Sandbox::new();
        let primary = sandbox.repo("primary");
        sandbox.berth_ok(&primary, &["init", "--runtime", "opencode"]);
        let ts = std::fs::read_to_string(primary.join(".opencode/plugins/berth-guard.ts"))
            .expect("installed plugin");
        let module = sandbox.root.join("berth-guard.mjs");
        std::fs::write(&module, node::as_module(&ts)).expect("module");
        Some(Plugin {
            node,
            sandbox,
            primary,
            module,
        })
    }

    /// Runs `body` (JavaScript with `hooks` and `call(session)` in scope) under node with
    /// `path` as PATH and `hatches` in OpenCode's own environment; returns stdout lines.
    fn run(&self, body: &str, path: &str, hatches: &[(&str, &str)]) -> Vec<String> {
        let script = format!(
            r#"import {{ BerthGuard }} from {module:?};
const hooks = await BerthGuard({{ directory: {dir:?}, worktree: {dir:?} }});
const call = async (sessionID) => {{
  try {{
    await hooks["tool.execute.before"]({{ tool: "bash", sessionID, callID: "c" }}, {{ args: {{ command: "touch x" }} }});
    return "allowed";
  }} catch (e) {{ return "blocked: " + e.message.split("\n")[0]; }}
}};
{body}
"#,
            module = self.module.display().to_string(),
            dir = self.primary.display().to_string(),
        );
        let file = self.sandbox.root.join("driver.mjs");
        std::fs::write(&file, script).expect("driver");
        let mut cmd = Command::new(&self.node);
        self.sandbox.env(&mut cmd);
        cmd.arg(&file)
            .env("PATH", path)
            .env("GUARD_LOG", self.sandbox.root.join("guard.log"));
        for (k, v) in hatches {
            cmd.env(k, v);
        }
        let o = cmd.output().expect("node runs");
        assert!(
            o.status.success(),
            "node failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// A PATH whose `git` is a stand-in guard: it records the two hatches it was given, one
    /// line per call, and allows.
    fn stub_path(&self) -> String {
        let dir = self.sandbox.root.join("stub");
        std::fs::create_dir_all(&dir).expect("stub dir");
        let git = dir.join("git");
        std::fs::write(
            &git,
            format!(
                "#!/bin/sh\ncat >/dev/null\nprintf 'allow=%s master=%s\\n' \"${{{ALLOW}-unset}}\" \
                 \"${{{MASTER}-unset}}\" >> \"$GUARD_LOG\"\n"
            ),
        )
        .expect("stub");
        make_executable(&git);
        format!("{}:/usr/bin:/bin", dir.display())
    }

    fn guard_log(&self) -> Vec<String> {
        std::fs::read_to_string(self.sandbox.root.join("guard.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Sessions the way OpenCode reports them: the master picked for a user message, the build
/// agent seen on a model call, the plan agent seen on a message event, one never reported,
/// the master's session switched to build, a master session seen by event and then deleted, a
/// subagent's session whose agent is called master.
const SESSIONS: &str = r#"
await hooks["chat.message"]({ sessionID: "m", agent: "master" }, { message: { sessionID: "m", role: "user", agent: "master" }, parts: [] });
await hooks["chat.params"]({ sessionID: "b", agent: "build" }, { temperature: 0, topP: 1, options: {} });
await hooks.event({ event: { type: "message.updated", properties: { info: { sessionID: "p", role: "assistant", mode: "plan" } } } });
console.log("master", await call("m"));
console.log("build", await call("b"));
console.log("plan", await call("p"));
console.log("unknown", await call("u"));
await hooks["chat.message"]({ sessionID: "m" }, { message: { sessionID: "m", role: "user", agent: "build" }, parts: [] });
console.log("switched", await call("m"));
await hooks.event({ event: { type: "message.updated", properties: { info: { sessionID: "s", role: "user", agent: "master" } } } });
console.log("evented", await call("s"));
await hooks.event({ event: { type: "session.deleted", properties: { info: { id: "s" } } } });
console.log("deleted", await call("s"));
await hooks.event({ event: { type: "session.created", properties: { info: { id: "c", parentID: "b" } } } });
await hooks["chat.params"]({ sessionID: "c", agent: "master" }, { temperature: 0, topP: 1, options: {} });
console.log("subagent", await call("c"));
"#;

const NO_HATCH: &str = "allow=unset master=unset";

#[test]
fn only_the_master_agents_guard_calls_carry_a_hatch_even_when_opencode_has_both() {
    let Some(p) = Plugin::new() else {
        return;
    };
    let path = p.stub_path();
    let out = p.run(SESSIONS, &path, &[(ALLOW, "1"), (MASTER, "1")]);
    assert!(out.iter().all(|l| l.ends_with(" allowed")), "{out:?}");
    assert_eq!(
        p.guard_log(),
        vec![
            "allow=1 master=1",
            NO_HATCH,
            NO_HATCH,
            NO_HATCH,
            NO_HATCH,
            "allow=1 master=1",
            NO_HATCH,
            NO_HATCH,
        ]
    );
}

#[test]
fn the_master_agent_asserts_the_master_hatch_that_opencode_was_not_given() {
    let Some(p) = Plugin::new() else {
        return;
    };
    let path = p.stub_path();
    // A hatch set to anything but 1 is no hatch, and is not passed on to other agents either.
    p.run(SESSIONS, &path, &[(MASTER, "0")]);
    let log = p.guard_log();
    assert_eq!(log[0], "allow=unset master=1", "{log:?}");
    assert_eq!(log[5], "allow=unset master=1", "{log:?}");
    for i in [1, 2, 3, 4, 6, 7] {
        assert_eq!(log[i], NO_HATCH, "call {i}: {log:?}");
    }
}

#[test]
fn with_the_real_guard_the_master_works_in_the_primary_and_a_build_agent_is_blocked() {
    let Some(p) = Plugin::new() else {
        return;
    };
    let path = format!(
        "{}:{}",
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = p.run(SESSIONS, &path, &[(ALLOW, "1"), (MASTER, "1")]);
    let said = |who: &str| {
        out.iter()
            .find_map(|l| l.strip_prefix(&format!("{who} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(said("master"), "allowed", "{out:?}");
    assert_eq!(said("evented"), "allowed", "{out:?}");
    for who in [
        "build", "plan", "unknown", "switched", "deleted", "subagent",
    ] {
        let line = said(who);
        assert!(
            line.starts_with("blocked: git berth: ") && line.contains("is protected"),
            "{who}: {out:?}"
        );
    }
}
