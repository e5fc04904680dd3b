//! `git berth ui`: the live panel of every worktree, for a person at a terminal. It draws on the
//! terminal itself, so stdout carries only the path ↵ picks: `cd "$(git berth ui)"`.

use std::fs::File;
use std::io::Write;

use anyhow::{Context as _, Result};

use crate::names;
use crate::panel::run::{self, Options, Outcome};
use crate::panel::view::Look;
use crate::render::{Signals, wants_colour};
use crate::repo::Context;

#[derive(Debug, clap::Args)]
#[command(
    about = "A live panel of every worktree: select one to go there, or to see its diff",
    long_about = "A live panel of every worktree of the repository: the primary checkout and \
worktrees berth did not make are marked; each row shows who holds the claim, the review, the \
agent working there (layer, runtime, alive or gone), the branch, its base and how far it drifted \
(+ahead -behind), whether it is dirty, its ports, its last commit, and (here) for the one you \
stand in. Rows of a fleet or a pipeline run are grouped under it; the selected row shows the \
paths it owns. The panel reads again by itself when a worktree, claim, agent, verdict, HEAD or \
index changes.\n\n\
Keys: up/down or j/k select; enter prints the selected worktree's path and leaves, or, when a live \
agent works there in a tab of the tmux you run in (or of herdr, run inside herdr), brings that \
tab to the front; d shows the \
worktree's diff against its base; c the merge-back overview (as collect); a and x approve or \
reject its head with a note (as review); s ships it after y (as ship); n adds a worktree, asking \
its name (as add); r reads again; / filters (esc clears); ? shows the keys; q or \
esc leaves.\n\n\
It needs a terminal: stdin must be one, and it draws on /dev/tty, never on stdout. To change \
folders with it: bcd() { cd \"$(git berth ui)\" || return; }"
)]
pub struct UiArgs {}

/// The terminal the panel draws on, or the refusal that there is none: checked before the
/// repository is looked for, so a script or an agent is told the one thing that matters.
pub fn terminal() -> Result<File> {
    crate::panel::term::require()
}

pub fn run(ctx: &Context, _args: &UiArgs, tty: File, out: &mut dyn Write) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let anchor = ctx.primary.as_deref().unwrap_or(&ctx.common_dir);
    let title = anchor
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let options = Options {
        cwd,
        session: ctx.session_flag.clone(),
        common_dir: ctx.common_dir.clone(),
        title,
        look: Look {
            colour: wants_colour(&Signals::detect(|key| ctx.config_string(key), true)),
        },
        exit_after_first_frame: std::env::var(names::env::UI_EXIT_AFTER_FIRST_FRAME)
            .is_ok_and(|v| v == "1"),
    };
    match run::run(&options, tty)? {
        Outcome::Path(path) => writeln!(out, "{}", path.display())?,
        Outcome::Focused { agent, pane } => ctx.ui.status(format_args!(
            "agent '{agent}' is in front: tmux pane {pane}"
        )),
        Outcome::Left => {}
    }
    Ok(())
}
