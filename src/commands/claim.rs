//! `git berth claim`: take a worktree for this session without creating one (`worktree::claim`).

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::claim;

#[derive(Debug, clap::Args)]
pub struct ClaimArgs {
    /// Name of the worktree
    pub name: String,
    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &ClaimArgs, out: &mut dyn Write) -> Result<()> {
    let claimed = claim::claim(ctx, &args.name)?;
    if args.json {
        super::write_json(out, &claimed)
    } else {
        ctx.ui.status(format_args!(
            "{} '{}' for session {}",
            if claimed.already_held {
                "already claimed"
            } else {
                "claimed"
            },
            claimed.name,
            claimed.session
        ));
        writeln!(out, "{}", claimed.path.display())?;
        Ok(())
    }
}
