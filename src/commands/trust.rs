//! `git berth trust`: record the content hashes of the setup, teardown and gate hooks of the
//! checkout it runs in, so they may run. Committed hooks arrive with a clone or a pull; they never run before
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
    /// Print JSON: {"hooks": [{"name", "state", "hash", "location"}], "newly_trusted": n}
    #[arg(long)]
    pub json: bool,
}

/// What `trust --json` prints.
#[derive(Debug, serde::Serialize)]
struct Report {
    hooks: Vec<Row>,
    newly_trusted: usize,
}

#[derive(Debug, serde::Serialize)]
struct Row {
    name: &'static str,
    /// `local`, `trusted` or `untrusted`.
    state: &'static str,
    hash: String,
    location: String,
}

pub fn run(ctx: &Context, args: &TrustArgs, out: &mut dyn Write) -> Result<()> {
    let checkout = crate::worktree::checkout_here(ctx)?;
    let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(&checkout))?;
    let scripts: Vec<&hooks::Hook> = [&in_force.setup, &in_force.teardown, &in_force.gate]
        .into_iter()
        .flatten()
        .collect();
    if scripts.is_empty() {
        ctx.ui
            .status("no setup, teardown or gate hook here to trust");
    }
    let mut newly_trusted = 0;
    if !args.show && !scripts.is_empty() {
        newly_trusted = hooks::trust(&ctx.common_dir, &scripts)?;
        ctx.ui.status(format_args!(
            "{newly_trusted} hook content(s) newly trusted"
        ));
    }
    let mut rows = Vec::new();
    for hook in scripts {
        let state = if hook.is_local() {
            "local"
        } else if hooks::is_trusted(&ctx.common_dir, hook)? {
            "trusted"
        } else {
            "untrusted"
        };
        rows.push(Row {
            name: hook.name,
            state,
            hash: hook.hash()?.to_string(),
            location: hook.location(),
        });
    }
    if args.json {
        return super::write_json(
            out,
            &Report {
                hooks: rows,
                newly_trusted,
            },
        );
    }
    for r in rows {
        writeln!(
            out,
            "{:<9} {:<9} {}  {}",
            r.name,
            r.state,
            &r.hash[..12],
            r.location
        )?;
    }
    Ok(())
}
