//! Seeding: untracked files of the primary checkout (`.env`, local config, `node_modules`) brought
//! into a new worktree, as listed in `.worktree-hooks/seed` or matched by `.worktreeinclude`.
//! Planning is pure; it never plans a copy over an existing file, of a tracked file, or of a path
//! that leaves the checkout or passes through a symlink. A copy is the default, so that what a
//! worktree writes (its port into `.env`) never reaches the primary or a sibling.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::ui::Ui;

/// How a path is brought over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Only when the seed line says `link`: a file is hard-linked, a folder symlinked, so edits
    /// in either checkout show in both.
    Link,
    /// The default: the worktree's own copy, cloned (reflink) where the filesystem can, so even a
    /// large folder costs little until one side changes it.
    Copy,
}

/// One line of a seed file: a path relative to the checkout, and optionally its mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub path: String,
    pub mode: Option<Mode>,
}

/// Parse a seed file: one path per line, optionally followed by `link` or `copy`; blank lines and
/// `#` comments are skipped. The error names the line.
pub fn parse(text: &str) -> Result<Vec<Line>, String> {
    let mut out = Vec::new();
    for (at, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (path, mode) = match line.rsplit_once(char::is_whitespace) {
            Some((path, "link")) => (path.trim_end(), Some(Mode::Link)),
            Some((path, "copy")) => (path.trim_end(), Some(Mode::Copy)),
            _ => (line, None),
        };
        if path.split_whitespace().count() > 1 && mode.is_none() {
            return Err(format!(
                "line {}: '{line}' is not '<path> [link|copy]'",
                at + 1
            ));
        }
        out.push(Line {
            path: path.to_owned(),
            mode,
        });
    }
    Ok(out)
}

/// Why a listed path is not brought over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// The source does not exist: a warning, not a failure.
    Missing,
    /// Something already exists at the destination; it is never overwritten.
    Exists,
    /// The path is tracked: git brings it already, and a link would tie two checkouts together.
    Tracked,
    /// Absolute, or with `..`: it would leave the checkout.
    Escapes,
    /// It passes through (or is) a symlink, which could lead out of the checkout.
    Symlink,
    /// A socket, pipe or device: nothing that can be copied.
    Special,
}

impl Skip {
    pub fn reason(&self) -> &'static str {
        match self {
            Skip::Missing => "it does not exist in the primary checkout",
            Skip::Exists => "something is already there",
            Skip::Tracked => "it is tracked by git",
            Skip::Escapes => "it leaves the checkout",
            Skip::Symlink => "it passes through a symlink",
            Skip::Special => "it is not a file or a folder",
        }
    }
}

/// What the filesystem says about a path, so planning stays pure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Missing,
    File,
    Dir,
    Symlink,
    /// A socket, pipe or device.
    Special,
}

/// A planned seed: copy or link `rel` from the primary into the new worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub rel: PathBuf,
    pub mode: Mode,
    pub is_dir: bool,
}

/// Decide for each line. `source` and `dest` say what is at a relative path (the path itself, or
/// any of its parents when `parents` is true); `tracked` holds the primary's index paths.
pub fn plan(
    lines: &[Line],
    tracked: &BTreeSet<String>,
    source: impl Fn(&Path) -> Kind,
    dest: impl Fn(&Path) -> Kind,
) -> (Vec<Item>, Vec<(String, Skip)>) {
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for line in lines {
        let rel = PathBuf::from(line.path.trim_end_matches('/'));
        let verdict = judge(&rel, tracked, &source, &dest);
        match verdict {
            Ok(is_dir) => items.push(Item {
                mode: line.mode.unwrap_or(Mode::Copy),
                rel,
                is_dir,
            }),
            Err(skip) => skipped.push((line.path.clone(), skip)),
        }
    }
    (items, skipped)
}

fn judge(
    rel: &Path,
    tracked: &BTreeSet<String>,
    source: &impl Fn(&Path) -> Kind,
    dest: &impl Fn(&Path) -> Kind,
) -> Result<bool, Skip> {
    let normal =
        !rel.as_os_str().is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !normal {
        return Err(Skip::Escapes);
    }
    // Every parent, in both checkouts, must be a plain folder (or absent in the destination).
    let mut parent = PathBuf::new();
    let parts: Vec<_> = rel.components().collect();
    for part in &parts[..parts.len() - 1] {
        parent.push(part);
        if source(&parent) == Kind::Symlink || dest(&parent) == Kind::Symlink {
            return Err(Skip::Symlink);
        }
    }
    let is_dir = match source(rel) {
        Kind::Missing => return Err(Skip::Missing),
        Kind::Symlink => return Err(Skip::Symlink),
        Kind::Special => return Err(Skip::Special),
        Kind::File => false,
        Kind::Dir => true,
    };
    let key = rel.to_string_lossy().replace('\\', "/");
    let prefix = format!("{key}/");
    if tracked.contains(&key)
        || tracked
            .range(prefix.clone()..)
            .next()
            .is_some_and(|t| t.starts_with(&prefix))
    {
        return Err(Skip::Tracked);
    }
    if dest(rel) != Kind::Missing {
        return Err(Skip::Exists);
    }
    Ok(is_dir)
}

