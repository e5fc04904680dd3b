//! `git berth spawn <name> [--worktree <group>] [-- <cmd>...]`: an ad-hoc teammate in a tab of its
//! own (atrium's `ctl spawn`). Agents that name the same group share one worktree and branch.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place, Request};
use crate::orchestrator::backend::Backend;
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
    /// The agent's first message: its task
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// The terminal to open its tab in [default: herdr inside herdr, else tmux]
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Run the agent in this terminal instead of a new tab
    #[arg(long)]
    pub here: bool,
    /// Print the agent's record as JSON instead of its worktree's path
    #[arg(long)]
    pub json: bool,
    /// The command line to run instead of the runtime's own
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(ctx: &Context, args: &SpawnArgs, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer1(agents::caller_layer()?, "spawn")?;
    let launched = agents::launch(
        ctx,
        &Request {
            name: args.name.clone(),
            layer: 1,
            runtime,
            command: (!args.command.is_empty()).then(|| args.command.clone()),
            prompt: args.prompt.clone(),
            place: Place::Worktree {
                name: args.worktree.clone().unwrap_or_else(|| args.name.clone()),
                branch: None,
                share: true,
            },
            backend: args.backend,
            here: args.here,
        },
    )?;
    super::print_launched(out, &launched, args.json)
}
