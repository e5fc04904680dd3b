//! `git berth list`: every managed worktree with its branch, base, ahead/behind and dirtiness,
//! as [`crate::worktree::listing`] computes them. Table and JSON come from one value.

use std::collections::HashSet;
use std::io::Write;

use anyhow::Result;

use crate::inventory::{self, Entry, Kind};
use crate::landing::review;
use crate::registry::Store;
use crate::render::{self, Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;
use crate::ui::Ui;
use crate::worktree::listing::{self, Query, Row, Setup, State, Status};

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

pub fn run(ctx: &Context, args: &ListArgs, out: &mut dyn Write) -> Result<()> {
    let listed = listing::listing(
        ctx,
        &Query {
            all: args.all,
            full: args.full,
            status: args.status,
            mine: args.mine,
        },
    )?;
    if args.json {
        super::write_json(out, &listed.listing)
    } else {
        let term = Terminal::detect(|key| ctx.config_string(key));
        if listed.none_managed && !args.all {
            let registry = Store::new(ctx.state_dir()).load()?;
            return say_unmanaged(ctx, &registry);
        }
        table(
            &ctx.ui,
            out,
            &listed.listing.worktrees,
            &listed.mine,
            args.full,
            &term,
        )
    }
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
