//! `git berth collect`: the merge-back overview, read-only. For each managed worktree, the work
//! its branch holds and whether it would merge into the trunk; then which files two or more
//! worktrees change (the conflicts to expect). Merges are tried in memory; nothing is written.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::git::graph::{self, CommitLine};
use crate::git::{quick, status};
use crate::inventory::{self, Entry};
use crate::registry::Store;
use crate::render::{self, Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;

/// At most this many commits are listed per worktree.
const MAX_COMMITS: usize = 20;
/// Of those, the text shows this many.
const SHOWN_COMMITS: usize = 5;

#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// Print JSON: {"trunk": ..., "worktrees": [...], "conflicts": [...]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
pub struct Overview {
    pub trunk: String,
    pub worktrees: Vec<Work>,
    /// Files changed by two or more worktrees, relative to their merge bases with the trunk.
    pub conflicts: Vec<Overlap>,
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
    /// Files HEAD changes relative to its merge base with the trunk.
    #[serde(skip)]
    pub files: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Overlap {
    pub file: String,
    pub worktrees: Vec<String>,
}

pub fn run(ctx: &Context, args: &CollectArgs, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entries = inventory::entries(ctx, &registry, false)?;
    let trunk = ctx.trunk();
    let trees = quick::Trees::default();
    let works = status::parallel_map(&entries, |entry| work(entry, &trunk, &trees));
    let overview = Overview {
        conflicts: overlaps(&works),
        trunk,
        worktrees: works,
    };
    if args.json {
        super::write_json(out, &overview)
    } else {
        human(
            out,
            &overview,
            &Terminal::detect(|key| ctx.config_string(key)),
        )
    }
}

fn work(entry: &Entry, trunk: &str, trees: &quick::Trees) -> Work {
    let record = entry.record.as_ref().expect("managed");
    let mut work = Work {
        name: entry.name.clone(),
        path: entry.path.clone(),
        branch: Some(record.branch.clone()),
        state: State::Missing,
        ahead: None,
        commits: Vec::new(),
        dirty: None,
        unpushed: None,
        merges_cleanly: None,
        files: Vec::new(),
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
    let base = graph::Base::of(
        &repo,
        record.base_id(),
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
        work.merges_cleanly = graph::merges_cleanly(&repo, trunk, head).ok();
        work.files = graph::changed_files(&repo, trunk, head).unwrap_or_default();
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
/// commits under it, the rest named on one line, then the files two worktrees share.
fn human(out: &mut dyn Write, overview: &Overview, term: &Terminal) -> Result<()> {
    if overview.worktrees.is_empty() {
        eprintln!("no worktrees to collect");
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
    if !overview.conflicts.is_empty() {
        text.push_str("\nfiles changed in more than one worktree:\n");
        let table = Table {
            columns: vec![
                Column::cut("FILE", Cut::Middle, 0, 16),
                Column::keep("WORKTREES"),
            ],
            header: false,
            gutter: true,
            rows: overview
                .conflicts
                .iter()
                .map(|o| render::Row {
                    cells: vec![
                        o.file.as_str().into(),
                        format!("({})", o.worktrees.join(", ")).into(),
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
            files: files.iter().map(|f| f.to_string()).collect(),
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
    fn no_shared_file_means_no_forecast() {
        assert!(overlaps(&[work("a", &["x"]), work("b", &["y"])]).is_empty());
    }
}
