//! The gate: the command a candidate must pass before the trunk moves, run in a scratch worktree
//! brought up like any other and removed after, and the clearing of scratch worktrees whose ship
//! was killed. It never touches the trunk, and never removes a scratch worktree whose ship lives.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use super::report::{Outcome, Request};
use crate::error::refuse_with_hint;
use crate::git::{self, land};
use crate::hooks::{self, Hook, Origin, Source};
use crate::registry::Store;
use crate::repo::Context;
use crate::worktree::{self, create::AddRequest};
use crate::{clock, names, process};

/// The gate in force: `--gate`, else `berth.gate`, else the gate hook of the trunk's tip
/// (checked for trust when it runs; none there is no gate).
pub(super) enum Gate {
    Command(Hook),
    FromHook,
}

pub(super) fn configured_gate(ctx: &Context, request: &Request) -> Gate {
    let given = |command: &str, whence: &str| Hook {
        name: names::HOOK_GATE,
        content: hooks::script(command).into_bytes(),
        // The user's own command, as a local hook is: it needs no trust.
        source: Source::Local(PathBuf::from(whence)),
    };
    if let Some(command) = &request.gate {
        return Gate::Command(given(command, "--gate"));
    }
    if let Some(command) = ctx.config_string(names::config::GATE) {
        return Gate::Command(given(&command, names::config::GATE));
    }
    Gate::FromHook
}

/// Run the gate on `candidate` in a scratch worktree brought up like any other, removed after
/// either way. `passed` or `none`; a failure is a refusal naming the log.
pub(super) fn run_gate(
    ctx: &Context,
    record: &crate::registry::Record,
    tip: gix::ObjectId,
    candidate: gix::ObjectId,
    gate: &Gate,
    outcome: &mut Outcome,
) -> Result<&'static str> {
    let hook = match gate {
        Gate::Command(hook) => hook.clone(),
        Gate::FromHook => {
            match hooks::in_force(&ctx.common_dir, Origin::Commit(&ctx.repo, tip))?.gate {
                Some(hook) => {
                    hooks::ensure_trusted(&ctx.common_dir, &[&hook])?;
                    hook
                }
                None => return Ok("none"),
            }
        }
    };
    let logs = ctx.state_dir().join(names::SHIP_DIR);
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let log = logs.join(format!(
        "{}-{}-{}.log",
        record.slug,
        git::short(&candidate.to_string()),
        clock::now()
    ));
    // The ship's pid and its start time: a scratch worktree whose ship is gone is anyone's to
    // remove, and a pid used again by another process does not keep it.
    let me = std::process::id();
    let scratch = format!(
        "{}{me}.{}-{}",
        names::SHIP_SCRATCH_PREFIX,
        process::start_time(me).unwrap_or_default(),
        record.slug
    );
    ctx.ui.status(format_args!(
        "gating '{}' at {} in a scratch worktree (log: {})",
        record.name,
        git::short(&candidate.to_string()),
        log.display()
    ));
    let added = worktree::create::add(
        ctx,
        &AddRequest {
            name: scratch.clone(),
            base: Some(candidate.to_string()),
            branch: None,
            no_reuse: true,
            no_setup: false,
            quiet: true,
            seed: Vec::new(),
        },
    );
    let result = added.and_then(|added| {
        crate::worktree::test_pause("BERTH_TEST_PAUSE_GATE_MS");
        // The gate sees the worktree it gates (its name, branch and base) in the scratch
        // worktree's folder, with the scratch worktree's ports.
        let scratch_record = Store::new(ctx.state_dir())
            .load()?
            .find(&scratch)
            .cloned()
            .with_context(|| format!("the scratch worktree '{scratch}' has no record"))?;
        let env = worktree::bring_up::hook_env(
            ctx,
            &crate::registry::Record {
                name: record.name.clone(),
                path: added.path.clone(),
                branch: record.branch.clone(),
                base_commit: Some(tip),
                ..scratch_record
            },
        );
        let timeout = hooks::timeout(ctx.config_string(names::config::HOOK_TIMEOUT).as_deref())?;
        let logged = Hook {
            content: [
                format!("exec >>{} 2>&1\n", hooks::quote(&log.display().to_string())).into_bytes(),
                hook.content.clone(),
            ]
            .concat(),
            ..hook.clone()
        };
        hooks::run(&logged, &added.path, &env, timeout)
    });
    remove_scratch(ctx, &scratch);
    keep_newest_logs(&logs, names::GATE_LOGS_KEPT);
    match result {
        Ok(()) => Ok("passed"),
        Err(err) => {
            outcome.gate = "failed";
            outcome.gate_log = Some(log.clone());
            let (line, _) = crate::error::render(&err);
            // The scratch worktree may have failed before the gate ran (its setup): say so there.
            if !log.exists() {
                let _ = std::fs::write(&log, format!("{line}\n"));
            }
            Err(refuse_with_hint(
                format!(
                    "the gate failed on '{}' ({line}); {} was not moved; its output: {}",
                    record.name,
                    git::short(&tip.to_string()),
                    log.display()
                ),
                format!(
                    "read the log, fix the branch, commit, have it reviewed, then {} ship '{}'",
                    names::TOOL,
                    record.name
                ),
            ))
        }
    }
}

