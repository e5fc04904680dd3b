//! A quick verdict on whether a checkout holds uncommitted work, for commands that check every
//! worktree at once (`list`, `collect`). It answers `Clean` only when that is certain and `Dirty`
//! only when git would certainly show a change, following git's own shortcuts (a new size, kind
//! or mode is a change; an untracked file is a change). A file whose stat data no longer vouches
//! for it (touched, or racy) is hashed through the same filters `git add` uses, as git does.
//! Anything else (an untracked folder that is not ignored, a conflict, a submodule, a sparse,
//! skip-worktree or assume-unchanged entry, a nested repository) is `Unsure`, and the caller runs
//! gix's full status. It never writes anything.
//!
//! Why it is faster than the full status while making the same checks: each HEAD tree is read
//! once per run (or not at all when the index's cache tree names it), each file is stat'ed by its
//! name relative to its open folder instead of by a long absolute path, and the untracked-file
//! search lists only the folders the index names.

use std::collections::HashMap;
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use gix::bstr::{BStr, ByteSlice as _};
use gix::index::entry::{Flags, Mode, Stat, stat};
use rustix::fs;
use rustix::io::Errno;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Clean,
    Dirty,
    Unsure,
}

/// The verdict for the checkout of `repo`, opened with [`super::config::open`]. `trees` is shared
/// by every call of one run. An error is as good as `Unsure`.
pub fn verdict(repo: &gix::Repository, trees: &Trees) -> Result<Verdict> {
    let Some(workdir) = repo.workdir() else {
        return Ok(Verdict::Unsure);
    };
    let caps = repo.filesystem_options().map_err(crate::git::gix_err)?;
    let stat_options = repo.stat_options().map_err(crate::git::gix_err)?;
    if caps.ignore_case {
        return Ok(Verdict::Unsure);
    }
    let index = match repo.open_index() {
        Ok(index) => index,
        Err(_) => return Ok(Verdict::Unsure),
    };
    if index.is_sparse() {
        return Ok(Verdict::Unsure);
    }
    match index_matches_head(repo, &index, trees)? {
        Verdict::Clean => {}
        other => return Ok(other),
    }
    let Ok(root) = open_dir(None, workdir.as_os_str().as_bytes()) else {
        return Ok(Verdict::Unsure);
    };
    let mut walk = Walk {
        repo,
        index: &index,
        stat_options,
        executable_bit: caps.executable_bit,
        symlinks: caps.symlink,
        excludes: None,
        filters: None,
        stack: vec![Dir {
            prefix: b"",
            fd: Arc::new(root),
            children: Vec::new(),
        }],
    };
    walk.run()
}

/// HEAD trees read into index form once per run and shared by every worktree check of that run:
/// a fleet's worktrees mostly stand on a handful of commits, and reading a tree of thousands of
/// files is the costliest step after the stats.
#[derive(Default)]
pub struct Trees {
    read: Mutex<HashMap<gix::ObjectId, Arc<gix::index::File>>>,
}

