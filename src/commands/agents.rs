//! `git berth agents`: every agent berth launched for this repository, alive or gone.

use std::io::Write;

use anyhow::Result;

use crate::orchestrator::agents::{self, Row};
use crate::render::{Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Print JSON: {"agents": [...]}, one object per agent
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Report {
    agents: Vec<Row>,
}

pub fn run(ctx: &Context, args: &AgentsArgs, out: &mut dyn Write) -> Result<()> {
    let rows = agents::list(ctx)?;
    if args.json {
        return super::write_json(out, &Report { agents: rows });
    }
    if rows.is_empty() {
        ctx.ui
            .status("no agents yet: start one with git berth layer1 <name> <branch>");
        return Ok(());
    }
    let term = Terminal::detect(|key| ctx.config_string(key));
    let table = Table {
        columns: vec![
            Column::cut("NAME", Cut::End, 2, 8),
            Column::keep("LAYER"),
            Column::keep("RUNTIME"),
            Column::keep("STATUS"),
            Column::keep("PANE"),
            Column::cut("BRANCH", Cut::Middle, 1, 10),
            Column::cut("WORKTREE", Cut::Middle, 0, 16),
        ],
        header: true,
        gutter: false,
        rows: rows
            .iter()
            .map(|r| crate::render::Row {
                mark: None,
                cells: vec![
                    Cell::from(r.name.as_str()),
                    Cell::from(r.layer.to_string()),
                    Cell::from(r.runtime.as_str()),
                    if r.status == "alive" {
                        Cell::painted(r.status, Paint::Green)
                    } else {
                        Cell::painted(r.status, Paint::Dim)
                    },
                    Cell::from(format!(
                        "{} {}",
                        r.backend,
                        r.pane.as_deref().unwrap_or("-")
                    )),
                    Cell::from(r.branch.as_str()),
                    Cell::from(r.worktree.display().to_string()),
                ],
                details: Vec::new(),
            })
            .collect(),
    };
    out.write_all(table.render(&term).as_bytes())?;
    Ok(())
}
