//! The guard under attack on a real filesystem, as issue 10's attacker ran it: a primary checkout
//! and a linked worktree made by real git, each attack judged by the real binary, and every
//! command it lets through really run with bash from the linked worktree; the primary must be
//! byte for byte what it was. Also the attacks only a real filesystem holds: links made earlier,
//! dangling links, hard links and a planted `.git` file.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Sandbox {
    base: PathBuf,
    primary: PathBuf,
    linked: PathBuf,
}

impl Sandbox {
    fn new(tag: &str) -> Sandbox {
        let base = std::env::temp_dir().join(format!("berth-sandbox-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("home")).expect("temp dir");
        let base = base.canonicalize().expect("canonical");
        let s = Sandbox {
            primary: base.join("primary"),
            linked: base.join("linked"),
            base,
        };
        s.git(&s.base, &["init", "-q", "-b", "main", "primary"]);
        std::fs::write(s.primary.join("README.md"), "hello\n").unwrap();
        std::fs::create_dir_all(s.primary.join("src")).unwrap();
        std::fs::write(s.primary.join("src/lib.rs"), "fn a() {}\n").unwrap();
        s.git(&s.primary, &["add", "-A"]);
        s.git(&s.primary, &["commit", "-q", "-m", "init"]);
        s.git(
            &s.primary,
            &["worktree", "add", "-q", "-b", "side", "../linked"],
        );
        s
    }

    fn env(&self, cmd: &mut Command) {
        cmd.env("HOME", self.base.join("home"))
            .env("XDG_DATA_HOME", self.base.join("home/data"))
            .env("XDG_CONFIG_HOME", self.base.join("home/config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .env_remove("CDPATH");
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(dir);
        self.env(&mut cmd);
        assert!(cmd.status().expect("git runs").success(), "git {args:?}");
    }

    fn guard(&self, dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-berth"));
        cmd.arg("guard").args(args).current_dir(dir);
        self.env(&mut cmd);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("guard runs");
        if let Some(text) = stdin {
            let mut pipe = child.stdin.take().expect("stdin");
            pipe.write_all(text.as_bytes()).expect("write stdin");
        }
        drop(child.stdin.take());
        child.wait_with_output().expect("guard exits")
    }

    fn allows(&self, dir: &Path, command: &str) -> bool {
        let o = self.guard(dir, &["--", command], None);
        match o.status.code() {
            Some(0) => true,
            Some(2) => false,
            other => panic!("guard exited {other:?} on {command:?}"),
        }
    }

    fn allows_write(&self, dir: &Path, file: &Path) -> bool {
        let json = serde_json::json!({
            "session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse",
            "tool_name": "Write", "tool_input": {"file_path": file, "content": "x"},
        })
        .to_string();
        let o = self.guard(dir, &["--runtime", "claude"], Some(&json));
        match o.status.code() {
            Some(0) => true,
            Some(2) => false,
            other => panic!("guard exited {other:?} on a write of {}", file.display()),
        }
    }

    /// Runs `command` with bash from `dir`, as the agent's shell would, for at most 5 s.
    fn run(&self, dir: &Path, command: &str) {
        let mut cmd = Command::new("timeout");
        cmd.args(["5", "bash", "-c", command])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.env(&mut cmd);
        let _ = cmd.status();
    }

    /// Every file of the primary's working tree with its content, and what of its `.git` a
    /// write into the primary would change: config, hooks, HEAD and the trunk's ref (the
    /// worktrees' admin folders and other branches are theirs to change).
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.primary.clone()];
        let git = self.primary.join(".git");
        let kept = |p: &Path| {
            !p.starts_with(&git)
                || p == git.join("config")
                || p == git.join("HEAD")
                || p == git.join("refs/heads/main")
                || p.starts_with(git.join("hooks"))
                || p == git.join("refs")
                || p == git.join("refs/heads")
        };
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let meta = std::fs::symlink_metadata(&p).unwrap();
                if meta.is_dir() && (p == git || kept(&p)) {
                    stack.push(p);
                } else if !meta.is_dir() && kept(&p) {
                    let body = std::fs::read(&p).unwrap_or_default();
                    out.insert(p, body);
                }
            }
        }
        out
    }

