//! One file per command: its clap arguments and the function that runs it. The dispatch is
//! `cli::run`; no command file imports another (what two share is in `worktree/`).

pub mod add;
pub mod claim;
pub mod clean;
pub mod collect;
pub mod completions;
pub mod guard;
pub mod help;
pub mod hook;
pub mod init;
pub mod install;
pub mod list;
pub mod path;
pub mod prune;
pub mod release;
pub mod remove;
pub mod review;
pub mod setup;
pub mod trust;

use std::io::Write;

use anyhow::Result;

/// Data on stdout as pretty JSON, one value per command.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<()> {
    // As an I/O error, so that a reader that went away (`| head -1`) is seen as one.
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}
