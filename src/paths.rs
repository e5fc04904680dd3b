//! Path computations every layer shares: where berth's machine-wide data lives, `~` in a
//! configured path, and paths compared after resolving symlinks. A leaf: it reads the environment
//! and the file system's links, imports only `names` and `error`, and never writes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::{error, names};

/// `${XDG_DATA_HOME:-~/.local/share}/git-berth`.
pub fn data_dir() -> Result<PathBuf> {
    let base = std::env::var_os(names::env::XDG_DATA_HOME)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| dirs::home_dir().map(|h| h.join(".local").join("share")))
        .ok_or_else(|| {
            error::refuse_with_hint(
                "cannot find a data directory: neither XDG_DATA_HOME nor HOME is set",
                "export HOME, or set git config berth.worktreeBase <dir>",
            )
        })?;
    Ok(base.join(names::DATA_DIR))
}

/// A configured path with a leading `~/` read as the home folder.
pub fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir()
            .map(|h| h.join(rest))
            .unwrap_or_else(|| PathBuf::from(path)),
        None => PathBuf::from(path),
    }
}

/// Paths are compared after resolving symlinks (`/tmp` vs `/private/tmp`); keep the path as given
/// when it cannot be resolved (a worktree whose folder is gone).
pub fn real_or_same(path: &Path) -> PathBuf {
    gix::path::realpath(path).unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_tilde_slash_means_home() {
        assert_eq!(expand_home("/srv/wt"), PathBuf::from("/srv/wt"));
        assert_eq!(expand_home("wt/~/x"), PathBuf::from("wt/~/x"));
        if let Some(home) = dirs::home_dir() {
            assert_eq!(expand_home("~/wt"), home.join("wt"));
        }
    }

    #[test]
    fn a_path_that_cannot_be_resolved_is_kept_as_given() {
        let gone = Path::new("/no/such/berth/worktree");
        assert_eq!(real_or_same(gone), gone);
    }
}
