//! `git-berth-mcp`: the worktree tools (terva's five) as an MCP server on stdio, so every agent
//! runtime that takes MCP servers (Claude Code, Codex, OpenCode, Gemini CLI, Cursor) gets them
//! without shelling out. `git berth mcp` becomes this program after pinning the session; it is
//! its own binary so that rmcp and tokio are built into it alone, never into `git-berth` or the
//! guard. [`tools`] does the work with the lifecycle every command uses; [`server`] speaks the
//! protocol through `rmcp` on tokio's current-thread runtime.
//!
//! Whether the server offers anything is decided once, at start: when neither its folder nor an
//! immediate child folder is a git repository it is quiet (no tools, no instructions), and it
//! stays as decided while it runs, since a runtime keeps both in its cached prompt.

mod server;
mod tools;

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use berth::error::{self, refuse_with_hint};

/// The standing policy sent at initialize, in the model's words.
const INSTRUCTIONS: &str = include_str!("../../../share/prompts/mcp-instructions.md");

fn main() -> ExitCode {
    // A panic in one tool is that call's failure, reported as the bug it is, not the server's
    // end (where panics unwind; a release build aborts on one).
    std::panic::set_hook(Box::new(|info| {
        error::report(&error::bug(info.to_string()));
    }));
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            error::report(&err);
            ExitCode::from(error::kind(&err).exit_code())
        }
    }
}

/// Serve the tools on stdin and stdout until the client goes away, for the repository at or
/// below the current folder.
fn serve() -> Result<()> {
    if std::env::args_os().len() > 1 {
        return Err(refuse_with_hint(
            format!("{} takes no arguments", berth::names::MCP_BINARY),
            "start it as `git berth mcp [--session <id>]`",
        ));
    }
    let folder = std::env::current_dir().context("cannot read the current directory")?;
    let folder = berth::paths::real_or_same(&folder);
    let quiet = !tools::has_repository(&folder);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(server::run(tools::Scope { folder }, quiet))
}
