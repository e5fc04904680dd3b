//! `git berth collect`: the merge-back overview. Every figure is checked against what real git
//! says, and collect must change nothing.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Sandbox, stdout};
use serde_json::Value;

/// The object of worktree `name` in `collect --json`.
fn work<'a>(overview: &'a Value, name: &str) -> &'a Value {
    overview["worktrees"]
        .as_array()
        .unwrap_or_else(|| panic!("collect --json has a worktrees array: {overview}"))
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no worktree {name} in {overview}"))
}

/// Commit with a chosen subject (an empty commit: only the history matters).
fn commit(sb: &Sandbox, dir: &Path, subject: &str) {
    sb.git(dir, &["commit", "-q", "--allow-empty", "-m", subject]);
}

/// Whether real git merges `branch` into `main` without conflicts (`merge-tree` exit code).
fn git_merges_cleanly(sb: &Sandbox, repo: &Path, branch: &str) -> bool {
    let out = sb.git_output(repo, &["merge-tree", "--write-tree", "main", branch]);
    match out.status.code() {
        Some(0) => true,
        Some(1) => false,
        other => panic!(
            "git merge-tree failed ({other:?}): {}",
            common::outputs(&out)
        ),
    }
}

#[test]
fn collect_lists_commits_ahead_newest_first_at_most_twenty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["long"]);
    for i in 1..=25 {
        commit(&sb, &wt, &format!("step {i}"));
    }

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    let w = work(&overview, "long");
    assert_eq!(w["ahead"], 25);
    assert_eq!(w["branch"], "berth/long");
    assert_eq!(w["path"], wt.to_str().unwrap());
    let commits = w["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 20, "at most 20");
    let git_ids: Vec<String> = sb
        .git(&wt, &["rev-list", "-n", "20", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect();
    for (i, c) in commits.iter().enumerate() {
        assert_eq!(c["subject"], format!("step {}", 25 - i), "newest first");
        assert_eq!(c["id"], git_ids[i], "full ids, as git has them");
    }
    assert_eq!(w["dirty"], false);
    assert_eq!(w["unpushed"], Value::Null, "no upstream");
    assert_eq!(w["merges_cleanly"], true);
    assert_eq!(overview["trunk"], "main");
    assert_eq!(overview["conflicts"], Value::Array(vec![]));
}

#[test]
fn collect_counts_a_fresh_worktree_as_no_commits_and_sees_dirt() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let fresh = sb.add(&repo, &["fresh"]);
    let dirty = sb.add(&repo, &["dirty"]);
    std::fs::write(dirty.join("README.md"), "changed, not committed\n").unwrap();
    let staged = sb.add(&repo, &["staged"]);
    std::fs::write(staged.join("new.txt"), "new\n").unwrap();
    sb.git(&staged, &["add", "new.txt"]);
    let ignored = sb.add(&repo, &["ignored"]);
    std::fs::create_dir_all(ignored.join("target")).unwrap();
    std::fs::write(ignored.join("target/out"), "build\n").unwrap();

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    let f = work(&overview, "fresh");
    assert_eq!(f["ahead"], 0);
    assert_eq!(f["commits"], Value::Array(vec![]));
    assert_eq!(f["dirty"], false);
    assert_eq!(f["path"], fresh.to_str().unwrap());
    assert_eq!(work(&overview, "dirty")["dirty"], true);
    assert_eq!(work(&overview, "staged")["dirty"], true);
    assert_eq!(
        work(&overview, "ignored")["dirty"],
        false,
        "ignored files do not count"
    );
}

#[test]
fn collect_counts_commits_not_on_the_upstream() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    let wt = sb.add(&repo, &["pushed"]);
    sb.commit_file(&wt, "a.txt", "a\n");
    sb.commit_file(&wt, "b.txt", "b\n");
    sb.git(&wt, &["push", "-q", "-u", "origin", "berth/pushed"]);

    let overview = sb.berth_json(&repo, &["collect", "--json"]);
    assert_eq!(work(&overview, "pushed")["unpushed"], 0, "all pushed");

    sb.commit_file(&wt, "c.txt", "c\n");
    let overview = sb.berth_json(&repo, &["collect", "--json"]);
    let w = work(&overview, "pushed");
    assert_eq!(w["unpushed"], 1);
    assert_eq!(w["ahead"], 3);
    let git_says = sb.git(&wt, &["rev-list", "--count", "@{upstream}..HEAD"]);
    assert_eq!(git_says.trim(), "1");

    let text = sb.berth_ok(&repo, &["collect"]);
    assert!(text.contains("1 unpushed"), "{text}");
}

