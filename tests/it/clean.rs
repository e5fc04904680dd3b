//! `git berth clean`: removes every managed worktree that holds nothing of value (clean, merged
//! into the trunk by a merge, a squash or a rebase, not held by another live session, not
//! locked) and keeps the rest, saying why. Checked against real git.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Agent, Sandbox, git_worktree_at, git_worktrees, stdout};
use serde_json::Value;

/// Outcome and reason of each worktree in `clean --json`.
fn outcomes(report: &Value) -> BTreeMap<String, (String, Value)> {
    report["worktrees"]
        .as_array()
        .unwrap_or_else(|| panic!("clean --json has a worktrees array: {report}"))
        .iter()
        .map(|w| {
            (
                w["name"].as_str().unwrap().to_owned(),
                (
                    w["outcome"].as_str().unwrap().to_owned(),
                    w["reason"].clone(),
                ),
            )
        })
        .collect()
}

/// `clean` keeps every worktree held by a live claim, the caller's own included: give back the
/// ones this test's own session made, as a person does when the work is done.
fn release_mine(sb: &Sandbox, dir: &Path) {
    let list = sb.berth_json(dir, &["list", "--json"]);
    for w in list["worktrees"].as_array().unwrap() {
        if w["status"] == "claimed" && w["claimed_by"] != "s2" {
            let _ = sb.berth(dir, &["release", w["name"].as_str().unwrap()]);
        }
    }
}

fn removed() -> (String, Value) {
    ("removed".to_owned(), Value::Null)
}

fn kept(reason: &str) -> (String, Value) {
    ("kept".to_owned(), Value::from(reason))
}

