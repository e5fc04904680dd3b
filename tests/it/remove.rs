//! `git berth remove`: never loses work; what it removes, real git no longer knows.

use crate::common;

use std::path::Path;

use common::{Sandbox, error_lines, git_worktree_at, git_worktrees};

/// A remove that must be refused: exit 1, its first line, a hint, and nothing changed.
fn refused(sb: &Sandbox, repo: &Path, args: &[&str]) -> String {
    let before = sb.state(repo);
    let err = sb.berth_err(repo, args);
    assert_eq!(sb.state(repo), before, "a refused remove changes nothing");
    let (first, hint) = error_lines(&err);
    assert!(first.starts_with("git berth: "), "{err}");
    assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{err}");
    first
}

#[test]
fn remove_deletes_a_clean_worktree_and_keeps_its_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    let other = sb.add(&repo, &["ui"]);

    let out = sb.berth(&repo, &["remove", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert_eq!(common::stdout(&out), "");
    assert!(!path.exists(), "the folder is gone");
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "ui stays");
    assert!(other.is_dir());
    assert!(sb.has_branch(&repo, "berth/auth"), "the branch is kept");
    let names: Vec<_> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["ui"]);
    assert_eq!(sb.status(&repo), "");
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn rm_is_remove() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);

    sb.berth_ok(&repo, &["rm", "auth"]);

    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
}

#[test]
fn remove_with_delete_branch_deletes_the_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);

    sb.berth_ok(&repo, &["remove", "--delete-branch", "auth"]);

    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    assert!(!sb.has_branch(&repo, "berth/auth"));
    assert!(sb.has_branch(&repo, "main"));
}

#[test]
fn remove_refuses_a_worktree_with_an_untracked_file() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    std::fs::write(path.join("notes.txt"), "mine\n").unwrap();

    let first = refused(&sb, &repo, &["remove", "auth"]);

    assert_eq!(
        first,
        "git berth: worktree 'auth' has uncommitted changes or untracked files"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("notes.txt")).unwrap(),
        "mine\n"
    );
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
}

#[test]
fn remove_refuses_a_worktree_with_a_modified_tracked_file() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    std::fs::write(path.join("README.md"), "changed\n").unwrap();

    let first = refused(&sb, &repo, &["remove", "auth", "--delete-branch"]);

    assert!(first.contains("uncommitted changes"), "{first}");
    assert_eq!(
        std::fs::read_to_string(path.join("README.md")).unwrap(),
        "changed\n"
    );
}

#[test]
fn remove_refuses_an_edit_only_the_racy_test_sees_when_ctimes_are_not_trusted() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.git(&path, &["config", "core.trustctime", "false"]);
    common::edit_hidden_from_stat(&sb, &path, "README.md", "HELLO\n");

    let first = refused(&sb, &repo, &["remove", "auth"]);

    assert!(first.contains("uncommitted changes"), "{first}");
    assert_eq!(
        std::fs::read_to_string(path.join("README.md")).unwrap(),
        "HELLO\n"
    );
}

#[test]
fn remove_refuses_a_worktree_with_a_staged_change() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    std::fs::write(path.join("new.txt"), "new\n").unwrap();
    sb.git(&path, &["add", "new.txt"]);

    let first = refused(&sb, &repo, &["remove", "auth"]);

    assert!(first.contains("uncommitted changes"), "{first}");
}

#[test]
fn remove_does_not_count_ignored_files_as_dirty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    std::fs::create_dir_all(path.join("target")).unwrap();
    std::fs::write(path.join("target/out"), "built\n").unwrap();
    assert_eq!(sb.status(&path), "");

    let out = sb.berth(&repo, &["remove", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
}

#[test]
fn remove_refuses_a_worktree_with_unmerged_commits() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");

    let first = refused(&sb, &repo, &["remove", "auth"]);

    assert_eq!(
        first,
        "git berth: worktree 'auth' has 1 commit on berth/auth not on main or its upstream"
    );
    assert!(path.join("work.txt").is_file());
}

