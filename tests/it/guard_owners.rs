//! The guard keeps an agent from writing paths another worktree owns (`git berth own`), on a
//! real repository: two worktrees made with `git berth add`, the owners file written beside the
//! registry as git berth writes it, and the real guard binary judging each runtime's edit and
//! the shell's writes.

use std::path::{Path, PathBuf};
use std::process::Output;

use berth_guard::owners::{Owned, render};

use crate::common::{Agent, Sandbox};

/// Two worktrees `a` and `b` of one repository whose trunk has `src/api/x.rs` and
/// `src/web/y.rs`.
struct World {
    sb: Sandbox,
    a: PathBuf,
    b: PathBuf,
    owners: PathBuf,
}

impl World {
    fn new() -> World {
        let sb = Sandbox::new();
        let repo = sb.repo("app");
        sb.commit_file(&repo, "src/api/x.rs", "fn x() {}\n");
        sb.commit_file(&repo, "src/web/y.rs", "fn y() {}\n");
        let a = sb.add(&repo, &["a"]);
        let b = sb.add(&repo, &["b"]);
        let owners = sb
            .common_dir(&repo)
            .join(berth_guard::names::STATE_DIR)
            .join(berth_guard::names::OWNERS_GUARD_FILE);
        World { sb, a, b, owners }
    }

    /// `a` owns `src/api/`, its claim held by the process `pid` that started at `start`.
    fn a_owns_api(&self, pid: u32, start: Option<u64>) {
        let owned = [Owned {
            pid,
            start,
            worktree: self.a.clone(),
            pattern: "src/api/".to_owned(),
            agent: None,
        }];
        std::fs::create_dir_all(self.owners.parent().unwrap()).unwrap();
        std::fs::write(&self.owners, render(&owned)).unwrap();
    }

    /// `git-berth guard --runtime <runtime>` with `json` on stdin, from `dir`.
    fn hook(&self, dir: &Path, runtime: &str, json: &serde_json::Value) -> Output {
        self.sb.guard_hook(dir, runtime, json)
    }

    /// Claude Code's Edit of `file` (relative to `dir`), from `dir`.
    fn claude_edit(&self, dir: &Path, file: &str) -> Output {
        let json = serde_json::json!({
            "session_id": "s1",
            "cwd": dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": dir.join(file),
                "old_string": "fn",
                "new_string": "pub fn",
            },
            "tool_use_id": "t1",
        });
        self.hook(dir, "claude", &json)
    }

    /// OpenCode's edit of `file` (relative to the worktree), from `dir`.
    fn opencode_edit(&self, dir: &Path, file: &str) -> Output {
        let json = serde_json::json!({
            "tool": "edit",
            "args": {"filePath": file, "oldString": "fn", "newString": "pub fn"},
            "directory": dir,
            "worktree": dir,
        });
        self.hook(dir, "opencode", &json)
    }

    /// `git berth guard -- <command>` from `dir`.
    fn shell(&self, dir: &Path, command: &str) -> Output {
        let mut cmd = self.sb.berth_command(dir, &["guard", "--", command]);
        cmd.env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION");
        cmd.output().unwrap()
    }

    /// The owner's name as the block message gives it: its worktree's folder.
    fn a_name(&self) -> String {
        self.a.file_name().unwrap().to_string_lossy().into_owned()
    }
}

fn allowed(o: &Output) -> bool {
    o.status.code() == Some(0)
}

/// Whether `o` is the guard's block naming the worktree `owner` as the owner, with the way
/// forward.
fn blocked_by(o: &Output, owner: &str) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    o.status.code() == Some(2)
        && err.contains(&format!("which the worktree {owner} owns (src/api/)"))
        && err.contains("git berth send <agent>")
        && err.contains("ask the master")
}

fn me() -> (u32, Option<u64>) {
    let pid = std::process::id();
    (pid, berth_guard::process::start_time(pid))
}

#[test]
fn writes_to_paths_another_worktree_owns_are_blocked_naming_it_and_the_rest_are_not() {
    let w = World::new();
    let (pid, start) = me();
    w.a_owns_api(pid, start);
    let a = w.a_name();
    let cases = [
        ("claude Edit", w.claude_edit(&w.b, "src/api/x.rs")),
        ("opencode edit", w.opencode_edit(&w.b, "src/api/x.rs")),
        ("sed -i", w.shell(&w.b, "sed -i s/fn/pub/ src/api/x.rs")),
        ("redirect", w.shell(&w.b, "echo x > src/api/new.rs")),
        ("tee", w.shell(&w.b, "echo x | tee src/api/x.rs")),
        ("cp", w.shell(&w.b, "cp README.md src/api/x.rs")),
    ];
    for (what, o) in &cases {
        assert!(
            blocked_by(o, &a),
            "{what}: exit {:?}: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let open = [
        ("b's edit elsewhere", w.claude_edit(&w.b, "src/web/y.rs")),
        (
            "b's opencode edit elsewhere",
            w.opencode_edit(&w.b, "src/web/y.rs"),
        ),
        (
            "b's sed elsewhere",
            w.shell(&w.b, "sed -i s/fn/pub/ src/web/y.rs"),
        ),
        ("b reads", w.shell(&w.b, "cat src/api/x.rs")),
        ("b greps", w.shell(&w.b, "grep -rn fn src/api")),
        ("a's own edit", w.claude_edit(&w.a, "src/api/x.rs")),
        (
            "a's own opencode edit",
            w.opencode_edit(&w.a, "src/api/x.rs"),
        ),
        (
            "a's own sed",
            w.shell(&w.a, "sed -i s/fn/pub/ src/api/x.rs"),
        ),
    ];
    for (what, o) in &open {
        assert!(
            allowed(o),
            "{what}: exit {:?}: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn an_owner_whose_holder_has_exited_blocks_nothing() {
    let w = World::new();
    let mut gone = Agent::spawn();
    let (pid, start) = (gone.pid(), berth_guard::process::start_time(gone.pid()));
    gone.kill();
    w.a_owns_api(pid, start);
    for o in [
        w.claude_edit(&w.b, "src/api/x.rs"),
        w.opencode_edit(&w.b, "src/api/x.rs"),
        w.shell(&w.b, "sed -i s/fn/pub/ src/api/x.rs"),
    ] {
        assert!(allowed(&o), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn an_owners_file_that_does_not_parse_blocks_writes_and_says_how_to_fix_it() {
    let w = World::new();
    std::fs::create_dir_all(w.owners.parent().unwrap()).unwrap();
    std::fs::write(&w.owners, "not an owned path\n").unwrap();
    let o = w.claude_edit(&w.b, "src/web/y.rs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&w.owners.display().to_string()), "{err}");
    assert!(err.contains("git berth owners"), "{err}");
    assert!(allowed(&w.shell(&w.b, "cat src/api/x.rs")));
}
