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
use crate::repo::Context;

/// At most this many commits are listed per worktree.
const MAX_COMMITS: usize = 20;

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
        human(out, &overview)
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

fn human(out: &mut dyn Write, overview: &Overview) -> Result<()> {
    if overview.worktrees.is_empty() {
        eprintln!("no worktrees to collect");
        return Ok(());
    }
    for w in &overview.worktrees {
        let mut flags = Vec::new();
        if w.state == State::Missing {
            flags.push("missing".to_owned());
        }
        if w.dirty == Some(true) {
            flags.push("dirty".to_owned());
        }
        if let Some(n) = w.unpushed.filter(|n| *n > 0) {
            flags.push(format!("{n} unpushed"));
        }
        match w.merges_cleanly {
            Some(false) => flags.push(format!("conflicts with {}", overview.trunk)),
            Some(true) if w.ahead.unwrap_or(0) > 0 => {
                flags.push(format!("merges cleanly into {}", overview.trunk))
            }
            _ => {}
        }
        let ahead = match w.ahead {
            Some(0) => "no commits".to_owned(),
            Some(1) => "1 commit".to_owned(),
            Some(n) => format!("{n} commits"),
            None => "-".to_owned(),
        };
        writeln!(
            out,
            "{}  {}  {ahead}{}",
            w.name,
            w.branch.as_deref().unwrap_or("(detached)"),
            if flags.is_empty() {
                String::new()
            } else {
                format!("  [{}]", flags.join(", "))
            }
        )?;
        for c in w.commits.iter().take(5) {
            writeln!(out, "    {} {}", crate::git::short(&c.id), c.subject)?;
        }
        if w.commits.len() > 5 {
            writeln!(out, "    ... {} more", w.commits.len() - 5)?;
        }
    }
    if !overview.conflicts.is_empty() {
        writeln!(out, "\nfiles changed in more than one worktree:")?;
        for o in &overview.conflicts {
            writeln!(out, "    {}  ({})", o.file, o.worktrees.join(", "))?;
        }
    }
    Ok(())
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
