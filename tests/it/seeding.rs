//! Seeding untracked files of the primary checkout into new worktrees, on a real filesystem:
//! `.worktree-hooks/seed` (committed or local) and `.worktreeinclude`, copied unless a line says
//! `link`, each refusal warned while the add still succeeds.

use crate::common;

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use common::*;

/// This file's `berth.portRange`: 65200-65299, above the ranges of tests/hooks.rs and
/// tests/ports.rs and above Linux's ephemeral ports.
const PORTS_FROM: u16 = 65200;

/// Whether two paths are one file (a hard link).
fn same_file(a: &Path, b: &Path) -> bool {
    let (a, b) = (
        std::fs::metadata(a).unwrap_or_else(|e| panic!("{}: {e}", a.display())),
        std::fs::metadata(b).unwrap_or_else(|e| panic!("{}: {e}", b.display())),
    );
    a.dev() == b.dev() && a.ino() == b.ino()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A repository that ignores the local files the tests seed, with `seed` committed as its seed
/// hook when given.
fn project(sandbox: &Sandbox, seed: Option<&str>) -> PathBuf {
    let repo = sandbox.repo("repo");
    write(
        &repo.join(".gitignore"),
        "target/\n.env\n.env.local\nnode_modules/\ncache/\nconfig/*.local.json\nnotes.txt\n.secrets\n",
    );
    if let Some(seed) = seed {
        write(&repo.join(".worktree-hooks/seed"), seed);
    }
    sandbox.commit_all(&repo, "ignore local files");
    repo
}

#[test]
fn a_seeded_env_file_and_folder_are_copies_the_worktree_owns() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, Some(".env\nnode_modules\n"));
    write(&repo.join(".env"), "KEY=1\n");
    write(
        &repo.join("node_modules/pkg/index.js"),
        "module.exports = 1;\n",
    );
    write(&repo.join("node_modules/.bin/tool"), "#!/bin/sh\n");

    let wt = sandbox.add(&repo, &["x"]);
    assert_eq!(read(&wt.join(".env")), "KEY=1\n");
    assert!(!same_file(&repo.join(".env"), &wt.join(".env")), "a copy");
    let modules = wt.join("node_modules");
    let meta = std::fs::symlink_metadata(&modules).unwrap();
    assert!(
        meta.is_dir() && !meta.file_type().is_symlink(),
        "a real folder"
    );
    let (from, to) = (
        repo.join("node_modules/pkg/index.js"),
        modules.join("pkg/index.js"),
    );
    assert_eq!(read(&to), "module.exports = 1;\n");
    assert!(!same_file(&from, &to), "copied, not linked");
    assert_eq!(read(&modules.join(".bin/tool")), "#!/bin/sh\n");
    // A copy is the worktree's own.
    write(&to, "changed\n");
    assert_eq!(read(&from), "module.exports = 1;\n");
    assert_eq!(
        sandbox.status(&wt),
        "",
        "seeded files are ignored, not changes"
    );
}

#[test]
fn a_setup_that_appends_its_port_to_the_seeded_env_changes_only_its_own_worktree() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, Some(".env\n"));
    sandbox.port_range(&repo, PORTS_FROM, 10);
    sandbox.install(
        &repo,
        &[
            "--setup",
            "echo \"PORT=$WORKTREE_PORT\" >> .env",
            "--ports",
            "10",
        ],
    );
    sandbox.commit_all(&repo, "hooks");
    write(&repo.join(".env"), "KEY=1\n");

    let a = sandbox.add(&repo, &["a"]);
    let b = sandbox.add(&repo, &["b"]);
    let (port_a, port_b) = (PORTS_FROM, PORTS_FROM + 10);
    assert_eq!(
        read(&repo.join(".env")),
        "KEY=1\n",
        "the primary's is its own"
    );
    assert_eq!(read(&a.join(".env")), format!("KEY=1\nPORT={port_a}\n"));
    assert_eq!(read(&b.join(".env")), format!("KEY=1\nPORT={port_b}\n"));
}

