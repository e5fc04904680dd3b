//! `git berth path`: the path of one managed worktree, alone on stdout, for `cd "$(...)"`.

use std::io::Write;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::names;
use crate::registry::Store;
use crate::repo::Context;
use crate::worktree::find;

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
