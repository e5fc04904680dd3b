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
    /// Print JSON: {"removed": [{"name", "path", "branch", "branch_deleted"}]}
    #[arg(long)]
    pub json: bool,
}

/// What `remove --json` prints.
#[derive(serde::Serialize)]
struct Report {
    removed: Vec<Gone>,
}

#[derive(serde::Serialize)]
struct Gone {
    name: String,
    path: std::path::PathBuf,
    /// Its branch (`berth/x`), and whether this removal deleted it.
    branch: String,
    branch_deleted: bool,
}

pub fn run(ctx: &Context, args: &RemoveArgs, out: &mut dyn Write) -> Result<()> {
    let removed = remove::remove(
        ctx,
        &args.names,
        args.force,
        args.delete_branch,
        &mut |done| eprintln!("{done}"),
    )?;
    if args.json {
        let removed = removed
            .into_iter()
            .map(|r| Gone {
                name: r.name,
                path: r.path,
                branch: r.branch,
                branch_deleted: r.branch_deleted,
            })
            .collect();
        return super::write_json(out, &Report { removed });
    }
    Ok(())
}
