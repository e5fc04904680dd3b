//! `git berth install`: write the project's worktree hooks (or the clone's own, with `--local`),
//! trust what it wrote, print the paths. With no option it shows the hooks in force and where
//! each comes from. It never stages or commits.

use std::io::Write;

use anyhow::Result;

use crate::hooks::{self, Origin};
use crate::names;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// Command the setup hook runs in each new worktree
    #[arg(long, value_name = "CMD")]
    pub setup: Option<String>,
    /// Command the teardown hook runs in the primary checkout when a worktree goes
    #[arg(long, value_name = "CMD")]
    pub teardown: Option<String>,
    /// How many ports each worktree gets (1-1000)
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u16).range(1..=i64::from(names::MAX_PORTS))
    )]
    pub ports: Option<u16>,
    /// Command `ship` runs on each landing's merged result, in a scratch worktree, before the trunk
    /// moves
    #[arg(long, value_name = "CMD")]
    pub gate: Option<String>,
    /// Write to <common dir>/worktree-hooks, for this clone only, instead of .worktree-hooks
    #[arg(long)]
    pub local: bool,
    /// Print JSON: {"written": [paths], "hooks": [{"name", "value", "location", "committed"}]}
    #[arg(long)]
    pub json: bool,
}

/// What `install --json` prints: the files written (none when only showing), and the hooks in
/// force afterwards.
#[derive(Debug, serde::Serialize)]
struct Report {
    written: Vec<std::path::PathBuf>,
    hooks: Vec<Shown>,
}

#[derive(Debug, serde::Serialize)]
struct Shown {
    name: &'static str,
    /// The command, the number of ports, or the seeded paths.
    value: String,
    location: String,
    /// Whether the commit checked out holds this hook as it is: a new worktree runs the hooks
    /// of the commit it starts from, so an uncommitted one does nothing there yet. Null for a
    /// local hook, which needs no commit.
    committed: Option<bool>,
}

/// A hook as `install` shows it: its command, its port count or its seeded paths, and whether it
/// is committed (`committed` holds the hooks of the commit checked out).
fn shown(hook: &hooks::Hook, committed: Option<&hooks::Hooks>) -> Shown {
    let value = match hook.name {
        names::HOOK_PORTS => hook.ports().map(|n| n.to_string()).unwrap_or_default(),
        names::HOOK_SEED => {
            let text = String::from_utf8_lossy(&hook.content);
            let paths: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect();
            paths.join(", ")
        }
        _ => hook
            .command()
            .unwrap_or_else(|| "(a script of its own)".to_owned()),
    };
    Shown {
        name: hook.name,
        value,
        location: hook.location(),
        committed: (!hook.is_local()).then(|| {
            committed
                .and_then(|c| c.get(hook.name))
                .is_some_and(|c| c.content == hook.content)
        }),
    }
}

/// The hooks of the commit checked out here, to tell committed hooks from the rest.
fn committed_hooks(ctx: &Context) -> Option<hooks::Hooks> {
    let head = crate::git::head(&ctx.repo)?;
    hooks::in_force(&ctx.common_dir, Origin::Commit(&ctx.repo, head)).ok()
}

pub fn run(ctx: &Context, args: &InstallArgs, out: &mut dyn Write) -> Result<()> {
    let checkout = crate::worktree::checkout_here(ctx)?;
    if args.setup.is_none()
        && args.teardown.is_none()
        && args.ports.is_none()
        && args.gate.is_none()
    {
        let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(&checkout))?;
        if in_force.iter().next().is_none() {
            ctx.ui.status(format_args!(
                "no worktree hooks; add some with {} install --setup <cmd> [--teardown <cmd>] [--ports <n>]",
                names::TOOL
            ));
        }
        let committed = committed_hooks(ctx);
        let hooks: Vec<Shown> = in_force
            .iter()
            .map(|h| shown(h, committed.as_ref()))
            .collect();
        if args.json {
            return super::write_json(
                out,
                &Report {
                    written: Vec::new(),
                    hooks,
                },
            );
        }
        for h in &hooks {
            let note = if h.committed == Some(false) {
                "; not committed, so new worktrees do not run it yet"
            } else {
                ""
            };
            writeln!(out, "{:<9} {}  ({}{note})", h.name, h.value, h.location)?;
        }
        if hooks.iter().any(|h| h.committed == Some(false)) {
            ctx.ui.hint(hooks::UNCOMMITTED_HINT);
        }
        return Ok(());
    }
    let dir = if args.local {
        hooks::local_dir(&ctx.common_dir)
    } else {
        hooks::checkout_dir(&checkout)
    };
    // Every option is checked before anything is written.
    if let Some(gate) = &args.gate {
        hooks::check_gate(gate)?;
    }
    let mut written = hooks::install(
        &dir,
        args.setup.as_deref(),
        args.teardown.as_deref(),
        args.ports,
    )?;
    if let Some(gate) = &args.gate {
        written.push(hooks::install_gate(&dir, gate)?);
    }
    // What install writes is the user's own decision: trust it.
    let origin = Origin::Checkout(&checkout);
    let in_force = hooks::in_force(&ctx.common_dir, origin)?;
    let scripts: Vec<&hooks::Hook> = [&in_force.setup, &in_force.teardown, &in_force.gate]
        .into_iter()
        .flatten()
        .filter(|h| {
            written
                .iter()
                .any(|w| h.location() == w.display().to_string())
        })
        .collect();
    hooks::trust(&ctx.common_dir, &scripts)?;
    if args.json {
        super::write_json(
            out,
            &Report {
                written: written.clone(),
                hooks: {
                    let committed = committed_hooks(ctx);
                    in_force
                        .iter()
                        .map(|h| shown(h, committed.as_ref()))
                        .collect()
                },
            },
        )?;
    } else {
        for path in &written {
            writeln!(out, "{}", path.display())?;
        }
    }
    if !args.local {
        ctx.ui.hint(crate::hooks::UNCOMMITTED_HINT);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Args as _;

    #[test]
    fn the_help_for_ports_names_the_same_limit_the_parser_enforces() {
        let cmd = InstallArgs::augment_args(clap::Command::new("install"));
        let ports = cmd.get_arguments().find(|a| a.get_id() == "ports").unwrap();
        let help = ports.get_help().unwrap().to_string();
        assert!(
            help.contains(&format!("(1-{})", names::MAX_PORTS)),
            "{help}"
        );
    }
}
