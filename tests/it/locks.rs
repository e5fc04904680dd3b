//! Locks: a git lock file a killed berth left is cleared by the next command; one berth cannot
//! prove its own (a person's git) is never removed and is named with a hint; ref updates take no
//! `packed-refs.lock`; berth's own locks say whom they wait for.

use crate::common;

use std::io::BufRead as _;
use std::path::Path;

use common::{Agent, Sandbox, outputs, spawn_until_paused, stderr};

/// `git-berth <args>` killed (SIGKILL) while it holds the lock of ref `name`.
fn killed_holding_ref(sb: &Sandbox, dir: &Path, name: &str, cmd: std::process::Command) {
    let mut cmd = cmd;
    cmd.env("BERTH_TEST_PAUSE_REF", name)
        .env("BERTH_TEST_PAUSE_REF_LOCKED_MS", "30000");
    let (mut child, _err) = spawn_until_paused(cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    let lock = sb.common_dir(dir).join(format!("{name}.lock"));
    assert!(lock.exists(), "the kill left {}", lock.display());
}

fn approve(sb: &Sandbox, repo: &Path, reviewer: &Agent) -> std::process::Command {
    sb.berth_as_command(
        repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", "task"],
    )
}

/// A worktree `auth` whose one commit writes `auth.rs`, approved, and a ship of it killed at the
/// pause point `pause` (the trunk moved by then).
fn ship_killed_at(sb: &Sandbox, repo: &Path, pause: &str) {
    let wt = sb.add(repo, &["auth"]);
    sb.commit_file(&wt, "auth.rs", "x\n");
    let reviewer = Agent::spawn();
    let out = sb.berth_as(
        repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", "auth"],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    let mut cmd = sb.berth_command(repo, &["ship", "auth", "--gate", "true"]);
    cmd.env(pause, "30000");
    let (mut child, _err) = spawn_until_paused(cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        sb.git(repo, &["show", "main:auth.rs"]),
        "x\n",
        "the trunk moved"
    );
}

#[test]
fn a_review_approve_killed_holding_the_verdict_s_lock_does_not_stop_the_next_approve() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["task"]);
    sb.commit_file(&wt, "f.txt", "one\n");
    let reviewer = Agent::spawn();
    let name = "refs/berth/reviews/berth/task";
    killed_holding_ref(&sb, &repo, name, approve(&sb, &repo, &reviewer));

    let out = approve(&sb, &repo, &reviewer).output().unwrap();
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("which a killed git berth"),
        "{}",
        outputs(&out)
    );
    assert!(!sb.common_dir(&repo).join(format!("{name}.lock")).exists());
    assert!(!sb.git(&repo, &["rev-parse", name]).is_empty());
    // Nothing of berth's record of the lock is left either.
    let records = sb.common_dir(&repo).join("berth/locks");
    assert_eq!(std::fs::read_dir(records).unwrap().count(), 0);
}

#[test]
fn an_add_killed_holding_its_branch_lock_is_rolled_back_and_the_next_add_works() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let cmd = sb.berth_command(&repo, &["add", "locked"]);
    killed_holding_ref(&sb, &repo, "refs/heads/berth/locked", cmd);
    let again = sb.berth(&repo, &["add", "locked"]);
    assert!(again.status.success(), "{}", outputs(&again));
    assert!(sb.has_branch(&repo, "berth/locked"));
}

#[test]
fn a_ship_killed_holding_the_trunk_s_lock_leaves_it_to_the_next_ship_which_lands() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["auth"]);
    sb.commit_file(&wt, "auth.rs", "x\n");
    let reviewer = Agent::spawn();
    let out = sb.berth_as(
        &repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", "auth"],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    let main = sb.rev(&repo, "main");
    let cmd = sb.berth_command(&repo, &["ship", "auth", "--gate", "true"]);
    killed_holding_ref(&sb, &repo, "refs/heads/main", cmd);
    assert_eq!(sb.rev(&repo, "main"), main, "the trunk stays");

    let out = sb.berth(&repo, &["ship", "auth", "--gate", "true"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(sb.git(&repo, &["show", "main:auth.rs"]), "x\n");
    assert!(!sb.common_dir(&repo).join("refs/heads/main.lock").exists());
    assert_eq!(sb.status(&repo), "");
}

/// A person's git holds `packed-refs.lock` (made by hand here, as git makes it): berth never
/// removes it. Creating a branch and recording a review take no `packed-refs.lock`, as with git;
/// deleting a branch needs it, and the refusal names it in one line with a hint.
#[test]
fn a_packed_refs_lock_of_someone_else_stops_only_deletion_and_is_named_never_removed() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["done"]);
    sb.git(&repo, &["pack-refs", "--all"]);
    let lock = sb.common_dir(&repo).join("packed-refs.lock");
    std::fs::write(&lock, "").unwrap();

    let wt = sb.add(&repo, &["task"]);
    sb.commit_file(&wt, "f.txt", "one\n");
    let reviewer = Agent::spawn();
    let out = approve(&sb, &repo, &reviewer).output().unwrap();
    assert!(out.status.success(), "{}", outputs(&out));

    let out = sb.berth(&repo, &["remove", "done", "--delete-branch"]);
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert!(!out.status.success(), "{err}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("git berth: ") && l.contains(&lock.display().to_string())),
        "{err}"
    );
    assert!(
        lines.iter().any(|l| *l
            == format!(
                "hint: if no git command is running, remove {}",
                lock.display()
            )),
        "{err}"
    );
    assert!(err.len() < 400, "one line and a hint: {err}");
    assert!(lock.exists(), "someone else's lock stays");
    assert!(sb.has_branch(&repo, "berth/done"));
}

