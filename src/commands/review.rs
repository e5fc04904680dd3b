//! `git berth review approve|reject|status`: give a verdict on a worktree's head, or show where
//! each worktree's review stands (`landing::review`). Nothing lands without an approval.

use std::io::Write;

use anyhow::Result;

use crate::landing::review::{self, Given, Row, State};
use crate::orchestrator::{agents, identity};
use crate::render::{self, Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;
use crate::ui::Ui;
use crate::{clock, names};

#[derive(Debug, clap::Args)]
#[command(
    about = "Approve or reject a worktree's head, or show where reviews stand",
    long_about = "Record a review verdict on a worktree's head, or show where reviews stand.\n\n\
A verdict is bound to the commit the worktree's branch points to when it is given, and records \
the reviewing session, the time and the note. A commit after it makes the review stale, which \
counts as not approved: review the new head again. Verdicts are kept as refs under \
refs/berth/reviews/<branch>, so they survive prune and a lost registry \
(git cat-file -p refs/berth/reviews/<branch> shows one); a verdict goes with its branch \
(remove --delete-branch, ship).\n\n\
The session that holds a worktree (its author) cannot approve its own head unless \
`git config berth.selfReview true`; it may reject it. An agent (`BERTH_AGENT_LAYER` 1 or 2) may \
reject but never approve: approving, like `ship`, is for a person or the master."
)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Approve a worktree's head commit, so that it may land
    Approve(ApproveArgs),
    /// Reject a worktree's head commit, saying why
    Reject(RejectArgs),
    /// Show the review of every worktree, or of one
    Status(StatusArgs),
}

#[derive(Debug, clap::Args)]
pub struct ApproveArgs {
    /// Name of the worktree
    pub name: String,
    /// What you checked, kept with the verdict
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Print the verdict written as a JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RejectArgs {
    /// Name of the worktree
    pub name: String,
    /// Why, for the author to act on
    #[arg(long, value_name = "TEXT")]
    pub note: String,
    /// Print the verdict written as a JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Name of the worktree [default: every managed worktree]
    pub name: Option<String>,
    /// Print JSON: {"reviews": [...]}, one object per worktree
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &ReviewArgs, out: &mut dyn Write) -> Result<()> {
    match &args.action {
        Action::Approve(a) => {
            identity::check_lands(agents::caller_layer()?, "approving a head")?;
            let given = review::give(ctx, &a.name, true, a.note.as_deref().unwrap_or(""))?;
            report(&ctx.ui, out, &given, a.json)
        }
        Action::Reject(a) => {
            let given = review::give(ctx, &a.name, false, &a.note)?;
            report(&ctx.ui, out, &given, a.json)
        }
        Action::Status(a) => {
            let overview = review::overview(ctx, a.name.as_deref())?;
            if a.json {
                super::write_json(out, &overview)
            } else {
                let term = Terminal::detect(|key| ctx.config_string(key));
                table(&ctx.ui, out, &overview.reviews, &term)
            }
        }
    }
}

/// What was recorded: JSON on stdout with `--json`, otherwise a line on `ui`.
fn report(ui: &Ui, out: &mut dyn Write, given: &Given, json: bool) -> Result<()> {
    if given.dirty {
        ui.warn(format_args!(
            "worktree '{}' has uncommitted changes; the approval covers commit {} only \
             (ship refuses a dirty worktree)",
            given.name,
            crate::git::short(&given.verdict.commit.to_string())
        ));
    }
    if json {
        return super::write_json(out, given);
    }
    let replaced = match &given.replaced {
        Some(old) => format!(", replacing {} by {}", old.word(), old.reviewer),
        None => String::new(),
    };
    ui.status(format_args!(
        "{} '{}' ({} at {}){replaced}",
        given.verdict.word(),
        given.name,
        given.branch,
        crate::git::short(&given.verdict.commit.to_string())
    ));
    Ok(())
}

fn table(ui: &Ui, out: &mut dyn Write, rows: &[Row], term: &Terminal) -> Result<()> {
    if rows.is_empty() {
        ui.status(format_args!(
            "no worktrees yet; make one with {} add <name>",
            names::TOOL
        ));
        return Ok(());
    }
    let now = clock::now();
    let table = Table {
        columns: vec![
            Column::cut("NAME", Cut::End, 1, 10),
            Column::cut("BRANCH", Cut::Middle, 1, 12),
            Column::keep("REVIEW"),
            Column::keep("HEAD"),
            Column::cut("REVIEWER", Cut::End, 2, 10),
            Column::keep("AGE"),
            Column::cut("NOTE", Cut::End, 0, 10),
        ],
        header: true,
        gutter: false,
        rows: rows.iter().map(|r| cells(r, now)).collect(),
    };
    out.write_all(table.render(term).as_bytes())?;
    Ok(())
}

fn cells(r: &Row, now: u64) -> render::Row {
    let review = match (r.review, &r.verdict) {
        (State::Stale, Some(v)) => Cell::painted(
            format!(
                "stale ({} {})",
                v.word(),
                crate::git::short(&v.commit.to_string())
            ),
            Paint::Yellow,
        )
        .or_shorter("stale"),
        (state, _) => Cell::painted(state.as_str(), state.paint()),
    };
    let v = r.verdict.as_ref();
    let note = v.map(|v| v.note.lines().next().unwrap_or("")).unwrap_or("");
    render::Row {
        mark: None,
        cells: vec![
            r.name.as_str().into(),
            r.branch.as_str().into(),
            review,
            r.head
                .as_deref()
                .map(crate::git::short)
                .unwrap_or("-")
                .into(),
            v.map(|v| v.reviewer.as_str()).unwrap_or("-").into(),
            v.map(|v| clock::age(now, v.time))
                .unwrap_or_else(|| "-".to_owned())
                .into(),
            if note.is_empty() { "-" } else { note }.into(),
        ],
        details: Vec::new(),
    }
}
