//! Sweep: remove every managed worktree that holds nothing of value (clean, merged into the trunk,
//! not held by a live claim, not locked, not the one you stand in), and keep every other one,
//! saying why. Branches are kept, as `remove` keeps them.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::judge::{self, Judge, Scope, Verdict};
use crate::inventory;
use crate::registry::Locked;
use crate::repo::Context;

#[derive(Debug, Serialize)]
pub struct Report {
    pub worktrees: Vec<Outcome>,
    pub removed: usize,
    pub kept: usize,
    pub dry_run: bool,
}

/// What `clean` did with a worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verb {
    #[serde(rename = "removed")]
    Removed,
    /// With `--dry-run`.
    #[serde(rename = "would remove")]
    WouldRemove,
    #[serde(rename = "kept")]
    Kept,
}

impl Verb {
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Removed => "removed",
            Verb::WouldRemove => "would remove",
            Verb::Kept => "kept",
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Outcome {
    pub name: String,
    pub path: PathBuf,
    pub branch: String,
    pub outcome: Verb,
    /// Why it was kept: `dirty`, `unmerged`, `claimed by <session>`, `locked`, `current`,
    /// `missing`; null when removed.
    pub reason: Option<String>,
}

/// Judge every managed worktree and, unless `dry_run`, remove those that hold nothing of value.
/// Runs under the registry lock the caller holds (`add` calls it when no port block is free).
pub fn sweep(ctx: &Context, locked: &mut Locked, dry_run: bool) -> Result<Vec<Outcome>> {
    let judge = Judge::new(ctx)?;
    let registry = locked.registry.clone();
    let mut outcomes = Vec::new();
    for entry in inventory::entries(ctx, &registry, false)? {
        let record = entry.record.clone().expect("managed");
        let kept = if record.creating.is_some() {
            Some("creating".to_owned())
        } else if !entry.present {
            Some("missing".to_owned())
        } else {
            let facts = judge::facts(ctx, &entry, &judge, Scope::Clean)?;
            reason(&judge::verdict(&facts, false))
        };
        let outcome = match (&kept, dry_run) {
            (Some(_), _) => Verb::Kept,
            (None, true) => Verb::WouldRemove,
            (None, false) => {
                super::remove::carry_out(ctx, locked, &entry, false, false)?;
                Verb::Removed
            }
        };
        outcomes.push(Outcome {
            name: entry.name,
            path: entry.path,
            branch: record.branch,
            outcome,
            reason: kept,
        });
    }
    Ok(outcomes)
}

/// Why a worktree stays, in the words `clean` prints.
pub fn reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Remove => None,
        Verdict::Locked(_) => Some("locked".to_owned()),
        Verdict::Inside => Some("current".to_owned()),
        Verdict::Claimed(session) => Some(format!("claimed by {session}")),
        Verdict::Dirty => Some("dirty".to_owned()),
        Verdict::Unmerged { .. } => Some("unmerged".to_owned()),
    }
}

/// `clean`: sweep under one lock (a worktree claimed meanwhile is seen as claimed) and count.
pub fn clean(ctx: &Context, dry_run: bool) -> Result<Report> {
    let mut locked = if dry_run {
        crate::registry::Store::new(ctx.state_dir()).lock()?
    } else {
        super::lock(ctx)?
    };
    let outcomes = sweep(ctx, &mut locked, dry_run)?;
    drop(locked);
    let kept = outcomes.iter().filter(|o| o.reason.is_some()).count();
    Ok(Report {
        removed: outcomes.len() - kept,
        kept,
        dry_run,
        worktrees: outcomes,
    })
}
