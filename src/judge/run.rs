//! Running the judge: the command line from `berth.judge.command` (default `claude -p`), the
//! prompt as its last argument, the candidates' JSON file named in `BERTH_JUDGE_CANDIDATES`,
//! stdout and stderr into one log, stdout kept for the verdict. The only effects of the judge
//! besides the verdicts it records.

use std::fs;
use std::io::{Read as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use anyhow::{Context as _, Result};

use super::Entry;
use crate::error::{self, misconfigured, refuse_with_hint};
use crate::{names, statefile};

/// The judge's command line: `berth.judge.command` split as a shell splits it, or
/// `claude -p` when it is not set.
pub fn command(repo: &gix::Repository) -> Result<Vec<String>> {
    let key = names::config::JUDGE_COMMAND;
    let configured = repo.config_snapshot().string(key).map(|v| v.to_string());
    split(configured.as_deref())
}

/// [`command`] from the configured value. Pure.
pub fn split(configured: Option<&str>) -> Result<Vec<String>> {
    let key = names::config::JUDGE_COMMAND;
    let line = configured.unwrap_or(names::DEFAULT_JUDGE_COMMAND);
    let words = shell_words::split(line).map_err(|e| {
        misconfigured(
            format!("{key} is not a command line: {e}"),
            format!("quote it as a shell would: git config {key} 'my-judge --flag'"),
        )
    })?;
    if words.is_empty() {
        return Err(misconfigured(
            format!("{key} is empty"),
            format!("set a command, or drop it: git config --unset {key}"),
        ));
    }
    Ok(words)
}

/// Write the candidates' JSON (see [`super::candidates_json`]) to `path`, whole or not at all.
pub fn write_candidates(path: &Path, entries: &[Entry]) -> Result<()> {
    statefile::write_atomic(path, super::candidates_json(entries).as_bytes(), None)
}

/// What a finished judge left.
#[derive(Debug)]
pub struct Ran {
    /// Everything it printed on stdout (not UTF-8 is replaced), where its verdict is.
    pub stdout: String,
    pub status: ExitStatus,
    /// The log of its stdout and stderr, interleaved as they were written.
    pub log: PathBuf,
}

/// A judge that runs: in a process group of its own whose id is [`Running::pid`], so that a
/// caller stopping the run ends it and whatever it started.
pub struct Running {
    child: Child,
    copier: JoinHandle<std::io::Result<Vec<u8>>>,
    log: PathBuf,
}

/// Start `command` with `prompt` as its last argument in the folder `dir`, with
/// `BERTH_JUDGE_CANDIDATES` set to `candidates`; its stdout and stderr go to `log` (made anew,
/// its folder too), and stdout is kept as well.
pub fn start(
    command: &[String],
    prompt: &str,
    dir: &Path,
    candidates: &Path,
    log: &Path,
) -> Result<Running> {
    let Some((program, args)) = command.split_first() else {
        return Err(error::bug("the judge was given no command line"));
    };
    if let Some(parent) = log.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot make the folder {}", parent.display()))?;
    }
    // One open file for both streams: the two handles share its offset, so neither writes
    // over the other. Stdout passes through a thread on its way, so the two interleave only
    // about as they were written.
    let file = fs::File::create(log).with_context(|| format!("cannot write {}", log.display()))?;
    let stderr = file
        .try_clone()
        .with_context(|| format!("cannot write {}", log.display()))?;
    let mut child = Command::new(program)
        .args(args)
        .arg(prompt)
        .current_dir(dir)
        .env(names::env::JUDGE_CANDIDATES, candidates)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|e| {
            refuse_with_hint(
                format!("cannot run the judge {program}: {}", error::io_reason(&e)),
                format!(
                    "install it, or set another judge: git config {} 'my-judge --flag'",
                    names::config::JUDGE_COMMAND
                ),
            )
        })?;
    let Some(mut stdout) = child.stdout.take() else {
        return Err(error::bug("the judge's stdout was not piped"));
    };
    let mut file = file;
    let copier = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            kept.extend_from_slice(&buf[..n]);
            file.write_all(&buf[..n])?;
        }
        Ok(kept)
    });
    Ok(Running {
        child,
        copier,
        log: log.to_path_buf(),
    })
}

