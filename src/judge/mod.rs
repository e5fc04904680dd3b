//! A pipeline's judge: it reads each candidate's work (its diff since its base and its final
//! message), asks the judge command to pick one, checks the answer, and records it as review
//! verdicts so that `git berth ship` lands the winner through the gate.
//!
//! Pure parts (the diff's text, the prompt, reading the verdict) are apart from the effects
//! (reading worktrees, running the command, writing files and verdicts). It takes plain inputs
//! and knows nothing of manifests or of the runner that calls it.

pub mod diff;
pub mod prompt;
pub mod record;
pub mod run;
pub mod verdict;

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use serde::Serialize;

pub use record::{record, session};
pub use run::{Ran, Running};
pub use verdict::Verdict;

/// The cap on one candidate's diff in the prompt when the pipeline gives none, in bytes.
pub const DEFAULT_MAX_DIFF: usize = 12_000;

/// How many lines of a `shell` agent's output stand for its final message.
pub const SHELL_MESSAGE_LINES: usize = 20;

/// One candidate as the caller knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The agent's name: what the judge names as its winner.
    pub name: String,
    /// The worktree it worked in.
    pub worktree: PathBuf,
    /// The branch that worktree is on.
    pub branch: String,
    /// The ref or commit the worktree started from.
    pub base: String,
    /// Its final message: the headless runtime's result text, or a `shell` agent's last lines
    /// of output ([`last_lines`]).
    pub message: String,
}

/// A candidate with its work read: what the judge is shown.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub name: String,
    pub worktree: PathBuf,
    pub branch: String,
    pub base: String,
    /// The unified diff since the base, cut at the cap.
    pub diff: String,
    pub message: String,
    /// The worktree's HEAD when its diff was read: the commit a verdict is given for.
    #[serde(skip)]
    pub head: gix::ObjectId,
}

/// Read `candidate`'s work: its changes since its base, committed or not, as a unified diff of
/// at most `max_diff` bytes.
pub fn read(candidate: &Candidate, max_diff: usize) -> Result<Entry> {
    let changes = crate::git::diff::since(&candidate.worktree, &candidate.base)
        .with_context(|| format!("cannot read the work of candidate '{}'", candidate.name))?;
    let text = diff::render(&changes.files);
    Ok(Entry {
        name: candidate.name.clone(),
        worktree: candidate.worktree.clone(),
        branch: candidate.branch.clone(),
        base: candidate.base.clone(),
        diff: diff::cut(&text, max_diff),
        message: candidate.message.clone(),
        head: changes.head,
    })
}

