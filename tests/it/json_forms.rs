//! Every command that changes or reports state has a `--json` form; the first commit is asked
//! for by name.

use crate::common;

use common::Sandbox;

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", common::outputs(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", common::outputs(out)))
}

#[test]
fn install_trust_and_setup_answer_in_json() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let installed = json(&sb.berth(
        &repo,
        &["install", "--setup", "true", "--ports", "3", "--json"],
    ));
    assert_eq!(installed["written"].as_array().unwrap().len(), 2);
    let names: Vec<&str> = installed["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["setup", "ports"]);
    assert_eq!(installed["hooks"][1]["value"], "3");

    let shown = json(&sb.berth(&repo, &["install", "--json"]));
    assert!(shown["written"].as_array().unwrap().is_empty());
    assert_eq!(shown["hooks"][0]["committed"], false, "{shown}");
    let text = sb.berth(&repo, &["install"]);
    assert!(
        common::stdout(&text).contains("not committed, so new worktrees do not run it yet"),
        "{}",
        common::outputs(&text)
    );

    let trusted = json(&sb.berth(&repo, &["trust", "--show", "--json"]));
    assert_eq!(trusted["hooks"][0]["state"], "trusted");
    assert_eq!(trusted["newly_trusted"], 0);
    assert_eq!(trusted["hooks"][0]["hash"].as_str().unwrap().len(), 40);

    sb.git(&repo, &["add", ".worktree-hooks"]);
    sb.git(&repo, &["commit", "-q", "-m", "hooks"]);
    let shown = json(&sb.berth(&repo, &["install", "--json"]));
    assert_eq!(shown["hooks"][0]["committed"], true, "{shown}");
    sb.berth_ok(&repo, &["add", "task"]);
    let set = json(&sb.berth(&repo, &["setup", "task", "--json"]));
    assert_eq!(set["name"], "task");
    assert_eq!(set["setup"], "done");
    assert_eq!(set["ports"]["count"], 3);
}

#[test]
fn add_in_a_repository_without_a_commit_asks_for_a_first_commit() {
    let sb = Sandbox::new();
    let repo = sb.root.join("empty");
    std::fs::create_dir_all(&repo).unwrap();
    sb.git(&repo, &["init", "-q", "-b", "main"]);
    let out = sb.berth(&repo, &["add", "task"]);
    assert_eq!(out.status.code(), Some(1));
    let (line, hint) = common::error_lines(&String::from_utf8_lossy(&out.stderr));
    assert!(line.contains("no commit yet"), "{line}");
    assert!(
        hint.unwrap_or_default()
            .contains("git commit --allow-empty")
    );
}

#[test]
fn setup_of_a_worktree_with_no_hooks_says_so() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["add", "bare"]);
    let out = sb.berth(&repo, &["setup", "bare"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: no worktree hook is in force in 'bare'"),
        "{err}"
    );
    assert!(
        err.contains("hint: a new worktree gets the hooks of the commit"),
        "{err}"
    );
}

#[test]
fn remove_and_prune_answer_in_json() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.berth_ok(&repo, &["add", "done"]);
    let removed = json(&sb.berth(&repo, &["remove", "done", "--json"]));
    assert_eq!(removed["removed"][0]["name"], "done");
    assert_eq!(removed["removed"][0]["branch"], "berth/done");
    assert_eq!(removed["removed"][0]["branch_deleted"], false);
    assert!(!sb.git(&repo, &["worktree", "list"]).contains("done"));
    sb.berth_ok(&repo, &["add", "landed"]);
    let removed = json(&sb.berth(&repo, &["remove", "-d", "landed", "--json"]));
    assert_eq!(removed["removed"][0]["branch"], "berth/landed");
    assert_eq!(removed["removed"][0]["branch_deleted"], true);
    assert!(!sb.has_branch(&repo, "berth/landed"));

    let gone = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();
    let plan = json(&sb.berth(&repo, &["prune", "--dry-run", "--json"]));
    assert_eq!(plan["dry_run"], true);
    assert_eq!(plan["forget"][0]["name"], "gone");
    let done = json(&sb.berth(&repo, &["prune", "--json"]));
    assert_eq!(done["dry_run"], false);
    assert_eq!(done["forget"][0]["name"], "gone");
}
