//! `git berth list`: every managed worktree with its branch, base, ahead/behind and dirtiness,
//! computed in parallel, one worktree per thread. Table and JSON come from one value.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::git::{graph, status};
use crate::inventory::{self, Entry, Kind};
use crate::registry::Store;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Also show the primary checkout and linked worktrees berth did not make
    #[arg(long)]
    pub all: bool,
    /// Print JSON: {"worktrees": [...]}, one object per worktree
    #[arg(long)]
    pub json: bool,
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
    pub kind: &'static str,
    /// `ok`, or `missing` when git no longer knows the worktree or its folder is gone.
    pub state: &'static str,
    pub path: PathBuf,
    /// The branch checked out now; null when detached or missing.
    pub branch: Option<String>,
    /// The commit checked out now.
    pub head: Option<String>,
    /// The commit the worktree's branch started from (managed worktrees).
    pub base: Option<String>,
    /// What the base was named when the worktree was made.
    pub base_ref: Option<String>,
    /// Commits on HEAD that the base (the current tip of `base_ref`) does not have.
    pub ahead: Option<usize>,
    /// Commits on the base (the current tip of `base_ref`) that HEAD does not have.
    pub behind: Option<usize>,
    /// Tracked changes or untracked files; ignored files do not count. Null when missing.
    pub dirty: Option<bool>,
    pub locked: bool,
    /// The worktree the command ran in.
    pub current: bool,
    /// When berth made it, in seconds since the Unix epoch.
    pub created: Option<u64>,
}

pub fn run(ctx: &Context, args: &ListArgs, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entries = inventory::entries(ctx, &registry, args.all)?;
    let rows = rows(ctx.current.as_deref(), &entries);
    let listing = Listing { worktrees: rows };
    if args.json {
        super::write_json(out, &listing)
    } else {
        table(out, &listing.worktrees)
    }
}

/// Each entry's live state, looked up in parallel: opening a worktree and walking its files is
/// the cost, and worktrees are independent.
pub fn rows(current: Option<&Path>, entries: &[Entry]) -> Vec<Row> {
    status::parallel_map(entries, |entry| row(current, entry))
}

fn row(current: Option<&Path>, entry: &Entry) -> Row {
    let record = entry.record.as_ref();
    let mut row = Row {
        name: entry.name.clone(),
        kind: entry.kind.as_str(),
        state: if entry.present { "ok" } else { "missing" },
        path: entry.path.clone(),
        branch: record.map(|r| r.branch.clone()),
        head: None,
        base: record.map(|r| r.base_commit.clone()),
        base_ref: record.map(|r| r.base_ref.clone()),
        ahead: None,
        behind: None,
        dirty: None,
        locked: entry.locked.is_some(),
        current: current == Some(entry.path.as_path()),
        created: record.map(|r| r.created),
    };
    if !entry.present {
        return row;
    }
    let Ok(repo) = status::open(&entry.path) else {
        row.state = "missing";
        return row;
    };
    row.branch = repo
        .head_name()
        .ok()
        .flatten()
        .map(|n| n.shorten().to_string());
    let head = repo.head_id().ok().map(|id| id.detach());
    row.head = head.map(|id| id.to_string());
    row.dirty = status::is_dirty(&repo).ok();
    let base = record.and_then(|r| {
        graph::resolve_commit(&repo, &r.base_ref)
            .or_else(|| gix::ObjectId::from_hex(r.base_commit.as_bytes()).ok())
    });
    if let (Some(head), Some(base)) = (head, base)
        && let Ok((ahead, behind)) = graph::ahead_behind(&repo, head, base)
    {
        row.ahead = Some(ahead);
        row.behind = Some(behind);
    }
    row
}

fn table(out: &mut dyn Write, rows: &[Row]) -> Result<()> {
    if rows.is_empty() {
        eprintln!(
            "no worktrees yet; make one with {} add <name>",
            crate::names::TOOL
        );
        return Ok(());
    }
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let base = match (&r.base_ref, &r.base) {
                (Some(name), Some(id)) => format!("{name}@{}", super::add::short(id)),
                _ => "-".to_owned(),
            };
            let drift = match (r.ahead, r.behind) {
                (Some(a), Some(b)) => format!("+{a} -{b}"),
                _ => "-".to_owned(),
            };
            let mut state = Vec::new();
            if r.kind != Kind::Managed.as_str() {
                state.push(r.kind);
            }
            state.push(match (r.state, r.dirty) {
                ("missing", _) => "missing",
                (_, Some(true)) => "dirty",
                (_, Some(false)) => "clean",
                _ => "unknown",
            });
            if r.locked {
                state.push("locked");
            }
            [
                r.name.clone(),
                r.branch.clone().unwrap_or_else(|| "(detached)".to_owned()),
                base,
                drift,
                state.join(","),
                r.path.display().to_string(),
            ]
        })
        .collect();
    let header = ["NAME", "BRANCH", "BASE", "AHEAD", "STATE", "PATH"];
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |marker: &str, cells: &[String]| {
        let mut text = marker.to_owned();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        text
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    writeln!(out, "{}", line("  ", &header))?;
    for (row, cells) in rows.iter().zip(&cells) {
        writeln!(
            out,
            "{}",
            line(if row.current { "* " } else { "  " }, cells)
        )?;
    }
    Ok(())
}