impl Trees {
    fn get(&self, repo: &gix::Repository, tree: gix::ObjectId) -> Result<Arc<gix::index::File>> {
        let known = self.lock().get(&tree).cloned();
        if let Some(known) = known {
            return Ok(known);
        }
        let read = Arc::new(repo.index_from_tree(&tree).map_err(crate::git::gix_err)?);
        self.lock().insert(tree, Arc::clone(&read));
        Ok(read)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<gix::ObjectId, Arc<gix::index::File>>> {
        self.read.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether the index holds exactly HEAD's tree: certain from a valid cache tree, else by comparing
/// the index entry by entry with the tree read into index form.
fn index_matches_head(
    repo: &gix::Repository,
    index: &gix::index::File,
    trees: &Trees,
) -> Result<Verdict> {
    let Ok(head_tree) = repo.head_tree_id() else {
        return Ok(Verdict::Unsure);
    };
    let head_tree = head_tree.detach();
    if let Some(cache) = index.tree()
        && cache.num_entries.is_some()
        && cache.id == head_tree
    {
        return Ok(Verdict::Clean);
    }
    let tree = trees.get(repo, head_tree)?;
    let same = tree.entries().len() == index.entries().len()
        && tree.entries().iter().zip(index.entries()).all(|(t, i)| {
            t.id == i.id
                && t.mode == i.mode
                && i.stage_raw() == 0
                && !i.flags.contains(Flags::INTENT_TO_ADD)
                && t.path(&tree) == i.path(index)
        });
    if same {
        return Ok(Verdict::Clean);
    }
    // Entries differ: almost surely a staged change, but let gix's diff say so, so that nothing
    // about how the two are laid out can make a clean checkout look dirty.
    let mut changed = false;
    repo.tree_index_status(
        &head_tree,
        index,
        None,
        gix::status::tree_index::TrackRenames::Disabled,
        |_, _, _| {
            changed = true;
            Ok(std::ops::ControlFlow::Break(()))
        },
    )
    .map_err(crate::git::gix_err)?;
    Ok(if changed {
        Verdict::Dirty
    } else {
        Verdict::Clean
    })
}

/// A directory on the walk: its path relative to the checkout with a trailing `/` (empty for the
/// root), an open descriptor, and the names the index has in it.
struct Dir<'a> {
    prefix: &'a [u8],
    /// Shared so that comparing a file in it can borrow the walk mutably.
    fd: Arc<OwnedFd>,
    children: Vec<&'a [u8]>,
}

struct Walk<'a> {
    repo: &'a gix::Repository,
    index: &'a gix::index::File,
    stat_options: stat::Options,
    executable_bit: bool,
    symlinks: bool,
    excludes: Option<gix::AttributeStack<'a>>,
    filters: Option<gix::filter::Pipeline<'a>>,
    stack: Vec<Dir<'a>>,
}

impl<'a> Walk<'a> {
    /// The index is sorted by path, so each directory's entries come in one run: a directory is
    /// opened when its first entry comes and listed when the walk leaves it.
    fn run(&mut self) -> Result<Verdict> {
        let index = self.index;
        for entry in index.entries() {
            if entry.flags.contains(Flags::INTENT_TO_ADD) && entry.stage_raw() == 0 {
                // git shows a path added with `--intent-to-add` as a new file.
                return Ok(Verdict::Dirty);
            }
            if entry.stage_raw() != 0
                || entry
                    .flags
                    .intersects(Flags::SKIP_WORKTREE | Flags::ASSUME_VALID)
                || matches!(entry.mode, Mode::COMMIT | Mode::DIR)
            {
                return Ok(Verdict::Unsure);
            }
            let path: &'a [u8] = entry.path(index);
            while self.stack.len() > 1 && !path.starts_with(self.top().prefix) {
                let done = self.stack.pop().expect("more than the root");
                let verdict = self.untracked_in(&done)?;
                if verdict != Verdict::Clean {
                    return Ok(verdict);
                }
            }
            loop {
                let top = self.top();
                let rest = &path[top.prefix.len()..];
                let Some(slash) = rest.find_byte(b'/') else {
                    break;
                };
                let name = &rest[..slash];
                let fd = match open_dir(Some(&top.fd), name) {
                    Ok(fd) => fd,
                    // The folder is gone or is now a file or a link: git shows what the index
                    // has inside it as deleted.
                    Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) => {
                        return Ok(Verdict::Dirty);
                    }
                    Err(_) => return Ok(Verdict::Unsure),
                };
                let prefix = &path[..top.prefix.len() + slash + 1];
                self.top_mut().children.push(name);
                self.stack.push(Dir {
                    prefix,
                    fd: Arc::new(fd),
                    children: Vec::new(),
                });
            }
            let top = self.top();
            let name = &path[top.prefix.len()..];
            let found = stat_at(&top.fd, name);
            let dir = Arc::clone(&top.fd);
            self.top_mut().children.push(name);
            let verdict = match found {
                Err(Errno::NOENT) => Verdict::Dirty,
                Err(_) => Verdict::Unsure,
                Ok(st) => self.compare(entry, &st, dir.as_fd(), name)?,
            };
            if verdict != Verdict::Clean {
                return Ok(verdict);
            }
        }
        while let Some(done) = self.stack.pop() {
            let verdict = self.untracked_in(&done)?;
            if verdict != Verdict::Clean {
                return Ok(verdict);
            }
        }
        Ok(Verdict::Clean)
    }

