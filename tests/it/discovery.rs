//! Finding the repository as git does, and refusing cleanly where there is none or its registry
//! cannot be read.

use crate::common;

use common::{Sandbox, error_lines, git_worktree_at, git_worktrees};

#[test]
fn every_command_outside_a_repository_says_not_a_git_repository_and_names_the_folder() {
    let sb = Sandbox::new();
    let plain = sb.root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();

    for args in [
        &["add", "x"][..],
        &["list"],
        &["list", "--json"],
        &["path", "x"],
        &["remove", "x"],
        &["prune"],
    ] {
        let out = sb.berth(&plain, args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            common::outputs(&out)
        );
        // With --json the error is said on stdout too, as one object.
        if args.contains(&"--json") {
            let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(said["error"]["kind"], "refusal", "{args:?}");
        } else {
            assert_eq!(common::stdout(&out), "", "{args:?}");
        }
        let err = common::stderr(&out);
        let (first, _) = error_lines(&err);
        assert!(
            first.starts_with("git berth: not a git repository"),
            "{args:?}: {err}"
        );
        assert!(first.contains(plain.to_str().unwrap()), "{args:?}: {err}");
    }
    assert!(!sb.worktrees().exists(), "nothing was made");
    assert_eq!(
        std::fs::read_dir(&plain).unwrap().count(),
        0,
        "nothing was written where it ran"
    );
}

#[test]
fn commands_from_a_subdirectory_of_the_primary_work_on_its_repository() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let sub = repo.join("src");

    let path = sb.add(&sub, &["auth"]);

    assert!(!path.starts_with(&repo), "not made inside the checkout");
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
    assert_eq!(sb.status(&repo), "", "nothing written into the checkout");
    assert_eq!(
        sb.berth_ok(&sub, &["path", "auth"]).trim(),
        path.to_str().unwrap()
    );
    let rows = sb.list_rows(&sub, true);
    assert_eq!(rows[0]["kind"], "primary");
    assert_eq!(rows[0]["path"], repo.to_str().unwrap());
    assert_eq!(rows[0]["current"], true);
    sb.berth_ok(&sub, &["remove", "auth"]);
    assert!(!path.exists());
}

#[test]
fn commands_honour_git_dir_and_git_work_tree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let elsewhere = sb.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = sb.berth_command(&elsewhere, args);
        cmd.env("GIT_DIR", repo.join(".git"))
            .env("GIT_WORK_TREE", &repo);
        cmd.output().unwrap()
    };

    let out = run(&["add", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    let path = std::path::PathBuf::from(common::stdout(&out).trim());
    let wt = git_worktree_at(&sb, &repo, &path).expect("git lists it");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/berth/auth"));
    assert_eq!(sb.status(&path), "");
    let out = run(&["list", "--json"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["worktrees"][0]["path"], path.to_str().unwrap());
    // The same registry is seen without the variables, from the primary checkout.
    assert_eq!(sb.list_row(&repo, "auth")["path"], path.to_str().unwrap());
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_linked_worktree_and_the_primary_share_one_registry() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let one = sb.add(&repo, &["one"]);
    let two = sb.add(&one, &["two"]);

    assert_eq!(sb.list_rows(&repo, false), {
        let mut rows = sb.list_rows(&two, false);
        for row in &mut rows {
            row["current"] = serde_json::Value::Bool(false);
        }
        rows
    });
    let registry = sb.registry_path(&repo);
    assert_eq!(sb.registry_path(&one), registry);
    assert!(registry.is_file());
    assert!(!one.join(".git/berth").exists(), "no state in the worktree");
}

#[test]
fn list_in_a_bare_repository_shows_its_worktrees() {
    let sb = Sandbox::new();
    let src = sb.repo("src");
    sb.git(
        &sb.root,
        &["clone", "-q", "--bare", src.to_str().unwrap(), "app.git"],
    );
    let bare = sb.root.join("app.git");
    let path = sb.add(&bare, &["x"]);

    let rows = sb.list_rows(&bare, true);

    assert_eq!(
        rows.len(),
        1,
        "a bare repository has no primary checkout: {rows:?}"
    );
    assert_eq!(rows[0]["path"], path.to_str().unwrap());
    assert_eq!(rows[0]["current"], false);
    sb.berth_ok(&bare, &["remove", "x"]);
    assert_eq!(git_worktrees(&sb, &bare).len(), 1);
}

#[test]
fn a_corrupt_registry_is_an_error_naming_it_and_is_never_rewritten() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let kept = sb.add(&repo, &["kept"]);
    let gone = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();
    let registry = sb.registry_path(&repo);
    let garbage = b"this is [not toml\n\x00\xff".to_vec();
    std::fs::write(&registry, &garbage).unwrap();
    let before = sb.state(&repo);

    for args in [
        &["add", "new"][..],
        &["add", "kept"],
        &["list"],
        &["list", "--json", "--all"],
        &["path", "kept"],
        &["remove", "kept"],
        &["remove", "--force", "kept"],
        &["prune", "--dry-run"],
    ] {
        let err = sb.berth_misconfigured(&repo, args);
        let (first, _) = error_lines(&err);
        assert!(first.starts_with("git berth: "), "{args:?}: {err}");
        assert!(
            first.contains(registry.to_str().unwrap()),
            "{args:?} names the file: {err}"
        );
        assert_eq!(std::fs::read(&registry).unwrap(), garbage, "{args:?}");
        assert_eq!(sb.state(&repo), before, "{args:?} changed nothing");
    }
    assert!(kept.is_dir());
    assert!(!sb.has_branch(&repo, "berth/new"));
}

#[test]
fn prune_with_a_corrupt_registry_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let gone = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();
    let registry = sb.registry_path(&repo);
    std::fs::write(&registry, "this is [not toml\n").unwrap();
    let before = sb.state(&repo);

    let err = sb.berth_misconfigured(&repo, &["prune"]);

    assert!(err.contains(registry.to_str().unwrap()), "{err}");
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn a_registry_from_a_newer_berth_is_refused_and_kept() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["kept"]);
    let registry = sb.registry_path(&repo);
    let text = std::fs::read_to_string(&registry).unwrap();
    let newer = text.replacen("version = 1", "version = 99", 1);
    assert_ne!(newer, text, "the registry has a version: {text}");
    std::fs::write(&registry, &newer).unwrap();

    let err = sb.berth_misconfigured(&repo, &["add", "other"]);

    assert!(err.contains(registry.to_str().unwrap()), "{err}");
    assert_eq!(std::fs::read_to_string(&registry).unwrap(), newer);
    assert_eq!(git_worktrees(&sb, &repo).len(), 2);
}

#[test]
fn a_repository_that_cannot_be_read_is_not_called_no_repository() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let config = sb.common_dir(&repo).join("config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[[[\n");
    std::fs::write(&config, text).unwrap();

    let out = sb.berth(&repo, &["list"]);

    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    let (first, hint) = error_lines(&common::stderr(&out));
    assert!(
        first.starts_with(&format!(
            "git berth: cannot read the git repository at {}: ",
            repo.display()
        )),
        "{first}"
    );
    assert!(
        first.contains("line "),
        "the config's fault is named: {first}"
    );
    assert_eq!(
        hint.as_deref(),
        Some("hint: see what git makes of it with: git status")
    );
}
