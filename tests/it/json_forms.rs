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

// ---- A failed `--json` command (issue 26, item 4) ----

/// The one JSON object a failed `--json` command prints on stdout: `{"error": {...}}`.
fn json_error(out: &std::process::Output, code: i32) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(code), "{}", common::outputs(out));
    let said: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", common::outputs(out)));
    said["error"].clone()
}

#[test]
fn a_failed_json_command_says_its_error_as_one_object_on_stdout_and_the_line_on_stderr() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let out = sb.berth(&repo, &["remove", "nope", "--json"]);
    assert_eq!(
        json_error(&out, 1),
        serde_json::json!({
            "kind": "refusal",
            "message": "no worktree named 'nope'",
            "hint": "see the names with git berth list, or make it with git berth add 'nope'",
        })
    );
    assert!(
        common::stderr(&out).starts_with("git berth: no worktree named 'nope'\nhint: "),
        "{}",
        common::outputs(&out)
    );
    // Without --json, stdout stays empty.
    let out = sb.berth(&repo, &["remove", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    assert_eq!(common::stdout(&out), "");
}

#[test]
fn a_json_error_names_its_kind_and_exits_with_the_kinds_code() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let usage = json_error(&sb.berth(&repo, &["list", "--json", "--bogus"]), 2);
    assert_eq!(usage["kind"], "usage");
    assert_eq!(usage["message"], "unexpected argument '--bogus' found");

    sb.git(&repo, &["config", "berth.claimTtl", "soon"]);
    let config = json_error(&sb.berth(&repo, &["list", "--json"]), 78);
    assert_eq!(config["kind"], "configuration");
    assert_eq!(
        config["message"],
        "berth.claimTtl is 'soon', not a duration"
    );
    assert_eq!(config["hint"], "git config berth.claimTtl 12h");
    sb.git(&repo, &["config", "--unset", "berth.claimTtl"]);

    let registry = repo.join(".git/berth/registry.toml");
    std::fs::create_dir_all(registry.parent().unwrap()).unwrap();
    std::fs::write(&registry, "not = [toml").unwrap();
    let corrupt = json_error(&sb.berth(&repo, &["add", "task", "--json"]), 78);
    assert_eq!(corrupt["kind"], "configuration");
    let message = corrupt["message"].as_str().unwrap();
    assert!(message.starts_with("corrupt registry "), "{message}");
}

#[test]
fn every_json_form_into_a_closed_pipe_stops_quietly_as_git_does() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    let forms: [&[&str]; 7] = [
        &["list", "--json"],
        &["log", "--json"],
        &["ship", "--history", "--json"],
        &["review", "status", "--json"],
        &["collect", "--json"],
        &["agents", "--json"],
        &["prune", "--dry-run", "--json"],
    ];
    for args in forms {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = sb
            .berth_command(&repo, args)
            .stdout(std::process::Stdio::from(writer))
            .output()
            .unwrap();
        assert_eq!(common::stderr(&out), "", "{args:?}: nothing on stderr");
        assert_eq!(out.status.code(), Some(141), "{args:?}: 128 + SIGPIPE");
    }
}
