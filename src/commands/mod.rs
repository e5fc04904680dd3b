//! One file per command: its clap arguments and the function that runs it. The dispatch is
//! `cli::run`; no command file imports another (what two share is in `worktree/`).

pub mod add;
pub mod agents;
pub mod claim;
pub mod clean;
pub mod collect;
pub mod completions;
pub mod feat;
pub mod fleet;
pub mod guard;
pub mod help;
pub mod hook;
pub mod init;
pub mod install;
pub mod layer1;
pub mod layer2;
pub mod list;
pub mod log;
pub mod master;
pub mod mcp;
pub mod own;
pub mod owners;
pub mod path;
pub mod pipeline;
pub mod prune;
pub mod release;
pub mod remove;
pub mod respawn;
pub mod review;
pub mod send;
pub mod setup;
pub mod ship;
pub mod spawn;
pub mod status_line;
pub mod stop;
pub mod trust;
pub mod ui;

use std::io::Write;

use anyhow::Result;

/// `--var KEY=VALUE` as clap parses it.
pub fn key_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("'{text}' is not KEY=VALUE")),
    }
}

/// Data on stdout as pretty JSON, one value per command.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<()> {
    // As an I/O error, so that a reader that went away (`| head -1`) is seen as one; berth's own
    // records that do not serialize are a bug.
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(_) => anyhow::Error::from(std::io::Error::from(e)),
        None => crate::error::bug(format!("cannot write JSON: {e}")),
    })?;
    writeln!(out)?;
    Ok(())
}

/// The options of every command that launches an agent (`layer1`, `layer2`, `spawn`).
#[derive(Debug, clap::Args)]
pub struct LaunchArgs {
    /// The agent's first message: its task
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// The terminal to open it in [default: herdr inside herdr, else tmux]
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub backend: Option<crate::orchestrator::backend::Backend>,
    /// Run the agent in this terminal instead of a new tab or split
    #[arg(long)]
    pub here: bool,
    /// Print the agent's record as JSON instead of its worktree's path
    #[arg(long)]
    pub json: bool,
}

impl LaunchArgs {
    /// Launch the agent `name` with these options, and print what was launched.
    pub fn launch(
        &self,
        ctx: &crate::repo::Context,
        out: &mut dyn Write,
        agent: Agent,
    ) -> Result<()> {
        use crate::orchestrator::agents;
        let launched = agents::launch(
            ctx,
            &agents::Request {
                name: agent.name,
                layer: agent.layer,
                runtime: agent.runtime,
                command: agent.command,
                prompt: self.prompt.clone(),
                place: agent.place,
                backend: self.backend,
                here: self.here,
                extra: agents::Extra::default(),
            },
        )?;
        print_launched(&ctx.ui, out, &launched, self.json)
    }
}

/// Who a launching command starts, and where.
pub struct Agent {
    pub name: String,
    pub layer: u8,
    pub runtime: crate::orchestrator::runtime::Runtime,
    pub command: Option<Vec<String>>,
    pub place: crate::orchestrator::agents::Place,
}

/// What `layer1`, `layer2`, `spawn` and `respawn` print: the agent's worktree on stdout (or its
/// record with `--json`), where it runs on stderr.
pub fn print_launched(
    ui: &crate::ui::Ui,
    out: &mut dyn Write,
    launched: &crate::orchestrator::agents::Launched,
    json: bool,
) -> Result<()> {
    let agent = &launched.agent;
    ui.status(format_args!(
        "agent '{}' (layer {}, {}) runs in {} pane {} in {}",
        agent.name,
        agent.layer,
        agent.runtime,
        agent.backend,
        agent.pane.as_deref().unwrap_or("-"),
        agent.worktree.display()
    ));
    if let Some(attach) = &launched.attach {
        ui.hint(format_args!("watch it with: {attach}"));
    }
    if json {
        return write_json(out, launched);
    }
    writeln!(out, "{}", agent.worktree.display())?;
    Ok(())
}
