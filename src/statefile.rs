//! The state files berth owns (registry, port blocks, trust): read whole, written whole to a temp
//! file that is renamed over the old one. A file that cannot be read as what it should be is an
//! error naming it; it is never overwritten: an empty one, or one without `version` (which every
//! file berth writes holds), too. A temp file left by a killed writer goes with the next write.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

use crate::{error, names, process};

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
    error::misconfigured(
        format!("corrupt {what} {}: {reason}", path.display()),
        format!(
            "repair or move the file aside by hand; {} never rewrites it",
            names::TOOL
        ),
    )
}

/// Parse `text` as a state file of format `newest` or older; the error is one line. An empty file
/// or one with no `version` key is refused, not read as empty: berth never writes either, so it
/// is a truncated or foreign file, and writing over it would lose the records it stood for.
pub fn parse<T: serde::de::DeserializeOwned>(text: &str, newest: u32) -> Result<T, String> {
    /// The key every file berth writes holds, read before the rest so that a newer file is
    /// named as newer rather than by the first field this build does not know.
    #[derive(serde::Deserialize)]
    struct Head {
        version: Option<toml::Value>,
    }
    if text.trim().is_empty() {
        return Err("the file is empty".to_owned());
    }
    let head: Head = toml::from_str(text).map_err(|e| toml_reason(text, &e))?;
    let version = match head.version {
        None => {
            return Err(format!(
                "it has no `version` key, which every file {} writes holds",
                names::TOOL
            ));
        }
        Some(toml::Value::Integer(v)) => v,
        Some(other) => return Err(format!("`version` is {other}, not a number")),
    };
    if version > i64::from(newest) {
        return Err(format!(
            "format version {version} is newer than this {} understands ({newest})",
            names::TOOL
        ));
    }
    toml::from_str(text).map_err(|e| toml_reason(text, &e))
}

/// A TOML parse error of `text` as one line that says where: `line 3, column 7: <what>`.
pub fn toml_reason(text: &str, err: &toml::de::Error) -> String {
    let what = err.message().replace('\n', " ");
    match err.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {column}: {what}")
        }
        None => what,
    }
}

/// The temp file this process writes `path` through: `.<name>.tmp.<pid>` beside it.
fn temp_path(path: &Path) -> std::path::PathBuf {
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{file_name}.tmp.{}", std::process::id()))
}

/// Remove the temp files of `path` whose writer is gone (killed between making and renaming
/// it): `.<name>.tmp.<pid>` of a pid that no longer runs. Best effort: what cannot be read or
/// removed stays for a later write.
fn remove_dead_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!(".{}.tmp.", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let pid = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !process::alive(pid, None)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
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
    remove_dead_temps(path);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_error_says_its_line_and_column() {
        let text = "version = 1\n\n[[worktree]\nname = \"a\"\n";
        let err = toml::from_str::<toml::Table>(text).unwrap_err();
        let reason = toml_reason(text, &err);
        assert!(reason.starts_with("line 3, column "), "{reason}");
        assert!(!reason.contains('\n'), "{reason}");
    }

    #[derive(serde::Deserialize, Debug)]
    struct Doc {
        #[allow(dead_code)]
        version: u32,
    }

    #[test]
    fn an_empty_or_version_less_state_file_is_refused_and_a_newer_one_named_as_newer() {
        let parse = |text: &str| super::parse::<Doc>(text, 2).map(|_| ());
        assert_eq!(parse(""), Err("the file is empty".to_owned()));
        assert_eq!(parse(" \n\t\n"), Err("the file is empty".to_owned()));
        let no_version = parse("[[worktree]]\nname = \"a\"\n").unwrap_err();
        assert!(no_version.contains("no `version` key"), "{no_version}");
        let newer = parse("version = 3\nnew_thing = [1]\n").unwrap_err();
        assert!(newer.starts_with("format version 3 is newer"), "{newer}");
        let text = parse("version = \"1\"\n").unwrap_err();
        assert!(text.contains("not a number"), "{text}");
        assert_eq!(parse("version = 2\n"), Ok(()));
        assert_eq!(parse("version = 1\n"), Ok(()));
    }

    #[test]
    fn a_write_removes_the_temp_files_of_dead_writers_and_leaves_live_ones() {
        let dir = std::env::temp_dir().join(format!("berth-statefile-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("registry.toml");
        // A pid that ran and is gone: a child that has exited and been reaped.
        let dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        let mut dead = dead;
        dead.wait().unwrap();
        let live_pid = 1; // init runs as long as the machine does
        let dead_tmp = dir.join(format!(".registry.toml.tmp.{dead_pid}"));
        let live_tmp = dir.join(format!(".registry.toml.tmp.{live_pid}"));
        let other_file = dir.join(format!(".ports.toml.tmp.{dead_pid}"));
        for tmp in [&dead_tmp, &live_tmp, &other_file] {
            fs::write(tmp, "half").unwrap();
        }

        write_atomic(&path, b"version = 1\n", None).unwrap();

        assert_eq!(fs::read(&path).unwrap(), b"version = 1\n");
        assert!(!dead_tmp.exists(), "a dead writer's temp file goes");
        assert!(live_tmp.exists(), "a live writer's stays");
        assert!(
            other_file.exists(),
            "another file's temp files are its own writes' business"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
