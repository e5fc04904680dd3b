//! Bring up and tear down: trust, the port block, seeding, the setup hook; and the teardown hook
//! when a worktree goes. `setup` brings an existing worktree up to date (safe to repeat), adopting
//! a linked worktree berth did not make.

use std::path::Path;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::hooks::{self, Hook, Hooks, Origin};
use crate::paths::real_or_same;
use crate::ports::{self, Block, PortRange};
use crate::registry::{self, Locked, Record, SetupState, Store};
use crate::repo::Context;
use crate::ui::Ui;
use crate::{names, seed, slug};

/// Bring the worktree `name` (or, with `None`, the one the caller stands in, adopted if berth did
/// not make it) up to date with the hooks: port block, seeding, setup. Returns its record.
pub fn setup(ctx: &Context, name: Option<&str>) -> Result<Record> {
    let store = Store::new(ctx.state_dir());
    let mut locked = super::lock(ctx)?;
    let name = match name {
        Some(name) => locked
            .registry
            .find(name)
            .map(|r| r.name.clone())
            .ok_or_else(|| super::unknown_in(ctx, &locked.registry, name))?,
        None => adopt_here(ctx, &mut locked)?,
    };
    let record = locked.registry.find(&name).expect("found above").clone();
    super::refuse_if_busy(&locked, &record)?;
    if !record.path.is_dir() {
        return Err(refuse_with_hint(
            format!(
                "worktree '{name}' is missing: {} is gone",
                record.path.display()
            ),
            format!("{} prune", names::TOOL),
        ));
    }
    if !record.path.join(".git").exists() {
        return Err(refuse_with_hint(
            format!(
                "worktree '{name}' is broken: {} ({})",
                super::judge::broken_why(&record.path),
                record.path.display()
            ),
            super::judge::broken_hint(&name),
        ));
    }
    let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(&record.path))?;
    if in_force.iter().next().is_none() {
        // Setting up changes nothing then: say why, instead of printing the path alone.
        ctx.ui.warn(format_args!(
            "no worktree hook is in force in '{name}': its checkout has no .worktree-hooks and \
             this clone has no local ones"
        ));
        ctx.ui.hint(crate::hooks::UNCOMMITTED_HINT);
    }
    ensure_trusted(ctx, &in_force)?;
    let tear_down = give_ports(ctx, &record, &in_force)?.apply(&mut locked.registry, &name);
    let entry = locked.registry.find_exact_mut(&name).expect("found above");
    entry.setup = in_force.setup.as_ref().map(|_| SetupState::Pending);
    let record = entry.clone();
    let saved = locked.save();
    drop(locked);
    tear_down.run(&ctx.ui);
    saved?;
    bring_up_again(ctx, &store, &record, &in_force, Again::Yes, &[])?;
    Ok(record)
}

/// Whether a bring-up runs over a worktree that has been brought up before (`setup` run again),
/// where a seeded path already there is the worktree's own copy, not news.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Again {
    Yes,
    No,
}

/// The managed worktree the caller stands in; a linked worktree berth did not make is adopted
/// (registered under its folder's name).
fn adopt_here(ctx: &Context, locked: &mut Locked) -> Result<String> {
    let current = ctx
        .current
        .clone()
        .filter(|_| ctx.standing == crate::repo::Standing::Linked);
    let Some(current) = current else {
        return Err(refuse_with_hint(
            "name the worktree to set up; you are not in a linked worktree",
            format!("{} setup <name>", names::TOOL),
        ));
    };
    if let Some(record) = locked
        .registry
        .worktrees
        .iter()
        .find(|r| real_or_same(&r.path) == current)
    {
        return Ok(record.name.clone());
    }
    let name = current
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let slug = slug::slug(&name)?;
    if locked.registry.worktrees.iter().any(|r| r.slug == slug) {
        return Err(refuse_with_hint(
            format!(
                "cannot adopt {}: a worktree named '{name}' is registered already",
                current.display()
            ),
            format!(
                "set up the registered one with {} setup '{name}', or rename this folder with git worktree move",
                names::TOOL
            ),
        ));
    }
    let head = crate::git::head(&ctx.repo);
    let branch = crate::git::head_branch(&ctx.repo).unwrap_or_else(|| "HEAD".to_owned());
    let me = ctx.session()?;
    let now = crate::clock::now();
    locked.registry.worktrees.push(Record {
        name: name.clone(),
        slug,
        path: current.clone(),
        branch: branch.clone(),
        base_ref: branch,
        base_commit: head,
        created: now,
        claim: Some(me.claim(now)),
        creating: None,
        setup: None,
        ports: None,
        branch_given: true,
    });
    locked.save()?;
    ctx.ui
        .status(format_args!("adopted {} as '{name}'", current.display()));
    Ok(name)
}

/// A setup or teardown hook that is not trusted stops the command before anything is made.
pub fn ensure_trusted(ctx: &Context, in_force: &Hooks) -> Result<()> {
    let scripts: Vec<&Hook> = [&in_force.setup, &in_force.teardown]
        .into_iter()
        .flatten()
        .collect();
    hooks::ensure_trusted(&ctx.common_dir, &scripts)
}

