//! The guard's filesystem probe on checkouts made by the real git program: which `.git` files it
//! trusts (linked worktrees, submodules, `--separate-git-dir`) and which it ignores (copied or
//! forged ones), and where links lead.

use crate::common;

use berth::guard::probe::{self, Locator, Place, resolve};
use common::Sandbox;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// Where `path` lies, found both ways the guard finds it: the full walk, and the caching
/// `Locator` the guard runs with (fresh, and after it has located the path's folder, so the path
/// may be placed from its parent). All three must agree.
fn locate(path: &Path) -> std::io::Result<Place> {
    let walked = probe::locate(path);
    let fresh = Locator::default().locate(path);
    let mut warm = Locator::default();
    if let Some(parent) = path.parent() {
        let _ = warm.locate(parent);
    }
    let from_parent = warm.locate(path);
    for other in [&fresh, &from_parent] {
        assert_eq!(
            format!("{:?}", walked.as_ref().ok()),
            format!("{:?}", other.as_ref().ok()),
            "{}",
            path.display()
        );
    }
    walked
}

/// A primary checkout with a linked worktree beside it and one nested inside it.
struct Checkouts {
    sandbox: Sandbox,
    primary: PathBuf,
    linked: PathBuf,
    nested: PathBuf,
}

impl Checkouts {
    fn new() -> Checkouts {
        let sandbox = Sandbox::new();
        let primary = sandbox.repo("primary");
        sandbox.git(
            &primary,
            &["worktree", "add", "-q", "-b", "side", "../linked"],
        );
        sandbox.git(
            &primary,
            &["worktree", "add", "-q", "-b", "nest", ".claude/worktrees/x"],
        );
        Checkouts {
            linked: sandbox.root.join("linked"),
            nested: primary.join(".claude/worktrees/x"),
            primary,
            sandbox,
        }
    }

    fn primary_place(&self) -> Place {
        Place::Primary {
            root: self.primary.clone(),
        }
    }

    /// Where a file in the primary's `src` folder lies, where these tests plant a `.git`.
    fn primary_src(&self) -> Place {
        locate(&self.primary.join("src/lib.rs")).unwrap()
    }

    fn linked_place(&self, root: &Path) -> Place {
        Place::Linked {
            root: root.to_path_buf(),
            primary: Some(self.primary.clone()),
        }
    }
}

#[test]
fn a_linked_worktree_is_linked_and_names_its_primary() {
    let c = Checkouts::new();
    assert_eq!(
        locate(&c.linked.join("src/lib.rs")).unwrap(),
        c.linked_place(&c.linked)
    );
    assert_eq!(
        locate(&c.nested.join("new/file")).unwrap(),
        c.linked_place(&c.nested)
    );
    assert_eq!(c.primary_src(), c.primary_place());
    assert_eq!(
        locate(&c.sandbox.root.join("elsewhere")).unwrap(),
        Place::Outside
    );
}

#[test]
fn a_dot_git_copied_into_the_primary_leaves_it_the_primary() {
    let c = Checkouts::new();
    for from in [&c.linked, &c.nested] {
        fs::copy(from.join(".git"), c.primary.join("src/.git")).unwrap();
        assert_eq!(
            c.primary_src(),
            c.primary_place(),
            "copied from {}",
            from.display()
        );
    }
}

#[test]
fn a_dot_git_copied_outside_any_checkout_is_no_boundary() {
    let c = Checkouts::new();
    let odd = c.sandbox.root.join("odd");
    fs::create_dir_all(&odd).unwrap();
    fs::copy(c.linked.join(".git"), odd.join(".git")).unwrap();
    assert_eq!(locate(&odd.join("a")).unwrap(), Place::Outside);
}

#[test]
fn a_dot_git_linked_to_a_real_worktrees_dot_git_is_not_that_worktree() {
    let c = Checkouts::new();
    symlink(c.linked.join(".git"), c.primary.join("src/.git")).unwrap();
    assert_eq!(c.primary_src(), c.primary_place());
}

#[test]
fn a_dot_git_naming_the_primarys_own_git_dir_does_not_make_a_linked_worktree() {
    let c = Checkouts::new();
    fs::write(c.primary.join("src/.git"), "gitdir: ../.git\n").unwrap();
    let place = c.primary_src();
    assert!(matches!(place, Place::Primary { .. }), "{place:?}");
    // From a linked worktree too: a forged boundary there only protects more.
    fs::create_dir_all(c.linked.join("sub")).unwrap();
    fs::write(
        c.linked.join("sub/.git"),
        format!("gitdir: {}\n", c.primary.join(".git").display()),
    )
    .unwrap();
    let place = locate(&c.linked.join("sub/a")).unwrap();
    assert!(matches!(place, Place::Primary { .. }), "{place:?}");
}

#[test]
fn a_dot_git_naming_a_missing_admin_folder_is_ignored() {
    let c = Checkouts::new();
    fs::write(c.primary.join("src/.git"), "gitdir: /nowhere/at/all\n").unwrap();
    assert_eq!(c.primary_src(), c.primary_place());
}

#[test]
fn a_pruned_worktree_nested_in_the_primary_is_part_of_the_primary_again() {
    let c = Checkouts::new();
    fs::remove_dir_all(c.primary.join(".git/worktrees/x")).unwrap();
    assert_eq!(locate(&c.nested.join("a")).unwrap(), c.primary_place());
}

