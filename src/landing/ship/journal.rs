//! The landing's last step, under the ship lock: write the journal, move the trunk by
//! compare-and-swap, bring the primary checkout along, log the landing, then remove the worktree.
//! It never moves the trunk before the journal is written, nor removes a worktree that holds
//! anything but the head that landed; every step is safe to repeat after a kill.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use super::plan::{check_primary, primary_on};
use super::report::Outcome;
use crate::error::refuse_with_hint;
use crate::git::land::{self, Strategy};
use crate::git::{self, graph, refs, status};
use crate::landing::log::{self, Landing};
use crate::landing::review;
use crate::repo::Context;
use crate::worktree;
use crate::{names, statefile};

/// The landing under way, kept from before the trunk moves until the landing is logged.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    landing: Landing,
    /// The branch's head that landed: the worktree goes only while it still holds exactly this.
    head: String,
    /// `--keep`: the worktree stays.
    keep: bool,
}

fn journal_path(ctx: &Context) -> PathBuf {
    ctx.state_dir()
        .join(names::SHIP_DIR)
        .join(names::SHIP_JOURNAL)
}

/// The lock every landing's last step holds: the trunk, the primary checkout and the log move
/// together, and never two at once.
fn ship_lock(ctx: &Context) -> Result<crate::lockwait::Held> {
    let dir = ctx.state_dir().join(names::SHIP_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    crate::lockwait::lock(&dir.join(names::SHIP_LOCK), "another ship")
}

pub(super) enum Committed {
    Landed,
    Raced(Option<gix::ObjectId>),
}

/// The landing's last step, under the ship lock: refuse a dirty primary checkout that has the
/// trunk, write the journal, move the trunk from `tip` to `candidate` (or find it moved), bring
/// the primary along, log the landing, drop the journal.
pub(super) fn commit_landing(
    ctx: &Context,
    landing: &Landing,
    tip: gix::ObjectId,
    candidate: gix::ObjectId,
    head: gix::ObjectId,
    keep: bool,
    outcome: &mut Outcome,
) -> Result<Committed> {
    let lock = ship_lock(ctx)?;
    recover_locked(ctx)?;
    // Again under the lock: the log may have gone bad while the gate ran.
    log::read(&ctx.common_dir)?;
    let trunk = &landing.trunk;
    let now = graph::branch_tip(&ctx.repo, trunk);
    if now != Some(tip) {
        return Ok(Committed::Raced(now));
    }
    let primary = primary_on(ctx, trunk)?;
    if let Some(primary) = &primary {
        check_primary(primary, tip, candidate)?;
    }
    // Only the primary is brought along: a linked worktree on the trunk would seem to revert it.
    let elsewhere: Vec<String> = git::worktrees::checked_out_in(&ctx.repo, trunk)?
        .into_iter()
        .filter(|dir| Some(dir) != ctx.primary.as_ref())
        .map(|dir| dir.display().to_string())
        .collect();
    if !elsewhere.is_empty() {
        return Err(refuse_with_hint(
            format!(
                "{trunk} is checked out in {}, which ship does not bring along; nothing was landed",
                elsewhere.join(", ")
            ),
            "switch that worktree to another branch, then ship again",
        ));
    }
    let journal = journal_path(ctx);
    let text = toml::to_string(&Journal {
        landing: landing.clone(),
        head: head.to_string(),
        keep,
    })
    .context("cannot serialize the landing journal")?;
    statefile::write_atomic(&journal, text.as_bytes(), None)?;
    crate::worktree::test_pause("BERTH_TEST_PAUSE_LAND_MS");
    let message = format!(
        "{}: land {} ({})",
        names::TOOL,
        landing.worktree,
        landing.strategy
    );
    match refs::swap(
        &ctx.repo,
        &format!("refs/heads/{trunk}"),
        Some(tip),
        candidate,
        &message,
        &ctx.ui,
    )? {
        refs::Swap::Done => {}
        refs::Swap::Moved(now) => {
            let _ = std::fs::remove_file(&journal);
            return Ok(Committed::Raced(now));
        }
    }
    ctx.ui.status(format_args!(
        "landed '{}' on {trunk}: {}..{} ({}, gate {})",
        landing.worktree,
        git::short(&landing.old_tip),
        git::short(&landing.new_tip),
        landing.strategy,
        landing.gate
    ));
    // The trunk moved: from here on the worktree landed, whatever else fails. What `finish`
    // leaves undone stays in the journal for the next ship or `prune`.
    let landed = match finish(ctx) {
        Ok(landed) => landed,
        Err(err) => {
            let (message, hint) = crate::error::render(&err);
            let next =
                hint.unwrap_or_else(|| format!("{} prune finishes the landing", names::TOOL));
            let why = format!("{message}; {next}");
            ctx.ui.warn(format_args!(
                "worktree '{}' landed but stays: {why}",
                landing.worktree
            ));
            outcome.kept = Some(why);
            None
        }
    };
    // The worktree goes after the lock is given back: its teardown may take long, and other
    // landings need not wait for it. A kill before it leaves a landed worktree `clean` removes.
    drop(lock);
    if let Some(landed) = landed {
        remove_landed(ctx, &landed, outcome);
    }
    Ok(Committed::Landed)
}

/// A landing whose worktree is still to be removed.
struct Landed {
    name: String,
    branch: String,
    head: gix::ObjectId,
    keep: bool,
}

/// Finish the landing a journal records, under the ship lock: if the trunk moved to its new tip,
/// bring the primary along, log it and forget the review; if not, it never happened. Then drop
/// the journal. Every step is safe to repeat after a kill. Returns the landed worktree, for the
/// caller to remove.
fn finish(ctx: &Context) -> Result<Option<Landed>> {
    let path = journal_path(ctx);
    let Some(text) = statefile::read_text(&path, "landing journal")? else {
        return Ok(None);
    };
    let journal: Journal = toml::from_str(&text).map_err(|e| {
        statefile::corrupt(&path, "landing journal", &statefile::toml_reason(&text, &e))
    })?;
    let landing = &journal.landing;
    let parse = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).ok();
    let (old, new, head) = (
        parse(&landing.old_tip),
        parse(&landing.new_tip),
        parse(&journal.head),
    );
    // The trunk's ref lock and the primary's index lock, if a kill left them, are cleared here:
    // only those berth recorded taking, never another git command's.
    git::locks::clear_dead(&ctx.common_dir, &ctx.ui);
    let now = graph::branch_tip(&ctx.repo, &landing.trunk);
    let mut landed = None;
    if let (Some(old), Some(new), Some(head)) = (old, new, head)
        && now == Some(new)
    {
        // Tests stop here, the trunk moved and the primary not yet along, to kill it.
        crate::worktree::test_pause("BERTH_TEST_PAUSE_LANDED_MS");
        if let Some(primary) = primary_on(ctx, &landing.trunk)? {
            let held = ctx
                .state_dir()
                .join(names::SHIP_DIR)
                .join(names::SHIP_INDEX_HELD);
            land::bring_checkout_along(&primary, old, new, &held, &ctx.ui)?;
        }
        log::append(&ctx.common_dir, landing)?;
        if let Err(err) = review::forget(&ctx.repo, &landing.branch, &ctx.ui) {
            ctx.ui.warn(format_args!(
                "could not drop the review of '{}': {}",
                landing.worktree,
                crate::error::render(&err).0
            ));
        }
        landed = Some(Landed {
            name: landing.worktree.clone(),
            branch: landing.branch.clone(),
            head,
            keep: journal.keep,
        });
    }
    std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    Ok(landed)
}

