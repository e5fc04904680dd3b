//! `git berth layer2 <name> [<runtime>]`: a layer-1 agent splits its tab and launches a helper
//! beside itself, in its own worktree (`orchestrator::agents`). Never deeper than layer 2.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place, Request};
use crate::orchestrator::backend::Backend;
use crate::orchestrator::identity;
use crate::orchestrator::runtime::Runtime;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct Layer2Args {
    /// The agent's name
    pub name: String,
    /// The runtime: opencode (default), claude, codex, pi or shell
    pub runtime: Option<String>,
    /// The agent's first message: its task
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// The terminal to split [default: herdr inside herdr, else tmux]
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Run the agent in this terminal instead of a split
    #[arg(long)]
    pub here: bool,
    /// Print the agent's record as JSON instead of its worktree's path
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &Layer2Args, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer2(agents::caller_layer()?)?;
    let parent = agents::parent_from_env(ctx, &agents::seen())?;
    let launched = agents::launch(
        ctx,
        &Request {
            name: args.name.clone(),
            layer: 2,
            runtime,
            command: None,
            prompt: args.prompt.clone(),
            place: Place::Beside { parent },
            backend: args.backend,
            here: args.here,
        },
    )?;
    super::print_launched(out, &launched, args.json)
}
