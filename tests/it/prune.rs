//! `git berth prune`: forget worktrees whose folder is gone, drop git's admin entries that point
//! nowhere, never touch a worktree that exists.

use crate::common;

use common::{Sandbox, git_worktree_at, git_worktrees};

#[test]
fn prune_dry_run_reports_a_deleted_worktree_and_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&path).unwrap();
    let before = sb.state(&repo);

    let out = sb.berth_ok(&repo, &["prune", "--dry-run"]);

    assert!(
        out.lines()
            .any(|l| l.starts_with("would forget worktree 'gone'")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("would remove worktrees/gone")),
        "{out}"
    );
    assert_eq!(sb.state(&repo), before, "a dry run changes nothing");
    assert!(git_worktree_at(&sb, &repo, &path).unwrap().prunable);
    assert_eq!(sb.list_row(&repo, "gone")["state"], "missing");
}

#[test]
fn prune_forgets_a_deleted_worktree_and_drops_gits_admin_entry() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    let kept = sb.add(&repo, &["kept"]);
    std::fs::remove_dir_all(&path).unwrap();

    let out = sb.berth_ok(&repo, &["prune"]);

    assert!(
        out.lines().any(|l| l.starts_with("forgot worktree 'gone'")),
        "{out}"
    );
    let names: Vec<_> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["kept"]);
    assert!(
        git_worktree_at(&sb, &repo, &path).is_none(),
        "admin entry dropped"
    );
    assert!(
        git_worktree_at(&sb, &repo, &kept).is_some(),
        "the other stays"
    );
    assert!(kept.is_dir());
    assert!(!sb.common_dir(&repo).join("worktrees/gone").exists());
    assert!(sb.has_branch(&repo, "berth/gone"), "the branch is kept");
    let git_prune = sb.git(&repo, &["worktree", "prune", "--dry-run", "-v"]);
    assert_eq!(git_prune, "", "nothing left for git to prune");
}

#[test]
fn add_of_a_pruned_name_works_again() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&path).unwrap();
    sb.berth_ok(&repo, &["prune"]);

    let again = sb.add(&repo, &["gone"]);

    assert_eq!(again, path);
    let wt = git_worktree_at(&sb, &repo, &again).expect("git lists it");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/berth/gone"));
    assert!(!wt.prunable);
    assert_eq!(sb.status(&again), "");
    assert_eq!(sb.list_row(&repo, "gone")["state"], "ok");
}

#[test]
fn add_of_a_name_whose_folder_is_gone_says_to_prune_first() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&path).unwrap();
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "gone"]);

    let (first, hint) = common::error_lines(&err);
    assert!(first.starts_with("git berth: worktree 'gone'"), "{err}");
    assert!(hint.is_some_and(|h| h.contains("git berth prune")), "{err}");
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn prune_forgets_a_worktree_real_git_removed() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    sb.git(&repo, &["worktree", "remove", path.to_str().unwrap()]);

    let out = sb.berth_ok(&repo, &["prune"]);

    assert!(out.contains("forgot worktree 'gone'"), "{out}");
    assert!(sb.list_rows(&repo, false).is_empty());
}

#[test]
fn prune_drops_the_admin_entry_of_an_unmanaged_worktree_as_git_would() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let other = sb.root.join("other");
    sb.worktree_by_hand(&repo, "other", &other);
    std::fs::remove_dir_all(&other).unwrap();

    sb.berth_ok(&repo, &["prune"]);

    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
    assert!(!sb.common_dir(&repo).join("worktrees").exists());
    assert!(sb.has_branch(&repo, "other"));
}

#[test]
fn prune_keeps_a_locked_admin_entry_as_git_does() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["usb"]);
    sb.git(&repo, &["worktree", "lock", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&path).unwrap();

    sb.berth_ok(&repo, &["prune"]);

    let wt = git_worktree_at(&sb, &repo, &path).expect("git still lists the locked entry");
    assert!(wt.locked);
}

#[test]
fn prune_with_nothing_to_do_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["here"]);
    std::fs::write(path.join("untracked.txt"), "u\n").unwrap();
    let before = sb.state(&repo);

    let out = sb.berth(&repo, &["prune"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert_eq!(common::stdout(&out), "");
    assert!(common::stderr(&out).contains("nothing to prune"));
    assert_eq!(sb.state(&repo), before);
    assert!(path.join("untracked.txt").is_file());
}

#[test]
fn prune_deletes_a_landed_branch_no_worktree_has_and_keeps_one_with_unlanded_work() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "berth/landed", "main"]);
    sb.git(&repo, &["branch", "other", "main"]);
    sb.unlanded_branch(&repo, "berth/open");

    let dry = sb.berth_json(&repo, &["prune", "--dry-run", "--json"]);
    assert_eq!(dry["branches"][0]["branch"], "berth/landed", "{dry}");
    assert_eq!(dry["branches"][0]["outcome"], "would delete", "{dry}");
    assert_eq!(dry["branches"][1]["outcome"], "kept", "{dry}");
    assert!(
        sb.has_branch(&repo, "berth/landed"),
        "a dry run deletes nothing"
    );

    let out = sb.berth_ok(&repo, &["prune"]);
    let tip = sb.rev(&repo, "main");
    assert!(
        out.contains(&format!(
            "deleted branch berth/landed ({}): no worktree has it, and its work is on main",
            &tip[..7]
        )),
        "{out}"
    );
    assert!(
        out.contains("kept branch berth/open: no worktree has it, and it has 1 commit not on main"),
        "{out}"
    );
    assert!(!sb.has_branch(&repo, "berth/landed"));
    assert!(sb.has_branch(&repo, "berth/open"));
    assert!(
        sb.has_branch(&repo, "other"),
        "only branches under the prefix"
    );
}
