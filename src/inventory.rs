//! The registry reconciled with git: every managed worktree with whether git still knows it, and
//! the linked worktrees berth did not make. Read-only; git is the truth for existence.

use std::path::{Path, PathBuf};

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

/// A worktree berth manages: its record, and what git says of its checkout. What the lifecycle
/// takes (judge, remove, sweep), so a record is there by construction.
#[derive(Debug, Clone)]
pub struct Managed {
    pub record: Record,
    /// The record's path with links resolved, as git lists it.
    pub path: PathBuf,
    /// The checkout exists and git knows it.
    pub present: bool,
    /// `Some(reason)` when git has it locked.
    pub locked: Option<String>,
}

impl Managed {
    pub fn name(&self) -> &str {
        &self.record.name
    }
}

/// One worktree, as the registry and git see it together (what `list --all` shows).
// A repository has a handful of these: the managed one's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Entry {
    /// The primary checkout: always there, never locked.
    Primary {
        name: String,
        path: PathBuf,
    },
    Managed(Managed),
    /// A linked worktree berth did not make (`git worktree add`, or its record lost).
    Unmanaged {
        name: String,
        path: PathBuf,
        present: bool,
        locked: Option<String>,
    },
}

impl Entry {
    pub fn kind(&self) -> Kind {
        match self {
            Entry::Primary { .. } => Kind::Primary,
            Entry::Managed(_) => Kind::Managed,
            Entry::Unmanaged { .. } => Kind::Unmanaged,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Entry::Primary { name, .. } | Entry::Unmanaged { name, .. } => name,
            Entry::Managed(m) => m.name(),
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Entry::Primary { path, .. } | Entry::Unmanaged { path, .. } => path,
            Entry::Managed(m) => &m.path,
        }
    }

    pub fn present(&self) -> bool {
        match self {
            Entry::Primary { .. } => true,
            Entry::Managed(m) => m.present,
            Entry::Unmanaged { present, .. } => *present,
        }
    }

    pub fn locked(&self) -> Option<&str> {
        match self {
            Entry::Primary { .. } => None,
            Entry::Managed(m) => m.locked.as_deref(),
            Entry::Unmanaged { locked, .. } => locked.as_deref(),
        }
    }

    pub fn record(&self) -> Option<&Record> {
        match self {
            Entry::Managed(m) => Some(&m.record),
            Entry::Primary { .. } | Entry::Unmanaged { .. } => None,
        }
    }
}

/// Managed worktrees in registry order.
pub fn managed(ctx: &Context, registry: &Registry) -> Result<Vec<Managed>> {
    Ok(managed_among(registry, &git::worktrees::linked(&ctx.repo)?))
}

fn managed_among(registry: &Registry, linked: &[git::worktrees::Linked]) -> Vec<Managed> {
    registry
        .worktrees
        .iter()
        .map(|record| {
            let path = real_or_same(&record.path);
            let known = linked.iter().find(|l| l.path == path);
            Managed {
                record: record.clone(),
                present: known.is_some_and(|l| l.exists),
                locked: known.and_then(|l| l.locked.clone()),
                path,
            }
        })
        .collect()
}

/// Managed worktrees in registry order; with `all`, the primary checkout first and unmanaged
/// linked worktrees last.
pub fn entries(ctx: &Context, registry: &Registry, all: bool) -> Result<Vec<Entry>> {
    let linked = git::worktrees::linked(&ctx.repo)?;
    let managed = managed_among(registry, &linked);
    let mut out = Vec::new();
    if all && let Some(primary) = &ctx.primary {
        out.push(Entry::Primary {
            name: primary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: primary.clone(),
        });
    }
    let unmanaged: Vec<Entry> = if all {
        linked
            .iter()
            .filter(|l| !managed.iter().any(|m| m.path == l.path))
            .map(|l| Entry::Unmanaged {
                name: l
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| l.id.clone()),
                path: l.path.clone(),
                present: l.exists,
                locked: l.locked.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    out.extend(managed.into_iter().map(Entry::Managed));
    out.extend(unmanaged);
    Ok(out)
}
