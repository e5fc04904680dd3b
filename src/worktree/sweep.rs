//! Sweep: remove every managed worktree that holds nothing of value (clean, merged into the trunk,
//! not held by a live claim, not locked, not the one you stand in), and keep every other one,
//! saying why. Branches are kept, as `remove` keeps them. A removal cut short earlier is finished;
//! a worktree that cannot be judged or removed is kept with the reason, and the sweep goes on.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::judge::{self, Judge, Scope};
use crate::inventory;
use crate::registry::{Locked, Record};
use crate::repo::Context;

#[derive(Debug, Serialize)]
pub struct Report {
    pub worktrees: Vec<Outcome>,
    pub removed: usize,
    /// With `--dry-run`: how many it would remove (`removed` is then 0).
    pub would_remove: usize,
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
    /// `missing`, `broken: <why>`, or the error that stopped its removal; null when removed.
    pub reason: Option<String>,
}

impl Outcome {
    fn removed(record: &Record, dry_run: bool) -> Self {
        Outcome {
            name: record.name.clone(),
            path: record.path.clone(),
            branch: record.branch.clone(),
            outcome: if dry_run {
                Verb::WouldRemove
            } else {
                Verb::Removed
            },
            reason: None,
        }
    }
}

/// Judge every managed worktree and, unless `dry_run`, remove those that hold nothing of value.
/// Runs under the registry lock the caller holds (`add` calls it when no port block is free).
pub fn sweep(
    ctx: &Context,
    locked: &mut Locked,
    dry_run: bool,
    delete_branch: bool,
    scope: Scope,
) -> Result<Vec<Outcome>> {
    let judge = Judge::new(ctx)?;
    let registry = locked.registry.clone();
    let mut outcomes = Vec::new();
    for entry in inventory::entries(ctx, &registry, false)? {
        let record = entry.record.clone().expect("managed");
        // A removal cut short is finished: it was judged already, and half of it is gone.
        if locked.is_removing(&record) && super::remove::cut_short(&record) {
            let finished = if dry_run {
                Ok(())
            } else {
                super::remove::finish_one(ctx, locked, &record)
            };
            outcomes.push(match finished {
                Ok(()) => Outcome::removed(&record, dry_run),
                Err(err) => kept(&record, crate::error::render(&err).0),
            });
            continue;
        }
        let kept_for = if record.creating.is_some() {
            Some("creating".to_owned())
        } else if !entry.present && entry.path.exists() {
            Some(format!("broken: {}", judge::broken_why(&entry.path)))
        } else if !entry.present {
            Some("missing".to_owned())
        } else {
            match judge::facts(ctx, &entry, &judge, scope) {
                Ok(facts) => {
                    let all = judge::reasons(&facts);
                    (!all.is_empty()).then(|| all.join(", "))
                }
                // One worktree that cannot be judged is kept; the others are still swept.
                Err(err) => Some(crate::error::render(&err).0),
            }
        };
        if let Some(why) = kept_for {
            outcomes.push(kept(&record, why));
            continue;
        }
        if dry_run {
            outcomes.push(Outcome::removed(&record, true));
            continue;
        }
        outcomes.push(
            match super::remove::carry_out(ctx, locked, &entry, false, delete_branch) {
                Ok(_) => Outcome::removed(&record, false),
                Err(err) => kept(&record, crate::error::render(&err).0),
            },
        );
    }
    Ok(outcomes)
}

fn kept(record: &Record, reason: String) -> Outcome {
    Outcome {
        name: record.name.clone(),
        path: record.path.clone(),
        branch: record.branch.clone(),
        outcome: Verb::Kept,
        reason: Some(reason),
    }
}

/// `clean`: sweep under one lock (a worktree claimed meanwhile is seen as claimed) and count.
/// Removals cut short earlier are finished first, and counted as removed.
pub fn clean(ctx: &Context, dry_run: bool, delete_branch: bool) -> Result<Report> {
    let (mut locked, finished) = if dry_run {
        (
            crate::registry::Store::new(ctx.state_dir()).lock()?,
            Vec::new(),
        )
    } else {
        super::lock_reporting(ctx)?
    };
    if !dry_run && !locked.registry.worktrees.is_empty() {
        let ports = locked.registry.worktrees.iter().any(|r| r.ports.is_some());
        super::remove::check_state_writable(&locked, ports)?;
    }
    let mut outcomes: Vec<Outcome> = finished
        .iter()
        .map(|r| Outcome::removed(r, false))
        .collect();
    outcomes.extend(sweep(
        ctx,
        &mut locked,
        dry_run,
        delete_branch,
        Scope::Clean,
    )?);
    drop(locked);
    let kept = outcomes.iter().filter(|o| o.reason.is_some()).count();
    let going = outcomes.len() - kept;
    // A dry run removes nothing: what it would remove is counted apart.
    Ok(Report {
        removed: if dry_run { 0 } else { going },
        would_remove: if dry_run { going } else { 0 },
        kept,
        dry_run,
        worktrees: outcomes,
    })
}
