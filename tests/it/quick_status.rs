//! The quick dirty check that `list` and `collect` run on every worktree, held to what real git
//! says. Each case changes a berth worktree one way, then asks three judges in an order where no
//! one's side effects reach the next: the quick verdict (read-only), `git berth list --json`, and
//! last `git --no-optional-locks status --porcelain`, which must agree with list. The quick verdict
//! may leave a case to the full status (`Unsure`) but must never contradict git, and the common
//! cases must be decided by it, or the fast path would silently stop being used.

use crate::common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use berth::git::quick::{Verdict, verdict};
use common::Sandbox;

/// The verdicts a case accepts.
const CLEAN: &[Verdict] = &[Verdict::Clean];
const DIRTY: &[Verdict] = &[Verdict::Dirty];
const NOT_CLEAN: &[Verdict] = &[Verdict::Dirty, Verdict::Unsure];
const CLEAN_OR_UNSURE: &[Verdict] = &[Verdict::Clean, Verdict::Unsure];

/// A repository whose main branch has, besides the usual files, a nested folder, an executable,
/// a symbolic link and CRLF text, so every case has something to change.
fn case(want: &[Verdict], change: impl FnOnce(&Sandbox, &Path)) {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    std::fs::create_dir_all(repo.join("src/deep/er")).unwrap();
    std::fs::write(repo.join("src/deep/er/leaf.rs"), "leaf\n").unwrap();
    std::fs::write(repo.join("run.sh"), "#!/bin/sh\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        let executable = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(repo.join("run.sh"), executable).unwrap();
    }
    std::os::unix::fs::symlink("README.md", repo.join("link")).unwrap();
    std::fs::write(repo.join(".gitattributes"), "*.txt text eol=crlf\n").unwrap();
    std::fs::write(repo.join("notes.txt"), "one\ntwo\n").unwrap();
    sb.git(&repo, &["add", "-A"]);
    sb.git(&repo, &["commit", "-q", "-m", "more kinds of file"]);
    let wt = sb.add(&repo, &["w"]);
    assert_eq!(sb.status(&wt), "", "a new worktree is clean");

    change(&sb, &wt);

    let options =
        berth::git::config::open_options().permissions(gix::open::Permissions::isolated());
    let opened = berth::git::config::open_opts(&wt, options).unwrap();
    let quick = verdict(&opened, &berth::git::quick::Trees::default()).unwrap();
    let listed = sb.list_row(&repo, "w")["dirty"].clone();
    let git_says = sb.git(
        &wt,
        &[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=all",
        ],
    );
    let git_dirty = !git_says.is_empty();
    assert_eq!(listed, git_dirty, "list disagrees with git: {git_says:?}");
    assert!(
        want.contains(&quick),
        "quick verdict {quick:?}, wanted one of {want:?}; git says {git_says:?}"
    );
    match quick {
        Verdict::Clean => assert!(!git_dirty, "quick says clean, git: {git_says:?}"),
        Verdict::Dirty => assert!(git_dirty, "quick says dirty, git is clean"),
        Verdict::Unsure => {}
    }
}

/// Give `path` a modification time an hour ahead, so its stat data no longer matches the index.
fn touch(path: &Path) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
}

#[test]
fn an_untouched_worktree_is_clean() {
    case(CLEAN, |_, _| {});
}

#[test]
fn a_file_changed_to_content_of_the_same_size_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::write(wt.join("README.md"), "HELLO\n").unwrap();
        touch(&wt.join("README.md"));
    });
}

#[test]
fn a_file_changed_in_a_nested_folder_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::write(wt.join("src/deep/er/leaf.rs"), "a longer leaf\n").unwrap();
    });
}

#[test]
fn a_touched_file_with_the_same_content_is_clean() {
    case(CLEAN, |_, wt| touch(&wt.join("src/lib.rs")));
}

#[test]
fn a_touched_file_under_an_eol_rule_is_hashed_as_git_would_store_it() {
    case(CLEAN, |_, wt| {
        let text = std::fs::read(wt.join("notes.txt")).unwrap();
        assert_eq!(text, b"one\r\ntwo\r\n", "checked out with CRLF");
        touch(&wt.join("notes.txt"));
    });
}

