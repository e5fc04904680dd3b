//! `git berth status-line`: the counts a status bar shows, checked against real claims of two
//! sessions, real verdicts, and what `list --json` says of the same repository.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Agent, Sandbox, error_lines};

/// A repository with five worktrees, one of each kind the counts tell apart:
/// - `mine-work`: held by this test's session, a commit of its own, no verdict (to review);
/// - `mine-idle`: held by this test's session, no commit (nothing to review);
/// - `theirs`: held by another live session, a commit, approved at its head;
/// - `gone`: held by a session whose process is gone (stale), a commit approved, then another
///   commit (a stale verdict: to review);
/// - `free`: released, held by nobody.
///
/// Returns the repository and the live agents, which must outlive the checks.
fn fleet(sb: &Sandbox) -> (PathBuf, Vec<Agent>) {
    let repo = sb.repo("app");
    let other = Agent::spawn();
    let reviewer = Agent::spawn();
    let mut dead = Agent::spawn();

    let mine_work = sb.add(&repo, &["mine-work"]);
    sb.commit_file(&mine_work, "work.txt", "work\n");
    sb.add(&repo, &["mine-idle"]);

    let theirs = added_as(sb, &repo, "other", &other, "theirs");
    sb.commit_file(&theirs, "theirs.txt", "theirs\n");
    approve(sb, &repo, &reviewer, "theirs");

    let gone = added_as(sb, &repo, "dead", &dead, "gone");
    sb.commit_file(&gone, "gone.txt", "one\n");
    approve(sb, &repo, &reviewer, "gone");
    sb.commit_file(&gone, "gone.txt", "two\n");
    dead.kill();

    sb.add(&repo, &["free"]);
    sb.berth_ok(&repo, &["release", "free"]);
    (repo, vec![other, reviewer])
}

fn added_as(sb: &Sandbox, repo: &Path, who: &str, agent: &Agent, name: &str) -> PathBuf {
    let out = sb.berth_as(repo, who, agent.pid(), &["add", name]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    PathBuf::from(common::stdout(&out).trim_end())
}

fn approve(sb: &Sandbox, repo: &Path, reviewer: &Agent, name: &str) {
    let out = sb.berth_as(
        repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", name],
    );
    assert!(out.status.success(), "{}", common::outputs(&out));
}

#[test]
fn the_segment_counts_worktrees_yours_and_those_waiting_for_a_review() {
    let sb = Sandbox::new();
    let (repo, _agents) = fleet(&sb);

    assert_eq!(
        sb.berth_ok(&repo, &["status-line"]),
        "worktrees 5 · 2 yours · 2 to review\n"
    );
    let value = sb.berth_json(&repo, &["status-line", "--json"]);
    assert_eq!(
        value,
        serde_json::json!({
            "total": 5, "yours": 2, "review": 2, "claimed": 3, "available": 1, "stale": 1
        })
    );
    // Another session sees its own worktree as its own; the rest is the same.
    let other = Agent::spawn();
    let out = sb.berth_as(&repo, "other", other.pid(), &["status-line"]);
    assert_eq!(
        common::stdout(&out),
        "worktrees 5 · 1 yours · 2 to review\n"
    );
}

#[test]
fn the_counts_agree_with_list() {
    let sb = Sandbox::new();
    let (repo, _agents) = fleet(&sb);

    let rows = sb.list_rows(&repo, false);
    let status = |s: &str| rows.iter().filter(|r| r["status"] == s).count();
    let waiting = rows
        .iter()
        .filter(|r| r["review"] == "unreviewed" || r["review"] == "stale")
        .filter(|r| r["ahead"].as_u64().unwrap_or(0) > 0)
        .count();
    let mine = sb.berth_json(&repo, &["list", "--mine", "--json"])["worktrees"]
        .as_array()
        .unwrap()
        .len();

    let counts = sb.berth_json(&repo, &["status-line", "--json"]);
    assert_eq!(counts["total"], rows.len());
    assert_eq!(counts["yours"], mine);
    assert_eq!(counts["review"], waiting);
    assert_eq!(counts["claimed"], status("claimed"));
    assert_eq!(counts["available"], status("available"));
    assert_eq!(counts["stale"], status("stale"));
}

#[test]
fn a_template_gets_every_count_and_keeps_doubled_braces() {
    let sb = Sandbox::new();
    let (repo, _agents) = fleet(&sb);

    let out = sb.berth_ok(
        &repo,
        &[
            "status-line",
            "--format",
            "{total}t {yours}y {review}r {claimed}c {available}a {stale}s {{x}}",
        ],
    );

    assert_eq!(out, "5t 2y 2r 3c 1a 1s {x}\n");
}

#[test]
fn it_reads_the_same_from_inside_a_worktree() {
    let sb = Sandbox::new();
    let (repo, _agents) = fleet(&sb);
    let wt = sb.berth_ok(&repo, &["path", "mine-idle"]);

    assert_eq!(
        sb.berth_ok(Path::new(wt.trim_end()), &["status-line"]),
        "worktrees 5 · 2 yours · 2 to review\n"
    );
}

#[test]
fn no_worktrees_is_worktrees_0_and_an_approval_or_a_release_changes_the_counts() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    assert_eq!(sb.berth_ok(&repo, &["status-line"]), "worktrees 0\n");

    let wt = sb.add(&repo, &["task"]);
    assert_eq!(
        sb.berth_ok(&repo, &["status-line"]),
        "worktrees 1 · 1 yours\n"
    );
    sb.commit_file(&wt, "work.txt", "work\n");
    assert_eq!(
        sb.berth_ok(&repo, &["status-line"]),
        "worktrees 1 · 1 yours · 1 to review\n"
    );
    let reviewer = Agent::spawn();
    approve(&sb, &repo, &reviewer, "task");
    sb.berth_ok(&repo, &["release", "task"]);

    assert_eq!(sb.berth_ok(&repo, &["status-line"]), "worktrees 1\n");
}

#[test]
fn an_unknown_placeholder_is_refused_naming_it_and_the_known_ones() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let err = sb.berth_err(&repo, &["status-line", "--format", "{total} {mine}"]);

    let (what, hint) = error_lines(&err);
    assert_eq!(
        what,
        "git berth: --format has an unknown placeholder {mine}"
    );
    let hint = hint.expect("a hint");
    for known in [
        "{total}",
        "{yours}",
        "{review}",
        "{claimed}",
        "{available}",
        "{stale}",
    ] {
        assert!(hint.contains(known), "{hint}");
    }
}

#[test]
fn outside_a_repository_it_prints_nothing_and_succeeds() {
    let sb = Sandbox::new();
    let plain = sb.root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();

    for args in [&["status-line"][..], &["status-line", "--json"]] {
        let out = sb.berth(&plain, args);
        assert!(out.status.success(), "{}", common::outputs(&out));
        assert_eq!(common::stdout(&out), "", "{args:?}");
        assert_eq!(common::stderr(&out), "", "{args:?}");
    }
}
