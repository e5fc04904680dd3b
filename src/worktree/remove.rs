//! Remove and tear down: every name judged first under one lock (a refusal changes nothing) and
//! marked `removing` by this process; then, the lock given back (a hook may take minutes, and
//! never runs under it), each teardown; then, under the lock again, a second look (one that
//! changed meanwhile stays), checkout, admin entry, branch if asked (only at the tip judged),
//! record and port block. Others leave a worktree a live process marked alone; every step is safe
//! to repeat, so a removal cut short by a kill is finished (or, deletion not begun, unmarked) by
//! the next `remove`, `clean` or `prune` ([`finish_dead_removes`]), never left half done.

use std::path::PathBuf;

use anyhow::Result;

use crate::error::Refusal;
use crate::git::refs::Swap;
use crate::git::{self, graph, status, worktrees};
use crate::inventory::Managed;
use crate::names;
use crate::registry::{Locked, Record};
use crate::repo::Context;

use super::judge::{Again, Facts, Judge, Scope, Seen, Still, facts, refusal, still, verdict};

/// One worktree removed.
#[derive(Debug, Clone)]
pub struct Removed {
    pub name: String,
    pub path: PathBuf,
    /// What happened to the branch, for people.
    pub note: String,
    /// The worktree's branch, and whether it is gone now.
    pub branch: String,
    pub branch_deleted: bool,
    /// Why it stays after all (it changed during its teardown); `None` when it is gone.
    pub kept: Option<String>,
}

impl std::fmt::Display for Removed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(why) = &self.kept {
            return write!(
                f,
                "kept worktree '{}' ({}): {why}; {}",
                self.name,
                self.path.display(),
                self.note
            );
        }
        write!(
            f,
            "removed worktree '{}' ({}); {}",
            self.name,
            self.path.display(),
            self.note
        )
    }
}

/// What `remove --json` prints and the MCP tool `worktree_remove` returns.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    pub removed: Vec<Gone>,
    /// Worktrees that changed during their teardown, and stay.
    pub kept: Vec<Stays>,
}

/// A removed worktree in a [`Report`].
#[derive(Debug, serde::Serialize)]
pub struct Gone {
    pub name: String,
    pub path: PathBuf,
    /// Its branch (`berth/x`), and whether this removal deleted it.
    pub branch: String,
    pub branch_deleted: bool,
}

/// A worktree that stayed, in a [`Report`].
#[derive(Debug, serde::Serialize)]
pub struct Stays {
    pub name: String,
    pub path: PathBuf,
    pub branch: String,
    pub reason: String,
}

impl Report {
    pub fn of(done: Vec<Removed>) -> Report {
        let (kept, removed): (Vec<_>, Vec<_>) = done.into_iter().partition(|r| r.kept.is_some());
        Report {
            removed: removed
                .into_iter()
                .map(|r| Gone {
                    name: r.name,
                    path: r.path,
                    branch: r.branch,
                    branch_deleted: r.branch_deleted,
                })
                .collect(),
            kept: kept
                .into_iter()
                .map(|r| Stays {
                    reason: r.kept.unwrap_or_default(),
                    name: r.name,
                    path: r.path,
                    branch: r.branch,
                })
                .collect(),
        }
    }

    /// The refusal when a worktree stayed: the removal did not do all it was asked.
    pub fn stayed(&self) -> Option<anyhow::Error> {
        if self.kept.is_empty() {
            return None;
        }
        let names: Vec<String> = self.kept.iter().map(|r| format!("'{}'", r.name)).collect();
        Some(crate::error::refuse_with_hint(
            format!(
                "{} changed during the teardown and stayed: {}",
                if names.len() == 1 {
                    "a worktree"
                } else {
                    "worktrees"
                },
                names.join(", ")
            ),
            format!(
                "look at what changed, then remove it again: {} remove {}",
                names::TOOL,
                names.join(" ")
            ),
        ))
    }
}