/// The last `n` lines of a log, without the blank lines it ends with: a `shell` agent's final
/// message. Pure.
pub fn last_lines(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The candidates as the JSON a program judge reads from the file named by
/// `BERTH_JUDGE_CANDIDATES`: `[{name, worktree, branch, base, diff, message}]`. Pure.
pub fn candidates_json(entries: &[Entry]) -> String {
    serde_json::to_string_pretty(entries).expect("candidates always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        crate::testing::git(dir, args)
    }

    /// A repository on `main` and a linked worktree on `work` started from it.
    fn repo_and_worktree(test: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("berth-judge-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let repo = root.join("repo");
        fs::create_dir_all(&repo).unwrap();
        let root = gix::path::realpath(&root).unwrap();
        let repo = root.join("repo");
        git(&repo, &["init", "-q"]);
        fs::write(repo.join("kept.txt"), "one\ntwo\nthree\n").unwrap();
        fs::write(repo.join("gone.txt"), "bye\n").unwrap();
        fs::write(repo.join("same.txt"), "untouched\n").unwrap();
        fs::write(repo.join(".gitignore"), "*.log\n").unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let wt = root.join("wt");
        git(
            &repo,
            &["worktree", "add", "-q", "-b", "work", wt.to_str().unwrap()],
        );
        (repo, wt)
    }

    #[test]
    fn a_candidates_diff_holds_its_commits_its_uncommitted_changes_and_untracked_files() {
        let (repo, wt) = repo_and_worktree("read");
        // Committed in the worktree.
        fs::write(wt.join("kept.txt"), "one\nTWO\nthree\n").unwrap();
        git(&wt, &["commit", "-q", "-am", "two"]);
        // Uncommitted: a deletion, a staged new file, an untracked one, a binary, an ignored one.
        fs::remove_file(wt.join("gone.txt")).unwrap();
        fs::write(wt.join("staged.txt"), "staged\n").unwrap();
        git(&wt, &["add", "staged.txt"]);
        fs::create_dir_all(wt.join("new")).unwrap();
        fs::write(wt.join("new/untracked.txt"), "fresh\n").unwrap();
        fs::write(wt.join("logo.png"), [0x89, b'P', 0, 0]).unwrap();
        fs::write(wt.join("build.log"), "ignored\n").unwrap();
        // The base branch moves on after the worktree started: none of that shows.
        fs::write(repo.join("same.txt"), "changed on main\n").unwrap();
        git(&repo, &["commit", "-q", "-am", "main moves"]);

        let candidate = Candidate {
            name: "claude".into(),
            worktree: wt.clone(),
            branch: "work".into(),
            base: "main".into(),
            message: "done".into(),
        };
        let entry = read(&candidate, DEFAULT_MAX_DIFF).unwrap();
        assert_eq!(
            entry.head.to_string(),
            git(&wt, &["rev-parse", "HEAD"]).trim()
        );
        let diff = &entry.diff;
        assert!(
            diff.contains("--- a/kept.txt\n+++ b/kept.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n"),
            "{diff}"
        );
        assert!(
            diff.contains("deleted file\n--- a/gone.txt\n+++ /dev/null\n"),
            "{diff}"
        );
        assert!(
            diff.contains("+++ b/staged.txt\n@@ -0,0 +1 @@\n+staged\n"),
            "{diff}"
        );
        assert!(
            diff.contains("+++ b/new/untracked.txt\n@@ -0,0 +1 @@\n+fresh\n"),
            "{diff}"
        );
        assert!(
            diff.contains("Binary file logo.png added (4 bytes)\n"),
            "{diff}"
        );
        assert!(
            !diff.contains("build.log"),
            "ignored files stay out: {diff}"
        );
        assert!(
            !diff.contains("same.txt"),
            "the base's later commits stay out: {diff}"
        );

        let short = read(&candidate, 60).unwrap();
        assert!(short.diff.len() < 120, "{}", short.diff);
        assert!(
            short
                .diff
                .ends_with(&format!(" bytes of {} ...]\n", diff.len())),
            "{}",
            short.diff
        );
        fs::remove_dir_all(repo.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_base_that_names_no_commit_is_an_error_naming_the_candidate() {
        let (repo, wt) = repo_and_worktree("nobase");
        let candidate = Candidate {
            name: "codex".into(),
            worktree: wt,
            branch: "work".into(),
            base: "no-such-branch".into(),
            message: String::new(),
        };
        let err = read(&candidate, 100).unwrap_err();
        assert_eq!(err.to_string(), "cannot read the work of candidate 'codex'");
        assert!(
            format!("{err:#}").contains("'no-such-branch' names no commit"),
            "{err:#}"
        );
        fs::remove_dir_all(repo.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_shell_agents_message_is_its_last_lines_without_trailing_blanks() {
        let log = "one\ntwo\nthree\nfour\n\n\n";
        assert_eq!(last_lines(log, 2), "three\nfour");
        assert_eq!(last_lines(log, 10), "one\ntwo\nthree\nfour");
        assert_eq!(last_lines("", 3), "");
        assert_eq!(last_lines("only", 0), "");
    }

    #[test]
    fn the_candidates_json_holds_the_fields_a_program_judge_reads() {
        let entry = Entry {
            name: "a".into(),
            worktree: "/w/a".into(),
            branch: "berth/p/a".into(),
            base: "main".into(),
            diff: "+x\n".into(),
            message: "done".into(),
            head: gix::ObjectId::null(gix::hash::Kind::Sha1),
        };
        let json: serde_json::Value = serde_json::from_str(&candidates_json(&[entry])).unwrap();
        let keys: Vec<&str> = json[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["name", "worktree", "branch", "base", "diff", "message"]
        );
        assert_eq!(json[0]["diff"], "+x\n");
    }
}
