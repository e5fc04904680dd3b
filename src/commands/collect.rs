//! `git berth collect`: the merge-back overview, read-only. For each managed worktree, the work
//! its branch holds and whether it would merge into the trunk; then the forecast: each pair of
//! worktrees that change a file in common, merged with each other, says where they conflict.
//! Merges are tried in memory; nothing is written.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::git::graph::{self, CommitLine};
use crate::git::{quick, status};
use crate::inventory::{self, Managed};
use crate::landing::forecast::{self, Candidate, Forecast, Lines};
use crate::registry::Store;
use crate::render::{self, Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;
use crate::ui::Ui;
use crate::worktree::ownership;

/// At most this many commits are listed per worktree.
const MAX_COMMITS: usize = 20;
/// Of those, the text shows this many.
const SHOWN_COMMITS: usize = 5;

#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// Print JSON: {"trunk", "worktrees": [...], "conflicts": [...], "forecast": {"conflicts", "overlaps"}}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
pub struct Overview {
    pub trunk: String,
    pub worktrees: Vec<Work>,
    /// Files changed by two or more worktrees, relative to their merge bases with the trunk,
    /// whether or not they conflict (the name is older than the forecast; kept for scripts).
    pub conflicts: Vec<Overlap>,
    /// Each pair of worktrees that change a file in common, merged with each other in memory.
    pub forecast: Forecast,
}

/// Whether the worktree's checkout is there to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Ok,
    Missing,
}

#[derive(Debug, Serialize)]
pub struct Work {
    pub name: String,
    pub path: PathBuf,
    pub branch: Option<String>,
    pub state: State,
    /// The worktree's own commits, counted as `list` counts them.
    pub ahead: Option<usize>,
    /// Those commits, newest first, at most 20.
    pub commits: Vec<CommitLine>,
    pub dirty: Option<bool>,
    /// Commits not on the branch's upstream; null when it has none.
    pub unpushed: Option<usize>,
    /// Whether HEAD merges into the trunk without conflicts (tried in memory).
    pub merges_cleanly: Option<bool>,
    /// Every change of its own commits is on the trunk already (merged, squash-merged or
    /// rebased): what `clean` removes. Null when it has no commits of its own.
    pub merged: Option<bool>,
    /// Files HEAD changes relative to its merge base with the trunk; none once merged.
    #[serde(skip)]
    pub files: Vec<String>,
    /// The commit checked out, for the forecast.
    #[serde(skip)]
    pub head: Option<gix::ObjectId>,
}

#[derive(Debug, Serialize)]
pub struct Overlap {
    pub file: String,
    pub worktrees: Vec<String>,
}

pub fn run(ctx: &Context, args: &CollectArgs, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entries = inventory::managed(ctx, &registry)?;
    let trunk = ctx.trunk();
    let trees = quick::Trees::default();
    let works = status::parallel_map(&entries, |entry| work(entry, &trunk, &trees));
    let candidates: Vec<Candidate> = works
        .iter()
        .map(|w| Candidate {
            name: w.name.clone(),
            head: w.head,
            files: w.files.clone(),
        })
        .collect();
    let mut forecast = forecast::forecast(&ctx.repo, &candidates, &ctx.ui);
    let files: Vec<String> = forecast.conflicts.iter().map(|c| c.file.clone()).collect();
    let owned = ownership::owners_of(ctx, &files);
    for c in &mut forecast.conflicts {
        c.owner = owned.iter().find(|o| o.file == c.file).cloned();
    }
    let overview = Overview {
        conflicts: overlaps(&works),
        forecast,
        trunk,
        worktrees: works,
    };
    if args.json {
        super::write_json(out, &overview)
    } else {
        human(
            &ctx.ui,
            out,
            &overview,
            &Terminal::detect(|key| ctx.config_string(key)),
        )
    }
}

