//! `git berth prune`: forget managed worktrees whose folder is gone, and drop git admin entries
//! that point nowhere, as `git worktree prune` does. It never touches a worktree that exists.

use std::io::Write;

use anyhow::Result;

use crate::git::worktrees;
use crate::inventory;
use crate::registry::Store;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Say what would be pruned, change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
}

pub fn run(ctx: &Context, args: &PruneArgs, out: &mut dyn Write) -> Result<()> {
    let store = Store::new(ctx.state_dir());
    let verb = |done: &'static str, would: &'static str| if args.dry_run { would } else { done };

    if !args.dry_run {
        crate::worktree::lock(ctx)?;
    }
    let stale = worktrees::stale_admin_entries(&ctx.common_dir)?;
    for entry in &stale {
        writeln!(
            out,
            "{} worktrees/{}: {}",
            verb("removed", "would remove"),
            entry.id,
            entry.reason
        )?;
    }
    if !args.dry_run {
        worktrees::drop_admin_entries(&ctx.common_dir, &stale)?;
    }

    let gone = |registry: &crate::registry::Registry| -> Result<Vec<String>> {
        Ok(inventory::entries(ctx, registry, false)?
            .into_iter()
            .filter(|e| !e.present && !e.path.exists())
            .map(|e| e.name)
            .collect())
    };
    let forgotten = if args.dry_run {
        let registry = store.load()?;
        let names = gone(&registry)?;
        names
            .into_iter()
            .filter_map(|n| registry.find(&n).cloned())
            .collect()
    } else {
        store.update(|registry| {
            let names = gone(registry)?;
            Ok(names
                .iter()
                .filter_map(|n| registry.remove(n))
                .collect::<Vec<_>>())
        })?
    };
    if !args.dry_run {
        for record in &forgotten {
            if let Some(primary) = &ctx.primary
                && let Err(err) = crate::worktree::bring_up::teardown(ctx, record, primary)
            {
                crate::error::warn(format_args!(
                    "teardown of '{}' failed: {err:#}",
                    record.name
                ));
            }
        }
    }
    let port_store = crate::ports::Store::machine()?;
    let mut freed: Vec<crate::ports::Entry> = Vec::new();
    for record in forgotten.iter().filter(|r| r.ports.is_some()) {
        if args.dry_run {
            freed.extend(
                port_store
                    .list_for(&ctx.common_dir)?
                    .into_iter()
                    .filter(|e| e.name == record.name),
            );
        } else {
            freed.extend(port_store.free(&ctx.common_dir, &record.name)?);
        }
    }
    // Blocks of worktrees gone by other means, also in clones since deleted.
    // No ports file: no block anywhere on this machine, and nothing to create.
    let others = if !port_store.path().exists() {
        Vec::new()
    } else if args.dry_run {
        port_store.prunable()?
    } else {
        port_store.prune()?
    };
    for entry in others {
        if !freed.contains(&entry) {
            freed.push(entry);
        }
    }
    for entry in &freed {
        writeln!(
            out,
            "{} ports {}-{} of '{}' ({})",
            verb("freed", "would free"),
            entry.first,
            entry.first + entry.units * crate::names::PORT_UNIT - 1,
            entry.name,
            entry.path.display()
        )?;
    }
    for record in &forgotten {
        writeln!(
            out,
            "{} worktree '{}': {} is gone (branch {} kept)",
            verb("forgot", "would forget"),
            record.name,
            record.path.display(),
            record.branch
        )?;
    }
    if stale.is_empty() && forgotten.is_empty() && freed.is_empty() {
        eprintln!("nothing to prune");
    }
    Ok(())
}
