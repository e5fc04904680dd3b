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
use super::read::Said;
use crate::commands::{add, collect, review, ship};
use crate::orchestrator::backend::{self, Backend};
use crate::orchestrator::terminal;
use crate::repo::Context;

/// Where the panel runs: what an action needs to open the repository as the command did.
pub struct Place<'a> {
    pub cwd: &'a Path,
    pub session: Option<&'a str>,
}

/// Start `pending`'s command on its worktree.
pub fn run(model: &mut Model, pending: &Pending, place: &Place<'_>) {
    let name = pending.worktree.clone();
    match pending.command {
        Command::Collect => {
            let args = collect::CollectArgs { json: false };
            match through(place, |ctx, out| collect::run(ctx, &args, out)) {
                Ok((text, _)) => model.show("merge-back overview (collect)", &text, false),
                Err(line) => model.say(line, true),
            }
        }
        Command::Add => {
            model.ask("name of the new worktree:", pending.clone());
        }
        Command::Approve => {
            model.ask(format!("approve {name}: note (optional):"), pending.clone());
        }
        Command::Reject => {
            model.ask(format!("reject {name}: note:"), pending.clone());
        }
        Command::Ship => {
            model.confirm(
                format!("ship {name} through the gate? (y/n)"),
                pending.clone(),
            );
        }
        Command::Diff => show_diff(model, pending),
    }
}

/// The worktree's changes against its base, in the pane.
fn show_diff(model: &mut Model, pending: &Pending) {
    let Some(line) = model.lines.iter().find(|l| l.row.name == pending.worktree) else {
        model.say(format!("worktree '{}' is gone", pending.worktree), true);
        return;
    };
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

/// The answer typed to a command's question.
pub fn answered(model: &mut Model, pending: &Pending, answer: &str, place: &Place<'_>) {
    let name = pending.worktree.clone();
    let answer = answer.trim().to_owned();
    let said = match pending.command {
        Command::Approve | Command::Reject => {
            let action = if pending.command == Command::Approve {
                review::Action::Approve(review::ApproveArgs {
                    name: name.clone(),
                    note: Some(answer).filter(|a| !a.is_empty()),
                    json: false,
                })
            } else {
                review::Action::Reject(review::RejectArgs {
                    name: name.clone(),
                    note: answer,
                    json: false,
                })
            };
            let args = review::ReviewArgs { action };
            through(place, |ctx, out| review::run(ctx, &args, out))
        }
        Command::Add => {
            let args = add::AddArgs {
                name: answer.clone(),
                base: None,
                branch: None,
                no_reuse: false,
                no_setup: false,
                json: false,
            };
            let said = through(place, |ctx, out| add::run(ctx, &args, out));
            if said.is_ok() {
                model.select(&answer);
            }
            said.map(|(out, ui)| (format!("added {answer} at {}", out.trim()), ui))
        }
        Command::Diff | Command::Collect | Command::Ship => {
            Err(format!("{} asks nothing", word(pending.command)))
        }
    };
    tell(model, said);
}

/// What a command run from the panel said: (its stdout, its `Ui`'s lines), or its refusal's line.
pub type Reply = Result<(String, Vec<String>), String>;

/// A command's confirmation, given. Ship is not run here: the event loop runs [`ship`] on a
/// thread of its own, so that the panel keeps drawing while the gate runs.
pub fn confirmed(model: &mut Model, pending: &Pending, _place: &Place<'_>) {
    model.say(
        format!("{} asks for no confirmation", word(pending.command)),
        true,
    );
}

/// `git berth ship <name>`, standing where the panel runs: what it said.
pub fn ship(place: &Place<'_>, name: &str) -> Reply {
    let args = ship::ShipArgs {
        names: vec![name.to_owned()],
        all_approved: false,
        strategy: ship::StrategyArg::Squash,
        gate: None,
        keep: false,
        message: None,
        dry_run: false,
        push: false,
        history: false,
        json: false,
    };
    through(place, |ctx, out| ship::run(ctx, &args, out))
}

/// The command's word on the status line.
fn word(command: Command) -> &'static str {
    super::keys::COMMANDS
        .iter()
        .find(|(_, c, ..)| *c == command)
        .map_or("this", |(_, _, word, _)| *word)
}

/// Say what a command said: its last line (stdout, else what it said on its `Ui`), or its
/// refusal in its own words.
pub fn tell(model: &mut Model, said: Reply) {
    match said {
        Ok((out, ui)) => {
            let last = out
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::to_owned)
                .or_else(|| ui.last().cloned())
                .unwrap_or_else(|| "done".to_owned());
            model.say(last.trim().to_owned(), false);
        }
        Err(line) => model.say(line, true),
    }
}

/// Run a command's own `run` standing where the panel runs, its stdout and its `Ui` (stderr)
/// kept rather than written over the screen: (stdout, the `Ui`'s lines), or the refusal's line:
/// the first the command said on stderr.
fn through(
    place: &Place<'_>,
    command: impl FnOnce(&Context, &mut dyn std::io::Write) -> Result<()>,
) -> Reply {
    let said = Said::default();
    let mut ctx = Context::discover_from(place.cwd).map_err(|e| crate::error::render(&e).0)?;
    ctx.session_flag = place.session.map(str::to_owned);
    ctx.ui = crate::ui::Ui::to(said.clone());
    let mut out = Vec::new();
    match command(&ctx, &mut out) {
        Ok(()) => Ok((String::from_utf8_lossy(&out).into_owned(), said.lines())),
        // What the command said first on stderr is the refusal in its words (ship says why each
        // worktree did not land before its one-line summary).
        Err(err) => Err(said
            .lines()
            .iter()
            .find_map(|l| l.strip_prefix(&format!("{}: ", crate::names::TOOL)))
            .map(str::to_owned)
            .unwrap_or_else(|| crate::error::render(&err).0)),
    }
}

/// The worktree at `path`'s changes since `base` (committed, staged, unstaged, untracked), as
/// the unified diff the pipeline judge reads.
fn diff(path: &Path, base: &str) -> Result<String> {
    let changes = crate::git::diff::since(path, base)?;
    Ok(crate::judge::diff::render(&changes.files))
}

/// Bring `agent`'s tab to the front, when it runs in a tab of the tmux server the panel runs in,
/// or in herdr while the panel runs inside herdr; `Ok(false)` where it cannot be shown from here
/// (another server, outside herdr, no pane).
pub fn focus(agent: &AgentCell) -> Result<bool> {
    if let (Backend::Herdr, Some(pane)) = (agent.backend, agent.pane.as_deref()) {
        // Only from inside herdr, whose CLI talks to the herdr the panel runs in. A herdr
        // without `agent focus` (older than 0.9) shows nothing: the path is printed instead.
        let inside = std::env::var(backend::HERDR_ENV).as_deref() == Ok("1");
        return Ok(inside && terminal::run_only(&backend::herdr_focus(pane)).is_ok());
    }
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
