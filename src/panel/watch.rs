//! What makes the panel read again: the files the kernel reports changed (inotify, through
//! `notify`), never a timer. Watched under the common dir: berth's state (`berth/`: registry and
//! agents, owners, fleets, pipeline runs, landings), the refs (branch tips and the review verdicts
//! under `refs/berth/reviews/`, and `packed-refs`), and each checkout's `HEAD` and `index` (the
//! primary's in the common dir, a linked worktree's in its admin dir `worktrees/<name>/`).
//! Locks, logs and reflogs are left out, so a running agent's log does not redraw the panel.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::Sender;

use anyhow::{Context as _, Result};
use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::names;

/// The folders under the common dir watched with everything below them.
const TREES: [&str; 3] = [names::STATE_DIR, "refs", "worktrees"];

/// Whether a change to `path` can change what the panel shows.
pub fn relevant(common_dir: &Path, path: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(common_dir) else {
        return false;
    };
    let parts: Vec<&str> = inside
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    let Some((last, _)) = parts.split_last() else {
        return false;
    };
    if last.ends_with(".lock") {
        return false;
    }
    match parts.as_slice() {
        // The primary checkout's HEAD and index, the packed refs, and the watched folders
        // appearing or going.
        [file] => matches!(*file, "HEAD" | "index" | "packed-refs") || TREES.contains(file),
        ["refs", ..] => true,
        [state, rest @ ..] if *state == names::STATE_DIR => {
            !last.ends_with(".log") && rest.first() != Some(&names::LOCKS_DIR)
        }
        // A worktree's admin folder coming or going, its HEAD and index, its lock.
        ["worktrees", _] => true,
        ["worktrees", _, file] => matches!(*file, "HEAD" | "index" | "gitdir" | "locked"),
        _ => false,
    }
}

/// Whether the kernel's report is of a change, not of a read (an open, a close after reading).
fn changes(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// The watches on one repository's state.
pub struct Watch {
    watcher: RecommendedWatcher,
    common_dir: PathBuf,
    /// The folders of [`TREES`] watched now (one appears with the first worktree, the first agent).
    watched: HashSet<PathBuf>,
}

impl Watch {
    /// Watch the state of the repository whose common dir is `common_dir`; `changed` is sent one
    /// message for each change that matters.
    pub fn start<T: Clone + Send + 'static>(
        common_dir: &Path,
        changed: Sender<T>,
        message: T,
    ) -> Result<Watch> {
        let root = common_dir.to_path_buf();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else {
                // The kernel dropped events (its queue overflowed): read again to be sure.
                let _ = changed.send(message.clone());
                return;
            };
            if changes(&event.kind) && event.paths.iter().any(|p| relevant(&root, p)) {
                let _ = changed.send(message.clone());
            }
        })
        .context("cannot watch the repository for changes")?;
        let mut watch = Watch {
            watcher,
            common_dir: common_dir.to_path_buf(),
            watched: HashSet::new(),
        };
        watch
            .watcher
            .watch(common_dir, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", common_dir.display()))?;
        watch.follow();
        Ok(watch)
    }

    /// Watch the folders of [`TREES`] that appeared since, forget those that went: called after
    /// each reading, since a folder's coming and going is itself a change seen in the common dir.
    pub fn follow(&mut self) {
        for tree in TREES {
            let dir = self.common_dir.join(tree);
            let there = dir.is_dir();
            if there && !self.watched.contains(&dir) {
                if self.watcher.watch(&dir, RecursiveMode::Recursive).is_ok() {
                    self.watched.insert(dir);
                }
            } else if !there && self.watched.remove(&dir) {
                let _ = self.watcher.unwatch(&dir);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_refs_heads_and_indexes_matter_but_locks_logs_and_objects_do_not() {
        let common = Path::new("/r/.git");
        let yes = [
            "berth/registry.toml",
            "berth/owners.toml",
            "berth/fleets/rev/state.toml",
            "berth/runs/fix/3/run.json",
            "refs/berth/reviews/berth/auth",
            "refs/heads/berth/auth",
            "packed-refs",
            "HEAD",
            "index",
            "worktrees/auth",
            "worktrees/auth/HEAD",
            "worktrees/auth/index",
            "worktrees",
        ];
        for path in yes {
            assert!(relevant(common, &common.join(path)), "{path}");
        }
        let no = [
            "berth/registry.lock",
            "berth/runs/fix/3/agent.log",
            "berth/locks/auth",
            "index.lock",
            "refs/heads/main.lock",
            "worktrees/auth/logs/HEAD",
            "worktrees/auth/index.lock",
            "objects/ab/cdef",
            "logs/HEAD",
            "FETCH_HEAD",
        ];
        for path in no {
            assert!(!relevant(common, &common.join(path)), "{path}");
        }
        assert!(!relevant(common, Path::new("/elsewhere/HEAD")));
    }
}
