//! `git berth guard` end to end on real repositories made with the real git program.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A primary checkout and one linked worktree in a fresh temp dir, removed on drop.
struct Repos {
    base: PathBuf,
    primary: PathBuf,
    linked: PathBuf,
}

impl Repos {
    fn new(tag: &str) -> Repos {
        let base = std::env::temp_dir().join(format!("berth-guard-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("home")).expect("temp dir");
        let base = base.canonicalize().expect("canonical");
        let r = Repos {
            primary: base.join("primary"),
            linked: base.join("linked"),
            base,
        };
        r.git(&r.base, &["init", "-q", "-b", "main", "primary"]);
        r.git(&r.primary, &["commit", "-q", "--allow-empty", "-m", "init"]);
        r.git(
            &r.primary,
            &["worktree", "add", "-q", "-b", "side", "../linked"],
        );
        r
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("HOME", self.base.join("home"))
            .env("XDG_CONFIG_HOME", self.base.join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git {args:?}");
    }

    fn guard(
        &self,
        dir: &Path,
        args: &[&str],
        stdin: Option<&str>,
        env: &[(&str, &str)],
    ) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-berth"));
        cmd.arg("guard").args(args).current_dir(dir);
        cmd.env("HOME", self.base.join("home"))
            .env("XDG_DATA_HOME", self.base.join("home"));
        cmd.env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("guard runs");
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(text.as_bytes())
                .expect("write stdin");
        }
        drop(child.stdin.take());
        child.wait_with_output().expect("guard exits")
    }

    fn fixture(&self, runtime: &str, case: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/guard/{runtime}/{case}.json"));
        std::fs::read_to_string(path)
            .expect("fixture")
            .replace("@PRIMARY@", &self.primary.display().to_string())
            .replace("@LINKED@", &self.linked.display().to_string())
    }
}

impl Drop for Repos {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_primary_checkout_blocks_a_command_with_the_seeds_words_and_berths_way_out() {
    let r = Repos::new("primary");
    let o = r.guard(&r.primary, &["--", "rm", "-rf", "build"], None, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let e = stderr(&o);
    assert!(
        e.starts_with("git berth: blocked: the primary checkout"),
        "{e}"
    );
    for words in [
        "is protected",
        "cd \"$(git berth add agent-",
        "wt switch -c <branch>",
    ] {
        assert!(e.contains(words), "{words}: {e}");
    }
}

#[test]
fn a_linked_worktree_and_a_plain_directory_allow_silently() {
    let r = Repos::new("linked");
    for dir in [&r.linked, &r.base] {
        let o = r.guard(dir, &["--", "rm", "-rf", "build"], None, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stdout.is_empty() && o.stderr.is_empty());
    }
}

#[test]
fn the_hatches_open_the_primary_only_at_exactly_one() {
    let r = Repos::new("hatch");
    for var in ["BERTH_ALLOW_MAIN_WORKTREE", "BERTH_MASTER_SESSION"] {
        assert_eq!(
            r.guard(&r.primary, &["touch x"], None, &[(var, "1")])
                .status
                .code(),
            Some(0)
        );
        assert_eq!(
            r.guard(&r.primary, &["touch x"], None, &[(var, "true")])
                .status
                .code(),
            Some(2)
        );
    }
}

#[test]
fn whitelisted_verbs_pass_in_the_primary_and_smuggled_ones_do_not() {
    let r = Repos::new("whitelist");
    assert_eq!(
        r.guard(&r.primary, &["wt", "switch", "-c", "feat/x"], None, &[])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        r.guard(&r.primary, &["git berth add auth"], None, &[])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        r.guard(&r.primary, &["wt switch foo; rm -rf /"], None, &[])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn commands_reaching_into_the_primary_are_blocked_from_the_linked_worktree() {
    let r = Repos::new("reach");
    let p = r.primary.display().to_string();
    for c in [
        format!("cd {p} && touch x"),
        format!("git -C {p} reset --hard"),
        format!("git --git-dir={p}/.git status"),
        format!("GIT_WORK_TREE={p} git checkout ."),
        format!("echo x > {p}/README"),
        "echo x > ../primary/README".to_string(),
    ] {
        let o = r.guard(&r.linked, &[&c], None, &[]);
        assert_eq!(o.status.code(), Some(2), "{c}");
        assert!(stderr(&o).contains("is protected"), "{c}: {}", stderr(&o));
    }
}

#[test]
fn a_symlink_into_the_primary_does_not_hide_it() {
    let r = Repos::new("symlink");
    std::os::unix::fs::symlink(&r.primary, r.base.join("alias")).expect("symlink");
    let c = format!("echo x > {}/alias/README", r.base.display());
    assert_eq!(r.guard(&r.linked, &[&c], None, &[]).status.code(), Some(2));
}

#[test]
fn a_link_to_the_guards_own_settings_does_not_hide_them() {
    let r = Repos::new("settings-link");
    std::fs::create_dir_all(r.linked.join(".claude")).expect("dir");
    std::os::unix::fs::symlink(".claude", r.linked.join("cl")).expect("symlink");
    std::os::unix::fs::symlink(".git", r.linked.join("g")).expect("symlink");
    for c in ["echo '{}' > cl/settings.local.json", "echo x > g"] {
        let o = r.guard(&r.linked, &[c], None, &[]);
        assert_eq!(o.status.code(), Some(2), "{c}: {}", stderr(&o));
    }
    let o = r.guard(&r.linked, &["echo x > cl/notes.md"], None, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_block_the_way_out_does_not_answer_gets_its_own_hint() {
    let r = Repos::new("own-hint");
    std::fs::write(r.base.join("original"), "x").expect("write");
    std::fs::hard_link(r.base.join("original"), r.linked.join("twin")).expect("link");
    for (c, hint) in [
        (
            "echo x > .git",
            "hint: run the git command that makes the change instead",
        ),
        (
            "echo x > twin",
            "hint: a person gives the worktree its own copy",
        ),
    ] {
        let o = r.guard(&r.linked, &[c], None, &[]);
        assert_eq!(o.status.code(), Some(2), "{c}");
        let said = stderr(&o);
        assert_eq!(said.lines().count(), 2, "{c}: {said}");
        assert!(
            said.lines().nth(1).unwrap().starts_with(hint),
            "{c}: {said}"
        );
        assert!(!said.contains("could not decide"), "{c}: {said}");
    }
}

#[test]
fn an_unreadable_dot_git_blocks() {
    let r = Repos::new("broken");
    let odd = r.base.join("odd");
    std::fs::create_dir_all(&odd).expect("dir");
    std::fs::write(odd.join(".git"), "not a gitdir line\n").expect("write");
    let o = r.guard(&odd, &["ls"], None, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does not name a gitdir"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_runtimes_fixtures_are_answered_on_real_repositories() {
    let r = Repos::new("runtimes");
    for rt in [
        "claude", "codex", "gemini", "cursor", "copilot", "opencode", "pi",
    ] {
        for case in ["allow", "read-only", "block", "malformed"] {
            let o = r.guard(
                &r.linked,
                &["--runtime", rt],
                Some(&r.fixture(rt, case)),
                &[],
            );
            let blocks = matches!(case, "block" | "malformed");
            let out = String::from_utf8_lossy(&o.stdout);
            // Blocked for its own reason, not for any: a write in the primary, or bad JSON.
            let why = match case {
                "block" => Some("is protected: "),
                "malformed" => Some("hook JSON does not parse"),
                _ => None,
            };
            if let Some(why) = why {
                assert!(stderr(&o).contains(why), "{rt} {case}: {}", stderr(&o));
            }
            if case == "block" {
                assert!(
                    !stderr(&o).contains("could not decide"),
                    "{rt}: {}",
                    stderr(&o)
                );
            }
            match (rt, blocks) {
                ("copilot", true) => {
                    assert_eq!(o.status.code(), Some(0), "{rt} {case}");
                    assert!(
                        out.contains("\"permissionDecision\":\"deny\""),
                        "{rt} {case}: {out}"
                    );
                }
                (_, true) => assert_eq!(o.status.code(), Some(2), "{rt} {case}: {}", stderr(&o)),
                (_, false) => {
                    assert_eq!(o.status.code(), Some(0), "{rt} {case}: {}", stderr(&o));
                    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{rt} {case}");
                }
            }
        }
    }
}

#[test]
fn a_command_and_a_runtime_together_are_refused() {
    let r = Repos::new("both");
    // JSON the guard would allow on its own: only the stray command can block it.
    let allowed = r.fixture("claude", "allow");
    let o = r.guard(
        &r.linked,
        &["--runtime", "claude", "ls"],
        Some(&allowed),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("got a command as well"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_branch_checked_out_before_may_be_the_trunk_so_writes_after_it_block() {
    let r = Repos::new("previous");
    for c in [
        "git checkout - && git commit --allow-empty -m x",
        "git switch - && git commit --allow-empty -m x",
        "git checkout @{-1} && git reset --hard HEAD~1",
        "git switch -q @{-2}; git merge side",
        "git branch -f @{-1} HEAD",
        "git -c rebase.updateRefs=true rebase side",
        "git config rebase.updateRefs true",
        "git config --global rebase.updateRefs true",
    ] {
        let o = r.guard(&r.linked, &[c], None, &[]);
        assert_eq!(o.status.code(), Some(2), "{c}: {}", stderr(&o));
    }
    // Going back alone writes no branch, and a named branch that is not the trunk is judged as
    // before.
    for c in [
        "git checkout -",
        "git switch side && git commit --allow-empty -m x",
    ] {
        let o = r.guard(&r.linked, &[c], None, &[]);
        assert_eq!(o.status.code(), Some(0), "{c}: {}", stderr(&o));
    }
}

#[test]
fn among_thousands_of_plain_files_one_link_into_the_primary_still_blocks() {
    let r = Repos::new("many");
    let dir = r.linked.join("many");
    std::fs::create_dir_all(&dir).unwrap();
    let names: Vec<String> = (0..2000).map(|i| format!("many/f{i}")).collect();
    for n in &names {
        std::fs::write(r.linked.join(n), "x").unwrap();
    }
    std::fs::write(r.primary.join("README"), "primary").unwrap();
    std::os::unix::fs::symlink(r.primary.join("README"), dir.join("link")).unwrap();
    std::fs::hard_link(r.primary.join("README"), dir.join("hard")).unwrap();
    let plain = names.join(" ");
    let o = r.guard(
        &r.linked,
        &[&format!("truncate -s0 {plain} many/new")],
        None,
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for special in ["many/link", "many/hard", "many/.git"] {
        let c = format!("truncate -s0 {plain} {special}");
        let o = r.guard(&r.linked, &[&c], None, &[]);
        assert_eq!(o.status.code(), Some(2), "{special}: {}", stderr(&o));
    }
}
