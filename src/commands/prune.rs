//! `git berth prune`: forget managed worktrees whose checkout is gone, drop git admin entries
//! that point nowhere, as `git worktree prune` does, and finish removals a kill cut short
//! (`worktree::prune`). It never touches a worktree that exists.

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::prune;

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Say what would be pruned, change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Print JSON: {"admin", "forget", "free", "finish", "agents", "branches": [...], "dry_run": bool}
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &PruneArgs, out: &mut dyn Write) -> Result<()> {
    let plan = if args.dry_run {
        prune::plan(ctx)?
    } else {
        // Prune first, so that what it finishes (a killed remove) is reported as its own; then a
        // ship killed midway: its landing finished and its scratch worktree gone.
        let plan = prune::carry_out(ctx)?;
        crate::landing::ship::clear_killed(ctx)?;
        plan
    };
    if args.json {
        #[derive(serde::Serialize)]
        struct Report<'p> {
            #[serde(flatten)]
            plan: &'p prune::Plan,
            dry_run: bool,
        }
        return super::write_json(
            out,
            &Report {
                plan: &plan,
                dry_run: args.dry_run,
            },
        );
    }
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
    for record in &plan.finish {
        writeln!(
            out,
            "{} worktree '{}': an earlier remove was cut short",
            verb("removed", "would remove"),
            record.name,
        )?;
    }
    for record in &plan.forget {
        if record.path.exists() {
            writeln!(
                out,
                "{} worktree '{}': {} is no checkout ({}); its files stay (branch {} kept)",
                verb("forgot", "would forget"),
                record.name,
                record.path.display(),
                crate::worktree::judge::broken_why(&record.path),
                record.branch
            )?;
        } else {
            writeln!(
                out,
                "{} worktree '{}': {} is gone (branch {} kept)",
                verb("forgot", "would forget"),
                record.name,
                record.path.display(),
                record.branch
            )?;
        }
    }
    for b in &plan.branches {
        match &b.reason {
            Some(reason) => writeln!(
                out,
                "kept branch {}: no worktree has it, and it has {reason}",
                b.branch
            )?,
            None => writeln!(
                out,
                "{} branch {} ({}): no worktree has it, and its work is on {}",
                verb("deleted", "would delete"),
                b.branch,
                crate::git::short(&b.tip),
                ctx.trunk()
            )?,
        }
    }
    for name in &plan.agents {
        writeln!(
            out,
            "{} agent '{name}': its process has ended",
            verb("forgot", "would forget")
        )?;
    }
    if plan.is_empty() {
        ctx.ui.status("nothing to prune");
    }
    Ok(())
}
