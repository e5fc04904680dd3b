//! `git berth claim`: take a worktree for this session without creating one. Taking is shared
//! with `add`: free or stale worktrees are taken (a stale claim is reported, never taken
//! silently), the caller's own claim is a no-op, another live session's claim is refused.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::error::refuse_with_hint;
use crate::registry::{self, Record, Store};
use crate::repo::Context;
use crate::session::{self, Hold, Session};

#[derive(Debug, clap::Args)]
pub struct ClaimArgs {
    /// Name of the worktree
    pub name: String,
    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    New,
    AlreadyMine,
    ReclaimedStale,
}

/// Take `record` for `me`, or refuse naming the live holder. The caller saves the registry.
pub fn take(record: &mut Record, me: &Session, ttl: u64) -> Result<Taken> {
    let now = registry::now();
    match session::hold(record.claim.as_ref(), &me.id, ttl) {
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
            eprintln!(
                "reclaimed '{}' from session {old}: its claim was stale ({reason})",
                record.name
            );
            record.claim = Some(me.claim(now));
            Ok(Taken::ReclaimedStale)
        }
        Hold::Live => Err(held_by_other(record, now)),
    }
}

/// The refusal when another live session holds a worktree.
pub fn held_by_other(record: &Record, now: u64) -> anyhow::Error {
    let claim = record.claim.as_ref().expect("a live hold has a claim");
    refuse_with_hint(
        format!(
            "worktree '{}' is claimed by session {} (pid {}, {})",
            record.name,
            claim.session,
            claim.pid,
            session::age(now, claim.at)
        ),
        "pick another name, or wait for it to be released",
    )
}

pub fn run(ctx: &Context, args: &ClaimArgs, out: &mut dyn Write) -> Result<()> {
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let store = Store::new(ctx.state_dir());
    let mut locked = store.lock()?;
    super::add::roll_back_dead_adds(ctx, &mut locked)?;
    let record = locked
        .registry
        .find_mut(&args.name)
        .ok_or_else(|| super::path::unknown(&args.name))?;
    let taken = take(record, &me, ttl)?;
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
    drop(locked);
    if args.json {
        super::write_json(out, &claimed)
    } else {
        eprintln!(
            "{} '{}' for session {}",
            if claimed.already_held {
                "already claimed"
            } else {
                "claimed"
            },
            claimed.name,
            claimed.session
        );
        writeln!(out, "{}", claimed.path.display())?;
        Ok(())
    }
}
