//! The one place berth runs the `git` program. gix 0.91 can fetch but cannot push, so
//! `ship --push` hands the trunk to `git push`, and a judge's `auto_pr` the winner's branch; and
//! the build has none of gix's network transports, so a fleet's other repository is cloned by
//! `git clone` and a pull request's head is fetched by `git fetch` (`pr-review`). Every other read
//! and write of the repository goes through gix. Each call says why it cannot be gix.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};

/// `git push <remote> <trunk>:<trunk>` from `dir`, the remote being the trunk's upstream remote
/// (`branch.<trunk>.pushRemote`, `remote.pushDefault`, `branch.<trunk>.remote`, else `origin`).
/// Its output goes to stderr. An error names the command and its exit code.
pub fn push(repo: &gix::Repository, dir: &Path, trunk: &str) -> Result<String> {
    let name = super::branch_ref(trunk)?;
    let remote = repo
        .branch_remote_name(name.shorten(), gix::remote::Direction::Push)
        .map(|r| r.as_bstr().to_string())
        .unwrap_or_else(|| "origin".to_owned());
    if let Err(how) = push_branch(dir, &remote, trunk)? {
        return Err(crate::error::refuse_with_hint(
            format!("git push {remote} {trunk} failed ({how}); the landing itself is done"),
            format!("push it yourself: git push {remote} {trunk}"),
        ));
    }
    Ok(remote)
}

/// `git push <remote> <branch>` for a judge's winner (`auto_pr`), the remote found as for the
/// trunk; an error names the command and says how to push it by hand.
pub fn push_winner(repo: &gix::Repository, dir: &Path, branch: &str) -> Result<String> {
    let remote = repo
        .config_snapshot()
        .string("remote.pushDefault")
        .map(|r| r.to_string())
        .unwrap_or_else(|| "origin".to_owned());
    if let Err(how) = push_branch(dir, &remote, branch)? {
        return Err(crate::error::refuse_with_hint(
            format!("git push {remote} {branch} failed ({how}); the verdict is recorded"),
            format!("push it yourself, then open the pull request: git push {remote} {branch}"),
        ));
    }
    Ok(remote)
}

/// `git push -- <remote> refs/heads/<branch>:refs/heads/<branch>` from `dir`, its output to
/// stderr; `Err` inside says how it failed.
fn push_branch(dir: &Path, remote: &str, branch: &str) -> Result<Result<(), String>> {
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    // gix 0.91 has no push: the git program sends the branch. It runs in the repository berth
    // was started in, with berth's environment (credential helpers, ssh agent), stdout to stderr.
    let status = Command::new("git")
        .args(["push", "--", remote, &refspec])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .status()
        .context("cannot run git push (is git on PATH?)")?;
    Ok(if status.success() {
        Ok(())
    } else {
        Err(status
            .code()
            .map_or_else(|| "killed".to_owned(), |c| format!("exit code {c}")))
    })
}

/// `git clone --quiet -- <url> <dest>`: a fleet's other repository, cloned once with its primary
/// checkout. Its output goes to stderr. An error names the URL and the exit code.
pub fn clone(url: &str, dest: &Path) -> Result<()> {
    // The build enables none of gix's transports (ssh, http, file through a remote), so gix
    // cannot clone a URL here; the git program clones with the user's own credentials and ssh
    // setup. Its stdout goes to stderr so a command's own output stays clean.
    let status = Command::new("git")
        .args(["clone", "--quiet", "--"])
        .arg(url)
        .arg(dest)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .status()
        .context("cannot run git clone (is git on PATH?)")?;
    if !status.success() {
        return Err(crate::error::refuse_with_hint(
            format!(
                "git clone {url} failed ({})",
                status
                    .code()
                    .map_or_else(|| "killed".to_owned(), |c| format!("exit code {c}"))
            ),
            format!("see why with: git clone {url}"),
        ));
    }
    Ok(())
}

/// `git fetch --quiet --no-tags -- <remote> +<from>:<to>` in `dir`: one ref of the remote (a
/// pull request's head) into the local ref `to`, moved whatever it held before. On failure, what
/// git said (its last line) or why it could not run.
pub fn fetch_ref(dir: &Path, remote: &str, from: &str, to: &str) -> Result<(), String> {
    // The build enables none of gix's network transports, so gix cannot fetch from a URL; the
    // git program fetches with the user's own credential helpers and ssh setup. Its output is
    // kept to say why a ref was not there.
    let out = Command::new("git")
        .args(["fetch", "--quiet", "--no-tags", "--", remote])
        .arg(format!("+{from}:{to}"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git fetch: {}", crate::error::io_reason(&e)))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(said
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map_or_else(
            || {
                out.status
                    .code()
                    .map_or_else(|| "killed".to_owned(), |c| format!("exit code {c}"))
            },
            str::to_owned,
        ))
}
