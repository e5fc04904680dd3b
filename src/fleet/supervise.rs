//! A headless agent's supervisor (`git berth fleet _supervise`), which the launch starts
//! detached in the agent's folder with the agent's log as its stdout and stderr. It starts the
//! agent in a process group of its own (so `fleet down` can end the agent and all it started
//! while the supervisor records how it went), hands the agent's pid back through a file, waits,
//! records the end in the fleet's state, then runs `on_complete` (exit 0) or `on_fail`, then
//! `on_exit`, in that folder. It never signals anything.

use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Result;

use super::state::{AgentState, Fleet};
use crate::orchestrator::identity;
use crate::{clock, error, names, process, statefile};

/// How the agent ended: its exit code, or the signal that ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Code(i32),
    Signal(i32),
}

impl End {
    /// The code a shell reports: the exit code, or 128 + the signal's number.
    pub fn shell_code(self) -> i32 {
        match self {
            End::Code(code) => code,
            End::Signal(sig) => 128 + sig,
        }
    }
}

/// The commands an agent's end runs, in order: `on_complete` after exit 0 or `on_fail` after
/// anything else, then `on_exit` always. Each with the field it came from.
pub fn hooks_for(agent: &AgentState, end: End) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    match end {
        End::Code(0) => out.extend(agent.on_complete.clone().map(|c| ("on_complete", c))),
        _ => out.extend(agent.on_fail.clone().map(|c| ("on_fail", c))),
    }
    out.extend(agent.on_exit.clone().map(|c| ("on_exit", c)));
    out
}

/// Supervise the agent `slug` of the fleet in `fleet_dir`: run `argv`, write its pid to
/// `pid_file`, wait, record, run its end's commands. What goes wrong is said in the log.
pub fn run(fleet_dir: PathBuf, slug: &str, pid_file: &Path, argv: &[String]) -> Result<()> {
    let fleet = Fleet::at(fleet_dir);
    let me = std::process::id();
    let me_start = process::start_time(me);
    note(fleet.update_agent(slug, |a| {
        a.supervisor = Some(me);
        a.supervisor_start = me_start;
    }));
    let Some((program, args)) = argv.split_first() else {
        return Err(error::bug("the supervisor was given no command line"));
    };
    let end = match Command::new(program)
        .args(args)
        .process_group(0)
        .stdin(Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            let pid = child.id();
            let start = process::start_time(pid);
            // The launch waits for this file: it comes first, the state after.
            note(statefile::write_atomic(
                pid_file,
                pid.to_string().as_bytes(),
                None,
            ));
            note(fleet.update_agent(slug, |a| {
                a.pid = Some(pid);
                a.pid_start = start;
            }));
            match child.wait() {
                Ok(status) => match (status.code(), status.signal()) {
                    (Some(code), _) => End::Code(code),
                    (None, Some(sig)) => End::Signal(sig),
                    (None, None) => End::Code(1),
                },
                Err(e) => {
                    say(format_args!(
                        "cannot wait for the agent: {}",
                        error::io_reason(&e)
                    ));
                    End::Code(1)
                }
            }
        }
        Err(e) => {
            say(format_args!(
                "cannot run {program}: {}",
                error::io_reason(&e)
            ));
            End::Code(127)
        }
    };
    finish(&fleet, slug, end);
    Ok(())
}

/// The end of an interactive agent, which ran in its tab and whose exit code the tab's shell
/// hands on (`git berth fleet _supervise <fleet> <slug> --ended <code>`): recorded, then its end
/// commands and notifications run, there in its tab. A code above 128 is a signal's, as a
/// shell reports it.
pub fn ended_in_tab(fleet_dir: PathBuf, slug: &str, code: i32) {
    let end = match code {
        129..=192 => End::Signal(code - 128),
        code => End::Code(code),
    };
    finish(&Fleet::at(fleet_dir), slug, end);
}