/// Every way a worktree can be landed or held. Returns (name, path) pairs, and the agent that
/// holds `claimed` (keep it alive while cleaning).
fn every_kind(sb: &Sandbox, repo: &Path) -> (Vec<(&'static str, PathBuf)>, Agent) {
    let mut paths = Vec::new();
    // No commits at all.
    paths.push(("fresh", sb.add(repo, &["fresh"])));

    // Merged by a plain `git merge` (a fast-forward here).
    let merged = sb.add(repo, &["merged"]);
    sb.commit_file(&merged, "merged.txt", "merged\n");
    sb.commit_file(&merged, "merged2.txt", "merged again\n");
    sb.git(repo, &["merge", "-q", "berth/merged"]);
    paths.push(("merged", merged));

    // Squash-merged: the commits are not on main, their changes are.
    let squashed = sb.add(repo, &["squashed"]);
    sb.commit_file(&squashed, "squashed.txt", "one\n");
    sb.commit_file(&squashed, "squashed.txt", "one\ntwo\n");
    sb.git(repo, &["merge", "-q", "--squash", "berth/squashed"]);
    sb.git(repo, &["commit", "-q", "-m", "squashed work"]);
    paths.push(("squashed", squashed));

    // Rebase-merged: the commit was replayed onto main as a new commit.
    let rebased = sb.add(repo, &["rebased"]);
    sb.commit_file(&rebased, "rebased.txt", "rebased\n");
    sb.git(repo, &["cherry-pick", "berth/rebased"]);
    paths.push(("rebased", rebased));

    // Uncommitted work.
    let dirty = sb.add(repo, &["dirty"]);
    std::fs::write(dirty.join("notes.txt"), "not committed\n").unwrap();
    paths.push(("dirty", dirty));

    // A commit found nowhere on main.
    let unmerged = sb.add(repo, &["unmerged"]);
    sb.commit_file(&unmerged, "unmerged.txt", "only here\n");
    paths.push(("unmerged", unmerged));

    // Held by another live session (and otherwise clean and merged).
    let agent = Agent::spawn();
    let out = sb.berth_as(repo, "s2", agent.pid(), &["add", "claimed"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    paths.push(("claimed", PathBuf::from(stdout(&out).trim())));

    // Locked by git (and otherwise clean and merged).
    let locked = sb.add(repo, &["locked"]);
    sb.git(
        repo,
        &[
            "worktree",
            "lock",
            "--reason",
            "on a usb disk",
            locked.to_str().unwrap(),
        ],
    );
    paths.push(("locked", locked));

    (paths, agent)
}

#[test]
fn clean_removes_landed_worktrees_and_keeps_the_rest_saying_why() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (paths, _agent) = every_kind(&sb, &repo);
    let main_before = sb.rev(&repo, "main");

    release_mine(&sb, &repo);
    let out = sb.berth(&repo, &["clean", "--json"]);

    assert_eq!(out.status.code(), Some(0), "exit 0 though some were kept");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: BTreeMap<String, (String, Value)> = [
        ("fresh", removed()),
        ("merged", removed()),
        ("squashed", removed()),
        ("rebased", removed()),
        ("dirty", kept("dirty")),
        ("unmerged", kept("unmerged")),
        ("claimed", kept("claimed by s2")),
        ("locked", kept("locked")),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(outcomes(&report), expected, "{report}");
    assert_eq!(report["removed"], 4);
    assert_eq!(report["kept"], 4);
    assert_eq!(report["dry_run"], false);
    for w in report["worktrees"].as_array().unwrap() {
        let name = w["name"].as_str().unwrap();
        assert_eq!(w["branch"], format!("berth/{name}"), "{w}");
        let path = &paths.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(w["path"], path.to_str().unwrap(), "{w}");
    }

    // Real git agrees: the landed ones are gone, the others stay where they were.
    for (name, path) in &paths {
        let gone = matches!(*name, "fresh" | "merged" | "squashed" | "rebased");
        assert_eq!(
            git_worktree_at(&sb, &repo, path).is_none(),
            gone,
            "{name} in git worktree list"
        );
        assert_eq!(!path.exists(), gone, "{name}'s folder");
        assert!(
            sb.has_branch(&repo, &format!("berth/{name}")),
            "branch berth/{name} is kept"
        );
    }
    assert_eq!(git_worktrees(&sb, &repo).len(), 5, "primary + 4 kept");
    let names: Vec<String> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["dirty", "unmerged", "claimed", "locked"]);
    assert_eq!(sb.rev(&repo, "main"), main_before, "main untouched");
    assert_eq!(sb.status(&repo), "", "the primary checkout untouched");
    assert!(
        sb.status(&paths[4].1).contains("notes.txt"),
        "dirty work kept"
    );
    assert_eq!(
        sb.git(&repo, &["worktree", "prune", "--dry-run", "-v"]),
        "",
        "git finds nothing to prune"
    );
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn clean_dry_run_says_what_it_would_do_and_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (_paths, _agent) = every_kind(&sb, &repo);
    release_mine(&sb, &repo);
    let before = sb.state(&repo);

    let report = sb.berth_json(&repo, &["clean", "--dry-run", "--json"]);
    let table = sb.berth_ok(&repo, &["clean", "-n"]);

    assert_eq!(sb.state(&repo), before, "a dry run changes nothing");
    assert_eq!(report["dry_run"], true);
    assert_eq!(report["removed"], 0, "a dry run removes nothing");
    assert_eq!(report["would_remove"], 4, "counts what it would remove");
    assert_eq!(report["kept"], 4);
    let o = outcomes(&report);
    assert_eq!(o["fresh"], ("would remove".to_owned(), Value::Null));
    assert_eq!(o["dirty"], kept("dirty"));
    assert!(table.contains("would remove"), "{table}");
    assert!(
        table.trim_end().ends_with("would remove 4, kept 4"),
        "{table}"
    );
}

#[test]
fn clean_says_why_each_worktree_stays_and_sums_up_on_one_line() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let (_paths, _agent) = every_kind(&sb, &repo);

    release_mine(&sb, &repo);
    let out = sb.berth(&repo, &["clean"]);

    assert_eq!(out.status.code(), Some(0), "{}", common::outputs(&out));
    let text = stdout(&out);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name) || l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"))
            .to_owned()
    };
    assert!(line("dirty").starts_with("kept") && line("dirty").ends_with("dirty"));
    assert!(line("unmerged").ends_with("unmerged"), "{text}");
    assert!(line("claimed").ends_with("claimed by s2"), "{text}");
    assert!(line("locked").ends_with("locked"), "{text}");
    assert!(line("fresh").starts_with("removed"), "{text}");
    assert!(line("fresh").contains("branch berth/fresh kept"), "{text}");
    assert_eq!(text.lines().last(), Some("removed 4, kept 4"), "{text}");
}

