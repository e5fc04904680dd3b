//! Sessions and claims: who holds a worktree, and whether that hold is still live. The judging is
//! pure (`judge`); only `current` and `holder_pid` look at the environment and the processes.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::error::refuse_with_hint;
use crate::process::{self, holder_pid};
use crate::{clock, names};

/// A hold on a worktree: which session, which process keeps it alive, and since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub session: String,
    pub pid: u32,
    /// The process's start time (clock ticks since boot, Linux), so a reused pid is not mistaken
    /// for the process that made the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
    /// Seconds since the Unix epoch.
    pub at: u64,
}

/// The caller's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub id: String,
    pub pid: u32,
    pub pid_start: Option<u64>,
    /// The id was given (`--session`, `BERTH_SESSION`, a runtime's session id): claims with
    /// that id are this session's whatever process made them. Otherwise the session is the
    /// agent process itself, and only claims that process made are its own.
    pub explicit: bool,
}

impl Session {
    /// Is `claim` this session's own? A given id owns the claims made under it and no other,
    /// whatever process runs it: two ids given in one process (an orchestrator, or subagents
    /// sharing one) are two sessions. A default session is its agent process, and owns what
    /// that process claimed (Claude Code's `WorktreeCreate` claim, made with its session id, is
    /// that Claude process's in every later call, which gives no id).
    pub fn owns(&self, claim: &Claim) -> bool {
        if self.explicit {
            return claim.session == self.id;
        }
        claim.pid == self.pid
            && match (claim.pid_start, self.pid_start) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

impl Session {
    pub fn claim(&self, now: u64) -> Claim {
        Claim {
            session: self.id.clone(),
            pid: self.pid,
            pid_start: self.pid_start,
            at: now,
        }
    }
}

/// What a claim means to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hold {
    /// Nobody holds it.
    Free,
    /// The caller's own session holds it.
    Mine,
    /// Another session holds it and its process is alive and the claim is young.
    Live,
    /// Another session held it; the reason says why that no longer counts.
    Stale(String),
}

/// Judge a claim: live when it is the caller's own, or its process is alive and it is younger
/// than `ttl`; otherwise stale, with the reason a person reads.
pub fn judge(
    claim: Option<&Claim>,
    me: &Session,
    now: u64,
    ttl: u64,
    alive: impl Fn(u32, Option<u64>) -> bool,
) -> Hold {
    let Some(claim) = claim else {
        return Hold::Free;
    };
    if me.owns(claim) {
        return Hold::Mine;
    }
    if !alive(claim.pid, claim.pid_start) {
        return Hold::Stale(format!("pid {} is gone", claim.pid));
    }
    if now.saturating_sub(claim.at) >= ttl {
        return Hold::Stale(format!("older than {}", clock::format_duration(ttl)));
    }
    Hold::Live
}

/// [`judge`] a claim now, against the processes running on this machine.
pub fn hold(claim: Option<&Claim>, me: &Session, ttl: u64) -> Hold {
    judge(claim, me, clock::now(), ttl, process::alive)
}

/// The caller's session: `--session`, else `BERTH_SESSION` (both explicit), else the agent
/// process itself, named `<user>@<host>:<pid>` after it (`BERTH_SESSION_PID`, else the nearest
/// ancestor that is not git, berth or a shell: the agent, or a person's terminal).
pub fn current(flag: Option<&str>) -> Result<Session> {
    let given = match flag {
        Some(id) => Some(id.to_owned()),
        None => std::env::var(names::env::SESSION)
            .ok()
            .filter(|id| !id.is_empty()),
    };
    if let Some(id) = &given {
        validate(id)?;
    }
    let (pid, pid_start) = match std::env::var(names::env::SESSION_PID) {
        Ok(raw) if !raw.is_empty() => {
            let pid: u32 = raw.trim().parse().map_err(|_| {
                refuse_with_hint(
                    format!(
                        "{} must be a process id, not '{raw}'",
                        names::env::SESSION_PID
                    ),
                    format!(
                        "unset {}, or set it to the agent's pid",
                        names::env::SESSION_PID
                    ),
                )
            })?;
            (pid, process::start_time(pid))
        }
        _ => {
            let pid = holder_pid();
            (pid, process::start_time(pid))
        }
    };
    let explicit = given.is_some();
    let id = given.unwrap_or_else(|| format!("{}:{pid}", default_id()));
    Ok(Session {
        id,
        pid,
        pid_start,
        explicit,
    })
}

/// A session id is one safe token: no path separators, `..`, whitespace or control characters.
pub fn validate(id: &str) -> Result<()> {
    let bad = id.is_empty()
        || id.len() > 200
        || id.contains("..")
        || id
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_whitespace() || c.is_control());
    if bad {
        return Err(refuse_with_hint(
            format!("invalid session id '{}'", id.escape_debug()),
            "use one token without '/', '\\', '..', spaces or control characters",
        ));
    }
    Ok(())
}

