//! `git berth ship` and `git berth log`: approved worktrees land on the trunk through a gate run on
//! the merged result, by compare-and-swap, with the primary checkout brought along; everything
//! else is refused with nothing moved. Real repositories, the real binary, checked with real git.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Agent, Sandbox, git_worktree_paths, outputs, stderr};
use serde_json::Value;

/// Approve `name`'s head as session `reviewer`, whose claims a live process of its own holds.
fn approve(sb: &Sandbox, repo: &Path, name: &str, reviewer: &Agent) {
    let out = sb.berth_as(
        repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", name],
    );
    assert!(out.status.success(), "approve {name}: {}", outputs(&out));
}

/// A worktree `name` holding one commit that writes `file`, approved by `reviewer`.
fn approved_work(
    sb: &Sandbox,
    repo: &Path,
    name: &str,
    file: &str,
    content: &str,
    reviewer: &Agent,
) -> PathBuf {
    let wt = sb.add(repo, &[name]);
    sb.commit_file(&wt, file, content);
    approve(sb, repo, name, reviewer);
    wt
}

fn ship_json(sb: &Sandbox, repo: &Path, args: &[&str]) -> (std::process::Output, Value) {
    let mut full = vec!["ship", "--json"];
    full.extend_from_slice(args);
    let out = sb.berth(repo, &full);
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", outputs(&out)));
    (out, json)
}

fn outcome<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

/// Nothing of the worktree is left: no checkout, no admin entry, no branch, no verdict.
/// A finished landing of `auth`: the primary clean with its file, the worktree and branch gone,
/// one landing logged.
fn auth_landing_finished(sb: &Sandbox, repo: &Path, wt: &Path) {
    assert_eq!(sb.status(repo), "");
    assert!(repo.join("auth.rs").exists());
    gone(sb, repo, "auth", wt);
    let log = sb.berth_json(repo, &["log", "--json"]);
    assert_eq!(log["landings"].as_array().unwrap().len(), 1, "{log}");
}

fn gone(sb: &Sandbox, repo: &Path, name: &str, wt: &Path) {
    assert!(!wt.exists(), "{}", wt.display());
    assert!(!git_worktree_paths(sb, repo).contains(&wt.to_path_buf()));
    assert!(!sb.has_branch(repo, &format!("berth/{name}")));
    let verdict = sb.git_output(
        repo,
        &[
            "rev-parse",
            "-q",
            "--verify",
            &format!("refs/berth/reviews/berth/{name}"),
        ],
    );
    assert!(
        !verdict.status.success(),
        "the verdict went with the branch"
    );
}

/// No scratch worktree or branch of a gate is left.
fn no_scratch(sb: &Sandbox, repo: &Path) {
    let listed = sb.git(repo, &["worktree", "list", "--porcelain"]);
    assert!(!listed.contains("_ship-"), "{listed}");
    let branches = sb.branches(repo);
    assert!(
        branches.iter().all(|b| !b.contains("_ship-")),
        "{branches:?}"
    );
}

#[test]
fn a_squash_lands_one_commit_listing_the_subjects_and_removes_worktree_and_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = sb.add(&repo, &["auth"]);
    sb.commit_file(&wt, "auth.rs", "fn login() {}\n");
    sb.commit_file(&wt, "docs/auth.md", "# auth\n");
    approve(&sb, &repo, "auth", &reviewer);
    let old = sb.rev(&repo, "main");

    let (out, report) = ship_json(&sb, &repo, &["auth", "--gate", "test -f auth.rs"]);
    assert!(out.status.success(), "{}", outputs(&out));

    let w = outcome(&report, "auth");
    assert_eq!(w["outcome"], "landed");
    assert_eq!(w["gate"], "passed");
    let new = sb.rev(&repo, "main");
    assert_eq!(w["old_tip"], old.as_str());
    assert_eq!(w["new_tip"], new.as_str());
    assert_eq!(sb.rev(&repo, "main^"), old, "one commit on the old tip");
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%B", "main"]),
        "change auth.rs\n\n- change auth.rs\n- change docs/auth.md\n\n",
        "the first commit's subject, then every subject"
    );
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%an <%ae>", "main"])
            .trim(),
        "Test Committer <committer@example.com>"
    );
    // The primary checkout has the trunk: it was brought along, and real git finds it clean.
    assert_eq!(sb.status(&repo), "");
    assert_eq!(
        std::fs::read_to_string(repo.join("docs/auth.md")).unwrap(),
        "# auth\n"
    );
    assert_eq!(sb.git(&repo, &["diff", "HEAD", "--stat"]), "");
    gone(&sb, &repo, "auth", &wt);
    no_scratch(&sb, &repo);

    let log = sb.berth_json(&repo, &["log", "--json"]);
    let landings = log["landings"].as_array().unwrap();
    assert_eq!(landings.len(), 1);
    let l = &landings[0];
    assert_eq!(l["worktree"], "auth");
    assert_eq!(l["branch"], "berth/auth");
    assert_eq!(l["trunk"], "main");
    assert_eq!(l["old_tip"], old.as_str());
    assert_eq!(l["new_tip"], new.as_str());
    assert_eq!(l["strategy"], "squash");
    assert_eq!(l["reviewer"], "reviewer");
    assert_eq!(l["gate"], "passed");
    assert!(l["time"].as_u64().unwrap() > 0);
    assert_eq!(sb.berth_json(&repo, &["ship", "--history", "--json"]), log);
    let table = sb.berth_ok(&repo, &["log"]);
    assert!(
        table.contains("auth") && table.contains(&format!("main {}..{}", &old[..7], &new[..7])),
        "{table}"
    );
}

