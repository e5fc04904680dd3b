//! `git berth owners`: every live owner of paths: worktree, agent, paths, since.

use std::io::Write;

use anyhow::Result;

use crate::render::{Cell, Column, Cut, Table, Terminal};
use crate::repo::Context;
use crate::worktree::ownership::{self, Listed};

#[derive(Debug, clap::Args)]
pub struct OwnersArgs {
    /// Print JSON: {"owners": [...]}, one object per worktree
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Report {
    owners: Vec<Listed>,
}

pub fn run(ctx: &Context, args: &OwnersArgs, out: &mut dyn Write) -> Result<()> {
    let owners = ownership::listed(ctx)?;
    if args.json {
        return super::write_json(out, &Report { owners });
    }
    if owners.is_empty() {
        ctx.ui.status(format_args!(
            "nobody owns any path; a worktree claims some with {} own <path>",
            crate::names::TOOL
        ));
        return Ok(());
    }
    let now = crate::clock::now();
    let term = Terminal::detect(|key| ctx.config_string(key));
    let table = Table {
        columns: vec![
            Column::cut("WORKTREE", Cut::End, 1, 10),
            Column::cut("AGENT", Cut::End, 1, 8),
            Column::keep("SINCE"),
            Column::cut("PATHS", Cut::End, 0, 16),
        ],
        header: true,
        gutter: false,
        rows: owners
            .iter()
            .map(|o| crate::render::Row {
                mark: None,
                cells: vec![
                    Cell::from(o.worktree.as_str()),
                    Cell::from(o.agent.as_deref().unwrap_or("-")),
                    Cell::from(crate::clock::age(now, o.since)),
                    Cell::from(o.paths.join(", ")),
                ],
                details: Vec::new(),
            })
            .collect(),
    };
    out.write_all(table.render(&term).as_bytes())?;
    Ok(())
}
