//! One file per command: its clap arguments and the function that runs it.

pub mod add;
pub mod hook;
pub mod list;
pub mod path;
pub mod prune;
pub mod remove;

use std::io::Write;

use anyhow::Result;

use crate::cli::Command;
use crate::repo::Context;

/// Run a parsed command against the repository found from the current directory.
pub fn dispatch(command: &Command, out: &mut dyn Write) -> Result<()> {
    if let Command::Hook(args) = command {
        return hook::run(args, out);
    }
    let ctx = Context::discover()?;
    match command {
        Command::Add(args) => add::run(&ctx, args, out),
        Command::List(args) => list::run(&ctx, args, out),
        Command::Path(args) => path::run(&ctx, args, out),
        Command::Remove(args) => remove::run(&ctx, args, out),
        Command::Prune(args) => prune::run(&ctx, args, out),
        Command::Hook(_) => unreachable!("handled before discovery"),
    }
}

/// Write a value as pretty JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}
