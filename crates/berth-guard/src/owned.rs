//! The guard's ownership check (`git berth own`): a write allowed so far is blocked when it
//! changes a path a live worktree other than the agent's own owns. The owned paths come from
//! [`probe::owned`], read once per repository; the matching rules are [`owners`]'.

use std::path::Path;

use crate::{Block, Effect, Judge, Place, owners, probe, process, said};

impl Judge<'_, '_> {
    /// A block when the write `effect` of `path`, allowed so far, changes what a worktree other
    /// than the agent's own owns (see [`owners`]). Costs one read of a small file per repository
    /// written in, and nothing more when it owns nothing.
    pub(crate) fn ownership(&mut self, path: &Path, effect: &Effect) -> Option<Block> {
        let place = match self.place(path) {
            Ok(p) => p,
            Err(e) => {
                return Some(Block::Failed {
                    what: e.to_string(),
                });
            }
        };
        let root = match &place {
            Place::Primary { root } | Place::Linked { root, .. } => root.clone(),
            Place::Outside => return None,
        };
        if !self.owned.contains_key(&root) {
            let owned = match probe::owned(&place) {
                Ok(owned) => owned.map(|(_, o)| std::rc::Rc::from(o)),
                Err(e) => {
                    return Some(Block::Failed {
                        what: e.to_string(),
                    });
                }
            };
            self.owned.insert(root.clone(), owned);
        }
        let real = self.real(path);
        self.owned_in(&root, path, &real, effect)
    }

    /// [`Judge::ownership`] once the checkout `root` that `real` (the written `path` with its
    /// links followed) lies in is known, and its owned paths are loaded.
    pub(crate) fn owned_in(
        &mut self,
        root: &Path,
        path: &Path,
        real: &Path,
        effect: &Effect,
    ) -> Option<Block> {
        let owned = self.owned.get(root).cloned().flatten()?;
        let Ok(rel) = real.strip_prefix(root).or_else(|_| path.strip_prefix(root)) else {
            return Some(Block::Failed {
                what: format!(
                    "cannot tell which path of {} {} is, to look it up among the owned paths",
                    root.display(),
                    path.display()
                ),
            });
        };
        let rel = rel.to_string_lossy();
        let rel = rel.as_ref();
        // What the agent's own checkout owns never blocks it, even where another's pattern takes
        // the same file (two globs whose claims shared no file, and a file added since).
        if owned
            .iter()
            .any(|o| owners::matches(&o.pattern, rel) && self.is_mine(&o.worktree))
        {
            return None;
        }
        // A folder holding owned paths is owned too, when it is one on disk: removing or moving
        // it changes them.
        let mut folder = None;
        for o in owned.iter() {
            let hit = owners::matches(&o.pattern, rel)
                || (owners::below(&o.pattern, rel)
                    && *folder.get_or_insert_with(|| {
                        !self.listings.absent(real)
                            && std::fs::symlink_metadata(real).is_ok_and(|m| m.is_dir())
                    }));
            if hit && !self.is_mine(&o.worktree) && self.holder_alive(o.pid, o.start) {
                return Some(Block::Owned {
                    what: said(effect),
                    owner: o.worktree.clone(),
                    pattern: o.pattern.clone(),
                    agent: o.agent.clone(),
                });
            }
        }
        None
    }

    /// Whether the worktree folder an owner names is the checkout the agent stands in: as
    /// written, or with its links followed (asked once per folder).
    fn is_mine(&mut self, folder: &Path) -> bool {
        let Some(mine) = &self.mine else {
            return false;
        };
        if folder == mine {
            return true;
        }
        if let Some(&known) = self.mine_as.get(folder) {
            return known;
        }
        let same = probe::resolve(folder).is_ok_and(|real| real == *mine);
        self.mine_as.insert(folder.to_path_buf(), same);
        same
    }

    /// Whether an owner's claim holder still runs, asked once per holder.
    fn holder_alive(&mut self, pid: u32, start: Option<u64>) -> bool {
        *self
            .alive
            .entry((pid, start))
            .or_insert_with(|| process::alive(pid, start))
    }
}