/// What is at `root/rel`, without following a symlink.
pub fn kind_at(root: &Path, rel: &Path) -> Kind {
    match fs::symlink_metadata(root.join(rel)) {
        Err(_) => Kind::Missing,
        Ok(m) if m.file_type().is_symlink() => Kind::Symlink,
        Ok(m) if m.is_dir() => Kind::Dir,
        Ok(m) if m.is_file() => Kind::File,
        Ok(_) => Kind::Special,
    }
}

/// Carry out a plan from `primary` into `worktree`. Nothing is ever written over what is there:
/// each file is created new, each folder made new. A hard link that falls back to a copy is
/// warned about on `ui`.
pub fn apply(primary: &Path, worktree: &Path, items: &[Item], ui: &Ui) -> Result<()> {
    for item in items {
        let from = primary.join(&item.rel);
        let to = worktree.join(&item.rel);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let done = match (item.mode, item.is_dir) {
            (Mode::Link, false) => hard_link(&from, &to, &item.rel, ui),
            (Mode::Link, true) => symlink_dir(&from, &to),
            (Mode::Copy, false) => copy_file(&from, &to),
            (Mode::Copy, true) => copy_dir(&from, &to),
        };
        done.with_context(|| {
            format!(
                "cannot seed {} into {}",
                item.rel.display(),
                worktree.display()
            )
        })?;
    }
    Ok(())
}

/// A hard link as the seed line asked; across filesystems (worktrees may live on another one)
/// there can be none, so the file is copied and the person told that edits will not be shared.
fn hard_link(from: &Path, to: &Path, rel: &Path, ui: &Ui) -> std::io::Result<()> {
    match fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(e) => {
            ui.warn(format_args!(
                "cannot hard-link {} ({e}); copied it instead, so edits are not shared",
                rel.display()
            ));
            copy_file(from, to)
        }
    }
}

#[cfg(unix)]
fn symlink_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(from, to)
}

#[cfg(not(unix))]
fn symlink_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    copy_dir(from, to)
}

/// Copy a folder the way each file is copied; a symlink inside it is made again as the same
/// symlink, never followed, and a socket or pipe is left out (reading a pipe would wait forever).
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else if kind.is_file() {
            copy_file(&src, &dst)?;
        }
    }
    Ok(())
}

/// Copy one file to a path where nothing is: a clone of its extents (FICLONE) where the
/// filesystem shares them (btrfs, XFS, bcachefs), else its bytes. A half-written copy is removed.
#[cfg(target_os = "linux")]
fn copy_file(from: &Path, to: &Path) -> std::io::Result<()> {
    use rustix::io::Errno;
    use std::os::unix::fs::OpenOptionsExt as _;

    let mut source = fs::File::open(from)?;
    let permissions = source.metadata()?.permissions();
    let mut target = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)?;
    let copied = match rustix::fs::ioctl_ficlone(&target, &source) {
        Ok(()) => Ok(()),
        // No sharing here: not supported, another filesystem, or not alike enough to share.
        Err(Errno::OPNOTSUPP | Errno::XDEV | Errno::INVAL | Errno::NOTTY) => {
            std::io::copy(&mut source, &mut target).map(|_| ())
        }
        Err(e) => Err(e.into()),
    };
    match copied.and_then(|()| target.set_permissions(permissions)) {
        Ok(()) => Ok(()),
        Err(e) => {
            drop(target);
            let _ = fs::remove_file(to);
            Err(e)
        }
    }
}

/// Elsewhere `std::fs::copy` clones where it can (macOS's `fclonefileat`); the plan has already
/// made sure nothing is at `to`.
#[cfg(not(target_os = "linux"))]
fn copy_file(from: &Path, to: &Path) -> std::io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(std::io::ErrorKind::AlreadyExists.into());
    }
    fs::copy(from, to).map(|_| ())
}

/// Untracked paths of the primary checkout that `.worktreeinclude` (gitignore syntax) matches:
/// each matching file, or a whole matching folder. `.git` and tracked paths are never walked in.
pub fn included(primary: &Path, patterns: &[u8], tracked: &BTreeSet<String>) -> Vec<String> {
    let mut search = gix::ignore::Search::default();
    if search
        .add_patterns_buffer(
            patterns,
            primary.join(crate::names::WORKTREE_INCLUDE),
            Some(primary),
            Default::default(),
        )
        .is_err()
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(primary, Path::new(""), &search, tracked, &mut out);
    out
}

