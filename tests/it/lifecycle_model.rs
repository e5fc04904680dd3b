//! The registry's lifecycle as a state machine: random sequences of add, commit, leave a file,
//! claim, release, clean, remove, remove --delete-branch and a session's death (its process killed),
//! run for real by several sessions on one repository, checked after every step against a model
//! of what each worktree holds. Whatever the sequence: the registry parses, `git worktree list`
//! agrees with it, no worktree or branch that holds work was deleted, and every commit made is
//! still on a branch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::common::{self, Agent, Sandbox};

const NAMES: [&str; 3] = ["a", "b", "c"];
const SESSIONS: usize = 2;

#[derive(Debug, Clone)]
enum Op {
    Add(usize, usize),
    Commit(usize),
    LeaveFile(usize),
    Clean(usize),
    Claim(usize, usize),
    Release(usize, usize),
    Remove(usize, usize),
    RemoveWithBranch(usize, usize),
    Die(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let name = 0..NAMES.len();
    let session = 0..SESSIONS;
    prop_oneof![
        3 => (name.clone(), session.clone()).prop_map(|(n, s)| Op::Add(n, s)),
        2 => name.clone().prop_map(Op::Commit),
        1 => name.clone().prop_map(Op::LeaveFile),
        1 => session.clone().prop_map(Op::Clean),
        1 => (name.clone(), session.clone()).prop_map(|(n, s)| Op::Claim(n, s)),
        1 => (name.clone(), session.clone()).prop_map(|(n, s)| Op::Release(n, s)),
        2 => (name.clone(), session.clone()).prop_map(|(n, s)| Op::Remove(n, s)),
        1 => (name, session.clone()).prop_map(|(n, s)| Op::RemoveWithBranch(n, s)),
        1 => session.prop_map(Op::Die),
    ]
}

/// What the model knows of one worktree berth made.
#[derive(Debug, Default, Clone)]
struct Held {
    path: PathBuf,
    branch: String,
    /// Commits made in it that are on no other branch (none lands here).
    commits: Vec<String>,
    /// Untracked files left in it.
    files: usize,
}

struct World {
    sb: Sandbox,
    repo: PathBuf,
    sessions: Vec<Agent>,
    model: BTreeMap<&'static str, Held>,
    /// Every commit made, with the branch it was made on.
    made: Vec<(String, String)>,
    step: usize,
}

impl World {
    fn new() -> Self {
        let sb = Sandbox::new();
        let repo = sb.repo("app");
        World {
            sessions: (0..SESSIONS).map(|_| Agent::spawn()).collect(),
            sb,
            repo,
            model: BTreeMap::new(),
            made: Vec::new(),
            step: 0,
        }
    }

    fn berth(&self, session: usize, args: &[&str]) -> std::process::Output {
        self.sb.berth_as(
            &self.repo,
            &format!("s{session}"),
            self.sessions[session].pid(),
            args,
        )
    }

    fn apply(&mut self, op: &Op) {
        self.step += 1;
        match *op {
            Op::Add(n, s) => {
                let out = self.berth(s, &["add", NAMES[n], "--json"]);
                if out.status.success() {
                    let added: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                    let held = self.model.entry(NAMES[n]).or_default();
                    held.path = PathBuf::from(added["path"].as_str().unwrap());
                    held.branch = added["branch"].as_str().unwrap().to_owned();
                }
            }
            Op::Commit(n) => {
                let Some(held) = self.model.get_mut(NAMES[n]).filter(|h| h.path.is_dir()) else {
                    return;
                };
                let file = format!("work-{}.txt", self.step);
                self.sb.commit_file(&held.path, &file, "work\n");
                let head = self.sb.rev(&held.path, "HEAD");
                held.commits.push(head.clone());
                self.made.push((head, held.branch.clone()));
            }
            Op::LeaveFile(n) => {
                if let Some(held) = self.model.get_mut(NAMES[n]).filter(|h| h.path.is_dir()) {
                    std::fs::write(held.path.join(format!("left-{}.txt", self.step)), "x").unwrap();
                    held.files += 1;
                }
            }
            Op::Claim(n, s) => drop(self.berth(s, &["claim", NAMES[n]])),
            Op::Release(n, s) => drop(self.berth(s, &["release", NAMES[n]])),
            Op::Clean(s) => {
                let out = self.berth(s, &["clean"]);
                assert!(out.status.success(), "{}", common::outputs(&out));
                let gone: Vec<&'static str> = self
                    .model
                    .iter()
                    .filter(|(_, h)| !h.path.as_os_str().is_empty() && !h.path.exists())
                    .map(|(name, _)| *name)
                    .collect();
                for name in gone {
                    self.forget_removed(name, "clean");
                }
            }
            Op::Remove(n, s) => self.remove(n, s, false),
            Op::RemoveWithBranch(n, s) => self.remove(n, s, true),
            Op::Die(s) => {
                self.sessions[s].kill();
                self.sessions[s] = Agent::spawn();
            }
        }
    }

    fn remove(&mut self, n: usize, s: usize, delete_branch: bool) {
        let mut args = vec!["remove", NAMES[n]];
        if delete_branch {
            args.push("--delete-branch");
        }
        let out = self.berth(s, &args);
        let Some(held) = self.model.get(NAMES[n]) else {
            return;
        };
        if out.status.success() && !held.path.exists() {
            self.forget_removed(NAMES[n], "remove");
        }
    }

    /// A worktree `how` removed: without --force, only one that held nothing of value may go.
    fn forget_removed(&mut self, name: &'static str, how: &str) {
        let held = self.model.remove(name).unwrap_or_default();
        assert!(
            held.commits.is_empty() && held.files == 0,
            "step {}: {how} removed '{name}' holding {} unlanded commits and {} untracked files",
            self.step,
            held.commits.len(),
            held.files
        );
    }

    /// The invariants, after every step.
    fn check(&self) {
        let listed = self.sb.list_rows(&self.repo, false);
        let git_paths: Vec<PathBuf> = common::git_worktree_paths(&self.sb, &self.repo)
            .iter()
            .map(|p| real(p))
            .collect();
        for row in &listed {
            let path = real(Path::new(row["path"].as_str().unwrap()));
            assert!(
                git_paths.contains(&path),
                "step {}: berth lists {} but git has no such worktree",
                self.step,
                path.display()
            );
        }
        assert_eq!(
            listed.len() + 1,
            git_paths.len(),
            "step {}: every linked worktree is berth's, and berth lists each",
            self.step
        );
        for (name, held) in &self.model {
            if held.path.as_os_str().is_empty() {
                continue;
            }
            if !held.commits.is_empty() || held.files > 0 {
                assert!(
                    held.path.is_dir(),
                    "step {}: worktree '{name}' held work and is gone",
                    self.step
                );
            }
        }
        for (commit, branch) in &self.made {
            let out = self.sb.git_output(
                &self.repo,
                &["for-each-ref", "--contains", commit, "refs/heads/"],
            );
            assert!(
                !String::from_utf8_lossy(&out.stdout).trim().is_empty(),
                "step {}: commit {commit} made on {branch} is on no branch",
                self.step
            );
        }
    }
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

proptest! {
    // Each case runs real git and berth processes: a few cases of many steps.
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_sequence_of_lifecycle_commands_loses_work_or_disagrees_with_git(
        ops in proptest::collection::vec(op(), 10..30)
    ) {
        let mut world = World::new();
        for op in &ops {
            world.apply(op);
            world.check();
        }
    }
}
