//! `git berth add`, run as the real binary on repositories made by real git, checked with real git.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Sandbox, error_lines, git_worktree_at, git_worktrees, outputs, stderr};

#[test]
fn add_prints_the_path_of_a_worktree_git_lists_on_its_berth_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let head = sb.rev(&repo, "HEAD");

    let path = sb.add(&repo, &["auth"]);

    assert_eq!(path.file_name().unwrap(), "auth");
    assert!(
        path.starts_with(sb.worktrees()),
        "{} lies under XDG_DATA_HOME/git-berth",
        path.display()
    );
    let wt = git_worktree_at(&sb, &repo, &path).expect("git lists the new worktree");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/berth/auth"));
    assert_eq!(wt.head.as_deref(), Some(head.as_str()));
    assert!(!wt.prunable && !wt.locked && !wt.detached);
    assert_eq!(sb.rev(&repo, "berth/auth"), head);
    assert_eq!(sb.status(&path), "", "a new worktree is clean to git");
    assert!(path.join("README.md").is_file());
    assert!(path.join("src/lib.rs").is_file());
    assert_eq!(sb.status(&repo), "", "the primary checkout is untouched");
}

#[test]
fn add_starts_the_branch_at_the_commit_base_names() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let first = sb.rev(&repo, "HEAD");
    sb.commit_file(&repo, "two.txt", "2\n");
    sb.git(&repo, &["tag", "v1", &first]);

    let path = sb.add(&repo, &["old", "--base", "HEAD~1"]);
    assert_eq!(sb.rev(&repo, "berth/old"), first);
    assert_eq!(sb.rev(&path, "HEAD"), first);
    assert!(!path.join("two.txt").exists());
    assert_eq!(sb.status(&path), "");

    let tagged = sb.berth_json(&repo, &["add", "tagged", "--base", "v1", "--json"]);
    assert_eq!(tagged["base"], first.as_str());
    assert_eq!(tagged["base_ref"], "v1");
    assert_eq!(sb.rev(&repo, "berth/tagged"), first);
}

#[test]
fn add_refuses_a_base_that_is_not_a_commit_and_creates_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let before = sb.state(&repo);

    for base in ["no-such-branch", "HEAD^{tree}", "HEAD:README.md"] {
        let err = sb.berth_err(&repo, &["add", "x", "--base", base]);
        let (first, hint) = error_lines(&err);
        assert_eq!(first, format!("git berth: base '{base}' is not a commit"));
        assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{err}");
    }

    assert_eq!(sb.state(&repo), before);
    assert!(!sb.has_branch(&repo, "berth/x"));
}

#[test]
fn add_with_branch_checks_out_that_existing_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "topic"]);
    sb.git(&repo, &["checkout", "-q", "topic"]);
    sb.commit_file(&repo, "topic.txt", "t\n");
    sb.git(&repo, &["checkout", "-q", "main"]);
    let tip = sb.rev(&repo, "topic");

    let json = sb.berth_json(&repo, &["add", "t", "--branch", "topic", "--json"]);
    let path = Path::new(json["path"].as_str().unwrap());

    assert_eq!(json["branch"], "topic");
    let wt = git_worktree_at(&sb, &repo, path).expect("git lists it");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/topic"));
    assert_eq!(wt.head.as_deref(), Some(tip.as_str()));
    assert!(path.join("topic.txt").is_file());
    assert_eq!(sb.status(path), "");
    assert!(
        !sb.has_branch(&repo, "berth/t"),
        "no berth branch is made when --branch names one"
    );
}

#[test]
fn add_refuses_a_branch_checked_out_elsewhere_and_leaves_nothing_behind() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let base = sb.set_worktree_base(&repo, "trees");
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "m", "--branch", "main"]);

    let (first, hint) = error_lines(&err);
    assert_eq!(
        first,
        format!(
            "git berth: branch 'main' is checked out in {}",
            repo.display()
        )
    );
    assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{err}");
    assert_eq!(sb.state(&repo), before, "no worktree, branch or record");
    assert!(!base.join("m").exists(), "no leftover folder");
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}

