//! Remove and tear down: every name judged first under one lock (a refusal changes nothing),
//! then each worktree's teardown, checkout, admin entry, record, port block and, if asked, branch.

use std::path::PathBuf;

use anyhow::Result;

use crate::error::Refusal;
use crate::git::{self, graph, worktrees};
use crate::inventory::Entry;
use crate::names;
use crate::registry::Locked;
use crate::repo::Context;

use super::judge::{Facts, Judge, Scope, facts, refusal, verdict};

/// One worktree removed.
#[derive(Debug, Clone)]
pub struct Removed {
    pub name: String,
    pub path: PathBuf,
    /// What happened to the branch, for people.
    pub note: String,
}

impl std::fmt::Display for Removed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "removed worktree '{}' ({}); {}",
            self.name,
            self.path.display(),
            self.note
        )
    }
}

/// Remove the worktrees `names`, refusing all of them (and removing none) when any may not go;
/// `force` overrides all but a lock. `on_removed` hears of each as it goes.
pub fn remove(
    ctx: &Context,
    names: &[String],
    force: bool,
    delete_branch: bool,
    on_removed: &mut dyn FnMut(&Removed),
) -> Result<Vec<Removed>> {
    let judge = Judge::new(ctx)?;
    // Judge and act under one lock: no claim or add can slip in between.
    let mut locked = super::lock(ctx)?;
    let registry = locked.registry.clone();
    let mut targets = Vec::new();
    for name in names {
        let entry = super::find(ctx, &registry, name)?;
        if !targets
            .iter()
            .any(|(e, _): &(Entry, Facts)| e.name == entry.name)
        {
            let scope = Scope::Remove { delete_branch };
            let facts = facts(ctx, &entry, &judge, scope)?;
            targets.push((entry, facts));
        }
    }

    let refusals: Vec<Refusal> = targets
        .iter()
        .filter_map(|(entry, facts)| refusal(ctx, entry, &verdict(facts, force), &judge.trunk_name))
        .collect();
    if let Some(first) = refusals.first() {
        for other in &refusals[1..] {
            eprintln!("{}: {}", names::TOOL, other.message);
        }
        let mut first = Refusal {
            message: first.message.clone(),
            hint: first.hint.clone(),
        };
        if refusals.len() > 1 {
            first.message.push_str(&format!(
                " (and {} more refused; nothing was removed)",
                refusals.len() - 1
            ));
        }
        return Err(first.into());
    }

    let mut removed = Vec::new();
    for (entry, _) in &targets {
        let note = carry_out(ctx, &mut locked, entry, force, delete_branch)?;
        let done = Removed {
            name: entry.name.clone(),
            path: entry.path.clone(),
            note,
        };
        on_removed(&done);
        removed.push(done);
    }
    Ok(removed)
}

/// Remove one worktree judged under the held lock: its checkout and admin entry, its record, and
/// with `delete_branch` its branch. Returns what happened to the branch, for people.
pub fn carry_out(
    ctx: &Context,
    locked: &mut Locked,
    entry: &Entry,
    discard: bool,
    delete_branch: bool,
) -> Result<String> {
    let record = entry
        .record
        .as_ref()
        .expect("remove works on managed worktrees");
    // The teardown runs first, in the primary checkout; a failed one stops the removal unless
    // forced (`discard`).
    if let Some(primary) = &ctx.primary
        && let Err(err) = super::bring_up::teardown(ctx, record, primary)
    {
        if !discard {
            let (line, _) = crate::error::render(&err);
            return Err(crate::error::refuse_with_hint(
                format!("{line}; worktree '{}' is kept", record.name),
                format!(
                    "fix the teardown hook, or remove it anyway with {} remove --force '{}'",
                    names::TOOL,
                    record.name
                ),
            ));
        }
        crate::error::warn(format_args!("{err:#} (removing anyway: --force)"));
    }
    if entry.present {
        // Judged clean (or forced) under the registry lock a moment ago: gix need not walk every
        // file a second time. A lock is still honoured.
        worktrees::remove(&ctx.repo, &entry.path, true)?;
    } else {
        // Its folder is gone: only git's admin entry (if any) is left to drop.
        let stale = worktrees::stale_admin_entries(&ctx.common_dir)?;
        worktrees::drop_admin_entries(&ctx.common_dir, &stale)?;
    }
    locked.registry.remove(&record.name);
    locked.save()?;
    if record.ports.is_some() {
        crate::ports::Store::machine()?.free(&ctx.common_dir, &record.name)?;
    }
    if delete_branch && let Some(tip) = graph::branch_tip(&ctx.repo, &record.branch) {
        git::delete_branch(&ctx.repo, &record.branch, tip)?;
        return Ok(format!(
            "branch {} deleted (was {})",
            record.branch,
            git::short(&tip.to_string())
        ));
    }
    Ok(format!("branch {} kept", record.branch))
}
