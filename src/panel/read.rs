//! One reading of the repository for the panel: the rows of `list --json --all` (through
//! [`listing`], the one status reader), the agents as `git berth agents` reads them, and the fleet
//! or pipeline run each worktree belongs to. Reads only; what it would warn about on stderr is
//! kept for the status line, since stderr is the screen the panel draws on.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Result;

use super::model::Reading;
use crate::orchestrator::agents;
use crate::repo::Context;
use crate::worktree::listing::{self, Query};

/// Read everything the panel shows, standing in `cwd` as the command did, for `session` (the
/// command line's `--session`).
pub fn read(cwd: &Path, session: Option<&str>) -> Result<Reading> {
    let said = Said::default();
    let mut ctx = Context::discover_from(cwd)?;
    ctx.session_flag = session.map(str::to_owned);
    ctx.ui = crate::ui::Ui::to(said.clone());
    let listed = listing::listing(
        &ctx,
        &Query {
            all: true,
            ..Query::default()
        },
    )?;
    let mut warnings = Vec::new();
    let mut agents = agents::list(&ctx).unwrap_or_else(|err| {
        warnings.push(crate::error::render(&err).0);
        Vec::new()
    });
    for agent in &mut agents {
        agent.worktree = crate::paths::real_or_same(&agent.worktree);
    }
    let groups = groups(&ctx, &mut warnings);
    warnings.extend(said.lines());
    Ok(Reading {
        rows: listed.listing.worktrees,
        mine: listed.mine,
        agents,
        groups,
        warnings,
    })
}

/// Each worktree a fleet or a pipeline run made, with the group it shows under. A state file
/// that does not read is said, and its worktrees stay ungrouped.
fn groups(ctx: &Context, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let state_dir = ctx.state_dir();
    let mut groups = Vec::new();
    match crate::fleet::state::all(&state_dir) {
        Ok(fleets) => {
            for (_, state) in fleets {
                for worktree in state.worktrees.iter().filter(|w| w.repo.is_none()) {
                    groups.push((worktree.name.clone(), format!("fleet {}", state.name)));
                }
            }
        }
        Err(err) => warnings.push(crate::error::render(&err).0),
    }
    match crate::pipeline::record::all(&state_dir) {
        Ok(runs) => {
            // Newest first: a worktree a later run took over shows under that run.
            for (_, run) in runs.into_iter().rev() {
                for stage in &run.stages {
                    for name in stage.agents.iter().filter_map(|a| a.worktree.as_ref()) {
                        groups.push((name.clone(), format!("pipeline {}", run.id)));
                    }
                }
            }
        }
        Err(err) => warnings.push(crate::error::render(&err).0),
    }
    groups
}

/// What the reading said through its `Ui`, kept line by line.
#[derive(Clone, Default)]
pub(super) struct Said(Arc<Mutex<Vec<u8>>>);

impl Said {
    pub(super) fn lines(&self) -> Vec<String> {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|l| l.trim_start_matches("warning: ").to_owned())
            .filter(|l| !l.is_empty())
            .collect()
    }
}

impl Write for Said {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut kept) = self.0.lock() {
            kept.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
