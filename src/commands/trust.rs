//! `git berth trust`: record the content hashes of the setup and teardown hooks of the checkout it
//! runs in, so they may run. Committed hooks arrive with a clone or a pull; they never run before
//! this, and a changed hook needs trusting again. Local hooks are the user's own and need none.

use std::io::Write;

use anyhow::Result;

use crate::hooks::{self, Origin};
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// Only show each hook and whether it is trusted
    #[arg(long)]
    pub show: bool,
}

pub fn run(ctx: &Context, args: &TrustArgs, out: &mut dyn Write) -> Result<()> {
    let checkout = crate::worktree::checkout_here(ctx)?;
    let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(&checkout))?;
    let scripts: Vec<&hooks::Hook> = [&in_force.setup, &in_force.teardown]
        .into_iter()
        .flatten()
        .collect();
    if scripts.is_empty() {
        eprintln!("no setup or teardown hook here to trust");
        return Ok(());
    }
    if !args.show {
        let added = hooks::trust(&ctx.common_dir, &scripts)?;
        eprintln!("{added} hook content(s) newly trusted");
    }
    for hook in scripts {
        let state = if hook.is_local() {
            "local"
        } else if hooks::is_trusted(&ctx.common_dir, hook)? {
            "trusted"
        } else {
            "untrusted"
        };
        writeln!(
            out,
            "{:<9} {:<9} {}  {}",
            hook.name,
            state,
            hook.hash()?.to_hex_with_len(12),
            hook.location()
        )?;
    }
    Ok(())
}
