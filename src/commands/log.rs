//! `git berth log`: every landing `ship` made, oldest first (`landing::log`).

use std::io::Write;

use anyhow::Result;

use crate::landing::log;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Print JSON: {"landings": [{"worktree", "branch", "trunk", "old_tip", "new_tip",
    /// "strategy", "reviewer", "gate", "time"}]}
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &LogArgs, out: &mut dyn Write) -> Result<()> {
    log::print(ctx, args.json, out)
}