#[test]
fn collect_says_whether_each_worktree_merges_cleanly_as_git_merge_tree_does() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let clash = sb.add(&repo, &["clash"]);
    sb.commit_file(&clash, "README.md", "hello from the branch\n");
    let fine = sb.add(&repo, &["fine"]);
    sb.commit_file(&fine, "docs/guide.md", "guide\n");
    sb.commit_file(&repo, "README.md", "hello from main\n");

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    assert!(!git_merges_cleanly(&sb, &repo, "berth/clash"));
    assert!(git_merges_cleanly(&sb, &repo, "berth/fine"));
    assert_eq!(work(&overview, "clash")["merges_cleanly"], false);
    assert_eq!(work(&overview, "fine")["merges_cleanly"], true);

    let text = sb.berth_ok(&repo, &["collect"]);
    let clash_line = text.lines().find(|l| l.starts_with("clash")).unwrap();
    assert!(clash_line.contains("conflicts with main"), "{text}");
    let fine_line = text.lines().find(|l| l.starts_with("fine")).unwrap();
    assert!(fine_line.contains("merges cleanly into main"), "{text}");
}

#[test]
fn collect_keeps_listing_the_files_two_worktrees_both_change() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let a = sb.add(&repo, &["a"]);
    sb.commit_file(&a, "src/lib.rs", "fn a() {}\n");
    sb.commit_file(&a, "a-only.txt", "a\n");
    let b = sb.add(&repo, &["b"]);
    sb.commit_file(&b, "src/lib.rs", "fn b() {}\n");
    let c = sb.add(&repo, &["c"]);
    sb.commit_file(&c, "c-only.txt", "c\n");
    // A file main changed is not a worktree overlap.
    sb.commit_file(&repo, "a-only.txt", "main\n");

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    assert_eq!(
        overview["conflicts"],
        serde_json::json!([{"file": "src/lib.rs", "worktrees": ["a", "b"]}]),
        "the field scripts read before the forecast is as it was: {overview}"
    );
}

/// `git merge-tree` of two branches: whether they merge cleanly, and the files it stops on.
fn git_merge_tree(sb: &Sandbox, repo: &Path, a: &str, b: &str) -> (bool, Vec<String>) {
    let out = sb.git_output(
        repo,
        &[
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            a,
            b,
        ],
    );
    let clean = match out.status.code() {
        Some(0) => true,
        Some(1) => false,
        other => panic!(
            "git merge-tree failed ({other:?}): {}",
            common::outputs(&out)
        ),
    };
    let files = stdout(&out).lines().skip(1).map(str::to_owned).collect();
    (clean, files)
}

/// A README of ten numbered lines, committed on main.
fn ten_lines(sb: &Sandbox, repo: &Path) -> String {
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    sb.commit_file(repo, "README.md", &text);
    text
}

