//! `.worktree-hooks`: write them, read the ones in force, trust them, run them.
//! A setup or teardown hook runs only as the exact bytes that were read (and trusted), in its own
//! process group, so that a timeout or Ctrl-C stops everything it started. Nothing here prompts.
//! Each job has its file: `write` (the files and what `install` writes), `read` (the hooks in
//! force), `trust` (which contents may run) and `run`; this module is their one public face.

mod pre_exec;
mod read;
mod run;
mod trust;
mod write;

pub use read::{
    Hook, Hooks, NAMES, Origin, Source, committed, content_hash, in_checkout, in_force, local,
    same_committed, teardown_checkout,
};
pub use run::{Failed, Failure, run, run_with, timeout};
pub use trust::{Trusted, ensure_trusted, is_trusted, trust, trust_path, trusted};
pub use write::{
    check_gate, checkout_dir, install, install_gate, local_dir, parse_command, parse_ports, quote,
    script,
};

/// What `add`, `setup` and `install` say when the checkout's hooks are not the committed ones.
pub const UNCOMMITTED_HINT: &str = "a new worktree gets the hooks of the commit it starts \
from: commit .worktree-hooks, or install them with --local";

/// Fixtures the tests of every part share.
#[cfg(test)]
mod testing {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::{Hook, Source};

    /// A test's own real folder under the temp folder, removed (with all a hook left in it) when
    /// the test ends, passed or not.
    pub struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for Scratch {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    pub fn scratch(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("berth-hooks-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(gix::path::realpath(&dir).unwrap())
    }

    pub fn checkout_hook(name: &'static str, content: &str) -> Hook {
        Hook {
            name,
            content: content.as_bytes().to_vec(),
            source: Source::Checkout(PathBuf::from(format!("/repo/.worktree-hooks/{name}"))),
        }
    }
}
