//! Many agents at once: real processes racing on one repository, an `add` killed with SIGKILL
//! midway, and a corrupt registry. Outcomes are checked with real git.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{Agent, Sandbox, git_worktree_at, git_worktrees, stderr, stdout};
use serde_json::Value;

/// `git berth <args>` through the real `git` program (git finds `git-berth` on `PATH`).
fn git_berth(sb: &Sandbox, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    sb.env(&mut cmd);
    let path = format!(
        "{}:{}",
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.current_dir(dir)
        .env("PATH", path)
        .arg("berth")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Start them all first, then wait for each.
fn run_all(children: Vec<Child>) -> Vec<Output> {
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

fn registry_records(sb: &Sandbox, repo: &Path) -> usize {
    let text = std::fs::read_to_string(sb.registry_path(repo)).unwrap();
    text.lines().filter(|l| l.trim() == "[[worktree]]").count()
}

#[test]
fn sixteen_concurrent_adds_of_different_names_all_succeed() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let children: Vec<Child> = (0..16)
        .map(|i| {
            git_berth(&sb, &repo, &["add", &format!("agent-{i}")])
                .env("BERTH_SESSION", format!("s{i}"))
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs = run_all(children);

    let mut paths = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        assert!(out.status.success(), "add {i}: {}", common::outputs(out));
        let path = PathBuf::from(stdout(out).trim());
        assert!(path.is_dir(), "{}", path.display());
        paths.push(path);
    }
    let porcelain = sb.git(&repo, &["worktree", "list", "--porcelain"]);
    let listed = porcelain
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count();
    assert_eq!(listed, 17, "primary + 16: {porcelain}");
    assert!(!porcelain.contains("prunable"), "{porcelain}");
    for (i, path) in paths.iter().enumerate() {
        let wt = git_worktree_at(&sb, &repo, path).expect("git knows it");
        assert_eq!(
            wt.branch.as_deref(),
            Some(format!("refs/heads/berth/agent-{i}").as_str())
        );
        assert_eq!(sb.status(path), "", "a clean checkout");
    }
    assert_eq!(registry_records(&sb, &repo), 16);
    let rows = sb.list_rows(&repo, false);
    assert_eq!(rows.len(), 16);
    for row in &rows {
        assert_eq!(row["state"], "ok", "{row}");
        assert_eq!(row["status"], "claimed", "{row}");
        let name = row["name"].as_str().unwrap();
        let n: usize = name.strip_prefix("agent-").unwrap().parse().unwrap();
        assert_eq!(row["claimed_by"], format!("s{n}"), "each holds its own");
    }
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn eight_sessions_racing_to_claim_one_worktree_leave_exactly_one_holder() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["shared"]);
    let agents: Vec<Agent> = (0..8).map(|_| Agent::spawn()).collect();

    for round in 0..3 {
        sb.berth_ok(&repo, &["release", "shared"]);
        assert_eq!(sb.list_row(&repo, "shared")["status"], "available");

        let children: Vec<Child> = agents
            .iter()
            .enumerate()
            .map(|(i, agent)| {
                sb.berth_as_command(&repo, &format!("r{i}"), agent.pid(), &["claim", "shared"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs = run_all(children);

        let winners: Vec<usize> = (0..8).filter(|&i| outputs[i].status.success()).collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one wins");
        let winner = format!("r{}", winners[0]);
        for (i, out) in outputs.iter().enumerate() {
            if i == winners[0] {
                continue;
            }
            assert_eq!(out.status.code(), Some(1), "{}", common::outputs(out));
            let err = stderr(out);
            assert!(
                err.contains(&format!("claimed by session {winner}")),
                "round {round}, racer r{i}: {err}"
            );
        }
        let row = sb.list_row(&repo, "shared");
        assert_eq!(row["status"], "claimed");
        assert_eq!(row["claimed_by"], winner.as_str());

        // The winner gives it back for the next round.
        let out = sb.berth_as(
            &repo,
            &winner,
            agents[winners[0]].pid(),
            &["release", "shared"],
        );
        assert!(out.status.success(), "{}", common::outputs(&out));
        sb.berth_ok(&repo, &["claim", "shared"]);
    }
}

#[test]
fn eight_sessions_racing_to_add_one_name_make_one_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agents: Vec<Agent> = (0..8).map(|_| Agent::spawn()).collect();

    let children: Vec<Child> = agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            sb.berth_as_command(&repo, &format!("r{i}"), agent.pid(), &["add", "same"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs = run_all(children);

    let winners: Vec<usize> = (0..8).filter(|&i| outputs[i].status.success()).collect();
    assert_eq!(winners.len(), 1, "exactly one makes it");
    let winner = format!("r{}", winners[0]);
    for out in &outputs {
        if !out.status.success() {
            assert_eq!(out.status.code(), Some(1));
            assert!(
                stderr(out).contains(&format!("claimed by session {winner}")),
                "{}",
                stderr(out)
            );
        }
    }
    assert_eq!(
        git_worktrees(&sb, &repo).len(),
        2,
        "one worktree, not eight"
    );
    assert_eq!(registry_records(&sb, &repo), 1);
    assert_eq!(sb.list_row(&repo, "same")["claimed_by"], winner.as_str());
}

/// An `add` of `name` stopped at its pause point (its `creating` record written, nothing made
/// yet, the registry lock held) for `ms`, still running; with its stderr reader. The caller
/// waits for the child.
#[allow(clippy::zombie_processes)]
fn add_paused(
    sb: &Sandbox,
    repo: &Path,
    name: &str,
    ms: u32,
) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = sb
        .berth_command(repo, &["add", name])
        .env("BERTH_TEST_PAUSE_ADD_MS", ms.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait().unwrap();
            panic!("add ended before its pause point: {status}");
        }
        if line.trim() == "paused" {
            return (child, err);
        }
    }
}

/// An `add` of `name` stopped at its pause point, then killed with SIGKILL. Returns the path
/// its record named.
fn add_killed_midway(sb: &Sandbox, repo: &Path, name: &str) -> PathBuf {
    let (mut child, _err) = add_paused(sb, repo, name, 30_000);
    // While it sleeps, a reader sees the unfinished record.
    let listed = sb.berth(repo, &["list", "--json"]);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let rows: Value = serde_json::from_slice(&listed.stdout)
        .unwrap_or_else(|e| panic!("list --json ({e}): {}", common::outputs(&listed)));
    let row = rows["worktrees"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no row for {name}: {rows}"));
    assert_eq!(row["state"], "creating", "{row}");
    PathBuf::from(row["path"].as_str().unwrap())
}

/// Nothing is left of `name`: no record, no worktree, no admin entry, no branch.
fn nothing_left(sb: &Sandbox, repo: &Path, name: &str, path: &Path) {
    let rows = sb.list_rows(repo, true);
    assert!(
        rows.iter()
            .all(|r| r["name"] != name && r["state"] != "creating"),
        "{rows:?}"
    );
    assert!(git_worktree_at(sb, repo, path).is_none());
    assert_eq!(
        git_worktrees(sb, repo).len(),
        1,
        "only the primary checkout"
    );
    assert!(!sb.has_branch(repo, &format!("berth/{name}")));
    assert!(!path.exists(), "{}", path.display());
    let admin = sb.common_dir(repo).join("worktrees");
    assert!(
        std::fs::read_dir(&admin).map_or(true, |mut d| d.next().is_none()),
        "no admin entry left in {}",
        admin.display()
    );
    assert_eq!(
        sb.git(repo, &["worktree", "prune", "--dry-run", "-v"]),
        "",
        "git finds nothing to prune"
    );
}

#[test]
fn prune_rolls_back_an_add_killed_midway_and_the_name_can_be_added_again() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");

    let out = sb.berth(&repo, &["prune"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("rolled back an unfinished add of 'auth'"),
        "{}",
        stderr(&out)
    );
    nothing_left(&sb, &repo, "auth", &path);
    let added = sb.berth_json(&repo, &["add", "auth", "--json"]);
    assert_eq!(added["reused"], false, "a fresh add, not a reuse");
    assert_eq!(added["path"], path.to_str().unwrap());
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
    assert_eq!(sb.list_row(&repo, "auth")["state"], "ok");
    assert_eq!(sb.status(&path), "");
}

#[test]
fn a_later_add_rolls_back_an_add_killed_midway_and_makes_the_name_afresh() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");

    let out = sb.berth(&repo, &["add", "auth", "--json"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("rolled back an unfinished add of 'auth'"),
        "{}",
        stderr(&out)
    );
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(added["reused"], false);
    let wt = git_worktree_at(&sb, &repo, &path).expect("git knows the new worktree");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/berth/auth"));
    assert_eq!(registry_records(&sb, &repo), 1);
    assert_eq!(sb.list_row(&repo, "auth")["state"], "ok");
    assert_eq!(sb.status(&path), "");
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn an_add_of_another_name_also_rolls_back_the_killed_one() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");

    let other = sb.add(&repo, &["other"]);

    let rows = sb.list_rows(&repo, false);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "other");
    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &other).is_some());
}

#[test]
fn prune_rolls_back_an_add_killed_after_git_made_its_branch_and_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");
    // As if the add had died later: branch and worktree made, the record still `creating`.
    sb.worktree_by_hand(&repo, "berth/auth", &path);

    sb.berth_ok(&repo, &["prune"]);

    nothing_left(&sb, &repo, "auth", &path);
    sb.add(&repo, &["auth"]);
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
}

#[test]
fn a_rollback_never_deletes_a_branch_that_has_moved_on() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");
    sb.worktree_by_hand(&repo, "berth/auth", &path);
    sb.commit_file(&path, "work.txt", "work\n");
    let tip = sb.rev(&repo, "berth/auth");

    sb.berth_ok(&repo, &["prune"]);

    assert_eq!(sb.rev(&repo, "berth/auth"), tip, "the commit is kept");
    let resumed = sb.add(&repo, &["auth"]);
    assert_eq!(sb.rev(&resumed, "HEAD"), tip, "the branch is resumed");
}

#[test]
fn claim_of_a_name_whose_add_was_killed_midway_does_not_hand_out_a_missing_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = add_killed_midway(&sb, &repo, "auth");

    let out = sb.berth(&repo, &["claim", "auth"]);

    // Either refused, or the dead add is rolled back first (then the name is unknown).
    assert_eq!(
        out.status.code(),
        Some(1),
        "claim handed out {} which does not exist: {}",
        path.display(),
        common::outputs(&out)
    );
}

