//! Test fixtures: real repositories made by the real `git` program in private temp folders, and
//! the real `git-berth` binary run against them. Every command gets its own HOME, XDG_DATA_HOME
//! and git identity, so tests never touch the user's files and run in parallel.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A private folder that holds a home, a data dir and repositories; removed when dropped.
pub struct Sandbox {
    pub root: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        let root = std::env::temp_dir().join(format!(
            "berth-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("data")).unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        Sandbox { root }
    }

    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    pub fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// Where berth puts worktrees of every repository in this sandbox.
    pub fn worktrees(&self) -> PathBuf {
        self.data().join("git-berth")
    }

    /// The isolated environment for a command.
    pub fn env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("XDG_DATA_HOME", self.data())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test Author")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "Test Committer")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com")
            .env("LC_ALL", "C");
    }

    /// Run `git` in `dir`; panics with its output when it fails.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.git_output(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} failed in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn git_output(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new("git");
        self.env(&mut cmd);
        cmd.current_dir(dir).args(args).output().unwrap()
    }

    /// Run the real `git-berth` binary in `dir`.
    pub fn berth(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = self.berth_command(dir, args);
        cmd.output().unwrap()
    }

    pub fn berth_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-berth"));
        self.env(&mut cmd);
        cmd.current_dir(dir).args(args);
        cmd
    }

    /// Run berth and require success; returns stdout.
    pub fn berth_ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.berth(dir, args);
        assert!(
            out.status.success(),
            "git berth {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run berth and require exit 1; returns stderr.
    pub fn berth_err(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.berth(dir, args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "git berth {args:?} should fail; stdout: {} stderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stderr).unwrap()
    }

    /// A repository at `<root>/<name>` on branch `main` with one commit of a few files.
    pub fn repo(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        self.git(&dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("README.md"), "hello\n").unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "fn main() {}\n").unwrap();
        std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
        self.git(&dir, &["add", "-A"]);
        self.git(&dir, &["commit", "-q", "-m", "initial"]);
        dir
    }

    /// Commit a file in `dir`.
    pub fn commit_file(&self, dir: &Path, file: &str, content: &str) {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
        self.git(dir, &["add", file]);
        self.git(dir, &["commit", "-q", "-m", &format!("change {file}")]);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The worktree paths `git worktree list --porcelain` reports.
pub fn git_worktree_paths(sandbox: &Sandbox, dir: &Path) -> Vec<PathBuf> {
    sandbox
        .git(dir, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}