/// Remove the worktrees `names`, refusing all of them (and removing none) when any may not go;
/// `force` overrides all but a lock. `on_removed` hears of each as it goes.
pub fn remove(
    ctx: &Context,
    names: &[String],
    force: bool,
    delete_branch: bool,
    on_removed: &mut dyn FnMut(&Removed),
) -> Result<Vec<Removed>> {
    let judge = Judge::new(ctx)?;
    // Judge and mark under one lock: no claim or add slips in between, and none takes a
    // worktree marked while its teardown runs with the lock given back.
    let (mut locked, finished) = super::lock_reporting(ctx)?;
    let registry = locked.registry.clone();
    let mut removed = Vec::new();
    let mut targets = Vec::new();
    for name in names {
        // A removal of this name cut short earlier was finished by taking the lock: done.
        if let Some(record) = finished.iter().find(|r| r.name == *name || r.slug == *name) {
            if !removed.iter().any(|r: &Removed| r.name == record.name) {
                let done = Removed {
                    name: record.name.clone(),
                    path: record.path.clone(),
                    note: format!("branch {} kept", record.branch),
                    branch: record.branch.clone(),
                    branch_deleted: false,
                    kept: None,
                };
                on_removed(&done);
                removed.push(done);
            }
            continue;
        }
        let entry = super::find(ctx, &registry, name)?;
        super::refuse_if_busy(&locked, &entry.record)?;
        if !targets
            .iter()
            .any(|(e, _): &(Managed, Facts)| e.name() == entry.name())
        {
            let scope = Scope::Remove { delete_branch };
            let facts = facts(ctx, &entry, &judge, scope)?;
            targets.push((entry, facts));
        }
    }

    let refusals: Vec<Refusal> = targets
        .iter()
        .filter_map(|(entry, facts)| refusal(ctx, entry, &verdict(facts, force), &judge.trunk_name))
        .collect();
    if let Some(first) = refusals.first() {
        for other in &refusals[1..] {
            ctx.ui.refused(&other.message);
        }
        let mut first = Refusal {
            message: first.message.clone(),
            hint: first.hint.clone(),
            kind: first.kind,
        };
        if refusals.len() > 1 {
            first.message.push_str(&format!(
                " (and {} more refused; nothing was removed)",
                refusals.len() - 1
            ));
        }
        return Err(first.into());
    }

    let ports = targets.iter().any(|(e, _)| e.record.ports.is_some());
    check_state_writable(&locked, ports)?;
    let records: Vec<Record> = targets.iter().map(|(e, _)| e.record.clone()).collect();
    for record in &records {
        locked.mark_removing(record);
    }
    locked.save()?;
    drop(locked);
    for (at, (entry, facts)) in targets.iter().enumerate() {
        let carried = match carry_out(ctx, entry, force, delete_branch, &facts.seen) {
            Ok(carried) => carried,
            Err(err) => {
                unmark_mine(ctx, &records[at + 1..]);
                return Err(err);
            }
        };
        let branch = entry.record.branch.clone();
        let (note, kept) = match carried {
            Carried::Removed(note) => (note, None),
            Carried::Kept(why) => (format!("branch {branch} kept"), Some(why)),
        };
        let done = Removed {
            name: entry.record.name.clone(),
            path: entry.path.clone(),
            note,
            branch_deleted: graph::branch_tip(&ctx.repo, &branch).is_none(),
            branch,
            kept,
        };
        on_removed(&done);
        removed.push(done);
    }
    Ok(removed)
}

/// Mark `entry`'s record as this process's to remove, save, give the lock back and carry the
/// removal out ([`carry_out`]): for a caller that judged one worktree under `locked`.
pub fn mark_and_carry_out(
    ctx: &Context,
    mut locked: Locked,
    entry: &Managed,
    discard: bool,
    delete_branch: bool,
    seen: &Seen,
) -> Result<Carried> {
    let record = &entry.record;
    super::refuse_if_busy(&locked, record)?;
    locked.mark_removing(record);
    locked.save()?;
    drop(locked);
    carry_out(ctx, entry, discard, delete_branch, seen)
}

/// Give back the marks of removals this process will not carry out (one before them was
/// refused): those worktrees stay whole. Best effort: a mark left behind is a dead process's once
/// this one ends, and the next command drops it.
pub fn unmark_mine(ctx: &Context, records: &[Record]) {
    let Ok(mut locked) = super::lock(ctx) else {
        return;
    };
    let mut changed = false;
    for record in records {
        if locked.removing_mine(record) {
            locked.unmark_removing(record);
            changed = true;
        }
    }
    if changed {
        let _ = locked.save();
    }
}

