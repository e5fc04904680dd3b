//! `git berth review`: verdicts bound to a branch's head, kept as refs that real git reads, refused
//! to the author's own session, surviving prune and a lost registry, never torn by a race.

use crate::common;

use std::path::Path;

use common::{Agent, Sandbox, error_lines};

/// The ref a branch's verdict lives in.
const REF: &str = "refs/berth/reviews/berth/task";

/// A repository with a worktree `task` (claimed by this test's own session) holding one commit,
/// and the id of that commit.
fn with_work(sb: &Sandbox) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["task"]);
    sb.commit_file(&wt, "feature.txt", "one\n");
    let head = sb.rev(&wt, "HEAD");
    (repo, wt, head)
}

/// `review <args>` as another session, whose claims a live process of its own holds.
fn as_reviewer(
    sb: &Sandbox,
    dir: &Path,
    who: &str,
    agent: &Agent,
    args: &[&str],
) -> std::process::Output {
    let mut full = vec!["review"];
    full.extend_from_slice(args);
    sb.berth_as(dir, who, agent.pid(), &full)
}

/// The verdict's text as real git prints it, or `None` when the ref does not exist.
fn verdict_in_git(sb: &Sandbox, dir: &Path) -> Option<String> {
    let out = sb.git_output(dir, &["cat-file", "-p", REF]);
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).unwrap())
}

/// The value of `key = ...` in a verdict's text, unquoted.
fn field(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        .trim_matches('"')
        .to_owned()
}

