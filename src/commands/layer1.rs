//! `git berth layer1 <name> <branch> [<runtime>]`: the master dispatches an agent into a new tab
//! and a worktree of its own on `<branch>` (`orchestrator::agents`).

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place, Request};
use crate::orchestrator::backend::Backend;
use crate::orchestrator::identity;
use crate::orchestrator::runtime::Runtime;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct Layer1Args {
    /// The agent's name, also its worktree's
    pub name: String,
    /// The branch its worktree is on: checked out if it exists, else made from HEAD
    pub branch: String,
    /// The runtime: opencode (default), claude, codex, pi or shell
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
}

pub fn run(ctx: &Context, args: &Layer1Args, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer1(agents::caller_layer()?, "layer1")?;
    let launched = agents::launch(
        ctx,
        &Request {
            name: args.name.clone(),
            layer: 1,
            runtime,
            command: None,
            prompt: args.prompt.clone(),
            place: Place::Worktree {
                name: args.name.clone(),
                branch: Some(args.branch.clone()),
                share: false,
            },
            backend: args.backend,
            here: args.here,
        },
    )?;
    super::print_launched(out, &launched, args.json)
}