/// Remove all but the newest `keep` gate logs in `dir` (by modification time), so that the folder
/// does not grow with every landing. Best effort: a log that cannot be removed stays.
fn keep_newest_logs(dir: &std::path::Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "log"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    logs.sort();
    let excess = logs.len().saturating_sub(keep);
    for (_, path) in logs.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// Remove a scratch worktree and its branch, whatever is in it, through the lifecycle's removal
/// (teardown, checkout, admin entry, record, port block), without judging it first: it holds
/// nothing of anyone's. A failure is only a warning (the next `ship`, or `prune`, removes it).
fn remove_scratch(ctx: &Context, scratch: &str) {
    let removed = (|| -> Result<()> {
        let locked = worktree::lock(ctx)?;
        if locked.registry.find(scratch).is_none() {
            return Ok(());
        }
        let entry = worktree::find(ctx, &locked.registry, scratch)?;
        let seen = worktree::remove::seen_now(ctx, &entry)?;
        worktree::remove::mark_and_carry_out(ctx, locked, &entry, true, true, &seen)?;
        Ok(())
    })();
    if let Err(err) = removed {
        ctx.ui.warn(format_args!(
            "could not remove the scratch worktree '{scratch}': {}",
            crate::error::render(&err).0
        ));
    }
}

/// Remove the scratch worktrees of `ship` runs that are gone (killed while gating), and the
/// branches of those whose removal a kill cut short.
pub(super) fn remove_dead_scratch(ctx: &Context) {
    let dead = |name: &str| {
        let owner = name
            .strip_prefix(names::SHIP_SCRATCH_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|owner| owner.split_once('.'));
        owner.is_some_and(|(pid, start)| {
            let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
                return false;
            };
            pid != std::process::id() && !process::alive(pid, Some(start))
        })
    };
    // Taking the lock first rolls back a killed add of a scratch worktree and finishes a killed
    // removal of one, so that what is left below is a whole worktree or a lone branch.
    let Ok(registry) = worktree::lock(ctx).map(|locked| locked.registry.clone()) else {
        return;
    };
    for record in registry.worktrees.iter().filter(|r| dead(&r.name)) {
        remove_scratch(ctx, &record.name);
    }
    let prefix = format!("{}{}", ctx.branch_prefix(), names::SHIP_SCRATCH_PREFIX);
    for (branch, tip) in land::branches_starting_with(&ctx.repo, &prefix).unwrap_or_default() {
        let name = &branch[ctx.branch_prefix().len()..];
        if dead(name)
            && Store::new(ctx.state_dir())
                .load()
                .is_ok_and(|r| r.find(name).is_none())
            && let Err(err) = git::delete_branch(&ctx.repo, &branch, tip, &ctx.ui)
        {
            ctx.ui.warn(format_args!(
                "could not delete the scratch branch {branch}: {}",
                crate::error::render(&err).0
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_gate_logs_are_kept_and_other_files_stay() {
        let dir = std::env::temp_dir().join(format!("berth-gate-logs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let epoch = std::time::UNIX_EPOCH;
        for n in 0..5u64 {
            let file = std::fs::File::create(dir.join(format!("w-{n}.log"))).unwrap();
            // Named against their age, so that the order kept is the time's, not the name's.
            file.set_modified(epoch + std::time::Duration::from_secs(1_000 - n))
                .unwrap();
        }
        std::fs::write(dir.join("landing.toml"), "").unwrap();
        keep_newest_logs(&dir, 2);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["landing.toml", "w-0.log", "w-1.log"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
