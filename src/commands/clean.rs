//! `git berth clean`: remove every managed worktree that holds nothing of value and keep every
//! other one, saying why (`worktree::sweep`).

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::sweep;

#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// Say what would be removed and kept, change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Delete the branches of the worktrees it removes (they are landed: nothing is lost)
    #[arg(long, short = 'd')]
    pub delete_branch: bool,
    /// Print JSON: {"worktrees": [...], "branches": [...], "removed": n, "would_remove": n, "kept": n, "dry_run": bool}
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &CleanArgs, out: &mut dyn Write) -> Result<()> {
    let report = sweep::clean(ctx, args.dry_run, args.delete_branch)?;
    // A broken worktree is kept, never guessed at: say once how to get past it.
    if let Some(broken) = report.worktrees.iter().find(|o| {
        o.reason
            .as_deref()
            .is_some_and(|r| r.starts_with("broken:"))
    }) {
        ctx.ui
            .hint(crate::worktree::judge::broken_hint(&broken.name));
    }
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
                "{:<12} {:<width$}  branch {} {}",
                o.outcome.as_str(),
                o.name,
                o.branch,
                if args.delete_branch {
                    "deleted"
                } else {
                    "kept"
                }
            )?,
        }
    }
    for b in &report.branches {
        let why = match &b.reason {
            Some(reason) => format!("no worktree, {reason}"),
            None => format!("no worktree, its work is on {}", ctx.trunk()),
        };
        writeln!(out, "{:<12} branch {}  {why}", b.outcome, b.branch)?;
    }
    writeln!(
        out,
        "{} {}, kept {}",
        if args.dry_run {
            "would remove"
        } else {
            "removed"
        },
        report.removed + report.would_remove,
        report.kept
    )?;
    Ok(())
}
