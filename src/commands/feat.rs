//! `git berth feat <branch>`: a person opens a change in a worktree of its own on
//! `feat/<branch>`, with a shell tab there inside tmux or herdr, and gets its path.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents;
use crate::orchestrator::backend::Backend;
use crate::orchestrator::identity;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct FeatArgs {
    /// The branch: feat/<branch> unless it has a prefix of its own (fix/crash)
    pub branch: String,
    /// The terminal to open the shell tab in [default: the one berth runs in, if any]
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Print a JSON object instead of the path
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &FeatArgs, out: &mut dyn Write) -> Result<()> {
    identity::check_layer1(agents::caller_layer()?, "feat")?;
    let feat = agents::feat(ctx, &args.branch, args.backend)?;
    if let Some(pane) = &feat.pane {
        ctx.ui.status(format_args!(
            "opened a shell tab ({pane}) in {}",
            feat.path.display()
        ));
    }
    if args.json {
        return super::write_json(out, &feat);
    }
    writeln!(out, "{}", feat.path.display())?;
    Ok(())
}
