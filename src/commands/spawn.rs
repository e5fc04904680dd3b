//! `git berth spawn <name> [--worktree <group>] [-- <cmd>...]`: an ad-hoc teammate in a tab of its
//! own (atrium's `ctl spawn`). Agents that name the same group share one worktree and branch.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place};
use crate::orchestrator::identity;
use crate::orchestrator::runtime::Runtime;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct SpawnArgs {
    /// The agent's name
    pub name: String,
    /// The worktree it works in, made if missing and shared with every agent that names it
    /// [default: one named after the agent]
    #[arg(long, value_name = "GROUP")]
    pub worktree: Option<String>,
    /// The runtime: opencode (default), claude, codex, pi or shell
    #[arg(long, value_name = "RUNTIME")]
    pub runtime: Option<String>,
    #[command(flatten)]
    pub launch: super::LaunchArgs,
    /// The command line to run instead of the runtime's own
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(ctx: &Context, args: &SpawnArgs, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer1(agents::caller_layer()?, "spawn")?;
    let place = Place::Worktree {
        name: args.worktree.clone().unwrap_or_else(|| args.name.clone()),
        branch: None,
        share: true,
    };
    args.launch.launch(
        ctx,
        out,
        super::Agent {
            name: args.name.clone(),
            layer: 1,
            runtime,
            command: (!args.command.is_empty()).then(|| args.command.clone()),
            place,
        },
    )
}