#[test]
fn a_line_ending_change_that_alters_the_size_is_dirty_as_git_says() {
    case(DIRTY, |_, wt| {
        std::fs::write(wt.join("notes.txt"), "one\ntwo\n").unwrap();
    });
}

#[test]
fn an_untracked_file_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::write(wt.join("new.txt"), "new\n").unwrap();
    });
}

#[test]
fn an_untracked_file_in_a_tracked_folder_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::write(wt.join("src/deep/new.rs"), "new\n").unwrap();
    });
}

#[test]
fn an_untracked_symbolic_link_is_dirty() {
    case(DIRTY, |_, wt| {
        std::os::unix::fs::symlink("nowhere", wt.join("dangling")).unwrap();
    });
}

#[test]
fn ignored_files_and_folders_are_clean() {
    case(CLEAN, |sb, wt| {
        std::fs::create_dir_all(wt.join("target/debug")).unwrap();
        std::fs::write(wt.join("target/debug/out"), "built\n").unwrap();
        std::fs::write(wt.join("src/.gitignore"), "*.tmp\n").unwrap();
        std::fs::write(wt.join("src/scratch.tmp"), "tmp\n").unwrap();
        // The new .gitignore is itself untracked: commit it so only ignored files remain.
        sb.git(wt, &["add", "src/.gitignore"]);
        sb.git(wt, &["commit", "-q", "-m", "ignore tmp"]);
    });
}

#[test]
fn an_empty_untracked_folder_is_clean() {
    case(CLEAN_OR_UNSURE, |_, wt| {
        std::fs::create_dir_all(wt.join("src/empty")).unwrap();
    });
}

#[test]
fn an_untracked_folder_with_a_file_is_dirty() {
    case(NOT_CLEAN, |_, wt| {
        std::fs::create_dir_all(wt.join("docs/guide")).unwrap();
        std::fs::write(wt.join("docs/guide/intro.md"), "intro\n").unwrap();
    });
}

#[test]
fn an_untracked_folder_of_only_ignored_files_is_clean() {
    case(CLEAN_OR_UNSURE, |_, wt| {
        std::fs::create_dir_all(wt.join("cache/target")).unwrap();
        std::fs::write(wt.join("cache/target/x"), "x\n").unwrap();
    });
}

#[test]
fn a_deleted_file_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_file(wt.join("src/lib.rs")).unwrap();
    });
}

#[test]
fn a_deleted_folder_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_dir_all(wt.join("src/deep")).unwrap();
    });
}

#[test]
fn a_staged_change_is_dirty() {
    case(DIRTY, |sb, wt| {
        std::fs::write(wt.join("README.md"), "staged\n").unwrap();
        sb.git(wt, &["add", "README.md"]);
    });
}

#[test]
fn a_staged_removal_of_a_file_kept_on_disk_is_dirty() {
    case(DIRTY, |sb, wt| {
        sb.git(wt, &["rm", "-q", "--cached", "README.md"]);
    });
}

#[test]
fn a_commit_made_in_the_worktree_leaves_it_clean() {
    case(CLEAN, |sb, wt| {
        sb.commit_file(wt, "src/lib.rs", "fn lib() {}\n")
    });
}

#[test]
fn a_lost_executable_bit_is_dirty() {
    case(DIRTY, |_, wt| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(wt.join("run.sh"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
    });
}

#[test]
fn a_file_replaced_by_a_folder_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_file(wt.join("README.md")).unwrap();
        std::fs::create_dir(wt.join("README.md")).unwrap();
        std::fs::write(wt.join("README.md/inside"), "x\n").unwrap();
    });
}

#[test]
fn a_file_replaced_by_a_symbolic_link_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_file(wt.join("src/lib.rs")).unwrap();
        std::os::unix::fs::symlink("../README.md", wt.join("src/lib.rs")).unwrap();
    });
}

#[test]
fn a_retargeted_symbolic_link_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_file(wt.join("link")).unwrap();
        std::os::unix::fs::symlink("run.sh", wt.join("link")).unwrap();
    });
}

