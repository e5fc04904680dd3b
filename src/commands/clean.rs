//! `git berth clean`: remove every managed worktree that holds nothing of value (clean, merged
//! into the trunk, not held by another live session, not locked, not the one you stand in), and
//! keep every other one, saying why. Branches are kept, as `remove` keeps them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::remove::{self, Judge, Scope, Verdict};
use crate::inventory;
use crate::registry::{Locked, Store};
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// Say what would be removed and kept, change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Print JSON: {"worktrees": [...], "removed": n, "kept": n, "dry_run": bool}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub worktrees: Vec<Outcome>,
    pub removed: usize,
    pub kept: usize,
    pub dry_run: bool,
}

#[derive(Debug, Serialize)]
pub struct Outcome {
    pub name: String,
    pub path: PathBuf,
    pub branch: String,
    /// `removed` (or `would remove` with --dry-run) or `kept`.
    pub outcome: &'static str,
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
            let facts = remove::facts(ctx, &entry, &judge, Scope::Clean)?;
            reason(&remove::verdict(&facts, false))
        };
        let outcome = match (&kept, dry_run) {
            (Some(_), _) => "kept",
            (None, true) => "would remove",
            (None, false) => {
                remove::carry_out(ctx, locked, &entry, false, false)?;
                "removed"
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

pub fn run(ctx: &Context, args: &CleanArgs, out: &mut dyn Write) -> Result<()> {
    // Judge and act under one lock: a worktree claimed while clean runs must be seen as claimed.
    let mut locked = Store::new(ctx.state_dir()).lock()?;
    if !args.dry_run {
        super::add::roll_back_dead_adds(ctx, &mut locked)?;
    }
    let outcomes = sweep(ctx, &mut locked, args.dry_run)?;
    drop(locked);
    let kept = outcomes.iter().filter(|o| o.reason.is_some()).count();
    let report = Report {
        removed: outcomes.len() - kept,
        kept,
        dry_run: args.dry_run,
        worktrees: outcomes,
    };
    if args.json {
        return super::write_json(out, &report);
    }
    let width = report
        .worktrees
        .iter()
        .map(|o| o.name.chars().count())
        .max()
        .unwrap_or(0);
    for o in &report.worktrees {
        match &o.reason {
            Some(reason) => writeln!(out, "kept         {:<width$}  {reason}", o.name)?,
            None => writeln!(
                out,
                "{:<12} {:<width$}  branch {} kept",
                o.outcome, o.name, o.branch
            )?,
        }
    }
    writeln!(
        out,
        "{} {}, kept {}",
        if args.dry_run {
            "would remove"
        } else {
            "removed"
        },
        report.removed,
        report.kept
    )?;
    Ok(())
}
