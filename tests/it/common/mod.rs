//! Test fixtures: real repositories made by the real `git` program in private temp folders, and
//! the real `git-berth` binary run against them. Every command gets its own HOME, XDG_DATA_HOME
//! and git identity, so tests never touch the user's files and run in parallel.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A teardown command that commits `late.txt` where it runs, as an agent still at work would.
pub const COMMIT_LATE: &str = "echo late > late.txt && git add late.txt && git commit -q -m late";

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

    /// `git worktree add -b <branch> <path>` from `repo`, as a person does without berth.
    pub fn worktree_by_hand(&self, repo: &Path, branch: &str, path: &Path) {
        self.git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                branch,
                path.to_str().unwrap(),
            ],
        );
    }

    /// Install and commit a teardown hook that runs `cmd` in the worktree it tears down.
    pub fn teardown_in_worktree(&self, repo: &Path, cmd: &str) {
        self.install(
            repo,
            &["--teardown", &format!("cd \"$WORKTREE_PATH\" && {cmd}")],
        );
        self.commit_all(repo, "teardown");
    }

    /// A branch `branch` with one commit of its own (a new file `own.txt`) that no other ref
    /// has, and no worktree, made with git alone.
    pub fn unlanded_branch(&self, repo: &Path, branch: &str) {
        let path = self
            .root
            .join(format!("by-hand-{}", branch.replace('/', "-")));
        self.worktree_by_hand(repo, branch, &path);
        self.commit_file(&path, "own.txt", "own\n");
        self.git(repo, &["worktree", "remove", path.to_str().unwrap()]);
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

    /// `git-berth guard --runtime <runtime>` from `dir` as an agent's hook runs it (no hatch
    /// open), with `json` on stdin.
    pub fn guard_hook(&self, dir: &Path, runtime: &str, json: &serde_json::Value) -> Output {
        use std::io::Write as _;
        use std::process::Stdio;
        let mut cmd = self.berth_command(dir, &["guard", "--runtime", runtime]);
        cmd.env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(json.to_string().as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
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
        self.berth_exits(dir, args, 1)
    }

    /// Run berth and require exit 78, a file or setting berth reads that is wrong; returns stderr.
    pub fn berth_misconfigured(&self, dir: &Path, args: &[&str]) -> String {
        self.berth_exits(dir, args, 78)
    }

    fn berth_exits(&self, dir: &Path, args: &[&str], code: i32) -> String {
        let out = self.berth(dir, args);
        assert_eq!(
            out.status.code(),
            Some(code),
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

    /// Give `repo` an empty bare remote named `origin`, for pushes with an upstream.
    pub fn add_origin(&self, repo: &Path) -> PathBuf {
        let remote = self.root.join("remote.git");
        self.git(
            &self.root,
            &["init", "-q", "--bare", remote.to_str().unwrap()],
        );
        self.git(repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
        remote
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

/// Run `cmd` with its stderr a pipe whose reader is gone (`git berth ... 2>&1 | head -0`, a
/// terminal closed): every write there fails with a broken pipe. Stdout is kept.
pub fn output_with_stderr_gone(mut cmd: std::process::Command) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    cmd.stdout(std::process::Stdio::piped()).stderr(writer);
    let child = cmd.spawn().unwrap();
    // The parent's copy of the write end went into the Command, which is dropped with it.
    drop(cmd);
    child.wait_with_output().unwrap()
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

// ---- Helpers for the lifecycle tests (add, list, path, remove, prune, discovery) ----

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitWorktree {
    pub path: PathBuf,
    pub head: Option<String>,
    /// Full ref name, `refs/heads/...`.
    pub branch: Option<String>,
    pub bare: bool,
    pub detached: bool,
    pub locked: bool,
    pub prunable: bool,
}

/// Every worktree real git reports, parsed from `git worktree list --porcelain`.
pub fn git_worktrees(sandbox: &Sandbox, dir: &Path) -> Vec<GitWorktree> {
    let text = sandbox.git(dir, &["worktree", "list", "--porcelain"]);
    let mut out = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut wt = GitWorktree {
            path: PathBuf::new(),
            head: None,
            branch: None,
            bare: false,
            detached: false,
            locked: false,
            prunable: false,
        };
        for line in block.lines() {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "worktree" => wt.path = PathBuf::from(value),
                "HEAD" => wt.head = Some(value.to_owned()),
                "branch" => wt.branch = Some(value.to_owned()),
                "bare" => wt.bare = true,
                "detached" => wt.detached = true,
                "locked" => wt.locked = true,
                "prunable" => wt.prunable = true,
                _ => {}
            }
        }
        out.push(wt);
    }
    out
}

/// The entry real git reports for `path`, if any.
pub fn git_worktree_at(sandbox: &Sandbox, dir: &Path, path: &Path) -> Option<GitWorktree> {
    git_worktrees(sandbox, dir)
        .into_iter()
        .find(|w| w.path == path)
}

/// Both output streams, for assertion messages.
pub fn outputs(out: &Output) -> String {
    format!("stdout: {}\nstderr: {}", stdout(out), stderr(out))
}

/// The `git berth` binary's folder, to put first on `PATH` so that `git berth` finds it.
pub fn berth_bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_git-berth"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Everything an `add` or a refused command could leave behind, to compare before and after.
#[derive(Debug, PartialEq, Eq)]
pub struct RepoState {
    pub worktrees: String,
    pub refs: String,
    pub admin_entries: Vec<String>,
    pub registry: Option<Vec<u8>>,
    pub data_files: Vec<PathBuf>,
}

impl Sandbox {
    /// `git berth add <args>` in `dir`, required to succeed; the path it printed, which must exist.
    pub fn add(&self, dir: &Path, args: &[&str]) -> PathBuf {
        let mut full = vec!["add"];
        full.extend_from_slice(args);
        let out = self.berth_ok(dir, &full);
        assert_eq!(
            out.lines().count(),
            1,
            "add prints the path alone on one line: {out:?}"
        );
        let path = PathBuf::from(out.trim_end_matches('\n'));
        assert!(path.is_absolute(), "add prints an absolute path: {out:?}");
        assert!(path.is_dir(), "add made {}", path.display());
        path
    }

    /// Run berth with `--json` somewhere in `args` and parse stdout.
    pub fn berth_json(&self, dir: &Path, args: &[&str]) -> serde_json::Value {
        let out = self.berth_ok(dir, args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }

    /// The rows of `git berth list --json` (with `--all` when asked).
    pub fn list_rows(&self, dir: &Path, all: bool) -> Vec<serde_json::Value> {
        let mut args = vec!["list", "--json"];
        if all {
            args.push("--all");
        }
        let value = self.berth_json(dir, &args);
        value["worktrees"]
            .as_array()
            .unwrap_or_else(|| panic!("list --json has a worktrees array: {value}"))
            .clone()
    }

    /// The row of `list --json` named `name`.
    pub fn list_row(&self, dir: &Path, name: &str) -> serde_json::Value {
        let rows = self.list_rows(dir, false);
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no row named {name} in {rows:?}"))
            .clone()
    }

    /// `git rev-parse <rev>` in `dir`.
    pub fn rev(&self, dir: &Path, rev: &str) -> String {
        self.git(dir, &["rev-parse", "--verify", "-q", rev])
            .trim()
            .to_owned()
    }

    /// Local branch names, as `git branch --list` shows them.
    pub fn branches(&self, dir: &Path) -> Vec<String> {
        self.git(dir, &["branch", "--list", "--format=%(refname:short)"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub fn has_branch(&self, dir: &Path, branch: &str) -> bool {
        self.branches(dir).iter().any(|b| b == branch)
    }

    /// `git status --porcelain` in `dir` (ignored files are not shown).
    pub fn status(&self, dir: &Path) -> String {
        self.git(dir, &["status", "--porcelain"])
    }

    /// The common dir as real git reports it, absolute.
    pub fn common_dir(&self, dir: &Path) -> PathBuf {
        let out = self.git(
            dir,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        );
        PathBuf::from(out.trim())
    }

    /// `<common dir>/berth/registry.toml`.
    pub fn registry_path(&self, dir: &Path) -> PathBuf {
        self.common_dir(dir).join("berth").join("registry.toml")
    }

    /// Use `<root>/<folder>` as `berth.worktreeBase` of `repo`; returns it.
    pub fn set_worktree_base(&self, repo: &Path, folder: &str) -> PathBuf {
        let base = self.root.join(folder);
        self.git(
            repo,
            &["config", "berth.worktreeBase", base.to_str().unwrap()],
        );
        base
    }

    /// A snapshot of what berth could change in `repo`.
    pub fn state(&self, repo: &Path) -> RepoState {
        let common = self.common_dir(repo);
        let mut admin_entries: Vec<String> = std::fs::read_dir(common.join("worktrees"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        admin_entries.sort();
        let mut data_files = Vec::new();
        walk_files(&self.data(), &mut data_files);
        data_files.sort();
        RepoState {
            worktrees: self.git(repo, &["worktree", "list", "--porcelain"]),
            refs: self.git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"]),
            admin_entries,
            registry: std::fs::read(common.join("berth").join("registry.toml")).ok(),
            data_files,
        }
    }
}

/// Every file (not folder) under `dir`, recursively.
fn walk_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            walk_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The first line of a command's stderr, and the second (the hint), if any.
pub fn error_lines(stderr: &str) -> (String, Option<String>) {
    let mut lines = stderr.lines();
    let first = lines.next().unwrap_or_default().to_owned();
    (first, lines.next().map(str::to_owned))
}

// ---- Helpers for the claims, clean, collect and races tests ----

/// A live process that stands in for another agent (its pid goes in `BERTH_SESSION_PID`);
/// killed when dropped.
pub struct Agent {
    child: std::process::Child,
}

impl Agent {
    pub fn spawn() -> Self {
        let child = Command::new("sleep").arg("120").spawn().unwrap();
        Agent { child }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// End the agent (SIGKILL) and reap it, so its claims go stale.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Sandbox {
    /// `git-berth <args>` in `dir` as session `session`, its claims held by process `pid`.
    pub fn berth_as_command(&self, dir: &Path, session: &str, pid: u32, args: &[&str]) -> Command {
        let mut cmd = self.berth_command(dir, args);
        cmd.env("BERTH_SESSION", session)
            .env("BERTH_SESSION_PID", pid.to_string());
        cmd
    }

    pub fn berth_as(&self, dir: &Path, session: &str, pid: u32, args: &[&str]) -> Output {
        self.berth_as_command(dir, session, pid, args)
            .output()
            .unwrap()
    }
}

/// The rows of `git berth list`'s table, each as (marker, column name → cell), cut at the header's
/// column offsets so that cells with spaces stay whole.
pub fn table_rows(table: &str) -> Vec<(String, std::collections::BTreeMap<String, String>)> {
    let mut lines = table.lines();
    let header = lines.next().unwrap_or_default();
    let mut starts = Vec::new();
    let mut at = 0;
    for word in header.split_whitespace() {
        let offset = header[at..].find(word).unwrap() + at;
        starts.push((word.to_owned(), offset));
        at = offset + word.len();
    }
    lines
        .map(|line| {
            let marker = line.get(..2).unwrap_or_default().trim().to_owned();
            let cells = starts
                .iter()
                .enumerate()
                .map(|(i, (name, start))| {
                    let end = starts.get(i + 1).map_or(line.len(), |(_, s)| *s);
                    let cell = line.get(*start..end.min(line.len())).unwrap_or_default();
                    (name.clone(), cell.trim().to_owned())
                })
                .collect();
            (marker, cells)
        })
        .collect()
}

// ---- Helpers for the hooks, ports and seeding tests ----

/// `s` as one single-quoted `sh` word.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A file written by `env` (one `KEY=value` a line) as a map.
pub fn read_env_file(path: &Path) -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no env file {}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Whether process `pid` is gone (no such process, or a zombie waiting to be reaped).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// A process whose parent never waits for it: once it exits it stays a zombie (state `Z`), as
/// under a container's first process that does not reap. The parent is killed when dropped.
pub struct Unreaped {
    parent: std::process::Child,
    pub pid: u32,
}

impl Unreaped {
    /// Start `cmd` (its program, arguments, environment and folder) as the child of a `sleep`
    /// that never reaps it; its input is empty.
    pub fn spawn(cmd: &Command) -> Self {
        let mut wrapper = Command::new("sh");
        wrapper
            .args(["-c", "\"$@\" </dev/null & echo $!; exec sleep 300", "sh"])
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .stdout(std::process::Stdio::piped());
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => wrapper.env(key, value),
                None => wrapper.env_remove(key),
            };
        }
        if let Some(dir) = cmd.get_current_dir() {
            wrapper.current_dir(dir);
        }
        let mut parent = wrapper.spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(parent.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let pid = line.trim().parse().unwrap();
        Unreaped { parent, pid }
    }

    /// A `sleep` that runs until [`Unreaped::kill`].
    pub fn sleeper() -> Self {
        let mut cmd = Command::new("sleep");
        cmd.arg("300");
        Self::spawn(&cmd)
    }

    /// SIGKILL the child, then wait until it is a zombie.
    pub fn kill(&self) {
        let _ = Command::new("kill")
            .args(["-KILL", &self.pid.to_string()])
            .output();
        self.wait_for_zombie();
    }

    /// Wait (at most a minute) until the child has exited and is a zombie nobody reaps.
    pub fn wait_for_zombie(&self) {
        wait_for("the child to be a zombie", || self.state() == Some('Z'));
    }

    /// The child's state letter in `/proc/<pid>/stat`.
    pub fn state(&self) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).ok()?;
        stat.rsplit_once(')')?.1.trim_start().chars().next()
    }
}

impl Drop for Unreaped {
    fn drop(&mut self) {
        let _ = self.parent.kill();
        let _ = self.parent.wait();
    }
}

/// Wait for `child` at most `limit`; kill it and panic if it is still running then.
pub fn wait_at_most(mut child: std::process::Child, limit: std::time::Duration) -> Output {
    let until = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > until {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}: {}", outputs(&out));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

impl Sandbox {
    /// `git berth install <args>` in `dir`; the paths it printed.
    pub fn install(&self, dir: &Path, args: &[&str]) -> Vec<PathBuf> {
        let mut full = vec!["install"];
        full.extend_from_slice(args);
        self.berth_ok(dir, &full)
            .lines()
            .map(PathBuf::from)
            .collect()
    }

    /// Stage everything in `dir` and commit it.
    pub fn commit_all(&self, dir: &Path, message: &str) {
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", message]);
    }

    /// Set `berth.portRange` of `repo` to `units` 10-port units from `first`.
    pub fn port_range(&self, repo: &Path, first: u16, units: u16) {
        let range = format!("{first}-{}", first + units * 10 - 1);
        self.git(repo, &["config", "berth.portRange", &range]);
    }

    /// `<data>/git-berth/ports.toml`, or "" when there is none.
    pub fn ports_file(&self) -> String {
        std::fs::read_to_string(self.worktrees().join("ports.toml")).unwrap_or_default()
    }
}

/// Rewrite `file` in the checkout `wt` at its old size, give it back its old mtime, and move the
/// index's own mtime to the end of that second: an edit only git's racy test (by the second, as
/// git is built by default) can see once core.trustctime is off.
pub fn edit_hidden_from_stat(sb: &Sandbox, wt: &Path, file: &str, content: &str) {
    let path = wt.join(file);
    let old = std::fs::metadata(&path).unwrap();
    assert_eq!(old.len(), content.len() as u64, "an edit at the same size");
    let mtime = old.modified().unwrap();
    std::fs::write(&path, content).unwrap();
    let handle = std::fs::File::options().write(true).open(&path).unwrap();
    handle.set_modified(mtime).unwrap();
    let since_epoch = mtime.duration_since(std::time::UNIX_EPOCH).unwrap();
    let end_of_second =
        std::time::UNIX_EPOCH + std::time::Duration::new(since_epoch.as_secs(), 999_999_999);
    let index = sb.git(
        wt,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    );
    let index = std::fs::File::options()
        .write(true)
        .open(index.trim())
        .unwrap();
    index.set_modified(end_of_second).unwrap();
}

// ---- Helpers for the recovery tests ----

/// Start `cmd` (a debug build told to pause by a `BERTH_TEST_PAUSE_*` variable) and return it
/// once it has printed `paused` on stderr, still running, with the rest of its stderr.
#[allow(clippy::zombie_processes)]
pub fn spawn_until_paused(
    mut cmd: Command,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead as _;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait().unwrap();
            panic!("{cmd:?} ended before its pause point: {status}");
        }
        if line.trim() == "paused" {
            return (child, err);
        }
    }
}

// ---- Helpers for the orchestrator tests (and any test that needs a terminal) ----

/// A private tmux server, killed when dropped.
pub struct Tmux {
    pub socket: PathBuf,
    /// The first pane (the master's, in the primary checkout).
    pub pane: String,
}

impl Tmux {
    /// Start a server on `<sandbox>/tmux.sock` with one session in `cwd`; `None` (after saying
    /// why) where tmux is not installed.
    pub fn start(sb: &Sandbox, cwd: &Path) -> Option<Tmux> {
        if std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_err()
        {
            skip("tmux", "tmux is not installed");
            return None;
        }
        let socket = sb.root.join("tmux.sock");
        let mut tmux = Tmux {
            socket,
            pane: String::new(),
        };
        let out = tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
            cwd.to_str().unwrap(),
            "-P",
            "-F",
            "#{pane_id}",
        ]);
        tmux.pane = out.trim().to_owned();
        Some(tmux)
    }

    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new("tmux");
        cmd.arg("-S").arg(&self.socket).args(args);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = self.command(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// What `$TMUX` holds in a pane of this server.
    pub fn env_value(&self) -> String {
        format!("{},1,0", self.socket.display())
    }

    /// A format of one pane (`#{pane_current_path}`).
    pub fn pane_format(&self, pane: &str, format: &str) -> String {
        self.run(&["display-message", "-p", "-t", pane, format])
            .trim()
            .to_owned()
    }

    pub fn panes(&self) -> Vec<String> {
        self.run(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]).output();
    }
}

/// Poll `done` every 20 ms for at most ten seconds.
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(
            std::time::Instant::now() < until,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A test that cannot run here says why and passes, unless `BERTH_TEST_REQUIRE` (a comma list,
/// as `.ci/run` sets it for what it installs) names `tool`: then it fails, so a missing tool never
/// hides a test that would have failed.
pub fn skip(tool: &str, why: &str) {
    let required = std::env::var("BERTH_TEST_REQUIRE").unwrap_or_default();
    if required.split(',').any(|t| t.trim() == tool) {
        panic!("{why}, but BERTH_TEST_REQUIRE names {tool}");
    }
    eprintln!("skipped: {why}");
}

/// Write `body` to `path` as an executable `sh` script (a `#!/bin/sh` line goes first); `path`.
pub fn write_script(path: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}