    /// The paths that differ between two snapshots.
    fn changed(
        before: &BTreeMap<PathBuf, Vec<u8>>,
        after: &BTreeMap<PathBuf, Vec<u8>>,
    ) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = before
            .iter()
            .filter(|(p, b)| after.get(*p) != Some(b))
            .map(|(p, _)| p.clone())
            .collect();
        out.extend(after.keys().filter(|p| !before.contains_key(*p)).cloned());
        out
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn attacks(s: &Sandbox) -> Vec<String> {
    let text = include_str!("fixtures/guard/attacks-from-linked.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("# "))
        .map(|l| {
            l.replace("@PRIMARY@", &s.primary.display().to_string())
                .replace("@LINKED@", &s.linked.display().to_string())
                .replace("\\n", "\n")
        })
        .collect()
}

#[test]
fn no_attack_the_guard_lets_through_changes_the_primary_when_really_run() {
    let s = Sandbox::new("attacks");
    // What the attacks expect to find beside them.
    std::fs::write(s.linked.join("a"), "a\n").unwrap();
    let before = s.snapshot();
    let mut let_through = Vec::new();
    for attack in attacks(&s) {
        if s.allows(&s.linked, &attack) {
            let_through.push(attack.clone());
            s.run(&s.linked, &attack);
        }
    }
    assert!(let_through.is_empty(), "let through: {let_through:#?}");
    let changed = Sandbox::changed(&before, &s.snapshot());
    assert!(changed.is_empty(), "the primary changed: {changed:#?}");
}

#[test]
fn ordinary_commands_the_guard_allows_run_and_leave_the_primary_alone() {
    let s = Sandbox::new("ordinary");
    let before = s.snapshot();
    for c in [
        "echo hi > notes.txt",
        "cat ../primary/README.md > copy.md",
        "cp ../primary/README.md readme-copy.md",
        "git -C ../primary log --oneline",
        "git -C ../primary status",
        "mkdir -p build && cd build && touch out",
        "git add -A && git commit -q -m \"$(cat <<'EOF'\nWork: don't stop\nEOF\n)\"",
    ] {
        assert!(s.allows(&s.linked, c), "{c}");
        s.run(&s.linked, c);
    }
    let changed = Sandbox::changed(&before, &s.snapshot());
    assert!(changed.is_empty(), "the primary changed: {changed:#?}");
    assert!(s.linked.join("build/out").exists());
}

#[test]
fn a_link_into_the_primary_made_earlier_is_followed_even_when_it_dangles() {
    let s = Sandbox::new("links");
    let link = |name: &str, target: &str| {
        std::os::unix::fs::symlink(target, s.linked.join(name)).unwrap();
    };
    link("to-readme", "../primary/README.md");
    link("to-new", "../primary/new-file");
    link("to-dir", "../primary/src");
    link("to-primary", "../primary");
    link("chain", "to-dir");
    for c in [
        "echo x > to-readme",
        "echo x > to-new",
        "touch to-dir/x",
        "touch to-primary/x",
        "echo x >> chain/lib.rs",
        "sed -i s/a/b/ to-readme",
        "ln -s ../primary q && touch q/x",
    ] {
        assert!(!s.allows(&s.linked, c), "{c}");
    }
    for f in ["to-readme", "to-new", "to-dir/lib.rs", "chain/new.rs"] {
        assert!(!s.allows_write(&s.linked, &s.linked.join(f)), "edit of {f}");
    }
    // Reading through a link stays allowed.
    assert!(s.allows(&s.linked, "cat to-readme"));
}

#[test]
fn no_agent_moves_the_branch_the_primary_has_checked_out() {
    let s = Sandbox::new("trunk");
    let before = s.snapshot();
    for (dir, c) in [
        (&s.linked, "git update-ref refs/heads/main side"),
        (&s.linked, "git branch -m main renamed"),
        (&s.linked, "git branch -f main side"),
        (&s.linked, "git branch -D main"),
        (
            &s.linked,
            "git switch -q --ignore-other-worktrees main && git commit -q --allow-empty -m x",
        ),
        (&s.linked, "git worktree add -q --force ../l2 main"),
        (&s.linked, "git fetch -q . side:main"),
        (&s.linked, "git push -q . side:main"),
        (&s.linked, "git push -q --all ."),
        (
            &s.primary,
            "git -C ../linked update-ref refs/heads/main side",
        ),
        (&s.primary, "cd ../linked && git branch -m main renamed"),
    ] {
        if s.allows(dir, c) {
            s.run(dir, c);
            panic!("let through: {c}");
        }
    }
    let changed = Sandbox::changed(&before, &s.snapshot());
    assert!(changed.is_empty(), "the primary changed: {changed:#?}");
    // Its own branch is the agent's to move.
    assert!(s.allows(
        &s.linked,
        "git branch -f side HEAD && git push -q . side:side"
    ));
}

#[test]
fn a_hard_link_to_a_primary_file_is_not_written() {
    let s = Sandbox::new("hardlink");
    std::fs::hard_link(s.primary.join("README.md"), s.linked.join("shared.md")).unwrap();
    assert!(!s.allows(&s.linked, "echo x >> shared.md"));
    assert!(!s.allows_write(&s.linked, &s.linked.join("shared.md")));
    assert!(s.allows(&s.linked, "cat shared.md"));
}

#[test]
fn a_planted_git_file_does_not_make_a_folder_of_the_primary_a_linked_worktree() {
    let s = Sandbox::new("planted");
    std::fs::copy(s.linked.join(".git"), s.primary.join("src/.git")).unwrap();
    let src = s.primary.join("src");
    assert!(!s.allows(&src, "touch x"));
    assert!(!s.allows_write(&s.linked, &src.join("lib.rs")));
    assert!(!s.allows(&s.linked, &format!("touch {}/x", src.display())));
    // The real linked worktree is still one.
    assert!(s.allows(&s.linked, "touch x"));
}

#[test]
fn the_hint_of_a_block_in_the_primary_gets_the_agent_out_as_printed() {
    let s = Sandbox::new("hint");
    let o = s.guard(&s.primary, &["--", "npm test"], None);
    assert_eq!(o.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        msg.contains("is protected") && msg.contains("blocked"),
        "{msg}"
    );
    let hint = msg
        .lines()
        .find_map(|l| l.strip_prefix("hint: work in a linked worktree of your own: "))
        .and_then(|h| h.split(" (worktrunk").next())
        .expect("a hint")
        .to_string();
    assert!(s.allows(&s.primary, &hint), "{hint}");
    // Run it for real, with berth on PATH as git finds it, and land in a linked worktree.
    let bin = Path::new(env!("CARGO_BIN_EXE_git-berth")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        &format!("{hint} && pwd && git rev-parse --git-common-dir"),
    ])
    .current_dir(&s.primary)
    .env("PATH", path);
    s.env(&mut cmd);
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let here = PathBuf::from(text.lines().next().expect("pwd"));
    assert!(here.join(".git").is_file(), "{text}");
    assert_ne!(here, s.primary);
    // And from there, work is allowed.
    assert!(s.allows(&here, "touch x && git add -A"));
}
