//! Claude Code's WorktreeCreate / WorktreeRemove hooks served by `git berth hook`, fed the JSON
//! Claude Code sends, checked with real git.

use crate::common;

use std::io::Write as _;
use std::process::Stdio;

use common::{Sandbox, git_worktree_paths};

fn hook(sandbox: &Sandbox, dir: &std::path::Path, event: &str, json: &str) -> std::process::Output {
    let mut cmd = sandbox.berth_command(dir, &["hook", event]);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn worktree_create_prints_only_the_real_path_of_a_new_berth_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let json = format!(
        r#"{{"session_id":"s-1","transcript_path":"/x","cwd":"{}","hook_event_name":"WorktreeCreate","name":"feature-auth"}}"#,
        repo.display()
    );
    let out = hook(&sb, &repo, "worktree-create", &json);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let stdout = common::stdout(&out);
    assert_eq!(
        stdout.lines().count(),
        1,
        "stdout must be the path alone: {stdout:?}"
    );
    let path = std::path::PathBuf::from(stdout.trim_end());
    assert_eq!(std::fs::canonicalize(&path).unwrap(), path);
    assert!(git_worktree_paths(&sb, &repo).contains(&path));
    assert_eq!(
        sb.git(&path, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "berth/feature-auth"
    );
    let list = sb.berth_ok(&repo, &["list", "--json"]);
    assert!(
        list.contains("\"claimed_by\": \"s-1\""),
        "the worktree is claimed for Claude's session: {list}"
    );
}

#[test]
fn worktree_create_accepts_the_worktree_name_alias_and_fails_without_a_name() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let json = format!(r#"{{"cwd":"{}","worktree_name":"alias"}}"#, repo.display());
    assert!(hook(&sb, &repo, "worktree-create", &json).status.success());
    let out = hook(&sb, &repo, "worktree-create", r#"{"cwd":"/"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stdout(&out).is_empty());
    let out = hook(&sb, &repo, "worktree-create", "not json");
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stderr(&out).contains("does not parse"));
}

#[test]
fn worktree_remove_removes_a_clean_worktree_and_keeps_one_with_work() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let clean = sb.berth_ok(&repo, &["add", "clean"]).trim().to_owned();
    let busy = sb.berth_ok(&repo, &["add", "busy"]).trim().to_owned();
    sb.commit_file(std::path::Path::new(&busy), "work.txt", "unmerged\n");

    let remove = |path: &str| {
        let json = format!(
            r#"{{"hook_event_name":"WorktreeRemove","cwd":"{path}","worktree_path":"{path}"}}"#
        );
        hook(&sb, &repo, "worktree-remove", &json)
    };
    let out = remove(&clean);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let out = remove(&busy);
    assert!(out.status.success());
    assert!(
        common::stderr(&out).contains("kept"),
        "{}",
        common::stderr(&out)
    );

    let listed = git_worktree_paths(&sb, &repo);
    assert!(!listed.contains(&clean.clone().into()));
    assert!(listed.contains(&busy.clone().into()));
    assert!(std::path::Path::new(&busy).join("work.txt").exists());
}