#[test]
fn the_primary_follows_deletions_modes_and_links_and_stays_clean_for_real_git() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.commit_file(&repo, "old/only.txt", "going\n");
    sb.commit_file(&repo, ".gitattributes", "*.crlf text eol=crlf\n");
    let reviewer = Agent::spawn();
    let wt = sb.add(&repo, &["shape"]);
    sb.git(&wt, &["rm", "-q", "old/only.txt"]);
    std::fs::write(wt.join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    std::fs::write(wt.join("lines.crlf"), "one\ntwo\n").unwrap();
    std::os::unix::fs::symlink("run.sh", wt.join("link")).unwrap();
    std::fs::write(wt.join("src/lib.rs"), "fn main() { changed() }\n").unwrap();
    std::fs::set_permissions(
        wt.join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    sb.git(&wt, &["add", "-A"]);
    sb.git(&wt, &["commit", "-q", "-m", "reshape"]);
    approve(&sb, &repo, "shape", &reviewer);

    sb.berth_ok(&repo, &["ship", "shape"]);
    assert!(
        !repo.join("old").exists(),
        "a folder left empty goes with its last file"
    );
    let mode = std::fs::metadata(repo.join("run.sh"))
        .unwrap()
        .permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o111,
        0o111
    );
    assert_eq!(
        std::fs::read_link(repo.join("link")).unwrap(),
        PathBuf::from("run.sh")
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(),
        "fn main() { changed() }\n"
    );
    assert_eq!(
        std::fs::read(repo.join("lines.crlf")).unwrap(),
        b"one\r\ntwo\r\n",
        "written through the attributes' filters, as git checks out"
    );
    assert_eq!(sb.status(&repo), "");
    assert_eq!(sb.git(&repo, &["diff", "--cached", "--name-only"]), "");
    assert_eq!(
        sb.git(&repo, &["ls-files", "-s", "run.sh"])
            .split_whitespace()
            .next(),
        Some("100755")
    );
}

#[test]
fn merge_makes_a_merge_commit_and_ff_only_moves_a_trunk_that_is_an_ancestor() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let merged = approved_work(&sb, &repo, "merged", "m.txt", "m\n", &reviewer);
    let late = sb.add(&repo, &["late"]);
    sb.commit_file(&late, "l.txt", "l\n");
    approve(&sb, &repo, "late", &reviewer);
    let merged_head = sb.rev(&merged, "HEAD");
    let old = sb.rev(&repo, "main");

    sb.berth_ok(&repo, &["ship", "merged", "--strategy", "merge"]);
    let parents = sb.git(&repo, &["rev-list", "--parents", "-1", "main"]);
    assert_eq!(
        parents.split_whitespace().skip(1).collect::<Vec<_>>(),
        [old.as_str(), merged_head.as_str()]
    );
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%s", "main"]).trim(),
        "Merge branch 'berth/merged' into main"
    );
    assert_eq!(sb.status(&repo), "");

    // `late` started from the old tip: the trunk is no ancestor of it now.
    let before = sb.rev(&repo, "main");
    let err = sb.berth_err(&repo, &["ship", "late", "--strategy", "ff"]);
    assert!(err.contains("cannot be fast-forwarded"), "{err}");
    assert!(err.contains("--strategy squash"), "{err}");
    assert_eq!(sb.rev(&repo, "main"), before);
    assert!(late.exists());

    let quick = approved_work(&sb, &repo, "quick", "q.txt", "q\n", &reviewer);
    let quick_head = sb.rev(&quick, "HEAD");
    sb.berth_ok(&repo, &["ship", "quick", "--strategy", "ff"]);
    assert_eq!(
        sb.rev(&repo, "main"),
        quick_head,
        "the trunk is the head itself"
    );
    assert_eq!(sb.status(&repo), "");
    assert!(repo.join("q.txt").exists());
    gone(&sb, &repo, "quick", &quick);
}

#[test]
fn a_dirty_primary_on_the_trunk_refuses_the_landing_with_nothing_moved() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    std::fs::write(repo.join("README.md"), "edited by a person\n").unwrap();
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["ship", "auth", "--gate", "true"]);
    assert!(
        err.contains("primary checkout") && err.contains("uncommitted changes"),
        "{err}"
    );
    assert!(err.contains("nothing was landed"), "{err}");
    let after = sb.state(&repo);
    assert_eq!(after.refs, before.refs, "no ref moved");
    assert_eq!(
        after.worktrees, before.worktrees,
        "no worktree came or went"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "edited by a person\n"
    );
    assert!(wt.join("auth.rs").exists());
    assert_eq!(sb.list_row(&repo, "auth")["review"], "approved");

    // An untracked file the landing would write over refuses it too.
    sb.git(&repo, &["checkout", "--", "README.md"]);
    std::fs::write(repo.join("auth.rs"), "a person's own\n").unwrap();
    let err = sb.berth_err(&repo, &["ship", "auth", "--gate", "true"]);
    assert!(
        err.contains("untracked files in the primary checkout"),
        "{err}"
    );
    assert!(err.contains("auth.rs"), "{err}");
    assert_eq!(sb.state(&repo).refs, before.refs);
    assert_eq!(
        std::fs::read_to_string(repo.join("auth.rs")).unwrap(),
        "a person's own\n"
    );
}

#[test]
fn a_commit_after_the_approval_blocks_ship_and_so_does_a_rejection() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "late", "a.txt", "a\n", &reviewer);
    sb.commit_file(&wt, "b.txt", "b\n");
    let main = sb.rev(&repo, "main");
    let err = sb.berth_err(&repo, &["ship", "late"]);
    assert!(err.contains("commits after its review"), "{err}");
    assert!(
        err.contains("hint: have the new head reviewed: git berth review approve 'late'"),
        "{err}"
    );

    let bad = sb.add(&repo, &["bad"]);
    sb.commit_file(&bad, "c.txt", "c\n");
    let out = sb.berth_as(
        &repo,
        "reviewer",
        reviewer.pid(),
        &["review", "reject", "bad", "--note", "no tests"],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    let err = sb.berth_err(&repo, &["ship", "bad"]);
    assert!(
        err.contains("worktree 'bad' was rejected by reviewer: no tests"),
        "{err}"
    );

    let none = sb.add(&repo, &["none"]);
    sb.commit_file(&none, "d.txt", "d\n");
    let err = sb.berth_err(&repo, &["ship", "none"]);
    assert!(err.contains("is not approved"), "{err}");

    // A worktree git made without berth is named as such, with how to adopt it.
    let by_hand = sb.root.join("by-hand");
    sb.worktree_by_hand(&repo, "by-hand", &by_hand);
    let err = sb.berth_err(&repo, &["ship", "by-hand"]);
    assert!(
        err.contains("'by-hand' is a linked worktree git berth does not manage"),
        "{err}"
    );
    assert!(err.contains("hint: adopt it"), "{err}");
    assert_eq!(sb.rev(&repo, "main"), main);
    assert!(wt.exists() && bad.exists() && none.exists());
}