/// The same lock file, left by a berth that is gone (its record names a process that ended, as a
/// kill inside gix's deletion leaves it; no pause point reaches in there), is cleared.
#[test]
fn a_packed_refs_lock_a_dead_berth_recorded_is_cleared_by_the_next_command() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["done"]);
    sb.git(&repo, &["pack-refs", "--all"]);
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let pid = dead.id();
    let start = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().nth(19).unwrap().to_owned())
        })
        .unwrap_or_else(|| "1".to_owned());
    dead.wait().unwrap();
    let common = sb.common_dir(&repo);
    let lock = common.join("packed-refs.lock");
    std::fs::create_dir_all(common.join("berth/locks")).unwrap();
    std::fs::write(
        common.join(format!("berth/locks/{pid}.{start}.0")),
        format!("pid {pid}\nstart {start}\nlock {}\n", lock.display()),
    )
    .unwrap();
    std::fs::write(&lock, "").unwrap();

    let out = sb.berth(&repo, &["remove", "done", "--delete-branch"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(!lock.exists());
    assert!(!sb.has_branch(&repo, "berth/done"));
}

/// A command that must wait for the registry says for whom, then goes on once it is free.
#[test]
fn a_command_waiting_for_the_registry_says_which_pid_holds_it_and_then_succeeds() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut first = sb.berth_command(&repo, &["add", "first"]);
    first.env("BERTH_TEST_PAUSE_ADD_MS", "30000");
    let (mut holder, _err) = spawn_until_paused(first);
    let mut second = sb
        .berth_command(&repo, &["add", "second"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(second.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(
        line.trim(),
        format!("waiting for the registry (held by pid {})", holder.id())
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(second.wait().unwrap().success(), "{rest}");
    assert!(sb.has_branch(&repo, "berth/second"));
}

/// A ship killed after the trunk moved, holding the primary's `index.lock` before it touched a
/// file: the next command clears that lock (berth's own), and the landing is finished.
#[test]
fn a_ship_killed_holding_the_primary_s_index_lock_is_finished_and_the_lock_cleared() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    ship_killed_at(&sb, &repo, "BERTH_TEST_PAUSE_INDEX_LOCKED_MS");
    let lock = sb.common_dir(&repo).join("index.lock");
    assert!(lock.exists());
    assert!(
        !repo.join("auth.rs").exists(),
        "no file was touched before the lock"
    );

    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(!lock.exists());
    assert_eq!(sb.status(&repo), "");
    assert_eq!(
        std::fs::read_to_string(repo.join("auth.rs")).unwrap(),
        "x\n"
    );
}

/// A file the landing writes, changed in the primary after the trunk moved (a person's edit while
/// a killed landing waited to be finished), is never written over.
#[test]
fn bringing_the_primary_along_never_writes_over_a_file_changed_since_the_landing_was_checked() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    ship_killed_at(&sb, &repo, "BERTH_TEST_PAUSE_LANDED_MS");
    std::fs::write(repo.join("auth.rs"), "mine\n").unwrap();

    let out = sb.berth(&repo, &["prune"]);
    assert!(stderr(&out).contains("auth.rs"), "{}", outputs(&out));
    assert_eq!(
        std::fs::read_to_string(repo.join("auth.rs")).unwrap(),
        "mine\n"
    );
    assert!(!sb.common_dir(&repo).join("index.lock").exists());
}

/// A file a killed landing already wrote (as the landed commit has it) is no change of anyone's:
/// the landing is finished over it.
#[test]
fn bringing_the_primary_along_goes_on_over_files_a_killed_run_already_wrote() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    ship_killed_at(&sb, &repo, "BERTH_TEST_PAUSE_LANDED_MS");
    std::fs::write(repo.join("auth.rs"), "x\n").unwrap();

    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(sb.status(&repo), "");
}

/// `add` takes over the port block of a worktree whose folder is gone, running its teardown: a
/// hook (minutes, maybe) never runs while berth holds the registry's lock.
#[test]
fn the_teardown_of_a_gone_worktree_whose_block_add_takes_over_runs_without_the_registry_lock() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.port_range(&repo, 63700, 1);
    let registry_lock = sb.common_dir(&repo).join("berth/registry.lock");
    let seen = sb.root.join("seen");
    let teardown = format!(
        "if flock -n {} true; then echo free >> {}; else echo held >> {}; fi",
        common::sh_quote(registry_lock.to_str().unwrap()),
        common::sh_quote(seen.to_str().unwrap()),
        common::sh_quote(seen.to_str().unwrap()),
    );
    sb.install(&repo, &["--teardown", &teardown, "--ports", "10"]);
    sb.commit_all(&repo, "hooks");
    let gone = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();

    sb.add(&repo, &["next"]);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "free\n");
}

