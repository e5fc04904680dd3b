//! Prune: forget managed worktrees whose checkout is gone (running their teardown), drop git admin
//! entries that point nowhere, and free the port blocks of worktrees that no longer exist, also
//! those of clones since deleted; finish removals that a kill cut short. [`plan`] only reads; the
//! command prints it (`--dry-run`) or hands it to [`carry_out`], which acts under the registry
//! lock. It never touches a worktree that exists: a folder whose `.git` is gone is forgotten and
//! left as it is, unless a removal of it had begun. A branch under the prefix that no worktree
//! has goes when its work is all landed ([`super::sweep::orphans`]).

use anyhow::Result;

use crate::git::worktrees::{self, Stale};
use crate::inventory;
use crate::ports;
use crate::registry::{Record, Registry, Store};
use crate::repo::Context;

/// What prune does (or, once carried out, did); `prune --json` prints it.
#[derive(Debug, Default, serde::Serialize)]
pub struct Plan {
    /// git admin entries under `<common dir>/worktrees/` that point nowhere.
    pub admin: Vec<Stale>,
    /// Removals cut short by a kill, finished (what was left deleted, the record forgotten).
    pub finish: Vec<Record>,
    /// Managed worktrees whose checkout is gone (the folder, or its `.git`).
    pub forget: Vec<Record>,
    /// Port blocks of worktrees that no longer exist, on this machine.
    pub free: Vec<ports::Entry>,
    /// Agents berth launched whose process has ended (`agents` shows them as gone until now).
    pub agents: Vec<String>,
    /// Branches under the prefix that no worktree has: deleted when landed, else kept.
    pub branches: Vec<super::sweep::Orphan>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.admin.is_empty()
            && self.finish.is_empty()
            && self.forget.is_empty()
            && self.free.is_empty()
            && self.agents.is_empty()
            && self.branches.is_empty()
    }
}

/// The worktrees of `registry` whose checkout is gone: the folder, or its `.git` (git may still
/// list them, as prunable); not one a live add is making. One where an agent berth launched still runs is not forgotten: its
/// record is how the agent is told apart, and it is a live claim.
fn gone(ctx: &Context, registry: &Registry) -> Result<Vec<String>> {
    let agents = Store::new(ctx.state_dir()).agents()?;
    Ok(inventory::managed(ctx, registry)?
        .into_iter()
        .filter(|e| !e.present)
        // A live add makes its checkout with the lock given back: not there yet is not gone.
        .filter(|e| e.record.creating.as_ref().and_then(|c| c.maker()).is_none())
        .filter(|e| {
            let running = super::judge::live_agent(&agents, &e.path);
            if let Some(agent) = &running {
                ctx.ui.warn(format_args!(
                    "kept '{}': its folder is gone, but agent '{agent}' still runs there",
                    e.name()
                ));
            }
            running.is_none()
        })
        .map(|e| e.record.name)
        .collect())
}

/// The blocks to free: those of the forgotten worktrees, then every other block whose worktree
/// is gone machine-wide (`others`), each once.
fn blocks(mut of_forgotten: Vec<ports::Entry>, others: Vec<ports::Entry>) -> Vec<ports::Entry> {
    for entry in others {
        if !of_forgotten.contains(&entry) {
            of_forgotten.push(entry);
        }
    }
    of_forgotten
}

