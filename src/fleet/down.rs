//! `fleet down` and `fleet clean`: end a fleet's agents (SIGTERM to each one's process group,
//! SIGKILL after the grace), give their supervisors time to record how they ended, then
//! atrium's teardown through the lifecycle layer's judge: a worktree that is clean and merged
//! is removed (teardown hook, port block freed, landed branch deleted), every other one is kept
//! with the reason. Nothing unmerged is ever destroyed. `clean` applies the same test later.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use super::clones;
use super::state::{Fleet, State};
use crate::clock;
use crate::orchestrator::folder_trust;
use crate::orchestrator::terminal::{self, Ended, Target};
use crate::registry::Store;
use crate::repo::Context;
use crate::worktree::sweep::{self, Outcome};

/// How long supervisors get, once their agents ended, to record the end and run `on_exit`
/// before their own process groups are ended.
pub const SUPERVISOR_GRACE: Duration = Duration::from_secs(10);

/// What `down` did to one agent.
#[derive(Debug, Clone, Serialize)]
pub struct StoppedAgent {
    pub name: String,
    pub agent: String,
    pub pid: Option<u32>,
    /// `stopped`, `killed`, `already_gone`, `no_start_time` or `still_running`.
    pub outcome: Ended,
}

/// What `fleet down` did.
#[derive(Debug, Serialize)]
pub struct Report {
    pub fleet: String,
    pub slug: String,
    pub agents: Vec<StoppedAgent>,
    /// Each of the fleet's worktrees: removed, or kept with the reason.
    pub worktrees: Vec<Outcome>,
    /// The fleet's folder, kept: its logs and shared folder.
    pub folder: PathBuf,
}

/// Take the fleet down: end its agents within `grace`, wait for their supervisors, forget the
/// agents that ended, remove the worktrees that hold nothing of value, and record it as down.
pub fn down(ctx: &Context, fleet: &Fleet, state: &State, grace: Duration) -> Result<Report> {
    let agents = end_agents(fleet, state, grace)?;
    forget_ended(ctx, state)?;
    let outcomes = teardown(ctx, fleet, state)?;
    fleet.update(|s| {
        s.down = Some(clock::now());
        Ok(())
    })?;
    Ok(Report {
        fleet: state.name.clone(),
        slug: fleet.slug(),
        agents,
        worktrees: outcomes,
        folder: fleet.dir.clone(),
    })
}

/// End every agent `state` records (its whole process group: SIGTERM, then SIGKILL after
/// `grace`), then give the supervisors time to record the ends and run the end commands, and end
/// any still running. How each agent's end went: `fleet down` and an interrupted pipeline run.
pub fn end_agents(fleet: &Fleet, state: &State, grace: Duration) -> Result<Vec<StoppedAgent>> {
    let targets: Vec<Option<Target>> = state
        .agents
        .iter()
        .map(|a| {
            a.pid.map(|pid| Target {
                pid,
                start: a.pid_start,
            })
        })
        .collect();
    let live: Vec<Target> = targets.iter().flatten().copied().collect();
    let mut ended = terminal::end(&live, grace).into_iter();
    let agents: Vec<StoppedAgent> = state
        .agents
        .iter()
        .zip(&targets)
        .map(|(a, target)| StoppedAgent {
            name: a.name.clone(),
            agent: a.agent.clone(),
            pid: a.pid,
            outcome: match target {
                Some(_) => ended.next().unwrap_or(Ended::AlreadyGone),
                None => Ended::AlreadyGone,
            },
        })
        .collect();
    end_supervisors(fleet, SUPERVISOR_GRACE)?;
    Ok(agents)
}

/// Wait up to `grace` for the supervisors still running (they record the end, then run the
/// agent's end commands), then end each one's process group, end commands included.
fn end_supervisors(fleet: &Fleet, grace: Duration) -> Result<()> {
    let until = Instant::now() + grace;
    loop {
        let Some(state) = fleet.load()? else {
            return Ok(());
        };
        let left: Vec<Target> = state
            .agents
            .iter()
            .filter(|a| a.supervisor_alive())
            .filter_map(|a| {
                a.supervisor.map(|pid| Target {
                    pid,
                    start: a.supervisor_start,
                })
            })
            .collect();
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() >= until {
            terminal::end(&left, Duration::from_secs(2));
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Drop the fleet's agents that no longer run from the registry's agents: they are done, and
/// `git berth agents` would list them as gone for ever.
/// An agent working in a clone is in the clone's registry.
fn forget_ended(ctx: &Context, state: &State) -> Result<()> {
    for repo in repos_of(state) {
        let there = clones::open(ctx, repo.as_deref())?;
        let mut locked = Store::new(there.state_dir()).lock()?;
        let before = locked.agents.len();
        locked
            .agents
            .retain(|a| a.alive() || !state.agents.iter().any(|f| f.agent == a.name));
        if locked.agents.len() != before {
            locked.save()?;
        }
    }
    Ok(())
}

/// Remove the fleet's worktrees that hold nothing of value, keep the others with their reasons,
/// and record in the state which are left and why. A worktree berth no longer manages (removed
/// by hand since) is dropped from the state.
/// Each repository's worktrees go through that repository's own registry: this one's, or the
/// clone's (where its worktrees were made).
pub fn teardown(ctx: &Context, fleet: &Fleet, state: &State) -> Result<Vec<Outcome>> {
    let mut all: Vec<(Option<PathBuf>, Outcome)> = Vec::new();
    let mut asked: Vec<(Option<PathBuf>, String)> = Vec::new();
    for repo in repos_of(state) {
        let names: Vec<String> = state
            .worktrees
            .iter()
            .filter(|w| w.repo == repo)
            .map(|w| w.name.clone())
            .collect();
        let there = clones::open(ctx, repo.as_deref())?;
        for outcome in sweep::clean_named(&there, &names, true)? {
            all.push((repo.clone(), outcome));
        }
        asked.extend(names.into_iter().map(|n| (repo.clone(), n)));
    }
    let mut gone_trust = Vec::new();
    fleet.update(|s| {
        gone_trust.clear();
        s.worktrees.retain_mut(|w| {
            let stays = match all.iter().find(|(r, o)| o.name == w.name && *r == w.repo) {
                Some((_, o)) => {
                    w.kept = o.reason.clone();
                    o.reason.is_some()
                }
                // Not managed any more: nothing is left to take down.
                None => !asked.iter().any(|(r, n)| *n == w.name && *r == w.repo),
            };
            if !stays {
                gone_trust.append(&mut w.trusted);
            }
            stays
        });
        Ok(())
    })?;
    // The runtimes' trust records for folders that are gone: a failure to take one out loses
    // nothing, so it is said and the teardown goes on.
    for grant in &gone_trust {
        if let Err(err) = folder_trust::revoke(grant) {
            ctx.ui.warn(format_args!(
                "cannot take the trust record for {} out of {}: {}",
                grant.key,
                grant.file.display(),
                crate::error::render(&err).0
            ));
        }
    }
    Ok(all.into_iter().map(|(_, o)| o).collect())
}

/// The repositories the fleet's worktrees live in, this one (none) first, each once.
fn repos_of(state: &State) -> Vec<Option<PathBuf>> {
    let mut out: Vec<Option<PathBuf>> = vec![None];
    for w in &state.worktrees {
        if !out.contains(&w.repo) {
            out.push(w.repo.clone());
        }
    }
    out
}
