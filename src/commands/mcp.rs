//! `git berth mcp`: the worktree tools as an MCP server on stdio, for an agent runtime to start
//! (see [`crate::mcp`]).

use anyhow::{Context as _, Result};

/// `git berth mcp` takes no arguments of its own (its help is on the command in `cli`).
#[derive(Debug, clap::Args)]
pub struct McpArgs {}

pub fn run(session: Option<String>) -> Result<()> {
    let folder = std::env::current_dir().context("cannot read the current directory")?;
    crate::mcp::serve(crate::paths::real_or_same(&folder), session)
}
