//! `git berth remove`: remove managed worktrees, never one whose work exists nowhere else
//! (`worktree::remove`). Every name is judged before anything is removed.

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::remove;

#[derive(Debug, clap::Args)]
pub struct RemoveArgs {
    /// Names of the worktrees to remove
    #[arg(required = true)]
    pub names: Vec<String>,
    /// Remove even with uncommitted changes or unmerged commits (never a locked worktree)
    #[arg(long, short = 'f')]
    pub force: bool,
    /// Delete the branch too (still refused when unmerged, unless --force)
    #[arg(long, short = 'd')]
    pub delete_branch: bool,
    /// Print JSON: {"removed": [{"name", "path", "branch", "branch_deleted"}], "kept": [{"name", "path", "branch", "reason"}]}
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &RemoveArgs, out: &mut dyn Write) -> Result<()> {
    let removed = remove::remove(
        ctx,
        &args.names,
        args.force,
        args.delete_branch,
        &mut |done| ctx.ui.status(done),
    )?;
    let report = remove::Report::of(removed);
    if args.json {
        super::write_json(out, &report)?;
    }
    match report.stayed() {
        Some(err) => Err(err),
        None => Ok(()),
    }
}