#[test]
fn add_refuses_a_branch_that_does_not_exist() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "x", "--branch", "nope"]);

    let (first, hint) = error_lines(&err);
    assert_eq!(
        first,
        "git berth: branch 'nope' does not exist (--branch checks out a branch that is there)"
    );
    // The way out works: no hint that sends the user round in a circle.
    assert!(hint.unwrap().contains("git branch nope"));
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn add_json_reports_name_path_branch_base_base_ref_and_reused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let head = sb.rev(&repo, "HEAD");

    let json = sb.berth_json(&repo, &["add", "feat/login", "--json"]);

    let object = json.as_object().expect("a JSON object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "base",
            "base_ref",
            "branch",
            "name",
            "path",
            "reclaimed_stale",
            "reused",
            "session"
        ]
    );
    assert_eq!(json["name"], "feat/login");
    assert_eq!(json["branch"], "berth/feat-login");
    assert_eq!(json["base"], head.as_str());
    assert_eq!(json["base_ref"], "main");
    assert_eq!(json["reused"], false);
    let path = Path::new(json["path"].as_str().unwrap());
    assert_eq!(path.file_name().unwrap(), "feat-login");
    assert!(git_worktree_at(&sb, &repo, path).is_some());
}

#[test]
fn a_second_add_of_the_same_name_reuses_the_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let first = sb.berth_json(&repo, &["add", "auth", "--json"]);
    let state = sb.state(&repo);

    let second = sb.berth_json(&repo, &["add", "auth", "--json"]);
    let plain = sb.add(&repo, &["auth"]);

    assert_eq!(second["path"], first["path"]);
    assert_eq!(second["branch"], first["branch"]);
    assert_eq!(second["base"], first["base"]);
    assert_eq!(second["reused"], true);
    assert_eq!(plain.to_str().unwrap(), first["path"].as_str().unwrap());
    assert_eq!(sb.state(&repo), state, "reuse changes nothing");
}

#[test]
fn add_with_no_reuse_refuses_a_name_that_exists() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "auth", "--no-reuse"]);

    let (first, hint) = error_lines(&err);
    assert_eq!(
        first,
        format!(
            "git berth: worktree 'auth' already exists at {}",
            path.display()
        )
    );
    assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{err}");
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn add_refuses_two_names_that_slug_alike() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["feat/a"]);
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "feat-a"]);

    let (first, hint) = error_lines(&err);
    assert!(first.starts_with("git berth: "), "{err}");
    assert!(
        first.contains("'feat-a'") && first.contains("'feat/a'"),
        "{err}"
    );
    assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{err}");
    assert_eq!(sb.state(&repo), before, "nothing merged or created");
    assert_eq!(sb.list_row(&repo, "feat/a")["path"], path.to_str().unwrap());
    assert!(
        sb.list_rows(&repo, false)
            .iter()
            .all(|r| r["name"] != "feat-a")
    );
}

#[test]
fn add_refuses_bad_names_and_shows_their_slug() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let before = sb.state(&repo);

    for (name, slug) in [
        ("", "''"),
        ("..", "'..'"),
        ("...", "'...'"),
        ("-x", "'-x'"),
        ("x.lock", "'x.lock'"),
        ("/x", "'-x'"),
        ("a/../b", "'a-..-b'"),
    ] {
        // `--` so that clap takes `-x` as the name, not as an option.
        let err = sb.berth_err(&repo, &["add", "--", name]);
        let (first, _) = error_lines(&err);
        assert!(
            first.starts_with("git berth: ") && first.contains(&format!("slug {slug}")),
            "name {name:?}: {err}"
        );
    }

    assert_eq!(sb.state(&repo), before);
}

