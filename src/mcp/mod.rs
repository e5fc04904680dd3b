//! `git berth mcp`: the worktree tools (terva's five) as an MCP server on stdio, so every agent
//! runtime that takes MCP servers (Claude Code, Codex, OpenCode, Gemini CLI, Cursor) gets them
//! without shelling out. [`tools`] does the work with the lifecycle every command uses; [`server`]
//! speaks the protocol through `rmcp` on tokio's current-thread runtime, which only this command
//! starts.
//!
//! Whether the server offers anything is decided once, at start: when neither its folder nor an
//! immediate child folder is a git repository it is quiet (no tools, no instructions), and it
//! stays as decided while it runs, since a runtime keeps both in its cached prompt.

mod server;
pub mod tools;

use std::path::PathBuf;

use anyhow::{Context as _, Result};

/// The standing policy sent at initialize, in the model's words.
pub const INSTRUCTIONS: &str = include_str!("../../share/prompts/mcp-instructions.md");

/// Serve the tools on stdin and stdout until the client goes away, for the repository at or
/// below `folder`; `session` is `--session`, when given.
pub fn serve(folder: PathBuf, session: Option<String>) -> Result<()> {
    let quiet = !tools::has_repository(&folder);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(server::run(tools::Scope { folder, session }, quiet))
}
