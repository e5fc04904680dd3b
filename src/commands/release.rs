//! `git berth release`: give a worktree back so another session can claim it
//! (`worktree::claim::release`).

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::claim;

#[derive(Debug, clap::Args)]
pub struct ReleaseArgs {
    /// Name of the worktree
    pub name: String,
    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &ReleaseArgs, out: &mut dyn Write) -> Result<()> {
    let released = claim::release(ctx, &args.name)?;
    if args.json {
        super::write_json(out, &released)
    } else {
        ctx.ui.status(format_args!(
            "{} '{}'",
            if released.released {
                "released"
            } else {
                "nobody held"
            },
            released.name
        ));
        Ok(())
    }
}