#[test]
fn remove_with_delete_branch_refuses_an_unmerged_branch_without_force() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "a.txt", "a\n");
    sb.commit_file(&path, "b.txt", "b\n");

    let first = refused(&sb, &repo, &["remove", "--delete-branch", "auth"]);

    assert!(first.contains("has 2 commits on berth/auth"), "{first}");
    assert!(sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn remove_refuses_a_branch_moved_on_after_the_worktree_switched_away() {
    // The worktree is clean and on another branch, but its berth branch still holds a commit
    // found nowhere else: --delete-branch would lose it.
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");
    sb.git(&path, &["switch", "-q", "--detach", "main"]);

    let first = refused(&sb, &repo, &["remove", "--delete-branch", "auth"]);

    assert!(first.contains("1 commit"), "{first}");
}

#[test]
fn remove_force_removes_a_dirty_and_unmerged_worktree_but_keeps_the_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");
    let tip = sb.rev(&path, "HEAD");
    std::fs::write(path.join("README.md"), "changed\n").unwrap();
    std::fs::write(path.join("untracked.txt"), "u\n").unwrap();

    sb.berth_ok(&repo, &["remove", "--force", "auth"]);

    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    assert_eq!(sb.rev(&repo, "berth/auth"), tip, "the commit survives");
}

#[test]
fn remove_force_with_delete_branch_deletes_an_unmerged_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");

    sb.berth_ok(&repo, &["remove", "-f", "-d", "auth"]);

    assert!(!path.exists());
    assert!(!sb.has_branch(&repo, "berth/auth"));
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}

#[test]
fn remove_accepts_commits_pushed_to_the_branch_upstream() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");
    sb.git(&path, &["push", "-q", "-u", "origin", "berth/auth"]);

    let out = sb.berth(&repo, &["remove", "--delete-branch", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    assert!(!sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn remove_refuses_commits_made_after_the_last_push() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "pushed.txt", "p\n");
    sb.git(&path, &["push", "-q", "-u", "origin", "berth/auth"]);
    sb.commit_file(&path, "local.txt", "l\n");

    let first = refused(&sb, &repo, &["remove", "auth"]);

    assert!(first.contains("has 1 commit on berth/auth"), "{first}");
}

#[test]
fn remove_accepts_a_branch_merged_into_main() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");
    sb.commit_file(&repo, "main.txt", "m\n");
    sb.git(&repo, &["merge", "-q", "--no-edit", "berth/auth"]);

    let out = sb.berth(&repo, &["remove", "--delete-branch", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!path.exists());
    assert!(!sb.has_branch(&repo, "berth/auth"));
    assert!(repo.join("work.txt").is_file());
}

#[test]
fn remove_refuses_a_locked_worktree_even_with_force() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.git(
        &repo,
        &[
            "worktree",
            "lock",
            "--reason",
            "agent 7",
            path.to_str().unwrap(),
        ],
    );

    for args in [
        &["remove", "auth"][..],
        &["remove", "--force", "auth"],
        &["remove", "--force", "--delete-branch", "auth"],
    ] {
        let first = refused(&sb, &repo, args);
        assert_eq!(first, "git berth: worktree 'auth' is locked: agent 7");
    }

    assert!(path.is_dir());
    assert!(git_worktree_at(&sb, &repo, &path).unwrap().locked);
    assert!(sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn remove_of_several_names_removes_none_when_one_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let clean = sb.add(&repo, &["clean"]);
    let dirty = sb.add(&repo, &["dirty"]);
    let also = sb.add(&repo, &["also"]);
    std::fs::write(dirty.join("scratch.txt"), "x\n").unwrap();

    let first = refused(&sb, &repo, &["remove", "clean", "dirty", "also"]);

    assert!(first.contains("'dirty'"), "{first}");
    for path in [&clean, &dirty, &also] {
        assert!(path.is_dir());
        assert!(git_worktree_at(&sb, &repo, path).is_some());
    }
    assert_eq!(sb.list_rows(&repo, false).len(), 3);
}

#[test]
fn remove_of_several_names_removes_them_all() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let one = sb.add(&repo, &["one"]);
    let two = sb.add(&repo, &["two"]);

    sb.berth_ok(&repo, &["remove", "one", "two"]);

    assert!(!one.exists() && !two.exists());
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
    assert!(sb.list_rows(&repo, false).is_empty());
}