/// Refuse, before anything is torn down or deleted, when the state a removal writes cannot be
/// written: the registry, and with `ports` the machine's port blocks. Otherwise the worktree
/// would go and its record stay.
pub fn check_state_writable(locked: &Locked, ports: bool) -> Result<()> {
    let nothing_removed = |err: anyhow::Error| match err.downcast::<Refusal>() {
        Ok(mut refusal) => {
            refusal.message.push_str("; nothing was removed");
            refusal.into()
        }
        Err(err) => err,
    };
    locked.check_writable().map_err(nothing_removed)?;
    if ports {
        crate::ports::Store::machine()?
            .check_writable()
            .map_err(nothing_removed)?;
    }
    Ok(())
}

/// What [`carry_out`] did with a worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carried {
    /// It is gone; what happened to the branch, for people.
    Removed(String),
    /// It changed during its teardown and stays, with its branch: why.
    Kept(String),
}

/// Remove one worktree that was judged, and marked as this process's to remove, under a lock
/// since given back: its teardown (without the lock), then, under the lock again and only while
/// the mark is still this process's and the worktree still holds what was judged (`seen`, see
/// [`still`]), its checkout and admin entry, with `delete_branch` its branch (only from the
/// judged tip), its record.
pub fn carry_out(
    ctx: &Context,
    entry: &Managed,
    discard: bool,
    delete_branch: bool,
    seen: &Seen,
) -> Result<Carried> {
    let record = &entry.record;
    // The teardown runs first, in the primary checkout; a failed one stops the removal unless
    // forced (`discard`).
    if let Some(primary) = &ctx.primary
        && let Err(err) = super::bring_up::teardown(ctx, record, primary)
    {
        if !discard {
            unmark_mine(ctx, std::slice::from_ref(record));
            let (line, _) = crate::error::render(&err);
            return Err(crate::error::refuse_with_hint(
                format!("{line}; worktree '{}' is kept", record.name),
                format!(
                    "fix the teardown hook, or remove it anyway with {} remove --force '{}'",
                    names::TOOL,
                    record.name
                ),
            ));
        }
        ctx.ui.warn(format_args!(
            "{} (removing anyway: --force)",
            crate::error::render(&err).0
        ));
    }
    let mut locked = super::lock(ctx)?;
    // The lock was free during the teardown: only an older build drops a live process's mark
    // (it takes it for a dead one's), and then the worktree is not this removal's any more.
    if !locked.removing_mine(record) {
        return Ok(Carried::Kept(format!(
            "its removal mark was dropped during its teardown (by an older {}); remove it again",
            names::TOOL
        )));
    }
    // The teardown may have taken minutes: what was judged is looked at again, as late as can
    // be (a write after this look and before the deletion is lost all the same).
    if let Still::Keep(why) = still(seen, &look_again(ctx, entry, seen)?, discard) {
        locked.unmark_removing(record);
        locked.save()?;
        return Ok(Carried::Kept(why));
    }
    // From here on a kill leaves a dead process's mark on a checkout without `.git`, which the
    // next command finishes.
    delete_files(ctx, &entry.path)?;
    // The branch goes before the record: a kill between them leaves a record the next command
    // finishes, never a branch nothing names (`clean` and `prune` find one all the same).
    let branch = if !delete_branch {
        None
    } else if record.branch_given && !discard {
        // `clean` keeps a branch berth did not create; `remove` refused it unless forced.
        Some(Ok(format!(
            "branch {} kept ({} did not create it)",
            record.branch,
            names::TOOL
        )))
    } else {
        seen.tip
            .map(|tip| delete_judged_branch(ctx, &record.branch, tip))
    };
    super::test_pause("BERTH_TEST_PAUSE_FORGET_MS");
    forget(ctx, &mut locked, record)?;
    let note = branch
        .transpose()?
        .unwrap_or_else(|| format!("branch {} kept", record.branch));
    Ok(Carried::Removed(note))
}

/// HEAD, dirty state and branch tip of the worktree now, read as they were judged. A checkout
/// that was not there when judged, or is gone since, has nothing new to look at.
fn look_again(ctx: &Context, entry: &Managed, seen: &Seen) -> Result<Again> {
    let branch = &entry.record.branch;
    let tip = graph::branch_tip(&ctx.repo, branch);
    if !entry.present || !entry.path.join(".git").exists() {
        return Ok(Again {
            head: seen.head,
            dirty: false,
            tip,
        });
    }
    let repo = git::config::open(&entry.path)?;
    Ok(Again {
        head: git::head(&repo),
        dirty: status::is_dirty(&repo)?,
        tip,
    })
}

