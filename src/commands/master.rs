//! `git berth master [<runtime>]`: start the orchestrating agent (layer 0) in the primary
//! checkout, with both hatches open, in this terminal. `BERTH_MASTER_DRY_RUN=1` prints what it
//! would run and runs nothing.

use std::io::Write;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::names::{self, env};
use crate::orchestrator::{agents, identity, runtime, terminal};
use crate::repo::{Context, Standing};

#[derive(Debug, clap::Args)]
pub struct MasterArgs {
    /// The runtime: opencode (default), claude, codex, pi or shell
    pub runtime: Option<String>,
}

/// What the master is given: both hatches, and layer 0.
const MASTER_ENV: [(&str, &str); 3] = [
    (env::ALLOW_MAIN_WORKTREE, "1"),
    (env::MASTER_SESSION, "1"),
    (env::AGENT_LAYER, "0"),
];

pub fn run(ctx: &Context, args: &MasterArgs, out: &mut dyn Write) -> Result<()> {
    identity::check_master(std::env::var(env::AGENT_LAYER).ok().as_deref())?;
    let rt = runtime::Runtime::parse_or_default(args.runtime.as_deref())?;
    let primary = match (&ctx.primary, ctx.standing) {
        (Some(primary), Standing::Primary) => primary.clone(),
        _ => {
            return Err(refuse_with_hint(
                "the master runs in the primary checkout, and this is not it",
                match &ctx.primary {
                    Some(primary) => format!(
                        "run it there: cd {} && {} master",
                        shell_words::quote(&primary.display().to_string()),
                        names::TOOL
                    ),
                    None => "a bare repository has no primary checkout to run it in".to_owned(),
                },
            ));
        }
    };
    let base = agents::base_command(ctx, rt)?;
    let argv = runtime::master_command(rt, &base, &primary);
    if std::env::var(env::MASTER_DRY_RUN).as_deref() == Ok("1") {
        writeln!(out, "runtime: {}", rt.name())?;
        writeln!(out, "command: {}", shell_words::join(&argv))?;
        for (key, value) in MASTER_ENV {
            writeln!(out, "{key}={value}")?;
        }
        return Ok(());
    }
    out.flush()?;
    let cwd = std::env::current_dir().unwrap_or(primary);
    Err(terminal::exec_here(&cwd, &argv, &MASTER_ENV))
}