#[test]
fn a_folder_of_tracked_files_replaced_by_a_symbolic_link_is_dirty() {
    case(DIRTY, |_, wt| {
        std::fs::remove_dir_all(wt.join("src")).unwrap();
        std::os::unix::fs::symlink("/", wt.join("src")).unwrap();
    });
}

#[test]
fn an_intent_to_add_is_dirty() {
    case(DIRTY, |sb, wt| {
        std::fs::write(wt.join("later.txt"), "later\n").unwrap();
        sb.git(wt, &["add", "--intent-to-add", "later.txt"]);
    });
}

#[test]
fn a_nested_repository_is_dirty() {
    case(NOT_CLEAN, |sb, wt| {
        let inner = wt.join("src/vendored");
        std::fs::create_dir_all(&inner).unwrap();
        sb.git(&inner, &["init", "-q"]);
    });
}

#[test]
fn a_skip_worktree_file_is_left_to_the_full_status() {
    case(&[Verdict::Unsure], |sb, wt| {
        sb.git(wt, &["update-index", "--skip-worktree", "README.md"]);
        std::fs::write(wt.join("README.md"), "local only\n").unwrap();
    });
}

#[test]
fn an_executable_bit_git_is_told_to_ignore_is_clean() {
    case(CLEAN, |sb, wt| {
        use std::os::unix::fs::PermissionsExt as _;
        sb.git(wt, &["config", "core.fileMode", "false"]);
        std::fs::set_permissions(wt.join("run.sh"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
    });
}

#[test]
fn a_merge_conflict_is_dirty() {
    case(NOT_CLEAN, |sb, wt| {
        sb.git(wt, &["checkout", "-q", "-b", "other", "HEAD"]);
        sb.commit_file(wt, "README.md", "theirs\n");
        sb.git(wt, &["checkout", "-q", "-"]);
        sb.commit_file(wt, "README.md", "ours\n");
        let out = sb.git_output(wt, &["merge", "-q", "other"]);
        assert!(!out.status.success(), "the merge conflicts");
    });
}

/// One run reads each HEAD tree once for every worktree on it; worktrees on other commits, or
/// with the same tree but a staged change, must still get their own answer.
#[test]
fn worktrees_on_shared_and_different_commits_each_get_their_own_answer() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let same = sb.add(&repo, &["same"]);
    let also_same = sb.add(&repo, &["also-same"]);
    let moved = sb.add(&repo, &["moved"]);
    sb.commit_file(&moved, "src/new.rs", "new\n");
    let staged = sb.add(&repo, &["staged"]);
    std::fs::write(staged.join("src/lib.rs"), "fn staged() {}\n").unwrap();
    sb.git(&staged, &["add", "src/lib.rs"]);
    let moved_and_staged = sb.add(&repo, &["moved-and-staged"]);
    sb.git(&moved_and_staged, &["reset", "-q", "--soft", "HEAD"]);
    sb.git(
        &moved_and_staged,
        &["merge", "-q", "--ff-only", "berth/moved"],
    );
    sb.git(&moved_and_staged, &["rm", "-q", "--cached", "src/new.rs"]);

    let dirty: Vec<(String, bool)> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["dirty"] == true))
        .collect();

    for (name, path) in [
        ("same", &same),
        ("also-same", &also_same),
        ("moved", &moved),
        ("staged", &staged),
        ("moved-and-staged", &moved_and_staged),
    ] {
        let git_dirty = !sb.status(path).is_empty();
        assert!(
            dirty.contains(&(name.to_owned(), git_dirty)),
            "{name}: git says dirty={git_dirty}, list says {dirty:?}"
        );
    }
    assert_eq!(
        dirty.iter().filter(|(_, d)| *d).count(),
        2,
        "staged and moved-and-staged are the dirty ones: {dirty:?}"
    );
}

#[test]
fn without_trusted_ctimes_an_edit_that_kept_its_mtime_in_the_index_second_is_dirty() {
    case(DIRTY, |sb, wt| {
        sb.git(wt, &["config", "core.trustctime", "false"]);
        common::edit_hidden_from_stat(sb, wt, "README.md", "HELLO\n");
    });
}
