//! `git berth add`: create a worktree on a new branch (or reuse the one of that name), register
//! and claim it, print its path. The work is the lifecycle layer's (`worktree::create`).

use std::io::Write;

use anyhow::Result;

use crate::repo::Context;
use crate::worktree::create::{self, AddRequest};

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// Name of the worktree; anything outside [A-Za-z0-9._-] becomes '-'
    pub name: String,
    /// Commit or branch the new branch starts from [default: HEAD of the worktree you are in]
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Check out this existing branch instead of creating <berth.branchPrefix><name>
    #[arg(long, value_name = "BRANCH", conflicts_with = "base")]
    pub branch: Option<String>,
    /// Refuse a name that already exists instead of reusing its worktree
    #[arg(long)]
    pub no_reuse: bool,
    /// Do not seed files or run the setup hook now (`git berth setup <name>` does it later)
    #[arg(long)]
    pub no_setup: bool,
    /// Print a JSON object instead of the path
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &AddArgs, out: &mut dyn Write) -> Result<()> {
    let added = create::add(ctx, &args.request())?;
    if args.json {
        super::write_json(out, &added)
    } else {
        writeln!(out, "{}", added.path.display())?;
        Ok(())
    }
}

impl AddArgs {
    pub fn request(&self) -> AddRequest {
        AddRequest {
            name: self.name.clone(),
            base: self.base.clone(),
            branch: self.branch.clone(),
            no_reuse: self.no_reuse,
            no_setup: self.no_setup,
            quiet: false,
            seed: Vec::new(),
        }
    }
}