#[test]
fn each_refused_seed_path_is_warned_and_the_add_still_succeeds() {
    let sandbox = Sandbox::new();
    let seed = ".env\nREADME.md\n../outside.txt\nlinked/secret\nalias.env\nmissing.txt\n.secrets\n";
    let repo = project(&sandbox, Some(seed));
    write(&repo.join(".env"), "FROM=primary\n");
    write(&repo.join(".secrets"), "ok\n");
    write(&sandbox.root.join("outside.txt"), "outside\n");
    write(&sandbox.root.join("elsewhere/secret"), "leak\n");
    std::os::unix::fs::symlink(sandbox.root.join("elsewhere"), repo.join("linked")).unwrap();
    std::os::unix::fs::symlink(repo.join(".env"), repo.join("alias.env")).unwrap();
    std::fs::write(repo.join(".git/info/exclude"), "linked\nalias.env\n").unwrap();
    // The repository's post-checkout hook makes a .env of its own in each new worktree.
    let hook = repo.join(".git/hooks/post-checkout");
    write(&hook, "#!/bin/sh\necho FROM=hook > .env\n");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = sandbox.berth(&repo, &["add", "x"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let wt = PathBuf::from(stdout(&out).trim_end());
    let err = stderr(&out);
    for (path, why) in [
        (".env", "something is already there"),
        ("README.md", "it is tracked by git"),
        ("../outside.txt", "it leaves the checkout"),
        ("linked/secret", "it passes through a symlink"),
        ("alias.env", "it passes through a symlink"),
        ("missing.txt", "it does not exist in the primary checkout"),
    ] {
        assert!(
            err.contains(&format!("not seeding {path}: {why}")),
            "no warning for {path}: {err}"
        );
    }
    assert!(!err.contains("not seeding .secrets"), "{err}");
    assert_eq!(read(&wt.join(".secrets")), "ok\n");

    assert_eq!(
        read(&wt.join(".env")),
        "FROM=hook\n",
        "never over an existing file"
    );
    assert!(!same_file(&repo.join("README.md"), &wt.join("README.md")));
    assert!(!wt.parent().unwrap().join("outside.txt").exists());
    assert!(std::fs::symlink_metadata(wt.join("linked")).is_err());
    assert!(std::fs::symlink_metadata(wt.join("alias.env")).is_err());
    assert!(!wt.join("missing.txt").exists());
    assert_eq!(read(&sandbox.root.join("elsewhere/secret")), "leak\n");
}

#[test]
fn setup_seeds_again_but_never_over_a_file_already_in_the_worktree() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, Some(".env\nnotes.txt\n"));
    write(&repo.join(".env"), "FROM=primary\n");
    write(&repo.join("notes.txt"), "notes\n");
    let wt = sandbox.add(&repo, &["x", "--no-setup"]);
    assert!(!wt.join(".env").exists(), "--no-setup seeds nothing");
    write(&wt.join(".env"), "MINE=1\n");

    let out = sandbox.berth(&repo, &["setup", "x"]);
    assert!(out.status.success(), "{}", outputs(&out));
    // The worktree's own file is no news on a run that may repeat: no warning, and kept.
    assert!(!stderr(&out).contains("not seeding"), "{}", stderr(&out));
    assert_eq!(read(&wt.join(".env")), "MINE=1\n");
    assert_eq!(read(&repo.join(".env")), "FROM=primary\n");
    assert_eq!(read(&wt.join("notes.txt")), "notes\n");
}

#[test]
fn a_seed_line_that_says_link_shares_a_file_or_a_folder_on_purpose() {
    let sandbox = Sandbox::new();
    let repo = project(
        &sandbox,
        Some("# modes\n.env link\ncache link\nnotes.txt copy\n"),
    );
    write(&repo.join(".env"), "KEY=1\n");
    write(&repo.join("cache/blob"), "data\n");
    write(&repo.join("notes.txt"), "notes\n");
    let wt = sandbox.add(&repo, &["x"]);
    assert!(
        same_file(&repo.join(".env"), &wt.join(".env")),
        "a hard link: one inode"
    );
    assert!(!same_file(&repo.join("notes.txt"), &wt.join("notes.txt")));
    assert_eq!(read(&wt.join("notes.txt")), "notes\n");
    // The linked folder is shared: what one checkout writes, the other sees.
    assert!(
        std::fs::symlink_metadata(wt.join("cache"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    write(&wt.join("cache/new"), "shared\n");
    assert_eq!(read(&repo.join("cache/new")), "shared\n");
}

#[test]
fn worktreeinclude_brings_over_matching_untracked_files_only() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, None);
    write(
        &repo.join(".worktreeinclude"),
        ".env*\nconfig/*.local.json\n",
    );
    write(&repo.join(".env.example"), "KEY=\n");
    write(&repo.join("config/app.json"), "{}\n");
    sandbox.commit_all(&repo, "include file and tracked config");
    write(&repo.join(".env.local"), "KEY=secret\n");
    write(&repo.join("config/app.local.json"), "{\"local\": true}\n");
    write(&repo.join("notes.txt"), "not listed\n");

    let wt = sandbox.add(&repo, &["x"]);
    assert_eq!(read(&wt.join(".env.local")), "KEY=secret\n");
    assert!(!same_file(&repo.join(".env.local"), &wt.join(".env.local")));
    assert_eq!(
        read(&wt.join("config/app.local.json")),
        "{\"local\": true}\n"
    );
    assert!(
        !same_file(&repo.join(".env.example"), &wt.join(".env.example")),
        "a tracked file comes from the checkout, not the primary"
    );
    assert!(!same_file(
        &repo.join("config/app.json"),
        &wt.join("config/app.json")
    ));
    assert!(!wt.join("notes.txt").exists());
    assert_eq!(sandbox.status(&wt), "");
}

#[test]
fn a_local_seed_file_replaces_the_committed_one() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, Some(".env\n"));
    write(&repo.join(".env"), "KEY=1\n");
    write(&repo.join(".secrets"), "s\n");
    write(
        &sandbox.common_dir(&repo).join("worktree-hooks/seed"),
        ".secrets\n",
    );
    let wt = sandbox.add(&repo, &["x"]);
    assert_eq!(read(&wt.join(".secrets")), "s\n");
    assert!(!wt.join(".env").exists());
}

#[test]
fn a_seeded_path_git_does_not_ignore_is_named_with_the_fix() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, Some(".env\nsettings.local\n"));
    write(&repo.join(".env"), "KEY=1\n");
    write(&repo.join("settings.local"), "x\n");

    let out = sandbox.berth(&repo, &["add", "x"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let err = stderr(&out);
    let warned: Vec<&str> = err.lines().filter(|l| l.contains("not ignored")).collect();
    assert_eq!(warned.len(), 1, "{err}");
    assert!(
        warned[0].contains("seeded settings.local not ignored by git"),
        "{err}"
    );
    assert!(!warned[0].contains(".env"), "{err}");
    assert!(warned[0].contains("add it to .gitignore"), "{err}");
    // What it warns of: git counts the copy as a change.
    let wt = PathBuf::from(stdout(&out).trim());
    assert_eq!(sandbox.status(&wt).trim(), "?? settings.local");
}