/// What prune would do now; changes nothing.
pub fn plan(ctx: &Context) -> Result<Plan> {
    let store = Store::new(ctx.state_dir());
    let registry = store.load()?;
    let finish: Vec<Record> = store
        .removing()?
        .into_iter()
        .filter(super::remove::cut_short)
        .collect();
    // A finished removal's record is gone by the time orphan branches are looked for.
    let mut unfinished = registry.clone();
    for record in &finish {
        unfinished.remove(&record.name);
    }
    let branches = super::sweep::orphans(ctx, &unfinished, true)?;
    let forget: Vec<Record> = gone(ctx, &registry)?
        .into_iter()
        .filter_map(|n| registry.find(&n).cloned())
        .filter(|r| !finish.contains(r))
        .collect();
    let port_store = ports::Store::machine()?;
    let of_forgotten: Vec<ports::Entry> = if forget.iter().any(|r| r.ports.is_some()) {
        // The machine's blocks of this repository, read once for every forgotten worktree.
        port_store
            .list_for(&ctx.common_dir)?
            .into_iter()
            .filter(|e| forget.iter().any(|r| r.ports.is_some() && r.name == e.name))
            .collect()
    } else {
        Vec::new()
    };
    // No ports file: no block anywhere on this machine, and nothing to create.
    let others = if port_store.path().exists() {
        port_store.prunable()?
    } else {
        Vec::new()
    };
    Ok(Plan {
        admin: worktrees::stale_admin_entries(&ctx.common_dir)?,
        finish,
        forget,
        free: blocks(of_forgotten, others),
        agents: store
            .agents()?
            .into_iter()
            .filter(|a| !a.alive())
            .map(|a| a.name)
            .collect(),
        branches,
    })
}

/// Prune: roll back dead adds, finish cut-short removals, drop stale admin entries, forget gone
/// worktrees (judged again under the lock, then torn down), free blocks. Returns what was done.
pub fn carry_out(ctx: &Context) -> Result<Plan> {
    let (locked, finish) = super::lock_reporting(ctx)?;
    let admin = worktrees::stale_admin_entries(&ctx.common_dir)?;
    worktrees::drop_admin_entries(&ctx.common_dir, &admin)?;
    // Under the lock (no add makes a branch meanwhile), once no gone checkout holds a branch.
    let branches = super::sweep::orphans(ctx, &locked.registry, false)?;
    drop(locked);
    let forget = {
        let mut locked = Store::new(ctx.state_dir()).lock()?;
        // A worktree a live process removes is its to finish, teardown and all.
        let names: Vec<String> = gone(ctx, &locked.registry)?
            .into_iter()
            .filter(|n| {
                locked
                    .registry
                    .find(n)
                    .is_some_and(|r| locked.removed_by(r).is_none())
            })
            .collect();
        let forget: Vec<Record> = names
            .iter()
            .filter_map(|n| locked.registry.remove(n))
            .collect();
        if !forget.is_empty() {
            locked.save()?;
        }
        for record in &forget {
            super::ownership::lapse(ctx, record);
        }
        forget
    };
    for record in &forget {
        if let Some(primary) = &ctx.primary
            && let Err(err) = super::bring_up::teardown(ctx, record, primary)
        {
            ctx.ui.warn(format_args!(
                "teardown of '{}' failed: {}",
                record.name,
                crate::error::render(&err).0
            ));
        }
    }
    let port_store = ports::Store::machine()?;
    let mut of_forgotten = Vec::new();
    for record in forget.iter().filter(|r| r.ports.is_some()) {
        of_forgotten.extend(port_store.free(&ctx.common_dir, &record.name)?);
    }
    let others = if port_store.path().exists() {
        port_store.prune()?
    } else {
        Vec::new()
    };
    // Agents whose process has ended: their records go, under the lock, the live stay.
    let mut locked = super::lock(ctx)?;
    let (ended, live): (Vec<_>, Vec<_>) = std::mem::take(&mut locked.agents)
        .into_iter()
        .partition(|a| !a.alive());
    locked.agents = live;
    if !ended.is_empty() {
        locked.save()?;
    }
    Ok(Plan {
        admin,
        finish,
        forget,
        free: blocks(of_forgotten, others),
        agents: ended.into_iter().map(|a| a.name).collect(),
        branches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str) -> ports::Entry {
        ports::Entry {
            common_dir: "/r/.git".into(),
            name: name.into(),
            path: format!("/w/{name}").into(),
            first: 24000,
            units: 1,
            count: 10,
            pid: 0,
            reserved: 0,
        }
    }

    #[test]
    fn a_block_freed_with_its_worktree_is_listed_once() {
        let freed = blocks(vec![block("a")], vec![block("a"), block("b")]);
        assert_eq!(freed, vec![block("a"), block("b")]);
    }
}
