//! What `list` knows about each worktree, as one value: the rows of `list --json`, computed in
//! parallel, one worktree per thread. The command, the MCP server's `worktree_list` and the panel
//! all read worktrees through [`listing`], so they cannot disagree.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::git::{graph, quick, status};
use crate::inventory::{self, Entry, Kind};
use crate::landing::review;
use crate::registry::{SetupState, Store};
use crate::repo::Context;
use crate::session::{self, Hold};

/// Who holds a managed worktree, as `list` shows it (and `--status` filters by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Available,
    Claimed,
    Stale,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Claimed => "claimed",
            Status::Stale => "stale",
        }
    }
}

/// Whether a worktree's checkout is there to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Ok,
    /// An `add` is making it (or died making it).
    Creating,
    Missing,
}

/// Where the setup hook stands, `none` when the project has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Setup {
    None,
    Pending,
    Done,
    Failed,
}

impl From<Option<SetupState>> for Setup {
    fn from(s: Option<SetupState>) -> Self {
        match s {
            None => Setup::None,
            Some(SetupState::Pending) => Setup::Pending,
            Some(SetupState::Done) => Setup::Done,
            Some(SetupState::Failed) => Setup::Failed,
        }
    }
}

/// The JSON form of `list`; its field names are a stable interface.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub worktrees: Vec<Row>,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    /// `managed`, `unmanaged` or `primary`.
    pub kind: Kind,
    /// `ok`, `missing` when git no longer knows the worktree or its folder is gone, or
    /// `creating` while an `add` is making it.
    pub state: State,
    /// Managed worktrees: `available`, `claimed` or `stale`; null for the others.
    pub status: Option<Status>,
    /// The session holding the claim (also a stale one); null when nobody holds it.
    pub claimed_by: Option<String>,
    /// Why a stale claim no longer counts ("pid 4121 is gone", "older than 12h").
    pub stale_reason: Option<String>,
    pub path: PathBuf,
    /// The branch checked out now; null when detached or missing.
    pub branch: Option<String>,
    /// The commit checked out now.
    pub head: Option<String>,
    /// The commit the worktree's branch started from (managed worktrees).
    pub base: Option<String>,
    /// What the base was named when the worktree was made.
    pub base_ref: Option<String>,
    /// The worktree's own commits: on HEAD, not on the base commit nor on the current tip of
    /// `base_ref` when that is a branch.
    pub ahead: Option<usize>,
    /// Commits on the current tip of `base_ref` (when it is a branch) that HEAD lacks.
    pub behind: Option<usize>,
    /// Tracked changes or untracked files; ignored files do not count. Null when missing.
    pub dirty: Option<bool>,
    pub locked: bool,
    /// The worktree the command ran in.
    pub current: bool,
    /// When berth made it, in seconds since the Unix epoch.
    pub created: Option<u64>,
    /// Managed worktrees: `none`, `pending`, `done` or `failed`.
    pub setup: Option<Setup>,
    /// Managed worktrees: `unreviewed`, `approved`, `rejected`, or `stale` when the branch moved
    /// since its verdict; null for the others and where the verdict cannot be read.
    pub review: Option<review::State>,
    /// The port block, `{"first": 24000, "count": 20}`, or null.
    pub ports: Option<crate::ports::Block>,
    /// The subject of the commit checked out.
    pub last_commit: Option<String>,
    /// With `--full`: every change of the worktree's own commits is on the trunk (an ancestor, or
    /// squash- or rebase-merged). Null without `--full`.
    pub merged: Option<bool>,
    /// The paths the worktree owns (`git berth own`): files, folders with a trailing `/`, globs.
    pub owns: Vec<String>,
}

/// Which worktrees to list, and how much to say about each.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query {
    /// Also the primary checkout and linked worktrees berth did not make.
    pub all: bool,
    /// Also whether each worktree's work has landed on the trunk (`merged`).
    pub full: bool,
    /// Only worktrees in this state (the one the caller stands in is always kept).
    pub status: Option<Status>,
    /// Only worktrees the caller's session holds (the one it stands in is always kept).
    pub mine: bool,
}

/// The rows, and which of them the caller's own session holds.
#[derive(Debug)]
pub struct Listed {
    pub listing: Listing,
    pub mine: HashSet<String>,
    /// No managed worktree at all (before filtering).
    pub none_managed: bool,
}

