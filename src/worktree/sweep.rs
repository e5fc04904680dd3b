//! Sweep: remove every managed worktree that holds nothing of value (clean, merged into the trunk,
//! not held by a live claim, not locked, not the one you stand in), and keep every other one,
//! saying why. Their branches are kept, as `remove` keeps them, unless asked. A removal cut short
//! earlier is finished; a worktree that cannot be judged or removed is kept with the reason, and
//! the sweep goes on. [`orphans`]: a branch under the prefix that no worktree has goes once its
//! work is all on the trunk, never before.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::judge::{self, Judge, Scope};
use crate::git::graph;
use crate::git::refs::Swap;
use crate::inventory;
use crate::names;
use crate::registry::{Locked, Record, Registry};
use crate::repo::Context;

#[derive(Debug, Serialize)]
pub struct Report {
    pub worktrees: Vec<Outcome>,
    /// Branches under the prefix that no worktree has: deleted when landed, else kept.
    pub branches: Vec<Orphan>,
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

/// What a sweep judged under the lock: an outcome for every worktree, and those that go, marked
/// as this process's to remove, to carry out once the lock is given back ([`Swept::carry_out`]).
#[must_use = "carry the removals out once the registry's lock is given back"]
pub struct Swept {
    outcomes: Vec<Outcome>,
    going: Vec<(usize, inventory::Managed, judge::Seen)>,
}

impl Swept {
    /// Remove each worktree judged to go, one by one, never under the registry's lock (their
    /// teardowns may take minutes); one that cannot be removed is kept with the reason.
    pub fn carry_out(mut self, ctx: &Context, delete_branch: bool) -> Vec<Outcome> {
        for (at, entry, seen) in &self.going {
            let record = &entry.record;
            self.outcomes[*at] =
                match super::remove::carry_out(ctx, entry, false, delete_branch, seen) {
                    Ok(super::remove::Carried::Removed(_)) => Outcome::removed(record, false),
                    Ok(super::remove::Carried::Kept(why)) => kept(record, why),
                    Err(err) => kept(record, crate::error::render(&err).0),
                };
        }
        self.outcomes
    }
}

/// Judge every managed worktree under the registry lock the caller holds and, unless `dry_run`,
/// mark those that hold nothing of value as this process's to remove (saved): the caller gives
/// the lock back, then carries them out. One a live process removes already is left to it.
pub fn sweep(ctx: &Context, locked: &mut Locked, dry_run: bool, scope: Scope) -> Result<Swept> {
    sweep_where(ctx, locked, dry_run, scope, &|_| true)
}

/// [`sweep`] of the worktrees `only` picks, the others left out of the outcomes.
fn sweep_where(
    ctx: &Context,
    locked: &mut Locked,
    dry_run: bool,
    scope: Scope,
    only: &dyn Fn(&Record) -> bool,
) -> Result<Swept> {
    let judge = Judge::new(ctx)?;
    let mut registry = locked.registry.clone();
    registry.worktrees.retain(only);
    let mut outcomes = Vec::new();
    let mut going = Vec::new();
    for entry in inventory::managed(ctx, &registry)? {
        let record = entry.record.clone();
        if let Some(pid) = locked.removed_by(&record) {
            outcomes.push(kept(&record, super::being_removed(&record, pid)));
            continue;
        }
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
        let mut seen = judge::Seen::default();
        let kept_for = if record.creating.is_some() {
            Some("creating".to_owned())
        } else if !entry.present && entry.path.exists() {
            Some(format!("broken: {}", judge::broken_why(&entry.path)))
        } else if !entry.present {
            Some("missing".to_owned())
        } else {
            match judge::facts(ctx, &entry, &judge, scope) {
                Ok(facts) => {
                    seen = facts.seen;
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
        outcomes.push(Outcome::removed(&record, dry_run));
        if !dry_run {
            locked.mark_removing(&record);
            going.push((outcomes.len() - 1, entry, seen));
        }
    }
    if !going.is_empty() {
        locked.save()?;
    }
    Ok(Swept { outcomes, going })
}

/// Make room for a new worktree's port block: remove the landed worktrees nobody holds, as
/// `clean` would, under the lock only to judge and mark them. Returns how many went.
pub fn make_room(ctx: &Context) -> Result<usize> {
    let mut locked = super::lock(ctx)?;
    let swept = sweep(ctx, &mut locked, false, Scope::MakeRoom)?;
    drop(locked);
    Ok(swept
        .carry_out(ctx, false)
        .iter()
        .filter(|o| o.reason.is_none())
        .count())
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

/// `clean`: judge and mark under one lock (a worktree claimed meanwhile is seen as claimed), then
/// remove the marked ones with the lock given back, and count. Removals cut short earlier are
/// finished first, and counted as removed.
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
    // The branches of the worktrees removed now are kept as said; a later clean judges them.
    // A removal cut short is no worktree (a dry run only has not finished it).
    let mut before = locked.registry.clone();
    for record in &locked.registry.worktrees {
        if locked.is_removing(record) && super::remove::cut_short(record) {
            before.remove(&record.name);
        }
    }
    let mut outcomes: Vec<Outcome> = finished
        .iter()
        .map(|r| Outcome::removed(r, false))
        .collect();
    let swept = sweep(ctx, &mut locked, dry_run, Scope::Clean)?;
    let branches = orphans(ctx, &before, dry_run)?;
    drop(locked);
    outcomes.extend(swept.carry_out(ctx, delete_branch));
    let kept = outcomes.iter().filter(|o| o.reason.is_some()).count();
    let going = outcomes.len() - kept;
    // A dry run removes nothing: what it would remove is counted apart.
    Ok(Report {
        removed: if dry_run { 0 } else { going },
        would_remove: if dry_run { going } else { 0 },
        kept,
        dry_run,
        worktrees: outcomes,
        branches,
    })
}

/// `clean` of the worktrees named `names` alone (a fleet's), judged as `clean` judges: each that
/// holds nothing of value is removed (its teardown run, its port block freed, with
/// `delete_branch` its landed branch deleted), every other kept with its reasons. A name berth
/// does not manage is left out of the outcomes.
pub fn clean_named(ctx: &Context, names: &[String], delete_branch: bool) -> Result<Vec<Outcome>> {
    let mut locked = super::lock(ctx)?;
    let mine = |r: &Record| names.contains(&r.name);
    if locked.registry.worktrees.iter().any(mine) {
        let ports = locked
            .registry
            .worktrees
            .iter()
            .any(|r| mine(r) && r.ports.is_some());
        super::remove::check_state_writable(&locked, ports)?;
    }
    let swept = sweep_where(ctx, &mut locked, false, Scope::Clean, &mine)?;
    drop(locked);
    Ok(swept.carry_out(ctx, delete_branch))
}

/// A branch under the prefix that no record names and no worktree has checked out: left by a
/// removal a kill cut short (a killed `ship`), or kept by an earlier `remove` or `clean`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Orphan {
    pub branch: String,
    pub tip: String,
    /// `deleted`, `would delete` or `kept`.
    pub outcome: &'static str,
    /// Why it is kept (`2 commits not on main`); null when it goes.
    pub reason: Option<String>,
}

/// Whether an orphan branch with `unlanded` commits of its own goes: only when all its work is
/// on the trunk (directly or squashed), so that nothing is lost. Pure.
pub fn orphan_kept_for(unlanded: usize, trunk: &str) -> Option<String> {
    (unlanded > 0).then(|| {
        format!(
            "{unlanded} commit{} not on {trunk}",
            if unlanded == 1 { "" } else { "s" }
        )
    })
}

/// Find the orphan branches and, unless `dry_run`, delete those whose work is all landed, each
/// only from the tip judged (compare-and-swap). Under the registry lock the caller holds (an
/// `add` holds it while it makes a branch) or, for a dry run, over what `registry` says. Ship's
/// scratch branches are ship's to remove.
pub fn orphans(ctx: &Context, registry: &Registry, dry_run: bool) -> Result<Vec<Orphan>> {
    let trunk_name = ctx.trunk();
    let Some(trunk) = graph::branch_tip(&ctx.repo, &trunk_name) else {
        return Ok(Vec::new());
    };
    let prefix = ctx.branch_prefix();
    let scratch = format!("{prefix}{}", names::SHIP_SCRATCH_PREFIX);
    let mut out = Vec::new();
    for (branch, tip) in crate::git::land::branches_starting_with(&ctx.repo, &prefix)? {
        if branch == trunk_name
            || branch.starts_with(&scratch)
            || registry.worktrees.iter().any(|r| r.branch == branch)
            // A checkout that is gone holds nothing (a removal cut short, to be finished).
            || crate::git::worktrees::checked_out_in(&ctx.repo, &branch)?
                .iter()
                .any(|dir| dir.exists())
        {
            continue;
        }
        // One branch that cannot be judged or deleted is kept, with why; the others still go.
        let mut reason = match graph::work_not_landed(&ctx.repo, tip, &[trunk], Some(trunk)) {
            Ok(unlanded) => orphan_kept_for(unlanded, &trunk_name),
            Err(err) => Some(crate::error::render(&err).0),
        };
        if reason.is_none() && !dry_run {
            reason = match crate::git::delete_branch_at(&ctx.repo, &branch, tip, &ctx.ui) {
                Ok(Swap::Done) => {
                    super::remove::drop_verdict(ctx, &branch);
                    None
                }
                Ok(Swap::Moved(_)) => Some("it moved while it was judged".to_owned()),
                Err(err) => Some(crate::error::render(&err).0),
            };
        }
        out.push(Orphan {
            outcome: match (&reason, dry_run) {
                (Some(_), _) => "kept",
                (None, true) => "would delete",
                (None, false) => "deleted",
            },
            branch,
            tip: tip.to_string(),
            reason,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orphan_branch_goes_only_when_none_of_its_commits_is_off_the_trunk() {
        assert_eq!(orphan_kept_for(0, "main"), None);
        assert_eq!(
            orphan_kept_for(1, "main").as_deref(),
            Some("1 commit not on main")
        );
        assert_eq!(
            orphan_kept_for(3, "trunk").as_deref(),
            Some("3 commits not on trunk")
        );
    }
}