#[test]
fn a_failing_gate_keeps_the_trunk_names_its_log_and_leaves_no_scratch_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let main = sb.rev(&repo, "main");

    let (out, report) = ship_json(
        &sb,
        &repo,
        &["auth", "--gate", "echo the build broke; ls; exit 3"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let w = outcome(&report, "auth");
    assert_eq!(w["outcome"], "refused");
    assert_eq!(w["gate"], "failed");
    let log = PathBuf::from(w["gate_log"].as_str().unwrap());
    assert!(
        stderr(&out).contains(&log.display().to_string()),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("the build broke"), "{text}");
    assert!(
        text.contains("auth.rs"),
        "the gate ran on the merged result: {text}"
    );
    assert!(log.starts_with(sb.common_dir(&repo).join("berth/ship")));
    assert_eq!(sb.rev(&repo, "main"), main, "the trunk stays");
    assert!(wt.exists());
    assert_eq!(sb.list_row(&repo, "auth")["review"], "approved");
    no_scratch(&sb, &repo);
    assert!(
        sb.list_rows(&repo, false)
            .iter()
            .all(|r| r["name"] == "auth")
    );
}

#[test]
fn the_gate_comes_from_berth_gate_or_the_installed_hook_which_must_be_trusted() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let marker = sb.root.join("gated");
    let gate = format!(
        "git rev-parse HEAD >> {}",
        common::sh_quote(marker.to_str().unwrap())
    );
    sb.install(&repo, &["--gate", &gate]);
    sb.commit_all(&repo, "gate");
    approved_work(&sb, &repo, "one", "1.txt", "1\n", &reviewer);
    sb.berth_ok(&repo, &["ship", "one"]);
    let first = sb.rev(&repo, "main");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        format!("{first}\n"),
        "the hook gated the candidate that landed"
    );

    // A gate hook changed by a pull is not trusted until `git berth trust` says so.
    let hook = repo.join(".worktree-hooks/gate");
    let text = std::fs::read_to_string(&hook)
        .unwrap()
        .replace("rev-parse HEAD", "rev-parse HEAD^{tree}");
    std::fs::write(&hook, text).unwrap();
    sb.commit_all(&repo, "changed gate");
    approved_work(&sb, &repo, "two", "2.txt", "2\n", &reviewer);
    let main = sb.rev(&repo, "main");
    let err = sb.berth_err(&repo, &["ship", "two"]);
    assert!(err.contains("is not trusted"), "{err}");
    assert_eq!(sb.rev(&repo, "main"), main);
    sb.berth_ok(&repo, &["trust"]);
    sb.berth_ok(&repo, &["ship", "two"]);
    let tree = sb.rev(&repo, "main^{tree}");
    assert!(
        std::fs::read_to_string(&marker)
            .unwrap()
            .ends_with(&format!("{tree}\n"))
    );

    // berth.gate comes before the hook.
    approved_work(&sb, &repo, "three", "3.txt", "3\n", &reviewer);
    sb.git(&repo, &["config", "berth.gate", "false"]);
    let err = sb.berth_err(&repo, &["ship", "three"]);
    assert!(err.contains("the gate failed"), "{err}");
    sb.git(&repo, &["config", "berth.gate", "true"]);
    sb.berth_ok(&repo, &["ship", "three"]);
    assert!(repo.join("3.txt").exists());
}

#[test]
fn a_conflict_refuses_that_worktree_names_the_files_and_the_next_still_lands() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let clash = approved_work(&sb, &repo, "clash", "README.md", "theirs\n", &reviewer);
    approved_work(&sb, &repo, "fine", "fine.txt", "ok\n", &reviewer);
    sb.commit_file(&repo, "README.md", "ours\n");

    let (out, report) = ship_json(&sb, &repo, &["clash", "fine"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let c = outcome(&report, "clash");
    assert_eq!(c["outcome"], "refused");
    assert_eq!(c["conflicts"], serde_json::json!(["README.md"]));
    assert!(
        stderr(&out).contains("worktree 'clash' conflicts with main in README.md"),
        "{}",
        stderr(&out)
    );
    assert_eq!(outcome(&report, "fine")["outcome"], "landed");
    assert_eq!(report["landed"], 1);
    assert_eq!(report["refused"], 1);
    assert!(
        stderr(&out).contains("1 of 2 worktree(s) not landed: clash"),
        "{}",
        stderr(&out)
    );
    assert!(clash.exists());
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "ours\n"
    );
    assert!(repo.join("fine.txt").exists());
    assert_eq!(sb.status(&repo), "");
}