#[test]
fn collect_forecasts_a_conflict_on_one_line_apart_from_a_harmless_overlap() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let readme = ten_lines(&sb, &repo);
    // a and b rewrite line 4 each their own way: a real conflict.
    let a = sb.add(&repo, &["a"]);
    sb.commit_file(&a, "README.md", &readme.replace("line 4\n", "line four\n"));
    let b = sb.add(&repo, &["b"]);
    sb.commit_file(&b, "README.md", &readme.replace("line 4\n", "LINE 4\n"));
    // c touches the README too, far from line 4: an overlap with both that merges cleanly.
    let c = sb.add(&repo, &["c"]);
    sb.commit_file(&c, "README.md", &readme.replace("line 9\n", "line nine\n"));
    // d overlaps nothing.
    let d = sb.add(&repo, &["d"]);
    sb.commit_file(&d, "docs/d.md", "d\n");

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    assert_eq!(
        git_merge_tree(&sb, &repo, "berth/a", "berth/b"),
        (false, vec!["README.md".to_owned()]),
        "git agrees that a and b conflict"
    );
    assert!(git_merge_tree(&sb, &repo, "berth/a", "berth/c").0);
    assert!(git_merge_tree(&sb, &repo, "berth/b", "berth/c").0);
    assert_eq!(
        overview["forecast"],
        serde_json::json!({
            "conflicts": [
                {"worktrees": ["a", "b"], "file": "README.md", "lines": [{"start": 4, "end": 4}]}
            ],
            "overlaps": [
                {"worktrees": ["a", "c"], "file": "README.md"},
                {"worktrees": ["b", "c"], "file": "README.md"}
            ]
        }),
        "{overview}"
    );
    assert_eq!(
        overview["conflicts"],
        serde_json::json!([{"file": "README.md", "worktrees": ["a", "b", "c"]}]),
        "the old field still lists every shared file"
    );
    for name in ["a", "b", "c"] {
        assert_eq!(
            work(&overview, name)["merges_cleanly"],
            true,
            "into main, alone"
        );
    }

    let text = sb.berth_ok(&repo, &["collect"]);
    let (_, forecast) = text
        .split_once("forecast:")
        .unwrap_or_else(|| panic!("a forecast section: {text}"));
    let lines: Vec<Vec<&str>> = forecast
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        lines,
        [
            vec!["conflict", "a", "+", "b", "README.md", "line", "4"],
            vec!["overlap", "a", "+", "c", "README.md", "merges", "cleanly"],
            vec!["overlap", "b", "+", "c", "README.md", "merges", "cleanly"],
        ],
        "{text}"
    );
    assert!(!forecast.contains(" d "), "d overlaps nothing: {text}");
}

#[test]
fn collect_forecasts_a_change_against_a_deletion_as_a_conflict_without_lines() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let keep = sb.add(&repo, &["keep"]);
    sb.commit_file(&keep, "src/lib.rs", "fn kept() {}\n");
    let drop = sb.add(&repo, &["drop"]);
    sb.git(&drop, &["rm", "-q", "src/lib.rs"]);
    sb.git(&drop, &["commit", "-q", "-m", "drop lib"]);

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    assert!(!git_merge_tree(&sb, &repo, "berth/keep", "berth/drop").0);
    assert_eq!(
        overview["forecast"]["conflicts"],
        serde_json::json!([{"worktrees": ["keep", "drop"], "file": "src/lib.rs", "lines": []}]),
        "{overview}"
    );
    assert_eq!(overview["forecast"]["overlaps"], serde_json::json!([]));
}

#[test]
fn collect_names_every_conflicting_region_of_a_file() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let readme = ten_lines(&sb, &repo);
    let a = sb.add(&repo, &["a"]);
    let ours = readme
        .replace("line 2\n", "two\n")
        .replace("line 3\n", "three\n")
        .replace("line 8\n", "eight\n");
    sb.commit_file(&a, "README.md", &ours);
    let b = sb.add(&repo, &["b"]);
    let theirs = readme
        .replace("line 2\n", "2\n")
        .replace("line 3\n", "3\n")
        .replace("line 8\n", "8\n")
        .replace("line 10\n", "10\n");
    sb.commit_file(&b, "README.md", &theirs);

    let overview = sb.berth_json(&repo, &["collect", "--json"]);

    let conflicts = &overview["forecast"]["conflicts"];
    assert_eq!(
        conflicts[0]["lines"],
        serde_json::json!([{"start": 2, "end": 3}, {"start": 8, "end": 8}]),
        "line 10 is b's alone: {overview}"
    );
    let text = sb.berth_ok(&repo, &["collect"]);
    assert!(text.contains("README.md  lines 2-3, 8"), "{text}");
}

