//! `git berth path`: the path of one managed worktree, alone on stdout, for `cd "$(...)"`.

use std::io::Write;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::registry::{Registry, Store};
use crate::repo::Context;
use crate::{inventory, names};

#[derive(Debug, clap::Args)]
pub struct PathArgs {
    /// Name of the worktree
    pub name: String,
}

pub fn run(ctx: &Context, args: &PathArgs, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entry = find(ctx, &registry, &args.name)?;
    if !entry.present {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' is missing: {} is gone",
                args.name,
                entry.path.display()
            ),
            format!(
                "{} prune, then {} add '{}'",
                names::TOOL,
                names::TOOL,
                args.name
            ),
        ));
    }
    writeln!(out, "{}", entry.path.display())?;
    Ok(())
}

/// The managed worktree called `name` (or whose slug is `name`), reconciled with git.
pub fn find(ctx: &Context, registry: &Registry, name: &str) -> Result<inventory::Entry> {
    let record = registry.find(name).ok_or_else(|| unknown(name))?;
    let one = Registry {
        version: registry.version,
        worktrees: vec![record.clone()],
    };
    inventory::entries(ctx, &one, false)?
        .pop()
        .ok_or_else(|| unknown(name))
}

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