#[test]
fn all_approved_lands_the_worktrees_that_overlap_no_other_first_and_a_dry_run_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "a", "shared.txt", "from a\n", &reviewer);
    approved_work(&sb, &repo, "b", "shared.txt", "from b\n", &reviewer);
    approved_work(&sb, &repo, "c", "own.txt", "c\n", &reviewer);
    let unreviewed = sb.add(&repo, &["d"]);
    sb.commit_file(&unreviewed, "d.txt", "d\n");
    let before = sb.state(&repo);
    let objects = sb.git(&repo, &["count-objects"]);

    let (out, plan) = ship_json(&sb, &repo, &["--all-approved", "--dry-run"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    assert_eq!(plan["order"], serde_json::json!(["c", "a", "b"]));
    assert_eq!(
        plan["forecast"],
        serde_json::json!([{"worktrees": ["a", "b"], "file": "shared.txt"}])
    );
    // Landed in that order, b would meet a's change: foretold as the real run meets it.
    let foretold: Vec<(&str, &str)> = plan["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["name"].as_str().unwrap(), w["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        foretold,
        [("c", "would land"), ("a", "would land"), ("b", "refused")]
    );
    assert_eq!(
        outcome(&plan, "b")["conflicts"],
        serde_json::json!(["shared.txt"])
    );
    let main = sb.rev(&repo, "main");
    assert_eq!(outcome(&plan, "c")["old_tip"], main.as_str());
    assert_ne!(
        outcome(&plan, "a")["old_tip"],
        main.as_str(),
        "a would land on c's landing"
    );
    assert_eq!(
        (&plan["landed"], &plan["would_land"], &plan["refused"]),
        (
            &serde_json::json!(0),
            &serde_json::json!(2),
            &serde_json::json!(1)
        ),
        "nothing landed"
    );
    assert!(
        stderr(&out).contains("1 of 3 worktree(s) would not land: b"),
        "{}",
        outputs(&out)
    );
    assert_eq!(sb.state(&repo), before, "a dry run changes nothing");
    assert_eq!(
        sb.git(&repo, &["count-objects"]),
        objects,
        "and writes no object"
    );
    let text = common::stdout(&sb.berth(&repo, &["ship", "--all-approved", "--dry-run"]));
    assert!(
        text.contains("conflict forecast: a and b in shared.txt"),
        "{text}"
    );

    let (out, report) = ship_json(&sb, &repo, &["--all-approved", "--gate", "true"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let done: Vec<(&str, &str)> = report["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["name"].as_str().unwrap(), w["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(done, [("c", "landed"), ("a", "landed"), ("b", "refused")]);
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "from a\n"
    );
    assert!(unreviewed.exists(), "an unreviewed worktree is not shipped");
    assert_eq!(sb.status(&repo), "");
}

#[test]
fn ship_inside_a_linked_worktree_lands_that_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "here", "here.txt", "h\n", &reviewer);
    let out = sb.berth(&wt, &["ship", "--gate", "true"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(repo.join("here.txt").exists());
    gone(&sb, &repo, "here", &wt);
    let err = sb.berth_err(&repo, &["ship"]);
    assert!(err.contains("name the worktrees to ship"), "{err}");
}

/// The gate runs in a scratch worktree but is told of the worktree it gates: its name, its branch,
/// and the trunk tip the candidate was built on.
#[test]
fn the_gate_is_told_the_worktree_it_gates_and_runs_in_the_scratch_folder() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let main = sb.rev(&repo, "main");
    let seen = sb.root.join("seen");
    let gate = format!(
        "echo \"$WORKTREE_NAME|$WORKTREE_BRANCH|$WORKTREE_BASE|$WORKTREE_PATH|$PWD\" > {}",
        common::sh_quote(seen.to_str().unwrap())
    );
    let out = sb.berth(&repo, &["ship", "auth", "--gate", &gate]);
    assert!(out.status.success(), "{}", outputs(&out));
    let seen = std::fs::read_to_string(&seen).unwrap();
    let fields: Vec<&str> = seen.trim_end().split('|').collect();
    assert_eq!(fields[..3], ["auth", "berth/auth", main.as_str()], "{seen}");
    assert!(
        fields[3].contains("_ship-") && fields[4].ends_with(fields[3].rsplit('/').next().unwrap()),
        "the gate runs in the scratch worktree named to it: {seen}"
    );
}

#[test]
fn keep_leaves_the_worktree_and_a_primary_on_another_branch_is_left_alone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    sb.git(&repo, &["switch", "-q", "-c", "side"]);
    sb.git(&repo, &["config", "berth.trunk", "main"]);
    let wt = approved_work(&sb, &repo, "kept", "k.txt", "k\n", &reviewer);
    let (out, report) = ship_json(&sb, &repo, &["kept", "--keep"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(outcome(&report, "kept")["kept"], "--keep");
    assert!(wt.join("k.txt").exists());
    // Its verdict went with the landing; what it holds is on the trunk: landed, not unreviewed.
    assert_eq!(sb.list_row(&repo, "kept")["review"], "landed");
    let status = sb.berth_json(&repo, &["review", "status", "kept", "--json"]);
    assert_eq!(status["reviews"][0]["review"], "landed");
    let table = sb.berth_ok(&repo, &["list"]);
    assert!(table.contains("landed"), "{table}");
    assert_eq!(sb.git(&repo, &["show", "main:k.txt"]), "k\n");
    assert!(
        !repo.join("k.txt").exists(),
        "the primary on 'side' is left alone"
    );
    assert_eq!(sb.git(&repo, &["branch", "--show-current"]).trim(), "side");
    assert_eq!(sb.status(&repo), "");

    sb.commit_file(&wt, "k2.txt", "more\n");
    assert_eq!(
        sb.list_row(&repo, "kept")["review"],
        "unreviewed",
        "a commit after the landing is new work"
    );

    // The trunk checked out in a linked worktree would not be brought along: refused.
    let other = sb.root.join("on-main");
    sb.git(
        &repo,
        &["worktree", "add", "-q", other.to_str().unwrap(), "main"],
    );
    approved_work(&sb, &repo, "more", "m.txt", "m\n", &reviewer);
    let main = sb.rev(&repo, "main");
    let err = sb.berth_err(&repo, &["ship", "more"]);
    assert!(
        err.contains("main is checked out in") && err.contains("on-main"),
        "{err}"
    );
    assert_eq!(sb.rev(&repo, "main"), main);
}

#[test]
fn two_racing_ships_both_land_the_second_gated_on_a_trunk_with_the_firsts_change() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "a", "a.txt", "a\n", &reviewer);
    approved_work(&sb, &repo, "b", "b.txt", "b\n", &reviewer);
    let seen = sb.root.join("seen");
    // Each gate records what it found, slowly enough that both build on the same tip first; the
    // last gate of all must have found both files.
    let gate = format!(
        "sleep 1; ls a.txt b.txt 2>/dev/null | tr '\\n' ' ' >> {0}; echo >> {0}",
        common::sh_quote(seen.to_str().unwrap())
    );
    let spawn = |name: &str| {
        sb.berth_command(&repo, &["ship", name, "--json", "--gate", &gate])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("a"), spawn("b"));
    let limit = std::time::Duration::from_secs(60);
    let (a, b) = (
        common::wait_at_most(a, limit),
        common::wait_at_most(b, limit),
    );
    assert!(a.status.success(), "a: {}", outputs(&a));
    assert!(b.status.success(), "b: {}", outputs(&b));

    let log = sb.berth_json(&repo, &["log", "--json"]);
    let landings = log["landings"].as_array().unwrap();
    assert_eq!(landings.len(), 2, "{log}");
    assert_eq!(
        landings[1]["old_tip"], landings[0]["new_tip"],
        "one after the other"
    );
    assert_eq!(
        sb.rev(&repo, "main"),
        landings[1]["new_tip"].as_str().unwrap()
    );
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(seen.lines().last(), Some("a.txt b.txt "), "{seen}");
    let reports: Vec<Value> = [&a, &b]
        .iter()
        .map(|o| serde_json::from_slice(&o.stdout).unwrap())
        .collect();
    let attempts: Vec<u64> = reports
        .iter()
        .map(|r| r["worktrees"][0]["attempts"].as_u64().unwrap())
        .collect();
    assert!(
        attempts.contains(&2),
        "the second built and gated again: {attempts:?}"
    );
    let again = if attempts[0] == 2 { &a } else { &b };
    assert!(
        stderr(again).contains("building and gating again"),
        "{}",
        stderr(again)
    );
    assert!(repo.join("a.txt").exists() && repo.join("b.txt").exists());
    assert_eq!(sb.status(&repo), "");
    no_scratch(&sb, &repo);
}

/// A ship killed after its journal is written, before the trunk moves, leaves the trunk as it
/// was; one killed while gating leaves a scratch worktree. The next ship clears both up and lands.
#[test]
fn a_ship_killed_before_the_trunk_moves_changes_nothing_the_next_ship_cannot_clear() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let main = sb.rev(&repo, "main");
    for pause in ["BERTH_TEST_PAUSE_GATE_MS", "BERTH_TEST_PAUSE_LAND_MS"] {
        let mut cmd = sb.berth_command(&repo, &["ship", "auth", "--gate", "true"]);
        cmd.env(pause, "30000");
        let (mut child, _err) = common::spawn_until_paused(cmd);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(sb.rev(&repo, "main"), main, "{pause}: the trunk stays");
        assert_eq!(sb.status(&repo), "", "{pause}");
    }
    let out = sb.berth(&repo, &["ship", "auth", "--gate", "true"]);
    assert!(out.status.success(), "{}", outputs(&out));
    no_scratch(&sb, &repo);
    assert!(
        !sb.common_dir(&repo)
            .join("berth/ship/landing.toml")
            .exists()
    );
    assert_eq!(
        sb.berth_json(&repo, &["log", "--json"])["landings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(sb.status(&repo), "");
}

/// A ship killed after the trunk moved, before the primary checkout caught up, left a journal:
/// the next ship (of anything) finishes that landing first: the primary, the log, the worktree.
#[test]
fn a_ship_killed_after_the_trunk_moved_is_finished_by_the_next_ship() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let mut cmd = sb.berth_command(&repo, &["ship", "auth", "--gate", "true"]);
    cmd.env("BERTH_TEST_PAUSE_LANDED_MS", "30000");
    let (mut child, _err) = common::spawn_until_paused(cmd);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        sb.git(&repo, &["show", "main:auth.rs"]),
        "x\n",
        "the trunk moved"
    );
    assert_ne!(sb.status(&repo), "", "the primary had not caught up");

    let out = sb.berth(&repo, &["ship", "--all-approved"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("finishing a landing"),
        "{}",
        stderr(&out)
    );
    auth_landing_finished(&sb, &repo, &wt);
}

/// Another git command's `index.lock` in the primary stops the primary following the trunk after
/// the trunk moved: the worktree still landed (and stays, saying so), and `prune` finishes it
/// once the lock is gone.
#[test]
fn a_primary_index_locked_by_another_command_after_the_trunk_moved_still_lands() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let lock = sb.common_dir(&repo).join("index.lock");
    std::fs::write(&lock, "").unwrap();

    let (out, report) = ship_json(&sb, &repo, &["auth", "--gate", "true"]);
    let auth = outcome(&report, "auth");
    assert_eq!(auth["outcome"], "landed", "{}", outputs(&out));
    assert!(out.status.success(), "{}", outputs(&out));
    let kept = auth["kept"].as_str().unwrap_or_default();
    assert!(kept.contains("index.lock"), "{kept}");
    assert!(
        kept.contains("when that git command is done: git berth prune"),
        "{kept}"
    );
    assert_eq!(sb.git(&repo, &["show", "main:auth.rs"]), "x\n");
    assert!(
        wt.exists(),
        "the worktree stays until the landing is finished"
    );

    std::fs::remove_file(&lock).unwrap();
    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", outputs(&out));
    auth_landing_finished(&sb, &repo, &wt);
}

