//! Claim and release: who holds a worktree. Free or stale worktrees are taken (a stale claim is
//! reported, never taken silently), the caller's own claim is a no-op, another live session's
//! claim is refused; releasing what nobody holds is a no-op.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::error::refuse_with_hint;
use crate::registry::Record;
use crate::repo::Context;
use crate::session::{self, Hold, Session};
use crate::ui::Ui;

#[derive(Debug, Serialize)]
/// What `claim` did (`claim --json` prints it).
pub struct Claimed {
    pub name: String,
    pub path: PathBuf,
    pub session: String,
    /// The caller held it already; nothing changed.
    pub already_held: bool,
    /// A stale claim of another session was replaced.
    pub reclaimed_stale: bool,
}

/// The outcome of taking a claim.
#[derive(Debug, Serialize)]
/// What `release` did (`release --json` prints it).
pub struct Released {
    pub name: String,
    /// Whether a claim was cleared (false: nobody held it).
    pub released: bool,
    /// The cleared claim was another session's stale one.
    pub released_stale: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    New,
    AlreadyMine,
    ReclaimedStale,
}

/// Take `record` for `me`, or refuse naming the live holder; a stale claim taken over is said on
/// `ui`. The caller saves the registry.
pub fn take(record: &mut Record, me: &Session, ttl: u64, ui: &Ui) -> Result<Taken> {
    let now = crate::clock::now();
    match session::hold(record.claim.as_ref(), me, ttl) {
        Hold::Mine => Ok(Taken::AlreadyMine),
        Hold::Free => {
            record.claim = Some(me.claim(now));
            Ok(Taken::New)
        }
        Hold::Stale(reason) => {
            let old = record
                .claim
                .as_ref()
                .map(|c| c.session.clone())
                .unwrap_or_default();
            ui.status(format_args!(
                "reclaimed '{}' from session {old}: its claim was stale ({reason})",
                record.name
            ));
            record.claim = Some(me.claim(now));
            Ok(Taken::ReclaimedStale)
        }
        Hold::Live => Err(held_by_other(record, now)),
    }
}

/// The refusal when another live session holds a worktree.
pub fn held_by_other(record: &Record, now: u64) -> anyhow::Error {
    refuse_with_hint(
        format!(
            "worktree '{}' is claimed by {}",
            record.name,
            holder(record, now)
        ),
        "pick another name, or wait for it to be released",
    )
}

/// Who holds a worktree's claim, as refusals name them: `session s2 (pid 4121, 3m ago)`.
pub fn holder(record: &Record, now: u64) -> String {
    match &record.claim {
        Some(claim) => format!(
            "session {} (pid {}, {})",
            claim.session,
            claim.pid,
            crate::clock::age(now, claim.at)
        ),
        None => "no session".to_owned(),
    }
}

/// Take the worktree `name` for the caller's session.
pub fn claim(ctx: &Context, name: &str) -> Result<Claimed> {
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let mut locked = super::lock(ctx)?;
    let record = record_mut(ctx, &mut locked, name)?.clone();
    super::refuse_if_busy(&locked, &record)?;
    let record = locked.registry.find_mut(name).expect("found above");
    let taken = take(record, &me, ttl, &ctx.ui)?;
    let claimed = Claimed {
        name: record.name.clone(),
        path: record.path.clone(),
        session: me.id.clone(),
        already_held: taken == Taken::AlreadyMine,
        reclaimed_stale: taken == Taken::ReclaimedStale,
    };
    if taken != Taken::AlreadyMine {
        locked.save()?;
    }
    Ok(claimed)
}

/// Give the worktree `name` back: refused while another live session holds it.
pub fn release(ctx: &Context, name: &str) -> Result<Released> {
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let mut locked = super::lock(ctx)?;
    let record = record_mut(ctx, &mut locked, name)?;
    let now = crate::clock::now();
    let hold = session::hold(record.claim.as_ref(), &me, ttl);
    if hold == Hold::Live {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' is claimed by {}",
                record.name,
                holder(record, now)
            ),
            format!(
                "only its holder releases it; the claim goes stale when that process ends or \
                 after {} (git config berth.claimTtl)",
                crate::clock::format_duration(ttl)
            ),
        ));
    }
    let released = Released {
        name: record.name.clone(),
        released: hold != Hold::Free,
        released_stale: matches!(hold, Hold::Stale(_)),
    };
    record.claim = None;
    if released.released {
        let freed = record.clone();
        locked.save()?;
        // A worktree nobody holds owns nothing: what it owned is free for others now.
        super::ownership::lapse(ctx, &freed);
    }
    Ok(released)
}

fn record_mut<'l>(
    ctx: &Context,
    locked: &'l mut crate::registry::Locked,
    name: &str,
) -> Result<&'l mut Record> {
    if locked.registry.find(name).is_none() {
        return Err(super::unknown_in(ctx, &locked.registry, name));
    }
    Ok(locked.registry.find_mut(name).expect("found above"))
}