#[test]
fn remove_refuses_an_unknown_name_and_removes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);

    let first = refused(&sb, &repo, &["remove", "auth", "nope"]);

    assert_eq!(first, "git berth: no worktree named 'nope'");
    assert!(path.is_dir());
}

#[test]
fn remove_refuses_a_worktree_git_made_without_berth() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let other = sb.root.join("other");
    sb.worktree_by_hand(&repo, "other", &other);

    let first = refused(&sb, &repo, &["remove", "other"]);

    assert_eq!(
        first,
        format!(
            "git berth: 'other' is a linked worktree git berth does not manage: {}",
            other.display()
        )
    );
    assert!(other.is_dir());
}

#[test]
fn remove_refuses_the_worktree_you_stand_in() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);

    let first = refused(&sb, &path, &["remove", "--force", "auth"]);

    assert!(first.contains("the one you are in"), "{first}");
    assert!(path.is_dir());
}

#[test]
fn remove_of_a_worktree_git_already_removed_forgets_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.git(&repo, &["worktree", "remove", path.to_str().unwrap()]);

    sb.berth_ok(&repo, &["remove", "auth"]);

    assert!(sb.list_rows(&repo, false).is_empty());
    assert!(sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn real_git_worktree_remove_works_on_a_berth_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");

    sb.git(&repo, &["worktree", "remove", path.to_str().unwrap()]);

    assert!(!path.exists());
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    sb.git(&repo, &["worktree", "prune"]);
    sb.git(&repo, &["gc", "-q"]);
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn real_git_refuses_to_remove_a_dirty_berth_worktree_as_berth_does() {
    // git reads berth's index and admin files: it sees the untracked file and refuses too.
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    std::fs::write(path.join("new.txt"), "n\n").unwrap();

    let out = sb.git_output(&repo, &["worktree", "remove", path.to_str().unwrap()]);

    assert!(!out.status.success());
    assert!(path.join("new.txt").is_file());
}

#[test]
fn remove_with_delete_branch_refuses_a_checked_out_branch_whose_commits_are_nowhere_else() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["switch", "-q", "-c", "topic"]);
    sb.commit_file(&repo, "topic.txt", "t\n");
    sb.git(&repo, &["switch", "-q", "main"]);
    let tip = sb.rev(&repo, "topic");
    sb.add(&repo, &["t", "--branch", "topic"]);

    let first = refused(&sb, &repo, &["remove", "--delete-branch", "t"]);

    assert!(first.contains("1 commit on topic"), "{first}");
    assert_eq!(
        sb.rev(&repo, "topic"),
        tip,
        "the commit is still on a branch"
    );
}

