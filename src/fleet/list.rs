//! `fleet ls`: each fleet and its agents as they stand now (running, exited with its code, or
//! gone), read from the fleet's state, the processes and the registry (for the port blocks).
//! Also finds a fleet by name for the other commands. It never writes.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::state::{self, Fleet, Run, State, WorktreeState};
use crate::error::refuse_with_hint;
use crate::paths::real_or_same;
use crate::ports::Block;
use crate::registry::{Backend, Registry, Store};
use crate::repo::Context;
use crate::{clock, names};

/// One fleet, as `fleet ls` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct FleetRow {
    pub name: String,
    pub slug: String,
    pub manifest: String,
    pub started: u64,
    /// `up`, or `down` once `fleet down` took it down.
    pub status: &'static str,
    pub down: Option<u64>,
    pub agents: Vec<AgentRow>,
    /// The worktrees it made that are still there, with why each was kept.
    pub worktrees: Vec<WorktreeState>,
    /// Its folder: state, logs and the shared folder.
    pub folder: PathBuf,
}

/// One agent of a fleet.
#[derive(Debug, Clone, Serialize)]
pub struct AgentRow {
    pub name: String,
    /// Its name in `git berth agents`.
    pub agent: String,
    pub runtime: String,
    pub background: bool,
    /// `pending`, `running`, `exited` or `gone`.
    pub state: Run,
    /// Its exit code, once its supervisor recorded one.
    pub exit: Option<i32>,
    /// The signal that ended it, once recorded.
    pub signal: Option<i32>,
    pub worktree: Option<String>,
    pub path: Option<PathBuf>,
    pub branch: Option<String>,
    /// Seconds it ran (until now while it runs).
    pub elapsed: Option<u64>,
    /// Its worktree's port block, when it has one.
    pub ports: Option<Block>,
    pub pid: Option<u32>,
    pub backend: Option<Backend>,
    pub pane: Option<String>,
    pub log: Option<PathBuf>,
    /// Its `max_cost` in US dollars: advisory, as no runtime berth starts takes a budget.
    pub max_cost: Option<String>,
    /// Why its launch failed, when it did.
    pub error: Option<String>,
}

impl AgentRow {
    /// Its state in words: `running`, `exited 0`, `exited (signal 15)`, `gone`, `pending`.
    pub fn said(&self) -> String {
        match (self.state, self.exit, self.signal) {
            (Run::Exited, Some(code), _) => format!("exited {code}"),
            (Run::Exited, None, Some(sig)) => format!("exited (signal {sig})"),
            (Run::Pending, ..) if self.error.is_some() => "failed".to_owned(),
            (state, ..) => state.as_str().to_owned(),
        }
    }
}

/// The fleets of this repository, or only the one named.
pub fn list(ctx: &Context, only: Option<&str>) -> Result<Vec<FleetRow>> {
    let fleets = match only {
        Some(name) => vec![find(ctx, name)?],
        None => state::all(&ctx.state_dir())?,
    };
    let registry = Store::new(ctx.state_dir()).load()?;
    let now = clock::now();
    Ok(fleets
        .into_iter()
        .map(|(fleet, state)| {
            // A worktree made in a clone is in the clone's registry; a clone since deleted
            // has none to read.
            let mut registries = vec![registry.clone()];
            let mut seen: Vec<&std::path::Path> = Vec::new();
            for clone in state.worktrees.iter().filter_map(|w| w.repo.as_deref()) {
                if seen.contains(&clone) {
                    continue;
                }
                seen.push(clone);
                if let Ok(there) = Context::discover_from(clone)
                    && let Ok(r) = Store::new(there.state_dir()).load()
                {
                    registries.push(r);
                }
            }
            row(&fleet, state, &registries, now)
        })
        .collect())
}

fn row(fleet: &Fleet, state: State, registries: &[Registry], now: u64) -> FleetRow {
    let agents = state
        .agents
        .iter()
        .map(|a| AgentRow {
            name: a.name.clone(),
            agent: a.agent.clone(),
            runtime: a.runtime.clone(),
            background: a.background,
            state: a.run(),
            exit: a.exit,
            signal: a.signal,
            worktree: a.worktree.clone(),
            path: a.path.clone(),
            branch: a.branch.clone(),
            elapsed: a.elapsed(now),
            ports: a.worktree.as_deref().and_then(|w| {
                registries
                    .iter()
                    .flat_map(|r| &r.worktrees)
                    .find(|r| {
                        r.name == w
                            && a.path
                                .as_ref()
                                .is_none_or(|p| real_or_same(p) == real_or_same(&r.path))
                    })
                    .and_then(|r| r.ports)
            }),
            pid: a.pid,
            backend: a.backend,
            pane: a.pane.clone(),
            log: a.log.clone(),
            max_cost: a.max_cost.clone(),
            error: a.error.clone(),
        })
        .collect();
    FleetRow {
        name: state.name.clone(),
        slug: fleet.slug(),
        manifest: state.manifest.clone(),
        started: state.started,
        status: if state.is_up() { "up" } else { "down" },
        down: state.down,
        agents,
        worktrees: state.worktrees,
        folder: fleet.dir.clone(),
    }
}

/// The fleet `name` (by its name or its slug), or a refusal that says how to see them.
pub fn find(ctx: &Context, name: &str) -> Result<(Fleet, State)> {
    let slug = crate::slug::slug(name).unwrap_or_else(|_| name.to_owned());
    let fleet = Fleet::new(&ctx.state_dir(), &slug);
    match fleet.load()? {
        Some(state) => Ok((fleet, state)),
        None => Err(refuse_with_hint(
            format!("no fleet named '{name}'"),
            format!("see the fleets with {} fleet ls", names::TOOL),
        )),
    }
}

/// The fleet `name`, or without a name the one fleet that `pick` accepts (`what` says what it
/// is, for the refusal when there is none, or more than one).
pub fn find_or_only(
    ctx: &Context,
    name: Option<&str>,
    what: &str,
    pick: impl Fn(&State) -> bool,
    command: &str,
) -> Result<(Fleet, State)> {
    if let Some(name) = name {
        return find(ctx, name);
    }
    let mut fleets: Vec<(Fleet, State)> = state::all(&ctx.state_dir())?
        .into_iter()
        .filter(|(_, s)| pick(s))
        .collect();
    match fleets.len() {
        1 => Ok(fleets.remove(0)),
        0 => Err(refuse_with_hint(
            format!("no fleet is {what}"),
            format!("see the fleets with {} fleet ls", names::TOOL),
        )),
        n => Err(refuse_with_hint(
            format!(
                "{n} fleets are {what}: {}",
                fleets
                    .iter()
                    .map(|(f, _)| f.slug())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!("name one: {} fleet {command} <fleet>", names::TOOL),
        )),
    }
}
