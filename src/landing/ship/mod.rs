//! Ship: land approved worktrees on the trunk, one after another. For each: check the review and
//! the checkout, build the candidate on the trunk's tip in memory, run the gate on it in a scratch
//! worktree, then (under the ship lock, briefly) move the trunk by compare-and-swap, bring the
//! primary checkout along, and log the landing; last, remove the worktree and its branch.
//!
//! It never moves the trunk to a candidate the gate has not passed, nor over a trunk that moved
//! since the candidate was built (it builds and gates again). A journal written before the trunk
//! moves lets the next `ship` or `prune` finish a landing a kill cut short ([`clear_killed`]),
//! and remove the scratch worktree and branch of a ship killed while gating.
//!
//! This file runs the landings in turn; `plan` decides (reads only), `gate` runs the gate in its
//! scratch worktree, `journal` moves the trunk and finishes, `report` holds the data.

mod gate;
mod journal;
mod plan;
mod report;

use anyhow::Result;

pub use journal::recover;
pub use plan::{by_rank, given_message, squash_message};
pub use report::{Outcome, Report, Request};

use gate::{Gate, configured_gate, remove_dead_scratch, run_gate};
use journal::{Committed, commit_landing};
use plan::{accept, approved, chosen, message, order, worktree_checkout};

use crate::error::{Refusal, refuse_with_hint};
use crate::git::land::{self, Built, Strategy};
use crate::git::{self, graph, status};
use crate::landing::log::{self, Landing};
use crate::ownership::FileOwner;
use crate::registry::Store;
use crate::repo::Context;
use crate::ui::Ui;
use crate::{clock, names, worktree};

/// How many times a landing is built and gated again when the trunk moved under it.
pub const MAX_ATTEMPTS: usize = 3;

/// Land what `request` names. Refusals of single worktrees are in the report (and said on
/// stderr); the others still land.
pub fn ship(ctx: &Context, request: &Request) -> Result<Report> {
    let trunk = ctx.trunk();
    if !request.dry_run {
        clear_killed(ctx)?;
    }
    // A landing is logged after the trunk moves: a log that cannot take it stops the ship now,
    // before anything lands, not after.
    log::read(&ctx.common_dir)?;
    let names = chosen(ctx, request)?;
    let (order, forecast) = order(ctx, &trunk, names, request.all_approved)?;
    let gate = configured_gate(ctx, request);
    let mut report = Report {
        trunk: trunk.clone(),
        dry_run: request.dry_run,
        order: order.clone(),
        forecast,
        worktrees: Vec::new(),
        landed: 0,
        would_land: 0,
        refused: 0,
    };
    // A dry run lands each candidate on the trunk as the one before it left it, in memory, so
    // what conflicts with an earlier landing is foretold as a refusal, as the real run meets it.
    let mut dry = request.dry_run.then(|| DryRun {
        repo: ctx.repo.clone().with_object_memory(),
        tip: None,
    });
    for name in &order {
        let outcome = land_one(ctx, &trunk, name, request, &gate, dry.as_mut());
        match outcome.outcome {
            "landed" => report.landed += 1,
            "would land" => report.would_land += 1,
            _ => report.refused += 1,
        }
        report.worktrees.push(outcome);
    }
    Ok(report)
}

/// A dry run's trunk: the repository whose new objects stay in memory, and the trunk's tip after
/// the candidates that would land so far (`None` until one would).
struct DryRun {
    repo: gix::Repository,
    tip: Option<gix::ObjectId>,
}

/// Land one worktree, or say why not.
fn land_one(
    ctx: &Context,
    trunk: &str,
    name: &str,
    request: &Request,
    gate: &Gate,
    dry: Option<&mut DryRun>,
) -> Outcome {
    let registry = match Store::new(ctx.state_dir()).load() {
        Ok(r) => r,
        Err(err) => return failed(&ctx.ui, name, "", request.strategy, &err),
    };
    let Some(record) = registry.find(name).cloned() else {
        return failed(
            &ctx.ui,
            name,
            "",
            request.strategy,
            &worktree::unknown_in(ctx, &registry, name),
        );
    };
    let mut outcome = Outcome::new(&record.name, &record.branch, request.strategy);
    // One whose teardown runs is its remover's: landing it now would land work that is going.
    if let Ok(Some(pid)) = Store::new(ctx.state_dir()).removed_by(&record) {
        return refused(
            &ctx.ui,
            outcome,
            &worktree::being_removed_refusal(&record, pid),
        );
    }
    match try_land(ctx, trunk, &record, request, gate, dry, &mut outcome) {
        Ok(()) => outcome,
        Err(err) => refused(&ctx.ui, outcome, &err),
    }
}