#[test]
fn add_refuses_a_target_folder_that_exists_and_is_not_empty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let base = sb.set_worktree_base(&repo, "trees");
    std::fs::create_dir_all(base.join("auth")).unwrap();
    std::fs::write(base.join("auth/notes.txt"), "mine\n").unwrap();
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "auth"]);

    let (first, _) = error_lines(&err);
    assert_eq!(
        first,
        format!(
            "git berth: target path exists and is not empty: {}",
            base.join("auth").display()
        )
    );
    assert_eq!(sb.state(&repo), before);
    assert_eq!(
        std::fs::read_to_string(base.join("auth/notes.txt")).unwrap(),
        "mine\n"
    );
    assert!(!sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn add_uses_an_empty_target_folder_that_already_exists() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let base = sb.set_worktree_base(&repo, "trees");
    std::fs::create_dir_all(base.join("auth")).unwrap();

    let path = sb.add(&repo, &["auth"]);

    assert_eq!(path, base.join("auth"));
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
}

#[test]
fn add_honours_the_branch_prefix_config() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["config", "berth.branchPrefix", "agents/"]);

    let path = sb.add(&repo, &["auth"]);

    let wt = git_worktree_at(&sb, &repo, &path).unwrap();
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/agents/auth"));
    assert!(!sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn add_honours_the_worktree_base_config() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let base = sb.set_worktree_base(&repo, "elsewhere/trees");

    let path = sb.add(&repo, &["auth"]);

    assert_eq!(path, base.join("auth"));
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
    assert!(
        !sb.worktrees().exists(),
        "nothing is made under XDG_DATA_HOME"
    );
}

#[test]
fn add_reads_a_relative_worktree_base_from_the_primary_checkout() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["config", "berth.worktreeBase", "../app-trees"]);

    let path = sb.add(&repo.join("src"), &["auth"]);

    assert_eq!(
        std::fs::canonicalize(&path).unwrap(),
        sb.root.join("app-trees/auth")
    );
    assert_eq!(git_worktrees(&sb, &repo).len(), 2);
}

#[test]
fn add_honours_git_dash_c_when_run_as_git_berth() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut path_var = std::ffi::OsString::from(common::berth_bin_dir());
    path_var.push(":");
    path_var.push(std::env::var_os("PATH").unwrap_or_default());

    let mut cmd = Command::new("git");
    sb.env(&mut cmd);
    let out = cmd
        .env("PATH", path_var)
        .current_dir(&repo)
        .args(["-c", "berth.branchPrefix=x/", "berth", "add", "auth"])
        .output()
        .unwrap();

    assert!(out.status.success(), "{}", outputs(&out));
    let path = std::path::PathBuf::from(common::stdout(&out).trim());
    let wt = git_worktree_at(&sb, &repo, &path).expect("git lists it");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/x/auth"));
    assert!(!sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn add_from_a_linked_worktree_makes_a_sibling_not_a_nested_one() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let first = sb.add(&repo, &["one"]);

    let second = sb.add(&first.join("src"), &["two"]);

    assert_eq!(second.parent(), first.parent());
    assert!(!second.starts_with(&first));
    assert!(git_worktree_at(&sb, &repo, &second).is_some());
    assert_eq!(sb.status(&first), "", "the first worktree is untouched");
    let names: Vec<_> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["one", "two"], "one registry for every worktree");
}

#[test]
fn add_from_a_linked_worktree_starts_from_that_worktrees_head() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let first = sb.add(&repo, &["one"]);
    sb.commit_file(&first, "one.txt", "1\n");
    let tip = sb.rev(&first, "HEAD");

    let json = sb.berth_json(&first, &["add", "two", "--json"]);

    assert_eq!(json["base"], tip.as_str());
    assert_eq!(json["base_ref"], "berth/one");
    assert_eq!(sb.rev(&repo, "berth/two"), tip);
}