/// The file that lets a paused teardown hook end; made when dropped too, so that a failing test
/// leaves no hook waiting.
struct Release(std::path::PathBuf);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, "");
    }
}

/// A teardown hook that, for the worktree `slow` only, says it began (`<root>/started`) and waits
/// until the test creates `<root>/release`: the test acts while it runs.
fn slow_teardown(sb: &Sandbox, repo: &Path) -> (std::path::PathBuf, Release) {
    let started = sb.root.join("started");
    let release = sb.root.join("release");
    let teardown = format!(
        "case \"$WORKTREE_PATH\" in */slow) touch {}; while [ ! -e {} ]; do sleep 0.05; done;; esac",
        common::sh_quote(started.to_str().unwrap()),
        common::sh_quote(release.to_str().unwrap()),
    );
    sb.install(repo, &["--teardown", &teardown]);
    sb.commit_all(repo, "hooks");
    (started, Release(release))
}

/// Wait (a minute at most, so that a regression fails instead of hanging) for `path` to exist.
fn wait_for_file(path: &Path) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < until,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `git-berth <args>` in `dir`, required to end within a minute (it must not wait on the lock).
fn berth_promptly(sb: &Sandbox, dir: &Path, args: &[&str]) -> std::process::Output {
    let child = sb
        .berth_command(dir, args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_at_most(child, std::time::Duration::from_secs(60))
}

/// `remove slow` started and paused in its teardown hook.
fn removing_slow(sb: &Sandbox, repo: &Path, started: &Path) -> std::process::Child {
    let child = sb
        .berth_command(repo, &["remove", "slow"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(started);
    child
}

/// While a teardown hook runs (minutes, maybe), the registry's lock is free: other commands of
/// the repository go on, and the worktree being removed is left to its remover, named with it.
#[test]
fn other_commands_go_on_while_a_teardown_runs_and_leave_the_worktree_being_removed_alone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (started, release) = slow_teardown(&sb, &repo);
    let slow = sb.add(&repo, &["slow"]);
    let remover = removing_slow(&sb, &repo, &started);
    let pid = remover.id();
    let by = format!("worktree 'slow' is being removed by pid {pid}");

    let out = berth_promptly(&sb, &repo, &["add", "other"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let out = berth_promptly(&sb, &repo, &["list", "--json"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let out = berth_promptly(&sb, &repo, &["claim", "other"]);
    assert!(out.status.success(), "{}", outputs(&out));
    for args in [
        &["claim", "slow"][..],
        &["remove", "slow"],
        &["add", "slow"],
    ] {
        let out = berth_promptly(&sb, &repo, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", outputs(&out));
        let err = stderr(&out);
        assert!(err.contains(&by), "{args:?}: {err}");
        assert!(err.contains("hint: wait for pid"), "{args:?}: {err}");
    }
    let out = berth_promptly(&sb, &repo, &["clean", "--json"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = report["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "slow")
        .unwrap()
        .clone();
    assert_eq!(row["outcome"], "kept", "{report}");
    assert_eq!(row["reason"], by.as_str(), "{report}");
    assert!(slow.join(".git").exists(), "nothing of it went meanwhile");

    drop(release);
    let out = common::wait_at_most(remover, std::time::Duration::from_secs(60));
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(!slow.exists(), "the remover finished its removal");
}

/// A remover killed during its teardown leaves its mark (naming it) and a whole worktree: the
/// next command, seeing the remover gone, drops the mark, and the worktree is anyone's again.
#[test]
fn the_mark_of_a_remover_killed_during_its_teardown_is_dropped_and_the_worktree_stays_whole() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (started, release) = slow_teardown(&sb, &repo);
    let slow = sb.add(&repo, &["slow"]);
    let mut remover = removing_slow(&sb, &repo, &started);
    let registry = sb.registry_path(&repo);
    let marked = std::fs::read_to_string(&registry).unwrap();
    assert!(
        marked.contains("[[removing]]") && marked.contains(&format!("pid = {}", remover.id())),
        "the mark names its remover: {marked}"
    );
    remover.kill().unwrap();
    remover.wait().unwrap();
    drop(release);

    sb.berth_ok(&repo, &["claim", "slow"]);
    let after = std::fs::read_to_string(&registry).unwrap();
    assert!(!after.contains("[[removing]]"), "{after}");
    assert!(slow.join(".git").exists(), "the worktree is whole");
    assert_eq!(sb.git(&slow, &["status", "--porcelain"]), "");
    std::fs::remove_file(&started).unwrap();
    sb.berth_ok(&repo, &["remove", "slow"]);
    assert!(!slow.exists());
}