fn failed(ui: &Ui, name: &str, branch: &str, strategy: Strategy, err: &anyhow::Error) -> Outcome {
    refused(ui, Outcome::new(name, branch, strategy), err)
}

/// `outcome`, refused for `err`, which is said on `ui` as every error is (the command goes on
/// with the next worktree).
fn refused(ui: &Ui, outcome: Outcome, err: &anyhow::Error) -> Outcome {
    ui.error(err);
    let (message, hint) = crate::error::render(err);
    let kind = crate::error::kind(err);
    outcome.refused(&Refusal {
        message,
        hint,
        kind,
    })
}

fn try_land(
    ctx: &Context,
    trunk: &str,
    record: &crate::registry::Record,
    request: &Request,
    gate: &Gate,
    mut dry: Option<&mut DryRun>,
    outcome: &mut Outcome,
) -> Result<()> {
    let name = &record.name;
    let branch = &record.branch;
    let head = graph::branch_tip(&ctx.repo, branch).ok_or_else(|| {
        refuse_with_hint(
            format!("worktree '{name}' has no branch {branch} to land"),
            format!("see it with {} list", names::TOOL),
        )
    })?;
    let verdict = approved(ctx, name, branch, head)?;
    outcome.reviewer = Some(verdict.reviewer.clone());
    let checkout = worktree_checkout(ctx, record, head)?;
    if status::is_dirty(&checkout)? {
        return Err(refuse_with_hint(
            format!("worktree '{name}' has uncommitted changes or untracked files"),
            format!(
                "commit them (and have the new head reviewed), or clean them up, then {} ship '{name}'",
                names::TOOL
            ),
        ));
    }
    for attempt in 1..=MAX_ATTEMPTS {
        outcome.attempts = attempt;
        let simulated = dry.as_ref().and_then(|d| d.tip);
        let repo = dry.as_ref().map_or(&ctx.repo, |d| &d.repo);
        let tip = simulated
            .or_else(|| graph::branch_tip(&ctx.repo, trunk))
            .ok_or_else(|| {
                refuse_with_hint(
                    format!("the trunk '{trunk}' does not exist"),
                    format!(
                        "set the trunk with git config {} <branch>",
                        names::config::TRUNK
                    ),
                )
            })?;
        let message = match &request.message {
            Some(given) => given_message(given),
            None => message(repo, request.strategy, branch, trunk, tip, head)?,
        };
        // A dry run's candidate is written to its memory, where the next one is built on it.
        let built = land::build(repo, tip, head, request.strategy, &message, true)?;
        let owned = match &built {
            Built::Conflicts(files) => crate::worktree::ownership::owners_of(ctx, files),
            _ => Vec::new(),
        };
        if let Built::Conflicts(files) = &built
            && !request.dry_run
        {
            tell_agent_of_conflicts(ctx, name, &record.path, trunk, files);
            tell_owners_of_conflicts(ctx, name, &record.path, trunk, &owned);
        }
        let candidate = accept(name, branch, trunk, request.strategy, built, owned, outcome)?;
        outcome.old_tip = Some(tip.to_string());
        if let Some(dry) = dry.as_mut() {
            dry.tip = Some(candidate);
            outcome.outcome = "would land";
            return Ok(());
        }
        outcome.new_tip = Some(candidate.to_string());
        outcome.gate = run_gate(ctx, record, tip, candidate, gate, outcome)?;
        let landing = Landing {
            worktree: name.clone(),
            branch: branch.clone(),
            trunk: trunk.to_owned(),
            old_tip: tip.to_string(),
            new_tip: candidate.to_string(),
            strategy: request.strategy.as_str().to_owned(),
            reviewer: verdict.reviewer.clone(),
            gate: outcome.gate.to_owned(),
            head: head.to_string(),
            time: clock::now(),
        };
        match commit_landing(ctx, &landing, tip, candidate, head, request.keep, outcome)? {
            Committed::Landed => {
                outcome.outcome = "landed";
                return Ok(());
            }
            Committed::Raced(now) => {
                let now = now.map_or_else(
                    || "gone".to_owned(),
                    |id| git::short(&id.to_string()).to_owned(),
                );
                if attempt < MAX_ATTEMPTS {
                    ctx.ui.status(format_args!(
                        "{trunk} moved from {} to {now} while '{name}' was gated; building and gating again (attempt {} of {MAX_ATTEMPTS})",
                        git::short(&tip.to_string()),
                        attempt + 1
                    ));
                }
            }
        }
    }
    Err(refuse_with_hint(
        format!(
            "{trunk} kept moving while '{name}' was gated ({MAX_ATTEMPTS} attempts); nothing of it landed"
        ),
        format!("try again: {} ship '{name}'", names::TOOL),
    ))
}