/// Finish a landing a kill cut short (see [`finish`]).
pub fn recover(ctx: &Context) -> Result<()> {
    if !journal_path(ctx).exists() {
        return Ok(());
    }
    let _lock = ship_lock(ctx)?;
    recover_locked(ctx)
}

/// [`recover`] under the ship lock the caller holds.
fn recover_locked(ctx: &Context) -> Result<()> {
    if !journal_path(ctx).exists() {
        return Ok(());
    }
    ctx.ui
        .status("finishing a landing an earlier ship left half done");
    if let Some(landed) = finish(ctx)? {
        remove_landed(ctx, &landed, &mut Outcome::new("", "", Strategy::Squash));
    }
    Ok(())
}

/// After the trunk moved and the lock is given back: unless `keep`, remove the worktree and its
/// branch through the lifecycle layer, but only while it still holds exactly what landed.
fn remove_landed(ctx: &Context, landed: &Landed, outcome: &mut Outcome) {
    let (name, branch, head) = (landed.name.as_str(), landed.branch.as_str(), landed.head);
    if landed.keep {
        outcome.kept = Some("--keep".to_owned());
        return;
    }
    let kept = (|| -> Result<Option<String>> {
        let locked = worktree::lock(ctx)?;
        let Some(record) = locked.registry.find(name).cloned() else {
            return Ok(None);
        };
        let repo = git::config::open(&record.path)?;
        if git::head(&repo) != Some(head) || graph::branch_tip(&ctx.repo, branch) != Some(head) {
            return Ok(Some("it has commits since the landed head".to_owned()));
        }
        if status::is_dirty(&repo)? {
            return Ok(Some(
                "it has uncommitted changes since the landing".to_owned(),
            ));
        }
        // A live agent there is a live claim: its worktree is never taken from under it.
        if let Some(agent) = worktree::judge::live_agent(&locked.agents, &record.path) {
            return Ok(Some(format!(
                "agent '{agent}' still runs there; once it ends: {} remove --delete-branch '{name}'",
                names::TOOL
            )));
        }
        // Standing in the worktree that goes, work from the primary's side: once its admin
        // entry is gone, a repository opened in it no longer finds the branch to delete.
        let elsewhere;
        let ctx = if ctx.current.as_deref() == Some(record.path.as_path()) {
            let mut other =
                Context::discover_from(ctx.primary.as_deref().unwrap_or(&ctx.common_dir))?;
            other.session_flag = ctx.session_flag.clone();
            other.ui = ctx.ui.clone();
            elsewhere = other;
            &elsewhere
        } else {
            ctx
        };
        let entry = worktree::find(ctx, &locked.registry, name)?;
        worktree::remove::check_state_writable(&locked, record.ports.is_some())?;
        // It goes only while it holds the landed head, after its teardown too; its branch is
        // deleted only from there.
        let landed = worktree::judge::Seen {
            head: Some(head),
            tip: Some(head),
        };
        match worktree::remove::mark_and_carry_out(ctx, locked, &entry, false, true, &landed)? {
            worktree::remove::Carried::Removed(note) => {
                ctx.ui.status(format_args!(
                    "removed worktree '{name}' ({}); {note}",
                    record.path.display()
                ));
                Ok(None)
            }
            worktree::remove::Carried::Kept(why) => Ok(Some(why)),
        }
    })();
    let why = match kept {
        Ok(None) => return,
        Ok(Some(why)) => why,
        Err(err) => crate::error::render(&err).0,
    };
    ctx.ui
        .warn(format_args!("worktree '{name}' landed but stays: {why}"));
    outcome.kept = Some(why);
}
