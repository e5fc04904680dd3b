//! `git berth respawn <agent> [--worktree <group>]`: stop an agent gracefully and start it again,
//! same command line, identity and name, in another worktree or where it was.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct RespawnArgs {
    /// The agent's name
    pub agent: String,
    /// The worktree to move it to, made if missing [default: where it was]
    #[arg(long, value_name = "GROUP")]
    pub worktree: Option<String>,
    /// Print the agent's record as JSON instead of its worktree's path
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &RespawnArgs, out: &mut dyn Write) -> Result<()> {
    let launched = agents::respawn(ctx, &args.agent, args.worktree.as_deref())?;
    super::print_launched(&ctx.ui, out, &launched, args.json)
}
