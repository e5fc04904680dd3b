//! Git's lock files that berth takes (a ref's `.lock`, `packed-refs.lock`, `config.lock`,
//! `index.lock`): a record of each, written before the lock is taken and removed once it is given
//! back, naming berth's pid and start time. A lock whose record names a berth that is gone was
//! left by a kill and is cleared; a lock without such a record is never removed, only named.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context as _, Result};

use crate::names;
use crate::ui::Ui;

/// The record of locks this process is taking or holds; dropping it says they are given back.
#[must_use = "the record must live until the locks are given back"]
pub struct Taking {
    record: PathBuf,
}

impl Drop for Taking {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.record);
    }
}

fn records_dir(common_dir: &Path) -> PathBuf {
    common_dir.join(names::STATE_DIR).join(names::LOCKS_DIR)
}

/// Record that this process is about to take `locks` (paths of git lock files under
/// `common_dir`). Written before any of them is taken, so that a kill at any point after leaves a
/// record of every lock it may have left.
pub fn taking(common_dir: &Path, locks: &[PathBuf]) -> Result<Taking> {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let dir = records_dir(common_dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let pid = std::process::id();
    // Without a start time (no `/proc`), no one can prove this process gone: the record has none,
    // and its locks are never cleared.
    let start = crate::process::start_time(pid);
    let shown = start.map_or_else(|| "unknown".to_owned(), |s| s.to_string());
    let name = format!("{pid}.{shown}.{}", SEQUENCE.fetch_add(1, Ordering::Relaxed));
    let mut text = format!("pid {pid}\n");
    if let Some(start) = start {
        text.push_str(&format!("start {start}\n"));
    }
    for lock in locks {
        let lock = std::path::absolute(lock).unwrap_or_else(|_| lock.clone());
        text.push_str(&format!("lock {}\n", lock.display()));
    }
    // Written whole and then renamed, so a reader never sees a record without its locks.
    let record = dir.join(&name);
    let temp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, &record))
        .with_context(|| format!("cannot write {}", record.display()))?;
    Ok(Taking { record })
}

/// One record as read back.
struct Record {
    path: PathBuf,
    /// The pid and its start time (`None`: unknown, so never proven gone).
    holder: (u32, Option<u64>),
    locks: Vec<PathBuf>,
    written: std::time::SystemTime,
}

fn records(common_dir: &Path) -> Vec<Record> {
    let Ok(entries) = std::fs::read_dir(records_dir(common_dir)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let (Ok(text), Ok(meta)) = (std::fs::read_to_string(&path), entry.metadata()) else {
            continue;
        };
        let (mut pid, mut start, mut locks) = (None, None, Vec::new());
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", v)) => pid = v.parse().ok(),
                Some(("start", v)) => start = v.parse().ok(),
                Some(("lock", v)) => locks.push(PathBuf::from(v)),
                _ => {}
            }
        }
        if let (Some(pid), Ok(written)) = (pid, meta.modified()) {
            out.push(Record {
                path,
                holder: (pid, start),
                locks,
                written,
            });
        }
    }
    out
}

fn holder_alive((pid, start): (u32, Option<u64>)) -> bool {
    start.is_none_or(|start| crate::process::alive(pid, Some(start)))
}

/// Remove the git lock files that berth processes now gone left under `common_dir`, and their
/// records; say each on `ui`. A lock is removed only when its record's holder is gone, it was
/// made after that record (so it is not one the holder found and waited for), and no live berth
/// has recorded it since. Every command's recovery and `prune` call this; so does every ref edit.
pub fn clear_dead(common_dir: &Path, ui: &Ui) -> Vec<PathBuf> {
    let all = records(common_dir);
    let mut removed = Vec::new();
    for record in all.iter().filter(|r| !holder_alive(r.holder)) {
        for lock in &record.locks {
            let Ok(made) = std::fs::symlink_metadata(lock).and_then(|m| m.modified()) else {
                continue;
            };
            // Read again right before the removal: a berth that records it now takes it now.
            let taken_again = records(common_dir)
                .iter()
                .any(|r| r.path != record.path && holder_alive(r.holder) && r.locks.contains(lock));
            if made >= record.written && !taken_again && std::fs::remove_file(lock).is_ok() {
                ui.status(format_args!(
                    "removed {}, which a killed {} (pid {}) left",
                    lock.display(),
                    names::TOOL,
                    record.holder.0
                ));
                removed.push(lock.clone());
            }
        }
        let _ = std::fs::remove_file(&record.path);
    }
    removed
}

