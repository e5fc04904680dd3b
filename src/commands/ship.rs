//! `git berth ship`: land approved worktrees on the trunk (`landing::ship`): each checked, built
//! on the trunk's tip, gated, and moved onto the trunk by compare-and-swap, then removed. A
//! refused worktree is said on stderr and the next one still lands; `--push` then pushes the
//! trunk (the one place the `git` program runs, `git::program`).

use std::io::Write;

use anyhow::Result;

use crate::git::land::Strategy;
use crate::landing::log;
use crate::landing::ship::{self, Report, Request};
use crate::orchestrator::{agents, identity};
use crate::render::{Cell, Column, Cut, Paint, Row, Table, Terminal};
use crate::repo::Context;
use crate::{error, names};

#[derive(Debug, clap::Args)]
pub struct ShipArgs {
    /// Worktrees to land, in this order [default: the one you stand in]
    pub names: Vec<String>,
    /// Land every approved worktree, those that overlap no other first
    #[arg(long, conflicts_with = "names")]
    pub all_approved: bool,
    /// How the branch lands: one new commit (squash), a merge commit, or a fast-forward
    #[arg(long, value_enum, default_value = "squash")]
    pub strategy: StrategyArg,
    /// Command that must pass on the merged result first [default: git config berth.gate, else
    /// the gate hook from `install --gate`]
    #[arg(long, value_name = "CMD")]
    pub gate: Option<String>,
    /// Keep the worktree, its branch and its ports after it landed
    #[arg(long)]
    pub keep: bool,
    /// The landing commit's message [default: squash: the first commit's subject and every
    /// commit's subject listed; merge: "Merge branch ..."]
    #[arg(
        long,
        short = 'm',
        value_name = "TEXT",
        conflicts_with = "all_approved"
    )]
    pub message: Option<String>,
    /// Print what would land, in which order, and the conflicts forecast; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Then push the trunk to its remote (with the git program)
    #[arg(long)]
    pub push: bool,
    /// Print the landing log instead (as `git berth log`)
    #[arg(long, conflicts_with_all = ["names", "all_approved", "dry_run", "push"])]
    pub history: bool,
    /// Print JSON: {"trunk", "dry_run", "order", "forecast", "worktrees": [...], "landed",
    /// "would_land", "refused"}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum StrategyArg {
    Squash,
    Merge,
    Ff,
}

impl From<StrategyArg> for Strategy {
    fn from(arg: StrategyArg) -> Strategy {
        match arg {
            StrategyArg::Squash => Strategy::Squash,
            StrategyArg::Merge => Strategy::Merge,
            StrategyArg::Ff => Strategy::Ff,
        }
    }
}

pub fn run(ctx: &Context, args: &ShipArgs, out: &mut dyn Write) -> Result<()> {
    if args.history {
        return log::print(ctx, args.json, out);
    }
    identity::check_lands(agents::caller_layer()?, "landing work on the trunk")?;
    if args.message.is_some() && matches!(args.strategy, StrategyArg::Ff) {
        return Err(error::refuse_with_hint(
            "--message names the landing commit, and a fast-forward makes none",
            "land it as one commit with that message: add --strategy squash",
        ));
    }
    let request = Request {
        names: args.names.clone(),
        all_approved: args.all_approved,
        strategy: args.strategy.into(),
        gate: args.gate.clone(),
        keep: args.keep,
        dry_run: args.dry_run,
        message: args.message.clone(),
    };
    let report = ship::ship(ctx, &request)?;
    if args.json {
        super::write_json(out, &report)?;
    } else {
        human(
            out,
            &report,
            &Terminal::detect(|key| ctx.config_string(key)),
        )?;
    }
    if args.push && report.landed > 0 && !report.dry_run {
        let dir = ctx.primary.clone().or_else(|| ctx.current.clone());
        let dir = dir.unwrap_or_else(|| ctx.common_dir.clone());
        let remote = crate::git::program::push(&ctx.repo, &dir, &report.trunk)?;
        ctx.ui
            .status(format_args!("pushed {} to {remote}", report.trunk));
    }
    if report.refused > 0 {
        let refused: Vec<&str> = report
            .worktrees
            .iter()
            .filter(|w| w.outcome == "refused")
            .map(|w| w.name.as_str())
            .collect();
        let not = if report.dry_run {
            "would not land"
        } else {
            "not landed"
        };
        return Err(error::refuse(format!(
            "{} of {} worktree(s) {not}: {}",
            report.refused,
            report.worktrees.len(),
            refused.join(", ")
        )));
    }
    if report.worktrees.is_empty() {
        ctx.ui.status(format_args!(
            "nothing to ship: no worktree is approved (see {} review status)",
            names::TOOL
        ));
    }
    Ok(())
}

/// One line per worktree, in landing order; with `--dry-run`, then the conflicts forecast.
fn human(out: &mut dyn Write, report: &Report, term: &Terminal) -> Result<()> {
    let mut rows = Vec::new();
    for w in &report.worktrees {
        let (paint, what) = match w.outcome {
            "landed" => (
                Paint::Green,
                format!(
                    "{}..{}  {}, gate {}",
                    short(w.old_tip.as_deref()),
                    short(w.new_tip.as_deref()),
                    w.strategy.as_str(),
                    w.gate
                ),
            ),
            "would land" => (
                Paint::Yellow,
                format!(
                    "onto {}  {}",
                    short(w.old_tip.as_deref()),
                    w.strategy.as_str()
                ),
            ),
            _ => (Paint::Red, w.reason.clone().unwrap_or_default()),
        };
        rows.push(Row {
            mark: None,
            cells: vec![
                Cell::painted(w.outcome, paint),
                Cell::from(w.name.as_str()),
                Cell::from(w.branch.as_str()),
                Cell::from(what),
            ],
            details: w
                .gate_log
                .iter()
                .map(|p| Cell::from(format!("gate log: {}", p.display())))
                .collect(),
        });
    }
    if !rows.is_empty() {
        let table = Table {
            columns: vec![
                Column::keep("OUTCOME"),
                Column::cut("NAME", Cut::End, 1, 8),
                Column::cut("BRANCH", Cut::Middle, 1, 12),
                Column::cut("WHAT", Cut::End, 0, 20),
            ],
            header: false,
            gutter: false,
            rows,
        };
        write!(out, "{}", table.render(term))?;
    }
    if report.dry_run {
        for f in &report.forecast {
            writeln!(
                out,
                "conflict forecast: {} and {} in {}",
                f.worktrees[0], f.worktrees[1], f.file
            )?;
        }
    }
    Ok(())
}

fn short(hex: Option<&str>) -> &str {
    hex.map(crate::git::short).unwrap_or("-")
}
