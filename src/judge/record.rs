//! The judge's verdict as review verdicts: the winner's head approved, every other candidate's
//! rejected, each by the judge's own session with its reasons as the note, for the commit the
//! judge saw. `git berth ship <winner>` then lands it through the gate like any approved work.

use anyhow::{Context as _, Result};

use super::{Entry, Verdict};
use crate::error::refuse_with_hint;
use crate::landing::review::{self, Given};
use crate::names;
use crate::registry::Store;
use crate::repo::Context;
use crate::session::Session;

/// The judge's session for run `run_id` of `pipeline`: `judge:<pipeline>/<run id>`. No claim is
/// ever held by it (a session that claims has no `/` in its id), so the judge is never the
/// author of the work it approves.
pub fn session(pipeline: &str, run_id: &str) -> String {
    format!("{}{pipeline}/{run_id}", names::JUDGE_SESSION_PREFIX)
}

/// Record `verdict` over `entries`: approve the winner's head, then reject the others', each as
/// `session` with the reasons as the note and only for the head its diff was read at. The
/// candidates' worktrees are found by branch among those berth manages. Stops at the first
/// verdict that cannot be recorded; the ones before it stay.
pub fn record(
    ctx: &Context,
    session: &str,
    verdict: &Verdict,
    entries: &[Entry],
) -> Result<Vec<Given>> {
    if let Some((a, b, branch)) = shared_branch(entries) {
        return Err(refuse_with_hint(
            format!(
                "candidates '{a}' and '{b}' share branch {branch}: one review verdict cannot approve one and reject the other"
            ),
            "give each candidate its own worktree (no `worktree = \"<group>\"` on a judged stage)",
        ));
    }
    let reviewer = Session {
        id: session.to_owned(),
        pid: std::process::id(),
        pid_start: None,
        explicit: true,
    };
    let registry = Store::new(ctx.state_dir()).load()?;
    let winner_first = entries
        .iter()
        .filter(|e| e.name == verdict.winner)
        .chain(entries.iter().filter(|e| e.name != verdict.winner));
    let mut given = Vec::with_capacity(entries.len());
    for entry in winner_first {
        let record = registry
            .worktrees
            .iter()
            .find(|r| r.branch == entry.branch)
            .ok_or_else(|| {
                refuse_with_hint(
                    format!(
                        "candidate '{}' is on branch {}, which no worktree {} manages is on: its verdict cannot be recorded",
                        entry.name,
                        entry.branch,
                        names::TOOL
                    ),
                    format!("see the managed worktrees with {} list", names::TOOL),
                )
            })?;
        let approve = entry.name == verdict.winner;
        let one = review::give_as(
            ctx,
            &record.name,
            &reviewer,
            approve,
            &verdict.reasons,
            Some(entry.head),
        )
        .with_context(|| {
            format!(
                "cannot record the judge's verdict on candidate '{}'",
                entry.name
            )
        })?;
        given.push(one);
    }
    Ok(given)
}

/// Two candidates on one branch (a shared worktree), and that branch. Pure.
fn shared_branch(entries: &[Entry]) -> Option<(&str, &str, &str)> {
    entries.iter().enumerate().find_map(|(i, a)| {
        entries[i + 1..]
            .iter()
            .find(|b| b.branch == a.branch)
            .map(|b| (a.name.as_str(), b.name.as_str(), a.branch.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, branch: &str) -> Entry {
        Entry {
            name: name.into(),
            worktree: "/w".into(),
            branch: branch.into(),
            base: "main".into(),
            diff: String::new(),
            message: String::new(),
            head: gix::ObjectId::null(gix::hash::Kind::Sha1),
        }
    }

    #[test]
    fn the_judge_session_names_the_pipeline_and_the_run_and_can_hold_no_claim() {
        let id = session("best-of-n", "20261205-0801");
        assert_eq!(id, "judge:best-of-n/20261205-0801");
        assert!(crate::session::validate(&id).is_err());
    }

    #[test]
    fn candidates_sharing_a_branch_are_found() {
        let apart = [entry("a", "berth/p/a"), entry("b", "berth/p/b")];
        assert_eq!(shared_branch(&apart), None);
        let shared = [
            entry("a", "x"),
            entry("b", "berth/p/g"),
            entry("c", "berth/p/g"),
        ];
        assert_eq!(shared_branch(&shared), Some(("b", "c", "berth/p/g")));
    }
}
