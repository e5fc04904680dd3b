//! berth's own locks (the registry's, the port blocks', the landing log's, ship's, the trust
//! file's, a fleet's state's): advisory `flock` locks on a file, which a kill gives back. Taking
//! one tries first; one that must wait says for what and for whom on stderr, as cargo does, and
//! never waits silently, except [`lock_briefly`], whose holders keep it for milliseconds.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::Path;

use anyhow::{Context as _, Result};

/// A lock held until this value is dropped.
#[must_use = "the lock is given back when this is dropped"]
pub struct Held {
    file: File,
}

impl Drop for Held {
    fn drop(&mut self) {
        // The next holder writes its own pid; an empty file never names a holder that is gone.
        let _ = self.file.set_len(0);
    }
}

/// Take the lock at `path` (made if missing), waiting as long as another process holds it; when
/// it must wait, say `waiting for <what> (held by pid N)` on stderr first.
pub fn lock(path: &Path, what: &str) -> Result<Held> {
    let mut file = open(path)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            // Its callers (the registry, port blocks, trust file, landing log) hold no `Ui`; a
            // plain one still never panics on a closed stderr.
            let ui = crate::ui::Ui::stderr();
            match text.trim().parse::<u32>() {
                // Another thread of this process (a fleet's parallel launches): nothing to say.
                Ok(pid) if pid == std::process::id() => {}
                Ok(pid) => ui.status(format_args!("waiting for {what} (held by pid {pid})")),
                Err(_) => ui.status(format_args!("waiting for {what} (held by another process)")),
            }
            file.lock()
                .with_context(|| format!("cannot lock {}", path.display()))?;
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    held(file, path)
}

/// Take the lock at `path` (made if missing), waiting without a word: for a lock every holder
/// keeps only to read a small file and write it again (a fleet's state, which each agent's
/// supervisor writes), so that a wait lasts milliseconds and a note would only be noise.
pub fn lock_briefly(path: &Path) -> Result<Held> {
    let file = open(path)?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    held(file, path)
}

/// Take the lock at `path` (made if missing) if no one holds it; none when another process
/// (or another handle of this one) holds it.
pub fn try_lock(path: &Path) -> Result<Option<Held>> {
    let file = open(path)?;
    match file.try_lock() {
        Ok(()) => held(file, path).map(Some),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", path.display()))
        }
    }
}

fn open(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

/// The lock taken: this process's pid written into it, for a waiter to name.
fn held(mut file: File, path: &Path) -> Result<Held> {
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", std::process::id()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Held { file })
}