impl Running {
    /// The judge's pid, which is also its process group's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the judge has ended (its status is then kept for [`Running::wait`]).
    pub fn ended(&mut self) -> Result<bool> {
        Ok(self
            .child
            .try_wait()
            .context("cannot wait for the judge to end")?
            .is_some())
    }

    /// Wait for the judge to end and for its stdout to be read to the end.
    pub fn wait(mut self) -> Result<Ran> {
        let status = self
            .child
            .wait()
            .context("cannot wait for the judge to end")?;
        let stdout = self
            .copier
            .join()
            .map_err(|_| error::bug("the judge's output reader panicked"))?
            .with_context(|| format!("cannot copy the judge's output to {}", self.log.display()))?;
        Ok(Ran {
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            status,
            log: self.log,
        })
    }
}

/// [`start`] the judge and wait for it.
pub fn run(
    command: &[String],
    prompt: &str,
    dir: &Path,
    candidates: &Path,
    log: &Path,
) -> Result<Ran> {
    start(command, prompt, dir, candidates, log)?.wait()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge_command_defaults_to_claude_and_splits_as_a_shell_would() {
        assert_eq!(split(None).unwrap(), ["claude", "-p"]);
        assert_eq!(
            split(Some("my-judge --model 'big one'")).unwrap(),
            ["my-judge", "--model", "big one"]
        );
        let unbalanced = split(Some("judge 'open")).unwrap_err().to_string();
        assert!(
            unbalanced.starts_with("berth.judge.command is not a command line"),
            "{unbalanced}"
        );
        let empty = split(Some("  ")).unwrap_err().to_string();
        assert_eq!(empty, "berth.judge.command is empty");
    }

    #[test]
    fn the_judge_gets_the_prompt_last_and_the_candidates_file_and_its_output_is_logged() {
        let dir = std::env::temp_dir().join(format!("berth-judge-run-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let candidates = dir.join("candidates.json");
        fs::write(&candidates, "[]").unwrap();
        let log = dir.join("run/judge.log");
        let script = r#"echo "prompt: $1"; echo "to stderr" >&2; cat "$BERTH_JUDGE_CANDIDATES"; echo; pwd; exit 3"#;
        let command: Vec<String> = ["sh", "-c", script, "judge"].map(String::from).to_vec();
        let ran = run(&command, "pick one", &dir, &candidates, &log).unwrap();
        assert_eq!(ran.status.code(), Some(3));
        assert_eq!(
            ran.stdout,
            format!("prompt: pick one\n[]\n{}\n", dir.display())
        );
        // The two streams reach the log by different ways (stderr straight, stdout through the
        // copier), so only their lines are compared, not how they interleave.
        let mut logged: Vec<String> = fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        logged.sort();
        let mut expected = vec![
            "prompt: pick one".to_owned(),
            "to stderr".to_owned(),
            "[]".to_owned(),
            dir.display().to_string(),
        ];
        expected.sort();
        assert_eq!(logged, expected);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_judge_that_cannot_start_says_how_to_set_another() {
        let dir = std::env::temp_dir();
        let err = run(
            &["berth-no-such-judge".to_owned()],
            "p",
            &dir,
            Path::new("/nonexistent"),
            &dir.join(format!("berth-judge-missing-{}.log", std::process::id())),
        )
        .err()
        .unwrap();
        assert!(
            err.to_string()
                .starts_with("cannot run the judge berth-no-such-judge"),
            "{err}"
        );
        let _ =
            fs::remove_file(dir.join(format!("berth-judge-missing-{}.log", std::process::id())));
    }
}
