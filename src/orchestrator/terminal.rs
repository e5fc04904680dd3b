//! The one place berth runs a terminal program (tmux, herdr) or signals an agent's process.
//! Every command line comes from `backend.rs`; each call below says why it is made. Nothing here
//! decides anything: it runs, waits, and reads back what the terminal printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use rustix::process::Signal;

use crate::error::refuse_with_hint;
use crate::process;

/// A pane berth opened (or respawned): its id, its process, and the tmux server's socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pane {
    pub id: String,
    pub pid: Option<u32>,
    pub pid_start: Option<u64>,
    pub socket: Option<PathBuf>,
}

/// Whether `program` is an executable file in a folder of `PATH`.
pub fn installed(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .any(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Run `argv` (a terminal program and its arguments) and return what it printed; a failure is
/// a refusal that quotes the program's own message.
fn run(argv: &[String]) -> Result<String> {
    let (program, args) = argv.split_first().expect("a command line");
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {program}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(refuse_with_hint(
            format!(
                "{program} {} failed: {said}",
                args.first().map_or("", |a| a.as_str())
            ),
            format!("the command was: {}", shell_words::join(argv)),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Read tmux's `PANE_FORMAT` line: `<pane id> <pid> <socket>`.
fn pane_of(printed: &str) -> Result<Pane> {
    let line = printed.lines().last().unwrap_or_default();
    let mut fields = line.splitn(3, ' ');
    let id = fields
        .next()
        .filter(|id| id.starts_with('%'))
        .ok_or_else(|| {
            crate::error::refuse(format!("tmux printed no pane id: '{}'", line.trim()))
        })?;
    let pid = fields.next().and_then(|p| p.parse::<u32>().ok());
    let socket = fields.next().filter(|s| !s.is_empty()).map(PathBuf::from);
    Ok(Pane {
        id: id.to_owned(),
        pid,
        pid_start: pid.and_then(process::start_time),
        socket,
    })
}

/// Open a tmux window, session or split (`backend::tmux_tab`, `tmux_split`), or respawn a pane
/// in place (`backend::tmux_respawn`, which keeps the pane's id): tmux starts the agent in the
/// pane, and prints the pane's id, pid and socket.
pub fn tmux_open(argv: &[String]) -> Result<Pane> {
    pane_of(&run(argv)?)
}

/// Whether the tmux server at `socket` has the session `name` (exactly): tmux's `has-session`
/// is the only way to ask, and a missing server answers no as well.
pub fn tmux_has_session(socket: Option<&Path>, name: &str) -> bool {
    let mut argv = super::backend::tmux(socket);
    argv.extend(["has-session", "-t", &format!("={name}")].map(str::to_owned));
    let (program, args) = argv.split_first().expect("tmux");
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Run a terminal command that prints nothing berth reads: tmux's `remain-on-exit` and
/// `send-keys`, herdr's `pane run` (herdr has no way to start a process in a pane other than
/// typing a line into its shell).
pub fn run_only(argv: &[String]) -> Result<()> {
    run(argv).map(drop)
}

/// Open a herdr tab or split (`backend::herdr_tab`, `herdr_split`): herdr prints JSON with the
/// new pane's id at `key` (`root_pane` for a tab, `pane` for a split).
pub fn herdr_open(argv: &[String], key: &str) -> Result<String> {
    let printed = run(argv)?;
    let json: serde_json::Value = serde_json::from_str(printed.trim()).map_err(|e| {
        crate::error::refuse(format!("herdr printed no JSON ({e}): '{}'", printed.trim()))
    })?;
    json["result"][key]["pane_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| {
            crate::error::refuse(format!(
                "herdr printed no .result.{key}.pane_id: {}",
                printed.trim()
            ))
        })
}

/// Start `argv` detached from this process and its terminal: in `cwd`, in a process group of
/// its own (so a Ctrl-C or a hang-up of the caller's job does not reach it), stdin empty, stdout
/// and stderr appended to `log`. It outlives the caller; nobody here waits for it.
pub fn start_detached(argv: &[String], cwd: &Path, log: &Path) -> Result<Target> {
    use std::os::unix::process::CommandExt as _;
    let (program, args) = argv.split_first().expect("a command line");
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("cannot open {}", log.display()))?;
    let err = out
        .try_clone()
        .with_context(|| format!("cannot open {}", log.display()))?;
    let child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .with_context(|| format!("cannot run {program}"))?;
    let pid = child.id();
    Ok(Target {
        pid,
        start: process::start_time(pid),
    })
}

/// Wait (at most `limit`) for the pid written to `file` (by a herdr pane's line, or a headless
/// agent's supervisor); the pid and its start time once it is there. With `writer`, the process
/// that is to write it: `None` as soon as it ends without having written it.
pub fn wait_for_pid_file(
    file: &Path,
    writer: Option<Target>,
    limit: Duration,
) -> Option<(u32, Option<u64>)> {
    let read = || {
        std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
            .map(|pid| (pid, process::start_time(pid)))
    };
    let until = Instant::now() + limit;
    loop {
        if let Some(found) = read() {
            return Some(found);
        }
        let writer_gone = writer.is_some_and(|w| !process::alive(w.pid, w.start));
        if Instant::now() > until || writer_gone {
            // It may have been written just before the writer ended.
            return read();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One process to end: its pid and the start time berth recorded for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub pid: u32,
    pub start: Option<u64>,
}

/// What a person reads of how ending agent `name` (pid `pid`) went: `stop` and `fleet down`.
pub fn ended_line(name: &str, pid: Option<u32>, outcome: Ended) -> String {
    let pid = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
    match outcome {
        Ended::Stopped => format!("stopped agent '{name}'{pid}"),
        Ended::Killed => {
            format!("killed agent '{name}'{pid}: it did not end within the grace after SIGTERM")
        }
        Ended::AlreadyGone => format!("agent '{name}' was not running"),
        Ended::NoStartTime => format!(
            "left agent '{name}'{pid} alone: no start time was recorded, so the pid may be another process's"
        ),
        Ended::StillRunning => format!("agent '{name}'{pid} still runs after SIGKILL"),
    }
}

/// How ending one process went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// It was not running (exited, a zombie, or its pid now belongs to another process).
    AlreadyGone,
    /// It ended within the grace after SIGTERM.
    Stopped,
    /// It outlived the grace and was sent SIGKILL.
    Killed,
    /// Nothing was signalled: no start time was recorded, so the pid may be another process's.
    NoStartTime,
    /// It still runs after SIGKILL (another user's process, or stuck in the kernel).
    StillRunning,
}

/// How long a process gets to die after SIGKILL before it is reported as still running.
const AFTER_KILL: Duration = Duration::from_secs(2);

/// End processes berth launched: SIGTERM to each at once, wait up to `grace` for all, then
/// SIGKILL what is left. A process that leads its own group (tmux and herdr start every pane's
/// program so) is signalled with its whole group, so what the agent started ends with it; any
/// other (an agent started with `--here` in a caller's job) alone, so its caller is never hit.
/// Each is checked by its start time before every signal; one without a start time is left.
pub fn end(targets: &[Target], grace: Duration) -> Vec<Ended> {
    let mut ended: Vec<Option<Ended>> = targets
        .iter()
        .map(|&t| match t.start {
            None if process::alive(t.pid, None) => Some(Ended::NoStartTime),
            None => Some(Ended::AlreadyGone),
            Some(_) if !still_running(t) => Some(Ended::AlreadyGone),
            Some(_) => None,
        })
        .collect();
    let running = |ended: &[Option<Ended>]| -> Vec<usize> {
        (0..targets.len())
            .filter(|&i| ended[i].is_none() && still_running(targets[i]))
            .collect()
    };
    for i in running(&ended) {
        signal(targets[i], Signal::TERM);
    }
    wait_while(grace, || {
        for (i, slot) in ended.iter_mut().enumerate() {
            if slot.is_none() && !still_running(targets[i]) {
                *slot = Some(Ended::Stopped);
            }
        }
        ended.iter().any(Option::is_none)
    });
    let left = running(&ended);
    for &i in &left {
        signal(targets[i], Signal::KILL);
    }
    wait_while(AFTER_KILL, || {
        left.iter().any(|&i| still_running(targets[i]))
    });
    for i in left {
        ended[i] = Some(if still_running(targets[i]) {
            Ended::StillRunning
        } else {
            Ended::Killed
        });
    }
    ended
        .into_iter()
        .map(|e| e.unwrap_or(Ended::Stopped))
        .collect()
}

/// Whether the target, or a live member of the group it leads, still runs.
fn still_running(target: Target) -> bool {
    process::alive(target.pid, target.start) || group_of(target).is_some_and(process::group_alive)
}

/// The process group the target leads, when it leads one: the stat of its pid shows that group
/// with the recorded start time (alive, or a zombie, whose pid the kernel does not hand out
/// again). Once its pid is free, a group of that id can only be what is left of its own (a
/// group id stays taken while any member lives). A pid that another process holds now: none.
fn group_of(target: Target) -> Option<i32> {
    let pid = i32::try_from(target.pid).ok()?;
    match process::stat(target.pid) {
        Some(now) => (Some(now.start) == target.start && now.pgrp == pid).then_some(pid),
        None => Some(pid),
    }
}

/// Send `sig` to the target's group when it leads one that still has a live member, else to
/// the target alone while its start time still matches.
fn signal(target: Target, sig: Signal) {
    // A group or process that ended in between is what stop wants: the error says nothing new.
    if let Some(group) = group_of(target)
        .filter(|&g| process::group_alive(g))
        .and_then(process::positive)
    {
        let _ = rustix::process::kill_process_group(group, sig);
    } else if process::alive(target.pid, target.start)
        && let Some(pid) = i32::try_from(target.pid).ok().and_then(process::positive)
    {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Call `busy` every 20 ms until it says no, or `limit` has passed.
fn wait_while(limit: Duration, mut busy: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while busy() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Become the agent (`--here`) or the master in this terminal: change to `cwd`, set `env`, and
/// exec `argv`. Returns only when the exec failed.
pub fn exec_here(cwd: &Path, argv: &[String], env: &[(&str, &str)]) -> anyhow::Error {
    use std::os::unix::process::CommandExt as _;
    let (program, args) = argv.split_first().expect("a command line");
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let err = cmd.exec();
    refuse_with_hint(
        format!("cannot run {program}: {}", crate::error::io_reason(&err)),
        format!(
            "install it, or set its command line: git config {}<runtime>{} '<command>'",
            crate::names::config::RUNTIME_PREFIX,
            crate::names::config::RUNTIME_SUFFIX
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pane_line_tmux_prints_reads_back() {
        let me = std::process::id();
        let pane = pane_of(&format!("%12 {me} /tmp/tmux-1/default\n")).unwrap();
        assert_eq!(pane.id, "%12");
        assert_eq!(pane.pid, Some(me));
        assert_eq!(pane.socket, Some(PathBuf::from("/tmp/tmux-1/default")));
        assert!(pane_of("oops").is_err());
    }
}
