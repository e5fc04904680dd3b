//! One session per agent: with no `BERTH_SESSION`, two agent processes of one user are two
//! sessions, and one agent is one session across all its calls, also when its runtime made the
//! claim through a hook with its own session id. Each agent here is a real, long-lived process
//! (python) that runs `git-berth` as its child, as an agent runtime does.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::Sandbox;

/// A long-lived agent: it runs each command it is sent and answers with the exit code,
/// stdout and stderr, so every command has the same agent process above it.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

const AGENT: &str = r#"
import json, subprocess, sys
for line in sys.stdin:
    req = json.loads(line)
    r = subprocess.run(req["args"], cwd=req["cwd"], input=req.get("stdin", ""),
                       capture_output=True, text=True)
    print(json.dumps({"code": r.returncode, "out": r.stdout, "err": r.stderr}), flush=True)
"#;

struct Answer {
    code: i32,
    out: String,
    err: String,
}

impl Agent {
    fn spawn(sb: &Sandbox) -> Agent {
        let mut cmd = Command::new("python3");
        sb.env(&mut cmd);
        let mut child = cmd
            .args(["-u", "-c", AGENT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Agent {
            child,
            stdin,
            stdout,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn berth(&mut self, dir: &Path, args: &[&str], stdin: &str) -> Answer {
        let mut argv = vec![env!("CARGO_BIN_EXE_git-berth").to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        let req = serde_json::json!({"args": argv, "cwd": dir, "stdin": stdin});
        writeln!(self.stdin, "{req}").unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).expect("the agent answers");
        Answer {
            code: v["code"].as_i64().unwrap() as i32,
            out: v["out"].as_str().unwrap().to_owned(),
            err: v["err"].as_str().unwrap().to_owned(),
        }
    }

    fn ok(&mut self, dir: &Path, args: &[&str]) -> String {
        let a = self.berth(dir, args, "");
        assert_eq!(a.code, 0, "{args:?}: {}", a.err);
        a.out
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("JSON")
}

#[test]
fn a_second_agent_of_the_same_user_cannot_take_or_remove_the_first_agents_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut a = Agent::spawn(&sb);
    let mut b = Agent::spawn(&sb);

    let added = json(&a.ok(&repo, &["add", "auth", "--json"]));
    let holder = added["session"].as_str().unwrap().to_owned();
    assert!(holder.ends_with(&format!(":{}", a.pid())), "{holder}");

    let taken = b.berth(&repo, &["add", "auth"], "");
    assert_eq!(taken.code, 1, "{}", taken.err);
    assert!(
        taken.err.contains(&format!("claimed by session {holder}")),
        "{}",
        taken.err
    );

    let removed = b.berth(&repo, &["remove", "auth"], "");
    assert_eq!(removed.code, 1, "{}", removed.err);
    assert!(removed.err.contains(&holder), "{}", removed.err);
    assert!(sb.git(&repo, &["worktree", "list"]).contains("auth"));

    // The first agent still holds it, and may end it.
    a.ok(&repo, &["remove", "auth"]);
    assert!(!sb.git(&repo, &["worktree", "list"]).contains("auth"));
}

#[test]
fn one_agents_many_calls_share_its_claim() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut a = Agent::spawn(&sb);
    a.ok(&repo, &["add", "auth"]);
    let again = json(&a.ok(&repo, &["add", "auth", "--json"]));
    assert_eq!(again["reused"], true);
    assert_eq!(again["reclaimed_stale"], false);
    let claimed = json(&a.ok(&repo, &["claim", "auth", "--json"]));
    assert_eq!(claimed["already_held"], true);
    let mine = json(&a.ok(&repo, &["list", "--mine", "--json"]));
    assert_eq!(mine["worktrees"].as_array().unwrap().len(), 1);
    let theirs = json(&Agent::spawn(&sb).ok(&repo, &["list", "--mine", "--json"]));
    assert!(theirs["worktrees"].as_array().unwrap().is_empty());
}

#[test]
fn a_claim_made_by_a_worktree_create_hook_is_that_agents_in_its_later_calls() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut claude = Agent::spawn(&sb);
    let create = serde_json::json!({
        "session_id": "c1", "cwd": repo, "hook_event_name": "WorktreeCreate", "name": "task",
    })
    .to_string();
    let made = claude.berth(&repo, &["hook", "worktree-create"], &create);
    assert_eq!(made.code, 0, "{}", made.err);
    let path = made.out.trim().to_owned();

    // The same Claude process's own calls (no session id) hold it.
    let again = json(&claude.ok(&repo, &["add", "task", "--json"]));
    assert_eq!(again["reused"], true);
    let mine = json(&claude.ok(&repo, &["list", "--mine", "--json"]));
    assert_eq!(mine["worktrees"][0]["name"], "task");
    // Another agent does not.
    let other = Agent::spawn(&sb).berth(&repo, &["add", "task"], "");
    assert_eq!(other.code, 1, "{}", other.err);
    assert!(other.err.contains("claimed by session c1"), "{}", other.err);

    // WorktreeRemove with the same session id removes it, clean as it is.
    let remove = serde_json::json!({
        "session_id": "c1", "cwd": repo, "hook_event_name": "WorktreeRemove",
        "worktree_path": path,
    })
    .to_string();
    let gone = Agent::spawn(&sb).berth(&repo, &["hook", "worktree-remove"], &remove);
    assert_eq!(gone.code, 0, "{}", gone.err);
    assert!(!Path::new(&path).exists(), "{}", gone.err);
    assert!(!sb.git(&repo, &["worktree", "list"]).contains("task"));
}

#[test]
fn worktree_remove_with_another_session_id_keeps_the_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut claude = Agent::spawn(&sb);
    let create = serde_json::json!({"session_id": "c1", "cwd": repo, "name": "task"}).to_string();
    let path = claude
        .berth(&repo, &["hook", "worktree-create"], &create)
        .out;
    let path = path.trim();
    let remove =
        serde_json::json!({"session_id": "c2", "cwd": repo, "worktree_path": path}).to_string();
    let kept = Agent::spawn(&sb).berth(&repo, &["hook", "worktree-remove"], &remove);
    assert_eq!(kept.code, 0, "a failed WorktreeRemove is only logged");
    assert!(kept.err.contains("claimed by session c1"), "{}", kept.err);
    assert!(Path::new(path).exists());
}

#[test]
fn two_ids_given_in_one_process_are_two_sessions() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    // One orchestrator process hands out two identities with `--session`.
    let mut master = Agent::spawn(&sb);
    master.ok(&repo, &["add", "--session", "agent-1", "shared"]);

    let second = master.berth(&repo, &["add", "--session", "agent-2", "shared"], "");
    assert_eq!(second.code, 1, "{}", second.err);
    assert!(second.err.contains("agent-1"), "{}", second.err);
    let claim = master.berth(&repo, &["claim", "--session", "agent-3", "shared"], "");
    assert_eq!(claim.code, 1, "{}", claim.err);
    let remove = master.berth(&repo, &["remove", "--session", "agent-4", "shared"], "");
    assert_eq!(remove.code, 1, "{}", remove.err);
    assert!(
        sb.berth_ok(&repo, &["path", "shared"])
            .trim()
            .ends_with("shared")
    );

    let mine = json(&master.ok(&repo, &["list", "--mine", "--json", "--session", "s3"]));
    assert_eq!(mine["worktrees"].as_array().unwrap().len(), 0, "{mine}");
    let listed = json(&master.ok(&repo, &["list", "--json", "--session", "agent-1"]));
    assert_eq!(listed["worktrees"][0]["claimed_by"], "agent-1");
    // The id that claimed it still owns it, from this process or any other.
    master.ok(&repo, &["remove", "--session", "agent-1", "shared"]);
}
