//! The GitHub CLI, `gh`, as `pr-review` and `pr-fix` run it: a review posted as a pull request's
//! comment. gh brings the person's own login; berth keeps no token of its own.

use std::path::Path;
use std::process::{Command, Stdio};

/// Whether `gh` is on PATH.
pub fn installed() -> bool {
    crate::orchestrator::terminal::installed("gh")
}

/// `gh pr comment <number> --body-file <file>` in `dir`, gh's output on stderr. On failure, why
/// (its exit code, or why it could not run).
pub fn pr_comment(dir: &Path, number: u64, file: &Path) -> Result<(), String> {
    let status = Command::new("gh")
        .args(["pr", "comment", &number.to_string(), "--body-file"])
        .arg(file)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .status()
        .map_err(|e| format!("cannot run gh: {}", crate::error::io_reason(&e)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "gh pr comment {number} failed ({})",
            status
                .code()
                .map_or_else(|| "killed".to_owned(), |c| format!("exit code {c}"))
        ))
    }
}
