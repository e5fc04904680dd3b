//! `git berth layer2 <name> [<runtime>]`: a layer-1 agent splits its tab and launches a helper
//! beside itself, in its own worktree (`orchestrator::agents`). Never deeper than layer 2.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place};
use crate::orchestrator::identity;
use crate::orchestrator::runtime::Runtime;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct Layer2Args {
    /// The agent's name
    pub name: String,
    /// The runtime: opencode (default), claude, codex, pi or shell
    pub runtime: Option<String>,
    #[command(flatten)]
    pub launch: super::LaunchArgs,
}

pub fn run(ctx: &Context, args: &Layer2Args, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer2(agents::caller_layer()?)?;
    let parent = agents::parent_from_env()?;
    args.launch.launch(
        ctx,
        out,
        super::Agent {
            name: args.name.clone(),
            layer: 2,
            runtime,
            command: None,
            place: Place::Beside { parent },
        },
    )
}