#[test]
fn clean_with_nothing_to_remove_exits_zero_and_keeps_everything() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["work"]);
    sb.commit_file(&wt, "a.txt", "a\n");
    release_mine(&sb, &repo);
    let before = sb.state(&repo);

    let report = sb.berth_json(&repo, &["clean", "--json"]);

    assert_eq!(report["removed"], 0);
    assert_eq!(report["kept"], 1);
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn clean_takes_a_landed_worktree_whose_claim_went_stale() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "gone"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let path = PathBuf::from(stdout(&out).trim());
    agent.kill();

    release_mine(&sb, &repo);
    let report = sb.berth_json(&repo, &["clean", "--json"]);

    assert_eq!(outcomes(&report)["gone"], removed());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
}

#[test]
fn clean_counts_a_commit_pushed_but_not_landed_as_unmerged() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    let wt = sb.add(&repo, &["pushed"]);
    sb.commit_file(&wt, "p.txt", "p\n");
    sb.git(&wt, &["push", "-q", "-u", "origin", "berth/pushed"]);

    release_mine(&sb, &repo);
    let report = sb.berth_json(&repo, &["clean", "--json"]);

    assert_eq!(outcomes(&report)["pushed"], kept("unmerged"));
    assert!(wt.is_dir());
}

#[test]
fn clean_keeps_the_worktree_it_runs_in() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let here = sb.add(&repo, &["here"]);
    let there = sb.add(&repo, &["there"]);

    release_mine(&sb, &here);
    let report = sb.berth_json(&here, &["clean", "--json"]);

    let o = outcomes(&report);
    assert_eq!(o["here"].0, "kept", "{report}");
    assert_eq!(o["there"], removed());
    assert!(here.is_dir());
    assert!(git_worktree_at(&sb, &repo, &there).is_none());
}

#[test]
fn clean_judges_landing_against_the_trunk_berth_trunk_names() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "release"]);
    let wt = sb.add(&repo, &["fix"]);
    sb.commit_file(&wt, "fix.txt", "fix\n");
    // Landed on `release`, not on `main`.
    sb.git(&repo, &["checkout", "-q", "release"]);
    sb.git(&repo, &["merge", "-q", "berth/fix"]);
    sb.git(&repo, &["checkout", "-q", "main"]);

    release_mine(&sb, &repo);
    let report = sb.berth_json(&repo, &["clean", "--json", "--dry-run"]);
    assert_eq!(outcomes(&report)["fix"], kept("unmerged"));

    sb.git(&repo, &["config", "berth.trunk", "release"]);
    release_mine(&sb, &repo);
    let report = sb.berth_json(&repo, &["clean", "--json"]);
    assert_eq!(outcomes(&report)["fix"], removed());
    assert!(!wt.exists());
}

#[test]
fn ignored_files_do_not_keep_a_landed_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["built"]);
    std::fs::create_dir_all(wt.join("target/debug")).unwrap();
    std::fs::write(wt.join("target/debug/app"), "binary\n").unwrap();

    release_mine(&sb, &repo);
    let report = sb.berth_json(&repo, &["clean", "--json"]);

    assert_eq!(outcomes(&report)["built"], removed(), "{report}");
    assert!(!wt.exists());
    assert!(git_worktree_at(&sb, &repo, &wt).is_none());
}