#[test]
fn a_corrupt_registry_is_named_and_left_byte_for_byte() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["auth"]);
    let registry = sb.registry_path(&repo);
    let garbage: &[u8] = b"version = 1\n[[worktree]\nname = \"auth\n= not toml at all";
    std::fs::write(&registry, garbage).unwrap();
    let git_before = sb.git(&repo, &["worktree", "list", "--porcelain"]);
    let refs_before = sb.git(&repo, &["for-each-ref"]);

    for args in [
        vec!["list"],
        vec!["list", "--json"],
        vec!["add", "new"],
        vec!["add", "auth"],
        vec!["claim", "auth"],
        vec!["release", "auth"],
        vec!["remove", "auth"],
        vec!["remove", "--force", "auth"],
        vec!["clean"],
        vec!["collect", "--json"],
        vec!["prune"],
        vec!["path", "auth"],
    ] {
        let out = sb.berth(&repo, &args);
        assert_eq!(
            out.status.code(),
            Some(78),
            "{args:?}: {}",
            common::outputs(&out)
        );
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        assert!(first.starts_with("git berth: "), "{args:?}: {err}");
        assert!(first.contains("corrupt"), "{args:?}: {err}");
        assert!(
            first.contains(registry.to_str().unwrap()),
            "{args:?} names the file: {err}"
        );
        if !args.contains(&"--json") {
            assert_eq!(stdout(&out), "", "{args:?}");
        }
        assert_eq!(
            std::fs::read(&registry).unwrap(),
            garbage,
            "{args:?} left the file byte for byte"
        );
    }
    // From inside the worktree too.
    let err = sb.berth_misconfigured(&wt, &["list"]);
    assert!(err.contains(registry.to_str().unwrap()), "{err}");
    assert_eq!(std::fs::read(&registry).unwrap(), garbage);

    assert_eq!(
        sb.git(&repo, &["worktree", "list", "--porcelain"]),
        git_before
    );
    assert_eq!(sb.git(&repo, &["for-each-ref"]), refs_before);
    assert!(wt.is_dir());
    let leftovers: Vec<String> = std::fs::read_dir(registry.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn concurrent_adds_never_leave_a_temporary_registry_file_or_lose_a_record() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["base"]);
    let agents: Vec<Agent> = (0..4).map(|_| Agent::spawn()).collect();

    // Adds, claims and releases interleaved: every change is made on the latest registry.
    let mut children = Vec::new();
    for (i, agent) in agents.iter().enumerate() {
        let s = format!("m{i}");
        children.push(
            sb.berth_as_command(&repo, &s, agent.pid(), &["add", &format!("mix-{i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        children.push(
            sb.berth_command(&repo, &["list", "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
    }
    for out in run_all(children) {
        assert!(out.status.success(), "{}", common::outputs(&out));
    }

    assert_eq!(registry_records(&sb, &repo), 5);
    assert_eq!(git_worktrees(&sb, &repo).len(), 6);
    let dir = sb.registry_path(&repo).parent().unwrap().to_owned();
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_registry_that_is_not_even_text_is_named_and_left_byte_for_byte() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    let registry = sb.registry_path(&repo);
    let garbage: &[u8] = b"\xff\xfe\x00\x01binary";
    std::fs::write(&registry, garbage).unwrap();

    for args in [
        vec!["list"],
        vec!["add", "new"],
        vec!["claim", "auth"],
        vec!["prune"],
    ] {
        let err = sb.berth_misconfigured(&repo, &args);
        assert!(
            err.lines()
                .next()
                .unwrap_or_default()
                .contains(registry.to_str().unwrap()),
            "{args:?} names the file: {err}"
        );
        assert_eq!(std::fs::read(&registry).unwrap(), garbage, "{args:?}");
    }
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "add made nothing");
}

#[test]
fn remove_during_a_running_add_of_that_name_does_not_orphan_the_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (add, _err) = add_paused(&sb, &repo, "auth", 1500);

    let removed = sb.berth(&repo, &["remove", "auth"]);
    let added = add.wait_with_output().unwrap();

    assert!(added.status.success(), "{}", common::outputs(&added));
    let path = PathBuf::from(stdout(&added).trim());
    let in_git = git_worktree_at(&sb, &repo, &path).is_some();
    let in_registry = sb
        .list_rows(&repo, false)
        .iter()
        .any(|r| r["name"] == "auth");
    assert_eq!(
        in_git,
        in_registry,
        "git and the registry agree (remove said: {})",
        common::outputs(&removed)
    );
    if removed.status.success() {
        assert!(
            !in_git,
            "remove said it removed 'auth', but git still has it"
        );
    }
    sb.add(&repo, &["auth"]);
}

#[test]
fn clean_never_removes_a_worktree_claimed_while_it_runs() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let paths: Vec<PathBuf> = (0..12)
        .map(|i| {
            let name = format!("w{i}");
            let path = sb.add(&repo, &[&name]);
            sb.berth_ok(&repo, &["release", &name]);
            path
        })
        .collect();
    let agent = Agent::spawn();
    let clean = sb
        .berth_command(&repo, &["clean"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once clean has begun removing, s2 takes the last worktree.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while paths[0].exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let claim = sb.berth_as(&repo, "s2", agent.pid(), &["claim", "w11"]);
    let cleaned = clean.wait_with_output().unwrap();

    assert!(cleaned.status.success(), "{}", common::outputs(&cleaned));
    if claim.status.success() {
        assert!(
            paths[11].is_dir(),
            "s2 claimed w11 (exit 0) and clean then removed it: {}",
            common::outputs(&cleaned)
        );
        assert_eq!(sb.list_row(&repo, "w11")["claimed_by"], "s2");
    }
}

/// A lock on the branch that berth did not record (another git command's, or one made by hand)
/// is never removed, also when the add it stops was killed: the next add is refused naming it.
#[test]
fn an_add_killed_midway_leaves_a_branch_lock_berth_did_not_take_in_place() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    add_killed_midway(&sb, &repo, "locked");
    let lock = sb.common_dir(&repo).join("refs/heads/berth/locked.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let again = sb.berth(&repo, &["add", "locked"]);
    assert!(!again.status.success(), "{}", common::outputs(&again));
    let err = common::stderr(&again);
    assert!(err.contains(&lock.display().to_string()), "{err}");
    assert!(
        err.contains("hint: if no git command is running, remove"),
        "{err}"
    );
    assert!(lock.exists());
}

#[test]
fn a_config_lock_left_by_a_killed_berth_does_not_stop_branch_deletion() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["add", "done"]);
    // As if a berth was killed while gix held the config's lock in an earlier deletion.
    let lock = sb.common_dir(&repo).join("config.lock");
    std::fs::write(&lock, "").unwrap();
    let out = sb.berth(&repo, &["remove", "done", "--delete-branch"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!sb.has_branch(&repo, "berth/done"));
    // git's own config is untouched, and still readable.
    sb.git(&repo, &["config", "--list"]);
}