/// Ships killed at random points: the trunk is only ever the old tip or a candidate the gate
/// passed; `prune` then leaves no scratch worktree and a clean primary, the rest land, and
/// `clean` takes the landed worktrees a kill kept.
#[test]
fn a_kill_loop_over_ship_never_leaves_the_trunk_on_an_ungated_candidate() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let gated = sb.root.join("gated");
    let gate = format!(
        "git rev-parse HEAD >> {}",
        common::sh_quote(gated.to_str().unwrap())
    );
    // Kill points spread over a whole ship's run, as long as one takes on this machine now.
    approved_work(&sb, &repo, "whole", "whole.txt", "w\n", &reviewer);
    let started = std::time::Instant::now();
    sb.berth_ok(&repo, &["ship", "whole", "--gate", &gate]);
    let whole = u64::try_from(started.elapsed().as_micros()).unwrap().max(1);
    let offset = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_micros(),
    );
    let (mut untouched, mut moved) = (0, 0);
    for i in 0..12 {
        let name = format!("k{i}");
        approved_work(&sb, &repo, &name, &format!("{name}.txt"), "k\n", &reviewer);
        let before = sb.rev(&repo, "main");
        let mut child = sb
            .berth_command(&repo, &["ship", &name, "--gate", &gate])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(
            (offset + i * whole * 7 / 12) % whole,
        ));
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let now = sb.rev(&repo, "main");
        let passed = std::fs::read_to_string(&gated).unwrap_or_default();
        assert!(
            now == before || passed.lines().any(|l| l == now),
            "kill {i}: main is {now}, neither {before} nor a gated candidate ({passed})"
        );
        if now == before {
            untouched += 1;
        } else {
            moved += 1;
        }
    }
    eprintln!("kills: {untouched} before the trunk moved, {moved} after");
    let pruned = sb.berth(&repo, &["prune"]);
    assert!(pruned.status.success(), "{}", outputs(&pruned));
    eprintln!("prune: {}", stderr(&pruned));
    no_scratch(&sb, &repo);
    assert_eq!(sb.status(&repo), "", "a landing cut short was finished");
    assert!(
        !sb.common_dir(&repo)
            .join("berth/ship/landing.toml")
            .exists()
    );
    assert_eq!(sb.git(&repo, &["worktree", "prune", "--dry-run", "-v"]), "");
    let out = sb.berth(&repo, &["ship", "--all-approved", "--gate", &gate]);
    assert!(out.status.success(), "{}", outputs(&out));
    // A kill after a landing, before its worktree went, leaves a landed worktree: clean's to take.
    sb.berth_ok(&repo, &["clean", "--delete-branch"]);
    for i in 0..12 {
        assert!(
            repo.join(format!("k{i}.txt")).exists(),
            "k{i} landed in the end"
        );
    }
    assert_eq!(
        git_worktree_paths(&sb, &repo),
        std::slice::from_ref(&repo),
        "only the primary is left"
    );
}