fn work(entry: &Managed, trunk: &str, trees: &quick::Trees) -> Work {
    let record = &entry.record;
    let mut work = Work {
        name: record.name.clone(),
        path: entry.path.clone(),
        branch: Some(record.branch.clone()),
        state: State::Missing,
        ahead: None,
        commits: Vec::new(),
        dirty: None,
        unpushed: None,
        merges_cleanly: None,
        merged: None,
        files: Vec::new(),
        head: None,
    };
    if !entry.present || record.creating.is_some() {
        return work;
    }
    let Ok(repo) = crate::git::config::open(&entry.path) else {
        return work;
    };
    work.state = State::Ok;
    work.dirty = status::is_dirty_on_one_thread(&repo, trees).ok();
    work.branch = crate::git::head_branch(&repo);
    let Some(head) = crate::git::head(&repo) else {
        return work;
    };
    work.head = Some(head);
    let base = graph::Base::of(
        &repo,
        record.base_commit,
        &record.base_ref,
        work.branch.as_deref(),
    );
    work.ahead = base.ahead_behind(&repo, head).ok().map(|(a, _)| a);
    work.commits =
        graph::commits_since(&repo, head, &base.hidden(), MAX_COMMITS).unwrap_or_default();
    if let Some(branch) = &work.branch
        && let Some(upstream) = graph::upstream_tip(&repo, branch)
    {
        work.unpushed = graph::ahead_behind(&repo, head, upstream)
            .ok()
            .map(|(a, _)| a);
    }
    if let Some(trunk) = graph::resolve_commit(&repo, trunk) {
        let standing = forecast::standing(&repo, trunk, head, &base, work.ahead.unwrap_or(0));
        work.merges_cleanly = standing.merges_cleanly;
        work.merged = standing.merged;
        work.files = standing.files;
    }
    work
}

/// Every file that two or more worktrees change, with the worktrees that change it. Pure.
pub fn overlaps(works: &[Work]) -> Vec<Overlap> {
    let mut by_file: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for work in works {
        for file in &work.files {
            by_file.entry(file).or_default().push(work.name.clone());
        }
    }
    by_file
        .into_iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(file, worktrees)| Overlap {
            file: file.to_owned(),
            worktrees,
        })
        .collect()
}

