//! `git berth stop <agent>... | --all`: end agents berth launched (SIGTERM to each one's process
//! group, SIGKILL after the grace), so the worktrees they held free up without a `kill` by hand.

use std::io::Write;
use std::time::Duration;

use anyhow::Result;

use crate::clock;
use crate::error::refuse_with_hint;
use crate::orchestrator::agents::{self, Stopped};
use crate::orchestrator::terminal::Ended;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct StopArgs {
    /// The agents to stop, by name (see `git berth agents`)
    #[arg(
        value_name = "AGENT",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub agents: Vec<String>,
    /// Stop every live agent berth launched for this repository
    #[arg(long)]
    pub all: bool,
    /// How long each agent gets to end after SIGTERM before SIGKILL (`30s`, `2m`) [default: 10s]
    #[arg(long, value_name = "DURATION", value_parser = grace)]
    pub grace: Option<Duration>,
    /// Print JSON: {"agents": [{"name", "pid", "worktree", "outcome"}]}
    #[arg(long)]
    pub json: bool,
}

fn grace(text: &str) -> Result<Duration, String> {
    clock::parse_duration(text)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("'{text}' is not a duration such as 10s, 2m or 1h"))
}

#[derive(serde::Serialize)]
struct Report {
    agents: Vec<Stopped>,
}

pub fn run(ctx: &Context, args: &StopArgs, out: &mut dyn Write) -> Result<()> {
    let stopped = agents::stop(
        ctx,
        &args.agents,
        args.all,
        args.grace.unwrap_or(agents::STOP_GRACE),
    )?;
    let stuck: Vec<u32> = stopped
        .iter()
        .filter(|s| matches!(s.outcome, Ended::NoStartTime | Ended::StillRunning))
        .map(|s| s.pid.unwrap_or_default())
        .collect();
    let count = stopped.len();
    if args.json {
        super::write_json(out, &Report { agents: stopped })?;
    } else {
        if stopped.is_empty() {
            ctx.ui.status("no live agents to stop");
        }
        for s in &stopped {
            ctx.ui.status(crate::orchestrator::terminal::ended_line(
                &s.name, s.pid, s.outcome,
            ));
        }
    }
    match stuck.first() {
        Some(pid) => Err(refuse_with_hint(
            format!("{} of {count} agents still run", stuck.len()),
            format!("check what pid {pid} is (ps -p {pid}), then end it yourself"),
        )),
        None => Ok(()),
    }
}
