//! `git berth own`: claim the paths a worktree will change, or give them back with `--release`
//! (`worktree::ownership`).

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::ownership::{self, Typed};

#[derive(Debug, clap::Args)]
pub struct OwnArgs {
    /// Files, folders or globs, relative to the repository root
    #[arg(value_name = "PATH", required_unless_present = "release")]
    pub paths: Vec<String>,
    /// The worktree that owns them [default: the one you stand in]
    #[arg(long, value_name = "NAME")]
    pub worktree: Option<String>,
    /// Give the paths back (all the worktree owns when none are named)
    #[arg(long)]
    pub release: bool,
    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &OwnArgs, out: &mut dyn Write) -> Result<()> {
    let worktree = args.worktree.as_deref();
    let changed = if args.release {
        ownership::release(ctx, worktree, Typed::Here(&args.paths))?
    } else {
        ownership::own(ctx, worktree, Typed::Here(&args.paths))?
    };
    if args.json {
        return super::write_json(out, &changed);
    }
    let verb = if args.release { "gave back" } else { "owns" };
    if changed.changed.is_empty() {
        ctx.ui.status(format_args!(
            "nothing changed: '{}' owns {}",
            changed.worktree,
            list(&changed.owns)
        ));
    } else {
        ctx.ui.status(format_args!(
            "'{}' {verb} {}",
            changed.worktree,
            changed.changed.join(", ")
        ));
    }
    Ok(())
}

/// Patterns for people, `nothing` when there are none.
fn list(patterns: &[String]) -> String {
    if patterns.is_empty() {
        "nothing".to_owned()
    } else {
        patterns.join(", ")
    }
}