fn default_id() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "user".to_owned());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    let token: String = format!("{user}@{host}")
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '/' || c == '\\' || c.is_control() {
                '-'
            } else {
                c
            }
        })
        .collect();
    token.replace("..", "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(session: &str, at: u64) -> Claim {
        Claim {
            session: session.into(),
            pid: 4121,
            pid_start: Some(7),
            at,
        }
    }

    const TTL: u64 = 12 * 3600;

    /// A session named `id`, given explicitly, run by process 9000.
    fn named(id: &str) -> Session {
        Session {
            id: id.into(),
            pid: 9000,
            pid_start: Some(1),
            explicit: true,
        }
    }

    /// The default session of the agent process `pid`.
    fn agent(pid: u32, start: u64) -> Session {
        Session {
            id: format!("u@h:{pid}"),
            pid,
            pid_start: Some(start),
            explicit: false,
        }
    }

    #[test]
    fn no_claim_is_free_and_my_own_is_mine_even_when_its_process_is_gone() {
        let me = named("me");
        assert_eq!(judge(None, &me, 100, TTL, |_, _| true), Hold::Free);
        assert_eq!(
            judge(Some(&claim("me", 0)), &me, 100, TTL, |_, _| false),
            Hold::Mine
        );
    }

    #[test]
    fn another_sessions_claim_is_live_while_its_process_runs_and_it_is_young() {
        assert_eq!(
            judge(Some(&claim("s2", 90)), &named("me"), 100, TTL, |_, _| true),
            Hold::Live
        );
    }

    #[test]
    fn a_claim_whose_process_is_gone_is_stale_with_the_pid_named() {
        assert_eq!(
            judge(Some(&claim("s2", 90)), &named("me"), 100, TTL, |_, _| false),
            Hold::Stale("pid 4121 is gone".into())
        );
    }

    #[test]
    fn a_claim_older_than_the_ttl_is_stale() {
        assert_eq!(
            judge(Some(&claim("s2", 0)), &named("me"), TTL, TTL, |_, _| true),
            Hold::Stale("older than 12h".into())
        );
    }

    #[test]
    fn two_agents_of_one_user_are_two_sessions_and_one_agent_is_one() {
        // Agent 4121 (started at tick 7) made the claim under its default session.
        let made = claim("u@h:4121", 90);
        assert_eq!(
            judge(Some(&made), &agent(4121, 7), 100, TTL, |_, _| true),
            Hold::Mine
        );
        assert_eq!(
            judge(Some(&made), &agent(5000, 3), 100, TTL, |_, _| true),
            Hold::Live
        );
        // A new process that reuses the pid is not the agent.
        assert_eq!(
            judge(Some(&made), &agent(4121, 8), 100, TTL, |_, _| true),
            Hold::Live
        );
        // Claude Code's session id made the claim; the same Claude process's own calls own it.
        let by_runtime = claim("0f9c-claude-session", 90);
        assert_eq!(
            judge(Some(&by_runtime), &agent(4121, 7), 100, TTL, |_, _| true),
            Hold::Mine
        );
        // A default id that happens to match is not enough: it is the process that counts.
        assert_eq!(
            judge(
                Some(&claim("u@h:5000", 90)),
                &agent(5001, 1),
                100,
                TTL,
                |_, _| true
            ),
            Hold::Live
        );
    }

    #[test]
    fn a_given_id_owns_only_its_own_claims_even_in_the_process_that_made_another() {
        // Process 9000 claimed under id `agent-1`; the same process, now given `agent-2`, is
        // another session, and its default session is the process that claimed.
        let made = Claim {
            pid: 9000,
            pid_start: Some(1),
            ..claim("agent-1", 90)
        };
        assert_eq!(
            judge(Some(&made), &named("agent-2"), 100, TTL, |_, _| true),
            Hold::Live
        );
        assert_eq!(
            judge(Some(&made), &named("agent-1"), 100, TTL, |_, _| true),
            Hold::Mine
        );
        assert_eq!(
            judge(Some(&made), &agent(9000, 1), 100, TTL, |_, _| true),
            Hold::Mine
        );
    }

    #[test]
    fn session_ids_must_be_one_safe_token() {
        for bad in ["", "a/b", "a\\b", "..", "a b", "a\tb", "a\u{7}b"] {
            assert!(validate(bad).is_err(), "{bad:?}");
        }
        for good in ["agent-7", "me@host", "0f9c1e2a-uuid", "s.1"] {
            assert!(validate(good).is_ok(), "{good:?}");
        }
    }
}
