//! `git berth pr-review` against a local bare remote that publishes a pull request's head as
//! GitHub does (`refs/pull/7/head`), with stand-in `claude` and `codex` runtimes and a recording
//! stand-in `gh` on PATH: the head is fetched, every agent works at it, the review lands in the
//! run's folder and is posted as the pull request's comment.

use crate::common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use common::{Sandbox, outputs};

/// A stand-in runtime: it records the commit its worktree is at, then writes the review file
/// its prompt names last (`Write ... to <shared folder>/review*.md`).
const AGENT: &str = r#"#!/bin/sh
git rev-parse HEAD >> "$BERTH_FLEET_DIR/heads"
for last; do :; done
out=$(printf '%s\n' "$last" | grep -o "$BERTH_FLEET_DIR/review[a-z-]*\.md" | tail -n 1)
test -n "$out" || { echo "no review file in the prompt" >&2; exit 2; }
printf 'Looks good, from %s.\n' "$(basename "$0")" > "$out"
"#;

/// A stand-in gh: it logs its arguments and the body it was given.
const GH: &str = r#"#!/bin/sh
printf '%s\n' "$*" >> "$GH_LOG"
case "$*" in *--body-file*) for last; do :; done; cat "$last" >> "$GH_LOG";; esac
"#;

fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A repository whose origin holds pull request 7's head, a commit the repository's branches do
/// not have; the head's id.
fn repo_with_pr(sb: &Sandbox) -> (PathBuf, String) {
    let repo = sb.repo("app");
    sb.add_origin(&repo);
    sb.git(&repo, &["push", "-q", "origin", "main"]);
    sb.git(&repo, &["checkout", "-q", "-b", "feature"]);
    sb.commit_file(&repo, "feature.rs", "fn feature() {}\n");
    let head = sb.rev(&repo, "HEAD");
    sb.git(&repo, &["push", "-q", "origin", "HEAD:refs/pull/7/head"]);
    sb.git(&repo, &["checkout", "-q", "main"]);
    sb.git(&repo, &["branch", "-q", "-D", "feature"]);
    (repo, head)
}

#[test]
fn pr_review_runs_the_dual_preset_at_the_pull_requests_head_and_posts_the_review_with_gh() {
    let sb = Sandbox::new();
    let (repo, head) = repo_with_pr(&sb);
    let bin = sb.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["claude", "codex"] {
        let path = bin.join(name);
        script(&path, AGENT);
        sb.git(
            &repo,
            &[
                "config",
                &format!("berth.runtime.{name}.command"),
                path.to_str().unwrap(),
            ],
        );
    }
    script(&bin.join("gh"), GH);
    let log = sb.root.join("gh.log");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let out = sb
        .berth_command(&repo, &["pr-review", "--pr", "7"])
        .env("PATH", &path)
        .env("GH_LOG", &log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", outputs(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("posted the review on pull request 7"),
        "{said}"
    );

    assert_eq!(sb.rev(&repo, "refs/berth/pr/7"), head);
    let runs = sb.berth_json(&repo, &["pipeline", "runs", "--json"]);
    let run = &runs["runs"][0];
    assert_eq!(run["pipeline"], "pr-review-dual", "{runs}");
    assert_eq!(run["state"], "done", "{runs}");
    let shared = Path::new(run["folder"].as_str().unwrap()).join("shared");
    let heads = std::fs::read_to_string(shared.join("heads")).unwrap();
    let heads: Vec<&str> = heads.lines().collect();
    assert_eq!(heads.len(), 3, "every agent ran once: {heads:?}");
    assert!(
        heads.iter().all(|h| *h == head),
        "every worktree starts at the pull request's head {head}: {heads:?}"
    );
    for file in ["review-claude.md", "review-codex.md"] {
        assert!(shared.join(file).is_file(), "{file} is missing");
    }
    let review = std::fs::read_to_string(shared.join("review.md")).unwrap();
    assert_eq!(review, "Looks good, from codex.\n");

    let gh = std::fs::read_to_string(&log).unwrap();
    let first = gh.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("pr comment 7 --body-file "),
        "gh was called as: {gh}"
    );
    assert!(gh.ends_with("Looks good, from codex.\n"), "{gh}");
}

#[test]
fn an_unknown_preset_is_refused_naming_the_presets_there_are() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let dir = sb.home().join(".config/git-berth/pipelines/reviews");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("strict.yaml"), "name: strict\n").unwrap();
    let err = sb.berth_err(&repo, &["pr-review", "--preset", "nosuch", "--pr", "7"]);
    assert!(
        err.contains("no review preset 'nosuch': the presets are claude, codex, dual, fix, strict"),
        "{err}"
    );
}

#[test]
fn a_pull_request_the_remote_does_not_have_is_refused_and_leaves_no_run() {
    let sb = Sandbox::new();
    let (repo, _) = repo_with_pr(&sb);
    let err = sb.berth_err(&repo, &["pr-review", "--pr", "8"]);
    assert!(
        err.contains("cannot fetch pull request 8 from origin"),
        "{err}"
    );
    let runs = sb.berth_json(&repo, &["pipeline", "runs", "--json"]);
    assert_eq!(runs["runs"].as_array().unwrap().len(), 0, "{runs}");
}

/// A person's own preset, `quick`: a shell agent writes the commit it is at as the review.
fn quick_preset(sb: &Sandbox) {
    let dir = sb.home().join(".config/git-berth/pipelines/reviews");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("quick.yaml"),
        "name: quick\ninputs:\n  - name: repo\n    infer: repo\n  - name: pr\n    infer: pr\n\
         stages:\n  - name: review\n    agents:\n      - name: look\n        type: shell\n        \
         prompt: \"git rev-parse HEAD > ${fleet_dir}/review.md\"\n",
    )
    .unwrap();
}

#[test]
fn a_persons_own_preset_runs_and_without_gh_the_review_stays_in_the_run_folder() {
    let sb = Sandbox::new();
    let (repo, head) = repo_with_pr(&sb);
    quick_preset(&sb);
    // PATH without any gh: the folders of git and sh only.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::env::split_paths(&path).filter(|d| !d.join("gh").exists()))
            .unwrap();
    let out = sb
        .berth_command(&repo, &["pr-review", "--preset", "quick", "--pr", "7"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", outputs(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    let runs = sb.berth_json(&repo, &["pipeline", "runs", "--json"]);
    let review = Path::new(runs["runs"][0]["folder"].as_str().unwrap()).join("shared/review.md");
    assert!(
        said.contains(&format!(
            "gh is not installed, so the review was not posted; it is at {}",
            review.display()
        )),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&review).unwrap().trim(), head);
}

#[test]
fn a_merge_request_published_as_gitlab_does_is_fetched_too() {
    let sb = Sandbox::new();
    let (repo, head) = repo_with_pr(&sb);
    sb.git(
        &repo,
        &[
            "push",
            "-q",
            "origin",
            &format!("{head}:refs/merge-requests/9/head"),
        ],
    );
    quick_preset(&sb);
    let out = sb.berth(&repo, &["pr-review", "--preset", "quick", "--pr", "9"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(sb.rev(&repo, "refs/berth/pr/9"), head);
}
