//! Whether a worktree holds work that is not committed: tracked changes or untracked files, never
//! ignored ones. Many worktrees are checked in parallel, each on its own thread and repository.

use anyhow::Result;

/// True when the checkout has staged, modified, deleted or untracked files. Stops at the first
/// change found. Checks many files on all cores; see [`is_dirty_on_one_thread`].
pub fn is_dirty(repo: &gix::Repository) -> Result<bool> {
    dirty(repo, None)
}

/// [`is_dirty`] on the calling thread alone: when many worktrees are checked at once, one
/// worktree per thread is faster than every worktree spreading over every core (measured with
/// benches/list.sh). Most checkouts are decided by [`super::quick::verdict`] alone; `trees` is
/// shared by every check of one run.
pub fn is_dirty_on_one_thread(repo: &gix::Repository, trees: &super::quick::Trees) -> Result<bool> {
    // Anything the quick pass cannot settle, including its own failures, goes to the full status.
    match super::quick::verdict(repo, trees) {
        Ok(super::quick::Verdict::Clean) => return Ok(false),
        Ok(super::quick::Verdict::Dirty) => return Ok(true),
        Ok(super::quick::Verdict::Unsure) | Err(_) => {}
    }
    dirty(repo, Some(1))
}

fn dirty(repo: &gix::Repository, threads: Option<usize>) -> Result<bool> {
    let mut iter = repo
        .status(gix::progress::Discard)
        .map_err(crate::git::gix_err)?
        .untracked_files(gix::status::UntrackedFiles::Collapsed)
        .index_worktree_rewrites(None)
        .index_worktree_options_mut(|o| {
            if threads.is_some() {
                o.thread_limit = threads;
            }
        })
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: true })
        .into_iter(None)
        .map_err(crate::git::gix_err)?;
    match iter.next() {
        None => Ok(false),
        Some(Ok(_)) => Ok(true),
        Some(Err(e)) => Err(crate::git::gix_err(e)),
    }
}

/// Run `work` over `items` on up to one thread per core, keeping the input order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(&work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<R>> = Vec::with_capacity(items.len());
    results.resize_with(items.len(), || None);
    let slots = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(at) else { break };
                    let out = work(item);
                    slots.lock().unwrap_or_else(|p| p.into_inner())[at] = Some(out);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every item is worked on"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parallel_map;

    #[test]
    fn parallel_map_keeps_the_order_of_its_input() {
        let items: Vec<u32> = (0..100).collect();
        assert_eq!(
            parallel_map(&items, |n| n * 2),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );
        assert!(parallel_map(&Vec::<u32>::new(), |n| *n).is_empty());
    }
}