/// Every byte collect could touch: registry, refs, worktree list, and each index.
fn snapshot(sb: &Sandbox, repo: &Path, dirs: &[PathBuf]) -> Vec<String> {
    let mut out = vec![format!("{:?}", sb.state(repo))];
    for dir in dirs.iter().chain([&repo.to_owned()]) {
        out.push(sb.status(dir));
        let index = sb.git(
            dir,
            &["rev-parse", "--path-format=absolute", "--git-path", "index"],
        );
        let bytes = std::fs::read(index.trim()).unwrap_or_default();
        out.push(format!("{} {:?}", dir.display(), bytes));
    }
    out
}

#[test]
fn collect_changes_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let a = sb.add(&repo, &["a"]);
    sb.commit_file(&a, "README.md", "from a\n");
    std::fs::write(a.join("wip.txt"), "wip\n").unwrap();
    let b = sb.add(&repo, &["b"]);
    sb.commit_file(&b, "README.md", "from b\n");
    std::fs::write(b.join("src/lib.rs"), "modified\n").unwrap();
    sb.commit_file(&repo, "README.md", "from main\n");
    let dirs = [a.clone(), b.clone()];
    // git status may refresh an index; let it settle before taking the snapshot.
    let _ = snapshot(&sb, &repo, &dirs);
    let before = snapshot(&sb, &repo, &dirs);

    let out = sb.berth(&repo, &["collect", "--json"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let out = sb.berth(&a, &["collect"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!stdout(&out).is_empty());

    assert_eq!(snapshot(&sb, &repo, &dirs), before, "collect is read-only");
    let objects = sb.git(&repo, &["count-objects"]);
    let _ = sb.berth(&repo, &["collect", "--json"]);
    assert_eq!(
        sb.git(&repo, &["count-objects"]),
        objects,
        "the in-memory merge writes no loose objects"
    );
}

#[test]
fn collect_with_no_worktrees_prints_an_empty_overview() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let overview = sb.berth_json(&repo, &["collect", "--json"]);
    let out = sb.berth(&repo, &["collect"]);

    assert_eq!(overview["worktrees"], Value::Array(vec![]));
    assert_eq!(overview["conflicts"], Value::Array(vec![]));
    assert!(out.status.success());
    assert_eq!(stdout(&out), "", "the note goes to stderr");
}

#[test]
fn collect_lists_only_the_worktrees_own_work_after_it_rebases_onto_main() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["topic"]);
    sb.commit_file(&repo, "main.txt", "landed meanwhile\n");
    sb.commit_file(&wt, "topic.txt", "my work\n");
    sb.git(&wt, &["rebase", "-q", "main"]);

    let overview = sb.berth_json(&repo, &["collect", "--json"]);
    let list_ahead = sb.list_row(&repo, "topic")["ahead"].clone();

    let w = work(&overview, "topic");
    let subjects: Vec<&str> = w["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(list_ahead, 1, "list counts from the base's current tip");
    assert_eq!(
        subjects,
        ["change topic.txt"],
        "main's own commit is not the worktree's work to merge back"
    );
    assert_eq!(w["ahead"], 1, "collect agrees with list");
}

// ---- What a person reads (issue 12, item 4) ----

