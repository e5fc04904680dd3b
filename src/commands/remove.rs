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

/// What `remove --json` prints.
#[derive(serde::Serialize)]
struct Report {
    removed: Vec<Gone>,
    /// Worktrees that changed during their teardown, and stay.
    kept: Vec<Stays>,
}

#[derive(serde::Serialize)]
struct Stays {
    name: String,
    path: std::path::PathBuf,
    branch: String,
    reason: String,
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
        &mut |done| ctx.ui.status(done),
    )?;
    let (kept, removed): (Vec<_>, Vec<_>) = removed.into_iter().partition(|r| r.kept.is_some());
    let names: Vec<String> = kept.iter().map(|r| format!("'{}'", r.name)).collect();
    if args.json {
        let report = Report {
            removed: removed
                .into_iter()
                .map(|r| Gone {
                    name: r.name,
                    path: r.path,
                    branch: r.branch,
                    branch_deleted: r.branch_deleted,
                })
                .collect(),
            kept: kept
                .into_iter()
                .map(|r| Stays {
                    reason: r.kept.unwrap_or_default(),
                    name: r.name,
                    path: r.path,
                    branch: r.branch,
                })
                .collect(),
        };
        super::write_json(out, &report)?;
    }
    if !names.is_empty() {
        return Err(crate::error::refuse_with_hint(
            format!(
                "{} changed during the teardown and stayed: {}",
                if names.len() == 1 {
                    "a worktree"
                } else {
                    "worktrees"
                },
                names.join(", ")
            ),
            format!(
                "look at what changed, then remove it again: {} remove {}",
                crate::names::TOOL,
                names.join(" ")
            ),
        ));
    }
    Ok(())
}
