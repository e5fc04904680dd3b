//! Who holds a linked worktree, as a small file in its admin folder: one line per holder (its
//! claim, each agent berth launched there) with pid, start time and session. git berth writes
//! it whenever the registry changes; the guard reads it to keep agents out of worktrees other
//! live sessions hold. The format lives here alone, for both sides.

/// One holder: a process (with its start time, so a reused pid is not it) and its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    pub start: Option<u64>,
    pub session: String,
}

impl Holder {
    /// Is this holder the caller: the same session id, or the same agent process?
    pub fn is(&self, session: Option<&str>, pid: Option<u32>) -> bool {
        session.is_some_and(|s| s == self.session) || pid.is_some_and(|p| p == self.pid)
    }
}

const HEADER: &str = "# git berth: who holds this worktree (pid, start time, session)";

/// The file's text: a header, then `<pid> <start|-> <session>` per holder.
pub fn render(holders: &[Holder]) -> String {
    let mut out = format!("{HEADER}\n");
    for h in holders {
        let start = h.start.map_or("-".to_string(), |s| s.to_string());
        out.push_str(&format!("{} {start} {}\n", h.pid, h.session));
    }
    out
}

/// The holders in `text`; `Err(line)` names the first line that is not one.
pub fn parse(text: &str) -> Result<Vec<Holder>, usize> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (Some(pid), Some(start), Some(session)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(n + 1);
        };
        let pid = pid.parse().map_err(|_| n + 1)?;
        let start = match start {
            "-" => None,
            s => Some(s.parse().map_err(|_| n + 1)?),
        };
        out.push(Holder {
            pid,
            start,
            session: session.to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_read_back_as_written_and_a_bad_line_is_named() {
        let hs = vec![
            Holder {
                pid: 12,
                start: Some(345),
                session: "me@host:12".into(),
            },
            Holder {
                pid: 13,
                start: None,
                session: "agent-x".into(),
            },
        ];
        assert_eq!(parse(&render(&hs)), Ok(hs));
        assert_eq!(parse("# h\n12 - s\nnot a holder\n"), Err(3));
    }

    #[test]
    fn a_holder_is_the_caller_by_session_or_by_process() {
        let h = Holder {
            pid: 7,
            start: None,
            session: "s".into(),
        };
        assert!(h.is(Some("s"), None));
        assert!(h.is(None, Some(7)));
        assert!(!h.is(Some("t"), Some(8)));
        assert!(!h.is(None, None));
    }
}
