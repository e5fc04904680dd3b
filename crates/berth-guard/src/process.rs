//! Processes on this machine: whether one still runs, its parent, name and start time, and whether
//! a process group has a live member. `/proc/<pid>/stat` is parsed here and nowhere else. It also finds
//! the agent a call belongs to (`holder_pid`). A leaf: it imports nothing of the crate; it only
//! reads, and never signals anything but signal 0.

use std::fs;
use std::path::Path;

/// The fields of `/proc/<pid>/stat` berth reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// `R`, `S`, `Z` (zombie) and so on.
    pub state: char,
    pub ppid: u32,
    /// The process group.
    pub pgrp: i32,
    /// Start time in clock ticks since boot (field 22), so a reused pid is told apart.
    pub start: u64,
}

/// Parse one `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp ...`. The command name is in
/// parentheses and may hold spaces and parentheses, so fields are counted after the last `)`.
pub fn parse_stat(text: &str) -> Option<Stat> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The stat of a running (or zombie) process; `None` when it is gone or there is no `/proc`.
pub fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

pub fn parent_of(pid: u32) -> Option<u32> {
    stat(pid).map(|s| s.ppid)
}

/// The process's command name, as `ps -o comm` shows it.
pub fn comm(pid: u32) -> Option<String> {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|c| c.trim_end().to_owned())
}

/// Start time of a process in clock ticks since boot (field 22 of `/proc/<pid>/stat`).
pub fn start_time(pid: u32) -> Option<u64> {
    stat(pid).map(|s| s.start)
}

/// Whether a process is alive: the one answer every caller asks (claims, agents, ports, locks,
/// the orchestrator's terminals). Alive means its pid exists, it is not a zombie (exited and not
/// yet reaped: a container whose first process never reaps keeps those forever, and they hold
/// nothing), and its start time is `start` when one was recorded, so a reused pid is not it.
/// Where `/proc` is missing (not Linux), a process is taken as alive and a claim lives until its
/// TTL.
pub fn alive(pid: u32, start: Option<u64>) -> bool {
    if !Path::new("/proc/self/stat").exists() {
        return true;
    }
    stat(pid).is_some_and(|now| is_alive(&now, start))
}

/// The rule of [`alive`] over a stat already read: not a zombie (`Z`) or dead (`X`), and the
/// recorded start time when there is one.
pub fn is_alive(now: &Stat, start: Option<u64>) -> bool {
    !matches!(now.state, 'Z' | 'X') && start.is_none_or(|then| then == now.start)
}

/// Whether any live process of the group is left. A zombie does not count: it holds nothing, and
/// its reaper (PID 1 in a container) may take seconds to collect it, or never do.
pub fn group_alive(group: i32) -> bool {
    let Some(id) = positive(group) else {
        return false;
    };
    // Signal 0 only checks that the group exists; EPERM means it exists under another user.
    match rustix::process::test_kill_process_group(id) {
        Ok(()) | Err(rustix::io::Errno::PERM) => live_member(group).unwrap_or(true),
        Err(_) => false,
    }
}

/// A process or group id as the kernel's calls take it: `None` for zero or a negative number,
/// which `kill(2)` would read as "my group" or "that group" instead.
pub fn positive(raw: i32) -> Option<rustix::process::Pid> {
    (raw > 0)
        .then(|| rustix::process::Pid::from_raw(raw))
        .flatten()
}

/// Whether `/proc` shows a member of `group` that is not a zombie; `None` without `/proc`.
#[cfg(target_os = "linux")]
fn live_member(group: i32) -> Option<bool> {
    let live = fs::read_dir("/proc").ok()?.flatten().any(|entry| {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            return false;
        };
        stat(pid).is_some_and(|s| s.pgrp == group && is_alive(&s, None))
    });
    Some(live)
}

#[cfg(not(target_os = "linux"))]
fn live_member(_group: i32) -> Option<bool> {
    None
}

/// Programs that only pass a call along: a claim should outlive them, not end with them.
const PASS_THROUGH: &[&str] = &[
    "git",
    "git-berth",
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "mksh",
    "tcsh",
    "csh",
    "env",
    "timeout",
    "nice",
    "nohup",
    "xargs",
];

/// The nearest ancestor that is not git, berth or a shell: the agent whose life the claim follows.
pub fn holder_pid() -> u32 {
    let mut pid = parent_of(std::process::id()).unwrap_or(0);
    let direct = pid;
    for _ in 0..64 {
        if pid <= 1 {
            break;
        }
        match comm(pid) {
            Some(name) if PASS_THROUGH.contains(&name.as_str()) => {}
            Some(_) => return pid,
            None => break,
        }
        match parent_of(pid) {
            Some(parent) => pid = parent,
            None => break,
        }
    }
    if direct > 1 {
        direct
    } else {
        std::process::id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields() {
        let line = "4121 (my (odd) name) S 4000 4121 4000 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10 18446744073709551615\n";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                state: 'S',
                ppid: 4000,
                pgrp: 4121,
                start: 98765
            })
        );
        assert_eq!(parse_stat("4121 (cut) S 1"), None);
        assert_eq!(parse_stat("no parenthesis"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_wrong_start_time_is_not() {
        let me = std::process::id();
        let start = start_time(me);
        assert!(alive(me, start));
        if let Some(start) = start {
            assert!(!alive(me, Some(start + 1)));
        }
        assert!(!alive(u32::MAX - 1, None));
    }

    #[test]
    fn a_zombie_is_not_alive_even_with_its_own_start_time() {
        if !Path::new("/proc/self/stat").exists() {
            return;
        }
        // A child this test does not wait for stays a zombie until it is reaped.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while stat(pid).is_some_and(|s| s.state != 'Z') && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(
            stat(pid).map(|s| s.state),
            Some('Z'),
            "the child is a zombie"
        );
        assert!(!alive(pid, start));
        assert!(!alive(pid, None));
        child.wait().unwrap();
    }

    #[test]
    fn this_process_has_a_parent_and_its_group_is_alive() {
        if !Path::new("/proc/self/stat").exists() {
            return;
        }
        let me = stat(std::process::id()).unwrap();
        assert_eq!(parent_of(std::process::id()), Some(me.ppid));
        assert_ne!(me.state, 'Z');
        assert!(group_alive(me.pgrp));
    }
}