/// Record how the agent ended, then run its end's commands and notifications.
fn finish(fleet: &Fleet, slug: &str, end: End) {
    match end {
        End::Code(code) => say(format_args!("the agent exited with code {code}")),
        End::Signal(sig) => say(format_args!("the agent was ended by signal {sig}")),
    }
    let ended = clock::now();
    let mut agent = None;
    note(fleet.update(|state| {
        if let Some(a) = state.agent_mut(slug) {
            a.ended = Some(ended);
            (a.exit, a.signal) = match end {
                End::Code(code) => (Some(code), None),
                End::Signal(sig) => (None, Some(sig)),
            };
            agent = Some(a.clone());
        }
        Ok(())
    }));
    if let Some(agent) = agent {
        for (field, command) in hooks_for(&agent, end) {
            run_hook(&agent, field, &command, end);
        }
        for target in &agent.notify {
            notify(&agent, target, end);
        }
    }
}

/// What a notification says of the agent's end.
fn ended(agent: &AgentState, end: End) -> String {
    match end {
        End::Code(code) => format!("agent {} exited with code {code}", agent.agent),
        End::Signal(sig) => format!("agent {} was ended by signal {sig}", agent.agent),
    }
}

/// Run one `notify` target for the agent's end: `bell` writes a terminal bell to the log (this
/// process's stderr), `notify-send` shows a desktop notification.
fn notify(agent: &AgentState, target: &str, end: End) {
    match target {
        "bell" => say(format_args!("\x07{}", ended(agent, end))),
        "notify-send" => {
            let ran = Command::new("notify-send")
                .arg(format!("{}: {}", names::TOOL, agent.agent))
                .arg(ended(agent, end))
                .stdin(Stdio::null())
                .status();
            match ran {
                Ok(status) if status.success() => {}
                Ok(status) => say(format_args!("notify-send failed ({status})")),
                Err(e) => say(format_args!(
                    "cannot run notify-send: {}",
                    error::io_reason(&e)
                )),
            }
        }
        other => say(format_args!("unknown notify target '{other}' skipped")),
    }
}

/// Run one of the agent's end commands with `sh -c` where the agent worked (this process's
/// folder), its output in the log, with what the fleet set in the agent's environment,
/// `BERTH_AGENT_NAME` and `BERTH_AGENT_EXIT`, and without the hatches.
fn run_hook(agent: &AgentState, field: &str, command: &str, end: End) {
    say(format_args!("running {field}: {command}"));
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .envs(&agent.env)
        .env(names::env::AGENT_NAME, &agent.agent)
        .env(names::env::AGENT_EXIT, end.shell_code().to_string());
    for name in identity::REMOVED
        .iter()
        .copied()
        .chain(agent.unset.iter().map(String::as_str))
    {
        cmd.env_remove(name);
    }
    match cmd.status() {
        Ok(status) if status.success() => {}
        Ok(status) => say(format_args!("{field} failed ({status})")),
        Err(e) => say(format_args!("cannot run {field}: {}", error::io_reason(&e))),
    }
}

/// A line of the supervisor's own in the log, told apart from the agent's output.
fn say(what: std::fmt::Arguments<'_>) {
    eprintln!("{}: {what}", names::TOOL);
}

/// A step that failed is said in the log; the supervisor goes on, since the agent runs.
fn note(result: Result<()>) {
    if let Err(err) = result {
        let (line, _) = error::render(&err);
        say(format_args!("{line}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_success_runs_on_complete_a_failure_or_signal_on_fail_and_both_on_exit() {
        let agent = AgentState {
            on_exit: Some("x".to_owned()),
            on_complete: Some("c".to_owned()),
            on_fail: Some("f".to_owned()),
            ..AgentState::default()
        };
        let fields = |end| {
            hooks_for(&agent, end)
                .into_iter()
                .map(|(f, _)| f)
                .collect::<Vec<_>>()
        };
        assert_eq!(fields(End::Code(0)), ["on_complete", "on_exit"]);
        assert_eq!(fields(End::Code(2)), ["on_fail", "on_exit"]);
        assert_eq!(fields(End::Signal(15)), ["on_fail", "on_exit"]);
        assert_eq!(End::Signal(15).shell_code(), 143);
        assert!(hooks_for(&AgentState::default(), End::Code(0)).is_empty());
    }
}
