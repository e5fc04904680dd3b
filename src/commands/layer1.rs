//! `git berth layer1 <name> <branch> [<runtime>]`: the master dispatches an agent into a new tab
//! and a worktree of its own on `<branch>` (`orchestrator::agents`).

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Place};
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
    #[command(flatten)]
    pub launch: super::LaunchArgs,
}

pub fn run(ctx: &Context, args: &Layer1Args, out: &mut dyn Write) -> Result<()> {
    let runtime = Runtime::parse_or_default(args.runtime.as_deref())?;
    identity::check_layer1(agents::caller_layer()?, "layer1")?;
    let place = Place::Worktree {
        name: args.name.clone(),
        branch: Some(args.branch.clone()),
        share: false,
    };
    args.launch.launch(
        ctx,
        out,
        super::Agent {
            name: args.name.clone(),
            layer: 1,
            runtime,
            command: None,
            place,
        },
    )
}