#[test]
fn a_worktree_with_relative_admin_paths_is_trusted() {
    // git 2.48's `worktree.useRelativePaths` writes both pointers relative to their folders.
    let c = Checkouts::new();
    fs::write(
        c.linked.join(".git"),
        "gitdir: ../primary/.git/worktrees/linked\n",
    )
    .unwrap();
    fs::write(
        c.primary.join(".git/worktrees/linked/gitdir"),
        "../../../../linked/.git\n",
    )
    .unwrap();
    assert_eq!(
        locate(&c.linked.join("a")).unwrap(),
        c.linked_place(&c.linked)
    );
}

#[test]
fn a_worktree_reached_through_a_link_is_still_trusted() {
    let c = Checkouts::new();
    let alias = c.sandbox.root.join("alias");
    symlink(&c.linked, &alias).unwrap();
    assert_eq!(locate(&alias.join("a")).unwrap(), c.linked_place(&c.linked));
}

#[test]
fn a_submodule_is_trusted_and_a_copy_of_its_dot_git_is_not() {
    let c = Checkouts::new();
    let sub = c.sandbox.repo("sub");
    c.sandbox.git(
        &c.primary,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub.to_str().unwrap(),
            "mods/s",
        ],
    );
    let module = c.primary.join("mods/s");
    assert!(fs::metadata(module.join(".git")).unwrap().is_file());
    assert_eq!(
        locate(&module.join("README.md")).unwrap(),
        Place::Linked {
            root: module.clone(),
            primary: None
        }
    );
    fs::copy(module.join(".git"), c.primary.join("src/.git")).unwrap();
    assert_eq!(c.primary_src(), c.primary_place());
}

#[test]
fn a_separate_git_dir_checkout_is_its_repositorys_primary_checkout() {
    let s = Sandbox::new();
    let work = s.root.join("work");
    s.git(
        &s.root,
        &[
            "init",
            "-q",
            "--separate-git-dir",
            s.root.join("repo.git").to_str().unwrap(),
            "work",
        ],
    );
    assert!(fs::metadata(work.join(".git")).unwrap().is_file());
    assert_eq!(
        locate(&work.join("a")).unwrap(),
        Place::Primary { root: work.clone() }
    );
}

#[test]
fn an_unreadable_or_malformed_dot_git_is_an_error() {
    let c = Checkouts::new();
    let odd = c.sandbox.root.join("odd");
    fs::create_dir_all(&odd).unwrap();
    fs::write(odd.join(".git"), "not a gitdir line\n").unwrap();
    let e = locate(&odd.join("a")).unwrap_err();
    assert!(e.to_string().contains("does not name a gitdir"), "{e}");
    fs::write(odd.join(".git"), "gitdir:  \n").unwrap();
    assert!(locate(&odd.join("a")).is_err());
}

#[test]
fn a_fifo_planted_as_dot_git_blocks_at_once() {
    let c = Checkouts::new();
    let fifo = c.primary.join("src/.git");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let e = locate(&c.primary.join("src/lib.rs")).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn a_dangling_link_from_a_linked_worktree_lands_in_the_primary() {
    let c = Checkouts::new();
    let link = c.linked.join("p");
    symlink("../primary/x", &link).unwrap();
    assert_eq!(resolve(&link).unwrap(), c.primary.join("x"));
    assert_eq!(locate(&link).unwrap(), c.primary_place());
    assert_eq!(locate(&link.join("deeper/y")).unwrap(), c.primary_place());
}

#[test]
fn a_link_loop_in_a_checkout_is_an_error() {
    let c = Checkouts::new();
    symlink("b", c.linked.join("a")).unwrap();
    symlink("a", c.linked.join("b")).unwrap();
    assert!(locate(&c.linked.join("a/x")).is_err());
}

/// `git berth guard` run in `dir` with `args`, and `stdin` when given; returns the exit code.
fn guard(c: &Checkouts, dir: &Path, args: &[&str], stdin: Option<&str>) -> Option<i32> {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut all = vec!["guard"];
    all.extend_from_slice(args);
    let mut cmd = c.sandbox.berth_command(dir, &all);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap().status.code()
}

#[test]
fn the_guard_blocks_in_a_primary_folder_that_holds_a_copied_dot_git() {
    let c = Checkouts::new();
    let src = c.primary.join("src");
    assert_eq!(guard(&c, &src, &["touch x"], None), Some(2));
    fs::copy(c.linked.join(".git"), src.join(".git")).unwrap();
    assert_eq!(guard(&c, &src, &["touch x"], None), Some(2));
    assert_eq!(guard(&c, &c.linked, &["touch x"], None), Some(0));
}

#[test]
fn the_guard_blocks_an_edit_through_a_dangling_link_into_the_primary() {
    let c = Checkouts::new();
    let link = c.linked.join("p");
    symlink("../primary/x", &link).unwrap();
    let edit = format!(
        r#"{{"session_id":"s1","cwd":"{linked}","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"{link}","content":"x"}},"tool_use_id":"t1"}}"#,
        linked = c.linked.display(),
        link = link.display()
    );
    assert_eq!(
        guard(&c, &c.linked, &["--runtime", "claude"], Some(&edit)),
        Some(2)
    );
    assert_eq!(guard(&c, &c.linked, &["echo x > p"], None), Some(2));
    assert_eq!(guard(&c, &c.linked, &["echo x > q"], None), Some(0));
}
