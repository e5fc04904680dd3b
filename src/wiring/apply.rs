//! Carries a plan out on disk, all or nothing. The only part of init that writes: it decides
//! nothing, and touches no file the plan does not name.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::plan::Change;
use crate::names;

/// Carries a plan out: every new content goes to a temporary file beside its target first;
/// only when all are written are they renamed into place. A failure part-way puts back what
/// was there before.
pub(crate) fn apply(root: &Path, changes: &[Change]) -> io::Result<()> {
    let mut staged: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut made_dirs = Vec::new();
    let result = (|| -> io::Result<()> {
        for c in changes {
            let path = root.join(&c.path);
            let Some(after) = &c.after else {
                staged.push((path, None));
                continue;
            };
            let parent = path.parent().unwrap_or(root).to_path_buf();
            for dir in parent.ancestors().take_while(|d| *d != root) {
                if !dir.exists() {
                    made_dirs.push(dir.to_path_buf());
                }
            }
            fs::create_dir_all(&parent).map_err(|e| with_path(e, &parent))?;
            let tmp = parent.join(format!(
                ".{}.{}-{}.tmp",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                names::TOOL.replace(' ', "-"),
                std::process::id()
            ));
            fs::write(&tmp, after).map_err(|e| with_path(e, &tmp))?;
            if let Ok(meta) = fs::metadata(&path) {
                fs::set_permissions(&tmp, meta.permissions()).map_err(|e| with_path(e, &tmp))?;
            }
            staged.push((path, Some(tmp)));
        }
        Ok(())
    })();
    if let Err(e) = result {
        for (_, tmp) in &staged {
            if let Some(tmp) = tmp {
                let _ = fs::remove_file(tmp);
            }
        }
        for dir in made_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
        return Err(e);
    }
    let originals: BTreeMap<&str, &Option<Vec<u8>>> = changes
        .iter()
        .map(|c| (c.path.as_str(), &c.before))
        .collect();
    for (i, (path, tmp)) in staged.iter().enumerate() {
        let step = match tmp {
            Some(tmp) => fs::rename(tmp, path),
            None => fs::remove_file(path).or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            }),
        };
        if let Err(e) = step {
            // Put back what the earlier steps replaced, and drop the rest of the staging.
            for (done, c) in staged[..i].iter().zip(changes) {
                let _ = match originals.get(c.path.as_str()) {
                    Some(Some(bytes)) => fs::write(&done.0, bytes),
                    _ => fs::remove_file(&done.0),
                };
            }
            for (_, tmp) in &staged[i..] {
                if let Some(tmp) = tmp {
                    let _ = fs::remove_file(tmp);
                }
            }
            return Err(with_path(e, path));
        }
        if tmp.is_none() {
            remove_empty_parents(root, path);
        }
    }
    Ok(())
}

/// After removing one of its files, drops the folders init made for it if they are now empty.
fn remove_empty_parents(root: &Path, file: &Path) {
    for dir in file.ancestors().skip(1).take_while(|d| *d != root) {
        if fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