fn walk(
    root: &Path,
    rel: &Path,
    search: &gix::ignore::Search,
    tracked: &BTreeSet<String>,
    out: &mut Vec<String>,
) {
    let Ok(entries) = fs::read_dir(root.join(rel)) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if rel.as_os_str().is_empty() && name == ".git" {
            continue;
        }
        let path = rel.join(&name);
        let key = path.to_string_lossy().replace('\\', "/");
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        let is_dir = kind.is_dir();
        let matched = search
            .pattern_matching_relative_path(
                key.as_str().into(),
                Some(is_dir),
                gix::glob::pattern::Case::Sensitive,
            )
            .is_some_and(|m| !m.pattern.is_negative());
        let prefix = format!("{key}/");
        let holds_tracked = tracked
            .range(prefix.clone()..)
            .next()
            .is_some_and(|t| t.starts_with(&prefix));
        if matched && !tracked.contains(&key) && !holds_tracked {
            out.push(key);
        } else if is_dir && (holds_tracked || !matched) {
            walk(root, &path, search, tracked, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Ui whose lines go nowhere: these tests read the files, not what is said.
    fn quiet() -> Ui {
        Ui::to(std::io::sink())
    }

    fn lines(text: &str) -> Vec<Line> {
        parse(text).unwrap()
    }

    #[test]
    fn a_seed_file_lists_paths_with_an_optional_mode() {
        let parsed = lines("# local files\n.env\n\nnode_modules copy\nconfig/local.json link\n");
        assert_eq!(parsed.len(), 3);
        assert_eq!(
            parsed[0],
            Line {
                path: ".env".into(),
                mode: None
            }
        );
        assert_eq!(parsed[1].mode, Some(Mode::Copy));
        assert_eq!(parsed[2].path, "config/local.json");
        assert!(parse("a b c\n").is_err());
    }

    fn fs_of(entries: &'static [(&'static str, Kind)]) -> impl Fn(&Path) -> Kind {
        move |p: &Path| {
            entries
                .iter()
                .find(|(path, _)| Path::new(path) == p)
                .map(|(_, k)| *k)
                .unwrap_or(Kind::Missing)
        }
    }

    /// A primary checkout and a worktree, two folders under one temp folder of the test's own,
    /// removed when the test ends, passed or not.
    struct Checkouts {
        root: PathBuf,
        primary: PathBuf,
        wt: PathBuf,
    }

    impl Checkouts {
        fn new(test: &str) -> Checkouts {
            let root =
                std::env::temp_dir().join(format!("berth-seed-{test}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&root);
            let (primary, wt) = (root.join("p"), root.join("w"));
            fs::create_dir_all(&primary).unwrap();
            fs::create_dir_all(&wt).unwrap();
            Checkouts { root, primary, wt }
        }
    }

    impl Drop for Checkouts {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.root);
        }
    }

    #[test]
    fn files_and_folders_are_copied_unless_the_line_says_link() {
        let source = fs_of(&[
            (".env", Kind::File),
            ("node_modules", Kind::Dir),
            ("shared.db", Kind::File),
            ("cache", Kind::Dir),
        ]);
        let (items, skipped) = plan(
            &lines(".env\nnode_modules/\nshared.db link\ncache link\n"),
            &BTreeSet::new(),
            source,
            fs_of(&[]),
        );
        assert!(skipped.is_empty());
        let modes: Vec<_> = items.iter().map(|i| (i.mode, i.is_dir)).collect();
        assert_eq!(
            modes,
            [
                (Mode::Copy, false),
                (Mode::Copy, true),
                (Mode::Link, false),
                (Mode::Link, true)
            ]
        );
        assert_eq!(items[1].rel, Path::new("node_modules"));
    }

    #[test]
    fn nothing_is_planned_that_could_lose_or_leak_data() {
        let source = fs_of(&[
            (".env", Kind::File),
            ("src/lib.rs", Kind::File),
            ("src", Kind::Dir),
            ("link", Kind::Symlink),
            ("via", Kind::Symlink),
            ("agent.sock", Kind::Special),
        ]);
        let dest = fs_of(&[(".env", Kind::File)]);
        let tracked: BTreeSet<String> = ["src/lib.rs".to_owned()].into();
        let text = ".env\nsrc/lib.rs\nsrc\n../outside\n/etc/passwd\nlink\nvia/secret\nmissing.txt\nagent.sock\n";
        let (items, skipped) = plan(&lines(text), &tracked, source, dest);
        assert!(items.is_empty(), "{items:?}");
        let reasons: Vec<_> = skipped
            .iter()
            .map(|(p, s)| (p.as_str(), s.clone()))
            .collect();
        assert_eq!(
            reasons,
            [
                (".env", Skip::Exists),
                ("src/lib.rs", Skip::Tracked),
                ("src", Skip::Tracked),
                ("../outside", Skip::Escapes),
                ("/etc/passwd", Skip::Escapes),
                ("link", Skip::Symlink),
                ("via/secret", Skip::Symlink),
                ("missing.txt", Skip::Missing),
                ("agent.sock", Skip::Special),
            ]
        );
    }

    #[test]
    fn a_copy_is_the_worktrees_own_and_a_link_is_shared() {
        let dirs = Checkouts::new("apply");
        let (primary, wt) = (&dirs.primary, &dirs.wt);
        fs::create_dir_all(primary.join("deps/inner")).unwrap();
        fs::write(primary.join(".env"), "KEY=1\n").unwrap();
        fs::write(primary.join("shared.db"), "v1").unwrap();
        fs::write(primary.join("deps/inner/a.js"), "x").unwrap();
        let item = |rel: &str, mode, is_dir| Item {
            rel: rel.into(),
            mode,
            is_dir,
        };
        let items = [
            item(".env", Mode::Copy, false),
            item("deps", Mode::Copy, true),
            item("shared.db", Mode::Link, false),
        ];
        apply(primary, wt, &items, &quiet()).unwrap();
        fs::write(wt.join(".env"), "KEY=1\nPORT=24000\n").unwrap();
        fs::write(wt.join("deps/inner/a.js"), "changed").unwrap();
        fs::write(primary.join("shared.db"), "v2").unwrap();
        assert_eq!(fs::read_to_string(primary.join(".env")).unwrap(), "KEY=1\n");
        assert_eq!(
            fs::read_to_string(primary.join("deps/inner/a.js")).unwrap(),
            "x"
        );
        assert_eq!(
            fs::read_to_string(wt.join("shared.db")).unwrap(),
            "v2",
            "a hard link follows edits"
        );
        let again = apply(primary, wt, &items[..1], &quiet()).unwrap_err();
        assert!(
            format!("{again:#}").contains("cannot seed .env"),
            "{again:#}"
        );
        assert_eq!(
            fs::read_to_string(wt.join(".env")).unwrap(),
            "KEY=1\nPORT=24000\n",
            "never over an existing file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_copied_folder_keeps_modes_and_symlinks_and_leaves_out_pipes() {
        use std::os::unix::fs::PermissionsExt as _;
        let dirs = Checkouts::new("tree");
        let modules = dirs.primary.join("node_modules");
        fs::create_dir_all(modules.join("pkg/bin")).unwrap();
        fs::write(modules.join("pkg/bin/tool"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(
            modules.join("pkg/bin/tool"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let outside = dirs.root.join("outside");
        fs::write(&outside, "secret").unwrap();
        fs::create_dir_all(modules.join(".bin")).unwrap();
        std::os::unix::fs::symlink("../pkg/bin/tool", modules.join(".bin/tool")).unwrap();
        std::os::unix::fs::symlink(&outside, modules.join("escape")).unwrap();
        let fifo_mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
        rustix::fs::mknodat(
            rustix::fs::CWD,
            modules.join("fifo"),
            rustix::fs::FileType::Fifo,
            fifo_mode,
            0,
        )
        .unwrap();

        let item = Item {
            rel: "node_modules".into(),
            mode: Mode::Copy,
            is_dir: true,
        };
        apply(&dirs.primary, &dirs.wt, &[item], &quiet()).unwrap();
        let copied = dirs.wt.join("node_modules");
        let tool = fs::metadata(copied.join("pkg/bin/tool")).unwrap();
        assert_eq!(tool.permissions().mode() & 0o777, 0o755);
        assert_eq!(
            fs::read_link(copied.join(".bin/tool")).unwrap(),
            Path::new("../pkg/bin/tool")
        );
        assert_eq!(
            fs::read_link(copied.join("escape")).unwrap(),
            outside,
            "a symlink is made again, never followed"
        );
        assert!(fs::symlink_metadata(copied.join("fifo")).is_err());
    }

    #[test]
    fn worktreeinclude_matches_untracked_files_and_folders_only() {
        let dirs = Checkouts::new("include");
        let root = &dirs.primary;
        fs::create_dir_all(root.join("node_modules/x")).unwrap();
        fs::create_dir_all(root.join("config")).unwrap();
        fs::write(root.join(".env"), "").unwrap();
        fs::write(root.join(".env.example"), "").unwrap();
        fs::write(root.join("config/local.json"), "").unwrap();
        fs::write(root.join("config/app.json"), "").unwrap();
        let tracked: BTreeSet<String> =
            [".env.example".to_owned(), "config/app.json".to_owned()].into();
        let found = included(root, b".env*\nnode_modules/\nconfig/*.json\n", &tracked);
        assert_eq!(found, [".env", "config/local.json", "node_modules"]);
    }
}
