//! The guard under attack on a real filesystem, as issue 10's attacker ran it: a primary checkout
//! and a linked worktree made by real git, each attack judged by the real binary, and every
//! command it lets through really run with bash from the linked worktree; the primary must be
//! byte for byte what it was. Also the attacks only a real filesystem holds: links made earlier,
//! dangling links, hard links and a planted `.git` file.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) struct Sandbox {
    pub(crate) base: PathBuf,
    pub(crate) primary: PathBuf,
    pub(crate) linked: PathBuf,
}

impl Sandbox {
    pub(crate) fn new(tag: &str) -> Sandbox {
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

    pub(crate) fn env(&self, cmd: &mut Command) {
        cmd.env("HOME", self.base.join("home"))
            .env("XDG_DATA_HOME", self.base.join("home/data"))
            .env("XDG_CONFIG_HOME", self.base.join("home/config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            // `rebase -i` and `commit` never wait for an editor.
            .env("GIT_EDITOR", "true")
            .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .env_remove("CDPATH");
    }

    pub(crate) fn git(&self, dir: &Path, args: &[&str]) {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(dir);
        self.env(&mut cmd);
        assert!(cmd.status().expect("git runs").success(), "git {args:?}");
    }

    pub(crate) fn guard(&self, dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
        self.guard_with(dir, args, stdin, &[])
    }

    pub(crate) fn guard_with(
        &self,
        dir: &Path,
        args: &[&str],
        stdin: Option<&str>,
        vars: &[(&str, &str)],
    ) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-berth"));
        cmd.arg("guard").args(args).current_dir(dir);
        self.env(&mut cmd);
        cmd.envs(vars.iter().copied());
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

    pub(crate) fn allows(&self, dir: &Path, command: &str) -> bool {
        let o = self.guard(dir, &["--", command], None);
        match o.status.code() {
            Some(0) => true,
            Some(2) => false,
            other => panic!("guard exited {other:?} on {command:?}"),
        }
    }

    pub(crate) fn allows_write(&self, dir: &Path, file: &Path) -> bool {
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
    pub(crate) fn run(&self, dir: &Path, command: &str) {
        let mut cmd = Command::new("timeout");
        cmd.args(["5", "bash", "-c", command])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.env(&mut cmd);
        let _ = cmd.status();
    }

    /// What real git prints for `args` in `dir`, trimmed; `None` when it fails.
    pub(crate) fn git_out(&self, dir: &Path, args: &[&str]) -> Option<String> {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(dir).stderr(Stdio::null());
        self.env(&mut cmd);
        let o = cmd.output().expect("git runs");
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    /// Where `branch` points in the repository and on its remote `origin`, as git says.
    pub(crate) fn tips(&self, branch: &str) -> (Option<String>, Option<String>) {
        let r = format!("refs/heads/{branch}");
        let ask = |dir: &Path| self.git_out(dir, &["rev-parse", "--verify", "-q", &r]);
        (ask(&self.primary), ask(&self.base.join("origin.git")))
    }

    /// Every file of the primary's working tree with its content, and what of its `.git` a
    /// write into the primary would change: config, hooks, HEAD and the trunk's ref (the
    /// worktrees' admin folders and other branches are theirs to change).
    pub(crate) fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        Self::snapshot_of(&self.primary)
    }

    /// [`Sandbox::snapshot`] of the checkout at `root` (a linked worktree's `.git` file is left
    /// out: git rewrites it).
    pub(crate) fn snapshot_of(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        let git = root.join(".git");
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
                    // A fifo an attack made would block a read: its kind is what changed.
                    let body = if meta.is_file() {
                        std::fs::read(&p).unwrap_or_default()
                    } else if meta.file_type().is_symlink() {
                        std::fs::read_link(&p)
                            .unwrap_or_default()
                            .into_os_string()
                            .into_encoded_bytes()
                    } else {
                        b"(not a file)".to_vec()
                    };
                    out.insert(p, body);
                }
            }
        }
        out
    }

    /// The paths that differ between two snapshots.
    pub(crate) fn changed<K: Ord + Clone>(
        before: &BTreeMap<K, Vec<u8>>,
        after: &BTreeMap<K, Vec<u8>>,
    ) -> Vec<K> {
        let mut out: Vec<K> = before
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

/// A fixture's commands: one a line, `# ` lines are comments, `\n` is a newline, and the two
/// checkouts are named by `@PRIMARY@` and `@LINKED@`.
pub(crate) fn fixture_lines(text: &str, primary: &str, linked: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("# "))
        .map(|l| {
            l.replace("@PRIMARY@", primary)
                .replace("@LINKED@", linked)
                .replace("\\n", "\n")
        })
        .collect()
}

fn attacks(s: &Sandbox) -> Vec<String> {
    let text = include_str!("../fixtures/guard/attacks-from-linked.txt");
    fixture_lines(
        text,
        &s.primary.display().to_string(),
        &s.linked.display().to_string(),
    )
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

/// Issue 14's world, where every write of the trunk really moves it: the trunk `main` is
/// checked out nowhere (the primary sits on `home`; `berth.trunk` is `trunk`), a bare `origin`
/// lags one commit behind it, a branch `other` leaves it, and the linked worktree is on
/// `berth/x`, one commit (a file) ahead of it.
pub(crate) fn trunk_world(tag: &str, trunk: &str) -> Sandbox {
    let s = Sandbox::new(tag);
    s.git(&s.base, &["clone", "-q", "--bare", "primary", "origin.git"]);
    s.git(&s.primary, &["remote", "add", "origin", "../origin.git"]);
    s.git(&s.primary, &["fetch", "-q", "origin"]);
    s.git(
        &s.primary,
        &["commit", "-q", "--allow-empty", "-m", "ahead"],
    );
    s.git(&s.primary, &["switch", "-q", "-c", "other"]);
    std::fs::write(s.primary.join("other.txt"), "other\n").unwrap();
    s.git(&s.primary, &["add", "other.txt"]);
    s.git(&s.primary, &["commit", "-q", "-m", "other"]);
    s.git(&s.primary, &["switch", "-q", "-c", "home", "main"]);
    s.git(&s.linked, &["switch", "-q", "-c", "berth/x", "main"]);
    std::fs::write(s.linked.join("work.txt"), "work\n").unwrap();
    s.git(&s.linked, &["add", "work.txt"]);
    s.git(&s.linked, &["commit", "-q", "-m", "work"]);
    // A bare `git push` pushes berth/x to origin; origin lets its trunk be deleted.
    for (key, value) in [
        ("berth.trunk", trunk),
        ("branch.berth/x.remote", "origin"),
        ("branch.berth/x.merge", "refs/heads/berth/x"),
    ] {
        s.git(&s.primary, &["config", key, value]);
    }
    s.git(
        &s.base.join("origin.git"),
        &["symbolic-ref", "HEAD", "refs/heads/elsewhere"],
    );
    s
}

/// Each command, in a fresh [`trunk_world`] whose trunk is `trunk`, from the linked worktree:
/// the guard must block it. Run for real either way: one it let through must leave the trunk
/// where it was (here and on `origin`), and one it blocked must move it, or it proves nothing.
fn every_one_is_a_trunk_write_the_guard_blocks(tag: &str, trunk: &str, commands: &[String]) {
    let (mut let_through, mut harmless) = (Vec::new(), Vec::new());
    for (i, c) in commands.iter().enumerate() {
        let s = trunk_world(&format!("{tag}-{i}"), trunk);
        let before = s.tips(trunk);
        let allowed = s.allows(&s.linked, c);
        s.run(&s.linked, c);
        let moved = s.tips(trunk) != before;
        if allowed {
            let_through.push(format!("{c} (the trunk moved: {moved})"));
        } else if !moved {
            harmless.push(c.clone());
        }
    }
    assert!(let_through.is_empty(), "let through: {let_through:#?}");
    assert!(
        harmless.is_empty(),
        "blocked, but it does not move the trunk when run: {harmless:#?}"
    );
}

/// The part of a fixture after the header line that starts with `header`.
pub(crate) fn section<'t>(text: &'t str, header: &str) -> &'t str {
    let (_, rest) = text.split_once(header).expect("the section");
    rest.split_once('\n').expect("its lines").1
}

#[test]
fn every_trunk_write_of_the_corpus_is_blocked_and_really_moves_the_trunk() {
    let text = include_str!("../fixtures/guard/attacks-from-linked.txt");
    // Each runs in a world of its own, from its linked worktree: `.` there.
    let attacks = fixture_lines(section(text, "\n# 9. "), "../primary", ".");
    assert!(attacks.len() >= 50, "{}", attacks.len());
    every_one_is_a_trunk_write_the_guard_blocks("trunk-corpus", "main", &attacks);
}

#[test]
fn a_commit_or_a_reset_where_the_trunk_is_checked_out_is_blocked() {
    let commands: Vec<String> = [
        "git commit -q --allow-empty -m x",
        "git commit -q --amend -m y",
        "git merge -q --no-edit other",
        "git reset -q --hard HEAD~1",
        "git cherry-pick other",
        "git revert --no-edit HEAD",
        "git pull -q --no-rebase --no-edit . other",
        "git rebase -q other",
        "git push -q origin",
        "git push -q origin HEAD",
        "git push -q -u origin \"$(git branch --show-current)\"",
        "git branch -m renamed",
        "git update-ref HEAD other",
        "git checkout -q -B berth/x other",
        "git -C . commit -q --allow-empty -m x",
    ]
    .map(String::from)
    .to_vec();
    every_one_is_a_trunk_write_the_guard_blocks("trunk-here", "berth/x", &commands);
}

#[test]
fn the_near_misses_of_trunk_writes_are_allowed_and_leave_the_trunk_alone() {
    let s = trunk_world("near", "main");
    std::fs::write(s.linked.join("README.md"), "changed\n").unwrap();
    let text = include_str!("../fixtures/guard/ordinary-work.txt");
    let misses = fixture_lines(
        section(text, "# Near misses of issue 14"),
        &s.primary.display().to_string(),
        &s.linked.display().to_string(),
    );
    assert!(misses.len() >= 30, "{}", misses.len());
    s.git(&s.linked, &["branch", "berth/old", "main"]);
    let before = s.tips("main");
    let mut blocked = Vec::new();
    for c in &misses {
        if !s.allows(&s.linked, c) {
            blocked.push(c.clone());
        }
        s.run(&s.linked, c);
        // A near miss may leave the worktree elsewhere; put it back on its branch.
        s.run(
            &s.linked,
            "git rebase --abort; git merge --abort; git switch -q berth/x",
        );
    }
    assert!(blocked.is_empty(), "blocked: {blocked:#?}");
    assert_eq!(s.tips("main"), before, "the trunk moved");
    // They did run: the worktree's own branch reached origin.
    assert!(s.tips("berth/x").1.is_some());
}

#[test]
fn each_hatch_lets_a_trunk_write_through_and_only_at_exactly_one() {
    for var in ["BERTH_ALLOW_MAIN_WORKTREE", "BERTH_MASTER_SESSION"] {
        let s = trunk_world(&format!("hatch-{}", var.len()), "main");
        let c = "git push -q . berth/x:main";
        let code = |value: &str| {
            s.guard_with(&s.linked, &["--", c], None, &[(var, value)])
                .status
                .code()
        };
        assert_eq!(code("true"), Some(2), "{var}=true");
        assert_eq!(code("1"), Some(0), "{var}=1");
        let before = s.tips("main");
        s.run(&s.linked, c);
        assert_ne!(s.tips("main"), before, "{var}: the trunk did not move");
    }
}

#[test]
fn a_trunk_write_is_blocked_on_real_repositories_with_no_hint_to_approve_or_ship() {
    let s = trunk_world("message", "main");
    let o = s.guard(&s.linked, &["--", "git push origin HEAD:main"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "git berth: blocked: `git push origin HEAD:main` moves the trunk main, which moves only \
         when a person or the master lands reviewed work\n\
         hint: commit on your worktree's own branch and tell the master it is ready\n"
    );
    // `berth.trunk` names the trunk: the primary's own branch is protected as well.
    let o = s.guard(&s.linked, &["--", "git branch -f home berth/x"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is protected"));
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
