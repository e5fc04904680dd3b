//! `git berth setup`: bring a worktree up to date with the project's hooks: give, resize or free
//! its port block, seed its files, run its setup hook (`worktree::bring_up::setup`). Safe to run
//! any number of times. Run inside a linked worktree berth did not make, it adopts it first.

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::bring_up;

#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// Name of the worktree [default: the one you are in]
    pub name: Option<String>,
    /// Print JSON: {"name", "path", "branch", "setup", "ports"}
    #[arg(long)]
    pub json: bool,
}

/// What `setup --json` prints.
#[derive(Debug, serde::Serialize)]
struct SetUp<'r> {
    name: &'r str,
    path: &'r std::path::Path,
    branch: &'r str,
    /// `done`, or null when the project has no setup hook.
    setup: Option<&'static str>,
    ports: Option<crate::ports::Block>,
}

pub fn run(ctx: &Context, args: &SetupArgs, out: &mut dyn Write) -> Result<()> {
    let record = bring_up::setup(ctx, args.name.as_deref())?;
    if args.json {
        return super::write_json(
            out,
            &SetUp {
                name: &record.name,
                path: &record.path,
                branch: &record.branch,
                setup: record.setup.map(|_| "done"),
                ports: record.ports,
            },
        );
    }
    writeln!(out, "{}", record.path.display())?;
    Ok(())
}