/// The overview a person reads: one aligned line per worktree with work to merge, its newest
/// commits under it, the rest named on one line, then the forecast.
fn human(ui: &Ui, out: &mut dyn Write, overview: &Overview, term: &Terminal) -> Result<()> {
    if overview.worktrees.is_empty() {
        ui.status("no worktrees to collect");
        return Ok(());
    }
    let (idle, busy): (Vec<&Work>, Vec<&Work>) =
        overview.worktrees.iter().partition(|w| nothing_to_merge(w));
    let mut text = String::new();
    if !busy.is_empty() {
        let table = Table {
            columns: vec![
                Column::cut("NAME", Cut::End, 1, 10),
                Column::cut("BRANCH", Cut::Middle, 0, 12),
                Column::keep("WORK"),
                Column::keep("UPSTREAM"),
                Column::keep("TRUNK"),
                Column::keep("STATE"),
            ],
            header: false,
            gutter: false,
            rows: busy.iter().map(|w| row(w, &overview.trunk)).collect(),
        };
        text.push_str(&table.render(term));
    }
    if !idle.is_empty() {
        let names: Vec<&str> = idle.iter().map(|w| w.name.as_str()).collect();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("nothing to merge: {}\n", names.join(", ")));
    }
    let forecast = &overview.forecast;
    if !forecast.conflicts.is_empty() || !forecast.overlaps.is_empty() {
        text.push_str("\nforecast: worktrees that change the same file, merged with each other:\n");
        let conflicts = forecast.conflicts.iter().map(|c| {
            (
                Cell::painted("conflict", Paint::Red),
                &c.worktrees,
                &c.file,
                Cell::from(match &c.owner {
                    Some(o) if c.lines.is_empty() => format!("owned by {}", o.said()),
                    Some(o) => format!("{}; owned by {}", lines(&c.lines), o.said()),
                    None => lines(&c.lines),
                }),
            )
        });
        let overlaps = forecast.overlaps.iter().map(|o| {
            (
                Cell::painted("overlap", Paint::Green),
                &o.worktrees,
                &o.file,
                Cell::painted("merges cleanly", Paint::Dim),
            )
        });
        let table = Table {
            columns: vec![
                Column::keep("KIND"),
                Column::cut("PAIR", Cut::End, 1, 12),
                Column::cut("FILE", Cut::Middle, 0, 16),
                Column::keep("WHERE"),
            ],
            header: false,
            gutter: true,
            rows: conflicts
                .chain(overlaps)
                .map(|(kind, [a, b], file, place)| render::Row {
                    cells: vec![
                        kind,
                        format!("{a} + {b}").into(),
                        file.as_str().into(),
                        place,
                    ],
                    ..render::Row::default()
                })
                .collect(),
        };
        text.push_str(&table.render(term));
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// `line 4`, `lines 2-3, 9`; nothing when the conflict is not in the text.
fn lines(ranges: &[Lines]) -> String {
    let each: Vec<String> = ranges
        .iter()
        .map(|l| {
            if l.end > l.start {
                format!("{}-{}", l.start, l.end)
            } else {
                l.start.to_string()
            }
        })
        .collect();
    match ranges {
        [] => String::new(),
        [one] if one.end == one.start => format!("line {}", each[0]),
        _ => format!("lines {}", each.join(", ")),
    }
}

/// A worktree that is there, clean, and holds no commit of its own: one name on the summary line.
fn nothing_to_merge(w: &Work) -> bool {
    w.state == State::Ok && w.ahead == Some(0) && w.dirty == Some(false)
}

/// One worktree's line: name, branch, its commits, where they stand against the upstream and the
/// trunk, and whether the checkout is dirty or gone; its newest commits under it.
fn row(w: &Work, trunk: &str) -> render::Row {
    let work = match w.ahead {
        Some(0) => "no commits".to_owned(),
        Some(1) => "1 commit".to_owned(),
        Some(n) => format!("{n} commits"),
        None => "-".to_owned(),
    };
    let upstream = match (w.state, &w.branch, w.unpushed) {
        (State::Ok, Some(_), None) => Cell::painted("no upstream", Paint::Dim),
        (_, _, Some(0)) => Cell::painted("pushed", Paint::Green),
        (_, _, Some(n)) => Cell::painted(format!("{n} unpushed"), Paint::Yellow),
        _ => "-".into(),
    };
    let into_trunk = match w.merges_cleanly {
        _ if w.merged == Some(true) => Cell::painted(format!("landed on {trunk}"), Paint::Green),
        Some(false) => Cell::painted(format!("conflicts with {trunk}"), Paint::Red),
        Some(true) if w.ahead.unwrap_or(0) > 0 => {
            Cell::painted(format!("merges cleanly into {trunk}"), Paint::Green)
        }
        _ => Cell::default(),
    };
    let state = match (w.state, w.dirty) {
        (State::Missing, _) => Cell::painted("missing", Paint::Red),
        (_, Some(true)) => Cell::painted("dirty", Paint::Yellow),
        _ => Cell::default(),
    };
    let mut details: Vec<Cell> = w
        .commits
        .iter()
        .take(SHOWN_COMMITS)
        .map(|c| format!("{} {}", crate::git::short(&c.id), c.subject).into())
        .collect();
    if w.commits.len() > SHOWN_COMMITS {
        details.push(format!("... {} more", w.commits.len() - SHOWN_COMMITS).into());
    }
    render::Row {
        mark: None,
        cells: vec![
            Cell::painted(w.name.as_str(), Paint::Bold),
            w.branch.as_deref().unwrap_or("(detached)").into(),
            work.into(),
            upstream,
            into_trunk,
            state,
        ],
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(name: &str, files: &[&str]) -> Work {
        Work {
            name: name.into(),
            path: PathBuf::from(name),
            branch: None,
            state: State::Ok,
            ahead: None,
            commits: Vec::new(),
            dirty: None,
            unpushed: None,
            merges_cleanly: None,
            merged: None,
            files: files.iter().map(|f| f.to_string()).collect(),
            head: None,
        }
    }

    #[test]
    fn a_file_changed_in_two_worktrees_is_forecast_with_both_names() {
        let works = [
            work("a", &["src/lib.rs", "README.md"]),
            work("b", &["src/lib.rs"]),
            work("c", &["docs/x.md"]),
        ];
        let overlaps = overlaps(&works);
        assert_eq!(overlaps.len(), 1);
        assert_eq!(overlaps[0].file, "src/lib.rs");
        assert_eq!(overlaps[0].worktrees, ["a", "b"]);
    }

    #[test]
    fn no_shared_file_means_no_overlap() {
        assert!(overlaps(&[work("a", &["x"]), work("b", &["y"])]).is_empty());
    }

    #[test]
    fn line_ranges_read_as_a_person_writes_them() {
        let l = |start, end| Lines { start, end };
        assert_eq!(lines(&[]), "");
        assert_eq!(lines(&[l(4, 4)]), "line 4");
        assert_eq!(lines(&[l(2, 3)]), "lines 2-3");
        assert_eq!(lines(&[l(2, 3), l(8, 8)]), "lines 2-3, 8");
    }
}
