//! One file per command: its clap arguments and the function that runs it.

pub mod add;
pub mod claim;
pub mod clean;
pub mod collect;
pub mod guard;
pub mod hook;
pub mod init;
pub mod install;
pub mod list;
pub mod path;
pub mod prune;
pub mod release;
pub mod remove;
pub mod setup;
pub mod trust;

use std::io::Write;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::repo::Context;

/// Run a parsed command against the repository found from the current directory.
pub fn dispatch(cli: &Cli, out: &mut dyn Write) -> Result<()> {
    if let Some(id) = &cli.session {
        crate::session::validate(id)?;
    }
    if let Command::Hook(args) = &cli.command {
        return hook::run(args, out);
    }
    let mut ctx = Context::discover()?;
    ctx.session_flag = cli.session.clone();
    match &cli.command {
        Command::Add(args) => add::run(&ctx, args, out),
        Command::List(args) => list::run(&ctx, args, out),
        Command::Path(args) => path::run(&ctx, args, out),
        Command::Remove(args) => remove::run(&ctx, args, out),
        Command::Prune(args) => prune::run(&ctx, args, out),
        Command::Claim(args) => claim::run(&ctx, args, out),
        Command::Setup(args) => setup::run(&ctx, args, out),
        Command::Install(args) => install::run(&ctx, args, out),
        Command::Trust(args) => trust::run(&ctx, args, out),
        Command::Clean(args) => clean::run(&ctx, args, out),
        Command::Collect(args) => collect::run(&ctx, args, out),
        Command::Release(args) => release::run(&ctx, args, out),
        Command::Hook(_) | Command::Guard(_) | Command::Init(_) => {
            unreachable!("handled before discovery")
        }
    }
}

/// Write a value as pretty JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}
