//! `git berth send <agent> <text>`: type text into an agent's pane, then Enter: how the master
//! hands out work and answers questions.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct SendArgs {
    /// The agent's name
    pub agent: String,
    /// What to type; several words are joined with spaces
    #[arg(
        required = true,
        num_args = 1..,
        allow_hyphen_values = true,
        trailing_var_arg = true,
        value_name = "TEXT"
    )]
    pub text: Vec<String>,
}

pub fn run(ctx: &Context, args: &SendArgs, _out: &mut dyn Write) -> Result<()> {
    agents::send(ctx, &args.agent, &args.text.join(" "))?;
    ctx.ui
        .status(format_args!("sent to agent '{}'", args.agent));
    Ok(())
}
