//! `git berth prune`: forget managed worktrees whose folder is gone, and drop git admin entries
//! that point nowhere, as `git worktree prune` does (`worktree::prune`). It never touches a
//! worktree that exists.

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::prune;

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Say what would be pruned, change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
}

pub fn run(ctx: &Context, args: &PruneArgs, out: &mut dyn Write) -> Result<()> {
    let plan = if args.dry_run {
        prune::plan(ctx)?
    } else {
        prune::carry_out(ctx)?
    };
    let verb = |done: &'static str, would: &'static str| if args.dry_run { would } else { done };
    for entry in &plan.admin {
        writeln!(
            out,
            "{} worktrees/{}: {}",
            verb("removed", "would remove"),
            entry.id,
            entry.reason
        )?;
    }
    for entry in &plan.free {
        writeln!(
            out,
            "{} ports {}-{} of '{}' ({})",
            verb("freed", "would free"),
            entry.first,
            entry.first + entry.units * crate::names::PORT_UNIT - 1,
            entry.name,
            entry.path.display()
        )?;
    }
    for record in &plan.forget {
        writeln!(
            out,
            "{} worktree '{}': {} is gone (branch {} kept)",
            verb("forgot", "would forget"),
            record.name,
            record.path.display(),
            record.branch
        )?;
    }
    if plan.is_empty() {
        eprintln!("nothing to prune");
    }
    Ok(())
}