#[test]
fn an_approval_is_bound_to_the_head_and_real_git_reads_it() {
    let sb = Sandbox::new();
    let (repo, wt, head) = with_work(&sb);
    let reviewer = Agent::spawn();
    assert_eq!(sb.list_row(&repo, "task")["review"], "unreviewed");

    let out = as_reviewer(
        &sb,
        &repo,
        "rev-1",
        &reviewer,
        &["approve", "task", "--note", "checked the tests"],
    );

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(out.stdout.is_empty(), "data only with --json");
    assert!(
        common::stderr(&out).starts_with("approved 'task' (berth/task at "),
        "{}",
        common::outputs(&out)
    );
    assert_eq!(sb.git(&repo, &["cat-file", "-t", REF]).trim(), "blob");
    let text = verdict_in_git(&sb, &wt).expect("the ref is shared by every worktree");
    assert_eq!(field(&text, "verdict"), "approve");
    assert_eq!(field(&text, "commit"), head);
    assert_eq!(field(&text, "reviewer"), "rev-1");
    assert_eq!(field(&text, "note"), "checked the tests");
    assert_eq!(sb.list_row(&repo, "task")["review"], "approved");
    let status = sb.berth_json(&repo, &["review", "status", "--json"]);
    let row = &status["reviews"][0];
    assert_eq!(row["name"], "task");
    assert_eq!(row["review"], "approved");
    assert_eq!(row["head"], head.as_str());
    assert_eq!(row["verdict"]["reviewer"], "rev-1");
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn a_commit_after_the_approval_makes_the_review_stale_and_not_approved() {
    let sb = Sandbox::new();
    let (repo, wt, head) = with_work(&sb);
    let reviewer = Agent::spawn();
    // Given from inside the worktree, the verdict is in the refs every worktree shares.
    let out = as_reviewer(&sb, &wt, "rev-1", &reviewer, &["approve", "task"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert_eq!(field(&verdict_in_git(&sb, &repo).unwrap(), "commit"), head);

    sb.commit_file(&wt, "more.txt", "two\n");

    assert_eq!(sb.list_row(&repo, "task")["review"], "stale");
    let status = sb.berth_json(&repo, &["review", "status", "task", "--json"]);
    assert_eq!(status["reviews"][0]["review"], "stale");
    assert_eq!(status["reviews"][0]["verdict"]["commit"], head.as_str());
    assert_eq!(
        status["reviews"][0]["head"],
        sb.rev(&wt, "HEAD").as_str(),
        "the head it is judged against is the branch's new tip"
    );
    let table = sb.berth_ok(&repo, &["review", "status"]);
    let rows = common::table_rows(&table);
    assert!(
        rows[0].1["REVIEW"].starts_with("stale (approved "),
        "{table}"
    );
    let list = sb.berth_ok(&repo, &["list"]);
    assert_eq!(common::table_rows(&list)[0].1["REVIEW"], "stale", "{list}");
}

#[test]
fn a_rejection_needs_a_note_and_the_author_may_reject_its_own_head() {
    let sb = Sandbox::new();
    let (repo, _wt, head) = with_work(&sb);

    let out = sb.berth(&repo, &["review", "reject", "task"]);
    assert_eq!(out.status.code(), Some(2), "{}", common::outputs(&out));
    assert!(verdict_in_git(&sb, &repo).is_none(), "nothing recorded");

    let given = sb.berth_json(
        &repo,
        &["review", "reject", "task", "--note", "not done", "--json"],
    );

    assert_eq!(given["review"], "rejected");
    assert_eq!(given["verdict"]["verdict"], "reject");
    assert_eq!(given["verdict"]["commit"], head.as_str());
    assert_eq!(given["verdict"]["note"], "not done");
    let text = verdict_in_git(&sb, &repo).unwrap();
    assert_eq!(field(&text, "verdict"), "reject");
    assert_eq!(sb.list_row(&repo, "task")["review"], "rejected");
}

#[test]
fn the_author_cannot_approve_its_own_head_unless_self_review_is_allowed() {
    let sb = Sandbox::new();
    let (repo, _wt, head) = with_work(&sb);

    let err = sb.berth_err(&repo, &["review", "approve", "task"]);

    let (line, hint) = error_lines(&err);
    assert!(
        line.starts_with("git berth: worktree 'task' is held by your own session (")
            && line.ends_with("its author may not approve its own work"),
        "{err}"
    );
    assert_eq!(
        hint.as_deref(),
        Some(
            "hint: ask another session to review it, or allow it with: git config berth.selfReview true"
        )
    );
    assert!(verdict_in_git(&sb, &repo).is_none(), "nothing recorded");

    sb.git(&repo, &["config", "berth.selfReview", "true"]);
    let given = sb.berth_json(&repo, &["review", "approve", "task", "--json"]);

    assert_eq!(given["review"], "approved");
    assert_eq!(field(&verdict_in_git(&sb, &repo).unwrap(), "commit"), head);
}

#[test]
fn another_session_s_verdict_replaces_the_last_and_the_json_says_which() {
    let sb = Sandbox::new();
    let (repo, _wt, head) = with_work(&sb);
    let (one, two) = (Agent::spawn(), Agent::spawn());
    let out = as_reviewer(
        &sb,
        &repo,
        "rev-1",
        &one,
        &["reject", "task", "--note", "fix the typo"],
    );
    assert!(out.status.success(), "{}", common::outputs(&out));

    let out = as_reviewer(
        &sb,
        &repo,
        "rev-2",
        &two,
        &[
            "approve",
            "task",
            "--note",
            "typo fixed elsewhere",
            "--json",
        ],
    );

    assert!(out.status.success(), "{}", common::outputs(&out));
    let given: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(given["name"], "task");
    assert_eq!(given["branch"], "berth/task");
    assert_eq!(given["review"], "approved");
    assert_eq!(given["dirty"], false);
    assert_eq!(given["verdict"]["verdict"], "approve");
    assert_eq!(given["verdict"]["commit"], head.as_str());
    assert_eq!(given["verdict"]["reviewer"], "rev-2");
    assert!(given["verdict"]["time"].as_u64().unwrap() > 1_700_000_000);
    assert_eq!(given["replaced"]["verdict"], "reject");
    assert_eq!(given["replaced"]["reviewer"], "rev-1");
}

#[test]
fn approving_a_dirty_worktree_warns_that_the_changes_are_not_covered() {
    let sb = Sandbox::new();
    let (repo, wt, _) = with_work(&sb);
    std::fs::write(wt.join("draft.txt"), "not committed\n").unwrap();
    let reviewer = Agent::spawn();

    let out = as_reviewer(
        &sb,
        &repo,
        "rev-1",
        &reviewer,
        &["approve", "task", "--json"],
    );

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        common::stderr(&out).starts_with(
            "warning: worktree 'task' has uncommitted changes; the approval covers commit "
        ),
        "{}",
        common::outputs(&out)
    );
    let given: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(given["dirty"], true);
    assert_eq!(given["review"], "approved");
}

#[test]
fn an_unknown_worktree_is_refused_and_nothing_is_written() {
    let sb = Sandbox::new();
    let (repo, _, _) = with_work(&sb);

    let err = sb.berth_err(&repo, &["review", "approve", "nope"]);

    assert_eq!(error_lines(&err).0, "git berth: no worktree named 'nope'");
    let refs = sb.git(&repo, &["for-each-ref", "refs/berth/"]);
    assert!(refs.is_empty(), "{refs}");
}

#[test]
fn verdicts_survive_a_lost_registry_and_prune() {
    let sb = Sandbox::new();
    let (repo, wt, head) = with_work(&sb);
    let gone = sb.add(&repo, &["gone"]);
    sb.commit_file(&gone, "g.txt", "g\n");
    let reviewer = Agent::spawn();
    for name in ["task", "gone"] {
        let out = as_reviewer(&sb, &repo, "rev-1", &reviewer, &["approve", name]);
        assert!(out.status.success(), "{}", common::outputs(&out));
    }

    std::fs::remove_dir_all(&gone).unwrap();
    sb.berth_ok(&repo, &["prune"]);
    std::fs::remove_file(sb.registry_path(&repo)).unwrap();

    let kept = sb.git(
        &repo,
        &["for-each-ref", "--format=%(refname)", "refs/berth/"],
    );
    assert_eq!(
        kept.lines().collect::<Vec<_>>(),
        [
            "refs/berth/reviews/berth/gone",
            "refs/berth/reviews/berth/task"
        ]
    );
    assert_eq!(field(&verdict_in_git(&sb, &repo).unwrap(), "commit"), head);
    // Adopted again, the worktree finds its verdict where it left it.
    sb.berth_ok(&wt, &["setup"]);
    assert_eq!(sb.list_row(&repo, "task")["review"], "approved");
}

#[test]
fn remove_drops_the_verdict_with_the_branch_and_keeps_it_with_a_kept_branch() {
    let sb = Sandbox::new();
    let (repo, _wt, _) = with_work(&sb);
    let other = sb.add(&repo, &["other"]);
    sb.commit_file(&other, "o.txt", "o\n");
    let reviewer = Agent::spawn();
    for name in ["task", "other"] {
        let out = as_reviewer(&sb, &repo, "rev-1", &reviewer, &["approve", name]);
        assert!(out.status.success(), "{}", common::outputs(&out));
    }

    sb.berth_ok(&repo, &["remove", "task", "--force", "--delete-branch"]);
    sb.berth_ok(&repo, &["remove", "other", "--force"]);

    assert!(!sb.has_branch(&repo, "berth/task"));
    assert!(verdict_in_git(&sb, &repo).is_none(), "gone with its branch");
    assert!(sb.has_branch(&repo, "berth/other"));
    let kept = sb.git(
        &repo,
        &["for-each-ref", "--format=%(refname)", "refs/berth/"],
    );
    assert_eq!(kept.trim(), "refs/berth/reviews/berth/other");
}

#[test]
fn a_verdict_recorded_while_another_is_written_is_never_overwritten_unseen() {
    let sb = Sandbox::new();
    let (repo, _wt, _) = with_work(&sb);
    let (one, two) = (Agent::spawn(), Agent::spawn());
    let mut first = sb.berth_as_command(
        &repo,
        "rev-1",
        one.pid(),
        &["review", "approve", "task", "--note", "first"],
    );
    first.env("BERTH_TEST_PAUSE_REVIEW_MS", "1500");
    let (child, mut rest) = common::spawn_until_paused(first);

    let out = as_reviewer(
        &sb,
        &repo,
        "rev-2",
        &two,
        &["reject", "task", "--note", "second"],
    );
    assert!(out.status.success(), "{}", common::outputs(&out));
    let status = common::wait_at_most(child, std::time::Duration::from_secs(60)).status;
    let mut err = String::new();
    std::io::Read::read_to_string(&mut rest, &mut err).unwrap();

    assert_eq!(status.code(), Some(1), "{err}");
    let (line, hint) = error_lines(&err);
    assert_eq!(
        line,
        "git berth: cannot record the review of 'task': another review of 'task' was recorded \
         while yours was (rejected by rev-2); yours was not kept"
    );
    assert_eq!(
        hint.as_deref(),
        Some("hint: look at it with git berth review status 'task', then give yours again")
    );
    let text = verdict_in_git(&sb, &repo).unwrap();
    assert_eq!(field(&text, "reviewer"), "rev-2", "{text}");
    assert_eq!(field(&text, "verdict"), "reject", "{text}");
}

#[test]
fn two_reviewers_at_once_both_end_sane_and_the_ref_holds_one_whole_verdict() {
    let sb = Sandbox::new();
    let (repo, _wt, head) = with_work(&sb);
    let (one, two) = (Agent::spawn(), Agent::spawn());
    for round in 0..6 {
        let (a, b) = if round % 2 == 0 {
            (("rev-1", &one, "approve"), ("rev-2", &two, "reject"))
        } else {
            (("rev-2", &two, "approve"), ("rev-1", &one, "approve"))
        };
        let children: Vec<_> = [a, b]
            .iter()
            .map(|(who, agent, verb)| {
                sb.berth_as_command(
                    &repo,
                    who,
                    agent.pid(),
                    &["review", verb, "task", "--note", who],
                )
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
            })
            .collect();
        let outs: Vec<_> = children
            .into_iter()
            .map(|c| common::wait_at_most(c, std::time::Duration::from_secs(60)))
            .collect();

        let mut kept = 0;
        for out in &outs {
            match out.status.code() {
                Some(0) => kept += 1,
                Some(1) => {
                    let err = common::stderr(out);
                    assert!(
                        err.starts_with("git berth: cannot record the review of 'task': ")
                            || err.starts_with("git berth: another review of 'task' was recorded"),
                        "a clear refusal: {err}"
                    );
                }
                _ => panic!("{}", common::outputs(out)),
            }
        }
        assert!(kept >= 1, "round {round}: one of them is kept");
        let text = verdict_in_git(&sb, &repo).unwrap();
        assert_eq!(field(&text, "commit"), head, "{text}");
        let who = field(&text, "reviewer");
        assert!(who == "rev-1" || who == "rev-2", "{text}");
        assert_eq!(field(&text, "note"), who, "one whole verdict: {text}");
    }
    sb.git(&repo, &["fsck", "--no-progress"]);
}

#[test]
fn an_unreadable_verdict_is_one_unreadable_row_and_a_new_verdict_replaces_it() {
    let sb = Sandbox::new();
    let (repo, _wt, head) = with_work(&sb);
    let other = sb.add(&repo, &["other"]);
    sb.commit_file(&other, "other.txt", "other\n");
    let reviewer = Agent::spawn();
    let out = as_reviewer(&sb, &repo, "rev", &reviewer, &["approve", "other"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    // A blob that is no verdict, where the verdict of `task` lives.
    let mut hash = std::process::Command::new("sh");
    sb.env(&mut hash);
    let out = hash
        .current_dir(&repo)
        .args(["-c", "printf 'verdict = [' | git hash-object -w --stdin"])
        .output()
        .unwrap();
    let blob = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    sb.git(&repo, &["update-ref", REF, &blob]);

    let status = sb.berth_json(&repo, &["review", "status", "--json"]);
    let rows: Vec<(String, String)> = status["reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["review"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("task".to_owned(), "unreadable".to_owned()),
            ("other".to_owned(), "approved".to_owned())
        ]
    );
    let table = sb.berth_ok(&repo, &["review", "status"]);
    assert!(table.contains("unreadable"), "{table}");

    let out = as_reviewer(&sb, &repo, "rev", &reviewer, &["approve", "task", "--json"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let given: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(given["replaced"], serde_json::Value::Null);
    let text = verdict_in_git(&sb, &repo).unwrap();
    assert_eq!(field(&text, "commit"), head);
    let status = sb.berth_json(&repo, &["review", "status", "task", "--json"]);
    assert_eq!(status["reviews"][0]["review"], "approved");
}

#[test]
fn an_agent_at_layer_one_or_two_may_not_approve_or_ship_but_may_reject() {
    let sb = Sandbox::new();
    let (repo, _wt, _) = with_work(&sb);
    sb.git(&repo, &["config", "berth.selfReview", "true"]);
    for layer in ["1", "2"] {
        for args in [
            &["review", "approve", "task"][..],
            &["ship", "task"],
            &["ship", "--all-approved"],
        ] {
            let mut cmd = sb.berth_command(&repo, args);
            let out = cmd.env("BERTH_AGENT_LAYER", layer).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{args:?} at layer {layer}: {err}"
            );
            assert!(
                err.contains(&format!("this is a layer-{layer} agent"))
                    && !err.contains("approve <"),
                "{err}"
            );
        }
        let mut cmd = sb.berth_command(&repo, &["review", "reject", "task", "--note", "no"]);
        let out = cmd.env("BERTH_AGENT_LAYER", layer).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        field(&verdict_in_git(&sb, &repo).unwrap(), "verdict"),
        "reject"
    );
    // A person (no layer) approves as before.
    sb.berth_ok(&repo, &["review", "approve", "task"]);
    assert_eq!(
        field(&verdict_in_git(&sb, &repo).unwrap(), "verdict"),
        "approve"
    );
}