/// Tell the live agents berth launched in worktree `name` (at `path`) which files conflict with
/// what is on the trunk. Best effort: the refusal itself is on stderr and in `--json` anyway.
pub fn tell_agent_of_conflicts(
    ctx: &Context,
    name: &str,
    path: &std::path::Path,
    trunk: &str,
    files: &[String],
) {
    let text = format!(
        "{}: your branch in worktree '{name}' conflicts with {trunk} in {}; it was not landed. \
         Merge {trunk} into your branch, resolve those files, commit, and ask for a review again.",
        names::TOOL,
        files.join(", ")
    );
    match crate::orchestrator::agents::tell_worktree(ctx, path, &text) {
        Ok(told) if !told.is_empty() => {
            ctx.ui.status(format_args!(
                "told agent {} which files conflict",
                told.join(", ")
            ));
        }
        Ok(_) => {}
        Err(err) => ctx.ui.warn(format_args!(
            "could not tell the agents in '{name}' about the conflict: {}",
            crate::error::render(&err).0
        )),
    }
}

/// Tell the live agents of the worktrees that own files `name`'s landing conflicts on (other than
/// `name` itself, at `path`) which of their files they are. Best effort, like the above.
fn tell_owners_of_conflicts(
    ctx: &Context,
    name: &str,
    path: &std::path::Path,
    trunk: &str,
    owned: &[FileOwner],
) {
    let mut owners: Vec<&FileOwner> = owned
        .iter()
        .filter(|o| crate::paths::real_or_same(&o.path) != crate::paths::real_or_same(path))
        .collect();
    owners.dedup_by(|a, b| a.worktree == b.worktree);
    for owner in owners {
        let files: Vec<&str> = owned
            .iter()
            .filter(|o| o.worktree == owner.worktree)
            .map(|o| o.file.as_str())
            .collect();
        let text = format!(
            "{}: worktree '{name}' could not land on {trunk}: it conflicts in {}, which your \
             worktree '{}' owns. Settle with its agent or the master who changes them.",
            names::TOOL,
            files.join(", "),
            owner.worktree
        );
        match crate::orchestrator::agents::tell_worktree(ctx, &owner.path, &text) {
            Ok(told) if !told.is_empty() => ctx.ui.status(format_args!(
                "told agent {}, whose worktree '{}' owns {}, about the conflict",
                told.join(", "),
                owner.worktree,
                files.join(", ")
            )),
            Ok(_) => {}
            Err(err) => ctx.ui.warn(format_args!(
                "could not tell the agents in '{}' about the conflict: {}",
                owner.worktree,
                crate::error::render(&err).0
            )),
        }
    }
}

/// Clear up after `ship` runs that were killed: finish the landing one left half done (its
/// journal), and remove the scratch worktrees of those killed while gating. `prune` and every
/// `ship` call it.
pub fn clear_killed(ctx: &Context) -> Result<()> {
    recover(ctx)?;
    remove_dead_scratch(ctx);
    Ok(())
}