#[test]
fn add_works_with_no_identity_configured_and_git_sees_the_branch_reflog() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    assert!(
        !sb.home().join(".gitconfig").exists(),
        "the sandbox home has no identity"
    );
    let config = sb.git(&repo, &["config", "--list", "--show-origin"]);
    assert!(!config.contains("user."), "no identity in {config}");

    let mut cmd = sb.berth_command(&repo, &["add", "anon"]);
    for var in [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd.output().unwrap();

    assert!(out.status.success(), "{}", outputs(&out));
    let path = std::path::PathBuf::from(common::stdout(&out).trim());
    assert!(git_worktree_at(&sb, &repo, &path).is_some());
    let reflog = sb.git(
        &repo,
        &["reflog", "show", "--format=%gs", "refs/heads/berth/anon"],
    );
    assert!(
        reflog.lines().count() >= 1 && reflog.contains("branch: Created from"),
        "reflog: {reflog:?}"
    );
    assert_eq!(sb.status(&path), "");
}

#[cfg(unix)]
#[test]
fn add_runs_the_post_checkout_hook_in_the_new_worktree_as_git_does() {
    use std::os::unix::fs::PermissionsExt as _;

    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let record = sb.root.join("hook.log");
    let hook = repo.join(".git/hooks/post-checkout");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\necho \"$PWD\" >> '{}'\necho \"$@\" >> '{}'\n",
            record.display(),
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();

    let path = sb.add(&repo, &["hooked"]);

    let head = sb.rev(&repo, "berth/hooked");
    let log = std::fs::read_to_string(&record).expect("the hook ran");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines,
        [
            path.to_str().unwrap(),
            &format!("{} {head} 1", "0".repeat(40)),
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_failing_post_checkout_hook_is_an_error_that_keeps_the_worktree() {
    use std::os::unix::fs::PermissionsExt as _;

    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let hook = repo.join(".git/hooks/post-checkout");
    std::fs::write(&hook, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();

    let err = sb.berth_err(&repo, &["add", "hooked"]);

    assert!(
        err.lines()
            .any(|l| l.starts_with("git berth: the post-checkout hook failed")),
        "{err}"
    );
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "the worktree exists");
    assert!(sb.has_branch(&repo, "berth/hooked"));
}

#[test]
fn add_resumes_a_leftover_branch_with_its_commits() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.commit_file(&path, "work.txt", "work\n");
    let tip = sb.rev(&path, "HEAD");
    sb.berth_ok(&repo, &["remove", "--force", "auth"]);
    assert!(!path.exists());
    assert_eq!(sb.rev(&repo, "berth/auth"), tip, "remove kept the branch");

    let out = sb.berth(&repo, &["add", "auth", "--json"]);

    assert!(out.status.success(), "{}", outputs(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["reused"], false);
    assert_eq!(json["branch"], "berth/auth");
    let again = Path::new(json["path"].as_str().unwrap());
    assert_eq!(sb.rev(again, "HEAD"), tip, "the branch was resumed");
    assert_eq!(
        std::fs::read_to_string(again.join("work.txt")).unwrap(),
        "work\n"
    );
    assert_eq!(sb.rev(&repo, "berth/auth"), tip, "not reset to the base");
    assert_eq!(sb.status(again), "");
    assert!(stderr(&out).contains("resuming"), "{}", stderr(&out));
    assert_eq!(sb.list_row(&repo, "auth")["ahead"], 1);
}

#[test]
fn add_in_a_bare_repository_makes_a_worktree_git_lists() {
    let sb = Sandbox::new();
    let src = sb.repo("src");
    sb.git(
        &sb.root,
        &["clone", "-q", "--bare", src.to_str().unwrap(), "app.git"],
    );
    let bare = sb.root.join("app.git");
    let main = sb.rev(&bare, "main");

    let path = sb.add(&bare, &["x"]);

    let wt = git_worktree_at(&sb, &bare, &path).expect("git lists it");
    assert_eq!(wt.branch.as_deref(), Some("refs/heads/berth/x"));
    assert_eq!(wt.head.as_deref(), Some(main.as_str()));
    assert_eq!(sb.status(&path), "");
    assert!(path.join("README.md").is_file());
    let rows = sb.list_rows(&path, false);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["current"], true);
}

#[test]
fn concurrent_adds_of_one_name_make_one_worktree() {
    // Two adds of one name at once: exactly one worktree results, and both print its path.
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let children: Vec<_> = (0..4)
        .map(|_| {
            sb.berth_command(&repo, &["add", "race"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();

    for out in &outs {
        assert!(out.status.success(), "{}", outputs(out));
    }
    let paths: std::collections::BTreeSet<String> = outs
        .iter()
        .map(|o| common::stdout(o).trim().to_owned())
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert_eq!(git_worktrees(&sb, &repo).len(), 2);
    assert_eq!(sb.list_rows(&repo, false).len(), 1);
}

#[cfg(unix)]
#[test]
fn add_runs_the_post_checkout_hook_from_core_hooks_path() {
    use std::os::unix::fs::PermissionsExt as _;

    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let hooks = sb.root.join("shared-hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let record = sb.root.join("hook.log");
    let hook = hooks.join("post-checkout");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\necho \"$3\" >> '{}'\n", record.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    sb.git(
        &repo,
        &["config", "core.hooksPath", hooks.to_str().unwrap()],
    );

    sb.add(&repo, &["hooked"]);

    assert_eq!(std::fs::read_to_string(&record).unwrap(), "1\n");
}

#[test]
fn add_handles_spaces_and_unicode_in_the_repository_and_the_name() {
    let sb = Sandbox::new();
    let repo = sb.repo("my app é");

    let json = sb.berth_json(&repo, &["add", "fix the bug", "--json"]);

    assert_eq!(json["branch"], "berth/fix-the-bug");
    let path = Path::new(json["path"].as_str().unwrap());
    assert_eq!(path.file_name().unwrap(), "fix-the-bug");
    assert!(git_worktree_at(&sb, &repo, path).is_some());
    assert_eq!(sb.status(path), "");
    assert_eq!(
        sb.berth_ok(&repo, &["path", "fix the bug"]).trim(),
        path.to_str().unwrap()
    );
    sb.berth_ok(&repo, &["remove", "fix the bug"]);
    assert!(!path.exists());
}

#[test]
fn add_refuses_a_branch_prefix_that_makes_an_invalid_branch_name() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["config", "berth.branchPrefix", "bad..prefix/"]);
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "auth"]);

    let (first, _) = error_lines(&err);
    assert!(first.starts_with("git berth: "), "{err}");
    assert!(first.contains("bad..prefix/auth"), "{err}");
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn a_worktree_whose_record_is_lost_is_named_with_the_way_to_adopt_it_never_made_over() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["t1"]);
    std::fs::write(path.join("work.txt"), "keep me\n").unwrap();
    std::fs::remove_file(sb.registry_path(&repo)).unwrap();

    for args in [&["setup", "t1"][..], &["add", "t1"], &["claim", "t1"]] {
        let err = sb.berth_err(&repo, args);
        let (line, hint) = common::error_lines(&err);
        assert!(
            line.contains("'t1' is a linked worktree git berth does not manage"),
            "{args:?}: {err}"
        );
        let hint = hint.unwrap();
        assert!(hint.contains("&& git berth setup"), "{args:?}: {hint}");
        assert!(!hint.contains("remove it"), "{args:?}: {hint}");
    }
    assert_eq!(
        std::fs::read_to_string(path.join("work.txt")).unwrap(),
        "keep me\n"
    );

    sb.berth_ok(&path, &["setup"]);
    assert_eq!(sb.list_row(&repo, "t1")["kind"], "managed");
}

#[test]
fn an_add_whose_stderr_reader_went_away_still_makes_the_worktree_and_exits_0() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    // `created worktree ...` is said on stderr after the worktree is made; with `panic = "abort"`
    // a failed write there would kill the add before it prints the path.
    let out = common::output_with_stderr_gone(sb.berth_command(&repo, &["add", "auth"]));

    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let path = std::path::PathBuf::from(common::stdout(&out).trim());
    assert!(git_worktree_at(&sb, &repo, &path).is_some(), "{out:?}");
    assert_eq!(sb.list_row(&repo, "auth")["branch"], "berth/auth");
}