/// Every worktree `query` asks for, with its claim, review and owned paths.
pub fn listing(ctx: &Context, query: &Query) -> Result<Listed> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let entries = inventory::entries(ctx, &registry, query.all)?;
    let trunk = query.full.then(|| ctx.trunk());
    let mut rows = rows(ctx.current.as_deref(), &entries, trunk.as_deref());
    let mut mine = HashSet::new();
    // Only to tell a kept landed worktree from an unreviewed one: no reason to fail the list.
    let landings = crate::landing::log::read(&ctx.common_dir).unwrap_or_default();
    // A broken owners file is said, not a reason to fail the list.
    let owners = super::ownership::live(ctx).unwrap_or_else(|err| {
        ctx.ui
            .warn(format_args!("{}", crate::error::render(&err).0));
        Vec::new()
    });
    for (row, entry) in rows.iter_mut().zip(&entries) {
        if let Some(record) = entry.record() {
            if let Some(owner) = owners.iter().find(|o| o.worktree == record.name) {
                row.owns = owner.patterns();
            }
            let hold = session::hold(record.claim.as_ref(), &me, ttl);
            if hold == Hold::Mine {
                mine.insert(row.name.clone());
            }
            row.claimed_by = record.claim.as_ref().map(|c| c.session.clone());
            row.review = review_of(&ctx.repo, &record.branch, &landings);
            row.status = Some(match hold {
                Hold::Free => Status::Available,
                Hold::Mine | Hold::Live => Status::Claimed,
                Hold::Stale(reason) => {
                    row.stale_reason = Some(reason);
                    Status::Stale
                }
            });
        }
    }
    rows.retain(|row| {
        row.current
            || (query.status.is_none_or(|s| row.status == Some(s))
                && (!query.mine || mine.contains(&row.name)))
    });
    Ok(Listed {
        listing: Listing { worktrees: rows },
        mine,
        none_managed: registry.worktrees.is_empty(),
    })
}

/// Where the review of `branch` stands against its tip now (a verdict is bound to the branch, so
/// this needs no checkout).
fn review_of(
    repo: &gix::Repository,
    branch: &str,
    landings: &[crate::landing::log::Landing],
) -> Option<review::State> {
    review::standing(repo, branch, graph::branch_tip(repo, branch), landings)
        .ok()
        .map(|(state, _)| state)
}

/// Each entry's live state, looked up in parallel: opening a worktree and walking its files is
/// the cost, and worktrees are independent.
pub fn rows(current: Option<&Path>, entries: &[Entry], trunk: Option<&str>) -> Vec<Row> {
    let trees = quick::Trees::default();
    status::parallel_map(entries, |entry| row(current, entry, trunk, &trees))
}

fn row(current: Option<&Path>, entry: &Entry, trunk: Option<&str>, trees: &quick::Trees) -> Row {
    let record = entry.record();
    let mut row = Row {
        name: entry.name().to_owned(),
        kind: entry.kind(),
        state: match (record.and_then(|r| r.creating.as_ref()), entry.present()) {
            (Some(_), _) => State::Creating,
            (None, true) => State::Ok,
            (None, false) => State::Missing,
        },
        status: None,
        claimed_by: None,
        stale_reason: None,
        path: entry.path().to_path_buf(),
        branch: record.map(|r| r.branch.clone()),
        head: None,
        base: record.map(crate::registry::Record::base_hex),
        base_ref: record.map(|r| r.base_ref.clone()),
        ahead: None,
        behind: None,
        dirty: None,
        locked: entry.locked().is_some(),
        current: current == Some(entry.path()),
        created: record.map(|r| r.created),
        setup: record.map(|r| Setup::from(r.setup)),
        review: None,
        ports: record.and_then(|r| r.ports),
        last_commit: None,
        merged: None,
        owns: Vec::new(),
    };
    if !entry.present() || row.state == State::Creating {
        return row;
    }
    let Ok(repo) = crate::git::config::open(entry.path()) else {
        row.state = State::Missing;
        return row;
    };
    row.branch = crate::git::head_branch(&repo);
    let head = crate::git::head(&repo);
    row.head = head.map(|id| id.to_string());
    row.last_commit = head.and_then(|id| crate::git::subject(&repo, id));
    row.dirty = status::is_dirty_on_one_thread(&repo, trees).ok();
    if let (Some(head), Some(record)) = (head, record) {
        let base = graph::Base::of(
            &repo,
            record.base_commit,
            &record.base_ref,
            row.branch.as_deref(),
        );
        if let Ok((ahead, behind)) = base.ahead_behind(&repo, head) {
            row.ahead = Some(ahead);
            row.behind = Some(behind);
        }
        if let Some(trunk) = trunk {
            let trunk = graph::resolve_commit(&repo, trunk);
            let elsewhere: Vec<_> = trunk.into_iter().chain(base.commit).collect();
            row.merged = graph::work_not_landed(&repo, head, &elsewhere, trunk)
                .ok()
                .map(|n| n == 0);
        }
    }
    row
}
