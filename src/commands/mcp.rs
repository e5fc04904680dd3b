//! `git berth mcp`: becomes the MCP server, the program [`names::MCP_BINARY`] installed beside this
//! one (its protocol stack lives there alone, so neither this binary nor the guard carries it).
//!
//! Before it does, it settles what the server must not rediscover later: the session is pinned
//! to the agent process that started it (a server re-parented after its runtime died must not
//! claim for whoever adopted it), and git's location variables are dropped, so every tool finds
//! the repository from the folder it names, as `git` run there would.

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::names;

/// `git berth mcp` takes no arguments of its own (its help is on the command in `cli`).
#[derive(Debug, clap::Args)]
pub struct McpArgs {}

pub fn run(session: Option<String>) -> Result<()> {
    let server = server_program()?;
    let mut command = std::process::Command::new(&server);
    if let Some(id) = session {
        // The same as `--session`: the explicit session comes before anything found.
        command.env(names::env::SESSION, id);
    }
    if std::env::var_os(names::env::SESSION_PID).is_none_or(|v| v.is_empty()) {
        command.env(
            names::env::SESSION_PID,
            crate::process::holder_pid().to_string(),
        );
    }
    for var in crate::git::LOCATION_VARIABLES {
        command.env_remove(var);
    }
    // Only returns when the server could not start.
    let err = command.exec();
    Err(refuse_with_hint(
        format!(
            "cannot start the MCP server {}: {}",
            server.display(),
            crate::error::io_reason(&err)
        ),
        format!(
            "install {} beside git-berth (`cargo install --path .` installs both)",
            names::MCP_BINARY
        ),
    ))
}

/// The server program, beside the running `git-berth`.
fn server_program() -> Result<PathBuf> {
    let me = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find the running git-berth: {e}"))?;
    Ok(me.with_file_name(names::MCP_BINARY))
}
