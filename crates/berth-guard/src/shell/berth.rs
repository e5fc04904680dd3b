//! git berth itself, called by an agent: approving a head and landing it are a person's, the
//! master's or a pipeline judge's, never an agent's, whatever its environment says. Reads the
//! words only; the master's hatch is decided before any of this runs.

use super::Effect;
use super::walker::Walk;
use super::words::Arg;
use crate::names;

/// berth's options that take the next word, before its verb.
const TAKES_VALUE: &[&str] = &["--session"];

impl Walk<'_> {
    /// `git berth <args>` or `git-berth <args>`: a verdict `approve` and `ship` are refused.
    pub(super) fn berth(&mut self, args: &[Arg]) {
        let mut words = args.iter();
        let mut verb = None;
        while let Some(a) = words.next() {
            match a.text.as_deref() {
                Some(t) if TAKES_VALUE.contains(&t) => {
                    words.next();
                }
                Some(t) if t.starts_with('-') => {}
                other => {
                    verb = Some(other);
                    break;
                }
            }
        }
        let Some(verb) = verb else { return };
        let sub = || {
            let mut rest = words.clone();
            while let Some(a) = rest.next() {
                match a.text.as_deref() {
                    Some(t) if TAKES_VALUE.contains(&t) => {
                        rest.next();
                    }
                    Some(t) if t.starts_with('-') => {}
                    other => return Some(other),
                }
            }
            None
        };
        let refused = match verb {
            // `ship --history` only reads the log of landings.
            Some("ship") if !args.iter().any(|a| a.is("--history")) => {
                Some("landing work on the trunk (`ship`)")
            }
            Some("review") => match sub() {
                Some(Some("approve")) => Some("approving a head (`review approve`)"),
                // Only the shell knows which verdict: it may be an approval.
                Some(None) => Some("a verdict only the shell knows"),
                _ => None,
            },
            // Only the shell knows the verb: it may be either.
            None => Some("a verb only the shell knows"),
            _ => None,
        };
        if let Some(what) = refused {
            let tool = names::TOOL;
            self.emit(Effect::Refused {
                what: format!(
                    "{what} is for a person, the master or a pipeline's judge, not an agent"
                ),
                hint: format!(
                    "commit your work on your own branch and tell the master it is ready; \
                     `{tool} review reject <name> --note <why>` stays open to you"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::{LINKED, PRIMARY, blocked, cmd};
    use crate::{Action, Decision, Hatches, Why, decide};

    #[test]
    fn an_agent_may_not_approve_or_ship_in_any_spelling() {
        for c in [
            "git berth ship",
            "git berth ship auth",
            "git berth ship --all-approved",
            "git berth --session s ship auth",
            "git berth review approve auth",
            "git berth review --session s approve auth --note ok",
            "git-berth review approve auth",
            "/usr/local/bin/git-berth ship auth",
            "env BERTH_AGENT_LAYER=0 git berth review approve auth",
            "BERTH_AGENT_LAYER= git berth ship auth",
            "git -C . berth ship auth",
            "sh -c 'git berth ship auth'",
            "git berth \"$V\" auth",
            "git berth review \"$V\" auth",
            "true && git berth review approve auth",
        ] {
            assert!(blocked(&cmd(c, LINKED)), "allowed: {c}");
            let from_primary = format!("cd {LINKED} && {c}");
            assert!(
                blocked(&cmd(&from_primary, PRIMARY)),
                "allowed: {from_primary}"
            );
        }
    }

    #[test]
    fn rejecting_looking_and_the_masters_hatch_stay_open() {
        for c in [
            "git berth review reject auth --note 'tests fail'",
            "git berth review status",
            "git berth ship --history",
            "git berth collect",
            "git berth list",
        ] {
            assert!(!blocked(&cmd(c, LINKED)), "blocked: {c}");
        }
        let master = Hatches {
            allow_main_worktree: None,
            master_session: Some("1".into()),
        };
        let action = Action::command(
            "git berth review approve auth && git berth ship auth",
            LINKED,
        );
        assert_eq!(
            decide(&master, &action, None, &mut crate::tests::fake_probe),
            Decision::Allow(Why::MasterSession)
        );
    }
}