/// What a worktree holds now, as if judged this moment: for a removal that judges nothing (a
/// scratch worktree of `ship`, which holds nothing of anyone's).
pub fn seen_now(ctx: &Context, entry: &Managed) -> Result<Seen> {
    let now = look_again(ctx, entry, &Seen::default())?;
    Ok(Seen {
        head: now.head,
        tip: now.tip,
    })
}

/// Delete `branch` by compare-and-swap from `tip`, the tip judged; what happened, for people.
fn delete_judged_branch(ctx: &Context, branch: &str, tip: gix::ObjectId) -> Result<String> {
    Ok(
        match git::delete_branch_at(&ctx.repo, branch, tip, &ctx.ui)? {
            Swap::Done => {
                drop_verdict(ctx, branch);
                format!(
                    "branch {branch} deleted (was {})",
                    git::short(&tip.to_string())
                )
            }
            Swap::Moved(now) => format!(
                "branch {branch} kept: it moved from {} to {} after it was judged",
                git::short(&tip.to_string()),
                now.map(|id| git::short(&id.to_string()).to_owned())
                    .unwrap_or_default()
            ),
        },
    )
}

/// Drop the review verdict of a branch just deleted (`landing::review` writes them): it was about
/// that branch's commits, and stays while the branch does. A failure is said, never fatal: the
/// worktree and branch are gone already.
pub(super) fn drop_verdict(ctx: &Context, branch: &str) {
    let name = git::refs::review_ref(branch);
    if let Err(err) = git::refs::delete_any(&ctx.repo, &name, &ctx.ui) {
        ctx.ui.warn(format_args!(
            "the review verdict {name} is kept: {}",
            crate::error::render(&err).0
        ));
    }
}

/// Carry out a removal whose record is marked: delete what is left of the checkout at `path`,
/// then git's admin entry, then forget the record and free its port block. Each step is safe to
/// repeat, so a run cut short anywhere is finished by running this again.
fn finish(
    ctx: &Context,
    locked: &mut Locked,
    record: &Record,
    path: &std::path::Path,
) -> Result<()> {
    delete_files(ctx, path)?;
    forget(ctx, locked, record)
}

/// The first half of a marked removal: the checkout at `path`, then git's admin entry.
fn delete_files(ctx: &Context, path: &std::path::Path) -> Result<()> {
    worktrees::remove_checkout(path)?;
    // Tests stop `remove` here, the checkout deleted and git's admin entry not yet, to kill it.
    super::test_pause("BERTH_TEST_PAUSE_REMOVE_MS");
    worktrees::drop_admin_entries_of(&ctx.common_dir, path)
}

/// The last half: forget the record, end what it owned and free its port block.
fn forget(ctx: &Context, locked: &mut Locked, record: &Record) -> Result<()> {
    locked.registry.remove(&record.name);
    locked.save()?;
    super::ownership::lapse(ctx, record);
    if record.ports.is_some() {
        crate::ports::Store::machine()?.free(&ctx.common_dir, &record.name)?;
    }
    Ok(())
}

/// Whether the removal of `record` had begun deleting: its checkout has lost its `.git` (deleted
/// first) or is gone. Before that, nothing is lost and the worktree is judged again as any other.
pub fn cut_short(record: &Record) -> bool {
    !record.path.join(".git").exists()
}

/// Finish every removal whose remover died midway, under the lock the caller took; a live
/// remover's mark is left to it. One whose deletion had not begun is only unmarked: the worktree
/// is whole and stays. A removal that cannot be finished is a warning and stays marked, so that
/// one broken worktree never stops the command. Returns the records whose removal was finished.
pub fn finish_dead_removes(ctx: &Context, locked: &mut Locked) -> Result<Vec<Record>> {
    let mut finished = Vec::new();
    for record in locked.removing() {
        if !cut_short(&record) {
            locked.unmark_removing(&record);
            locked.save()?;
            continue;
        }
        match finish_one(ctx, locked, &record) {
            Ok(()) => {
                ctx.ui.status(format_args!(
                    "finished removing worktree '{}' ({}), which an earlier remove left half done",
                    record.name,
                    record.path.display()
                ));
                finished.push(record);
            }
            Err(err) => ctx.ui.warn(format_args!(
                "could not finish removing worktree '{}': {}",
                record.name,
                crate::error::render(&err).0
            )),
        }
    }
    Ok(finished)
}

/// Finish the cut-short removal of one marked record.
pub fn finish_one(ctx: &Context, locked: &mut Locked, record: &Record) -> Result<()> {
    let path = crate::paths::real_or_same(&record.path);
    finish(ctx, locked, record, &path)
}
