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
            row.review = review_of(
                &ctx.repo,
                &record.branch,
                graph::branch_tip(&ctx.repo, &record.branch),
                &landings,
            );
            row.status = Some(status_of(&hold));
            if let Hold::Stale(reason) = hold {
                row.stale_reason = Some(reason);
            }
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

/// The status a claim judged `hold` gives a managed worktree.
fn status_of(hold: &Hold) -> Status {
    match hold {
        Hold::Free => Status::Available,
        Hold::Mine | Hold::Live => Status::Claimed,
        Hold::Stale(_) => Status::Stale,
    }
}

/// Where the review of `branch` stands against its tip `tip` now (a verdict is bound to the
/// branch, so this needs no checkout).
fn review_of(
    repo: &gix::Repository,
    branch: &str,
    tip: Option<gix::ObjectId>,
    landings: &[crate::landing::log::Landing],
) -> Option<review::State> {
    review::standing(repo, branch, tip, landings)
        .ok()
        .map(|(state, _)| state)
}

/// Whether a managed worktree waits for a review: its branch holds commits of its own
/// (`own_commits`) and its head has no verdict (`unreviewed`) or only one given to an earlier
/// commit (`stale`). Approved, rejected, unreadable and landed heads wait for nobody's review.
pub fn awaits_review(review: Option<review::State>, own_commits: bool) -> bool {
    own_commits
        && matches!(
            review,
            Some(review::State::Unreviewed | review::State::Stale)
        )
}

/// What a status bar shows: how many managed worktrees there are and how they stand, counted
/// from the registry, the claims and the review refs as [`listing`] judges them. The JSON form
/// of `status-line --json`; its field names are a stable interface.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Managed worktrees: the rows of `list`.
    pub total: usize,
    /// Those the caller's session holds (`list --mine`).
    pub yours: usize,
    /// Those that wait for a review ([`awaits_review`]).
    pub review: usize,
    /// Those held by a live claim, the caller's own included (`list --status claimed`).
    pub claimed: usize,
    /// Those nobody holds (`list --status available`).
    pub available: usize,
    /// Those whose claim no longer counts (`list --status stale`).
    pub stale: usize,
}

/// The counts of the managed worktrees, from the reads [`listing`] makes of the registry, the
/// claims and the review refs, and nothing more: no checkout is opened, so neither dirtiness nor
/// drift is computed, and a worktree's own commits are those of its branch (the commit its
/// verdict is bound to) over its base.
pub fn counts(ctx: &Context) -> Result<Counts> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let mut counts = Counts {
        total: registry.worktrees.len(),
        ..Counts::default()
    };
    if registry.worktrees.is_empty() {
        return Ok(counts);
    }
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    // As in `listing`: only to tell a kept landed worktree from an unreviewed one.
    let landings = crate::landing::log::read(&ctx.common_dir).unwrap_or_default();
    for record in &registry.worktrees {
        let hold = session::hold(record.claim.as_ref(), &me, ttl);
        if hold == Hold::Mine {
            counts.yours += 1;
        }
        match status_of(&hold) {
            Status::Available => counts.available += 1,
            Status::Claimed => counts.claimed += 1,
            Status::Stale => counts.stale += 1,
        }
        let tip = graph::branch_tip(&ctx.repo, &record.branch);
        let review = review_of(&ctx.repo, &record.branch, tip, &landings);
        // The walk for its own commits only where the verdict leaves the question open.
        if awaits_review(review, true) && own_commits(&ctx.repo, record, tip) {
            counts.review += 1;
        }
    }
    Ok(counts)
}

/// Whether the branch of `record`, at `tip`, holds commits not on its base (the commit it was
/// made from, and the current tip of the branch it was made from): what `list` counts as
/// `ahead`, taken from the branch rather than the checkout.
fn own_commits(
    repo: &gix::Repository,
    record: &crate::registry::Record,
    tip: Option<gix::ObjectId>,
) -> bool {
    let Some(tip) = tip else { return false };
    let base = graph::Base::of(
        repo,
        record.base_commit,
        &record.base_ref,
        Some(&record.branch),
    );
    graph::unmerged_count(repo, tip, &base.hidden()).is_ok_and(|n| n > 0)
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
