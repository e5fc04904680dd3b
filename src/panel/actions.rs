//! What the panel's keys do to the repository and the terminals: each [`Command`] on the selected
//! worktree, and ↵'s focus of an agent's tab. Each goes through the library code its command uses
//! (`diff` through the judge's diff, a tab's focus through the orchestrator's tmux lines) and says
//! a refusal in the panel with that code's own words.
//!
//! A new command: a [`Command`] variant and its line in `keys::COMMANDS`, then its arm in [`run`]
//! (which may open the pane, ask a question or ask for a confirmation), and where it asks, its arm
//! in [`answered`] or [`confirmed`].

use std::path::Path;

use anyhow::Result;

use super::keys::Command;
use super::model::{AgentCell, Model, Pending};
use crate::orchestrator::backend::{self, Backend};
use crate::orchestrator::terminal;

/// Where the panel runs: what an action needs to open the repository as the command did.
pub struct Place<'a> {
    pub cwd: &'a Path,
    pub session: Option<&'a str>,
}

/// Start `pending`'s command on its worktree.
pub fn run(model: &mut Model, pending: &Pending, _place: &Place<'_>) {
    let Some(line) = model.lines.iter().find(|l| l.row.name == pending.worktree) else {
        model.say(format!("worktree '{}' is gone", pending.worktree), true);
        return;
    };
    match pending.command {
        Command::Diff => {
            let name = line.row.name.clone();
            let base = line.row.base.clone().filter(|b| !b.is_empty());
            let path = line.row.path.clone();
            let Some(base) = base else {
                model.say(
                    format!("worktree '{name}' has no base to diff against: berth did not make it"),
                    true,
                );
                return;
            };
            match diff(&path, &base) {
                Ok(text) if text.is_empty() => {
                    model.say(
                        format!("worktree '{name}' has no changes since its base"),
                        false,
                    );
                }
                Ok(text) => {
                    let title = format!("diff of {name} since {}", crate::git::short(&base));
                    model.show(title, &text, true);
                }
                Err(err) => model.say(crate::error::render(&err).0, true),
            }
        }
    }
}

/// The answer typed to a command's question.
pub fn answered(model: &mut Model, pending: &Pending, _answer: &str, _place: &Place<'_>) {
    match pending.command {
        Command::Diff => model.say("diff asks nothing", true),
    }
}

/// A command's confirmation, given.
pub fn confirmed(model: &mut Model, pending: &Pending, _place: &Place<'_>) {
    match pending.command {
        Command::Diff => model.say("diff asks for no confirmation", true),
    }
}

/// The worktree at `path`'s changes since `base` (committed, staged, unstaged, untracked), as
/// the unified diff the pipeline judge reads.
fn diff(path: &Path, base: &str) -> Result<String> {
    let changes = crate::git::diff::since(path, base)?;
    Ok(crate::judge::diff::render(&changes.files))
}

/// Bring `agent`'s tab to the front, when it runs in a tab of the tmux server the panel runs in;
/// `Ok(false)` where it cannot be shown from here (another server, herdr, no pane).
pub fn focus(agent: &AgentCell) -> Result<bool> {
    let (Backend::Tmux, Some(pane)) = (agent.backend, agent.pane.as_deref()) else {
        return Ok(false);
    };
    let Some(ours) = std::env::var(backend::TMUX)
        .ok()
        .and_then(|t| backend::tmux_socket(&t))
    else {
        return Ok(false);
    };
    let same = agent.socket.as_deref().is_none_or(|theirs| {
        crate::paths::real_or_same(theirs) == crate::paths::real_or_same(&ours)
    });
    if !same {
        return Ok(false);
    }
    terminal::run_only(&backend::tmux_focus(Some(&ours), pane))?;
    // No client is attached where the panel runs in a detached session: the pane is in front of
    // its own session all the same.
    let _ = terminal::run_only(&backend::tmux_switch_client(Some(&ours), pane));
    Ok(true)
}