/// The refusal for a git lock file berth cannot prove its own: it is named, never removed.
pub fn held_elsewhere(lock: &Path, what: &str) -> anyhow::Error {
    crate::error::refuse_with_hint(
        format!(
            "cannot {what}: {} exists (another git command holds it, or one was killed while it did)",
            lock.display()
        ),
        format!("if no git command is running, remove {}", lock.display()),
    )
}

/// `path` with `.lock` appended, as git names the lock of a file.
pub fn lock_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Where the loose ref `name` (`refs/...`, shared by every worktree) lives under `common_dir`.
pub fn ref_path(common_dir: &Path, name: &gix::refs::FullName) -> PathBuf {
    common_dir.join(name.as_bstr().to_string())
}

/// Tests stop a debug build at named points (`BERTH_TEST_PAUSE_*` in milliseconds) to kill it
/// there; a release build never pauses.
pub(crate) fn test_pause(var: &str) {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok()) {
        // Read by the test, not a person: below any `Ui`, and safe on a closed stderr as it is.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), b"paused\n");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    #[cfg(not(debug_assertions))]
    let _ = var;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of a process that has ended, naming `lock`.
    fn dead_record(common: &Path, lock: &Path) {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = crate::process::start_time(pid).unwrap();
        child.wait().unwrap();
        let dir = records_dir(common);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{pid}.{start}.0")),
            format!("pid {pid}\nstart {start}\nlock {}\n", lock.display()),
        )
        .unwrap();
    }

    fn temp() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "berth-locks-{}-{}",
            std::process::id(),
            SEQUENCE_FOR_TESTS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
    static SEQUENCE_FOR_TESTS: AtomicU64 = AtomicU64::new(0);

    #[test]
    fn a_lock_a_dead_berth_recorded_goes_with_its_record() {
        let common = temp();
        let lock = common.join("packed-refs.lock");
        dead_record(&common, &lock);
        std::fs::write(&lock, "").unwrap();
        assert_eq!(
            clear_dead(&common, &Ui::to(std::io::sink())),
            vec![lock.clone()]
        );
        assert!(!lock.exists());
        assert_eq!(std::fs::read_dir(records_dir(&common)).unwrap().count(), 0);
        std::fs::remove_dir_all(&common).unwrap();
    }

    #[test]
    fn a_lock_older_than_the_dead_berth_s_record_was_someone_else_s_and_stays() {
        let common = temp();
        let lock = common.join("index.lock");
        std::fs::write(&lock, "").unwrap();
        let before = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&lock)
            .unwrap()
            .set_modified(before)
            .unwrap();
        dead_record(&common, &lock);
        assert!(clear_dead(&common, &Ui::to(std::io::sink())).is_empty());
        assert!(lock.exists());
        std::fs::remove_dir_all(&common).unwrap();
    }

    #[test]
    fn a_lock_a_live_berth_recorded_since_stays_though_a_dead_one_named_it_too() {
        let common = temp();
        let lock = common.join("refs/heads/x.lock");
        dead_record(&common, &lock);
        let _mine = taking(&common, std::slice::from_ref(&lock)).unwrap();
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        std::fs::write(&lock, "").unwrap();
        assert!(clear_dead(&common, &Ui::to(std::io::sink())).is_empty());
        assert!(lock.exists());
        std::fs::remove_dir_all(&common).unwrap();
    }
}
