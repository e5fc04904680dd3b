//! The filesystem probe: which checkout a path lies in, found by resolving the path's links by
//! hand and walking up for `.git`, reading the `.git` file and `commondir` by hand. It runs
//! before every tool call of every agent, so it must stay a handful of system calls: never open
//! a repository with gix here.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Where a path lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In no git checkout at all.
    Outside,
    /// In a primary checkout (its `.git` is a directory); `root` is that checkout.
    Primary { root: PathBuf },
    /// In a linked worktree (its `.git` is a file); `primary` is the primary checkout when the
    /// common dir is an ordinary `<checkout>/.git`.
    Linked {
        root: PathBuf,
        primary: Option<PathBuf>,
    },
}

/// Which checkout `path` (absolute; it need not exist yet) lies in. Any error reading a `.git`
/// on the way is returned, so the caller can block rather than guess.
pub fn locate(path: &Path) -> io::Result<Place> {
    let real = resolve(path)?;
    for dir in real.ancestors() {
        let dot_git = dir.join(".git");
        match fs::metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => {
                return Ok(Place::Primary {
                    root: dir.to_path_buf(),
                });
            }
            Ok(_) => {
                let primary = primary_of_linked(dir, &dot_git)?;
                return Ok(Place::Linked {
                    root: dir.to_path_buf(),
                    primary,
                });
            }
            // ENOTDIR: `dir` is the file being edited, not a directory; keep walking up.
            Err(e) if is_missing(&e) => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot read {}: {e}", dot_git.display()),
                ));
            }
        }
    }
    Ok(Place::Outside)
}

/// How many symlinks one resolution follows before it calls the path a loop, as Linux does.
const MAX_HOPS: usize = 40;

/// One piece of a path still to walk.
enum Step {
    /// The root (`/`), from the path or from an absolute link's target.
    Root(OsString),
    Up,
    Name(OsString),
}

/// Where the kernel would land for the absolute `path`: each component is looked at with one
/// `lstat`, and a symlink is read and followed from its folder (even when what it names does not
/// exist yet, since a write through a dangling link creates its target), so `link/..` is the
/// target's parent. Past the first component that does not exist the rest is taken lexically; a
/// `..` that climbs back out of the missing part resumes resolving, where the folders a command
/// is about to make would lead. Following more than 40 links is an error, like ELOOP.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not absolute", path.display()),
        ));
    }
    let mut todo = Vec::new();
    push_steps(&mut todo, path);
    let mut out = PathBuf::new();
    // How many components of `out` lie past the first one that does not exist.
    let mut missing = 0usize;
    let mut hops = 0;
    while let Some(step) = todo.pop() {
        let name = match step {
            Step::Root(root) => {
                out.push(root);
                continue;
            }
            Step::Up => {
                out.pop();
                missing = missing.saturating_sub(1);
                continue;
            }
            Step::Name(name) => name,
        };
        out.push(name);
        if missing > 0 {
            missing += 1;
            continue;
        }
        match fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(io::Error::new(
                        io::Error::from_raw_os_error(libc::ELOOP).kind(),
                        format!(
                            "cannot resolve {}: more than {MAX_HOPS} symbolic links on the way",
                            path.display()
                        ),
                    ));
                }
                let target = fs::read_link(&out).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot read the link {}: {e}", out.display()),
                    )
                })?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::new();
                }
                push_steps(&mut todo, &target);
            }
            Ok(_) => {}
            Err(e) if is_missing(&e) => missing = 1,
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot resolve {}: {e}", out.display()),
                ));
            }
        }
    }
    Ok(out)
}

/// Puts `path`'s components on `todo` so that the first one is popped first.
fn push_steps(todo: &mut Vec<Step>, path: &Path) {
    let start = todo.len();
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => {
                todo.push(Step::Root(comp.as_os_str().to_owned()));
            }
            Component::CurDir => {}
            Component::ParentDir => todo.push(Step::Up),
            Component::Normal(name) => todo.push(Step::Name(name.to_owned())),
        }
    }
    todo[start..].reverse();
}

fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Reads `<worktree>/.git` (`gitdir: <admin dir>`) and the admin dir's `commondir` to find the
/// primary checkout. A `.git` file that does not say `gitdir:` is an error: git would refuse
/// it too, and the guard must not call such a place a linked worktree.
fn primary_of_linked(worktree: &Path, dot_git: &Path) -> io::Result<Option<PathBuf>> {
    let text = fs::read_to_string(dot_git)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", dot_git.display())))?;
    let Some(gitdir) = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
    else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} does not name a gitdir", dot_git.display()),
        ));
    };
    if gitdir.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} names an empty gitdir", dot_git.display()),
        ));
    }
    let admin = worktree.join(gitdir);
    let common = match fs::read_to_string(admin.join("commondir")) {
        Ok(c) => admin.join(c.trim()),
        // No commondir: a submodule or `--separate-git-dir` checkout. The seed calls every
        // `.git` file a linked worktree; there is no primary checkout to name.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", admin.join("commondir").display()),
            ));
        }
    };
    let common = resolve(&common)?;
    Ok(match common.file_name() {
        Some(n) if n == ".git" => common.parent().map(Path::to_path_buf),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A private real folder, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Scratch {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "berth-probe-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(fs::canonicalize(dir).unwrap())
        }

        fn dir(&self, rel: &str) -> PathBuf {
            let p = self.0.join(rel);
            fs::create_dir_all(&p).unwrap();
            p
        }

        fn link(&self, rel: &str, target: &str) -> PathBuf {
            let p = self.0.join(rel);
            symlink(target, &p).unwrap();
            p
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_dangling_link_into_a_primary_resolves_to_where_a_write_would_land() {
        let s = Scratch::new();
        let primary = s.dir("primary");
        s.dir("linked");
        let link = s.link("linked/p", "../primary/x");
        assert!(!primary.join("x").exists());
        assert_eq!(resolve(&link).unwrap(), primary.join("x"));
        assert_eq!(resolve(&link.join("y/z")).unwrap(), primary.join("x/y/z"));
    }

    #[test]
    fn a_chain_of_links_resolves_to_its_last_target() {
        let s = Scratch::new();
        let end = s.dir("end");
        s.link("c", &end.display().to_string());
        s.link("b", "c");
        let a = s.link("a", "./b");
        assert_eq!(resolve(&a.join("f")).unwrap(), end.join("f"));
        assert_eq!(resolve(&a).unwrap(), fs::canonicalize(&a).unwrap());
    }

    #[test]
    fn a_link_loop_is_an_error_not_a_hang() {
        let s = Scratch::new();
        let a = s.link("a", "b");
        s.link("b", "a");
        let self_loop = s.link("me", "me");
        for p in [a.join("x"), self_loop] {
            let e = resolve(&p).unwrap_err();
            assert!(e.to_string().contains("symbolic links"), "{e}");
        }
    }

    #[test]
    fn forty_links_in_a_row_resolve_and_forty_one_do_not() {
        let s = Scratch::new();
        let end = s.dir("end");
        let mut target = end.display().to_string();
        for i in 0..41 {
            let name = format!("l{i}");
            s.link(&name, &target);
            target = name;
        }
        assert_eq!(resolve(&s.0.join("l39")).unwrap(), end);
        assert!(resolve(&s.0.join("l40")).is_err());
    }

    #[test]
    fn dot_dot_after_a_link_climbs_from_the_links_target_as_the_kernel_does() {
        let s = Scratch::new();
        let deep = s.dir("primary/deep");
        s.dir("linked");
        let link = s.link("linked/d", &deep.display().to_string());
        let p = link.join("../x");
        assert_eq!(resolve(&p).unwrap(), s.0.join("primary/x"));
        // What the kernel says: creating the file through the same path lands there too.
        fs::write(&p, "").unwrap();
        assert!(s.0.join("primary/x").exists());
        assert!(!s.0.join("linked/x").exists());
    }

    #[test]
    fn a_relative_link_is_followed_from_the_folder_that_holds_it() {
        let s = Scratch::new();
        s.dir("a/b");
        let target = s.dir("a/t");
        let link = s.link("a/b/l", "../t");
        assert_eq!(resolve(&link.join("f")).unwrap(), target.join("f"));
    }

    #[test]
    fn a_missing_tail_stays_lexical_and_climbing_back_resumes_resolving() {
        let s = Scratch::new();
        let primary = s.dir("primary");
        s.dir("linked");
        s.link("linked/p", &primary.display().to_string());
        let linked = s.0.join("linked");
        assert_eq!(
            resolve(&linked.join("new/./deeper/../f")).unwrap(),
            linked.join("new/f")
        );
        assert_eq!(
            resolve(&linked.join("new/../p/f")).unwrap(),
            primary.join("f")
        );
    }

    #[test]
    fn a_path_through_a_file_stays_lexical_past_it() {
        let s = Scratch::new();
        let dir = s.dir("d");
        fs::write(dir.join("file"), "").unwrap();
        assert_eq!(resolve(&dir.join("file/x")).unwrap(), dir.join("file/x"));
    }

    #[test]
    fn an_existing_path_resolves_as_canonicalize_does() {
        let s = Scratch::new();
        s.dir("a/b/c");
        s.link("a/l", "b");
        let p = s.0.join("a/l/c/../c/./");
        assert_eq!(resolve(&p).unwrap(), fs::canonicalize(&p).unwrap());
        assert_eq!(resolve(Path::new("/")).unwrap(), Path::new("/"));
        assert_eq!(resolve(Path::new("/..")).unwrap(), Path::new("/"));
    }

    #[test]
    fn a_relative_path_is_refused() {
        let e = resolve(Path::new("a/b")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
