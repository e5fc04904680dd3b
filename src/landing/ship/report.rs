//! What `ship` is asked and what it answers: the request, the report `--json` prints and each
//! worktree's outcome. Plain data; it never reads the repository or says anything on stderr.

use std::path::PathBuf;

use serde::Serialize;

use crate::error::Refusal;
use crate::git::land::Strategy;
use crate::landing::forecast;
use crate::ownership::FileOwner;

/// What to land and how.
#[derive(Debug, Clone)]
pub struct Request {
    /// Worktrees to land, in this order; empty with `all_approved` (or for the one you stand in).
    pub names: Vec<String>,
    pub all_approved: bool,
    pub strategy: Strategy,
    /// The gate command (`--gate`), before `berth.gate` and the gate hook.
    pub gate: Option<String>,
    /// Keep the worktree, its branch and its port block after landing.
    pub keep: bool,
    pub dry_run: bool,
    /// The landing commit's message (`--message`), instead of the one made from the branch.
    pub message: Option<String>,
}

/// What `ship --json` prints.
#[derive(Debug, Serialize)]
pub struct Report {
    pub trunk: String,
    pub dry_run: bool,
    /// The worktrees in the order they were (or would be) landed.
    pub order: Vec<String>,
    /// Pairs of candidates whose changes conflict with each other (`collect`'s forecast).
    pub forecast: Vec<forecast::Pair>,
    pub worktrees: Vec<Outcome>,
    /// How many landed: always 0 in a dry run, which counts `would_land` instead.
    pub landed: usize,
    pub would_land: usize,
    pub refused: usize,
}

/// What happened to one worktree.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub name: String,
    pub branch: String,
    /// `landed`, `would land` or `refused`.
    pub outcome: &'static str,
    /// Why it was refused.
    pub reason: Option<String>,
    /// The files its candidate conflicts on.
    pub conflicts: Vec<String>,
    /// The live owners of those files, where a worktree owns one (`git berth own`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflict_owners: Vec<FileOwner>,
    pub strategy: Strategy,
    pub old_tip: Option<String>,
    pub new_tip: Option<String>,
    pub reviewer: Option<String>,
    /// `passed`, `failed` or `none`.
    pub gate: &'static str,
    /// The gate's output, kept when it failed.
    pub gate_log: Option<PathBuf>,
    /// How many times the candidate was built (more than one when the trunk moved meanwhile).
    pub attempts: usize,
    /// The worktree stays (`--keep`, or it changed after its review); why, if so.
    pub kept: Option<String>,
}

impl Outcome {
    pub(super) fn new(name: &str, branch: &str, strategy: Strategy) -> Self {
        Outcome {
            name: name.to_owned(),
            branch: branch.to_owned(),
            outcome: "refused",
            reason: None,
            conflicts: Vec::new(),
            conflict_owners: Vec::new(),
            strategy,
            old_tip: None,
            new_tip: None,
            reviewer: None,
            gate: "none",
            gate_log: None,
            attempts: 0,
            kept: None,
        }
    }

    pub(super) fn refused(mut self, refusal: &Refusal) -> Self {
        self.outcome = "refused";
        self.reason = Some(refusal.message.clone());
        self
    }
}