#[test]
fn your_own_clean_removes_your_own_landed_worktrees_and_keeps_another_sessions() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["--session", "me", "add", "mine"]);
    let other = Agent::spawn();
    let out = sb.berth_as(&repo, "them", other.pid(), &["add", "theirs"]);
    assert!(out.status.success(), "{}", common::outputs(&out));

    let report = sb.berth_json(&repo, &["--session", "me", "clean", "--json"]);
    assert_eq!(outcomes(&report)["mine"], removed(), "{report}");
    assert_eq!(outcomes(&report)["theirs"], kept("claimed by them"));
}

#[test]
fn clean_gives_every_reason_a_worktree_stays() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let other = Agent::spawn();
    let out = sb.berth_as(&repo, "them", other.pid(), &["add", "busy", "--json"]);
    let path = serde_json::from_slice::<Value>(&out.stdout).unwrap()["path"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(Path::new(&path).join("scratch.txt"), "x").unwrap();
    let report = sb.berth_json(&repo, &["clean", "--json"]);
    assert_eq!(outcomes(&report)["busy"], kept("claimed by them, dirty"));
}

#[test]
fn clean_delete_branch_deletes_the_landed_branches_it_removes() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["add", "done"]);
    assert!(sb.has_branch(&repo, "berth/done"));
    let report = sb.berth_json(&repo, &["clean", "--delete-branch", "--json"]);
    assert_eq!(outcomes(&report)["done"], removed());
    assert!(!sb.has_branch(&repo, "berth/done"));
}

#[test]
fn a_dry_run_counts_what_it_would_remove_apart_from_what_it_removed() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["add", "done"]);
    let report = sb.berth_json(&repo, &["clean", "--dry-run", "--json"]);
    assert_eq!(report["removed"], 0, "{report}");
    assert_eq!(report["would_remove"], 1, "{report}");
    assert!(
        sb.list_rows(&repo, false)
            .iter()
            .any(|r| r["name"] == "done")
    );
}

#[test]
fn clean_deletes_a_landed_branch_no_worktree_has_and_names_one_with_unlanded_work() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "berth/landed", "main"]);
    sb.unlanded_branch(&repo, "berth/open");
    // A landed branch checked out in a worktree git made without berth is that worktree's.
    sb.worktree_by_hand(&repo, "berth/hand", &sb.root.join("hand"));

    let dry = sb.berth_json(&repo, &["clean", "--dry-run", "--json"]);
    let tip = sb.rev(&repo, "main");
    assert_eq!(
        dry["branches"],
        serde_json::json!([
            {"branch": "berth/landed", "tip": tip, "outcome": "would delete", "reason": null},
            {"branch": "berth/open", "tip": sb.rev(&repo, "berth/open"), "outcome": "kept",
             "reason": "1 commit not on main"},
        ]),
        "{dry}"
    );
    assert!(
        sb.has_branch(&repo, "berth/landed"),
        "a dry run deletes nothing"
    );

    let out = sb.berth_ok(&repo, &["clean"]);
    assert!(
        out.contains("deleted      branch berth/landed  no worktree, its work is on main"),
        "{out}"
    );
    assert!(
        out.contains("kept         branch berth/open  no worktree, 1 commit not on main"),
        "{out}"
    );
    assert!(!sb.has_branch(&repo, "berth/landed"));
    assert!(sb.has_branch(&repo, "berth/open"));
    assert!(sb.has_branch(&repo, "berth/hand"));
}

#[test]
fn clean_keeps_a_worktree_its_teardown_commits_in_with_the_commit_on_its_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.teardown_in_worktree(&repo, common::COMMIT_LATE);
    let path = sb.add(&repo, &["done"]);
    release_mine(&sb, &repo);

    let report = sb.berth_json(&repo, &["clean", "--delete-branch", "--json"]);

    let (outcome, reason) = &outcomes(&report)["done"];
    assert_eq!(outcome, "kept", "{report}");
    assert!(
        reason.as_str().unwrap().contains("during its teardown"),
        "{reason}"
    );
    assert!(path.join("late.txt").exists());
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%s", "berth/done"]),
        "late\n"
    );
}
