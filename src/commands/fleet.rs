//! `git berth fleet`: many agents started from one manifest, each in its worktree, and taken
//! down together (`fleet`). So far its hidden supervisor alone, `fleet _supervise`, which berth
//! runs for each headless agent.

use std::path::PathBuf;

use anyhow::Result;

use crate::fleet::supervise;

/// `git berth fleet _supervise`, which berth starts itself for each headless agent: parsed
/// alone (`cli::supervise`), so it is in no help, manual or completion.
#[derive(Debug, clap::Args)]
pub struct SuperviseArgs {
    /// The fleet's folder
    pub fleet_dir: PathBuf,
    /// The agent's slug in the fleet's state
    pub agent: String,
    /// Where to write the agent's pid once it runs
    #[arg(long, value_name = "FILE")]
    pub pid_file: PathBuf,
    /// The agent's command line
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The word after `fleet` that starts a supervisor.
pub const SUPERVISE: &str = "_supervise";

/// Supervise one headless agent (`fleet::supervise`).
pub fn supervise(args: &SuperviseArgs) -> Result<()> {
    supervise::run(
        args.fleet_dir.clone(),
        &args.agent,
        &args.pid_file,
        &args.command,
    )
}