/// An agent berth launched in a worktree whose candidate conflicts hears which files do.
/// `layer1 <name> feat/<name> shell` from the tmux server's pane, the `shell` runtime running
/// `command`: the agent's worktree.
fn layer1_agent(
    sb: &Sandbox,
    repo: &Path,
    tmux: &common::Tmux,
    name: &str,
    command: &str,
) -> PathBuf {
    sb.git(repo, &["config", "berth.runtime.shell.command", command]);
    let path = format!(
        "{}:{}",
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let branch = format!("feat/{name}");
    let out = sb
        .berth_command(repo, &["layer1", name, &branch, "shell"])
        .env("TMUX", tmux.env_value())
        .env("TMUX_PANE", &tmux.pane)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", outputs(&out));
    PathBuf::from(common::stdout(&out).trim())
}

/// A layer-1 agent `name` whose runtime appends every line it is typed to a file: its worktree's
/// name, its path and that file.
fn listening_agent(
    sb: &Sandbox,
    repo: &Path,
    tmux: &common::Tmux,
    name: &str,
) -> (String, PathBuf, PathBuf) {
    let heard = sb.root.join(format!("{name}.heard"));
    let script = sb.root.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nwhile :; do if read -r line; then printf '%s\\n' \"$line\" >> {}; \
             else sleep 0.05; fi; done\n",
            common::sh_quote(heard.to_str().unwrap())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let wt = layer1_agent(sb, repo, tmux, name, script.to_str().unwrap());
    let worktree = sb
        .list_rows(repo, false)
        .into_iter()
        .find(|r| r["path"] == wt.to_str().unwrap())
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .unwrap();
    (worktree, wt, heard)
}

#[test]
fn a_live_agent_in_a_conflicting_worktree_is_told_which_files_conflict() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let Some(tmux) = common::Tmux::start(&sb, &repo) else {
        return;
    };
    let (name, wt, heard) = listening_agent(&sb, &repo, &tmux, "talk");
    sb.commit_file(&wt, "README.md", "the agent's\n");
    let reviewer = Agent::spawn();
    approve(&sb, &repo, &name, &reviewer);
    sb.commit_file(&repo, "README.md", "the trunk's\n");

    let err = sb.berth_err(&repo, &["ship", &name]);
    assert!(err.contains("conflicts with main in README.md"), "{err}");
    assert!(err.contains("told agent talk"), "{err}");
    let told = format!("worktree '{name}' conflicts with main in README.md");
    common::wait_for("the agent to hear of the conflict", || {
        std::fs::read_to_string(&heard).is_ok_and(|said| said.contains(&told))
    });
}

#[test]
fn a_conflict_on_a_file_another_worktree_owns_names_the_owner_and_tells_its_agent() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let Some(tmux) = common::Tmux::start(&sb, &repo) else {
        return;
    };
    let (owner, _, heard) = listening_agent(&sb, &repo, &tmux, "keeper");
    sb.berth_ok(&repo, &["own", "--worktree", &owner, "README.md"]);
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "late", "README.md", "late's\n", &reviewer);
    sb.commit_file(&repo, "README.md", "the trunk's\n");

    let (out, report) = ship_json(&sb, &repo, &["late"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "worktree 'late' conflicts with main in README.md (owned by worktree '{owner}', agent keeper)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "told agent keeper, whose worktree '{owner}' owns README.md"
        )),
        "{err}"
    );
    assert_eq!(
        outcome(&report, "late")["conflict_owners"],
        serde_json::json!([{"file": "README.md", "worktree": owner, "agent": "keeper"}]),
        "{report}"
    );
    let told =
        "worktree 'late' could not land on main: it conflicts in README.md, which your worktree";
    common::wait_for("the owner's agent to hear of the conflict", || {
        std::fs::read_to_string(&heard).is_ok_and(|said| said.contains(told))
    });
}

#[test]
fn push_sends_the_landed_trunk_to_its_remote() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let remote = sb.add_origin(&repo);
    sb.git(&repo, &["push", "-q", "-u", "origin", "main"]);
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    let out = sb.berth(&repo, &["ship", "auth", "--push"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("pushed main to origin"),
        "{}",
        stderr(&out)
    );
    assert_eq!(sb.rev(&remote, "main"), sb.rev(&repo, "main"));
}