#[test]
fn collect_aligns_its_columns_and_names_worktrees_with_nothing_to_merge_on_one_line() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let short = sb.add(&repo, &["a"]);
    sb.commit_file(&short, "a.txt", "a\n");
    let long = sb.add(&repo, &["a-much-longer-name"]);
    sb.commit_file(&long, "b.txt", "b\n");
    sb.commit_file(&long, "c.txt", "c\n");
    sb.add(&repo, &["idle"]);
    sb.add(&repo, &["spare"]);

    let text = sb.berth_ok(&repo, &["collect"]);

    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"))
    };
    let (a, long) = (line("a"), line("a-much-longer-name"));
    for word in ["berth/", "commit", "no upstream", "merges cleanly"] {
        assert_eq!(a.find(word), long.find(word), "{word} is aligned:\n{text}");
    }
    assert!(a.contains("1 commit "), "{text}");
    assert!(long.contains("2 commits"), "{text}");
    assert!(
        text.lines().any(|l| l == "nothing to merge: idle, spare"),
        "{text}"
    );
    assert!(!text.contains("idle "), "no line of its own: {text}");
}

#[test]
fn collect_says_when_a_branch_has_no_upstream() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    let local = sb.add(&repo, &["local"]);
    sb.commit_file(&local, "l.txt", "l\n");
    let pushed = sb.add(&repo, &["pushed"]);
    sb.commit_file(&pushed, "p.txt", "p\n");
    sb.git(&pushed, &["push", "-q", "-u", "origin", "berth/pushed"]);

    let text = sb.berth_ok(&repo, &["collect"]);

    let line = |name: &str| text.lines().find(|l| l.starts_with(name)).unwrap();
    assert!(line("local").contains("no upstream"), "{text}");
    assert!(line("pushed").contains("pushed"), "{text}");
    assert!(!line("pushed").contains("no upstream"), "{text}");
}

#[test]
fn collect_in_gits_pager_is_coloured_and_cut_to_the_width() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["wt"]);
    commit(
        &sb,
        &wt,
        "a subject far longer than the forty columns this terminal has",
    );
    let mut cmd = sb.berth_command(&repo, &["collect"]);
    cmd.env("GIT_PAGER_IN_USE", "true")
        .env("COLUMNS", "40")
        .env("TERM", "xterm")
        .env("LC_ALL", "C.UTF-8");

    let text = stdout(&cmd.output().unwrap());

    assert!(text.contains("\x1b["), "{text}");
    let subject = text.lines().find(|l| l.contains("a subject")).unwrap();
    assert_eq!(subject.chars().count(), 40, "{text}");
    assert!(subject.ends_with('…'), "{text}");
    let piped = sb.berth_ok(&repo, &["collect"]);
    assert!(!piped.contains('\x1b') && !piped.contains('…'), "{piped}");
}

#[test]
fn a_squash_merged_worktree_reads_as_landed_not_as_work_to_merge() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let squashed = sb.add(&repo, &["squashed"]);
    sb.commit_file(&squashed, "squashed.txt", "one\n");
    sb.commit_file(&squashed, "squashed.txt", "one\ntwo\n");
    sb.git(&repo, &["merge", "-q", "--squash", "berth/squashed"]);
    sb.git(&repo, &["commit", "-q", "-m", "squashed work"]);
    let open = sb.add(&repo, &["open"]);
    sb.commit_file(&open, "open.txt", "new\n");
    // It also changed squashed.txt: against the trunk, which holds that work, that is no overlap.
    sb.commit_file(&open, "squashed.txt", "other\n");

    let report = sb.berth_json(&repo, &["collect", "--json"]);
    assert_eq!(work(&report, "squashed")["merged"], true, "{report}");
    assert_eq!(work(&report, "open")["merged"], false, "{report}");
    assert_eq!(report["conflicts"], serde_json::json!([]), "{report}");
    assert_eq!(
        report["forecast"]["conflicts"],
        serde_json::json!([]),
        "{report}"
    );
    assert_eq!(
        report["forecast"]["overlaps"],
        serde_json::json!([]),
        "{report}"
    );
    let text = sb.berth_ok(&repo, &["collect"]);
    let line = text.lines().find(|l| l.contains("squashed")).unwrap();
    assert!(line.contains("landed on main"), "{text}");
    assert!(!line.contains("merges cleanly"), "{text}");
}
