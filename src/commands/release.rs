//! `git berth release`: give a worktree back so another session can claim it. Releasing what
//! nobody holds is a no-op; another live session's claim is refused; a stale one is cleared.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::registry::{self, Store};
use crate::repo::Context;
use crate::session::{self, Hold};

#[derive(Debug, clap::Args)]
pub struct ReleaseArgs {
    /// Name of the worktree
    pub name: String,
    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
pub struct Released {
    pub name: String,
    /// Whether a claim was cleared (false: nobody held it).
    pub released: bool,
    /// The cleared claim was another session's stale one.
    pub released_stale: bool,
}

pub fn run(ctx: &Context, args: &ReleaseArgs, out: &mut dyn Write) -> Result<()> {
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let store = Store::new(ctx.state_dir());
    let mut locked = store.lock()?;
    super::add::roll_back_dead_adds(ctx, &mut locked)?;
    let record = locked
        .registry
        .find_mut(&args.name)
        .ok_or_else(|| super::path::unknown(&args.name))?;
    let now = registry::now();
    let hold = session::hold(record.claim.as_ref(), &me.id, ttl);
    if hold == Hold::Live {
        return Err(super::claim::held_by_other(record, now));
    }
    let released = Released {
        name: record.name.clone(),
        released: hold != Hold::Free,
        released_stale: matches!(hold, Hold::Stale(_)),
    };
    record.claim = None;
    if released.released {
        locked.save()?;
    }
    drop(locked);
    if args.json {
        super::write_json(out, &released)
    } else {
        eprintln!(
            "{} '{}'",
            if released.released {
                "released"
            } else {
                "nobody held"
            },
            released.name
        );
        Ok(())
    }
}