/// Give, keep, resize or free the worktree's port block as the project's `ports` hook asks.
/// Called under the registry lock (the ports lock is taken after it).
pub fn give_ports(ctx: &Context, record: &Record, in_force: &Hooks) -> Result<Given> {
    try_give_ports(ctx, record, in_force)?.map_err(|exhausted| exhausted.refusal())
}

/// The block a worktree got, and the gone worktrees of this clone whose blocks it took over: the
/// caller forgets them (prune must not tear them down again, nor show their old block) and runs
/// their teardowns once the registry's lock is given back.
#[derive(Debug, Default)]
pub struct Given {
    pub block: Option<Block>,
    pub forget: Vec<String>,
    tear_down: TearDown,
}

impl Given {
    /// Record the block on `name` and forget the worktrees whose blocks were taken over; returns
    /// their teardowns, to run once the registry's lock is given back.
    pub fn apply(self, registry: &mut registry::Registry, name: &str) -> TearDown {
        for gone in &self.forget {
            if gone != name {
                registry.remove(gone);
            }
        }
        if let Some(entry) = registry.find_exact_mut(name) {
            entry.ports = self.block;
        }
        self.tear_down
    }
}

/// [`give_ports`], telling "no run of units is free" apart from other errors, so that `add` can
/// make room first.
pub fn try_give_ports(
    ctx: &Context,
    record: &Record,
    in_force: &Hooks,
) -> Result<Result<Given, ports::Exhausted>> {
    let store = ports::Store::machine()?;
    let Some(wanted) = in_force.ports()? else {
        if record.ports.is_some() {
            store.free(&ctx.common_dir, &record.name)?;
        }
        return Ok(Ok(Given::default()));
    };
    let range = PortRange::from_config(ctx.config_string(names::config::PORT_RANGE).as_deref())?;
    let reserved =
        match store.reserve(&range, &ctx.common_dir, &record.name, &record.path, wanted)? {
            Ok(reserved) => reserved,
            Err(exhausted) => return Ok(Err(exhausted)),
        };
    let mut forget = Vec::new();
    let mut tear_down = Vec::new();
    for gone in reserved.taken_over {
        if gone.common_dir == ctx.common_dir {
            forget.push(gone.name.clone());
        }
        if gone.clone_exists() {
            tear_down.push(gone);
        }
    }
    Ok(Ok(Given {
        block: Some(reserved.block),
        forget,
        tear_down: TearDown(tear_down),
    }))
}

/// The teardowns of gone worktrees whose blocks were taken over, to run once the registry's lock
/// is given back: a hook may take minutes, and never runs under that lock.
#[derive(Debug, Default)]
#[must_use = "run the teardowns once the registry's lock is given back"]
pub struct TearDown(Vec<ports::Entry>);

impl TearDown {
    /// Run them, a failure said on `ui`.
    pub fn run(self, ui: &Ui) {
        for gone in &self.0 {
            teardown_gone(gone, ui);
        }
    }
}

/// The teardown of a worktree whose block is taken over: run from its clone's primary checkout,
/// best effort (its worktree is gone already).
fn teardown_gone(entry: &ports::Entry, ui: &Ui) {
    let Ok(mut other) = Context::discover_from(&entry.common_dir) else {
        return;
    };
    other.ui = ui.clone();
    let Some(primary) = other.primary.clone() else {
        return;
    };
    let record = Record {
        name: entry.name.clone(),
        slug: entry.name.clone(),
        path: entry.path.clone(),
        branch: String::new(),
        base_ref: String::new(),
        base_commit: None,
        created: 0,
        claim: None,
        creating: None,
        setup: None,
        ports: Some(entry.block()),
        branch_given: false,
    };
    if let Err(err) = teardown(&other, &record, &primary) {
        ui.warn(format_args!(
            "teardown of gone worktree '{}' failed: {}",
            entry.name,
            crate::error::render(&err).0
        ));
    }
}

