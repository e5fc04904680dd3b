//! The files that wire the guard into each agent runtime (settings, hook files, plugins). An
//! agent that could write them could switch the guard off or set a hatch, so every write to
//! them is blocked, wherever they lie.

use std::path::Path;

/// True when `path` (absolute, lexically normal) is one of the hook or settings files
/// `git berth init` manages for any runtime, in any checkout, or the user's own runtime
/// settings under `home`.
pub fn is_managed(path: &Path, home: Option<&Path>) -> bool {
    let _ = (path, home);
    false
}