#[test]
fn a_landed_worktree_where_an_agent_still_runs_stays_until_the_agent_ends() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let Some(tmux) = common::Tmux::start(&sb, &repo) else {
        return;
    };
    let wt = layer1_agent(&sb, &repo, &tmux, "busy", "sleep 600");
    sb.commit_file(&wt, "busy.txt", "done\n");
    let reviewer = Agent::spawn();
    approve(&sb, &repo, "busy", &reviewer);

    let (out, report) = ship_json(&sb, &repo, &["busy"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(sb.git(&repo, &["show", "main:busy.txt"]), "done\n");
    let kept = outcome(&report, "busy")["kept"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(kept.contains("agent 'busy' still runs there"), "{report}");
    assert!(wt.join("busy.txt").exists(), "the agent's worktree stays");
    assert!(sb.has_branch(&repo, "feat/busy"));

    let agents = sb.berth_json(&repo, &["agents", "--json"]);
    let pane = agents["agents"][0]["pane"].as_str().unwrap().to_owned();
    tmux.run(&["kill-pane", "-t", &pane]);
    common::wait_for("the agent to end", || {
        sb.berth_json(&repo, &["agents", "--json"])["agents"][0]["status"] == "gone"
    });
    sb.berth_ok(&repo, &["remove", "--delete-branch", "busy"]);
    assert!(!wt.exists());
    assert!(!sb.has_branch(&repo, "feat/busy"));
}

#[test]
fn a_corrupt_landing_log_stops_ship_before_the_trunk_moves() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "fn login() {}\n", &reviewer);
    let log = sb.common_dir(&repo).join("berth").join("landings.toml");
    for corrupt in ["", "[[landing]]\nworktree = \"old\"\n"] {
        std::fs::write(&log, corrupt).unwrap();
        let old = sb.rev(&repo, "main");

        let out = sb.berth(&repo, &["ship", "auth", "--gate", "true"]);

        assert_eq!(out.status.code(), Some(78), "{}", outputs(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("corrupt landing log {}", log.display())),
            "{err}"
        );
        assert_eq!(sb.rev(&repo, "main"), old, "the trunk did not move");
        assert!(wt.exists(), "the worktree stays");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), corrupt);
    }
}

#[test]
fn a_passed_gates_log_is_kept_and_the_scratch_worktree_is_not_announced() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "auth.rs", "fn login() {}\n", &reviewer);

    let out = sb.berth(&repo, &["ship", "auth", "--gate", "echo gate-said-this"]);

    assert!(out.status.success(), "{}", outputs(&out));
    let err = stderr(&out);
    assert!(!err.contains("created worktree"), "{err}");
    let log = err
        .split("(log: ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no log named: {err}"));
    assert_eq!(
        std::fs::read_to_string(log).unwrap(),
        "gate-said-this\n",
        "the log stderr named is there after the gate passed"
    );
}

#[test]
fn ship_message_names_the_landing_commit_and_a_fast_forward_refuses_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "auth.rs", "fn login() {}\n", &reviewer);

    let err = sb.berth_err(&repo, &["ship", "auth", "--strategy", "ff", "-m", "x"]);
    assert!(err.contains("a fast-forward makes none"), "{err}");

    sb.berth_ok(
        &repo,
        &["ship", "auth", "--message", "Add login\n\nWith a body.\n\n"],
    );
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%B", "main"]),
        "Add login\n\nWith a body.\n\n"
    );
}

/// A ship of `name` stopped at the test pause `pause`, then killed with SIGKILL.
fn ship_killed_at(sb: &Sandbox, repo: &Path, name: &str, pause: &str) {
    let mut cmd = sb.berth_command(repo, &["ship", name]);
    cmd.env(pause, "30000");
    let (mut child, _err) = common::spawn_until_paused(cmd);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_commit_made_in_a_landed_worktree_during_its_teardown_keeps_the_worktree_and_its_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    // Not in the gate's scratch worktree: only in the one that landed.
    sb.teardown_in_worktree(
        &repo,
        &format!("[ \"$WORKTREE_NAME\" != auth ] || {}", common::COMMIT_LATE),
    );
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);

    let (out, report) = ship_json(&sb, &repo, &["auth"]);

    assert!(out.status.success(), "{}", outputs(&out));
    let auth = outcome(&report, "auth");
    assert_eq!(auth["outcome"], "landed", "{report}");
    let kept = auth["kept"].as_str().unwrap_or_default();
    assert!(kept.contains("during its teardown"), "{kept}");
    assert!(wt.join("late.txt").exists(), "the worktree stays");
    assert_eq!(
        sb.git(&repo, &["log", "-1", "--format=%s", "berth/auth"]),
        "late\n",
        "the commit made during the teardown is on its branch"
    );
}

#[test]
fn a_ship_killed_while_removing_the_landed_worktree_leaves_no_branch_clean_or_prune_miss() {
    for command in ["clean", "prune"] {
        let sb = Sandbox::new();
        let repo = sb.repo("app");
        let reviewer = Agent::spawn();
        let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
        // Stopped with the checkout deleted, the branch and the record not yet.
        ship_killed_at(&sb, &repo, "auth", "BERTH_TEST_PAUSE_REMOVE_MS");
        assert!(!wt.exists(), "{command}");
        assert!(sb.has_branch(&repo, "berth/auth"), "{command}");

        let dry = sb.berth_json(&repo, &[command, "--dry-run", "--json"]);
        assert_eq!(
            dry["branches"][0]["branch"], "berth/auth",
            "{command}: {dry}"
        );
        assert_eq!(dry["branches"][0]["outcome"], "would delete", "{dry}");
        assert!(
            sb.has_branch(&repo, "berth/auth"),
            "a dry run deletes nothing"
        );
        let done = sb.berth_json(&repo, &[command, "--json"]);
        assert_eq!(
            done["branches"][0]["outcome"], "deleted",
            "{command}: {done}"
        );
        gone(&sb, &repo, "auth", &wt);
        assert!(sb.list_rows(&repo, false).is_empty(), "{command}");
    }
}