    fn top(&self) -> &Dir<'a> {
        self.stack.last().expect("the root is always there")
    }

    fn top_mut(&mut self) -> &mut Dir<'a> {
        self.stack.last_mut().expect("the root is always there")
    }

    /// The same test gix's status makes before it would read a file: same kind and executable
    /// bit, same stat data, and not racy (changed in the index's own time slot).
    fn compare(
        &mut self,
        entry: &gix::index::Entry,
        st: &fs::Stat,
        dir: BorrowedFd<'_>,
        name: &[u8],
    ) -> Result<Verdict> {
        let kind = fs::FileType::from_raw_mode(st.st_mode);
        let is_file = kind == fs::FileType::RegularFile;
        let is_executable = is_file && fs::Mode::from_raw_mode(st.st_mode).contains(fs::Mode::XUSR);
        if entry
            .mode
            .change_to_match_fs_with_values(
                is_file,
                kind == fs::FileType::Directory,
                kind == fs::FileType::Symlink,
                is_executable,
                self.symlinks,
                self.executable_bit,
            )
            .is_some()
        {
            // A new kind (a file become a folder or a link) or a new executable bit, as far as
            // core.fileMode and core.symlinks let git see it.
            return Ok(Verdict::Dirty);
        }
        if st.st_mtime < 0 || st.st_ctime < 0 {
            return Ok(Verdict::Unsure);
        }
        if is_file && entry.stat.size != 0 && entry.stat.size != st.st_size as u32 {
            // git counts a file whose size changed as modified without reading it, even when
            // its clean filter would turn it back into the stored blob; so does list.
            return Ok(Verdict::Dirty);
        }
        let now = Stat {
            mtime: stat::Time {
                secs: st.st_mtime as u32,
                nsecs: st.st_mtime_nsec as u32,
            },
            ctime: stat::Time {
                secs: st.st_ctime as u32,
                nsecs: st.st_ctime_nsec as u32,
            },
            dev: st.st_dev as u32,
            ino: st.st_ino as u32,
            uid: st.st_uid,
            gid: st.st_gid,
            size: st.st_size as u32,
        };
        let same = now.matches(&entry.stat, self.stat_options)
            && (!entry.id.is_empty_blob() || entry.stat.size == 0);
        if same && !now.is_racy(self.index.timestamp(), self.stat_options) {
            Ok(Verdict::Clean)
        } else if is_file {
            self.compare_content(entry, dir, name)
        } else if kind == fs::FileType::Symlink && self.symlinks {
            let Some(target) = read_link_at(dir, name) else {
                return Ok(Verdict::Unsure);
            };
            self.same_blob(entry, &target)
        } else {
            Ok(Verdict::Unsure)
        }
    }

    /// A file whose stat data cannot vouch for it: hash what git would store for it (through the
    /// same clean filters, line-ending rules and attributes `git add` applies) and compare.
    fn compare_content(
        &mut self,
        entry: &gix::index::Entry,
        dir: BorrowedFd<'_>,
        name: &[u8],
    ) -> Result<Verdict> {
        use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
        use std::io::Read as _;

        let Some(file) = open_file(dir, name) else {
            return Ok(Verdict::Unsure);
        };
        if self.filters.is_none() {
            let attributes = self
                .repo
                .attributes_only(
                    self.index,
                    gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping,
                )
                .map_err(crate::git::gix_err)?;
            let pipeline = gix::filter::Pipeline::new(self.repo, attributes.detach())
                .map_err(crate::git::gix_err)?;
            self.filters = Some(pipeline);
        }
        let filters = self.filters.as_mut().expect("just set");
        let rela = entry.path(self.index);
        let Ok(rela_path) = gix::path::from_byte_slice(rela) else {
            return Ok(Verdict::Unsure);
        };
        let mut data = Vec::new();
        let read = match filters
            .convert_to_git(file, rela_path, self.index)
            .map_err(crate::git::gix_err)?
        {
            ToGitOutcome::Unchanged(mut file) => file.read_to_end(&mut data).map(drop),
            ToGitOutcome::Process(mut stream) => stream.read_to_end(&mut data).map(drop),
            ToGitOutcome::Buffer(buf) => {
                data.extend_from_slice(buf);
                Ok(())
            }
        };
        if read.is_err() {
            return Ok(Verdict::Unsure);
        }
        self.same_blob(entry, &data)
    }

    /// Clean when `data` is the blob the index records for `entry`.
    fn same_blob(&self, entry: &gix::index::Entry, data: &[u8]) -> Result<Verdict> {
        let id = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, data)
            .map_err(crate::git::gix_err)?;
        Ok(if id == entry.id {
            Verdict::Clean
        } else {
            Verdict::Dirty
        })
    }

    /// List `dir` and look at every name the index does not have: ignored ones are fine, an
    /// untracked file is a change, and an untracked folder leaves it to the full status (git's
    /// rules for those are subtle: an empty one or one of only ignored files is no change).
    fn untracked_in(&mut self, dir: &Dir<'a>) -> Result<Verdict> {
        let mut known = dir.children.clone();
        known.sort_unstable();
        let Some(names) = list_dir(&dir.fd) else {
            return Ok(Verdict::Unsure);
        };
        for (name, kind) in names {
            if known.binary_search(&name.as_slice()).is_ok() {
                continue;
            }
            if name == b".git" {
                if dir.prefix.is_empty() {
                    continue;
                }
                return Ok(Verdict::Unsure);
            }
            let mode = match kind {
                fs::FileType::Directory => Mode::DIR,
                fs::FileType::Symlink => Mode::SYMLINK,
                fs::FileType::RegularFile => Mode::FILE,
                _ => return Ok(Verdict::Unsure),
            };
            let mut rela = dir.prefix.to_vec();
            rela.extend_from_slice(&name);
            if !self.is_ignored(rela.as_bstr(), mode)? {
                // An untracked file is a change; whether an untracked folder is one depends on
                // what it holds, which the full status works out.
                return Ok(if mode == Mode::DIR {
                    Verdict::Unsure
                } else {
                    Verdict::Dirty
                });
            }
        }
        Ok(Verdict::Clean)
    }

    fn is_ignored(&mut self, rela: &BStr, mode: Mode) -> Result<bool> {
        if self.excludes.is_none() {
            let stack = self
                .repo
                .excludes(
                    self.index,
                    None,
                    gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
                )
                .map_err(crate::git::gix_err)?;
            self.excludes = Some(stack);
        }
        let excludes = self.excludes.as_mut().expect("just set");
        let platform = excludes
            .at_entry(rela, Some(mode))
            .map_err(crate::git::gix_err)?;
        Ok(platform.is_excluded())
    }
}