/// The environment both hooks get (and `ship`'s gate, for the worktree it gates).
pub fn hook_env(ctx: &Context, record: &Record) -> Vec<(&'static str, String)> {
    let mut env = vec![
        (names::hook_env::NAME, record.name.clone()),
        (names::hook_env::PATH, record.path.display().to_string()),
        (names::hook_env::BRANCH, record.branch.clone()),
        (names::hook_env::BASE, record.base_hex()),
        (
            names::hook_env::PRIMARY,
            ctx.primary
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
    ];
    if let Some(block) = record.ports {
        env.push((names::hook_env::PORT, block.first.to_string()));
        env.push((names::hook_env::PORTS, block.count.to_string()));
    }
    env
}

/// Seed the new worktree from the primary checkout, then run the setup hook in it, recording how
/// it went. A failed setup keeps the worktree and is an error naming the hook and its exit code.
pub fn bring_up(ctx: &Context, store: &Store, record: &Record, in_force: &Hooks) -> Result<()> {
    bring_up_again(ctx, store, record, in_force, Again::No, &[])
}

/// [`bring_up`], seeding `more` (a fleet's `worktree_seed`) beside what the seed hook lists.
pub fn bring_up_seeding(
    ctx: &Context,
    store: &Store,
    record: &Record,
    in_force: &Hooks,
    more: &[String],
) -> Result<()> {
    bring_up_again(ctx, store, record, in_force, Again::No, more)
}

fn bring_up_again(
    ctx: &Context,
    store: &Store,
    record: &Record,
    in_force: &Hooks,
    again: Again,
    more: &[String],
) -> Result<()> {
    if let Some(primary) = &ctx.primary {
        seed_from(ctx, primary, &record.path, in_force, again, more)?;
    }
    let Some(setup) = &in_force.setup else {
        return Ok(());
    };
    let timeout = hooks::timeout(ctx.config_string(names::config::HOOK_TIMEOUT).as_deref())?;
    let ran = hooks::run(setup, &record.path, &hook_env(ctx, record), timeout);
    let state = if ran.is_ok() {
        SetupState::Done
    } else {
        SetupState::Failed
    };
    // The result belongs to the record the hook ran for: if that worktree was removed meanwhile,
    // or removed and made again under its name, the record now there is not this one's.
    store.update(|registry| {
        if let Some(entry) = registry.find_exact_mut(&record.name)
            && same_worktree(entry, record)
        {
            entry.setup = Some(state);
        }
        Ok(())
    })?;
    ran.map_err(|err| {
        let (line, _) = crate::error::render(&err);
        refuse_with_hint(
            format!(
                "{line}; worktree '{}' is kept at {}",
                record.name,
                record.path.display()
            ),
            format!(
                "fix the hook, then run it again: {} setup '{}'",
                names::TOOL,
                record.name
            ),
        )
    })
}

/// Whether `now` is the record `then` was, not a later worktree of the same name: made at the
/// same time, at the same path, held by the same claim (a worktree made again within the same
/// second by another session still differs by its claim).
fn same_worktree(now: &Record, then: &Record) -> bool {
    now.created == then.created && now.path == then.path && now.claim == then.claim
}

/// Run the teardown hook (from the worktree if it still exists, else the primary checkout) in the
/// primary checkout. A missing hook is nothing to do.
pub fn teardown(ctx: &Context, record: &Record, primary: &Path) -> Result<()> {
    let from = hooks::teardown_checkout(&record.path, primary);
    let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(from))?;
    let Some(hook) = &in_force.teardown else {
        return Ok(());
    };
    hooks::ensure_trusted(&ctx.common_dir, &[hook])?;
    let timeout = hooks::timeout(ctx.config_string(names::config::HOOK_TIMEOUT).as_deref())?;
    hooks::run(hook, primary, &hook_env(ctx, record), timeout)
}

/// Bring the seed file's paths, `.worktreeinclude`'s matches and `more` (copied unless the seed
/// file says otherwise) over from the primary checkout.
fn seed_from(
    ctx: &Context,
    primary: &Path,
    worktree: &Path,
    in_force: &Hooks,
    again: Again,
    more: &[String],
) -> Result<()> {
    let mut lines = match &in_force.seed {
        Some(hook) => seed::parse(&String::from_utf8_lossy(&hook.content)).map_err(|reason| {
            refuse_with_hint(
                format!("bad seed hook {}: {reason}", hook.location()),
                "write one path per line, optionally followed by link or copy",
            )
        })?,
        None => Vec::new(),
    };
    for path in more {
        if !lines.iter().any(|l| &l.path == path) {
            lines.push(seed::Line {
                path: path.clone(),
                mode: None,
            });
        }
    }
    let include = std::fs::read(primary.join(names::WORKTREE_INCLUDE)).ok();
    if lines.is_empty() && include.is_none() {
        return Ok(());
    }
    let tracked = crate::git::tracked_paths(&ctx.repo)?;
    if let Some(patterns) = include {
        for path in seed::included(primary, &patterns, &tracked) {
            if !lines.iter().any(|l| l.path == path) {
                lines.push(seed::Line { path, mode: None });
            }
        }
    }
    let (items, skipped) = seed::plan(
        &lines,
        &tracked,
        |rel| seed::kind_at(primary, rel),
        |rel| seed::kind_at(worktree, rel),
    );
    for (path, skip) in skipped {
        if again == Again::Yes && skip == seed::Skip::Exists {
            continue;
        }
        ctx.ui
            .warn(format_args!("not seeding {path}: {}", skip.reason()));
    }
    seed::apply(primary, worktree, &items, &ctx.ui)?;
    // A seeded copy git does not ignore is an untracked file: the worktree reads as dirty, and
    // `remove` and `clean` keep it. Say so once, with the fix, rather than leave them puzzling.
    let seeded: Vec<_> = items.iter().map(|i| (i.rel.clone(), i.is_dir)).collect();
    let shown = crate::git::ignore::not_ignored(worktree, &seeded)?;
    if !shown.is_empty() {
        let list: Vec<String> = shown.iter().map(|p| p.display().to_string()).collect();
        ctx.ui.warn(format_args!(
            "seeded {} not ignored by git, so the worktree counts as dirty and remove and clean \
             keep it; add {} to .gitignore",
            list.join(", "),
            if list.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(())
}
