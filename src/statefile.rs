//! The state files berth owns (registry, port blocks, trust): read whole, written whole to a temp
//! file that is renamed over the old one. A file that cannot be read as what it should be is an
//! error naming it; it is never overwritten.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

use crate::{error, names};

/// The file's text, or `None` when it does not exist. `what` names it in errors ("registry").
pub fn read_text(path: &Path, what: &str) -> Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(corrupt(path, what, "not UTF-8 text"))
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The error for a state file that does not parse: it names the file and says it is left alone.
pub fn corrupt(path: &Path, what: &str, reason: &str) -> anyhow::Error {
    error::refuse_with_hint(
        format!("corrupt {what} {}: {reason}", path.display()),
        format!(
            "repair or move the file aside by hand; {} never rewrites it",
            names::TOOL
        ),
    )
}

/// The temp file this process writes `path` through: `.<name>.tmp.<pid>` beside it.
fn temp_path(path: &Path) -> std::path::PathBuf {
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{file_name}.tmp.{}", std::process::id()))
}

/// Whether `path` can be written as [`write_atomic`] writes it: its temp file is made beside it
/// and removed again, and nothing else changes. For a command that must refuse before it
/// destroys anything, rather than find out after. `what` names the file in the refusal.
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    let tmp = temp_path(path);
    let made = fs::File::create(&tmp);
    let _ = fs::remove_file(&tmp);
    made.map(drop).map_err(|e| {
        let dir = path.parent().unwrap_or(path);
        error::refuse_with_hint(
            format!(
                "cannot write the {what} {}: {}",
                path.display(),
                error::io_reason(&e)
            ),
            format!("make {} writable, then run it again", dir.display()),
        )
    })
}

/// Write `bytes` to a temp file beside `path`, flush it to disk, then rename it over `path`, so a
/// reader sees the old file or the new one, never a part. `mode` sets Unix permissions.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let tmp = temp_path(path);
    let written = (|| -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt as _;
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