#[test]
fn a_ship_killed_after_deleting_the_landed_branch_leaves_a_record_the_next_command_finishes() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);
    // Stopped between the branch's deletion and the record's: the branch goes first.
    ship_killed_at(&sb, &repo, "auth", "BERTH_TEST_PAUSE_FORGET_MS");
    assert!(!sb.has_branch(&repo, "berth/auth"));
    let registry = std::fs::read_to_string(sb.registry_path(&repo)).unwrap();
    assert!(registry.contains("name = \"auth\""), "{registry}");

    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", outputs(&out));
    gone(&sb, &repo, "auth", &wt);
    assert!(sb.list_rows(&repo, false).is_empty());
}

#[test]
fn a_landing_finished_after_a_kill_overwrites_no_edit_made_in_the_primary_meanwhile() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "README.md", "from auth\n", &reviewer);
    ship_killed_at(&sb, &repo, "auth", "BERTH_TEST_PAUSE_LANDED_MS");
    assert_eq!(sb.git(&repo, &["show", "main:README.md"]), "from auth\n");
    std::fs::write(repo.join("README.md"), "mine\n").unwrap();

    let out = sb.berth(&repo, &["prune"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let err = stderr(&out);
    assert!(
        err.contains("README.md in the checkout") && err.contains("changed since"),
        "{err}"
    );
    assert!(err.contains("hint: "), "{err}");
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "mine\n",
        "the edit is kept"
    );
    assert!(wt.exists(), "nothing of the landing was finished");

    // Restored, the landing is finished as any other.
    sb.git(&repo, &["checkout", "--", "README.md"]);
    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "from auth\n"
    );
    assert_eq!(sb.status(&repo), "");
    gone(&sb, &repo, "auth", &wt);
}

#[test]
fn a_landing_brings_along_a_primary_whose_line_endings_git_converts() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    std::fs::write(repo.join(".gitattributes"), "*.txt eol=crlf\n").unwrap();
    std::fs::write(repo.join("notes.txt"), "one\n").unwrap();
    sb.commit_all(&repo, "crlf");
    // Checked out again as git does it: CRLF on disk, LF as stored.
    std::fs::remove_file(repo.join("notes.txt")).unwrap();
    sb.git(&repo, &["checkout", "--", "notes.txt"]);
    assert_eq!(std::fs::read(repo.join("notes.txt")).unwrap(), b"one\r\n");
    let reviewer = Agent::spawn();
    approved_work(&sb, &repo, "auth", "notes.txt", "two\n", &reviewer);

    let out = sb.berth(&repo, &["ship", "auth"]);

    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        !stderr(&out).contains("landed but stays"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(repo.join("notes.txt")).unwrap(), b"two\r\n");
    assert_eq!(sb.status(&repo), "");
}

/// The pairs `forecast[kind]` of a `collect --json` or `ship --json` report names, as
/// `(a, b, file)`.
fn pairs(forecast: &Value) -> Vec<(String, String, String)> {
    forecast
        .as_array()
        .unwrap_or_else(|| panic!("no pairs: {forecast}"))
        .iter()
        .map(|p| {
            let name = |i: usize| p["worktrees"][i].as_str().unwrap().to_owned();
            (name(0), name(1), p["file"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn collect_and_a_dry_run_ship_forecast_the_same_pairs_leaving_out_a_landed_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let lines = |first: &str, last: &str| format!("{first}\n2\n3\n4\n5\n6\n7\n8\n9\n{last}\n");
    sb.commit_file(&repo, "shared.txt", &lines("1", "10"));
    sb.commit_file(&repo, "both.txt", &lines("1", "10"));
    let reviewer = Agent::spawn();
    // `landed` changes shared.txt's first line, and is squash-merged into main by hand: its work
    // is on the trunk, its branch still approved.
    approved_work(
        &sb,
        &repo,
        "landed",
        "shared.txt",
        &lines("landed", "10"),
        &reviewer,
    );
    // `a` changes that line its own way (against the landed work, that is the trunk's conflict,
    // not a pair's) and both.txt's first line; `b` changes both.txt's last line: a and b overlap.
    let a = sb.add(&repo, &["a"]);
    sb.commit_file(&a, "shared.txt", &lines("a", "10"));
    sb.commit_file(&a, "both.txt", &lines("a", "10"));
    approve(&sb, &repo, "a", &reviewer);
    approved_work(&sb, &repo, "b", "both.txt", &lines("1", "b"), &reviewer);
    sb.git(&repo, &["merge", "-q", "--squash", "berth/landed"]);
    sb.git(&repo, &["commit", "-q", "-m", "landed by hand"]);

    let collected = sb.berth_json(&repo, &["collect", "--json"]);
    let (_, plan) = ship_json(&sb, &repo, &["--all-approved", "--dry-run"]);
    let overlap = ("a".to_owned(), "b".to_owned(), "both.txt".to_owned());
    assert_eq!(
        pairs(&collected["forecast"]["overlaps"]),
        [overlap],
        "{collected}"
    );
    assert_eq!(
        pairs(&collected["forecast"]["conflicts"]),
        [],
        "{collected}"
    );
    assert_eq!(
        pairs(&plan["forecast"]),
        pairs(&collected["forecast"]["conflicts"]),
        "ship's forecast is collect's: {plan}"
    );
    // The order follows that forecast: the landed worktree shares a file with no candidate, the
    // two that overlap come after it.
    assert_eq!(
        plan["order"],
        serde_json::json!(["landed", "a", "b"]),
        "{plan}"
    );
}

#[test]
fn a_ship_whose_stderr_reader_went_away_still_lands_and_removes_the_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = approved_work(&sb, &repo, "auth", "auth.rs", "x\n", &reviewer);

    // The gating line, the landing line and the removal line all go to the closed stderr.
    let out = common::output_with_stderr_gone(
        sb.berth_command(&repo, &["ship", "auth", "--gate", "true"]),
    );

    assert_eq!(out.status.code(), Some(0), "{out:?}");
    auth_landing_finished(&sb, &repo, &wt);
}