#[test]
fn remove_judges_merged_against_the_configured_trunk() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "dev"]);
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "w\n");
    sb.git(&repo, &["branch", "-f", "dev", "berth/auth"]);

    // main is the trunk by default, and it lacks the commit.
    let first = refused(&sb, &repo, &["remove", "auth"]);
    assert!(first.contains("not on main"), "{first}");

    sb.git(&repo, &["config", "berth.trunk", "dev"]);
    sb.berth_ok(&repo, &["remove", "--delete-branch", "auth"]);
    assert!(!path.exists());
    assert!(!sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn remove_delete_branch_of_a_branch_berth_did_not_create_needs_force() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "feature"]);
    sb.add(&repo, &["work", "--branch", "feature"]);

    let line = refused(&sb, &repo, &["remove", "--delete-branch", "work"]);
    let (_, hint) = error_lines(&sb.berth_err(&repo, &["remove", "--delete-branch", "work"]));
    assert!(
        line.contains("feature, a branch git berth did not create"),
        "{line}"
    );
    assert!(line.contains("--force"), "{line}");
    assert!(
        hint.unwrap()
            .contains("remove --delete-branch --force 'work'")
    );
    assert!(sb.has_branch(&repo, "feature"));
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "nothing was removed");

    sb.berth_ok(&repo, &["remove", "--delete-branch", "--force", "work"]);
    assert!(!sb.has_branch(&repo, "feature"));
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}

#[test]
fn clean_delete_branch_keeps_a_branch_berth_did_not_create_and_deletes_its_own() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "feature"]);
    sb.add(&repo, &["given", "--branch", "feature"]);
    sb.add(&repo, &["own"]);

    let out = sb.berth_ok(&repo, &["clean", "--delete-branch"]);
    assert!(git_worktrees(&sb, &repo).len() == 1, "{out}");
    assert!(sb.has_branch(&repo, "feature"), "{out}");
    assert!(!sb.has_branch(&repo, "berth/own"), "{out}");
}

#[test]
fn remove_keeps_a_worktree_and_its_branch_when_its_teardown_commits_in_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.teardown_in_worktree(&repo, common::COMMIT_LATE);
    let path = sb.add(&repo, &["auth"]);

    let out = sb.berth(&repo, &["remove", "--delete-branch", "auth"]);

    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    let err = common::stderr(&out);
    assert!(
        err.contains("kept worktree 'auth'") && err.contains("during its teardown"),
        "{err}"
    );
    assert!(err.contains("hint: "), "{err}");
    assert!(path.join("late.txt").exists(), "the worktree stays");
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%s", "berth/auth"]),
        "late\n",
        "the commit made during the teardown is on the branch"
    );
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
    assert_eq!(sb.list_row(&repo, "auth")["name"], "auth");
}

#[test]
fn remove_keeps_a_file_its_teardown_writes_into_the_worktree_and_says_why_in_json() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.teardown_in_worktree(
        &repo,
        "[ \"$WORKTREE_NAME\" = auth ] || exit 0; echo late > late.txt",
    );
    let path = sb.add(&repo, &["auth"]);
    let gone = sb.add(&repo, &["ui"]);

    let out = sb.berth(&repo, &["remove", "--json", "auth", "ui"]);

    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["removed"][0]["name"], "ui", "{report}");
    assert_eq!(report["kept"][0]["name"], "auth", "{report}");
    assert_eq!(
        report["kept"][0]["reason"],
        "files in it changed during its teardown"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("late.txt")).unwrap(),
        "late\n"
    );
    assert!(!gone.exists());
}

#[test]
fn remove_force_discards_the_worktree_but_keeps_a_branch_its_teardown_moved() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.teardown_in_worktree(&repo, common::COMMIT_LATE);
    let path = sb.add(&repo, &["auth"]);
    let judged = sb.rev(&path, "HEAD");

    let out = sb.berth(&repo, &["remove", "--force", "--delete-branch", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    let err = common::stderr(&out);
    assert!(
        err.contains(&format!(
            "branch berth/auth kept: it moved from {}",
            &judged[..7]
        )),
        "{err}"
    );
    assert!(!path.exists(), "--force removes the worktree");
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%s", "berth/auth"]),
        "late\n",
        "the commit made after the judgement is kept on its branch"
    );
}

#[test]
fn a_remove_whose_stderr_reader_went_away_still_removes_and_exits_0() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["auth"]);

    let out = common::output_with_stderr_gone(sb.berth_command(&repo, &["remove", "auth"]));

    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!wt.exists());
    assert!(git_worktree_at(&sb, &repo, &wt).is_none());
}
