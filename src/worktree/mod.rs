//! The worktree lifecycle every caller shares: commands, the orchestrator and fleets create,
//! claim, bring up, judge and tear down worktrees through these functions, never through a
//! command file. Each step decides over plain data and keeps its effects thin; none prints to
//! stdout (people's notes go to stderr, data is returned).
//!
//! The API:
//! - [`lock`]: take the registry lock, roll back every `add` and finish every `remove` that
//!   died midway; every step that changes the registry starts here ([`lock_reporting`] also
//!   names the removals it finished).
//! - [`create::add`]: make (or reuse) a worktree from an [`create::AddRequest`], claimed, with
//!   its port block, seeding and setup; [`create::roll_back_dead_adds`] undoes a killed one.
//! - [`claim::claim`], [`claim::release`], [`claim::take`]: who holds a worktree.
//! - [`bring_up::setup`], [`bring_up::bring_up`], [`bring_up::give_ports`],
//!   [`bring_up::ensure_trusted`], [`bring_up::teardown`]: trust, ports, seeding, the hooks.
//! - [`judge::facts`] and [`judge::verdict`]: whether a worktree may go, and why not.
//! - [`remove::remove`], [`remove::mark_and_carry_out`], [`remove::carry_out`]: judge and mark
//!   under the lock, tear down with it given back, delete under it again;
//!   [`remove::finish_dead_removes`] finishes a killed one.
//! - [`sweep::clean`], [`sweep::sweep`], [`sweep::make_room`]: remove everything that holds
//!   nothing of value.
//! - [`prune::plan`], [`prune::carry_out`]: forget what is gone, free its ports.
//! - [`listing::listing`]: every worktree as `list --json` shows it (one status reader).
//! - [`ownership::own`], [`ownership::release`], [`ownership::listed`]: the paths a worktree
//!   owns; [`ownership::lapse`] ends them with the worktree.
//! - [`find`], [`unknown`]: look a worktree up by name, or say that there is none;
//!   [`refuse_if_busy`]: leave a worktree a live `remove` or `add` marked to it.

pub mod bring_up;
pub mod claim;
pub mod create;
pub mod judge;
pub mod listing;
pub mod ownership;
pub mod prune;
pub mod remove;
pub mod sweep;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::inventory;
use crate::names;
use crate::registry::{Locked, Record, Registry, Store};
use crate::repo::Context;

/// The registry, locked, with every `add` that died midway rolled back and every `remove` that
/// died midway finished.
pub fn lock(ctx: &Context) -> Result<Locked> {
    Ok(lock_reporting(ctx)?.0)
}

/// [`lock`], and the worktrees whose cut-short removal it finished.
pub fn lock_reporting(ctx: &Context) -> Result<(Locked, Vec<Record>)> {
    let mut locked = Store::new(ctx.state_dir()).lock()?;
    // Git's lock files a killed berth left (a ref's, `packed-refs.lock`, the index's) go first:
    // they would refuse the branch work below. Only those berth recorded taking.
    crate::git::locks::clear_dead(&ctx.common_dir, &ctx.ui);
    create::roll_back_dead_adds(ctx, &mut locked)?;
    let finished = remove::finish_dead_removes(ctx, &mut locked)?;
    Ok((locked, finished))
}

/// Refuse `record` while a live process removes it or makes it: a teardown and a checkout run
/// with the lock free, and what is there of the worktree is that process's.
pub fn refuse_if_busy(locked: &Locked, record: &Record) -> Result<()> {
    if let Some(pid) = record.creating.as_ref().and_then(|c| c.maker()) {
        return Err(refuse_with_hint(
            format!("worktree '{}' is being made by pid {pid}", record.name),
            format!(
                "wait for pid {pid} to finish its checkout; {} list shows the worktree once it is made",
                names::TOOL
            ),
        ));
    }
    match locked.removed_by(record) {
        None => Ok(()),
        Some(pid) => Err(being_removed_refusal(record, pid)),
    }
}

/// The refusal for `record`, which the live process `pid` is removing.
pub fn being_removed_refusal(record: &Record, pid: u32) -> anyhow::Error {
    refuse_with_hint(
        being_removed(record, pid),
        format!(
            "wait for pid {pid} to finish its teardown; {} list shows the worktree until it is gone",
            names::TOOL
        ),
    )
}

/// Why a worktree a live process removes is left alone, in one line.
pub fn being_removed(record: &Record, pid: u32) -> String {
    format!("worktree '{}' is being removed by pid {pid}", record.name)
}

/// The managed worktree `name` (by its name or its slug), as found on disk now.
pub fn find(ctx: &Context, registry: &Registry, name: &str) -> Result<inventory::Managed> {
    let record = registry
        .find(name)
        .ok_or_else(|| unknown_in(ctx, registry, name))?;
    let one = Registry {
        version: registry.version,
        worktrees: vec![record.clone()],
    };
    inventory::managed(ctx, &one)?
        .pop()
        .ok_or_else(|| unknown(name))
}

/// The refusal for a name berth does not know.
pub fn unknown(name: &str) -> anyhow::Error {
    refuse_with_hint(
        format!("no worktree named '{name}'"),
        format!(
            "see the names with {} list, or make it with {} add '{name}'",
            names::TOOL,
            names::TOOL
        ),
    )
}

/// The refusal for a name berth does not know, where git may: a linked worktree of that name
/// that berth does not manage (made with `git worktree add`, or its record lost) is named with
/// the way to adopt it, never with a hint to make another over it.
pub fn unknown_in(ctx: &Context, registry: &Registry, name: &str) -> anyhow::Error {
    match unmanaged_named(ctx, registry, name) {
        Some(path) => not_managed(name, &path),
        None => unknown(name),
    }
}

/// A linked worktree git knows whose folder is called `name` (or its slug) and that `registry`
/// has no record of.
pub fn unmanaged_named(
    ctx: &Context,
    registry: &Registry,
    name: &str,
) -> Option<std::path::PathBuf> {
    let slug = crate::slug::slug(name).ok();
    crate::git::worktrees::linked(&ctx.repo)
        .ok()?
        .into_iter()
        .filter(|l| l.exists && !registry.worktrees.iter().any(|r| r.path == l.path))
        .map(|l| l.path)
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n == name || slug.as_deref() == Some(n))
        })
}

/// The refusal for `name` when it is a linked worktree berth does not manage, at `path`.
pub fn not_managed(name: &str, path: &std::path::Path) -> anyhow::Error {
    refuse_with_hint(
        format!(
            "'{name}' is a linked worktree {} does not manage: {}",
            names::TOOL,
            path.display()
        ),
        format!(
            "adopt it (its work stays as it is): cd {} && {} setup",
            crate::hooks::quote(&path.display().to_string()),
            names::TOOL
        ),
    )
}

/// The checkout the command runs in (hooks are read and written there).
pub fn checkout_here(ctx: &Context) -> Result<std::path::PathBuf> {
    ctx.current.clone().ok_or_else(|| {
        refuse_with_hint(
            "there is no checkout here to hold .worktree-hooks (a bare repository)",
            format!(
                "run it in a worktree, or use {} install --local",
                names::TOOL
            ),
        )
    })
}

/// Sleep for the milliseconds the variable `var` names, after saying `paused` on stderr, so that
/// a test can kill the command at this step. Debug builds only: a release build ignores `var`.
pub(crate) fn test_pause(var: &str) {
    crate::git::locks::test_pause(var);
}
