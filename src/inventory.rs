//! The registry reconciled with git: every managed worktree with whether git still knows it, and
//! the linked worktrees berth did not make. Read-only; git is the truth for existence.

use std::path::PathBuf;

use anyhow::Result;

use crate::git;
use crate::paths::real_or_same;
use crate::registry::{Record, Registry};
use crate::repo::Context;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Primary,
    Managed,
    Unmanaged,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Primary => "primary",
            Kind::Managed => "managed",
            Kind::Unmanaged => "unmanaged",
        }
    }
}

/// One worktree, as the registry and git see it together.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: Kind,
    pub name: String,
    pub path: PathBuf,
    /// Present when the worktree is managed.
    pub record: Option<Record>,
    /// The checkout exists and git knows it (always true for the primary checkout).
    pub present: bool,
    /// `Some(reason)` when git has it locked.
    pub locked: Option<String>,
}

/// Managed worktrees in registry order; with `all`, the primary checkout first and unmanaged
/// linked worktrees last.
pub fn entries(ctx: &Context, registry: &Registry, all: bool) -> Result<Vec<Entry>> {
    let linked = git::worktrees::linked(&ctx.repo)?;
    let mut out = Vec::new();
    if all && let Some(primary) = &ctx.primary {
        out.push(Entry {
            kind: Kind::Primary,
            name: primary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: primary.clone(),
            record: None,
            present: true,
            locked: None,
        });
    }
    let managed: Vec<PathBuf> = registry
        .worktrees
        .iter()
        .map(|r| real_or_same(&r.path))
        .collect();
    for (record, path) in registry.worktrees.iter().zip(&managed) {
        let path = path.clone();
        let known = linked.iter().find(|l| l.path == path);
        out.push(Entry {
            kind: Kind::Managed,
            name: record.name.clone(),
            present: known.is_some_and(|l| l.exists),
            locked: known.and_then(|l| l.locked.clone()),
            path,
            record: Some(record.clone()),
        });
    }
    if all {
        for l in &linked {
            if managed.contains(&l.path) {
                continue;
            }
            out.push(Entry {
                kind: Kind::Unmanaged,
                name: l
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| l.id.clone()),
                path: l.path.clone(),
                record: None,
                present: l.exists,
                locked: l.locked.clone(),
            });
        }
    }
    Ok(out)
}
