//! `git berth list`: every managed worktree with its branch, base, ahead/behind and dirtiness,
//! computed in parallel, one worktree per thread. Table and JSON come from one value.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::git::{graph, quick, status};
use crate::inventory::{self, Entry, Kind};
use crate::landing::review;
use crate::registry::{SetupState, Store};
use crate::render::{self, Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;
use crate::session::{self, Hold};
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Also show the primary checkout and linked worktrees berth did not make
    #[arg(long)]
    pub all: bool,
    /// Print JSON: {"worktrees": [...]}, one object per worktree
    #[arg(long)]
    pub json: bool,
    /// Add each worktree's port block, review, owned paths, last commit and whether its work has
    /// landed on the trunk
    #[arg(long)]
    pub full: bool,
    /// Show only worktrees in this state (the one you stand in is always shown)
    #[arg(long, value_enum)]
    pub status: Option<Status>,
    /// Show only worktrees your session holds (the one you stand in is always shown)
    #[arg(long)]
    pub mine: bool,
}

/// Who holds a managed worktree, as `list` shows it (and `--status` filters by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Available,
    Claimed,
    Stale,
}

impl Status {
    fn as_str(self) -> &'static str {
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

pub fn run(ctx: &Context, args: &ListArgs, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let entries = inventory::entries(ctx, &registry, args.all)?;
    let trunk = args.full.then(|| ctx.trunk());
    let mut rows = rows(ctx.current.as_deref(), &entries, trunk.as_deref());
    let mut mine = HashSet::new();
    // Only to tell a kept landed worktree from an unreviewed one: no reason to fail the list.
    let landings = crate::landing::log::read(&ctx.common_dir).unwrap_or_default();
    // A broken owners file is said, not a reason to fail the list.
    let owners = crate::worktree::ownership::live(ctx).unwrap_or_else(|err| {
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
            || (args.status.is_none_or(|s| row.status == Some(s))
                && (!args.mine || mine.contains(&row.name)))
    });
    let listing = Listing { worktrees: rows };
    if args.json {
        super::write_json(out, &listing)
    } else {
        let term = Terminal::detect(|key| ctx.config_string(key));
        if registry.worktrees.is_empty() && !args.all {
            return say_unmanaged(ctx, &registry);
        }
        table(&ctx.ui, out, &listing.worktrees, &mine, args.full, &term)
    }
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

/// The table a person reads: fitted to the terminal (path first, then status and branch), full
/// width into a pipe or with `--full`, coloured only where git would colour.
/// An empty list that hides worktrees (the registry is gone, or they were made with `git worktree
/// add`): say which, and how to see and adopt them, rather than "no worktrees yet".
fn say_unmanaged(ctx: &Context, registry: &crate::registry::Registry) -> Result<()> {
    let tool = crate::names::TOOL;
    let others: Vec<String> = inventory::entries(ctx, registry, true)?
        .into_iter()
        .filter_map(|e| match e {
            Entry::Unmanaged { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    if others.is_empty() {
        ctx.ui.status(format_args!(
            "no worktrees yet; make one with {tool} add <name>"
        ));
    } else {
        let plural = if others.len() == 1 { "" } else { "s" };
        ctx.ui.status(format_args!(
            "no managed worktrees, but git has {} linked worktree{plural} that {tool} does not \
             manage: {}",
            others.len(),
            others.join(", ")
        ));
        ctx.ui.hint(format_args!(
            "`{tool} list --all` shows them; `{tool} setup` run inside one adopts it"
        ));
    }
    Ok(())
}

fn table(
    ui: &Ui,
    out: &mut dyn Write,
    rows: &[Row],
    mine: &HashSet<String>,
    full: bool,
    term: &Terminal,
) -> Result<()> {
    if rows.is_empty() {
        ui.status("no worktree matches (`--mine` and `--status` filter the list)");
        return Ok(());
    }
    let mut columns = vec![
        Column::cut("NAME", Cut::End, 1, 10),
        Column::cut("STATUS", Cut::Middle, 1, 14),
        Column::cut("BRANCH", Cut::Middle, 1, 12),
        Column::keep("BASE"),
        Column::keep("AHEAD"),
        Column::keep("STATE"),
    ];
    // Where nobody reviews, every row would say `unreviewed`: the column comes with the first
    // verdict (and with `--full`), so the table keeps its width until it says something.
    let reviews = full
        || rows
            .iter()
            .any(|r| r.review.is_some_and(|s| s != review::State::Unreviewed));
    if reviews {
        columns.push(Column::keep("REVIEW"));
    }
    if full {
        columns.extend([
            Column::keep("PORTS"),
            Column::keep("MERGED"),
            Column::cut("OWNS", Cut::End, 0, 12),
            Column::cut("LAST COMMIT", Cut::End, 0, 20),
        ]);
    }
    columns.push(Column::cut("PATH", Cut::Middle, 0, 12));
    let table = Table {
        columns,
        header: true,
        gutter: true,
        rows: rows
            .iter()
            .map(|r| cells(r, mine.contains(&r.name), full, reviews, term))
            .collect(),
    };
    let term = if full {
        Terminal {
            width: None,
            ..*term
        }
    } else {
        *term
    };
    out.write_all(table.render(&term).as_bytes())?;
    Ok(())
}

/// One worktree's cells, in the columns' order. A claim of the caller's own session says "you":
/// the session's id is for telling others apart.
fn cells(r: &Row, yours: bool, full: bool, reviews: bool, term: &Terminal) -> render::Row {
    let base = match (&r.base_ref, &r.base) {
        (Some(name), Some(id)) => {
            Cell::painted(format!("{name}@{}", crate::git::short(id)), Paint::Dim)
                .or_shorter(name.as_str())
        }
        _ => "-".into(),
    };
    let drift = match (r.ahead, r.behind) {
        (Some(a), Some(b)) => Cell::painted(
            term.ahead_behind(a, b),
            if b > 0 {
                Paint::Yellow
            } else if a > 0 {
                Paint::Green
            } else {
                Paint::Dim
            },
        ),
        _ => "-".into(),
    };
    let status = match (r.status, &r.claimed_by) {
        (Some(Status::Claimed), _) if yours => Cell::painted("claimed by you", Paint::Green),
        (Some(Status::Claimed), Some(who)) => {
            Cell::painted(format!("claimed by {who}"), Paint::Yellow)
        }
        (Some(Status::Stale), _) => Cell::painted(
            match &r.stale_reason {
                Some(reason) => format!("stale ({reason})"),
                None => "stale".to_owned(),
            },
            Paint::Red,
        ),
        (Some(status), _) => Cell::painted(status.as_str(), Paint::Green),
        (None, _) => "-".into(),
    };
    let mut cells = vec![
        if r.current {
            Cell::painted(r.name.as_str(), Paint::Bold)
        } else {
            r.name.as_str().into()
        },
        status,
        r.branch.as_deref().unwrap_or("(detached)").into(),
        base,
        drift,
        state(r),
    ];
    if reviews {
        cells.push(match r.review {
            Some(review) => Cell::painted(review.as_str(), review.paint()),
            None => "-".into(),
        });
    }
    if full {
        cells.push(match r.ports {
            Some(b) => format!("{}-{}", b.first, b.first + b.count - 1).into(),
            None => "-".into(),
        });
        cells.push(match r.merged {
            Some(true) => Cell::painted("yes", Paint::Green),
            Some(false) => Cell::painted("no", Paint::Yellow),
            None => "-".into(),
        });
        cells.push(if r.owns.is_empty() {
            "-".into()
        } else {
            r.owns.join(",").into()
        });
        cells.push(r.last_commit.as_deref().unwrap_or("-").into());
    }
    cells.push(r.path.display().to_string().into());
    render::Row {
        mark: r.current.then(|| Cell::painted("*", Paint::Bold)),
        cells,
        details: Vec::new(),
    }
}

/// What the checkout is: its kind when not managed, clean or dirty or why it cannot be looked
/// at, a lock, an unfinished setup; coloured by the worst of them.
fn state(r: &Row) -> Cell {
    let mut words = Vec::new();
    if r.kind != Kind::Managed {
        words.push(r.kind.as_str());
    }
    let mut paint = Paint::Green;
    words.push(match (r.state, r.dirty) {
        (State::Missing, _) => {
            paint = Paint::Red;
            "missing"
        }
        (State::Creating, _) => {
            paint = Paint::Yellow;
            "creating"
        }
        (_, Some(true)) => {
            paint = Paint::Yellow;
            "dirty"
        }
        (_, Some(false)) => "clean",
        _ => {
            paint = Paint::Yellow;
            "unknown"
        }
    });
    if r.locked {
        words.push("locked");
        if paint == Paint::Green {
            paint = Paint::Yellow;
        }
    }
    match r.setup {
        Some(Setup::Pending) => {
            words.push("setup pending");
            if paint == Paint::Green {
                paint = Paint::Yellow;
            }
        }
        Some(Setup::Failed) => {
            words.push("setup failed");
            paint = Paint::Red;
        }
        _ => {}
    }
    Cell::painted(words.join(","), paint)
}