/// Open a directory for reading, relative to `parent` (or `name` as a whole path), never through
/// a symbolic link.
fn open_dir(parent: Option<&OwnedFd>, name: &[u8]) -> rustix::io::Result<OwnedFd> {
    let at = parent.map_or(fs::CWD, |fd| fd.as_fd());
    open_at(at, name, fs::OFlags::DIRECTORY)
}

/// Open the file `name` inside the directory `dir` for reading, never through a symbolic link.
fn open_file(dir: BorrowedFd<'_>, name: &[u8]) -> Option<std::fs::File> {
    open_at(dir, name, fs::OFlags::empty())
        .ok()
        .map(std::fs::File::from)
}

/// `openat(2)` read-only, close-on-exec, not following a final symbolic link, plus `flags`.
fn open_at(at: BorrowedFd<'_>, name: &[u8], flags: fs::OFlags) -> rustix::io::Result<OwnedFd> {
    let flags = fs::OFlags::RDONLY | fs::OFlags::NOFOLLOW | fs::OFlags::CLOEXEC | flags;
    fs::openat(at, name, flags, fs::Mode::empty())
}

/// The target of the symbolic link `name` inside the directory `dir`.
fn read_link_at(dir: BorrowedFd<'_>, name: &[u8]) -> Option<Vec<u8>> {
    fs::readlinkat(dir, name, Vec::new())
        .ok()
        .map(|target| target.into_bytes())
}

/// `lstat` of `name` inside the directory `dir`.
fn stat_at(dir: &OwnedFd, name: &[u8]) -> rustix::io::Result<fs::Stat> {
    fs::statat(dir, name, fs::AtFlags::SYMLINK_NOFOLLOW)
}

/// Every name in the directory (without `.` and `..`) with its kind as the listing reports it.
fn list_dir(dir: &OwnedFd) -> Option<Vec<(Vec<u8>, fs::FileType)>> {
    let mut out = Vec::new();
    for entry in fs::Dir::read_from(dir).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            out.push((name.to_vec(), entry.file_type()));
        }
    }
    Some(out)
}
