//! The one place berth runs GitHub's CLI, `gh`, for what only a forge can do: a review posted as
//! a pull request's comment (`pr-review`, `pr-fix`) and a pull request opened for a pipeline
//! judge's winner (`auto_pr`). gh brings the person's own login; berth keeps no token of its own.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};

use crate::error::refuse_with_hint;

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

/// `gh pr create --base <base> --head <branch> --title <title> --body <body>` in `dir`; the
/// pull request's address as gh prints it.
pub fn pr_create(dir: &Path, base: &str, branch: &str, title: &str, body: &str) -> Result<String> {
    let out = Command::new("gh")
        .args(["pr", "create", "--base", base, "--head", branch])
        .args(["--title", title, "--body", body])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("cannot run gh (is the GitHub CLI installed?)")?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(refuse_with_hint(
            format!(
                "gh pr create failed: {}",
                said.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            format!("open it yourself: gh pr create --base {base} --head {branch}"),
        ));
    }
    let said = String::from_utf8_lossy(&out.stdout);
    Ok(said.lines().last().unwrap_or_default().trim().to_owned())
}
