//! `git berth hook worktree-create|worktree-remove`: Claude Code's WorktreeCreate and
//! WorktreeRemove hooks, so `claude --worktree` and isolated subagents get berth worktrees.
//! stdout carries the worktree path alone (Claude reads it as the path); everything else is stderr.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::Deserialize;

use crate::error::{refuse, render};
use crate::names;
use crate::paths::real_or_same;
use crate::repo::Context;

#[derive(Debug, clap::Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub event: HookEvent,
}

#[derive(Debug, clap::Subcommand)]
pub enum HookEvent {
    /// Claude Code's WorktreeCreate: read its JSON on stdin, add the worktree, print its path
    WorktreeCreate,
    /// Claude Code's WorktreeRemove: read its JSON on stdin, remove the worktree unless it holds work
    WorktreeRemove,
}

/// The fields berth reads from either event; unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
pub struct HookInput {
    pub name: Option<String>,
    /// Some wrappers send the name under this key.
    pub worktree_name: Option<String>,
    pub cwd: Option<PathBuf>,
    pub session_id: Option<String>,
    pub worktree_path: Option<PathBuf>,
}

pub fn run(args: &HookArgs, out: &mut dyn Write) -> Result<()> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read the hook's JSON on stdin")?;
    let input: HookInput = serde_json::from_str(&text)
        .map_err(|e| refuse(format!("the hook's JSON on stdin does not parse: {e}")))?;
    match args.event {
        HookEvent::WorktreeCreate => create(&input, out),
        HookEvent::WorktreeRemove => remove(&input),
    }
}

fn create(input: &HookInput, out: &mut dyn Write) -> Result<()> {
    let name = input
        .name
        .as_deref()
        .or(input.worktree_name.as_deref())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| refuse("WorktreeCreate JSON has no \"name\""))?;
    let mut ctx = context_at(input.cwd.as_deref())?;
    // The worktree is claimed for Claude Code's session, so its subagents and resumed sessions
    // find it as their own.
    if let Some(session) = input.session_id.as_deref().filter(|s| !s.is_empty()) {
        crate::session::validate(session)?;
        ctx.session_flag = Some(session.to_owned());
    }
    let added = crate::worktree::create::add(
        &ctx,
        &crate::worktree::create::AddRequest {
            name: name.to_owned(),
            ..Default::default()
        },
    )?;
    writeln!(out, "{}", real_or_same(&added.path).display())?;
    Ok(())
}

fn remove(input: &HookInput) -> Result<()> {
    let path = input
        .worktree_path
        .as_deref()
        .ok_or_else(|| refuse("WorktreeRemove JSON has no \"worktree_path\""))?;
    let path = real_or_same(path);
    // Judge from the primary checkout: the hook may run inside the worktree being removed.
    let found = Context::discover_from(if path.is_dir() {
        &path
    } else {
        input.cwd.as_deref().unwrap_or(Path::new("."))
    })?;
    let mut ctx = Context::discover_from(found.primary.as_deref().unwrap_or(&found.common_dir))?;
    // The same holder as the WorktreeCreate that made it: Claude Code's session.
    if let Some(session) = input.session_id.as_deref().filter(|s| !s.is_empty()) {
        crate::session::validate(session)?;
        ctx.session_flag = Some(session.to_owned());
    }
    let registry = crate::registry::Store::new(ctx.state_dir()).load()?;
    let Some(record) = registry
        .worktrees
        .iter()
        .find(|r| real_or_same(&r.path) == path)
    else {
        return Err(refuse(format!(
            "{} is not a worktree {} made; left as it is",
            path.display(),
            names::TOOL
        )));
    };
    let removed = crate::worktree::remove::remove(
        &ctx,
        std::slice::from_ref(&record.name),
        false,
        false,
        &mut |done| ctx.ui.status(done),
    );
    if let Err(err) = removed {
        // Claude Code only logs a failed WorktreeRemove; keeping work is the expected outcome.
        let (line, hint) = render(&err);
        ctx.ui.warn(format_args!("kept {}: {line}", path.display()));
        if let Some(hint) = hint {
            ctx.ui.hint(hint);
        }
    }
    Ok(())
}

fn context_at(cwd: Option<&Path>) -> Result<Context> {
    match cwd {
        Some(dir) => Context::discover_from(dir),
        None => Context::discover(),
    }
}
